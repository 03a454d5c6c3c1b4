"""YAML and TOML artifacts get their own structure-aware mutants (real parsers, round-trip), and a
sound gate over them rejects every destroying one and accepts every preserving one."""
import textwrap

import pytest

from corpus.catalogue import Loop
from corpus.gates import load_gate
from corpus.measure import measure, summarize
from corpus.model import DESTROYING, PRESERVING

DOCS = {
    "yaml": ("deploy.yaml", "# service settings\nreplicas: 3  # at least one\ntls:\n  verify: true\nports:\n  - 80\n  - 443\n"),
    "toml": ("deploy.toml", "# service settings\nreplicas = 3\nports = [80, 443]\n\n[tls]\nverify = true\n"),
}
CHECK = """
import sys, tomllib
from ruamel.yaml import YAML
p = sys.argv[1]
try:
    text = open(p).read()
    doc = YAML(typ="safe").load(text) if p.endswith(".yaml") else tomllib.loads(text)
    ok = (isinstance(doc, dict) and type(doc.get("replicas")) is int and doc["replicas"] > 0
          and isinstance(doc.get("tls"), dict) and doc["tls"].get("verify") is True
          and isinstance(doc.get("ports"), list) and doc["ports"] and all(type(x) is int for x in doc["ports"]))
except Exception:
    ok = False
sys.exit(0 if ok else 1)
"""


@pytest.mark.parametrize("kind", ["yaml", "toml"])
def test_structured_mutants_and_a_sound_gate(tmp_path, kind):
    name, text = DOCS[kind]
    art = tmp_path / "artifact"
    art.mkdir()
    (art / name).write_text(text)
    (tmp_path / "check.py").write_text(textwrap.dedent(CHECK))
    (tmp_path / "gate.toml").write_text('[gate]\nkind = "command"\nargv = ["{python}", "{gate_dir}/check.py", "{artifact}"]\n')
    hints = {"required_keys": ["replicas", "tls.verify"], "typed_keys": ["replicas", "ports"], "flags": ["tls.verify"],
             "unordered_lists": ["ports"]}
    loop = Loop(id=f"cfg-{kind}", dir=tmp_path, title="t", domains=["infrastructure"], requirement="r", kind=kind,
                target=name, artifact_dir=art, hints=hints, not_applicable=(), gate_paths=[tmp_path / "gate.toml"])
    m = measure([loop], families=("v1", "v2"), tier2=False, workers=2,
                gates={loop.id: [load_gate(tmp_path / "gate.toml")]})
    ops = {(r.operator, r.label) for r in m.rows if not r.is_control}
    assert {("drop_key", DESTROYING), ("hollow", DESTROYING), ("swap_type", DESTROYING), ("negate_flag", DESTROYING),
            ("self_attestation", DESTROYING), ("reformat_whitespace", PRESERVING), ("reorder_items", PRESERVING),
            ("add_comment", PRESERVING)} <= ops
    g = summarize(m)["gates"][0]
    assert g["control_verdict"] == "accept"
    assert g["all"]["false_accept"]["k"] == 0 and g["all"]["false_reject"]["k"] == 0, (
        g["all"]["false_accept_ids"], g["all"]["false_reject_ids"])
    assert g["all"]["incapacity"] == 0
    # round trip: a mutant that does not touch the comment keeps it
    kept = [mu for mu in m.mutants.values() if mu.operator == "negate_flag"][0].content.decode()
    assert "# service settings" in kept and ("verify: false" in kept or "verify = false" in kept)
