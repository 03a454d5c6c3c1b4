"""The subject of a judged run: a fresh interpreter that imports the code under test and answers the
driver's requests (harness.judge.subject_rpc). Standard library only.

Started by the driver as ``python -I <this file> REQ_FD AUDIT_FD CWD`` (it changes to CWD first) with a minimal environment and no
other descriptor but its own output files as 1 and 2 (relayed by the driver: capfd): it never holds the
run's nonce, the observation channel, the plan or a path the harness keeps secret. The driver's
environment (the nonce and channel removed from it at the driver's start), working directory, argv,
umask and log levels arrive with its first message and every later one (harness.judge.subject_rpc
``ProcState``). Before anything else, and before any workspace import, it installs a Python
audit hook (``sys.addaudithook``; it cannot be removed) that writes, at once and straight to
AUDIT_FD (a pipe only the driver reads), every event by which code in this process could reach
another frame, the interpreter's objects or its own descriptors: frame and trace access
(``sys._getframe``, ``sys._current_frames``, ``sys.settrace``, ``sys.setprofile``), ``gc``
traversal, ``ctypes`` calls, writes of a function's ``__code__``/defaults, new code objects, and
opens or listings under ``/proc`` and ``/dev/fd``. The driver reports each as verdictSubversion
evidence, and a stream that ends or stops answering its per-test heartbeat (``hx.sync``) as
tampering (docs/explanation/judge-design.md: the residual limit).

Also before any code of the tree runs, the protocol module gets its own copy of the builtins, the
interpreter's classes are captured by identity (``capture_identities``: the classes the driver may
take for its own are those objects, never a class that names itself like one) and the crossing
frame is drawn (``crossing``: where a warning the tree attributed to its caller is placed).
"""
import os
import sys

AUDIT_REDIRECTED = 87  # the subject's exit status when its audit descriptor no longer leads to the driver's pipe
# or the pipe refuses a line (harness.judge.subject_main._pipe_writer)


def _install_audit(fd: int, exempt: dict | None = None, truncated: list | None = None) -> None:
    """Install the audit hook (see the module docstring). The hook runs no method of an event's
    arguments (a str subclass's ``startswith``, a ``__class__`` property: code the tree would run
    inside the hook, where nothing is reported) and looks up no module attribute when it runs
    (``json.dumps`` reads ``json._default_encoder``, which the tree can replace): every line is
    built by the C string encoder bound here. Before each write it checks that ``fd`` still leads
    to the pipe it was given; a tree that dup2'ed something over it (keeping the pipe under another
    number to answer heartbeats itself) ends the subject with ``AUDIT_REDIRECTED``.

    The pieces are built by the factories below, each called once here: every function the hook
    calls is a fresh closure reachable only through the hook's own defaults (no module global of
    this file, which the tree could reach as ``__main__``, is looked up while the hook runs).

    ``exempt``: id(code) -> code of the harness's own functions whose ctypes events are not evidence (the
    protocol's GIL-holding reads and writes, harness.judge.subject_rpc ``_HeldIO``, read ``ctypes.get_errno``
    when a call fails), filled by ``main`` once the protocol is loaded and matched by identity (an equal code
    object the tree compiles is not one of them). ``truncated``: a cell ``main`` fills with the call that
    reports a truncation of the output files (``_truncation_watch``)."""
    from _json import encode_basestring_ascii as quote
    text = _text_reader()
    exempt = {} if exempt is None else exempt
    classify = _event_classifier(_caller_check(_trusted_prefixes(), text, exempt), text, _exempt_check(exempt))
    watch = _truncation_watch(truncated) if truncated is not None else None
    sys.addaudithook(_audit_hook(classify, _pipe_writer(fd, AUDIT_REDIRECTED), quote, watch))


def _truncation_watch(cell: list):
    """A fresh ``watch(event, args)`` for the audit hook (harness.judge.testrun ``OUTPUT_RELAY_RULE``): a truncation
    of the subject's descriptors 1 and 2 (the files the driver relays, known by device and inode whatever descriptor
    or path reaches them: ``os.truncate``/``os.ftruncate``, an ``open`` with ``O_TRUNC``) calls ``cell[0]`` (a fault
    the next message carries), whether their seal refused it or not: under plain pytest it would have emptied the
    capture file the test shares, which the driver cannot reproduce."""
    ids = set()
    for fd in (1, 2):
        try:
            st = os.fstat(fd)
            ids.add((st.st_dev, st.st_ino))
        except OSError:
            pass

    def watch(event, args, _ids=frozenset(ids), _cell=cell, _fstat=os.fstat, _stat=os.stat, _type=type, _int=int,
              _str=str, _bytes=bytes, _len=len, _trunc=os.O_TRUNC, _err=(OSError, ValueError, TypeError)):
        if not args:
            return
        if event == "open" and not (_len(args) > 2 and _type(args[2]) is _int and args[2] & _trunc):
            return
        target = args[0]
        try:
            st = _fstat(target) if _type(target) is _int else _stat(target) if _type(target) in (_str, _bytes) else None
        except _err:
            return
        if st is not None and (st.st_dev, st.st_ino) in _ids and _cell[0] is not None:
            _cell[0]()
    return watch


def _trusted_prefixes() -> tuple[str, ...]:
    """The interpreter's own library directories (stdlib and site-packages), each ending in "/":
    a frame whose file lies under one of them is the interpreter's code, not the tree's."""
    import sysconfig
    paths = sysconfig.get_paths()
    return tuple(sorted({os.path.realpath(paths[k]) + "/" for k in ("stdlib", "platstdlib", "purelib", "platlib")
                         if paths.get(k)}))


def _text_reader():
    """A fresh ``text(x)``: x as an exact str (None unless x is a str or bytes), through the base
    types' own methods (never a method of a subclass the tree defined)."""
    def text(x, _type=type, _issubclass=issubclass, _str=str, _bytes=bytes):
        t = _type(x)
        if _issubclass(t, _bytes):
            return _bytes.decode(x, "utf-8", "replace")
        return _str.__str__(x) if _issubclass(t, _str) else None
    return text


def _caller_check(trusted: tuple[str, ...], text, exempt: dict):
    """A fresh ``untrusted_caller(getframe)``: whether the Python frame that raised the audit event
    lies outside ``trusted`` (and outside frozen modules) and is not one of the ``exempt`` code objects. It is
    called by the classifier, which is called by the hook, so that frame is three up: untrusted_caller, classify,
    hook, the caller."""
    def untrusted_caller(getframe, _text=text, _startswith=str.startswith, _trusted=trusted, _exempt=exempt,
                         _id=id) -> bool:
        try:
            f = getframe(3)
        except ValueError:
            return False
        code = f.f_code
        if _exempt.get(_id(code)) is code:
            return False
        name = _text(code.co_filename) or ""
        return not (_startswith(name, _trusted) or _startswith(name, "<frozen"))
    return untrusted_caller


def _exempt_check(exempt: dict):
    """A fresh ``exempt_caller(getframe)``: whether the Python frame that raised the audit event (three up, as for
    ``untrusted_caller``) runs one of the ``exempt`` code objects, by identity: the harness's own traversal (the
    protocol's walk of what a drop frees, harness.judge.subject_rpc ``_finalizes``, reads ``gc.get_referents``; its
    witness of a ``gc.freeze``, ``froze_since``, lists generations with ``gc.get_objects``; the subject's share of the
    test's ``gc.get_objects``, ``_tree_objects``, reads ``gc.get_objects``).
    Only these: a ``gc`` traversal from anywhere else, the standard library's included, stays evidence."""
    def exempt_caller(getframe, _exempt=exempt, _id=id) -> bool:
        try:
            code = getframe(3).f_code
        except ValueError:
            return False
        return _exempt.get(_id(code)) is code
    return exempt_caller


def _pipe_writer(fd: int, redirected: int):
    """A fresh ``write(line)`` to ``fd`` that first checks ``fd`` still leads to the pipe it leads
    to now, and ends the process with ``redirected`` when it does not, or when the pipe does not
    take the whole line: a tree that set O_NONBLOCK on ``fd`` and filled the pipe would otherwise
    have its evidence dropped (EAGAIN) while later heartbeats still answer. A line is far below
    PIPE_BUF, so a blocking write takes it whole or waits for the driver to read."""
    st = os.fstat(fd)
    pipe = (st.st_dev, st.st_ino)

    def write(line, _write=os.write, _fstat=os.fstat, _exit=os._exit, _encode=str.encode, _len=len, _fd=fd,
              _pipe=pipe, _redirected=redirected) -> None:
        try:
            s = _fstat(_fd)
            ours = (s.st_dev, s.st_ino) == _pipe
        except OSError:
            ours = False
        if not ours:
            _exit(_redirected)
        data = _encode(line + "\n")
        try:
            ours = _write(_fd, data) == _len(data)
        except OSError:
            ours = False
        if not ours:
            _exit(_redirected)
    return write


def _event_classifier(untrusted_caller, text, exempt_caller=None):
    """A fresh ``classify(event, args)``: the evidence line's text for an audit event that is
    evidence of reaching another frame, the interpreter's objects or the process's descriptors
    (the module docstring's list), else None. ``exempt_caller``: ``gc.get_referents`` or ``gc.get_objects`` made by
    one of the harness's own functions (``_exempt_check``: what a drop frees, whether a ``gc.freeze`` ran, the tree's
    objects for the test's ``gc.get_objects``) is not evidence."""
    always = frozenset({"gc.get_objects", "gc.get_referrers", "gc.get_referents", "sys._current_frames"})
    exempt_events = frozenset({"gc.get_referents", "gc.get_objects"})  # (by one of the harness's functions: not evidence)
    tracing = frozenset({"sys.settrace", "sys.setprofile"})
    by_caller = frozenset({"sys._getframe", "code.__new__", "function.__new__"})
    code_attrs = frozenset({"__code__", "__defaults__", "__kwdefaults__", "__globals__", "__closure__"})
    frame_attrs = frozenset({"tb_frame", "gi_frame", "cr_frame", "ag_frame", "f_back"})
    import types
    # types.coroutine marks a generator function awaitable by writing its own code back with one flag
    # more (asyncio's tasks.py does it at import, so does any suite importing unittest.mock): the one
    # __code__ write that is not a swap. Known by its code object, captured before the tree runs.
    coroutine_code = types.coroutine.__code__

    def classify(event, args, _getframe=sys._getframe, _text=text, _len=len, _startswith=str.startswith,
                 _untrusted=untrusted_caller, _coroutine=coroutine_code, _exempt=exempt_caller,
                 exempt_events=exempt_events):
        if event in always:
            return None if event in exempt_events and _exempt is not None and _exempt(_getframe) else event
        if event in by_caller or _startswith(event, "ctypes."):
            return event if _untrusted(_getframe) else None
        if event in tracing:  # doctest saves and restores "no tracer" (None): only a real tracer counts
            return event if (args and args[0] is not None) or _untrusted(_getframe) else None
        if event == "object.__setattr__" and _len(args) > 1 and _text(args[1]) in code_attrs:
            # namedtuple sets __new__.__defaults__: a default or closure written by the interpreter's
            # own code is not evidence; a swapped __code__ always is
            name = _text(args[1])
            if name == "__code__":
                return None if _getframe(2).f_code is _coroutine else f"{event} {name}"
            return f"{event} {name}" if _untrusted(_getframe) else None
        if event == "object.__getattr__" and _len(args) > 1 and _text(args[1]) in frame_attrs:
            return f"{event} {_text(args[1])}" if _untrusted(_getframe) else None
        if event in ("open", "os.listdir", "os.scandir") and args:
            p = _text(args[0])
            if p is not None and (_startswith(p, "/proc/") or _startswith(p, "/dev/fd")) and \
                    not _startswith(p, ("/proc/cpuinfo", "/proc/meminfo", "/proc/sys/")):
                return f"{event} {p[:120]}"
        return None
    return classify


def _audit_hook(classify, write, quote, watch=None):
    """A fresh hook over ``classify`` and ``write``: answers the driver's heartbeat (``hx.sync``),
    writes each distinct evidence line once (at most 200), and ignores events a thread raises
    while that same thread runs the hook (its own calls raise some). The guard is per thread: one
    thread held inside the hook (blocked in its write on a pipe the tree filled) must not make the
    events of every other thread look like the hook's own."""
    from _thread import get_ident
    state = {"busy": set(), "sent": 0, "seen": set()}

    def hook(event, args, _state=state, _type=type, _int=int, _len=len, _quote=quote, _classify=classify,
             _write=write, _me=get_ident, _watch=watch):
        me, busy = _me(), _state["busy"]
        if me in busy:
            return
        busy.add(me)
        try:
            if event == "hx.sync":
                if _len(args) == 1 and _type(args[0]) is _int:
                    _write('{"sync":%d}' % args[0])
                return
            if _watch is not None and (event == "os.truncate" or event == "open"):
                _watch(event, args)
            what = _classify(event, args)
            if what is not None and what not in _state["seen"] and _state["sent"] < 200:
                _state["seen"].add(what)
                _state["sent"] += 1
                _write('{"ev":' + _quote(what) + "}")
        finally:
            busy.discard(me)
    return hook


def _held_libc() -> dict | None:
    """libc's ``read``, ``write``, ``fstat``, ``getcwd`` and ``chdir`` through ``ctypes.PyDLL`` (the calling thread keeps the
    GIL across them), with their buffers, for the subject's frozen schedule (harness.judge.subject_rpc
    ``Schedule``). Made before the audit hook (loading a library is not the tree's doing) and before any code of
    the tree. ``size_at``: where ``struct stat`` holds ``st_size``, if this machine's layout is the one checked
    here against ``os.fstat``, else None (``os.fstat``, which releases the GIL). None when ctypes is missing:
    the subject then waits in ``os.read`` and the threads of the tree are not frozen (``Peer._moved`` remains)."""
    try:
        import ctypes
        libc = ctypes.PyDLL(None, use_errno=True)
        fns = {"read": libc.read, "write": libc.write, "fstat": libc.fstat, "getcwd": libc.getcwd, "chdir": libc.chdir}
    except (ImportError, OSError, AttributeError):
        return None
    c = ctypes
    for name, args, res in (("read", (c.c_int, c.c_void_p, c.c_size_t), c.c_ssize_t),
                            ("write", (c.c_int, c.c_char_p, c.c_size_t), c.c_ssize_t),
                            ("fstat", (c.c_int, c.c_void_p), c.c_int), ("getcwd", (c.c_void_p, c.c_size_t), c.c_void_p),
                            ("chdir", (c.c_char_p,), c.c_int)):
        fns[name].argtypes, fns[name].restype = args, res
    st = ctypes.create_string_buffer(512)
    size_at = None
    try:
        ref = os.fstat(2)
        if fns["fstat"](2, st) == 0 and sys.byteorder == "little" and \
                int.from_bytes(st.raw[8:16], "little") == ref.st_ino and int.from_bytes(st.raw[48:56], "little") == ref.st_size:
            size_at = 48  # (x86-64 and aarch64 Linux)
    except OSError:
        pass
    return {**fns, "errno": ctypes.get_errno, "buf": ctypes.create_string_buffer(1 << 16), "st": st,
            "cwd": ctypes.create_string_buffer(4097), "size_at": size_at}


def _interpreter_registries() -> dict:
    """What harness.judge.subject_rpc ``ProcState`` reads the interpreter's state at (``SOURCES``), found before the
    audit hook is on (a symbol looked up, the heap searched once: no code of the tree has run): the address of
    libc's ``environ``, the list of codec search functions, the codec error handlers' dict and the three lists of
    fork handlers (harness.judge.subject_rpc ``CENSUS_RULE``)."""
    import codecs
    import gc
    out: dict = {}
    try:
        import ctypes
        out["environ"] = ctypes.addressof(ctypes.c_void_p.in_dll(ctypes.CDLL(None), "environ"))
    except (ImportError, OSError, ValueError, AttributeError):
        pass

    def probe(name):
        return None

    codecs.register(probe)
    try:
        found = [r for r in gc.get_referrers(probe) if type(r) is list and r and r[-1] is probe]
    finally:
        codecs.unregister(probe)
    out["codecs"] = found[0] if len(found) == 1 else None
    strict, ignore = codecs.lookup_error("strict"), codecs.lookup_error("ignore")  # the codec error handlers' dict
    errs = [r for r in gc.get_referrers(strict) if type(r) is dict and r.get("strict") is strict and r.get("ignore") is ignore]
    out["errors"] = errs[0] if len(errs) == 1 else None

    def fork_probe():  # the fork handlers' three lists: a no-op in each (it cannot be removed; it does nothing)
        return None

    os.register_at_fork(before=fork_probe, after_in_child=fork_probe, after_in_parent=fork_probe)
    forks = [r for r in gc.get_referrers(fork_probe) if type(r) is list and r and r[-1] is fork_probe]
    out["forks"] = forks if len(forks) == 3 else None
    try:  # what the kernel keeps for the process, read at each reply (harness.judge.subject_rpc ``KERNEL_RULE``)
        out["status_fd"] = os.open("/proc/self/status", os.O_RDONLY | os.O_CLOEXEC)
        out["fds"] = [int(n) for n in os.listdir("/proc/self/fd")]
    except (OSError, ValueError):
        pass
    return out


# STARTED_STATE_RULE (harness.judge.testrun): what pytest's process reads once at its own start-up and keeps (the
# interpreter's start-up variables, read by the interpreter itself: its time zone, UTF-8 mode and locale; and what
# pytest's fd capture makes before any test: ``tempfile.TemporaryFile`` caches ``tempfile.gettempdir()``), the subject
# reads at its own start, under the environment pytest's process started with (the early subject's; never the test's).
def _started_state() -> None:
    import tempfile
    try:
        tempfile.gettempdir()  # cached, as pytest's capture file cached it in pytest's process
    except OSError:  # (no usable directory: plain pytest's capture fails there too; the tree's call raises)
        pass


def _truncation_fault(pending: list):
    """The call ``_truncation_watch`` makes: a fault the subject's next message carries (``pf``), once."""
    said = [False]

    def fault(_said=said, _append=pending.append):
        if not _said[0]:
            _said[0] = True
            _append("the tree truncated its descriptor 1 or 2 (the files the driver relays, sealed against it): "
                    "under plain pytest that empties the capture file the test shares, which the judge cannot "
                    "reproduce (harness.judge.testrun OUTPUT_RELAY_RULE)")
    return fault


def _load_protocol(sources: dict, exempt: dict):
    """The protocol module (``_hx_rpc.py`` beside this file), loaded with the builtins as they are before the tree runs,
    and its own functions that walk frames or the heap registered in ``exempt`` (the audit's code identities)."""
    import importlib.util
    here = os.path.dirname(os.path.abspath(__file__))
    spec = importlib.util.spec_from_file_location("_hx_rpc", os.path.join(here, "_hx_rpc.py"))
    if spec is None or spec.loader is None:
        raise SystemExit("the subject's protocol module is missing")
    rpc = importlib.util.module_from_spec(spec)
    import builtins
    vars(rpc)["__builtins__"] = dict(vars(builtins))  # the protocol's builtins, as they are before the tree runs
    sys.modules["_hx_rpc"] = rpc
    spec.loader.exec_module(rpc)
    rpc.SOURCES.update(sources)
    # (the class stamps' version reads, ``_class_marks``, and the watch of the interpreter's classes, ``CENSUS_RULE``,
    # which a library's load already makes)
    exempt[id(rpc._dict_cells.__code__)] = rpc._dict_cells.__code__
    exempt[id(rpc._dict_cells_of.__code__)] = rpc._dict_cells_of.__code__  # (the modules' dicts: ``MODULE_STATE_RULE``)
    exempt[id(rpc._tree_objects.__code__)] = rpc._tree_objects.__code__  # (the test's ``gc.get_objects``: ``MEASURES_RULE``)
    exempt[id(rpc._stack_depth.__code__)] = rpc._stack_depth.__code__  # (its frames counted: ``STACK_DEPTH_RULE``)
    return rpc


def _pytest_session_end(peer, rpc, streams: tuple) -> None:
    """After the last request, the process state plain pytest's session end puts back before its process ends
    (``PROCESS_END_RULE``), for the tree's atexit callbacks and finalizers to find as under plain pytest (red teams
    atk18, atk19):

    - its capture restores the streams it saved when it started (``streams``: the subject's own, taken before any code
      of the tree ran, never the tree's ``sys.__stdout__``): ``sys.stdin``, ``sys.stdout`` and ``sys.stderr`` are the
      interpreter's, buffered (a last flush that fails makes the exit status 120), and reading the rest of the input
      is ``''``; and it closes its capture files: a capture stream the tree kept (``_OUT = sys.stdout`` at its import)
      raises ValueError on a write;
    - its faulthandler plugin disables faulthandler; its logging plugin leaves no handler of its own on the root logger
      (the subject's forwarder removed, logging's own ``callHandlers`` back); ``PYTEST_CURRENT_TEST`` is popped after
      the last test."""
    import faulthandler
    import logging
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except Exception:  # noqa: BLE001 - a stream the tree closed or replaced: nothing of the harness's is pending
            pass
    sys.stdin, sys.stdout, sys.stderr = streams
    for stream in peer.capture or ():
        try:
            stream.close()
        except Exception:  # noqa: BLE001
            pass
    faulthandler.disable()
    forwarder = getattr(peer.ps, "forwarder", None)
    handlers = logging.root.__dict__.get("handlers")
    if forwarder is not None and type(handlers) is list and forwarder in handlers:
        handlers.remove(forwarder)
    rpc.relay_logs(None)
    os.environ.pop("PYTEST_CURRENT_TEST", None)


def _released_with_the_modules(modules: dict, held: dict) -> None:
    """(the subject's last atexit callback) The protocol's tables of the tree's objects it holds for the driver, moved
    into a module at the end of the interpreter's ``modules``, where nothing else refers to them. Plain pytest's process
    frees the test module's objects while the interpreter clears its modules, after every atexit callback (the
    interpreter's own too: weakref's ``finalize`` hook, ``logging.shutdown``), in the collection that follows its
    setting ``sys.meta_path`` and every ``sys.modules`` entry to None and its restoring the builtins (the test module is
    in a reference cycle with its functions). This module is in a cycle too (``itself``), so the interpreter frees it
    in that same collection. A finalizer of a test-held object then sees what it sees under plain pytest: an ``import``
    raises ImportError, ``sys.modules`` is empty, the builtins are the interpreter's, the tree's ``weakref.finalize``
    callbacks ran, its logging handlers are closed (red teams atk18, atk20), and how the process ends is the run's
    (harness.judge.testrun ``PROCESS_END_RULE``; red teams atk16, atk17). ``modules`` is the dict the interpreter
    clears, taken before any code of the tree ran (a tree's rebinding of ``sys.modules`` does not move it). Run before
    the last request was served (the tree's call ran ``atexit._run_exitfuncs()``, which also clears the callbacks):
    nothing, as plain pytest's process keeps the test module's objects then (red team atk19); the tables go when the
    protocol's objects do."""
    peer = held.pop("peer", None) if held.get("served") else None
    if peer is None:
        return
    released = type(sys)("_hx_released")
    vars(released)["tables"] = dict(vars(peer))
    vars(released)["itself"] = released  # (the cycle: freed in the interpreter's last collection, not at its removal)
    vars(peer).clear()
    modules["_hx_released"] = released


def _release_at_the_end() -> dict:
    """The tree's objects the protocol holds for the driver (exported, linked, mirrored, watched) are released at the
    process's end where plain pytest's process frees them (``_released_with_the_modules``), after every atexit
    callback: the release is handed over by the first one registered (atexit runs the last registered first). Open:
    the order within the release (the protocol's, not the test module's containers'). Returns the dict it reads."""
    import atexit
    held: dict = {"peer": None, "served": False}
    atexit.register(_released_with_the_modules, sys.modules, held)
    return held


def main() -> None:
    req_fd, audit_fd = int(sys.argv[1]), int(sys.argv[2])
    held_for_the_driver = _release_at_the_end()
    if len(sys.argv) > 3:  # the directory the driver starts it in (``posix_spawn`` has no chdir: testrun BOUND_AT_LOAD_RULE)
        os.chdir(sys.argv[3])
    streams = (sys.stdin, sys.stdout, sys.stderr)  # (the interpreter's, as pytest's capture saves them at its start)
    _started_state()
    held = _held_libc()
    import faulthandler  # on, as pytest's faulthandler plugin has it in the process plain pytest runs the tree in
    faulthandler.enable(file=2)  # (the tree's ``disable`` is then a change: harness.judge.subject_rpc ``KERNEL_RULE``)
    import weakref  # its atexit hook, which pytest's process has (its first ``finalize`` registers it): the tree's first
    weakref.finalize(weakref.finalize, int).detach()  # ``TemporaryDirectory`` is no atexit callback of its own then
    sources = _interpreter_registries()
    exempt: dict = {}
    truncated: list = [None]
    _install_audit(audit_fd, exempt, truncated)
    rpc = _load_protocol(sources, exempt)
    # (the protocol's own namespace holds it too, in no module of ``sys.modules``: a tree that clears atexit's callbacks
    # or ``__main__``'s namespace still finds the protocol holding its objects until the interpreter's last collection,
    # as plain pytest's test module does; red teams atk18, atk21)
    vars(rpc)["_HELD_FOR_THE_DRIVER"] = held_for_the_driver
    rpc.import_record()  # what the import system puts in sys.modules, known from here on (``ProcState._foreign_modules``)
    rpc.watch_abc_registrations()  # ``ABCMeta.register`` at its source (``CENSUS_RULE``)
    rpc.capture_identities()  # the interpreter's classes, by identity, while no code of the tree has run
    peer = rpc.Peer(req_fd, "subject")
    held_for_the_driver["peer"] = peer  # (released with the modules once served: ``_released_with_the_modules``)
    truncated[0] = _truncation_fault(peer.pending)
    peer.cross, peer.crossing_file = rpc.crossing()
    peer.ps = rpc.ProcState("subject", peer)  # the driver's environment, directory, argv, umask, log levels: at every message
    rpc.relay_logs(peer.ps)  # each record to the driver's logger it was logged on (LOG_TREE_RULE)
    try:
        init = peer._recv()  # the driver starts this process early and sends this on first use
    except rpc.Closed:
        sys.exit(0)  # the run never needed the tree (a collection error): nothing was imported
    pre = init.get("pre", [])
    # the installed modules the test imports, imported and captured before the tree is on the path; and
    # pytest's outcomes always: a tree's own suite run in here raises pytest.fail/skip's classes, which
    # must cross as pytest's (a test catching pytest.fail.Exception), never as classes of the tree
    rpc.capture_identities(["_pytest.outcomes", *[m for m in pre if isinstance(m, str)]])
    sys.path[:] = [p for p in init.get("path", []) if isinstance(p, str)]
    del sys.modules["_hx_rpc"]  # nothing for the code under test to import by name
    peer.capture = rpc._capture()
    peer.sched = rpc.Schedule(held)  # the tree's threads never run while the driver runs the test
    if peer.sched.io is not None:
        exempt.update({id(code): code for code in rpc._HeldIO.codes()})
    exempt[id(rpc._dict_cells.__code__)] = rpc._dict_cells.__code__  # (the class stamps' version reads: ``_class_marks``)
    exempt.update({id(code): code for code in rpc.traversal_codes()})  # (what a drop frees: ``_finalizes``)
    rpc.watch_library_classes()  # the interpreter's classes as they are before the first request (``CENSUS_RULE``)
    rpc.watch_library_modules()  # the interpreter's modules' namespaces before the first request
    peer.serve_forever()
    _pytest_session_end(peer, rpc, streams)
    held_for_the_driver["served"] = True
    del peer
    sys.exit(0)  # as a plain pytest process ends: its threads joined, the tree's atexit handlers run, then the release


if __name__ == "__main__":
    main()
