"""Hidden oracle for cli-csvsum-format: JSON exactness, errors on stderr, exit codes."""
import json

import pytest

from csvsum.cli import main


def run(argv):
    try:
        return main(argv)
    except SystemExit as exc:
        return exc.code


@pytest.fixture
def csvfile(tmp_path):
    p = tmp_path / "d.csv"
    p.write_text('id,"price ""net""",qty,note\n1,0.1,2,x\n2,0.2,3,\n3,,4,y\n')
    return str(p)


def test_json_is_one_line_in_key_order(csvfile, capsys):
    assert run([csvfile, "--column", "qty", "--format", "json"]) == 0
    out = capsys.readouterr().out
    assert out == '{"column": "qty", "count": 3, "sum": 9}\n'


def test_json_escapes_column_names_and_rounds_float_noise(csvfile, capsys):
    assert run([csvfile, "--column", 'price "net"', "--format", "json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data == {"column": 'price "net"', "count": 2, "sum": 0.3}
    assert isinstance(data["count"], int)


def test_json_sum_of_integers_is_an_integer(csvfile, capsys):
    assert run([csvfile, "--column", "id", "--format", "json"]) == 0
    out = capsys.readouterr().out
    assert '"sum": 6}' in out and "6.0" not in out


def test_json_empty_column(tmp_path, capsys):
    p = tmp_path / "e.csv"
    p.write_text("a,b\n1,\n2,\n")
    assert run([str(p), "--column", "b", "--format", "json"]) == 0
    assert json.loads(capsys.readouterr().out) == {"column": "b", "count": 0, "sum": 0}


@pytest.mark.parametrize("fmt", ["text", "json"])
@pytest.mark.parametrize("case", ["missing-file", "unknown-column", "not-a-number"])
def test_errors_go_to_stderr_with_exit_1_in_every_format(tmp_path, capsys, fmt, case):
    p = tmp_path / "x.csv"
    p.write_text("a,b\n1,oops\n")
    argv = {"missing-file": [str(tmp_path / "nope.csv"), "--column", "a"],
            "unknown-column": [str(p), "--column", "zzz"],
            "not-a-number": [str(p), "--column", "b"]}[case]
    assert run(argv + ["--format", fmt]) == 1
    captured = capsys.readouterr()
    assert captured.out == ""
    assert captured.err.startswith("error: ")


@pytest.mark.parametrize("argv", [["--format", "xml"], ["--format"], ["--format", "JSON"]])
def test_bad_format_is_a_usage_error(csvfile, capsys, argv):
    assert run([csvfile, "--column", "qty", *argv]) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    assert "format" in captured.err


def test_default_and_explicit_text_are_identical(csvfile, capsys):
    assert run([csvfile, "--column", "price \"net\""]) == 0
    default = capsys.readouterr().out
    assert run([csvfile, "--column", "price \"net\"", "--format", "text"]) == 0
    assert capsys.readouterr().out == default == 'column=price "net" count=2 sum=0.3\n'
