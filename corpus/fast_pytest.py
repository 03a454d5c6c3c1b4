"""Judging many mutants with one pytest gate, fast, with the verdicts of the cold path.

The cold path (corpus/gates.judge) starts ``python -m pytest`` on the whole suite per mutant.
A session here, per (artifact, pytest gate):

1. measures coverage once on the conforming artifact (corpus/coverage_map.py): which test ran
   which line. If the suite does not pass there, nothing is sped up: every mutant goes cold.
2. has one fork-server per worker (corpus/forkserver.py): pytest and the standard-library
   modules the suite needs are imported once, each judgment is a fork (a swapping session starts
   one server process; the other workers' servers are forked from it).
3. per mutant: runs only the tests that ran the changed lines, in suite order, with ``-x``
   (stop at the first failure, as the cold path does); a mutant no test ran is accepted without
   a run (the suite cannot tell it from the conforming artifact); the whole suite where the
   selection cannot be trusted (see coverage_map).
4. reads the exit code exactly as the cold path does (corpus/gates.pytest_verdict).

The swap path (issue 26: per-mutant cost): a second server per worker collects the suite once on
the conforming artifact; a mutant whose only change is one function's code object
(``changed_function``: no module, class-body, signature or default change, no shifted line) and
that has a test selection is judged in a fork of that collected suite with the function's
``__code__`` swapped, skipping pytest's start-up and collection (executor "swap"). Not used for a
session whose suite started a process or whose test files mention a way to read the artifact's
file other than through the import system (``SWAP_BLOCKERS``; a reload re-reads the mutant: the
child points the import paths at its own copy); a child that cannot find the function or a selected test
exits 75 and the mutant goes the fork way. tests/corpus/test_judgment_cache.py checks swap
verdicts against the fork path's.

Workers run in parallel threads, each owning a server. A server that fails sends that mutant
down the cold path, never to a verdict of its own.
"""
from __future__ import annotations

import contextlib
import os
import queue
import shutil
import tempfile
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from types import CodeType

from corpus.browse import splice
from corpus.code_change import (
    _compiled,
    changed_function,
    changed_lambda,
    compiled_noting_warnings,
    has_module_level_lambda,
)
from corpus.coverage_map import CoverageMap, measure_coverage, run_timeout
from corpus.forkserver import ForkServer, ForkServerError, split_ran
from corpus.gates import Gate, Judgement, Verdict, judge, pytest_argv, pytest_verdict, scrubbed_env
from corpus.kill_history import WHOLE_SUITE, KillHistory, first_failure
from corpus.model import Mutant
from corpus.workdir import materialize


@dataclass(frozen=True)
class FastJudgement:
    judgement: Judgement
    executor: str            # "swap", "fork", "coverage" (no test ran the change: accepted, no run) or "cold"
    tests: int | None        # tests selected; None = the whole suite
    killer: str | None = None    # the node id of the first test that failed (a reject's)
    # the qualified names of the module's code the tests ran on the mutant (None: unknown)
    # per test node id ("" outside a test) the lines of the module it ran on the mutant (None: unknown)
    ran: dict[str, tuple[int, ...]] | None = None


def _timed_out(limit: float) -> Judgement:
    """A run stopped at its limit: incapacity, as the cold path files a timeout."""
    return Judgement(Verdict.INCAPACITY, f"timeout after {limit:g}s")


def _first_changed_line(source: str, mutant: bytes) -> int:
    """The 1-based line of ``source`` where ``mutant`` first differs from it."""
    lo, _, _ = splice(source.encode("utf-8"), mutant)
    return source.encode("utf-8")[:lo].count(b"\n") + 1


class PytestSession:
    """Use as a context manager; ``judge`` is thread-safe."""

    # each judging child records what its tests ran on the mutant (corpus/forkserver.py _trace_ran,
    # for the rerun's reuse); False leaves the children untraced (benchmarks/bench_rerun.py's
    # --record-cost compares the two; a judgment without the record is never reused)
    record_ran = True
    # a mutant of a lambda written in module or class-body code goes the swap way (corpus/forkserver.py's
    # lambda swap rule) when True; off by default: the swap child keeps no record of what ran, so a rerun
    # re-judges every such mutant (semver: 43 of 781 re-judged after one added test, over the 5% the rerun
    # promises), for about 5% of a first run's CPU (docs/mutation.md, "The lambda swap"); the tests compare
    # it with the whole-suite fork it replaces
    swap_lambdas = False

    def __init__(self, gate: Gate, artifact_dir: Path, target: str, workers: int = 2,
                 history: Path | None = None):
        """``history``: a file keeping the kill history (corpus/kill_history.py) across runs."""
        assert gate.kind == "pytest", gate.kind
        self.gate, self.artifact_dir, self.target = gate, Path(artifact_dir), target
        self.history = KillHistory(gate.name, history)
        self.workers = max(1, workers)
        self.map: CoverageMap | None = None
        self.why_not_selective = ""
        self.suite_passes = False
        self._servers: queue.Queue = queue.Queue()
        self._swappers: queue.Queue = queue.Queue()
        self._all: list[ForkServer] = []
        self._spares: list[ForkServer] = []     # plain servers forked by the swap servers, not yet taken
        # may a swap child import the module's file again (a reload, a re-import)? Then its private
        # copy gets the mutant's bytecode (cache_bytecode); ``_swappable`` reads the suite's text
        self._reimports = True
        self.swapping = False
        self._lambdas = False
        self._module_file = ""
        self._control = ""
        self._lock = threading.Lock()
        self._made = 0
        self._plain: tuple = ({}, [], [])
        # removes each judgment's private copy after its verdict, off the workers' way (a copy's
        # rmdirs were a tenth of a swap's wall time on a loaded machine); drained at exit
        self._reaper = ThreadPoolExecutor(max_workers=1)

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
            self._plain = (env, self.map.preload if self.map else [], suite)
            if self.map is not None and self._swappable(suite):
                swap_home = root / "home-swap"      # not the coverage run's: what it left there is the
                swap_home.mkdir()                   # conforming code's (a cache under ~: red team rt7)
                self._start_swappers(control, {**env, "HOME": str(swap_home)}, suite)
            if not self.swapping:       # every mutant goes the fork way: start its servers now
                self._made = self.workers
                for _ in range(self.workers):
                    self._servers.put(self._new_server())
        return self

    def _new_server(self) -> ForkServer:
        """A plain fork-server: a swap server's spare (forked from it before it collected, in
        the state a plain server starts in: ``forkserver._fork_spare``) while one is left, else a
        new process."""
        with self._lock:
            if self._spares:
                return self._spares.pop()
        s = ForkServer(*self._plain)
        with self._lock:
            self._all.append(s)
        return s

    def _take_server(self) -> ForkServer:
        """A plain fork-server: started on first need while swapping (most mutants never need
        one, and starting one costs a pytest import), at most one per worker."""
        with self._lock:
            spare = self._servers.empty() and self._made < self.workers
            self._made += spare
        return self._new_server() if spare else self._servers.get()

    def _swappable(self, suite: list[str]) -> bool:
        """May mutants be judged by swapping a function's code into a collected suite? Not when a
        test started a process (it imports the artifact from disk), nor when a test file, a
        conftest.py near it or a Python file of the artifact mentions a way to re-import the
        artifact or read its file (``SWAP_BLOCKERS``): those see the file, not the swapped function."""
        assert self.map is not None
        if self.map.spawners:
            return False
        texts = []
        for f in [*suite, *(str(p) for p in self.gate.dir.glob("conftest.py"))]:
            try:
                texts.append(without_comments(Path(f).read_text(encoding="utf-8", errors="replace")))
            except OSError:
                return False
        self._reimports = any(w in t for t in texts for w in REIMPORT_WORDS)
        # the artifact's own Python files too (red team helper-136: the module under test reading
        # its own source with inspect.getsource read the conforming copy's in a swap child)
        texts.append(without_comments(self.map.source))
        for p in sorted(self.artifact_dir.rglob("*.py")):
            try:
                texts.append(without_comments(p.read_text(encoding="utf-8", errors="replace")))
            except OSError:
                return False
        return not any(b in t for t in texts for b in SWAP_BLOCKERS)

    def _start_swappers(self, control: Path, env: dict, suite: list[str]) -> None:
        args = pytest_argv(self.gate, control)[3:]
        collect: dict = {"args": args, "cwd": str(control), "path_prefix": [str(control), str(control)],
                   "env": {**env, "CORPUS_ARTIFACT": str(control / self.target), "CORPUS_ARTIFACT_DIR": str(control),
                           "CORPUS_GATE_DIR": str(self.gate.dir), "PYTHONPATH": str(control)}}
        self._lambdas = self.swap_lambdas and has_module_level_lambda(self.map.source if self.map else "")
        if self._lambdas:
            collect["watch_lambdas"] = True
        self._module_file = os.path.realpath(control / self.target)
        self._control = str(control)
        # one server collects; the other workers' swap servers are its twins and their plain
        # servers its spares, forked from it (corpus/forkserver.py _fork_twin, _fork_spare)
        first = ForkServer(env, self.map.preload if self.map else [], suite, collect=collect,
                           spares=self.workers, twins=self.workers - 1)
        swappers = [first, *first.twins]
        self._spares = list(first.spares)
        self._all += [*swappers, *self._spares]
        if all(s.wait_ready(max(self.gate.timeout_s, 30.0)) for s in swappers):
            for s in swappers:
                self._swappers.put(s)
            self.swapping = True

    def __exit__(self, *exc) -> None:
        self.history.save()
        for s in self._all:         # every socket first: a swap server waits for its spare to end
            s.shut()
        for s in self._all:
            s.close()
        self._reaper.shutdown(wait=True)
        self._tmp.cleanup()

    @contextlib.contextmanager
    def _scratch(self, prefix: str):
        """A private directory for one judgment (a fresh one each time, as before); removed by
        the reaper thread once the judgment is read."""
        d = tempfile.mkdtemp(prefix=prefix)
        try:
            yield Path(d)
        finally:
            self._reaper.submit(shutil.rmtree, d, True)

    def judge(self, mutant: Mutant | None) -> FastJudgement:
        if not self.suite_passes:
            return FastJudgement(judge(self.gate, _dir_of(self, mutant), self.target), "cold", None)
        selected = self.map.select(mutant.content if mutant else None) if self.map else None
        if selected == []:
            return FastJudgement(Judgement(Verdict.ACCEPT, "no test ran the changed lines "
                                           "(coverage of the conforming artifact)"), "coverage", 0, ran={})
        t0 = time.perf_counter()
        qual = changed_function(self.map.source, mutant.content) \
            if selected and self.map is not None and mutant is not None and mutant.content is not None else None
        if qual and selected:       # the tests that killed this function's mutants before go first,
            selected = self.history.order(qual, selected, self.map.durations if self.map else None)  # then fastest
        # a mutant the whole suite judges (module-level code, or a selection the map distrusts):
        # the tests that killed such mutants before run first in the forked suite (-x ends the
        # run at the first failure: about 50 of the semver sample's 100 tests before, issue 35)
        # (the killers of mutants on the same first changed line, then of any such mutant)
        whole = [f"{WHOLE_SUITE}:L{_first_changed_line(self.map.source, mutant.content)}", WHOLE_SUITE] \
            if selected is None and self.map is not None and mutant is not None and mutant.content is not None \
            else []
        first = list(dict.fromkeys(k for key in whole for k in self.history.killers(key)))
        fj = self._judge_selected(mutant, selected, qual, t0, first or None)
        if fj.killer and fj.judgement.verdict is Verdict.REJECT:
            for key in [qual] if qual else whole:
                self.history.killed(key, fj.killer)
        return fj

    def _judge_selected(self, mutant: Mutant | None, selected: list[str] | None, qual: str | None,
                        t0: float, first: list[tuple[str, str]] | None = None) -> FastJudgement:
        """The swap way when ``qual`` (the one function changed) can be swapped, else a fork
        (``first``: tests, in node_key form, the forked run moves to the front)."""
        if self.swapping and selected and qual and mutant is not None and mutant.content is not None:
            swapped = self._swap(mutant, qual, selected, t0)
            if swapped is not None:
                return swapped
        if self.swapping and selected is None and self.swap_lambdas and self._lambdas and mutant is not None \
                and mutant.content is not None and self.map is not None:
            swapped = self._swap_lambda(mutant, t0, first)
            if swapped is not None:
                return swapped
        with self._scratch("corpus-fmut-") as tmp:
            work = materialize(self.artifact_dir, mutant, tmp / "artifact")
            if mutant is not None and mutant.content is not None:
                cache_bytecode(work / self.target, mutant.content)
            home = tmp / "home"
            home.mkdir()
            env = scrubbed_env({"CORPUS_ARTIFACT": str(work / self.target), "CORPUS_ARTIFACT_DIR": str(work),
                                "CORPUS_GATE_DIR": str(self.gate.dir), "PYTHONPATH": str(work)}, home=str(home))
            args = pytest_argv(self.gate, work, selected)[3:]     # without "python -m pytest"
            server = self._take_server()
            try:
                extra: dict = {"trace": os.sep + self.target} if self.record_ran else {}
                if first:
                    extra["first"] = [list(k) for k in first]
                limit = self._timeout(selected, forked=True)
                code, out, err, _ = server.run(args, str(work), env, [str(work), str(work)], limit,
                                               extra=extra or None)
            except ForkServerError as exc:
                j = judge(self.gate, work, self.target)
                return FastJudgement(Judgement(j.verdict, f"{j.reason} [cold: {exc}]", j.seconds), "cold", None)
            finally:
                self._servers.put(server)
            out, ran = split_ran(out)
            j = _timed_out(limit) if code is None else pytest_verdict(self.gate, code, out, err, work, self.target)
        return FastJudgement(Judgement(j.verdict, j.reason, time.perf_counter() - t0), "fork",
                             None if selected is None else len(selected), first_failure(out), ran)

    def _swap(self, mutant: Mutant, qualname: str, selected: list[str], t0: float) -> FastJudgement | None:
        """The mutant judged in a child of a collected suite with ``qualname``'s code swapped
        for the mutant's (its working directory a private copy holding the mutant, as a fork's);
        None when the child could not swap (exit 75) or the server failed: judge it the fork way."""
        assert mutant.content is not None
        req = {"module_file": self._module_file, "qualname": qualname, "control": self._control,
               "codes": function_codes(mutant.content, qualname), "nodeids": selected,
               "originals": function_codes(self.map.source.encode("utf-8"), qualname) if self.map else [],
               "trace": os.sep + self.target if self.record_ran else ""}
        done = self._swap_child(mutant, req, selected)
        if done is None:
            return None
        j, out, ran = done
        return FastJudgement(Judgement(j.verdict, j.reason, time.perf_counter() - t0), "swap", len(selected),
                             first_failure(out), ran)

    def _swap_child(self, mutant: Mutant, req: dict,
                    selected: list[str] | None) -> tuple[Judgement, str, dict[str, tuple[int, ...]] | None] | None:
        """One swap request (``req``: a function's or a lambda's) run by a swap server in a private
        copy holding the mutant: (the verdict, the child's output, what it ran), or None when the
        child declined (exit 75) or the server failed. The one reader of a swap child's answer."""
        assert mutant.content is not None
        with self._scratch("corpus-fswap-") as tmp:
            work = materialize(self.artifact_dir, mutant, tmp / "artifact")
            if self._reimports:         # else nothing in the child reads the module's file again
                cache_bytecode(work / self.target, mutant.content)
            (tmp / "home").mkdir()      # each child's own, as each cold run's (a test's cache under ~)
            req = {**req, "home": str(tmp / "home")}
            server = self._swappers.get()
            try:
                limit = self._timeout(selected, forked=False)
                code, out, err, _ = server.swap(req, str(work), limit)
            except ForkServerError:
                return None
            finally:
                self._swappers.put(server)
            if code == 75:
                return None
            out, ran = split_ran(out)
            j = _timed_out(limit) if code is None else pytest_verdict(self.gate, code, out, err, work, self.target)
        return j, out, ran

    def _swap_lambda(self, mutant: Mutant, t0: float, first: list[tuple[str, str]] | None) -> FastJudgement | None:
        """A mutant that changes only a lambda written in module or class-body code
        (code_change.changed_lambda) judged by the whole suite (``first``: the killers of such
        mutants first, as the forked run orders them) in a swap child with the lambda's live
        functions given the mutant's code; None (the fork way) when it is not such a mutant or the
        child could not make the swap exactly (exit 75: forkserver's lambda swap rule). What the
        child ran is not reported (``ran`` None: the record of a forked run also holds the
        import's lines, which a swap child never runs), so this judgment is never reused."""
        import base64
        import marshal
        assert mutant.content is not None and self.map is not None
        pair = changed_lambda(self.map.source, mutant.content)
        if pair is None:
            return None
        req = {"module_file": self._module_file, "qualname": "", "control": self._control, "nodeids": None,
               "lambda": {"control": base64.b64encode(marshal.dumps(pair[0])).decode("ascii"),
                          "code": base64.b64encode(marshal.dumps(pair[1])).decode("ascii")},
               "first": [list(k) for k in first or []], "trace": ""}
        done = self._swap_child(mutant, req, None)
        if done is None:
            return None
        j, out, _ = done
        return FastJudgement(Judgement(j.verdict, j.reason, time.perf_counter() - t0), "swap", None,
                             first_failure(out), None)

    def _timeout(self, selected: list[str] | None, forked: bool) -> float:
        """A judging child's limit (coverage_map.run_timeout: from the selected tests' own times
        in the coverage run, never above the gate's derived timeout)."""
        if self.map is None:
            return self.gate.timeout_s
        return run_timeout(self.map, selected, forked, self.gate.timeout_s)

    def judge_all(self, mutants: list[Mutant | None], progress=None) -> list[FastJudgement]:
        with ThreadPoolExecutor(max_workers=self.workers) as ex:
            out = []
            for r in ex.map(self.judge, mutants):
                out.append(r)
                if progress:
                    progress()
            return out


# text in a test file or a conftest.py that may re-import the artifact or read its file, which a
# swapped function would not reach (the swap path is then not used for the session). A reload or a re-import through the import system
# (importlib.reload, import_module, del sys.modules[...] then import) is not one: the swap child
# points the import paths at its own copy holding the mutant (forkserver._redirect_imports), so the
# module it re-reads is the mutant, as on the fork path (issue 35). runpy and exec of the file's
# text, a path built from __file__, and inspect's source readers still block it.
SWAP_BLOCKERS = ("runpy", "exec(", "subprocess", "Popen", "os.system", "multiprocessing", "CORPUS_ARTIFACT",
                 "__file__", "getsource", "inspect", "spec_from_file_location", "SourceFileLoader",
                 # the module's file named another way: in a swap child it is the conforming control copy,
                 # outside the working directory, whose metadata a stat (no open, so no count) reads (rt6)
                 "__spec__", "__loader__", "__cached__", "find_spec", "co_filename")

# text in a test file or a conftest.py by which a swap child may import the module's file again
# (its module object is already loaded in the collected suite): only then is the mutant's bytecode
# written into the child's private copy (``cache_bytecode``, issue 35: a reload then reads it
# instead of compiling the module). Speed only: a checked pyc and a compile from source give the
# same code, so a word missed here costs a compile, never a verdict.
REIMPORT_WORDS = ("reload", "sys.modules", "import_module", "__import__", "importlib")


def without_comments(text: str) -> str:
    """``text`` with its ``#`` comments blanked (tokenize), so that ``SWAP_BLOCKERS`` are looked
    for in code and strings only: a comment cannot re-import anything, and ordered-set's
    ``# noinspection PyTypeChecker`` had turned the swap path off. Text that does not tokenize is
    returned whole (its blockers still count)."""
    import io
    import tokenize
    lines = text.splitlines(keepends=True)
    try:
        for tok in tokenize.generate_tokens(io.StringIO(text).readline):
            if tok.type == tokenize.COMMENT:
                row, col = tok.start
                line = lines[row - 1]
                lines[row - 1] = line[:col] + " " * (tok.end[1] - col) + line[tok.end[1]:]
    except (tokenize.TokenError, SyntaxError, IndexError):
        return text
    return "".join(lines)


def function_codes(mutant: bytes, qualname: str) -> list[str]:
    """Every code object named ``qualname`` (not inside a function) in the compiled mutant,
    marshalled and base64-encoded: the swap child loads them instead of compiling the module
    again (``changed_function`` compiled it already; the compile was a tenth of a swap)."""
    import base64
    import marshal
    found: list[str] = []

    def walk(co: CodeType) -> None:
        for c in co.co_consts:
            if isinstance(c, CodeType):
                if c.co_qualname == qualname:
                    found.append(base64.b64encode(marshal.dumps(c)).decode("ascii"))
                elif "<locals>" not in c.co_qualname:
                    walk(c)
    walk(_compiled(mutant.decode("utf-8")))
    return found


def cache_bytecode(path: Path, content: bytes) -> bool:
    """Write the bytecode file of the module at ``path`` (whose bytes are ``content``) into its
    ``__pycache__``, as a *checked* hash-based pyc (PEP 552): the import system uses it only
    after hashing the file's bytes and finding them unchanged, and otherwise compiles the file,
    so a run that loads the module reads the same code either way. It spares a fork's import and
    every ``importlib.reload`` the compile (issue 35: websocket's suite reloads ``_abnf.py`` up to
    six times per run; the compile was a tenth of a swap child's time). The code is the one the
    fast path compiled already (``compiled_noting_warnings``). Not written (False) when the file is
    not plain UTF-8 (a BOM, another coding: the text compiled is the decoded one) or compiling it
    warned (from source the warning is raised at each import, where a test's filter may turn it
    into an error; from a pyc it is not). A child running with ``-O`` or a pycache prefix looks
    for another file and compiles, as before."""
    import importlib.util
    import io
    import marshal
    import sys
    import tokenize
    try:
        if tokenize.detect_encoding(io.BytesIO(content).readline)[0] != "utf-8":
            return False
        code, warned = compiled_noting_warnings(content.decode("utf-8"))
    except (SyntaxError, ValueError, UnicodeDecodeError):
        return False
    tag = sys.implementation.cache_tag
    if warned or tag is None:
        return False
    pyc = path.parent / "__pycache__" / f"{path.stem}.{tag}.pyc"
    flags = 0b11            # hash-based, check_source
    data = importlib.util.MAGIC_NUMBER + flags.to_bytes(4, "little") + importlib.util.source_hash(content) \
        + marshal.dumps(code)
    try:
        pyc.parent.mkdir(exist_ok=True)
        pyc.write_bytes(data)
    except OSError:
        return False
    return True


def _dir_of(session: PytestSession, mutant: Mutant | None) -> Path:
    """A cold judgment needs a materialized directory that outlives this call: judge() copies it."""
    tmp = Path(session._tmp.name) / "cold" / (mutant.id.replace("/", "__") if mutant else "control")
    if not tmp.exists():
        materialize(session.artifact_dir, mutant, tmp)
    return tmp
