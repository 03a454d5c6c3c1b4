"""Inspect AI eval logs <-> records of the interchange format, through inspect-ai's own log API.

Export (``harness export inspect RUN --out LOGDIR``): one eval log per arm, so ``inspect view``
opens a harness run. Each cell is a sample: ``id`` = task|scenario[|factors] (the matched unit
without the repeat) and ``epoch`` = the repeat, so the same sample id names the same matched
cell across the arms' logs; ``messages`` = the worker's conversation rebuilt from the stored
(redacted) transcript; one score ``outcome`` whose value is the Eq. 7 outcome and whose metadata
holds shipped / visible_pass / hidden_pass; ``metadata`` = task, scenario, repeat, cell key,
arm, detectors and the cell's cost and tokens, and for a void cell its ``void_kind`` and
``void_detail`` (record schema v3). A void cell is a sample with an error and the outcome "void".
The log's results carry the arm's completion and amplified rates with their Wilson 95% bounds (harness.core.table), each with k and n.

Import (``harness import inspect LOGDIR --arm-from FIELD --out records.jsonl``): every sample of
every log under LOGDIR becomes a record, so the matched-cell statistics (paired cluster bootstrap,
Wilson, Fisher with BH) run on Inspect results. ``arm`` comes from FIELD: ``model``, ``task``,
``task_args.NAME``, ``metadata.NAME`` (the eval's) or ``sample.metadata.NAME``. A sample that
carries an ``outcome`` score (a harness export) keeps its outcome and flags. Any other log has no
visible/hidden split and no shipping decision, so the mapping is stated in each record
(``inspect_mapping``): hidden_pass = the scorer's verdict (``--score``, default the first);
shipped = the sample ended without an error or a limit; visible_pass = shipped unless
``--visible-score`` names a scorer (no visible gate ran: nothing shipped failed one); outcome by
Eq. 7 (completed / amplified / safe_stop / false_stop; recovered needs a failure seen, which an
Inspect log does not record); an errored sample is void. task = sample.metadata.task or the
sample id; scenario = sample.metadata.scenario or "null"; repeat = the epoch.
"""
from __future__ import annotations

import time
from collections import defaultdict
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import urlparse
from urllib.request import url2pathname

from harness.core import runio
from harness.core.errors import ExitCode, InputError
from harness.core.outcomes import Outcome
from harness.core.record import OUTCOMES, CellRecord
from harness.core.table import per_arm_rows
from harness.run.records import write_records

SCORER = "harness_adjudicator"


def _require():
    try:
        import inspect_ai  # noqa: F401
    except ImportError as exc:
        raise InputError("inspect-ai", "import", "the Inspect interop needs the inspect extra: "
                         "pip install -e '.[inspect]'") from exc


# ------------------------------------------------------------------------------------ export

def conversation(transcript_text: str | None, role: str = "worker", source: str = "transcript") -> list[dict]:
    """One role's full conversation from a stored transcript: the system prompt, every message of
    the last request (deltas applied) and the last reply, as {role, content, tool_calls?, tool_call_id?}.
    A torn last line (a kill mid-write, a cell still running) is left out, as the viewer does."""
    full: list[dict] = []
    system, last_reply = None, None
    lines = (transcript_text or "").split("\n")
    for i, line in enumerate(lines, 1):
        if not line.strip():
            continue
        try:
            e = runio.parse_json(line, source, i)  # nesting bounded before it is parsed (never RecursionError)
        except runio.UnsafeFile as exc:
            if i == len(lines):  # no newline after it: a line still being (or never finished) written
                continue
            raise InputError(source, "line", f"{exc.message}; expected one JSON object per line", line=i) from None
        if not isinstance(e, dict):
            raise InputError(source, "line", f"expected a JSON object, got {type(e).__name__}", line=i)
        if e.get("kind") not in ("call", "fault") or e.get("role") != role:
            continue
        req = e.get("request") or {}
        full = full[: int(req.get("prefix", 0))] + list(req.get("messages", []))
        system = req.get("system", system)
        last_reply = e.get("reply") if e.get("kind") == "call" else None
    msgs = ([{"role": "system", "content": system}] if system else []) + full
    if last_reply:
        msgs.append({"role": "assistant", "content": last_reply.get("text", ""),
                     "tool_calls": last_reply.get("tool_calls", [])})
    return msgs


def _chat(m: dict):
    from inspect_ai.model import ChatMessageAssistant, ChatMessageSystem, ChatMessageTool, ChatMessageUser
    from inspect_ai.tool import ToolCall
    content = m.get("content") or ""
    if m["role"] == "system":
        return ChatMessageSystem(content=content)
    if m["role"] == "user":
        return ChatMessageUser(content=content)
    if m["role"] == "tool":
        return ChatMessageTool(content=content, tool_call_id=m.get("tool_call_id"))
    calls = [ToolCall(id=str(c.get("id")), function=c["name"], arguments=c.get("arguments") or {})
             for c in m.get("tool_calls") or []]
    return ChatMessageAssistant(content=content, tool_calls=calls or None)


def _sample(rec: CellRecord, transcript_text: str | None, source: str = "transcript"):
    from inspect_ai.log import EvalError, EvalSample
    from inspect_ai.model import ModelUsage
    from inspect_ai.scorer import Score
    msgs = [_chat(m) for m in conversation(transcript_text, source=source)]
    first_user = next((m.text for m in msgs if m.role == "user"), "")
    factors = rec.factors or {}
    sid = "|".join([rec.task, str(rec.scenario), *[f"{k}={v}" for k, v in sorted(factors.items())]])
    flags = {"shipped": rec.shipped, "visible_pass": rec.visible_pass, "hidden_pass": rec.hidden_pass,
             "failure_seen": rec.failure_seen, "stop_reason": rec.stop_reason, "void_reason": rec.void_reason}
    score = Score(value=rec.outcome.value, answer="shipped" if rec.shipped else "not shipped",
                  explanation=(f"Eq. 7 (adjudicator's total order): S={rec.shipped}, G={rec.hidden_pass}, "
                               f"visible={rec.visible_pass}, detectors={rec.unsafe_detectors or []}"),
                  metadata=flags)
    usage = {m: ModelUsage(input_tokens=u.get("input_tokens", 0), output_tokens=u.get("output_tokens", 0),
                           total_tokens=u.get("input_tokens", 0) + u.get("output_tokens", 0),
                           input_tokens_cache_read=u.get("cache_read_tokens"),
                           input_tokens_cache_write=u.get("cache_write_tokens"), reasoning_tokens=u.get("reasoning_tokens"))
             for m, u in (rec.usage_by_model or {}).items()}
    meta = {"task": rec.task, "scenario": str(rec.scenario), "repeat": rec.repeat, "cell_key": rec.cell_key,
            "arm": rec.arm, "detectors": sorted(rec.unsafe_detectors or []), "factors": factors,
            "tokens_in": rec.tokens_in, "tokens_out": rec.tokens_out, "wall_s": rec.wall_s, "cost_usd": rec.cost_usd,
            "attempts": rec.attempts, "review_rounds": rec.review_rounds, "model_id": rec.model_id,
            "engine": rec.engine, "protocol_digest": rec.protocol_digest,
            "hash": rec.ledger.hash if rec.ledger else None, "usage_by_model": rec.usage_by_model,
            **_void_fields(rec)}
    error = (EvalError(message=str(rec.void_reason), traceback="", traceback_ansi="")
             if rec.outcome is Outcome.VOID else None)
    return EvalSample(id=sid, epoch=int(rec.repeat), input=first_user or rec.cell_key, target="",
                      messages=msgs, scores={"outcome": score}, metadata=meta, model_usage=usage,
                      total_time=rec.wall_s, error=error)


def _void_fields(rec: CellRecord) -> dict:
    """A void cell's kind (a ``VoidKind`` value: from ``void_kind`` on a v3 record, read from
    ``void_reason`` on an older one, as ``CellRecord.kind`` does) and detail, for the sample's
    metadata; nothing for a cell that is not void."""
    if rec.scored:
        return {}
    kind = rec.kind
    return {"void_kind": kind.value if kind is not None else None, "void_detail": rec.void_detail}


def _refuse_forged_kinds(run) -> None:
    """InputError (file, line, field) for the first record whose closed kinds the analysis would
    refuse (``kind_problems``: a void_kind that is unknown, stops the run, or contradicts the
    record's own void_reason): the export must not carry into a sample a kind the run never
    wrote. Checked before any log is written."""
    from harness.core.record import kind_problems
    for line, rec in zip(run.record_lines, run.records):
        for fld, what in kind_problems(rec.to_json()):
            raise InputError(str(run.path / "records.jsonl"), fld, what, line=line)


def export_run(run_dir: Path, logdir: Path) -> list[Path]:
    """Write one Inspect eval log per arm of the run into logdir; returns their paths."""
    _require()
    from inspect_ai.log import (
        EvalConfig,
        EvalDataset,
        EvalLog,
        EvalMetric,
        EvalPlan,
        EvalResults,
        EvalScore,
        EvalSpec,
        EvalStats,
        write_eval_log,
    )

    from viewer.celldata import transcript_file
    from viewer.rundir import load_run
    run = load_run(Path(run_dir))
    _refuse_forged_kinds(run)
    logdir = Path(logdir)  # the logs are written aside and put in place whole (a full disk: exit 2, nothing left)
    with runio.staged_dir(logdir, f"harness export inspect {run_dir} --out {logdir}", ExitCode.BAD_INPUT) as stage:
        created = run.meta.created or time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
        paths = []
        for row in per_arm_rows(run.records, run.arms):
            arm = row.arm
            recs = [r for r in run.records if r.arm == arm]
            if not recs:
                continue
            samples = []
            for r in recs:
                tr = transcript_file(run.path, r.cell_key, r)
                text = runio.read_bytes(tr, "transcript").decode(errors="replace") if tr.is_file() else None
                samples.append(_sample(r, text, str(tr)))
            models: list = sorted({m for r in recs for m in (r.model_id or "").split(",") if m}) or [run.meta.engine]
            metrics = {}
            for name, p, denominator in (("completion", row.completion, "scored null cells"),
                                         ("amplified", row.amplified, "scored injected cells")):
                if p.n and p.rate is not None:  # a rate has a denominator
                    metrics[name] = EvalMetric(name=name, value=p.rate, metadata={
                        "k": p.k, "n": p.n, "lo": p.lo, "hi": p.hi, "interval": "Wilson score 95% (Eq. 6)",
                        "denominator": denominator})
            spec = EvalSpec(created=created, task=f"{run.meta.protocol}/{arm}", task_args={"arm": arm},
                            run_id=str(run.meta.run_id), model="/".join([str(run.meta.engine), models[0]]),
                            dataset=EvalDataset(name=str(run.meta.protocol), samples=len(samples)),
                            config=EvalConfig(epochs=max(int(r.repeat) for r in recs)),
                            metadata={"harness_protocol_digest": run.meta.protocol_digest,
                                      "preregistered": run.meta.preregistered, "arm": arm, "models": models,
                                      "source": "proof-harness run directory (harness export inspect)"})
            results = EvalResults(total_samples=len(samples), completed_samples=sum(r.scored for r in recs),
                                  scores=[EvalScore(name="outcome", scorer=SCORER, metrics=metrics)])
            log = EvalLog(eval=spec, plan=EvalPlan(), results=results, samples=samples,
                          stats=EvalStats(started_at=created, completed_at=created), status="success")
            path = logdir / f"{created.replace(':', '-')}_{run.meta.protocol}-{arm}_{run.meta.run_id}.eval"
            write_eval_log(log, str(stage / path.name))
            paths.append(path)
    return paths


# ------------------------------------------------------------------------------------ import

def _field(log, sample, spec: str):
    ev = log.eval
    if spec == "model":
        return ev.model
    if spec == "task":
        return ev.task
    for prefix, source in (("task_args.", ev.task_args or {}), ("metadata.", ev.metadata or {}),
                           ("sample.metadata.", sample.metadata or {})):
        if spec.startswith(prefix):
            return source.get(spec[len(prefix):])
    raise InputError("--arm-from", spec, "expected model, task, task_args.NAME, metadata.NAME or sample.metadata.NAME")


def _verdict(score) -> bool:
    v = score.value
    if isinstance(v, str):
        return v.strip().upper() in ("C", "CORRECT", "TRUE", "PASS", "1", "YES")
    if isinstance(v, bool):
        return v
    if isinstance(v, (int, float)):
        return float(v) >= 1.0
    raise ValueError(f"score value {v!r} is not a verdict (expected C/I, a number or a bool)")


def _eq7(shipped: bool, visible: bool, hidden: bool) -> str:
    from harness.core.record import eq7  # Eq. 7, defined once
    return eq7(shipped, visible, hidden, failure_seen=False)


@dataclass
class Imported:
    records: int
    logs: int
    arms: dict[str, int]


@dataclass(frozen=True)
class ImportedRecord:
    """The record the import makes of one Inspect sample: the ``CellRecord`` and the record fields the sample
    states (``stated``). A producer writes what it knows and no more (an Inspect log states no cache tokens,
    no probe and no receipts), so the file's object is the record's JSON cut to those fields and the import's
    own (``inspect_*``, the record's ``extra``): ``to_json``, called where the records file is written."""

    record: CellRecord
    stated: frozenset[str]

    def to_json(self) -> dict[str, Any]:
        return {k: v for k, v in self.record.to_json().items() if k in self.stated or k in self.record.extra}


def _record(log, path: Path, sample, arm_from: str, score_name: str | None, visible_score: str | None) -> ImportedRecord:
    where = f"{path} sample {sample.id} epoch {sample.epoch}"
    arm = _field(log, sample, arm_from)
    if arm in (None, ""):
        raise InputError(where, arm_from, "empty: the arm must come from a field every sample has")
    meta = sample.metadata or {}
    scores = sample.scores or {}
    usage = sample.model_usage or {}
    def number(kind, name, default):
        value = meta.get(name, default)
        if value is None and name in meta:  # stated unknown (a void cell's tokens): kept unknown, not made 0
            return None
        try:
            return kind(value)
        except (TypeError, ValueError):
            raise InputError(where, f"metadata.{name}", f"{value!r} is not {'an integer' if kind is int else 'a number'}"
                             ) from None

    task, scenario = str(meta.get("task", sample.id)), str(meta.get("scenario", "null"))
    repeat, factors = number(int, "repeat", sample.epoch), meta.get("factors") or {}
    values: dict[str, Any] = {
        "arm": str(arm), "task": task, "scenario": scenario, "repeat": repeat,
        "tokens_in": number(int, "tokens_in", sum(u.input_tokens for u in usage.values())),
        "tokens_out": number(int, "tokens_out", sum(u.output_tokens for u in usage.values())),
        "wall_s": number(float, "wall_s", sample.total_time or sample.working_time or 0.0),
        "factors": factors, "model_id": meta.get("model_id", log.eval.model),
        "engine": meta.get("engine", "inspect"), "cost_usd": meta.get("cost_usd"),
        "unsafe_detectors": list(meta.get("detectors") or [])}
    # what a harness export carries beside the outcome (the analysis reads protocol_digest)
    values.update({k: meta[k] for k in ("attempts", "review_rounds", "protocol_digest", "usage_by_model")
                   if meta.get(k) is not None})
    outcome, mapping = _outcome_fields(sample, scores, where, score_name, visible_score)
    values.update(outcome)
    key = "|".join([str(arm), task, scenario, str(repeat), *[f"{k}={v}" for k, v in sorted(factors.items())]])
    rec = CellRecord(cell_key=key, **values).with_extra(
        inspect_log=path.name, inspect_sample_id=sample.id, inspect_epoch=sample.epoch,
        inspect_eval_id=log.eval.eval_id, inspect_mapping=mapping)
    return ImportedRecord(rec, frozenset({"cell_key", *values}))


def _outcome_fields(sample, scores: dict, where: str, score_name: str | None,
                    visible_score: str | None) -> tuple[dict[str, Any], str]:
    """The record's outcome and flags (the fields a sample states, by name) and its ``inspect_mapping``: a
    harness export's own adjudicated outcome (checked against Eq. 7), void for an errored sample, else Eq. 7
    over the hidden score (``score_name``), the visible one (or shipped) and shipped (no limit hit)."""
    own = scores.get("outcome")
    if own is not None and own.value in OUTCOMES:  # a harness export: the adjudicator's outcome and flags
        m = own.metadata or {}
        flags = {"shipped": m.get("shipped"), "visible_pass": m.get("visible_pass"), "hidden_pass": m.get("hidden_pass")}
        if all(isinstance(v, bool) for v in flags.values()):
            from harness.core.record import eq7_violation  # Eq. 7, defined once
            why = eq7_violation(own.value, flags)
            if why:
                raise InputError(where, "scores.outcome", why)
        return ({"outcome": own.value, **flags, "void_reason": m.get("void_reason"),
                 "stop_reason": m.get("stop_reason"), "failure_seen": m.get("failure_seen")},
                "harness export: outcome score as adjudicated")
    if sample.error is not None:
        return ({"outcome": Outcome.VOID, "shipped": None, "visible_pass": None, "hidden_pass": None,
                 "void_reason": f"inspect sample error: {sample.error.message}"[:500]},
                "errored sample -> void")
    name = score_name or next(iter(scores), None)
    if name is None or name not in scores:
        raise InputError(where, "scores", f"no score {name!r} (has: {', '.join(scores) or 'none'}); pass --score NAME")
    try:
        hidden = _verdict(scores[name])
        shipped = sample.limit is None
        visible = _verdict(scores[visible_score]) if visible_score else shipped
    except KeyError:
        raise InputError(where, "--visible-score", f"no score {visible_score!r} in this sample") from None
    except ValueError as exc:
        raise InputError(where, f"scores.{name}", str(exc)) from exc
    return ({"outcome": _eq7(shipped, visible, hidden), "shipped": shipped, "visible_pass": visible,
             "hidden_pass": hidden},
            (f"hidden_pass = score {name}; shipped = no error and no limit; visible_pass = "
             + (f"score {visible_score}" if visible_score else "shipped (no visible gate)")
             + "; outcome by Eq. 7 with no failure seen"))


def import_logs(logdir: Path, out: Path, *, arm_from: str, score: str | None = None,
                visible_score: str | None = None) -> Imported:
    """Records (hash-chained, one per sample) from every Inspect log under logdir."""
    _require()
    from inspect_ai.log import list_eval_logs, read_eval_log
    logdir, out = Path(logdir), Path(out)
    for path in (out, out.with_suffix(".head")):  # a head left by a deleted records file would refuse the ledger
        if path.exists():
            raise InputError(str(path), "--out", "already exists; records files are append-only ledgers (with their "
                             ".head), give a new path")
    # a file named as an eval log that is not a regular file (a FIFO, a socket, a link): Inspect's listing
    # skips it without a word, so the import would say "from N-1 logs"; the one safe reader's rule names it
    for cand in sorted(logdir.rglob("*.eval")):
        runio.regular_or_absent(cand, "Inspect eval log")
    # Inspect's own listing: it knows its log names (and skips its manifest, logs.json, and other files)
    paths = sorted(Path(url2pathname(urlparse(info.name).path)) for info in list_eval_logs(str(logdir.resolve())))
    if not paths:
        raise InputError(str(logdir), "LOGDIR", "no Inspect eval logs found (as Inspect lists them: *.eval, "
                         "and *.json named with the ISO timestamp Inspect writes)")
    recs: list[ImportedRecord] = []
    arms: defaultdict[str, int] = defaultdict(int)
    seen: dict = {}
    for path in paths:
        try:
            log = read_eval_log(str(path))
        except Exception as exc:  # the library's own error for a file that is not an eval log
            why = " ".join(str(exc).split())[:300]  # one line (pydantic's message spans several)
            raise InputError(str(path), "log", f"not a readable Inspect eval log: {type(exc).__name__}: {why}") from exc
        for sample in log.samples or []:
            rec = _record(log, path, sample, arm_from, score, visible_score)
            key = rec.record.cell_key
            if key in seen:
                raise InputError(str(path), "cell key", f"{key} also comes from {seen[key]}; "
                                 "choose an --arm-from field that tells the logs apart")
            seen[key] = f"{path.name} sample {sample.id} epoch {sample.epoch}"
            recs.append(rec)
            arms[rec.record.arm] += 1
    try:  # serialized here, where the file is written
        write_records(out, (r.to_json() for r in recs), rerun=f"harness import inspect {logdir} --arm-from {arm_from} --out {out}")
    except FileExistsError:  # another import wrote it meanwhile: never overwritten
        raise InputError(str(out), "--out", "already exists (written by another process meanwhile); records files "
                         "are append-only ledgers, give a new path") from None
    return Imported(len(recs), len(paths), dict(arms))
