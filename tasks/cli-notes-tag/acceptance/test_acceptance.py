"""Visible acceptance test for cli-notes-tag: drives notes.cli.main(argv)."""
import shutil
from pathlib import Path

import pytest

import notes
from notes.cli import main

SAMPLE = Path(notes.__file__).resolve().parent.parent / "data" / "notes.json"


@pytest.fixture
def store(tmp_path):
    path = tmp_path / "notes.json"
    shutil.copy(SAMPLE, path)
    return str(path)


def test_list_all(store, capsys):
    assert main(["--store", store, "list"]) == 0
    assert len(capsys.readouterr().out.splitlines()) == 3


def test_list_by_tag(store, capsys):
    assert main(["--store", store, "list", "--tag", "admin"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert [line.split()[0] for line in out] == ["1", "3"]


def test_added_note_is_listed_by_tag(store, capsys):
    assert main(["--store", store, "add", "water plants", "--tag", "home"]) == 0
    capsys.readouterr()
    assert main(["--store", store, "list", "--tag", "home"]) == 0
    assert "water plants" in capsys.readouterr().out
