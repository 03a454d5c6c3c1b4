"""A run's published bundle (``harness export bundle``): what a reader needs to verify every receipt
and re-judge any cell with no other input, as one ``.tar.gz``.

Layout under ``bundle/``: ``records.jsonl`` and ``records.head`` (the hash-chained records),
``run.json`` (the run's meta with the protocol's lock), ``receipts/`` (every receipt, the run's
``public_key.pem`` and the records' head seal ``ledger.seal``), ``trees/`` (the final trees, content-addressed), ``protocol/`` (the protocol
file and its lock), ``tasks/`` (each task the protocol names: the visible test and the hidden oracle
the judge re-runs), and ``bundle.json`` (where those are, and the test limits the run used). The
run's private key (``keys/``) is never in it. ``open_source`` reads a run directory or a bundle
(extracted with tarfile's ``data`` filter: no link out, no absolute path, no device).
"""
from __future__ import annotations

import json
import os
import shutil
import stat
import tarfile
import tempfile
import uuid
from contextlib import contextmanager
from pathlib import Path
from typing import Iterator

from harness.core import runio, statefile
from harness.core.errors import ExitCode, InputError

BUNDLE_FORMAT = "hx-bundle-1"
TOP = "bundle"


def _protocol_of(run_dir: Path):
    from harness.core.protocol import load_protocol
    from harness.ledger.rundir import read_run_meta
    meta = read_run_meta(run_dir)
    return load_protocol(meta.protocol_path)


def _regular_only(path: Path) -> None:
    """Refuse ``path`` (or anything under it) that is neither a directory nor a regular file: a FIFO
    would block the export, a link would publish what it points at (or a bundle the reader's ``data``
    filter then refuses). One line naming the file (fault review r34)."""
    entries = [path] + (sorted(path.rglob("*")) if path.is_dir() and not path.is_symlink() else [])
    for p in entries:
        mode = os.lstat(p).st_mode
        if not (stat.S_ISREG(mode) or stat.S_ISDIR(mode)):
            raise InputError(str(p), "<file>", f"is a {statefile._kind(mode)}, not a regular file: a run's published "
                             "files are regular files; refusing to export it")


def export_bundle(run_dir: Path, out: Path) -> dict:
    """Write ``out`` (a .tar.gz) from the run at ``run_dir``; returns bundle.json's content. The bundle is
    built beside ``out`` and renamed into place when whole (fsynced): a full disk, a kill or a second
    export at once never leaves a truncated ``out``; a run file that is not regular is refused first."""
    run_dir = Path(run_dir)
    out = Path(out)
    proto = _protocol_of(run_dir)
    lock = proto.path.with_suffix(".lock.json")
    manifest = {"format": BUNDLE_FORMAT, "protocol": f"protocol/{proto.path.name}", "tasks_dir": "tasks",
                "public_key": "receipts/public_key.pem",
                "limits": {"timeout_s": proto.limits.test_timeout_s, "memory_mb": proto.limits.memory_mb}}
    members = [(run_dir / n, f"{TOP}/{n}") for n in ("records.jsonl", "records.head", "run.json", "receipts", "trees")
               if os.path.lexists(run_dir / n)]
    members.append((proto.path, f"{TOP}/protocol/{proto.path.name}"))
    if lock.is_file():
        members.append((lock, f"{TOP}/protocol/{lock.name}"))
    for src, _ in members:
        _regular_only(src)
    rerun = f"harness export bundle {run_dir} --bundle {out}"
    part = out.parent / f".{out.name}.partial-{os.getpid()}-{uuid.uuid4().hex[:8]}"
    try:
        with tempfile.TemporaryDirectory(prefix="hx-bundle-") as tmp:
            meta_file = Path(tmp) / "bundle.json"
            meta_file.write_text(json.dumps(manifest, indent=1, sort_keys=True) + "\n")
            with open(part, "xb") as fh:
                with tarfile.open(fileobj=fh, mode="w:gz") as tar:
                    for src, name in members:
                        tar.add(src, name)
                    for tid in proto.tasks:
                        tar.add(proto.tasks_dir / tid, f"{TOP}/tasks/{tid}",
                                filter=lambda t: None if "__pycache__" in t.name else t)
                    tar.add(meta_file, f"{TOP}/bundle.json")
                fh.flush()
                os.fsync(fh.fileno())
        os.replace(part, out)
        statefile.fsync_dir(out.parent)
    except OSError as exc:
        part.unlink(missing_ok=True)
        if runio.is_no_space(exc):
            raise runio.NoSpace(out, exc, rerun, ExitCode.BAD_INPUT) from None
        raise
    except BaseException:
        part.unlink(missing_ok=True)
        raise
    return manifest


@contextmanager
def open_source(path: Path) -> Iterator[Path]:
    """The run directory at ``path``, or a bundle (.tar.gz) extracted to a temporary one."""
    path = Path(path)
    if path.is_dir():
        yield path
        return
    if not path.is_file():
        raise InputError(str(path), "RUN", "no such run directory or bundle")
    with tempfile.TemporaryDirectory(prefix="hx-bundle-") as tmp:
        try:
            with tarfile.open(path, "r:*") as tar:
                tar.extractall(tmp, filter="data")
        except (tarfile.TarError, OSError, EOFError) as exc:
            raise InputError(str(path), "RUN", f"not a readable bundle: {exc}") from None
        root = Path(tmp) / TOP
        if not root.is_dir():
            raise InputError(str(path), "RUN", f"not a bundle: no {TOP}/ inside")
        yield root


def sources(run_dir: Path) -> tuple[Path, dict]:
    """(tasks dir, test limits) of a run directory or an extracted bundle."""
    manifest = run_dir / "bundle.json"
    if manifest.is_file():
        try:
            m = json.loads(manifest.read_text())
            return run_dir / m["tasks_dir"], dict(m["limits"])
        except (ValueError, KeyError, TypeError) as exc:
            raise InputError(str(manifest), "bundle.json", f"malformed: {exc}") from None
    proto = _protocol_of(run_dir)
    return proto.tasks_dir, {"timeout_s": proto.limits.test_timeout_s, "memory_mb": proto.limits.memory_mb}


def copy_run(run_dir: Path, dest: Path) -> None:
    """A copy of a run without its private key (what a bundle holds, as a directory)."""
    shutil.copytree(run_dir, dest, ignore=shutil.ignore_patterns("keys"))
