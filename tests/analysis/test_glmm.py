"""The GLMM sensitivity fit (MAP + Laplace) recovers a known arm effect and says which fit it used."""
import numpy as np
import pytest
import statsmodels.api as sm

from analysis.glmm import fit_glmm
from analysis.records import load_records
from tests.analysis.conftest import rec, write_jsonl

CONTRASTS = [{"id": "H1", "a": "A4", "b": "A2p", "endpoint": "not_amplified", "cells": "injected"},
             {"id": "H2", "a": "A4", "b": "A2p", "endpoint": "completion", "cells": "null"}]


def _records(tmp_path, beta=1.0, seed=0, tasks=24, scen=4, k=3, task_sd=1.0):
    """Injected cells with a task random effect and a known arm log-odds beta; a few null cells."""
    rng = np.random.default_rng(seed)
    recs = []
    for t in range(tasks):
        u = rng.normal(0, task_sd)
        for s in range(1, scen + 1):
            for r in range(1, k + 1):
                for arm, shift in (("A4", beta), ("A2p", 0.0)):
                    ok = rng.random() < 1 / (1 + np.exp(-(0.3 + shift + u)))
                    recs.append(rec(arm, f"t{t}", f"B{s}", r, "recovered" if ok else "amplified"))
        for arm in ("A4", "A2p"):
            recs.append(rec(arm, f"t{t}", "null", 1, "completed" if rng.random() < 0.8 else "false_stop"))
    return load_records(write_jsonl(tmp_path / "g.jsonl", recs)).tidy


def test_recovers_a_known_arm_effect_and_agrees_with_statsmodels_glm(tmp_path):
    tidy = _records(tmp_path, beta=1.0)
    h1 = fit_glmm(tidy, CONTRASTS)[0]
    assert h1["converged"] and h1["fit"].startswith("fit_map")
    assert abs(h1["arm_coef"] - 1.0) < 3 * h1["arm_se"] and 0.05 < h1["arm_se"] < 0.5
    assert 0.4 < h1["random_effect_sd"]["task"] < 2.0
    # beside it, an independent ML logistic regression (no random effects): same sign, attenuated
    pl = h1["plain_logistic"]
    d = tidy[(tidy["scenario"] != "null") & tidy["arm"].isin(["A4", "A2p"])]
    ref = sm.GLM(d["not_amplified"].to_numpy(float), sm.add_constant((d["arm"] == "A4").to_numpy(float)),
                 family=sm.families.Binomial()).fit()
    assert pl["arm_coef"] == pytest.approx(float(ref.params[1]), rel=1e-8)
    assert 0 < pl["arm_coef"] < h1["arm_coef"] + 2 * h1["arm_se"]


def test_no_effect_gives_a_coefficient_near_zero(tmp_path):
    h1 = fit_glmm(_records(tmp_path, beta=0.0, seed=3), CONTRASTS)[0]
    assert h1["converged"] and abs(h1["arm_coef"]) < 3 * h1["arm_se"]


def test_separation_is_named(tmp_path):
    tidy = _records(tmp_path, beta=1.0)
    h2 = fit_glmm(tidy.assign(completion=np.where(tidy["arm"] == "A4", 1, tidy["completion"])), CONTRASTS)[1]
    assert "separation" in h2["note"] and "prior" in h2["note"]


def test_paper_shaped_records_converge(tmp_path):
    """Issue 13: on paper-shaped records fit_vb did not converge (+30.1 log-odds, 'do not read')."""
    from analysis.paper import synthetic_paper_records

    synthetic_paper_records(tmp_path / "p.jsonl")
    h1 = fit_glmm(load_records(tmp_path / "p.jsonl").tidy, CONTRASTS[:1])[0]
    assert h1["converged"] and np.isfinite(h1["arm_se"])
    assert 1.0 < h1["arm_coef"] < 8.0
    assert abs(h1["arm_coef"] - h1["plain_logistic"]["arm_coef"]) < 3 * h1["arm_se"]
