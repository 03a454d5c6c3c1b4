import pandas as pd

from analysis.records import load_records
from analysis.tables import (
    PAPER_HYPOTHESES,
    Hypothesis,
    contrast,
    matched_pair,
    per_arm_table,
    per_scenario,
    task_concentration,
)
from tests.analysis.conftest import rec, write_jsonl


def test_contrast_uses_only_cells_both_arms_have(tmp_path):
    """A4 covers repeats 1-4, A2p repeats 3-6: every estimate must use repeats 3-4 only."""
    recs = []
    for r in range(1, 5):
        recs.append(rec("A4", "t", "B1", r, "recovered"))
    for r in range(3, 7):
        # A2p amplifies on the cells A4 does not have: an unmatched estimate would see them
        recs.append(rec("A2p", "t", "B1", r, "amplified" if r >= 5 else "recovered"))
    lr = load_records(write_jsonl(tmp_path / "m.jsonl", recs))
    h = Hypothesis("H1", "A4", "A2p", "not_amplified", "injected", "cell")
    c = contrast(lr.tidy, h, B=200, seed=1)
    assert c["n_matched"] == 2
    assert c["rate_a"]["k"] == 2 and c["rate_b"]["k"] == 2 and c["rate_b"]["n"] == 2
    assert c["estimate"] == 0.0  # unmatched: 4/4 - 2/4 = +0.5
    m = matched_pair(lr.tidy, "A4", "A2p", "injected")
    assert m["match_key"].tolist() == ["t|B1|3", "t|B1|4"]
    arms, gaps, n_common = per_arm_table(lr.tidy, lr.void, lr.void_keys)
    assert n_common == 2
    assert arms["A2p"]["amplified"] == {"k": 0, "n": 2, "rate": 0.0, "lo": 0.0, "hi": arms["A2p"]["amplified"]["hi"]}
    assert arms["A4"]["cells_scored"] == 4 and arms["A4"]["unmatched_excluded"] == 2
    ps = per_scenario(lr.tidy, "A4", "A2p")
    assert (ps[0]["n_a"], ps[0]["n_b"]) == (2, 2)


def test_void_cell_removes_key_for_every_arm(tmp_path):
    recs = [rec("A4", "t", "B1", 1, "recovered"), rec("A2p", "t", "B1", 1, "amplified"),
            rec("A4", "t", "B1", 2, "recovered"), rec("A2p", "t", "B1", 2, "void")]
    lr = load_records(write_jsonl(tmp_path / "v.jsonl", recs))
    arms, _, n_common = per_arm_table(lr.tidy, lr.void, lr.void_keys)
    assert n_common == 1
    assert arms["A4"]["not_amplified"]["n"] == 1 and arms["A2p"]["not_amplified"]["n"] == 1
    assert arms["A2p"]["void"] == 1 and arms["A4"]["void"] == 0


def test_factors_must_match(tmp_path):
    recs = [rec("A4", "t", "B1", 1, "recovered", factors={"model": "m1"}),
            rec("A2p", "t", "B1", 1, "amplified", factors={"model": "m2"}),
            rec("A4", "t", "B1", 2, "recovered", factors={"model": "m1"}),
            rec("A2p", "t", "B1", 2, "amplified", factors={"model": "m1"})]
    lr = load_records(write_jsonl(tmp_path / "f.jsonl", recs))
    m = matched_pair(lr.tidy, "A4", "A2p", "injected")
    assert m["match_key"].tolist() == ["t|B1|2|model=m1"]


def test_arm_not_applicable_to_a_scenario_is_listed_not_padded(tmp_path):
    recs = [rec("A1", "t", "null", 1, "completed"), rec("A4", "t", "null", 1, "completed"),
            rec("A4", "t", "B3", 1, "recovered")]
    lr = load_records(write_jsonl(tmp_path / "a.jsonl", recs))
    arms, gaps, _ = per_arm_table(lr.tidy, lr.void, lr.void_keys)
    assert arms["A4"]["not_amplified"]["n"] == 1
    assert arms["A1"]["not_amplified"]["n"] == 0 and arms["A1"]["not_amplified"]["rate"] is None
    assert gaps == [{"stratum": {"scenario": "B3"}, "arms_without_records": ["A1"]}]


def test_task_concentration(small_records):
    lr = load_records(small_records)
    tc = task_concentration(lr.tidy, PAPER_HYPOTHESES[0])
    assert tc["top_task"] == "t1"
    assert tc["all"] == {"a": [0, 12], "b": [2, 12]}
    assert tc["top"] == {"a": [0, 6], "b": [2, 6]} and tc["excluding"] == {"a": [0, 6], "b": [0, 6]}


def test_endpoints_use_their_cell_sets(small_records):
    lr = load_records(small_records)
    arms, _, _ = per_arm_table(lr.tidy, lr.void, lr.void_keys)
    a = arms["A2p"]
    assert a["completion"]["k"] == 5 and a["completion"]["n"] == 6  # null cells only
    assert a["amplified"]["k"] == 2 and a["amplified"]["n"] == 12  # injected cells only
    assert a["not_amplified"]["k"] == 10
    assert arms["A3"]["safe_stop"]["k"] == 1 and arms["A3"]["safe_stop"]["n"] == 18
    assert arms["A3"]["not_amplified"]["k"] == 12  # recovered + safe_stop
    assert a["mean_tokens"] == 110 and abs(a["mean_cost_usd"] - 0.01) < 1e-12
    assert isinstance(pd.DataFrame(per_scenario(lr.tidy, "A4", "A2p")), pd.DataFrame)
