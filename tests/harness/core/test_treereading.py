"""The tree digest (harness.core.treereading, ``hx-tree-digest-2``) is injective over tree readings: two
distinct readings never share a digest, and two distinct trees on disk never share a reading.

The format is specified here by a parser (``_parse``): the digest's bytes parse back into exactly the
reading they came from, which is what makes the encoding injective (sha256 then keeps distinct
encodings apart). The strategies lean on the collisions red team r33 found under the older
(path, text) encoding: text spelling a marker, NULs in contents and names that look like file
boundaries, path separators, empty directories."""
from __future__ import annotations

import hashlib
import os
import struct

import pytest
from hypothesis import HealthCheck, assume, example, given, settings
from hypothesis import strategies as st

from harness.core.tasks import read_entries
from harness.core.treereading import (
    BINARY_MARK,
    KIND_TAG,
    LIMIT_MARK,
    MAGIC,
    SPECIAL_MARK,
    SYMLINK_MARK,
    Entry,
    Kind,
    TreeReading,
    encode,
    tree_digest,
)

SHA_FF = hashlib.sha256(b"\xff").hexdigest()
# the pieces the older digest confused: markers, NULs, names that spell a file boundary, separators
TRICKY = ["", "x", "\0", "a.txt", "\0b.txt\0y", f"{BINARY_MARK}1 bytes sha256={SHA_FF}", f"{SYMLINK_MARK}t.py",
          SPECIAL_MARK + "fifo", LIMIT_MARK + "x", "a/b", "/", "\udcff", "é"]

texts = st.one_of(st.sampled_from(TRICKY), st.text(max_size=8),
                  st.lists(st.sampled_from(TRICKY), max_size=3).map("".join))
paths = st.one_of(st.sampled_from(["a", "a.txt", "b.txt", "a/b", "a\0b", "a/b.txt", "\udcff", "é"]),
                  st.lists(st.sampled_from(["a", "b", "\0", "/", "x.py"]), min_size=1, max_size=4).map("".join))
entries = st.one_of(
    texts.map(lambda t: Entry(Kind.TEXT, t)),
    st.tuples(st.integers(0, 3), st.sampled_from([SHA_FF, "0" * 64])).map(
        lambda p: Entry(Kind.BINARY, size=p[0], sha256=p[1])),
    texts.map(lambda t: Entry(Kind.SYMLINK, t)),
    texts.map(lambda t: Entry(Kind.SPECIAL, t)),
    texts.map(lambda t: Entry(Kind.OVER, t)),
    st.just(Entry(Kind.DIR)),
)
readings = st.dictionaries(paths, entries, max_size=5).map(TreeReading)
PROPERTY = settings(max_examples=300, deadline=None)


def _parse(data: bytes) -> TreeReading:
    """The ``hx-tree-digest-2`` encoding read back (the format's specification; see treereading's docstring)."""
    assert data.startswith(MAGIC)
    pos = len(MAGIC)

    def take(n: int) -> bytes:
        nonlocal pos
        assert pos + n <= len(data)
        pos += n
        return data[pos - n:pos]

    def field() -> bytes:
        return take(struct.unpack(">Q", take(8))[0])
    kinds = {tag: kind for kind, tag in KIND_TAG.items()}
    out = {}
    for _ in range(struct.unpack(">Q", take(8))[0]):
        kind = kinds[take(1)]
        path = field().decode("utf-8", "surrogatepass")
        payload = field()
        if kind is Kind.BINARY:
            out[path] = Entry(kind, size=struct.unpack(">Q", payload[:8])[0], sha256=payload[8:].decode())
        else:
            out[path] = Entry(kind, payload.decode("utf-8", "surrogatepass"))
    assert pos == len(data)  # nothing after the last entry: the encoding ends where its count says
    return TreeReading(out)


@PROPERTY
@given(readings)
def test_the_encoding_parses_back_into_exactly_its_reading(tree):
    assert _parse(encode(tree)) == tree


@PROPERTY
@given(readings, readings)
@example(TreeReading({"m": Entry(Kind.BINARY, size=1, sha256=SHA_FF)}),
         TreeReading({"m": Entry(Kind.TEXT, f"{BINARY_MARK}1 bytes sha256={SHA_FF}")}))
@example(TreeReading({"s.py": Entry(Kind.SYMLINK, "t.py")}), TreeReading({"s.py": Entry(Kind.TEXT, SYMLINK_MARK + "t.py")}))
@example(TreeReading({"a.txt": Entry(Kind.TEXT, "x"), "b.txt": Entry(Kind.TEXT, "y")}),
         TreeReading({"a.txt": Entry(Kind.TEXT, "x\0b.txt\0y")}))
@example(TreeReading({"s.py": Entry(Kind.TEXT, "1")}), TreeReading({"s.py": Entry(Kind.TEXT, "1"), "flag": Entry(Kind.DIR)}))
@example(TreeReading({"a": Entry(Kind.TEXT, "b\0c")}), TreeReading({"a\0b": Entry(Kind.TEXT, "c")}))
def test_two_distinct_readings_never_share_a_digest(one, two):
    assert (one == two) == (tree_digest(one) == tree_digest(two))
    assert (one == two) == (encode(one) == encode(two))


def test_the_text_view_is_refused_as_a_digest_input():
    """A {path: text} dict cannot tell a marker from a file holding its text: never digested."""
    with pytest.raises(TypeError):
        tree_digest({"a.txt": "x"})  # type: ignore[arg-type]


# -- on disk: distinct trees are distinct readings --------------------------------------------------------------------
NAMES = ["a", "b.txt", "\0x", "é", "sub"]  # "\0x" is replaced below: a NUL cannot be in a file name
CONTENTS = [b"x", b"\0", b"x\0b.txt\0y", b"\xff", f"{BINARY_MARK}1 bytes sha256={SHA_FF}".encode(),
            f"{SYMLINK_MARK}t".encode(), b""]


@st.composite
def disk_trees(draw):
    """A small tree spec: {relative path: ("file", bytes) | ("dir",) | ("link", target)}, parents as dirs."""
    spec: dict[str, tuple] = {}
    for _ in range(draw(st.integers(0, 5))):
        parts = draw(st.lists(st.sampled_from(NAMES), min_size=1, max_size=3))
        parts = [p.replace("\0", "n") for p in parts]
        rel = "/".join(parts)
        if any("/".join(parts[:i]) in spec and spec["/".join(parts[:i])][0] != "dir" for i in range(1, len(parts))):
            continue  # a parent that is already a file or a link
        if any(k.startswith(rel + "/") for k in spec) or rel in spec:
            continue
        for i in range(1, len(parts)):
            spec["/".join(parts[:i])] = ("dir",)
        spec[rel] = draw(st.one_of(st.sampled_from(CONTENTS).map(lambda b: ("file", b)), st.just(("dir",)),
                                   st.sampled_from(["t", "../x", "\0"]).map(lambda t: ("link", t.replace("\0", "n")))))
    return spec


def _build(root, spec: dict) -> None:
    root.mkdir()
    for rel, what in sorted(spec.items()):
        path = root / rel
        if what[0] == "dir":
            path.mkdir(exist_ok=True)
        elif what[0] == "file":
            path.write_bytes(what[1])
        else:
            os.symlink(what[1], path)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(disk_trees(), disk_trees())
def test_two_distinct_trees_on_disk_never_share_a_reading_or_a_digest(tmp_path_factory, one, two):
    assume(one != two)
    base = tmp_path_factory.mktemp("trees")
    _build(base / "one", one)
    _build(base / "two", two)
    a, b = read_entries(base / "one"), read_entries(base / "two")
    assert a != b and tree_digest(a) != tree_digest(b)
    assert _parse(encode(a)) == a
