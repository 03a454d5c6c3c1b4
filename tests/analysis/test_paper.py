import json

from click.testing import CliRunner

from analysis.paper import compare, load_published, synthetic_paper_records
from harness.cli import main


def test_reproduce_paper_on_synthetic_counts(tmp_path):
    p = tmp_path / "paper.jsonl"
    assert synthetic_paper_records(p) == 9240 + 77
    r = CliRunner().invoke(main, ["reproduce", "paper", "--records", str(p), "--out", str(tmp_path / "o"),
                                  "--B", "300", "--strict"])
    assert r.exit_code == 0, r.output
    rep = json.loads((tmp_path / "o" / "reproduce.json").read_text())
    assert rep["synthetic"] is True
    status = {row["item"]: row["status"] for row in rep["rows"]}
    assert all(v in ("match", "not checkable (synthetic allocation)") for v in status.values()), \
        [k for k, v in status.items() if v not in ("match", "not checkable (synthetic allocation)")]
    assert status["H1 estimate pp (A4-A2p not_amplified)"] == "match"
    assert status["A2p completion % [Wilson 95%]"] == "match"
    assert status["H1 95% CI pp (task x scenario percentile bootstrap, B=300)"].startswith("not checkable")
    s = json.loads((tmp_path / "o" / "summary.json").read_text())
    assert s["records"]["duplicates_dropped"] == 77 and s["records"]["scored"] == 9240


def test_compare_marks_differences():
    pub = load_published()
    summary = {"arms": {}, "contrasts": [], "task_concentration": {}, "per_scenario": [],
               "fdr": {"rejected": 1, "tested": 15}, "records": {"scored": 10}}
    rows = compare(summary, pub, synthetic=False)
    assert rows and all(r["status"] == "differs" for r in rows)
