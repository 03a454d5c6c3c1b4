"""The run's store of final trees (harness.sandbox.treestore): a stored tree rebuilds to the digest the
record and its receipts carry, files are kept once across trees, and a flipped byte is another tree."""
from __future__ import annotations

import os

from harness.core.tasks import read_tree
from harness.sandbox.treestore import load_tree, materialize, store_tree
from harness.sandbox.workspace import tree_digest


def _tree(root, files: dict[str, bytes]):
    for rel, data in files.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_bytes(data)
    return read_tree(root)


def test_a_stored_tree_rebuilds_to_its_digest_with_text_binary_and_a_link(tmp_path):
    src = tmp_path / "src"
    src.mkdir()
    os.symlink("/etc/passwd", src / "link")
    files = _tree(src, {"a.py": "x = 'é'\n".encode(), "pkg/data.bin": b"\xff\x00\x01"})
    digest = store_tree(tmp_path / "store", src, files)
    assert digest == tree_digest(files)
    back = load_tree(tmp_path / "store", digest)
    assert back.digest == digest and back.files == files and not back.problems
    lost = materialize(back, tmp_path / "again")
    assert lost == [] and read_tree(tmp_path / "again") == files
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
