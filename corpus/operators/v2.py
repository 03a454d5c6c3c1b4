"""Family v2: operators the catalogue's gates were never repaired against.

Measured against frozen gates (``harness corpus freeze``), v2 shows the paper's Table 9: a
gate suite that reports zero false accepts against the family that repaired it has
established exhaustion, not quality.
"""
from __future__ import annotations

import json
import re

import libcst as cst

from corpus.model import DESTROYING, KINDS, PRESERVING, ArtifactSpec
from corpus.operators import NO_MUTANT, Example, operator
from corpus.operators.commits import SUBJECT, join_message, split_message
from corpus.operators.jsondoc import dump_doc, load_doc, parents
from corpus.operators.lines import join as join_lines
from corpus.operators.lines import lines as split_lines
from corpus.operators.markdown import HEADING, sections
from corpus.operators.pins import PIN, pinned, pinned_indices

# ----------------------------------------------------------------- every kind

@operator("whitespace_only", "v2", KINDS, DESTROYING, probe="absence", examples=[
    Example("markdown", "# T\nx\n", "\n\n"),
])
def whitespace_only(spec: ArtifactSpec):
    """Replace the content with as many blank lines as it had lines."""
    return [(("\n" * max(1, spec.text.count("\n"))).encode(), "content -> blank lines")]


@operator("crlf", "v2", ("markdown", "json", "pins"), PRESERVING, examples=[
    Example("json", '{"a": 1}\n', '{"a": 1}\r\n', PRESERVING),
])
def crlf(spec: ArtifactSpec):
    """Windows line endings."""
    return [(spec.text.replace("\r\n", "\n").replace("\n", "\r\n").encode(), "LF -> CRLF")]


# ----------------------------------------------------------------- markdown / text

@operator("placeholder_fill", "v2", ("markdown",), DESTROYING, probe="hollowing", examples=[
    Example("markdown", "# T\n\ntext\n", "# T\n\nTBD\n"),
])
def placeholder_fill(spec: ArtifactSpec):
    """Keep the headings, replace every content line with 'TBD'."""
    lines = [l if (HEADING.match(l) or not l.strip()) else "TBD" for l in split_lines(spec)]
    return [(join_lines(lines, spec), "content -> TBD")]


@operator("comment_out_section", "v2", ("markdown",), DESTROYING, examples=[
    Example("markdown", "## Term\nTwo years.\n", "## Term\n<!--\nTwo years.\n-->\n", hints={"required_sections": ["Term"]}),
])
def comment_out_section(spec: ArtifactSpec):
    """Wrap one required section's body in an HTML comment (renders as nothing; max 2)."""
    req = [r.lower() for r in spec.hints.get("required_sections", [])]
    lines = split_lines(spec)
    out: list[tuple] = []
    for start, end, title in sections(lines):
        if title.strip().lower() in req and len(out) < 2 and end > start + 1:
            new = lines[:start + 1] + ["<!--"] + lines[start + 1:end] + ["-->"] + lines[end:]
            out.append((join_lines(new, spec), f"body of {title!r} commented out"))
    return out


@operator("weaken_modal", "v2", ("markdown", "text"), DESTROYING, examples=[
    Example("text", "Vendor must encrypt data.\n", "Vendor may encrypt data.\n", hints={"obligations": ["must encrypt data"]}),
])
def weaken_modal(spec: ArtifactSpec):
    """Turn an obligation into a permission: 'shall'/'must'/'will' -> 'may' (max 2)."""
    out = []
    for phrase in spec.hints.get("obligations", [])[:2]:
        i = spec.text.lower().find(phrase.lower())
        if i < 0:
            continue
        found = spec.text[i:i + len(phrase)]
        weak = re.sub(r"\b(shall|must|will)\b", "may", found, count=1, flags=re.I)
        if weak != found:
            out.append(((spec.text[:i] + weak + spec.text[i + len(phrase):]).encode(),
                        f"{found!r} -> {weak!r}"))
    return out


@operator("closing_hashes", "v2", ("markdown",), PRESERVING, examples=[
    Example("markdown", "## Term\nx\n", "## Term ##\nx\n", PRESERVING),
])
def closing_hashes(spec: ArtifactSpec):
    """ATX headings with closing '#' sequences (CommonMark: same heading)."""
    lines = [f"{l.rstrip()} {m.group(1)}" if (m := HEADING.match(l)) else l
             for l in split_lines(spec)]
    return [(join_lines(lines, spec), "closing hashes on headings")]


# ----------------------------------------------------------------- json

@operator("null_value", "v2", ("json",), DESTROYING, examples=[
    Example("json", '{"a": 1}', '{\n  "a": null\n}', hints={"required_keys": ["a"]}),
])
def null_value(spec: ArtifactSpec):
    """Set one required key's value to null (max 2)."""
    out = []
    for path in spec.hints.get("required_keys", [])[:2]:
        doc = load_doc(spec)
        hits = parents(doc, path)
        if hits:
            d, k = hits[0]
            d[k] = None
            out.append((dump_doc(doc, spec), f"{path} -> null"))
    return out


@operator("empty_collection", "v2", ("json",), DESTROYING, probe="hollowing", examples=[
    Example("json", '{"a": [1], "b": 2}', '{\n  "a": [],\n  "b": 2\n}'),
    Example("json", '{"b": 2}', NO_MUTANT),
])
def empty_collection(spec: ArtifactSpec):
    """Empty every list in the document, keep every key (the universally-quantified set is gone)."""
    def _empty_lists(v):
        if isinstance(v, dict):
            return {k: _empty_lists(x) for k, x in v.items()}
        if isinstance(v, list):
            return []
        return v
    doc = load_doc(spec)
    new = _empty_lists(doc)
    return [(dump_doc(new, spec), "every list emptied")] if new != doc else []


@operator("unicode_escape", "v2", ("json",), PRESERVING, examples=[
    Example("json", '{"k": "ab1"}', '{"k": "\\u0061\\u00621"}\n', PRESERVING),
])
def unicode_escape(spec: ArtifactSpec):
    """Write every string value's letters as \\uXXXX escapes (the same JSON document)."""
    def esc(s: str) -> str:
        return "".join(f"\\u{ord(c):04x}" if c.isalpha() else c for c in s)

    def enc(v):
        if isinstance(v, dict):
            return "{" + ", ".join(f"{json.dumps(k)}: {enc(x)}" for k, x in v.items()) + "}"
        if isinstance(v, list):
            return "[" + ", ".join(enc(x) for x in v) + "]"
        if isinstance(v, str):
            return '"' + esc(json.dumps(v)[1:-1]) + '"'
        return json.dumps(v)
    return [((enc(load_doc(spec)) + "\n").encode(), "string values \\u-escaped")]


# ----------------------------------------------------------------- python

class _Stub(cst.CSTTransformer):
    def __init__(self, names):
        self.names = names

    def leave_FunctionDef(self, original, updated):
        if updated.name.value not in self.names:
            return updated
        stub = cst.parse_statement("raise NotImplementedError\n")
        return updated.with_changes(body=cst.IndentedBlock([stub]))


@operator("raise_stub", "v2", ("python",), DESTROYING, engine="libcst", examples=[
    Example("python", "def f():\n    return 1\n", "def f():\n    raise NotImplementedError\n", hints={"required_symbols": ["f"]}),
])
def raise_stub(spec: ArtifactSpec):
    """Replace a required function's body with ``raise NotImplementedError`` (max 2)."""
    mod = cst.parse_module(spec.text)
    defined = {s.name.value for s in mod.body if isinstance(s, cst.FunctionDef)}
    out = []
    for name in [n for n in spec.hints.get("required_symbols", []) if n in defined][:2]:
        out.append((mod.visit(_Stub({name})).code.encode(), f"{name} stubbed"))
    return out


class _TrueAsserts(cst.CSTTransformer):
    def leave_Assert(self, original, updated):
        return updated.with_changes(test=cst.Name("True"), msg=None, comma=cst.MaybeSentinel.DEFAULT)


@operator("assert_true", "v2", ("python",), DESTROYING, engine="libcst", examples=[
    Example("python", "def test_a():\n    assert f() == 1, \"msg\"\n", "def test_a():\n    assert True\n", hints={"role": "tests"}),
    Example("python", "assert x\n", NO_MUTANT),
])
def assert_true(spec: ArtifactSpec):
    """In a test module, make every assertion ``assert True`` (tests run, check nothing)."""
    if spec.hints.get("role") != "tests":
        return []
    mod = cst.parse_module(spec.text)
    return [(mod.visit(_TrueAsserts()).code.encode(), "assertions -> assert True")]


@operator("add_module_docstring", "v2", ("python",), PRESERVING, engine="libcst", examples=[
    Example("python", "x = 1\n", "\"\"\"Module reviewed: no behaviour change.\"\"\"\nx = 1\n", PRESERVING),
])
def add_module_docstring(spec: ArtifactSpec):
    """Prepend a module docstring (or a second comment line if one exists)."""
    mod = cst.parse_module(spec.text)
    if mod.body and isinstance(mod.body[0], cst.SimpleStatementLine) and \
            isinstance(mod.body[0].body[0], cst.Expr) and isinstance(mod.body[0].body[0].value, cst.SimpleString):
        return []
    doc = cst.parse_statement('"""Module reviewed: no behaviour change."""\n')
    return [(mod.with_changes(body=[doc, *mod.body]).code.encode(), "module docstring added")]


# ----------------------------------------------------------------- pins

@operator("range_pin", "v2", ("pins",), DESTROYING, examples=[
    Example("pins", "a==1.2.3\n", "a~=1.2.3\n"),
])
def range_pin(spec: ArtifactSpec):
    """'==1.2.3' -> '~=1.2.3' on the first pin (compatible release, not an exact pin)."""
    lines = spec.text.splitlines()
    idx = pinned_indices(lines)
    if not idx:
        return []
    i = idx[0]
    lines[i] = lines[i].replace("==", "~=", 1)
    return [(join_lines(lines, spec), "first pin -> ~=")]


@operator("wildcard_pin", "v2", ("pins",), DESTROYING, examples=[
    Example("pins", "a==1.2.3\n", "a==1.2.*\n"),
])
def wildcard_pin(spec: ArtifactSpec):
    """'==1.2.3' -> '==1.2.*' on the last pin (a prefix match, not one version)."""
    lines = spec.text.splitlines()
    pins = pinned(lines)
    if not pins:
        return []
    i, m = pins[-1]
    parts = m["version"].split(".")
    if len(parts) < 2:
        return []
    lines[i] = f"{m['name']}{m['extras'] or ''}=={'.'.join(parts[:-1])}.*{m['rest']}"
    return [(join_lines(lines, spec), "last pin -> wildcard")]


@operator("name_case", "v2", ("pins",), PRESERVING, examples=[
    Example("pins", "requests==2.0\n", "REQUESTS==2.0\n", PRESERVING),
])
def name_case(spec: ArtifactSpec):
    """Upper-case every package name (names are case-insensitive, PEP 503)."""
    lines = []
    for l in spec.text.splitlines():
        m = PIN.match(l.strip())
        lines.append(m["name"].upper() + l.strip()[len(m["name"]):] if m else l)
    return [(join_lines(lines, spec), "names upper-cased")]


# ----------------------------------------------------------------- commits

@operator("uppercase_type", "v2", ("commit",), PRESERVING, examples=[
    Example("commit", "feat: x\n", "FEAT: x\n", PRESERVING),
])
def uppercase_type(spec: ArtifactSpec):
    """'feat:' -> 'FEAT:' (the Conventional Commits spec: types are case-insensitive)."""
    subj, rest = split_message(spec)
    m = SUBJECT.match(subj)
    if not m:
        return []
    return [(join_message(m["type"].upper() + subj[m.end("type"):], rest, spec), "type upper-cased")]


@operator("breaking_bang", "v2", ("commit",), PRESERVING, examples=[
    Example("commit", "feat(api): x\n", "feat(api)!: x\n", PRESERVING),
])
def breaking_bang(spec: ArtifactSpec):
    """Add the '!' breaking-change marker (legal under the spec)."""
    subj, rest = split_message(spec)
    m = SUBJECT.match(subj)
    if not m or m["bang"]:
        return []
    cut = m.end("scope") if m["scope"] else m.end("type")
    return [(join_message(subj[:cut] + "!" + subj[cut:], rest, spec), "'!' marker added")]


@operator("no_space_after_colon", "v2", ("commit",), DESTROYING, examples=[
    Example("commit", "feat: x\n", "feat:x\n"),
])
def no_space_after_colon(spec: ArtifactSpec):
    """'feat: x' -> 'feat:x' (the spec requires a colon AND a space)."""
    subj, rest = split_message(spec)
    m = SUBJECT.match(subj)
    if not m:
        return []
    return [(join_message(subj[:m.start("desc") - 1] + subj[m.start("desc"):], rest, spec), "space dropped")]
