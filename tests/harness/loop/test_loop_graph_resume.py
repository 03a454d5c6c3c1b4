"""Issue 25: ``harness loop run GRAPH --resume DIR`` continues a graph run a kill stopped. The kill
is injected at every row boundary of a run (the process dies right after a ledger row is
fsynced); the resumed run ends as the uninterrupted one did, the ledger verifies, every finished
pass and repair is replayed without a row written twice, and a pass cut short reruns after an
``abandoned`` row. A live engine's graph is refused in one line (its artifacts are not kept)."""
from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from harness.cli.cli import main
from harness.ledger.ledger import Ledger, inspect
from tests.harness.loop.test_loop_graph import graph_file

STEPS = ("kind", "node", "pass", "attempt", "verdict", "artifact_digest", "state")


class Killed(BaseException):
    """The harness process dying between two ledger rows (not an Exception: nothing catches it)."""


def _graph(tmp_path: Path) -> Path:
    """Two nodes, a data edge and a repair edge; b's drafts fail until a's repair (bounded: R = 1)."""
    d = tmp_path / "g"
    for name, drafts in (("da", {"good": "ACCEPT", "bad": "nope"}), ("db", {"bad1": "no", "good": "ACCEPT"})):
        (d / name).mkdir(parents=True)
        for f, v in drafts.items():
            (d / name / f).write_text(json.dumps(v))
    return graph_file(d, {"a": 2, "b": 1}, [("a", "b")], [("b", "a")],
                      node_extra={"a": ['drafts = "da"'], "b": ['drafts = "db"']})


def _ends(out: Path) -> list[tuple]:
    """Each pass's terminal row and each repair, as the steps the graph took."""
    return [tuple(r.get(k) for k in STEPS) for r in inspect(out / "ledger.jsonl").records
            if r["kind"] in ("terminal", "repair")]


def _run(*args: str):
    return CliRunner().invoke(main, ["loop", "run", *args])


@pytest.mark.parametrize("k", range(1, 10))  # every row boundary of the 10-row run but the last
def test_a_graph_killed_at_every_row_resumes_to_the_same_end(tmp_path, monkeypatch, k):
    graph = _graph(tmp_path)
    whole = _run(str(graph), "--out", str(tmp_path / "whole"))
    assert whole.exit_code == 0, whole.output
    rows = inspect(tmp_path / "whole" / "ledger.jsonl").records
    assert len(rows) == 10 and [r["kind"] for r in rows].count("repair") == 1  # the case exercises a repair
    append = Ledger.append
    out = tmp_path / f"kill{k}"
    n = {"rows": 0}

    def dying_append(self, rec, n=n, k=k):
        if n["rows"] == k:
            raise Killed(f"killed after row {k}")
        n["rows"] += 1
        return append(self, rec)
    monkeypatch.setattr(Ledger, "append", dying_append)
    with pytest.raises(Killed):
        _run(str(graph), "--out", str(out))
    monkeypatch.setattr(Ledger, "append", append)
    assert len(inspect(out / "ledger.jsonl").records) == k
    again = _run(str(graph), "--out", str(out))
    assert again.exit_code == 2 and "--resume" in again.output  # the same command names the resume
    res = _run(str(graph), "--resume", str(out))
    assert res.exit_code == 0, (k, res.output)
    assert res.output.splitlines()[-2] == whole.output.splitlines()[-2]  # the same graph line and bound
    ins = inspect(out / "ledger.jsonl")
    assert not ins.problems and not ins.notes
    keys = [r["cell_key"] for r in ins.records if r["kind"] in ("terminal", "repair")]
    assert len(keys) == len(set(keys))  # every finished pass and repair written once
    assert _ends(out) == _ends(tmp_path / "whole")  # the same passes, verdicts, artifacts and repairs, in order
    cut = [r for r in ins.records if r["kind"] == "abandoned"]
    assert len(cut) == (rows[k - 1]["kind"] == "attempt")  # a pass cut short mid-way is marked and rerun


def test_a_resume_that_replays_differently_is_refused_and_writes_nothing(tmp_path, monkeypatch):
    graph = _graph(tmp_path)
    out = tmp_path / "o"
    assert _run(str(graph), "--out", str(out), "--seed", "1").exit_code == 0
    before = (out / "ledger.jsonl").read_bytes()
    (tmp_path / "g" / "da" / "good").write_text(json.dumps("changed"))  # another target than the one killed
    res = _run(str(graph), "--resume", str(out), "--seed", "1")
    assert res.exit_code == 2 and "replaying the killed run gave a different row" in res.output
    assert (out / "ledger.jsonl").read_bytes() == before


def test_a_live_engine_graph_resume_is_refused_in_one_line(tmp_path):
    graph = _graph(tmp_path)
    (tmp_path / "o").mkdir()
    res = _run(str(graph), "--resume", str(tmp_path / "o"), "--engine", "openai", "--model", "m")
    assert res.exit_code == 2 and res.output.count("\n") == 1
    assert "cannot be resumed" in res.output and "bill" in res.output


def test_a_resume_while_the_loop_still_runs_is_refused_naming_its_pid(tmp_path):
    """The loop ledger has one writer (``loop.lock``, as a run's ``run.lock``): a second ``loop run``
    on the directory, a ``--resume`` while the first still runs or two resumes at once, is refused
    naming the holder's PID, and the ledger is unchanged."""
    from harness.core.runio import DirLock
    graph = _graph(tmp_path)
    out = tmp_path / "out"
    first = _run(str(graph), "--out", str(out))
    assert first.exit_code == 0, first.output
    before = (out / "ledger.jsonl").read_bytes()
    with DirLock(out, "loop.lock", "x"):  # the loop still running (this process holds its lock)
        res = _run(str(graph), "--resume", str(out))
    assert res.exit_code == 2 and f"PID {__import__('os').getpid()}" in res.output and "loop.lock" in res.output
    assert (out / "ledger.jsonl").read_bytes() == before
    assert _run(str(graph), "--resume", str(out)).exit_code == 0  # released: the resume proceeds
