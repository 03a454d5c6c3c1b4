"""Visible acceptance test for cli-todo-done: drives todo.cli.main(argv)."""
import shutil
from pathlib import Path

import pytest

import todo
from todo.cli import main

SAMPLE = Path(todo.__file__).resolve().parent.parent / "data" / "todo.txt"


@pytest.fixture
def path(tmp_path):
    p = tmp_path / "todo.txt"
    shutil.copy(SAMPLE, p)
    return p


def test_done_marks_one_task(path, capsys):
    assert main(["--file", str(path), "done", "3"]) == 0
    assert capsys.readouterr().out.strip() == "done 3: fix bike light"
    assert path.read_text().splitlines()[2] == "[x] fix bike light"


def test_done_several(path, capsys):
    assert main(["--file", str(path), "done", "1", "3"]) == 0
    assert path.read_text() == "[x] renew passport\n[x] pay electricity bill\n[x] fix bike light\n"


def test_unknown_task_is_an_error(path, capsys):
    assert main(["--file", str(path), "done", "9"]) == 1
    captured = capsys.readouterr()
    assert "no task 9" in captured.out + captured.err
