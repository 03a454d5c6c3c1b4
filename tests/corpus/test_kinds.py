"""corpus/kinds.py: an artifact the corpus cannot mutate is refused with one line naming the file,
whatever its content (binary, not UTF-8, not its kind, nested past any reader's bound), never a
traceback; and through ``corpus measure --artifact`` the line reaches the user with exit 2."""
from pathlib import Path

import pytest
from click.testing import CliRunner

from corpus.kinds import KindError, check_content

EX = Path(__file__).resolve().parents[2] / "corpus" / "examples" / "user-gate"

REFUSED = {  # (kind, content, words the one line carries)
    "binary": ("text", b"a\0b", "binary file"),
    "not utf-8": ("text", b"\xff\xfe", "not UTF-8"),
    "not json": ("json", b"{1}", "--kind json, but not JSON"),
    "json nested past the bound": ("json", b"[" * 100_000, "nested deeper than 200 levels"),
    "yaml nested past the recursion limit (flow)": ("yaml", b"[" * 100_000, "nested too deep"),
    "yaml nested past the recursion limit (block)": ("yaml", b"- " * 50_000 + b"x", "nested too deep"),
    "python nested past the parser's bound": ("python", b"(" * 100_000, "--kind python, but not Python"),
    "unknown kind": ("xml", b"<a/>", "unknown artifact kind"),
}


@pytest.mark.parametrize("case", sorted(REFUSED))
def test_content_the_corpus_cannot_mutate_is_one_line_naming_the_file(tmp_path, case):
    kind, data, words = REFUSED[case]
    with pytest.raises(KindError) as ei:
        check_content(tmp_path / "artifact", data, kind)
    msg = str(ei.value)
    assert words in msg and str(tmp_path / "artifact") in msg and "\n" not in msg, msg


@pytest.mark.parametrize("kind", ["json", "yaml", "toml", "python", "markdown"])
def test_nesting_a_reader_parses_is_accepted(tmp_path, kind):
    data = {"json": b"[" * 150 + b"]" * 150, "yaml": b"a: [[[1]]]\n", "toml": b"a = [[[1]]]\n",
            "python": b"x = ((((1))))\n", "markdown": b"# t\n"}[kind]
    check_content(tmp_path / "artifact", data, kind)


def test_deep_json_through_the_command_exits_2_with_one_line(cli, tmp_path):
    art = tmp_path / "deep.json"
    art.write_bytes(b"[" * 100_000)
    r = CliRunner().invoke(cli, ["corpus", "measure", "--gate", str(EX / "gate.toml"), "--artifact", str(art),
                                 "--out", str(tmp_path / "out"), "--quiet"])
    assert r.exit_code == 2, r.output
    assert "nested deeper than 200 levels" in r.output and "Traceback" not in r.output, r.output
