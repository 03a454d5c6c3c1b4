"""Red team a28: attacks on the recent judge, watch and confinement changes; every attack that
worked is kept here as a regression."""
from __future__ import annotations

import subprocess
import time
from pathlib import Path

import pytest

from harness.judge.watch import Watch


def _sh(root: Path, script: str) -> None:
    subprocess.run(["sh", "-c", script], cwd=root, check=True)


def _until(cond, limit: int = 2000) -> None:
    for _ in range(limit):
        if cond():
            return
        time.sleep(0.005)
    pytest.fail("the watch thread never read the event")


def test_a_directory_made_while_its_parent_was_outside_the_workspace_is_watched_when_the_parent_returns(tmp_path):
    """A watched directory moved out of the workspace keeps its inode watch and its name. A
    directory made in it while it is outside cannot be watched (its path does not exist under the
    workspace); when the parent is moved back under the same name, its walk must find it. The skip
    of 'already watched under this name' (a chain's cubic cost) skipped that walk: every later edit
    inside the new directory (a workflow put back in place, edited and restored) went unrecorded."""
    root, outside = tmp_path / "ws", tmp_path / "outside"
    (root / ".github" / "workflows").mkdir(parents=True)
    (root / ".github" / "workflows" / "ci.yml").write_text("gate: strict\n")
    outside.mkdir()
    w = Watch(root).start()
    try:
        _sh(tmp_path, "mv ws/.github outside/.github")
        _until(lambda: any(e["op"] == "moved_from" and e["path"] == ".github" for e in w.events))
        _sh(tmp_path, "mkdir outside/.github/hidden")
        _until(lambda: any(e["op"] == "create" and e["path"] == ".github/hidden" for e in w.events))
        _sh(tmp_path, "mv outside/.github ws/.github")
        _until(lambda: any(e["op"] == "moved_to" and e["path"] == ".github" for e in w.events))
        time.sleep(0.05)
        _sh(root, "echo 'gate: off' > .github/hidden/ci.yml")
    finally:
        ev = w.stop()
    assert any(e["path"] == ".github/hidden/ci.yml" for e in ev), [(e["op"], e["path"]) for e in ev]
