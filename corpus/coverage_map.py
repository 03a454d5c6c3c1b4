"""Which tests can see a mutant: coverage measured once on the conforming artifact.

One cold run of the gate's suite under coverage.py, with the coverage context switched to each
test's node id while it runs (as pytest-cov's ``--cov-context=test`` does), gives, for every
line of the artifact, the tests that executed it. A mutant then needs only the tests that ran
the lines it changed. The mapping is conservative; the whole suite runs whenever any of these
holds for a changed line:

- it is not inside a function body (module or class level, a ``def`` header with its defaults,
  a decorator): it runs at import, so every test depends on it;
- it maps to no statement coverage.py can measure (a docstring, a comment): nothing to look up;
- a test context is missing (the suite imports the artifact inside a test, so import-time lines
  carry that test's name) or the import-time context ran the function;
- the mutant changes a function's local, cell or free variables or its flags (removing the only
  assignment of a name, or a ``yield``, changes what other lines of the function mean);
- a process was started outside any test (at import or collection).

Lines run while a fixture wider than a function is set up carry the import context (its value
serves tests that never ran them), and a test that starts a process (a subprocess, a fork: coverage
does not follow it) or a thread coverage does not trace (``_thread.start_new_thread``: only
``threading.Thread`` installs the tracer) is selected for every mutant, since what its process or
thread ran is unknown; started outside any test, either runs the whole suite.

A deleted target runs the whole suite. Tests keep the suite's order. The limit, shared with
mutmut's per-function selection: a test that depends on state another test leaves behind is not
selected unless it ran the changed line itself (tests/corpus/test_fast_pytest.py checks the
verdicts against the cold whole-suite path).
"""
from __future__ import annotations

import ast
import difflib
import json
import sysconfig
from dataclasses import dataclass, field
from pathlib import Path
from types import CodeType

from corpus.gates import Gate, pytest_argv, run_sandboxed, scrubbed_env
from corpus.pyparse import parse

RUNNER = Path(__file__).resolve().parent / "coverage_runner.py"


@dataclass
class CoverageMap:
    target: str
    source: str
    order: list[str]                      # test node ids in suite order
    contexts: dict[int, set[str]]         # statement line -> node ids that ran it ("" = import)
    statements: set[int]                  # lines coverage.py can measure
    preload: list[str] = field(default_factory=list)   # stdlib modules the suite imported
    spawners: set[str] = field(default_factory=set)     # tests that started a process ("" = no test)
    threaders: set[str] = field(default_factory=set)    # tests that started an untraced thread ("" = no test)
    # per test node id, its wall seconds in the coverage run (setup, call, teardown; under
    # coverage, so above an untraced run's); the seconds of fixtures wider than a function, and
    # of the whole pytest run (start-up and collection included): the timeouts' basis (timeout_for)
    durations: dict[str, float] = field(default_factory=dict)
    wide_s: float = 0.0
    session_s: float = 0.0
    _stmt_start: dict[int, int] = field(default_factory=dict, repr=False)
    _in_function: set[int] = field(default_factory=set, repr=False)
    _scopes: dict | None = field(default=None, repr=False)

    def __post_init__(self) -> None:
        tree = parse(self.source)
        spans: list[tuple[int, int, int]] = []
        for node in ast.walk(tree):
            if isinstance(node, ast.stmt):
                spans.append((node.lineno, node.end_lineno or node.lineno, node.lineno))
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.body:
                start = node.body[0].lineno
                # a one-line def keeps its header (defaults, run at import) on the body line
                if start > node.lineno:
                    self._in_function.update(range(start, (node.end_lineno or start) + 1))
        # innermost statement: the one with the latest start among those containing the line
        for lo, hi, first in sorted(spans):
            for ln in range(lo, hi + 1):
                self._stmt_start[ln] = first
        self._scopes = _scopes(self.source)

    @property
    def import_lines_have_contexts(self) -> bool:
        """Module-level statements ran under the import context only (the suite imports the
        artifact at collection, not inside a test)."""
        module_level = [ln for ln in self.statements if ln not in self._in_function]
        return all(self.contexts.get(ln, set()) <= {""} for ln in module_level)

    def select(self, mutant: bytes | None) -> list[str] | None:
        """Node ids of the tests that ran the changed lines (in suite order); None = the whole
        suite; [] = no test ran them."""
        if mutant is None or not self.import_lines_have_contexts or "" in self.spawners | self.threaders:
            return None
        try:
            text = mutant.decode("utf-8")
        except UnicodeDecodeError:
            return None
        lines = changed_lines(self.source, text)
        if not lines or any(ln not in self._in_function for ln in lines):
            return None
        if any(ln not in self._stmt_start for ln in lines):
            return None
        starts = {self._stmt_start[ln] for ln in lines}
        if not starts <= self.statements:
            return None
        scopes = _scopes(text)
        if scopes is None:
            return None
        if scopes != self._scopes:
            # a name made global or local, a generator made plain: only the one function whose
            # code changed behaves differently, and only when it runs (changed_function: nothing
            # else in the module changed). Its tests are those that ran any line of its body.
            starts = self._function_starts(text)
            if not starts:
                return None
        ran = set().union(*(self.contexts.get(s, set()) for s in starts), self.spawners, self.threaders)
        if "" in ran:
            return None
        return [t for t in self.order if t in ran]


    def _function_starts(self, mutant: str) -> set[int]:
        """The measured statements (their first lines) of the body of the one function
        ``changed_function`` names for ``mutant`` (every def of that qualified name: overloads);
        an empty set when there is none (no selection: the whole suite)."""
        from corpus.code_change import changed_function
        qual = changed_function(self.source, mutant.encode("utf-8"))
        if qual is None:
            return set()
        lines: set[int] = set()
        tree = parse(self.source)
        todo: list[tuple[ast.AST, str]] = [(tree, "")]
        while todo:
            node, prefix = todo.pop()
            for child in ast.iter_child_nodes(node):
                if isinstance(child, ast.ClassDef):
                    todo.append((child, f"{prefix}{child.name}."))
                elif isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef)) and f"{prefix}{child.name}" == qual:
                    lines.update(range(child.body[0].lineno, (child.end_lineno or child.lineno) + 1))
        # every call runs the body's first measured statement, so the union over the measured
        # ones is every test that called the function. A blank line of the body maps to the def
        # itself (the innermost statement holding it), which runs at import, not when called:
        # only statements of the body count (ordered-set's pop lost its selection to its blank lines)
        starts = {self._stmt_start[ln] for ln in lines if ln in self._stmt_start and ln in self._in_function}
        return {s for s in starts if s in self._in_function} & self.statements


def python_lines(text: str) -> list[str]:
    """``text``'s lines as Python numbers them (the tokenizer ends a line at \\n, \\r\\n and \\r
    only): ``str.splitlines`` also splits at U+2028, U+0085, a form feed, ... inside a string or a
    comment, and every later line number then names another line's statement and its tests."""
    lines = text.replace("\r\n", "\n").replace("\r", "\n").split("\n")
    return lines[:-1] if lines[-1] == "" else lines


def changed_lines(original: str, mutant: str) -> set[int]:
    """1-based lines of ``original`` the mutant replaced or deleted (an insertion counts the lines
    on both sides of it). difflib's opcodes over the window between the common prefix and the
    common suffix of the two line lists, not over the whole module: the same lines as
    ``changed_lines_difflib`` on every generated mutant (tests/corpus/test_fast_pytest_swap.py checks
    all of isbn's and ordered-set's) at a fraction of its cost (issue 26: difflib over the whole
    module was a tenth of the parent's time per mutant on ordered-set)."""
    a, b = python_lines(original), python_lines(mutant)
    top = min(len(a), len(b))
    lo = 0
    while lo < top and a[lo] == b[lo]:
        lo += 1
    hi = 0
    while hi < top - lo and a[-1 - hi] == b[-1 - hi]:
        hi += 1
    out: set[int] = set()
    window = difflib.SequenceMatcher(None, a[lo:len(a) - hi], b[lo:len(b) - hi], autojunk=False)
    for tag, i1, i2, _j1, _j2 in window.get_opcodes():
        if tag == "equal":
            continue
        i1, i2 = i1 + lo, i2 + lo
        out.update(range(i1 + 1, i2 + 1) if i2 > i1 else {max(1, i1), min(i1 + 1, max(1, len(a)))})
    return out


def changed_lines_difflib(original: str, mutant: str) -> set[int]:
    """``changed_lines`` by difflib's opcodes (each changed block apart): the reference the
    prefix-and-suffix version is tested against."""
    a, b = python_lines(original), python_lines(mutant)
    out: set[int] = set()
    for tag, i1, i2, _j1, _j2 in difflib.SequenceMatcher(None, a, b, autojunk=False).get_opcodes():
        if tag == "equal":
            continue
        out.update(range(i1 + 1, i2 + 1) if i2 > i1 else {max(1, i1), min(i1 + 1, max(1, len(a)))})
    return out


def _scopes(source: str) -> dict | None:
    """Per code object (by qualified name): variables and flags; None if it does not compile.
    The compile is ``code_change._compiled``'s, cached: the fast path compiles the same mutant
    again for ``changed_function`` and the swap (issue 26: one compile per mutant, not two)."""
    from corpus.code_change import _compiled
    try:
        code = _compiled(source)        # '"is" with a literal' in a mutant: expected, not news
    except (SyntaxError, ValueError):
        return None
    out: dict = {}

    def walk(co: CodeType):
        out.setdefault(co.co_qualname, []).append(
            (co.co_varnames, co.co_cellvars, co.co_freevars, co.co_flags, co.co_argcount))
        for c in co.co_consts:
            if isinstance(c, CodeType):
                walk(c)
    walk(code)
    return out


# A judging child's limit (issue 35: on websocket's _abnf.py about 22 mutants spin until stopped,
# and the limit, not the judging, decided the run's CPU): RUN_FACTOR x the seconds the tests it
# runs took in the coverage run (each test's setup, call and teardown, plus every fixture wider
# than a function; a forked run also pytest's start-up and collection) + RUN_SLACK_S, never
# above the gate's timeout (TIMEOUT_FACTOR x the cold control + TIMEOUT_SLACK_S, corpus/measure.py).
# The numbers behind the two constants are in docs/mutation.md ("Timeouts").
RUN_FACTOR = 10.0
RUN_SLACK_S = 2.0


def run_timeout(cmap: CoverageMap, selected: list[str] | None, forked: bool, ceiling: float) -> float:
    """The limit of a judging child that runs ``selected`` (None: the whole suite) on a mutant:
    RUN_FACTOR x (the coverage run's seconds for those tests + its wider fixtures' seconds, + its
    start-up and collection when ``forked``) + RUN_SLACK_S, at most ``ceiling``. ``ceiling`` when
    a selected test has no time in the map (a map written without them): what is unknown keeps
    the gate's limit."""
    tests = cmap.order if selected is None else selected
    if not cmap.durations or any(t not in cmap.durations for t in tests):
        return ceiling
    seconds = sum(cmap.durations[t] for t in tests) + cmap.wide_s
    if forked:
        seconds += max(0.0, cmap.session_s - sum(cmap.durations.values()))
    return min(ceiling, round(RUN_FACTOR * seconds + RUN_SLACK_S, 2))


def measure_coverage(gate: Gate, work: Path, target: str, home: str) -> tuple[CoverageMap | None, str]:
    """Run the gate's whole suite once on the conforming artifact in ``work`` under coverage.
    Returns (map, "") when every test passed, else (None, why)."""
    art = work / target
    if not art.is_file() or art.suffix != ".py":
        return None, "the artifact is not a Python module: no line coverage to select tests by"
    out_json = Path(home) / "coverage-map.json"
    argv = pytest_argv(gate, work)
    argv = [argv[0], str(RUNNER), str(out_json), str(art), *[a for a in argv[3:] if a != "-x"]]
    env = scrubbed_env({"CORPUS_ARTIFACT": str(art), "CORPUS_ARTIFACT_DIR": str(work),
                        "CORPUS_GATE_DIR": str(gate.dir), "PYTHONPATH": str(work)}, home=home)
    code, out, err = run_sandboxed(argv, work, env, max(gate.timeout_s * 3, 60.0))
    if code != 0 or not out_json.is_file():
        return None, f"coverage run exit {code}: {(out + err).strip()[-200:]}"
    data = json.loads(out_json.read_text())
    return CoverageMap(target=target, source=art.read_text(encoding="utf-8"), order=data["order"],
                       contexts={int(k): set(v) for k, v in data["contexts"].items()},
                       statements=set(data["statements"]),
                       preload=_stdlib_only(data["modules"], work), spawners=set(data["spawners"]),
                       threaders=set(data["threaders"]),
                       durations={str(k): float(v) for k, v in data.get("durations", {}).items()},
                       wide_s=float(data.get("wide_s", 0.0)), session_s=float(data.get("session_s", 0.0))), ""


def _stdlib_only(modules: list[list], work: Path) -> list[str]:
    """Standard-library modules worth importing before the fork (never one the artifact's
    directory could shadow)."""
    stdlib = sysconfig.get_paths()["stdlib"]
    local = {p.stem for p in work.iterdir()}
    return sorted(name for name, path in modules
                  if name.split(".")[0] not in local and path and path.startswith(stdlib)
                  and "site-packages" not in path and not name.startswith("_pytest"))
