"""Benchmarks: each ``bench_*.py`` module defines ``run(quick: bool) -> list[dict]``.

Every result row is a ratio against a baseline measured in the same run:
``{"name", "baseline", "baseline_s", "subject", "subject_s", "ratio", "unit", "notes"}``.
``make bench`` runs them all and writes JSON and a markdown table under results/bench/.
No timing threshold lives in a unit test; this is where speed is reported.
"""
