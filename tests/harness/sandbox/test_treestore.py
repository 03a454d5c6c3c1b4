"""The run's store of final trees (harness.sandbox.treestore): a stored tree rebuilds to the digest the
record and its receipts carry, files are kept once across trees, and a flipped byte is another tree."""
from __future__ import annotations

import os

import pytest

from harness.core.tasks import read_entries
from harness.sandbox.treestore import load_tree, materialize, store_tree
from harness.sandbox.workspace import tree_digest


def _tree(root, files: dict[str, bytes]):
    for rel, data in files.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_bytes(data)
    return read_entries(root)


def test_a_stored_tree_rebuilds_to_its_digest_with_text_binary_and_a_link(tmp_path):
    src = tmp_path / "src"
    src.mkdir()
    os.symlink("/etc/passwd", src / "link")
    files = _tree(src, {"a.py": "x = 'é'\n".encode(), "pkg/data.bin": b"\xff\x00\x01"})
    digest = store_tree(tmp_path / "store", src, files)
    assert digest == tree_digest(files)
    back = load_tree(tmp_path / "store", digest)
    assert back.digest == digest and back.reading == files and not back.problems
    lost = materialize(back, tmp_path / "again")
    assert lost == [] and read_entries(tmp_path / "again") == files
    assert os.readlink(tmp_path / "again" / "link") == "/etc/passwd"  # recreated as a link, never followed


def test_files_are_stored_once_across_trees(tmp_path):
    a, b = tmp_path / "a", tmp_path / "b"
    a.mkdir()
    b.mkdir()
    fa = _tree(a, {"big.py": b"y = 1\n" * 1000, "x.py": b"1\n"})
    fb = _tree(b, {"big.py": b"y = 1\n" * 1000, "x.py": b"2\n"})
    store_tree(tmp_path / "store", a, fa)
    store_tree(tmp_path / "store", b, fb)
    assert len(list((tmp_path / "store" / "blobs").iterdir())) == 3


def test_a_flipped_byte_in_a_blob_is_another_tree(tmp_path):
    src = tmp_path / "src"
    src.mkdir()
    files = _tree(src, {"a.py": b"answer = 42\n"})
    digest = store_tree(tmp_path / "store", src, files)
    blob = next((tmp_path / "store" / "blobs").iterdir())
    blob.write_bytes(b"answer = 43\n")
    back = load_tree(tmp_path / "store", digest)
    assert back.digest != digest


def test_a_missing_blob_or_manifest_is_a_problem_never_a_tree(tmp_path):
    src = tmp_path / "src"
    src.mkdir()
    digest = store_tree(tmp_path / "store", src, _tree(src, {"a.py": b"1\n"}))
    next((tmp_path / "store" / "blobs").iterdir()).unlink()
    assert load_tree(tmp_path / "store", digest).problems
    assert load_tree(tmp_path / "store", "0" * 64).digest is None


def _repoint(store, digest, change) -> None:
    """Rewrite the manifest stored under ``digest`` with ``change(entries, put)``; ``put(bytes)`` stores a blob."""
    import hashlib
    import json
    manifest = store / f"{digest}.json"
    body = json.loads(manifest.read_text())

    def put(data: bytes) -> str:
        (store / "blobs" / hashlib.sha256(data).hexdigest()).write_bytes(data)
        return hashlib.sha256(data).hexdigest()
    change(body["entries"], put)
    manifest.write_text(json.dumps(body))


_REPOINTS = {  # red team r33: each gave a changed store the same tree digest under the (path, text) encoding
    "binary-to-its-marker-text": lambda files: lambda entries, put: entries.update(
        {"mode.dat": {"kind": "text", "blob": put(files["mode.dat"].encode())}}),
    "two-files-folded-with-nuls": lambda files: lambda entries, put: (
        entries.update({"a.py": {"kind": "text", "blob": put(b"x = 1\n\0sub/b.py\0y = 2\n")}}), entries.pop("sub/b.py")),
    "empty-directory-dropped": lambda files: lambda entries, put: entries.pop("empty"),
}


@pytest.mark.parametrize("case", sorted(_REPOINTS))
def test_a_manifest_re_pointed_at_other_bytes_with_the_same_text_view_is_another_tree(tmp_path, case):
    """red team r33: a manifest entry re-pointed at a blob holding the text of the marker its file reads
    as, two files folded into one with NULs, or an empty directory dropped, rebuilt to the same digest
    under the (path, text) encoding, so verify accepted the changed store and rejudge ran another tree
    as the cell's. The typed reading tells each apart: the rebuilt digest differs."""
    src = tmp_path / "src"
    src.mkdir()
    (src / "empty").mkdir()
    tree = _tree(src, {"a.py": b"x = 1\n", "sub/b.py": b"y = 2\n", "mode.dat": b"\xff"})
    digest = store_tree(tmp_path / "store", src, tree)
    assert load_tree(tmp_path / "store", digest).digest == digest
    _repoint(tmp_path / "store", digest, _REPOINTS[case](tree.files))
    back = load_tree(tmp_path / "store", digest)
    assert back.digest != digest and not back.problems


def test_an_empty_directory_is_stored_and_recreated(tmp_path):
    src = tmp_path / "src"
    src.mkdir()
    (src / "pkg" / "empty").mkdir(parents=True)
    tree = _tree(src, {"pkg/a.py": b"1\n"})
    back = load_tree(tmp_path / "store", store_tree(tmp_path / "store", src, tree))
    assert back.reading.dirs == ["pkg", "pkg/empty"]
    materialize(back, tmp_path / "again")
    assert (tmp_path / "again" / "pkg" / "empty").is_dir() and read_entries(tmp_path / "again") == tree


def test_a_link_in_a_manifest_is_never_a_way_out_when_the_tree_is_recreated(tmp_path):
    """A manifest (untrusted: it comes with a bundle) naming a link ``d`` to outside and an entry ``d/x``
    under it: recreating the tree never follows the link (nothing is written outside ``dest``)."""
    import json
    outside = tmp_path / "outside"
    outside.mkdir()
    src = tmp_path / "src"
    src.mkdir()
    digest = store_tree(tmp_path / "store", src, _tree(src, {"a.py": b"1\n"}))
    manifest = tmp_path / "store" / f"{digest}.json"
    body = json.loads(manifest.read_text())
    body["entries"].update({"d": {"kind": "symlink", "target": str(outside)},
                            "d/x": {"kind": "symlink", "target": "/etc/passwd"}})
    manifest.write_text(json.dumps(body))
    with pytest.raises((OSError, ValueError)):
        materialize(load_tree(tmp_path / "store", digest), tmp_path / "again")
    assert list(outside.iterdir()) == []


def test_an_older_runs_manifest_is_read_with_the_older_digest_and_says_so(tmp_path):
    """An hx-tree-1 manifest (a run from before the typed reading) is named by the older digest over the
    (path, text) view; it still rebuilds to it, and ``format`` tells a reader which digest that is."""
    import json

    from harness.sandbox.treestore import LEGACY_TREE_FORMAT, _legacy_digest
    src = tmp_path / "src"
    src.mkdir()
    tree = _tree(src, {"a.py": b"x = 1\n", "mode.dat": b"\xff"})
    new = store_tree(tmp_path / "store", src, tree)
    body = json.loads((tmp_path / "store" / f"{new}.json").read_text())
    old = _legacy_digest(tree.files)
    legacy = {"a.py": {"as": "text", "blob": body["entries"]["a.py"]["blob"]},
              "mode.dat": {"as": "binary", "blob": body["entries"]["mode.dat"]["blob"]}}
    (tmp_path / "store" / f"{old}.json").write_text(json.dumps({"format": LEGACY_TREE_FORMAT, "files": legacy}))
    back = load_tree(tmp_path / "store", old)
    assert back.digest == old != new and back.format == LEGACY_TREE_FORMAT and back.files == tree.files
    assert load_tree(tmp_path / "store", new).format == "hx-tree-2"
