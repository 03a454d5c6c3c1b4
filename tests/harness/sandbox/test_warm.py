"""Warm execution (harness.sandbox.warm) keeps every confinement of the cold path, and gives the same
verdicts. A probe test file records what confined code can see and do; it runs through both
executors, each result is checked, and the two are compared field by field."""
from __future__ import annotations

import json
import os
import re
import shutil
import sysconfig
import time
from pathlib import Path

import pytest

from harness.control.adjudicator import ORACLE_DEST
from harness.judge.testrun import run_pytest
from harness.sandbox import confine, warm
from harness.sandbox.sandbox import Limits, confinement_level, hidden_for
from harness.sandbox.workspace import Workspace
from support.scripted import REPO, TASKS, candidate

needs_root = pytest.mark.skipif(confinement_level() == "basic", reason="warm execution needs the namespace levels")

PROBE = r'''
import json, os, socket, subprocess, sys

def _status():
    out = {}
    for line in open('/proc/self/status'):
        k, _, v = line.partition(':')
        if k in ('CapInh', 'CapPrm', 'CapEff', 'CapBnd', 'CapAmb', 'NoNewPrivs', 'Uid', 'Gid', 'Groups'):
            out[k] = v.split()
    return out

def _fds():
    out = []
    for fd in sorted(os.listdir('/proc/self/fd'), key=int):
        try:
            t = os.readlink(f'/proc/self/fd/{fd}')
        except OSError:
            continue
        out.append(re.sub(r'\[\d+\]', '', t) if not t.startswith('/') else t)
    return out

import re

def _mounts():
    out = []
    for line in open('/proc/self/mountinfo'):
        f = line.split()
        out.append((f[4], 'ro' if 'ro' in f[5].split(',') else 'rw', f[f.index('-') + 1]))
    return sorted(set(out))

def _environs():
    got = []
    for p in os.listdir('/proc'):
        if p.isdigit():
            try:
                got.append(open(f'/proc/{p}/environ', 'rb').read().decode(errors='replace'))
            except OSError:
                pass
    return got

def _try(fn):
    try:
        return 'ok:' + str(fn())[:200]
    except BaseException as e:
        return 'error:' + type(e).__name__

def test_probe():
    import ctypes
    oracle, hidden, live, targets = ORACLE, HIDDEN, LIVE, TARGETS
    d = {
        'pid': os.getpid(), 'pids': sorted(int(p) for p in os.listdir('/proc') if p.isdigit()),
        'status': _status(), 'fds': _fds(), 'mounts': _mounts(), 'cwd': os.getcwd(),
        'env': dict(os.environ), 'secret_in_proc': any('SECRET' in e for e in _environs()),
        'argv': sys.argv, 'orig_argv': sys.orig_argv, 'path': sys.path, 'flags': repr(sys.flags),
        'executable': sys.executable, 'stdin': _try(lambda: sys.stdin.read()),
        'net': _try(lambda: socket.create_connection(('127.0.0.1', 9), timeout=2)),
        'oracle': _try(lambda: open(oracle).read()[:10]),
        'umount': ctypes.CDLL(None).umount(hidden.encode()),
        'write_live': _try(lambda: open(live, 'w').write('x')),
        'writable': [os.access(p, os.W_OK) for p in targets],
        'git': _try(lambda: subprocess.run(['git', '-c', 'safe.directory=*', '-C', REPO, 'show',
                                            'HEAD:tasks/parse-range/oracle/test_oracle.py'],
                                           capture_output=True, text=True).stdout[:40]),
        'shadowable': sorted(m for m in ('ctypes', 'resource', 'socket', 'json', 'selectors') if m in sys.modules),
        'shm': _try(lambda: sorted(os.listdir('/dev/shm'))),
    }
    print('DATA<<' + json.dumps(d) + '>>')
    assert False
'''


def _probe(task, mode, monkeypatch):
    monkeypatch.setenv("HARNESS_WARM", "1" if mode == "warm" else "0")
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-SECRET-warm")
    ws = Workspace.create(task, overlay=candidate(task, "reference"))
    try:
        live = ws.root / "rangeparse" / "written_by_probe.py"
        targets = [str(ws.root), str(REPO / "harness" / "control" / "adjudicator.py"), sysconfig.get_paths()["purelib"], "/dev/shm"]
        src = (f"ORACLE, HIDDEN, LIVE, TARGETS, REPO = {str(task.oracle)!r}, {str(TASKS)!r}, {str(live)!r}, "
               f"{targets!r}, {str(REPO)!r}\n") + PROBE
        test = ws.root.parent / f"probe_{mode}.py"
        test.write_text(src)
        before = dict(warm.STATS)
        v = run_pytest(ws.root, test, dest_rel="tests/test_probe.py", hide=hidden_for(TASKS), judged=False)
        assert (warm.STATS["warm"] > before["warm"]) == (mode == "warm")
        assert not live.exists()
        m = re.search(r"DATA<<(\{.*\})>>", v.output)
        assert m, v.output
        return v, json.loads(m.group(1))
    finally:
        ws.destroy()


def _normal(d: dict) -> dict:
    """Scratch paths differ per run; replace them with placeholders."""
    text = json.dumps(d)
    text = re.sub(r"/tmp/(?:hx-warm-[^/\"]+/)?hx-run-[^/\"]+", "<scratch>", text)
    text = re.sub(r"/tmp/hx-warm-[^/\"]+", "<warm-base>", text)
    text = re.sub(r"/tmp/hx-tmp-[^/\"]+", "<tmp>", text)
    text = re.sub(r"/tmp/hx-cap-[^/\"]+", "<capture>", text)
    text = re.sub(r"#\d+", "#<inode>", text)
    out = json.loads(text)
    # the warm zygote's scratch base stays mounted under the run's fresh /tmp, covered and unreachable
    out["mounts"] = [m for m in out["mounts"] if m[0] != "<warm-base>"]
    # the one known difference: a warm run's device nodes are bound read-only over the host's (confine.fresh_dev; the
    # zygote's writable binds stay listed beneath, covered), a cold bwrap run's are bubblewrap's writable --dev binds
    # (a read-only bind of bubblewrap's is nodev: red team rt13's open case, test_rt13_attacks.py)
    nodes = {f"/dev/{n}" for n in confine.DEV_NODES}
    out["mounts"] = sorted({(m[0], "dev-node", m[2]) if m[0] in nodes else tuple(m) for m in out["mounts"]})
    return out


@needs_root
def test_warm_and_cold_confinement_are_identical(task, monkeypatch):
    vc, cold = _probe(task, "cold", monkeypatch)
    vw, hot = _probe(task, "warm", monkeypatch)
    for d in (cold, hot):
        assert d["pid"] == 1 and d["pids"] == [1]  # own PID namespace, nothing else visible
        assert not d["secret_in_proc"] and "SECRET" not in json.dumps(d["env"])
        for k in ("CapInh", "CapPrm", "CapEff", "CapBnd", "CapAmb"):
            assert int(d["status"][k][0], 16) == 0, (k, d["status"])
        assert d["status"]["NoNewPrivs"] == ["1"]
        assert not any("socket" in f for f in d["fds"]), d["fds"]
        assert d["net"].startswith("error") and d["oracle"].startswith("error") and d["umount"] != 0
        # /dev/shm is the run's own (private, empty at start) at every level with a warm path (confine.fresh_dev)
        private_shm = True
        assert d["write_live"].startswith("error") and d["writable"] == [False, False, False, private_shm]
        assert d["shm"] == "ok:[]" or not private_shm
        assert "def test_" not in d["git"]
    c, w = _normal(cold), _normal(hot)
    diff = {k: (c[k], w[k]) for k in c if c[k] != w[k]}
    assert not diff, json.dumps(diff)
    assert (vc.passed, vc.tests, vc.failures, vc.returncode) == (vw.passed, vw.tests, vw.failures, vw.returncode)


@needs_root
@pytest.mark.parametrize("mode", ["cold", "warm"])
def test_timeout_kills_everything_the_run_started(task, mode, monkeypatch, tmp_path):
    monkeypatch.setenv("HARNESS_WARM", "1" if mode == "warm" else "0")
    marker = f"hxwarm{os.getpid()}{mode}"
    test = tmp_path / "t.py"
    test.write_text("import subprocess, time\n"
                    f"subprocess.Popen(['sh', '-c', 'exec -a {marker} sleep 300'], start_new_session=True)\n"
                    "def test_slow():\n    time.sleep(60)\n")
    ws = Workspace.create(task)
    try:
        t0 = time.monotonic()
        v = run_pytest(ws.root, test, dest_rel="tests/test_slow.py", limits=Limits(timeout_s=3), hide=(TASKS,))
        assert v.timed_out and not v.passed and time.monotonic() - t0 < 20
    finally:
        ws.destroy()
    time.sleep(0.5)
    alive = []
    for p in os.listdir("/proc"):
        try:
            if p.isdigit() and marker.encode() in Path(f"/proc/{p}/cmdline").read_bytes():
                alive.append(p)
        except OSError:
            pass
    assert not alive, f"{mode}: a process the run started survived its timeout"


@needs_root
@pytest.mark.parametrize("mode", ["cold", "warm"])
def test_memory_limit_applies(task, mode, monkeypatch, tmp_path):
    monkeypatch.setenv("HARNESS_WARM", "1" if mode == "warm" else "0")
    test = tmp_path / "t.py"
    test.write_text("def test_big():\n    x = bytearray(800 * 1024 * 1024)\n")
    ws = Workspace.create(task)
    try:
        v = run_pytest(ws.root, test, dest_rel="tests/test_big.py", limits=Limits(memory_mb=256), hide=(TASKS,))
        assert not v.passed and v.failures + v.errors == 1 and "MemoryError" in v.output
    finally:
        ws.destroy()


@needs_root
def test_same_verdicts_on_every_candidate(task, monkeypatch):
    """The adjudicator's view (acceptance and oracle) of every candidate, both ways."""
    seen = {}
    for mode in ("cold", "warm"):
        monkeypatch.setenv("HARNESS_WARM", "1" if mode == "warm" else "0")
        for c in task.candidates:
            ws = Workspace.create(task, overlay=c.files())
            try:
                for test, dest in ((task.acceptance, task.acceptance_dest), (task.oracle, ORACLE_DEST)):
                    v = run_pytest(ws.root, test, dest_rel=dest, hide=(TASKS,))
                    seen.setdefault((c.name, dest), []).append(
                        (v.passed, v.tests, v.failures, v.errors, v.skipped, v.subverted, v.returncode))
            finally:
                ws.destroy()
    assert all(a == b for a, b in seen.values()), seen


def test_basic_level_and_switch_fall_back_to_cold(monkeypatch):
    monkeypatch.setenv("HARNESS_WARM", "0")
    assert not warm.enabled()
    monkeypatch.setenv("HARNESS_WARM", "1")
    assert warm.enabled() == (confinement_level() != "basic")


def test_a_cells_warm_setting_overrides_the_process_default(monkeypatch):
    """``harness run --no-warm`` reaches each cell as data (harness.sandbox.sandbox.warm_scoped), in
    force for that cell's code only; HARNESS_WARM is the process's default, read and never written."""
    from harness.sandbox.sandbox import warm_requested, warm_scoped
    monkeypatch.setenv("HARNESS_WARM", "1")
    with warm_scoped(False):
        assert not warm_requested() and not warm.enabled()
        with warm_scoped(None):  # None keeps the setting in force
            assert not warm_requested()
    assert warm_requested()
    monkeypatch.setenv("HARNESS_WARM", "0")
    with warm_scoped(True):
        assert warm_requested() and warm.enabled() == (confinement_level() != "basic")
    assert not warm_requested()


RUN_PROTO = """
[protocol]
name = "nowarm"
seed = 1
repeats = 1
tasks_dir = "tasks"
tasks = ["parse-range"]
scenarios = ["null"]

[arms.A1]
"""


def test_no_warm_runs_the_cells_cold_and_leaves_the_environment_as_it_was(tmp_path, monkeypatch):
    """``harness run --no-warm`` used to write HARNESS_WARM=0 into os.environ: it outlived the command
    in the process (a later run in it went cold too) and never reached a Ray worker. Now the flag
    travels with each job and the environment is as it was."""
    from click.testing import CliRunner

    from harness.cli.cli import main
    from support.scripted import copy_tasks
    copy_tasks(tmp_path, ("parse-range",))
    (tmp_path / "p.toml").write_text(RUN_PROTO)
    monkeypatch.delenv("HARNESS_WARM", raising=False)
    before = dict(warm.STATS)
    r = CliRunner().invoke(main, ["run", str(tmp_path / "p.toml"), "--out", str(tmp_path / "run"), "--exploratory",
                                  "--no-warm", "--no-cache"])
    assert r.exit_code == 0, r.output
    assert "HARNESS_WARM" not in os.environ
    assert warm.STATS["warm"] == before["warm"]  # every test run of the cell went cold
    assert json.loads((tmp_path / "run" / "records.jsonl").read_text().splitlines()[0])["outcome"]


@needs_root
def test_zygote_that_cannot_start_falls_back_to_cold(task, monkeypatch):
    monkeypatch.setenv("HARNESS_WARM", "1")
    warm.stop()
    monkeypatch.setattr(warm, "__file__", "/nonexistent/warm.py")
    ws = Workspace.create(task, overlay=candidate(task, "reference"))
    try:
        before = dict(warm.STATS)
        v = run_pytest(ws.root, task.acceptance, dest_rel=task.acceptance_dest, hide=(TASKS,))
        assert v.passed and warm.STATS["fallback"] == before["fallback"] + 1 and warm.STATS["warm"] == before["warm"]
    finally:
        ws.destroy()
        monkeypatch.undo()
        warm.stop()


def test_zygote_never_holds_the_harness_secrets(monkeypatch):
    if confinement_level() == "basic" or not shutil.which("true"):
        pytest.skip("no zygote at level basic")
    monkeypatch.setenv("OPENAI_API_KEY", "sk-SECRET-zygote")
    warm.stop()
    warm._zygote()
    pid = warm._mine()["proc"].pid
    env = Path(f"/proc/{pid}/environ").read_bytes()
    assert b"SECRET" not in env and b"API_KEY" not in env
    warm.stop()


@needs_root
def test_two_threads_run_warm_at_once_and_each_reads_its_own_reply(task, monkeypatch):
    """A zygote serves one run at a time over one socket; two harness threads (a thread pool of
    mutant judgments, two runs in parallel) each get their own zygote, so neither reads the other's
    reply and neither falls back to cold."""
    import threading
    monkeypatch.setenv("HARNESS_WARM", "1")
    before = dict(warm.STATS)
    out: dict = {}

    def one(name: str) -> None:
        ws = Workspace.create(task, overlay=candidate(task, "reference"))
        try:
            out[name] = run_pytest(ws.root, task.acceptance, dest_rel=task.acceptance_dest, hide=(TASKS,))
        finally:
            ws.destroy()
            warm.stop()

    threads = [threading.Thread(target=one, args=(n,)) for n in ("a", "b", "c")]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert all(v.passed for v in out.values()) and len(out) == 3, out
    assert warm.STATS["fallback"] == before["fallback"] and warm.STATS["warm"] == before["warm"] + 3


def test_a_scratch_base_whose_maker_is_gone_is_reclaimed_and_a_live_ones_is_kept(tmp_path):
    """``warm.BASE_RULE``: a base named for a process that still runs (this one; its start time as /proc reads it)
    is kept, one named for a pid with another start time (a killed maker, its pid perhaps reused) or a pid that
    does not exist is removed, and nothing the rule's name does not match (an older base's name, a file, a link to
    a directory elsewhere) is touched."""
    me = os.getpid()
    live = tmp_path / f"hx-warm-{me}-{warm._started(me)}-abc"
    reused = tmp_path / f"hx-warm-{me}-1-abc"
    gone = tmp_path / "hx-warm-999999999-5-abc"
    old_style, outside = tmp_path / "hx-warm-k2j3h4", tmp_path / "outside"
    for d in (live, reused, gone, old_style, outside):
        (d / ".zygote").mkdir(parents=True)
    (tmp_path / "hx-warm-999999998-5-file").write_text("x")
    (tmp_path / "hx-warm-999999997-5-link").symlink_to(outside)
    removed = warm.reclaim_bases(str(tmp_path), keep="")
    assert sorted(removed) == sorted([str(reused), str(gone)]), removed
    assert live.is_dir() and old_style.is_dir() and (outside / ".zygote").is_dir()
    assert (tmp_path / "hx-warm-999999998-5-file").is_file() and (tmp_path / "hx-warm-999999997-5-link").is_symlink()


def test_a_new_scratch_base_is_named_for_its_maker():
    """``warm.BASE_RULE``: the base this process makes is named for its pid and start time, so no other harness
    process reclaims it while this one runs."""
    base = warm._new_base()
    try:
        name = os.path.basename(base)
        found = warm._BASE_NAME.fullmatch(name)
        assert found and found.group(1) == str(os.getpid()) and found.group(2) == warm._started(os.getpid()) != "", name
    finally:
        os.rmdir(base)

