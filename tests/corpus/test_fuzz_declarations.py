"""Fuzzing the gate and hints loaders (Hypothesis): generated and mutated TOML gives a result or a
one-line GateError / DeclarationError naming the file - never another exception. Examples found
while fuzzing are kept as regression cases (@example)."""
import tempfile
from pathlib import Path

import tomli_w
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from corpus.declarations import HINT_KEYS, DeclarationError, gate_keys, gate_kinds, load_hints
from corpus.gates import GateError, load_gate

SETTINGS = settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
scalars = st.one_of(st.booleans(), st.integers(-5, 10**6), st.floats(allow_nan=False, allow_infinity=False),
                    st.text(max_size=12), st.sampled_from(["tests", "check.py", "g.toml", "schema.json", "x"]))
values = st.recursive(scalars, lambda c: st.lists(c, max_size=3) | st.dictionaries(st.text(max_size=6), c, max_size=3),
                      max_leaves=6)
gate_keys = sorted({"kind", "name", "timeout_s", "status", "data"} | {k for kind in gate_kinds() for k in gate_keys(kind)})
gate_tables = st.fixed_dictionaries(
    {"kind": st.sampled_from(gate_kinds()) | values},
    optional={**{k: values for k in gate_keys if k != "kind"}, "zz_unknown": values})
hint_tables = st.fixed_dictionaries({}, optional={**{k: values for k in HINT_KEYS}, "zz_unknown": values})
VALID_GATE = b'[gate]\nname = "g"\nkind = "command"\nargv = ["{python}", "check.py"]\ntimeout_s = 5\n'
VALID_HINTS = b'[artifact]\nrequirement = "r"\nrequired_sections = ["A", "B"]\nrole = "code"\n'


def _load(name: str, data: bytes, loader, error) -> None:
    with tempfile.TemporaryDirectory(prefix="fuzz-decl-") as tmp:
        d = Path(tmp)
        (d / "tests").mkdir()
        (d / "check.py").write_text("def check(p):\n    return True\n")
        (d / "schema.json").write_text("{}")
        p = d / name
        p.write_bytes(data)
        try:
            loader(p)
        except error as exc:
            assert str(p) in str(exc) and "\n" not in str(exc), str(exc)


def _load_gate(data: bytes) -> None:
    _load("g.toml", data, load_gate, GateError)


def _load_hints(data: bytes) -> None:
    _load("h.toml", data, load_hints, DeclarationError)


@SETTINGS
@given(table=gate_tables, wrapped=st.booleans())
@example(table={"kind": "composite", "children": ["g.toml"]}, wrapped=True)     # a cycle: was RecursionError
@example(table={"kind": "command", "argv": []}, wrapped=True)                    # nothing to run
@example(table={"kind": ["command"]}, wrapped=True)                              # unhashable kind
@example(table={"kind": "command", "argv": ["x"], "timeout_s": True}, wrapped=False)  # bool is not a number
def test_generated_gate_files(table, wrapped):
    _load_gate(tomli_w.dumps({"gate": table} if wrapped else table).encode())


@SETTINGS
@given(pos=st.integers(0, len(VALID_GATE)), cut=st.integers(0, 8), junk=st.binary(max_size=8))
@example(pos=0, cut=0, junk=b"\xff\xfe")                                          # not UTF-8
@example(pos=0, cut=0, junk=b"gate = 3\n")                                         # [gate] not a table
def test_mutated_gate_files(pos, cut, junk):
    _load_gate(VALID_GATE[:pos] + junk + VALID_GATE[pos + cut:])


@SETTINGS
@given(table=hint_tables)
@example(table={"kind": "xml"})
@example(table={"not_applicable": [1]})
def test_generated_hints_files(table):
    _load_hints(tomli_w.dumps({"artifact": table}).encode())


@SETTINGS
@given(pos=st.integers(0, len(VALID_HINTS)), cut=st.integers(0, 8), junk=st.binary(max_size=8))
@example(pos=0, cut=0, junk=b"artifact = 1\n")
def test_mutated_hints_files(pos, cut, junk):
    _load_hints(VALID_HINTS[:pos] + junk + VALID_HINTS[pos + cut:])
