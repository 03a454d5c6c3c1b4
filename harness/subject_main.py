"""The subject of a judged run: a fresh interpreter that imports the code under test and answers the
driver's requests (harness/subject_rpc.py). Standard library only.

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


def _install_audit(fd: int) -> None:
    import json
    import sysconfig
    paths = sysconfig.get_paths()
    trusted = tuple(sorted({os.path.realpath(paths[k]) + "/" for k in ("stdlib", "platstdlib", "purelib", "platlib")
                            if paths.get(k)}))
    always = frozenset({"gc.get_objects", "gc.get_referrers", "gc.get_referents", "sys._current_frames"})
    tracing = frozenset({"sys.settrace", "sys.setprofile"})
    by_caller = frozenset({"sys._getframe", "code.__new__", "function.__new__"})
    code_attrs = frozenset({"__code__", "__defaults__", "__kwdefaults__", "__globals__", "__closure__"})
    frame_attrs = frozenset({"tb_frame", "gi_frame", "cr_frame", "ag_frame", "f_back"})
    state = {"busy": False, "sent": 0, "seen": set()}

    def untrusted_caller(getframe) -> bool:
        try:
            f = getframe(2)
        except ValueError:
            return False
        name = f.f_code.co_filename
        return not (name.startswith(trusted) or name.startswith("<frozen"))

    def write(obj, _write=os.write, _dumps=json.dumps) -> None:
        try:
            _write(fd, (_dumps(obj) + "\n").encode())
        except OSError:
            pass

    def hook(event, args, _state=state, _getframe=sys._getframe, _str=str, _isinstance=isinstance):
        if _state["busy"]:
            return
        _state["busy"] = True
        try:
            if event == "hx.sync":
                write({"sync": args[0]})
                return
            what = None
            if event in always:
                what = event
            elif event in by_caller or event.startswith("ctypes."):
                if untrusted_caller(_getframe):
                    what = event
            elif event in tracing:  # doctest saves and restores "no tracer" (None): only a real tracer counts
                if (args and args[0] is not None) or untrusted_caller(_getframe):
                    what = event
            elif event == "object.__setattr__" and len(args) > 1 and args[1] in code_attrs:
                # namedtuple sets __new__.__defaults__: a default or closure written by the interpreter's
                # own code is not evidence; a swapped __code__ always is
                if args[1] == "__code__" or untrusted_caller(_getframe):
                    what = f"{event} {args[1]}"
            elif event == "object.__getattr__" and len(args) > 1 and args[1] in frame_attrs:
                if untrusted_caller(_getframe):
                    what = f"{event} {args[1]}"
            elif event in ("open", "os.listdir", "os.scandir") and args:
                p = args[0]
                p = p.decode(errors="replace") if _isinstance(p, bytes) else p
                if _isinstance(p, _str) and (p.startswith("/proc/") or p.startswith("/dev/fd")) and \
                        not p.startswith(("/proc/cpuinfo", "/proc/meminfo", "/proc/sys/")):
                    what = f"{event} {p[:120]}"
            if what is not None and what not in _state["seen"] and _state["sent"] < 200:
                _state["seen"].add(what)
                _state["sent"] += 1
                write({"ev": what})
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
