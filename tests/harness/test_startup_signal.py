"""Issue 25: a Ctrl-C (SIGINT) or SIGTERM while the command line is still importing is one line and
exit 4 (the README's exit table), never a traceback. The slow import is stubbed from outside the
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

REPO = Path(__file__).resolve().parents[2]

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
