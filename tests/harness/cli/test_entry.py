"""Red team of issue 25 (b): the start-up signal guard (harness.cli.entry) through the console
script's entry point and ``python -m harness.cli``.

Formerly ``tests/harness/test_redteam_issue25b.py``, named after its origin."""
from __future__ import annotations

import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[3]


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


# ---- (d) graph-loop resume, killed again while resuming ------------------------------------------------
@pytest.mark.parametrize("k,j", [(2, 1), (2, 2), (5, 1), (5, 3), (8, 1)])
def test_a_graph_resume_killed_again_resumes_to_the_same_end(tmp_path, monkeypatch, k, j):
    """Killed after row k, resumed, killed again after the resume wrote j rows (an ``abandoned`` row,
    a rerun attempt), resumed again: the same end as the uninterrupted run, the ledger verifies, and
    every finished pass and repair is written once."""
    from harness.ledger.ledger import Ledger, inspect
    from tests.harness.loop.test_loop_graph_resume import Killed, _ends, _graph, _run
    graph = _graph(tmp_path)
    whole = _run(str(graph), "--out", str(tmp_path / "whole"))
    assert whole.exit_code == 0, whole.output
    append = Ledger.append
    out = tmp_path / "run"

    def dying_after(limit):
        n = {"rows": 0}

        def dying_append(self, rec):
            if n["rows"] == limit:
                raise Killed(f"killed after {limit} rows")
            n["rows"] += 1
            return append(self, rec)
        return dying_append
    monkeypatch.setattr(Ledger, "append", dying_after(k))
    with pytest.raises(Killed):
        _run(str(graph), "--out", str(out))
    monkeypatch.setattr(Ledger, "append", dying_after(j))
    try:
        first = _run(str(graph), "--resume", str(out))
        killed = first.exc_info is not None and first.exc_info[0] is Killed
    except Killed:
        killed = True
    monkeypatch.setattr(Ledger, "append", append)
    res = _run(str(graph), "--resume", str(out))
    assert res.exit_code == 0, (k, j, killed, res.output)
    assert res.output.splitlines()[-2] == whole.output.splitlines()[-2]
    ins = inspect(out / "ledger.jsonl")
    assert not ins.problems and not ins.notes
    keys = [r["cell_key"] for r in ins.records if r["kind"] in ("terminal", "repair", "abandoned")]
    assert len(keys) == len(set(keys)), keys
    assert _ends(out) == _ends(tmp_path / "whole")
