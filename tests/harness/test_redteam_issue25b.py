"""Red team of issue 25 (b): the start-up signal guard (harness.cli.entry) through the console
script's entry point and ``python -m harness.cli``."""
from __future__ import annotations

import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]


def _ignore_sigint():
    signal.signal(signal.SIGINT, signal.SIG_IGN)


@pytest.mark.parametrize("argv", [["-m", "harness.cli"], ["-c", "import sys; from harness.cli.entry import main; "
                                                                "sys.exit(main())"]], ids=["module", "console-script"])
def test_a_sigint_the_parent_ignored_stays_ignored_during_start_up(argv):
    """A harness started with SIGINT ignored (``nohup``, a background job of a non-interactive shell)
    must not be stopped by a Ctrl-C meant for its parent: the guard replaced SIG_IGN with its own
    handler for the start-up window, so a SIGINT there exited 4 with nothing run."""
    p = subprocess.Popen([sys.executable, *argv, "--help"], cwd=REPO, stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE, text=True, preexec_fn=_ignore_sigint)
    while p.poll() is None:  # a SIGINT every 20 ms, through the whole start-up
        p.send_signal(signal.SIGINT)
        time.sleep(0.02)
    out, err = p.communicate()
    assert p.returncode == 0, err
    assert "STOPPED" not in err and "Usage" in out
