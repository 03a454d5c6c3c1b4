"""Second review of harness compare (issue 23, review r28): defects found by attacking its inputs,
its outputs and `harness view` on its folder. Each test failed before its fix.

Formerly ``tests/analysis/test_compare_r28.py``, named after its origin."""
from __future__ import annotations

import json
import subprocess
import sys
from fractions import Fraction
from pathlib import Path

import pytest
from click.testing import CliRunner

from analysis.compare import Options, compare
from analysis.paired_paper import _row
from harness.cli.cli import main
from support.compare_rows import rows as _rows

REPO = Path(__file__).resolve().parents[2]


def _text(rows: list[dict]) -> str:
    return "".join(json.dumps(r) + "\n" for r in rows)


def _write(path: Path, rows: list[dict]) -> Path:
    path.write_text(_text(rows), encoding="utf-8")
    return path


def _invoke(a, b, tmp_path, *extra):
    return CliRunner().invoke(main, ["compare", str(a), str(b), "--out", str(tmp_path / "o"), *map(str, extra)])


def _one_line_error(res, *needles):
    assert res.exit_code == 2, (res.exit_code, res.output, res.exception)
    assert "Traceback" not in res.output and res.output.startswith("error:"), res.output
    for n in needles:
        assert n in res.output, res.output


@pytest.fixture
def b7(tmp_path):
    return _write(tmp_path / "b.jsonl", _rows("A4", "A4", ["completed", "safe_stop"] + ["completed"] * 5))


# -- hostile records ------------------------------------------------------------------------------
def test_an_integer_longer_than_4300_digits_is_a_one_line_error(tmp_path, b7):
    """json.loads raises ValueError (not JSONDecodeError) past Python's int-string limit: it was a
    traceback, in the default-label read and in the reader."""
    text = _text(_rows("A2", "A2", ["completed"] * 7)).replace('"tokens_in": 100', '"tokens_in": 1' + "0" * 5000, 1)
    a = tmp_path / "a.jsonl"
    a.write_text(text)
    _one_line_error(_invoke(a, b7, tmp_path, "--no-figures"), "a.jsonl:1:", "not valid JSON")


@pytest.mark.parametrize("field", ["task", "arm", "model_id"])
def test_a_lone_surrogate_in_a_string_is_a_one_line_error(tmp_path, b7, field):
    """"\\ud800" is valid JSON but not Unicode text: the string could not be encoded (pandas'
    Arrow strings, the UTF-8 outputs) and was a UnicodeEncodeError traceback."""
    rows = _rows("A2", "A2", ["completed"] * 7)
    for r in rows:
        r.pop("cell_key")
    a = tmp_path / "a.jsonl"
    a.write_text(_text(rows).replace(f'"{field}": "{rows[0][field]}"', f'"{field}": "x\\ud800"', 1))
    assert "\\ud800" in a.read_text()
    _one_line_error(_invoke(a, b7, tmp_path, "--no-figures"), f"a.jsonl:1: field '{field}'", "surrogate")


def test_non_utf8_names_the_line_and_its_byte(tmp_path, b7):
    """A non-UTF-8 byte on line 2,100 was reported as 'byte 817': an offset inside the decoder's
    chunk, not in the file, and no line."""
    data = (_text(_rows("A2", "A2", ["completed"] * 7)) * 300).encode()
    pos = data.rfind(b'"t4"')
    a = tmp_path / "a.jsonl"
    a.write_bytes(data[:pos] + b'"t\xe94"' + data[pos + 4:])
    line = data[:pos].count(b"\n") + 1
    col = pos - data.rfind(b"\n", 0, pos)  # 1-based byte of the line where "t4" starts; \xe9 is 2 further on
    _one_line_error(_invoke(a, b7, tmp_path, "--no-figures"), f"a.jsonl:{line}: not UTF-8 text (byte {col + 2} ")


@pytest.mark.parametrize("meta", ['{"a":' + "[" * 100_000 + "1", '{"protocol_digest": 1' + "0" * 5000 + "}"])
def test_run_json_nested_too_deep_or_a_huge_int_is_a_one_line_error(tmp_path, b7, meta):
    run = tmp_path / "run"
    run.mkdir()
    (run / "run.json").write_text(meta)
    _write(run / "records.jsonl", _rows("A2", "A2", ["completed"] * 7))
    _one_line_error(_invoke(run, b7, tmp_path, "--no-figures"), "run.json: not valid JSON")


def test_an_unknown_key_field_is_named(tmp_path, b7):
    a = _write(tmp_path / "a.jsonl", _rows("A2", "A2", ["completed"] * 7))
    _one_line_error(_invoke(a, b7, tmp_path, "--no-figures", "--key", "task,scenario,repeat,model"),
                    "field 'model'")


# -- labels reaching compare.md and the page -------------------------------------------------------
def test_a_newline_in_a_label_or_model_cannot_add_headings_rows_or_html_to_the_outputs(tmp_path, b7):
    """An arm (the default label), a model label or --label-b holding a newline wrote its own
    heading, list item and table row into compare.md (and its page); raw HTML went into compare.md."""
    rows = _rows("A2", "A2", ["completed"] * 7)
    for r in rows:
        r.pop("cell_key")
        r.update(arm="A2\n\n# Owned\n\n- item", model_id="gpt\r\n| Matched rows | 0 | 0 |")
    a = _write(tmp_path / "a.jsonl", rows)
    b = _write(tmp_path / "b2.jsonl", _rows("A4", "A4", ["completed"] * 7, model_id="m\u2028# x"))
    res = _invoke(a, b, tmp_path, "--label-b", "<script>alert(1)</script>\nB")
    assert res.exit_code == 0, res.output
    md = (tmp_path / "o" / "compare.md").read_text()
    lines = md.splitlines()
    assert not any(x.startswith(("# Owned", "- item", "| Matched rows | 0", "B (", "# x")) for x in lines), md
    assert sum(x.startswith("# ") for x in lines) == 1 and "<script" not in md
    assert "&lt;script&gt;" in md  # shown as written by a Markdown renderer, not run
    heads = [x for x in lines if x.startswith("## ")]
    assert len(heads) == 9, heads  # eight tables and the adjudicated divergence (issue 37)
    page = (tmp_path / "o" / "compare.html").read_text()
    assert "<script" not in page and page.count("<h1>") == 2 and "&amp;lt;" not in page  # the brand h1 + the title


# -- the token readout with no matched pair --------------------------------------------------------
def test_no_matched_pair_is_not_called_not_exposed(tmp_path):
    """Two sides that both report usage but share no cell: the readout said 'not exposed' and
    'A2 and A4 report no input+output tokens', a false reason for an empty denominator."""
    a = _write(tmp_path / "a.jsonl", _rows("A2", "A2", ["completed"] * 7)[:3])
    b = _write(tmp_path / "b.jsonl", _rows("A4", "A4", ["completed"] * 7)[3:])
    t = compare(a, b, Options())["tokens"]
    assert t["ratio"] is None and "no matched" in t["ratio_shown"] and "report no" not in t["ratio_shown"]
    for side in ("a", "b"):
        assert "not exposed" not in t[side]["cached_share"]["shown"]
        assert all("not exposed" not in t[side][n]["shown"] for n in ("tokens_in", "cache_read_tokens"))
    from analysis.compare_render import render_md
    md = render_md(compare(a, b, Options()))
    assert "not exposed" not in md and "no matched rows" in md


# -- display rounding ------------------------------------------------------------------------------
@pytest.mark.parametrize("k,n", [(7, 2000), (1, 400), (1993, 2000), (3, 8), (1, 3), (2, 3), (1, 2000)])
def test_display_rounding_is_the_exact_value_rounded_half_up_as_the_full_column(k, n):
    """7/2000 = 0.35% exactly was displayed '0.3%' (the binary float 0.34999...), beside a full-
    precision column rounded half up in exact arithmetic; 99.65% was '99.7%'."""
    from analysis.compare import partition_rates, rate

    tenths = (Fraction(1000 * k, n) + Fraction(1, 2)).__floor__()
    want = f"{tenths // 10}.{tenths % 10}%"
    assert rate(k, n)["display"] == want
    assert partition_rates([k, n - k])[0]["display"] == want


def test_cached_share_two_decimals_are_rounded_half_up_exactly(tmp_path):
    """1/800 of input cached = 0.125% exactly was shown '0.12%' (float formatting rounds half to
    even) beside rates rounded half up everywhere else."""
    a = _write(tmp_path / "a.jsonl", _rows("A2", "A2", ["completed"] * 7))
    b = _write(tmp_path / "b.jsonl", _rows("A4", "A4", ["completed"] * 7, tokens_in=799, cache_read_tokens=1))
    shown = compare(a, b, Options())["tokens"]["b"]["cached_share"]["shown"]
    assert shown == "7 / 5,600 input tokens (0.13%)", shown


# -- harness view on a damaged compare folder ------------------------------------------------------
@pytest.fixture
def compare_dir(tmp_path, b7):
    a = _write(tmp_path / "a.jsonl", _rows("A2", "A2", ["completed"] * 7))
    assert _invoke(a, b7, tmp_path, "--no-figures").exit_code == 0
    return tmp_path / "o"


def _damage(out: Path, fn) -> None:
    r = json.loads((out / "compare.json").read_text())
    fn(r)
    (out / "compare.json").write_text(json.dumps(r))


@pytest.mark.parametrize("damage", [
    lambda r: r["completion_vs_delivery"][0].__setitem__("full", "abc%"),
    lambda r: r.__setitem__("completion_vs_delivery", r["completion_vs_delivery"][:3]),
    lambda r: r["completion_vs_delivery"][0].__setitem__("count", 10**400),
    "[" * 100_000 + "]" * 100_000,
])
def test_view_on_a_damaged_compare_json_is_a_one_line_error(compare_dir, damage):
    """Damage render_md's guard did not cover (a malformed rate, three matrix cells, a count the
    figure cannot draw, nesting past the recursion limit) was a traceback."""
    if isinstance(damage, str):
        (compare_dir / "compare.json").write_text(damage)
    else:
        _damage(compare_dir, damage)
    _one_line_error(CliRunner().invoke(main, ["view", str(compare_dir)]), "compare.json")


# -- a kill while compare.json is written ----------------------------------------------------------
def test_a_kill_while_writing_leaves_the_previous_outputs_whole(compare_dir, tmp_path):
    """compare.md and compare.json were truncated in place and then written: a write cut short (a
    kill, a full disk; here the file-size limit, EFBIG, half-way through compare.json) left a torn
    compare.json and lost the previous one. Each is now replaced by rename: the previous one survives."""
    before = {n: (compare_dir / n).read_bytes() for n in ("compare.md", "compare.json")}
    limit = len(before["compare.md"]) + 4096
    assert limit < len(before["compare.json"])  # the kill falls inside compare.json
    code = ("import json, resource, sys; from pathlib import Path; "
            "from analysis.compare_render import write_all; "
            f"resource.setrlimit(resource.RLIMIT_FSIZE, ({limit}, {limit})); "
            "out = Path(sys.argv[1]); r = json.loads((out / 'compare.json').read_text()); "
            "r['wording'] += ' (again)'; write_all(r, out, figure=False)")
    proc = subprocess.run([sys.executable, "-c", code, str(compare_dir)], cwd=REPO, capture_output=True, timeout=120)
    assert proc.returncode != 0  # killed by the limit, as by a kill -9 mid-write
    assert (compare_dir / "compare.json").read_bytes() == before["compare.json"]
    assert not [p.name for p in compare_dir.iterdir() if p.name.endswith(".tmp")]


# -- a column written twice (CSV, Parquet) -----------------------------------------------------------
def _frame(tmp_path):
    import pandas as pd

    return pd.DataFrame(_rows("A2", "A2", ["completed"] * 7))


def test_a_csv_column_named_twice_is_an_error_not_the_first_value(tmp_path, b7):
    """A CSV with two 'outcome' columns (completed, then void): pandas renames the second
    'outcome.1' and the reader kept the first in silence, the CSV twin of a JSON key written twice."""
    lines = _frame(tmp_path).to_csv(index=False).splitlines()
    a = tmp_path / "a.csv"
    a.write_text("\n".join([lines[0] + ",outcome"] + [x + ",void" for x in lines[1:]]) + "\n")
    _one_line_error(_invoke(a, b7, tmp_path, "--no-figures"), "a.csv:1: field 'outcome'", "twice")


def test_a_parquet_column_named_twice_is_a_one_line_error(tmp_path, b7):
    """Two 'outcome' columns in a Parquet file: the error was pyarrow's message with the whole
    schema, thirty lines."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    t = pa.Table.from_pandas(_frame(tmp_path), preserve_index=False)
    pq.write_table(t.append_column("outcome", pa.array(["void"] * 7)), tmp_path / "a.parquet")
    res = _invoke(tmp_path / "a.parquet", b7, tmp_path, "--no-figures")
    _one_line_error(res, "a.parquet: field 'outcome'", "twice")
    assert len(res.output.strip().splitlines()) == 1, res.output


def test_an_unreadable_parquet_file_is_one_line(tmp_path, b7):
    (tmp_path / "a.parquet").write_bytes(b"PAR1" + b"\0" * 100 + b"PAR1")
    res = _invoke(tmp_path / "a.parquet", b7, tmp_path, "--no-figures")
    _one_line_error(res, "a.parquet: cannot read Parquet")
    assert len(res.output.strip().splitlines()) == 1, res.output


def test_a_second_comparison_into_the_same_folder_leaves_no_page_of_the_first(tmp_path, b7):
    """compare --out D, then compare --out D --no-figures on other runs: D/compare.png and
    D/compare.html still showed the first comparison beside the second's compare.md and .json (and
    `harness view D` kept the old figure, as it draws only a missing one)."""
    a = _write(tmp_path / "a.jsonl", _rows("A2", "A2", ["completed"] * 7))
    assert _invoke(a, b7, tmp_path).exit_code == 0
    out = tmp_path / "o"
    assert (out / "compare.png").is_file() and "A4" in (out / "compare.html").read_text()
    c = _write(tmp_path / "c.jsonl", _rows("A3", "A3", ["completed"] * 7))
    assert _invoke(a, c, tmp_path, "--no-figures").exit_code == 0
    assert not (out / "compare.png").exists() and not (out / "compare.html").exists()
    assert CliRunner().invoke(main, ["view", str(out)]).exit_code == 0
    page = (out / "compare.html").read_text()
    assert "A3" in page and "A4" not in page


def test_the_same_run_given_twice_is_said(tmp_path):
    """compare RUN RUN printed a readout of identical sides (every pair concordant, ratio 1.00x)
    without saying both sides are one input: a typo in a path reads as 'no difference'."""
    from analysis.compare_render import render_md

    a = _write(tmp_path / "a.jsonl", _rows("A2", "A2", ["completed"] * 7))
    (tmp_path / "d").mkdir()
    r = compare(a, tmp_path / "d" / ".." / "a.jsonl", Options())
    assert r["completeness"]["same_input"] is True
    assert "are the same input" in render_md(r)
    b = _write(tmp_path / "b.jsonl", _rows("A2", "A2", ["completed"] * 7))
    assert compare(a, b, Options())["completeness"]["same_input"] is False


def test_a_cached_share_over_some_rows_says_over_which(tmp_path):
    """A side whose rows report cached input on 3 of 7 rows showed '150 / 450 input tokens (33.33%)',
    read as the side's share; the rows it is over are said (the nulls are not counted as 0)."""
    rows = _rows("A4", "A4", ["completed"] * 7)
    for r in rows[3:]:
        r["cache_read_tokens"] = None
    t = compare(_write(tmp_path / "a.jsonl", _rows("A2", "A2", ["completed"] * 7)),
                _write(tmp_path / "b.jsonl", rows), Options())["tokens"]
    assert t["b"]["cached_share"]["shown"] == "150 / 450 input tokens (33.33%) over 3 of 7 rows"
    assert t["a"]["cached_share"]["shown"] == "350 / 1,050 input tokens (33.33%)"
    assert t["b"]["io"] == 3 * 160 + 4 * 110 and t["b"]["cache_read_tokens"]["shown"] == "150 over 3 rows"


def test_a_cost_sum_past_the_largest_double_is_na_not_inf(tmp_path):
    """Seven rows of a finite cost_usd 1e308 (each valid) summed to inf: the table printed
    'Cost (USD) | inf' and compare.json held the non-JSON token Infinity, with a ratio of 0.0."""
    rows = _rows("A2", "A2", ["completed"] * 7)
    for r in rows:
        r["cost_usd"] = 1e308
    priced = _rows("A4", "A4", ["completed"] * 7)
    for r in priced:
        r["cost_usd"] = 1.0
    a, b = _write(tmp_path / "a.jsonl", rows), _write(tmp_path / "b.jsonl", priced)
    res = _invoke(a, b, tmp_path, "--no-figures")
    assert res.exit_code == 0, res.output
    text = (tmp_path / "o" / "compare.json").read_text()
    assert "Infinity" not in text and "NaN" not in text
    cost = json.loads(text)["tokens"]["cost"]
    assert "a" not in cost and "overflow" in cost["status"], cost
    assert "| inf" not in res.output


def test_a_label_of_200000_characters_is_drawn_shortened(tmp_path, b7, monkeypatch):
    """An arm name of 200,000 characters (the default label) took matplotlib nearly two minutes of
    CPU to lay out in the figure (compare and `harness view` alike); the figure draws at most
    FIGURE_TEXT characters of a text, compare.md and compare.json keep it whole."""
    import matplotlib.text

    from analysis.compare_render import FIGURE_TEXT, write_figure

    drawn: list[int] = []
    real = matplotlib.text.Text.set_text
    monkeypatch.setattr(matplotlib.text.Text, "set_text", lambda self, s: (drawn.append(len(str(s))), real(self, s))[1])
    rows = _rows("A2", "A2", ["completed"] * 7)
    for r in rows:
        r.pop("cell_key")
        r["arm"] = "A" * 200_000
    r = compare(_write(tmp_path / "a.jsonl", rows), b7, Options(label_a="A" * 200_000))
    write_figure(r, tmp_path / "f.png")
    assert drawn and max(drawn) <= FIGURE_TEXT and (tmp_path / "f.png").stat().st_size > 0
    assert r["labels"]["a"] == "A" * 200_000


def test_a_harness_arm_without_a_reviewer_prints_its_zero_stops_not_na(tmp_path, b7):
    """A2 stops when its retries run out (not shipped: safe_stop or false_stop, Eq. 7) and records
    'recovered' after a failed attempt; its zero counts printed 'n/a' (as for the paper's no-review
    runner, which has no control layer), so n/a or 0 depended on the data, not on the arm."""
    from analysis.compare import HARNESS_CONTROLLERS
    from harness.core.registry import ARMS

    assert HARNESS_CONTROLLERS <= set(ARMS.names())
    a = _write(tmp_path / "a.jsonl", _rows("A2", "A2", ["completed"] * 7))
    native = {x["row"]: x["shown"] for x in compare(a, b7, Options())["native"]["a"]}
    assert native["Safe-stopped (not shipped)"] == "0" and native["Recovered (a failure seen, then shipped)"] == "0"
    foreign = _rows("A2", "no-review", ["completed"] * 7)  # another producer's runner without a control layer
    native = {x["row"]: x["shown"] for x in compare(_write(tmp_path / "f.jsonl", foreign), b7, Options())["native"]["a"]}
    assert native["Safe-stopped (not shipped)"] == "n/a" and native["Recovered (a failure seen, then shipped)"] == "n/a"


# -- harness schema records --validate refuses what the reader refuses ------------------------------
def test_schema_validate_refuses_a_null_subfield_on_a_v1_record_and_a_huge_int(tmp_path):
    """--validate promises to refuse what harness analyze refuses: a v1 record with a null
    cache_read_tokens passed it (0 problems) and compare then refused the file; a 5,000-digit
    integer was a traceback."""
    rows = _rows("A2", "A2", ["completed"] * 2, cache_read_tokens=None)
    rows[1]["schema_version"] = 1
    f = _write(tmp_path / "v1.jsonl", rows)
    res = CliRunner().invoke(main, ["schema", "records", "--validate", str(f)])
    assert res.exit_code == 2, res.output
    assert "v1.jsonl:2: field 'cache_read_tokens'" in res.output and "v1.jsonl:1:" not in res.output
    huge = tmp_path / "huge.jsonl"
    huge.write_text(_text(rows[:1]).replace('"tokens_in": 100', '"tokens_in": 1' + "0" * 5000))
    res = CliRunner().invoke(main, ["schema", "records", "--validate", str(huge)])
    assert res.exit_code == 2 and "huge.jsonl:1: not valid JSON" in res.output, (res.output, res.exception)


TWO_ARMS = """[protocol]
name = "two"
seed = 7
repeats = 1
tasks_dir = "{tasks}"
tasks = ["parse-range", "median"]
scenarios = ["null", "B2"]
engine = "simulated"

[arms.A2]
controller = "A2"
retries = 3

[arms.A4]
controller = "A4"
attempts = 3
review_rounds = 2
reflection = true

[limits]
test_timeout_s = 60
memory_mb = 2048
max_turns = 12
max_tokens = 4096
"""


def test_with_arm_in_the_key_an_arm_not_yet_started_is_pending(tmp_path):
    """A two-arm run stopped before its A4 cells: with --key arm,... the plan was the protocol's
    cells of the arms found in the records only, so A4's four planned cells were neither terminal
    nor pending: they vanished from Table 24."""
    from harness.core.protocol import compute_lock, load_protocol

    proto = tmp_path / "two.toml"
    proto.write_text(TWO_ARMS.format(tasks=REPO / "tasks"))
    digest = compute_lock(load_protocol(proto))["digest"]
    cells = [(t, s, 1) for t in ("parse-range", "median") for s in ("null", "B2")]
    run = tmp_path / "run"
    run.mkdir()
    (run / "run.json").write_text(json.dumps({"protocol_path": str(proto), "protocol_digest": digest}))
    _write(run / "records.jsonl", [_row("A2", "A2", c, "completed", {"tokens_in": 1, "tokens_out": 1}, 0, digest)
                                   for c in cells])
    other = _write(tmp_path / "b.jsonl", [_row(arm, arm, c, "completed", {"tokens_in": 1, "tokens_out": 1}, 0, "q")
                                          for arm in ("A2", "A4") for c in cells])
    c = compare(run, other, Options(key=("arm", "task", "scenario", "repeat", "factors")))["completeness"]
    assert (c["a"]["planned"], c["a"]["terminal"], c["a"]["pending"]) == (8, 4, 4)
    assert c["matched"] == 4 and c["excluded"]["terminal in B only"] == 4
    one = compare(run, _write(tmp_path / "b2.jsonl", [_row("A4", "A4", x, "completed", {"tokens_in": 1, "tokens_out": 1},
                                                            1, "q") for x in cells]), Options())["completeness"]
    assert (one["a"]["planned"], one["a"]["pending"]) == (4, 0)  # one arm per side: that arm's plan


def test_compare_offers_no_bootstrap_options_it_does_not_use():
    """--seed ('seed of the cluster bootstrap') and --B ('bootstrap resamples') were accepted and
    ignored: the cluster line is analytic (CR2, analysis.estimands.population_block), no resample is
    drawn, so any value printed the same readout."""
    import dataclasses

    res = CliRunner().invoke(main, ["compare", "--help"])
    assert res.exit_code == 0 and "bootstrap" not in res.output and "--B" not in res.output
    assert {f.name for f in dataclasses.fields(Options)} == {"key", "label_a", "label_b", "alpha"}


def test_ratio_and_mean_are_rounded_half_up_exactly(tmp_path):
    """A ratio of exactly 1.125 printed '1.12x' and a mean of exactly x.25 printed 'x.2' (float
    formatting rounds half to even, and a binary float may sit below the half)."""
    from analysis.compare_render import render_md

    a = _write(tmp_path / "a.jsonl", _rows("A2", "A2", ["completed"] * 4))  # 160 per row
    rows = _rows("A4", "A4", ["completed"] * 4, tokens_in=120)  # 180 per row: 720 / 640 = 1.125
    rows[0]["tokens_out"] = 11  # B: 721 over 4 rows, a mean of 180.25
    r = compare(a, _write(tmp_path / "b.jsonl", rows), Options())
    rows[0]["tokens_out"] = 10
    assert r["tokens"]["ratio_shown"] == "1.13x"  # 721 / 640 = 1.1265625
    r2 = compare(a, _write(tmp_path / "c.jsonl", rows), Options())
    assert r2["tokens"]["ratio_shown"] == "1.13x"  # 720 / 640 = 1.125 exactly
    md = render_md(r)
    assert "| Mean input + output tokens / row | 160.0 | 180.3 |" in md, md


def test_a_run_ending_in_a_carriage_return_is_not_counted_twice(tmp_path, b7):
    """A ledger whose last line ends in '\\r' (a CRLF cut between its two bytes): the reader's
    universal newlines read it as a complete line, and it was also counted as a torn last line,
    one row in two places of Table 24. (Since review r36 a run's ledger lines end at a line feed
    only: the line is torn, counted once as such.)"""
    run = tmp_path / "run"
    run.mkdir()
    (run / "run.json").write_text("{}")
    (run / "records.jsonl").write_bytes(_text(_rows("A2", "A2", ["completed"] * 7)).replace("\n", "\r\n")
                                        .encode()[:-1])
    c = compare(run, b7, Options())["completeness"]["a"]
    assert c["terminal"] + c["torn_last_line"] + c["extra_rows"] == 7, c


def test_the_rows_compared_are_the_rows_validated(tmp_path, b7, monkeypatch):
    """load_side validated the file (load_records) and then read it a second time (read_raw): a
    ledger that grew in between (a running study) reached the tables unvalidated; here a row
    without its outcome was a KeyError traceback. The file is read once."""
    import analysis.records as records

    a = _write(tmp_path / "a.jsonl", _rows("A2", "A2", ["completed"] * 7))
    reads = {"n": 0}
    real = records.read_raw

    def growing(path, complete_lines_only=False):
        reads["n"] += 1
        recs, locs = real(path, complete_lines_only)
        if Path(path) == a and reads["n"] > 1:  # the second read of A sees one more row
            bad = dict(recs[0], task="t9", cell_key="A2|t9|null|1")
            bad.pop("outcome")
            return recs + [bad], locs + [f"{a}:8"]
        return recs, locs

    monkeypatch.setattr(records, "read_raw", growing)  # compare reads through the reader (records.row_columns)
    try:
        r = compare(a, b7, Options())
    except records.RecordsError as exc:  # the one read, validated: the bad row is named
        assert "field 'outcome'" in str(exc)
    else:
        assert r["completeness"]["a"]["rows"] == 7


def test_a_label_cannot_add_a_link_or_an_image_to_compare_md(tmp_path, b7):
    """A label '![x](http://tracker.invalid/p.png)' was an image a Markdown viewer fetches on
    opening compare.md (and '[x](...)' a link); brackets from the inputs are entities."""
    a = _write(tmp_path / "a.jsonl", _rows("A2", "A2", ["completed"] * 7))
    res = _invoke(a, b7, tmp_path, "--label-a", "![x](http://tracker.invalid/p.png)", "--label-b", "[y](http://z.invalid)")
    assert res.exit_code == 0, res.output
    md = (tmp_path / "o" / "compare.md").read_text()
    assert "](http" not in md and "&#91;y&#93;(http://z.invalid)" in md
    page = (tmp_path / "o" / "compare.html").read_text()
    assert "[y](http://z.invalid)" in page and "&#91;" not in page  # the page shows the label as written
