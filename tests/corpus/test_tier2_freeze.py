"""Tier-2 metadata and authoring digests; freeze detects a changed gate."""
import json
import shutil

from corpus.catalogue import load_catalogue, load_loop
from corpus.freeze import freeze, verify
from corpus.model import sha256
from corpus.tier2 import authoring_digest, load_tier2


def test_tier2_authoring_digests_recompute():
    n = 0
    for lp in load_catalogue():
        parent = lp.target_path.read_bytes()
        for m in load_tier2(lp):
            n += 1
            assert m.parent_digest == sha256(parent), f"{m.id}: conforming artifact changed since authoring"
            assert m.meta["authoring_digest"] == authoring_digest(lp.requirement, parent, m.content), m.id
            assert m.meta["why_not_mechanical"] and m.meta["defect"] and m.tier == 2
            assert m.content != parent
    assert n >= 30


def test_tier2_digest_excludes_gate_files():
    # the digest's inputs are the requirement, the artifact and the mutant: changing a gate
    # cannot change it (authoring was blind to the gate)
    import inspect

    from corpus import tier2
    src = inspect.getsource(tier2.authoring_digest)
    assert "gate" not in src.lower()


def test_freeze_detects_changed_gate(tmp_path):
    src = load_catalogue(only="runbook-complete")[0]
    root = tmp_path / "cat"
    shutil.copytree(src.dir, root / src.id)
    loops = [load_loop(root / src.id)]
    frozen = json.loads(json.dumps(freeze(loops)))
    assert verify(frozen, loops) == []
    g = root / src.id / "gates" / "gate.toml"
    g.write_text(g.read_text().replace("--require-content", "--require-content\", \"--min-words\", \"1"))
    assert any("changed since freeze" in p for p in verify(frozen, [load_loop(root / src.id)]))
