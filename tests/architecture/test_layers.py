"""The harness's layers, read from the AST of every module (imports inside functions included).

``harness`` is a stack of sub-packages, bottom to top: core, ledger, engines, sandbox, judge,
control, run, loop, cli. A module imports only from its own layer or a lower one. Beside the stack:
``analysis`` and ``corpus`` import only ``harness.core``; ``viewer`` and ``interop`` only
``harness.core`` and ``harness.run`` (``harness.run.records`` is their door to the record chain);
among the harness layers only ``loop`` may import ``corpus`` and only ``cli`` the four packages;
``harness.api`` (the plug-in surface) is imported by no module here and the example plug-in imports
nothing else of the harness. No import cycle among all these modules, top-level or inside a
function, and none among the packages (each harness layer, ``analysis``, ``corpus``, ``viewer``,
``interop``, ``benchmarks``): ``viewer`` and ``interop`` sit above ``analysis`` and ``corpus``. There is
no allow-list: every rule holds for every module.

Modules the plug-in registry imports by name (``harness.core.registry``'s built-in lists) are
resolved too: a module that *looks a part up* (reads a registry other than to register a part:
``get``, ``in``, ``names``, iteration, or ``needs_model``/``is_free``/``KINDS``) imports, when it
runs, every built-in module of that registry, so the walk adds those edges to it and the layer rule
applies to them (``registry_lookups``). A registry whose built-ins are *declared*
(``harness.core.builtin_parts``) imports only that declaration on lookup; its implementation modules
are imported when a part's object is asked for (``.obj``, ``.doc``), so a module that looks parts
up and reads ``.obj``/``.doc`` gets edges to them too (an implementation load). Registering
(``register``/``add``) loads nothing and adds no edge. These edges are left out of the cycle check: a registry loads its built-ins on first
lookup, after every module involved has finished importing, so they cannot deadlock an import.
"""
from __future__ import annotations

import ast
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
LAYERS = ("core", "ledger", "engines", "sandbox", "judge", "control", "run", "loop", "cli")
PACKAGES = ("harness", "analysis", "corpus", "viewer", "interop")
SKIP = ("corpus/catalogue", "corpus/examples")  # data: loops' gates and example trees, not the package's code
BELOW_CORE_ONLY = {"analysis", "corpus"}
CORE_AND_RUN = {"viewer", "interop"}
REGISTRY = "harness.core.registry"
# a registry's helpers that look a part up in it (harness.core.registry: needs_model, is_free read ENGINES)
LOOKUP_HELPERS = {"needs_model": ("ENGINES",), "is_free": ("ENGINES",)}
REGISTERING = {"register", "add"}  # a registry's methods that load nothing
IMPLEMENTATION = {"obj", "doc"}  # a part's attributes that import a declared built-in's implementation


def module_name(root: Path, path: Path) -> str:
    parts = list(path.relative_to(root).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def scan(root: Path, packages=PACKAGES, skip=SKIP) -> dict[str, set[str]]:
    """module -> the modules of ``packages`` it imports (anywhere in its body), from the AST."""
    files = {}
    for pkg in packages:
        for path in sorted((root / pkg).rglob("*.py")):
            rel = path.relative_to(root).as_posix()
            if not rel.startswith(skip):
                files[module_name(root, path)] = path
    return {name: imports_of(path, name, set(files)) for name, path in files.items()}


def _resolve(target: str, known: set[str]) -> str | None:
    while target and target not in known:
        target = target.rpartition(".")[0]
    return target or None


def imports_of(path: Path, name: str, known: set[str]) -> set[str]:
    """Every module of ``known`` that ``path`` imports: ``import a.b``, ``from a import b`` (b a
    module or a name in a), relative imports, at any depth of the tree (functions, ``if``, ``try``)."""
    out: set[str] = set()
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), str(path))):
        if isinstance(node, ast.Import):
            targets = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                up = package.split(".")[: len(package.split(".")) - (node.level - 1)]
                base = ".".join(up + ([node.module] if node.module else []))
            # a name that is a module imports that module; any other name, the module it is read from
            targets = [f"{base}.{a.name}" if f"{base}.{a.name}" in known else base for a in node.names]
        else:
            continue
        for t in targets:
            hit = _resolve(t, known)
            if hit is not None and hit != name:
                out.add(hit)
    return out


def unit_of(module: str) -> str:
    """'harness.<layer>' / 'harness.api' for the harness (its root package counts as core), else the
    top-level package."""
    parts = module.split(".")
    if parts[0] != "harness":
        return parts[0]
    if len(parts) == 1:
        return "harness.core"
    return f"harness.{parts[1]}"


def may_import(src: str, dst: str) -> bool:
    """Whether a module of unit ``src`` may import one of unit ``dst`` (the module docstring's rules)."""
    if src == dst:
        return True
    s_h, d_h = src.startswith("harness."), dst.startswith("harness.")
    if dst == "harness.api":
        return False
    if src == "harness.api":
        return d_h
    if s_h:
        layer = src.split(".", 1)[1]
        if layer not in LAYERS:
            return False
        if d_h:
            other = dst.split(".", 1)[1]
            return other in LAYERS and LAYERS.index(other) <= LAYERS.index(layer)
        return layer == "cli" or (layer == "loop" and dst == "corpus")
    if not d_h:  # between analysis, corpus, viewer and interop: viewer and interop sit above the other two
        return not (src in BELOW_CORE_ONLY and dst in CORE_AND_RUN)
    if src in BELOW_CORE_ONLY:
        return dst == "harness.core"
    if src in CORE_AND_RUN:
        return dst in ("harness.core", "harness.run")
    return False


def _registry_names(tree: ast.AST) -> dict[str, str]:
    """Local name -> registry object name, for every name a module imports from the registry."""
    out = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module == REGISTRY:
            out.update({a.asname or a.name: a.name for a in node.names})
    return out


def looked_up(tree: ast.AST, kinds: dict[str, tuple[str, ...]]) -> set[str]:
    """The registries (by their object's name in ``harness.core.registry``) a module looks parts up
    in: a use of a registry, ``KINDS`` or a lookup helper other than ``X.register``/``X.add``."""
    local = _registry_names(tree)
    registering = {id(n.value) for n in ast.walk(tree)
                   if isinstance(n, ast.Attribute) and n.attr in REGISTERING and isinstance(n.value, ast.Name)}
    out: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Name) and node.id in local and id(node) not in registering:
            name = local[node.id]
            if name == "KINDS":
                out.update(kinds)
            elif name in kinds:
                out.add(name)
            out.update(LOOKUP_HELPERS.get(name, ()))
    return out


def loads_implementations(tree: ast.AST) -> bool:
    """Whether a module asks a part for its object (``.obj``, ``.doc``), which imports a declared
    built-in's implementation module."""
    return any(isinstance(n, ast.Attribute) and n.attr in IMPLEMENTATION for n in ast.walk(tree))


def registry_builtins() -> dict[str, tuple[str, ...]]:
    """Each registry object's name in ``harness.core.registry`` -> the built-in modules it imports
    on first lookup, read from the registry itself."""
    from harness.core import registry
    return {name: obj.builtin for name, obj in vars(registry).items() if isinstance(obj, registry.Registry)}


def registry_implementations() -> dict[str, tuple[str, ...]]:
    """Each registry object's name -> the modules of its declared built-ins' objects (imported by
    ``Part.obj``), read from the registry's declarations."""
    from harness.core import registry
    return {name: obj.implementations() for name, obj in vars(registry).items() if isinstance(obj, registry.Registry)}


def registry_lookups(root: Path, graph: dict[str, set[str]], kinds: dict[str, tuple[str, ...]],
                     impls: dict[str, tuple[str, ...]] | None = None) -> dict[str, set[str]]:
    """module -> the built-in modules its registry lookups import, and the implementation modules
    of declared built-ins when it also reads a part's object (a module's own part loads are not
    edges: a module that registers parts and looks them up imports itself)."""
    out: dict[str, set[str]] = {}
    for mod in graph:
        if mod == REGISTRY:
            continue
        path = root / Path(*mod.split("."))
        path = path / "__init__.py" if path.is_dir() else path.with_suffix(".py")
        tree = ast.parse(path.read_text(encoding="utf-8"))
        regs = looked_up(tree, kinds)
        hit = {m for reg in regs for m in kinds[reg]}
        if impls and loads_implementations(tree):
            hit |= {m for reg in regs for m in impls.get(reg, ())}
        if hit - {mod}:
            out[mod] = hit - {mod}
    return out


def violations(graph: dict[str, set[str]]) -> list[str]:
    out = []
    for mod, deps in sorted(graph.items()):
        unit = unit_of(mod)
        if unit.startswith("harness.") and unit.split(".", 1)[1] not in (*LAYERS, "api"):
            out.append(f"{mod}: in no layer (harness/ holds only the layer sub-packages and api)")
        for dep in sorted(deps):
            if not may_import(unit, unit_of(dep)):
                out.append(f"{mod} ({unit}) imports {dep} ({unit_of(dep)})")
    return out


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The import cycles: strongly connected components of more than one module (Tarjan, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    on_stack: set[str] = set()
    stack: list[str] = []
    found: list[list[str]] = []
    counter = 0
    for start in sorted(graph):
        if start in index:
            continue
        work = [(start, iter(sorted(graph.get(start, ()))))]
        index[start] = low[start] = counter
        counter += 1
        stack.append(start)
        on_stack.add(start)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = counter
                    counter += 1
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(graph.get(child, ())))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                comp = []
                while True:
                    m = stack.pop()
                    on_stack.discard(m)
                    comp.append(m)
                    if m == node:
                        break
                if len(comp) > 1:
                    found.append(sorted(comp))
    return found


@pytest.fixture(scope="module")
def graph() -> dict[str, set[str]]:
    return scan(REPO)


def test_every_import_goes_down_the_layers(graph):
    assert len([m for m in graph if m.startswith("harness.")]) > 50  # the walk found the harness
    assert violations(graph) == []


def test_registry_lookups_go_down_the_layers(graph):
    """The built-in modules a lookup loads obey the layer rule as an import from the looking-up
    module would, with no exception: the protocol's checks, the scenario table and the ledger read the
    built-ins' declarations (``harness.core.builtin_parts``), and only a module that reads a part's
    object (``.obj``/``.doc``) loads its implementation."""
    kinds = registry_builtins()
    assert {"ENGINES", "ARMS", "SCENARIOS", "DETECTORS", "GATES", "OPERATORS"} <= set(kinds)
    assert all(m in graph for mods in kinds.values() for m in mods), "a built-in module the registry names is missing"
    impls = registry_implementations()
    assert all(m in graph for mods in impls.values() for m in mods), "a declared implementation module is missing"
    lookups = registry_lookups(REPO, graph, kinds, impls)
    assert "harness.run.driver" in lookups and "harness.cli.plugins" in lookups  # the walk finds lookups
    # `harness plugins` reads .doc, which loads every declared implementation
    assert {*impls["SCENARIOS"], *impls["ENGINES"], *impls["ARMS"]} <= lookups["harness.cli.plugins"]
    upward = {(mod, dep) for mod, deps in lookups.items() for dep in deps
              if not may_import(unit_of(mod), unit_of(dep))}
    assert upward == set(), "a registry lookup below the layer of the parts it loads"


def test_no_import_cycle_even_through_imports_inside_functions(graph):
    assert cycles(graph) == []


def package_graph(graph: dict[str, set[str]]) -> dict[str, set[str]]:
    """The module graph collapsed to units (``unit_of``: each harness layer, ``harness.api``, and every
    other top-level package): unit -> the other units its modules import."""
    out: dict[str, set[str]] = {}
    for mod, deps in graph.items():
        unit = unit_of(mod)
        out.setdefault(unit, set()).update(unit_of(d) for d in deps if unit_of(d) != unit)
    return out


def test_no_import_cycle_between_packages_even_through_imports_inside_functions():
    """Every package of the repository (the benchmarks too) and every harness layer: no two import
    each other, at any distance, counting imports inside functions. Module cycles are not enough: two
    packages can import each other through different modules (``analysis.compare_render`` imported
    ``viewer.page`` while ``viewer.cli`` imported ``analysis.compare_render``; the comparison's page is
    now the viewer's, ``viewer.compare_page``), and then neither can be read, tested or shipped without
    the other. The order among the packages beside the harness: ``viewer`` and ``interop`` may import
    ``analysis`` and ``corpus``, never the reverse."""
    units = package_graph(scan(REPO, packages=(*PACKAGES, "benchmarks")))
    assert {"analysis", "viewer", "corpus", "interop", "benchmarks", "harness.core", "harness.cli"} <= set(units)
    assert cycles(units) == []


def test_a_package_cycle_through_different_modules_is_caught(tmp_path):
    """A planted tree: ``analysis.render`` imports ``viewer.page`` inside a function and ``viewer.cli``
    imports ``analysis.render``: no module cycle, one package cycle."""
    for pkg, files in (("analysis", {"render.py": "def page():\n    from viewer.page import esc\n    return esc\n"}),
                       ("viewer", {"page.py": "def esc(s):\n    return s\n", "cli.py": "from analysis import render\n"})):
        (tmp_path / pkg).mkdir()
        (tmp_path / pkg / "__init__.py").write_text("")
        for name, text in files.items():
            (tmp_path / pkg / name).write_text(text)
    g = scan(tmp_path, packages=("analysis", "viewer"), skip=())
    assert cycles(g) == []
    assert package_graph(g) == {"analysis": {"viewer"}, "viewer": {"analysis"}}
    assert cycles(package_graph(g)) == [["analysis", "viewer"]]


def test_the_example_plugin_imports_only_the_plugin_surface():
    root = REPO / "examples" / "plugin"
    seen = set()
    for path in sorted((root / "ph_example").rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom) and node.module and node.module.split(".")[0] == "harness":
                seen.add(node.module)
            elif isinstance(node, ast.Import):
                seen.update(a.name for a in node.names if a.name.split(".")[0] == "harness")
    assert seen == {"harness.api"}


# ---------------------------------------------------------------- the checks catch what they should

def test_an_upward_import_is_caught():
    g = {"harness.core.a": {"harness.run.b"}, "harness.run.b": set()}
    assert violations(g) == ["harness.core.a (harness.core) imports harness.run.b (harness.run)"]
    assert violations({"harness.run.b": {"harness.core.a"}, "harness.core.a": set()}) == []


@pytest.mark.parametrize("src, dst, ok", [
    ("analysis.x", "harness.core.record", True),
    ("analysis.x", "harness.ledger.ledger", False),
    ("corpus.x", "harness.engines", False),
    ("viewer.x", "harness.run.cellrun", True),
    ("viewer.x", "harness.ledger.ledger", False),
    ("interop.x", "harness.ledger.ledger", False),
    ("interop.x", "harness.run.records", True),
    ("interop.x", "harness.judge.treediff", False),
    ("viewer.x", "harness.loop.loop", False),
    ("harness.core.table", "analysis.wilson", False),
    ("harness.run.driver", "analysis.monitor", False),
    ("harness.loop.loop", "corpus.gates", True),
    ("harness.loop.loop", "analysis.monitor", False),
    ("harness.cli.cli", "viewer.cli", True),
    ("harness.cli.cli", "harness.api", False),
    ("harness.api", "harness.control.arms", True),
    ("harness.sandbox.warm", "harness.judge.testrun", False),
    ("harness.judge.testrun", "harness.sandbox.warm", True),
    ("viewer.compare_page", "analysis.compare", True),   # the packages beside the harness: viewer and
    ("interop.inspect_import", "corpus.measure", True),  # interop above analysis and corpus ...
    ("analysis.compare", "viewer.compare_page", False),  # ... never the reverse, even without a cycle
    ("corpus.measure", "interop.inspect_import", False),
    ("analysis.tables", "corpus.model", True),           # analysis and corpus: only the cycle check
])
def test_the_rules_between_packages(src, dst, ok):
    assert (violations({src: {dst}, dst: set()}) == []) is ok


def test_a_module_outside_every_layer_is_caught():
    assert violations({"harness.stray": set()}) == ["harness.stray: in no layer (harness/ holds only the layer "
                                                    "sub-packages and api)"]


def test_a_cycle_is_caught_and_named():
    g = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}, "e": set()}
    assert cycles(g) == [["a", "b", "c"]]
    assert cycles({"a": {"b"}, "b": set()}) == []


def _planted_harness(root: Path, layers: tuple[str, ...]) -> Path:
    """An empty ``harness`` package under ``root`` with an empty sub-package per layer in
    ``layers``, for a test to plant modules in; returns the package's directory."""
    pkg = root / "harness"
    for layer in layers:
        (pkg / layer).mkdir(parents=True)
        (pkg / layer / "__init__.py").write_text("")
    (pkg / "__init__.py").write_text("")
    return pkg


def test_the_walk_sees_imports_inside_functions_and_relative_ones(tmp_path):
    """A planted tree: an upward import hidden in a function, a relative one, and a cycle closed
    inside a function (the shape of the cellrun -> spend -> worst_case -> executors -> cellrun cycle)."""
    pkg = _planted_harness(tmp_path, ("core", "run"))
    (pkg / "core" / "a.py").write_text("def f():\n    from harness.run import b\n    return b\n")
    (pkg / "run" / "b.py").write_text("from . import c\n")
    (pkg / "run" / "c.py").write_text("import os\n\n\ndef g():\n    import harness.run.b\n")
    g = scan(tmp_path, packages=("harness",), skip=())
    assert g["harness.core.a"] == {"harness.run.b"}
    assert g["harness.run.b"] == {"harness.run.c"}
    assert violations(g) == ["harness.core.a (harness.core) imports harness.run.b (harness.run)"]
    assert cycles(g) == [["harness.run.b", "harness.run.c"]]


def test_a_registry_lookup_is_an_edge_and_a_registration_is_not():
    """A planted module: it registers into ARMS (no load) and asks ENGINES for a name and
    ``is_free`` for a flag (both load the engines' built-in modules)."""
    kinds = {"ARMS": ("harness.control.arms",), "ENGINES": ("harness.engines.simulated",)}
    registers = ast.parse("from harness.core.registry import ARMS\n@ARMS.register('x')\ndef f(): pass\n"
                          "ARMS.add('y', f)\n")
    assert looked_up(registers, kinds) == set()
    reads = ast.parse("from harness.core.registry import ARMS as A, is_free\n"
                      "def g(n):\n    return n in A and is_free(n)\n")
    assert looked_up(reads, kinds) == {"ARMS", "ENGINES"}
    every = ast.parse("from harness.core.registry import KINDS\nprint(list(KINDS))\n")
    assert looked_up(every, kinds) == {"ARMS", "ENGINES"}


def test_a_declared_part_lookup_loads_the_declaration_and_reading_its_object_the_implementation(tmp_path):
    """A planted tree: a registry whose built-ins are declared in core. A core module that reads a
    part's flags gets an edge to the declaration only; a run module that calls ``.obj`` also gets
    one to the implementation module."""
    pkg = _planted_harness(tmp_path, ("core", "control", "run"))
    (pkg / "core" / "registry.py").write_text("")
    (pkg / "core" / "decl.py").write_text("")
    (pkg / "control" / "impl.py").write_text("")
    (pkg / "core" / "check.py").write_text("from harness.core.registry import ARMS\n"
                                           "def f(n):\n    return ARMS.get(n).flag('single_shot')\n")
    (pkg / "run" / "call.py").write_text("from harness.core.registry import ARMS\n"
                                         "def g(n):\n    return ARMS.get(n).obj()\n")
    g = scan(tmp_path, packages=("harness",), skip=())
    kinds, impls = {"ARMS": ("harness.core.decl",)}, {"ARMS": ("harness.control.impl",)}
    lookups = registry_lookups(tmp_path, g, kinds, impls)
    assert lookups == {"harness.core.check": {"harness.core.decl"},
                       "harness.run.call": {"harness.core.decl", "harness.control.impl"}}
    assert violations({m: d for m, d in lookups.items()} | {m: set() for d in lookups.values() for m in d}) == []
    # without declarations (the built-in list names the implementation), the core lookup is upward
    up = registry_lookups(tmp_path, g, {"ARMS": ("harness.control.impl",)}, {})
    assert violations(up | {"harness.control.impl": set()}) == [
        "harness.core.check (harness.core) imports harness.control.impl (harness.control)"]


# what a metadata lookup below the implementing layers may read, run in a fresh interpreter: none of it
# may import a module above harness.core/harness.ledger (declarations answer it)
METADATA_LOOKUPS = """
import sys
from harness.core.scenarios import hooks
assert hooks("turn") and hooks("check")
from harness.core.registry import ENGINES, is_free, needs_model
assert needs_model("openai") and is_free("simulated") and not is_free("anthropic") and "replay" in ENGINES
from pathlib import Path
from harness.core.protocol import load_protocol
from harness.ledger.worst_case import declared_calls
proto = load_protocol(Path("protocols/quickstart.toml"))
assert [declared_calls(a) for a in proto.arms] and proto.arms[0].get("max_turns", 1)
upper = sorted(m for m in sys.modules if m.split(".")[:2] in (["harness", "control"], ["harness", "engines"],
                                                             ["harness", "run"], ["harness", "judge"]))
print(upper)
"""


def test_a_metadata_lookup_imports_no_implementation():
    """Measured, not read from the AST: answering the lookups of the protocol's checks, the scenario
    table and the ledger imports no implementation module."""
    import subprocess
    import sys
    r = subprocess.run([sys.executable, "-c", METADATA_LOOKUPS], capture_output=True, text=True, cwd=REPO, timeout=120)
    assert r.returncode == 0, r.stderr[-2000:]
    assert r.stdout.strip() == "[]"


def test_every_declared_built_in_resolves_to_a_callable_its_module_does_not_register_again():
    """A declaration's Ref names an object that exists and is callable; importing the implementation
    module adds no part (the declaration is the one registration)."""
    import importlib

    from harness.core.registry import KINDS, Ref
    for reg in KINDS.values():
        before = {p.name for p in reg}
        for part in reg:
            if isinstance(part.target, Ref):
                assert callable(part.obj), (reg.kind, part.name)
                importlib.import_module(part.target.module)
        assert {p.name for p in reg} == before, reg.kind
