"""The one TOML loader: nesting bounded before tomllib recurses (a 100,000-deep file is one line
naming the file and line, never a RecursionError), brackets inside strings and comments not counted."""
from __future__ import annotations

import pytest

from harness.core.errors import InputError
from harness.core.tomlfile import load_toml, parse_toml, toml_depth


def test_a_toml_nested_100000_deep_is_one_input_error_naming_the_file_and_line(tmp_path):
    path = tmp_path / "deep.toml"
    path.write_text("x = 1\n\na = " + "[" * 100_000 + "]" * 100_000 + "\n")
    with pytest.raises(InputError, match="nested deeper than 200") as info:
        load_toml(path)
    assert info.value.file == str(path) and info.value.line == 3


def test_dotted_keys_nested_past_the_bound_are_refused():
    with pytest.raises(InputError, match="nested deeper than 200"):
        parse_toml("a" + ".a" * 1000 + " = 1\n", "d.toml")


def test_brackets_in_strings_and_comments_are_not_nesting():
    text = 's = "' + "[" * 300 + '"  # ' + "{" * 300 + "\nm = '''\n" + "[" * 300 + "\n'''\nx = [[1], [2]]\n"
    assert toml_depth(text)[0] == 2
    assert parse_toml(text, "s.toml")["x"] == [[1], [2]]


def test_a_syntax_error_names_the_line():
    with pytest.raises(InputError) as info:
        parse_toml("a = 1\nb = \n", "bad.toml")
    assert info.value.line == 2
