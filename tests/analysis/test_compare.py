"""harness compare (issue 23): the paired completion-vs-delivery readout, its tests and its input errors."""
from __future__ import annotations

import json
import math
import subprocess
import sys
from collections import Counter
from pathlib import Path

import pytest
from click.testing import CliRunner
from statsmodels.stats.contingency_tables import mcnemar

from analysis.compare import Options, compare, io_tokens
from analysis.paired import PairedTable, mcnemar_exact, newcombe_paired
from analysis.paired_paper import _row, reproduce_paired, synthetic_paired_records
from harness.cli.cli import main
from harness.core import record
from harness.core.wilson import wilson as wilson_ci
from support import records

REPO = Path(__file__).resolve().parents[2]


def _write(path: Path, rows: list[dict]) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    return path


def _rows(arm, controller, outcomes, digest="p", **tokens):
    cells = [("t1", "null", 1), ("t1", "B2", 1), ("t2", "null", 1), ("t2", "B2", 1)]
    tok = {"tokens_in": 100, "tokens_out": 10, "cache_read_tokens": 50, **tokens}
    return [_row(arm, controller, c, o, dict(tok), 1 if controller == "A4" else 0, digest)
            for c, o in zip(cells, outcomes)]


def _cli(*args) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "harness.cli.cli", *map(str, args)], capture_output=True, text=True,
                          cwd=REPO, timeout=600)


# -- the paired statistics ------------------------------------------------------------------------
@pytest.mark.parametrize("t", [(36, 12, 2, 0), (5, 5, 0, 0), (0, 3, 9, 1), (10, 0, 0, 0), (3, 7, 7, 3), (0, 25, 1, 4)])
def test_mcnemar_exact_matches_statsmodels(t):
    e, f, g, h = t
    ours = mcnemar_exact(PairedTable(e, f, g, h))
    if f + g == 0:
        assert ours is None
    else:
        ref = mcnemar([[e, f], [g, h]], exact=True).pvalue
        assert ours == pytest.approx(ref, rel=1e-12)


def test_newcombe_hand_worked_newcombe_1998_table_ii_a():
    """Newcombe 1998 (Stat Med 17:2635) Table II example (a): e=36, f=12, g=2, h=0, n=50, method 10
    gives 0.0569 to 0.3404 around 0.2. Hand-worked: Wilson intervals of 48/50 and 38/50, phi =
    (0 - 24)/sqrt(48 * 2 * 38 * 12) (eh < fg: no continuity correction)."""
    r = newcombe_paired(PairedTable(36, 12, 2, 0))
    assert r.estimate == pytest.approx(0.2)
    assert (round(r.lo, 4), round(r.hi, 4)) == (0.0569, 0.3404)
    z = 1.959963984540054
    w1, w2 = wilson_ci(48, 50, z=z), wilson_ci(38, 50, z=z)
    l1, u1, l2, u2 = w1.lo, w1.hi, w2.lo, w2.hi
    phi = -24 / math.sqrt(48 * 2 * 38 * 12)
    lo = 0.2 - math.sqrt((0.96 - l1) ** 2 - 2 * phi * (0.96 - l1) * (u2 - 0.76) + (u2 - 0.76) ** 2)
    hi = 0.2 + math.sqrt((0.76 - l2) ** 2 - 2 * phi * (0.76 - l2) * (u1 - 0.96) + (u1 - 0.96) ** 2)
    assert (r.lo, r.hi) == pytest.approx((lo, hi), abs=1e-12)


def test_newcombe_edges():
    none = newcombe_paired(PairedTable(0, 0, 0, 0))
    assert none.estimate is None and none.why == "no matched cells"
    sym = newcombe_paired(PairedTable(10, 0, 0, 0))  # no difference: a symmetric interval around 0
    assert sym.estimate == 0 and sym.lo == pytest.approx(-sym.hi) and sym.hi > 0
    full = newcombe_paired(PairedTable(0, 5, 0, 0))
    assert full.estimate == 1.0 and full.hi == 1.0 and 0 < full.lo < 1


# -- the paper's Appendix B -----------------------------------------------------------------------
@pytest.fixture(scope="module")
def paper_pair(tmp_path_factory):
    d = tmp_path_factory.mktemp("paired")
    synthetic_paired_records(d / "control.jsonl", d / "gated.jsonl")
    return d / "control.jsonl", d / "gated.jsonl"


def test_paper_tables_24_to_28_reproduce_exactly(paper_pair, tmp_path):
    rows, text = reproduce_paired(*paper_pair, tmp_path)
    assert len(rows) == 52 and all(r["status"] == "matches" for r in rows), [r for r in rows if r["status"] != "matches"]
    r = compare(*paper_pair, Options(label_a="control", label_b="gated"))
    cells = r["completion_vs_delivery"]
    assert [c["count"] for c in cells] == [1037, 106, 5, 4]
    assert [c["full"] for c in cells] == ["90.017361%", "9.201389%", "0.434028%", "0.347222%"]
    assert sum(c["count"] for c in cells) == 1152 and sum(c["rate"] for c in cells) == pytest.approx(1.0, abs=1e-15)
    t = r["tokens"]
    assert t["ratio_shown"] == "3.80x" and t["increment"] == 162_894_973
    assert t["a"]["cached_share"]["shown"] == "46,874,624 / 57,199,341 input tokens (81.95%)"
    assert t["b"]["cached_share"]["shown"] == "not separately exposed"
    for name in ("cache_read_tokens", "cache_write_tokens", "reasoning_tokens"):
        assert t["b"][name]["shown"] == "not exposed" and t["b"][name]["sum"] is None
    c = r["completeness"]
    assert (c["a"]["extra_rows"], c["b"]["extra_rows"]) == (25, 45) and c["matched"] == 1152
    delivery, completion = r["tests"]
    # delivery: gated delivered & control not = 5, control delivered (all shipped, acceptance_fail ships) & gated not = 110
    assert (delivery["b_yes_a_no"], delivery["a_yes_b_no"]) == (0, 110)
    assert (completion["b_yes_a_no"], completion["a_yes_b_no"]) == (5, 106)
    ref = mcnemar([[1037, 5], [106, 4]], exact=True).pvalue  # rows B completed?, cols A completed? arrangement
    assert completion["mcnemar"]["p"] == pytest.approx(ref, rel=1e-9)
    assert completion["newcombe"]["estimate"] == pytest.approx((1042 - 1143) / 1152)
    assert completion["cluster"]["estimate"] == pytest.approx((1042 - 1143) / 1152)
    assert "clustered by task (24 tasks)" in completion["cluster"]["estimand"]


def test_reproduce_paper_cli_prints_tables_24_to_28(paper_pair, tmp_path):
    res = CliRunner().invoke(main, ["reproduce", "paper", "--paired-a", str(paper_pair[0]), "--paired-b",
                                    str(paper_pair[1]), "--out", str(tmp_path), "--strict"])
    assert res.exit_code == 0, res.output
    assert "52 of 52 published values match; 0 differ." in res.output
    half = CliRunner().invoke(main, ["reproduce", "paper", "--paired-a", str(paper_pair[0]), "--out", str(tmp_path)])
    assert half.exit_code == 2 and "go together" in half.output


# -- two real runs on the simulated engine --------------------------------------------------------
TINY = """[protocol]
name = "{name}"
seed = 7
repeats = 2
tasks_dir = "{tasks}"
tasks = ["parse-range", "median"]
scenarios = ["null", "B2"]
engine = "simulated"

[arms.{arm}]
{arm_body}

[limits]
test_timeout_s = 60
memory_mb = 2048
max_turns = 12
max_tokens = 4096
"""


@pytest.fixture(scope="module")
def two_runs(tmp_path_factory):
    d = tmp_path_factory.mktemp("runs")
    runs = []
    for name, arm, body in (("tiny-a", "A2", 'controller = "A2"\nretries = 3'),
                            ("tiny-b", "A4", 'controller = "A4"\nattempts = 3\nreview_rounds = 2\nreflection = true')):
        proto = d / f"{name}.toml"
        proto.write_text(TINY.format(name=name, tasks=REPO / "tasks", arm=arm, arm_body=body))
        r = _cli("run", proto, "--out", d / name, "--workers", "1", "--exploratory")
        assert r.returncode == 0, r.stderr[-2000:]
        runs.append(d / name)
    return runs


def _records(run: Path) -> list[dict]:
    return [json.loads(x) for x in (run / "records.jsonl").read_text().splitlines() if x.strip()]


def test_compare_two_simulated_runs_against_a_hand_count(two_runs, tmp_path):
    r = _cli("compare", two_runs[0], two_runs[1], "--out", tmp_path / "cmp")
    assert r.returncode == 0, r.stderr
    for heading in ("Execution completeness (Table 24)", "Native outcomes before pairing (Table 25)",
                    "(Tables 12 and 26)", "Paired matrix over delivery", "Paired matrix over outcomes",
                    "Exact paired subclasses (Table 27)", "Tests on the paired data", "Token usage (Table 28)",
                    "not hidden-oracle adjudicated"):
        assert heading in r.stdout
    got = json.loads((tmp_path / "cmp" / "compare.json").read_text())
    ra, rb = _records(two_runs[0]), _records(two_runs[1])
    key = {(x["task"], x["scenario"], x["repeat"]): x for x in ra}
    pairs = [(key[(y["task"], y["scenario"], y["repeat"])], y) for y in rb]
    assert len(pairs) == 8 == got["completeness"]["matched"]
    hand = Counter((x["outcome"] in ("completed", "recovered"), y["shipped"]) for x, y in pairs)
    assert [c["count"] for c in got["completion_vs_delivery"]] == [hand[(True, True)], hand[(True, False)],
                                                                     hand[(False, True)], hand[(False, False)]]
    subs = Counter((x["outcome"], y["outcome"]) for x, y in pairs)
    assert {(s["a"], s["b"]): s["count"] for s in got["subclasses"]} == dict(subs)
    io_a = sum(x["tokens_in"] + x["cache_read_tokens"] + x["cache_write_tokens"] + x["tokens_out"] for x in ra)
    io_b = sum(y["tokens_in"] + y["cache_read_tokens"] + y["cache_write_tokens"] + y["tokens_out"] for y in rb)
    assert (got["tokens"]["a"]["io"], got["tokens"]["b"]["io"]) == (io_a, io_b)
    assert got["tokens"]["increment"] == io_b - io_a and got["tokens"]["ratio"] == pytest.approx(io_b / io_a)
    c = got["completeness"]
    assert (c["a"]["planned"], c["a"]["terminal"], c["a"]["pending"]) == (8, 8, 0)
    assert (c["a"]["reviewer_expected"], c["b"]["reviewer_expected"]) == ("no", "yes")
    assert (tmp_path / "cmp" / "compare.png").stat().st_size > 0
    page = (tmp_path / "cmp" / "compare.html").read_text()
    assert "Content-Security-Policy" in page and "report/index.html" in page and "<script" not in page


# -- inputs that are not a clean pair -------------------------------------------------------------
def test_different_cell_sets_are_counted_by_reason(tmp_path):
    a = _write(tmp_path / "a.jsonl", _rows("A2", "A2", ["completed"] * 4))
    b = _write(tmp_path / "b.jsonl", _rows("A4", "A4", ["completed", "safe_stop", "recovered", "completed"])[:3])
    r = compare(a, b, Options())
    c = r["completeness"]
    assert c["matched"] == 3 and c["excluded"]["terminal in A only"] == 1
    assert (c["a"]["planned"], c["b"]["planned"], c["b"]["pending"]) == (4, 4, 1)
    assert sum(x["count"] for x in r["completion_vs_delivery"]) == 3


def test_contamination_row_is_counted_not_paired(tmp_path):
    rows = _rows("A2", "A2", ["completed"] * 4)
    stray = dict(rows[0], protocol_digest="another", outcome="safe_stop", shipped=False, visible_pass=False,
                 hidden_pass=False)
    other_model = dict(rows[1], model_id="other-model")
    a = _write(tmp_path / "a.jsonl", [stray] + rows + [other_model])
    b = _write(tmp_path / "b.jsonl", _rows("A4", "A4", ["completed"] * 4))
    c = compare(a, b, Options())["completeness"]
    assert c["a"]["contamination_rows"] == 2 and c["a"]["contamination"]["another protocol digest"] == 1
    assert c["a"]["contamination"]["another model"] == 1
    assert c["a"]["terminal"] == 4 and c["a"]["extra_rows"] == 0 and c["matched"] == 4


def test_side_with_every_token_subfield_null_and_mixed_schema_versions(tmp_path):
    v1 = _rows("A2", "A2", ["completed"] * 4)
    for x in v1:
        x.update(schema_version=1, cache_write_tokens=0, reasoning_tokens=0)
    a = _write(tmp_path / "a.jsonl", v1)
    b = _write(tmp_path / "b.jsonl", _rows("A4", "A4", ["completed"] * 4, cache_read_tokens=None))
    res = CliRunner().invoke(main, ["compare", str(a), str(b), "--out", str(tmp_path / "o"), "--no-figures"])
    assert res.exit_code == 0, res.output
    t = json.loads((tmp_path / "o" / "compare.json").read_text())["tokens"]
    assert [t["b"][n]["shown"] for n in ("cache_read_tokens", "cache_write_tokens", "reasoning_tokens")] == \
        ["not exposed"] * 3
    assert t["b"]["io"] == 4 * 110 and t["a"]["io"] == 4 * 160  # a null is never added as 0, a reported 50 is
    assert t["b"]["cached_share"]["shown"] == "not separately exposed"
    assert "| Record schema versions | 1 | 2 |" in res.output


def test_io_tokens_never_adds_reasoning_and_unknown_usage_is_none():
    assert io_tokens(records.cell("A1", "t", "s", 0, "completed", tokens_in=10, tokens_out=5, reasoning_tokens=4,
                                  cache_read_tokens=None, cache_write_tokens=None)) == 15
    assert io_tokens(records.cell("A1", "t", "s", 0, "completed", tokens_in=None, tokens_out=5)) is None
    assert io_tokens(records.cell("A1", "t", "s", 0, "completed", tokens_in=10, tokens_out=5, cache_read_tokens=3,
                                  cache_write_tokens=2)) == 20


@pytest.mark.parametrize("mutate, needle", [
    (lambda r: r.update(schema_version=1), "needs record schema v2"),
    (lambda r: r.update(schema_version=record.SCHEMA_VERSION + 1, cache_read_tokens=1), "schema_version"),
    (lambda r: r.update(arm="A9", cell_key="A9|t1|null|1"), "holds arms"),
])
def test_bad_records_are_a_one_line_error(tmp_path, mutate, needle):
    rows = _rows("A2", "A2", ["completed"] * 4, cache_read_tokens=None)
    mutate(rows[0])
    a = _write(tmp_path / "a.jsonl", rows)
    b = _write(tmp_path / "b.jsonl", _rows("A4", "A4", ["completed"] * 4))
    res = CliRunner().invoke(main, ["compare", str(a), str(b), "--out", str(tmp_path / "o"), "--no-figures"])
    assert res.exit_code == 2, res.output
    assert needle in res.output and "Traceback" not in res.output


def test_bad_inputs_exit_2_without_traceback(tmp_path):
    a = _write(tmp_path / "a.jsonl", _rows("A2", "A2", ["completed"] * 4))
    junk = tmp_path / "junk.jsonl"
    junk.write_text("{not json\n")
    notrun = tmp_path / "dir"
    notrun.mkdir()
    for args in ([a, junk], [a, notrun], [a, a, "--key", "task,repeat"]):
        r = _cli("compare", *args, "--out", tmp_path / "o", "--no-figures")
        assert r.returncode == 2, (args, r.stderr)
        assert "Traceback" not in r.stderr and r.stderr.startswith("error:")


def test_schema_v2_allows_null_token_subfields():
    assert record.SCHEMA_VERSION >= 2 and {1, 2} <= set(record.READABLE_VERSIONS)  # v3 (issue 22) added void_kind
    rec = record.build(cell_key="A1|t|null|1", arm="A1", task="t", scenario="null", repeat=1, outcome="safe_stop",
                       visible_pass=False, hidden_pass=False, shipped=False, cache_read_tokens=None,
                       cache_write_tokens=None, reasoning_tokens=None)
    props = record.json_schema()["properties"]
    assert rec["cache_read_tokens"] is None
    assert all(props[n]["type"] == ["integer", "null"] for n in record.NULLABLE_SINCE_V2)


def test_disjoint_runs_give_empty_tables_not_a_crash(tmp_path):
    a = _write(tmp_path / "a.jsonl", _rows("A2", "A2", ["completed"] * 4)[:2])
    b = _write(tmp_path / "b.jsonl", _rows("A4", "A4", ["completed"] * 4)[2:])
    res = CliRunner().invoke(main, ["compare", str(a), str(b), "--out", str(tmp_path / "o")])
    assert res.exit_code == 0, res.output
    got = json.loads((tmp_path / "o" / "compare.json").read_text())
    assert got["completeness"]["matched"] == 0 and got["completeness"]["excluded"]["terminal in A only"] == 2
    assert got["completion_vs_delivery"][0]["full"] == "n/a (no matched cells)"
    assert "n/a (no discordant pairs)" in res.output and "no matched cells" in res.output


def test_csv_and_parquet_inputs_give_the_jsonl_result(tmp_path):
    import pandas as pd

    rows = _rows("A2", "A2", ["completed", "acceptance_fail", "completed", "completed"])
    a = _write(tmp_path / "a.jsonl", rows)
    b = _write(tmp_path / "b.jsonl", _rows("A4", "A4", ["recovered", "safe_stop", "completed", "safe_stop"],
                                        cache_read_tokens=None))
    pd.DataFrame(rows).to_csv(tmp_path / "a.csv", index=False)
    pd.DataFrame(rows).to_parquet(tmp_path / "a.parquet")
    want = compare(a, b, Options())
    for other in (tmp_path / "a.csv", tmp_path / "a.parquet"):
        got = compare(other, b, Options())
        assert got["completion_vs_delivery"] == want["completion_vs_delivery"]
        assert got["tokens"] == want["tokens"] and got["subclasses"] == want["subclasses"]


def test_reviewer_model_rows_are_not_contamination(tmp_path):
    rows = _rows("A4", "A4", ["completed"] * 4)
    for x in rows:
        x["model_id"] = "rev-1,work-1"
    rows[3]["model_id"] = "work-1"  # stopped before review: the worker alone
    a = _write(tmp_path / "a.jsonl", _rows("A2", "A2", ["completed"] * 4))
    b = _write(tmp_path / "b.jsonl", rows)
    assert compare(a, b, Options())["completeness"]["b"]["contamination_rows"] == 0


def test_arm_in_the_key_joins_two_multi_arm_runs_arm_by_arm(tmp_path):
    a_rows = _rows("A2", "A2", ["completed"] * 4) + _rows("A4", "A4", ["completed", "safe_stop", "completed", "completed"])
    b_rows = _rows("A2", "A2", ["acceptance_fail"] * 4) + _rows("A4", "A4", ["completed"] * 4)
    a, b = _write(tmp_path / "a.jsonl", a_rows), _write(tmp_path / "b.jsonl", b_rows)
    res = CliRunner().invoke(main, ["compare", str(a), str(b), "--out", str(tmp_path / "o"), "--no-figures"])
    assert res.exit_code == 2 and "--key arm,task,scenario,repeat,factors" in res.output
    r = compare(a, b, Options(key=("arm", "task", "scenario", "repeat", "factors")))
    assert r["completeness"]["matched"] == 8
    assert r["completeness"]["a"]["reviewer_expected"] == "mixed (A4 of A2, A4)"
    subs = {(s["a"], s["b"]): s["count"] for s in r["subclasses"]}
    assert subs == {("completed", "acceptance_fail"): 4, ("completed", "completed"): 3, ("safe_stop", "completed"): 1}


def test_different_models_are_said_beside_the_ratio(tmp_path):
    a = _write(tmp_path / "a.jsonl", _rows("A2", "A2", ["completed"] * 4))
    rows = _rows("A4", "A4", ["completed"] * 4)
    for x in rows:
        x["model_id"] = "other-model"
    b = _write(tmp_path / "b.jsonl", rows)
    r = compare(a, b, Options())
    assert "model labels differ" in r["tokens"]["model_note"] and r["completeness"]["b"]["contamination_rows"] == 0


def test_run_directory_against_a_records_file_takes_the_runs_plan(two_runs, tmp_path):
    partial = [x for x in _records(two_runs[1]) if x["task"] == "median"]
    b = _write(tmp_path / "b.jsonl", partial)
    r = compare(two_runs[0], b, Options())
    c = r["completeness"]
    assert c["b"]["planned"] == 8 and c["b"]["terminal"] == 4 and c["b"]["pending"] == 4
    assert "the other run's plan" in c["b"]["planned_from"]
    assert c["matched"] == 4 and c["excluded"]["terminal in A only"] == 4


def test_task_digest_is_checked_within_and_across_runs(tmp_path):
    a_rows = _rows("A2", "A2", ["completed"] * 4)
    b_rows = _rows("A4", "A4", ["completed"] * 4)
    for x in a_rows + b_rows:
        x["task_digest"] = f"d-{x['task']}"
    b_rows[0]["task_digest"] = "changed"  # the only t1 row with another digest... of 2 t1 rows: a tie, first wins
    b_rows[1]["task_digest"] = "changed"
    stray = dict(a_rows[2], task_digest="old")  # a row of t2 with another digest than the run's t2 rows
    a, b = _write(tmp_path / "a.jsonl", a_rows + [stray]), _write(tmp_path / "b.jsonl", b_rows)
    c = compare(a, b, Options())["completeness"]
    assert c["a"]["contamination"]["another task digest"] == 1
    assert c["excluded"]["task digests differ between the runs"] == 2 and c["matched"] == 2
    bad = _write(tmp_path / "bad.jsonl", [dict(a_rows[0], task_digest=["x"])] + a_rows[1:])
    res = CliRunner().invoke(main, ["compare", str(bad), str(b), "--out", str(tmp_path / "o"), "--no-figures"])
    assert res.exit_code == 2 and "field 'task_digest'" in res.output
