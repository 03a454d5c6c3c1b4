"""Inspect AI interop through inspect-ai's own log API: a harness run exports to eval logs that
read_eval_log opens (one per arm, each cell a sample), Inspect logs import to records, and a round
trip gives the same per-arm table and the same cells."""
from __future__ import annotations

import json
import shutil

import pytest
from click.testing import CliRunner

from harness.cli.cli import main
from harness.core.record import CellRecord
from harness.core.table import per_arm_rows, render
from harness.ledger.ledger import verify

inspect_log = pytest.importorskip("inspect_ai.log", reason="the inspect extra is not installed")
from interop.inspect_logs import _sample, export_run, import_logs  # noqa: E402

ARMS = ["A1", "A2", "A2p", "A3", "A4"]
FLAGS = ("outcome", "shipped", "visible_pass", "hidden_pass", "tokens_in", "tokens_out", "wall_s")


def _records(path):
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


def _cells(recs):
    """The records file's objects as the typed records the table and the export take."""
    return [CellRecord.from_json(r, source=f"line {i}") for i, r in enumerate(recs, 1)]


@pytest.fixture(scope="module")
def exported(qs_run, tmp_path_factory):
    logdir = tmp_path_factory.mktemp("logs")
    return export_run(qs_run, logdir)


def test_one_readable_eval_log_per_arm_each_cell_a_sample(qs_run, exported):
    recs = {r["cell_key"]: r for r in _records(qs_run / "records.jsonl")}
    assert len(exported) == 5
    for path in exported:
        log = inspect_log.read_eval_log(str(path))
        arm = log.eval.task_args["arm"]
        mine = [r for r in recs.values() if r["arm"] == arm]
        assert log.status == "success" and len(log.samples) == len(mine) == 18
        for s in log.samples:
            rec = recs[s.metadata["cell_key"]]
            assert s.id == f"{rec['task']}|{rec['scenario']}" and s.epoch == rec["repeat"]
            assert s.scores["outcome"].value == rec["outcome"]
            assert {k: s.metadata[k] for k in ("task", "scenario", "repeat", "detectors")} == {
                "task": rec["task"], "scenario": rec["scenario"], "repeat": rec["repeat"], "detectors": []}
            assert [m.role for m in s.messages[:2]] == ["system", "user"] and s.messages[-1].role == "assistant"
        row = next(r for r in per_arm_rows(_cells(recs.values()), ARMS) if r.arm == arm)
        amp = log.results.scores[0].metrics["amplified"]
        assert (amp.metadata["k"], amp.metadata["n"], amp.value) == (row.amplified.k, row.amplified.n,
                                                                     row.amplified.rate)


def test_round_trip_gives_the_same_per_arm_table_and_cells(qs_run, exported, tmp_path):
    out = tmp_path / "back.jsonl"
    res = import_logs(exported[0].parent, out, arm_from="task_args.arm")
    assert res.records == 90 and res.arms == {a: 18 for a in ARMS}
    orig, back = _records(qs_run / "records.jsonl"), _records(out)
    assert render(per_arm_rows(_cells(back), ARMS)) == render(per_arm_rows(_cells(orig), ARMS))
    want = {r["cell_key"]: {k: r[k] for k in FLAGS} for r in orig}
    assert {r["cell_key"]: {k: r[k] for k in FLAGS} for r in back} == want
    assert verify(out) == [], "imported records are a hash-chained ledger"


def _generic_log(path, model, verdicts):
    """An Inspect log as Inspect itself would write one: samples scored C/I, one errored, one at a limit."""
    from inspect_ai.log import (
        EvalConfig,
        EvalDataset,
        EvalError,
        EvalLog,
        EvalSample,
        EvalSampleLimit,
        EvalSpec,
        write_eval_log,
    )
    from inspect_ai.scorer import Score
    samples = []
    for sid, epoch, v in verdicts:
        kw = {}
        if v == "error":
            kw["error"] = EvalError(message="sandbox died", traceback="", traceback_ansi="")
        elif v == "limit":
            kw["limit"] = EvalSampleLimit(type="token", limit=1000)
        samples.append(EvalSample(id=sid, epoch=epoch, input="q", target="a", scores={
            "match": Score(value="I" if v in ("I", "limit") else "C")} if v != "error" else {}, **kw))
    log = EvalLog(eval=EvalSpec(created="2025-01-01T00:00:00Z", task="swe", model=model, dataset=EvalDataset(name="d"),
                                config=EvalConfig()), samples=samples, status="success")
    write_eval_log(log, str(path))


def test_an_inspect_users_logs_import_with_the_mapping_stated(tmp_path):
    logs = tmp_path / "logs"
    logs.mkdir()
    _generic_log(logs / "a.eval", "openai/gpt-x", [("t1", 1, "C"), ("t2", 1, "I"), ("t3", 1, "limit"), ("t4", 1, "error")])
    _generic_log(logs / "b.eval", "anthropic/claude-y", [("t1", 1, "C"), ("t2", 1, "C"), ("t3", 1, "I"), ("t4", 1, "C")])
    out = tmp_path / "r.jsonl"
    res = import_logs(logs, out, arm_from="model")
    assert res.arms == {"openai/gpt-x": 4, "anthropic/claude-y": 4}
    got = {r["cell_key"]: r["outcome"] for r in _records(out)}
    assert got == {"openai/gpt-x|t1|null|1": "completed", "openai/gpt-x|t2|null|1": "amplified",
                   "openai/gpt-x|t3|null|1": "safe_stop", "openai/gpt-x|t4|null|1": "void",
                   "anthropic/claude-y|t1|null|1": "completed", "anthropic/claude-y|t2|null|1": "completed",
                   "anthropic/claude-y|t3|null|1": "amplified", "anthropic/claude-y|t4|null|1": "completed"}
    assert all("inspect_mapping" in r for r in _records(out))
    from analysis.records import load_records
    loaded = load_records(out)  # the analysis accepts them: the matched-cell statistics apply
    assert loaded.scored == 7 and loaded.void == {"openai/gpt-x": 1}


def test_bad_input_is_one_line_with_exit_2(exported, tmp_path):
    def imp(*args):
        return CliRunner().invoke(main, ["import", "inspect", *map(str, args)])
    r = imp(exported[0].parent, "--arm-from", "metadata.nope", "--out", tmp_path / "x.jsonl")
    assert r.exit_code == 2 and "metadata.nope" in r.stderr and "Traceback" not in r.stderr
    (tmp_path / "exists.jsonl").write_text("")
    r = imp(exported[0].parent, "--arm-from", "task_args.arm", "--out", tmp_path / "exists.jsonl")
    assert r.exit_code == 2 and "already exists" in r.stderr
    (tmp_path / "stale.head").write_text("89 abc\n")  # an earlier import's records deleted, its head left behind
    r = imp(exported[0].parent, "--arm-from", "task_args.arm", "--out", tmp_path / "stale.jsonl")
    assert r.exit_code == 2 and "stale.head: --out: already exists" in r.stderr and "Traceback" not in r.output
    (tmp_path / "junk").mkdir()
    (tmp_path / "junk" / "x.json").write_text("{}")  # not named as Inspect names its logs: not listed
    r = imp(tmp_path / "junk", "--arm-from", "model", "--out", tmp_path / "y.jsonl")
    assert r.exit_code == 2 and "no Inspect eval logs found" in r.stderr
    (tmp_path / "junk" / "2025-01-01T00-00-00_x.json").write_text("{}")
    r = imp(tmp_path / "junk", "--arm-from", "model", "--out", tmp_path / "y.jsonl")
    assert r.exit_code == 2 and "not a readable Inspect eval log" in r.stderr and "Traceback" not in r.stderr
    assert len(r.stderr.strip().splitlines()) == 1, r.stderr


def test_a_log_dir_holding_inspects_own_manifest_imports(exported, tmp_path):
    """`inspect view bundle` (and write_log_dir_manifest) leave logs.json beside the logs: it is
    Inspect's listing, not a log, and must not make the import refuse the folder."""
    logs = tmp_path / "logs"
    shutil.copytree(exported[0].parent, logs)
    inspect_log.write_log_dir_manifest(str(logs))
    assert (logs / "logs.json").is_file()
    res = import_logs(logs, tmp_path / "r.jsonl", arm_from="task_args.arm")
    assert (res.records, res.logs) == (90, 5)


def test_round_trip_keeps_every_field_the_export_wrote(qs_run, exported, tmp_path):
    """What the export puts in a sample (digest, attempts, review rounds, failure seen, usage by
    model) comes back on import: the analysis checks the protocol digest of what it reads."""
    out = tmp_path / "back.jsonl"
    import_logs(exported[0].parent, out, arm_from="task_args.arm")
    orig = {r["cell_key"]: r for r in _records(qs_run / "records.jsonl")}
    for r in _records(out):
        o = orig[r["cell_key"]]
        for k in ("protocol_digest", "attempts", "review_rounds", "failure_seen", "usage_by_model"):
            assert r.get(k) == o.get(k), (r["cell_key"], k, r.get(k), o.get(k))


def test_bad_sample_metadata_in_a_users_log_is_one_line_with_exit_2(tmp_path):
    from inspect_ai.log import EvalConfig, EvalDataset, EvalLog, EvalSample, EvalSpec, write_eval_log
    from inspect_ai.scorer import Score
    logs = tmp_path / "logs"
    logs.mkdir()
    sample = EvalSample(id="t1", epoch=1, input="q", target="a", scores={"match": Score(value="C")},
                        metadata={"repeat": "first", "tokens_in": None})
    write_eval_log(EvalLog(eval=EvalSpec(created="2025-01-01T00:00:00Z", task="swe", model="m/x",
                                         dataset=EvalDataset(name="d"), config=EvalConfig()),
                           samples=[sample], status="success"), str(logs / "a.eval"))
    r = CliRunner().invoke(main, ["import", "inspect", str(logs), "--arm-from", "model", "--out", str(tmp_path / "r.jsonl")])
    assert r.exit_code == 2 and "Traceback" not in r.output, r.output
    assert "sample t1" in r.stderr and "repeat" in r.stderr and len(r.stderr.strip().splitlines()) == 1, r.stderr


def test_export_of_a_transcript_torn_by_a_kill_is_not_a_traceback(qs_run, tmp_path):
    """A kill mid-write leaves a transcript's last line torn: the export keeps the complete lines
    (as the viewer does); a broken line elsewhere is one line naming the file and line, exit 2."""
    run = tmp_path / "run"
    shutil.copytree(qs_run, run, ignore=shutil.ignore_patterns("cells", "verdict-cache", "analysis"))
    first, second = sorted((run / "transcripts").glob("*.jsonl"))[:2]
    first.write_bytes(first.read_bytes()[:-40])
    r = CliRunner().invoke(main, ["export", "inspect", str(run), "--out", str(tmp_path / "logs")])
    assert r.exit_code == 0, r.output
    lines = second.read_text().splitlines(keepends=True)
    second.write_text("".join(lines[:1] + ["{torn\n"] + lines[1:]))
    r = CliRunner().invoke(main, ["export", "inspect", str(run), "--out", str(tmp_path / "logs2")])
    assert r.exit_code == 2 and "Traceback" not in r.output, r.output
    assert f"{second}:2: line: not valid JSON" in r.stderr and len(r.stderr.strip().splitlines()) == 1, r.stderr


def test_a_harness_export_outcome_that_contradicts_eq7_is_refused_at_import(tmp_path):
    """A log's 'outcome' score is taken as adjudicated, with its flags from the score's metadata; an
    outcome its own flags contradict (here 'completed' that was never shipped) used to be written into
    the records as is. Eq. 7 is checked on this record path too: one line, exit 2."""
    from inspect_ai.log import EvalConfig, EvalDataset, EvalLog, EvalSample, EvalSpec, write_eval_log
    from inspect_ai.scorer import Score
    logs = tmp_path / "logs"
    logs.mkdir()
    flags = {"shipped": False, "visible_pass": True, "hidden_pass": True}
    sample = EvalSample(id="t1", epoch=1, input="q", target="a",
                        scores={"outcome": Score(value="completed", metadata=flags)}, metadata={"task": "t1"})
    write_eval_log(EvalLog(eval=EvalSpec(created="2025-01-01T00:00:00Z", task="swe", model="m/x",
                                         dataset=EvalDataset(name="d"), config=EvalConfig()),
                           samples=[sample], status="success"), str(logs / "a.eval"))
    out = tmp_path / "r.jsonl"
    r = CliRunner().invoke(main, ["import", "inspect", str(logs), "--arm-from", "model", "--out", str(out)])
    assert r.exit_code == 2 and "Traceback" not in r.output, r.output
    assert "sample t1" in r.stderr and "Eq. 7" in r.stderr and len(r.stderr.strip().splitlines()) == 1, r.stderr


def test_a_void_cells_sample_carries_its_kind(qs_run):
    """Record schema v3's void_kind and void_detail reach the sample's metadata; an older void
    record's kind is read from its void_reason text (as the analysis reads it); a scored cell has
    neither."""
    rec = _records(qs_run / "records.jsonl")[0]
    assert "void_kind" not in _sample(*_cells([rec]), None).metadata
    v3 = {**rec, "outcome": "void", "void_kind": "engine_fault", "void_detail": "HTTP 529 after 5 retries",
          "void_reason": "engine fault: HTTP 529 after 5 retries", "shipped": None}
    meta = _sample(*_cells([v3]), None).metadata
    assert (meta["void_kind"], meta["void_detail"]) == ("engine_fault", "HTTP 529 after 5 retries")
    old = {k: v for k, v in v3.items() if k not in ("void_kind", "void_detail")}
    meta = _sample(*_cells([{**old, "void_reason": "harness error: KeyError 'x'"}]), None).metadata
    assert (meta["void_kind"], meta["void_detail"]) == ("harness_error", None)
    assert _sample(*_cells([{**old, "void_reason": "no known kind"}]), None).metadata["void_kind"] is None


def test_export_of_a_run_whose_ledger_does_not_verify_warns_on_stderr(qs_run, tmp_path):
    run = tmp_path / "run"
    shutil.copytree(qs_run, run)
    lines = (run / "records.jsonl").read_text().splitlines(keepends=True)
    (run / "records.jsonl").write_text("".join(lines[:3] + lines[4:]))  # one record deleted
    r = CliRunner().invoke(main, ["export", "inspect", str(run), "--out", str(tmp_path / "logs")])
    assert r.exit_code == 0, r.stderr
    warning = r.stderr.strip().splitlines()
    assert len(warning) == 1 and warning[0].startswith(f"warning: {run / 'records.jsonl'} does not verify: ")
    assert "deleted" in warning[0] and "harness ledger verify" in warning[0]
    r = CliRunner().invoke(main, ["export", "inspect", str(qs_run), "--out", str(tmp_path / "intact")])
    assert r.exit_code == 0 and r.stderr == ""
