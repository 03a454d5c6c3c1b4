
import pandas as pd
import pytest

from analysis.records import RecordsError, load_records, write_tidy
from tests.analysis.conftest import rec, write_jsonl


def _err(path, **kw) -> str:
    with pytest.raises(RecordsError) as ei:
        load_records(path, **kw)
    return str(ei.value)


def test_unknown_fields_ignored_and_tidy_shape(tmp_path):
    p = write_jsonl(tmp_path / "r.jsonl", [rec("A4", "t", "null", 1, "completed", something_new={"x": 1}),
                                           rec("A4", "t", "B1", 1, "amplified")])
    lr = load_records(p)
    assert lr.scored == 2 and lr.lines == 2
    row = lr.tidy.set_index("cell_key").loc["A4|t|B1|1"]
    assert row["amplified"] == 1 and row["not_amplified"] == 0 and bool(row["injected"])
    assert lr.tidy.set_index("cell_key").loc["A4|t|null|1", "completion"] == 1


@pytest.mark.parametrize("mutate,field", [
    (lambda r: r.pop("task"), "task"),
    (lambda r: r.update(outcome="great"), "outcome"),
    (lambda r: r.update(repeat=0), "repeat"),
    (lambda r: r.update(repeat="2"), "repeat"),
    (lambda r: r.update(shipped="yes"), "shipped"),
    (lambda r: r.update(tokens_in=-3), "tokens_in"),
    (lambda r: r.update(wall_s="slow"), "wall_s"),
    (lambda r: r.update(cost_usd="x"), "cost_usd"),
    (lambda r: r.update(arm=""), "arm"),
    (lambda r: r.update(factors=["m"]), "factors"),
    (lambda r: r.update(cell_key="A4|t|null|9"), "cell_key"),
    (lambda r: r.update(hidden_pass=False), "outcome"),  # completed with a failing hidden oracle
])
def test_errors_name_file_line_and_field(tmp_path, mutate, field):
    good = rec("A4", "t", "null", 1, "completed")
    bad = rec("A4", "t", "null", 2, "completed")
    mutate(bad)
    p = write_jsonl(tmp_path / "bad.jsonl", [good, bad])
    msg = _err(p)
    assert f"{p}:2: field '{field}'" in msg


def test_invalid_json_line(tmp_path):
    p = write_jsonl(tmp_path / "bad.jsonl", [rec("A4", "t", "null", 1, "completed"), "{not json"])
    assert f"{p}:2: not valid JSON" in _err(p)


def test_void_may_have_null_bools_but_scored_may_not(tmp_path):
    p = write_jsonl(tmp_path / "v.jsonl", [rec("A4", "t", "B1", 1, "void", void_reason="provider overload")])
    lr = load_records(p)
    assert lr.scored == 0 and lr.void == {"A4": 1}
    r = rec("A4", "t", "B1", 1, "recovered")
    r["shipped"] = None
    assert "field 'shipped'" in _err(write_jsonl(tmp_path / "b.jsonl", [r]))


def test_restart_duplicates_dropped_and_conflicts(tmp_path):
    a = rec("A4", "t", "B1", 1, "recovered")
    b = rec("A4", "t", "B1", 1, "amplified")
    p = write_jsonl(tmp_path / "d.jsonl", [a, dict(a), dict(a)])
    lr = load_records(p)
    assert lr.scored == 1 and lr.duplicates_dropped == 2
    p = write_jsonl(tmp_path / "c.jsonl", [a, b])
    msg = _err(p)
    assert "A4|t|B1|1" in msg and "--on-conflict" in msg
    first = load_records(p, on_conflict="first")
    last = load_records(p, on_conflict="last")
    assert first.tidy["outcome"].tolist() == ["recovered"]
    assert last.tidy["outcome"].tolist() == ["amplified"]
    assert first.accounting()["on_conflict"] == "first" and "A4|t|B1|1" in first.conflicts[0]


def test_void_then_rerun_is_superseded(tmp_path):
    p = write_jsonl(tmp_path / "v.jsonl", [rec("A2p", "t", "B1", 1, "void"), rec("A2p", "t", "B1", 1, "recovered"),
                                           rec("A2p", "t", "B2", 1, "void")])
    lr = load_records(p)
    assert lr.scored == 1 and lr.void == {"A2p": 1} and lr.void_superseded == 1


def test_factors_in_key_and_csv_factor_columns(tmp_path):
    recs = [rec("A4", "t", "B1", 1, "recovered", factors={"model": "m1"}),
            rec("A4", "t", "B1", 1, "amplified", factors={"model": "m2"})]
    lr = load_records(write_jsonl(tmp_path / "f.jsonl", recs))
    assert sorted(lr.tidy["cell_key"]) == ["A4|t|B1|1|model=m1", "A4|t|B1|1|model=m2"]
    assert lr.factor_names == ["model"]
    write_tidy(lr.tidy, tmp_path)
    back = load_records(tmp_path / "analysis.tidy.csv")
    assert sorted(back.tidy["cell_key"]) == sorted(lr.tidy["cell_key"])
    pq = load_records(tmp_path / "analysis.parquet")
    assert sorted(pq.tidy["cell_key"]) == sorted(lr.tidy["cell_key"])


def test_csv_errors_count_header_as_line_1(tmp_path):
    df = pd.DataFrame([rec("A4", "t", "null", 1, "completed"), rec("A4", "t", "null", 2, "completed")])
    df.loc[1, "outcome"] = "weird"
    p = tmp_path / "r.csv"
    df.to_csv(p, index=False)
    assert f"{p}:3: field 'outcome'" in _err(p)


def test_parquet_errors_name_row(tmp_path):
    df = pd.DataFrame([rec("A4", "t", "null", 1, "completed"), rec("A4", "t", "null", 2, "completed")])
    df["repeat"] = [1, 0]
    p = tmp_path / "r.parquet"
    df.to_parquet(p)
    assert f"{p}: row 2: field 'repeat'" in _err(p)


def test_missing_file_and_empty_file(tmp_path):
    assert "no such file" in _err(tmp_path / "nope.jsonl")
    (tmp_path / "e.jsonl").write_text("\n")
    assert "no records" in _err(tmp_path / "e.jsonl")


def test_declared_scenarios(tmp_path):
    p = write_jsonl(tmp_path / "s.jsonl", [rec("A4", "t", "B99", 1, "recovered")])
    assert "field 'scenario'" in _err(p, scenarios={"null", "B1"})


def test_json_null_scenario_is_the_no_injection_scenario(tmp_path):
    """Issue 13: a JSON null scenario has no other meaning; it is read as "null", like the string."""
    p = write_jsonl(tmp_path / "n.jsonl", [rec("A4", "t", None, 1, "completed"), rec("A4", "t", "B1", 1, "recovered")])
    lr = load_records(p)
    row = lr.tidy.set_index("cell_key").loc["A4|t|null|1"]
    assert row["scenario"] == "null" and not row["injected"] and row["completion"] == 1


def test_csv_empty_scenario_is_refused_not_guessed(tmp_path):
    """A CSV has no null: an empty scenario cell is an error, never read as the null scenario."""
    df = pd.DataFrame([rec("A4", "t", "null", 1, "completed"), rec("A4", "t", "null", 2, "completed")])
    df.loc[1, "scenario"] = ""
    p = tmp_path / "r.csv"
    df.to_csv(p, index=False)
    assert f"{p}:3: field 'scenario'" in _err(p)


def test_parquet_nullable_integers_from_pandas(tmp_path):
    """Issue 13: a void record's null tokens_in makes pandas store the column as float64; every
    row used to be refused ("must be an integer >= 0; got 159064.0")."""
    recs = [rec("A4", "t", "null", 1, "completed", tokens_in=159064),
            rec("A2p", "t", "null", 1, "completed", tokens_in=170001),
            rec("A2p", "t", "B1", 1, "void", tokens_in=None, tokens_out=None, wall_s=None)]
    df = pd.DataFrame(recs)
    assert df["tokens_in"].dtype == "float64"  # what pandas does with the null
    p = tmp_path / "f.parquet"
    df.to_parquet(p)
    lr = load_records(p)
    assert lr.scored == 2 and lr.void == {"A2p": 1}
    assert lr.tidy.set_index("cell_key").loc["A4|t|null|1", "tokens_in"] == 159064
    # the same data as nullable Int64 (pandas' own nullable integer), via Parquet and CSV
    df["tokens_in"] = df["tokens_in"].astype("Int64")
    df.to_parquet(tmp_path / "i.parquet")
    df.to_csv(tmp_path / "i.csv", index=False)
    for f in ("i.parquet", "i.csv"):
        assert load_records(tmp_path / f).tidy["tokens_in"].tolist() == [159064, 170001], f
    # a genuinely fractional token count is still refused
    df["tokens_in"] = [1.5, 2.0, None]
    df.to_parquet(tmp_path / "x.parquet")
    assert "field 'tokens_in'" in _err(tmp_path / "x.parquet")


def test_parquet_null_scenario_is_the_no_injection_scenario(tmp_path):
    df = pd.DataFrame([rec("A4", "t", None, 1, "completed"), rec("A4", "t", "B1", 1, "recovered")])
    p = tmp_path / "s.parquet"
    df.to_parquet(p)
    assert sorted(load_records(p).tidy["scenario"]) == ["B1", "null"]


def test_json_error_message_has_one_at(tmp_path):
    """Issue 13 typo: json's message for an unterminated string ends in 'at'; it read 'at at column'."""
    p = write_jsonl(tmp_path / "u.jsonl", ['{"arm": "A4, "task": 1}'])
    msg = _err(p)
    assert "at at" not in msg and f"{p}:1: not valid JSON (" in msg and "column" in msg
    p = write_jsonl(tmp_path / "v.jsonl", ['{"arm": }'])
    assert "Expecting value at column 9" in _err(p)


def test_mixed_protocol_digests_are_reported(tmp_path):
    p = write_jsonl(tmp_path / "d.jsonl", [rec("A4", "t", "B1", 1, "recovered", protocol_digest="aaa"),
                                           rec("A4", "t", "B1", 2, "recovered", protocol_digest="bbb")])
    assert load_records(p).accounting()["protocol_digests"] == ["aaa", "bbb"]


@pytest.mark.parametrize("spelling", ["NULL", "Null", "None", " null"])
def test_null_scenario_misspelled_is_rejected_not_scored_as_injected(tmp_path, spelling):
    """Review regression: 'NULL' used to be accepted as an injected scenario (wrong cell set)."""
    p = write_jsonl(tmp_path / "n.jsonl", [rec("A4", "t", spelling, 1, "completed")])
    msg = _err(p)
    assert f"{p}:1: field 'scenario'" in msg and '"null"' in msg


def test_protocol_scenarios_under_protocol_table_are_enforced(tmp_path):
    """Review regression: the harness's protocols declare scenarios under [protocol]; they were ignored."""
    from analysis.pipeline import analyze, load_protocol

    proto = tmp_path / "p.toml"
    proto.write_text('[protocol]\nname = "x"\nscenarios = ["null", "B2"]\n')
    assert load_protocol(proto).scenarios == {"null", "B2"}
    p = write_jsonl(tmp_path / "s.jsonl", [rec("A4", "t", "B3", 1, "recovered")])
    with pytest.raises(RecordsError, match="field 'scenario'"):
        analyze(p, tmp_path / "o", protocol=proto, B=10, figures=False)


def test_unknown_token_usage_on_a_scored_cell_is_accepted_and_stays_unknown(tmp_path):
    """Issue 11/12: an engine reply without usage makes the harness write null tokens on a scored
    cell (harness.core.record: "unknown, never 0"); the schema accepts it, so the analysis must too,
    and cost co-metrics average over the cells whose usage is known (never reading null as 0)."""
    from analysis.tables import per_arm_table
    from harness.core import record

    built = record.build(cell_key="A4|t|null|2", arm="A4", task="t", scenario="null", repeat=2,
                         outcome="completed", visible_pass=True, hidden_pass=True, shipped=True,
                         tokens_in=None, tokens_out=None, usage_missing_calls=1, failure_seen=False)
    p = write_jsonl(tmp_path / "r.jsonl", [rec("A4", "t", "null", 1, "completed", tokens_in=300, tokens_out=30),
                                           built])
    lr = load_records(p)
    assert lr.scored == 2
    tidy = lr.tidy.set_index("cell_key")
    assert tidy.loc["A4|t|null|1", "tokens_in"] == 300 and pd.isna(tidy.loc["A4|t|null|2", "tokens_in"])
    row = per_arm_table(lr.tidy, lr.void, lr.void_keys)[0]["A4"]
    assert (row["mean_tokens_in"], row["mean_tokens_out"], row["mean_tokens"]) == (300, 30, 330)
    assert row["tokens_known"] == 1  # the denominator of the token means, as cost_known is for cost
    write_tidy(lr.tidy, tmp_path)  # the tidy outputs hold the unknown as a null, not a crash
    assert pd.read_parquet(tmp_path / "analysis.parquet")["tokens_in"].isna().sum() == 1
