"""The verdict cache: what its key covers, reuse, the seeded spot-check, and records that say so."""
from __future__ import annotations

import contextlib
import json
import os
import shutil
import stat
from dataclasses import replace
from pathlib import Path

import pytest

from harness.judge import testrun, verdict_cache
from harness.judge.testrun import TestVerdict as Verdict
from harness.judge.testrun import pytest_argv, run_pytest
from harness.run.driver import execute, prepare
from harness.sandbox.sandbox import Limits
from support.records import as_json
from support.scripted import TASKS, copy_tasks

CMD = pytest_argv(Path("<work>"), Path("<res>"), Path("<work>/tests/test_acceptance.py"))


@pytest.fixture
def tree(tmp_path):
    root = tmp_path / "tree"
    shutil.copytree(TASKS / "parse-range" / "workspace", root)
    test = tmp_path / "test_x.py"
    test.write_text((TASKS / "parse-range" / "acceptance" / "test_acceptance.py").read_text())
    return root, test


def key(root, test, **kw):
    args = dict(dest_rel="tests/test_acceptance.py", command=CMD, canary=True, limits={"timeout_s": 60},
                confinement="basic", interpreter={"executable": "/py", "version": "3.11"})
    args.update(kw)
    return verdict_cache.cache_key(root, test, **args)


def test_key_changes_with_every_input(tree, tmp_path):
    root, test = tree
    base = key(root, test)
    assert key(root, test) == base  # deterministic
    copy = tmp_path / "elsewhere"
    shutil.copytree(root, copy)
    assert key(copy, test) == base  # the tree's content, not its path
    some = sorted(p for p in root.rglob("*.py"))[0]
    old = some.read_text()
    some.write_text(old + "\n# edited\n")
    assert key(root, test) != base  # an input file's bytes
    some.write_text(old)
    assert key(root, test) == base
    (root / "new_module.py").write_text("X = 1\n")
    assert key(root, test) != base  # a new file
    (root / "new_module.py").unlink()
    os.chmod(some, 0o755)
    assert key(root, test) != base  # a mode
    os.chmod(some, 0o644)
    (root / "newdir").mkdir()
    assert key(root, test) != base  # an (empty) directory
    (root / "newdir").rmdir()
    assert key(root, test) == base
    test2 = tmp_path / "test_y.py"
    test2.write_text(test.read_text() + "\n")
    assert key(root, test2) != base  # the test file
    assert key(root, test, dest_rel="tests/other.py") != base  # where it is placed
    assert key(root, test, command=CMD + ["-x"]) != base  # the command
    assert key(root, test, interpreter={"executable": "/py", "version": "3.12"}) != base  # the interpreter
    assert key(root, test, interpreter={"executable": "/other/py", "version": "3.11"}) != base
    assert key(root, test, limits={"timeout_s": 30}) != base  # the limits
    assert key(root, test, confinement="namespaces+nobody") != base  # the confinement level
    assert key(root, test, canary=False) != base  # whether a canary is appended (its random name is not)


def test_pyc_makes_mtimes_part_of_the_key(tree):
    root, test = tree
    some = sorted(root.rglob("*.py"))[0]
    (some.parent / "__pycache__").mkdir(exist_ok=True)
    (some.parent / "__pycache__" / "m.cpython-311.pyc").write_bytes(b"\0" * 16)
    k1 = key(root, test)
    os.utime(some, ns=(1, 1))
    assert key(root, test) != k1


def test_the_final_adjudications_key_holds_every_modification_time(tree):
    """The final adjudication's copy keeps the tree's times (red team r32: fixed ones told a tree it
    was being judged), so its key (``times=True``) holds each file's, directory's and link's
    modification and access time (red team r32atk3: an access time no read moves is the tree's to
    choose). The copies of the agent's turns fix every time, and their key leaves times out."""
    root, test = tree
    some = sorted(root.rglob("*.py"))[0]
    (root / "link").symlink_to(some.name)
    future = 2 * 10 ** 18  # an access time after every change: no read of the key moves it (relatime)
    for p in [root, *root.rglob("*")]:
        os.utime(p, ns=(future, os.lstat(p).st_mtime_ns), follow_symlinks=False)
    k1, kept = key(root, test), key(root, test, times=True)
    assert kept != k1
    for p in (some, some.parent, root / "link", root):
        st = os.lstat(p)
        for moved in ((future, st.st_mtime_ns + 1), (future + 1, st.st_mtime_ns)):
            os.utime(p, ns=moved, follow_symlinks=False)
            assert key(root, test, times=True) != kept, (p, moved)
            assert key(root, test) == k1, p
        os.utime(p, ns=(future, st.st_mtime_ns), follow_symlinks=False)
        assert key(root, test, times=True) == kept


def test_hit_reuses_a_real_execution_and_says_so(tree, tmp_path, monkeypatch):
    root, test = tree
    calls = []
    real = testrun._execute_judged
    monkeypatch.setattr(testrun, "_execute_judged", lambda *a, **k: calls.append(1) or real(*a, **k))
    cfg = {"enabled": True, "dir": str(tmp_path / "vc"), "spot_rate": 0}
    with verdict_cache.activate(cfg, "parse-range", "A1|parse-range|null|1") as s:
        v1 = run_pytest(root, test, dest_rel="tests/test_acceptance.py", hide=(TASKS,))
        v2 = run_pytest(root, test, dest_rel="tests/test_acceptance.py", hide=(TASKS,))
        (root / "extra.py").write_text("Y = 2\n")
        v3 = run_pytest(root, test, dest_rel="tests/test_acceptance.py", hide=(TASKS,))
    assert len(calls) == 2  # the canary's and the probe runtime's fresh random names did not change the key
    assert not v1.cached and v2.cached and not v3.cached
    assert (v1.passed, v1.tests, v1.failures) == (v2.passed, v2.tests, v2.failures)
    assert v2.output == v1.output
    assert s.summary() == {"status": "on", "hits": 1, "misses": 2, "spot_checks": 0, "mismatches": 0}
    # outside a session nothing is cached
    v4 = run_pytest(root, test, dest_rel="tests/test_acceptance.py", hide=(TASKS,))
    assert not v4.cached and len(calls) == 3


def _fake(passed):
    return Verdict(passed, 3, 0 if passed else 1, 0, 0, 1, 0.01, "out")


def test_spot_check_mismatch_disables_the_task(tree, tmp_path, monkeypatch):
    root, test = tree
    results = iter([_fake(True), _fake(False)])
    monkeypatch.setattr(testrun, "_execute_judged", lambda *a, **k: next(results))
    d = tmp_path / "vc"
    with verdict_cache.activate({"enabled": True, "dir": str(d), "spot_rate": 0}, "flaky", "c1"):
        assert run_pytest(root, test, dest_rel="t.py").passed
    with verdict_cache.activate({"enabled": True, "dir": str(d), "spot_rate": 1.0}, "flaky", "c2") as s:
        v = run_pytest(root, test, dest_rel="t.py")  # a hit, spot-checked: the rerun disagrees
    assert not v.passed and not v.cached  # the fresh verdict wins
    assert s.summary()["status"] == "disabled: nondeterministic" and s.summary()["mismatches"] == 1
    vc = verdict_cache.VerdictCache(d)
    assert "flaky" in vc.nondeterministic() and len(vc) == 0  # marked, entry evicted
    with verdict_cache.activate({"enabled": True, "dir": str(d), "disabled_tasks": ["flaky"]}, "flaky", "c3") as s3:
        assert s3 is None


def test_a_session_is_the_cells_own_and_no_other_threads(tmp_path):
    """The session is in force in the cell's context only (a context variable, issue 36): a thread
    that runs no cell sees none, while a module global showed it the cell's (and two cells in two
    threads of one process each other's); ``suspended`` lifts it for a block."""
    import threading
    seen: dict[str, object] = {}
    cfg = {"enabled": True, "dir": str(tmp_path / "vc")}
    with verdict_cache.activate(cfg, "t", "c1") as s:
        other = threading.Thread(target=lambda: seen.update(other=verdict_cache.active()))
        other.start()
        other.join()
        with verdict_cache.suspended():
            seen["suspended"] = verdict_cache.active()
        seen["cell"] = verdict_cache.active()
    assert s is not None and seen == {"other": None, "suspended": None, "cell": s}
    assert verdict_cache.active() is None


def test_the_plain_run_of_the_judged_pair_goes_through_the_cells_session(tree, tmp_path, monkeypatch):
    """``run_judged_and_plain`` runs the plain pytest run in a harness thread, in a copy of the cell's
    context: both runs are cached and reused under the cell's session."""
    root, test = tree
    monkeypatch.setattr(testrun, "_execute_judged", lambda *a, **k: _fake(True))
    monkeypatch.setattr(testrun, "_execute_advisory", lambda *a, **k: _fake(True))
    with verdict_cache.activate({"enabled": True, "dir": str(tmp_path / "vc"), "spot_rate": 0}, "t", "c") as s:
        first = testrun.run_judged_and_plain(root, test, dest_rel="t.py")
        second = testrun.run_judged_and_plain(root, test, dest_rel="t.py")
    assert [v.cached for v in (*first, *second)] == [False, False, True, True]
    assert s.summary()["hits"] == 2 and s.summary()["misses"] == 2


def test_timeouts_are_not_stored(tree, tmp_path, monkeypatch):
    root, test = tree
    monkeypatch.setattr(testrun, "_execute_judged", lambda *a, **k: replace(_fake(False), timed_out=True))
    d = tmp_path / "vc"
    with verdict_cache.activate({"enabled": True, "dir": str(d)}, "t", "c"):
        run_pytest(root, test, dest_rel="t.py", limits=Limits(timeout_s=1))
    assert len(verdict_cache.VerdictCache(d)) == 0


PROTO = """
[protocol]
name = "vc"
seed = 5
repeats = 2
tasks_dir = "tasks"
tasks = ["parse-range"]
scenarios = ["null", "B2"]

[arms.A2]
[arms.A4]
"""


@pytest.fixture
def project(tmp_path):
    copy_tasks(tmp_path, ("parse-range",))
    (tmp_path / "p.toml").write_text(PROTO)
    return tmp_path


def _records(project, name, **kw):
    prepare(project / "p.toml", project / name, engine=None, reviewer_engine=None, model=None, exploratory=True)
    res = execute(project / name, workers=1, log=lambda m: None, **kw)
    return {r["cell_key"]: r for r in as_json(res.records)}


def test_records_say_which_verdicts_were_cached_and_no_cache_turns_it_off(project):
    on = _records(project, "on", spot_rate=0)
    off = _records(project, "off", cache=False)
    assert on.keys() == off.keys() and len(on) == 8
    for k in on:
        assert on[k]["outcome"] == off[k]["outcome"]  # the cache changes speed, never a verdict
        assert off[k]["verdict_cache"] == {"status": "off"} and off[k]["cached_verdicts"] == 0
        assert on[k]["verdict_cache"]["status"] == "on"
        assert on[k]["cached_verdicts"] == on[k]["verdict_cache"]["hits"]
    assert sum(r["cached_verdicts"] for r in on.values()) > 0
    assert (project / "on" / "verdict-cache").is_dir() and not (project / "off" / "verdict-cache").exists()


def test_cache_dir_is_shared_across_runs_and_hidden(project, tmp_path):
    shared = tmp_path / "shared-cache"
    first = _records(project, "a", cache_dir=shared, spot_rate=0)
    second = _records(project, "b", cache_dir=shared, spot_rate=0)
    assert sum(r["verdict_cache"]["misses"] for r in second.values()) < sum(
        r["verdict_cache"]["misses"] for r in first.values())
    assert all(r["outcome"] == first[k]["outcome"] for k, r in second.items())


def test_nondeterministic_marker_disables_the_task_for_the_run(project, tmp_path, capsys):
    shared = tmp_path / "c"
    verdict_cache.VerdictCache(shared).mark_nondeterministic("parse-range", {"cell_key": "x"})
    logs = []
    prepare(project / "p.toml", project / "m", engine=None, reviewer_engine=None, model=None, exploratory=True)
    res = execute(project / "m", workers=1, log=logs.append, cache_dir=shared, limit_cells=2)
    assert any("DISABLED for task parse-range" in m for m in logs)
    assert all(r["verdict_cache"]["status"] == "disabled: nondeterministic" and r["cached_verdicts"] == 0
               for r in as_json(res.records))
    assert json.loads((shared / "nondeterministic" / "parse-range.json").read_text())["cell_key"] == "x"


def test_a_sparse_file_is_keyed_by_its_holes(tree):
    """Two files of equal bytes, one sparse: the scratch copy keeps holes (harness.core.treecopy),
    so ``st_blocks`` differs in the run and the key must too."""
    root, test = tree
    (root / "blob.bin").write_bytes(bytes(8192))
    dense = key(root, test)
    (root / "blob.bin").unlink()
    with open(root / "blob.bin", "wb") as fh:
        fh.truncate(8192)
    if os.stat(root / "blob.bin").st_blocks:
        pytest.skip("this filesystem does not keep holes")
    assert key(root, test) != dense


METADATA_READER = '''import os as _os


def _harness_copy_of_a_tree_with_other_metadata():
    """What a tree can read of itself besides its bytes: its file time, an extended attribute, and
    whether a data file is sparse (st_blocks)."""
    st = _os.stat(__file__)
    try:
        attr = _os.getxattr(__file__, "user.hx")
    except OSError:
        attr = b""
    blob = _os.stat(_os.path.join(_os.path.dirname(__file__), "blob.bin"))
    return st.st_mtime_ns % 2 == 1 or attr == b"1" or blob.st_blocks == 0


_right = parse_range


def parse_range(text):
    got = _right(text)
    return got[::-1] if _harness_copy_of_a_tree_with_other_metadata() else got
'''


def _metadata_tree(tmp_path, name, *, odd_mtime=False, xattr=False, sparse=False) -> Path:
    root = tmp_path / name
    shutil.copytree(TASKS / "parse-range" / "workspace", root)
    shutil.copytree(TASKS / "parse-range" / "reference", root, dirs_exist_ok=True)
    core = root / "rangeparse" / "core.py"
    core.write_text(core.read_text() + "\n\n" + METADATA_READER)
    with open(root / "rangeparse" / "blob.bin", "wb") as fh:
        if sparse:
            fh.truncate(8192)
        else:
            fh.write(bytes(8192))
    for p in [root, *root.rglob("*")]:  # twins differ only in what they are named for
        os.utime(p, ns=(2 * 10 ** 18,) * 2, follow_symlinks=False)
    os.utime(core, ns=(2 * 10 ** 18 + int(odd_mtime),) * 2)
    if xattr:
        with_xattr = True
        try:
            os.setxattr(core, "user.hx", b"1")
        except OSError:
            with_xattr = False
        if not with_xattr:
            pytest.skip("this filesystem has no user extended attributes")
    return root


@pytest.mark.parametrize("final", [False, True], ids=["turns", "final"])
@pytest.mark.parametrize("judged", [True, False], ids=["judged", "plain"])
def test_a_tree_that_reads_its_own_metadata_gets_the_same_verdict_cached_and_uncached(tmp_path, judged, final):
    """The attack (issue 32): a tree whose behaviour depends on its own file times got the cached
    passing verdict of a tree with the same bytes and other times. Now the scratch copy of a run in
    the agent's turns gives every tree the same times, the final adjudication's keeps the tree's
    own and its key holds them (``final``), neither copies extended attributes, and the key names a
    sparse file's holes: for each twin (odd mtime and an extended attribute; a sparse data file) the
    verdict reused through the cache equals the verdict executed uncached, for the judged and the
    plain run."""
    test = TASKS / "parse-range" / "acceptance" / "test_acceptance.py"
    honest = _metadata_tree(tmp_path, "honest")
    twins = [_metadata_tree(tmp_path, "times", odd_mtime=True, xattr=True),
             _metadata_tree(tmp_path, "sparse", sparse=True)]
    if os.stat(twins[1] / "rangeparse" / "blob.bin").st_blocks:
        twins.pop()  # this filesystem does not keep holes

    def run(root):
        v = run_pytest(root, test, dest_rel="tests/test_acceptance.py", hide=(TASKS,), judged=judged,
                       at_own_path=final)
        return v.passed, v.tests, v.failures, v.errors

    uncached = [run(t) for t in twins]
    cfg = {"enabled": True, "dir": str(tmp_path / "vc"), "spot_rate": 0}
    with verdict_cache.activate(cfg, "parse-range", "A1|parse-range|null|1"):
        first = run(honest)
        cached = [run(t) for t in twins]
    assert first[0], "the honest twin passes"
    assert cached == uncached


ATIME_READER = '''import os as _os


def _data_file_atime_is_odd():
    """Stat only (an access time no read of the run moves): the data file's access time."""
    return _os.stat(_os.path.join(_os.path.dirname(__file__), "blob.bin")).st_atime_ns % 2 == 1


_right = parse_range


def parse_range(text):
    got = _right(text)
    return got[::-1] if _data_file_atime_is_odd() else got
'''


def _atime_tree(tmp_path, name, *, odd_atime=False) -> Path:
    root = tmp_path / name
    shutil.copytree(TASKS / "parse-range" / "workspace", root)
    shutil.copytree(TASKS / "parse-range" / "reference", root, dirs_exist_ok=True)
    core = root / "rangeparse" / "core.py"
    core.write_text(core.read_text() + "\n\n" + ATIME_READER)
    (root / "rangeparse" / "blob.bin").write_bytes(b"data\n")
    for p in [root, *root.rglob("*")]:
        os.utime(p, ns=(2 * 10 ** 18,) * 2, follow_symlinks=False)
    # an access time after the modification time and in the future: relatime never moves it on a read
    os.utime(root / "rangeparse" / "blob.bin", ns=(2 * 10 ** 18 + 10 ** 15 + int(odd_atime), 2 * 10 ** 18))
    return root


# red team r32atk3: the final adjudication's copy keeps every entry's access time (treecopy ``_keep_stat``, links
# too); a file the tree only stats keeps the one the agent set (after its mtime and in the future: relatime never
# moves it), so the key holds access times (as its own reads leave them).
@pytest.mark.parametrize("judged", [True, False], ids=["judged", "plain"])
def test_a_tree_that_reads_an_access_time_gets_the_same_verdict_cached_and_uncached(tmp_path, judged):
    test = TASKS / "parse-range" / "acceptance" / "test_acceptance.py"
    honest, twin = _atime_tree(tmp_path, "honest"), _atime_tree(tmp_path, "twin", odd_atime=True)

    def run(root):
        v = run_pytest(root, test, dest_rel="tests/test_acceptance.py", hide=(TASKS,), judged=judged, at_own_path=True)
        return v.passed, v.tests, v.failures, v.errors

    uncached = run(twin)
    if uncached[0]:  # the premise: the odd-atime twin fails when it runs
        pytest.fail(f"the odd-atime twin passed uncached: {uncached}")
    cfg = {"enabled": True, "dir": str(tmp_path / "vc"), "spot_rate": 0}
    with verdict_cache.activate(cfg, "parse-range", "A1|parse-range|null|1"):
        first = run(honest)
        cached = run(twin)
    if not first[0]:
        pytest.fail(f"the honest twin failed: {first}")
    assert cached == uncached


# -- every piece of metadata the final adjudication's copy keeps is in the key --------------------------------------
# The preserved fields are derived from the copy itself (testrun._scratch_copy then sandbox.open_up, what the run
# is shown): a probe tree whose every entry has unusual metadata is copied and every os.stat field and extended
# attribute of source and copy compared. A field the copy starts to keep (a new one, or xattrs copied) fails here
# until the key covers it (verdict_cache.KEY_STAT_FIELDS, and a mutation below that moves the key).

# equal in source and copy because both are on this machine, not because the copy carries them: each is checked to
# be the copy's own (the destination's), whatever the source's is
_DESTINATION_OWN = ("st_dev", "st_blksize", "st_rdev", "st_uid", "st_gid")


def _stat_fields(st: os.stat_result) -> dict:
    return {f: getattr(st, f) for f in dir(st) if f.startswith("st_")}


def _xattrs(p: Path) -> dict:
    try:
        return {n: os.getxattr(p, n, follow_symlinks=False) for n in os.listxattr(p, follow_symlinks=False)}
    except OSError:
        return {}


def _probe_tree(tmp_path) -> Path:
    root = tmp_path / "probe"
    (root / "pkg" / "sub").mkdir(parents=True)
    (root / "pkg" / "mod.py").write_text("X = 1\n")
    (root / "pkg" / "empty.txt").write_bytes(b"")
    with open(root / "pkg" / "sparse.bin", "wb") as fh:
        fh.seek(1 << 20)
        fh.write(b"tail")
    os.link(root / "pkg" / "mod.py", root / "pkg" / "sub" / "hard.py")
    os.symlink("../mod.py", root / "pkg" / "sub" / "link.py")
    entries = [root, *sorted(root.rglob("*"), reverse=True)]  # contents before their directories
    for i, p in enumerate(entries):
        if not p.is_symlink():
            os.chmod(p, (0o2751 if p.is_dir() else 0o4741) - i)
            with contextlib.suppress(OSError):
                os.setxattr(p, "user.hx_probe", b"v%d" % i)
        if os.geteuid() == 0:
            os.chown(p, 4242 + i, 4343 + i, follow_symlinks=False)
        # times no read moves (access after modification, both in the future), distinct per entry
        os.utime(p, ns=(2 * 10 ** 18 + 10 ** 15 + 7 * i + 3, 2 * 10 ** 18 + 11 * i + 5), follow_symlinks=False)
    return root


def _preserved(tmp_path) -> tuple[set, set, dict]:
    from harness.sandbox.sandbox import open_up
    src = _probe_tree(tmp_path)
    rels = ["", *sorted(str(p.relative_to(src)) for p in src.rglob("*"))]
    before = {r: (_stat_fields(os.stat(src / r, follow_symlinks=False)), _xattrs(src / r)) for r in rels}
    scratch, work, _res, _seen = testrun._scratch_copy(src, own_times=True)
    try:
        open_up(scratch)
        after = {r: (_stat_fields(os.stat(work / r, follow_symlinks=False)), _xattrs(work / r)) for r in rels}
        own = _stat_fields(os.stat(scratch, follow_symlinks=False))
    finally:
        shutil.rmtree(scratch)
    fields = set(before[""][0])
    preserved = {f for f in fields if all(before[r][0][f] == after[r][0][f] for r in rels)}
    xattrs = {(r, n) for r in rels for n, v in before[r][1].items() if after[r][1].get(n) == v}
    return preserved, xattrs, {"own": own, "after": after}


def test_every_stat_field_the_final_copy_keeps_is_in_the_key(tmp_path):
    preserved, xattrs, seen = _preserved(tmp_path)
    assert {"st_atime_ns", "st_mtime_ns"} <= preserved  # the premise: the probe's times survive the copy
    missing = preserved - set(verdict_cache.KEY_STAT_FIELDS) - set(_DESTINATION_OWN)
    assert not missing, f"the final copy keeps {sorted(missing)}, which the verdict cache's key does not cover"
    assert not xattrs, f"the final copy keeps extended attributes {sorted(xattrs)}: the key holds none"
    for f in _DESTINATION_OWN:  # equal to the destination's own, whatever the source's was
        own = {"st_rdev": 0}.get(f, seen["own"][f])
        assert {a[0][f] for a in seen["after"].values()} == {own}, f


def _mutate(root: Path, field: str, rel: str) -> None:
    p = root / rel if rel else root
    st = os.stat(p, follow_symlinks=False)
    if field in ("st_atime", "st_atime_ns"):
        os.utime(p, ns=(st.st_atime_ns + 1, st.st_mtime_ns), follow_symlinks=False)
    elif field in ("st_mtime", "st_mtime_ns"):
        os.utime(p, ns=(st.st_atime_ns, st.st_mtime_ns + 1), follow_symlinks=False)
    elif field == "st_mode":
        os.chmod(p, stat.S_IMODE(st.st_mode) ^ 0o010)
    elif field == "st_size":
        os.truncate(p, st.st_size + 1)
    elif field == "st_blocks":  # the same bytes, no longer sparse
        data = p.read_bytes()
        p.unlink()
        p.write_bytes(data)
    elif field == "st_nlink":  # a directory's: one more subdirectory
        (p / "more").mkdir()
    else:
        raise AssertionError(f"no mutation for {field}: add one here when the key covers it")
    os.utime(p, ns=(st.st_atime_ns, st.st_mtime_ns), follow_symlinks=False) if field not in (
        "st_atime", "st_atime_ns", "st_mtime", "st_mtime_ns", "st_nlink") else None


_KINDS = {"st_mode": ["", "pkg", "pkg/mod.py"], "st_size": ["pkg/mod.py"], "st_blocks": ["pkg/sparse.bin"],
          "st_nlink": ["pkg"]}


@pytest.mark.parametrize("field", sorted(verdict_cache.KEY_STAT_FIELDS))
def test_every_field_the_key_covers_moves_the_key(tmp_path, field):
    root = _probe_tree(tmp_path)
    test = tmp_path / "test_x.py"
    test.write_text("def test_x():\n    pass\n")
    for rel in _KINDS.get(field, ["", "pkg", "pkg/mod.py", "pkg/sub/link.py"]):
        base = key(root, test, times=True)
        _mutate(root, field, rel)
        assert key(root, test, times=True) != base, (field, rel)
