"""A run's ``run.json`` as a typed object (issue 36): ``RunMeta``; and ``RunStamp``, what its records carry.

``run.json`` is the run directory's own state file (harness.ledger.rundir reads, validates, repairs and writes
it). Its object becomes a ``RunMeta`` here, ``RunMeta.from_json``, and goes back to the object the file holds,
``RunMeta.to_json``: this module is where its keys are read, and every reader (the run, ``compare``, the
viewer, the Inspect export) reads attributes. Standard library only, in ``harness.core``, so that the harness,
the analysis and the viewer share it (``analysis`` and ``viewer`` may not import ``harness.ledger``).

The round trip is exact for any JSON object: a key this harness does not know is kept (``extra``), a known key
the file does not hold stays absent (``absent``), and every value is kept as the file holds it. ``from_json``
checks nothing: ``harness.ledger.rundir.parse_run_meta`` validates a run's file (``REQUIRED``: each key's type)
before the run layer reads it, and the lenient readers (the viewer's report, ``compare``) check the few fields
they use, as before. So an attribute's annotation is what a valid run.json holds; a damaged file read leniently
may hold another JSON value there.
"""
from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from typing import Any, Mapping

# the keys every run.json must hold, with their types (harness.ledger.rundir.parse_run_meta checks them)
REQUIRED: dict[str, type] = {"run_id": str, "protocol_path": str, "protocol": str, "protocol_digest": str,
                             "preregistered": bool, "engine": str, "reviewer_engine": str, "lock": dict}
_ABSENT: Any = None  # a required key a damaged file lacks (read leniently: the viewer, compare)


@dataclass(frozen=True)
class RunStamp:
    """What every record of a run carries about it (the record's ``protocol``, ``protocol_digest``,
    ``preregistered`` and ``run_id`` fields); None: not stamped (a cell run outside a run directory)."""
    protocol: str | None = None
    protocol_digest: str | None = None
    preregistered: bool | None = None
    run_id: str | None = None

    def fields(self) -> dict[str, Any]:
        """The record's fields this stamp sets (``record.build(**stamp.fields(), ...)``)."""
        return dataclasses.asdict(self)


@dataclass(frozen=True)
class RunMeta:
    """run.json: what was run (the protocol's path, name and digest, pre-registered or exploratory, the
    engines and model, the engine's options, the protocol's lock) and when (created, repaired). A key the
    file does not hold reads None, as ``dict.get`` did (``parse_run_meta`` refuses a run whose ``REQUIRED``
    keys are absent or of another type, so the run layer reads each as annotated)."""
    run_id: str = _ABSENT
    protocol_path: str = _ABSENT
    protocol: str = _ABSENT
    protocol_digest: str = _ABSENT
    preregistered: bool = _ABSENT
    engine: str = _ABSENT
    reviewer_engine: str = _ABSENT
    lock: dict = _ABSENT
    model: str | None = None
    engine_options: dict | None = None
    created: str | None = None
    repaired: dict | None = None  # {"when", "from_records"}: run.json was rebuilt from the records after a kill
    extra: Mapping[str, Any] = field(default_factory=dict)  # keys this harness does not know, as the file holds them
    absent: frozenset[str] = frozenset()  # known keys the file does not hold (to_json leaves them out)

    @classmethod
    def from_json(cls, obj: Mapping[str, Any]) -> RunMeta:
        """The object of a run.json file (checked by nobody here: see the module's docstring)."""
        known = {f.name for f in dataclasses.fields(cls)} - {"extra", "absent"}
        return cls(**{k: v for k, v in obj.items() if k in known},
                   extra={k: v for k, v in obj.items() if k not in known},
                   absent=frozenset(known - set(obj)))

    def to_json(self) -> dict[str, Any]:
        """The object run.json holds (the file's writer sorts its keys)."""
        out = {f.name: getattr(self, f.name) for f in dataclasses.fields(self)
               if f.name not in ("extra", "absent") and f.name not in self.absent}
        return {**out, **self.extra}

    def replace(self, **changes: Any) -> RunMeta:
        """A copy with ``changes`` (each then present in the file)."""
        return dataclasses.replace(self, **changes, absent=self.absent - set(changes))
