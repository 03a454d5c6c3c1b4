"""Every printed output of `harness analyze` and `harness compare` on the paper's records and the quickstart's is
identical to the snapshot taken before the columnar rewrite of the loader and the comparison (issue 37): stdout,
report.md, summary.json, per-scenario.csv, the tidy data (by digest), compare.md and compare.json. The sections
compare gained afterwards (the adjudicated divergence) are removed before comparing (support.analysis_outputs)."""
from __future__ import annotations

import pytest

from support.analysis_outputs import SNAPSHOT, outputs, strip_new


@pytest.fixture(scope="module")
def now(tmp_path_factory):
    return outputs(tmp_path_factory.mktemp("outputs"))


def test_the_snapshot_covers_every_output(now):
    assert sorted(p.name for p in SNAPSHOT.iterdir()) == sorted(now)


@pytest.mark.parametrize("name", sorted(p.name for p in SNAPSHOT.iterdir()))
def test_output_is_identical_to_the_snapshot(now, name):
    want = (SNAPSHOT / name).read_text()
    assert strip_new(name, now[name]) == want
