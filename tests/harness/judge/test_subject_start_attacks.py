"""Red team a29: attacks on the judge's start-up speedup (issue 21): the subject started before
pytest and given its import path on first use, and the harness's runtime and protocol loaded from
an unchecked hash-based .pyc the harness writes into the run's result directory.

Tests that depend on the executor take the ``executor`` fixture (cold and warm); run the file with
HARNESS_CONFINEMENT=namespaces for the fallback level. Attacks that failed are kept as cheap
regressions; the two that worked (a subject started with the directory and environment the test
had not set yet; the .pyc named and compiled as this process, not the judged run, would) are fixed.

Formerly ``tests/harness/test_redteam_a29.py``, named after its origin.
"""
from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.harness.judge.test_process_boundary_attacks import tiny

ROOT = Path(__file__).resolve().parents[3]


# == 1. the subject started before the test set its working directory or environment ===============
# Plain pytest's tree sees the directory and variables the test set before calling it. The subject
# used to start on first use, so it inherited them; started before pytest, it held the driver's
# start-up directory and environment, and a correct tree failed (the reverse: a tree that writes or
# reads in the wrong directory passed a test that checks the test's own directory).
HERE = "import os\n\n\ndef here():\n    return os.getcwd()\n\n\ndef zone():\n    return os.environ.get('TZ')\n"
CHDIR_TEST = '''
def test_the_tree_runs_in_the_tests_directory(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    from pkg import here
    assert here() == str(tmp_path)
'''
SETENV_TEST = '''
def test_the_tree_sees_the_tests_variable(monkeypatch):
    monkeypatch.setenv("TZ", "Europe/Paris")
    from pkg import zone
    assert zone() == "Europe/Paris"
'''


def test_a_tree_first_used_after_the_test_changed_directory_runs_there(tmp_path, executor):
    v = tiny(tmp_path, HERE, CHDIR_TEST)
    assert v.passed and not v.subverted, v.output


def test_a_tree_first_used_after_the_test_set_a_variable_sees_it(tmp_path, executor):
    v = tiny(tmp_path, HERE, SETENV_TEST)
    assert v.passed and not v.subverted, v.output


def test_the_early_subject_is_kept_whatever_directory_or_environment_the_test_set(monkeypatch, tmp_path):
    """The decision in the driver (``_subject``): the subject started early is used whatever the test changed of
    the directory or environment before its first use of the tree (harness.judge.testrun ``STARTED_STATE_RULE``):
    its interpreter started under the environment pytest's process started under, and the first message carries
    the test's directory and variables (subject_rpc ``ProcState``). A subject started afresh under the test's
    variables read them at its start (the time zone, UTF-8 mode, ``tempfile``'s directory), which plain pytest's
    process never did: red team atk10's fresh-subject cases (tests/harness/judge/test_testrun_attacks.py)."""
    from harness.judge import probe_runtime as rt
    from harness.judge import subject_rpc
    monkeypatch.setattr(rt, "_rpc", subject_rpc)
    sent: list = []

    class Early:
        fd = -1

        def _send(self, msg):
            sent.append(msg)

    events: list = []
    monkeypatch.setattr(rt, "_discard_spawned", lambda: (events.append("discarded"), rt._DRIVER.update(spawned=None)))
    monkeypatch.setattr(rt, "_spawn_subject", lambda started=None: (events.append("spawned"), rt._DRIVER.update(
        spawned=Early(), inherited=rt._inherited())))

    class Running:
        def poll(self):
            return None

    monkeypatch.setattr(rt, "_DRIVER", {**rt._DRIVER, "peer": None, "res": str(tmp_path), "proc": Running()})
    rt._DRIVER.update(spawned=Early(), inherited=rt._inherited())
    assert isinstance(rt._subject(), Early) and events == [] and len(sent) == 1  # nothing changed: kept
    rt._DRIVER.update(peer=None, spawned=Early(), inherited=rt._inherited())
    monkeypatch.chdir(tmp_path)
    rt._subject()
    assert events == [] and len(sent) == 2
    rt._DRIVER.update(peer=None, spawned=Early())
    monkeypatch.setenv("TZ", "Asia/Tokyo")
    rt._subject()
    assert events == [] and len(sent) == 3


def test_an_early_subject_that_already_ended_is_replaced_not_charged_to_the_tree(monkeypatch, tmp_path):
    """The early subject has run no code of the tree: if it ended before first use (for any reason of
    the harness's), the first request must not meet a broken pipe; a fresh subject is started."""
    from harness.judge import probe_runtime as rt
    from harness.judge import subject_rpc
    monkeypatch.setattr(rt, "_rpc", subject_rpc)

    class Early:
        fd = -1

        def _send(self, msg):
            pass

    class Ended:
        def poll(self):
            return 1

    class Running:
        def poll(self):
            return None

    events: list = []
    monkeypatch.setattr(rt, "_discard_spawned", lambda: (events.append("discarded"), rt._DRIVER.update(spawned=None)))
    monkeypatch.setattr(rt, "_spawn_subject", lambda started=None: (events.append(("spawned", started)), rt._DRIVER.update(
        spawned=Early(), proc=Running(), inherited=rt._inherited())))
    started_env = {"TZ": "UTC"}
    monkeypatch.setattr(rt, "_DRIVER", {**rt._DRIVER, "peer": None, "res": str(tmp_path), "started_env": started_env,
                                        "start": lambda cwd, env: ("started", cwd, env)})
    rt._DRIVER.update(spawned=Early(), proc=Ended(), inherited=rt._inherited())
    monkeypatch.setenv("TZ", "Asia/Tokyo")
    rt._subject()  # started under the environment pytest's process started under, never the test's
    assert events == ["discarded", ("spawned", ("started", os.getcwd(), started_env))]


# == 2. the bytecode named and compiled as the harness process would load it ========================
# The driver and the subject run ``python -I``: no -O, no pycache prefix. The harness named the
# .pyc by its own flags (importlib.util.cache_from_source): with PYTHONPYCACHEPREFIX set every
# judged run raised FileNotFoundError (its directory under the prefix does not exist), and under -O
# the .pyc was named .opt-1 (never loaded) and compiled without asserts.
PLACE = """
import sys
from pathlib import Path
from harness.judge.testrun import _place_module
res, src = Path(sys.argv[1]), Path(sys.argv[2])
_place_module(res, "_hx_mod.py", src)
"""
LOAD = """
import importlib.util, sys
spec = importlib.util.spec_from_file_location("_hx_mod", sys.argv[1])
m = importlib.util.module_from_spec(spec); spec.loader.exec_module(m)
print(m.WHO, m.ASSERTS)
"""


def test_the_bytecode_is_the_one_the_judged_run_loads_whatever_the_harness_flags(tmp_path):
    src, res = tmp_path / "mod_src.py", tmp_path / "res"
    res.mkdir()
    src.write_text("WHO = 'compiled by the harness'\ntry:\n    assert False\n    ASSERTS = False\n"
                   "except AssertionError:\n    ASSERTS = True\n")
    env = {**os.environ, "PYTHONPATH": str(ROOT), "PYTHONPYCACHEPREFIX": str(tmp_path / "prefix")}
    r = subprocess.run([sys.executable, "-O", "-c", PLACE, str(res), str(src)], env=env, capture_output=True,
                       text=True)
    assert r.returncode == 0, r.stderr
    assert not (tmp_path / "prefix").exists()  # nothing written outside the result directory
    (res / "_hx_mod.py").write_text("WHO = 'the source, compiled at load'\nASSERTS = None\n")
    out = subprocess.run([sys.executable, "-I", "-c", LOAD, str(res / "_hx_mod.py")], capture_output=True,
                         text=True, check=True).stdout
    assert out.strip() == "compiled by the harness True"


# == 3. harness files rewritten from the subject (sources and bytecode) ============================
# The tree (in the subject) replaces every harness module of the result directory, source and .pyc,
# and plants bytecode for third-party names pytest may import late (res is first on the driver's
# path). The payload reports itself through the driver's runtime if it ever runs in the driver:
# nothing loads harness code from the result directory after the tree has run.
PAYLOAD = r'''
import sys as _s
for _n, _m in list(_s.modules.items()):
    if _n.startswith("_hx_probe_") and hasattr(_m, "_emit"):
        _m._emit({"k": "tamper", "what": ["the payload ran in the driver"]})
'''
REWRITE = r'''
import glob, importlib.util, marshal, os, sys
PAYLOAD = %r


def _plant():
    res = os.path.join(os.path.dirname(os.getcwd()), "res")
    pyc = importlib.util.MAGIC_NUMBER + (1).to_bytes(4, "little") + bytes(8) + marshal.dumps(
        compile(PAYLOAD, "payload", "exec"))
    stems = [os.path.basename(p)[:-3] for p in glob.glob(os.path.join(res, "*.py"))]
    os.makedirs(os.path.join(res, "__pycache__"), exist_ok=True)
    for stem in [*stems, "pygments", "exceptiongroup", "tomli", "iniconfig", "packaging", "pluggy"]:
        for p, data in ((os.path.join(res, stem + ".py"), PAYLOAD.encode()),
                        (os.path.join(res, "__pycache__", stem + "." + sys.implementation.cache_tag + ".pyc"), pyc)):
            if stem == "_hx_subject" and p.endswith(".py"):
                continue
            try:
                os.unlink(p)
            except OSError:
                pass
            with open(p, "wb") as f:
                f.write(data)
    return len(stems)


PLANTED = _plant()


def f():
    return PLANTED
''' % PAYLOAD
REWRITE_TEST = '''
from pkg import f


def test_planted():
    assert f() >= 3


def test_again():
    assert f() >= 3
'''


def test_harness_files_rewritten_from_the_subject_never_run_in_the_driver(tmp_path, executor):
    v = tiny(tmp_path, REWRITE, REWRITE_TEST)
    assert v.passed and not v.subverted and v.tests == 2, (v.tamper, v.output)


# == 4. code planted where the early subject's interpreter might look before its audit hook =========
# The subject starts in the work tree (its cwd) before any message: python -I puts neither the
# cwd nor the script's directory on its path, reads no PYTHON* variable, no user site, and its
# path's .pth files are the interpreter's. Each planted file records that it ran; the tree's module,
# imported right after the first message, returns what had run by then.
FLAG = "import builtins\nbuiltins.HX_PLANTED = getattr(builtins, 'HX_PLANTED', ()) + (__name__,)\n"
STARTUP_NAMES = ("sitecustomize", "usercustomize", "site", "_json", "sysconfig", "_sysconfigdata__linux_x86_64-linux-gnu",
                 "_thread", "os", "io", "abc", "codecs", "stat", "posixpath", "genericpath", "_collections_abc",
                 "_sitebuiltins", "_distutils_hack", "__editable___proof_harness_0_1_0_finder", "_hx_rpc", "_hx_subject",
                 "encodings", "importlib", "coverage", "socket", "subprocess", "json")
SEEN = "import builtins\n\nSEEN = list(getattr(builtins, 'HX_PLANTED', ()))\n\n\ndef f():\n    return SEEN\n"
SEEN_TEST = "from pkg import f\n\n\ndef test_nothing_planted_ran_before_the_tree():\n    assert f() == []\n"


def test_nothing_the_tree_plants_runs_in_the_subject_before_its_first_message(tmp_path, executor):
    tree = tmp_path / "tree"
    for name in STARTUP_NAMES:
        for where in (tree, tree / "tests"):
            where.mkdir(parents=True, exist_ok=True)
            (where / f"{name}.py").write_text(FLAG)
    (tree / "zz.pth").write_text("import builtins; builtins.HX_PLANTED = ('a .pth file',)\n")
    (tree / "pyvenv.cfg").write_text("home = /nonexistent\ninclude-system-site-packages = true\n")
    v = tiny(tmp_path, SEEN, SEEN_TEST)
    assert v.passed and not v.subverted, v.output


# == 5. the channel's path and the nonce, now both in the driver's environment =====================
ENV_KEYS = ("import os\n\n\ndef f():\n"
            "    return sorted(k for k in os.environ if 'HX' in k or 'OBS' in k or 'NONCE' in k)\n")


def test_the_subject_holds_neither_variable(tmp_path, executor):
    v = tiny(tmp_path, ENV_KEYS, "from pkg import f\n\n\ndef test_env():\n    assert f() == []\n")
    assert v.passed and not v.subverted, v.output


# == 6. the files whose lines pytest shows, replaced from the subject ===============================
# pytest in the driver shows a failure's frames (the probe's, the runtime's, the protocol's) and a
# warning's line from linecache, which read each file when first shown, after the tree had run. A
# FIFO put in place of a harness file or of the probe held the driver at the first failure until
# the run's timeout (pre-dating 9385737); a rewritten file showed lines the driver never ran. The
# driver now holds their lines as they were before any code of the tree ran.
REPLACE = r'''
import glob, os


def _replace(how):
    res = os.path.join(os.path.dirname(os.getcwd()), "res")
    for p in [*glob.glob(os.path.join(res, "_hx_*.py")), os.path.join(os.getcwd(), "tests", "test_t.py")]:
        if os.path.basename(p) == "_hx_subject.py":
            continue
        os.unlink(p)
        if how == "fifo":
            os.mkfifo(p)
        else:
            with open(p, "w") as f:
                f.write("raise SystemExit('FORGED LINE')\n" * 2000)


_replace(%r)


def f():
    return 1
'''
BAD = "raise ValueError('the module raises at import')\n"
REPLACE_TEST = '''
from pkg import f


def test_wrong():
    x = f()
    if x != 2:
        raise AssertionError("wrong")


def test_import_raises():
    import pkg.bad
    assert f() == 2
'''


@pytest.mark.parametrize("how", ["fifo", "rewritten"])
def test_a_replaced_harness_file_or_probe_neither_holds_the_driver_nor_shows_forged_lines(how, tmp_path, executor):
    (tmp_path / "tree" / "pkg").mkdir(parents=True)
    (tmp_path / "tree" / "pkg" / "bad.py").write_text(BAD)
    v = tiny(tmp_path, REPLACE % how, REPLACE_TEST)
    assert not v.timed_out and not v.passed and v.errors == 2, v.output
    assert "FORGED" not in v.output and "raise AssertionError('wrong')" in v.output, v.output


# The same two variables searched for wherever the subject can read: every process's environment and
# command line it can open, and every file of the result directory (the runtime's bytes no longer
# hold the channel's path). The search itself is reported (the run is subverted); what it found is
# the check's value: nothing.
SEARCH = r'''
import glob, os, re


def found():
    hits = []
    pat = re.compile(rb"HX_OBS_(?:NONCE|PATH)=[^\0]+")
    paths = [*glob.glob("/proc/[0-9]*/environ"), *glob.glob("/proc/[0-9]*/cmdline"),
             *glob.glob("/proc/[0-9]*/task/*/environ")]
    res = os.path.join(os.path.dirname(os.getcwd()), "res")
    paths += [p for p in glob.glob(os.path.join(res, "**"), recursive=True)
              if os.path.isfile(p) and not p.endswith(".jsonl")]
    for p in paths:
        try:
            with open(p, "rb") as f:
                data = f.read(1 << 20)
        except OSError:
            continue
        hits += [(p, m[:60].decode("latin-1")) for m in pat.findall(data)]
    return hits
'''


def test_neither_variable_is_found_wherever_the_subject_can_read(tmp_path, executor):
    v = tiny(tmp_path, SEARCH, "from pkg import found\n\n\ndef test_no_leak():\n    assert found() == []\n")
    assert v.subverted and v.tests == 1 and v.failures == 0 and v.errors == 0, v.output
