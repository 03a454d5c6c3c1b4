"""The probe runtime: the only harness code inside a judged test run (standard library only).

harness.judge.testrun writes this file (and its bytecode) into the run's private result directory
under a fresh random module name; ``_OUT`` (the observation channel: a write-only FIFO the harness
drains while the run lives, harness.judge.obschannel) comes from the driver's environment
(``HX_OBS_PATH``, removed at import like the nonce), so the file's bytes are the same in every run
and are compiled once per harness process, not once per run. The probe module (harness.judge.probes)
imports it as ``_hx`` and registers itself (``_bind``) before it imports any code under test. It
records raw observations, one JSON object per line, and decides nothing: no expected value is
ever in this process. The judge (harness.judge.judge) is the only place a verdict is formed.

Lines: ``{"k": "enter", "t": test, "c": [case indices]}``, ``{"k": "leave"}``,
``{"k": "obs", "s": site, "v": [leaf...]}`` where a leaf is ``["v", value]`` or
``["e", exception class, message]``, ``{"k": "raises", "s": site, "e": null | {...}}``,
``{"k": "warns", "s": site, "w": [[class names]...], "m": [message...]}``, ``{"k": "fault", "what": reason}``
(a request or reply one side could not send or read, the subject gone, or the subject's state changed
while the test ran, harness.judge.subject_rpc ``Peer._moved``: the test fails) and ``{"k": "tamper", "what": ...}``
(the runtime's own checks found one of its globals rebound, the probe's ``_hx`` rebound, a call
that did not come from the probe module, or pytest's runner replaced; or the subject's audit
hook reported frame, trace, gc, ctypes, code-object or /proc access). Since issue 21 code under
test never runs in this process: this is the *driver* (see the section at the end of this file);
the tree runs in the *subject* (harness.judge.subject_main) and is reached through proxies
(harness.judge.subject_rpc). docs/explanation/judge-design.md says what this closes and the residual limit.

Values are encoded by their *real* type, never through methods the code under test can
override: a subclass of int, float, str, bytes, list, tuple, dict or set is encoded by its
underlying built-in value (an object whose ``__eq__`` always returns True is not equal to
anything once encoded), as are subclasses of Decimal, Fraction and the datetime types (through
the base class's methods); other numbers (numpy scalars) by the numbers ABCs, other Mappings as
dicts, a numpy 0-d array by its element, ints past 10,000 bits as hex text; any other object by
its type, repr, truth value, length and str, which the judge never finds equal to anything (harness.judge.judge ``Opaque``).
The stand-in of a subject's value is observed as the subject says it is now (harness.judge.subject_rpc
``observation``): opaque, or its base value now with the names the tree's classes answer (``"tv"``: the
judge's copy raises on each, ``tree_value``). ``math.nan`` is marked as such (the judge's own).
"""
import fcntl as _fcntl
import json as _json
import numbers as _numbers
import os as _os
import stat as _stat
import sys as _sys
from collections.abc import Mapping as _Mapping
from operator import index as _index

_OUT = _os.environ.pop("HX_OBS_PATH", None)  # the observation channel: a FIFO the harness reads while the run lives
_MAX_STR = 1 << 20
_MAX_NODES = 200000

_type, _isinstance, _issubclass, _len, _repr, _str, _bool = type, isinstance, issubclass, len, repr, str, bool
_vars = vars
_NAN = __import__("math").nan  # math.nan, bound before any code of the tree
_int, _float, _bytes, _list, _tuple, _dict, _set, _frozenset = int, float, bytes, list, tuple, dict, set, frozenset
_dumps = _json.dumps


def _c_dumps():
    """json.dumps(obj, separators=(",", ":")) through CPython's C encoder, built once here: the
    pure-Python path looks up json.JSONEncoder (and its methods) at every call, so code under test
    that patched them would rewrite every record (harness.judge.judge never sees the difference)."""
    try:
        from _json import encode_basestring_ascii, make_encoder
    except ImportError:  # no C accelerator: the pure-Python encoder (patchable, as docs/explanation/judge-design.md says)
        return _json.dumps

    def nodefault(o):
        raise TypeError(f"not JSON: {type(o).__name__}")

    encode = make_encoder(None, nodefault, encode_basestring_ascii, None, ":", ",", False, False, True)
    return lambda obj, separators=None, _encode=encode, _join="".join: _join(_encode(obj, 0))


_dumps = _c_dumps()
_write, _open = _os.write, _os.open
_getframe = _sys._getframe
_ModuleType = type(_sys)  # (bound before the judge watches the modules: subject_rpc ``StdlibPatches``)


def _channel(path):
    """The write end of the harness's FIFO (opened before any code under test is imported)."""
    fd = _open(path, _os.O_WRONLY | _os.O_NONBLOCK | getattr(_os, "O_CLOEXEC", 0))  # ENXIO: no harness reading
    if not _stat.S_ISFIFO(_os.fstat(fd).st_mode):
        _os.close(fd)
        raise RuntimeError("the probe's observation channel is not the harness's pipe")
    _fcntl.fcntl(fd, _fcntl.F_SETFL, _fcntl.fcntl(fd, _fcntl.F_GETFL) & ~_os.O_NONBLOCK)
    return fd


_fd = _channel(_OUT) if _OUT else None
# Which FIFO the descriptor leads to: code under test that points the descriptor elsewhere (dup2
# onto a pipe it reads, forwarding the records it likes) is seen at the next write (_emit).
_FIFO = (lambda st: (st.st_dev, st.st_ino))(_os.fstat(_fd)) if _fd is not None else None
# Every record starts with this run's nonce (given in the environment, removed before any code under
# test is imported): a record without it was written by something else, which the judge reports.
# It proves nothing against code in this process, which can read it (docs/explanation/judge-design.md).
_NONCE = _os.environ.pop("HX_OBS_NONCE", "").encode()
# What the runtime's functions use is bound when they are defined (default arguments), never
# looked up in this module's globals when they run: rebinding ``_hx_probe_*._dumps`` or any other
# global changes nothing, and _guard reports it.
_STATE: dict = {"probe": None, "self": None, "snapshot": (), "reported": set()}


def _emit(obj, _fd=_fd, _write=_write, _dumps=_dumps, _nonce=_NONCE, _fstat=_os.fstat, _fifo=_FIFO,
          _open=_open, _close=_os.close, _exit=_os._exit, _out=_OUT,
          _flags=_os.O_WRONLY | _os.O_NONBLOCK | getattr(_os, "O_CLOEXEC", 0)):
    if _fd is None:
        return
    data = _nonce + (_dumps(obj, separators=(",", ":")) + "\n").encode("utf-8", "surrogatepass")
    try:
        st = _fstat(_fd)
        ours = (st.st_dev, st.st_ino) == _fifo
    except OSError:
        ours = False
    if not ours:  # the descriptor no longer leads to the harness's FIFO: say so through its path, stop
        try:
            fd = _open(_out, _flags)
            st = _fstat(fd)
            if (st.st_dev, st.st_ino) == _fifo:
                _write(fd, _nonce + b'{"k":"tamper","what":["the observation channel\'s descriptor was redirected"]}\n')
            _close(fd)
        except OSError:
            pass
        _exit(86)  # nothing after this point reaches the judge; the unfinished tests fail
    while data:
        data = data[_write(_fd, data):]


def _guard(_state=_STATE, _getframe=_getframe, _emit=_emit, _sorted=sorted):
    """Report (never hide) tampering with the runtime seen from a public function's call: a module
    global rebound since import, the probe module's ``_hx`` no longer this module, or a call that
    does not come from the probe module (a wrapper standing between the probe and the runtime)."""
    bad = []
    g = _state["globals"]
    bad += [f"{n} rebound" for n, v in _state["snapshot"] if g.get(n, _state) is not v]
    probe = _state["probe"]
    if probe is not None:
        if probe.get("_hx") is not _state["self"]:
            bad.append("the probe's _hx rebound")
        caller = _getframe(2).f_globals
        if caller is not probe and caller is not g:
            bad.append(f"called from {str(caller.get('__name__'))[:60]}, not the probe")
    new = [b for b in bad if b not in _state["reported"]]
    if new:
        _state["reported"].update(new)
        _emit({"k": "tamper", "what": _sorted(new)[:20]})


def _bind(probe_globals, _state=_STATE, _emit=_emit):
    """The probe module registers itself right after importing the runtime (once: a second call is
    something else claiming to be the probe)."""
    if _state["probe"] is not None:
        _emit({"k": "tamper", "what": ["the probe runtime was bound twice"]})
        return
    _state["probe"] = probe_globals


def _name(cls):
    """A class's qualified name as the judge reads it. A stand-in the subject marked as the tree's
    class (``_hx_tree``: not one of the interpreter's classes by identity, harness.judge.subject_rpc
    ``trusted_name``) is named ``<tree> module.qualname``: never the name of the class it claims to be."""
    try:
        name = f"{type.__getattribute__(cls, '__module__')}.{type.__getattribute__(cls, '__qualname__')}"
        return "<tree> " + name if type.__getattribute__(cls, "__dict__").get("_hx_tree") is True else name
    except Exception:  # noqa: BLE001 - a class without a name is still a class
        return "?"


def _safe(fn, *args):
    try:
        out = fn(*args)
        return out if _type(out) is str else None
    except BaseException:  # noqa: BLE001 - whatever the object's method does, the probe goes on
        return None


class _Budget:
    def __init__(self):
        self.n = 0


def _enc(x, budget, depth=0):
    """JSON-encodable tagged value (see the module docstring)."""
    budget.n += 1
    if budget.n > _MAX_NODES or depth > 40:
        return {"t": "big"}
    t = _type(x)
    if x is None or t is bool:
        return x
    if x is ...:  # the interpreter's one Ellipsis, the judge's own (``f() is ...``; subject_rpc ``SINGLETONS_RULE``)
        return {"t": "E"}
    seen = _rpc.observation(x) if _rpc is not None else None
    if seen is not None:  # the stand-in of a subject's value: observed as the subject says it is now
        if seen is _rpc._OPAQUE:  # a tree object whose own methods answer: never its base value
            return _opaque(x, _name(t))
        base, names = seen  # its base value now (never the stand-in's copy) and the names the tree answers
        inner = _enc(base, budget, depth + 1)
        return {"t": "tv", "v": inner, "n": names, "type": _name(t)} if names else inner
    if _isinstance(x, int):
        v = int.__int__(x)
        # past 4300 decimal digits int -> str raises (sys.set_int_max_str_digits); hex has no limit
        return v if v.bit_length() < 10000 else {"t": "I", "v": int.__format__(v, "x")}
    if _isinstance(x, float):
        v = float.__float__(x)
        if v is _NAN:  # math.nan: the judge's own (``x in [math.nan]`` matches it by identity, as plain pytest's)
            return {"t": "f", "v": "nan", "m": True}
        return v if v == v and v not in (float("inf"), float("-inf")) else {"t": "f", "v": _repr(v)}
    if _isinstance(x, str):
        s = str.__str__(x)
        return s if _len(s) <= _MAX_STR else {"t": "big"}
    if _isinstance(x, (bytes, bytearray)):
        import base64
        b = bytes(memoryview(x))
        return {"t": "b", "v": base64.b64encode(b).decode()} if _len(b) <= _MAX_STR else {"t": "big"}
    if _isinstance(x, list):
        return [_enc(v, budget, depth + 1) for v in list.__iter__(x)]
    if _isinstance(x, tuple):
        return {"t": "tu", "v": [_enc(v, budget, depth + 1) for v in tuple.__iter__(x)]}
    if _isinstance(x, dict):
        return {"t": "d", "v": [[_enc(k, budget, depth + 1), _enc(v, budget, depth + 1)] for k, v in dict.items(x)]}
    if _isinstance(x, frozenset):
        return {"t": "fs", "v": [_enc(v, budget, depth + 1) for v in frozenset.__iter__(x)]}
    if _isinstance(x, set):
        return {"t": "s", "v": [_enc(v, budget, depth + 1) for v in set.__iter__(x)]}
    name = _name(t)
    mod = getattr(t, "__module__", "")
    # value types by their real class, subclasses included (pandas.Timestamp is a datetime), read
    # through the base class's own methods
    dec = _sys.modules.get("decimal")
    if dec is not None and _isinstance(x, dec.Decimal):
        return {"t": "dec", "v": _safe(dec.Decimal.__str__, x) or "NaN"}
    frac = _sys.modules.get("fractions")
    if frac is not None and _isinstance(x, frac.Fraction):
        own = type.__dict__["__dict__"].__get__(frac.Fraction)  # its own slots: never a subclass's property
        return {"t": "fr", "v": [_enc(own["_numerator"].__get__(x), budget), _enc(own["_denominator"].__get__(x), budget)]}
    dt = _sys.modules.get("datetime")
    if dt is not None:
        for cls, tag in ((dt.datetime, "datetime"), (dt.date, "date"), (dt.time, "time")):
            if _isinstance(x, cls):
                return {"t": tag, "v": _safe(cls.isoformat, x)}
        if _isinstance(x, dt.timedelta):
            return {"t": "td", "v": [dt.timedelta.days.__get__(x), dt.timedelta.seconds.__get__(x),
                                     dt.timedelta.microseconds.__get__(x)]}
    if name.startswith("<tree> "):  # any other object of a tree class: opaque, whatever the class calls itself
        return _opaque(x, name)  # (a stand-in the subject sent as its base value was encoded above)
    if name == "builtins.complex":
        return {"t": "c", "v": [x.real, x.imag]}
    if name == "builtins.range":
        return {"t": "r", "v": [x.start, x.stop, x.step]}
    if name in ("builtins.dict_keys", "builtins.dict_values", "builtins.dict_items"):
        return [_enc(v, budget, depth + 1) for v in x]
    if mod in ("pathlib",) and name.rsplit(".", 1)[-1] in ("PosixPath", "PurePosixPath", "Path", "PurePath"):
        return {"t": "path", "v": _safe(t.__fspath__, x)}
    if t is type or _isinstance(x, type):
        return {"t": "type", "v": _name(x)}
    # a numpy 0-d array (np.where on scalars) compares as its one element does (np.array(1) == 1);
    # exact ndarray only, read through numpy's own methods
    np = _sys.modules.get("numpy")
    if np is not None and t is np.ndarray and np.ndarray.ndim.__get__(x) == 0:
        return _enc(np.ndarray.item(x), budget, depth + 1)
    # other numbers and mappings by value, as == compares them (numpy.int64(6) == 6)
    if name in ("numpy.bool_", "numpy.bool"):
        return bool(x)
    if _isinstance(x, _numbers.Integral):
        return _enc(_index(x), budget, depth + 1)
    if _isinstance(x, _numbers.Real):
        return _enc(_float(x), budget, depth + 1)
    if _isinstance(x, _numbers.Complex):
        return _enc(complex(x), budget, depth + 1)
    if _isinstance(x, _Mapping):
        return {"t": "d", "v": [[_enc(k, budget, depth + 1), _enc(v, budget, depth + 1)] for k, v in _list(x.items())]}
    return _opaque(x, name)


def _opaque(x, name):
    """Any other object: its type, repr, truth value, length and str (the judge's ``Opaque``)."""
    out = {"t": "o", "type": name, "repr": (_safe(_repr, x) or "?")[:4000]}
    try:
        out["truthy"] = _bool(x)
    except BaseException:  # noqa: BLE001
        pass
    try:
        n = _len(x)
        if _type(n) is int:
            out["len"] = n
    except BaseException:  # noqa: BLE001
        pass
    s = _safe(_str, x)
    if s is not None:
        out["str"] = s[:_MAX_STR]
    return out


def _encode(x, _enc=_enc, _Budget=_Budget):
    try:
        return _enc(x, _Budget())
    except BaseException as exc:  # noqa: BLE001 - an unencodable value is a failure the judge reports
        return {"t": "o", "type": "?", "repr": f"<unencodable: {_name(_type(exc))}>"}


def enter(test, cases, _guard=_guard, _emit=_emit, _type=_type):
    _guard()
    _emit({"k": "enter", "t": test, "c": [c.i if _type(c) is Case else -1 for c in cases]})
    _DRIVER["in_test"] = True


def leave(_guard=_guard, _emit=_emit):
    _DRIVER["in_test"] = False
    _guard()
    _integrity()
    for where in _rpc.stand_in_writes(_DRIVER["peer"]):  # (subject_rpc ``STAND_IN_PATHS_RULE``)
        _on_fault(f"the test wrote {where}, the tree's, through its stand-in by a path that reaches the driver's copy "
                  "only (type.__setattr__/__delattr__ on a class, object.__setattr__ on an object; subject_rpc "
                  "STAND_IN_PATHS_RULE): failed closed")
    if _DRIVER["peer"] is not None:
        _audit_sync()  # the subject's audit events so far, proof its stream still answers, and the test's last
        # exchange: what the subject's state did since its last reply arrives with it (a fault if it changed)
    _emit({"k": "leave"})


def check(site, *leaves, _guard=_guard, _emit=_emit, _encode=_encode, _name=_name, _safe=_safe, _type=_type,
          _str=_str):
    _guard()
    out = []
    for thunk in leaves:
        try:
            out.append(["v", _encode(thunk())])
        except (KeyboardInterrupt, GeneratorExit):
            raise
        except BaseException as exc:  # noqa: BLE001 - the judge decides what a raised operand means
            out.append(["e", _name(_type(exc)), (_safe(_str, exc) or "")[:2000]])
    state = _rpc.eval_state() if _rpc is not None else None
    _emit({"k": "obs", "s": site, "v": out, "x": state} if state else {"k": "obs", "s": site, "v": out})


class _Info:
    """What ``pytest.raises(...) as info`` gives: the exception, its type and a match helper."""

    def __init__(self):
        self.value = None
        self.type = None
        self.tb = None

    @property
    def typename(self):
        return self.type.__name__ if self.type else None

    def match(self, regexp):
        """As pytest's ExceptionInfo.match (the message, then each PEP 678 note): True, or an
        AssertionError (the test does not complete)."""
        import re
        text = _match_text(self.value)
        if re.search(regexp, text) is None:
            raise AssertionError(f"Regex pattern did not match.\n Regex: {regexp!r}\n Input: {text!r}")
        return True


class raises:
    """Observe what the block raises (swallowed, as pytest.raises does; the judge decides)."""

    def __init__(self, site, local=()):
        self.site, self.local, self.info = site, _tuple(local), _Info()

    def __enter__(self):
        return self.info

    def __exit__(self, et, ev, tb, _guard=_guard, _emit=_emit):
        if et is not None and _issubclass(et, KeyboardInterrupt):
            return False
        _guard()
        if et is None:
            _emit({"k": "raises", "s": self.site, "e": None})
            return False
        local = None
        if self.local:
            try:
                local = _bool(_issubclass(et, self.local))
            except BaseException:  # noqa: BLE001
                local = False
        try:
            text, nj = _match_text(ev)[:_MAX_STR], None
        except _Unjoinable as exc:
            text, nj = _safe(_str, ev) or "", _str(exc)
        rec = {"mro": [_name(c) for c in type.__getattribute__(et, "__mro__")], "str": text, "local": local}
        _emit({"k": "raises", "s": self.site, "e": rec if nj is None else {**rec, "nj": nj}})
        self.info.value, self.info.type, self.info.tb = ev, et, tb
        return True


def _match_text(ev):
    """The text ``pytest.raises(match=...)`` and ``ExceptionInfo.match`` search (pytest >= 8): the message,
    then each PEP 678 note (an exception from the subject carries the notes it had there, ``dec_exc``).
    Read from the instance's own ``__dict__``: no attribute lookup that a class could answer."""
    text = _safe(_str, ev) or ""
    try:
        notes = dict.get(object.__getattribute__(ev, "__dict__"), "__notes__")
    except (AttributeError, TypeError):
        notes = None
    if _type(notes) not in (list, tuple):  # (subject_rpc ``_notes``: what crossed is a list of str, then a NonStrNote)
        return text
    for i, n in enumerate(notes, 1):
        if not _isinstance(n, str):  # (pytest's "\n".join raises so, in its match: ``_Unjoinable``)
            name = n.name if _rpc is not None and _type(n) is _rpc.NonStrNote else _type(n).__name__
            raise _Unjoinable(f"sequence item {i}: expected str instance, {name} found")
    return "\n".join([text, *notes])


class _Unjoinable(TypeError):
    """pytest's TypeError from joining an exception's notes for ``match``: raised by ``_Info.match``; a ``raises``
    record carries it as ``nj`` and the judge fails a ``match=`` on it (no match, no join: as plain pytest)."""


def raises_call(site, local, func, *args, _guard=_guard, **kwargs):
    _guard()
    with raises(site, local) as info:
        func(*args, **kwargs)
    return info


class warns:
    """Observe the warnings the block emits (every category's class names)."""

    def __init__(self, site, local=()):
        import warnings
        self.site, self.local = site, _tuple(local)
        self._cm = warnings.catch_warnings(record=True)

    def __enter__(self):
        import warnings
        self.record = self._cm.__enter__()
        warnings.simplefilter("always")
        return self.record

    def __exit__(self, et, ev, tb, _guard=_guard, _emit=_emit):
        self._cm.__exit__(et, ev, tb)
        _guard()
        got, messages = [], []
        for w in self.record:
            try:
                names = [_name(c) for c in type.__getattribute__(w.category, "__mro__")]
                if self.local:
                    names.append("<local>" if _issubclass(w.category, self.local) else "<other>")
                got.append(names)
            except BaseException:  # noqa: BLE001
                got.append(["?"])
            messages.append((_safe(_str, w.message) or "")[:_MAX_STR])  # what warns(match=...) searches
        _emit({"k": "warns", "s": self.site, "w": got, "m": messages})
        return False


def warns_call(site, local, func, *args, _guard=_guard, **kwargs):
    _guard()
    with warns(site, local):
        return func(*args, **kwargs)


class Case:
    """A parametrize case index (the judge holds the case's expected values)."""

    def __init__(self, i):
        self.i = i

    def __repr__(self):
        return f"case{self.i}"


def numbered(values, n):
    return [(v, Case(i)) for i, v in enumerate(values)]


def ids(fn):
    return lambda v: None if _type(v) is Case else fn(v)


def _integrity(_emit=_emit):
    """Best effort: report (never hide) a replaced pytest runner entry point (the runtime's own
    globals are _guard's)."""
    bad = []
    for modname, attr, orig in _PYTEST_ORIGINAL:
        mod = _sys.modules.get(modname)
        if mod is not None and getattr(mod, attr, None) is not orig:
            bad.append(f"{modname}.{attr}")
    if bad:
        _emit({"k": "tamper", "what": sorted(bad)[:20]})


_PYTEST_ORIGINAL = []
for _m, _a in (("_pytest.runner", "call_and_report"), ("_pytest.runner", "pytest_runtest_call"),
               ("_pytest.python", "pytest_pyfunc_call"), ("_pytest.runner", "runtestprotocol")):
    _mod = _sys.modules.get(_m)
    if _mod is not None and hasattr(_mod, _a):
        _PYTEST_ORIGINAL.append((_m, _a, getattr(_mod, _a)))
_STATE.update(globals=globals(), self=_sys.modules.get(__name__),
              snapshot=tuple((n, v) for n, v in globals().items() if not n.startswith("__")))


# -- the driver: this process runs the probe and never the code under test ------------------------
# harness.judge.testrun starts a judged run as ``python -I _hx_driver.py PYTEST-ARGS``; that script
# loads harness.judge.subject_rpc as ``_hx_rpc`` and this module, then runs pytest. From here on no
# module of the tree is executed in this process: an import of one returns a proxy module whose
# attributes and calls are requests to the *subject* (harness.judge.subject_main), a fresh interpreter
# started before pytest (given its import path on first use, with the working directory and environment as the
# test has them then: testrun ``STARTED_STATE_RULE``) with nothing but its own request/response pair and audit pipe.
_rpc = _sys.modules.get("_hx_rpc")
_DRIVER: dict = {"peer": None, "spawned": None, "inherited": None, "proc": None, "audit": None, "heartbeat": 0, "start": None,
                 "abuf": b"", "allowed": set(), "in_test": False, "main": None, "sleep": None,
                 "res": _os.path.dirname(_os.path.abspath(__file__))}


def _not_dumpable():
    """PR_SET_DUMPABLE 0: the subject (same user) can neither ptrace this process nor read its
    /proc/PID/mem, environ or fd entries. Set before the subject runs any code of the tree (it is
    started earlier, by the driver script, and runs only its own start-up until ``_subject``'s
    first message, which follows this)."""
    import ctypes
    ctypes.CDLL(None, use_errno=True).prctl(4, 0, 0, 0, 0)


# The variables of the driver's environment the subject is started with (harness.judge.testrun ``SUBJECT_ENV``
# gives the driver script the same, for the subject it starts before this runtime loads).
SUBJECT_ENV = ("PATH", "HOME", "TMPDIR", "LANG", "LC_ALL", "TZ", "PYTHONHASHSEED", "PYTHONDONTWRITEBYTECODE",
               "PYTHONNOUSERSITE", "PWD")


def _subject_env(_env=_os.environ, _keep=SUBJECT_ENV):
    return {k: _env[k] for k in _keep if k in _env}


def _is_res(p, _stat=_os.stat, _type=_type, _str=_str, _err=(OSError, ValueError)):
    """Whether the ``sys.path`` entry ``p`` is the run's result directory (the harness's own files, never the
    subject's path): by device and inode through ``posix.stat`` bound at load (harness.judge.testrun
    ``BOUND_AT_LOAD_RULE``: ``os.path.realpath`` looks up ``os.lstat``, ``os.readlink`` and ``os.getcwd`` when it
    runs, which the test may have patched)."""
    if _type(p) is not _str or not p:
        return False
    try:
        a, b = _stat(p), _stat(_DRIVER["res"])
    except _err:
        return False
    return (a.st_dev, a.st_ino) == (b.st_dev, b.st_ino)


def _spawn_subject(started=None):
    """Take a started subject (``started``: the one the driver script starts before it loads the protocol and this
    runtime, harness.judge.testrun ``DRIVER_SCRIPT``; else one started now by the script's ``_start_subject``, kept
    in ``_DRIVER["start"]``, with the directory and environment the driver has now) as the driver's: its start-up
    (interpreter, audit hook, protocol) runs while pytest starts and collects here. It then waits for its first
    message, which ``_subject`` sends on first use, with the import path as pytest left it by then. The subject is
    started with nothing but its own connection, audit pipe and output files (``close_fds``), the variables of
    ``SUBJECT_ENV`` and stdin from /dev/null; its descriptors 1 and 2 are files the driver relays
    (``_relay_outputs``: a file, not a pipe, so a subject writing much never waits for the driver, which waits for
    it)."""
    if started is None:
        started = _DRIVER["start"](*_inherited())
    peer = _rpc.Peer(started["sock"].detach(), "driver")
    peer.on_msg, peer.on_fault = _on_msg, _on_fault
    peer.waits = _rpc.Waits(_in_test_main)  # the test's waits outside the judge's schedule (subject_rpc ``Waits``)
    peer.ps = _rpc.ProcState("driver", peer, skip=lambda p: not p or _is_res(p))  # (as ``_subject``'s path)
    _relay_outputs()  # an earlier subject's last words
    _DRIVER.update(spawned=peer, proc=started["proc"], audit=started["audit"], inherited=started["inherited"],
                   outs=started["outs"])
    if _DRIVER.get("started_env") is None:  # the early subject's: pytest's process starts under it (``_subject``)
        _DRIVER["started_env"] = started["inherited"][1]


def _relay_outputs(upto=None, _pread=_os.pread, _fstat=_os.fstat, _write=_os.write, _min=min, _err=OSError, _emit=_emit):
    """Write what the subject wrote to its descriptors 1 and 2 since the last relay to the driver's
    own (the files the driver script made, ``_spawn_subject``); ``upto``: (descriptor, size), that one only up to
    that size (``_write_outputs``). (Bound at load: testrun ``BOUND_AT_LOAD_RULE``.) What cannot be copied as plain
    pytest's one capture file would hold it is a fault (testrun ``OUTPUT_RELAY_RULE``): a file smaller than what was
    copied (shrunk, which its seal refuses), a write the driver's file refuses (past its size limit)."""
    for out in _DRIVER.get("outs") or ():
        f, off, target = out
        stop = upto[1] if upto is not None and upto[0] == target else None
        while stop is None or off < stop:
            try:
                data = _pread(f.fileno(), 1 << 20 if stop is None else _min(1 << 20, stop - off), off)
            except _err:
                break
            if not data:
                try:
                    if _fstat(f.fileno()).st_size < off:
                        _emit({"k": "fault", "what": f"the subject's descriptor {target} shrank below what the driver "
                               "copied of it (harness.judge.testrun OUTPUT_RELAY_RULE)"})
                except _err:
                    pass
                break
            off += _len(data)
            out[1] = off
            while data:
                try:
                    data = data[_write(target, data):]
                except _err as exc:
                    _emit({"k": "fault", "what": f"the test's descriptor {target} refused the tree's output ({exc}), "
                           "as plain pytest's capture file would have refused the tree (harness.judge.testrun "
                           "OUTPUT_RELAY_RULE)"[:300]})
                    data = None
            if data is None:
                out[1] = _fstat(f.fileno()).st_size  # (what is left is past the limit too: not copied, not faulted again)
                break


def _write_outputs(msg, _type=_type, _str=_str, _list=list, _emit=_emit):
    """The tree's output of one message, in the order plain pytest's capture file would hold it (testrun
    ``STREAMS_RULE``): each descriptor's output relayed up to the size it had at the tree's text that followed it, then
    that text, into this process's ``sys.stdout``/``sys.stderr`` as the test has them now."""
    for key, fd in (("o", 1), ("e", 2)):
        v = msg.get(key)
        if _type(v) is _str:
            _relay_outputs()
            _write_text(fd, v)
        elif _type(v) is _list:
            for part in v[:100_000]:
                if _type(part) is _list and _len(part) == 2 and _type(part[0]) is int and _type(part[1]) is _str:
                    _relay_outputs((fd, part[0]))
                    _write_text(fd, part[1])
    _relay_outputs()
    fns = msg.get("fn")
    for fd in fns if _type(fns) is _list else ():
        try:
            (_sys.stdout if fd == 1 else _sys.stderr).fileno()
        except Exception:  # noqa: BLE001 - capsys's CaptureIO, a test's StringIO: the tree's call would have raised
            _emit({"k": "fault", "what": f"the tree read its stream's descriptor (sys.{'stdout' if fd == 1 else 'stderr'}"
                   ".fileno()), which the test's stream has not: plain pytest's tree would have met its error "
                   "(harness.judge.testrun STREAMS_RULE)"})


def _write_text(fd, text, _emit=_emit, _type=_type, _str=_str):
    """``text`` into this process's stream of ``fd`` as the tree's bytes: text when it is UTF-8, else through the
    stream's binary file (flushed first); a stream without one, or one that refuses the write, is a fault."""
    stream = _sys.stdout if fd == 1 else _sys.stderr
    try:
        if text.isascii():
            stream.write(text)
            return
        try:
            text.encode("utf-8")
        except UnicodeEncodeError:  # the tree's bytes that are not UTF-8 (its stream's ``buffer``)
            buf = getattr(stream, "buffer", None)
            if buf is None:
                raise TypeError("the test's stream has no binary buffer for the tree's bytes") from None
            stream.flush()
            buf.write(text.encode("utf-8", "surrogateescape"))
            return
        stream.write(text)
    except Exception as exc:  # noqa: BLE001 - the test's stream refused it: plain pytest's tree would have met that
        _emit({"k": "fault", "what": f"the test's sys.{'stdout' if fd == 1 else 'stderr'} refused the tree's output "
               f"({_type(exc).__name__}: {_str(exc)[:80]}) (harness.judge.testrun STREAMS_RULE)"})


def _inherited(_getcwd=_os.getcwd):
    """What the subject takes from the driver when it is started: the working directory and the
    environment it is given (``_subject_env``). The directory is the process's real one, read through
    ``posix.getcwd`` bound at load (harness.judge.testrun ``BOUND_AT_LOAD_RULE``): under plain pytest the tree
    runs in the test's process, in the directory the test changed to (``monkeypatch.chdir``), whatever a
    patched ``os.getcwd`` says (that patch is the test's, and reaches the tree's own calls: subject_rpc
    ``StdlibPatches``)."""
    return _getcwd(), _subject_env()


def _discard_spawned():
    """End the early subject unused (it has imported nothing of the tree: it ends at the closed
    connection, harness.judge.subject_main)."""
    _end_subject(_DRIVER["proc"], _DRIVER["spawned"].fd, _DRIVER["audit"])
    _DRIVER.update(spawned=None, proc=None, audit=None)


def _end_subject(proc, *fds, timeout=5, _close=_os.close, _err=OSError):
    """Close ``fds`` (the subject's connection: it ends at EOF) and wait for ``proc``: killed past ``timeout`` seconds
    (True then), or, with None, for as long as it runs (the run's own time limit bounds it, as it bounds plain pytest's
    process); testrun ``_Subject``, bound at load as all of this: testrun ``BOUND_AT_LOAD_RULE``."""
    for fd in fds:
        try:
            _close(fd)
        except _err:
            pass
    if proc is None:
        return False
    try:
        proc.wait(timeout=timeout)
    except Exception:  # noqa: BLE001
        proc.kill()
        proc.wait()
        return True
    return False


def _subject():
    """The live subject: the spawned interpreter, given its import path on first use. The subject
    started early holds the driver's working directory and environment as they were before pytest
    started, as pytest's own process started under them (harness.judge.testrun ``STARTED_STATE_RULE``); a test
    that changed either before its first use of the tree (``monkeypatch.chdir``, ``monkeypatch.setenv("TZ", ...)``)
    keeps it: the first message carries the directory and environment as the test left them (subject_rpc
    ``ProcState``), as plain pytest's tree sees them in ``os.environ`` and ``getcwd``, never at the interpreter's
    start. One that already ended is replaced by one started in the real directory under that same start-up
    environment."""
    peer = _DRIVER["peer"]
    if peer is not None:
        return peer
    if _DRIVER["spawned"] is not None and _DRIVER["proc"].poll() is not None:
        _discard_spawned()  # one that already ended (no tree code has run in it: not the tree's doing)
    if _DRIVER["spawned"] is None:
        _spawn_subject(_DRIVER["start"](_inherited()[0], _DRIVER["started_env"]))
    peer = _DRIVER["spawned"]
    peer._send({"path": [p for p in _sys.path if p and not _is_res(p)], "argv0": "",
                "pre": _test_imports()})
    _DRIVER["peer"] = peer
    return peer


def _test_imports():
    """The installed or standard modules the probe imports (pytest's own aside): the subject imports
    them before the tree is on its path, so their classes are captured by identity as the interpreter's
    (harness.judge.subject_rpc ``capture_identities``), as the builtins are."""
    out = []
    for v in _list((_STATE["probe"] or {}).values()):
        mod = v if _isinstance(v, _ModuleType) else _sys.modules.get(getattr(v, "__module__", None) or "") \
            if _isinstance(v, type) else None
        if mod is None or _isinstance(mod, _rpc.ProxyModuleBase):
            continue
        name = getattr(mod, "__name__", "")
        spec = _vars(mod).get("__spec__") if _isinstance(mod, _ModuleType) else None
        if spec is None or getattr(spec, "name", None) != name or getattr(spec, "loader", None) is None:
            continue  # (a module the test made, a stub of ``sys.modules``: no import's, never imported in the subject)
        if _type(name) is str and name.partition(".")[0] not in ("pytest", "_pytest", "pluggy", "py", "iniconfig") \
                and not name.startswith("_hx") and name not in out and _rpc.trusted_file(getattr(mod, "__file__", None)):
            out.append(name)
    return out


def _on_msg(msg, _emit=_emit):
    """Output and warnings the subject's code produced, replayed here (capsys, capfd, pytest.warns)."""
    if "o" in msg or "e" in msg or "fn" in msg:
        _write_outputs(msg)
    else:
        _relay_outputs()  # (the tree wrote nothing to its streams)
    for w in msg.get("w") or ():
        import warnings
        try:
            cls = _DRIVER["peer"].class_for(w["c"])
            cls = cls if _isinstance(cls, type) and _issubclass(cls, Warning) else UserWarning
            filename, lineno = _str(w["f"]), _int(w["l"])
            if w.get("at") is True:  # warned at the subject's crossing frame (stacklevel): the probe's line,
                filename, lineno, registry = _probe_caller(True)  # from this process's own frames, never a name
                # the tree gave; its registry the test module's own, as ``warnings.warn`` there would take
            else:  # the tree's own line: one registry per file of the tree, as its module's ``__warningregistry__``
                registry = _TREE_WARNING_REGISTRIES.setdefault(filename, {}) if \
                    _len(_TREE_WARNING_REGISTRIES) < 10_000 else None
            warnings.warn_explicit(_str(w["m"]), cls, filename, lineno, registry=registry)
        except (KeyError, TypeError, ValueError, _rpc.RemoteError):
            pass
    _audit_drain(block=False)


def _on_fault(why, _emit=_emit, _str=_str, _type=_type):
    """A protocol fault (subject_rpc ``Peer._serve``: a reply one side could not encode): the test
    that made the request fails in the judge, whatever it does with the exception it gets here."""
    _emit({"k": "fault", "what": (why if _type(why) is _str else "a protocol fault")[:300]})


# WARNING_REGISTRY_RULE: a warning the tree's call emitted is replayed in the driver with the registry plain pytest's
# ``warnings.warn`` would have used, so "default" and "module" show it once per location as there: at the test's line
# (the crossing frame) the test module's own ``__warningregistry__``; at a line of the tree, one registry per file of
# the tree kept here (the tree's module's, which lives in the subject; the filters' version clears both as it clears
# every registry). Open: a tree that clears its own ``__warningregistry__`` (the subject's is not read).
_TREE_WARNING_REGISTRIES: dict = {}


def _probe_caller(registry=False):
    """The innermost frame outside the harness's own files: where the probe made the request (with ``registry``, also
    that frame's module's ``__warningregistry__``, made as ``warnings.warn`` makes it)."""
    f = _getframe(1)
    res = _DRIVER["res"]
    while f is not None and f.f_code.co_filename.startswith(res):
        f = f.f_back
    if not registry:
        return (f.f_code.co_filename, f.f_lineno) if f is not None else ("?", 0)
    if f is None:
        return "?", 0, None
    try:
        reg = f.f_globals.setdefault("__warningregistry__", {})
    except Exception:  # noqa: BLE001 - a module namespace the test replaced: no registry (as shown every time)
        reg = None
    return f.f_code.co_filename, f.f_lineno, reg if _type(reg) is dict else None


def _audit_drain(block, want=None, _emit=_emit):
    """Read the subject's audit pipe; report every event as tampering evidence. With ``want``,
    wait (bounded) for that heartbeat; a stream that ends or never answers is tampering."""
    import select
    fd = _DRIVER["audit"]
    if fd is None:
        return
    deadline = 10.0
    while True:
        if want is not None and _DRIVER.get("synced") == want:
            return
        r, _, _ = select.select([fd], [], [], deadline if block else 0)
        if not r:
            if block:
                _emit({"k": "tamper", "what": ["the subject's audit stream stopped answering"]})
            return
        chunk = _os.read(fd, 1 << 16)
        if not chunk:
            _emit({"k": "tamper", "what": ["the subject's audit stream was cut"]})
            _os.close(fd)
            _DRIVER["audit"] = None
            return
        _DRIVER["abuf"] += chunk
        *lines, _DRIVER["abuf"] = _DRIVER["abuf"].split(b"\n")
        for line in lines:
            try:
                ev = _json.loads(line)
            except ValueError:
                _emit({"k": "tamper", "what": ["the subject's audit stream holds a malformed line"]})
                continue
            if _type(ev) is dict and "ev" in ev:
                _emit({"k": "tamper", "what": [f"subject audit: {_str(ev['ev'])[:160]}"]})
            elif _type(ev) is dict and "sync" in ev:
                _DRIVER["synced"] = ev["sync"]


def _audit_sync():
    """A heartbeat through the subject's audit hook (each test's leave). Also the test's last exchange with
    the subject: a change of the subject's state since its last reply (a thread of the tree) is reported
    with the answer (harness.judge.subject_rpc ``Peer._moved``), a fault of this test."""
    peer = _DRIVER["peer"]
    if peer is None or _DRIVER["audit"] is None:
        if peer is not None:
            _emit({"k": "tamper", "what": ["the subject's audit stream was cut"]})
        return
    _DRIVER["heartbeat"] += 1
    try:
        peer.request("sync", _DRIVER["heartbeat"])
    except _rpc.Closed:
        return  # the subject is gone: the tests that needed it fail
    except _rpc.RemoteError:  # a reply the protocol refuses (a malformed write-back, not JSON): not "gone"
        _emit({"k": "tamper", "what": ["the subject's answer to the audit heartbeat broke the protocol"]})
        return
    _audit_drain(block=True, want=_DRIVER["heartbeat"])


def remote_module(name, *also):
    """A stdlib module that runs code it is given (doctest, inspect, importlib): the probe's
    binding of it is the subject's module, so examples, loaded suites and inspected functions run
    (and are looked at) where the code under test lives."""
    peer = _subject()
    for extra in also:
        try:
            peer.request("import", extra)
        except ImportError:
            pass  # ``from importlib import import_module``: an attribute, not a submodule
    hid, _ns = peer.request("import", name)
    return peer.proxy({"id": hid, "ty": "builtins.module", "c": False})


def _own_submodule(parent, name, value, _module=type(_sys), _isinstance=isinstance, _getattr=getattr):
    """Whether ``value`` is a module of the driver's own that the import system binds on the tree's package ``parent``
    as its submodule ``name``: the harness's test in a tree whose test directory is a package (``tests/__init__.py``;
    pytest imports the test as ``tests.test_x``). It stays in the driver: the subject would import it by its name, the
    probed test, whose runtime exists only in the driver (red team atk15: such a right tree failed judged)."""
    return (_isinstance(value, _module) and not _isinstance(value, _ProxyModule)
            and _getattr(value, "__name__", None) == f"{parent.__name__}.{name}")


_MODULE_TYPE = type(_sys)


class _ProxyModule(_rpc.ProxyModuleBase if _rpc else object):  # type: ignore[misc]
    """A module of the tree, as the driver sees it (``TREE_NAMESPACE_RULE``): its namespace as the subject's module
    holds it, set by the subject's messages alone (``Peer.set_namespace``); the test's writes are requests, a name it
    lacks (a module bound there, a container past the link bounds, a name of a module class) a ``getattr`` request."""

    def __getattribute__(self, name):
        value = _MODULE_TYPE.__getattribute__(self, name)  # (the module's own ``__getattr__`` hook too: PEP 562)
        peer = _DRIVER["peer"]
        if peer is not None and name == "__dict__" and _rpc.module_ref(self) is not None:
            peer.ns_dict_read = True  # (the test may hold it: every namespace link reached, ``unread_links``)
            peer.materialize(self)  # (``vars``, ``dir``, ``import *``, ``monkeypatch``: every binding there)
        if peer is not None and peer.ns_origin:  # (what the test reaches of the namespace: ``Peer.unread_links``)
            if name == "__dict__":
                for v in list(value.values()):
                    peer.expose(v)
            else:
                peer.expose(value)
        return value

    def __getattr__(self, name):
        if not _rpc.namespace_name(name) or _rpc.module_ref(self) is None:
            raise AttributeError(name)
        peer = _DRIVER["peer"]
        value = peer.request("getattr", self, name)
        if isinstance(value, _MODULE_TYPE) and name in peer.remote_names(self):
            object.__setattr__(self, name, value)  # (a module bound there: kept until the subject's next change)
            peer.ns_synced(self)
        return value

    def __setattr__(self, name, value):
        if _rpc.module_ref(self) is None or not _rpc.namespace_name(name) or _own_submodule(self, name, value):
            object.__setattr__(self, name, value)  # (the import system's attributes, before and during the import)
            if _rpc.module_ref(self) is not None:
                _DRIVER["peer"].ns_synced(self)  # (the harness's own write: ``Peer._namespace_written``)
            return
        if isinstance(value, _rpc.ProxyModuleBase) and value.__name__ == f"{self.__name__}.{name}":
            return  # (the driver's import of a submodule the subject's import bound, or a binding of the tree's shadows)
        _DRIVER["peer"].request("setattr", self, name, value)  # (the reply's namespace change sets it here)

    def __delattr__(self, name):
        if _rpc.module_ref(self) is None or not _rpc.namespace_name(name):
            object.__delattr__(self, name)
            if _rpc.module_ref(self) is not None:
                _DRIVER["peer"].ns_synced(self)
            return
        _DRIVER["peer"].request("delattr", self, name)  # (the reply's namespace change drops it here)


class _ProxyLoader:
    def create_module(self, spec):
        return _ProxyModule(spec.name)

    def exec_module(self, module):
        """The subject imports the module; the reply carries its namespace (``tm``), which ``Peer.set_namespace`` sets
        here, the module found by its name while it has no handle (``Peer._namespace_module``)."""
        peer = _subject()
        hid, _ = peer.request("import", module.__name__, True)
        if _rpc.module_ref(module) != hid:
            raise ImportError(f"the subject's import of {module.__name__!r} sent no namespace")


class _Finder:
    """First on sys.meta_path: a module whose file is not the interpreter's (stdlib, installed
    packages) nor the harness's own is a proxy of the subject's module, never executed here."""

    def find_spec(self, name, path, target=None):
        if name.partition(".")[0] in _sys.stdlib_module_names:
            return self._stdlib(name, path, target)
        spec = None
        for f in _sys.meta_path:
            if f is self or not hasattr(f, "find_spec"):
                continue
            spec = f.find_spec(name, path, target)
            if spec is not None:
                break
        if spec is None:
            return None
        locs = list(spec.submodule_search_locations or [])
        origin = spec.origin if spec.has_location or spec.origin in ("built-in", "frozen") else None
        if origin in _DRIVER["allowed"] and _DRIVER.setdefault("probe_name", name) == name:
            return spec  # the probe, under the one name pytest first imported it by (its file is the run's to write)
        if origin not in _DRIVER["allowed"] and _rpc.trusted_file(origin) and all(_rpc.trusted_file(p) for p in locs):
            return spec
        import importlib.machinery
        new = importlib.machinery.ModuleSpec(name, _ProxyLoader(), is_package=spec.submodule_search_locations is not None)
        if spec.submodule_search_locations is not None:
            new.submodule_search_locations = locs
        return new


    @staticmethod
    def _stdlib(name, path, target):
        """A standard-library name is found in the interpreter's own directories only: a tree's
        ``base64.py`` or ``difflib.py`` (or one planted in the run's result directory) never
        stands in for the module the driver or pytest imports lazily."""
        import importlib.machinery
        trusted = [p for p in (path if path is not None else _sys.path) if p and _rpc.trusted_file(_os.path.abspath(p))]
        spec = None
        for f in _sys.meta_path:
            if f is _FINDER or not hasattr(f, "find_spec"):
                continue
            if f is importlib.machinery.PathFinder or getattr(f, "__name__", "") == "PathFinder":
                spec = importlib.machinery.PathFinder.find_spec(name, trusted, target)
            elif f in (importlib.machinery.BuiltinImporter, importlib.machinery.FrozenImporter):
                spec = f.find_spec(name, path, target)
            if spec is not None:
                if name in _AFTER_IMPORT and spec.loader is not None and hasattr(spec.loader, "exec_module"):
                    spec.loader = _PatchAfter(spec.loader, name)
                return spec
        return None


_FINDER = _Finder()


# The test's acts on the outside world that read (or order themselves after) what a thread of the tree writes: files,
# listings, children, sockets (subject_rpc ``WAITS_RULE``): the events CPython raises for them.
_GIVE_EVENTS = frozenset({"open", "os.listdir", "os.scandir", "glob.glob", "glob.glob/2", "os.chdir", "os.remove",
                          "os.rename", "os.rmdir", "os.mkdir", "os.truncate", "os.utime", "os.chmod", "os.link",
                          "os.symlink", "os.getxattr", "os.listxattr", "shutil.copyfile", "shutil.copytree",
                          "shutil.rmtree", "shutil.move", "shutil.make_archive", "shutil.unpack_archive",
                          "subprocess.Popen", "os.posix_spawn", "os.exec", "os.fork", "os.spawn", "os.system",
                          "socket.connect", "socket.bind", "socket.sendto", "socket.sendmsg", "sqlite3.connect",
                          "mmap.__new__", "tempfile.mkstemp", "tempfile.mkdtemp"})
def _refuse_foreign_code(event, args, _allowed=_DRIVER["allowed"], _give_events=_GIVE_EVENTS):
    """Backstop audit hook: no code object compiled from a file of the tree executes here. Also the driver's one audit
    hook for ``WAITS_RULE``'s acts (``_give_before_acts``: one set lookup an event, no second hook to call)."""
    if event == "exec" and args:
        fn = getattr(args[0], "co_filename", "")
        if _isinstance(fn, str) and fn.startswith("/") and fn not in _allowed and not _rpc.trusted_file(fn):
            raise RuntimeError(f"the judged run's driver refuses to execute {fn}: the tree's code runs in the subject")
    elif event in _give_events:
        if event in _PROC_EVENTS and args and _DRIVER["in_test"] and _isinstance(args[0], (str, bytes)) and \
                args[0][:6] in ("/proc/", b"/proc/"):
            _proc_read(args[0])  # (``MEASURES_RULE``: the process's own /proc entries)
        _give_before_acts(event, args)


# The standard library's functions that read an object through a protocol of their own module, not a special
# method (``dataclasses.fields`` reads ``__dataclass_fields__`` and compares its fields with the module's own
# sentinels; ``asyncio.run`` wants a coroutine of this interpreter): given a stand-in of the tree's object, the
# driver's own would read the stand-in's machinery and fail where plain pytest passes. Given one, each runs the
# subject's same function on the live object, as plain pytest runs it (harness.judge.subject_rpc ``_PROTOCOLS``
# does the same for copy and pickle); given anything else, the driver's own.
_SUBJECT_FUNCTIONS = {"dataclasses": ("fields", "asdict", "astuple", "replace", "is_dataclass"), "asyncio": ("run",)}


def _in_subject(module, name, original):
    def run(obj, *args, **kwargs):
        if _rpc._ref_of(obj) is None:
            return original(obj, *args, **kwargs)
        peer = _subject()
        return peer.request("getattr", remote_module(module), name)(obj, *args, **kwargs)
    for attr in ("__module__", "__name__", "__qualname__", "__doc__"):
        setattr(run, attr, getattr(original, attr, None))
    run.__wrapped__ = original
    return run


def _patch_functions(mod, module):
    for name in _SUBJECT_FUNCTIONS[module]:
        original = getattr(mod, name, None)
        if original is not None and getattr(original, "__wrapped__", None) is None:
            setattr(mod, name, _in_subject(module, name, original))


def _subject_functions():
    """Each module of ``_SUBJECT_FUNCTIONS`` the driver has imported already is patched now; one it has not
    (``asyncio``: a tenth of a second to import, which no test that never uses it should pay) when the driver
    imports it (``_Finder._stdlib``, ``_PatchAfter``)."""
    for module in _SUBJECT_FUNCTIONS:
        if module in _sys.modules:
            _patch_functions(_sys.modules[module], module)


def _after_import(mod, module):
    """What the driver does to a standard-library module of ``_AFTER_IMPORT`` once the module has run, before the
    code importing it gets it: patch its ``_SUBJECT_FUNCTIONS``; for ``unittest.mock``, note what its patches set on a
    class (subject_rpc ``ClassPatches.wrap_mock``: ``mock`` is not imported up front, its import imports ``asyncio``)."""
    if module in _SUBJECT_FUNCTIONS:
        _patch_functions(mod, module)
    if module == "unittest.mock":
        _rpc.watch_class_patches().wrap_mock(mod)
    if module in MEASURES:
        _measure_module(mod, module)


_AFTER_IMPORT = frozenset({*_SUBJECT_FUNCTIONS, "unittest.mock", "resource", "tracemalloc", "multiprocessing",
                           "multiprocessing.process", "multiprocessing.context"})


class _PatchAfter:
    """A standard-library module's loader that runs ``_after_import`` on the module once it has run."""

    def __init__(self, loader, module):
        self._loader, self._module = loader, module

    def create_module(self, spec):
        return self._loader.create_module(spec)

    def exec_module(self, mod):
        self._loader.exec_module(mod)
        _after_import(mod, self._module)

    def __getattr__(self, name):
        return getattr(self._loader, name)


DRIVER_SIGINT_RULE = """A SIGINT reaches the driver as it reaches plain pytest's process, a KeyboardInterrupt, except while the
driver reads how the subject ended (``_stop_subject``, pytest's session over), where it changes nothing. Judged, the
subject's parent is the driver; under plain pytest the tree's process has no parent in view (``os.getppid()`` is 0, and
``os.kill(0, SIGINT)`` signals its own process group, pytest's process included). A tree sending SIGINT to its parent
from an atexit callback interrupted ``_stop_subject`` (an atexit callback of the driver's), and its failing exit status
was never read (red team atk18); a handler that always returned then let a tree's SIGINT to its parent during its call
pass (plain pytest: interrupted, status 2) and made a harness test of Ctrl-C handling that interrupts its own process
(``os.kill(os.getpid(), SIGINT)``, ``_thread.interrupt_main()``) fail on any tree (red team atk19). A Python handler
(not SIG_IGN, which a subject the driver starts would inherit across exec). Open: a tree catching the KeyboardInterrupt
its own SIGINT to its parent raises under plain pytest (judged the driver gets it: stricter)."""


def _parent_of_the_subject(signum, frame):
    """The driver's SIGINT handler (``DRIVER_SIGINT_RULE``): Python's own, but nothing once pytest's session is over."""
    if not _DRIVER.get("ending"):
        raise KeyboardInterrupt


def _driver_setup(probe_file, start, early):
    """Called by the driver script before pytest starts. The probe file is the only file of the
    run the driver may import (once, by one name: the run can rewrite it afterwards); the harness's
    own files in the result directory are loaded already, and the run can rewrite them too, so
    none of them is ever imported by name (the subject names modules in the values it returns).
    ``start(cwd, env)``: the script's way to start a subject; ``early``: the subject it started
    before loading this runtime (it has run nothing but its own start-up: no code of the tree runs
    before the driver's first message, ``_subject``), the driver's from now on (``_spawn_subject``);
    one whose directory and environment are not what the driver would give it now (``_inherited``)
    is replaced at first use, as when the test changed them (``_subject``)."""
    _not_dumpable()
    _DRIVER["start"] = start
    _DRIVER["pid"] = _os.getpid()  # (a child the test forks inherits the channel, never to use it: ``_share``)
    _DRIVER["allowed"].update({_os.path.realpath(probe_file), _os.path.abspath(probe_file)})
    _subject_functions()
    _measures()  # what the test measures of its process counts the subject's share (subject_rpc ``MEASURES_RULE``)
    _clocks()  # a busy wait on a clock gives the tree's threads their time (subject_rpc ``CLOCK_READS_RULE``)
    _sys.meta_path.insert(0, _FINDER)
    _sys.addaudithook(_refuse_foreign_code)
    _pin_sources([_os.path.join(_DRIVER["res"], n) for n in ("_hx_driver.py", _os.path.basename(__file__))]
                 + [getattr(_rpc, "__file__", ""), _os.path.abspath(probe_file), _os.path.realpath(probe_file)])
    import _thread
    import atexit
    import signal
    import time
    signal.signal(signal.SIGINT, _parent_of_the_subject)  # (``DRIVER_SIGINT_RULE``)
    atexit.register(_stop_subject)
    import threading
    _DRIVER["main"] = _thread.get_ident()
    time.sleep = _DRIVER["sleep"] = _sleep
    _SLEEPS[0] = _sleep
    _rpc.SLEEP_MOVED[0] = _sleep_moved  # the tree's later values of ``time.sleep`` (subject_rpc ``SLEEPS_RULE``)
    threading.Condition.wait = _cond_wait  # (Event.wait, Queue.get, Semaphore, Barrier wait through it)
    _select_waits()  # an event loop's or a child's pipes' waits: the tree's threads run meanwhile
    _abc_checks()  # an ABC's check of a stand-in is the subject's (subject_rpc ``ABC_CHECKS_RULE``)
    _rpc.watch_stdlib(_DRIVER["allowed"])  # the test's patches of the stdlib reach the tree's own calls (subject_rpc ``StdlibPatches``)
    _rpc.watch_module_stubs()  # the test's sys.modules entries reach the tree's imports (subject_rpc ``ModuleStubs``)
    _rpc.watch_class_patches()  # the test's patchers' changes of the stdlib's classes too (subject_rpc ``ClassPatches``)
    _rpc.route_test_logs(_DRIVER["main"], threading.current_thread)  # the tree's logging decides the test's records too (subject_rpc ``LOG_ROUTE_RULE``)
    _spawn_subject(early)


_GIVING = [False]


def _prompt_wait(peer) -> None:
    """One ``wait`` request of no length, marked prompt: the subject's threads get the time since the last exchange
    (``CLOCK_READS_RULE``, the test's act that gives them time)."""
    peer.prompt = True
    try:
        peer.request("wait", 0.0)
    finally:
        peer.prompt = False


def _give_before_acts(event, args, _giving=_GIVING, _getframe=_getframe):
    """The driver's audit hook for ``WAITS_RULE`` (subject_rpc): at the test's own act on the outside world (an event of
    ``_GIVE_EVENTS`` raised with a frame of the test's file in the stack), while the test's main thread waited outside
    the judge's schedule long enough (``Waits.due``), the time goes to the tree's threads first (a ``wait`` request of
    no time carrying it, ``bl`` with ``bp``), so what they wrote during the wait is there when the act reads it.
    Called by ``_refuse_foreign_code`` for an event of ``_GIVE_EVENTS``."""
    if _giving[0]:
        return
    peer = _DRIVER["peer"]
    waits = peer.waits if peer is not None else None
    if waits is None or waits.mark is None or peer.depth or not _DRIVER["in_test"] or _ident() != _DRIVER["main"]:
        return
    _giving[0] = True
    try:
        if not waits.due():
            return
        f, allowed, n = _getframe(1), _DRIVER["allowed"], 0
        while f is not None and f.f_code.co_filename not in allowed and n < 256:
            f, n = f.f_back, n + 1
        if f is None or n >= 256:
            return
        _prompt_wait(peer)
    except Exception:  # noqa: BLE001 - a fault is recorded by the protocol (``_on_fault``); the act goes on
        pass
    finally:
        _giving[0] = False


def _sleep(secs, _real=__import__("time").sleep, _ident=__import__("_thread").get_ident, _type=_type, _float=_float,
           _which=0):
    """The driver's ``time.sleep`` (``_driver_setup``). While a test runs, in the driver's main thread and with the
    subject in use, the sleep is the subject's (a ``sleep`` request, harness.judge.subject_rpc ``Schedule``): the
    tree's threads are frozen while the driver runs the test and run while the test waits, as under plain
    pytest, and the reply brings what they did (linked containers, mirrors, the process state, output, log
    records) as every reply does, so a test that polls what a thread of the tree fills sees it filled. Any
    other sleep (pytest's, a test's thread, a value ``time.sleep`` itself refuses) is the driver's own.
    ``_which``: the value of the subject's ``time.sleep`` this function stands for (subject_rpc ``SLEEPS_RULE``:
    0 its own; ``_sleep_moved`` makes one for each value the tree gives it), run there whatever the name holds now."""
    peer = _DRIVER["peer"]
    if peer is None or not _DRIVER["in_test"] or _type(secs) not in (int, _float) or not 0 <= secs <= 1e7:
        return _real(secs)
    if _ident() != _DRIVER["main"]:
        return _real(secs)
    if _which:
        peer.request("sleep", _float(secs), _which)
    else:
        peer.request("sleep", _float(secs))


_SLEEPS: dict = {}  # index -> the driver's function standing for that value of the subject's ``time.sleep``


def _sleep_of(which: int):
    """A ``time.sleep`` of the driver's standing for the tree's value ``which`` of the subject's (``SLEEPS_RULE``):
    during a test, in the driver's main thread, the subject runs that value; where the driver cannot have it run
    there (a thread of the test's own during a test) the call is a fault (plain pytest would run the tree's)."""
    def sleep(secs):
        peer = _DRIVER["peer"]
        if peer is not None and _DRIVER["in_test"] and _ident() != _DRIVER["main"]:
            _on_fault("a thread of the test called the tree's time.sleep, which only the subject can run "
                      "(subject_rpc SLEEPS_RULE)")
        return _sleep(secs, _which=which)
    sleep.__name__ = sleep.__qualname__ = "sleep"
    sleep.__doc__ = _sleep.__doc__
    return sleep


_ident = __import__("_thread").get_ident


def _sleep_moved(which):
    """(driver, at a subject's message with ``ts``) The subject's ``time.sleep`` is now its value ``which``: the
    driver's ``time`` module gets the function standing for it, so what the test reads from now on is that value
    and what it bound before stays what it was (subject_rpc ``SLEEPS_RULE``). Returns a fault's text or None."""
    import time
    if _type(which) is not int or which < 0:
        return ("the tree deleted time.sleep, or gave it more values than the judge keeps (subject_rpc SLEEPS_RULE): "
                "the test's later reads of it cannot be run as plain pytest runs them")
    if _vars(time).get("sleep") is not _DRIVER["sleep"]:
        return ("the tree replaced time.sleep while the test's own patch of it stood: under plain pytest the tree's "
                "assignment replaces the test's patch (subject_rpc SLEEPS_RULE)")
    fn = _SLEEPS.get(which)
    if fn is None:
        fn = _SLEEPS[which] = _sleep_of(which)
    _vars(time)["sleep"] = _DRIVER["sleep"] = fn
    return None


def _cond_wait(self, timeout=None, _orig=__import__("threading").Condition.wait, _ident=__import__("_thread").get_ident,
               _lock=__import__("_thread").allocate_lock, _now=__import__("time").monotonic, _type=_type, _float=_float):
    """The driver's ``threading.Condition.wait`` (``_driver_setup``; ``Event.wait``, ``Queue.get`` with a timeout and
    the other waits of ``threading`` wait through it). While a test runs, in the driver's main thread and with the
    subject in use, the wait is made of the subject's sleeps of 10 ms (``_sleep``), as ``Condition.wait`` itself
    waits (the waiter registered, the lock released meanwhile): the tree's threads run while the test waits, and a
    callback of the test one of them calls (an ``Event``'s ``set``) runs here between two sleeps and wakes it."""
    peer = _DRIVER["peer"]
    if peer is None or not _DRIVER["in_test"] or _ident() != _DRIVER["main"] or \
            (timeout is not None and (_type(timeout) not in (int, _float) or not 0 <= timeout <= 1e7)):
        return _orig(self, timeout)
    if not self._is_owned():
        raise RuntimeError("cannot wait on un-acquired lock")
    waiter = _lock()
    waiter.acquire()
    self._waiters.append(waiter)
    saved = self._release_save()
    got = False
    try:
        end = None if timeout is None else _now() + timeout
        while not got:
            got = waiter.acquire(False)
            left = None if end is None else end - _now()
            if got or (left is not None and left <= 0):
                break
            peer.request("wait", 0.01 if left is None else min(0.01, left))
        return got
    finally:
        self._acquire_restore(saved)
        if not got:
            try:
                self._waiters.remove(waiter)
            except ValueError:
                pass


def _in_test_main(_ident=__import__("_thread").get_ident):
    """Whether the calling thread is the test's main thread during a test (subject_rpc ``Waits``)."""
    return _DRIVER["in_test"] and _ident() == _DRIVER["main"]


def _abc_checks():
    """The driver's ``abc.ABCMeta`` and ``typing``'s protocol metaclass answer an instance or subclass check of a
    stand-in through the subject (subject_rpc ``ABC_CHECKS_RULE``), unless the check is the harness's own (a frame of
    the protocol or of this runtime made it) or the subject has no such ABC (then as before)."""
    import abc
    import typing
    for meta in {abc.ABCMeta, getattr(typing, "_ProtocolMeta", abc.ABCMeta)}:
        for name, kind in (("__instancecheck__", "i"), ("__subclasscheck__", "s")):
            orig = meta.__dict__.get(name)
            if orig is not None:
                setattr(meta, name, _abc_check_of(orig, kind))


_CLASS_DICT = type.__dict__["__dict__"].__get__  # (a class's own namespace, which no metaclass can answer for)


def _structural(cls, _class_dict=_CLASS_DICT, _mro=type.__dict__["__mro__"].__get__):
    """Whether an ABC decides by the members of the class it checks: a ``__subclasshook__`` of its own or of a base
    (``object``'s aside), or a ``typing`` protocol."""
    try:
        return any(k is not object and ("__subclasshook__" in _class_dict(k) or _class_dict(k).get("_is_protocol"))
                   for k in _mro(cls))
    except TypeError:
        return True


def _answered_by_the_subject(x):
    """Whether an ABC's check of ``x`` is the subject's (``_abc_checks``): a stand-in of a tree object or class, or the
    stand-in class of a tree object (``type(x)``). A value-type object's stand-in (a tree ``int``, ``Fraction`` or
    ``list`` subclass: an instance of its base type whose class carries the names the tree's class answers) is
    answered in the driver, as before."""
    t = _type(x)
    if _issubclass(t, _rpc.RemoteObject) or _issubclass(t, _rpc.RemoteMeta):
        return True
    return t is _rpc._TreeClassView and "_hx_cls" in _CLASS_DICT(x)  # (``_named``'s metaclass: STAND_IN_MEMBERS_RULE)


def _abc_check_of(orig, kind, _frame=_sys._getframe, _class_dict=_CLASS_DICT, _ident=_ident, _busy=set()):
    protocol, runtime = _rpc.__dict__, globals()

    def check(cls, x):
        if not _answered_by_the_subject(x):
            return orig(cls, x)  # (neither a stand-in nor the class of a tree object's stand-in, ``type(x)``)
        caller, me = _frame(1).f_globals, _ident()
        if caller is protocol or caller is runtime or me in _busy or "_hx_tree" in _class_dict(cls):
            return orig(cls, x)  # (the harness's own check, one made while answering one, or a stand-in class's)
        _busy.add(me)
        try:
            found = _rpc.abc_answer(cls, x, kind)
        finally:
            _busy.discard(me)
        if found is None and _structural(cls):  # (the test's own ABC reading the class's members: the stand-in's
            peer = _DRIVER["peer"]  # class has every special method, the tree's class may not; fails closed)
            why = (f"{'isinstance' if kind == 'i' else 'issubclass'} of a tree object against {_name(cls)}, the "
                   "test's own ABC or protocol, which reads the class's members (subject_rpc ABC_CHECKS_RULE)")
            raise peer._dec_fault(why) if peer is not None else _rpc.ProtocolFault(why)
        return orig(cls, x) if found is None else found
    check.__wrapped__ = orig
    check.__name__ = orig.__name__
    return check


def _select_waits():
    """The driver's selectors wait as ``time.sleep`` does (``_driver_setup``): each ``select`` method of the
    standard library's selectors (what asyncio's event loop, ``subprocess``'s ``communicate`` and ``socketserver``
    wait in) is ``_select``'s."""
    import selectors
    for cls in (selectors.SelectSelector, getattr(selectors, "_PollLikeSelector", None),
                getattr(selectors, "EpollSelector", None)):
        orig = cls.__dict__.get("select") if cls is not None else None
        if orig is not None:
            cls.select = _select_of(orig)


def _select_of(orig, _now=__import__("time").monotonic, _type=_type, _float=_float):
    def select(self, timeout=None):
        """While a test runs, in the driver's main thread, with the subject in use and a thread of the tree alive
        (its last message said so: subject_rpc ``Waits``), a selector's wait is made of non-blocking polls and the
        subject's waits of 10 ms between them (as ``_cond_wait``'s): the tree's threads run while the test's
        event loop or child waits, as under plain pytest, and each reply brings what they did. Otherwise, and for
        a timeout ``select`` itself refuses, it is the selector's own."""
        peer = _DRIVER["peer"]
        waits = peer.waits if peer is not None else None
        if waits is None or not waits.on or not _in_test_main() or \
                (timeout is not None and (_type(timeout) not in (int, _float) or not timeout <= 1e7)):
            return orig(self, timeout)
        end = None if timeout is None or timeout < 0 else _now() + timeout
        while True:
            ready = orig(self, 0)
            if ready:
                return ready
            left = None if end is None else end - _now()
            if left is not None and left <= 0:
                return ready
            if not waits.on:  # (the tree's last thread ended: the rest of the wait is the selector's own)
                return orig(self, left)
            peer.request("wait", 0.01 if left is None else min(0.01, left))
    select.__wrapped__ = orig
    return select


def _pin_sources(paths):
    """Hold the lines of the run's own files whose frames the driver runs (the driver script, this
    runtime, the protocol, the probe) in ``linecache`` as they are now, before any code of the tree
    has run, never re-read (no mtime: ``linecache.checkcache`` keeps the entry). pytest shows a
    failure's frames, and a warning its line, from linecache; the subject can replace these files:
    a FIFO put there held the driver at the first failure until the run's timeout, and a rewritten
    file showed the agent lines the driver never ran."""
    import linecache
    for path in dict.fromkeys(paths):
        try:
            with open(path, "rb") as f:
                data = f.read()
        except OSError:
            continue
        linecache.cache[path] = (_len(data), None, data.decode("utf-8", "replace").splitlines(True), path)


_SUBJECT_AUDIT_REDIRECTED = 87


def _stop_subject():
    """End the subject after pytest's session, as plain pytest's one process ends (testrun ``PROCESS_END_RULE``): the
    tree's atexit callbacks, finalizers and non-daemon threads run in it (subject_main ends with ``sys.exit(0)``), and
    how it ended is the run's: a status other than 0 or a signal fails the judged run, as it fails plain pytest's
    process; a subject still running 5 s after pytest's session is killed and fails it closed (plain pytest would wait
    for it up to its time limit: stricter for a tree whose thread runs longer, red team atk16's open honest case)."""
    _DRIVER["ending"] = True  # (a SIGINT from here on changes nothing: ``DRIVER_SIGINT_RULE``)
    peer, proc = _DRIVER["spawned"], _DRIVER["proc"]  # the subject's peer, whether or not it was used
    if peer is not None:
        peer.ended = True  # (a handle the test's objects drop from now on is not released: the subject ends)
    killed = _end_subject(proc, *([peer.fd] if peer is not None else []), timeout=5)
    _relay_outputs()
    if proc is None:
        return
    if proc.returncode == _SUBJECT_AUDIT_REDIRECTED:  # subject_main AUDIT_REDIRECTED
        _emit({"k": "tamper", "what": ["the subject's audit descriptor was redirected"]})
    elif killed:  # (stricter than plain pytest for a tree whose thread or finalizer runs past 5 s: red team atk16)
        _on_fault("the tree's process did not end within 5 s of pytest's session (a thread or a finalizer of the "
                  "tree still ran): failed closed (testrun PROCESS_END_RULE)")
    elif proc.returncode:
        _on_fault(f"the tree's process ended with {'signal %d' % -proc.returncode if proc.returncode < 0 else 'status %d' % proc.returncode} "
                  "after pytest's session (an atexit callback, a finalizer): plain pytest's process ends so "
                  "(testrun PROCESS_END_RULE)")


# -- what the test measures of its process (subject_rpc ``MEASURES_RULE``) ---------------------------------------------
# The inventory: every function of the standard library that reports a measure of the calling process or interpreter
# as a whole, by module. Each is replaced in the driver's module before any code of the test runs (``_measures``; a
# module the driver has not imported yet when it imports it: ``_after_import``), by a function that is the original
# where no tree has run (no subject in use, or outside a test) and otherwise either adds the subject's share
# (``_COMBINED``) or records a fault when the test's code calls it (``_FAULTS``). Nothing runs per message.
MEASURES = {"time": ("process_time", "process_time_ns", "thread_time", "thread_time_ns"), "os": ("times",),
            "gc": ("collect", "get_count", "get_stats", "get_objects"), "threading": ("active_count", "activeCount", "enumerate"),
            "sys": ("getsizeof", "getallocatedblocks", "getrefcount"),
            "resource": ("getrusage", "getrlimit", "setrlimit", "prlimit"),
            "tracemalloc": ("get_traced_memory", "take_snapshot", "get_tracemalloc_memory", "get_object_traceback"),
            "multiprocessing": ("active_children",), "multiprocessing.process": ("active_children",),
            "multiprocessing.context": ("BaseContext.active_children",)}


def _by_test(_getframe=_getframe):
    """Whether a frame of the test's file is on the calling thread's stack (the test's code made the call)."""
    f, allowed, n = _getframe(2), _DRIVER["allowed"], 0
    while f is not None and f.f_code.co_filename not in allowed and n < 256:
        f, n = f.f_back, n + 1
    return f is not None and n < 256


def _share(what, *args):
    """The subject's share of a measure (a ``measure`` request), or None where no tree has run (no subject in use, or
    outside a test: the driver's own reading is the process's then)."""
    peer = _DRIVER["peer"]
    if peer is None or not _DRIVER["in_test"] or peer.ended or _os.getpid() != _DRIVER["pid"]:
        return None  # (no tree has run; or a child the test forked, a pool's worker: not the driver's channel)
    if peer.depth:  # (inside an exchange: a callback of the test's the tree called, or a signal handler such as
        # pytest-timeout's, which lists threads: no second request there; the reading cannot be the process's)
        _on_fault(f"the test read a measure of its whole process ({what}) inside an exchange with the subject "
                  "(subject_rpc MEASURES_RULE): failed closed")
        return None
    return peer.request("measure", what, *args)


def _cpu():
    r = _share("cpu")
    if r is None:
        return None
    if _type(r) is not list or _len(r) != 6 or any(_type(v) not in (int, _float) for v in r):
        _on_fault("a malformed measure of the subject's CPU time (subject_rpc MEASURES_RULE)")
        return None
    return r


def _measure_fault(what):
    peer = _DRIVER["peer"]
    if peer is not None and _DRIVER["in_test"] and not peer.ended and _by_test():
        _on_fault(f"the test read {what}, a measure of its whole process, which the judged run splits between the "
                  "driver and the subject with no exact sum (subject_rpc MEASURES_RULE): failed closed")


def _as_measure(fn, orig):
    for attr in ("__module__", "__name__", "__qualname__", "__doc__"):
        try:
            setattr(fn, attr, getattr(orig, attr, None))
        except (AttributeError, TypeError):
            pass
    fn.__wrapped__ = orig
    return fn


def _combined_collect(orig):
    """``gc.collect``: the driver's collection, then the subject's under the driver's debug flags (``MEASURES_RULE``)."""
    import gc
    get_debug = gc.get_debug

    def collect(generation=2):
        found = orig(generation)
        r = _share("gc", generation, get_debug())
        if r is None:
            return found
        if _type(r) is not list or _len(r) != 2 or _type(r[0]) is not int or _type(r[1]) is not int:
            _on_fault("a malformed measure of the subject's collection (subject_rpc MEASURES_RULE)")
            return found
        if r[1]:
            _on_fault("the test's gc.collect saved garbage of the tree in the subject's gc.garbage (DEBUG_SAVEALL): "
                      "under plain pytest it is in the test's gc.garbage (subject_rpc MEASURES_RULE): failed closed")
        return found + r[0]
    return _as_measure(collect, orig)


def _plus_the_subjects(what, label, orig, count=False):
    """A list the process keeps of its threads or child processes (``threading.enumerate``/``active_count``,
    ``multiprocessing.active_children``): the driver's own plus the tree's alive in the subject, as stand-ins of its
    ``Thread`` or ``Process`` objects, or their number (``count``) (``MEASURES_RULE``)."""
    def combined():
        own = orig()
        r = _share(what)
        if r is None:
            return own
        if _type(r) is not list:
            _on_fault(f"a malformed list of the subject's {label} (subject_rpc MEASURES_RULE)")
            return own
        return own + _len(r) if count else own + r
    return _as_measure(combined, orig)


def _combined_objects(orig):
    """``gc.get_objects``: plus stand-ins of the tree's objects the subject's collector tracks (``MEASURES_RULE``)."""
    import gc
    frozen = gc.get_freeze_count

    def get_objects(generation=None):
        own = orig() if generation is None else orig(generation)
        r = _share("objects", generation)
        if r is None:
            if _DRIVER["peer"] is not None and _DRIVER["in_test"] and not _DRIVER["peer"].ended:
                _on_fault("the test read gc.get_objects while the subject holds more of the tree's objects than the "
                          "judge crosses (subject_rpc MEASURES_RULE): failed closed")
            return own
        if _type(r) is not list:
            _on_fault("a malformed list of the subject's objects (subject_rpc MEASURES_RULE)")
            return own
        if r and frozen():  # (the test's gc.freeze holds the driver's objects only: which of the tree's it would hold, no telling)
            _measure_fault("gc.get_objects under the test's gc.freeze, with objects of the tree's")
        ids = _set(map(id, own))
        return own + [o for o in r if id(o) not in ids]
    return _as_measure(get_objects, orig)


def _combined_sizeof(orig):
    """``sys.getsizeof``: a stand-in's is the live object's; a plain value whose size is its history's, a fault."""
    def getsizeof(obj, *default):
        peer = _DRIVER["peer"]
        if peer is None or peer.ended:
            return orig(obj, *default)
        if _rpc._ref_of(obj) is None:
            if _isinstance(obj, _HISTORY_SIZED):  # (a copy of the tree's, or the test's own: no telling)
                _measure_fault(f"sys.getsizeof of a {_type(obj).__name__}, whose size is its history's")
            return orig(obj, *default)
        return peer.request("measure", "sizeof", obj, *default)
    return _as_measure(getsizeof, orig)


def _combined(module, name, orig):
    """The function standing for ``module.name`` in the driver (``MEASURES``)."""
    ns = name.endswith("_ns")
    if (module, name) in (("time", "process_time"), ("time", "process_time_ns")):
        def process_time():
            r = _cpu()
            return orig() if r is None else orig() + (r[0] if ns else r[0] / 1e9)
        return _as_measure(process_time, orig)
    if module == "time":  # thread_time, thread_time_ns: the test's main thread's and the subject's serving one's
        def thread_time():
            if _ident() != _DRIVER["main"]:
                _measure_fault(f"time.{name} in a thread of its own")
                return orig()
            r = _cpu()
            return orig() if r is None else orig() + (r[1] if ns else r[1] / 1e9)
        return _as_measure(thread_time, orig)
    if module == "os":
        def times():
            t = orig()
            r = _cpu()
            return t if r is None else _type(t)((t[0] + r[2], t[1] + r[3], t[2] + r[4], t[3] + r[5], t[4]))
        return _as_measure(times, orig)
    if (module, name) == ("gc", "collect"):
        return _combined_collect(orig)
    if module == "threading":
        return _plus_the_subjects("threads", "threads", orig, count=name != "enumerate")
    if name == "active_children":
        return _plus_the_subjects("children", "child processes", orig)
    if (module, name) == ("gc", "get_objects"):
        return _combined_objects(orig)
    if (module, name) == ("sys", "getsizeof"):
        return _combined_sizeof(orig)
    if module == "resource" and name != "getrusage":
        return _limits(name, orig)
    if (module, name) == ("sys", "getrefcount"):
        def getrefcount(*args):  # (``*args``: the one reference its tuple holds stands for the caller's own)
            _measure_fault("sys.getrefcount")
            return orig(*args)
        return _as_measure(getrefcount, orig)
    if module == "tracemalloc":
        import _tracemalloc
        tracing = _tracemalloc.is_tracing

        def traced(*args, **kwargs):
            if tracing():
                _measure_fault(f"tracemalloc.{name} while tracing")
            return orig(*args, **kwargs)
        return _as_measure(traced, orig)

    def faulted(*args, **kwargs):  # gc.get_count, gc.get_stats, sys.getallocatedblocks, resource.getrusage
        _measure_fault(f"{module}.{name}")
        return orig(*args, **kwargs)
    return _as_measure(faulted, orig)


# The plain values whose size is their history's, not their content's (a table or an array that grew and never
# shrinks): a copy that crossed from the subject has the copy's, which the driver cannot tell from the test's own
_HISTORY_SIZED = (dict, list, set, bytearray, __import__("collections").deque)


def _limits(name, orig):
    """``resource.getrlimit``/``setrlimit``/``prlimit`` (of the process itself) while the subject is in use: a read is
    the subject's limit, the one the tree runs under and may have changed; a set is the driver's, then carried to the
    subject (``measure`` "rlimit", subject_rpc ``KERNEL_RULE``), as plain pytest's one process has one limit."""
    def carried(res, new=None):
        peer = _DRIVER["peer"]
        if new is not None:
            if peer is None or peer.ended:
                if not _DRIVER["in_test"] or _DRIVER["spawned"] is None:
                    return None
                peer = _subject()  # (the early subject was started under the limits as they were then)
        elif peer is None or peer.ended or not _DRIVER["in_test"]:
            return None
        if peer.depth:
            _on_fault(f"the test's resource.{name} inside an exchange with the subject (subject_rpc KERNEL_RULE): "
                      "failed closed")
            return None
        r = peer.request("measure", "rlimit", res, *(() if new is None else ([_index(new[0]), _index(new[1])],)))
        if _type(r) is not list or _len(r) != 2 or _type(r[0]) is not int or _type(r[1]) is not int:
            _on_fault("a malformed limit of the subject's (subject_rpc KERNEL_RULE)")
            return None
        return (r[0], r[1])

    if name == "getrlimit":
        def getrlimit(resource):
            own = orig(resource)
            r = carried(resource)
            return own if r is None else r
        return _as_measure(getrlimit, orig)
    if name == "setrlimit":
        def setrlimit(resource, limits):
            orig(resource, limits)
            carried(resource, limits)
        return _as_measure(setrlimit, orig)

    def prlimit(pid, resource, *limits):
        old = orig(pid, resource, *limits)
        if pid not in (0, _os.getpid()):
            return old
        r = carried(resource, *limits)
        return old if r is None or limits else r
    return _as_measure(prlimit, orig)


def _measure_module(mod, module):
    """Put ``MEASURES``'s functions of ``module`` in its module object (once: a function already standing is kept); a
    dotted name is a class's static method (``BaseContext.active_children``)."""
    for name in MEASURES.get(module, ()):
        owner, _, attr = name.rpartition(".")
        target = _vars(mod).get(owner) if owner else mod
        if target is None:
            continue
        orig = _vars(target).get(attr)
        if _isinstance(orig, staticmethod):
            orig = orig.__func__
        if orig is not None and getattr(orig, "__wrapped__", None) is None:
            made = _combined(module, attr, orig)
            setattr(target, attr, staticmethod(made) if owner else made)


class _Registry(dict):
    """``threading._active``/``_limbo`` in the driver (``MEASURES_RULE``): the driver's threads only, so a read of the
    whole registry by the test's own code (its length, its keys, values or items, a copy: the process's threads
    counted) while the subject is in use is a fault; ``threading``'s own reads (``active_count``, ``enumerate``, combined)
    and a lookup of one thread are not."""
    __slots__ = ()

    def _read(self, _getframe=_getframe):
        try:
            f = _getframe(2)
        except ValueError:  # (a read with no Python caller: the interpreter's own)
            return
        if f.f_code.co_filename in _DRIVER["allowed"]:  # (the test's own read, not threading's)
            _measure_fault("threading's registry of the process's threads")

    def __len__(self):
        self._read()
        return dict.__len__(self)

    def __iter__(self):
        self._read()
        return dict.__iter__(self)

    def keys(self):
        self._read()
        return dict.keys(self)

    def values(self):
        self._read()
        return dict.values(self)

    def items(self):
        self._read()
        return dict.items(self)

    def copy(self):
        self._read()
        return dict.copy(self)


def _registries():
    """(``_measures``) ``threading``'s registries of threads, each replaced by a ``_Registry`` of the same entries."""
    import threading
    with threading._active_limbo_lock:
        for name in ("_active", "_limbo"):
            was = _vars(threading).get(name)
            if _type(was) is dict:
                setattr(threading, name, _Registry(was))


def _measures():
    """(``_driver_setup``, before any code of the test) Each module of ``MEASURES`` the driver has imported already
    gets its functions now; one it has not (``resource``) when the driver imports it (``_after_import``)."""
    for module in MEASURES:
        if module in _sys.modules:
            _measure_module(_sys.modules[module], module)
    _registries()


# The process's own entries under /proc (``MEASURES_RULE``): read by the test's code (a frame of its file on the stack;
# ``psutil`` reads its process so), the driver's only: a fault.
_PROC_EVENTS = frozenset({"open", "os.listdir", "os.scandir"})


def _proc_read(path, _getframe=_getframe):
    """(the driver's audit hook, an open or listing under ``/proc/`` during a test) A fault when it is of the
    process's own entries and the test's code made it; the harness's own reads (schedstat, ``Waits``) are not."""
    if _GIVING[0] or _DRIVER["peer"] is None:
        return
    if _isinstance(path, bytes):
        path = _os.fsdecode(path)
    rest = path[6:].partition("/")[0]
    if rest not in ("self", "thread-self", _str(_os.getpid())):
        return
    f = _getframe(2)
    if f is not None and (f.f_code.co_filename.startswith(_DRIVER["res"]) or
                          f.f_code.co_filename == getattr(_rpc, "__file__", None)):
        return
    _measure_fault(f"its process's {path}")


# The clocks a busy wait polls (subject_rpc ``CLOCK_READS_RULE``): each replaced in the driver's ``time`` module before
# any code of the test runs; a read by the test's main thread while a thread of the tree lives first gives the tree's
# threads the gap since the last exchange (``Waits.busy``). Otherwise the clock itself (one dict read and a test).
_CLOCKS = ("monotonic", "monotonic_ns", "perf_counter", "perf_counter_ns", "time", "time_ns")


def _clock_of(orig, _giving=_GIVING, _getframe=_getframe):
    def clock():
        peer = _DRIVER["peer"]
        if peer is not None and peer.waits is not None and peer.waits.mark is not None and not _giving[0] and \
                _getframe(1).f_code.co_filename in _DRIVER["allowed"]:  # (the test's own read, not a library's)
            _busy_give(peer)
        return orig()
    return _as_measure(clock, orig)


def _busy_give(peer, _giving=_GIVING):
    waits = peer.waits
    if peer.depth or not _DRIVER["in_test"] or _ident() != _DRIVER["main"] or peer.ended:
        return
    _giving[0] = True
    try:
        if waits.busy():
            _prompt_wait(peer)
    except Exception:  # noqa: BLE001 - a fault is recorded by the protocol (``_on_fault``); the read goes on
        pass
    finally:
        _giving[0] = False


def _clocks():
    """(``_driver_setup``) The driver's clocks of ``_CLOCKS`` (``CLOCK_READS_RULE``), and the pulse (``_pulse``)."""
    import time
    for name in _CLOCKS:
        orig = _vars(time).get(name)
        if orig is not None and getattr(orig, "__wrapped__", None) is None:
            setattr(time, name, _clock_of(orig))
    _pulse_start()


# A busy wait on a clock the driver does not read (``datetime.datetime.now`` and ``os.times`` read it in C), or on
# none (a count of iterations): a thread of the driver's own (``_thread``, never in ``threading``'s registries, so no
# count of the test's sees it) asks the main thread every ``WAIT_OWED`` while a gap is open with a thread of the tree
# alive (``Waits.mark``) to run ``_pulse_give`` (``Py_AddPendingCall``: at its next instruction boundary), which gives
# the gap to the tree's threads as a clock read does, when the main thread is running the test's own code then
# (``CLOCK_READS_RULE``).
_PULSE: list = []  # [the callback ``Py_AddPendingCall`` runs, whether one is pending]


def _pulse_give(_arg, _getframe=_getframe, _giving=_GIVING):
    """(the main thread, at an instruction boundary) The pulse: ``_busy_give`` when the frame it interrupted is the
    test's own code (never the harness's, mid-exchange or mid-bookkeeping). Always 0: nothing is raised there."""
    _PULSE[1] = False
    try:
        f = _getframe(1)
        peer = _DRIVER["peer"]
        if peer is not None and not _giving[0] and f.f_code.co_filename in _DRIVER["allowed"]:
            _busy_give(peer)
    except BaseException:  # noqa: BLE001 - a pending call that raises would raise into the test's code
        pass
    return 0


def _pulse(add, cb, owed, _sleep=__import__("time").sleep):
    """(the pulse's thread) Every ``owed`` s (``WAIT_OWED``): one pending ``_pulse_give`` while the test runs with a
    gap open."""
    while True:
        _sleep(owed)
        try:
            peer = _DRIVER["peer"]
            if peer is None or not _DRIVER["in_test"] or _PULSE[1] or peer.waits is None or peer.waits.mark is None:
                continue
            _PULSE[1] = True
            if add(cb, None) != 0:
                _PULSE[1] = False
        except BaseException:  # noqa: BLE001 - the pulse is best effort; the test's own clock reads still give
            pass


def _pulse_start():
    """(``_clocks``) The pulse's thread, where ``Py_AddPendingCall`` can be reached (CPython, ctypes)."""
    try:
        import _thread
        import ctypes
        cb = ctypes.CFUNCTYPE(ctypes.c_int, ctypes.c_void_p)(_pulse_give)
        add = ctypes.pythonapi.Py_AddPendingCall
        add.argtypes, add.restype = [ctypes.c_void_p, ctypes.c_void_p], ctypes.c_int
    except Exception:  # noqa: BLE001 - no pulse: CLOCK_READS_RULE's clocks only
        return
    _PULSE[:] = [cb, False]
    _thread.start_new_thread(_pulse, (add, cb, _rpc.WAIT_OWED))
