"""The manual cannot drift from the code (issue 36, item 4).

- ``docs/reference/cli.md`` is what ``harness.cli.docs_gen`` renders from the click commands, byte for
  byte: a changed option without a regenerated page fails here (fix: ``python -m harness.cli.docs_gen``).
- Every relative link in README.md, CONTRIBUTING.md and docs/ resolves: the file exists, and a
  ``#anchor`` names a heading of that file (GitHub's slugs).
- Every ``harness ...`` command a page shows, in a code block or an inline code span, is a command of
  the ``harness`` group, and every option it passes is one of that command's options.
- Every ``make TARGET`` a page shows is a target of the Makefile (the README's quickstart is ``make run``
  and ``make test``; ``.ci/run`` runs ``make test-all``).
- README.md stays a README: at most 200 lines (the issue's acceptance), the manual is in docs/.
- Text written before the move that still cites "(README, SECTION)" (analysis output pinned in
  tests/fixtures, frozen protocols' comments) names a section docs/index.md's "Moved sections" table maps.
- The manual builds as a static site with MkDocs (``mkdocs.yml``) in strict mode: a warning (a page left
  out of the nav, an anchor MkDocs cannot find) fails the build.
"""
from __future__ import annotations

import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

from harness.cli import docs_gen

REPO = Path(__file__).resolve().parents[2]
PAGES = sorted([REPO / "README.md", REPO / "CONTRIBUTING.md", *(REPO / "docs").rglob("*.md")])
README_MAX_LINES = 200

FENCE = re.compile(r"^(```|~~~)")
LINK = re.compile(r"(?<!!)\[[^\]\n]*\]\(([^)\s]+)\)")
INLINE = re.compile(r"`([^`]+)`")
HEADING = re.compile(r"^(#{1,6})\s+(.*?)\s*#*\s*$")
OPTION = re.compile(r"^--?[A-Za-z][\w-]*$")


def _rel(path: Path, root: Path = REPO) -> str:
    return path.relative_to(root).as_posix()


def split_blocks(text: str) -> tuple[list[str], list[list[str]]]:
    """(prose lines, fenced code blocks): fenced blocks hold commands; headings and links live in prose."""
    prose: list[str] = []
    blocks: list[list[str]] = []
    current: list[str] | None = None
    for line in text.splitlines():
        if FENCE.match(line.strip()):
            if current is None:
                current = []
            else:
                blocks.append(current)
                current = None
            prose.append("")  # keep line numbers of the prose aligned
            continue
        if current is None:
            prose.append(line)
        else:
            current.append(line)
            prose.append("")
    return prose, blocks


def slug(heading: str) -> str:
    """GitHub's anchor for a heading: inline code marks and punctuation dropped, spaces to hyphens."""
    text = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", heading)  # a link in a heading: its text
    text = re.sub(r"[^\w\- ]", "", text.strip().lower())
    return text.replace(" ", "-")


def anchors(path: Path) -> set[str]:
    """Every heading anchor of a Markdown file, duplicates numbered as GitHub numbers them."""
    prose, _ = split_blocks(path.read_text(encoding="utf-8"))
    seen: dict[str, int] = {}
    out = set()
    for line in prose:
        m = HEADING.match(line)
        if not m:
            continue
        base = slug(m.group(2))
        n = seen.get(base, 0)
        seen[base] = n + 1
        out.add(base if n == 0 else f"{base}-{n}")
    return out


def broken_links(path: Path, root: Path = REPO) -> list[str]:
    """Relative links of ``path`` whose file or anchor does not exist, as 'page:line: target (why)'."""
    prose, _ = split_blocks(path.read_text(encoding="utf-8"))
    problems = []
    for no, line in enumerate(prose, 1):
        for target in LINK.findall(INLINE.sub("", line)):
            if re.match(r"^[a-z][a-z0-9+.-]*:", target):  # https:, mailto:: not checked offline
                continue
            file_part, _, anchor = target.partition("#")
            dest = (path.parent / file_part).resolve() if file_part else path
            where = f"{_rel(path, root)}:{no}: {target}"
            if root not in dest.parents and dest != root:
                problems.append(f"{where} (outside the repository)")
            elif not dest.exists():
                problems.append(f"{where} (no such file)")
            elif anchor and (dest.suffix != ".md" or anchor not in anchors(dest)):
                problems.append(f"{where} (no heading with anchor #{anchor})")
    return problems


def shown_commands(text: str) -> list[str]:
    """Every ``harness ...`` command line of fenced blocks (continuation lines joined) and inline spans."""
    prose, blocks = split_blocks(text)
    found = []
    for block in blocks:
        joined: list[str] = []
        for line in block:
            cont = joined and (joined[-1].endswith("\\") or (line[:1].isspace() and line.strip()))
            if cont:
                joined[-1] = joined[-1].rstrip("\\") + " " + line.strip()
            else:
                joined.append(line.strip())
        found += [ln for ln in joined if _argv(ln)]
    found += [span for span in INLINE.findall("\n".join(prose)) if _argv(span.replace("\n", " "))]
    return found


def _argv(line: str) -> list[str]:
    """The words after ``harness`` (leading VAR=value assignments skipped), or [] if not a harness command."""
    try:
        words = shlex.split(line, comments=True)
    except ValueError:
        words = line.split("#", 1)[0].split()
    while words and re.match(r"^[A-Z_][A-Z0-9_]*=", words[0]):
        words = words[1:]
    if not words or words[0] not in ("harness", ".venv/bin/harness"):
        return []
    return [w.strip("[]()|,") for w in words[1:]]


def command_problems(line: str) -> list[str]:
    """Why a shown command would not parse: an unknown (sub)command or an option the command lacks."""
    import click
    words = _argv(" ".join(line.split()))
    cmd, rest = docs_gen.find([w for w in words if w])
    name = " ".join(["harness", *words[: len(words) - len(rest)]])
    problems = []
    if isinstance(cmd, click.Group) and rest and re.match(r"^[a-z][a-z0-9-]*$", rest[0]):  # not a PLACEHOLDER
        problems.append(f"{name} has no subcommand {rest[0]!r}")
    known = docs_gen.option_names(cmd)
    for w in rest:
        opt = w.split("=", 1)[0]
        if OPTION.match(opt) and opt not in known:
            problems.append(f"{name} has no option {opt}")
    return problems


def make_targets() -> set[str]:
    text = (REPO / "Makefile").read_text(encoding="utf-8")
    return {m for line in text.splitlines() for m in re.findall(r"^([\w.-]+(?:/[\w.-]+)*)\s*:(?!=)", line)}


# --- the manual against the code ----------------------------------------------------------------


@pytest.mark.parametrize("target", sorted(docs_gen.pages()), ids=lambda p: p.name)
def test_the_generated_reference_pages_are_what_the_code_renders(target):
    """cli.md from the click commands, protocol-keys.md from the protocol's models, record-fields.md from
    the record's JSON Schema: each committed page is byte for byte what ``harness.cli.docs_gen`` renders."""
    committed = target.read_text(encoding="utf-8")
    assert committed == docs_gen.pages()[target](), f"{_rel(target)} is stale: run `{docs_gen.REGENERATE}`"


def test_the_protocol_and_record_pages_cover_every_table_key_and_field():
    from harness.core import protocol, record
    keys = docs_gen.PROTOCOL_TARGET.read_text(encoding="utf-8")
    for table in protocol.ProtocolFile.model_fields:
        assert re.search(rf"^## \[\[?{table}(\.NAME)?\]\]?$", keys, re.M), table
    assert "| `max_usd` |" in keys and "| `review_rounds` |" in keys  # [budget]'s keys, A4's parameters
    fields = docs_gen.RECORD_TARGET.read_text(encoding="utf-8")
    assert all(f"| `{name}` |" in fields for name in record.json_schema()["properties"])


def test_the_events_page_covers_every_event_type_and_field():
    """Each of the closed set's types has its section, naming its class and each of its fields; a class's docstring
    is its section's text."""
    from harness.core import events
    page = docs_gen.EVENTS_TARGET.read_text(encoding="utf-8")
    sections = dict(zip(re.findall(r"^## `(\w+)`$", page, re.M), re.split(r"^## `\w+`$", page, flags=re.M)[1:]))
    assert list(sections) == [t.value for t in events.EventType]
    for member, text in sections.items():
        cls = events.CLASSES[events.EventType(member)]
        assert f"`{cls.__name__}`" in text
        assert all(f"| `{name}` |" in text for name in cls.model_fields if name not in ("type", "seq", "t")), member
    assert "`ToolEvent`: A tool call with nothing else to log" in sections["tool"]


def test_the_command_reference_documents_every_command_and_visible_option():
    page = docs_gen.TARGET.read_text(encoding="utf-8")
    for words, cmd, _ctx in docs_gen.commands():
        assert f"## {' '.join(['harness', *words])}\n" in page
        for p in cmd.params:
            if getattr(p, "opts", None) and not getattr(p, "hidden", False) and p.param_type_name == "option":
                assert f"`{p.opts[0]}`" in page, (words, p.opts)


def test_every_relative_link_resolves():
    problems = [p for page in PAGES for p in broken_links(page)]
    assert not problems, "\n".join(problems)


def test_every_command_a_page_shows_exists_with_its_options():
    problems = []
    for page in PAGES:
        for line in shown_commands(page.read_text(encoding="utf-8")):
            problems += [f"{_rel(page)}: {p}: {line[:100]}" for p in command_problems(line)]
    assert not problems, "\n".join(problems)


def shown_make_targets(text: str) -> set[str]:
    """The targets of every ``make X`` a code block line or an inline code span starts with."""
    prose, blocks = split_blocks(text)
    code = [ln for block in blocks for ln in block] + INLINE.findall("\n".join(prose))
    return {t for c in code for t in re.findall(r"(?:^|&&|;)\s*make ([a-z][\w.-]*)", c.strip())}


def test_every_make_target_a_page_shows_exists():
    targets = make_targets()
    shown = {t for page in PAGES for t in shown_make_targets(page.read_text(encoding="utf-8"))}
    assert {"run", "test", "test-all"} <= shown  # the quickstart and the CI tier are documented
    assert shown <= targets, shown - targets


def test_the_readme_is_short_and_its_quickstart_is_the_makefiles():
    text = (REPO / "README.md").read_text(encoding="utf-8")
    assert len(text.splitlines()) <= README_MAX_LINES
    assert "make run " in text and "make test " in text
    assert "make test-all" in (REPO / ".ci" / "run").read_text(encoding="utf-8")
    assert {"run", "test", "test-all"} <= make_targets()


def test_the_manual_builds_as_a_site_with_warnings_as_errors(tmp_path):
    res = subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict", "-q", "-f", str(REPO / "mkdocs.yml"),
                          "-d", str(tmp_path / "site")], capture_output=True, text=True, timeout=300)
    assert res.returncode == 0, res.stdout + res.stderr
    assert (tmp_path / "site" / "reference" / "cli.html").is_file()


def test_every_page_of_the_manual_is_in_the_sites_nav():
    nav = (REPO / "mkdocs.yml").read_text(encoding="utf-8")
    pages = {p.relative_to(REPO / "docs").as_posix() for p in (REPO / "docs").rglob("*.md")}
    assert {p for p in pages if f": {p}" not in nav} == set()


def test_the_architecture_page_names_every_layer_of_harness():
    """The layer table (docs/explanation/architecture.md) has one row per sub-package of harness/, no more:
    the README's Layout section had gone stale against the layer test before issue 36."""
    page = (REPO / "docs" / "explanation" / "architecture.md").read_text(encoding="utf-8")
    table = page.split("| layer (bottom to top) | what it holds |", 1)[1].split("\n\n", 1)[0]
    rows = re.findall(r"^\| `harness\.(\w+)` \|", table, re.M)
    packages = {p.parent.name for p in (REPO / "harness").glob("*/__init__.py")}
    assert len(rows) == len(set(rows)) and set(rows) == packages, (rows, packages)


CITATION = re.compile(r"\(README(?:\.md)?, \"?([A-Z][\w ,'-]*?)\"?[):;]")
CITING = ("analysis/*.py", "harness/**/*.py", "corpus/**/*.py", "viewer/*.py", "interop/*.py", "protocols/*.toml",
          "tests/fixtures/analysis_outputs/*")


def moved_sections() -> set[str]:
    """The old README section names of docs/index.md's "Moved sections" table (first column, ';'-separated)."""
    table = (REPO / "docs" / "index.md").read_text(encoding="utf-8").split("## Moved sections", 1)[1]
    rows = [ln.strip().strip("|").split("|")[0] for ln in table.splitlines() if ln.startswith("| ")][1:]
    return {name.strip().lower() for row in rows for name in row.split(";")}


def unmapped_citations(text: str, moved: set[str]) -> set[str]:
    return {name for name in CITATION.findall(text) if name.strip().lower() not in moved}


def test_every_remaining_readme_citation_names_a_moved_section():
    moved = moved_sections()
    cited: dict[str, set[str]] = {}
    for pattern in CITING:
        for path in REPO.glob(pattern):
            if path.is_file() and (bad := unmapped_citations(path.read_text(encoding="utf-8", errors="replace"), moved)):
                cited[_rel(path)] = bad
    assert not cited, f"cited README sections docs/index.md's 'Moved sections' table does not map: {cited}"
    assert {"calibration", "coverage and width by estimand"} <= moved


def test_the_citation_check_catches_an_unmapped_section():
    moved = {"calibration", "the ledger, faults and exit codes"}
    text = ('"... (README, Calibration: rare tasks)", # (README, Calibration)\n'
            '(README, "The ledger, faults and exit codes") (README, Nowhere) (README.md, "Gone")')
    assert unmapped_citations(text, moved) == {"Nowhere", "Gone"}


# --- the checks can fail --------------------------------------------------------------------------


def test_the_link_check_catches_a_missing_file_and_a_missing_anchor(tmp_path):
    (tmp_path / "a.md").write_text("# Title\n\n## The `x` table (harness.core)\n\n[ok](#the-x-table-harnesscore)\n"
                                   "[gone](b.md) [bad](#nope) `[not a link](c.md)`\n\n```\n[in code](d.md)\n```\n")
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / "c.md").write_text("[up](../a.md#title) [out](../../x.md)\n")
    assert broken_links(tmp_path / "sub" / "c.md", tmp_path) == ["sub/c.md:1: ../../x.md (outside the repository)"]
    problems = broken_links(tmp_path / "a.md", tmp_path)
    assert problems == ["a.md:6: b.md (no such file)", "a.md:6: #nope (no heading with anchor #nope)"]


def test_the_command_check_catches_an_unknown_command_and_option():
    text = ("```\nharness run P.toml --out D [--workers 2] \\\n    --executor ray\nharness plan P --no-such-flag\n"
            "harness ledger verfy FILE\n```\nand `harness analyze R --out D --B 10` inline; `harness.core.record` is not one\n")
    lines = shown_commands(text)
    assert len(lines) == 4
    problems = [p for line in lines for p in command_problems(line)]
    assert problems == ["harness plan has no option --no-such-flag", "harness ledger has no subcommand 'verfy'"]


def test_the_generated_reference_differs_when_an_option_changes(monkeypatch):
    """Drift is seen: an option added to a command changes the rendered page."""
    import click

    from harness.cli.cli import main
    before = docs_gen.render()
    plan = main.get_command(click.Context(main), "plan")
    monkeypatch.setattr(plan, "params", [*plan.params, click.Option(["--new-thing"], help="a new option")])
    after = docs_gen.render()
    assert before != after and "`--new-thing` (text): a new option" in after


@pytest.mark.parametrize("heading,anchor", [("Exit codes of every command", "exit-codes-of-every-command"),
                                            ("An arm (`proof_harness.arms`)", "an-arm-proof_harnessarms"),
                                            ("harness corpus measure", "harness-corpus-measure")])
def test_slugs_are_githubs(heading, anchor):
    assert slug(heading) == anchor
