"""Review of harness compare (issue 23): independent checks of its statistics and the defects found
by attacking its inputs (each test failed before its fix).

Formerly ``tests/analysis/test_compare_review.py``, named after its origin."""
from __future__ import annotations

import json
import math
from fractions import Fraction
from pathlib import Path

import pytest
from click.testing import CliRunner
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.stats import binomtest, norm
from statsmodels.stats.contingency_tables import mcnemar
from statsmodels.stats.proportion import proportion_confint

from analysis.compare import Options, compare
from analysis.paired import PairedTable, mcnemar_exact, newcombe_paired
from analysis.paired_paper import _row
from harness.cli.cli import main
from support.compare_rows import rows as _rows


def _write(path: Path, rows: list[dict]) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    return path


def _invoke(a, b, tmp_path):
    return CliRunner().invoke(main, ["compare", str(a), str(b), "--out", str(tmp_path / "o"), "--no-figures"])


# -- the statistics against independent implementations ------------------------------------------
def _newcombe_reference(e, f, g, h, alpha=0.05):
    """Newcombe 1998 method 10 written from the paper (and Fagerland, Lydersen & Laake 2017 §8.5.4),
    with statsmodels' Wilson interval for each margin: p1 = (e+f)/n, p2 = (e+g)/n."""
    n = e + f + g + h
    p1, p2 = (e + f) / n, (e + g) / n
    l1, u1 = proportion_confint(e + f, n, alpha, method="wilson")
    l2, u2 = proportion_confint(e + g, n, alpha, method="wilson")
    margins = [e + f, g + h, e + g, f + h]
    if 0 in margins:
        phi = 0.0
    else:
        a = e * h - f * g
        phi = (a - n / 2 if a > n / 2 else 0.0 if a >= 0 else a) / math.sqrt(math.prod(margins))
    d = p1 - p2
    lo = d - math.sqrt((p1 - l1) ** 2 + (u2 - p2) ** 2 - 2 * phi * (p1 - l1) * (u2 - p2))
    hi = d + math.sqrt((p2 - l2) ** 2 + (u1 - p1) ** 2 - 2 * phi * (p2 - l2) * (u1 - p1))
    return d, lo, hi


tables = st.tuples(*[st.integers(0, 40)] * 4).filter(lambda t: sum(t) > 0)


@settings(max_examples=300, deadline=None)
@given(tables)
def test_newcombe_matches_an_independent_implementation_and_stays_in_range(t):
    got = newcombe_paired(PairedTable(*t))
    d, lo, hi = _newcombe_reference(*t)
    assert got.estimate == pytest.approx(d, abs=1e-12)
    assert (got.lo, got.hi) == pytest.approx((max(-1.0, lo), min(1.0, hi)), abs=1e-9)
    assert -1.0 <= got.lo <= got.estimate <= got.hi <= 1.0


@settings(max_examples=300, deadline=None)
@given(tables)
def test_mcnemar_exact_matches_statsmodels_and_scipy(t):
    e, f, g, h = t
    got = mcnemar_exact(PairedTable(e, f, g, h))
    if f + g == 0:
        assert got is None
        return
    assert got == pytest.approx(mcnemar([[e, f], [g, h]], exact=True).pvalue, rel=1e-10)
    assert got == pytest.approx(binomtest(f, f + g, 0.5).pvalue, rel=1e-10)  # symmetric: the same p


def test_hand_worked_edge_tables():
    # all discordant one way, n = 5: p = 2 * 0.5^5; the difference is -1 (first never yes) at its bound
    assert mcnemar_exact(PairedTable(0, 0, 5, 0)) == pytest.approx(2 / 32)
    one = newcombe_paired(PairedTable(0, 1, 0, 0))  # n = 1, one discordant pair
    z = norm.ppf(0.975)
    assert one.estimate == 1.0 and one.hi == 1.0
    assert one.lo == pytest.approx(1 - math.sqrt((1 - 1 / (1 + z * z)) ** 2 + (z * z / (1 + z * z)) ** 2))
    assert mcnemar_exact(PairedTable(0, 1, 0, 0)) == 1.0


# -- full-precision rates sum to exactly 100% (Table 26's caption) --------------------------------
def _pct(s: str) -> Fraction:
    return Fraction(s.rstrip("%"))


def test_full_precision_rates_of_a_partition_sum_to_exactly_100(tmp_path):
    """Three pairs of 1/3 each: correctly rounded 33.333333% three times sums to 99.999999%, not the
    100% Table 26 promises; the printed full-precision column must add up (largest remainder)."""
    a = _write(tmp_path / "a.jsonl", _rows("A2", "A2", ["completed", "completed", "acceptance_fail"]))
    b = _write(tmp_path / "b.jsonl", _rows("A4", "A4", ["completed", "safe_stop", "completed"]))
    r = compare(a, b, Options())
    for table in ("completion_vs_delivery", "delivery", "subclasses"):
        assert sum(_pct(c["full"]) for c in r[table]) == 100, (table, [c["full"] for c in r[table]])
        for c in r[table]:  # each within one unit of the 6th decimal of its exact rate
            assert abs(_pct(c["full"]) - Fraction(100 * c["count"], c["of"])) <= Fraction(1, 10**6)


@settings(max_examples=60, deadline=None)
@given(st.lists(st.integers(0, 5000), min_size=2, max_size=9).filter(lambda c: sum(c) > 0))
def test_largest_remainder_sums_exactly_for_awkward_counts(counts):
    from analysis.compare import partition_rates

    rates = partition_rates(counts)
    assert sum(_pct(x["full"]) for x in rates) == 100
    for k, x in zip(counts, rates):
        assert abs(_pct(x["full"]) - Fraction(100 * k, sum(counts))) < Fraction(1, 10**6)
        assert x["count"] == k and x["of"] == sum(counts)


# -- hostile inputs --------------------------------------------------------------------------------
@pytest.mark.parametrize("name,value", [("cache_read_tokens", 10**400), ("cache_write_tokens", 2**70),
                                        ("reasoning_tokens", 2**63)])
def test_token_subfield_beyond_int64_is_a_one_line_error(tmp_path, name, value):
    """A sub-field past int64 (the reader's bound for tokens_in) crashed the mean with OverflowError
    (10**400) or was summed into the table (2**70)."""
    rows = _rows("A2", "A2", ["completed"] * 7)
    rows[2][name] = value
    res = _invoke(_write(tmp_path / "a.jsonl", rows), _write(tmp_path / "b.jsonl", _rows("A4", "A4", ["completed"] * 7)),
                  tmp_path)
    assert res.exit_code == 2, res.output
    assert f"a.jsonl:3: field '{name}'" in res.output and "Traceback" not in res.output


def test_record_without_schema_version_is_v1_and_may_not_hold_null_subfields(tmp_path):
    """An absent schema_version is v1 (the versions row says so); a null sub-field needs v2."""
    rows = _rows("A2", "A2", ["completed"] * 7)
    for r in rows:
        r.pop("schema_version")
        r["cache_write_tokens"] = r["reasoning_tokens"] = 0
    rows[1]["cache_read_tokens"] = None
    res = _invoke(_write(tmp_path / "a.jsonl", rows), _write(tmp_path / "b.jsonl", _rows("A4", "A4", ["completed"] * 7)),
                  tmp_path)
    assert res.exit_code == 2, res.output
    assert "a.jsonl:2: field 'cache_read_tokens'" in res.output and "schema" in res.output


def test_a_record_with_a_key_written_twice_is_an_error_not_the_last_value(tmp_path):
    """{"outcome": "completed", ..., "outcome": "void"}: json keeps the last value, so every terminal
    cell silently became pending; a reader may not pick one of two values."""
    rows = _rows("A2", "A2", ["completed"] * 7)
    a = tmp_path / "a.jsonl"
    a.write_text("".join(json.dumps(r)[:-1] + (', "outcome": "void"}' if i == 3 else "}") + "\n"
                         for i, r in enumerate(rows)))
    res = _invoke(a, _write(tmp_path / "b.jsonl", _rows("A4", "A4", ["completed"] * 7)), tmp_path)
    assert res.exit_code == 2, res.output
    assert "a.jsonl:4: field 'outcome'" in res.output and "twice" in res.output


def _fake_run(d: Path, meta: dict, rows: list[dict]) -> Path:
    d.mkdir()
    (d / "run.json").write_text(json.dumps(meta))
    _write(d / "records.jsonl", rows)
    return d


@pytest.mark.parametrize("meta,field", [({"protocol_path": 5}, "protocol_path"),
                                        ({"protocol_digest": ["x"]}, "protocol_digest"),
                                        ({"protocol_path": ["a"], "protocol_digest": 3}, "protocol_path")])
def test_run_json_fields_of_the_wrong_type_are_a_one_line_error(tmp_path, meta, field):
    """protocol_path 5 was a TypeError traceback; protocol_digest ["x"] made every row 'contamination'."""
    run = _fake_run(tmp_path / "run", meta, _rows("A2", "A2", ["completed"] * 7))
    res = _invoke(run, _write(tmp_path / "b.jsonl", _rows("A4", "A4", ["completed"] * 7)), tmp_path)
    assert res.exit_code == 2, res.output
    assert f"run.json: field '{field}'" in res.output and "Traceback" not in res.output


TINY = """[protocol]
name = "tiny"
seed = 7
repeats = {repeats}
tasks_dir = "{tasks}"
tasks = ["parse-range", "median"]
scenarios = ["null", "B2"]
engine = "simulated"

[arms.A2]
controller = "A2"
retries = 3

[limits]
test_timeout_s = 60
memory_mb = 2048
max_turns = 12
max_tokens = 4096
"""


def test_a_protocol_edited_after_the_run_does_not_plan_its_cells(tmp_path):
    """The plan (Table 24's planned and pending cells) came from the protocol file as it is now: a
    protocol edited after the run (here, 2 repeats raised to 5) reported 12 pending cells that the
    run never planned. run.json's digest binds the plan to the run."""
    from harness.core.protocol import compute_lock, load_protocol

    repo = Path(__file__).resolve().parents[2]
    proto = tmp_path / "tiny.toml"
    proto.write_text(TINY.format(repeats=2, tasks=repo / "tasks"))
    digest = compute_lock(load_protocol(proto))["digest"]
    cells = [(t, s, r) for t in ("parse-range", "median") for s in ("null", "B2") for r in (1, 2)]
    rows = [_row("A2", "A2", c, "completed", {"tokens_in": 1, "tokens_out": 1}, 0, digest) for c in cells]
    run = _fake_run(tmp_path / "run", {"protocol_path": str(proto), "protocol_digest": digest}, rows)
    b = _write(tmp_path / "b.jsonl", [_row("A4", "A4", c, "completed", {"tokens_in": 1, "tokens_out": 1}, 1, "q")
                                      for c in cells])
    before = compare(run, b, Options())["completeness"]["a"]
    assert (before["planned"], before["pending"]) == (8, 0) and "protocol's plan" in before["planned_from"]
    proto.write_text(TINY.format(repeats=5, tasks=repo / "tasks"))
    after = compare(run, b, Options())["completeness"]["a"]
    assert (after["planned"], after["pending"]) == (8, 0)
    assert "changed since the run" in after["planned_from"]


# -- token readout ---------------------------------------------------------------------------------
def test_ratio_na_says_which_side_does_not_report(tmp_path):
    """B reports no usage: the ratio was 'n/a (A reports no input+output tokens)', naming the wrong side."""
    a = _write(tmp_path / "a.jsonl", _rows("A2", "A2", ["completed"] * 7))
    b = _write(tmp_path / "b.jsonl", _rows("A4", "A4", ["completed"] * 7, tokens_in=None, tokens_out=None))
    t = compare(a, b, Options())["tokens"]
    assert t["ratio"] is None and t["increment"] is None
    assert "A reports" not in t["ratio_shown"] and "B" in t["ratio_shown"]
    zero = _write(tmp_path / "z.jsonl", _rows("A2", "A2", ["completed"] * 7, tokens_in=0, tokens_out=0,
                                              cache_read_tokens=0))
    tz = compare(zero, a, Options())["tokens"]
    assert tz["ratio"] is None and tz["ratio_shown"].startswith("n/a") and "0" in tz["ratio_shown"]
    assert tz["increment"] == 7 * 160


def test_mathtext_in_a_label_or_arm_does_not_crash_the_figure(tmp_path):
    """A run label or arm name holding '$\\frac$' (matplotlib mathtext) was a ParseSyntaxException
    traceback after compare.md/json were written; text is drawn as written."""
    rows = _rows("A$\\frac$2", "A2", ["completed"] * 7)
    for r in rows:
        r.pop("cell_key", None)
    a = _write(tmp_path / "a.jsonl", rows)
    b = _write(tmp_path / "b.jsonl", _rows("A4", "A4", ["completed"] * 7))
    res = CliRunner().invoke(main, ["compare", str(a), str(b), "--out", str(tmp_path / "o"), "--label-b", "$\\sqrt$"])
    assert res.exit_code == 0, res.output
    assert (tmp_path / "o" / "compare.png").stat().st_size > 0 and "A$\\frac$2" in (tmp_path / "o" / "compare.md").read_text()


def test_discordant_pairs_are_named_by_the_runs_labels(tmp_path):
    """'(B yes, A no)' beside runs labelled A4 and A2 reads as arms B and A; the labels are used."""
    from analysis.compare_render import render_md

    a = _write(tmp_path / "a.jsonl", _rows("A2", "A2", ["completed"] * 7))
    b = _write(tmp_path / "b.jsonl", _rows("A4", "A4", ["safe_stop"] + ["completed"] * 6))
    md = render_md(compare(a, b, Options(label_a="control", label_b="gated")))
    assert "0 (gated yes, control no) and 1 (control yes, gated no) of 7" in md and "(B yes, A no)" not in md


def test_a_torn_last_line_of_a_run_is_accounted_for(tmp_path):
    """A run directory's ledger may end in a line being written: it is not read (the reader skips
    it), but it was also not counted anywhere, so a crashed run's last row vanished in silence."""
    rows = _rows("A2", "A2", ["completed"] * 7)
    run = _fake_run(tmp_path / "run", {}, rows[:6])
    with (run / "records.jsonl").open("a") as fh:
        fh.write(json.dumps(rows[6])[:40])
    r = compare(run, _write(tmp_path / "b.jsonl", _rows("A4", "A4", ["completed"] * 7)), Options())
    c = r["completeness"]["a"]
    assert c["torn_last_line"] == 1 and c["pending"] == 1
    from analysis.compare_render import render_md
    assert "| Torn last line (being written; not read) | 1 | 0 |" in render_md(r)


def test_harness_view_on_a_compare_folder_draws_its_page(tmp_path):
    """`harness view DIR` on a `harness compare --out DIR` (here written with --no-figures) writes the
    page and figure from compare.json; a damaged compare.json is one line with exit 2."""
    a = _write(tmp_path / "a.jsonl", _rows("A2", "A2", ["completed"] * 7))
    b = _write(tmp_path / "b.jsonl", _rows("A4", "A4", ["safe_stop"] + ["completed"] * 6))
    assert _invoke(a, b, tmp_path).exit_code == 0
    out = tmp_path / "o"
    assert not (out / "compare.html").exists()
    res = CliRunner().invoke(main, ["view", str(out)])
    assert res.exit_code == 0, res.output
    page = (out / "compare.html").read_text()
    assert "Table 24" in page and "Content-Security-Policy" in page and (out / "compare.png").stat().st_size > 0
    moved = CliRunner().invoke(main, ["view", str(out), "--out", str(tmp_path / "elsewhere")])
    assert moved.exit_code == 2 and "drop --out" in moved.output and not (tmp_path / "elsewhere").exists()
    (out / "compare.json").write_text('{"labels": 3}')
    bad = CliRunner().invoke(main, ["view", str(out)])
    assert bad.exit_code == 2 and "compare.json" in bad.output and "Traceback" not in bad.output


def test_subclasses_reconcile_with_table_26_when_an_outcome_ships_either_way(tmp_path):
    """Eq. 7 leaves 'unsafe' free to ship or not: a subclass keyed by outcomes alone took the first
    row's delivery for all of its rows, so Table 27 no longer summed to Table 26's cells."""
    a = _write(tmp_path / "a.jsonl", _rows("A2", "A2", ["completed"] * 7))
    rows_b = _rows("A4", "A4", ["safe_stop"] * 4 + ["completed"] * 3)
    for i, r in enumerate(rows_b[:4]):
        r.update(outcome="unsafe", shipped=i < 1, visible_pass=True, hidden_pass=False)
    r = compare(a, _write(tmp_path / "b.jsonl", rows_b), Options())
    by_cell: dict = {}
    for s in r["subclasses"]:
        by_cell[tuple(s["table26"])] = by_cell.get(tuple(s["table26"]), 0) + s["count"]
    assert by_cell == {(c["a"], c["b"]): c["count"] for c in r["completion_vs_delivery"] if c["count"]}
    assert {s["pair"] for s in r["subclasses"]} == {"B unsafe (shipped) + A completed",
                                                    "B unsafe (not shipped) + A completed", "B completed + A completed"}


def test_mcnemar_p_below_double_precision_is_not_printed_as_zero(tmp_path):
    """1,100 discordant pairs all one way: p = 2 * 0.5^1100 (about 7.4e-332) underflowed to 0.0 and
    was printed 'p = 0'; a p-value of 0 is false. log10 p is exact from the binomial sum."""
    from analysis.paired import mcnemar_log10

    assert mcnemar_log10(PairedTable(0, 0, 1100, 0)) == pytest.approx(math.log10(2) - 1100 * math.log10(2), abs=1e-9)
    k, n = 3, 1103  # hand: P(X <= 3) = (1 + n + C(n,2) + C(n,3)) / 2^n
    hand = math.log10(2 * sum(math.comb(n, i) for i in range(k + 1))) - n * math.log10(2)
    assert mcnemar_log10(PairedTable(0, 3, 1100, 0)) == pytest.approx(hand, abs=1e-9)
    assert mcnemar_log10(PairedTable(5, 3, 4, 1)) == pytest.approx(math.log10(mcnemar_exact(PairedTable(5, 3, 4, 1))))
    from analysis.compare_render import _p_value

    assert _p_value({"p": 0.0, "p_log10": -331.13}) == "p = 7.4e-332 (below double precision; log10 p = -331.13)"
    assert _p_value({"p": 0.25, "p_log10": math.log10(0.25)}) == "p = 0.25"


def test_no_matched_cell_says_why_the_key_may_not_match(tmp_path):
    """Two runs that differ by a factor (model=x vs model=y) matched nothing under the default key,
    and every test printed n/a without saying that --key without factors joins them."""
    from analysis.compare_render import render_md

    def rows(arm, ctrl, m):
        out = _rows(arm, ctrl, ["completed"] * 7)
        for r in out:
            r["factors"] = {"model": m}
            r.pop("cell_key", None)
        return out
    a, b = _write(tmp_path / "a.jsonl", rows("A2", "A2", "x")), _write(tmp_path / "b.jsonl", rows("A4", "A4", "y"))
    md = render_md(compare(a, b, Options()))
    assert "No cell is terminal on both sides" in md and "factor model" in md and "--key" in md
    assert compare(a, b, Options(key=("task", "scenario", "repeat")))["completeness"]["matched"] == 7
