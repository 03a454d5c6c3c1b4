"""Run as a script by corpus/coverage_map.py: the gate's pytest suite under coverage.py, one
coverage context per test (its node id; "" while no test runs, i.e. at import and collection).

    python coverage_runner.py OUT.json ARTIFACT.py PYTEST-ARGS...

Writes {"order": [node ids], "contexts": {line: [node ids]}, "statements": [lines],
"modules": [[name, file]], "spawners": [node ids of tests that started a process],
"threaders": [node ids of tests that started a thread coverage.py does not trace],
"durations": {node id: seconds}, "wide_s": seconds in fixtures wider than a function,
"session_s": seconds of the whole pytest run} and exits with pytest's exit code. Imports only coverage, pytest and
the standard library.

Every execution of the artifact's module code by an import system loader (the first import, and
each ``importlib.reload`` or re-import after ``del sys.modules[...]``) runs under the import
context "", even inside a test: what the module's top level runs then (its defs, its constants,
a function it calls at import) serves every later test, so it belongs to none alone (issue 35: a
test that reloaded the module had put its own name on every top-level line, and the whole suite
then ran for every mutant). Code run by other means (``runpy``, ``exec`` of its text) keeps the
test's context, and the map then distrusts the selection.
"""
import json
import sys
import time

import coverage
import pytest

# audit events of a new process: coverage.py does not follow it, so what it runs is unknown
SPAWN_EVENTS = frozenset({"subprocess.Popen", "os.system", "os.exec", "os.posix_spawn", "os.spawn",
                          "os.fork", "os.forkpty"})


def traced_thread_start(function) -> bool:
    """Does a thread started to run ``function`` install the tracer new threads get
    (``threading.settrace``, which coverage.py sets)? Only ``threading.Thread``'s own bootstrap
    does; a function handed to ``_thread.start_new_thread`` runs untraced (red team
    helper-137: a function run only there was accepted as never run). The same rule is
    corpus/forkserver.py's ``_traced_thread_start`` (each script imports no corpus module)."""
    import threading
    owner = getattr(function, "__self__", None)
    boot, inner = (getattr(threading.Thread, n) for n in ("_bootstrap", "_bootstrap_inner"))
    return getattr(function, "__func__", None) is boot and isinstance(owner, threading.Thread) and \
        getattr(type(owner), "_bootstrap_inner") is inner


class PerTestContext:
    def __init__(self, cov):
        self.cov = cov
        self.order = []
        self.current = ""          # the coverage context now: a test's node id, or "" (every test)
        self.spawners = set()      # contexts in which a process was started
        self.threaders = set()     # contexts in which a thread coverage.py does not trace was started
        self.durations = {}        # node id -> seconds (wall, under coverage)
        self.wide_s = 0.0          # seconds spent setting up fixtures wider than a function
        sys.addaudithook(self._audit)
        _watch_thread_starts(self)

    def _audit(self, event, _args):
        if event in SPAWN_EVENTS:
            self.spawners.add(self.current)

    @pytest.hookimpl(hookwrapper=True)
    def pytest_runtest_protocol(self, item, nextitem):
        node = f"{item.path}::{item.nodeid.split('::', 1)[1]}" if "::" in item.nodeid else str(item.path)
        self.order.append(node)
        self.current = node
        self.cov.switch_context(node)
        t0 = time.perf_counter()
        yield
        # the test's wall under coverage (setup, call, teardown; a wider fixture's setup too,
        # counted again apart in ``wide_s``): what the mutants' timeouts are derived from
        self.durations[node] = self.durations.get(node, 0.0) + time.perf_counter() - t0
        self.current = ""
        self.cov.switch_context("")

    @pytest.hookimpl(hookwrapper=True)
    def pytest_fixture_setup(self, fixturedef, request):
        """A fixture wider than a function is set up inside the first test that asks for it, but
        its value serves every later test: what its setup runs belongs to no single test, so it
        gets the import context ("": every test depends on it), and so does a process it starts."""
        if fixturedef.scope == "function":
            yield
            return
        before, self.current = self.current, ""
        self.cov.switch_context("")
        t0 = time.perf_counter()
        try:
            yield
        finally:
            self.wide_s += time.perf_counter() - t0
            self.current = before
            self.cov.switch_context(before)


def _watch_thread_starts(ctx: PerTestContext) -> None:
    """Note, under the context running, every thread started that coverage.py will not trace
    (3.11 has no audit event for a thread's start: the start functions are wrapped, the raw one
    and threading's saved reference to it)."""
    import _thread
    import threading
    start = _thread.start_new_thread

    def noted(function, *args, **kwargs):
        if not traced_thread_start(function):
            ctx.threaders.add(ctx.current)
        return start(function, *args, **kwargs)
    _thread.start_new_thread = noted
    _thread.start_new = noted
    threading._start_new_thread = noted             # type: ignore[attr-defined]


def _import_context(ctx: PerTestContext, artifact: str) -> None:
    """Run the artifact's module code under the import context "" whenever a loader executes it
    (``_LoaderBasics.exec_module``: the source and bytecode loaders' shared method)."""
    import importlib._bootstrap_external as ext
    import os
    real = os.path.realpath(artifact)
    basics = getattr(ext, "_LoaderBasics")     # private, so typeshed does not list it
    original = basics.exec_module

    def exec_module(loader, module):
        spec = getattr(module, "__spec__", None)
        origin = getattr(spec, "origin", None)
        if not isinstance(origin, str) or os.path.realpath(origin) != real:
            return original(loader, module)
        before, ctx.current = ctx.current, ""
        ctx.cov.switch_context("")
        try:
            return original(loader, module)
        finally:
            ctx.current = before
            ctx.cov.switch_context(before)
    basics.exec_module = exec_module


def main(out_path: str, artifact: str, args: list[str]) -> int:
    cov = coverage.Coverage(data_file=None, include=[artifact], config_file=False)
    ctx = PerTestContext(cov)
    _import_context(ctx, artifact)
    t0 = time.perf_counter()
    cov.start()
    try:
        code = int(pytest.main(args, plugins=[ctx]))
    finally:
        cov.stop()
    session_s = time.perf_counter() - t0
    data = cov.get_data()
    measured = next((f for f in data.measured_files() if f == artifact), None)
    contexts = data.contexts_by_lineno(measured) if measured else {}
    statements = cov.analysis2(artifact)[1] if measured else []
    modules = [[name, getattr(m, "__file__", None) or ""] for name, m in list(sys.modules.items())]
    with open(out_path, "w") as f:
        json.dump({"order": ctx.order, "contexts": {str(k): sorted(v) for k, v in contexts.items()},
                   "statements": sorted(statements), "modules": modules, "spawners": sorted(ctx.spawners),
                   "threaders": sorted(ctx.threaders),
                   "durations": ctx.durations, "wide_s": ctx.wide_s, "session_s": session_s}, f)
    return code


if __name__ == "__main__":
    import os
    # as ``python -m pytest`` (the cold run) builds it: the working directory first, not this
    # script's (corpus/), whose modules had shadowed an artifact of the same name (screen.py)
    sys.path[0] = os.getcwd()
    sys.exit(main(sys.argv[1], sys.argv[2], sys.argv[3:]))
