"""Red team of the Inspect export's ``void_kind`` (l22, ``interop.inspect_logs``): a records file
whose ledger verifies (the tree, or whoever wrote the run directory, re-chained it) but whose void
kinds are forged. The export carries a record's kind into the sample only when the analysis would
accept it (``harness.core.record.kind_problems``); otherwise one line naming file, line and field,
exit 2, no log written.

Formerly ``tests/interop/test_redteam_l22_void_kind.py``, named after its origin."""
from __future__ import annotations

import json
import shutil

import pytest
from click.testing import CliRunner

from harness.cli.cli import main
from harness.ledger.ledger import verify
from harness.run.records import write_records

pytest.importorskip("inspect_ai.log", reason="the inspect extra is not installed")

CHAIN = ("seq", "prev_hash", "hash")


def _rechained(qs_run, run, **forged):
    """A copy of the run whose first record carries ``forged`` fields, the ledger rewritten so it
    verifies: only the content is wrong."""
    shutil.copytree(qs_run, run)
    recs = [json.loads(x) for x in (run / "records.jsonl").read_text().splitlines() if x.strip()]
    recs = [{k: v for k, v in r.items() if k not in CHAIN} for r in recs]
    recs[0].update(forged)
    (run / "records.jsonl").unlink()
    (run / "records.head").unlink(missing_ok=True)
    write_records(run / "records.jsonl", recs)
    assert verify(run / "records.jsonl") == []


@pytest.mark.parametrize("forged", [
    {"void_kind": "engine_fault", "void_reason": "harness error: KeyError 'x'"},  # contradicts its reason
    {"void_kind": "authentication", "void_reason": "x"},                            # a kind that stops the run
    {"void_kind": "no such kind"},
], ids=["contradicts-reason", "stops-run", "unknown"])
def test_a_forged_void_kind_is_refused_not_exported(qs_run, tmp_path, forged):
    run = tmp_path / "run"
    _rechained(qs_run, run, outcome="void", shipped=None, schema_version=3, **forged)
    r = CliRunner().invoke(main, ["export", "inspect", str(run), "--out", str(tmp_path / "logs")])
    assert r.exit_code == 2, (r.output, r.stderr)
    err = r.stderr.strip().splitlines()
    assert len(err) == 1 and "records.jsonl:1: void_kind: " in err[0], err
    assert not list((tmp_path / "logs").glob("*.eval")) and not list((tmp_path / "logs").glob("*.json"))
