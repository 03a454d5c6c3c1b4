import json
import re

import pytest
from click.testing import CliRunner

from analysis.glmm import glmm_datasets
from analysis.pipeline import analyze
from analysis.records import load_records
from harness.cli.cli import main
from tests.analysis.conftest import rec, write_jsonl

OUT_FILES = ["summary.json", "report.md", "per-scenario.csv", "analysis.tidy.csv", "analysis.parquet",
             "analysis.glmm.R", "figures/amplification_ladder.png", "figures/amplification_ladder.svg",
             "figures/per_scenario_forest.png", "figures/per_scenario_forest.svg",
             "figures/completion.png", "figures/completion.svg"]


def test_summary_contract(small_records, tmp_path):
    s = analyze(small_records, tmp_path / "o", B=200, seed=3, interval="studentized-symmetric")
    assert set(s["records"]) >= {"lines", "scored", "void", "duplicates_dropped"}
    for arm in ("A4", "A2p", "A3"):
        a = s["arms"][arm]
        for e in ("completion", "amplified", "not_amplified"):
            assert set(a[e]) == {"k", "n", "rate", "lo", "hi"}
            assert 0 <= a[e]["rate"] <= 1
        assert {"mean_tokens", "mean_wall_s", "mean_cost_usd"} <= set(a)
    c = s["contrasts"][0]
    assert (c["id"], c["a"], c["b"], c["endpoint"], c["cells"]) == ("H1", "A4", "A2p", "not_amplified", "injected")
    assert c["method"]["kind"] == "cluster_bootstrap" and c["method"]["B"] == 200
    assert c["method"]["seed"] == 3 and c["method"]["cluster"] == "task"  # the design's outermost unit
    assert c["method"]["method"] == "studentized-symmetric" and c["method"]["n_clusters"] == 2
    assert c["method"]["warnings"] and "only 2 clusters" in c["method"]["warnings"][0]
    assert c["n_matched"] == 12 and c["estimate"] == pytest.approx(2 / 12)
    e = c["estimands"]  # both named estimands are always there, whatever the headline
    assert e["conditional"]["estimand"] == "conditional" and e["conditional"]["n"] == 12
    assert e["population"]["estimand"] == "population" and e["population"]["lo"] is None
    assert e["population"]["reason"].startswith("2 tasks")
    ps = s["per_scenario"]
    assert [p["scenario"] for p in ps] == ["B1", "B2"]
    assert {"k_a", "n_a", "k_b", "n_b", "p", "q", "rejected"} <= set(ps[0])
    tc = s["task_concentration"]
    assert tc["top_task"] == "t1" and tc["all"] == {"a": [0, 12], "b": [2, 12]}
    json.dumps(s)  # plain JSON
    for f in OUT_FILES:
        assert (tmp_path / "o" / f).exists(), f


def test_outputs_byte_identical_for_same_input_and_seed(small_records, tmp_path):
    analyze(small_records, tmp_path / "a", B=300, seed=9)
    analyze(small_records, tmp_path / "b", B=300, seed=9)
    for f in OUT_FILES:
        if f == "analysis.parquet":
            continue  # content checked through the CSV; parquet embeds writer metadata
        assert (tmp_path / "a" / f).read_bytes() == (tmp_path / "b" / f).read_bytes(), f


def test_report_numbers_carry_numerator_denominator_and_method(small_records, tmp_path):
    analyze(small_records, tmp_path / "o", B=200, seed=1, interval="studentized-symmetric")
    md = (tmp_path / "o" / "report.md").read_text()
    assert "5/6 = 83.3% [" in md  # A2p completion over null cells
    assert "cluster bootstrap, unit = task (2 clusters)" in md and "B = 200, seed = 1" in md
    assert "MC s.e." in md and "WARNING: only 2 clusters" in md
    assert "Fisher" in md and "Benjamini-Hochberg" in md
    assert "= (2 a-only - 0 b-only)/12 [" in md and "Tango score 95%; stratified by task (2 tasks) [" in md  # 6 cells per task: Tango heads
    assert "exact McNemar p = 0.5" in md
    assert "population over tasks (2 tasks): +16.7 pp = 2/12, interval n/a (2 tasks)" in md
    assert "completion** = outcome in {completed, recovered}" in md
    # every percentage in the per-arm rows comes with k/n
    for line in md.splitlines():
        if line.startswith("| A") and "%" in line:
            assert re.search(r"\d+/\d+", line), line


def test_empty_denominators_print_na(tmp_path):
    p = write_jsonl(tmp_path / "r.jsonl", [rec("A4", "t", "B1", 1, "recovered"), rec("A2p", "t", "B1", 1, "recovered")])
    s = analyze(p, tmp_path / "o", B=50, figures=False)
    assert s["arms"]["A4"]["completion"] == {"k": 0, "n": 0, "rate": None, "lo": None, "hi": None}
    h2 = [c for c in s["contrasts"] if c["id"] == "H2"][0]
    assert h2["estimate"] is None and h2["n_matched"] == 0
    md = (tmp_path / "o" / "report.md").read_text()
    assert "n/a (0/0)" in md and "n/a (no matched cells)" in md
    assert " 0.0% [0.0, 0.0]" not in md


def test_glmm_models_are_disjoint(small_records, tmp_path):
    s = analyze(small_records, tmp_path / "o", B=50, figures=False)
    lr = load_records(small_records)
    (s1, d1), (s2, d2) = glmm_datasets(lr.tidy, s["contrasts"])
    assert s1["cells"] == "injected" and s2["cells"] == "null"
    assert (d1["scenario"] != "null").all() and (d2["scenario"] == "null").all()
    assert not set(d1["match_key"]) & set(d2["match_key"])
    assert len(d1) == 24 and len(d2) == 12
    r = (tmp_path / "o" / "analysis.glmm.R").read_text()
    assert 'h1 <- matched(d[d$scenario != "null", ]' in r and 'h2 <- matched(d[d$scenario == "null", ]' in r
    assert "stopifnot(length(intersect(h1$match_key, h2$match_key)) == 0)" in r
    assert "(1 | task) + (1 | scenario)" in r


def test_glmm_fit_is_labelled_sensitivity(small_records, tmp_path):
    s = analyze(small_records, tmp_path / "o", B=50, figures=False, glmm=True)
    assert [g["id"] for g in s["glmm"]] == ["H1", "H2"]
    assert all("sensitivity" in g["method"] for g in s["glmm"])
    assert "GLMM sensitivity analysis (not the primary inference)" in (tmp_path / "o" / "report.md").read_text()


def test_protocol_hypotheses_and_analysis_settings(small_records, tmp_path):
    proto = tmp_path / "p.toml"
    proto.write_text('[analysis]\nalpha = 0.1\nbootstrap_B = 123\nseed = 5\nfdr_pair = ["A3", "A2p"]\n\n'
                     '[[hypotheses]]\nid = "P1"\na = "A3"\nb = "A2p"\nendpoint = "amplified"\n'
                     'cells = "injected"\ncluster = "task"\ninterval = "studentized-symmetric"\n')
    s = analyze(small_records, tmp_path / "o", protocol=proto, figures=False)
    assert [c["id"] for c in s["contrasts"]] == ["P1"]
    c = s["contrasts"][0]
    assert c["method"]["B"] == 123 and c["method"]["seed"] == 5 and c["method"]["cluster"] == "task"
    assert c["method"]["method"] == "studentized-symmetric"
    assert c["estimate"] == pytest.approx(0 - 2 / 12)
    assert s["per_scenario"][0]["a"] == "A3" and s["fdr"]["alpha"] == 0.1


def test_bad_protocol_names_file_line_field(small_records, tmp_path):
    proto = tmp_path / "p.toml"
    proto.write_text('# header\n\n[[hypotheses]]\nid = "P1"\na = "A3"\nb = "A2p"\nendpoint = "wins"\n')
    res = CliRunner().invoke(main, ["analyze", str(small_records), "--protocol", str(proto), "--out", str(tmp_path / "o")])
    assert res.exit_code != 0
    assert f"{proto}:3: field 'hypotheses[0]'" in res.output and "endpoint" in res.output


def test_cli_analyze_ok_and_bad_input(small_records, tmp_path):
    r = CliRunner().invoke(main, ["analyze", str(small_records), "--out", str(tmp_path / "o"), "--B", "100",
                                  "--seed", "2", "--cluster", "cell", "--no-figures",
                                  "--interval", "percentile"])
    assert r.exit_code == 0, r.output
    assert "H1 A4-A2p not_amplified over 12 matched injected cells" in r.output and "cluster bootstrap, unit = cell (12 clusters)" in r.output
    bad = write_jsonl(tmp_path / "bad.jsonl", [rec("A4", "t", "null", 1, "completed"), {"arm": "A4"}])
    r = CliRunner().invoke(main, ["analyze", str(bad), "--out", str(tmp_path / "o2")])
    assert r.exit_code == 2 and f"{bad}:2: field 'task'" in r.output and "Traceback" not in r.output


def test_cli_on_conflict_policy_written_into_outputs(tmp_path):
    p = write_jsonl(tmp_path / "c.jsonl", [rec("A4", "t", "B1", 1, "recovered"), rec("A4", "t", "B1", 1, "amplified"),
                                           rec("A2p", "t", "B1", 1, "recovered")])
    r = CliRunner().invoke(main, ["analyze", str(p), "--out", str(tmp_path / "o")])
    assert r.exit_code == 2 and "A4|t|B1|1" in r.output
    r = CliRunner().invoke(main, ["analyze", str(p), "--out", str(tmp_path / "o"), "--on-conflict", "last",
                                  "--no-figures", "--B", "20"])
    assert r.exit_code == 0, r.output
    s = json.loads((tmp_path / "o" / "summary.json").read_text())
    assert s["records"]["on_conflict"] == "last" and len(s["records"]["conflicts_resolved"]) == 1
    assert "conflicting key(s) resolved" in (tmp_path / "o" / "report.md").read_text()


def test_tidy_csv_reanalysis_gives_same_numbers(small_records, tmp_path):
    s1 = analyze(small_records, tmp_path / "a", B=100, seed=4, figures=False)
    s2 = analyze(tmp_path / "a" / "analysis.tidy.csv", tmp_path / "b", B=100, seed=4, figures=False)
    assert s1["arms"] == s2["arms"] and s1["contrasts"] == s2["contrasts"]
    assert s1["per_scenario"] == s2["per_scenario"]


def test_interval_level_follows_alpha_and_is_labelled(small_records, tmp_path):
    """Review regression: the bootstrap interval is computed at 1 - alpha (protocol alpha), so its
    label must say so; it used to be hard-coded 'percentile 95%' even for an 80% interval."""
    s = analyze(small_records, tmp_path / "d", B=200, seed=3, figures=False)
    # 6 matched cells per task: too few for the stratified interval to head (stratified_headline_refusal)
    assert s["contrasts"][0]["method"]["interval"] == "tango 95%"
    assert s["contrasts"][0]["method"]["level"] == pytest.approx(0.95)
    proto = tmp_path / "p.toml"
    proto.write_text("[analysis]\nalpha = 0.2\n")
    s = analyze(small_records, tmp_path / "o", protocol=proto, B=200, seed=3, figures=False,
                interval="studentized-symmetric")
    for c in s["contrasts"]:
        assert c["method"]["interval"] == "studentized-symmetric 80%"
        assert c["method"]["level"] == pytest.approx(0.8)
        assert c["estimands"]["conditional"]["level"] == pytest.approx(0.8)
    report = (tmp_path / "o" / "report.md").read_text()
    h1 = next(line for line in report.splitlines() if line.startswith("| H1 "))
    assert "studentized-symmetric 80%" in h1 and "95%" not in h1.split("|")[-2]


def test_negative_seed_is_an_input_error(small_records, tmp_path):
    r = CliRunner().invoke(main, ["analyze", str(small_records), "--out", str(tmp_path / "o"), "--seed", "-1"])
    assert r.exit_code == 2 and "seed" in r.output.lower()
    proto = tmp_path / "p.toml"
    proto.write_text("[analysis]\nseed = -5\n")
    r = CliRunner().invoke(main, ["analyze", str(small_records), "--out", str(tmp_path / "o2"),
                                  "--protocol", str(proto)])
    assert r.exit_code == 2 and "seed" in r.output and "Traceback" not in r.output


def test_an_all_void_arm_is_listed_with_na_rates(tmp_path):
    """Issue 13: an arm whose cells are all void disappeared from the per-arm table."""
    recs = []
    for r in (1, 2):
        recs += [rec("A4", "t", "null", r, "completed"), rec("A2p", "t", "null", r, "completed"),
                 rec("A4", "t", "B1", r, "recovered"), rec("A2p", "t", "B1", r, "amplified"),
                 rec("A3", "t", "null", r, "void", void_reason="provider down"),
                 rec("A3", "t", "B1", r, "void", void_reason="provider down")]
    p = write_jsonl(tmp_path / "v.jsonl", recs)
    s = analyze(p, tmp_path / "o", B=20, figures=False)
    a3 = s["arms"]["A3"]
    assert a3["all_void"] and a3["void"] == 4 and a3["cells_scored"] == 0
    assert a3["completion"] == {"k": 0, "n": 0, "rate": None, "lo": None, "hi": None}
    # the other arms keep their common cell set (the void arm does not empty it)
    assert s["arms"]["A4"]["completion"]["n"] == 2 and s["arms"]["A2p"]["amplified"]["k"] == 2
    md = (tmp_path / "o" / "report.md").read_text()
    row = next(line for line in md.splitlines() if line.startswith("| A3 |"))
    assert "n/a (0/0)" in row and "Every cell of A3 is void" in md
