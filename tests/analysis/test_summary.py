"""The analysis summary's typed views (analysis.summary): each part of a computed summary read by attribute, the
same values the JSON holds, the object kept for the formatters that read all of it."""
import json

import pytest

from analysis import summary
from analysis.compare import USAGE_FIELDS
from analysis.pipeline import analyze


@pytest.fixture
def computed(small_records, tmp_path):
    return analyze(small_records, tmp_path / "o", B=50, seed=3, figures=False)


def test_contrasts_read_the_summarys_values(computed):
    cs = summary.contrasts(computed)
    assert [c.id for c in cs] == [c["id"] for c in computed["contrasts"]]
    c, raw = cs[0], computed["contrasts"][0]
    assert (c.a, c.b, c.endpoint, c.cells, c.n_matched) == (raw["a"], raw["b"], raw["endpoint"], raw["cells"],
                                                           raw["n_matched"])
    assert (c.estimate, c.lo, c.hi, c.rate_a, c.method) == (raw["estimate"], raw["lo"], raw["hi"], raw["rate_a"],
                                                            raw["method"])
    assert c.raw is raw  # the formatters read the object itself


def test_per_scenario_rows_and_their_sides(computed):
    rows = summary.per_scenario(computed)
    assert [r.scenario for r in rows] == ["B1", "B2"]
    r, raw = rows[0], computed["per_scenario"][0]
    assert r.side("a") == (raw["rate_a"], raw["lo_a"], raw["hi_a"]) and r.side("b") == (raw["rate_b"], raw["lo_b"],
                                                                                            raw["hi_b"])
    assert r.prop("b") == {"k": raw["k_b"], "n": raw["n_b"], "rate": raw["rate_b"], "lo": raw["lo_b"],
                           "hi": raw["hi_b"]}
    assert (r.p, r.q, r.rejected) == (raw["p"], raw["q"], raw["rejected"])


def test_concentration_scopes(computed):
    raw = computed["task_concentration"]
    tc = summary.Concentration.from_json(raw)
    assert (tc.top_task, tc.a, tc.b, tc.endpoint) == (raw["top_task"], raw["a"], raw["b"], raw["endpoint"])
    assert tc.scopes["all"] == {"a": [0, 12], "b": [2, 12]} and set(tc.scopes) == {"all", "top", "excluding"}


def test_a_token_side_reads_an_older_compare_json():
    """A side written before io_mean_shown (or cost_overflow) reads None and False for them."""
    side = {"rows": 2, "io_rows": 1, "io": 10, "io_mean": 10.0, "cached_share": {"shown": "x", "rows": 0},
            "cost_usd": None, "priced_rows": 0, "model": "m",
            **{f.value: {"sum": None, "rows_reporting": 0, "shown": "not exposed"} for f in USAGE_FIELDS}}
    t = summary.TokenSide.from_json(json.loads(json.dumps(side)), USAGE_FIELDS)
    assert (t.io_mean_shown, t.cost_overflow, t.io, t.model) == (None, False, 10, "m")
    assert [t.usage[f]["shown"] for f in USAGE_FIELDS] == ["not exposed"] * len(USAGE_FIELDS)


def test_a_monitor_report_reads_its_sequences():
    s = {"id": "H1", "a": "A4", "b": "A2p", "endpoint": "not_amplified", "cells": "injected", "planned_units": 0,
         "units_in_sequence": 0, "void_units_skipped": 0, "waiting_beyond_prefix": 0, "method": {}}
    rep = summary.MonitorReport.from_json({"run": "r", "protocol": "p", "records": 0, "cells_planned": 4,
                                           "finished": False, "sequences": [s], "stopping_rule": None, "estimand": "e"})
    assert (rep.protocol, rep.cells_planned, rep.stopping_rule) == ("p", 4, None)
    seq = rep.sequences[0]
    assert (seq.endpoint, seq.planned_units, seq.waiting_on) == ("not_amplified", 0, None) and seq.raw is s


@pytest.mark.parametrize("part, key", [("contrast", "n_matched"), ("row", "a"), ("row", "b"),
                                       ("concentration", "top_task")])
def test_a_part_without_a_key_every_producer_writes_raises_naming_it(computed, part, key):
    """A damaged summary.json is not printed as a default ('over None matched', a row of arm '', a top task
    None): the view raises KeyError naming the key, as the dict reads before it did."""
    raw = {"contrast": computed["contrasts"][0], "row": computed["per_scenario"][0],
           "concentration": computed["task_concentration"]}[part]
    view = {"contrast": summary.Contrast, "row": summary.ScenarioRow, "concentration": summary.Concentration}[part]
    with pytest.raises(KeyError, match=key):
        view.from_json({k: v for k, v in raw.items() if k != key})


def test_the_glmm_reads_a_contrasts_pair_alone():
    """The GLMM's specifications are given the hypotheses' pairs (no n_matched, no interval): ContrastPair."""
    pair = summary.ContrastPair.from_json({"id": "H1", "a": "A4", "b": "A2p", "endpoint": "not_amplified",
                                           "cells": "injected"})
    assert (pair.id, pair.a, pair.b, pair.endpoint, pair.cells) == ("H1", "A4", "A2p", "not_amplified", "injected")
