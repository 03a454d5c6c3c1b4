"""Executors: where cells run. The driver stays the only writer of the ledger.

``Executor`` is the interface, with the one dispatch loop (``Executor.run``); executors are parts
of the plug-in registry (``harness.core.registry.EXECUTORS``), made by name with ``make_executor``.
``LocalExecutor`` runs cells in this process (workers=1) or a process pool; ``RayExecutor``
ships them to a Ray cluster (``harness run --executor ray [--address ADDR]``; the ``.[ray]``
extra): one it starts itself, or one started with ``ray start`` (``--address`` or ``RAY_ADDRESS``;
harness.run.ray_cluster checks it and every node before any cell is dispatched). Both take an
iterator of jobs (built lazily, so a decision the driver makes after a record arrives, such as
disabling a nondeterministic task's verdict cache, applies to every cell dispatched after it) and
yield records as cells finish.

A worker process (or a Ray node) that dies has its in-flight cells re-queued: each re-queue is
reported through ``on_requeue(cell_key, reason)`` (the driver writes ``requeues.jsonl`` and the
record's ``requeues`` field); after ``max_requeues`` a cell comes back as a void record (an
infrastructure fault, which the driver's rerun policy then handles). Whatever dies, a cell yields
exactly one record per dispatch, so the ledger ends with one record per key.

On Ray, a cell whose run directory is not visible on the worker's node (no shared filesystem)
runs in a node-local scratch run directory (``$TMPDIR/hx-ray/<run id>``: its verdict cache and
rate-limiter state are per node); the worker returns the record together with the cell's event
log, transcript and other files, and the driver writes them under the real run directory.
"""
from __future__ import annotations

import os
import tempfile
from abc import ABC, abstractmethod
from concurrent.futures import FIRST_COMPLETED, ProcessPoolExecutor, wait
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Callable, Hashable, Iterable, Iterator

from harness.core import runio
from harness.core.errors import HarnessError
from harness.core.layout import transcript_path
from harness.core.record import CellRecord
from harness.core.registry import EXECUTORS
from harness.judge import verdict_cache
from harness.ledger.worst_case import MAX_REQUEUES
from harness.run import ray_cluster, ray_reaper
from harness.run.cellrun import CellSpec, events_path, run_cell, void_record
from harness.run.ray_cluster import loopback_ray
from harness.sandbox import procs
from harness.sandbox.sandbox import warm_scoped


@dataclass
class Job:
    spec: CellSpec
    cache: dict = field(default_factory=dict)  # verdict-cache config (harness.judge.verdict_cache.activate)
    warm: bool | None = None  # warm test execution on/off for the cell (harness.sandbox.sandbox.warm_scoped)
    requeues: int = 0


def execute_cell(spec: CellSpec, cache: dict | None = None, warm: bool | None = None) -> CellRecord:
    """Run one cell with the verdict cache configured by ``cache`` and warm test execution on or off
    (``warm``; None: the process's default), and say in the record how the cache was used
    (``verdict_cache``: status, hits, misses, spot checks, mismatches)."""
    cache = dict(cache or {})
    task = spec.cell.task
    if cache.get("enabled"):
        cache.setdefault("dir", None)
        cache["dir"] = cache["dir"] or str(Path(spec.run_dir) / "verdict-cache")
    with warm_scoped(warm), verdict_cache.activate(cache, task, spec.cell.key) as session:
        rec = run_cell(spec)
    if session is not None:
        info = session.summary()
        # a spot-check mismatch in a forked child (B5's host) is only visible as the task's marker
        if session.mismatches or task in session.cache.nondeterministic():
            info["nondeterministic"] = True
            info["status"] = "disabled: nondeterministic"
    elif not cache.get("enabled"):
        info = {"status": "off"}
    else:
        info = {"status": "disabled: nondeterministic"}
    return rec.with_extra(verdict_cache=info)


def _cell_files(run_dir: Path, spec: CellSpec) -> list[Path]:
    ev = events_path(run_dir, spec.cell)
    stem = ev.name[: -len(".events.jsonl")]
    out = [p for p in ev.parent.glob(f"{stem}.*") if p.is_file()] if ev.parent.is_dir() else []
    tr = transcript_path(run_dir, spec.cell.key)
    return out + ([tr] if tr.is_file() else [])


def remote_cell(spec: CellSpec, cache: dict, force_ship: bool = False,
                warm: bool | None = None) -> tuple[CellRecord, dict[str, bytes]]:
    """What a Ray worker runs: the cell in the real run directory when this node can see it,
    else in a node-local scratch one, returning the cell's files with the record."""
    real = Path(spec.run_dir)
    if real.is_dir() and not force_ship:
        return execute_cell(spec, cache, warm), {}
    run_id = "run" if spec.run_meta.run_id is None else spec.run_meta.run_id
    scratch = Path(tempfile.gettempdir()) / "hx-ray" / str(run_id)  # per node: its workers share cache and limiter
    scratch.mkdir(parents=True, exist_ok=True)
    local = replace(spec, run_dir=scratch, hide_extra=(*spec.hide_extra, real))
    rec = execute_cell(local, cache, warm)
    files = {}
    for p in _cell_files(scratch, local):
        files[p.relative_to(scratch).as_posix()] = p.read_bytes()
        p.unlink()
    return rec, files


class ExecutorLost(HarnessError):
    """The executor can run no more cells (the Ray node this harness is attached to died): the
    driver stops the run (``RunStop.EXECUTOR``); the cells in flight are unrun, not void."""


class ExecutorUnavailable(ExecutorLost):
    """The executor could not start (a local ``ray.init`` that failed: "The current node timed out
    during startup" on a loaded machine): the run stops before any dispatch (``RunStop.EXECUTOR``,
    exit 4, the resume command), every record kept; not bad input, since the same command may
    succeed once the machine is quieter."""


class WorkerLost(HarnessError):
    """A cell's worker died under it (not the cell's fault): the dispatch loop re-queues the cell,
    and with ``every_in_flight`` every other cell in flight too (a broken process pool takes them all)."""

    def __init__(self, reason: str, every_in_flight: bool = False):
        super().__init__(reason)
        self.reason, self.every_in_flight = reason, every_in_flight


def _requeue_or_void(job: Job, reason: str, on_requeue, queue: list) -> CellRecord | None:
    job.requeues += 1
    on_requeue(job.spec.cell.key, reason)
    if job.requeues > MAX_REQUEUES:
        return void_record(job.spec, f"infrastructure: {reason} ({job.requeues} times)", 0.0)
    queue.append(job)
    return None


class Executor(ABC):
    """Where cells run, registered by name in ``harness.core.registry.EXECUTORS`` (``harness run
    --executor NAME``; built in: ``local`` and ``ray``, declared in ``harness.core.builtin_parts``; a
    plug-in registers its own like any other part). The model is cosmic-ray's ``Distributor``: the
    harness hands an executor work and takes results back, and the executor decides only where the
    work runs.

    ``run`` is the one dispatch loop: it keeps up to ``in_flight`` jobs submitted, cancels unstarted
    ones once ``stopping()`` says so, yields each record as its cell finishes (after writing the
    files a remote worker shipped back), and re-queues the cells whose worker died (``WorkerLost``)
    up to ``MAX_REQUEUES`` times, after which the cell comes back as a void record. An executor
    says how: ``_submit`` one job (a hashable handle), ``_wait`` until some handles are done,
    ``_result`` of one (the record and the files to write, or ``WorkerLost``), and optionally
    ``_cancel`` unstarted handles, ``_open``/``_close`` around a ``run`` and ``_restart`` after a
    loss of every job in flight."""

    kind = "executor"

    def __init__(self, capacity: int, in_flight: int):
        self.capacity = self.workers = capacity  # the cells that run at once (the progress line's workers)
        self.in_flight = in_flight  # the jobs submitted at once (a few more than capacity keep it busy)
        self.requeued = 0
        self.stopping: Callable[[], bool] = lambda: False  # set by the driver: a stop ends dispatch

    @classmethod
    @abstractmethod
    def create(cls, *, workers: int = 1, address: str | None = None, **options) -> "Executor":
        """The executor for ``harness run --executor NAME --workers N [--address A]`` and the
        driver's ``executor_options``."""

    def preflight(self, tasks_dir: Path, files: dict[str, str]) -> list[str]:
        """Checks before any cell (notes to log; InputError when a worker cannot run the locked corpus)."""
        return []

    def spend_ledger(self, ledger):
        """The spend ledger the workers book through (harness.ledger.spend)."""
        return ledger

    @abstractmethod
    def _submit(self, job: Job) -> Hashable: ...

    @abstractmethod
    def _wait(self, handles: list) -> Iterable: ...

    @abstractmethod
    def _result(self, handle, job: Job) -> tuple[CellRecord, dict[str, bytes]]: ...

    def _cancel(self, handles: list) -> list:
        """The handles of ``handles`` that had not started and now never will."""
        return []

    def _open(self) -> None:
        """Before a ``run``."""

    def _close(self) -> None:
        """After a ``run``, however it ended."""

    def _restart(self) -> None:
        """After a ``WorkerLost`` that took every job in flight."""

    def run(self, jobs: Iterable[Job], on_requeue: Callable[[str, str], None] = lambda k, r: None,
            write_file: Callable[[str, bytes], None] | None = None) -> Iterator[CellRecord]:
        """Each job's record as its cell finishes (``requeues``: how often it was re-queued); a
        cell's shipped files are written through ``write_file(rel, data)``, else under its run dir."""
        it = iter(jobs)
        retry: list[Job] = []
        pending: dict = {}

        def count(k, r):
            self.requeued += 1
            on_requeue(k, r)

        self._open()
        try:
            while True:
                while len(pending) < self.in_flight and not self.stopping():
                    job: Job | None = retry.pop(0) if retry else next(it, None)
                    if job is None:
                        break
                    pending[self._submit(job)] = job
                if self.stopping():  # a stop: cells queued but not started stay unrun; started ones finish
                    for handle in self._cancel(list(pending)):
                        pending.pop(handle)
                if not pending:
                    return
                lost_all: WorkerLost | None = None
                for handle in self._wait(list(pending)):
                    j = pending.pop(handle)
                    try:
                        rec, files = self._result(handle, j)
                    except WorkerLost as lost:
                        lost_all = lost if lost.every_in_flight else lost_all
                        yield from _requeued(j, lost.reason, count, retry)
                        continue
                    _write_files(j, files, write_file)
                    yield rec.with_extra(requeues=j.requeues)
                if lost_all is not None:  # every other in-flight cell died with it: re-queue them all
                    for j in list(pending.values()):
                        yield from _requeued(j, lost_all.reason, count, retry)
                    pending.clear()
                    self._restart()
        finally:
            self._close()


def _requeued(job: Job, reason: str, count, retry: list) -> Iterator[CellRecord]:
    """The void record of a cell re-queued once too often (none while it may run again)."""
    void = _requeue_or_void(job, reason, count, retry)
    if void is not None:
        yield void.with_extra(requeues=job.requeues)


def _write_files(job: Job, files: dict[str, bytes], write_file: Callable[[str, bytes], None] | None) -> None:
    for rel, data in files.items():
        if write_file is not None:
            write_file(rel, data)
        else:
            dest = Path(job.spec.run_dir) / rel
            dest.parent.mkdir(parents=True, exist_ok=True)
            dest.write_bytes(data)


class _Inline:
    """One job run in this process when its result is asked for (a handle of ``LocalExecutor`` with
    one worker)."""


class LocalExecutor(Executor):
    """This process (one worker) or a pool of worker processes on this machine."""
    kind = "local"

    def __init__(self, workers: int = 1):
        workers = max(1, int(workers))
        super().__init__(workers, 1 if workers <= 1 else workers * 2)
        self._pool: ProcessPoolExecutor | None = None

    @classmethod
    def create(cls, *, workers: int = 1, address: str | None = None, **options) -> "LocalExecutor":
        return cls(workers)

    def preflight(self, tasks_dir: Path, files: dict[str, str]) -> list[str]:
        """Nothing to check: this machine's corpus is the one the driver checked against the lock."""
        return []

    def spend_ledger(self, ledger):
        """Pool workers share the run's spend through its flock-guarded file (harness.ledger.spend)."""
        return ledger

    def _new_pool(self) -> ProcessPoolExecutor:
        """Workers that die with the harness and hold none of its locks (harness.sandbox.procs)."""
        return ProcessPoolExecutor(max_workers=self.workers, initializer=procs.worker_init, initargs=(os.getpid(),))

    def _open(self) -> None:
        self._pool = self._new_pool() if self.workers > 1 else None

    def _close(self) -> None:
        if self._pool is not None:
            self._pool.shutdown(wait=True, cancel_futures=True)
            self._pool = None

    def _restart(self) -> None:
        assert self._pool is not None
        self._pool.shutdown(wait=False, cancel_futures=True)
        self._pool = self._new_pool()

    def _submit(self, job: Job) -> Hashable:
        if self._pool is None:
            return _Inline()
        return self._pool.submit(execute_cell, job.spec, job.cache, job.warm)

    def _wait(self, handles: list) -> Iterable:
        if self._pool is None:
            return handles
        done, _ = wait(handles, return_when=FIRST_COMPLETED)
        return done

    def _cancel(self, handles: list) -> list:
        return [h for h in handles if isinstance(h, _Inline) or h.cancel()]

    def _result(self, handle, job: Job) -> tuple[CellRecord, dict[str, bytes]]:
        if isinstance(handle, _Inline):
            return execute_cell(job.spec, job.cache, job.warm), {}
        try:
            return handle.result(), {}
        except BrokenProcessPool:
            raise WorkerLost("a pool worker process died", every_in_flight=True) from None


class RayExecutor(Executor):
    """Cells as Ray tasks (one CPU each, no automatic retries: re-queues are ours, and counted)."""
    kind = "ray"

    def __init__(self, address: str | None = None, *, num_cpus: int | None = None, force_ship: bool = False,
                 in_flight_per_cpu: int = 2):
        target = ray_cluster.resolve_address(address)  # --address, else RAY_ADDRESS, else a local instance
        self.where, self.field = (f"ray cluster {target.value}", target.source) if target else ("local ray", "--executor")
        if target is None or target.loopback:  # before ray is imported: keep 127.0.0.1 as 127.0.0.1
            loopback_ray()
        try:
            import ray
        except ModuleNotFoundError as exc:  # pragma: no cover - depends on the install
            raise RuntimeError("the ray executor needs the optional extra: pip install -e '.[ray]'") from exc
        self.ray = ray
        if not ray.is_initialized():
            if target:  # checked first (address, credentials, versions), one line and exit 2 on any refusal
                self.kind = "ray: " + ray_cluster.connect(target)
            else:  # the instance is ours: its processes die with this one, even after kill -9
                _start_local_ray(ray, num_cpus)
        capacity = max(1, int(ray.cluster_resources().get("CPU", 1)))
        super().__init__(capacity, capacity * in_flight_per_cpu)
        self.force_ship = force_ship
        self._remote = ray.remote(num_cpus=1, max_retries=0)(remote_cell)

    @classmethod
    def create(cls, *, workers: int = 1, address: str | None = None, **options) -> "RayExecutor":
        return cls(address, num_cpus=options.get("num_cpus") or (workers if workers > 1 else None),
                   force_ship=bool(options.get("force_ship")))

    def preflight(self, tasks_dir: Path, files: dict[str, str]) -> list[str]:
        """Before any cell: every node must hold the corpus the lock names at ``tasks_dir`` and run
        the driver's Ray, Python and harness (harness.run.ray_cluster); InputError naming the node."""
        return ray_cluster.preflight(self.ray, tasks_dir, files, self.where, self.field)

    def spend_ledger(self, ledger):
        """One actor, pinned to this (the driver's) node, owns the run's spend file; every Ray worker
        books through it, so nodes that cannot see the run directory share the same ceiling."""
        from ray.util.scheduling_strategies import NodeAffinitySchedulingStrategy

        from harness.ledger.spend import RemoteLedger, SpendLedger
        here = self.ray.get_runtime_context().get_node_id()
        actor = self.ray.remote(num_cpus=0, max_restarts=0)(SpendLedger).options(
            scheduling_strategy=NodeAffinitySchedulingStrategy(node_id=here, soft=False)).remote(str(ledger.run_dir))
        return RemoteLedger(actor, ledger.run_dir)

    def _submit(self, job: Job) -> Hashable:
        return self._remote.remote(job.spec, job.cache, self.force_ship, job.warm)

    def _wait(self, handles: list) -> Iterable:
        done, _ = self.ray.wait(handles, num_returns=1, timeout=None)
        return done

    def _result(self, handle, job: Job) -> tuple[CellRecord, dict[str, bytes]]:
        ray = self.ray
        try:
            return ray.get(handle)
        except ray.exceptions.RayTaskError as exc:  # the cell itself raised: a harness bug, loudly
            raise exc.as_instanceof_cause() if hasattr(exc, "as_instanceof_cause") else exc
        except ray.exceptions.LocalRayletDiedError:  # every cell would fail the same way: not a cell's fault
            raise ExecutorLost("the Ray node this harness is attached to died (its raylet is gone): no "
                               "cell can run on it") from None
        except ray.exceptions.RayError as exc:  # worker or node died, object lost, ...
            raise WorkerLost(f"ray worker lost: {type(exc).__name__}") from None


def _start_local_ray(ray, num_cpus: int | None) -> None:
    """A new local Ray instance, ours: its processes die with this one, even after kill -9."""
    ray_reaper.start()
    try:
        # "local": a new instance, never the latest cluster another process started on this
        # machine (ray.init() with no address joins the one named in /tmp/ray/ray_current_cluster)
        ray.init(address="local", num_cpus=num_cpus, ignore_reinit_error=True, include_dashboard=False,
                 log_to_driver=False)
    except Exception as exc:  # Ray raises bare Exception (a start-up timeout) among others
        _shutdown_quietly(ray)
        raise ExecutorUnavailable(f"the local Ray instance did not start: {ray_cluster._first_line(exc)}") from None
    ray_reaper.tell_heads()


def _shutdown_quietly(ray) -> None:
    """After a failed ``ray.init``: stop what it started, if anything (the reaper takes the rest)."""
    try:
        ray.shutdown()
    except Exception:  # nothing started, or half of it: nothing more to do here
        pass


WORKERS_PER_CORE = 4  # a cell mostly waits (on its engine, on a confined test run): a few per core keep the CPU busy
MEMORY_PER_WORKER = 256 << 20  # a worker, its sandbox and a test run's interpreter: measured well under this


def machine_cap(cores: int | None = None, available: int | None = None) -> tuple[int, str]:
    """The most workers this machine is given (issue 34: ``--workers 100000`` forked 2,000+
    processes): min(WORKERS_PER_CORE x cores, available memory / MEMORY_PER_WORKER), at least 1;
    and the rule as text."""
    if not cores:
        cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1)
    if available is None:
        available = _mem_available()
    by_cpu = WORKERS_PER_CORE * max(1, cores)
    by_mem = max(1, available // MEMORY_PER_WORKER) if available else by_cpu
    return max(1, min(by_cpu, by_mem)), (f"min({WORKERS_PER_CORE} x {cores} cores, {available / (1 << 30):.1f} GiB "
                                         f"available / {MEMORY_PER_WORKER >> 20} MiB per worker)"
                                         if available else f"{WORKERS_PER_CORE} x {cores} cores")


def _mem_available() -> int | None:
    try:
        for line in runio.read_bytes("/proc/meminfo", "meminfo", 1 << 20).splitlines():
            if line.startswith(b"MemAvailable:"):
                return int(line.split()[1]) * 1024
    except (OSError, runio.UnsafeFile, ValueError, IndexError):
        pass
    return None


def capped_workers(requested: int, cells: int) -> tuple[int, str | None]:
    """The pool size for ``cells`` cells to run: ``requested`` capped by the cells (a worker with no
    cell is idle) and by ``machine_cap``; with the reason when it was capped (None when not)."""
    cap, rule = machine_cap()
    used = max(1, min(requested, max(1, cells), cap))
    if used == requested:
        return used, None
    why = (f"{cells} cell(s) to run" if used == max(1, cells) else f"this machine's cap {cap} = {rule}")
    return used, f"--workers {requested}: using {used} (capped by {why})"


def make_executor(kind: str = "local", *, workers: int = 1, address: str | None = None, **options) -> Executor:
    """The executor registered as ``kind`` (harness.core.registry.EXECUTORS), made for these options."""
    if kind not in EXECUTORS:
        raise ValueError(f"unknown executor {kind!r} (known: {', '.join(EXECUTORS.names())})")
    return EXECUTORS.get(kind).obj.create(workers=workers, address=address, **options)
