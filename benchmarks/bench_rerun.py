"""Reruns that re-judge only what changed (issue 35, item 2), on the bundled semver-shaped module
(corpus/examples/semver: 288 lines, 100 tests).

One measured run fills the judgment cache; then, each from that same cache state:

- a no-op rerun (nothing changed): its wall time, and how many mutants were judged again;
- a one-function edit (``EDITS``: a behaviour-preserving rewrite of one function's body, so the
  suite still passes): how many mutants were judged again, of how many;
- one test added to the single test file (``ADDED_TEST``): the same count.

"Judged again" = a mutant row whose executor is not ``cached`` (equivalent mutants are never
judged and are left out of both counts). ``--check`` also runs each edited state from scratch
(``--fresh``) and asserts the rerun's verdicts equal the fresh run's: the rerun is only worth
its saving if it says what a run from scratch says.

ratio (the row's number) = mutants judged again / mutants judged, as a percentage; the
acceptance is under 20% for a one-function edit.
"""
from __future__ import annotations

import argparse
import shutil
import tempfile
import time
from pathlib import Path

from corpus.catalogue import Loop
from corpus.measure import Measurement, measure

SAMPLE = Path(__file__).resolve().parents[1] / "corpus" / "examples" / "semver"

# (function, text before, text after): each keeps the suite passing (the control must accept)
EDITS = (
    ("_increment_string (a leaf helper)",
     "        next_ = str(int(match.group(1)) + 1)\n",
     "        number = int(match.group(1))\n        next_ = str(number + 1)\n"),
    ("Version.bump_patch (a leaf method)",
     "        return type(self)(self._major, self._minor, self._patch + 1)\n",
     "        patch = self._patch + 1\n        return type(self)(self._major, self._minor, patch)\n"),
    ("Version.finalize_version (a leaf method)",
     "    def finalize_version(self):\n        return type(self)(self._major, self._minor, self._patch)\n",
     "    def finalize_version(self):\n        major, minor, patch = self._major, self._minor, self._patch\n"
     "        return type(self)(major, minor, patch)\n"),
    ("satisfies (a top-level function)",
     "    clauses = [c.strip() for c in constraint.split(\",\") if c.strip()]\n",
     "    clauses = [c.strip() for c in constraint.split(\",\")]\n    clauses = [c for c in clauses if c]\n"),
)
ADDED_TEST = ("\n\ndef test_bump_build_token():\n"
              "    assert str(Version(1, 0, 0).bump_build(\"ci\")) == \"1.0.0+ci.1\"\n")


def _project(root: Path) -> Loop:
    """A copy of the sample: artifact/semver.py, tests/, gate.toml (its tests relative to it)."""
    (root / "artifact").mkdir(parents=True)
    shutil.copy(SAMPLE / "semver.py", root / "artifact" / "semver.py")
    shutil.copytree(SAMPLE / "tests", root / "tests", ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copy(SAMPLE / "gate.toml", root / "gate.toml")
    return _loop(root)


def _loop(root: Path) -> Loop:
    """The Loop over a copy ``_project`` made."""
    return Loop(id="semver", dir=root, title="semver", domains=["software"], requirement="(bench)",
                kind="python", target="semver.py", artifact_dir=root / "artifact", hints={"role": "code"},
                not_applicable=(), gate_paths=[root / "gate.toml"])


def _run(loop: Loop, cache: Path | None, workers: int) -> tuple[Measurement, float]:
    t0 = time.perf_counter()
    m = measure([loop], families=("fine",), tier2=False, workers=workers, cache=cache)
    return m, time.perf_counter() - t0


def _counts(m: Measurement) -> tuple[int, int]:
    """(mutants judged again, mutants with a verdict) - equivalent ones left out."""
    rows = [r for r in m.rows if not r.is_control and r.verdict in ("accept", "reject", "incapacity")]
    return sum(r.executor != "cached" for r in rows), len(rows)


def _verdicts(m: Measurement) -> dict[str, str]:
    return {r.mutant: r.verdict for r in m.rows}


def scenarios(workers: int = 2, check: bool = False, edits=EDITS) -> list[dict]:
    """Every scenario's counts (module doc); each starts from the cache the first run filled."""
    out: list[dict] = []
    with tempfile.TemporaryDirectory(prefix="bench-rerun-") as tmp:
        root = Path(tmp)
        loop = _project(root / "p")
        cache = root / "p" / "out" / "judgment-cache.jsonl"
        cache.parent.mkdir()
        first, wall = _run(loop, cache, workers)
        again, total = _counts(first)
        out.append({"scenario": "first run", "rejudged": again, "of": total, "wall_s": wall})
        saved = cache.read_bytes()
        module, tests = loop.target_path, root / "p" / "tests" / "test_semver.py"
        original, original_tests = module.read_text(), tests.read_text()

        def one(name: str, edit) -> None:
            cache.write_bytes(saved)
            module.write_text(original)
            tests.write_text(original_tests)
            edit()
            m, w = _run(loop, cache, workers)
            n, of = _counts(m)
            row = {"scenario": name, "rejudged": n, "of": of, "wall_s": w}
            if check:
                fresh, _ = _run(loop, None, workers)
                diff = {k: (v, _verdicts(fresh).get(k)) for k, v in _verdicts(m).items()
                        if _verdicts(fresh).get(k) != v}
                row["differs_from_fresh"] = len(diff)
                assert not diff, (name, sorted(diff.items())[:5])
            out.append(row)

        one("no-op rerun", lambda: None)
        for name, before, after in edits:
            assert original.count(before) == 1, name
            one(f"edit {name}", lambda b=before, a=after: module.write_text(original.replace(b, a)))
        one("one test added", lambda: tests.write_text(original_tests + ADDED_TEST))
    return out


def _mutmut_noop(workers: int) -> float:
    """mutmut 3 on a fresh copy of the semver sample, run to the end, then run again with nothing
    changed: the second run's wall seconds (its set-up, reading its results, judging nothing)."""
    import os
    import subprocess

    from benchmarks.bench_mutmut import SAMPLES, _copy, _mutmut_bin
    sample = next(s for s in SAMPLES if s.target == "semver.py")
    with tempfile.TemporaryDirectory(prefix="bench-mutmut-noop-") as tmp:
        proj = Path(tmp) / "proj"
        proj.mkdir()
        _copy(sample, proj)
        shutil.copytree(sample.dir / sample.tests, proj / "tests", ignore=shutil.ignore_patterns("__pycache__"))
        (proj / "setup.cfg").write_text("[mutmut]\nsource_paths=semver.py\ntests_dir=tests/\n")
        env = {k: v for k, v in os.environ.items() if not k.startswith("PYTEST")}
        argv = [_mutmut_bin(), "run", "--max-children", str(workers)]
        first = subprocess.run(argv, cwd=proj, env=env, stdin=subprocess.DEVNULL, capture_output=True, text=True,
                               timeout=1800)
        if not (proj / "mutants" / "semver.py.meta").is_file():
            raise RuntimeError(f"mutmut run failed (exit {first.returncode}): {(first.stdout + first.stderr)[-300:]}")
        t0 = time.perf_counter()
        subprocess.run(argv, cwd=proj, env=env, stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=1800)
        return time.perf_counter() - t0


def _corpus_noop(workers: int) -> float:
    """The corpus on a fresh copy, run to the end with the judgment cache, then run again with
    nothing changed in a new Python process (as a user's second command, and as mutmut's second
    run: nothing this process generated or parsed is reused): that process's wall seconds, its
    interpreter start and imports included."""
    import subprocess
    import sys
    with tempfile.TemporaryDirectory(prefix="bench-rerun-noop-") as tmp:
        loop = _project(Path(tmp) / "p")
        cache = Path(tmp) / "p" / "out" / "judgment-cache.jsonl"
        cache.parent.mkdir()
        _run(loop, cache, workers)
        t0 = time.perf_counter()
        r = subprocess.run([sys.executable, "-m", "benchmarks.bench_rerun", "--measure", str(Path(tmp) / "p"),
                            "--workers", str(workers)], capture_output=True, text=True, timeout=1800,
                           cwd=Path(__file__).resolve().parents[1])
        wall = time.perf_counter() - t0
        if r.returncode != 0 or "judged again 0 " not in r.stdout:
            raise RuntimeError(f"the corpus's no-op rerun failed or judged something: {(r.stdout + r.stderr)[-300:]}")
        return wall


def noop_race(pairs: int = 3, workers: int = 2) -> dict:
    """mutmut's no-op rerun wall / the corpus's, median of interleaved pairs (mutmut first), on
    the semver sample (issue 35's acceptance: the corpus within 2x of mutmut, ratio >= 0.5)."""
    walls = [(_mutmut_noop(workers), _corpus_noop(workers)) for _ in range(pairs)]
    ratios = sorted(m / c for m, c in walls)
    ratio = ratios[len(ratios) // 2]
    m, c = walls[[x / y for x, y in walls].index(ratio)]
    return {"name": "no-op rerun on the semver sample: mutmut wall / corpus wall", "baseline": f"mutmut {m:.1f}s",
            "baseline_s": m, "subject": f"corpus {c:.1f}s", "subject_s": c, "ratio": ratio,
            "unit": "x (mutmut no-op rerun wall / corpus no-op rerun wall; >1 = corpus faster)",
            "notes": f"median of {pairs} interleaved pairs (ratios {', '.join(f'{r:.2f}' for r in ratios)}), "
                     f"{workers} workers each, each side after its own full run on a fresh copy"}


def run(quick: bool = False) -> list[dict]:
    """``make bench`` rows: the share of mutants judged again per scenario (lower is better),
    and the no-op rerun raced against mutmut's when mutmut is installed."""
    rows = scenarios(edits=EDITS[:1] if quick else EDITS)
    first = rows[0]
    return [{"name": f"corpus rerun on the semver sample: {r['scenario']}",
             "baseline": f"first run {first['wall_s']:.1f}s, {first['of']} mutants judged",
             "baseline_s": first["wall_s"], "subject": f"{r['rejudged']} judged again in {r['wall_s']:.1f}s",
             "subject_s": r["wall_s"], "ratio": 100.0 * r["rejudged"] / max(1, r["of"]),
             "unit": "% of the mutants judged again (acceptance: under 20% for a one-function edit)",
             "notes": "each scenario starts from the first run's judgment cache; equivalent mutants left out"}
            for r in rows[1:]] + _race(quick)


def _race(quick: bool) -> list[dict]:
    try:
        from benchmarks.bench_mutmut import _mutmut_bin
        _mutmut_bin()
    except SystemExit:          # mutmut is the bench-only extra; without it there is nothing to race
        return []
    return [noop_race(pairs=1 if quick else 3)]


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(prog="python -m benchmarks.bench_rerun")
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--check", action="store_true", help="also run each state fresh and compare the verdicts")
    ap.add_argument("--race", type=int, default=0, metavar="PAIRS",
                    help="instead: race mutmut's no-op rerun against the corpus's, PAIRS interleaved pairs")
    ap.add_argument("--measure", metavar="DIR", help=argparse.SUPPRESS)   # _corpus_noop's second run
    args = ap.parse_args(argv)
    if args.measure:
        m, _ = _run(_loop(Path(args.measure)), Path(args.measure) / "out" / "judgment-cache.jsonl", args.workers)
        print(f"judged again {_counts(m)[0]} of {_counts(m)[1]}")
        return
    if args.race:
        r = noop_race(args.race, args.workers)
        print(f"{r['name']}: {r['ratio']:.2f} ({r['baseline']}, {r['subject']}; {r['notes']})")
        return
    for r in scenarios(args.workers, args.check):
        print(f"{r['scenario']:55} judged again {r['rejudged']:>5} of {r['of']:>5} "
              f"({100.0 * r['rejudged'] / max(1, r['of']):5.1f}%)  wall {r['wall_s']:7.1f}s"
              + (f"  differs from fresh: {r['differs_from_fresh']}" if "differs_from_fresh" in r else ""))


if __name__ == "__main__":
    main()
