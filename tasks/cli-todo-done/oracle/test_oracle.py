"""Hidden oracle for cli-todo-done: atomicity, streams, exit codes, edge cases."""
import pytest

from todo.cli import main

START = "[ ] a\n[x] b\n[ ] c\n"


@pytest.fixture
def path(tmp_path):
    p = tmp_path / "t.txt"
    p.write_text(START)
    return p


def run(argv):
    try:
        return main(argv)
    except SystemExit as exc:
        return exc.code


def test_any_unknown_id_changes_nothing(path, capsys):
    assert run(["--file", str(path), "done", "1", "7", "3"]) == 1
    captured = capsys.readouterr()
    assert path.read_text() == START
    assert captured.out == ""
    assert "no task 7" in captured.err


@pytest.mark.parametrize("bad", ["0", "-1", "4"])
def test_out_of_range_ids(path, capsys, bad):
    assert run(["--file", str(path), "done", bad]) == 1
    captured = capsys.readouterr()
    assert captured.out == ""
    assert f"no task {bad}" in captured.err
    assert path.read_text() == START


@pytest.mark.parametrize("argv", [["done"], ["done", "two"], ["done", "1.5"]])
def test_usage_errors_exit_2(path, capsys, argv):
    assert run(["--file", str(path), *argv]) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    assert captured.err
    assert path.read_text() == START


def test_already_done_is_not_an_error(path, capsys):
    assert run(["--file", str(path), "done", "2"]) == 0
    assert capsys.readouterr().out.strip() == "already done 2: b"
    assert path.read_text() == START


def test_duplicates_once_in_given_order(path, capsys):
    assert run(["--file", str(path), "done", "3", "1", "3"]) == 0
    assert capsys.readouterr().out.splitlines() == ["done 3: c", "done 1: a"]
    assert path.read_text() == "[x] a\n[x] b\n[x] c\n"


def test_missing_file_has_no_tasks(tmp_path, capsys):
    assert run(["--file", str(tmp_path / "none.txt"), "done", "1"]) == 1
    assert "no task 1" in capsys.readouterr().err
    assert not (tmp_path / "none.txt").exists()


def test_list_reflects_done(path, capsys):
    run(["--file", str(path), "done", "1"])
    capsys.readouterr()
    assert run(["--file", str(path), "list"]) == 0
    assert capsys.readouterr().out.splitlines()[0] == "  1 [x] a"
