"""The self-attestation probe (v2): the artifact vouches for itself, and nothing backs it.

The paper's second defect class: the gate checks a value the artifact supplies about itself (a
``status: passed`` line, a ``verified: true`` key) instead of the content that value attests
to. Each mutant here keeps every self-reported field exactly as it was and destroys the rest
(structured documents: every other value emptied; Markdown and text: every other content line
dropped, headings kept). Where the artifact has no such field, one is planted on the hollowed
document (``status: passed``, ``verified: true``), as a worker writing its own verdict would.
A gate that accepts one is ``self-attesting`` (corpus/measure.py), named by that mutant.
"""
from __future__ import annotations

import re
from typing import Any, Callable

from corpus.model import DESTROYING, ArtifactSpec
from corpus.operators import NO_MUTANT, Example, operator
from corpus.operators.jsondoc import dump_doc, load_doc
from corpus.operators.lines import join as join_lines
from corpus.operators.lines import lines as split_lines
from corpus.operators.markdown import HEADING
from corpus.operators.structured import dump_structured, empty_value, hollow_in_place, load_structured

ATTEST_KEYS = ("status", "state", "result", "passed", "verified", "approved", "validated", "valid",
               "ok", "success", "succeeded", "complete", "completed", "reviewed", "signed_off",
               "signoff", "sign_off", "verdict", "conforms", "compliant")
_ATTEST_LINE = re.compile(r"^\W*(" + "|".join(k.replace("_", "[-_ ]?") for k in ATTEST_KEYS) + r")\b\W*\s*[:=]",
                          re.I)
PLANTED = {"status": "passed", "verified": True}


def is_attest_key(key) -> bool:
    return isinstance(key, str) and key.strip().lower().replace("-", "_").replace(" ", "_") in ATTEST_KEYS


def _holds_attestation(v) -> bool:
    if isinstance(v, dict):
        return any(is_attest_key(k) or _holds_attestation(x) for k, x in v.items())
    if isinstance(v, list):
        return any(_holds_attestation(x) for x in v)
    return False


def _hollow_but_attestations(node, kind: str) -> None:
    """Hollow ``node`` in place; self-reported fields (and the containers leading to them) stay."""
    if isinstance(node, dict):
        for k in list(node):
            v = node[k]
            if is_attest_key(k):
                continue
            if _holds_attestation(v):
                _hollow_but_attestations(v, kind)
            elif isinstance(v, (dict, list)):
                hollow_in_place(v, kind)
            else:
                node[k] = empty_value(v, kind)
    elif isinstance(node, list):
        node[:] = [x for x in node if _holds_attestation(x)]
        for x in node:
            _hollow_but_attestations(x, kind)


def _structured(spec: ArtifactSpec):
    dump: Callable[[Any, ArtifactSpec], bytes]
    if spec.kind == "json":
        try:
            doc = load_doc(spec)
        except ValueError:
            return []
        dump = dump_doc
    else:
        doc = load_structured(spec)
        dump = dump_structured
    if not isinstance(doc, dict):
        return []
    if _holds_attestation(doc):
        _hollow_but_attestations(doc, spec.kind)
        return [(dump(doc, spec), "self-reported fields kept, content emptied")]
    hollow_in_place(doc, spec.kind)
    doc.update(PLANTED)
    return [(dump(doc, spec), "content emptied, 'status: passed' and 'verified: true' planted")]


def _textual(spec: ArtifactSpec):
    lines = split_lines(spec)
    md = spec.kind == "markdown"
    attest = [i for i, l in enumerate(lines) if _ATTEST_LINE.match(l)]
    kept = [l for i, l in enumerate(lines) if i in attest or not l.strip() or (md and HEADING.match(l))]
    if attest:
        return [(join_lines(kept, spec), "self-reported lines kept, content dropped")]
    return [(join_lines(kept + ["", "Status: passed", "Verified: yes"], spec),
             "content dropped, 'Status: passed' and 'Verified: yes' planted")]


@operator("self_attestation", "v2", ("json", "yaml", "toml", "markdown", "text"), DESTROYING,
          probe="self-attestation", examples=[
              Example("json", '{"status": "passed", "tests": [{"name": "a", "ok": true}], "total": 1}\n',
                      '{\n  "status": "passed",\n  "tests": [\n    {\n      "name": "",\n      "ok": true\n    }\n  ],\n  "total": 0\n}\n'),
              Example("yaml", "approved: true\nreviewer: kim\nfindings:\n  - none\n",
                      "approved: true\nreviewer: ''\nfindings: []\n"),
              Example("toml", "title = \"x\"\n", "title = \"\"\nstatus = \"passed\"\nverified = true\n"),
              Example("markdown", "# Report\n\nStatus: passed\n\nAll 12 checks ran.\n",
                      "# Report\n\nStatus: passed\n\n"),
              Example("markdown", "# Report\n\nAll 12 checks ran.\n",
                      "# Report\n\n\nStatus: passed\nVerified: yes\n"),
              Example("json", "[1, 2]\n", NO_MUTANT)])
def self_attestation(spec: ArtifactSpec):
    """Keep every self-reported field (status, passed, verified, approved, ...), destroy the content
    it attests to; plant one on the hollowed artifact when there is none."""
    if spec.kind in ("json", "yaml", "toml"):
        return _structured(spec)
    return _textual(spec)
