"""harness compare's adjudicated divergence (analysis.adjudicated): each off-diagonal cell of the paired matrix
split by the refusing run's hidden-oracle verdict, Wilson shares, tokens per wrong delivery avoided, the caveat
(naming the side) when a side has no verdicts, and the token-convention warning."""
from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner
from statsmodels.stats.proportion import proportion_confint

from analysis.compare import Options, compare
from harness.cli.cli import main

REPO = Path(__file__).resolve().parents[2]
FLAGS = {"completed": (True, True, True), "recovered": (True, True, True), "amplified": (True, False, True),
         "safe_stop": (False, False, False), "false_stop": (False, True, False)}  # visible, hidden, shipped


def _row(arm: str, i: int, outcome: str, tokens: int, verdict: bool = True, **extra) -> dict:
    vis, hid, ship = FLAGS[outcome]
    return {"arm": arm, "task": f"t{i % 3}", "scenario": "B2", "repeat": i, "outcome": outcome, "visible_pass": vis,
            "hidden_pass": hid, "shipped": ship, "tokens_in": tokens, "tokens_out": 0, "wall_s": 1.0,
            **({"tree_digest_final": f"tree{arm}{i}"} if verdict else {}), **extra}


# Hand-worked: ten matched cells. A completes 1-6 and 9; B on those: 1-2 delivered, 3-5 safe_stop (wrong
# tree), 6 false_stop (right tree), 9 recovered. B completes 7-8 where A safe-stops (7) and false-stops (8).
A_OUT = ["completed"] * 6 + ["safe_stop", "false_stop", "completed", "amplified"]
B_OUT = ["recovered", "completed", "safe_stop", "safe_stop", "safe_stop", "false_stop", "recovered", "completed",
         "recovered", "amplified"]


def _write(path: Path, rows: list[dict]) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    return path


def _files(tmp_path: Path, verdict_b: bool = True) -> tuple[Path, Path]:
    a = _write(tmp_path / "a.jsonl", [_row("A2", i + 1, o, 100) for i, o in enumerate(A_OUT)])
    b = _write(tmp_path / "b.jsonl", [_row("A4", i + 1, o, 200, verdict_b) for i, o in enumerate(B_OUT)])
    return a, b


def test_hand_worked_breakdown(tmp_path):
    r = compare(*_files(tmp_path), Options(label_a="A2", label_b="A4"))
    adj = r["adjudicated"]
    assert adj["status"] == "ok" and adj["lacking"] == []
    fwd, rev = adj["directions"]
    # A completed (1-6, 9) x B not delivered (3, 4, 5, 6): three wrong trees refused, one right tree refused
    assert (fwd["cell"], fwd["n"]) == ("A2 completed x A4 not delivered", 4)
    assert (fwd["wrong_delivery_avoided"]["k"], fwd["false_stop"]["k"]) == (3, 1)
    # B completed (1, 2, 7, 8, 9) x A not delivered (7 safe_stop, 8 false_stop)
    assert (rev["cell"], rev["n"], rev["wrong_delivery_avoided"]["k"], rev["false_stop"]["k"]) == (
        "A4 completed x A2 not delivered", 2, 1, 1)
    # tokens: B - A = 10 x (200 - 100) = 1,000 over the pairs; per wrong delivery avoided 1,000 / 3 = 333.3
    assert fwd["tokens"]["increment"] == 1000 and fwd["tokens"]["per_avoided"] == pytest.approx(1000 / 3)
    assert fwd["tokens"]["shown"].startswith("333.3 = 1,000 / 3")
    assert rev["tokens"]["increment"] == -1000 and "A2 used no more tokens than A4" in rev["tokens"]["shown"]


def test_counts_sum_to_the_off_diagonal_cells(tmp_path):
    a, b = _files(tmp_path)
    r = compare(a, b, Options(label_a="A2", label_b="A4"))
    fwd, rev = r["adjudicated"]["directions"]
    cell = next(c for c in r["completion_vs_delivery"] if c["a"] and not c["b"])  # A completed x B not delivered
    assert fwd["wrong_delivery_avoided"]["k"] + fwd["false_stop"]["k"] == fwd["n"] == cell["count"]
    swapped = compare(b, a, Options(label_a="A4", label_b="A2"))  # the reverse cell is the swapped matrix's
    cell = next(c for c in swapped["completion_vs_delivery"] if c["a"] and not c["b"])
    assert rev["wrong_delivery_avoided"]["k"] + rev["false_stop"]["k"] == rev["n"] == cell["count"]


@pytest.mark.parametrize("k,n", [(3, 4), (1, 4), (0, 5), (5, 5), (97, 106)])
def test_shares_are_wilson_intervals_as_statsmodels_computes_them(k, n):
    from analysis.adjudicated import _share

    s = _share(k, n)
    lo, hi = proportion_confint(k, n, alpha=0.05, method="wilson")
    assert (s["lo"], s["hi"]) == pytest.approx((lo, hi), abs=1e-12) and s["rate"] == k / n


def test_a_side_without_verdicts_keeps_the_caveat_and_is_named(tmp_path):
    a, b = _files(tmp_path, verdict_b=False)
    r = compare(a, b, Options(label_a="A2", label_b="A4"))
    adj = r["adjudicated"]
    assert adj["directions"] == [] and [x["label"] for x in adj["lacking"]] == ["A4"]
    assert adj["status"].startswith("n/a: A4 (") and "10 of its 10 matched rows" in adj["status"]
    out = tmp_path / "cmp"
    res = CliRunner().invoke(main, ["compare", str(a), str(b), "--out", str(out), "--no-figures"])
    assert res.exit_code == 0, res.output
    assert "Not adjudicated: n/a: A4 (" in res.output and "The caveat above stands" in res.output
    assert "The delivery decision is not hidden-oracle adjudicated" in res.output  # today's caveat, unchanged


def test_the_paper_records_say_both_sides_lack_verdicts(tmp_path):
    pa, pb = tmp_path / "a.jsonl", tmp_path / "b.jsonl"
    from analysis.paired_paper import synthetic_paired_records

    synthetic_paired_records(pa, pb)
    adj = compare(pa, pb, Options(label_a="control", label_b="gated"))["adjudicated"]
    assert [x["label"] for x in adj["lacking"]] == ["control", "gated"] and adj["directions"] == []


def test_quickstart_a2_against_a4_prints_the_breakdown(tmp_path):
    """Two arms of one quickstart-shaped run (the committed fixture), split by arm: harness records carry verdicts."""
    lines = (REPO / "tests" / "fixtures" / "quickstart-records.jsonl").read_text().splitlines(keepends=True)
    files = []
    for arm in ("A2", "A4"):
        files.append(tmp_path / f"{arm}.jsonl")
        files[-1].write_text("".join(x for x in lines if json.loads(x)["arm"] == arm))
    out = tmp_path / "cmp"
    res = CliRunner().invoke(main, ["compare", *map(str, files), "--out", str(out), "--no-figures"])
    assert res.exit_code == 0, res.output
    r = json.loads((out / "compare.json").read_text())
    fwd = r["adjudicated"]["directions"][0]
    cell = next(c for c in r["completion_vs_delivery"] if c["a"] and not c["b"])
    assert r["adjudicated"]["status"] == "ok" and fwd["n"] == cell["count"]
    assert fwd["wrong_delivery_avoided"]["k"] + fwd["false_stop"]["k"] == fwd["n"]
    assert "## Adjudicated divergence (hidden oracle)" in res.output and "Tokens per wrong delivery avoided" in res.output


def test_token_convention_footprint_warns_naming_rows(tmp_path):
    a = _write(tmp_path / "a.jsonl", [_row("A2", i + 1, o, 100, cache_read_tokens=40) for i, o in enumerate(A_OUT)])
    b = _write(tmp_path / "b.jsonl", [_row("A4", i + 1, o, 100, cache_read_tokens=400 if i == 0 else 40)
                                      for i, o in enumerate(B_OUT)])
    warn = compare(a, b, Options(label_a="A2", label_b="A4"))["token_convention"]
    assert [w["label"] for w in warn] == ["A2"]  # B has a row whose cached part exceeds tokens_in: no footprint
    assert warn[0]["rows"] == 10 and warn[0]["keys"][0] == "t0|B2|3" and "t0|B2|3" in warn[0]["text"]  # pairs in join-key order


def test_the_compare_page_shows_the_breakdown_and_redraws_it_from_compare_json(tmp_path):
    from viewer.compare_page import rebuild_page, write_all

    r = compare(*_files(tmp_path), Options(label_a="A2", label_b="A4"))
    out = tmp_path / "cmp"
    write_all(r, out, [], figure=False)
    (out / "compare.png").write_bytes(b"")  # rebuild_page draws a missing figure; this test is about the page
    page = rebuild_page(out).read_text()
    assert "<h2>Adjudicated divergence (hidden oracle)</h2>" in page
    assert "A2 completed x A4 not delivered" in page and "3/4 75.0%" in page and "333.3 = 1,000 / 3" in page


def test_a_wrong_delivery_the_other_run_shipped_and_this_run_refused_is_counted_as_avoided(tmp_path):
    """Review r37. The paper's section 13 (1b) asks how many of the no-review run's deliveries that the gated
    run did not admit were wrong. In Eq. 7 terms those deliveries are completed (right) or amplified (wrong):
    an (A amplified, B safe_stop) pair is the one case where a wrong delivery was observed, not inferred from
    the refusing run's own tree, and B avoided it. It must count as a wrong delivery avoided."""
    a = _write(tmp_path / "a.jsonl", [_row("A2", 1, "amplified", 100), _row("A2", 2, "completed", 100)])
    b = _write(tmp_path / "b.jsonl", [_row("A4", 1, "safe_stop", 200), _row("A4", 2, "completed", 200)])
    adj = compare(a, b, Options(label_a="A2", label_b="A4"))["adjudicated"]
    assert adj["status"] == "ok"
    [d] = [d for d in adj["directions"] if d["refusing"] == "A4"]
    assert d["n"] == 0  # the off-diagonal cell (A2 completed x A4 not delivered) is empty: its sum is unchanged
    assert d["beside"]["n"] == 1 and d["beside"]["wrong_delivery_avoided"]["k"] == 1  # counted beside it
