"""Blindness (paper Theorem 10.1): no generator module imports gate code or reads a gate file.

Walks the AST of every module under corpus/operators/ (and corpus/model.py, which they import):
- imports are limited to an allow-list (stdlib helpers, libcst, the model, sibling operators);
- no call can open or list files, import dynamically, or execute code;
- no string literal names a gate file or a gate-knowing module.
A runtime check then generates every family for every loop with file access disabled.
"""
import ast
import builtins
import io
import os
import pathlib
from pathlib import Path

import pytest

import corpus
from corpus.catalogue import load_catalogue
from corpus.operators import FAMILIES, generate

PKG = Path(corpus.__file__).parent
GENERATORS = sorted((PKG / "operators").glob("*.py")) + [PKG / "model.py", PKG / "equivalence.py", PKG / "screen.py",
                                                       PKG / "screen_types.py"]
# io: StringIO for the YAML emitter; ruamel.yaml / tomlkit parse the artifact text in memory;
# dis / types: the bytecode comparison of corpus/equivalence.py
ALLOWED_IMPORTS = {"__future__", "copy", "json", "re", "hashlib", "dataclasses", "typing", "libcst",
                   "corpus.model", "corpus.operators", "corpus.equivalence", "corpus.screen", "collections", "itertools",
                   "functools", "io", "ruamel.yaml", "tomlkit", "dis", "types",
                   "tokenize", "warnings", "ast", "corpus.pyparse",
                   "corpus.screen_types", "codecs"}   # ast, corpus.pyparse: parse (never runs) text; warnings: silences SyntaxWarning in compile; tokenize: reads '# pragma: no mutate' comments from the text it is given
# corpus.screen_types: the screen's kinds of a module's expressions (read from the AST it is given);
# codecs: codecs.lookup tells whether two codec names name one codec (stdlib encodings only)
# compile() turns source into code objects without running them: allowed only where bytecode is
# compared, never exec/eval
COMPILE_ALLOWED = {"equivalence.py"}
FORBIDDEN_CALLS = {"open", "exec", "eval", "compile", "__import__", "read_text", "read_bytes",
                   "listdir", "scandir", "walk", "glob", "rglob", "iterdir", "import_module",
                   "spec_from_file_location", "load_gate", "load_catalogue", "judge", "loads"}
FORBIDDEN_NAMES = {"gates", "gate", "tomllib", "subprocess", "importlib", "os", "pathlib", "Path", "GATES"}
# the one plug-in registry: an operator module may import the operators' registry and nothing else from it
REGISTRY_NAMES = {"OPERATORS"}


def _imports(tree):
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            yield from (a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom):
            yield node.module or ""


@pytest.mark.parametrize("path", GENERATORS, ids=lambda p: p.name)
def test_generator_is_blind(path):
    tree = ast.parse(path.read_text())
    for node in ast.walk(tree):
        if isinstance(node, (ast.Import, ast.ImportFrom)) and "harness.core.registry" in \
                [getattr(node, "module", None), *(a.name for a in node.names)]:
            assert isinstance(node, ast.ImportFrom) and {a.name for a in node.names} <= REGISTRY_NAMES, \
                f"{path.name}:{node.lineno} takes more than {REGISTRY_NAMES} from harness.core.registry"
    for mod in (m for m in _imports(tree) if m != "harness.core.registry"):
        assert mod in ALLOWED_IMPORTS or any(mod.startswith(a + ".") for a in ALLOWED_IMPORTS), \
            f"{path.name} imports {mod}"
        assert "gate" not in mod and "catalogue" not in mod and "measure" not in mod
    docstrings = {id(n.value) for n in ast.walk(tree) if isinstance(n, ast.Expr) and isinstance(n.value, ast.Constant)}
    for node in ast.walk(tree):
        if isinstance(node, ast.Call):
            f = node.func
            name = f.id if isinstance(f, ast.Name) else f.attr if isinstance(f, ast.Attribute) else ""
            if isinstance(f, ast.Attribute) and isinstance(f.value, ast.Name) and \
                    (f.value.id, f.attr) in {("json", "loads"), ("re", "compile"), ("ast", "walk")}:
                continue            # parsing the artifact text the spec carries; regex building; a parsed tree's nodes
            if name == "compile" and path.name in COMPILE_ALLOWED:
                continue
            assert name not in FORBIDDEN_CALLS, f"{path.name}:{node.lineno} calls {name}"
        if isinstance(node, ast.Name):
            assert node.id not in FORBIDDEN_NAMES, f"{path.name}:{node.lineno} uses {node.id}"
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in docstrings:
            low = node.value.lower()
            assert ".toml" not in low and "gates/" not in low and "_gatelib" not in low, \
                f"{path.name}:{node.lineno} names a gate file"


def test_blindness_checker_catches_a_violation(tmp_path):
    """The walk is not vacuous: a generator that reads a gate file is caught."""
    bad = tmp_path / "bad.py"
    bad.write_text("from corpus.gates import load_gate\n\ndef op(spec):\n    return open('gates/gate.toml').read()\n")
    with pytest.raises(AssertionError):
        test_generator_is_blind(bad)


def test_blindness_checker_refuses_the_gate_registry(tmp_path):
    """Importing the operators' registry is allowed; reaching the gate kinds through it is not."""
    bad = tmp_path / "bad.py"
    bad.write_text("from harness.core.registry import OPERATORS, GATES\n")
    with pytest.raises(AssertionError):
        test_generator_is_blind(bad)


def test_generation_touches_no_file(monkeypatch):
    specs = [lp.artifact_spec() for lp in load_catalogue() if not lp.tier1_excluded]

    def refuse(*a, **k):
        raise AssertionError(f"generator tried to touch the filesystem: {a!r}")

    for target, attr in ((builtins, "open"), (io, "open"), (os, "listdir"), (os, "scandir"),
                         (pathlib.Path, "open"), (pathlib.Path, "read_text"), (pathlib.Path, "read_bytes")):
        monkeypatch.setattr(target, attr, refuse)
    n = sum(len(generate(s, fam)) for s in specs for fam in FAMILIES)
    assert n > 200
