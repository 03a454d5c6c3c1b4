"""A cell's stored diffs: git-applicable unified diffs of start -> final (and of a planted start
candidate), gzip with a fixed mtime, redacted, and never an exception out of the cell runner."""
from __future__ import annotations

import gzip
import shutil
import subprocess

import pytest

from harness.core.layout import diff_paths, read_diff
from harness.core.tasks import BINARY_MARK
from harness.judge.treediff import tree_diff, write_cell_diffs


def test_diff_covers_changed_created_and_deleted_files_in_path_order():
    before = {"a.py": "x = 1\ny = 2\n", "gone.txt": "bye\n", "same.txt": "s\n"}
    after = {"a.py": "x = 1\ny = 3\n", "new.txt": "hi\n", "same.txt": "s\n"}
    d = tree_diff(before, after)
    assert [line for line in d.splitlines() if line.startswith("diff --git")] == [
        "diff --git a/a.py b/a.py", "diff --git a/gone.txt b/gone.txt", "diff --git a/new.txt b/new.txt"]
    assert "-y = 2\n+y = 3\n" in d
    assert "--- /dev/null\n+++ b/new.txt\n" in d and "--- a/gone.txt\n+++ /dev/null\n" in d
    assert "same.txt" not in d
    assert tree_diff(before, before) == ""


def test_missing_final_newline_is_marked_like_git():
    d = tree_diff({"f": "a\nb"}, {"f": "a\nc"})
    assert "-b\n\\ No newline at end of file\n+c\n\\ No newline at end of file\n" in d


def test_binary_and_link_markers_are_summarised_not_diffed():
    d = tree_diff({"db": f"{BINARY_MARK}10 bytes sha256=aa"}, {"db": f"{BINARY_MARK}12 bytes sha256=bb"})
    assert "Binary or link changed: binary 10 bytes sha256=aa -> binary 12 bytes sha256=bb" in d


@pytest.mark.skipif(shutil.which("git") is None, reason="git not installed")
def test_stored_diff_applies_with_git(tmp_path):
    before = {"pkg/core.py": "def f():\n    return 1\n", "old.md": "x\n"}
    after = {"pkg/core.py": "def f():\n    return 2\n", "pkg/new.py": "N = 1\n"}
    ev = tmp_path / "cells" / "A1__t__null__1.events.jsonl"
    ev.parent.mkdir()
    assert write_cell_diffs(ev, before, before, after) is None
    tree = tmp_path / "tree"
    for rel, text in before.items():
        (tree / rel).parent.mkdir(parents=True, exist_ok=True)
        (tree / rel).write_text(text)
    main, candidate = diff_paths(ev)
    patch = tmp_path / "p.diff"
    patch.write_text(read_diff(main))
    subprocess.run(["git", "apply", str(patch)], cwd=tree, check=True)
    got = {p.relative_to(tree).as_posix(): p.read_text() for p in tree.rglob("*") if p.is_file()}
    assert got == after
    assert not candidate.exists(), "no start candidate planted: no candidate diff"


def test_candidate_diff_written_only_when_the_start_differs_from_the_task_start(tmp_path):
    ev = tmp_path / "X.events.jsonl"
    base, start = {"m.py": "right\n"}, {"m.py": "wrong\n"}
    write_cell_diffs(ev, base, start, start)
    main, candidate = diff_paths(ev)
    assert read_diff(main) == ""  # the agent changed nothing ...
    assert "-right\n+wrong\n" in read_diff(candidate)  # ... and shipped the planted candidate


def test_bytes_are_deterministic_and_redacted(tmp_path):
    ev = tmp_path / "X.events.jsonl"
    redact = lambda s: s.replace("sk-live-123456", "[REDACTED]")  # noqa: E731
    write_cell_diffs(ev, {}, {}, {"leak.py": "KEY = 'sk-live-123456'\n"}, redact)
    first = diff_paths(ev)[0].read_bytes()
    write_cell_diffs(ev, {}, {}, {"leak.py": "KEY = 'sk-live-123456'\n"}, redact)
    assert diff_paths(ev)[0].read_bytes() == first
    text = gzip.decompress(first).decode()
    assert "[REDACTED]" in text and "sk-live" not in text


def test_a_write_failure_is_returned_not_raised(tmp_path):
    ev = tmp_path / "no-such-dir" / "X.events.jsonl"
    why = write_cell_diffs(ev, {}, {}, {"a": "b\n"})
    assert why and "FileNotFoundError" in why
    assert read_diff(diff_paths(ev)[0]) is None


def test_a_file_name_cannot_forge_diff_lines(tmp_path):
    """An agent-chosen file name holding a newline must not add lines of its own to the stored
    diff (a fake 'diff --git' header, a fake '+' line): names with control characters, quotes or
    backslashes are C-quoted as git quotes them, and git apply still reproduces the tree."""
    evil = 'x\ndiff --git a/app.py b/app.py\n+forged = True'
    before = {"app.py": "ok = 1\n"}
    after = {"app.py": "ok = 1\n", evil: "hi\n", 'say "q".txt': "q\n"}
    d = tree_diff(before, after)
    assert [ln for ln in d.splitlines() if ln.startswith("diff --git")] == [
        'diff --git "a/say \\"q\\".txt" "b/say \\"q\\".txt"',
        'diff --git "a/x\\ndiff --git a/app.py b/app.py\\n+forged = True" '
        '"b/x\\ndiff --git a/app.py b/app.py\\n+forged = True"']
    assert "+forged = True\n" not in d
    tree = tmp_path / "tree"
    tree.mkdir()
    (tree / "app.py").write_text("ok = 1\n")
    (tmp_path / "p.diff").write_text(d)
    subprocess.run(["git", "apply", str(tmp_path / "p.diff")], cwd=tree, check=True)
    assert {p.relative_to(tree).as_posix(): p.read_text() for p in tree.rglob("*") if p.is_file()} == after
