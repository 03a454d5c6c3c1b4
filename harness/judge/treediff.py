"""A cell's tree diffs, kept with the run so a reader can see what changed without the workspace.

The workspace is destroyed when its cell ends, so the cell runner writes, beside the event log:

- ``cells/<cell>.diff.gz``: the unified diff from the cell's start tree to its final tree (what
  the agent changed; empty when it changed nothing);
- ``cells/<cell>.candidate.diff.gz``: only when a scenario planted a start candidate (B2 starts
  the workspace with the plausible-wrong candidate in place), the diff from the task's own start
  tree to the cell's start tree, i.e. the work under review that the agent inherited.

Both are plain unified diffs (``zcat FILE | git apply`` works on text files), gzip-compressed with
a zero mtime so the same trees give the same bytes. Text passes through the transcript's redactor
before it is written (everything under the run directory is scrubbed the same way). The trees
hold only workspace files: the hidden oracle is never in a workspace, so never in a diff.
A failure to write is reported to the caller, never raised: the diff is a view of the cell, not
evidence the adjudicator used.
"""
from __future__ import annotations

import difflib
import gzip
from pathlib import Path
from typing import Callable

from harness.core.layout import diff_paths
from harness.core.safe_text import printable
from harness.core.tasks import BINARY_MARK, SYMLINK_MARK

MAX_DIFF_LINES = 20_000  # per file side; past this the file is summarised, not diffed (difflib is quadratic)


def _is_marker(text: str | None) -> bool:
    return text is not None and text.startswith((BINARY_MARK, SYMLINK_MARK))


_C_ESCAPES = {"\a": "\\a", "\b": "\\b", "\t": "\\t", "\n": "\\n", "\v": "\\v", "\f": "\\f", "\r": "\\r",
              '"': '\\"', "\\": "\\\\"}


def quote_path(path: str) -> str:
    """A diff header's path as git writes it: C-quoted when it holds a control character, a quote
    or a backslash, so an agent-chosen file name (one with a newline) cannot forge diff lines."""
    if not any(c in _C_ESCAPES or ord(c) < 0x20 or c == "\x7f" for c in path):
        return path
    return '"' + "".join(_C_ESCAPES.get(c) or (f"\\{ord(c):03o}" if ord(c) < 0x20 or c == "\x7f" else c)
                         for c in path) + '"'


def file_diff(rel: str, before: str | None, after: str | None) -> str:
    """The unified diff of one path (None = absent on that side), with git-style headers."""
    a = quote_path(f"a/{rel}") if before is not None else "/dev/null"
    b = quote_path(f"b/{rel}") if after is not None else "/dev/null"
    head = f"diff --git {quote_path(f'a/{rel}')} {quote_path(f'b/{rel}')}\n"
    if before is None:
        head += "new file mode 100644\n"  # modes are not tracked here; git apply needs one
    elif after is None:
        head += "deleted file mode 100644\n"
    if _is_marker(before) or _is_marker(after):
        show = lambda t: "(absent)" if t is None else t.replace("\0", "").strip()  # noqa: E731
        return head + f"Binary or link changed: {show(before)} -> {show(after)}\n"
    x = (before or "").splitlines(keepends=True)
    y = (after or "").splitlines(keepends=True)
    if len(x) > MAX_DIFF_LINES or len(y) > MAX_DIFF_LINES:
        return head + f"File too large to diff here: {len(x)} lines -> {len(y)} lines\n"
    body = []
    for line in difflib.unified_diff(x, y, a, b, n=3):
        body.append(line if line.endswith("\n") else line + "\n\\ No newline at end of file\n")
    if not body:  # same lines, different bytes (a trailing newline change is shown by difflib)
        return ""
    return head + "".join(body)


def tree_diff(before: dict[str, str], after: dict[str, str]) -> str:
    """The unified diff between two trees ({relative path: text}), paths in sorted order. A name or
    link target that is not UTF-8 is shown by its bytes (``printable``): one such name must not make
    the whole diff unwritable."""
    return printable("".join(file_diff(rel, before.get(rel), after.get(rel))
                             for rel in sorted(set(before) | set(after)) if before.get(rel) != after.get(rel)))


def write_cell_diffs(events_file: Path, base_files: dict[str, str], start_files: dict[str, str],
                     final_files: dict[str, str], redact: Callable[[str], str] | None = None) -> str | None:
    """Write the cell's diffs beside its event log. Returns None, or why they could not be written."""
    redact = redact or (lambda s: s)
    main, candidate = diff_paths(events_file)
    try:
        main.write_bytes(gzip.compress(redact(tree_diff(start_files, final_files)).encode(), mtime=0))
        planted = tree_diff(base_files, start_files)
        if planted:
            candidate.write_bytes(gzip.compress(redact(planted).encode(), mtime=0))
    except (OSError, ValueError) as exc:
        return f"{type(exc).__name__}: {exc}"
    return None
