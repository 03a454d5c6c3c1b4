"""The Executor interface (harness.run.executors): one dispatch loop, ``Executor.run``, for every
executor, and executors made by name from the plug-in registry (``EXECUTORS``).

The loop is specified here on a scripted executor in this process (no pool, no cluster): what it
does with a cell whose worker died (re-queued, then void after ``MAX_REQUEUES``), with a loss that
took every cell in flight (all re-queued, the executor restarted), with a stop (unstarted cells
cancelled, never yielded) and with files a remote worker shipped back. The local pool and Ray are
the same loop over their own submit/wait/result (tests/harness/test_executors.py runs them)."""
from __future__ import annotations

from types import SimpleNamespace

import pytest

from harness.core.registry import EXECUTORS
from harness.ledger.worst_case import MAX_REQUEUES
from harness.run import executors
from harness.run.executors import Executor, Job, LocalExecutor, WorkerLost, make_executor


def _job(key: str, run_dir=None) -> Job:
    return Job(SimpleNamespace(cell=SimpleNamespace(key=key), run_dir=run_dir))  # type: ignore[arg-type]


class Scripted(Executor):
    """Runs each job in this process when its result is read; ``lose[key]`` losses of its worker
    first (``every`` marks the keys whose loss takes every job in flight); records the calls."""
    kind = "scripted"

    def __init__(self, lose: dict[str, int] | None = None, every: frozenset[str] = frozenset(),
                 files: dict[str, dict[str, bytes]] | None = None, in_flight: int = 2):
        super().__init__(capacity=in_flight, in_flight=in_flight)
        self.lose, self.every, self.files = dict(lose or {}), every, files or {}
        self.submitted: list[str] = []
        self.cancelled: list[str] = []
        self.events: list[str] = []
        self._n = 0

    @classmethod
    def create(cls, *, workers: int = 1, address: str | None = None, **options) -> "Scripted":
        return cls(in_flight=workers, **options)

    def _submit(self, job):
        self._n += 1
        self.submitted.append(job.spec.cell.key)
        return (self._n, job.spec.cell.key)

    def _wait(self, handles):
        return handles[:1]  # one at a time, in submission order

    def _cancel(self, handles):
        self.cancelled += [h[1] for h in handles]
        return handles

    def _result(self, handle, job):
        key = job.spec.cell.key
        if self.lose.get(key):
            self.lose[key] -= 1
            raise WorkerLost(f"worker of {key} died", every_in_flight=key in self.every)
        return _Rec(cell_key=key, outcome="pass"), self.files.get(key, {})

    def _open(self):
        self.events.append("open")

    def _close(self):
        self.events.append("close")

    def _restart(self):
        self.events.append("restart")


class _Rec(dict):
    """A stand-in record: the dispatch loop only stamps ``requeues`` on what ``_result`` returns
    (``CellRecord.with_extra``), whatever the cell's fields are."""

    def with_extra(self, **extra):
        return _Rec({**self, **extra})


@pytest.fixture
def void(monkeypatch):
    """A void record without a real cell spec (harness.run.cellrun.void_record needs a whole cell)."""
    monkeypatch.setattr(executors, "void_record",
                        lambda spec, reason, wall: _Rec(cell_key=spec.cell.key, outcome="void", void_reason=reason))


def test_every_cell_comes_back_once_and_a_lost_worker_is_requeued(void):
    ex, requeued = Scripted(lose={"b": 2}), []
    recs = list(ex.run([_job("a"), _job("b"), _job("c")], lambda k, r: requeued.append((k, r))))
    assert sorted(r["cell_key"] for r in recs) == ["a", "b", "c"]
    assert {r["cell_key"]: (r["outcome"], r["requeues"]) for r in recs} == {"a": ("pass", 0), "b": ("pass", 2),
                                                                            "c": ("pass", 0)}
    assert requeued == [("b", "worker of b died")] * 2 and ex.requeued == 2
    assert ex.events == ["open", "close"]


def test_a_cell_lost_more_than_max_requeues_times_is_one_void_record(void):
    ex = Scripted(lose={"b": MAX_REQUEUES + 5})
    recs = list(ex.run([_job("a"), _job("b")]))
    b = [r for r in recs if r["cell_key"] == "b"]
    assert len(b) == 1 and b[0]["outcome"] == "void" and b[0]["requeues"] == MAX_REQUEUES + 1
    assert b[0]["void_reason"] == f"infrastructure: worker of b died ({MAX_REQUEUES + 1} times)"
    assert ex.submitted.count("b") == MAX_REQUEUES + 1


def test_a_loss_of_every_cell_in_flight_requeues_them_all_and_restarts(void):
    ex, requeued = Scripted(lose={"a": 1}, every=frozenset({"a"}), in_flight=3), []
    recs = list(ex.run([_job("a"), _job("b"), _job("c")], lambda k, r: requeued.append(k)))
    assert sorted((r["cell_key"], r["requeues"]) for r in recs) == [("a", 1), ("b", 1), ("c", 1)]
    assert requeued == ["a", "b", "c"] and ex.events == ["open", "restart", "close"]


def test_a_stop_cancels_the_cells_not_started_and_ends_dispatch(void):
    ex = Scripted(in_flight=3)
    jobs = [_job(k) for k in "abcdef"]
    out = []
    for rec in ex.run(jobs):
        out.append(rec["cell_key"])
        ex.stopping = lambda: True  # the driver's settle saw a stop after the first record
    assert out == ["a"] and ex.cancelled == ["b", "c"] and ex.submitted == ["a", "b", "c"]
    assert ex.events == ["open", "close"]


def test_files_a_worker_shipped_back_are_written_under_the_run_dir_or_through_write_file(void, tmp_path):
    ex = Scripted(files={"a": {"cells/a.events.jsonl": b"{}\n"}})
    list(ex.run([_job("a", tmp_path)]))
    assert (tmp_path / "cells" / "a.events.jsonl").read_bytes() == b"{}\n"
    got = []
    list(Scripted(files={"a": {"x": b"1"}}).run([_job("a", tmp_path)], write_file=lambda rel, b: got.append((rel, b))))
    assert got == [("x", b"1")]


def test_a_cell_that_raises_is_not_a_lost_worker_and_the_executor_still_closes(monkeypatch):
    class Raising(Scripted):
        def _result(self, handle, job):
            raise ValueError("a harness bug")
    ex = Raising()
    with pytest.raises(ValueError, match="a harness bug"):
        list(ex.run([_job("a")]))
    assert ex.requeued == 0 and ex.events == ["open", "close"]


def test_the_local_executor_with_one_worker_runs_each_cell_in_this_process_in_order(monkeypatch):
    ran = []
    monkeypatch.setattr(executors, "execute_cell",
                        lambda spec, cache, warm: ran.append((spec.cell.key, warm)) or _Rec(cell_key=spec.cell.key))
    ex = LocalExecutor(1)
    assert (ex.capacity, ex.in_flight) == (1, 1)
    jobs = [_job(k) for k in "abc"]
    jobs[1].warm = False  # the job's warm setting reaches the cell (harness run --no-warm)
    recs = list(ex.run(iter(jobs)))
    assert [r["cell_key"] for r in recs] == ["a", "b", "c"] and all(r["requeues"] == 0 for r in recs)
    assert ran == [("a", None), ("b", False), ("c", None)]


def test_executors_are_parts_of_the_registry_and_a_plugin_executor_is_made_by_name():
    assert {"local", "ray"} <= set(EXECUTORS.names())
    assert EXECUTORS.get("ray").flag("address") and not EXECUTORS.get("local").flag("address")
    assert EXECUTORS.get("local").obj is LocalExecutor
    assert isinstance(make_executor("local", workers=3), LocalExecutor)
    EXECUTORS.add("scripted-test", Scripted)
    try:
        ex = make_executor("scripted-test", workers=5)
        assert isinstance(ex, Scripted) and ex.in_flight == 5
    finally:
        EXECUTORS._parts.pop("scripted-test")
    with pytest.raises(ValueError, match="unknown executor 'nope'"):
        make_executor("nope")


def test_harness_run_names_the_known_executors_when_given_an_unknown_one(tmp_path):
    from click.testing import CliRunner

    from harness.cli.cli import main
    r = CliRunner().invoke(main, ["run", "--resume", str(tmp_path), "--executor", "nope"])
    assert r.exit_code == 2 and "unknown executor 'nope' (known: local, ray" in r.output
    r = CliRunner().invoke(main, ["run", "--resume", str(tmp_path), "--address", "h:1"])
    assert r.exit_code == 2 and "--address names a Ray cluster" in r.output
