"""Operator labels on hand-checked cases; libcst mutants parse; determinism; metadata."""
import ast
import json
from pathlib import Path

import libcst

from corpus.catalogue import load_catalogue
from corpus.model import DESTROYING, PRESERVING, ArtifactSpec
from corpus.operators import generate, operators

MD = b"# Doc\n\n## Duties\n\nThe party shall keep records.\n\n- alpha\n- beta\n\n## Term\n\nThree years.\n"
PY = b"import os\n\n\ndef f(a):\n    total = a + 1\n    return total\n\n\ndef g():\n    return f(1)\n"


def spec(kind, content, **hints):
    return ArtifactSpec(loop="t", kind=kind, target="x", content=content, hints=hints)


def by_op(muts):
    """The first mutant of each operator."""
    out = {}
    for m in muts:
        out.setdefault(m.operator, m)
    return out


def test_markdown_hand_checked():
    ms = by_op(generate(spec("markdown", MD, required_sections=["Term"], obligations=["shall keep records"])))
    assert ms["delete"].content is None and ms["delete"].label == DESTROYING and ms["delete"].probe == "absence"
    assert ms["empty"].content == b""
    assert ms["hollow"].content == b"# Doc\n\n## Duties\n\n\n\n## Term\n\n"
    assert ms["hollow"].probe == "hollowing" and ms["hollow"].label == DESTROYING
    assert b"## Term" not in ms["drop_section"].content and b"## Duties" in ms["drop_section"].content
    assert b"shall not keep records" in ms["negate_obligation"].content
    assert ms["reorder_items"].label == PRESERVING and b"- beta\n- alpha" in ms["reorder_items"].content
    assert ms["add_comment"].label == PRESERVING and ms["add_comment"].content.startswith(MD)
    assert ms["reformat_whitespace"].label == PRESERVING
    assert ms["reformat_whitespace"].content.split() == MD.split()   # same words, other whitespace


def test_hint_driven_operators_need_hints():
    ops = {m.operator for m in generate(spec("markdown", MD))}
    assert "drop_section" not in ops and "negate_obligation" not in ops


def test_json_hand_checked():
    doc = {"a": 1, "items": [{"k": "x"}, {"k": "y"}], "name": "n"}
    ms = by_op(generate(spec("json", json.dumps(doc).encode(), required_keys=["items[].k", "name"],
                             unordered_lists=["items"])))
    assert json.loads(ms["hollow"].content) == {"a": 0, "items": [], "name": ""}
    dropped = json.loads(ms["drop_key"].content)
    assert "k" not in dropped["items"][0] and dropped["items"][1]["k"] == "y"
    assert json.loads(ms["swap_type"].content)["items"][0]["k"] == ["x"]
    assert json.loads(ms["reformat_whitespace"].content) == doc
    re = json.loads(ms["reorder_items"].content)
    assert re["items"] == doc["items"][::-1] and list(re) == list(doc)[::-1]
    assert ms["reorder_items"].label == PRESERVING


def test_pins_hand_checked():
    src = b"requests==2.31.0\nidna==3.6\n"
    ms = generate(spec("pins", src, required_packages=["idna"]))
    broken = [m for m in ms if m.operator == "break_pin"]
    assert {m.content for m in broken} == {b"requests\nidna==3.6\n", b"requests==2.31.0\nidna\n"}
    assert all(m.label == DESTROYING for m in broken)
    assert by_op(ms)["hollow"].content == b"requests\nidna\n"
    assert by_op(ms)["drop_pin"].content == b"requests==2.31.0\n"
    assert by_op(ms)["reformat_whitespace"].content == b"requests == 2.31.0\nidna == 3.6\n"
    assert by_op(ms)["reformat_whitespace"].label == PRESERVING


def test_commit_hand_checked():
    ms = by_op(generate(spec("commit", b"fix(api): handle nulls\n")))
    assert ms["swap_type"].content == b"update(api): handle nulls\n"
    assert ms["hollow"].content == b"fix(api): \n"
    assert ms["drop_separator"].content == b"fix(api) handle nulls\n"
    assert ms["add_body"].content == b"fix(api): handle nulls\n\nExplains the change in more detail.\n"
    assert ms["add_footer"].label == PRESERVING


def test_python_hand_checked_and_libcst_mutants_parse():
    ms = generate(spec("python", PY, required_symbols=["g"]))
    d = by_op(ms)
    assert "return total" not in d["hollow"].content.decode() and "def f(a):" in d["hollow"].content.decode()
    assert "def g" not in d["drop_symbol"].content.decode()
    ren = d["rename_local"].content.decode()
    assert "total_renamed = a + 1" in ren and "return total_renamed" in ren and "f(a)" in ren
    assert d["rename_local"].label == PRESERVING
    # reorder: g before f, still the same module semantics
    ns_a, ns_b = {}, {}
    exec(PY, ns_a)
    exec(d["reorder_items"].content, ns_b)
    assert ns_a["g"]() == ns_b["g"]() == 2
    exec(ren, ns_b)
    assert ns_b["g"]() == 2
    for m in ms + generate(spec("python", PY, required_symbols=["g"], role="tests"), "v2"):
        if m.meta.get("engine") == "libcst":
            libcst.parse_module(m.content.decode())
            ast.parse(m.content.decode())


def test_every_catalogue_libcst_mutant_parses():
    for lp in load_catalogue():
        if lp.kind != "python" or lp.tier1_excluded:
            continue
        for fam in ("v1", "v2"):
            for m in generate(lp.artifact_spec(), fam):
                if m.meta.get("engine") == "libcst":
                    ast.parse(m.content.decode())


def test_mutant_metadata_and_determinism():
    lp = load_catalogue(only="runbook-complete")[0]
    a = generate(lp.artifact_spec(), "v1")
    b = generate(lp.artifact_spec(), "v1")
    assert [m.as_dict() for m in a] == [m.as_dict() for m in b]
    for m in a:
        assert m.operator and m.family == "v1" and m.label in (DESTROYING, PRESERVING)
        assert m.parent_digest == lp.artifact_spec().digest
        assert m.id.startswith("runbook-complete/v1/")
    assert len({m.id for m in a}) == len(a)
    assert all(m.content != lp.artifact_spec().content for m in a)


def test_v1_covers_issue_operators():
    names = {o.name for o in operators("v1")}
    assert {"delete", "empty", "truncate", "hollow", "drop_section", "drop_key", "negate_obligation",
            "swap_type", "break_pin", "reformat_whitespace", "reorder_items", "add_comment",
            "rename_local"} <= names
    v2 = {o.name for o in operators("v2")}
    assert v2 and not (v2 & names), "v2 must be new operators"


# methods (decorated, after a comment, with a nested def, a multi-line string at column 0, in a
# nested class) are their own unit: rebuilt and compiled without their class
CLASS_SRC = '''

class Box:
    """doc"""
    size = 3

    @staticmethod
    def make(n):
        text = """a
b"""
        def inner(k):
            return k + n
        return [inner(i) for i in range(n)] if n > 0 else text

    # a comment before a method
    def grow(self, by=1):
        self.size += by
        if self.size > 10 and not by:
            raise ValueError("too big")
        return self.size

    class Inner:
        def twice(self, x):
            return x * 2 if x else -x
'''


def test_fine_by_position_equals_rebuilding_the_statement():
    """Issue 26: mutants are made by position (the expression's span swapped) instead of rebuilding
    the tree, and a method is rebuilt alone (its unit); every site must give the text the rebuild
    of its whole top-level statement gives."""
    from pathlib import Path

    from corpus.operators.fine import _analyse, _mutated_statement
    root = Path(__file__).resolve().parents[2]
    src = (root / "corpus" / "examples" / "isbn" / "isbn.py").read_text() + \
        "\n\ndef g(a, b):\n    y = (a + b) * -(a - 1) if not a == b else [x ** 2 for x in (a, b)]\n" \
        "    return f'{a!r:>{b}}' + str(a) .upper() + ('x' 'y')\n" + CLASS_SRC
    analysis = _analyse(src)
    mod, spans, sites, *_ = analysis
    n = 0
    for op_sites in sites.values():
        for site in op_sites:
            top, node, new = site[:3]
            assert _mutated_statement(src, analysis, site) == mod.code_for_node(mod.body[top].deep_replace(node, new))
            n += 1
    assert n > 180
    assert len(set(analysis[5].values())) >= 3         # make, grow, twice: units of their own


def test_each_new_operator_alone_reveals_its_gap():
    """Issue 35's operators, each against a suite with a gap (tests/corpus/data/gaps): the
    operator's mutant survives, and on its line no other operator's mutant does, so without it
    the gap goes unseen."""
    from corpus.catalogue import Loop
    from corpus.measure import measure
    data = Path(__file__).resolve().parent / "data" / "gaps"
    src = (data / "gaps.py").read_text()
    loop = Loop(id="gaps", dir=data, title="gaps", domains=["software"], requirement="(test)", kind="python",
                target="gaps.py", artifact_dir=data, hints={"role": "code"}, not_applicable=(),
                gate_paths=[data / "gate.toml"])
    m = measure([loop], families=("fine",), tier2=False, workers=2)
    survived: dict[int, set[str]] = {}
    for r in m.rows:
        mu = m.mutants.get(r.mutant)
        if mu is not None and mu.label == "destroying" and r.verdict == "accept":
            survived.setdefault(int(mu.note.split(":", 1)[0][1:]), set()).add(mu.operator)
    lines = src.splitlines()

    def line_of(text: str) -> int:
        return next(i for i, ln in enumerate(lines, 1) if ln.strip() == text)
    expected = {"break_continue": line_of("continue"), "string_case": line_of('return "Hi " + name'),
                "lambda_none": line_of("return lambda x: x"), "remove_case": line_of("match n:"),
                "dict_keyword": line_of("return dict(verbose=v)"),
                "shallow_copy": line_of("return copy.deepcopy(state)"),
                "remove_decorator": line_of("@functools.cache"), "unary": line_of("return not flag"),
                "ternary_constant": line_of("return a if a is not None else b"),
                "none_to_empty": line_of("found = None")}
    for op, line in expected.items():
        got = survived.get(line, set()) | (survived.get(line + 1, set()) if op == "remove_decorator" else set())
        assert got == {op}, (op, line, got)
