"""A tree's reading, one typed entry per path, and its digest (``tree_digest``, encoding ``hx-tree-digest-2``).

The reading most of the harness uses is ``{path: text}`` (``harness.core.tasks.read_tree``): a file
that is not text, a link, a FIFO or a file past the tree's limits reads as a *marker*, text that
starts with a NUL. That view is lossy on purpose (a diff or a detector only needs to know a binary
file changed), and it is ambiguous: a text file can hold the characters of a marker, and the
directories are not in it. A digest over it gives two different trees one digest (red team r33:
A4's gate admitted a receipt for a tree changed after its passing test, and a changed tree store
verified). So the digest is over this module's ``TreeReading`` instead, where each path has an
explicit ``Kind``:

- ``text``: a regular file that is UTF-8 text within the text limit; its text;
- ``binary``: any other regular file that was read; its size and the sha256 of its bytes;
- ``symlink``: a symbolic link (never followed); its target;
- ``special``: a FIFO, socket or device node (never opened); what it is;
- ``over``: an entry past one of the tree's limits (not read); which limit;
- ``dir``: a directory, an empty one included (a test can tell ``os.path.isdir``).

**The encoding** (``encode``; the digest is sha256 of it): ``MAGIC``, the number of entries as 8
bytes big-endian, then for each entry in the order of its path's bytes: one byte for the kind
(``KIND_TAG``), the path and the payload each as an 8-byte big-endian length and the bytes. A
string is its UTF-8 with ``surrogatepass`` (a name that is not UTF-8 reads as lone surrogates: every
Python string has exactly one byte string). The payload is the text (``text``), the size as 8 bytes
and the sha256's 64 hex digits (``binary``), the target (``symlink``), the description
(``special``, ``over``), nothing (``dir``). Every field is length-prefixed and the kind is explicit,
so the bytes parse back into exactly one reading: two distinct readings never share an encoding,
and (sha256 being collision resistant) never share a digest. ``tests/harness/core/test_treereading.py``
parses the bytes back as the specification of this format.

What the digest does not cover: permission bits, times, owners (``harness.sandbox.workspace.tree_modes``
and the detectors read modes), and the bytes of an entry past the limits (``TreeReading.unread``: a
reading with such entries does not pin the tree down, and A4's gate never treats its digest as Fresh).
"""
from __future__ import annotations

import hashlib
import struct
from dataclasses import dataclass, field
from enum import StrEnum

DIGEST_FORMAT = "hx-tree-digest-2"
MAGIC = DIGEST_FORMAT.encode() + b"\n"

# the text view's markers (what a reader that only needs text sees for an entry that is not text);
# a FIFO's and a limit's marker start with BINARY_MARK so readers that leave binary contents alone
# leave them alone too
BINARY_MARK = "\0binary "
SYMLINK_MARK = "\x00symlink -> "
SPECIAL_MARK = BINARY_MARK + "special file, not copied: "
LIMIT_MARK = BINARY_MARK + "past the limits: "


class Kind(StrEnum):
    TEXT = "text"
    BINARY = "binary"
    SYMLINK = "symlink"
    SPECIAL = "special"
    OVER = "over"
    DIR = "dir"


KIND_TAG = {Kind.TEXT: b"t", Kind.BINARY: b"b", Kind.SYMLINK: b"l", Kind.SPECIAL: b"s", Kind.OVER: b"o",
            Kind.DIR: b"d"}


@dataclass(frozen=True)
class Entry:
    """One path of a reading: its kind and what the kind records (``text`` holds the text, the link
    target or the description; ``size`` and ``sha256`` a binary file's)."""
    kind: Kind
    text: str = ""
    size: int = 0
    sha256: str = ""

    @classmethod
    def of_bytes(cls, data: bytes) -> "Entry":
        """A binary file's entry from its bytes."""
        return cls(Kind.BINARY, size=len(data), sha256=hashlib.sha256(data).hexdigest())

    def marker(self) -> str | None:
        """The text view of this entry (``TreeReading.files``); None for a directory (not in it)."""
        if self.kind is Kind.TEXT:
            return self.text
        if self.kind is Kind.BINARY:
            return f"{BINARY_MARK}{self.size} bytes sha256={self.sha256}"
        if self.kind is Kind.SYMLINK:
            return SYMLINK_MARK + self.text
        if self.kind is Kind.SPECIAL:
            return SPECIAL_MARK + self.text
        if self.kind is Kind.OVER:
            return LIMIT_MARK + self.text
        return None

    def payload(self) -> bytes:
        if self.kind is Kind.BINARY:
            if isinstance(self.size, bool) or not isinstance(self.size, int) or not 0 <= self.size < 1 << 64:
                raise ValueError(f"a binary entry's size {self.size!r} is not a byte count")
            return struct.pack(">Q", self.size) + _bytes(self.sha256)
        return b"" if self.kind is Kind.DIR else _bytes(self.text)


@dataclass(frozen=True)
class TreeReading:
    """A tree as read: every path under the root (directories included) with its ``Entry``."""
    entries: dict[str, Entry] = field(default_factory=dict)

    @property
    def files(self) -> dict[str, str]:
        """The text view every other reader uses: each non-directory path and its text or marker, sorted."""
        out = {rel: e.marker() for rel, e in sorted(self.entries.items()) if e.kind is not Kind.DIR}
        return {rel: text for rel, text in out.items() if text is not None}

    @property
    def dirs(self) -> list[str]:
        return sorted(rel for rel, e in self.entries.items() if e.kind is Kind.DIR)

    @property
    def unread(self) -> list[str]:
        """The paths whose content this reading did not read (``over``: past one of the tree's limits; past
        the entry count, where the walk stopped, nothing after it is listed at all). Their content, and
        what the walk never reached, can change under an unchanged digest, so a digest of a reading with
        any is no proof that a tree is unchanged (A4's Fresh refuses it: red team r33b)."""
        return sorted(rel for rel, e in self.entries.items() if e.kind is Kind.OVER)


def _bytes(s: str) -> bytes:
    if not isinstance(s, str):
        raise ValueError(f"expected a string, got {type(s).__name__}")
    return s.encode("utf-8", "surrogatepass")


def _field(data: bytes) -> bytes:
    return struct.pack(">Q", len(data)) + data


def encode(tree: TreeReading) -> bytes:
    """The reading's bytes in the ``hx-tree-digest-2`` encoding (see the module's docstring).
    TypeError for anything but a TreeReading: a ``{path: text}`` dict is the ambiguous view."""
    if not isinstance(tree, TreeReading):
        raise TypeError(f"a tree digest is over a TreeReading (typed entries), not a {type(tree).__name__}: the "
                        "{path: text} view cannot tell a marker from a file holding its text")
    rows = []
    for rel, e in tree.entries.items():
        if not isinstance(e, Entry) or not isinstance(e.kind, Kind):
            raise ValueError(f"{rel!r}: not a typed entry")
        rows.append((_bytes(rel), e))
    rows.sort(key=lambda row: row[0])
    out = [MAGIC, struct.pack(">Q", len(rows))]
    for path, e in rows:
        out += [KIND_TAG[e.kind], _field(path), _field(e.payload())]
    return b"".join(out)


def tree_digest(tree: TreeReading) -> str:
    """sha256 of ``encode(tree)``: the materialHash of a receipt, the record's ``tree_digest_*``, the
    name of a stored tree's manifest and what A4's gate compares (Eq. 2's Fresh). The one function
    that digests a tree."""
    return hashlib.sha256(encode(tree)).hexdigest()
