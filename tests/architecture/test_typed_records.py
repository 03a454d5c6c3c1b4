"""Records are typed from the cell to the page (issue 36): read from the AST of every module.

A cell produces a ``harness.core.record.CellRecord``; the layers above carry the object, and JSON
appears only where a file is read or written. Two rules, checked on every module of the packages:

1. **No record field read by string key.** A subscript load (``rec["outcome"]``) or a ``.get``
   (``r.get("arm")``) whose key is a record field (``record.FIELDS`` and the ledger's stamp) is a
   finding, outside the serialization edge (``EDGE``: the modules that read or write a records
   file, or validate its objects before they are parsed).
2. **No outcome compared with a string literal.** A comparison (``==``, ``!=``, ``in``, ``not
   in``) with an outcome's value as a literal (``"void"``, or a tuple holding ``"completed"``) is a
   finding outside the enum's definition (``harness/core/outcomes.py``): code compares
   ``Outcome`` members.

A string-key read is told from an attribute read by syntax only, so a dict that is not a record
but uses a record field's name as a key (a table row's ``"arm"``, run.json's ``"run_id"``, an
event's ``"seq"``) is a finding too. Those reads are listed by function in ``NOT_YET`` with their
count and why: the count is exact, so a new read fails the test and a read removed asks for its
entry to shrink (the table cannot go stale). No entry is a record read as a dict: none is "not yet
typed" (a test says so).
"""
from __future__ import annotations

import ast
from dataclasses import dataclass
from pathlib import Path

import pytest

from harness.core.record import FIELDS, LEDGER_STAMP, OUTCOMES

REPO = Path(__file__).resolve().parents[2]
PACKAGES = ("harness", "analysis", "corpus", "viewer", "interop")
SKIP = ("corpus/catalogue", "corpus/examples")  # data: loops' gates and example trees, not the package's code
RECORD_KEYS = frozenset(FIELDS) | frozenset(LEDGER_STAMP)
ENUM_DEFINITION = "harness/core/outcomes.py"

# The serialization edge: modules that read or write a records file, or check a record's JSON
# object before it is parsed into a CellRecord. Every read outside them is a finding.
EDGE = {
    "harness/core/record.py": "CellRecord.from_json / to_json, the JSON Schema, and the checks of a record's raw object",
    "harness/ledger/ledger.py": ("the hash-chained records file: hashes, chains and anchors over the lines as written, and "
                                 "LedgerLine, the lenient view of a line that receipts verify and rejudge check"),
    "harness/ledger/seal.py": "the run key's seal over the ledger's lines as written",
    "harness/ledger/rundir.py": "run.json repaired from the records file's lines",
    "analysis/records.py": "the analysis's reader: validates every producer's record object (JSONL, CSV, Parquet) into columns",
    "analysis/fastload.py": "the analysis's columnar fast reader of a records file (a million records in seconds)",
    "harness/cli/schema_cli.py": "`harness schema records --validate`: checks records files' objects against the schema",
}

# Why a function's reads are not a typed record's. "not a record": the dict is something else that
# uses a record field's name as a key. A reason that says "not yet typed" (a record read as a dict still)
# is refused: the last ones (compare's row path, receipts verify and rejudge, the Inspect import) are typed.
META = "not a record: run.json's fields (protocol, run_id, protocol_digest, preregistered, engine)"
ROW = "not a record: a row of the per-arm table (harness.core.table.per_arm_rows), built from CellRecords"
META_ROW = "not a record: run.json's fields and the per-arm table's rows"
ROW_ENDPOINT = "not a record: the per-arm table's rows, keyed by endpoint ('amplified' is an endpoint there)"
ENDPOINT = "not a record: the tidy table's per-cell columns and a hypothesis's endpoint name ('amplified')"
EVENT = "not a record: an event of the cell's log (or the probe driver's), whose keys share a field's name"
JOURNAL = "not a record: a line of voids.jsonl or requeues.jsonl (the void and requeue journals)"
ENGINE = "not a record: an engine's options, wire reply or usage entry"
ARM = "not a record: an arm's protocol table"
PROTOCOL = "not a record: the protocol's frozen lock"
ANCHOR = "not a record: a ledger anchor (harness ledger anchor)"
RECEIPT = "not a record: a signed receipt's subject, binding or verdict"
LOOP = "not a cell record: the bounded loop's ledger rows (attempt, terminal, repair) and reviewer items"
CORPUS = "not a record: a corpus measurement's summary"
SUMMARY = "not a record: the analysis's summary (contrasts, tables, published values) keyed by a field's name"
CONTRAST = "not a record: a contrast of the analysis summary"
TIDY = ("not a record: a column of the analysis's tidy table (analysis.records builds it, validated, from every "
        "producer's records, a million in seconds) or a DataFrame derived from it")
COLS = "not a record: compare's columns dict (analysis.fastload reads a side by column; typed objects are slower)"
PAIRS = ("not a record: a side's columns over compare's matched pairs (analysis.pairs.Pairs: compare's columns dict, "
         "cut to the pairs)")
RUNS = "not a record: the cell's test runs (each {by, kind, wall_s, cached})"
REF_COLS = ("not a record: compare's columns dict and a side's reference (the protocol digest and model its rows are "
            "screened against); the row-by-row path (_split) reads each row as a typed Row of the columns")
TAMPER = "the tamper campaign's forgeries: it edits records files' lines as JSON on purpose"
INSPECT = ("not a record: an Inspect sample's metadata, scores and score metadata (the log the import reads, where a "
           "harness export writes a cell's fields); the import builds a CellRecord of them (interop.inspect_logs."
           "ImportedRecord) and serializes it where the records file is written")

# (module, function) -> (string-key reads of record field names, outcome-literal comparisons, why).
NOT_YET: dict[tuple[str, str], tuple[int, int, str]] = {
    ("analysis/adjudicated.py", "_lacking"): (1, 0, PAIRS),
    ("analysis/adjudicated.py", "direction"): (6, 0, PAIRS),
    ("analysis/adjudicated.py", "token_convention"): (3, 0, PAIRS),
    ("analysis/cli.py", "analyze_cmd"): (1, 0, CONTRAST),
    ("analysis/compare.py", "_compare"): (4, 0, COLS),
    ("analysis/compare.py", "_no_match_hint.facs"): (1, 0, COLS),
    ("analysis/compare.py", "_plan"): (3, 0, META),
    ("analysis/compare.py", "_split"): (3, 0, REF_COLS),
    ("analysis/compare.py", "_split_columnar"): (8, 0, REF_COLS),
    ("analysis/compare.py", "completeness"): (1, 0, COLS),
    ("analysis/compare.py", "load_side"): (7, 0, COLS),
    ("analysis/compare.py", "native_outcomes"): (1, 0, COLS),
    ("analysis/compare.py", "outcome_matrix"): (2, 0, COLS),
    ("analysis/compare.py", "paired_test"): (1, 0, COLS),
    ("analysis/compare.py", "side_tokens"): (5, 0, COLS),
    ("analysis/compare.py", "subclasses"): (3, 0, COLS),
    ("analysis/compare.py", "token_readout"): (7, 0, SUMMARY),
    ("analysis/compare_render.py", "_tests_md"): (1, 0, SUMMARY),
    ("analysis/figures.py", "make_figures"): (1, 0, SUMMARY),
    ("analysis/glmm.py", "_long"): (2, 0, TIDY),
    ("analysis/glmm.py", "_pick"): (1, 0, CONTRAST),
    ("analysis/monitor.py", "_decided"): (2, 0, TIDY),
    ("analysis/monitor.py", "monitor"): (1, 0, TIDY),
    ("analysis/monitor.py", "render"): (2, 0, SUMMARY),
    ("analysis/paper.py", "_compare_hypotheses"): (3, 0, SUMMARY),
    ("analysis/paper.py", "_compare_table17"): (1, 0, SUMMARY),
    ("analysis/pipeline.py", "compute"): (1, 0, TIDY),
    ("analysis/report.py", "_concentration_section"): (3, 0, SUMMARY),
    ("analysis/report.py", "_hypotheses_section"): (2, 0, SUMMARY),
    ("analysis/report.py", "_per_scenario_section"): (1, 0, SUMMARY),
    ("analysis/tables.py", "cluster_ids"): (3, 0, TIDY),
    ("analysis/tables.py", "common_cells"): (4, 0, TIDY),
    ("analysis/tables.py", "matched_pair"): (2, 0, TIDY),
    ("analysis/tables.py", "per_arm_table"): (15, 0, TIDY),
    ("analysis/tables.py", "per_scenario"): (1, 0, SUMMARY),
    ("analysis/tables.py", "task_concentration"): (2, 1, ENDPOINT),
    ("corpus/cli.py", "_print_measurement"): (1, 0, CORPUS),
    ("corpus/junit.py", "junit_xml"): (1, 0, CORPUS),
    ("corpus/report_html.py", "write"): (1, 0, CORPUS),
    ("harness/cli/cli.py", "ledger_anchor"): (1, 0, ANCHOR),
    ("harness/control/arms.py", "run_a4"): (2, 0, ARM),
    ("harness/core/protocol.py", "drift"): (4, 0, PROTOCOL),
    ("harness/core/roles.py", "RunEngines.of_run"): (1, 0, META),
    ("harness/core/roles.py", "resolve_roles"): (1, 0, ARM),
    ("harness/core/table.py", "render"): (2, 0, ROW),
    ("harness/engines/openai.py", "OpenAIEngine.usage_from_wire"): (2, 0, ENGINE),
    ("harness/engines/replay.py", "ReplayEngine.__init__"): (4, 0, ENGINE),
    ("harness/engines/transcript.py", "Transcript._wire_stats"): (3, 0, ENGINE),
    ("harness/engines/transcript.py", "Transcript.reload"): (1, 0, ENGINE),
    ("harness/engines/transcript.py", "reply_from_dict"): (2, 0, ENGINE),
    ("harness/judge/evidence.py", "Notary.issue"): (1, 0, RECEIPT),
    ("harness/judge/evidence.py", "admissible"): (3, 0, RECEIPT),
    ("harness/judge/probe_runtime.py", "_audit_sync"): (2, 0, EVENT),
    ("harness/ledger/receipts.py", "_shape_problem"): (5, 0, RECEIPT),
    ("harness/ledger/receipts.py", "check_receipt"): (1, 0, RECEIPT),
    ("harness/ledger/receipts.py", "passing"): (2, 0, RECEIPT),
    ("harness/loop/loop.py", "_attempt_row"): (2, 0, LOOP),
    ("harness/loop/loop.py", "_terminal"): (4, 0, LOOP),
    ("harness/loop/loop.py", "audit_done"): (7, 0, LOOP),
    ("harness/loop/loop.py", "spent_attempts"): (1, 0, LOOP),
    ("harness/loop/loop_runs.py", "ResumeLedger.__init__"): (2, 0, LOOP),
    ("harness/loop/loop_runs.py", "ResumeLedger.append"): (4, 0, LOOP),
    ("harness/loop/loop_runs.py", "ResumeLedger.finished_result"): (5, 0, LOOP),
    ("harness/loop/loop_runs.py", "_pass_key"): (1, 0, LOOP),
    ("harness/loop/loop_runs.py", "_same_replay"): (1, 0, LOOP),
    ("harness/loop/loop_runs.py", "render_table8"): (1, 0, LOOP),
    ("harness/loop/reviewer_discrimination.py", "items_from_json"): (1, 0, LOOP),
    ("harness/loop/reviewer_discrimination.py", "items_from_tasks"): (1, 0, LOOP),
    ("harness/run/cellrun.py", "_notary"): (2, 0, META),
    ("harness/run/cellrun.py", "_record"): (1, 0, RUNS),
    ("harness/run/driver.py", "_CacheConfig.as_dict"): (1, 0, META),
    ("harness/run/driver.py", "_Session.run_meta"): (3, 0, META),
    ("harness/run/driver.py", "_cell_spec"): (1, 0, META),
    ("harness/run/driver.py", "_check_role_engine"): (1, 0, ENGINE),
    ("harness/run/driver.py", "_check_transcript_and_corpus"): (2, 0, ENGINE),
    ("harness/run/driver.py", "_seal"): (2, 0, META),
    ("harness/run/driver.py", "_verify_and_open"): (4, 0, META),
    ("harness/run/driver.py", "_void_counts"): (1, 0, JOURNAL),
    ("harness/run/executors.py", "remote_cell"): (1, 0, META),
    ("harness/run/receipts_verify.py", "_claimed"): (1, 0, RECEIPT),
    ("harness/run/receipts_verify.py", "_context_problem"): (4, 0, RECEIPT),
    ("harness/run/receipts_verify.py", "_label"): (1, 0, RECEIPT),
    ("harness/run/receipts_verify.py", "_verdicts"): (1, 0, RECEIPT),
    ("harness/run/rejudge.py", "_compare"): (1, 0, RECEIPT),
    ("harness/run/rejudge.py", "_stored_finals"): (4, 0, RECEIPT),
    ("harness/run/tamper.py", "Bundle.final_visible"): (2, 0, TAMPER),
    ("harness/run/tamper.py", "_evidence_edit"): (2, 0, TAMPER),
    ("harness/run/tamper.py", "_flip_code_byte"): (1, 0, TAMPER),
    ("harness/run/tamper.py", "_verdict_swap"): (1, 0, TAMPER),
    ("interop/inspect_logs.py", "_outcome_fields"): (7, 0, INSPECT),
    ("interop/inspect_logs.py", "_record"): (6, 0, INSPECT),
    ("interop/inspect_logs.py", "_sample"): (3, 0, ENGINE),
    ("interop/inspect_logs.py", "export_run"): (10, 0, META_ROW),
    ("viewer/figures.py", "rate_intervals"): (1, 1, ROW_ENDPOINT),
    ("viewer/overview.py", "_facts"): (5, 0, META),
    ("viewer/overview.py", "_per_arm"): (1, 0, ROW),
    ("viewer/overview.py", "_voids"): (3, 0, JOURNAL),
    ("viewer/overview.py", "render"): (2, 0, META),
    ("viewer/rundir.py", "_in_flight"): (1, 0, EVENT),
    ("viewer/site.py", "_write_pages"): (3, 0, META),
    ("viewer/site.py", "run_label"): (2, 0, META),
}


@dataclass(frozen=True)
class Finding:
    path: str
    function: str
    line: int
    what: str

    def __str__(self) -> str:
        return f"{self.path}:{self.line} in {self.function}: {self.what}"


def _literals(node: ast.expr) -> list[str]:
    """The outcome values a comparison operand holds as literals (a constant, or a tuple/list/set of them)."""
    elts = node.elts if isinstance(node, (ast.Tuple, ast.List, ast.Set)) else [node]
    return [e.value for e in elts if isinstance(e, ast.Constant) and isinstance(e.value, str) and e.value in OUTCOMES]


def findings_in(source: str, path: str) -> list[Finding]:
    """Every string-key read of a record field and every outcome-literal comparison in ``source``,
    each with the function it is in (``<module>`` at the top level; ``Class.method`` in a class)."""
    out: list[Finding] = []

    def visit(node: ast.AST, scope: str) -> None:
        for child in ast.iter_child_nodes(node):
            inner = scope
            if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                inner = child.name if scope == "<module>" else f"{scope}.{child.name}"
            key = None
            if (isinstance(child, ast.Subscript) and isinstance(child.ctx, ast.Load)
                    and isinstance(child.slice, ast.Constant) and child.slice.value in RECORD_KEYS):
                key = child.slice.value
            elif (isinstance(child, ast.Call) and isinstance(child.func, ast.Attribute) and child.func.attr == "get"
                  and child.args and isinstance(child.args[0], ast.Constant) and child.args[0].value in RECORD_KEYS):
                key = child.args[0].value
            if key is not None:
                out.append(Finding(path, scope, child.lineno, f"record field {key!r} read by string key"))
            if isinstance(child, ast.Compare) and path != ENUM_DEFINITION:
                for operand in (child.left, *child.comparators):
                    for value in _literals(operand):
                        out.append(Finding(path, scope, child.lineno, f"outcome compared with the literal {value!r}"))
            visit(child, inner)

    visit(ast.parse(source), "<module>")
    return out


def all_findings(root: Path = REPO) -> list[Finding]:
    out: list[Finding] = []
    for pkg in PACKAGES:
        for file in sorted((root / pkg).rglob("*.py")):
            rel = file.relative_to(root).as_posix()
            if rel.startswith(SKIP) or rel in EDGE:
                continue
            out.extend(findings_in(file.read_text(), rel))
    return out


def _tally(findings: list[Finding]) -> dict[tuple[str, str], tuple[int, int]]:
    tally: dict[tuple[str, str], list[int]] = {}
    for f in findings:
        counts = tally.setdefault((f.path, f.function), [0, 0])
        counts[0 if "read by string key" in f.what else 1] += 1
    return {k: (v[0], v[1]) for k, v in tally.items()}


def test_records_are_read_as_objects_and_outcomes_compared_as_enums_outside_the_edge():
    """Every string-key read of a record field and every outcome-literal comparison is in an edge
    module or counted, with its reason, in NOT_YET; and NOT_YET names no read that is gone."""
    found = all_findings()
    tally = _tally(found)
    unlisted = [f for f in found if (f.path, f.function) not in NOT_YET]
    assert not unlisted, ("read the record's attribute (CellRecord) and compare Outcome members, or, for a dict that "
                          "is not a record, list the function in NOT_YET with why:\n  " + "\n  ".join(map(str, unlisted)))
    stale = {k: (v[:2], tally.get(k, (0, 0))) for k, v in NOT_YET.items() if v[:2] != tally.get(k, (0, 0))}
    assert not stale, f"NOT_YET's counts differ from the code (listed, found): {stale}"


def test_no_entry_is_a_record_read_as_a_dict():
    """Every read left outside the edge is of something that is not a record (or the tamper campaign's
    forgeries): none is a record still read by key, waiting to be typed (issue 36's acceptance)."""
    untyped = sorted(k for k, (_, _, why) in NOT_YET.items() if why.startswith("not yet typed"))
    assert not untyped, untyped


def test_the_edge_and_the_table_name_modules_that_exist():
    missing = [p for p in [*EDGE, *(m for m, _ in NOT_YET)] if not (REPO / p).is_file()]
    assert not missing, missing


def test_a_planted_string_key_read_and_a_planted_outcome_literal_are_found():
    """The checker finds what it forbids, at the right function, and leaves the typed forms alone."""
    planted = '''
from harness.core.outcomes import Outcome

def scored(rec):
    return rec["outcome"] != "void"

class Table:
    def arms(self, records):
        return {r.get("arm") for r in records if r.outcome in ("completed", "recovered")}

def typed(rec):
    return rec.outcome is not Outcome.VOID and rec.arm == "A1" and rec.extra.get("requeues") == 0
'''
    found = findings_in(planted, "viewer/planted.py")
    assert sorted((f.function, f.line, f.what) for f in found) == sorted([
        ("scored", 5, "record field 'outcome' read by string key"),
        ("scored", 5, "outcome compared with the literal 'void'"),
        ("Table.arms", 9, "record field 'arm' read by string key"),
        ("Table.arms", 9, "outcome compared with the literal 'completed'"),
        ("Table.arms", 9, "outcome compared with the literal 'recovered'"),
    ])


def test_a_planted_read_in_a_real_module_fails_the_rule(tmp_path):
    """A typed module (the run's table) with one string-key read added is refused; as it is, it passes."""
    table = tmp_path / "harness" / "core" / "table.py"
    table.parent.mkdir(parents=True)
    table.write_text((REPO / "harness" / "core" / "table.py").read_text())
    assert [f for f in all_findings(tmp_path) if (f.path, f.function) not in NOT_YET] == []
    table.write_text(table.read_text() + '\n\ndef planted(rec):\n    return rec["outcome"]\n')
    assert [str(f) for f in all_findings(tmp_path) if (f.path, f.function) not in NOT_YET] == [
        f"harness/core/table.py:{len(table.read_text().splitlines())} in planted: "
        "record field 'outcome' read by string key"]


@pytest.mark.parametrize("outcome", OUTCOMES)
def test_every_outcome_value_is_a_forbidden_literal(outcome):
    assert findings_in(f"x = y == {outcome!r}\n", "harness/run/x.py")
