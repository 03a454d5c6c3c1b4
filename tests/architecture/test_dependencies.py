"""Every third-party package the shipped code imports is declared in pyproject.toml with a lower bound.

Walks the AST of the shipped source trees (every ``import``, top-level or inside a function, since a
function-level import is still a run-time dependency) and maps each top-level import name to its
distribution name. A package declared only in an optional extra counts as declared: the code that imports
it (Ray, Inspect AI) is the extra's feature. The task fixtures under ``corpus/catalogue`` and
``corpus/examples`` are code the agent works on, not the harness's own imports, and are skipped.
"""
from __future__ import annotations

import ast
import re
import sys
import tomllib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
SOURCE_TREES = ("harness", "analysis", "corpus", "viewer", "interop", "benchmarks")
SKIPPED = ("corpus/catalogue", "corpus/examples")
# first-party packages, plus tests/support (benchmarks reuse its synthetic run builder)
FIRST_PARTY = frozenset(SOURCE_TREES) | {"support"}
# import name -> distribution name, where they differ beyond `_` vs `-`
DISTRIBUTION_OF = {
    "_pytest": "pytest",
    "yaml": "pyyaml",
    "ruamel": "ruamel.yaml",
    "PIL": "pillow",
    "markdown_it": "markdown-it-py",
    "sklearn": "scikit-learn",
    "dateutil": "python-dateutil",
    "attr": "attrs",
    "bs4": "beautifulsoup4",
    "cv2": "opencv-python",
}


def normalize(name: str) -> str:
    """PEP 503 normalized distribution name (``ruamel.yaml`` -> ``ruamel-yaml``)."""
    return re.sub(r"[-_.]+", "-", name).lower()


def distribution(import_name: str) -> str:
    """The normalized distribution that provides top-level module ``import_name``."""
    return normalize(DISTRIBUTION_OF.get(import_name, import_name))


def imported_names(source: str) -> set[str]:
    """Top-level names of every absolute import in ``source``, at any depth of the module."""
    names: set[str] = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            names.update(alias.name.split(".")[0] for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            names.add(node.module.split(".")[0])
    return names


def third_party(names: set[str]) -> set[str]:
    """The names in ``names`` that are neither the standard library nor first-party."""
    return {n for n in names if n not in sys.stdlib_module_names and n not in FIRST_PARTY}


def source_files() -> list[Path]:
    """The shipped ``.py`` files of ``SOURCE_TREES``, minus the task fixtures."""
    files = []
    for tree in SOURCE_TREES:
        for path in sorted((ROOT / tree).rglob("*.py")):
            rel = path.relative_to(ROOT).as_posix()
            if not rel.startswith(SKIPPED):
                files.append(path)
    return files


def requirement_name(spec: str) -> str:
    """The normalized distribution name of a PEP 508 requirement string."""
    match = re.match(r"\s*([A-Za-z0-9][A-Za-z0-9._-]*)", spec)
    assert match, f"unparseable requirement {spec!r}"
    return normalize(match.group(1))


def declared(pyproject: dict) -> dict[str, str]:
    """Normalized distribution name -> requirement string, over dependencies and every extra."""
    project = pyproject["project"]
    specs = list(project.get("dependencies", []))
    for extra in project.get("optional-dependencies", {}).values():
        specs.extend(extra)
    return {requirement_name(s): s for s in specs}


def undeclared(files: list[Path], declared_names: set[str], root: Path = ROOT) -> dict[str, list[str]]:
    """Distribution -> files (relative to ``root``) importing it, for every third-party import not declared."""
    missing: dict[str, list[str]] = {}
    for path in files:
        for name in third_party(imported_names(path.read_text())):
            if distribution(name) not in declared_names:
                missing.setdefault(distribution(name), []).append(path.relative_to(root).as_posix())
    return missing


@pytest.fixture(scope="module")
def pyproject() -> dict:
    return tomllib.loads((ROOT / "pyproject.toml").read_text())


def test_every_imported_third_party_package_is_declared(pyproject):
    files = source_files()
    assert len(files) > 50, "the source walk found too few files; did a tree move?"
    missing = undeclared(files, set(declared(pyproject)))
    assert not missing, "imported but not declared in pyproject.toml: " + "; ".join(
        f"{dist} (by {', '.join(sorted(set(users))[:3])})" for dist, users in sorted(missing.items()))


def test_every_declared_requirement_has_a_lower_bound(pyproject):
    unbounded = [spec for spec in declared(pyproject).values() if ">=" not in spec.split(";")[0]]
    assert not unbounded, f"requirements without a lower bound: {unbounded}"


def test_the_walk_sees_imports_inside_functions_and_maps_names(tmp_path):
    """The checker itself can fail: an undeclared import inside a function is reported by distribution."""
    module = tmp_path / "mod.py"
    module.write_text("import os\nfrom . import sibling\nimport harness.cli.cli\n"
                      "def f():\n    import yaml.safe_load\n    from PIL import Image\n"
                      "    from ruamel.yaml import YAML\n")
    assert undeclared([module], {"ruamel-yaml"}, root=tmp_path) == {"pyyaml": ["mod.py"], "pillow": ["mod.py"]}
