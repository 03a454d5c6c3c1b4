"""The corpus benchmark returns rows in the shape benchmarks/__main__.py expects (no timing thresholds)."""
from benchmarks import bench_corpus

KEYS = {"name", "baseline", "baseline_s", "subject", "subject_s", "ratio", "unit", "notes"}


def test_bench_rows_shape():
    rows = bench_corpus.run(quick=True)
    assert len(rows) == 2
    for r in rows:
        assert KEYS <= set(r) and r["ratio"] > 0 and r["baseline_s"] > 0 and r["subject_s"] > 0
