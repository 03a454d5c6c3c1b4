"""The history a confined run must not read: a plain clone's .git, and in a git worktree (where
.git is a file) the main repository's git directory that holds the worktree's history."""
from __future__ import annotations

import sys

from harness.sandbox.sandbox import hidden_for


def test_a_clone_hides_its_git_directory(tmp_path):
    (tmp_path / ".git").mkdir()
    (tmp_path / "tasks").mkdir()
    assert hidden_for(tmp_path / "tasks") == (tmp_path / "tasks", tmp_path / ".git")


def test_a_worktree_hides_the_common_git_directory_not_its_git_file(tmp_path):
    main_git = tmp_path / "main" / ".git"
    wt_git = main_git / "worktrees" / "wt"
    wt_git.mkdir(parents=True)
    (wt_git / "commondir").write_text("../..\n")
    wt = tmp_path / "wt"
    (wt / "tasks").mkdir(parents=True)
    (wt / ".git").write_text(f"gitdir: {wt_git}\n")
    assert hidden_for(wt / "tasks") == ((wt / "tasks").resolve(), main_git.resolve())


def test_a_relative_gitdir_without_commondir_is_hidden_itself(tmp_path):
    (tmp_path / "store").mkdir()
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / ".git").write_text("gitdir: ../store\n")
    assert hidden_for(tmp_path / "sub") == ((tmp_path / "sub").resolve(), (tmp_path / "store").resolve())


def test_a_checkout_under_tmp_stays_visible_in_the_sandbox_view():
    """Each run gets a fresh /tmp; an allowed directory under /tmp (a clone or virtualenv there) is
    bound over it, not hidden by it (a fresh clone in /tmp made every sandboxed run fail)."""
    from harness.sandbox.confine import _code_dirs_under_tmp
    from harness.sandbox.sandbox import bwrap_view
    args = bwrap_view(writable=(), hide=())
    tmp = args.index("/tmp") - 1
    assert args[tmp] == "--tmpfs" and tmp < args.index("--ro-bind")
    import sys
    dirs = _code_dirs_under_tmp("/nonexistent-base")
    assert all(d.startswith("/tmp/") for d in dirs)
    assert (sys.prefix.startswith("/tmp/") and dirs) or not sys.prefix.startswith("/tmp/")


def test_a_confinement_that_fails_before_exec_says_why(monkeypatch, tmp_path):
    """subprocess reports a failing ``preexec_fn`` only as "Exception occurred in preexec_fn"; the confined
    child writes its exception to its stderr first, and ``run_confined`` raises with it (a cell voided by a
    harness error then names the cause in its record)."""
    import subprocess

    import pytest

    from harness.sandbox import confine
    from harness.sandbox.sandbox import Limits, run_confined

    def refuse(*_args, **_kwargs) -> None:
        raise ValueError("limit refused here")
    monkeypatch.setattr(confine, "set_limits", refuse)
    with pytest.raises(subprocess.SubprocessError, match=r"preexec_fn\. \(ValueError: limit refused here\)"):
        run_confined(["/bin/true"], tmp_path, limits=Limits())


def test_a_harness_whose_address_space_is_past_the_runs_memory_limit_still_starts_the_run(tmp_path, monkeypatch):
    """The cold path's child is a fork of the harness: a harness past the run's memory limit (threads'
    stacks and malloc arenas, Ray, a long pytest worker) made every allocation before exec fail
    (MemoryError: two A2 cells voided in a fresh clone's test-all). The address-space limit is set last,
    for the new image (confine ``limit_address_space``), and still binds it."""
    import mmap

    from harness.sandbox import confine
    from harness.sandbox.sandbox import Limits, run_confined

    keyrings = confine.deny_keyrings

    def allocating(libc) -> None:  # a step before exec that needs fresh memory (1 MiB: a new mapping)
        bytearray(1 << 20)
        keyrings(libc)
    monkeypatch.setattr(confine, "deny_keyrings", allocating)
    big = mmap.mmap(-1, 1 << 30)  # 1 GiB of address space here, never touched (no memory used)
    try:
        ok = run_confined(["/bin/true"], tmp_path, limits=Limits(memory_mb=256))
        script = "b = bytearray(400 * 1024 * 1024)"  # past the limit in the run itself
        over = run_confined([sys.executable, "-I", "-c", script], tmp_path, limits=Limits(memory_mb=256))
    finally:
        big.close()
    assert ok.returncode == 0, ok.stderr
    assert over.returncode != 0 and "MemoryError" in over.stderr, (over.returncode, over.stderr)
