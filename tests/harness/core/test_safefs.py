"""harness.core.safefs: the link-safe tree operations. Most of its behaviour is specified where it is
used (reads: tests/harness/core/test_tasks.py; copies: test_treecopy.py; limits:
tests/harness/sandbox/test_tree_limit_attacks.py); here, what only safefs says."""
from __future__ import annotations

import os

from harness.core import safefs


def test_a_journal_holds_each_temporary_with_the_mode_it_was_given(tmp_path):
    """The cell's journal of the harness's own temporaries (detectors.fs_events leaves their watch
    events out): the path relative to the written root, and the replaced file's mode."""
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "a.py").write_text("x")
    os.chmod(tmp_path / "pkg" / "a.py", 0o664)
    journal: dict[str, int] = {}
    with safefs.journal_temps(journal):
        safefs.write_bytes(tmp_path, "pkg/a.py", b"y")
        safefs.write_bytes(tmp_path, "new.py", b"z")
    safefs.write_bytes(tmp_path, "after.py", b"w")  # outside the block: not journalled
    assert sorted(journal.values()) == [0o644, 0o664]
    assert all(p.startswith(("pkg/.hx-write-", ".hx-write-")) for p in journal)
    assert not any((tmp_path / p).exists() for p in journal)  # each was renamed over its target
    assert (tmp_path / "pkg" / "a.py").stat().st_mode & 0o777 == 0o664
