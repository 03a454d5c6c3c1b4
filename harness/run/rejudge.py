"""``harness rejudge``: gate-grade replay (Proof-or-Stop future work 1c). The visible test and the
hidden oracle are re-run on each cell's stored final tree (run_dir/trees), each twice as the final
adjudication ran them (judged, and by plain pytest: harness.judge.testrun.run_judged_and_plain), and
each result is compared with the cell's signed final receipt of that run: the same verdict, the
same output digest, or the difference, named. A record from before plain-run receipts (no plain
receipt, no ``*_plain_pass``) has its judged runs compared only, and the replay says so.

The output digest compared is the receipt's outputDigest: sha256 of the judge's structured verdict
(harness.judge.evidence.structured_verdict: pass, counts, exit status, timeout, subversion), never
stdout or wall time, which differ between two runs of one tree. A stored tree that no longer
rebuilds to the record's digest is reported as such, never re-judged as if it were the cell's, and
neither is a cell whose task files (the tests, the task's definition) are not the ones its receipts'
storyFilesHash binds: a bundle's tests swapped would be replayed instead of the judged ones.
"""
from __future__ import annotations

import random
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

from harness.core import runio, safefs
from harness.core.errors import InputError
from harness.core.tasks import load_task
from harness.judge import evidence
from harness.judge.testrun import run_judged_and_plain
from harness.ledger import receipts as rc
from harness.ledger.ledger import LedgerLine
from harness.ledger.seal import record_seal_problem
from harness.sandbox.sandbox import Limits, hidden_for
from harness.sandbox.treestore import LEGACY_TREE_FORMAT, load_tree, materialize

ORACLE_DEST = evidence.HIDDEN_DEST


@dataclass
class CellReplay:
    cell_key: str
    differences: list[str] = field(default_factory=list)
    digests: dict = field(default_factory=dict)  # kind -> (stored outputDigest, replayed outputDigest)
    notes: list[str] = field(default_factory=list)  # what was not compared, and why (not a difference)

    @property
    def identical(self) -> bool:
        return not self.differences


@dataclass
class RunReplay:
    """A replay: what is wrong with the run's records as a whole (one line each: the ledger, a line
    without its newline, a field of another type, the head seal; verify's reader,
    harness.run.receipts_verify.read_records and head_seal), and each replayed cell."""
    records: list[str]
    cells: list[CellReplay]


def _records(run_dir: Path, trusted: bytes | None) -> tuple[list[LedgerLine], list[str]]:
    """The run's lines as written and what is wrong with them as a whole, read as ``harness receipts
    verify`` reads them: the ledger's findings and the head seal against ``trusted`` (the key the reader
    passed, else the run's published key), so a line appended over a judged cell (a void, chain redone)
    is named, not replayed as the cell's last word."""
    from harness.run.receipts_verify import head_seal, read_records
    path = Path(run_dir) / "records.jsonl"
    if not path.is_file():
        raise InputError(str(path), "RUN", "no records.jsonl")
    ins, findings = read_records(path)
    lines = ins.lines
    key = trusted if trusted is not None else _published_key(run_dir)
    seal, _ = head_seal(Path(run_dir), key, lines, older=True)  # no seal and no sealed record: an older run's
    return lines, [f.line() for f in [*findings, *([seal] if seal is not None else [])]]


def _scored(lines: list[LedgerLine]) -> dict[str, LedgerLine]:
    latest = {}
    for rec in lines:
        latest[str(rec.cell_key)] = rec
    return {k: r for k, r in latest.items() if r.visible_pass is not None}


def scored_records(run_dir: Path) -> dict[str, LedgerLine]:
    """The latest record of each cell that was judged (not void), by cell key: each line as written
    (harness.ledger.ledger.LedgerLine), a forged one included, so that it is compared with its receipts.
    Which lines there are is the head seal's to prove (``replay_run`` checks it)."""
    return _scored(_records(run_dir, None)[0])


def select(records: dict[str, LedgerLine], keys: tuple[str, ...], sample: int | None, seed: int) -> list[str]:
    """The cells to replay: the named ones (each must exist), else all, then a seeded sample."""
    unknown = [k for k in keys if k not in records]
    if unknown:
        raise InputError("CELL_KEY", "CELL_KEY", f"no judged cell {unknown[0]!r} in the run")
    chosen = list(keys) or sorted(records)
    if sample is not None and sample < len(chosen):
        chosen = sorted(random.Random(seed).sample(chosen, sample))
    return chosen


def _published_key(run_dir: Path) -> bytes | None:
    """The run's published key, or None when it has none (or it is not a PEM key: every receipt is
    then a difference naming ``signer_key_mismatch``). A key file that is there but is not a regular
    file (a FIFO, a link) is ``runio.NotRegular``, one line and exit 2: it is not a key that fails to
    match, and a replay compared against no key would name the wrong fault."""
    try:
        # the safe reader: a FIFO planted as the key is refused, never waited on (fault review r34)
        return rc.public_raw_of_pem(runio.read_bytes(Path(run_dir) / "receipts" / rc.PUBLIC_KEY_NAME, "public key",
                                                     limit=rc.MAX_RECEIPT_BYTES))
    except runio.NotRegular:
        raise
    except (OSError, ValueError, runio.UnsafeFile):
        return None


def _stored_finals(run_dir: Path, rec: LedgerLine, out: CellReplay, trusted: bytes | None = None) -> dict[str, rc.Receipt]:
    """The cell's final receipts that pass their own checks against ``trusted`` (the key the reader
    passed), else the run's published key (a receipt edited after signing is never the reference a
    replay is compared with). The record must be the one that key sealed (its ``seal``; a record of a
    current run without one is a difference): a record re-pointed at another tree is never replayed
    as the cell's. Only a trusted key stops a publisher who re-signed everything with a key of their
    own and published it in the run's place (red team r33b)."""
    finals: dict[str, rc.Receipt] = {}
    key = trusted if trusted is not None else _published_key(run_dir)
    if rec.sealed and (problem := record_seal_problem(rec.raw, key)) is not None:
        out.differences.append(f"record: {problem[0].value} ({problem[1]})")
    if wrong := rec.type_problems():
        out.differences.append(f"record: {rc.Reason.MALFORMED_BUNDLE.value} (a field of another type than the "
                               f"harness writes: {'; '.join(wrong)})")
    for d in rec.typed("receipts") or []:
        try:
            obj = rc.strict_loads(runio.read_bytes(Path(run_dir) / "receipts" / f"{d}.json", "receipt",
                                                 limit=rc.MAX_RECEIPT_BYTES))
        except (OSError, rc.Malformed, TypeError, runio.UnsafeFile):
            continue
        r, reason, why = rc.verified(obj, key)
        if r is None:
            out.differences.append(f"receipt {str(d)[:12]}... does not verify: {reason.value} ({why})")
        elif (r.subject.cell_key, r.subject.run_id) != (rec.cell_key, rec.run_id):
            # another cell's receipts (and tree) named by this record: never this cell's reference (red team r33)
            out.differences.append(f"receipt {str(d)[:12]}... is about {r.subject.cell_key} "
                                   f"(run {r.subject.run_id}), not this cell")
        elif r.subject.stage == "final":
            finals[r.subject.kind] = r
    if not rec.sealed and any(r.format == rc.RECEIPT_FORMAT for r in finals.values()):
        out.differences.append("record: signature_missing (a record of a sealed run without its seal)")
    return finals


def task_file_digests(tasks_dir: Path, task: str) -> dict[str, str]:
    """``{"<task>/<path>": sha256}`` of every file under the task's directory, as the protocol's lock
    digests them (harness.core.protocol.covered_files: bytecode left out); an entry that is not a
    regular file or a directory is listed with a digest that names it (the lock never holds one)."""
    root = Path(tasks_dir) / task
    out = {}
    for f in sorted(root.rglob("*")) if root.is_dir() and not root.is_symlink() else ():
        if "__pycache__" in f.relative_to(root).parts or (f.is_dir() and not f.is_symlink()):
            continue
        rel = f"{task}/{f.relative_to(root).as_posix()}"
        try:
            out[rel] = rc.sha256_hex(runio.read_bytes(f, "task file", limit=MAX_TASK_FILE_BYTES))
        except (OSError, runio.UnsafeFile) as exc:
            out[rel] = f"not a readable regular file ({exc})"
    return out


MAX_TASK_FILE_BYTES = 64 << 20


def _task_problem(run_dir: Path, tasks_dir: Path, rec: LedgerLine, finals: dict[str, rc.Receipt]) -> str | None:
    """Why the task's files under ``tasks_dir`` are not the ones the cell's receipts are bound to, or
    None. A receipt's storyFilesHash is over the lock's digests of the task's files (signed), so the
    files on disk must digest to it; the lock in run.json, when readable, names the files that differ.
    Without this a bundle's tests could be swapped, and the replay would run other tests than the
    judged ones (red team r33b: a fake oracle replayed a passing cell ``identical``)."""
    task = str(rec.task)
    bound = {r.binding.story_files_hash for r in finals.values()}
    on_disk = task_file_digests(tasks_dir, task)
    if bound == {evidence.story_files_hash(task, on_disk)}:
        return None
    from harness.run.driver import story_files
    from harness.run.receipts_verify import _lock_files
    lock = _lock_files(Path(run_dir))
    locked = story_files(lock, task) if lock is not None else {}
    named = sorted(k for k in set(locked) | set(on_disk) if locked.get(k) != on_disk.get(k)) if locked else []
    return (f"the task's files under {tasks_dir} are not the ones its receipts are bound to (storyFilesHash)"
            + (f": {', '.join(k.removeprefix(task + '/') for k in named[:5])}{' ...' if len(named) > 5 else ''}"
               f" differ from the run's lock" if named else "") + "; its tests are not replayed")


def _compare(kind: str, stored: rc.Receipt | None, replayed: dict, out: CellReplay) -> None:
    got = rc.output_digest(replayed)
    if stored is None:
        out.differences.append(f"{kind}: no stored receipt to compare with")
        return
    want = stored.outcome.verdict
    out.digests[kind] = (stored.identity.output_digest, got)
    if stored.identity.output_digest != got:
        changed = [f"{k} {want.get(k)!r} -> {replayed.get(k)!r}" for k in evidence.VERDICT_KEYS
                   if want.get(k) != replayed.get(k)]
        out.differences.append(f"{kind}: output digest differs ({'; '.join(changed) or 'the stored verdict was edited'})")


def replay_cell(run_dir: Path, rec: LedgerLine, tasks_dir: Path, limits: Limits, trusted: bytes | None = None) -> CellReplay:
    """Re-judge one cell's stored final tree (see the module's docstring); ``trusted``: the raw public key
    the reader trusts (None: the run's published key)."""
    out = CellReplay(str(rec.cell_key))
    digest = str(rec.tree_digest_final)
    tree = load_tree(Path(run_dir) / "trees", digest)
    if tree.digest != digest:
        out.differences.append(f"the stored tree does not rebuild to the record's final tree {digest[:12]}... "
                               f"({'; '.join(tree.problems) or 'its bytes changed'})")
        return out
    if tree.format == LEGACY_TREE_FORMAT:
        out.notes.append("an older run's tree (hx-tree-1): its digest is the older (path, text) encoding, which "
                         "cannot tell a marker from a file holding its text or see an empty directory")
    task = load_task(Path(tasks_dir) / str(rec.task))
    finals = _stored_finals(run_dir, rec, out, trusted)
    for kind, r in finals.items():  # a tree swapped in under the record's name is not the judged one
        if r.binding.material_hash != digest:
            out.differences.append(f"{kind}: the receipt is bound to tree {str(r.binding.material_hash)[:12]}..., "
                                   f"not the record's final tree {digest[:12]}...")
    if finals and (why := _task_problem(run_dir, tasks_dir, rec, finals)) is not None:
        out.differences.append(why)
        return out
    with tempfile.TemporaryDirectory(prefix="hx-rejudge-") as tmp:
        root = Path(tmp) / "tree"
        try:
            lost = materialize(tree, root)
        except (safefs.PathError, OSError, ValueError) as exc:  # a manifest naming a path outside the tree
            out.differences.append(f"the stored tree cannot be recreated: {type(exc).__name__}: {exc}")
            return out
        if lost:
            out.differences.append(f"{len(lost)} entr(ies) not stored, so not recreated: {', '.join(lost[:3])}")
        hide = hidden_for(Path(run_dir), Path(tasks_dir))
        vis = run_judged_and_plain(root, task.acceptance, dest_rel=task.acceptance_dest, hide=hide, limits=limits)
        hid = run_judged_and_plain(root, task.oracle, dest_rel=ORACLE_DEST, hide=hide, limits=limits, show=False)
    runs = (("visible", vis[0]), ("hidden", hid[0]), ("visible_plain", vis[1]), ("hidden_plain", hid[1]))
    for kind, v in runs:
        test = kind.removesuffix("_plain")
        if kind in rc.PLAIN_KINDS and kind not in finals and rec.plain_passed(test) is None:
            out.notes.append(f"{kind}: the record predates plain-run receipts, not compared")
            continue
        _compare(kind, finals.get(kind), evidence.structured_verdict(v.summary()), out)
    return out


def replay_run(run_dir: Path, tasks_dir: Path, limits: Limits, keys: tuple[str, ...] = (), sample: int | None = None,
               seed: int = 0, trusted: bytes | None = None) -> RunReplay:
    """The run's records checked as a whole, then the chosen cells replayed (``replay_cell``)."""
    lines, problems = _records(run_dir, trusted)
    records = _scored(lines)
    return RunReplay(problems, [replay_cell(run_dir, records[k], tasks_dir, limits, trusted)
                                for k in select(records, keys, sample, seed)])


def rejudge(run_dir: Path, tasks_dir: Path, limits: Limits, keys: tuple[str, ...] = (), sample: int | None = None,
            seed: int = 0, trusted: bytes | None = None) -> list[CellReplay]:
    """The replayed cells of ``replay_run`` (the run-wide findings left out)."""
    return replay_run(run_dir, tasks_dir, limits, keys, sample, seed, trusted).cells
