"""Wall time: the corpus's ``fine`` family on its fast pytest path (subject) against mutmut
(baseline), on the same bundled module and suite (``SAMPLES``: corpus/examples/isbn, and the
third-party corpus/examples/ordered-set: ordered-set 4.1.0, MIT), in the same run, with the same
number of parallel workers. ratio = mutmut wall / corpus wall (above 1: the corpus finished first). Each row also
says whether the corpus's survivors include every mutmut survivor (by line and operator class).

Each side is timed from start to finish as a user would run it: generating its mutants, its
own set-up (mutmut: copying the project, its clean and stats runs; the corpus: the cold control,
the coverage run, the fork-servers) and judging. Judged = mutants that got a verdict (mutmut: an
exit code; the corpus: accept, reject or incapacity; equivalent mutants are not judged and not
counted). mutmut is a bench-only extra: ``pip install -e '.[bench]'`` (``make bench`` installs it).
"""
from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

from corpus.catalogue import Loop
from corpus.measure import measure, summarize

EXAMPLES = Path(__file__).resolve().parents[1] / "corpus" / "examples"
SAMPLE = EXAMPLES / "isbn"


@dataclass(frozen=True)
class Sample:
    """A bundled module and its own suite: ``copy`` (files and directories under ``dir``) make the
    project, ``target`` is the module mutated, ``gap`` a (line prefix, change) a survivor must show."""

    name: str
    dir: Path
    copy: tuple[str, ...]
    target: str
    tests: str
    gap: tuple[str, str] | None = None
    mutmut_source: str = ""           # mutmut's source_paths when not the target (a package)
    mutmut_skip: tuple[str, ...] = ()  # its do_not_mutate: the package's other modules


SAMPLES = (
    Sample("isbn sample, 19 tests", SAMPLE, ("isbn.py",), "isbn.py", "tests", ("L28", "10 -> 11")),
    # a real third-party module (corpus/examples/ordered-set/ATTRIBUTION.md: ordered-set 4.1.0, MIT):
    # ordered_set/__init__.py, 536 lines, and its own 30 tests, both unchanged
    Sample("ordered-set 4.1.0, ordered_set/__init__.py, 536 lines, its own 30 tests", EXAMPLES / "ordered-set",
           ("ordered_set",), "ordered_set/__init__.py", "tests"),
    # a real library module whose suite reloads it (corpus/examples/websocket-abnf/ATTRIBUTION.md:
    # websocket-client 1.9.0, Apache-2.0): its own 5 tests plus 5 that reload it (wsaccel fallback)
    Sample("websocket-client 1.9.0, websocket/_abnf.py, 482 lines, 10 tests, 5 reload it",
           EXAMPLES / "websocket-abnf", ("websocket",), "websocket/_abnf.py", "tests",
           mutmut_source="websocket", mutmut_skip=("websocket/__init__.py", "websocket/_exceptions.py",
                                                   "websocket/_utils.py")),
    # a semver-shaped module written for issue 35's measurements: a regex parse, a value class,
    # prerelease precedence, bumps and range matching through a table of functions; its 100 tests
    Sample("semver sample, semver.py, 288 lines, 100 tests", EXAMPLES / "semver", ("semver.py",), "semver.py",
           "tests"),
)


def gate_copy(sample: Sample, root: Path) -> Path:
    """The sample's gate (gate.toml and its tests) copied to ``root/gate``, beside the artifact's
    copy, as mutmut's side gets the tests in its project copy (``_mutmut_project``). The bundled
    gates live inside the harness's own ``corpus`` package: run from there, pytest made the
    package a collection node whose ``__init__.py`` every judging child imported again at the
    first test's setup (a third of a swap child's CPU on ordered-set), and walked the
    repository's directories at every forked child's collection - costs of where this
    repository keeps its examples, not of the module or its suite. Returns the gate.toml's path."""
    gate = root / "gate"
    gate.mkdir()
    shutil.copy(sample.dir / "gate.toml", gate / "gate.toml")
    shutil.copytree(sample.dir / sample.tests, gate / sample.tests, ignore=shutil.ignore_patterns("__pycache__"))
    return gate / "gate.toml"


def _copy(sample: Sample, dest: Path) -> None:
    for name in sample.copy:
        src = sample.dir / name
        if src.is_dir():
            shutil.copytree(src, dest / name, ignore=shutil.ignore_patterns("__pycache__"))
        else:
            shutil.copy(src, dest / name)


# operator classes shared by both tools, for "corpus's survivors include every mutmut survivor
# (by line and operator class)" (issue 26's acceptance)
OPERATOR_CLASS = {
    "number_constant": "number", "string_constant": "string",
    "comparison": "comparison", "identity": "comparison", "ordering": "comparison",
    "arithmetic": "arithmetic", "augmented_assignment": "arithmetic",
    "boolean_constant": "boolean", "add_not": "boolean", "negate_if": "boolean", "remove_not": "boolean", "and_or": "boolean",
    "condition_constant": "boolean",
    "drop_argument": "argument", "argument_to_none": "argument", "drop_builtin_argument": "argument",
    "remove_return_value": "value", "assign_none": "value", "remove_statement": "value",
    "break_continue": "control", "zero_iterations": "control", "swap_method": "call",
    "remove_handler": "control", "broaden_handler": "control",
    # issue 35's operators: a literal's case is a string change, a unary swap an arithmetic one
    "string_case": "string", "unary": "arithmetic", "lambda_none": "value", "remove_case": "control",
    "dict_keyword": "call", "shallow_copy": "call", "remove_decorator": "call", "remove_overload": "call",
    # mutmut's 'a if (c) or True else b' and 'x = None' -> 'x = ""' read as these classes (classify_change)
    "ternary_constant": "boolean", "none_to_empty": "value",
}
_COMPARE = {"==", "!=", "<", "<=", ">", ">=", "is", "in", "not"}
_ARITH = {"+", "-", "*", "/", "//", "%", "**", "<<", ">>", "&", "|", "^", "+=", "-=", "*=", "/=", "//=",
          "%=", "**=", "|=", "&=", "^=", "<<=", ">>=", "@=", "=", "~"}
_BOOL = {"and", "or", "not", "True", "False"}


def _tokens(line: str) -> list[tuple[int, str]]:
    """The tokens of one line of code. A line cut from a longer statement (mutmut shows the
    changed line of a call spread over lines: ``build=self._build)``) is tokenized with its
    brackets balanced, and the added brackets dropped again."""
    import io
    import tokenize
    text = line.strip()
    opened = sum(text.count(c) for c in "([{") - sum(text.count(c) for c in ")]}")
    before, after = "(" * max(0, -opened), ")" * max(0, opened)
    try:
        toks = [(t.type, t.string) for t in tokenize.generate_tokens(io.StringIO(before + text + after + "\n").readline)
                if t.type not in (tokenize.NEWLINE, tokenize.NL, tokenize.ENDMARKER, tokenize.INDENT,
                                  tokenize.DEDENT)]
    except (tokenize.TokenError, SyntaxError, IndentationError):
        return []
    return toks[len(before):len(toks) - len(after)]


def _fstring_fields(tok: str) -> str | None:
    """The replacement fields of an f-string token joined (``f"{a} x {b(c)}"`` -> ``a b(c)``), or
    None when it is not an f-string: Python 3.11 tokenizes an f-string as one STRING token, so a
    change inside a field (``type(value)`` -> ``type(None)``) must be read from its fields."""
    import re
    prefix = re.match(r"[A-Za-z]*", tok)
    if prefix is None or "f" not in prefix.group(0).lower():
        return None
    return " ".join(re.findall(r"\{([^{}]*)\}", tok))


def _pairs(toks: list[tuple[int, str]], *pairs: tuple[str, str]) -> int:
    return sum((x[1], y[1]) in pairs for x, y in zip(toks, toks[1:]))


def classify_change(old: str, new: str) -> str:
    """The operator class (``OPERATOR_CLASS``'s values) of a one-line change made by another
    tool (mutmut), from the tokens that differ."""
    import difflib
    import token
    a, b = _tokens(old), _tokens(new)
    changed_a, changed_b = [], []
    for tag, i1, i2, j1, j2 in difflib.SequenceMatcher(None, a, b, autojunk=False).get_opcodes():
        if tag != "equal":
            changed_a += a[i1:i2]
            changed_b += b[j1:j2]
    if len(changed_a) == len(changed_b) == 1 and changed_a[0][0] == changed_b[0][0] == token.STRING:
        fa, fb = _fstring_fields(changed_a[0][1]), _fstring_fields(changed_b[0][1])
        if fa is not None and fb is not None and fa != fb:
            return classify_change(fa, fb)      # the change is inside a replacement field
    strs = {s for _, s in changed_a + changed_b}
    types = {t for t, _ in changed_a + changed_b}
    if strs == {"not"} and _pairs(b, ("not", "in"), ("is", "not")) != _pairs(a, ("not", "in"), ("is", "not")):
        return "comparison"         # in -> not in, is -> is not, and back (the corpus's comparison operator)
    if strs == {"not"}:
        return "boolean"            # not x -> x, x -> not x (the corpus's remove_not / add_not)
    if changed_a and not changed_b:
        return "argument"           # a token dropped (f(a, 0) -> f(a, )): an argument removed
    eq = next((i for i, t in enumerate(a) if t[1] == "="), None)
    if eq is not None and b == a[:eq + 1] + [(token.NAME, "None")] and a[eq + 1:] != b[eq + 1:]:
        return "value"              # x = <anything> -> x = None
    if eq is not None and a == a[:eq + 1] + [(token.NAME, "None")] and len(b) == eq + 2 and a[:eq + 1] == b[:eq + 1]:
        return "value"              # x = None -> x = "" (the value assigned replaced)
    if types and types <= {token.NUMBER}:
        return "number"
    if types and types <= {token.STRING}:
        return "string"
    if strs and strs <= _BOOL and not strs & {"not"} - {s for _, s in changed_b}:
        return "boolean"
    if not changed_a and strs - {"(", ")"} in ({"or", "True"}, {"and", "False"}):
        return "boolean"            # cond -> (cond) or True: a condition made constant
    if strs and strs <= _COMPARE:
        return "comparison"
    if strs and strs <= _ARITH:
        return "arithmetic"
    if "None" in {s for _, s in changed_b}:
        return "argument"           # f(x) -> f(None) (x = ... -> x = None is "value", above)
    if any(s in ("break", "continue", "return") for s in strs):
        return "control"
    if changed_a and not changed_b or changed_b and {s for _, s in changed_b} <= {",", ")"}:
        return "argument"
    if types <= {token.NAME}:
        return "call"
    return "other"


def _mutmut_survivor_sites(proj: Path, module: str, keys: list[str], env: dict) -> list[dict]:
    """Each surviving mutmut mutant's line in the module, its operator class and the change, read
    from ``mutmut show KEY`` (a diff of the mutated function; ``mutmut apply`` writes an
    overloaded method's mutant over its first ``@overload`` stub, so its file cannot be diffed)."""
    original = (proj / module).read_text()
    sites = []
    for key in keys:
        r = subprocess.run([_mutmut_bin(), "show", key], cwd=proj, env=env, stdin=subprocess.DEVNULL,
                           capture_output=True, text=True, timeout=120)
        sites.append({"key": key, **site_of_show(original, key, r.stdout)})
    return sites


def _function_lines(source: str, key: str) -> tuple[int, int] | None:
    """The line range of the function a mutmut key names (``mod.x_func__mutmut_3``,
    ``mod.xǁClassǁmethod__mutmut_3``): the last def of that name (an implementation follows
    its ``@overload`` stubs)."""
    import ast
    import re
    name = re.sub(r"__mutmut_\d+$", "", key.split(".")[-1])
    parts = name[2:].split("ǁ")[:2] if name.startswith("xǁ") else [name[2:]] if name.startswith("x_") else None
    if not parts:
        return None
    scopes: list = [ast.parse(source)]
    for i, part in enumerate(parts):
        want = ast.ClassDef if i < len(parts) - 1 else (ast.FunctionDef, ast.AsyncFunctionDef)
        found = [n for sc in scopes for n in sc.body if isinstance(n, want) and n.name == part]
        if not found:
            return None
        scopes = found[-1:]
    node = scopes[0]
    return node.lineno, node.end_lineno or node.lineno


def site_of_show(source: str, key: str, shown: str) -> dict:
    """(line, class, change) of one mutant from ``mutmut show``'s diff of its function: the
    removed line found inside that function in ``source`` (the hunk's numbers count from the
    function, not the file); its change classified from the tokens that differ."""
    import re
    old = [ln[1:] for ln in shown.splitlines() if ln.startswith("-") and not ln.startswith("---")]
    new = [ln[1:] for ln in shown.splitlines() if ln.startswith("+") and not ln.startswith("+++")]
    span = _function_lines(source, key)
    hunk = re.search(r"^@@ -(\d+)", shown, re.M)
    if not old or span is None:
        return {"line": None, "class": "other", "change": "(no removed line in mutmut show)"}
    lines = source.splitlines()
    hits = [i + 1 for i in range(span[0] - 1, span[1]) if lines[i].strip() == old[0].strip()]  # show dedents
    if not hits:
        return {"line": None, "class": "other", "change": "(changed line not found)"}
    guess = span[0] + (int(hunk.group(1)) if hunk else 0)
    line = min(hits, key=lambda n: abs(n - guess))
    a, b = " ".join(x.strip() for x in old), " ".join(x.strip() for x in new)
    return {"line": line, "class": classify_change(a, b), "change": f"{a} -> {b}"}


def _mutmut_bin() -> str:
    exe = Path(sys.executable).with_name("mutmut")
    if not exe.exists():
        raise SystemExit("bench_mutmut needs mutmut: pip install -e '.[bench]' (make bench installs it)")
    return str(exe)


def run_mutmut(workers: int, sites_too: bool = False, sample: Sample = SAMPLES[0]) -> dict:
    """mutmut 3 on a fresh copy of the sample: wall seconds, judged, survived (exit code 0) and,
    with ``sites_too`` (after the timing), each survivor's line and operator class."""
    with tempfile.TemporaryDirectory(prefix="bench-mutmut-") as tmp:
        proj, env = _mutmut_project(sample, Path(tmp))
        t0 = time.perf_counter()
        r = subprocess.run([_mutmut_bin(), "run", "--max-children", str(workers)], cwd=proj, env=env,
                           stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=1800)
        wall = time.perf_counter() - t0
        meta = proj / "mutants" / f"{sample.target}.meta"
        if not meta.is_file():
            raise RuntimeError(f"mutmut run failed (exit {r.returncode}): {(r.stdout + r.stderr)[-500:]}")
        codes = json.loads(meta.read_text())["exit_code_by_key"]
        judged = [c for c in codes.values() if c is not None]
        if not judged:      # a ratio against a tool that judged nothing would mean nothing
            raise RuntimeError(f"mutmut judged none of {len(codes)} mutants: {(r.stdout + r.stderr)[-300:]}")
        survivors = [k for k, c in codes.items() if c == 0]
        sites = _mutmut_survivor_sites(proj, sample.target, survivors, env) if sites_too else []
    return {"wall_s": wall, "mutants": len(codes), "judged": len(judged), "survived": len(survivors),
            "sites": sites}


def run_corpus(workers: int, sample: Sample = SAMPLES[0]) -> dict:
    """The corpus's fine family through ``measure`` (the fast pytest path) on a fresh copy."""
    with tempfile.TemporaryDirectory(prefix="bench-fine-") as tmp:
        art = Path(tmp) / "artifact"
        art.mkdir()
        _copy(sample, art)
        loop = Loop(id="bench", dir=Path(tmp), title=sample.name, domains=["software"], requirement="(bench)",
                    kind="python", target=sample.target, artifact_dir=art, hints={"role": "code"},
                    not_applicable=(), gate_paths=[gate_copy(sample, Path(tmp))])
        t0 = time.perf_counter()
        m = measure([loop], families=("fine",), tier2=False, workers=workers)
        wall = time.perf_counter() - t0
    g = summarize(m)["gates"][0]
    rows = [r for r in m.rows if not r.is_control]
    judged = [r for r in rows if r.verdict in ("accept", "reject", "incapacity")]
    sites = [_site(m.mutants[s["mutant"]]) for s in g["survivors"]]
    proved = [_site(mu) for mu in m.mutants.values() if mu.label == "equivalent" and mu.note[:1] == "L"]
    return {"wall_s": wall, "mutants": len(rows), "judged": len(judged), "equivalent": g["all"]["equivalent"],
            "sites": sites, "equivalent_sites": proved,
            "survived": g["all"]["false_accept"]["k"], "control": g["control_verdict"],
            "finds_gap": sample.gap is None or any(
                m.mutants[s["mutant"]].note.startswith(sample.gap[0] + ":") and sample.gap[1] in m.mutants[s["mutant"]].note
                for s in g["survivors"])}


def _site(mu) -> dict:
    return {"line": int(mu.note.split(":", 1)[0][1:]), "class": OPERATOR_CLASS.get(mu.operator, "other"),
            "change": mu.note}


def run(quick: bool = False) -> list[dict]:
    """mutmut wall / corpus wall (issue 26: what a user waits for) per bundled sample, median of
    interleaved pairs (mutmut first, then the corpus, repeated; 1 pair with ``quick``), and
    whether corpus's survivors include every mutmut survivor. Judged per second is in the notes."""
    return [_row(sample, 1 if quick else 3) for sample in SAMPLES]


def _row(sample: Sample, n: int, workers: int = 2) -> dict:
    pairs = [(run_mutmut(workers, sites_too=i == 0, sample=sample), run_corpus(workers, sample)) for i in range(n)]
    source = (sample.dir / sample.target).read_text()
    missing = survivors_missed(pairs[0][0]["sites"], pairs[0][1]["sites"], source)
    # a mutmut survivor the corpus proved equivalent (same line and class) is not a gap it missed
    proved = survivors_missed(missing, pairs[0][1]["equivalent_sites"], source)
    proved_n, missing = len(missing) - len(proved), proved
    ratios = sorted(b["wall_s"] / s["wall_s"] for b, s in pairs)
    ratio = ratios[len(ratios) // 2]
    base, subj = pairs[[b["wall_s"] / s["wall_s"] for b, s in pairs].index(ratio)]
    base_tp, subj_tp = base["judged"] / base["wall_s"], subj["judged"] / subj["wall_s"]
    return {"name": f"fine family vs mutmut: wall time, mutmut / corpus ({sample.name})",
            "baseline": f"mutmut {base['wall_s']:.1f}s", "baseline_s": base["wall_s"],
            "subject": f"corpus fine {subj['wall_s']:.1f}s", "subject_s": subj["wall_s"],
            "ratio": ratio, "unit": "x (mutmut wall / corpus wall; >1 = corpus faster)",
            "notes": f"median of {len(pairs)} interleaved pairs (ratios {', '.join(f'{r:.2f}' for r in ratios)}); "
                     f"load average {os.getloadavg()[0]:.1f} at the end; "
                     f"{workers} workers each; mutmut {base['judged']}/{base['mutants']} judged "
                     f"({base_tp:.2f}/s), {base['survived']} survived; corpus {subj['judged']}/{subj['mutants']} "
                     f"judged ({subj_tp:.2f}/s; {subj['equivalent']} equivalent, not judged), {subj['survived']} "
                     f"survived, control {subj['control']}"
                     + (f", gap '{sample.gap[1]}' at {sample.gap[0]} found: {subj['finds_gap']}" if sample.gap else "")
                     + f"; mutmut survivors also corpus survivors (line and operator class): "
                     f"{len(pairs[0][0]['sites']) - len(missing) - proved_n}/{len(pairs[0][0]['sites'])}"
                     + (f", {proved_n} proved equivalent by the corpus's screen" if proved_n else "")
                     + (f" (missed: {'; '.join(x['change'] for x in missing)})" if missing else "")}


def survivors_missed(mutmut_sites: list[dict], corpus_sites: list[dict], source: str | None = None) -> list[dict]:
    """The mutmut survivors with no corpus survivor on the same line of the same operator class
    (issue 26's acceptance: this list is empty). With the module's ``source``, a line is read as
    the statement holding it (mutmut names the changed line of a call spread over lines, the
    corpus the line the call starts on)."""
    start = _statement_starts(source) if source is not None else {}
    have = {(start.get(c["line"], c["line"]), c["class"]) for c in corpus_sites}
    return [m for m in mutmut_sites if (start.get(m["line"], m["line"]), m["class"]) not in have]


def _statement_starts(source: str) -> dict[int, int]:
    """line -> the first line of the innermost simple statement holding it."""
    import ast
    out: dict[int, int] = {}
    for node in sorted((n for n in ast.walk(ast.parse(source)) if isinstance(n, ast.stmt)
                        and not hasattr(n, "body")), key=lambda n: n.lineno):
        for line in range(node.lineno, (node.end_lineno or node.lineno) + 1):
            out[line] = node.lineno
    return out

def _mutmut_project(sample: Sample, tmp: Path) -> tuple[Path, dict]:
    proj = tmp / "proj"
    proj.mkdir()
    _copy(sample, proj)
    shutil.copytree(sample.dir / sample.tests, proj / "tests", ignore=shutil.ignore_patterns("__pycache__"))
    skip = "".join(f"\n  {p}" for p in sample.mutmut_skip)
    (proj / "setup.cfg").write_text(f"[mutmut]\nsource_paths={sample.mutmut_source or sample.target}\n"
                                    f"tests_dir=tests/\n" + (f"do_not_mutate ={skip}\n" if skip else ""))
    return proj, {k: v for k, v in os.environ.items() if not k.startswith("PYTEST")}


def _timed_child(argv: list[str], cwd: Path, env: dict, timeout: float) -> tuple[float, float, str]:
    """(wall s, CPU s of the process tree, output) of one command; CPU from RUSAGE_CHILDREN, so
    nothing else may be reaped by this process meanwhile (run it alone)."""
    import resource
    c0 = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    r = subprocess.run(argv, cwd=cwd, env=env, stdin=subprocess.DEVNULL, capture_output=True, text=True,
                       timeout=timeout)
    wall = time.perf_counter() - t0
    c1 = resource.getrusage(resource.RUSAGE_CHILDREN)
    return wall, c1.ru_utime + c1.ru_stime - c0.ru_utime - c0.ru_stime, r.stdout + r.stderr


def mutmut_per_mutant(sample: Sample = SAMPLES[2], n: int = 40, seed: int = 0, workers: int = 2) -> dict:
    """mutmut's per-mutant cost on a seeded sample of its own mutants (issue 35: a whole run on
    ``_abnf.py`` took ~28 minutes under load). Three runs in one fresh project: (1) its set-up
    (``mutmut run`` on a name matching nothing: it copies, generates every mutant and runs its
    stats, then stops), (2) ``mutmut run NAME`` on one mutant (the fixed part of a run that
    judges: its clean and forced-fail runs), (3) ``mutmut run NAMES`` on the ``n`` mutants with
    the smallest sha256(seed:key). Per mutant = ((3) - (2)) / (n - 1), wall and CPU (the whole
    process tree's, RUSAGE_CHILDREN)."""
    import hashlib
    with tempfile.TemporaryDirectory(prefix="bench-mutmut-pm-") as tmp:
        proj, env = _mutmut_project(sample, Path(tmp))
        module = (sample.mutmut_source and sample.target.removesuffix(".py").replace("/", ".")) or \
            sample.target.removesuffix(".py")
        run = [_mutmut_bin(), "run", "--max-children", str(workers)]
        setup = _timed_child([*run, f"{module}.x_no_such_function_*"], proj, env, 1800)
        meta = proj / "mutants" / f"{sample.target}.meta"
        keys = sorted(json.loads(meta.read_text())["exit_code_by_key"],
                      key=lambda k: hashlib.sha256(f"{seed}:{k}".encode()).hexdigest())
        chosen = keys[:n]
        one = _timed_child([*run, chosen[0]], proj, env, 1800)
        many = _timed_child([*run, *chosen], proj, env, 3600)
        codes = json.loads(meta.read_text())["exit_code_by_key"]
    per_wall = (many[0] - one[0]) / max(n - 1, 1)
    per_cpu = (many[1] - one[1]) / max(n - 1, 1)
    return {"mutants": len(keys), "n": n, "seed": seed, "workers": workers,
            "setup_wall_s": setup[0], "setup_cpu_s": setup[1], "one_wall_s": one[0], "one_cpu_s": one[1],
            "sample_wall_s": many[0], "sample_cpu_s": many[1], "per_mutant_wall_s": per_wall,
            "per_mutant_cpu_s": per_cpu, "exit_codes": {str(c): sum(codes[k] == c for k in chosen)
                                                        for c in sorted({codes[k] for k in chosen}, key=str)},
            "load": os.getloadavg()}


if __name__ == "__main__":
    import argparse
    ap = argparse.ArgumentParser(prog="python -m benchmarks.bench_mutmut",
                                 description="mutmut's per-mutant cost on a seeded sample (mutmut_per_mutant)")
    ap.add_argument("index", nargs="?", type=int, default=2, help="SAMPLES index (2: websocket _abnf.py)")
    ap.add_argument("--sample", type=int, default=40)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--workers", type=int, default=2)
    a = ap.parse_args()
    print(json.dumps(mutmut_per_mutant(SAMPLES[a.index], a.sample, a.seed, a.workers), indent=1))
