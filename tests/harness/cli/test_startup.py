"""Issue 25: a Ctrl-C (SIGINT) or SIGTERM while the command line is still importing is one line and
exit 4 (docs/reference/exit-codes.md), never a traceback. The slow import is stubbed from outside the
harness: a ``sitecustomize`` on PYTHONPATH makes the import of one module mark a file and block, and
the test signals the process then. Two imports are stubbed: ``harness.cli.plugins`` (imported by the
command line itself, before any command is chosen) and ``analysis.cli`` (imported when ``harness
analyze`` is chosen: ``harness.cli.cli.LAZY_COMMANDS``)."""
from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
import tomllib
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[3]

SITECUSTOMIZE = '''
import os, sys, time

class _SlowImport:
    """Blocks the import of $SLOW_IMPORT (after marking a file) until the test signals the process."""
    def find_spec(self, name, path=None, target=None):
        if name == os.environ["SLOW_IMPORT"]:
            open(os.environ["SLOW_IMPORT_MARK"], "w").close()
            time.sleep(120)
        return None

sys.meta_path.insert(0, _SlowImport())
'''

CONSOLE_SCRIPT = "import sys\nfrom harness.cli.entry import main\nsys.exit(main())"  # what pip generates for it
ENTRIES = {
    "console-script": [sys.executable, "-c", CONSOLE_SCRIPT],
    "python-m": [sys.executable, "-m", "harness.cli"],
}
# the module whose import is stubbed slow, and a command whose start-up imports it
SLOW_IMPORTS = {"start-up": ("harness.cli.plugins", ["ledger", "--help"]),
                "lazy-command": ("analysis.cli", ["analyze", "--help"])}


def _signal_during_import(tmp_path: Path, argv: list[str], sig: int,
                          slow: str = "harness.cli.plugins") -> subprocess.CompletedProcess:
    (tmp_path / "sitecustomize.py").write_text(SITECUSTOMIZE)
    mark = tmp_path / "importing"
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(tmp_path), os.environ.get("PYTHONPATH", "")]),
           "SLOW_IMPORT_MARK": str(mark), "SLOW_IMPORT": slow}
    proc = subprocess.Popen(argv, cwd=REPO, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        for _ in range(600):  # the import has begun (bounded wait for the precondition, not a timing check)
            if mark.exists() or proc.poll() is not None:
                break
            time.sleep(0.1)
        assert mark.exists(), "the stubbed import was never reached"
        proc.send_signal(sig)
        out, err = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    return subprocess.CompletedProcess(argv, proc.returncode, out, err)


def test_the_console_script_is_the_guarded_entry_point():
    scripts = tomllib.loads((REPO / "pyproject.toml").read_text())["project"]["scripts"]
    assert scripts["harness"] == "harness.cli.entry:main"


@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM], ids=["SIGINT", "SIGTERM"])
@pytest.mark.parametrize("entry", sorted(ENTRIES))
@pytest.mark.parametrize("stage", sorted(SLOW_IMPORTS))
def test_a_signal_during_the_imports_is_one_line_and_exit_4(tmp_path, stage, entry, sig):
    module, command = SLOW_IMPORTS[stage]
    p = _signal_during_import(tmp_path, ENTRIES[entry] + command, sig, slow=module)
    name = signal.Signals(sig).name
    assert p.returncode == 4, p.stderr
    assert p.stderr.splitlines() == [f"STOPPED: {name} while the harness was starting, before any command ran; "
                                     "nothing was run or written"]
    assert p.stdout == ""


def test_the_control_without_the_guard_shows_the_traceback_it_replaces(tmp_path):
    """The stub does interrupt an import: importing the command line unguarded dies in a traceback."""
    p = _signal_during_import(tmp_path, [sys.executable, "-c", "import harness.cli.cli"], signal.SIGINT)
    assert p.returncode != 4 and "KeyboardInterrupt" in p.stderr and "Traceback" in p.stderr


# a module imported inside a command's body (after the command group dispatched to it), and the command
IN_COMMAND = {"view": ("viewer.rundir", ["view", "."]),
              "monitor": ("analysis.monitor", ["monitor", "."]),
              "loop run": ("corpus.catalogue", ["loop", "run", ".", "--out", "loop-out"])}


@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM], ids=["SIGINT", "SIGTERM"])
@pytest.mark.parametrize("command", sorted(IN_COMMAND))
def test_a_signal_inside_a_command_is_its_stopped_line_and_exit_4(tmp_path, command, sig):
    """Issue 34: once a command runs (the start-up guard gave way), a signal used to be a silent -15
    (SIGTERM: no handler) or click's ``Aborted!`` and exit 1 (SIGINT). Every command answers it with
    one STOPPED line naming the command, and exit 4 (docs/reference/exit-codes.md)."""
    module, command_args = IN_COMMAND[command]
    p = _signal_during_import(tmp_path, ENTRIES["console-script"] + command_args, sig, slow=module)
    name = signal.Signals(sig).name
    assert p.returncode == 4, (p.returncode, p.stderr)
    lines = p.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith(f"STOPPED: {name} during `harness {command}`"), p.stderr
    assert "Aborted" not in p.stderr and "Traceback" not in p.stderr


def test_a_forked_child_dies_of_the_signal_as_without_the_handler():
    """A process forked from the harness (a pool worker) is not the harness: SIGTERM kills it."""
    code = ("import os, signal, sys, time\n"
            "from harness.cli import startup\n"
            "startup.arm_command('harness x')\n"
            "r, w = os.pipe()\n"
            "pid = os.fork()\n"
            "if pid == 0:\n"
            "    os.write(w, b'up'); time.sleep(60); os._exit(0)\n"
            "os.read(r, 2)\n"  # the child runs Python code (a signal before that is dropped by the fork itself)
            "os.kill(pid, signal.SIGTERM)\n"
            "_, status = os.waitpid(pid, 0)\n"
            "print(os.WIFSIGNALED(status) and os.WTERMSIG(status) == signal.SIGTERM)\n")
    p = subprocess.run([sys.executable, "-c", code], cwd=REPO, capture_output=True, text=True, timeout=120)
    assert p.stdout.strip() == "True", p.stderr


# the modules the console script imports before its first instruction installs the guard: the package
# path to the entry point and the guard's own module; anything else (click, the protocol models) widens
# the start-up window in which SIGTERM is the kernel's default (a silent -15) for every user
BEFORE_THE_GUARD = {"harness", "harness.cli", "harness.cli.entry", "harness.cli.startup"}


def test_nothing_but_the_guard_is_imported_before_the_guard_is_installed():
    """What the interpreter loads between the console script's first line and ``guard_startup``:
    the four modules of the path to it and the standard library, nothing third-party. (Measured:
    median 3.4 ms of a 26.7 ms exec-to-guard window on a loaded 2-core machine; the rest is the
    interpreter and site: benchmarks/startup_window.py.)"""
    code = ("import sys\nbefore = set(sys.modules)\nfrom harness.cli.entry import main\n"
            "print('\\n'.join(sorted(set(sys.modules) - before)))\n")
    p = subprocess.run([sys.executable, "-c", code], cwd=REPO, capture_output=True, text=True, timeout=120)
    assert p.returncode == 0, p.stderr
    new = set(p.stdout.split())
    harness_modules = {m for m in new if m.split(".")[0] in ("harness", "analysis", "corpus", "viewer", "interop")}
    assert harness_modules == BEFORE_THE_GUARD, harness_modules
    others = {m for m in new - harness_modules if m.split(".")[0] not in sys.stdlib_module_names}
    assert not others, f"third-party modules imported before the start-up guard: {sorted(others)}"


@pytest.mark.parametrize("sig", ["SIGINT", "SIGTERM"])
def test_a_signal_the_instant_the_guard_is_in_is_the_start_up_line(sig):
    """The first instruction after the guard (``HARNESS_TEST_SIGNAL=startup:SIG``: sent by the
    process itself there, no race): the start-up line and exit 4, nothing else."""
    p = subprocess.run([sys.executable, "-c", CONSOLE_SCRIPT, "ledger", "--help"], cwd=REPO, capture_output=True,
                       text=True, timeout=120, env={**os.environ, "HARNESS_TEST_SIGNAL": f"startup:{sig}"})
    assert p.returncode == 4, p.stderr
    assert p.stderr.splitlines() == [f"STOPPED: {sig} while the harness was starting, before any command ran; "
                                     "nothing was run or written"]
    assert p.stdout == ""


def test_a_signal_inside_a_class_bodys_set_name_is_the_commands_stopped_line():
    """A signal landing while a command imports a module that defines a dataclass raises ``Interrupted`` inside a
    field's ``__set_name__``, which Python wraps in a RuntimeError: still the command's one STOPPED line and exit 4
    (``interruption_in``; seen as exit 1 from ``harness view`` on a loaded CI machine)."""
    import click
    from click.testing import CliRunner

    from harness.cli.cli import main
    from harness.cli.startup import Interrupted, interruption_in

    class Field:
        def __set_name__(self, owner, name):
            raise Interrupted("SIGINT")

    def imports_a_dataclass():
        type("Adjudication", (), {"unsafe": Field()})

    with pytest.raises(RuntimeError) as info:
        imports_a_dataclass()
    assert interruption_in(info.value).signame == "SIGINT"
    assert interruption_in(RuntimeError("a plain error")) is None
    main.add_command(click.Command("hx-test-set-name", callback=imports_a_dataclass))
    try:
        result = CliRunner().invoke(main, ["hx-test-set-name"])
    finally:
        main.commands.pop("hx-test-set-name", None)
    assert result.exit_code == 4, result.output
    assert "STOPPED" in result.output
