"""Judging many mutants with one pytest gate, fast, with the verdicts of the cold path.

The cold path (corpus/gates.judge) starts ``python -m pytest`` on the whole suite per mutant.
A session here, per (artifact, pytest gate):

1. measures coverage once on the conforming artifact (corpus/coverage_map.py): which test ran
   which line. If the suite does not pass there, nothing is sped up: every mutant goes cold.
2. starts one fork-server per worker (corpus/forkserver.py): pytest and the standard-library
   modules the suite needs are imported once, each judgment is a fork.
3. per mutant: runs only the tests that ran the changed lines, in suite order, with ``-x``
   (stop at the first failure, as the cold path does); a mutant no test ran is accepted without
   a run (the suite cannot tell it from the conforming artifact); the whole suite where the
   selection cannot be trusted (see coverage_map).
4. reads the exit code exactly as the cold path does (corpus/gates.pytest_verdict).

Workers run in parallel threads, each owning a server. A server that fails sends that mutant
down the cold path, never to a verdict of its own.
"""
from __future__ import annotations

import queue
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

from corpus.coverage_map import CoverageMap, measure_coverage
from corpus.forkserver import ForkServer, ForkServerError
from corpus.gates import Gate, Judgement, Verdict, judge, pytest_argv, pytest_verdict, scrubbed_env
from corpus.model import Mutant
from corpus.workdir import materialize


@dataclass(frozen=True)
class FastJudgement:
    judgement: Judgement
    executor: str            # "fork", "coverage" (no test ran the change: accepted, no run) or "cold"
    tests: int | None        # tests selected; None = the whole suite


class PytestSession:
    """Use as a context manager; ``judge`` is thread-safe."""

    def __init__(self, gate: Gate, artifact_dir: Path, target: str, workers: int = 2):
        assert gate.kind == "pytest", gate.kind
        self.gate, self.artifact_dir, self.target = gate, Path(artifact_dir), target
        self.workers = max(1, workers)
        self.map: CoverageMap | None = None
        self.why_not_selective = ""
        self.suite_passes = False
        self._servers: queue.Queue = queue.Queue()
        self._all: list[ForkServer] = []

    def __enter__(self) -> "PytestSession":
        self._tmp = tempfile.TemporaryDirectory(prefix="corpus-fast-")
        root = Path(self._tmp.name)
        home = root / "home"
        home.mkdir()
        control = materialize(self.artifact_dir, None, root / "control" / "artifact")
        self.map, self.why_not_selective = measure_coverage(self.gate, control, self.target, str(home))
        if self.map is None and "not a Python module" in self.why_not_selective:
            # no line coverage to select by, but the fork still saves start-up: check the suite
            # passes on the control the cold way before trusting forks of it
            self.suite_passes = judge(self.gate, self.artifact_dir, self.target).verdict is Verdict.ACCEPT
        else:
            self.suite_passes = self.map is not None
        if self.suite_passes:
            env = scrubbed_env(home=str(home))
            tests = (self.gate.dir / self.gate.spec["tests"]).resolve()
            suite = [str(p) for p in ([tests] if tests.is_file() else sorted(tests.rglob("*.py")))]
            for _ in range(self.workers):
                s = ForkServer(env, self.map.preload if self.map else [], suite)
                self._all.append(s)
                self._servers.put(s)
        return self

    def __exit__(self, *exc) -> None:
        for s in self._all:
            s.close()
        self._tmp.cleanup()

    def judge(self, mutant: Mutant | None) -> FastJudgement:
        if not self.suite_passes:
            return FastJudgement(judge(self.gate, _dir_of(self, mutant), self.target), "cold", None)
        selected = self.map.select(mutant.content if mutant else None) if self.map else None
        if selected == []:
            return FastJudgement(Judgement(Verdict.ACCEPT, "no test ran the changed lines "
                                           "(coverage of the conforming artifact)"), "coverage", 0)
        t0 = time.perf_counter()
        with tempfile.TemporaryDirectory(prefix="corpus-fmut-") as tmp:
            work = materialize(self.artifact_dir, mutant, Path(tmp) / "artifact")
            home = Path(tmp) / "home"
            home.mkdir()
            env = scrubbed_env({"CORPUS_ARTIFACT": str(work / self.target), "CORPUS_ARTIFACT_DIR": str(work),
                                "CORPUS_GATE_DIR": str(self.gate.dir), "PYTHONPATH": str(work)}, home=str(home))
            args = pytest_argv(self.gate, work, selected)[3:]     # without "python -m pytest"
            server = self._servers.get()
            try:
                code, out, err, _ = server.run(args, str(work), env, [str(work), str(work)], self.gate.timeout_s)
            except ForkServerError as exc:
                j = judge(self.gate, work, self.target)
                return FastJudgement(Judgement(j.verdict, f"{j.reason} [cold: {exc}]", j.seconds), "cold", None)
            finally:
                self._servers.put(server)
            j = pytest_verdict(self.gate, code, out, err, work, self.target)
        return FastJudgement(Judgement(j.verdict, j.reason, time.perf_counter() - t0), "fork",
                             None if selected is None else len(selected))

    def judge_all(self, mutants: list[Mutant | None], progress=None) -> list[FastJudgement]:
        with ThreadPoolExecutor(max_workers=self.workers) as ex:
            out = []
            for r in ex.map(self.judge, mutants):
                out.append(r)
                if progress:
                    progress()
            return out


def _dir_of(session: PytestSession, mutant: Mutant | None) -> Path:
    """A cold judgment needs a materialized directory that outlives this call: judge() copies it."""
    tmp = Path(session._tmp.name) / "cold" / (mutant.id.replace("/", "__") if mutant else "control")
    if not tmp.exists():
        materialize(session.artifact_dir, mutant, tmp)
    return tmp
