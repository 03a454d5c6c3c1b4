"""A run directory's own state file, ``run.json``: reading it, writing it, and repairing it after a kill.

``run.json`` is written atomically (harness.core.statefile), so a kill leaves it whole or absent;
a directory written by an older harness, or damaged by a full disk outside our control, can
still hold a torn one. What each state means, so that exactly one command recovers each and the
two commands never point at each other (issue 25):

- ``run.json`` valid: a run; ``harness run --resume DIR`` continues it.
- ``run.json`` absent or torn and no record in ``records.jsonl``: nothing was run; ``harness run
  PROTOCOL --out DIR`` starts afresh there (the torn file is moved aside), and ``--resume DIR``
  says so.
- ``run.json`` absent or torn with records: ``harness run PROTOCOL --out DIR`` repairs it from
  the records (run id, protocol digest, pre-registration) and the protocol, then continues the
  run; it refuses when the records were made under another protocol digest or run id.
"""
from __future__ import annotations

import json
import time
import uuid
from enum import Enum
from pathlib import Path

from harness.core import runio, statefile
from harness.core.errors import InputError
from harness.core.runmeta import REQUIRED, RunMeta

# what a run directory may hold before run.json is whole: a killed prepare() leaves only these
_PRE_RUN_NAMES = {"run.json", "run.lock", "run.json.torn"}


class DirState(Enum):
    EMPTY = "empty"  # absent, or nothing but what a killed start leaves
    RUN = "run"  # a valid run.json
    TORN_NO_RECORDS = "torn-no-records"  # run.json torn or absent, no record: a fresh start
    TORN_WITH_RECORDS = "torn-with-records"  # run.json torn or absent, records: repaired from them
    OTHER = "other"  # a directory with other things in it (not a run)


class WrongField(InputError):
    """run.json is a whole JSON object but one of its fields has the wrong type: an edit, not a kill
    (a kill or a full disk leaves it torn or absent), so it is named, never repaired over."""


def parse_run_meta(path: Path) -> RunMeta:
    """run.json, validated (InputError naming the key or what is wrong with the file), as a ``RunMeta``."""
    try:  # the safe reader: a FIFO, a link or a deep nest is refused, never waited on
        meta = runio.read_json(path, "run.json", 64 << 20)
    except FileNotFoundError:
        raise InputError(str(path), "<file>", "no such run.json") from None
    except runio.NotRegular:  # a FIFO, a socket, a link: say what it is, not that it is not JSON
        raise
    except runio.UnsafeFile as exc:
        raise InputError(str(path), "<file>", f"not JSON ({exc.message})") from None
    if not isinstance(meta, dict):
        raise InputError(str(path), "<file>", "expected a JSON object")
    for key, typ in REQUIRED.items():  # each key run.json must hold, and its type
        if key in meta and not isinstance(meta[key], typ):  # whole, but wrong: named, never called torn
            raise WrongField(str(path), key, f"expected a {typ.__name__}, got "
                             f"{'null' if meta[key] is None else type(meta[key]).__name__}")
        if not isinstance(meta.get(key), typ):
            raise InputError(str(path), key, f"missing or not a {typ.__name__}")
    if not isinstance(meta.get("engine_options", {}), dict):
        raise InputError(str(path), "engine_options", "expected an object")
    return RunMeta.from_json(meta)


def has_records(run_dir: Path) -> bool:
    p = Path(run_dir) / "records.jsonl"
    return p.is_file() and p.stat().st_size > 0


def state_of(run_dir: Path) -> DirState:
    """What ``run_dir`` holds (``DirState``). A ``run.json`` that is there but is not a regular file
    (a FIFO, a socket, a link) is none of these states: ``runio.NotRegular`` naming it, exit 2
    (it is neither torn nor missing, and repairing it would write over whatever it is)."""
    run_dir = Path(run_dir)
    if not run_dir.exists():
        return DirState.EMPTY
    if not run_dir.is_dir():
        return DirState.OTHER
    rj = run_dir / "run.json"
    if runio.regular_or_absent(rj, "run.json"):
        try:
            parse_run_meta(rj)
            return DirState.RUN
        except WrongField:
            raise
        except InputError:
            pass
    elif not (run_dir / "records.jsonl").exists():
        names = {p.name for p in run_dir.iterdir() if not _is_our_tmp(p.name)}
        return DirState.EMPTY if names <= _PRE_RUN_NAMES else DirState.OTHER
    return DirState.TORN_WITH_RECORDS if has_records(run_dir) else DirState.TORN_NO_RECORDS


def _is_our_tmp(name: str) -> bool:
    """What a start killed mid-way leaves besides run.json: its temporary file, the --out write probe."""
    return (name.startswith(".run.json.") and name.endswith(".tmp")) or name.startswith(".probe-")


def read_run_meta(run_dir: Path) -> RunMeta:
    """run.json, validated: a directory that is not a run is an input error naming the one command
    that recovers it, never a traceback."""
    run_dir = Path(run_dir)
    if not run_dir.is_dir():
        raise InputError(str(run_dir), "--resume", "not a directory")
    st = state_of(run_dir)
    if st is DirState.RUN:
        return parse_run_meta(run_dir / "run.json")
    if st is DirState.TORN_WITH_RECORDS:
        raise InputError(str(run_dir / "run.json"), "<file>", "missing or torn (a kill or a full disk while it was "
                         "written) but the run has records: repair it from the records with `harness run PROTOCOL "
                         f"--out {run_dir}` (same protocol and options; every record is kept)")
    if st is DirState.TORN_NO_RECORDS:
        raise InputError(str(run_dir / "run.json"), "<file>", "missing or torn and no cell was recorded: nothing to "
                         f"resume; start the run afresh with `harness run PROTOCOL --out {run_dir}`")
    raise InputError(str(run_dir), "--resume", "not a run directory (no run.json); start one with PATH --out DIR")


def meta_from_records(run_dir: Path, base: RunMeta, lock: dict) -> RunMeta:
    """``base`` (the run.json a new run would get) with the identity the records carry: the run id,
    and a check that every record was made under this protocol digest and pre-registration.
    InputError when the records belong to another protocol or run (nothing is changed)."""
    from harness.ledger.ledger import inspect
    ins = inspect(Path(run_dir) / "records.jsonl")
    if ins.problems:
        raise InputError(str(Path(run_dir) / "records.jsonl"), "ledger", "does not verify; refusing to repair "
                         "run.json from it:\n  " + "\n  ".join(ins.problems))
    ids = {r.get("run_id") for r in ins.records}
    digests = {r.get("protocol_digest") for r in ins.records}
    prereg = {r.get("preregistered") for r in ins.records}
    if len(ids) != 1 or not isinstance(next(iter(ids)), str):
        raise InputError(str(run_dir), "run_id", f"the records carry {len(ids)} run ids; cannot repair run.json")
    if digests != {lock["digest"]}:
        raise InputError(str(run_dir), "protocol_digest", f"the records were made under protocol digest(s) "
                         f"{sorted(str(d)[:12] for d in digests)}, this protocol is {lock['digest'][:12]}...; "
                         "give the protocol the run was started with")
    if prereg != {base.preregistered}:
        raise InputError(str(run_dir), "--exploratory", "the records' pre-registration differs from this command's "
                         "(add or drop --exploratory as the run was started)")
    return base.replace(run_id=next(iter(ids)), repaired={"when": _now(), "from_records": len(ins.records)})


def new_meta(**fields) -> RunMeta:
    """A new run's run.json: a fresh run id, ``fields``, and when it was created."""
    return RunMeta.from_json({"run_id": uuid.uuid4().hex[:12], **fields, "created": _now()})


def _now() -> str:
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())


def write_run_meta(run_dir: Path, meta: RunMeta) -> None:
    statefile.write_atomic(Path(run_dir) / "run.json", dumps(meta))


def dumps(meta: RunMeta) -> str:
    """run.json's text: its object with sorted keys, one space of indent, a newline at the end."""
    return json.dumps(meta.to_json(), indent=1, sort_keys=True) + "\n"


def set_aside_torn(run_dir: Path) -> None:
    """Move a torn run.json to run.json.torn (kept, never deleted) before a fresh one is written."""
    rj = Path(run_dir) / "run.json"
    if rj.exists() or rj.is_symlink():
        rj.replace(Path(run_dir) / "run.json.torn")
