"""The run's store of final trees, content-addressed and deduplicated (``run_dir/trees``): the trees a
receipt's materialHash names, kept so that a reader can re-check a binding and re-judge a cell
with nothing but the published run (issue 33; ``harness rejudge``).

Layout: ``trees/blobs/<sha256>`` holds each file's bytes once (every tree that has the same file
shares it); ``trees/<tree digest>.json`` is the tree's manifest, ``{"format", "files": {path: entry}}``
with entry ``{"blob": sha, "as": "text"|"binary"}`` for a regular file, or ``{"mark": text}`` for
what the workspace's reading holds as a marker (a symbolic link, a special file, a file past the
limits). The manifest's name is ``harness.sandbox.workspace.tree_digest`` of the reading rebuilt
from it (the record's ``tree_digest_*``), so a byte flipped in a blob or a manifest gives another
digest: the tree is no longer the one a receipt is bound to (``stale``).
"""
from __future__ import annotations

import hashlib
import json
import os
import re
from dataclasses import dataclass, field
from pathlib import Path

from harness.core import safefs, statefile
from harness.core.errors import InputError
from harness.core.tasks import BINARY_MARK, SPECIAL_MARK, SYMLINK_MARK
from harness.sandbox.workspace import tree_digest

TREE_FORMAT = "hx-tree-1"
HEX64 = re.compile(r"[0-9a-f]{64}")  # a digest names a file here only when it is one: never a path
MAX_MANIFEST_BYTES = 64 << 20


def _hex(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def _put_blob(store: Path, data: bytes) -> str:
    sha = _hex(data)
    path = store / "blobs" / sha
    if not path.exists():
        path.parent.mkdir(parents=True, exist_ok=True)
        statefile.write_atomic(path, data)
    return sha


def _entry(root: Path, rel: str, text: str, limit: int) -> tuple[dict, bytes | None]:
    """A reading's entry and the bytes to store (None for a marker)."""
    if not text.startswith(BINARY_MARK) and not text.startswith(SYMLINK_MARK):
        return {"as": "text"}, text.encode("utf-8", "surrogatepass")
    if text.startswith(BINARY_MARK) and not text.startswith(SPECIAL_MARK) and " sha256=" in text:
        try:
            data = safefs.read_bytes(root, rel, limit)
        except (safefs.PathError, OSError):
            return {"mark": text}, None
        if _binary_mark(data) == text:
            return {"as": "binary"}, data
    return {"mark": text}, None


def _binary_mark(data: bytes) -> str:
    return f"{BINARY_MARK}{len(data)} bytes sha256={_hex(data)}"


def store_tree(store: Path, root: Path, files: dict[str, str]) -> str:
    """Keep the tree at ``root`` whose reading is ``files`` (``Workspace.files()``); returns its digest
    (the reading's ``tree_digest``). Blobs and the manifest are written atomically, once."""
    digest = tree_digest(files)
    manifest = Path(store) / f"{digest}.json"
    if manifest.exists():
        return digest
    entries = {}
    for rel, text in files.items():
        entry, data = _entry(Path(root), rel, text, safefs.DEFAULT_LIMITS.max_file_bytes)
        if data is not None:
            entry["blob"] = _put_blob(Path(store), data)
        entries[rel] = entry
    manifest.parent.mkdir(parents=True, exist_ok=True)
    body = json.dumps({"format": TREE_FORMAT, "files": entries}, sort_keys=True, separators=(",", ":"))
    statefile.write_atomic(manifest, body)
    return digest


@dataclass
class StoredTree:
    """A stored tree as read back: its reading (rebuilt from the blobs), its digest recomputed,
    the bytes of each file, and what could not be read (a missing blob, a bad manifest)."""
    files: dict[str, str] = field(default_factory=dict)
    data: dict[str, bytes] = field(default_factory=dict)
    digest: str | None = None
    problems: list[str] = field(default_factory=list)


def _rebuild(store: Path, rel: str, entry, out: StoredTree) -> None:
    if not isinstance(entry, dict):
        out.problems.append(f"{rel}: not an entry")
        return
    if "mark" in entry and isinstance(entry["mark"], str):
        out.files[rel] = entry["mark"]
        return
    sha = entry.get("blob")
    path = store / "blobs" / str(sha)
    if not isinstance(sha, str) or not HEX64.fullmatch(sha) or not path.is_file() or path.is_symlink():
        out.problems.append(f"{rel}: blob {sha!r} missing")
        return
    data = path.read_bytes()  # its hash is not checked here: the tree digest recomputed below is
    out.data[rel] = data
    if entry.get("as") == "text":
        try:
            out.files[rel] = data.decode()
        except UnicodeDecodeError:
            out.files[rel] = _binary_mark(data)
    else:
        out.files[rel] = _binary_mark(data)


def load_tree(store: Path, digest: str) -> StoredTree:
    """The tree stored under ``digest``, rebuilt; ``digest`` recomputed from what is on disk."""
    out = StoredTree()
    if not isinstance(digest, str) or not HEX64.fullmatch(digest):
        out.problems.append(f"{str(digest)[:80]!r} is not a tree digest")
        return out
    path = Path(store) / f"{digest}.json"
    try:
        raw = statefile.regular_file(path, "tree").read_bytes()
        if len(raw) > MAX_MANIFEST_BYTES:
            raise ValueError("too large")
        body = statefile.loads(raw)
    except (OSError, ValueError, InputError) as exc:
        out.problems.append(f"tree {digest[:12]}... not readable: {exc}")
        return out
    if not isinstance(body, dict) or body.get("format") != TREE_FORMAT or not isinstance(body.get("files"), dict):
        out.problems.append(f"tree {digest[:12]}...: not a {TREE_FORMAT} manifest")
        return out
    for rel, entry in body["files"].items():
        _rebuild(Path(store), rel, entry, out)
    out.files = dict(sorted(out.files.items()))
    out.digest = tree_digest(out.files)
    return out


def materialize(tree: StoredTree, dest: Path) -> list[str]:
    """Write a stored tree's files under ``dest`` (a new directory); links are recreated as links
    (never followed). Returns the paths that could not be recreated (special files, files past the
    limits): their bytes were never stored."""
    lost = []
    dest.mkdir(parents=True)
    for rel, text in tree.files.items():
        if rel in tree.data:
            safefs.write_bytes(dest, rel, tree.data[rel])
        elif text.startswith(SYMLINK_MARK):
            parts = safefs.split(rel)
            parent = dest.joinpath(*parts[:-1])
            parent.mkdir(parents=True, exist_ok=True)
            os.symlink(text[len(SYMLINK_MARK):], parent / parts[-1])
        else:
            lost.append(rel)
    return lost
