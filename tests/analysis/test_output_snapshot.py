"""Every printed output of `harness analyze` and `harness compare` on the paper's records and the quickstart's is
identical to the snapshot taken before the columnar rewrite of the loader and the comparison (issue 37): stdout,
report.md, summary.json, per-scenario.csv, the tidy data (by digest), compare.md and compare.json. The sections
compare gained afterwards (the adjudicated divergence) are removed before comparing (support.analysis_outputs)."""
from __future__ import annotations

import json
import math

import pytest

from support.analysis_outputs import SNAPSHOT, outputs, strip_new


@pytest.fixture(scope="module")
def now(tmp_path_factory):
    return outputs(tmp_path_factory.mktemp("outputs"))


def test_the_snapshot_covers_every_output(now):
    assert sorted(p.name for p in SNAPSHOT.iterdir()) == sorted(now)


def _same(got, want, where="$"):
    """JSON documents equal, a float within 1e-12 relative (its last digits come from the linear algebra
    library's order of operations: CR2's interval moved in the 16th digit with a newer numpy)."""
    if isinstance(want, float) and isinstance(got, float):
        assert math.isclose(got, want, rel_tol=1e-12, abs_tol=1e-15), (where, got, want)
    elif isinstance(want, dict) and isinstance(got, dict):
        assert list(got) == list(want), (where, sorted(set(got) ^ set(want)))
        for k in want:
            _same(got[k], want[k], f"{where}.{k}")
    elif isinstance(want, list) and isinstance(got, list):
        assert len(got) == len(want), (where, len(got), len(want))
        for i, (g, w) in enumerate(zip(got, want)):
            _same(g, w, f"{where}[{i}]")
    else:
        assert got == want and type(got) is type(want), (where, got, want)


@pytest.mark.parametrize("name", sorted(p.name for p in SNAPSHOT.iterdir()))
def test_output_is_identical_to_the_snapshot(now, name):
    want = (SNAPSHOT / name).read_text()
    got = strip_new(name, now[name])
    if name.endswith(".json"):
        _same(json.loads(got), json.loads(want))
    else:
        assert got == want


def test_a_float_off_past_the_twelfth_digit_is_the_same_and_one_off_before_it_is_not():
    _same({"lo": 0.003023430860502242}, {"lo": 0.003023430860502245})
    with pytest.raises(AssertionError):
        _same({"lo": 0.0030234308605}, {"lo": 0.0030234308606})
    with pytest.raises(AssertionError):
        _same({"n": 12}, {"n": 12.0})
