"""The corpus's fork-server: a pre-imported pytest process that forks one child per judgment.

A cold pytest gate pays interpreter start-up and pytest's import on every mutant. Here each
worker has ONE server (a swapping session starts one process and forks the others from it: see
``_fork_spare`` and ``_fork_twin``) (``python forkserver.py FD PRELOAD-JSON``, with the gate runner's
scrubbed environment, so no secret exists in it) that imports pytest, its default plugins and the
standard-library modules the suite imported on the conforming artifact (never a name the
artifact's directory could shadow), rewrites the assertions of the suite's own test files once
(see ``_cache_rewrites``), then waits on a socketpair. Per judgment it forks a child
that does what the cold path's ``python -m pytest ARGS`` does: a new session (so a timeout kills
its whole process group), stdin from /dev/null, stdout/stderr on the caller's pipes, every other
descriptor closed, the run's environment and working directory, ``sys.path`` as ``-m`` with
``PYTHONPATH`` would build it, then ``pytest.console_main()``. The confinement is the corpus cold
path's (corpus/gates.py: a private copy, a scrubbed environment, a timeout), not the harness
judge's namespaces; harness.sandbox.warm is the model, and is not used, so the two stay independent.

The swap mode (``ForkServer(..., collect=...)``): the server runs ``pytest.main`` once on the
conforming artifact and, from inside pytest's run loop, forks a child per request that swaps one
function's code object (``fn.__code__``) for the mutant's, runs the selected items with pytest's
own loop (``-x`` from the session's options) and writes a one-line-per-failure summary; exit 75
means the swap could not be made. corpus/fast_pytest.py decides when a mutant may go this way.

Differences from the cold path a caller should know: the preloaded modules are not re-imported
per judgment (they are the standard library's, which the artifact cannot change), so their
import-time state is the server's: every child shares the server's hash seed, which the scrubbed
environment fixes to 0 anyway (PYTHONHASHSEED=0, as the cold path sets it), and the state of an
unseeded ``random`` (a test drawing from it gets the same draws in every child, where cold runs
get fresh ones; such a test is nondeterministic on the cold path too).

This file is the client (``ForkServer``) and, run as a script, the server; the server part
imports only the standard library and pytest.
"""
from __future__ import annotations

import os
import sys
from collections.abc import Callable, Sequence
from typing import Any

# ----------------------------------------------------------------------------- server side


# imported by every cold ``python -m pytest`` run after start-up (pytest's debugging plugin pulls
# in pdb, its option parser argcomplete); importing them here spares each child the work
_ALWAYS = ["_pytest._argcomplete", "pdb", "cmd", "code", "codeop", "faulthandler", "encodings.unicode_escape",
           "coverage", "coverage.control"]      # each child records what it ran (_trace_ran)


def _preload(names: list[str]) -> None:
    import _pytest.config as cfg
    import pytest  # noqa: F401
    names = _ALWAYS + list(names)
    for name in list(cfg.default_plugins) + ["", *names]:
        if name in ("cacheprovider", "stepwise"):  # -p no:cacheprovider: never imported cold
            continue
        if name == "":          # pytest's own, before anything else is imported: what its hooks are
            _note_pytests_functions()
            continue
        try:
            __import__(name if name in names else f"_pytest.{name}")
        except Exception:  # pragma: no cover - a module that fails here fails the cold way later
            pass


def _cache_rewrites(files: list[str]) -> None:
    """Rewrite the suite's own files' assertions once, here, for every child.

    pytest compiles each test module with its assertions rewritten (``_rewrite_test(fn, config)``),
    which the cold path redoes per run (bytecode is never written). The result depends on the
    file's bytes, its path and one ini option (``enable_assertion_pass_hook``, off under the
    gate's ``-c /dev/null``), so the code object made here from the same bytes at the same path is
    the one a child would make. A file whose bytes differ (the artifact, if pytest rewrites it)
    or a run with the hook on misses the cache and is rewritten as usual.
    """
    from pathlib import Path
    try:
        from _pytest.assertion import rewrite as rw
        original = rw._rewrite_test
    except (ImportError, AttributeError):  # pragma: no cover - another pytest: no cache
        return
    cache = {}
    for f in files:
        try:
            # pytest annotates config as Config but only passes it on to rewrite_asserts, which takes None
            cache[(f, Path(f).read_bytes())] = original(Path(f), None)  # type: ignore[arg-type]
        except Exception:  # a file that does not parse fails the cold way in the child
            pass

    def cached(fn, config):
        hit = cache.get((str(fn), Path(fn).read_bytes()))
        if hit is None or (config is not None and config.getini("enable_assertion_pass_hook")):
            return original(fn, config)
        return hit
    rw._rewrite_test = cached


RAN_MARK = "\ncorpus-ran: "


_RECORDERS: dict = {}       # suffix -> coverage.Coverage, made once per process (_recorder)


def _recorder(suffix: str):
    """A coverage.Coverage including only the file whose path ends in ``suffix``, started and
    stopped once: coverage's set-up (its path matchers, the stdlib and third-party locations it
    reads from sysconfig, its collector) is done here, and a fork server calls this before it
    forks (``_loop``), so a judging child only starts the collector (issue 35: the set-up and a
    SQLite write per test were most of the recording's cost, about 18 ms of CPU per child against
    2 ms now on _abnf.py's tests)."""
    cov = _RECORDERS.get(suffix)
    if cov is None:
        import coverage
        cov = coverage.Coverage(data_file=None, include=["*" + suffix], config_file=False)
        cov.start()
        cov.stop()
        _quick_no(cov, suffix)
        _RECORDERS[suffix] = cov
    return cov


def _quick_no(cov, suffix: str) -> None:
    """The C tracer asks the collector's ``should_trace`` once per new file name; coverage's own
    answer runs its Python include/omit matching (a fork child meets a few hundred new files at
    collection: pytest's plugins, the suite). A file whose name, and whose frame's ``__file__``,
    does not end in ``suffix``'s base name cannot match ``*suffix``: it is answered "no" at
    once; any other goes to coverage as before."""
    from coverage.disposition import disposition_init
    coll = cov._collector
    real = coll.should_trace
    base = os.path.basename(suffix)
    cls = cov._inorout.disp_class       # the tracer's own class (the C tracer reads its slots)

    def should_trace(filename, frame):
        dunder = frame.f_globals.get("__file__") if frame is not None and frame.f_globals else None
        if os.path.basename(filename) == base or (isinstance(dunder, str) and os.path.basename(dunder) == base):
            return real(filename, frame)
        disp = disposition_init(cls, filename)
        disp.reason = "not the module under test"
        return disp
    coll.should_trace = should_trace


_KNOWN: dict[int, int] = {}    # a cache's id -> how many modules were loaded when it was filled


def _known_files(cov) -> None:
    """Fill the collector's cache of which files to trace with every loaded module's file, in
    the server before it forks: the C tracer asks coverage's Python-level ``should_trace`` once
    per new file name it meets, and in a child that was every file of pytest and the suite again,
    in every child (about 8 ms of a swap child's 20 on the semver sample, issue 35)."""
    coll = getattr(cov, "_collector", None)
    cache = getattr(coll, "should_trace_cache", None)
    if not isinstance(cache, dict) or _KNOWN.get(id(cache)) == len(sys.modules):
        return
    _KNOWN[id(cache)] = len(sys.modules)
    for m in list(sys.modules.values()):
        f = vars(m).get("__file__") if hasattr(m, "__dict__") else None
        if isinstance(f, str) and f not in cache:
            try:
                cache[f] = cov._should_trace(f, None)
            except Exception:       # noqa: BLE001 - left to the child's tracer to decide
                pass


def _trace_ran(suffix: str, collection: bool | None = True, box: list | None = None):
    """Start recording, per test, the lines of the module under test (the file whose path ends
    in ``suffix``) that ran - coverage.py's C tracer, which leaves every other file's frames
    untraced. The tracer runs only inside a test's setup, call and teardown (pytest's reporting
    between them, a third of a one-test swap child's traced time on the semver sample, runs
    untraced: issue 35) and, with ``collection``, from now until the first test starts (a
    forked run's collection; its lines go under ""; None: from the first time the module's code
    is executed). Returns (a pytest plugin that switches the test, ``stop()``); ``stop()`` ends
    the recording and gives the line to report (``RAN_MARK`` and a JSON object {test node id:
    lines}, or ``?`` when the recording failed or something replaced the tracer meanwhile: then
    what ran is unknown). At each switch the collector's line sets are read and emptied in place
    (the tracer keeps adding to the same set), instead of coverage's contexts, which write each
    switch to its SQLite data. With ``box`` (a one-item list whose switch plugin the swap server
    registered before it forked, ``_register_swap_plugins``), the recording is put in it and no
    plugin is returned."""
    rec = _Recording(_recorder(suffix), suffix)
    if collection is not True:
        rec.pause()
    if collection is None:
        _resume_at_first_exec(rec, os.path.basename(suffix))
    if box is not None:
        box[0] = rec
        return None, rec.stop
    return _switch_plugin([rec]), rec.stop


class _Recording:
    """The collector's line sets read per test (``_trace_ran``): ``seen`` maps a test node id
    ("" outside any test) to the module's lines it ran; ``ok`` turns false when what ran is
    unknown (coverage's data not as read here, the tracer replaced by a test)."""

    def __init__(self, cov, suffix: str = ""):
        self.seen: dict[str, set[int]] = {"": set()}
        self.now = self.seen[""]
        self.raw = getattr(getattr(cov, "_collector", None), "data", None)
        self.ok = isinstance(self.raw, dict)
        # the collector alone: Coverage.start would check every loaded module against its
        # include rules again (warn_already_imported_files) in every child; the server started it
        self.coll = cov._collector
        self.coll.start()
        self.on = True
        _watch_blind_spots(self, suffix)
        _watch_untraced_threads(self)

    def take(self) -> None:
        if not self.ok or not isinstance(self.raw, dict):
            return
        for lines in list(self.raw.values()):
            if not isinstance(lines, set):
                self.ok = False
                return
            self.now.update(lines)
            lines.clear()

    def switch(self, nodeid: str) -> None:
        self.take()
        self.now = self.seen.setdefault(nodeid, set())

    def pause(self) -> None:
        if self.on:
            if type(sys.gettrace()).__name__ not in ("CTracer", "PyTracer"):
                self.ok = False         # a test replaced the tracer: what ran is unknown
            if getattr(self.coll, "threading", None) is not None and not _coverage_hook(self.coll):
                self.ok = False         # ... or the one new threads install: theirs run untraced
            self.coll.pause()
            self.on = False

    def resume(self) -> None:
        if not self.on:
            self.coll.resume()
            self.on = True

    def stop(self) -> str:
        import json
        try:
            self.pause()
            self.take()
            self.coll.stop()
        except Exception:               # noqa: BLE001 - a recording that failed says nothing
            self.ok = False
        return RAN_MARK + (json.dumps({k: sorted(v) for k, v in self.seen.items()}) if self.ok else "?") + "\n"


# What a recording cannot see, so its record must say "unknown" (``?``: the judgment is never
# reused after an edit, corpus/rerun.py): code run in another process (a subprocess, a fork, an
# exec), and code run while a tracer other than the recorder's was set (``sys.settrace(None)``
# around a call, a profiler). Each is an audit event; the recorder's own calls (coverage's
# collector, and a new thread installing the collector's hook) are told apart by the caller.
_BLIND_EVENTS = frozenset({"subprocess.Popen", "os.system", "os.exec", "os.posix_spawn", "os.spawn", "os.fork",
                           "os.forkpty", "pty.spawn", "os.startfile", "sys.settrace", "sys.setprofile"})


def _coverage_hook(coll) -> bool:
    """Is the hook new threads install the collector's own (while it records)?"""
    import threading
    return getattr(getattr(threading, "_trace_hook", None), "__self__", None) is coll


def _watch_blind_spots(rec, suffix: str = "") -> None:
    """Turn ``rec.ok`` false on an event of ``_BLIND_EVENTS`` not made by the recorder itself, and
    on the module's own file (its path ends in ``suffix``) opened inside a test by anything but
    the import system (``inspect.getsource``: a test reading the module's text reads what no
    unit's run shows; a reload re-runs the module, which the recorder sees)."""
    import threading
    collector = os.sep + os.path.join("coverage", "collector.py")

    def hook(event, args):
        if event == "open" and suffix and rec.ok and getattr(rec, "on", False) and args and \
                isinstance(args[0], str) and args[0].endswith(suffix):
            if "importlib" not in sys._getframe(1).f_code.co_filename:
                rec.ok = False
            return
        if event not in _BLIND_EVENTS or not rec.ok:
            return
        if event in ("sys.settrace", "sys.setprofile"):
            caller = sys._getframe(1).f_code
            if event == "sys.settrace" and caller.co_filename.endswith(collector):
                return              # the collector starting, pausing, resuming, or a thread's start
            if event == "sys.settrace" and caller.co_filename == threading.__file__ and _coverage_hook(rec.coll):
                return              # threading's bootstrap installing the collector's hook
        rec.ok = False
    sys.addaudithook(hook)


def _traced_thread_start(function) -> bool:
    """Does a thread started to run ``function`` install the tracer new threads get
    (``threading.settrace``)? Only ``threading.Thread``'s own bootstrap does. The same rule is
    corpus/coverage_runner.py's ``traced_thread_start`` (each script imports no corpus module)."""
    import threading
    owner = getattr(function, "__self__", None)
    boot, inner = (getattr(threading.Thread, n) for n in ("_bootstrap", "_bootstrap_inner"))
    return getattr(function, "__func__", None) is boot and isinstance(owner, threading.Thread) and \
        getattr(type(owner), "_bootstrap_inner") is inner


def _watch_untraced_threads(rec) -> None:
    """Turn ``rec.ok`` false when a thread is started that the recorder's tracer will not follow
    (``_thread.start_new_thread``, or threading's saved reference to it, called with anything but
    a ``threading.Thread``'s bootstrap): what it runs is unknown (3.11 audits no thread start)."""
    import _thread
    import threading
    start = _thread.start_new_thread

    def watched(function, *args, **kwargs):
        if not _traced_thread_start(function):
            rec.ok = False
        return start(function, *args, **kwargs)
    _thread.start_new_thread = watched
    _thread.start_new = watched
    threading._start_new_thread = watched           # type: ignore[attr-defined]


def _resume_at_first_exec(rec: _Recording, base: str) -> None:
    """Resume ``rec`` when code of the file named ``base`` is first executed: an import, a
    reload or runpy runs a module's code through ``exec``, whose audit event names the code
    object; nothing of the module can run before it. pytest's start-up, its plugins and the
    conftest files run untraced (most of a forked semver child's traced collection, issue 35)."""
    armed = [True]

    def first_exec(event, args):
        if not armed[0] or event != "exec" or not args:
            return
        if os.path.basename(getattr(args[0], "co_filename", "") or "") == base:
            armed[0] = False
            rec.resume()
    sys.addaudithook(first_exec)


def _switch_plugin(box: list):
    """The pytest plugin of a recording (``box[0]``; None: nothing is recorded): each test's
    lines under its node id, the tracer on only inside its setup, call and teardown."""
    import pytest

    class Switch:
        def pytest_runtest_logstart(self, nodeid, location):
            if box[0] is not None:
                box[0].pause()          # the end of collection, or a test's report
                box[0].switch(nodeid)

        @pytest.hookimpl(hookwrapper=True, tryfirst=True)
        def pytest_runtest_setup(self, item):
            rec = box[0]
            if rec is not None:
                rec.resume()
            yield
            if rec is not None:
                rec.pause()

        @pytest.hookimpl(hookwrapper=True, tryfirst=True)
        def pytest_runtest_call(self, item):
            rec = box[0]
            if rec is not None:
                rec.resume()
            yield
            if rec is not None:
                rec.pause()

        @pytest.hookimpl(hookwrapper=True, tryfirst=True)
        def pytest_runtest_teardown(self, item, nextitem):
            rec = box[0]
            if rec is not None:
                rec.resume()
            yield
            if rec is not None:
                rec.pause()

        def pytest_runtest_logfinish(self, nodeid, location):
            if box[0] is not None:
                box[0].switch("")
    return Switch()


def split_ran(out: str) -> tuple[str, dict[str, tuple[int, ...]] | None]:
    """(a child's output without its ran line, per test node id the module's lines it ran, ""
    for lines run outside a test; None: unknown)."""
    import json
    at = out.rfind(RAN_MARK)
    if at < 0:
        return out, None
    line = out[at + len(RAN_MARK):].split("\n", 1)[0]
    rest = out[:at] + out[at + len(RAN_MARK) + len(line) + 1:]
    try:
        got = json.loads(line)
    except ValueError:
        return rest, None
    if not isinstance(got, dict) or not all(isinstance(v, list) and all(type(n) is int for n in v)
                                            for v in got.values()):
        return rest, None
    return rest, {str(k): tuple(v) for k, v in got.items()}


def _first_plugin(first: list):
    """A pytest plugin that moves the collected tests named in ``first`` (``[file name, rest of
    the node id]`` pairs, kill_history.node_key's form, in that order) to the front of the run;
    every other test keeps its place after them, and no test is added or dropped."""
    import pytest
    rank = {(str(f), str(r)): i for i, (f, r) in enumerate(first)}

    def key(item) -> tuple[str, str]:
        path, _, rest = item.nodeid.partition("::")
        return os.path.basename(path), rest

    class First:
        @pytest.hookimpl(trylast=True)
        def pytest_collection_modifyitems(self, items):
            ahead = sorted((it for it in items if key(it) in rank), key=lambda it: rank[key(it)])
            items[:] = ahead + [it for it in items if key(it) not in rank]
    return First()


def _child(req: dict, out_fd: int, err_fd: int) -> None:
    """In the forked child: become the cold run, run pytest, exit with its code."""
    code = 70
    try:
        os.setsid()
        null = os.open(os.devnull, os.O_RDONLY)
        os.dup2(null, 0)
        os.dup2(out_fd, 1)
        os.dup2(err_fd, 2)
        os.closerange(3, 1 << 16)
        os.chdir(req["cwd"])
        os.environ.clear()
        os.environ.update(req["env"])
        sys.path[:] = [*req["path_prefix"], *req["base_path"]]
        sys.argv[:] = ["pytest", *req["args"]]
        import tempfile
        tempfile.tempdir = None
        import pytest
        switch, stop = _trace_ran(req["trace"], collection=None) if req.get("trace") else (None, None)
        plugins: list = [switch] if switch is not None else []
        if req.get("first"):
            plugins.append(_first_plugin(req["first"]))
        try:
            code = int(pytest.main(req["args"], plugins=plugins or None))
        except Exception as exc:
            # out of pytest itself (its unconfigure re-raising a finalizer's error, rt8): an
            # interpreter prints it and exits 1, as the cold run did
            import traceback
            traceback.print_exception(exc)
            code = 1
        finally:
            if stop is not None:
                line = stop()
                sys.stdout.flush()
                os.write(1, line.encode())
    except SystemExit as exc:
        code = exc.code if isinstance(exc.code, int) else 1
    except BaseException as exc:  # report like an interpreter would, exit like one
        try:
            os.write(2, f"forkserver child: {type(exc).__name__}: {exc}\n".encode())
        except OSError:
            pass
        code = 70
    finally:
        for stream in (sys.stdout, sys.stderr):
            try:
                stream.flush()
            except Exception:
                pass
        os._exit(code)


def _swap_child(req: dict, session, out_fd: int, err_fd: int) -> None:
    """In a child forked after collection: swap the mutated function's code into the already
    imported artifact module, run the selected items as pytest's own run loop would (``-x``
    from the session's config), write a summary to ``out_fd`` and exit with pytest's code.
    Exit 75 (EX_TEMPFAIL) when the swap cannot be made: the caller then judges the usual way."""
    code = 70
    try:
        os.setsid()
        os.dup2(os.open(os.devnull, os.O_RDONLY), 0)
        os.chdir(req["cwd"])
        code = _swap_run(req, session, out_fd)
    except BaseException as exc:  # report like an interpreter would, exit like one
        try:
            os.write(err_fd, f"forkserver swap child: {type(exc).__name__}: {exc}\n".encode())
        except OSError:
            pass
        code = 70
    finally:
        os._exit(code)


# per module file: the module object the suite loaded from it, and per conforming copy: the
# loaded packages with a ``__path__`` entry under it. Filled in the server by ``_prepare_swap``
# before it forks, so each child finds both without walking every loaded module: a walk touched
# each module object, and every object touched after a fork copies its page (a third of a swap
# child's time on websocket's _abnf.py, issue 35)
_MODULE_BY_FILE: dict[str, object] = {}
_PACKAGES_UNDER: dict[str, list] = {}


def _module_file_of(mod) -> str | None:
    """A module's ``__file__`` read from its namespace (a module ``__getattr__`` is never run)."""
    f = vars(mod).get("__file__") if hasattr(mod, "__dict__") else None
    return f if isinstance(f, str) else None


def _prepare_swap(req: dict) -> None:
    """In the server, before forking a swap child: look up (once per module file and per
    conforming copy) what ``_swap_target`` and ``_redirect_imports`` need."""
    module_file, control = req.get("module_file"), req.get("control")
    if isinstance(module_file, str) and module_file not in _MODULE_BY_FILE:
        base = os.path.basename(module_file)
        _MODULE_BY_FILE[module_file] = next(
            (m for m in list(sys.modules.values()) if (f := _module_file_of(m)) is not None
             and os.path.basename(f) == base and os.path.realpath(f) == module_file), None)  # realpath only for a likely match
    if isinstance(control, str) and control not in _PACKAGES_UNDER:
        ctl = control.rstrip("/")
        _PACKAGES_UNDER[ctl] = [m for m in list(sys.modules.values())
                                if isinstance(p := (vars(m).get("__path__") if hasattr(m, "__dict__") else None), list)
                                and any(isinstance(e, str) and (e == ctl or e.startswith(ctl + "/")) for e in p)]


def _swap_target(req: dict):
    """(the live function object named by ``req["qualname"]`` in the module loaded from
    ``req["module_file"]``, its mutated code object), or None when either cannot be found.
    A ``staticmethod``, ``classmethod``, ``property`` or ``cached_property`` is found through its
    functions (``_functions_of``).
    The mutated code comes compiled (``req["codes"]``: marshalled code objects of every def of
    that qualified name, as ``fast_pytest.function_codes`` makes them) or as ``req["source"]``;
    the conforming module's defs of that name as ``req["originals"]`` (none: no swap)."""
    if req["module_file"] not in _MODULE_BY_FILE:
        _prepare_swap(req)
    mod = _MODULE_BY_FILE[req["module_file"]]
    if mod is None:
        return None
    filename = str(_module_file_of(mod))
    if _RUNS["runs"] > 1:
        return None         # the module run twice before the fork: functions of the first run may be held
    owner: object = mod
    *path, name = req["qualname"].split(".")
    for part in path:
        owner = vars(owner).get(part) if hasattr(owner, "__dict__") else None
        if not isinstance(owner, type):
            return None
    live = _functions_of(vars(owner).get(name), req["qualname"])
    found = _mutated_codes(req, filename)
    originals = _mutated_codes({"codes": req.get("originals") or []}, filename)
    # several defs of one name (typing.overload stubs, then the implementation; a property's getter
    # and setter; a def a later def of the name replaced, still bound under another name): each live
    # one by its line, as the conforming module compiled it (else something rewrote it at import),
    # and exactly one of them the mutant changed; a changed def no live function runs: the fork way
    by_line = {}
    for fn in live:
        line = _code_of(fn).co_firstlineno
        mine = [c for c in found if c.co_firstlineno == line]
        was = [c for c in originals if c.co_firstlineno == line]
        if line in by_line or len(mine) != 1 or len(was) != 1 or was[0] != _code_of(fn):
            return None
        by_line[line] = (fn, mine[0])
    changed = [(fn, c) for fn, c in by_line.values() if c != _code_of(fn)]
    if len(changed) != 1 or len(changed[0][1].co_freevars) != len(_code_of(changed[0][0]).co_freevars) or \
            not _nothing_else_made_from(changed[0][0]):
        return None
    return changed[0]


def _show_mutant_text(req: dict) -> None:
    """Give ``linecache`` the mutant's lines for the module's file (the conforming control copy,
    which every function of the module names, the swapped one too): a traceback or a
    ``linecache.getline`` in the child shows the mutant's text, as cold (red team helper-137), and
    every frame of the module names one file, as cold (rt4: a stack walk skipping the module's
    own frames by file). The entry keeps the control file's size and time, so ``checkcache`` keeps
    it; a reader going to the file itself is the module watch's read (``_RUNS``: the child declines)."""
    import linecache
    import tokenize
    mod = _MODULE_BY_FILE.get(str(req.get("module_file")))
    filename = _module_file_of(mod) if mod is not None else None
    ctl, cwd = str(req.get("control") or "").rstrip("/"), str(req.get("cwd") or "")
    if not filename or not ctl or not cwd or not filename.startswith(ctl + "/"):
        return
    try:
        st = os.stat(filename)
        with tokenize.open(cwd + filename[len(ctl):]) as f:      # the child's private copy: the mutant
            lines = f.readlines()
    except (OSError, SyntaxError, UnicodeDecodeError):
        linecache.cache.pop(filename, None)
        return
    linecache.cache[filename] = (st.st_size, st.st_mtime, lines, filename)


def _nothing_else_made_from(fn) -> bool:
    """Is ``fn`` the one thing holding its code object, and each code object nested in it (an
    inner def, a lambda, a comprehension) held by its parent's constants alone? What was made from
    the code before the fork - a decorator's wrapper closure, a generator or coroutine object and
    its frame, a second function object of a def run in a loop, a ``FunctionType`` copy, a
    traceback's frame - holds the conforming code, which swapping ``fn.__code__`` does not reach
    (red team helper-136: a decorator's wrapper body mutated was accepted by the swap, rejected by
    cold pytest). Told by reference counts, read in the child before the swap: each such object
    holds one more reference to a code object than the function and its parent's constants do;
    and a copy of the code (``code.replace``, a marshal) by the read of ``fn.__code__`` it needed,
    which the server recorded until collection ended. (The lambda swap's rule: ``_lambda_targets``.)"""
    import types
    if id(fn) in _CODE_READ or _CODE_WATCH["gc"] or _CODE_WATCH["threads"] != 1:
        return False        # its code read before the fork, or anything's; a thread started (``_watch_code_reads``)
    code = _code_of(fn)
    if sys.getrefcount(code) != 3:      # fn.__code__, the local ``code``, getrefcount's argument
        return False
    if not _module_untouched(code):
        return False
    todo = [code]
    while todo:
        for c in todo.pop().co_consts:
            if isinstance(c, types.CodeType):
                if sys.getrefcount(c) != 3:     # the parent's co_consts, ``c``, the argument
                    return False
                todo.append(c)
    return True


def _functions_of(attr, qualname: str) -> list:
    """The function objects a class or module attribute calls, each compiled from a def named
    ``qualname``: the function itself, a ``staticmethod``'s or ``classmethod``'s (``__func__``),
    a ``property``'s getter, setter and deleter, a ``functools.cached_property``'s ``func``.
    Empty when any of them is not a plain function of that name (then no swap: the fork way)."""
    import functools
    import types
    if isinstance(attr, (staticmethod, classmethod)):
        fns = [attr.__func__]
    elif type(attr) is property:
        fns = [f for f in (attr.fget, attr.fset, attr.fdel) if f is not None]
    elif type(attr) is functools.cached_property:
        fns = [attr.func]
    else:
        fns = [attr]
    if not fns or any(not isinstance(f, types.FunctionType) or _code_of(f).co_qualname != qualname for f in fns):
        return []
    return fns


def _mutated_codes(req: dict, filename: str) -> list:
    """The code objects named ``req["qualname"]`` in the mutant, with ``filename`` as theirs
    (tracebacks and pytest's reports name the module's file, as the fork path's would)."""
    import types
    if "codes" in req:
        import base64
        import marshal

        def named(co):
            return co.replace(co_filename=filename, co_consts=tuple(
                named(c) if isinstance(c, types.CodeType) else c for c in co.co_consts))
        return [named(marshal.loads(base64.b64decode(b))) for b in req["codes"]]
    import warnings
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", SyntaxWarning)
        module_code = compile(req["source"], filename, "exec", dont_inherit=True)
    found = []

    def walk(co):
        for c in co.co_consts:
            if isinstance(c, types.CodeType):
                if c.co_qualname == req["qualname"]:
                    found.append(c)
                elif "<locals>" not in c.co_qualname:
                    walk(c)
    walk(module_code)
    return found


_BY_ID: dict[int, dict] = {}    # id(session) -> its items by node id, made in the server (_loop)


def _items_by_id(session) -> dict:
    """The collected items by node id, as collected and as the coverage map names them (by
    path). Made once, in the server before it forks (``_loop``), not in every swap child: the
    same table, built from the same items (issue 35: each child formatted every item's path)."""
    table = _BY_ID.get(id(session))
    if table is None:
        table = {item.nodeid: item for item in session.items}
        table.update({f"{item.path}::{item.nodeid.split('::', 1)[1]}": item
                      for item in session.items if "::" in item.nodeid})
        _BY_ID[id(session)] = table
    return table


def _swap_run(req: dict, session, out_fd: int) -> int:
    import _pytest.main as pm
    target = None if req.get("lambda") else _swap_target(req)
    by_id = _items_by_id(session)
    wanted = req["nodeids"] if req["nodeids"] is not None else [i.nodeid for i in session.items]
    if req.get("lambda"):
        targets = _lambda_targets(req)
        wanted = _first_order(wanted, req.get("first") or [])
    else:
        targets = None if target is None else [target]
    if not targets or any(n not in by_id for n in wanted):
        return 75
    _CODE_WATCH["on"], _RUNS["decided"] = False, True     # the swap is decided: the tests' own reads follow
    for fn, new_code in targets:
        fn.__code__ = new_code
    if req.get("home"):
        os.environ["HOME"] = req["home"]        # each child's own, as each cold run's
    _show_mutant_text(req)
    if req.get("control"):
        _redirect_imports(req["control"], req["cwd"])
    failed: list[str] = []
    if _SWAP_FAILED.get("session") is not session:     # a server that did not register them
        _register_swap_plugins(session)
    _SWAP_FAILED["list"] = failed
    session.items = [by_id[n] for n in wanted]
    code = 0
    _, stop = _trace_ran(req["trace"], collection=False, box=_SWAP_REC) if req.get("trace") else (None, None)
    try:
        pm.pytest_runtestloop(session)
    except session.Failed:
        code = 1
    except session.Interrupted:
        code = 2
    ran = stop() if stop is not None else ""
    if _RUNS["reads"] or _RUNS["after"]:
        return 75       # the module's file, memory or the heap's object lists reached while the tests ran
    if not _session_impls_unchanged(session):
        return 75       # a test registered or rewrote one (config.pluginmanager.register): the fork way runs it
    if session.testsfailed:
        code = code or 1
    summary = "\n".join(failed) + f"\n{session.testsfailed} failed, {len(session.items)} selected (swap)\n" + ran
    os.write(out_fd, summary.encode("utf-8", "replace"))
    return code


# what the swap child's two plugins read: the failures' summary lines go to _SWAP_FAILED["list"],
# the recording of what ran is _SWAP_REC[0] (None: not recorded). Both plugins are registered once,
# in the swap server before it forks (``_register_swap_plugins``): a plugin registered in a child
# cost about 1.5 ms of its CPU (pluggy's registration, then pytest's fixture parsing of the
# plugin object, ``pytest_plugin_registered``), a tenth of a swap child on ordered-set (issue 35).
_SWAP_FAILED: dict = {"list": None, "session": None}
_SWAP_REC: list = [None]


def _register_swap_plugins(session) -> None:
    """Register, in the collected session, the plugin writing a swap child's failure lines and
    the switch of its recording (each inert until a child sets what it writes to), and set the
    traceback style a swap child reports failures in."""
    root = str(session.config.rootpath)

    class Record:
        def pytest_runtest_logreport(self, report):
            failed = _SWAP_FAILED["list"]
            if failed is not None and report.failed and not hasattr(report, "wasxfail"):
                failed.append(f"FAILED {report.nodeid} ({report.when}) - {_crash_line(report, root)}"[:400])
    # a failure's traceback in the native (traceback module) style: the verdict is the exit code
    # and the summary line names the crash's place and message, neither depending on the style;
    # the default long style parses each test file's AST and resolves every loaded module's path
    # (inspect.getmodule) per failure: half of a swap child's CPU on ordered-set (issue 26)
    session.config.option.tbstyle = "native"
    _crash_only_reports()
    session.config.pluginmanager.register(Record(), "corpus-swap-record")
    session.config.pluginmanager.register(_switch_plugin(_SWAP_REC), "corpus-swap-ran")
    _SWAP_FAILED["session"] = session


def _crash_only_reports() -> None:
    """A failure's report in a swap child keeps its crash (``reprcrash``: the place and the
    message, what the summary line and ``_crash_line`` read) and the exception's own lines, not
    the formatted frames: the native style formatted every frame of the traceback (each file read
    through linecache, each line re-parsed for 3.11's carets), which nothing in the child reads
    (its terminal output goes to /dev/null; the verdict is the exit code, counted from the
    reports' outcomes, which do not depend on their text). These keep pytest's own repr: a
    fixture lookup error and a conftest import failure (their own reprs), ``pytest.fail`` with
    ``pytrace=False`` (its message alone) and an exception whose every frame is hidden. Set in the
    swap server before it forks, so only its children use it; the fork path's children run a
    fresh pytest, untouched (issue 35: about half of a one-test swap child's run loop went to
    formatting its one failure)."""
    import traceback

    from _pytest import nodes
    from _pytest._code.code import ReprExceptionInfo, ReprTracebackNative
    from _pytest.fixtures import FixtureLookupError
    from _pytest.outcomes import Failed
    full = nodes.Node._repr_failure_py
    if getattr(full, "_corpus_crash_only", False):
        return

    def crash_only(self, excinfo, style=None):
        if isinstance(excinfo.value, FixtureLookupError) or type(excinfo.value).__name__ == "ConftestImportFailure" \
                or (isinstance(excinfo.value, Failed) and not excinfo.value.pytrace):
            return full(self, excinfo, style)
        crash = excinfo._getreprcrash()
        if crash is None:
            return full(self, excinfo, style)
        return ReprExceptionInfo(reprtraceback=ReprTracebackNative(
            traceback.format_exception_only(excinfo.type, excinfo.value)), reprcrash=crash)
    crash_only._corpus_crash_only = True     # type: ignore[attr-defined]
    nodes.Node._repr_failure_py = crash_only  # type: ignore[method-assign]


def _warm_linecache(extra: Sequence[str] = (), skip: set | frozenset = frozenset()) -> None:
    """Read every loaded module's source into ``linecache``, in a server before it forks. A
    failing test's traceback (the swap child's native style, the fork child's long one) reads the
    source lines of each frame's file through linecache: in a child that read every such file
    again, per child (a seventh of a one-test swap child's run on ordered-set, issue 35). What a
    traceback shows is unchanged: each reader calls ``linecache.checkcache`` first, which drops an
    entry whose file's size or modification time changed since, so the lines are the file's. A file
    whose inode is in ``skip`` (the module under test, by any name) is not read."""
    import linecache
    for f in [*(_module_file_of(m) for m in list(sys.modules.values())), *extra]:
        if f and f.endswith(".py") and not (skip and _inode(f) in skip):
            try:
                linecache.getlines(f)
            except Exception:           # noqa: BLE001 - read by the child, as before
                pass


def _redirect_imports(control: str, work: str) -> None:
    """Point every import path under ``control`` (the conforming copy the suite was collected
    from) at the same place under ``work`` (this child's private copy, holding the mutant): a test
    that reloads the module, or deletes it from ``sys.modules`` and imports it again, then reads
    the mutant from disk, as it would on the fork path (issue 35: such a suite had lost the swap
    path). ``sys.path`` and the ``__path__`` of every package loaded from under ``control`` are
    rewritten (the packages were listed in the server, ``_prepare_swap``), and the path finders
    cached for directories under ``control`` are dropped: a directory under ``work`` is new to
    this process, so its finder is made (and lists the directory) on first use."""
    ctl = control.rstrip("/")

    def moved(p):
        return work + p[len(ctl):] if isinstance(p, str) and (p == ctl or p.startswith(ctl + "/")) else p
    sys.path[:] = [moved(p) for p in sys.path]
    if ctl not in _PACKAGES_UNDER:
        _prepare_swap({"control": ctl})
    for mod in _PACKAGES_UNDER[ctl]:
        path = vars(mod).get("__path__")
        if isinstance(path, list):
            path[:] = [moved(p) for p in path]
    for key in [k for k in sys.path_importer_cache if isinstance(k, str) and moved(k) != k]:
        del sys.path_importer_cache[key]


def _crash_line(report, root: str) -> str:
    """Where and why a failed report crashed, ``path:line: first line of the message`` (the
    report's ``reprcrash``, what pytest's short summary shows), else the last line of its text. A
    path under the collection ``root`` is relative to it: the root is a temporary copy, and an
    absolute path made the same verdict's reason differ from run to run."""
    crash = getattr(report.longrepr, "reprcrash", None)
    if crash is not None:
        cwd = os.getcwd()       # a swap child's private copy (the swapped function's file is there)
        path = os.path.relpath(crash.path, root) if crash.path.startswith(root.rstrip("/") + "/") else \
            os.path.relpath(crash.path, cwd) if crash.path.startswith(cwd.rstrip("/") + "/") else crash.path
        return f"{path}:{crash.lineno}: {(str(crash.message).splitlines() or [''])[0]}"
    return ((report.longreprtext or "").strip().splitlines() or [""])[-1]


# The lambda swap (issue 35: semver's ``_MATCH = {"<": lambda c: c < 0, ...}`` sent each of its
# mutants down the whole-suite fork). A lambda written in module or class-body code is made once,
# at import; a mutant that changes only its code (fast_pytest: code_change.changed_lambda) is
# judged in a swap child with the live function objects' ``__code__`` replaced. The rule: what the
# mutant can change here is the lambda's code and everything computed by calling it; each is
# either reproduced exactly or the child exits 75 (the fork way, never a verdict of its own):
# - calls before the fork: a lambda called while the module was imported or the suite collected
#   (a key function sorting a module-level table, a test file's parametrize) left results made
#   by the conforming code. The server records every ``<lambda>`` code object called from the
#   start of its pytest run to the end of collection (a profile hook, this thread and threads
#   started through ``threading``), and more than one thread alive at the end disables the
#   swap for the session. A lambda called then is not swapped.
# - its code read before the fork (``inspect.getsource``, ``dis``, ``code.replace``, a marshal of
#   it: each reads the function's audited ``__code__``): what was made from it holds the
#   conforming code; an audit hook records every function whose ``__code__`` was read in that
#   time, and such a lambda is not swapped.
# - function objects: every live function made from the lambda's code must be replaced. The
#   ones reachable from the module (its namespace, its classes' namespaces, and containers and
#   property/static/class method wrappers three levels down) are found; the code object's
#   reference count must then be exactly theirs, so no other holder (a function kept only by
#   another module, the module's own code object) is left with the conforming code.
_LAMBDAS_CALLED: set[int] = set()     # ids of <lambda> code objects called before the fork
_CODE_READ: set[int] = set()          # ids of functions whose __code__ was read before the fork
_LAMBDA_WATCH: dict = {"on": False, "threads_ok": True}


class _ThreadFlag:
    """``flag[0]``: a flag of the calling thread's own (the watch's own work on one thread must not
    hide what another thread does meanwhile: red team rt9)."""

    def __init__(self):
        import threading
        self._local = threading.local()

    def __getitem__(self, i: int) -> bool:
        return getattr(self._local, "on", False)

    def __setitem__(self, i: int, on: bool) -> None:
        self._local.on = on


class _Own:
    """The watch's own work (``with _OWN:``): the audit hooks ignore its events on its thread, and no
    garbage collection runs inside it (a collection runs finalizers, the suite's code, where the hooks
    would ignore what it does: red team rt6). Nests (a signal handler's work inside the watch's own)
    and overlaps across threads: each thread restores its own flag, and the collector is enabled again
    when the last of the process's own works ends, if it was enabled when the first began (rt9)."""

    def __init__(self):
        import threading
        self._lock = threading.RLock()
        self._depth = 0
        self._gc = False
        self._saved = threading.local()

    def __enter__(self):
        import gc
        stack = self._saved.__dict__.setdefault("stack", [])
        stack.append(_AUDIT_BUSY[0])
        _AUDIT_BUSY[0] = True
        with self._lock:
            if self._depth == 0:
                self._gc = gc.isenabled()
                gc.disable()
            self._depth += 1

    def __exit__(self, *exc):
        import gc
        with self._lock:
            self._depth -= 1
            if self._depth == 0 and self._gc:
                gc.enable()
        _AUDIT_BUSY[0] = self._saved.stack.pop()


_OWN = _Own()


def _code_of(fn):
    """``fn.__code__`` read by the swap itself (not a read the code watch holds)."""
    with _OWN:
        return fn.__code__


_CODE_HELD: dict = {}       # id -> code object read before the fork: held, so its reference count says so
_AUDIT_BUSY = _ThreadFlag()     # the watch's own work, per thread (``_OWN``): its events are not the suite's
_CODE_WATCH: dict = {"gc": False, "threads": 1, "on": False}
_CODE_ATTRS = frozenset({"__code__", "gi_code", "cr_code", "ag_code", "f_code"})


def _watch_code_reads() -> None:
    """In a swap server, from its start to a child's swap decision: hold every code object read
    through an attribute (a function's ``__code__``, a generator's, coroutine's or frame's code),
    and record every function whose ``__code__`` was read (``_CODE_READ``), every call that hands
    out arbitrary objects (``gc.get_referents``, ``get_referrers``, ``get_objects``) and every run of
    the module under test's own code (``_RUNS["runs"]``, by its file's inode). What was made from a
    code read then (``code.replace``, a marshal,
    ``dis``, a ``FunctionType`` copy) holds the conforming code, which a swap does not reach:
    ``_nothing_else_made_from`` declines such a function (a held code object counts one more
    reference), and the lambda swap too (red teams helper-136 and helper-137)."""
    import types
    busy = _AUDIT_BUSY

    def audit(event, args):
        if not _CODE_WATCH["on"] or busy[0]:
            return
        if event == "object.__getattr__" and len(args) == 2 and args[1] in _CODE_ATTRS:
            with _OWN:                  # the read below is audited too
                try:
                    code = object.__getattribute__(args[0], args[1])
                except Exception:       # noqa: BLE001 - the suite's own read raises it again
                    code = None
            if isinstance(code, types.CodeType):
                _CODE_HELD[id(code)] = code
            if args[1] == "__code__":
                _CODE_READ.add(id(args[0]))
        elif event in ("gc.get_referents", "gc.get_referrers", "gc.get_objects"):
            _CODE_WATCH["gc"] = True
        elif event == "exec" and args and isinstance(args[0], types.CodeType) and args[0].co_name == "<module>":
            if _inode(args[0].co_filename) in _RUNS["inodes"]:
                _RUNS["runs"] += 1      # the module's own code (by its file's inode, counted here once, not
                #                         per child); from its first run every read of its file counts
    _LAMBDA_WATCH["on"] = _CODE_WATCH["on"] = True      # on until a child's swap decision (rt7)
    sys.addaudithook(audit)     # a hook stays for the process's life: off once the watch ends
    _watch_thread_starts()


def _watch_thread_starts() -> None:
    """Count the threads started in a swap server (3.11 audits no thread start), at collection or
    later (a signal handler's, an at-fork hook's): one that ended may still have computed with the
    conforming code, so any turns the function swap off (``_nothing_else_made_from``), not only one
    alive at the end of collection (timing would decide)."""
    import _thread
    import threading
    start = _thread.start_new_thread

    def counted(*args, **kwargs):
        _CODE_WATCH["threads"] += 1
        return start(*args, **kwargs)
    _thread.start_new_thread = _thread.start_new = counted
    threading._start_new_thread = counted            # type: ignore[attr-defined]


# What of the module under test ran, or was read, in a swap server's process before a swap (red teams
# rt4, rt5, rt6): a call at import with the tracer set aside, a signal handler, an at-fork hook, a
# finalizer or a raw thread calling the function, the module's text or code read again (its loader,
# ``__spec__.origin``, a link to its file, a directory descriptor), a suite's audit hook handed the
# module's code. Each leaves the conforming code's result, or the conforming text, where the swap does
# not reach. Observed in the same process, up to the swap decision in the child:
# - whether the function's code ever began to run is the interpreter's own count (``_never_run``: 3.11
#   counts every start of a code object, a call or a generator's resume, in any thread, traced or not,
#   in the code object's ``co_warmup`` until it specializes it);
# - an audit hook notes every event outside ``SWAP_SAFE_EVENTS`` and counts every open of the module's
#   source or bytecode file (by its inode: a link of any name is the same file) and of its directory or
#   an ancestor of it (a directory descriptor reaches the file by a name the event does not show), but
#   the first import's own load. The function swap is taken only when nothing was noted.
_RUNS: dict = {"odd": set(), "reads": 0, "inodes": set(), "dirs": set(), "forking": False, "runs": 0, "dirfd": False,
               "codes": (), "pyc": "", "machinery": (), "decided": False, "after": set()}
# what the tests of a swap child may not do once the swap is decided (the child then declines after its
# run): reach memory (ctypes: a read of the module's file with no open event, rt7), or list the heap's
# objects (the server's, frozen before the fork, are not in the lists: a leak check would pass)
_AFTER_EVENTS = ("ctypes.", "gc.get_objects", "gc.get_referrers", "gc.get_referents")

# the audit events a suite's import and collection may raise, each accounted for by the watch (an
# ``open`` by the file it reaches, the module's ``exec`` by the count of its runs, a code object read
# by ``_CODE_HELD``) or unable to run or copy the module's code: any other event before the swap (an
# audit hook added, a tracer or profile function set, ctypes, a gc walk, a process started, a signal
# sent, a file renamed or linked) turns the function swap off. An event missing here costs a fork,
# never a verdict.
SWAP_SAFE_EVENTS = frozenset({
    "import", "open", "exec", "compile", "marshal.loads", "marshal.dumps", "code.__new__", "function.__new__",
    "object.__getattr__", "object.__setattr__", "object.__delattr__", "builtins.id", "sys._getframe",
    "sys._current_frames", "array.__new__", "os.listdir", "os.scandir", "glob.glob", "glob.glob/2",
    "pathlib.Path.glob", "pathlib.Path.rglob", "os.chdir", "os.putenv", "os.unsetenv", "os.mkdir",
    "os.remove", "os.rmdir", "tempfile.mkstemp", "tempfile.mkdtemp", "time.sleep", "locale.setlocale",
    "pickle.find_class", "socket.__new__", "socket.gethostname", "socket.getaddrinfo"})


def _watch_module(artifact: str) -> None:
    """Start the watch of ``_RUNS`` for the module file ``artifact`` (in a swap server, before it
    collects)."""
    import importlib._bootstrap_external as external
    import importlib.util
    w, busy = _RUNS, _AUDIT_BUSY
    w["codes"] = tuple(getattr(c, "__code__") for c in (
        external.FileLoader.get_data, external.SourceLoader.get_code, getattr(external, "_LoaderBasics").exec_module))
    w["machinery"] = _machinery()
    w["pyc"] = importlib.util.cache_from_source(artifact)
    _CTYPES[:] = [_ctypes_unseen()]     # before the suite runs: not in its sys.modules, not imported per child
    w["inodes"].add(_inode(artifact))
    d = os.path.dirname(os.path.abspath(artifact))
    while True:             # the module's directory and its ancestors
        w["dirs"].add(_inode(d))
        if os.path.dirname(d) == d:
            break
        d = os.path.dirname(d)

    def audit(event, args):
        try:
            if event == "open":         # counted even while the server's own code runs: it opens no such file
                _note_open(args, artifact)
            elif busy[0] or event == "os.fork" and w["forking"]:
                return
            elif w["decided"]:
                if event.startswith(_AFTER_EVENTS):
                    w["after"].add(event)
            elif event not in SWAP_SAFE_EVENTS:
                w["odd"].add(event)
        except Exception:       # noqa: BLE001 - never the suite's error: what could not be read counts
            w["reads"] += 1
    sys.addaudithook(audit)


def _inode(path) -> tuple[int, int] | None:
    try:
        st = os.stat(path)
    except (OSError, ValueError, TypeError):
        return None
    return st.st_dev, st.st_ino


def _note_open(args, artifact: str) -> None:
    """An ``open`` event: a read of the module's source or bytecode file (any name reaching its
    inode, as it is now or was at the watch's start) or of its directory or an ancestor counts,
    unless it is the import system's own load reading it before the module first ran; a path of
    any type but ``str`` or ``bytes`` counts too (its methods are the suite's: never called here);
    a process's memory is an odd event."""
    import stat
    w = _RUNS
    path = args[0] if args else None
    if type(path) is int:
        return          # a descriptor: counted when it was opened
    if type(path) is not str and type(path) is not bytes:
        w["reads"] += 1
        return
    with _OWN:          # the watch's own events below (sys._getframe)
        name = os.fsdecode(path)
        if name.startswith("/proc/") and name.endswith("/mem"):
            w["odd"].add("open /proc/.../mem")
            return
        if w["dirfd"] and not os.path.isabs(name):
            # a relative name once a directory descriptor exists: the kernel may resolve it against that
            # descriptor (``dir_fd``), which the event does not show, so it may be any file (rt8, rt9)
            w["reads"] += 1
            return
        try:
            st = os.stat(name)
        except (OSError, ValueError):
            return
        ino = (st.st_dev, st.st_ino)
        if stat.S_ISDIR(st.st_mode):
            flags = args[2] if len(args) > 2 else None
            tmpfile = getattr(os, "O_TMPFILE", 0)
            # a descriptor of a directory (read-only or O_PATH: a directory opens no other way), not a new
            # unnamed file in it (O_TMPFILE: tempfile.TemporaryFile, pytest's capture); of the module's
            # directory or an ancestor it reaches the file by a name no event shows
            if not (type(flags) is int and (
                    flags & os.O_ACCMODE != os.O_RDONLY or tmpfile and flags & tmpfile == tmpfile)):
                w["dirfd"] = True
                if ino in w["dirs"]:
                    w["reads"] += 1
            return
        now = {_inode(artifact), _inode(w["pyc"])} | w["inodes"]
        if ino not in now:
            return
        w["inodes"] |= {i for i in now if i is not None}
        if not w["runs"] and _first_load():
            return
        w["reads"] += 1


def _first_load() -> bool:
    """Is the open the import system's own load of a module (``FileLoader.get_data`` called by
    ``SourceLoader.get_code`` called by ``exec_module``, of a loader of the standard class, with the
    import system as it was when the watch started), not a suite's code reading the file? (A suite's
    loader, or a replaced ``source_to_code``, ``compile`` or ``marshal.loads``, is handed the text
    or the code on that same path: red team rt7.)"""
    from importlib.machinery import SourceFileLoader
    f: Any = sys._getframe(3)       # _first_load, _note_open, the audit hook: then the opener
    for code in _RUNS["codes"]:
        if f is None or f.f_code is not code:
            return False
        if code is _RUNS["codes"][0] and type(f.f_locals.get("self")) is not SourceFileLoader:
            return False
        f = f.f_back
    return _machinery() == _RUNS["machinery"]


def _machinery() -> tuple:
    """What the import system's load of a source file runs, by identity: the namespaces of
    importlib's bootstrap modules, of ``marshal`` and of the builtins, and of the loader classes."""
    import builtins
    import importlib._bootstrap as bootstrap
    import importlib._bootstrap_external as external
    import marshal
    spaces: list = [vars(bootstrap), vars(external), vars(marshal), vars(builtins)]
    spaces += [vars(c) for c in type.mro(external.SourceFileLoader)]
    return tuple(tuple((k, id(v)) for k, v in list(ns.items())) for ns in spaces)


_WARMUP = -8    # a 3.11 code object's co_warmup until its first start (QUICKENING_INITIAL_WARMUP_VALUE)


def _never_run(code) -> bool | None:
    """Has ``code`` never begun to run in this process? 3.11 adds one to a code object's
    ``co_warmup`` at every start (its RESUME: a call, a generator's or coroutine's resume), in any
    thread, traced or not, until it specializes the code (then 0). Read from the object's memory at
    the field's place in 3.11's ``PyCodeObject`` (after the header, ``co_consts``, ``co_names``,
    ``co_exceptiontable``, ``co_flags``), checked by reading ``co_flags`` beside it. None: the layout
    is not 3.11's (nothing is known: no swap)."""
    if sys.version_info[:2] != (3, 11) or not _CTYPES:
        return None
    with _OWN:          # the watch's own memory read (ctypes.cdata)
        ctypes = _CTYPES[0]
        base = id(code) + object.__basicsize__ + 4 * ctypes.sizeof(ctypes.c_void_p)
        if ctypes.c_int.from_address(base).value != code.co_flags:
            return None
        return ctypes.c_short.from_address(base + ctypes.sizeof(ctypes.c_int)).value == _WARMUP


_CTYPES: list = []     # ctypes, imported once by the swap server before it collects (``_watch_module``)


def _ctypes_unseen():
    """``ctypes``, imported by the watch without leaving it, or the modules it brings, in
    ``sys.modules`` (a suite's test of ``"ctypes" in sys.modules`` sees what a cold run has: rt7)."""
    before = set(sys.modules)
    import ctypes
    for name in set(sys.modules) - before:
        del sys.modules[name]
    return ctypes


def _module_untouched(code) -> bool:
    """Did nothing the watch notes happen before this swap (``_RUNS``): no odd event, the module's
    file not read again, ``code`` and every code object nested in it never run in this process?"""
    import types
    w = _RUNS
    if w["odd"] or w["reads"]:
        return False
    todo = [code]
    while todo:
        c = todo.pop()
        if _never_run(c) is not True:
            return False
        todo.extend(k for k in c.co_consts if isinstance(k, types.CodeType))
    return True


def _watch_lambdas() -> None:
    import threading

    def hook(frame, event, arg):
        if event == "call":
            was, _AUDIT_BUSY[0] = _AUDIT_BUSY[0], True     # frame.f_code is an audited read: the watch's own
            try:
                if frame.f_code.co_name == "<lambda>":
                    _LAMBDAS_CALLED.add(id(frame.f_code))
            finally:
                _AUDIT_BUSY[0] = was
    _LAMBDA_WATCH["hook"] = hook
    with _OWN:          # the server's own profile function (not an event the module watch notes)
        sys.setprofile(hook)
        threading.setprofile(hook)


def _end_collection_watch() -> None:
    import threading
    _LAMBDA_WATCH["on"] = False
    _CODE_WATCH["threads"] += len(sys._current_frames()) - 1
    hook = _LAMBDA_WATCH.pop("hook", None)
    if hook is None:
        _LAMBDA_WATCH["threads_ok"] = False     # nothing recorded: no lambda is swapped
        return
    if sys.getprofile() is not hook or threading.getprofile() is not hook:
        # the suite set a profile function of its own meanwhile: it is left as the suite set
        # it, and what was called since is unknown, so no lambda is swapped
        _LAMBDA_WATCH["threads_ok"] = False
        return
    with _OWN:
        sys.setprofile(None)
        threading.setprofile(None)
    _LAMBDA_WATCH["threads_ok"] = len(sys._current_frames()) == 1


def _live_functions(mod, code) -> list:
    """The function objects whose ``__code__`` equals ``code``, reachable from module ``mod``
    (its namespace, its own classes' namespaces, containers and method wrappers, three levels)."""
    import types
    seen: set[int] = set()
    out: list = []
    name = getattr(mod, "__name__", None)

    def visit(v, depth: int) -> None:
        if id(v) in seen:
            return
        seen.add(id(v))
        if isinstance(v, types.FunctionType):
            if _code_of(v) == code:
                out.append(v)
            return
        if depth == 0:
            return
        # exact built-in types only: a subclass's own values() or __iter__ would run the module's
        # code in the child before the swap
        items: list
        kind = type(v)
        if kind is dict:
            items = list(dict.values(v))
        elif kind in (list, tuple, set, frozenset):
            items = list(kind.__iter__(v))
        elif isinstance(v, type) and type.__getattribute__(v, "__module__") == name:
            items = list(type.__getattribute__(v, "__dict__").values())
        elif kind in (staticmethod, classmethod):
            items = [v.__func__]
        elif kind is property:
            items = [v.fget, v.fset, v.fdel]
        else:
            return
        for x in items:
            visit(x, depth - 1)
    for v in list(vars(mod).values()):
        visit(v, 3)
    return out


def _lambda_targets(req: dict) -> list | None:
    """[(live function, mutated code)] for a lambda swap request (``req["lambda"]``: the
    conforming lambda's code and the mutant's, marshalled), or None when the swap would not be
    exact (the rule above): the child then exits 75."""
    import base64
    import marshal
    if not _LAMBDA_WATCH["threads_ok"]:
        return None
    if req["module_file"] not in _MODULE_BY_FILE:
        _prepare_swap(req)
    mod = _MODULE_BY_FILE[req["module_file"]]
    if mod is None:
        return None
    control = marshal.loads(base64.b64decode(req["lambda"]["control"]))
    fns = _live_functions(mod, control)
    if not fns or len({id(_code_of(f)) for f in fns}) != 1:
        return None
    live = _code_of(fns[0])
    # holders of ``live``: each function in fns, ``live`` here and getrefcount's argument
    if id(live) in _LAMBDAS_CALLED or any(id(f) in _CODE_READ for f in fns) or \
            sys.getrefcount(live) != len(fns) + 2:
        return None
    import types

    def named(co):
        return co.replace(co_filename=live.co_filename, co_consts=tuple(
            named(c) if isinstance(c, types.CodeType) else c for c in co.co_consts))
    new = named(marshal.loads(base64.b64decode(req["lambda"]["code"])))
    if new.co_freevars or new.co_name != "<lambda>":
        return None
    return [(f, new) for f in fns]


def _first_order(nodeids: list[str], first: list) -> list[str]:
    """``nodeids`` with those named in ``first`` moved to the front, as ``_first_plugin`` orders
    a forked run's items (the same keys, the same order)."""
    rank = {(str(f), str(r)): i for i, (f, r) in enumerate(first)}

    def key(nodeid: str) -> tuple[str, str]:
        path, _, rest = nodeid.partition("::")
        return os.path.basename(path), rest
    ahead = sorted((n for n in nodeids if key(n) in rank), key=lambda n: rank[key(n)])
    return ahead + [n for n in nodeids if key(n) not in rank]


# the hooks a pytest session calls around or after its run loop: a swap child calls pytest's own run
# loop and exits (``_swap_run``), so another implementation of any of them never runs there
_SESSION_HOOKS = ("pytest_runtestloop", "pytest_sessionfinish", "pytest_terminal_summary", "pytest_unconfigure")
# id -> (function, its code) for every function of pytest's own modules, noted in a server before any other
# module is imported (``_preload``); and the session's implementations of _SESSION_HOOKS as the swap server
# found them after collection (what a swap child compares its own with after its tests)
_PYTESTS_FUNCTIONS: dict[int, tuple] = {}
_SESSION_IMPLS: list = [None]


def _note_pytests_functions() -> None:
    """Note every function of the loaded ``_pytest`` modules (module level, and their classes' methods),
    with its code object: pytest's own hook implementations, known by identity, not by a name, a module
    or a file name the suite could set (red team helper-133, reviewer helper-134)."""
    import types

    import _pytest.config as cfg
    for name in cfg.default_plugins:        # each, by its _pytest name (the preload's list holds a stdlib
        try:                                # "faulthandler" that shadows pytest's plugin of that name)
            __import__(f"_pytest.{name}")
        except Exception:  # noqa: BLE001 - not pytest's then: such a session forks
            pass
    for mod_name, mod in list(sys.modules.items()):
        if mod_name != "_pytest" and not mod_name.startswith("_pytest."):
            continue
        for v in list(vars(mod).values()):
            for f in [v, *(vars(v).values() if isinstance(v, type) and v.__module__ == mod_name else ())]:
                f = getattr(f, "__func__", f) if isinstance(f, (staticmethod, classmethod)) else f
                if type(f) is types.FunctionType:
                    _PYTESTS_FUNCTIONS[id(f)] = (f, f.__code__)


def _session_impls(session) -> tuple:
    """(hook implementation, its function, that function's code) for each implementation of
    ``_SESSION_HOOKS``, compared by identity only (nothing of the suite's runs: ``type`` and the
    attributes of real function and method objects)."""
    import types
    out = []
    for name in _SESSION_HOOKS:
        for impl in getattr(session.config.pluginmanager.hook, name).get_hookimpls():
            fn = impl.function
            f = fn.__func__ if type(fn) is types.MethodType else fn
            out.append((impl, f, f.__code__ if type(f) is types.FunctionType else None))
    return tuple(out)


def _only_pytests_session_hooks(session) -> bool:
    """Are all of the session's implementations of ``_SESSION_HOOKS`` pytest's own (a function noted by
    ``_note_pytests_functions``, its code unchanged) or the server's ``_SwapPlugin``? A cold run calls
    each, and one of a suite's conftest.py or plugin may decide the exit status (``pytest_sessionfinish``
    setting ``session.exitstatus`` from what the tests left behind: cold rejects, a swap child skipping
    it accepted); a session with any other is not served by swapping (every mutant goes the fork way, a
    fresh ``pytest.main``). Read from the plugin manager after collection, not from the files' text."""
    impls = _session_impls(session)
    _SESSION_IMPLS[0] = impls
    for impl, f, code in impls:
        noted = _PYTESTS_FUNCTIONS.get(id(f))
        if type(impl.plugin) is not _SwapPlugin and not (noted and noted[0] is f and noted[1] is code):
            return False
    return True


def _session_impls_unchanged(session) -> bool:
    """In a swap child after its tests: the session's implementations of ``_SESSION_HOOKS`` are the
    ones the server checked, each with the same code (a test registering one, or replacing the code of
    one, makes the child exit 75: the fork way runs the session's end)."""
    now, then = _session_impls(session), _SESSION_IMPLS[0]
    return then is not None and len(now) == len(then) and all(
        a is b for old, new in zip(then, now) for a, b in zip(old, new))


class _SwapPlugin:
    """Registered in the server's own ``pytest.main``: once the suite is collected (on the
    conforming artifact), the server serves swap requests from there instead of running tests."""

    def __init__(self, ctl, base_path: list[str], twins: Sequence[int] = ()):
        self.ctl, self.base_path, self.twins = ctl, base_path, list(twins)

    def pytest_runtestloop(self, session):
        import gc
        import json
        _end_collection_watch()
        ok = not session.testsfailed and bool(session.items) and _only_pytests_session_hooks(session)
        if ok:
            _register_swap_plugins(session)
            _warm_linecache(skip=_RUNS["inodes"])     # not the module's file: a child gives the mutant's lines
        gc.freeze()     # the collected suite too: children's gc.collect skips it
        pids, left = [], list(self.twins)
        while left:         # each twin closes the descriptors still open here but its own
            own = left.pop(0)
            pids.append(_fork_twin(own, [self.ctl.fileno(), *left], self.base_path, session if ok else None, ok))
        self.ctl.send(json.dumps({"ready": ok}).encode())
        try:
            _loop(self.ctl, self.base_path, session if ok else None)
        finally:
            for pid in pids:
                os.waitpid(pid, 0)      # reaped here: its CPU is counted in this server's children
        return True


def _fork_twin(own: int, others: list[int], base_path: list[str], session, ok: bool) -> int:
    """Fork, from a swap server that has collected the suite and is about to serve, a second
    swap server serving on ``own`` (the client's ``ForkServer.twins``): a swap child is a fork of
    the collected server, and the twin is the same process at the same point, so its children are
    the children the server itself would fork; a second worker no longer starts its own server,
    imports pytest and collects the suite again (issue 35: 0.3-0.4 s of CPU on ordered-set)."""
    import json

    def serve(ctl) -> None:
        ctl.send(json.dumps({"ready": ok}).encode())
        _loop(ctl, base_path, session)
    return _fork_serving(own, others, serve)  # (others: the server's control socket and the other twins')


def _fork() -> int:
    """``os.fork`` by the server itself (not an event the module watch notes)."""
    _RUNS["forking"] = True
    try:
        return os.fork()
    finally:
        _RUNS["forking"] = False


def _fork_serving(own: int, others: list[int], serve: Callable[[Any], None]) -> int:
    """Fork a server that runs ``serve`` on the socket ``own`` after closing ``others`` (descriptors of this
    server's it must not hold: its control socket, the other spares' and twins'), and exits when it returns.
    This process closes ``own`` and returns the child's pid (``_fork_twin``, ``_fork_spare``)."""
    import socket
    sys.stdout.flush()
    sys.stderr.flush()
    pid = _fork()
    if pid == 0:
        try:
            for fd in others:
                os.close(fd)
            serve(socket.socket(fileno=own))
        finally:
            os._exit(0)
    os.close(own)
    return pid


def _serve(fd: int, preload: list[str], rewrite: list[str], collect: dict | None = None,
           spares: Sequence[int] = (), twins: Sequence[int] = ()) -> None:
    import socket
    _preload(preload)
    _cache_rewrites(rewrite)
    base_path = list(sys.path)        # this script's directory already dropped, as ``-m`` never has it
    if collect is None:
        _serve_plain(socket.socket(fileno=fd), base_path, rewrite)
        return
    pids, left = [], list(spares)
    while left:             # each spare closes the descriptors still open here but its own
        own = left.pop(0)
        pids.append(_fork_spare(own, [fd, *left, *twins], base_path, rewrite))
    try:
        _serve_collected(socket.socket(fileno=fd), base_path, collect, twins)
    finally:
        for pid in pids:
            os.waitpid(pid, 0)          # reaped here: its CPU is counted in this server's children


def _serve_plain(ctl, base_path: list[str], rewrite: list[str]) -> None:
    """A plain server's part after the common start-up (``_preload``, ``_cache_rewrites``)."""
    import gc
    _warm_linecache(rewrite)     # pytest's own files and the suite's test files
    gc.freeze()     # children collect only what they allocate (pytest runs gc.collect at exit)
    _loop(ctl, base_path, None)


def _fork_spare(spare: int, others: list[int], base_path: list[str], rewrite: list[str]) -> int:
    """Fork, from a swap server that has done the common start-up and nothing else yet, a plain
    server serving on ``spare`` (one of the client's ``ForkServer.spares``). Both kinds are started by
    the same command with the same environment, working directory ("/") and lists, and a plain
    server does exactly ``_preload`` and ``_cache_rewrites`` before ``_serve_plain``; so the
    spare is in the state a plain server started on its own reaches, without paying another
    interpreter start and pytest import (issue 35: the two plain servers a swapping session
    started for its whole-suite mutants were 0.7 s of ordered-set's 15 s of CPU). Returns its
    pid (this server reaps it before exiting, so its CPU is counted where a plain server's is)."""
    return _fork_serving(spare, others, lambda ctl: _serve_plain(ctl, base_path, rewrite))


def _serve_collected(ctl, base_path: list[str], collect: dict, twins: Sequence[int] = ()) -> None:
    """A swap server's part after the common start-up: collect the suite, then serve swaps."""
    import gc

    import pytest
    os.chdir(collect["cwd"])
    os.environ.clear()
    os.environ.update(collect["env"])
    sys.path[:] = [*collect["path_prefix"], *base_path]
    null = os.open(os.devnull, os.O_RDWR)
    os.dup2(null, 1)
    os.dup2(null, 2)
    gc.freeze()
    _watch_code_reads()
    _watch_module(collect["env"]["CORPUS_ARTIFACT"])
    if collect.get("watch_lambdas"):
        _watch_lambdas()
    # first among the run loops (pytest's own would run the suite here)
    _SwapPlugin.pytest_runtestloop = pytest.hookimpl(tryfirst=True)(_SwapPlugin.pytest_runtestloop)  # type: ignore[method-assign]
    pytest.main(collect["args"], plugins=[_SwapPlugin(ctl, base_path, twins)])


def _loop(ctl, base_path: list[str], session) -> None:
    """Serve requests until the client closes: a plain one forks a ``pytest.main`` child; one
    with ``swap`` (only when ``session`` holds a collected suite) forks a ``_swap_child``."""
    import json
    import socket
    while True:
        try:
            msg, fds, _, _ = socket.recv_fds(ctl, 1 << 20, 2)
        except OSError:
            return
        if not msg:
            return
        req = json.loads(msg)
        req["base_path"] = base_path
        out_fd, err_fd = fds
        if "swap" in req and session is not None:
            _prepare_swap(req["swap"])
            _items_by_id(session)
        trace = (req.get("swap") or req).get("trace")
        if trace:
            with _OWN:                  # coverage's start and stop set the tracer: the server's own
                try:
                    _known_files(_recorder(trace))  # coverage's set-up once, here, not in every child
                except Exception:       # noqa: BLE001 - the child makes it, or reports '?'
                    pass
        sys.stdout.flush()
        sys.stderr.flush()
        pid = _fork()
        if pid == 0:
            ctl.close()
            if "swap" in req and session is not None:
                _swap_child(req["swap"], session, out_fd, err_fd)
            elif "swap" in req:
                os._exit(75)
            _child(req, out_fd, err_fd)
        os.close(out_fd)
        os.close(err_fd)
        ctl.send(json.dumps({"pid": pid}).encode())
        ended = _wait_run(ctl, pid)
        if ended is None:
            return
        _, status, usage = ended
        try:
            ctl.send(json.dumps({"status": status, "cpu": usage.ru_utime + usage.ru_stime}).encode())
        except OSError:  # (the client went away as the run ended)
            return


def _wait_run(ctl, pid: int) -> tuple[int, int, Any] | None:
    """``os.wait4`` of a run's child, or None when the client went away first (its end of the control socket
    closed: the client's process was killed, its pytest worker with it). Then the child's process group is
    killed, as the client's deadline would have (``_read_run``), and reaped: the client is the only one who
    kills a run, so a mutant's endless loop ran on without it (one outlived its killed pytest by 47 minutes
    at 55% of a core), and so did its server, blocked here."""
    import select
    import socket
    try:
        pidfd = os.pidfd_open(pid)
    except (AttributeError, OSError):  # (no pidfd: Linux before 5.3) the child's own end only
        return os.wait4(pid, 0)
    try:
        while True:
            ready, _, _ = select.select([pidfd, ctl], [], [])
            if pidfd in ready:
                return os.wait4(pid, 0)
            try:
                gone = ctl.recv(1, socket.MSG_PEEK | socket.MSG_DONTWAIT) == b""
            except BlockingIOError:
                continue
            except OSError:
                gone = True
            if not gone:  # (a message before the reply: not this protocol's; the child's end decides)
                return os.wait4(pid, 0)
            _kill_run(pid)
            os.wait4(pid, 0)
            return None
    finally:
        os.close(pidfd)


# ----------------------------------------------------------------------------- client side


class ForkServerError(RuntimeError):
    """The server is gone or broke the protocol; the caller judges this mutant cold."""


def _peer(sock) -> "ForkServer":
    """The client of a server another server forked (a spare or a twin): its socket, no process
    of its own to wait for (its parent server reaps it)."""
    s = ForkServer.__new__(ForkServer)
    s.ready, s.last_cpu, s.spares, s.twins, s.proc, s.sock = None, 0.0, [], [], None, sock
    return s


class ForkServer:
    """One pre-imported pytest server; ``run`` is not thread-safe (use one per worker)."""

    def __init__(self, env: dict[str, str], preload: Sequence[str] = (), rewrite: Sequence[str] = (),
                 collect: dict | None = None, spares: int = 0, twins: int = 0):
        """``collect`` ({args, cwd, env, path_prefix}): the server runs ``pytest.main(args)`` on
        the conforming artifact once and serves ``swap`` from the collected session (``ready``
        says whether it could). With ``collect``, the server also forks ``spares`` plain servers
        before it collects (same ``env``, ``preload`` and ``rewrite``: ``_fork_spare``) and
        ``twins`` more swap servers once it has collected (``_fork_twin``), reached through
        ``self.spares`` and ``self.twins``: children of the server, reaped by it."""
        import json
        import socket
        import subprocess
        parent, child = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        n = (spares + twins) if collect else 0
        extra = [socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET) for _ in range(n)]
        self.ready: bool | None = None
        self.last_cpu = 0.0     # CPU seconds of the last run's child and of what it waited for
        far = [e[1].fileno() for e in extra]
        try:
            self.proc: subprocess.Popen | None = subprocess.Popen(
                [sys.executable, os.path.abspath(__file__), str(child.fileno()),
                 json.dumps([list(preload), list(rewrite), collect, far[:spares], far[spares:]])],
                cwd="/", env=env, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL, pass_fds=(child.fileno(), *far))
        finally:
            child.close()
            for e in extra:
                e[1].close()
        self.sock = parent
        near = [_peer(e[0]) for e in extra]
        self.spares: list[ForkServer] = near[:spares] if collect else []
        self.twins: list[ForkServer] = near[spares:] if collect else []

    def wait_ready(self, timeout_s: float) -> bool:
        """For a ``collect`` server: did it collect the suite (False also on a timeout)?"""
        import json
        if self.ready is None:
            self.sock.settimeout(timeout_s)
            try:
                self.ready = bool(json.loads(self.sock.recv(1 << 16)).get("ready"))
            except (OSError, ValueError, AttributeError):
                self.ready = False
            finally:
                self.sock.settimeout(None)
        return self.ready

    def swap(self, req: dict, cwd: str, timeout_s: float) -> tuple[int | None, str, str, float]:
        """(exit code or None on timeout, summary, stderr, seconds) of a swap child (exit 75:
        the swap could not be made)."""
        return self.run([], cwd, {}, [], timeout_s, extra={"swap": {**req, "cwd": cwd}})

    def run(self, args: list[str], cwd: str, env: dict[str, str], path_prefix: list[str],
            timeout_s: float, extra: dict | None = None) -> tuple[int | None, str, str, float]:
        """(exit code or None on timeout, stdout, stderr, seconds) of ``pytest ARGS`` in a child."""
        import json
        import socket
        import time
        out_w: int | None    # write ends: None once handed to the server and closed here
        err_w: int | None
        out_r, out_w = os.pipe()
        err_r, err_w = os.pipe()
        t0 = time.perf_counter()
        try:
            try:
                socket.send_fds(self.sock, [json.dumps({"args": args, "cwd": cwd, "env": env,
                                                        "path_prefix": path_prefix, **(extra or {})}).encode()],
                                [out_w, err_w])
                os.close(out_w)
                os.close(err_w)
                out_w = err_w = None
                pid = json.loads(self.sock.recv(1 << 16))["pid"]
            except (OSError, ValueError, KeyError) as exc:
                raise ForkServerError(f"fork server unavailable: {exc!r}") from exc
            bufs, timed_out = _read_run(pid, (out_r, err_r), t0 + timeout_s)
            try:
                reply = json.loads(self.sock.recv(1 << 16))
                status = reply["status"]
                self.last_cpu = float(reply.get("cpu", 0.0))
            except (OSError, ValueError, KeyError) as exc:
                raise ForkServerError(f"fork server lost a run: {exc!r}") from exc
        finally:
            for end in (out_r, err_r, out_w, err_w):
                if end is not None:
                    os.close(end)
        code = None if timed_out else os.waitstatus_to_exitcode(status)
        return (code, bufs[out_r].decode("utf-8", "replace"), bufs[err_r].decode("utf-8", "replace"),
                time.perf_counter() - t0)

    def shut(self) -> None:
        """Close the control socket: the server (or spare) ends its loop and exits."""
        self.sock.close()

    def close(self) -> None:
        """Close the socket and wait for the server (a swap server waits for its spares and
        twins, so their sockets must be shut first: ``shut`` every server, then ``close`` each)."""
        try:
            self.sock.close()
        finally:
            if self.proc is not None:
                try:
                    self.proc.wait(timeout=5)
                except Exception:
                    self.proc.kill()
                    self.proc.wait()


def _kill_run(pid: int) -> None:
    """SIGKILL to a run's process group (the child leads its own session), or, before the child has called setsid,
    to the child alone: it is the server's unreaped child, so the pid is still its own."""
    import signal
    try:
        os.killpg(pid, signal.SIGKILL)
    except ProcessLookupError:
        try:
            os.kill(pid, signal.SIGKILL)
        except ProcessLookupError:
            pass


def _read_run(pid: int, fds: tuple[int, ...], deadline: float) -> tuple[dict[int, bytearray], bool]:
    """Each of ``fds`` (a run's stdout and stderr) read to its end, and whether the run timed out:
    past ``deadline`` the run's process group is killed, and the pipes get 10 s more to close."""
    import selectors
    import time
    bufs = {fd: bytearray() for fd in fds}
    sel = selectors.DefaultSelector()
    for fd in bufs:
        sel.register(fd, selectors.EVENT_READ)
    timed_out, open_fds = False, set(bufs)
    while open_fds:
        wait = deadline - time.perf_counter()
        if wait <= 0 and not timed_out:
            timed_out = True
            _kill_run(pid)
            deadline += 10.0
        elif wait <= 0:
            break
        for key, _ in sel.select(timeout=max(wait, 0)):
            chunk = os.read(key.fd, 1 << 16)
            if chunk:
                bufs[key.fd] += chunk
            else:
                sel.unregister(key.fd)
                open_fds.discard(key.fd)
    sel.close()
    return bufs, timed_out


if __name__ == "__main__":
    import json as _json
    del sys.path[0]        # this script's directory (corpus/) must shadow nothing
    _serve(int(sys.argv[1]), *_json.loads(sys.argv[2]))

