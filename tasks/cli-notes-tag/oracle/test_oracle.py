"""Hidden oracle for cli-notes-tag: repeated tags, case, exit codes and streams."""
import json

import pytest

from notes.cli import main


@pytest.fixture
def store(tmp_path):
    path = tmp_path / "s.json"
    path.write_text(json.dumps({"next_id": 5, "notes": [
        {"id": 1, "text": "alpha", "tags": ["Work", "urgent"]},
        {"id": 2, "text": "beta", "tags": ["work"]},
        {"id": 3, "text": "gamma", "tags": ["home", "URGENT"]},
        {"id": 4, "text": "delta", "tags": []},
    ]}))
    return str(path)


def run(argv):
    try:
        return main(argv)
    except SystemExit as exc:
        return exc.code


def ids(out):
    return [int(line.split()[0]) for line in out.splitlines()]


def test_tags_are_case_insensitive(store, capsys):
    assert run(["--store", store, "list", "--tag", "WORK"]) == 0
    assert ids(capsys.readouterr().out) == [1, 2]


def test_repeated_tags_must_all_match(store, capsys):
    assert run(["--store", store, "list", "--tag", "work", "--tag", "Urgent"]) == 0
    assert ids(capsys.readouterr().out) == [1]
    assert run(["--store", store, "list", "--tag", "urgent", "--tag", "work"]) == 0
    assert ids(capsys.readouterr().out) == [1]


def test_no_match_exits_1_with_message_on_stderr(store, capsys):
    assert run(["--store", store, "list", "--tag", "home", "--tag", "work"]) == 1
    captured = capsys.readouterr()
    assert captured.out == ""
    assert "no matching notes" in captured.err


@pytest.mark.parametrize("bad", ["", "   "])
def test_blank_tag_is_a_usage_error(store, capsys, bad):
    assert run(["--store", store, "list", "--tag", bad]) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    assert "tag" in captured.err


def test_tag_needs_a_value(store, capsys):
    assert run(["--store", store, "list", "--tag"]) == 2
    assert capsys.readouterr().out == ""


def test_list_without_tag_is_unchanged(store, capsys):
    assert run(["--store", store, "list"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0] == "  1  alpha  [Work,urgent]"
    assert ids("\n".join(out)) == [1, 2, 3, 4]


def test_empty_store_list_is_not_an_error(tmp_path, capsys):
    assert run(["--store", str(tmp_path / "none.json"), "list"]) == 0
    assert capsys.readouterr().out == ""


def test_list_does_not_modify_the_store(store, capsys):
    before = open(store).read()
    run(["--store", store, "list", "--tag", "work"])
    assert open(store).read() == before
