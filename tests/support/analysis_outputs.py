"""Every printed output of `harness analyze` and `harness compare` on the paper's records and on the
quickstart's, as text (issue 37: analysis at scale must keep every printed number identical).

The snapshot in tests/fixtures/analysis_outputs/ was written by this module BEFORE the columnar rewrite
(``python -m support.analysis_outputs --write`` from tests/); tests/analysis/test_output_snapshot.py
computes the outputs again and compares them. The quickstart's records are a committed fixture
(tests/fixtures/quickstart-records.jsonl, one `harness run protocols/quickstart.toml`): a fresh run's
wall_s differ from run to run, so a snapshot of a fresh run could not be exact.

Paths inside the outputs are replaced: the temporary folder by ``<TMP>``, the checkout by ``<REPO>``. The sections compare adds
later (the adjudicated breakdown, issue 37) are not in the snapshot; the test removes them before
comparing (``strip_new``)."""
from __future__ import annotations

import re
import sys
from pathlib import Path

from click.testing import CliRunner

REPO = Path(__file__).resolve().parents[2]
FIXTURES = REPO / "tests" / "fixtures"
SNAPSHOT = FIXTURES / "analysis_outputs"
QUICKSTART = FIXTURES / "quickstart-records.jsonl"
ANALYZE_FILES = ("report.md", "summary.json", "per-scenario.csv", "analysis.tidy.csv")
COMPARE_FILES = ("compare.md", "compare.json")


def _cli(*args: str) -> str:
    from harness.cli.cli import main

    r = CliRunner().invoke(main, list(args), catch_exceptions=False)
    assert r.exit_code == 0, r.output
    return r.output


def _analyze(name: str, records: Path, tmp: Path, *extra: str) -> dict[str, str]:
    out = tmp / f"{name}-analysis"
    got = {f"{name}.analyze.stdout": _cli("analyze", str(records), "--out", str(out), "--no-figures", *extra)}
    for f in ANALYZE_FILES:
        got[f"{name}.analyze.{f}"] = _digest((out / f).read_text()) if f in BY_DIGEST else (out / f).read_text()
    return got


BY_DIGEST = ("analysis.tidy.csv",)  # 1.3 MB for the paper's records: kept as its sha256 and line count


def _digest(text: str) -> str:
    import hashlib

    return f"sha256 {hashlib.sha256(text.encode()).hexdigest()}, {text.count(chr(10))} lines\n"


def _compare(name: str, a: Path, b: Path, tmp: Path) -> dict[str, str]:
    out = tmp / f"{name}-compare"
    got = {f"{name}.compare.stdout": _cli("compare", str(a), str(b), "--out", str(out), "--no-figures")}
    for f in COMPARE_FILES:
        got[f"{name}.compare.{f}"] = (out / f).read_text()
    return got


def _split_by_arm(records: Path, tmp: Path, arms: tuple[str, ...]) -> list[Path]:
    import json

    paths = []
    lines = records.read_text().splitlines(keepends=True)
    for arm in arms:
        p = tmp / f"quickstart-{arm}.jsonl"
        p.write_text("".join(line for line in lines if json.loads(line)["arm"] == arm))
        paths.append(p)
    return paths


def outputs(tmp: Path) -> dict[str, str]:
    """name -> text of every output, with ``tmp`` written as <TMP>."""
    tmp = Path(tmp)
    paper, pa, pb = tmp / "paper.jsonl", tmp / "paired-a.jsonl", tmp / "paired-b.jsonl"
    _cli("reproduce", "synth-paper", "--out", str(paper))
    _cli("reproduce", "synth-paired", "--out-a", str(pa), "--out-b", str(pb))
    got = _analyze("paper", paper, tmp)
    got.update(_compare("paired", pa, pb, tmp))
    qs = tmp / "quickstart.jsonl"
    qs.write_bytes(QUICKSTART.read_bytes())
    got.update(_analyze("quickstart", qs, tmp, "--protocol", str(REPO / "protocols" / "quickstart.toml")))
    a2, a4 = _split_by_arm(qs, tmp, ("A2", "A4"))
    got.update(_compare("quickstart", a2, a4, tmp))
    return {k: v.replace(str(tmp), "<TMP>").replace(str(REPO), "<REPO>") for k, v in got.items()}


NEW_SECTION = "## Adjudicated divergence"


LEDGER_WARNING = re.compile(r"^warning: \S+ does not verify: .*\n", re.M)


def strip_new(name: str, text: str) -> str:
    """An output as it was before issue 37's additions to compare: the adjudicated-divergence section of
    compare.md (and of the printed Markdown) and the ``adjudicated``/``token_convention`` keys of
    compare.json removed. Also removed: the ledger warning (issue 34) that a records file with no
    records.head, or one arm's lines cut out of a run, does not verify as a ledger; it says where the
    numbers come from, it is not one of them."""
    text = LEDGER_WARNING.sub("", text)
    if name.endswith("compare.json"):
        import json

        doc = json.loads(text)
        for k in ("adjudicated", "token_convention"):
            doc.pop(k, None)
        return json.dumps(doc, indent=2, default=str) + "\n"
    if name.startswith(("paired.compare", "quickstart.compare")) and NEW_SECTION in text:
        head, rest = text.split(NEW_SECTION, 1)
        nxt = rest.find("\n## ")
        return head + (rest[nxt + 1:] if nxt >= 0 else "")
    return text


def main(argv: list[str]) -> int:
    import tempfile

    if argv != ["--write"]:
        print("usage: python -m support.analysis_outputs --write  (from tests/; rewrites the snapshot)")
        return 2
    with tempfile.TemporaryDirectory() as td:
        got = outputs(Path(td))
    SNAPSHOT.mkdir(parents=True, exist_ok=True)
    for name, text in got.items():
        (SNAPSHOT / name).write_text(text)
    print(f"wrote {len(got)} outputs to {SNAPSHOT}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
