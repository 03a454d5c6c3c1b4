"""The subject of a judged run: a fresh interpreter that imports the code under test and answers the
driver's requests (harness.judge.subject_rpc). Standard library only.

Started by the driver as ``python -I <this file> REQ_FD AUDIT_FD`` with a minimal environment and no
other descriptor: it never holds the run's nonce, the observation channel, the plan or a path the
harness keeps secret. Before anything else, and before any workspace import, it installs a Python
audit hook (``sys.addaudithook``; it cannot be removed) that writes, at once and straight to
AUDIT_FD (a pipe only the driver reads), every event by which code in this process could reach
another frame, the interpreter's objects or its own descriptors: frame and trace access
(``sys._getframe``, ``sys._current_frames``, ``sys.settrace``, ``sys.setprofile``), ``gc``
traversal, ``ctypes`` calls, writes of a function's ``__code__``/defaults, new code objects, and
opens or listings under ``/proc`` and ``/dev/fd``. The driver reports each as verdictSubversion
evidence, and a stream that ends or stops answering its per-test heartbeat (``hx.sync``) as
tampering (README.md, "The judge": the residual limit).
"""
import os
import sys

AUDIT_REDIRECTED = 87  # the subject's exit status when its audit descriptor no longer leads to the driver's pipe


def _install_audit(fd: int) -> None:
    """Install the audit hook (see the module docstring). The hook runs no method of an event's
    arguments (a str subclass's ``startswith``, a ``__class__`` property: code the tree would run
    inside the hook, where nothing is reported) and looks up no module attribute when it runs
    (``json.dumps`` reads ``json._default_encoder``, which the tree can replace): every line is
    built by the C string encoder bound here. Before each write it checks that ``fd`` still leads
    to the pipe it was given; a tree that dup2'ed something over it (keeping the pipe under another
    number to answer heartbeats itself) ends the subject with ``AUDIT_REDIRECTED``."""
    import sysconfig
    from _json import encode_basestring_ascii as quote
    paths = sysconfig.get_paths()
    trusted = tuple(sorted({os.path.realpath(paths[k]) + "/" for k in ("stdlib", "platstdlib", "purelib", "platlib")
                            if paths.get(k)}))
    always = frozenset({"gc.get_objects", "gc.get_referrers", "gc.get_referents", "sys._current_frames"})
    tracing = frozenset({"sys.settrace", "sys.setprofile"})
    by_caller = frozenset({"sys._getframe", "code.__new__", "function.__new__"})
    code_attrs = frozenset({"__code__", "__defaults__", "__kwdefaults__", "__globals__", "__closure__"})
    frame_attrs = frozenset({"tb_frame", "gi_frame", "cr_frame", "ag_frame", "f_back"})
    state = {"busy": False, "sent": 0, "seen": set()}
    st = os.fstat(fd)
    pipe = (st.st_dev, st.st_ino)

    def text(x, _type=type, _issubclass=issubclass, _str=str, _bytes=bytes):
        """x as an exact str (None unless x is a str or bytes), through the base types' own methods."""
        t = _type(x)
        if _issubclass(t, _bytes):
            return _bytes.decode(x, "utf-8", "replace")
        return _str.__str__(x) if _issubclass(t, _str) else None

    def untrusted_caller(getframe, _text=text, _startswith=str.startswith) -> bool:
        try:
            f = getframe(2)
        except ValueError:
            return False
        name = _text(f.f_code.co_filename) or ""
        return not (_startswith(name, trusted) or _startswith(name, "<frozen"))

    def write(line, _write=os.write, _fstat=os.fstat, _exit=os._exit, _encode=str.encode) -> None:
        try:
            s = _fstat(fd)
            ours = (s.st_dev, s.st_ino) == pipe
        except OSError:
            ours = False
        if not ours:
            _exit(AUDIT_REDIRECTED)
        try:
            _write(fd, _encode(line + "\n"))
        except OSError:
            pass

    def hook(event, args, _state=state, _getframe=sys._getframe, _text=text, _type=type, _int=int, _len=len,
             _quote=quote, _startswith=str.startswith):
        if _state["busy"]:
            return
        _state["busy"] = True
        try:
            if event == "hx.sync":
                if _len(args) == 1 and _type(args[0]) is _int:
                    write('{"sync":%d}' % args[0])
                return
            what = None
            if event in always:
                what = event
            elif event in by_caller or _startswith(event, "ctypes."):
                if untrusted_caller(_getframe):
                    what = event
            elif event in tracing:  # doctest saves and restores "no tracer" (None): only a real tracer counts
                if (args and args[0] is not None) or untrusted_caller(_getframe):
                    what = event
            elif event == "object.__setattr__" and _len(args) > 1 and _text(args[1]) in code_attrs:
                # namedtuple sets __new__.__defaults__: a default or closure written by the interpreter's
                # own code is not evidence; a swapped __code__ always is
                name = _text(args[1])
                if name == "__code__" or untrusted_caller(_getframe):
                    what = f"{event} {name}"
            elif event == "object.__getattr__" and _len(args) > 1 and _text(args[1]) in frame_attrs:
                if untrusted_caller(_getframe):
                    what = f"{event} {_text(args[1])}"
            elif event in ("open", "os.listdir", "os.scandir") and args:
                p = _text(args[0])
                if p is not None and (_startswith(p, "/proc/") or _startswith(p, "/dev/fd")) and \
                        not _startswith(p, ("/proc/cpuinfo", "/proc/meminfo", "/proc/sys/")):
                    what = f"{event} {p[:120]}"
            if what is not None and what not in _state["seen"] and _state["sent"] < 200:
                _state["seen"].add(what)
                _state["sent"] += 1
                write('{"ev":' + _quote(what) + "}")
        finally:
            _state["busy"] = False

    sys.addaudithook(hook)


def main() -> None:
    req_fd, audit_fd = int(sys.argv[1]), int(sys.argv[2])
    _install_audit(audit_fd)
    import importlib.util
    here = os.path.dirname(os.path.abspath(__file__))
    spec = importlib.util.spec_from_file_location("_hx_rpc", os.path.join(here, "_hx_rpc.py"))
    if spec is None or spec.loader is None:
        raise SystemExit("the subject's protocol module is missing")
    rpc = importlib.util.module_from_spec(spec)
    sys.modules["_hx_rpc"] = rpc
    spec.loader.exec_module(rpc)
    peer = rpc.Peer(req_fd, "subject")
    init = peer._recv()
    sys.path[:] = [p for p in init.get("path", []) if isinstance(p, str)]
    sys.argv = [init.get("argv0", "")]
    del sys.modules["_hx_rpc"]  # nothing for the code under test to import by name
    peer.capture = rpc._capture()
    peer.serve_forever()
    sys.exit(0)  # as a plain pytest process ends: the tree's atexit handlers run


if __name__ == "__main__":
    main()
