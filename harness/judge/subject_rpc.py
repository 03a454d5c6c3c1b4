"""The request/response protocol between a judged run's driver and its subject (standard library only).

A judged run is two processes inside the sandbox (docs/explanation/judge-design.md): the *driver* runs the
probe under pytest and owns the observation channel; the *subject* imports the code under test and
nothing of the harness but this module. They share one socket pair, created by the driver before it
starts the subject, and nothing else: no descriptor, no environment variable, no memory image (the
subject is a fresh ``python -I`` exec, never a fork of a process that held a request).

Both sides run the same ``Peer``: a request is a length-prefixed JSON object; while a side waits for
its reply it serves the other side's requests (a driver callback passed into workspace code calls
back into the driver, nested to any depth). Values cross by *value* when they are plain data, encoded
by their real built-in type and never through a method the code under test can override
(``_enc``): None, bool, int, float, str, bytes, list, tuple, dict, set, frozenset, Decimal, Fraction,
date/time/datetime/timedelta (with ``fold``, and a cached ZoneInfo by its key), complex, range, paths (a
pure path stays pure) and OrderedDict (as one, in its order); from the driver, defaultdict and Counter as
themselves. A container the callee changes is written back into the caller's (``_changes``), and one the
tree still holds when it crosses is *linked*: one object on each side, kept in step with every message
(``Peer._link``), as plain pytest's caller and tree share the one object. A subclass of a value type
(an IntEnum, a numpy float, a defaultdict) crosses as its base value plus a handle, so the receiver's
stand-in compares as the base value while ``repr``/``str``/attributes still come from the live object, but
only while no class of the tree defines a special method of its own on it (``crosses_as_base``): one
that does is a tree object, whose stand-in runs in the subject exactly what its class answers otherwise
than the base (``differing_names``) and holds the live object's storage (a list, dict or set sent again
after every change: ``Peer._mirror_sync``), so the driver's C code reads it as plain pytest's reads the
live object; the probe observes it by asking the subject (``observation``). Every other object stays where it lives and crosses as a *handle*; the receiver holds a proxy
whose operations are requests. Two handles are equal when their encoded state (type, dataclass/attrs
fields, ``__dict__``, slots) is, never by workspace ``__eq__`` (``state`` op).

Identity comes from the harness (``capture_identities``): a class crossing from the subject is named
as one of the interpreter's classes only if it *is* one of the objects captured before the tree could
run (or a type defined in C, which no code can change); a class of the tree is the tree's whatever it
calls itself, and so is every such class in its MRO. A warning the interpreter attributed to the frame
that called into the tree is placed by the driver at the probe's own line (``crossing``); any other
origin is kept as the tree gave it.

The subject may do only this with the driver's objects: call a callable the driver passed it, read a
public attribute of a non-module object (``_driver_policy``); it can never reach the probe runtime,
its channel or its nonce through a proxy.
"""
import _thread
import base64 as _base64
import builtins as _builtins
import collections as _collections
import copy as _copy
import datetime as _datetime
import decimal as _decimal
import fractions as _fractions
import gc as _gc
import importlib as _importlib
import io as _io
import itertools as _itertools
import json as _json
import math as _math
import numbers as _numbers
import operator as _operator
import os as _os
import pathlib as _pathlib
import pickle as _pickle
import struct as _struct
import sys as _sys
import types as _types
import typing as _typing
import warnings as _warnings
import weakref as _weakref
from collections.abc import Iterable as _Iterable
from collections.abc import Mapping as _Mapping
from typing import Any

MAX_MSG = 256 << 20
MAX_NODES = 4_000_000  # values a plain pytest comparison handles (sum of a 300,000-item list)
MAX_LINKS, MAX_LINKED_ITEMS = 1024, 20_000  # linked containers each side checks at every message (``Peer._room``)
MAX_KEPT_TUPLES = 256  # tuples the tree keeps that cross as one object each (``Peer._enc_tuple``)
MAX_OVERFLOW = 100_000  # containers past that bound, checked at each test's end (``Peer._overflowed``)
_type, _isinstance, _len = type, isinstance, len
_VALUE_BASES = (bool, int, float, complex, str, bytes, bytearray, tuple, list, dict, frozenset, set)
BINOPS = ("add", "sub", "mul", "truediv", "floordiv", "mod", "pow", "matmul", "and_", "or_", "xor", "lshift",
          "rshift", "lt", "le", "gt", "ge", "contains", "getitem", "concat")
UNOPS = ("neg", "pos", "abs", "invert", "index")
# in-place operators: a stand-in's ``x += y`` is the live object's ``+=`` (its ``__iadd__``, or the interpreter's fallback
# to ``__add__`` there), whose result is what the name is bound to, as under plain pytest (red team atk22)
INPLACE = ("iadd", "isub", "imul", "itruediv", "ifloordiv", "imod", "ipow", "imatmul", "iand", "ior", "ixor",
           "ilshift", "irshift")
_import, _vars, _getattr = _builtins.__import__, vars, getattr
# The operations a request may apply, bound when this module loads: a tree that rebinds
# ``builtins.bool`` or ``operator.eq`` in the subject changes what its own code calls, not these.
_OPS = {**{op: getattr(_builtins, op) for op in ("getattr", "setattr", "delattr", "repr", "str", "len", "bool", "hash",
                                                 "iter", "dir", "callable", "float", "int", "complex", "next",
                                                 "format", "isinstance", "issubclass", "hasattr")},
        **{op: getattr(_operator, op) for op in (*BINOPS, *UNOPS, *INPLACE, "setitem", "delitem")},
        # the standard library's object protocols, run on the live object where it lives (``_PROTOCOLS``)
        "copy": _copy.copy, "deepcopy": _copy.deepcopy, "pickle": _pickle.dumps, "unpickle": _pickle.loads}




def _c_dumps():
    """``json.dumps(msg, separators=(",", ":"))`` through CPython's C encoder, bound here when this
    module loads (before any code under test): ``json.dumps`` looks its encoder up at every call, so
    a tree that rebinds it (or ``os.write``, ``struct.pack``) in the subject would rewrite every reply,
    the identities ``_cls_meta`` vouches for included."""
    try:
        from _json import encode_basestring_ascii, make_encoder
    except ImportError:  # no C accelerator: the pure-Python encoder
        return lambda msg: _json.dumps(msg, separators=(",", ":"))

    def nodefault(o):
        raise TypeError(f"not JSON: {_type(o).__name__}")

    encode = make_encoder(None, nodefault, encode_basestring_ascii, None, ":", ",", False, False, True)
    return lambda msg, _encode=encode, _join="".join: _join(_encode(msg, 0))


_dumps, _loads = _c_dumps(), _json.JSONDecoder().decode
# ``math.nan`` as this module found it: under plain pytest the test's ``math.nan`` and the tree's are one
# object, and ``in``, ``==`` of containers and dict lookups match a NaN by identity first; it crosses as the
# receiver's own (``Peer.enc``), and the probe tells the judge so (harness.judge.probe_runtime ``_enc``).
_NAN = _math.nan
SINGLETONS_RULE = """An object the interpreter has once, whose identity a test can check (``f() is ...``, ``key is len``), crosses as
the receiver's own, never as a stand-in or a copy: under plain pytest there is one of each in the process. The kind:
``None``, ``True``, ``False`` (JSON's), ``NotImplemented``, ``math.nan`` (above), and every other non-class value the
``builtins`` module holds when this module loads (before any code of the tree or the test): ``Ellipsis`` and each
built-in function (``len``, ``print``, ``sorted``, ...), named by that name (``Peer.enc``'s ``bi``) and decoded as the
receiver's object captured under it then (a tree's or test's later ``builtins.len = ...`` is a function of its own,
crossing as any function does). The interpreter's classes already cross by identity (``_cls_meta``), enum members of
the interpreter's by class and name (``_enc_member``). Open: a bound method of a singleton (``print.__call__``) and
the objects of ``site`` in builtins (``exit``, ``help``: instances of its classes) cross as handles."""
_BUILTIN_OBJECTS = {k: v for k, v in _vars(_builtins).items() if not k.startswith("_") and
                    (_type(v) is _types.BuiltinFunctionType or v is Ellipsis)}
_BUILTIN_IDS = {id(v): k for k, v in _BUILTIN_OBJECTS.items()}
_write, _read, _pack, _unpack = _os.write, _os.read, _struct.pack, _struct.unpack
_urandom = _os.urandom  # (taken before any code of the tree runs: ``_raised``)
# the stdlib's names the protocol reads while it runs, bound when this module loads: a test's patch carried to the
# subject (``StdlibPatches``; ``monkeypatch.setattr(datetime, "datetime", Fake)``) or the tree's own changes nothing here
_Decimal, _Fraction, _b64encode, _b64decode = _decimal.Decimal, _fractions.Fraction, _base64.b64encode, _base64.b64decode
_Enum = __import__("enum").Enum
_DATE, _DATETIME, _TIME, _TIMEDELTA = _datetime.date, _datetime.datetime, _datetime.time, _datetime.timedelta
_PurePosixPath, _PosixPath, _Path, _import_module = _pathlib.PurePosixPath, _pathlib.PosixPath, _pathlib.Path, _importlib.import_module
# every immutable value that crosses as a copy but a JSON scalar (``Peer.enc``: ``_enc_builtin``, ``_enc_known``): one
# the tree keeps crosses with a token, and the driver keeps one object for it (``Peer._enc_tuple``, ``_enc_kept``)
_KEPT_VALUES = frozenset({frozenset, bytes, complex, range, _Decimal, _Fraction, _DATE, _DATETIME, _TIME, _TIMEDELTA,
                          _PosixPath, _PurePosixPath})
_KEPT_BY_TOKEN = _KEPT_VALUES | {tuple}
_audit, _ModuleType, _get_ident = _sys.audit, _types.ModuleType, _thread.get_ident


# -- identity: which classes are the interpreter's, decided by identity, never by name ---------------
# The subject captures (``capture_identities``, called by harness.judge.subject_main before the tree is
# importable) every class the interpreter holds then: its builtins, every class of every module loaded,
# every exception class. A class crossing to the driver is named only if it *is* one of those objects
# (and its MRO is still the one captured: a stdlib class whose ``__bases__`` the tree reassigned is the
# tree's), or a type defined in C that no code can change (static or immutable: its name is in the type
# itself); any other class is the tree's, whatever ``__name__``, ``__module__`` or ``__qualname__`` it
# gives itself, and so is every such class in an MRO. The MRO and the names are read through ``type``'s
# own descriptors, which a metaclass cannot override (a ``__mro__`` property, an ``mro()`` that lies only
# by name, an ``__instancecheck__``).
_TYPE_MRO = type.__dict__["__mro__"].__get__
_TYPE_DICT = type.__dict__["__dict__"].__get__
_TYPE_BASES = type.__dict__["__bases__"].__get__
_TYPE_FLAGS = type.__dict__["__flags__"].__get__
_TYPE_MODULE = type.__dict__["__module__"].__get__
_TYPE_QUALNAME = type.__dict__["__qualname__"].__get__
_HEAPTYPE, _IMMUTABLETYPE = 1 << 9, 1 << 8
_IDENTITY: dict = {}  # id(class) -> (class, "module.qualname", its MRO when captured, its namespace then)
_BY_NAME: dict = {}  # "module.qualname" -> the captured class (the subject resolves the driver's classes here)


def _capture_class(cls, name=None) -> None:
    if id(cls) in _IDENTITY:
        return
    try:
        name = name or f"{_TYPE_MODULE(cls)}.{_TYPE_QUALNAME(cls)}"
        mro, ns = _TYPE_MRO(cls), _TYPE_DICT(cls)
    except Exception:  # noqa: BLE001
        return
    _IDENTITY[id(cls)] = (cls, name, mro, dict(ns))
    _BY_NAME.setdefault(name, cls)
    for base in mro:
        if id(base) not in _IDENTITY:
            _capture_class(base)


def capture_identities(modules=()) -> None:
    """Capture the interpreter's classes (see above). Called in the subject before any code of the
    tree can run; ``modules``: more modules to import first (the test's own imports of installed
    packages), from the interpreter's directories only (the tree is not on the path yet)."""
    for name in modules:
        try:
            _importlib.import_module(name)
        except Exception:  # noqa: BLE001 - a module the subject cannot import is simply not captured
            pass
    for name, obj in vars(_builtins).items():
        if _isinstance(obj, type):
            _capture_class(obj, f"builtins.{name}" if name == _TYPE_QUALNAME(obj) else None)
    known = _IDENTITY
    for mod in list(_sys.modules.values()):
        ns = getattr(mod, "__dict__", None)
        if isinstance(ns, dict):  # (this module's builtins are its own in the subject: subject_main)
            for obj in [o for o in ns.values() if _isinstance(o, type) and id(o) not in known]:
                _capture_class(obj)
    stack = [BaseException]
    while stack:  # every exception and warning class there is, exported by a module or not
        cls = stack.pop()
        _capture_class(cls)
        stack.extend(type.__subclasses__(cls))


def trusted_name(cls):
    """The interpreter's name of ``cls`` when it is one of the interpreter's classes (above), else None."""
    entry = _IDENTITY.get(id(cls))
    if entry is not None and entry[0] is cls:
        mro = _TYPE_MRO(cls)
        if mro is entry[2] or (_len(mro) == _len(entry[2]) and all(a is b for a, b in zip(mro, entry[2]))):
            return entry[1]
        return None
    flags = _TYPE_FLAGS(cls)
    if not flags & _HEAPTYPE or flags & _IMMUTABLETYPE:
        return f"{_TYPE_MODULE(cls)}.{_TYPE_QUALNAME(cls)}"
    return None


def unpatched(cls) -> bool:
    """Whether ``cls`` is one of the interpreter's classes as it was before the tree ran: a type defined
    in C that no code can change, or a captured class whose namespace holds exactly the objects it held
    when captured (``Counter.__eq__ = dict.__ne__`` makes ``Counter`` the tree's to operate)."""
    flags = _TYPE_FLAGS(cls)
    if not flags & _HEAPTYPE or flags & _IMMUTABLETYPE:
        return True
    entry = _IDENTITY.get(id(cls))
    if entry is None or entry[0] is not cls:
        return False
    now, then = _TYPE_DICT(cls), entry[3]
    return _len(now) == _len(then) and all(then.get(k, _MISSING) is v for k, v in now.items())


_MISSING = object()
# The special methods through which plain pytest's comparison, repr, len, ``in`` and iteration (and the
# test's arithmetic) can reach a value: the rule below compares each, by identity, with its base type's.
_CMP = ("__eq__", "__ne__", "__lt__", "__le__", "__gt__", "__ge__")
_ARITH = tuple(f"__{r}{n}__" for n in ("add", "sub", "mul", "truediv", "floordiv", "mod", "pow", "matmul", "and", "or",
                                       "xor", "lshift", "rshift", "divmod") for r in ("", "r"))
SLOTS = frozenset({*_CMP, *_ARITH})  # what a ``slot`` request may call (one side of a binary operator)
_SPECIAL = (*_CMP, *_ARITH, "__hash__", "__len__", "__contains__", "__iter__", "__reversed__", "__getitem__",
            "__missing__", "__bool__", "__int__", "__index__", "__float__", "__complex__", "__neg__", "__pos__",
            "__abs__", "__invert__", "__round__", "__trunc__", "__floor__", "__ceil__", "__getattribute__",
            "__getattr__", "__class__", "__instancecheck__", "__fspath__")


def _mro_get(mro, name):
    """What attribute lookup finds for ``name`` on a class with this MRO, read from the classes'
    namespaces themselves (as the interpreter's slot lookup does: no metaclass can answer)."""
    for klass in mro:
        ns = _TYPE_DICT(klass)
        if name in ns:
            return ns[name]
    return _MISSING


def _base_class(mro):
    """The value class a value of this MRO is read as: its first built-in value type, or the stdlib's
    Decimal, Fraction, date, datetime; None for any other."""
    known = (*_VALUE_BASES, _Decimal, _Fraction, _DATETIME, _DATE)
    for klass in mro:
        if klass in known:
            return klass
    return None


def crosses_as_base(cls) -> bool:
    """Whether a value of ``cls`` (a subclass of a value type) may cross from the subject as its base
    value: every class in its MRO is the interpreter's and unpatched (``unpatched``), and for every
    special method plain pytest could call on it (``_SPECIAL``) the object its MRO finds *is* the base
    type's own (``OrderedDict.__eq__``, ``Counter.__eq__``, ``defaultdict.__missing__`` are not). Any
    other value is a tree object: it crosses with the flag "op" and every operation on it runs in the
    subject (``Peer.shadow``), as plain pytest runs it. A class of the tree is never the interpreter's,
    so its values are always tree objects, whatever methods it defines or borrows."""
    mro = _TYPE_MRO(cls)
    return all(unpatched(k) for k in mro) and _behaves_as_base(mro)


def _behaves_as_base(mro) -> bool:
    """Whether every special method a value of this MRO answers with (``_SPECIAL``) *is* its base
    type's own (a class of the tree may have none of its own: an enum of ints)."""
    base = _base_class(mro)
    if base is None:
        return False
    own = _TYPE_MRO(base)
    return all(_mro_get(mro, name) is _mro_get(own, name) for name in _SPECIAL)


def observed_as_base(cls) -> bool:
    """Whether the probe may observe a tree object of ``cls`` by its base value (the judge compares
    that with the expected value outside the sandbox, where no code of the tree can run): only when
    no code of the tree can answer for it. For every special method (``_SPECIAL``), the object a value
    of ``cls`` finds must be the base type's own for that name (``_behaves_as_base``), or one held under
    that same name by an unpatched class of the interpreter in its MRO whose methods read the value's
    own storage (``_value_holder``: ``enum``'s, and ``collections``' subclasses of the base type); a value
    with no built-in storage (a UserDict, read through ``items()``) may find them in any unpatched class of
    the interpreter in its MRO. So an enum of ints, an ``IntFlag`` (whose class ``enum`` gives ``Flag.__or__`` as
    ``__or__``) and a stdlib ``Counter`` (read as the dict it is) are observed by value; a mixin's
    method (``UserString.__eq__`` compares ``.data``, not the str), an ``__eq__`` the tree wrote, patched
    in or borrowed from another slot (``__eq__ = int.__ne__``, ``__contains__ = dict.__contains__``)
    makes the value opaque to the probe, which the judge finds equal to nothing, as it does every other
    object of the tree. Decided when the value crosses and again when the probe observes it
    (``observation``): a class patched in between is read as it is then."""
    mro = _TYPE_MRO(cls)
    base = _base_class(mro)
    if base is None:  # no built-in storage: its value was read through the ABC's protocol (``_value_base``:
        # a UserDict's ``items()``), which the unpatched class's own methods read too
        own: tuple = ()
        holders = [k for k in mro if unpatched(k)]
    else:
        own = _TYPE_MRO(base)
        holders = [k for k in mro if k not in own and unpatched(k) and _value_holder(k, base)]
    for name in _SPECIAL:
        if name == "__missing__" and own:  # (read only by a subscript of a missing key, never by the judge's
            continue  # comparison, ``in``, ``len`` or iteration of the storage; the judge's copy raises on it)
        found = _mro_get(mro, name)
        if found is _MISSING or (own and found is _mro_get(own, name)):
            continue
        if not any(_TYPE_DICT(k).get(name, _MISSING) is found for k in holders):
            return False
    return True


# Names a class namespace holds that no reading of a value can reach through its instances: the class's
# own bookkeeping and its construction (the judge builds its copy of the value with the base's constructor).
_INERT = frozenset({"__module__", "__qualname__", "__doc__", "__dict__", "__weakref__", "__slots__", "__annotations__",
                    "__slotnames__",  # (copyreg's cache, written into the class by the first copy or pickle)
                    "__orig_bases__", "__parameters__", "__init__", "__new__", "__init_subclass__", "__class_getitem__",
                    "__firstlineno__", "__static_attributes__", "__classcell__", "__abstractmethods__", "_abc_impl",
                    "__subclasshook__", "__class__", "__getattribute__", "__getattr__", "__setattr__", "__delattr__",
                    "__set_name__"})
MAX_ANSWERED = 512  # names a value observed by its base may carry (``answered_names``); past that it is opaque


def answered_names(cls) -> list:
    """The names a value of ``cls`` answers with code of the tree: every name in the namespace of a class
    of its MRO that is not the interpreter's unpatched class (``unpatched``) whose lookup finds something
    other than what the base type's lookup finds (``_INERT`` aside). The judge's copy of a value observed by
    its base (``observed_as_base``) holds the base's storage and raises ``Undecidable`` on each of these
    names, so a builtin the judge applies to it (``bytes``, ``%``, ``str.format``, ``Fraction``) that plain
    pytest would answer through the tree's ``__bytes__``, ``__str__``, ``__format__`` or ``numerator`` fails
    the check instead of reading the base value (harness.judge.judge ``tree_value``)."""
    return _names_otherwise(cls, tree_only=True)


_FIXED_NAMES: dict = {}  # id(class) -> (class, its differing_names) for classes no code can change


def differing_names(cls) -> list:
    """The names a value of ``cls`` answers otherwise than its base type does, in any class of its MRO
    (the tree's, or the interpreter's: a ``Counter``'s ``__eq__``), ``_INERT`` aside. The driver's stand-in
    of a tree object forwards exactly these to the live object (``_forward_class``), and leaves every
    other reading to the base type's own code on its storage, which is the live object's
    (``Peer._mirror_sync``): so the driver's C code reads it as plain pytest's reads the live object
    (``dict()`` of a dict whose class writes only ``keys`` reads its storage; ``reversed`` and ``round``
    call the class's ``__reversed__`` and ``__round__``)."""
    fixed = _FIXED_NAMES.get(id(cls))
    if fixed is not None and fixed[0] is cls:
        return fixed[1]
    out = _names_otherwise(cls, tree_only=False)
    if all(_TYPE_FLAGS(k) & _IMMUTABLETYPE or not _TYPE_FLAGS(k) & _HEAPTYPE for k in _TYPE_MRO(cls)):
        _FIXED_NAMES[id(cls)] = (cls, out)  # no code can change such a class (numpy's scalar types)
    return out


def _special(names) -> list:
    return [n for n in names if n[:2] == "__" == n[-2:]]


def _names_otherwise(cls, tree_only: bool) -> list:
    """The names in the namespaces of ``cls``'s MRO (past its base type's own classes; only the tree's,
    those not ``unpatched``, when ``tree_only``) that its lookup answers otherwise than the base type's."""
    mro = _TYPE_MRO(cls)
    base = _base_class(mro)
    own = _TYPE_MRO(base) if base is not None else ()
    names: set = set()
    for klass in mro:
        if any(klass is k for k in own) or (tree_only and unpatched(klass)):
            continue
        for name in list(_TYPE_DICT(klass)):
            if _type(name) is str and name not in _INERT and name not in names and \
                    _mro_get(mro, name) is not (_mro_get(own, name) if own else _MISSING):
                names.add(name)
    return sorted(names)


# What a tree exception class's stand-in never forwards: the class's own bookkeeping, its construction (the
# driver builds the stand-in with the base's ``__new__``; ``RemoteMeta.__call__`` asks the subject to construct
# an instance), and the class hooks (``class_hooks``: run in the subject or failed closed, never forwarded)
_EXC_INERT = frozenset({"__module__", "__qualname__", "__doc__", "__dict__", "__weakref__", "__slots__",
                        "__annotations__", "__orig_bases__", "__parameters__", "__init__", "__new__",
                        "__init_subclass__", "__class_getitem__", "__firstlineno__", "__static_attributes__",
                        "__classcell__", "__abstractmethods__", "_abc_impl", "__subclasshook__", "__class__"})
# what a tree exception class may define that the driver can neither forward nor read as plain pytest does:
# every attribute read, write or deletion of the stand-in would run it (``_exc_closed``)
EXC_CLOSED = frozenset({"__getattribute__", "__setattr__", "__delattr__"})


def exception_names(cls) -> tuple:
    """(names, nones) of a tree exception class (or a patched one): every name in the namespace of a class
    of its MRO that is not the interpreter's unpatched class (``unpatched``), ``_EXC_INERT`` aside, and of
    those the ones whose lookup finds None (``__hash__ = None``). The driver's stand-in class forwards each
    to the live exception (``_exc_forward``): a ``split``/``derive`` that ``except*`` calls, a ``message``,
    ``errno``, ``code``, ``value`` or ``__cause__`` property, a ``__repr__``/``__str__``; plain pytest runs
    the tree's, and the built-in member the stand-in has would read otherwise."""
    mro = _TYPE_MRO(cls)
    names: set = set()
    for klass in mro:
        if unpatched(klass):
            continue
        names.update(n for n in _TYPE_DICT(klass) if _type(n) is str and n not in _EXC_INERT)
    nones = [n for n in names if _mro_get(mro, n) is None]
    return sorted(names), sorted(nones)


_TYPE_HOOKS = {name: type.__dict__[name] for name in ("__instancecheck__", "__subclasscheck__")}


def class_hooks(cls) -> list:
    """The hooks through which plain pytest runs a tree class's code when the test uses the class itself:
    "sub" (a subclass runs code of the tree: a metaclass other than ``type``, or an ``__init_subclass__`` of
    a class of the tree or a patched one), "isc"/"ssc" (``isinstance``/``issubclass`` against it call its
    metaclass's ``__instancecheck__``/``__subclasscheck__``, which are not ``type``'s), "cgi" (``C[...]``
    calls its ``__class_getitem__``). The driver's stand-in class (``_synth_class``) runs each in the
    subject where it can and fails closed where it cannot (``RemoteMeta``)."""
    out: set = set()
    meta = _type(cls)
    if unpatched(meta) and all(unpatched(k) for k in _TYPE_MRO(cls)):
        return []  # the interpreter's own class, as it was: its hooks are the driver's copy's
    if meta is not type:
        out.add("sub")
        meta_mro = _TYPE_MRO(meta)
        for name, flag in (("__instancecheck__", "isc"), ("__subclasscheck__", "ssc")):
            if _mro_get(meta_mro, name) is not _TYPE_HOOKS[name]:
                out.add(flag)
    for klass in _TYPE_MRO(cls):
        if unpatched(klass):
            continue
        ns = _TYPE_DICT(klass)
        if "__init_subclass__" in ns:
            out.add("sub")
        if "__class_getitem__" in ns:
            out.add("cgi")
    return sorted(out)


def _observe(x):
    """The ``observe`` request: how the probe may read the live value ``x`` now. False: opaque (a special
    method of the tree's, or a class patched since it crossed: ``observed_as_base``); else [its base value
    now, read through the base type's own methods (``_value_base``: never the copy the stand-in was made
    from, which a method of the tree may have changed since), the names the tree answers (``answered_names``)]."""
    cls = _type(x)
    if not observed_as_base(cls):
        return False
    names = answered_names(cls)
    if _len(names) > MAX_ANSWERED:
        return False
    base = _value_base(x)
    return False if base is None else [base, names]


def _value_holder(klass, base) -> bool:
    """Whether ``klass`` (unpatched) is a class whose special methods read a value's own storage: one
    of ``enum``'s (an ``IntFlag`` answers ``in``, ``len`` and ``|`` with ``Flag``'s), one of numpy's (a
    ``numpy.float64`` is a float whose comparisons numpy's scalar types answer from the same C double:
    ``np.median`` returns one, and an honest tree returning it must not be opaque), or a subclass of
    ``base`` from ``collections`` (``Counter``, ``OrderedDict``, ``defaultdict``; never a mixin such as
    ``UserString``, whose ``__eq__`` compares ``.data``), by the name it was captured under
    (``trusted_name``: by identity, never the name a class gives itself)."""
    name = trusted_name(klass)
    if name is None:
        return False
    return name.startswith(("enum.", "numpy.")) or (name.startswith("collections.") and base in _TYPE_MRO(klass))


def _slot(name, a, *rest):
    """One side of a binary operator, as the interpreter calls it: the method ``type(a)`` finds for
    ``name`` (``NotImplemented`` when it has none), applied to ``a`` and ``rest``. The other side, and
    the identity fallback of ``==``, are left to the caller's interpreter, which holds the other operand."""
    if name not in SLOTS:
        raise RemoteError(f"not an operator slot: {name!r}")
    method = _mro_get(_TYPE_MRO(_type(a)), name)
    if method is _MISSING or method is None:
        return NotImplemented
    get = _getattr(_type(method), "__get__", None)
    return (get(method, a, _type(a)) if get is not None else method)(*rest)


def _direct(f, a, k):
    return f(*a, **k)


def crossing():
    """The subject's crossing frame: a function through which every request reaches the tree's code,
    compiled under a file name drawn at random for this subject (no file has it). A warning whose origin
    is that name was attributed by the interpreter to the frame that called into the tree, which stands
    for the test's line; the driver then puts it at the line where the probe made the request (its own
    record). Any other origin, a name the tree passed to ``warn_explicit`` included, is kept as given."""
    name = f"<hx-crossing-{_os.urandom(16).hex()}>"
    ns: dict = {"__name__": "_hx_crossing"}  # a module name, as a caller's globals have (warn_explicit(module=None) drops)
    exec(compile("def cross(f, a, k, /):\n    return f(*a, **k)\n", name, "exec"), ns)  # noqa: S102
    return ns["cross"], name


class RemoteError(Exception):
    """The peer broke the protocol (a malformed message, an unknown object)."""


class Closed(RemoteError):
    """The peer is gone (EOF on the connection)."""


class ProtocolFault(RemoteError):
    """The peer could not send its reply (``Peer._serve``): the request neither returned nor raised
    as plain pytest would see it. The driver has recorded it (``on_fault``): the test fails, even if
    it catches this."""


def _why(exc) -> str:
    """A short account of an encoding failure, never through the exception's own ``__str__`` (the
    tree's code) unless it is one of the interpreter's plain errors, or this protocol's own, with a str message."""
    text = ""
    if _type(exc) in (ValueError, TypeError, RecursionError, OverflowError, RemoteError, Closed, ProtocolFault):
        args = BaseException.__getattribute__(exc, "args")
        text = args[0] if args and _type(args[0]) is str else ""
    return f"{qualname(_type(exc))}: {text[:200]}" if text else qualname(_type(exc))


def qualname(cls) -> str:
    try:
        return f"{type.__getattribute__(cls, '__module__')}.{type.__getattribute__(cls, '__qualname__')}"
    except Exception:  # noqa: BLE001
        return "?"


def _trusted_prefixes():
    import sysconfig
    paths = sysconfig.get_paths()
    keys = [paths[k] for k in ("stdlib", "platstdlib", "purelib", "platlib") if paths.get(k)]
    return tuple(sorted({_os.path.realpath(p) for p in keys} | {_os.path.abspath(p) for p in keys}))


TRUSTED = _trusted_prefixes()


def _under_trusted(path: str) -> bool:
    return any(path == p or path.startswith(p + "/") for p in TRUSTED)


_REAL_DIRS: set = set()  # directories of the interpreter's that ``realpath`` left as they are (``trusted_file``)
_lstat, _S_ISLNK = _os.lstat, __import__("stat").S_ISLNK


def trusted_file(path) -> bool:
    """Whether a module file belongs to the interpreter (stdlib or installed packages), not the tree:
    it lies in one of the interpreter's directories, and so does what it leads to. A link of the
    tree into the stdlib is the tree's (its bytecode is read from the tree's own __pycache__).

    Each directory is resolved once a process (``_REAL_DIRS``; a watch of every module asks for a few
    hundred files in a few dozen directories, ``StdlibPatches.watch``, ``_library_classes``): a file
    given by its normalized path, in a directory of the interpreter's that ``realpath`` found free of
    links, resolves to itself unless it is a link itself, which one ``lstat`` tells; a link is resolved
    in full. The answer is ``realpath``'s as long as the interpreter's directories are as they were; the
    rule trusts whatever lies at their paths anyway, so a tree able to change them gains nothing here."""
    if not path or not _isinstance(path, str):
        return True
    if not path.startswith("/"):
        return path in ("built-in", "frozen")
    full = _os.path.abspath(path)
    if not _under_trusted(full):
        return False
    d = full.rpartition("/")[0]
    if full == path and d and d not in _REAL_DIRS and _under_trusted(d) and _os.path.realpath(d) == d:
        _REAL_DIRS.add(d)
    if full == path and d in _REAL_DIRS:
        try:
            if not _S_ISLNK(_lstat(full).st_mode):
                return True  # (``realpath`` gives ``full`` itself)
        except OSError:
            return True  # (``realpath`` keeps an entry it cannot stat as it is)
    return _under_trusted(_os.path.realpath(path))


class _Budget:
    """One encoding's node count, and (for a request's arguments) the mutable containers met, in
    encoding order (``track``), or (for a write-back or a reply) the receiver's index of each container
    the request carried (``refs``: id -> index), so an unchanged inner container is named, not copied
    (``top``: the value itself may be one, a callee that returns its argument). ``kept``: the ids of the
    containers this side still holds besides the value (``_kept``): each crosses linked (``Peer._link``);
    ``memo``: one message's identity. A container met twice in one message (``f(r, r)``, ``[row, row]``, a dict
    whose two values are one list) crosses once and then as an alias of its index (``al``), so the receiver has
    one object where the sender had one, as under plain pytest (the order is the one both sides' ``track`` keep);
    ``linking``: the contents of a linked container are being encoded (every container in them is linked)."""

    def __init__(self, track=None, refs=None, kept=None, top=False):
        self.n = 0
        self.track, self.refs, self.kept, self.top = track, refs, kept, top
        self.linking = False
        self.tuples: set | None = None  # (a reply) the ids of the tuples the tree keeps (``Peer._enc_tuple``)
        self.memo: dict = {}  # id -> index in ``track`` of each container encoded whole: met again, it is an alias


class _Ctx:
    """Decoding state: the mutable containers met while decoding a request's arguments, in the
    order the sender encoded them (``track``), or the sender's own containers a write-back names
    (``originals``)."""

    def __init__(self, track=None, originals=None):
        self.track, self.originals = track, originals


_OrderedDict = _collections.OrderedDict  # bound when this module loads: ``collections.OrderedDict = X`` in the tree changes nothing here
_MUTABLE = (list, dict, set, bytearray, _OrderedDict)
_defaultdict, _Counter = _collections.defaultdict, _collections.Counter
_DICTS = (_defaultdict, _Counter)  # crossing as themselves from the driver, written back like a dict (``_enc_dict``)
_getrefcount, _is = _sys.getrefcount, _operator.is_
_chain = _itertools.chain.from_iterable


def _kept(root, held: int) -> set:
    """The ids of the mutable containers (``_MUTABLE``) in ``root``, reached through the built-in
    containers only, that something besides ``root`` itself still references: the tree's own state
    handed out (``return self._items``, a module's list), as opposed to a value built for the caller.
    Counted by reference count: a container is kept when it has more references than the value's own
    containers hold to it (``held``: the caller's own references to ``root``). Over-counting only links
    a fresh value, which the next message unlinks (``Peer._link_sync``)."""
    return _kept_of(_walk(root, held + 1))  # (+1: this call's parameter)


def _walk(root, held: int, tuples: dict | None = None) -> dict:
    found: dict = {}  # id -> [container, references the value's own containers hold to it]
    seen: set = set()
    stack = [root]
    if _type(root) in _MUTABLE:
        found[id(root)] = [root, held]
    elif tuples is not None and _type(root) in _KEPT_BY_TOKEN:
        tuples[id(root)] = [root, held]
    while stack:
        x = stack.pop()
        t = _type(x)
        if t is list or t is tuple:
            items = t.__iter__(x)
        elif t is dict or t is _OrderedDict:  # (a key is never a mutable container: read for the kept values only)
            items = dict.values(x) if tuples is None else _chain((dict.keys(x), dict.values(x)))
        elif (t is set or t is frozenset) and tuples is not None:
            items = t.__iter__(x)
        else:
            continue
        for v in items:
            tv = _type(v)
            if tv in _MUTABLE:
                entry = found.get(id(v))
                if entry is None:
                    found[id(v)] = [v, 1]
                    stack.append(v)
                else:
                    entry[1] += 1
            elif tv in _KEPT_BY_TOKEN:
                if tuples is not None:
                    entry = tuples.get(id(v))
                    if entry is None:
                        tuples[id(v)] = [v, 1]
                    else:
                        entry[1] += 1
                if (tv is tuple or tv is frozenset) and id(v) not in seen:
                    seen.add(id(v))
                    stack.append(v)
    return found  # (this frame's references end with it: ``_kept_of`` counts the world's)


def _kept_with_tuples(root, held: int) -> tuple:
    """``_kept``, and the ids of the tuples and other immutable values that cross as copies (``_KEPT_VALUES``) in
    ``root`` (itself too) that something besides the value holds (the tree's constant or cache, a code object's
    constant: ``Peer._enc_tuple``), counted the same way."""
    tuples: dict = {}
    return _kept_of(_walk(root, held + 1, tuples)), _kept_of(tuples)


def _kept_of(found: dict) -> set:
    # each entry's list and getrefcount's argument are the two references this count adds
    return {key for key, entry in found.items() if _getrefcount(entry[0]) - 2 > entry[1]}


TREE_NAMESPACE_RULE = """A module of the tree is one namespace under plain pytest: what the tree's call binds there (``global n; n += 1``,
a function rebound, a name deleted) the test reads as ``pkg.n`` afterwards, and a list, dict or set bound there is one
object the tree and the test both change (``log.append(1)`` in the tree, ``pkg.log == [1]`` or ``from pkg import log`` in
the test; the test's ``pkg.log.append`` reaching the tree). In the judged run the driver's proxy module of a tree module
(``_ProxyModule``) is written by the subject's messages alone: the subject watches each module the driver imports
(``Peer._watch_namespace``) and, with every message it sends (the import's reply, a reply, an exception, a call-out to
the test's callback), sends the bindings that changed since its last message (``tm``, ``Peer._namespace_change``: found
by the module dict's version tag, one 8-byte read a module, and the module's class); the driver sets them before the
test's next line (``Peer.set_namespace``, the proxy's one writer). A binding crosses as a reply's value does: a handle,
a value, a container linked (``_kept``: the module holds it), kept in step with every message both ways
(``_link_sync``). What the proxy does not hold it reads by a ``getattr`` request, as fresh as a reply: a name bound to a
module (its import then a request of its own, never one made while a message naming its own links is read; ``vars``,
``dir``, ``import *`` and ``monkeypatch`` read the proxy's ``__dict__``, which then holds every such name until the
next message: ``Peer.materialize``), a container past the link bounds (``MAX_LINKS``, ``MAX_LINKED_ITEMS``:
it would cross as a copy), every name of a module whose class is not the module type (its class may answer any name: a
property, a setter). The module's own ``__getattr__`` and ``__dir__`` (PEP 562) are bindings too. The test's writes (``pkg.x = 5``, ``del pkg.x``, ``monkeypatch``, a dunder of the import system's
such as ``__version__``) are requests, and the reply's change writes them here (a setter's value, a deletion). A binding
that cannot cross (too deep) is a fault, and so is a write of the test's own into the proxy's ``__dict__``
(``mock.patch.dict``, ``vars(pkg).update``: no request carries it; ``Peer._namespace_written``, stricter). The proxy's
handle is kept beside it (``module_ref``), never in its namespace.
A container bound in the module that a thread of the tree changes while the test waits outside the judge's schedule
(a busy wait on a clock, ``select``, a child process) is a linked container moved between messages, a fault
(``Peer._moved``: the test may have read its copy stale) unless the test cannot have reached it: the driver names, with
the message that gives the tree's threads the wait, the namespace links the test has not reached (``unread_links``:
made reading a namespace, never read through the proxy module, ``_ProxyModule.__getattribute__``, nor named by another
message, nor held by a container that was; none once the test read a proxy's ``__dict__``), and their change just
crosses with the reply. Open: a container past the
link bounds the test holds (``x = pkg.big``) is a copy, as any reply's is; a module the tree makes without the import
system (``types.ModuleType`` handed to the test) is a plain stand-in, each read a request. Every name of the namespace is a
binding of the tree's but the import system's own (``_IMPORT_DUNDERS``: ``__name__``, ``__spec__``, ``__loader__``,
``__package__``, ``__path__``, ``__cached__``, ``__builtins__``, and the warnings registry), which the driver's import
sets: a dunder no import sets (``__author__``, ``__annotations__``) is read and written as any name (a list of kept
dunders missed the tree's ``__author__`` both ways: red teams atk25 and atk26)."""


_WALKED = (list, dict, set, tuple, frozenset)  # what ``Peer.expose`` reads into: the built-in containers and stand-ins of them
_IMPORT_DUNDERS = frozenset({"__name__", "__loader__", "__package__", "__spec__", "__path__", "__cached__",
                             "__builtins__", "__dict__", "__class__", "__warningregistry__"})
_MODULE_REFS: _weakref.WeakKeyDictionary = _weakref.WeakKeyDictionary()  # driver: a proxy module -> its handle


def module_ref(mod) -> int | None:
    """(driver) A proxy module's handle, kept beside it (never a binding of its namespace, which is the tree's)."""
    return _MODULE_REFS.get(mod)


def namespace_name(k) -> bool:
    """Whether a binding of a tree module's namespace is one its proxy module in the driver holds (``TREE_NAMESPACE_RULE``)
    and writes by a request: every name but the import system's own dunders (``_IMPORT_DUNDERS``)."""
    return _type(k) is str and k not in _IMPORT_DUNDERS


def _namespace_of(mod) -> dict:
    """The bindings of ``mod`` its proxy module is told of (``Peer._namespace_change``)."""
    return {k: v for k, v in _vars(mod).items() if namespace_name(k)}


def _fill(obj, new) -> None:
    """Make the container ``obj`` hold what ``new`` (of its exact type) holds, in place, through the
    built-in types' own methods."""
    t = _type(obj)
    if _type(new) is not t:
        raise RemoteError("a container's new contents are of another type")
    if t is list:
        list.__setitem__(obj, slice(None), new)
    elif t is bytearray:
        bytearray.__setitem__(obj, slice(None), new)
    elif t is set:
        set.clear(obj)
        set.update(obj, new)
    elif t is _OrderedDict:
        _OrderedDict.clear(obj)
        _OrderedDict.update(obj, new)
    else:
        dict.clear(obj)
        dict.update(obj, new)


_EMPTY = {"l": list, "d": dict, "s": set, "ba": bytearray, "od": _OrderedDict}  # a linked container's kind -> its class


def _snapshot(x):
    """What a mutable container holds now (shallow), to tell afterwards whether it changed: its items,
    or a mapping's keys and values, in its order (an OrderedDict's own: ``move_to_end`` is a change)."""
    t = _type(x)
    if t is bytearray:
        return bytes(x)
    if t is _OrderedDict:
        return list(_OrderedDict.keys(x)), list(_OrderedDict.values(x))
    if t is dict or t in _DICTS:
        return list(dict.keys(x)), list(dict.values(x))
    return list(t.__iter__(x))


def _same(now, then) -> bool:
    # by identity, in C (``operator.is_``): no item's own ``__eq__`` runs, whichever side this is
    return _len(now) == _len(then) and all(map(_is, now, then))


def _unchanged(x, snap) -> bool:
    now = _snapshot(x)
    if _type(now) is bytes:
        return now == snap
    if _type(now) is tuple:
        return _same(now[0], snap[0]) and _same(now[1], snap[1])
    return _same(now, snap)


def _base_snapshot(x):
    """A tree subclass of list, dict or set's storage now, read through the base type's own methods
    (never the tree's): (its base, its items or keys, a dict's values)."""
    if _isinstance(x, dict):
        return dict, list(dict.keys(x)), list(dict.values(x))
    if _isinstance(x, list):
        return list, list(list.__iter__(x)), ()
    return set, list(set.__iter__(x)), ()


def _fill_base(obj, new) -> None:
    """Make the stand-in ``obj`` (an instance of a subclass of list, dict or set) hold ``new`` (of its
    base type), through the base type's own methods."""
    if _isinstance(obj, list) and _type(new) is list:
        list.__setitem__(obj, slice(None), new)
    elif _isinstance(obj, dict) and _type(new) is dict:
        dict.clear(obj)
        dict.update(obj, new)
    elif _isinstance(obj, set) and _type(new) is set:
        set.clear(obj)
        set.update(obj, new)
    else:
        raise RemoteError("a mirrored value of another type")


_ITEMS = {list: (list.__iter__,), set: (set.__iter__,), bytearray: (bytearray.__iter__,), dict: (dict.keys, dict.values),
          _OrderedDict: (_OrderedDict.keys, _OrderedDict.values)}  # how ``_snapshot`` reads each linked kind, in C


class _LinkSig:
    """All linked containers as last synced, for the check at every message (``Peer._link_sync``) in C
    over all of them at once: by kind, their lengths and their items (a mapping's keys and values)
    concatenated, compared by identity with what they hold now. ``base``: each container's reference
    count when only this side's tables hold it (the table, this object's two lists, the count's
    argument, and two per snapshot of a linked container that holds it: its own and this one's)."""

    def __init__(self, links: dict, snaps: dict):
        by_kind: dict = {}
        for lid, obj in links.items():
            by_kind.setdefault(_type(obj), []).append(lid)
        self.groups: list = []
        self.lids, self.objs = [], []
        held: list = []
        for kind, lids in by_kind.items():
            objs, kept = [links[lid] for lid in lids], [snaps[lid] for lid in lids]
            if kind is dict or kind is _OrderedDict:
                lens = [_len(k) for k, _v in kept]
                flats = [list(_chain(k for k, _v in kept)), list(_chain(v for _k, v in kept))]
            else:
                lens, flats = list(map(_len, kept)), [list(_chain(kept))]
            self.groups.append((_ITEMS[kind], objs, lens, flats))
            self.lids += lids
            self.objs += objs
            held += flats
        self.items = sum(_len(flat) for flat in held)
        occurs = _collections.Counter(map(id, _chain(held)))
        self.base = [4 + 2 * occurs.get(id(obj), 0) for obj in self.objs]

    def unchanged(self) -> bool:
        for items, objs, lens, flats in self.groups:
            if list(map(_len, objs)) != lens:
                return False
            for read, flat in zip(items, flats):
                if not _same(list(_chain(map(read, objs))), flat):
                    return False
        return True


# -- class stamps: any write to a class a stand-in was made from (``Peer._classes_moved``) ---------------------------
# The rule: what the tree can change here is every class dict of the stand-in's class's MRO (a name added, replaced or
# deleted, in place or through the dict itself) and the MRO (``__bases__``); a stamp sees each exactly: the MRO by
# identity, and each class dict by CPython's dict version tag (``ma_version_tag``, a global counter every insert,
# replacement, delete or clear of a dict moves: one 8-byte read per class at each message), or where that tag cannot
# be read (another interpreter) by the identity of every key and value. Never by sizes (a replacement in place or one
# name deleted and one added keeps every size).
_DICT_VERSION_AT = 24  # offsetof(PyDictObject, ma_version_tag) in CPython 3.11-3.13 (refcount, type, ma_used)


def _dict_version_reader():
    """The pieces ``_dict_cells`` reads class dicts' version tags with, bound when this module loads (None where that
    tag is not there to read: not CPython 3.11-3.13, or no ctypes). No cell is made here (``_dict_cells`` makes them)."""
    if _sys.implementation.name != "cpython" or not (3, 11) <= _sys.version_info[:2] <= (3, 13):
        return None
    try:
        import ctypes
        # (``value``: a static type's descriptor, no class attribute of the tree's can replace it)
        return ctypes.c_uint64.from_address, ctypes.c_void_p.from_address, ctypes._SimpleCData.__dict__["value"].__get__
    except Exception:  # noqa: BLE001 - no ctypes: the identity of keys and values instead
        return None


_VERSIONS = _dict_version_reader()
_VERSIONS_CHECKED: list = []  # [whether a write to a dict moved its version tag], once ``_dict_cells`` checked it


def _dict_cells(mro) -> list | None:
    """(subject) A ctypes cell over each class dict's version tag in ``mro`` (a mappingproxy holds its dict's pointer
    right after its header), or None (no tag to read, or, checked once, a write that does not move it). Its code is
    exempt from the audit hook's ctypes evidence (harness.judge.subject_main: the harness's own read, matched by code
    identity); plain loops, so that the frame making each cell is this one."""
    if _VERSIONS is None:
        return None
    u64, ptr, value = _VERSIONS
    if not _VERSIONS_CHECKED:
        probe: dict = {}
        cell = u64(id(probe) + _DICT_VERSION_AT)
        seen = [value(cell)]
        probe["x"] = 1
        seen.append(value(cell))
        probe["x"] = 2
        seen.append(value(cell))
        del probe["x"]
        seen.append(value(cell))
        _VERSIONS_CHECKED.append(_len(set(seen)) == 4)
    if not _VERSIONS_CHECKED[0]:
        return None
    cells = []
    for k in mro:
        proxy = _TYPE_DICT(k)
        if _type(proxy) is not _types.MappingProxyType:
            return None
        addr = value(ptr(id(proxy) + 16))
        if not addr:
            return None
        cells.append(u64(addr + _DICT_VERSION_AT))
    return cells


def _class_marks(mro) -> tuple:
    """What every class dict of ``mro`` holds now, to tell afterwards whether any changed (``_marks_same``): its
    version tags (``_dict_cells``: the cells and their values), else each dict's keys and values."""
    cells = _dict_cells(mro)
    if cells is not None:
        return cells, list(map(_VERSIONS[2], cells))
    proxies = list(map(_TYPE_DICT, mro))
    return None, [(list(p.keys()), list(p.values())) for p in proxies], proxies


def _marks_same(marks: tuple) -> bool:
    if marks[0] is not None:
        return list(map(_VERSIONS[2], marks[0])) == marks[1]
    return all(_same(list(p.keys()), k) and _same(list(p.values()), v) for p, (k, v) in zip(marks[2], marks[1]))


class Peer:
    """One side of the protocol. ``side`` is "driver" or "subject"."""

    def __init__(self, fd: int, side: str):
        self.fd, self.side = fd, side
        self.objs: dict = {}  # handle id -> our object
        self.byid: dict = {}  # id(our object) -> handle id
        self.next = 1
        self.proxies: dict = {}  # peer handle id -> our proxy of it
        self.classes: dict = {}
        self.on_msg = None  # driver: called with every message received (output, warnings)
        self.on_fault = None  # driver: called with the reason of every protocol fault sent or received
        self.capture = None  # subject: (stdout, stderr) buffers flushed into every message
        self.cross, self.crossing_file = _direct, None  # subject: ``crossing()``
        self.ps: ProcState | None = None  # ProcState: the process state both sides share, synced at every message
        # linked containers (``_link``): link id -> our container, id(container) -> link id, link id ->
        # its contents at the last sync; ids this side allocates (the subject's > 0, the driver's < 0)
        self.links: dict = {}
        self.link_ids: dict = {}
        self.link_snaps: dict = {}
        self.link_next = 1 if side == "subject" else -1
        self.link_sig: _LinkSig | None = None  # ``_LinkSig`` of the links as last synced (None: to be made again)
        self.link_items = 0  # the items of the linked containers, as last counted (``_room``, ``_LinkSig``)
        # mirrored tree objects of a mutable base (``_mirror``): handle id -> [the object, its storage as last sent]
        self.mirrors: dict = {}
        self.mirror_items = 0
        self._namespace_tables()
        self.class_names: dict = {}  # a tree object's class handle -> the names it answers, as last sent (``_enc_names``)
        # subject: a tree object's class handle -> [the class, its MRO, its class dicts' marks, the names its stand-ins
        # forward] when a stand-in of it was first made, and each stand-in's live object handle -> (object, class)
        # (``_classes_moved``)
        self.class_stamps: dict = {}
        self.operated: dict = {}  # handle id -> live object; ``operated_types``: the same keys -> its class then
        self.operated_types: dict = {}
        self.warning_filters: list = []  # subject: the driver's filters as ``_Warnings`` applies them
        self.filters_sent: list | None = None  # driver: the spec of its filters last sent (``_filter_spec``)
        # subject: faults to report with its next message (``pf``: the driver records each, the test fails),
        # and the sizes of its descriptors 1 and 2 when it last sent one (``_moved``; None before its first)
        self.pending: list = []
        self.out_sizes: tuple | None = None
        self.overflow: list = []  # [container, its contents] kept by the callee past the links' bound (``_retained``)
        self.frozen_out: list = []  # subject: the request's indices of those, for the reply (``ov``, ``_freeze``)
        # the driver's handles of the subject's objects (``proxy``), held weakly: handle id -> weak reference; the
        # ids of those the test dropped since its last message (``_dropped``, sent as ``rl``), and how many
        # requests are under way (a release is sent at once only when none is)
        self.handles: dict = {}
        self.released: dict = {}
        self._stand_in_tables()
        self.depth = 0
        # the containers of the requests under way, outermost first (``_in_flight``), and their index (None: to make)
        self.inflight: list = []
        self.inflight_map: dict | None = None
        self.ended = False  # (driver) the subject is being stopped: nothing more is sent
        self.sd_served: int | None = None  # (subject) the driver's depth of the request being served (``STACK_DEPTH_RULE``)
        if side == "driver":
            _DRIVER_PEERS[:] = [self]
        self._schedule_state()
        self._patch_tables()

    def _patch_tables(self) -> None:
        """What the test changed of code the tree's calls run (``_apply_test_patches``)."""
        # subject: what the test set on a tree class (``csetattr``): (id(class), name) -> (class, its own value before)
        self.class_patches: dict = {}
        self.stdlib_patches: dict = {}  # subject: (module, name) -> (module, its value before the test's patch)
        # the test's members of loggers (``LOGGER_PATCH_RULE``): subject: (logger name, member) -> (logger, its value
        # before); driver: the sizes of the loggers' ``__dict__`` at the last request, the (name, member, value) sent
        self.logger_patches: dict = {}
        self.lp_sizes: list | None = None
        self.lp_sent: list = []
        self.module_stubs: dict = {}  # subject: a sys.modules name the test stubbed -> its entry before (``_apply_stubs``)
        self.class_std_patches: dict = {}  # subject: (module, qualname, name) -> (class, its own value before the test's)

    def _schedule_state(self) -> None:
        self.sched: Schedule | None = None  # subject: one schedule plain pytest could run (``Schedule``)
        self.waits: Waits | None = None  # driver: the test's waits outside the judge's schedule (``Waits``)
        self.owed: float | None = None  # driver: the waiting ``Waits.take`` found, for the request being sent (``bl``)
        self.prompt = False  # driver: that request is made before the test's next act on the outside world (``bp``)
        self.fs_moved: str | None = None  # subject: what the tree's threads changed on disk in a late give (``_give``)
        self.server: int | None = None  # subject: the thread that serves the driver (``serve_forever``)
        # subject: every value ``time.sleep`` has had in this process, the first its own (``SLEEPS_RULE``), and the
        # one last told the driver (``ts``); a ``sleep`` request names the value its driver's function stands for
        self.sleeps: list = [_vars(_time).get("sleep", _MISSING)]
        self.sleep_seen = self.sleeps[0]

    def _namespace_tables(self) -> None:
        # a tree module's namespace (``TREE_NAMESPACE_RULE``): subject: handle id -> [the module, its namespace as last
        # sent, its dict's version cell or None, that version, the module's class then, whether the next message
        # sends it whole]; driver: handle id -> its proxy module
        self.namespaces: dict = {}
        # driver: the links first made reading a namespace (``ns_origin``), those of them the test has since reached
        # (``ns_exposed``: read through the proxy module, or named by any other message), and whether a namespace is
        # being read now (``ns_reading``); see ``unread_links``
        self.ns_origin: set = set()
        self.ns_exposed: set = set()
        self.ns_reading = False
        self.ns_walked: dict = {}  # id -> a value ``expose`` walked
        self.ns_dict_read = False  # a proxy module's ``__dict__`` was read: the test may hold it (no link is unread)
        # driver: handle id -> the names its proxy reads by a request (``set_namespace``), those ``materialize`` put in
        # its dict until the next message, and its namespace as the harness last wrote it (``ns_synced``)
        self.ns_remote: dict = {}
        self.ns_materialized: dict = {}
        self.ns_snap: dict = {}
        self.ns_written: set = set()  # driver: the modules a write of the test's own was reported of

    def _stand_in_tables(self) -> None:
        # driver: handles whose object said, crossing again, that dropping it now runs code (``_finalizes``); subject:
        # the handles it said so of (a release of any other that frees a finalizing object is late: ``_late_finalizers``)
        self.late_fz: set = set()
        self.fz_sent: set = set()
        # driver: the handles of its own objects whose drop runs code (``_finalizes``) it exported, and the objects the
        # subject released, dropped once the exchange that brought the release ends (``DRIVER_OBJECTS_RULE``)
        self.fz_exported: set = set()
        self.exports_released: dict = {}
        # kept tuples (``_enc_tuple``): subject: id -> [the tuple, its token, what its items must still be]; the tokens
        # this message names, those to forget (``tx``); driver: token -> the tuple it decoded
        self.tuple_memo: dict = {}
        self.kept_ids: dict = {}  # driver: id of a kept value it decoded -> its token (passed back as the token)
        self.tuple_used: set = set()
        self.tuple_gone: list = []
        self.tuple_next = 1
        self.test_classes: dict = {}  # subject: id -> the class it made for a test's subclass of tree classes

    # -- framing -----------------------------------------------------------------------------
    def _send(self, msg: dict) -> None:
        if self.namespaces and self.side == "subject" and "f" not in msg:
            self._namespaces_moved(msg)
        if self.released:
            msg["rl"] = list(self.released)
            self.released.clear()
        sync = self._link_sync()
        if sync is not None:
            msg["ln"] = sync
        if self.mirrors:
            mirrored, dropped = self._mirror_sync()
            if mirrored:
                msg["mr"] = mirrored
            if dropped:
                msg["mx"] = dropped
        if self.capture is not None:
            _take_output(msg)
        if self.ps is not None:
            self.ps.outgoing(msg, self.capture)
            self._ps_faults()
            lp = self._logger_patches() if self.side == "driver" and "q" in msg else None
            if lp is not None:  # the test's members of the loggers, for the tree's calls (``LOGGER_PATCH_RULE``)
                msg["lp"] = [[n, k, self.enc(v)] for n, k, v in lp]
        if self.side == "subject":
            if self.tuple_memo or self.tuple_gone:
                self._forget_tuples(msg)
            if self.class_stamps or self.operated:
                self.pending += [f"{why}: the test would read it through a stand-in made before"
                                 for why in self._classes_moved()]
            if _vars(_time).get("sleep", _MISSING) is not self.sleep_seen:  # (one dict read a message: ``SLEEPS_RULE``)
                msg["ts"] = self._sleep_moved()
            if self.pending:
                msg["pf"] = self.pending[:8]
                self.pending.clear()
            self.out_sizes = _out_sizes() if self.capture is not None else ()  # (fds 1 and 2 the driver relays)
            sched = self.sched
            if sched is not None and _thread_count() > (sched.go is not None):
                msg["th"] = 1  # a thread of the tree is alive: the driver measures the test's waits (``Waits``)
        data = _dumps(msg).encode("utf-8", "surrogatepass")
        data = _pack(">I", _len(data)) + data
        held = _IO["held"]
        write = held.write if held is not None else _write
        while data:
            data = data[write(self.fd, data):]

    def _read(self, n: int) -> bytes:
        buf = b""
        held = _IO["held"]
        read = held.read if held is not None else _read
        while _len(buf) < n:
            chunk = read(self.fd, n - _len(buf))
            if not chunk:
                raise Closed(f"the {'subject' if self.side == 'driver' else 'driver'} closed the connection")
            buf += chunk
        return buf

    def _recv(self) -> dict:
        (n,) = _unpack(">I", self._read(4))
        if n > MAX_MSG:
            raise RemoteError("a message over the size limit")
        try:
            msg = _loads(self._read(n).decode("utf-8", "surrogatepass"))
        except ValueError as exc:
            raise RemoteError(f"not JSON: {exc}") from None
        except RecursionError:  # nested past the parser's depth: one line, not a 1,000-frame traceback
            raise RemoteError("not JSON: nested too deep") from None
        if not _isinstance(msg, dict):
            raise RemoteError("a message that is not an object")
        if self.side == "subject" and self.out_sizes is not None:
            gave = self._give(msg["bl"], "bp" in msg) if "bl" in msg else None
            moved = self._moved(msg.get("nx"))
            if gave and self.fs_moved:
                self.pending.append(f"a thread of the tree changed files ({self.fs_moved}) in the {gave:.3f} s the test "
                                    "waited outside the judge's schedule (a child process, select, a lock), given to it "
                                    "only after the test went on: the test may have read them as they were before, "
                                    "where plain pytest runs the thread during the wait (``WAITS_RULE``)")
            self.fs_moved = None
            if moved and gave:
                self.pending.append(f"the subject's {', '.join(moved)} changed while the tree's threads ran for the "
                                    f"{gave:.3f} s the test waited outside the judge's schedule (a child process, "
                                    f"select, a socket, a lock; ``Waits``): the test read them as they were before")
            elif moved:
                self.pending.append(f"the subject's {', '.join(moved)} changed after its last message, while the test "
                                    f"ran (a thread of the tree): the test read them as they were before")
        elif self.side == "driver" and self.waits is not None:
            self.waits.on = "th" in msg
        if self.side == "driver" and "ts" in msg:  # the tree gave ``time.sleep`` another value (``SLEEPS_RULE``)
            why = SLEEP_MOVED[0](msg["ts"]) if SLEEP_MOVED[0] is not None else None
            if why is not None:
                self._dec_fault(why)
        if self.side == "driver" and "pf" in msg:
            faults = msg["pf"]
            if _type(faults) is not list:
                raise RemoteError("malformed faults")
            for why in faults[:8]:
                self._dec_fault(why if _type(why) is str else "a protocol fault")
        if self.ps is not None:
            self.ps.incoming(msg)
            self._ps_faults()
        if "rl" in msg and self.side == "subject":
            self._release(msg["rl"])
        if "rl" in msg and self.side == "driver":  # the subject dropped the test's objects (``DRIVER_OBJECTS_RULE``)
            self._release_exports(msg["rl"])
        if "tx" in msg and self.side == "driver":
            gone = msg["tx"]
            if _type(gone) is not list:
                raise RemoteError("malformed tuple tokens")
            for token in gone[:MAX_KEPT_TUPLES * 2]:
                if _type(token) is int:
                    out = self.tuple_memo.pop(token, None)
                    if out is not None and self.kept_ids.get(id(out)) == token:
                        del self.kept_ids[id(out)]
        return msg

    # -- releases: the subject drops what the test dropped, in order, and its finalizers run then --------------
    # Under plain pytest ``del o`` (or the last reference ending) drops the tree's object there and then: its
    # ``__del__``, a ``weakref.finalize`` callback, a file it holds being flushed and closed all run at that
    # point of the test (CPython's reference counting). The driver holds its handles weakly (``handles``);
    # when the test drops one, the subject drops its own reference with the driver's next message (``rl``,
    # before the request runs), and at once (a ``release`` request of its own) when the subject said the
    # object has a finalizer to run (``fz``, ``_finalizes``) and no request is under way: what the finalizer
    # does (a linked list it changes, the environment, output, a file) reaches the test with that reply, as
    # under plain pytest before the test's next line.
    def _on_drop(self, hid: int, fz: bool):
        def dropped(_ref) -> None:
            self._dropped(hid, fz)
        return dropped

    def _dropped(self, hid, fz: bool) -> None:
        table = self.handles if self.side == "driver" else self.proxies
        ref = table.get(hid)
        if ref is not None and ref() is None:
            del table[hid]
        self.released[hid] = None
        if hid in self.late_fz:
            self.late_fz.discard(hid)
            fz = True
        if not fz and self.fz_exported and self.side == "driver":  # (``DRIVER_OBJECTS_RULE``)
            fz = self._holds_finalizing()
        if fz and self.depth == 0 and self.side == "driver" and not self.ended:
            try:
                self.request("release")
            except Closed:
                pass

    def _holds_finalizing(self) -> bool:
        """(driver) Whether the subject still holds an object of the test's whose drop runs code (``fz_exported``,
        the released ones forgotten): then any drop of a stand-in may free it (``DRIVER_OBJECTS_RULE``)."""
        objs = self.objs
        gone = [h for h in self.fz_exported if h not in objs]
        self.fz_exported.difference_update(gone)
        return bool(self.fz_exported)

    def _release_exports(self, hids) -> None:
        """(driver) The subject dropped its proxies of these objects of the test's (``DRIVER_OBJECTS_RULE``): noted
        (``exports_released``), and forgotten when the exchange ends (``_drop_exports``): the message that brought the
        release may still name them (the subject's proxy went after the value naming it was encoded), and one sent
        again meanwhile is the subject's anew (``export``). An exception, a class or a module is never released (named
        by id beside any handle, as the subject's are)."""
        if not _isinstance(hids, list) or not all(_type(h) is int for h in hids):
            raise RemoteError("a malformed release")
        for hid in hids:
            obj = self.objs.get(hid)
            if obj is not None and not _isinstance(obj, (BaseException, type, _types.ModuleType)):
                self.exports_released[hid] = None
        obj = None

    def _drop_exports(self) -> None:
        """(driver, the outermost exchange over) Forget the released objects of the test's; the last reference gone
        with this frame, their finalizers (a ``__del__`` of the test's) run before the test's next line."""
        gone = []
        for hid in list(self.exports_released):
            obj = self.objs.pop(hid, None)
            if obj is not None and self.byid.get(id(obj)) == hid:
                del self.byid[id(obj)]
            self.fz_exported.discard(hid)
            gone.append(obj)
        self.exports_released.clear()
        gone.clear()

    def _release(self, hids) -> None:
        """(subject) Drop this side's references to the objects the driver dropped (``_dropped``); the tree's
        finalizers run here, through the crossing frame, as the tree's code does."""
        if not _isinstance(hids, list) or not all(_type(h) is int for h in hids):
            raise RemoteError("a malformed release")
        dropped: list = []
        late: list = []
        for hid in hids:
            obj = self.objs.get(hid)
            if obj is None or _isinstance(obj, (BaseException, type, _types.ModuleType)):
                continue  # (the driver names these by their id beside any handle: an exception's stand-in, a class,
                # a module's proxy; never released)
            if hid in self.fz_sent:
                self.fz_sent.discard(hid)
            else:
                found: list = []
                if _finalizes(obj, found):
                    late.extend(found or (obj,))
                found.clear()  # (this frame holds none of them through the drop)
            del self.objs[hid]
            if self.byid.get(id(obj)) == hid:
                del self.byid[id(obj)]
            self.operated.pop(hid, None)
            self.operated_types.pop(hid, None)
            entry = self.mirrors.pop(hid, None)
            if entry is not None:
                self.mirror_items -= _len(entry[1][1])
            dropped.append(obj)
        obj = entry = None
        if dropped:
            self._late_finalizers(late, dropped)

    def _late_finalizers(self, late: list, dropped: list) -> None:
        """(subject) Drop ``dropped`` (through the crossing frame: the tree's finalizers run there, as the tree's code);
        each of ``late`` (the finalizing objects ``_finalizes`` found reachable from a dropped object of which the
        driver was never told; the dropped object itself where the walk answered yes unread) that the drop frees ran
        its finalizers after the test's statements that followed its ``del``: a fault (the test fails). A finalizing
        object the drop leaves alive (one the tree still holds elsewhere: a shared stream) ran nothing. One that
        cannot be held weakly is taken to be freed."""
        refs: list = []
        for obj in late:
            try:
                refs.append(_weakref.ref(obj))
            except TypeError:
                refs.append(None)
        late.clear()
        obj = None
        self.cross(dropped.clear, (), {})
        n = sum(1 for r in refs if r is None or r() is None)
        if n and _len(self.pending) < 8:
            self.pending.append(f"{n} object(s) of the code under test with a finalizer the judge learned of only when "
                                "the test dropped them ran it with the test's next message, after the statements that "
                                "followed the drop (plain pytest runs it at the drop)")

    def _classes_moved(self) -> list:
        """(subject, at every message it sends) Whether a tree object's stand-in in the driver still
        answers what its live object answers: the stand-in's class was made from the names the tree's class
        answered when it first crossed (``differing_names``), and the driver's C code runs the base type's own
        method for every other name. A class given a name since (``L.__reversed__ = ...``, a new ``__eq__``,
        a changed MRO), or a live object given another class (``x.__class__ = R``), would have the driver run
        what plain pytest would not: a fault (``pending``: the test fails), found by a stamp (the MRO's
        identity and every write to its classes' dicts, ``_class_marks``; ``differing_names`` again only when it
        moved). A new value
        under a name already forwarded changes nothing (the stand-in asks the live object)."""
        out = []
        for stamp in self.class_stamps.values():
            cls, mro = stamp[0], _TYPE_MRO(stamp[0])
            if mro is stamp[1] and _marks_same(stamp[2]):
                continue
            names = differing_names(cls)
            stamp[1], stamp[2] = mro, _class_marks(mro)
            if _special(names) != _special(stamp[3]):  # (a public name is the live object's anyway, ``_forward_class``;
                # a private one the stand-in lacks raises AttributeError in the driver: stricter, never lenient)
                stamp[3] = names
                out.append(f"a class of the code under test ({qualname(cls)}) answers other names than when its "
                           "value crossed")
        if self.operated and not all(map(_is, map(_type, self.operated.values()), self.operated_types.values())):
            for hid, obj in list(self.operated.items()):  # (in C above: both tables keep the same keys in one order)
                if _type(obj) is not self.operated_types[hid]:
                    self.operated_types[hid] = _type(obj)
                    out.append(f"an object of the code under test was given another class ({qualname(_type(obj))}) "
                               "after it crossed")
        return out

    def _give(self, secs, prompt: bool = False) -> float | None:
        """(subject, a message with ``bl``, before ``_moved``) The tree's threads run for the ``secs`` the test
        waited outside the judge's schedule (``Waits``): the channel is freed for that long, as a ``sleep``
        request frees it. Only at the serving thread's own wait for the driver (not inside an exchange a
        thread of the tree holds, nor while the subject awaits a reply of its own): elsewhere the time is not
        given and the backstop alone stands. Returns the seconds given, or None. Unless ``prompt`` (``bp``: the
        driver gives it before the test's next act on the outside world, ``WAITS_RULE``), what the threads change
        on disk meanwhile is noted (``fs_moved``: a path changed, seen by the audit hook, or a descriptor's file
        grown, shrunk or closed, ``_fd_sizes``): a fault, since the test may have read those files after its wait."""
        sched = self.sched
        if _type(secs) not in (float, int) or not 0 <= secs <= 1e7:
            self.pending.append("a malformed wait")
            return None
        if sched is None or sched.owner != _get_ident() or sched.depth != 1 or sched.calls or \
                _thread_count() <= (sched.go is not None):
            return None
        sizes = None if prompt else _fd_sizes(self.fd)
        _FS_SEEN[0] = None if prompt else ""
        raised = sched.saved is not None and sched.saved[1] is not None
        sched.free()
        try:
            _time_sleep(secs)
        finally:
            sched.hold()
            seen, _FS_SEEN[0] = _FS_SEEN[0], None
            saved = sched.saved
            if raised and saved is not None and saved[1] is None:  # (the tree's last thread ended meanwhile: the
                # switch interval stays as the last message saw it, frozen, so ``_moved`` compares like with like)
                interval = _getswitchinterval()
                _setswitchinterval(_raised(interval))
                sched.saved = (saved[0], interval, saved[2], _getswitchinterval())
        if sizes is not None:  # (a descriptor closed meanwhile may have been written before: a change too)
            after = _fd_sizes(self.fd)
            grown = [fd for fd, n in sizes.items() if after.get(fd, -1) != n]
            self.fs_moved = seen or (f"the file of descriptor {grown[0]}" if grown else None)
        return float(secs)

    def _ps_faults(self) -> None:
        """The faults ``ProcState`` found (a guarded item the tree changed, a synced one not applied): the
        driver records each, the subject sends them with its next message (``pf``)."""
        faults = self.ps.faults if self.ps is not None else None
        if faults:
            for why in faults[:8]:
                if self.side == "driver":
                    self._dec_fault(why)
                elif _len(self.pending) < 8:
                    self.pending.append(why)
            faults.clear()

    def _moved(self, unread=None) -> list:
        """(subject, at each message it receives) What of the state the driver holds a copy of changed since
        the subject's last message, before the driver's changes in this one apply: only the subject's own
        code can have changed it meanwhile (a thread of the tree, a signal handler), while the driver ran
        the test against its copy, which plain pytest's test never has (it shares the one object). Each is a
        fault (``pf``): the test fails, whatever it read. Linked containers (``_LinkSig``, in C), the process
        state (``ProcState.moved``), output written to ``sys.stdout``/``sys.stderr`` or descriptors 1 and 2. A linked
        container the driver says the test has not reached (``unread``: ``Peer.unread_links``) is none: its change goes
        to the driver with the reply, before the test can read it."""
        out = []
        if self.links:
            sig = self.link_sig or _LinkSig(self.links, self.link_snaps)
            self.link_sig = sig
            if not sig.unchanged() and not self._moved_unread(unread):
                out.append("linked containers")
        if self.ps is not None:
            out += self.ps.moved()
        try:
            if self.capture is not None and _output_pending():
                out.append("sys.stdout/sys.stderr")
        except Exception:  # noqa: BLE001 - closed by the tree: its writes go nowhere either way
            pass
        if self.out_sizes and _out_sizes() != self.out_sizes:
            out.append("descriptors 1/2")
        return out

    def _moved_unread(self, unread) -> bool:
        """(subject) Whether every linked container changed since the last message is one the driver named unread."""
        if not unread or not _isinstance(unread, list) or not all(_type(i) is int for i in unread):
            return False
        waived = set(unread)
        return all(lid in waived for lid, obj in self.links.items() if not _unchanged(obj, self.link_snaps[lid]))

    def expose(self, value) -> None:
        """(driver) The test has reached ``value`` through a proxy module (``_ProxyModule``): every linked container of a
        namespace it holds (through lists, dicts, sets and tuples, a stand-in's storage too) may be read from now on.
        Each value is walked once (``ns_walked``; what a linked one gains later, ``unread_links`` walks again)."""
        if _len(self.ns_exposed) < _len(self.ns_origin) and id(value) not in self.ns_walked:  # (exposed <= origin)
            if _isinstance(value, _WALKED):
                self.ns_walked[id(value)] = value  # (held: its id is never another object's)
                self.ns_exposed |= self._reach([value]) & self.ns_origin

    def _reach(self, roots: list) -> set:
        """(driver) The link ids of the containers in ``roots`` and in all they hold, read through the built-in types'
        own methods (a stand-in of a tree list is read by its storage, no code of the tree's runs)."""
        reached, seen, stack = set(), set(), list(roots)
        while stack:
            x = stack.pop()
            if id(x) in seen:
                continue
            seen.add(id(x))
            lid = self.link_ids.get(id(x))
            if lid is not None and self.links.get(lid) is x:
                reached.add(lid)
            items: _Iterable
            if _isinstance(x, dict):
                items = dict.values(x)
            elif _isinstance(x, (list, tuple)):
                items = list.__iter__(x) if _isinstance(x, list) else tuple.__iter__(x)
            elif _isinstance(x, (set, frozenset)):
                items = set.__iter__(x) if _isinstance(x, set) else frozenset.__iter__(x)
            else:
                continue
            stack.extend(v for v in items if _isinstance(v, _WALKED))
        return reached

    def unread_links(self) -> list:
        """(driver, with a message that gives the tree's threads the test's wait: ``bl``) The linked containers of the
        tree modules' namespaces the test has not reached (``TREE_NAMESPACE_RULE``): made reading a namespace, never
        read through its proxy module (``expose``; none once the test read a proxy's ``__dict__``, which it may hold),
        named by no other message, held by no container that was. A change
        a thread of the tree made to one while the test waited is no fault (``Peer._moved``): the test cannot have read
        it stale, and the change reaches the driver with the reply."""
        if not self.ns_origin or self.ns_dict_read:
            return []
        held = [self.links[lid] for lid in self.ns_exposed if lid in self.links]
        self.ns_exposed |= self._reach(held) & self.ns_origin
        return sorted(self.ns_origin - self.ns_exposed)

    # -- requests ----------------------------------------------------------------------------
    def request(self, op: str, *args):
        """Send a request, serve the peer's nested requests, return the decoded reply (or raise
        the decoded exception). In the subject, with the channel held (``Schedule``): a thread of the
        tree calling a callback of the test waits for the channel, and no other thread of the tree
        runs while the driver runs the callback."""
        if self.sched is None and self.server is not None and _get_ident() != self.server:
            # (subject, unscheduled: a bare Peer in a unit test) a thread of the tree calling the test's code (a
            # callback, a carried patch such as a mocked ``time.sleep``): the driver is not waiting for it, and its
            # bytes would interleave with the serving thread's on the one connection; a fault (the test fails), never
            # a message. Scheduled (the judged run), the thread takes the channel instead (``Schedule``).
            raise self._dec_fault(f"the code under test made the request {str(op)[:40]!r} of the test's code from a "
                                  "thread of its own, which the judge cannot carry while the test runs")
        if op == "sync" and self.side == "driver":  # (each test's end: the driver's own kept copies too)
            self._overflowed()
        sched = self.sched
        if sched is not None:
            sched.hold()
            sched.calls += 1
        waits = self.waits if self.depth == 0 else None  # (driver: the test's waits since the last exchange)
        if waits is not None:
            self.owed = waits.take(op == "sync")
        self.depth += 1
        try:
            return self._request(op, *args)
        finally:
            self.depth -= 1
            if sched is not None:
                sched.calls -= 1
                sched.free()
            if waits is not None:
                waits.start()
            if self.exports_released and self.depth == 0:  # (the test's objects the subject dropped: forgotten,
                self._drop_exports()  # their finalizers run, now the exchange is over: ``DRIVER_OBJECTS_RULE``)

    def _request(self, op: str, *args):
        reading, self.ns_reading = self.ns_reading, False  # (a nested request's reply is no namespace)
        try:
            return self._request_sent(op, args)
        finally:
            self.ns_reading = reading

    def _request_sent(self, op: str, args: tuple):
        if self.ns_snap:
            why = self._namespace_written()
            if why is not None:
                raise self._dec_fault(why)
        sent = _Budget(track=[])
        try:  # plain pytest passes any value to the tree: one this side cannot send is a fault, never an
            # exception of the call (a test's ``except Exception`` or ``pytest.raises(ValueError)`` would take it)
            msg = {"q": op, "a": self.enc(list(args), sent)}
            if self.side == "driver":
                msg["sd"] = _stack_depth()  # (the depth the tree's code runs at: ``STACK_DEPTH_RULE``)
                spec = _filter_spec()
                if spec != self.filters_sent:
                    msg["wf"] = [[a, m, self.enc(c), mod, n] for a, m, c, mod, n in spec]
                    self.filters_sent = spec
                patches = _WATCH[0].pending() if _WATCH[0] is not None else None
                if patches is not None:  # the test's patches of the stdlib, for the tree's own calls (``StdlibPatches``)
                    msg["sp"] = [[m, n, self.enc(v), d] for m, n, v, d in patches]
                cpatches = _CLASS_PATCHES[0].pending(self) if _CLASS_PATCHES[0] is not None else None
                if cpatches is not None:  # the test's patchers' changes of the interpreter's classes (``ClassPatches``)
                    msg["sc"] = [[m, q, n, k, self.enc(v), d] for m, q, n, k, v, d in cpatches]
                stubs = _STUBS[0].pending() if _STUBS[0] is not None else None
                if stubs is not None:  # the test's entries of sys.modules, for the tree's imports (``ModuleStubs``)
                    msg["ms"] = [[k, 0 if v is _REMOVED else self.enc(v) if _ref_of(v) is not None else
                                  self._handle(v)] for k, v in stubs.items()]  # (a stand-in: the tree's own object)
                if self.owed is not None:  # the test's waiting, given to the tree's threads first (``Waits``)
                    msg["bl"], self.owed = self.owed, None
                    unread = self.unread_links()
                    if unread:
                        msg["nx"] = unread
                    if self.prompt:  # (given before the test's next act on the outside world: ``WAITS_RULE``)
                        msg["bp"] = 1
            self._send(msg)
        except BaseException as err:  # noqa: BLE001 - re-raised as the fault it is
            if _isinstance(err, KeyboardInterrupt):
                raise
            raise self._dec_fault(f"the request {str(op)[:40]!r} could not be sent: {_why(err)}") from None
        self._push_inflight(sent.track)
        try:
            return self._reply(op, sent)
        finally:
            self._pop_inflight(sent.track)

    def _push_inflight(self, track: list) -> None:
        self.inflight.append(track)
        self.inflight_map = None

    def _pop_inflight(self, track: list) -> None:
        if self.inflight and self.inflight[-1] is track:
            self.inflight.pop()
            self.inflight_map = None

    def _in_flight(self, x):
        """Where ``x`` is among the containers of the requests under way (``inflight``: the requests this side
        sent and those it serves, outermost first, the same list on both sides; the current one's own aside,
        which ``wb`` names): a nested message (the tree reading the test's ``ns.items`` while the test's call
        runs, which holds the same list as an argument) names the peer's counterpart (``fl``) instead of
        sending a second object where plain pytest has one."""
        if self.inflight_map is None:
            self.inflight_map = {}
            for k, track in enumerate(self.inflight):
                for i, obj in enumerate(track):
                    self.inflight_map.setdefault(id(obj), (k, i))
        return self.inflight_map.get(id(x))

    def _reply(self, op, sent):
        while True:
            try:
                msg = self._recv()
                if self.ns_materialized:
                    self._dematerialize()
                if self.on_msg is not None:
                    self.on_msg(msg)
                if "q" in msg:
                    self._serve(msg)
                    continue
                self._pop_inflight(sent.track)  # (the reply names only the requests still under way)
                if "f" in msg:  # the peer could not send its reply (``_serve``): the test fails, whatever it expects
                    why = msg["f"] if _type(msg["f"]) is str else "a protocol fault"
                    if self.on_fault is not None:
                        self.on_fault(why)
                    raise ProtocolFault(why)
                if "x" in msg:
                    exc = self.dec_exc(msg["x"])
                elif "r" in msg:
                    self.ns_reading = op == "import"  # (its namespace: ``TREE_NAMESPACE_RULE``)
                    try:
                        result = self.dec(msg["r"], 0, _Ctx(track=[], originals=sent.track))
                    finally:
                        self.ns_reading = False
                else:
                    raise RemoteError("a reply without a result")
                self._write_back(msg.get("wb"), sent.track)
                self._adopt(msg.get("lk"), sent.track)  # (before the links' changes: a linked list may now hold one)
                self._apply_links(msg.get("ln"))
                self._apply_mirrors(msg.get("mr"), msg.get("mx"))
                self._apply_namespaces(msg.get("tm"))
                self._freeze(msg.get("ov"), sent.track)
            except ProtocolFault:
                raise  # (recorded where it was made)
            except BaseException as err:  # noqa: BLE001 - a broken reply (or the peer gone) is a fault, re-raised
                if _isinstance(err, KeyboardInterrupt):
                    raise
                self._dec_fault(f"the reply to the request {str(op)[:40]!r} could not be read: {_why(err)}")
                raise
            if "x" in msg:
                self._raise(exc)
            return result

    @staticmethod
    def _raise(exc: BaseException):
        """Raise the peer's exception here with the context it had there. Raised while this side
        handles an exception, Python makes that one its ``__context__``; under plain pytest the tree's
        own handled exception (the one the peer sent) is it, and the caller's only when the tree had
        none, so a context the peer sent is put back (a bare ``raise`` chains nothing)."""
        ctx = _EXC_ATTR["__context__"].__get__(exc)
        if ctx is None:
            raise exc
        try:
            raise exc
        except BaseException:  # noqa: BLE001 - exc itself, re-raised as it is
            _EXC_ATTR["__context__"].__set__(exc, ctx)
            raise

    def serve_forever(self) -> None:
        self.server = _get_ident()
        sched = self.sched
        if sched is None:
            return self._serve_forever()
        sched.hold()  # (the subject's main thread holds the channel whenever it is not running a request)
        try:
            self._serve_forever()
        finally:
            sched.free()  # (the process ends as it would: its threads run, its signals arrive)

    def _serve_forever(self) -> None:
        while True:
            try:
                msg = self._recv()
            except RemoteError:
                return
            if "q" in msg:
                self._serve(msg)

    def _serve(self, msg: dict) -> None:
        """Serve one request. The call's own exception goes back as data (the caller raises it); a
        reply this side cannot encode (a cycle, nesting past the limit, the tree's code run while
        encoding raising: a Mapping's ``items()``, an ``__index__``, a tzinfo's ``utcoffset``) is never
        that: the call returned under plain pytest, so no exception a test could expect stands for it.
        It goes back as a protocol fault (``f``, ``_fault``), which fails the test."""
        track: list = []
        snaps = None
        op = msg.get("q")
        try:
            op, args = msg["q"], self.dec(msg.get("a", []), 0, _Ctx(track=track))
            self._apply_links(msg.get("ln"))
            self._apply_mirrors(msg.get("mr"), msg.get("mx"))
            self._apply_namespaces(msg.get("tm"))
            if "wf" in msg and self.side == "subject":
                self.warning_filters = self._dec_filters(msg["wf"])
            if self.side == "subject":
                self._apply_test_patches(msg)
            snaps = [_snapshot(x) for x in track]
            self._push_inflight(track)
            try:
                with _Warnings(self) as w:
                    result = self._handle_deep(_request_depth(msg) if self.side == "subject" else 0, op, args)
            finally:
                self._pop_inflight(track)
        except BaseException as exc:  # noqa: BLE001 - every failure goes back to the caller as data
            if _isinstance(exc, (KeyboardInterrupt, Closed)):
                raise
            reply = self._encoded(lambda e=exc: {"x": self.enc_exc(e)}, op, "the exception it raised")
            w = getattr(self, "_last_warnings", None)
        else:
            # the containers this side still holds in the result cross linked (``_kept``; a module's namespace
            # at import too: ``TREE_NAMESPACE_RULE``): the tree's own state, or on the driver's side
            # a list the test keeps in an attribute or a tuple the subject reached through a reply (a getattr,
            # an iterator's next), which the tree may change as under plain pytest; the request's own containers
            # by their index (``_kept`` walks the built-in containers only, so it runs none of the tree's code
            # and cannot fail; counted here, where ``result`` is this frame's one reference, as ``held`` says)
            kept, kept_tuples = _kept_with_tuples(result, 1)
            budget = _Budget(track=[], refs={id(x): i for i, x in enumerate(track)}, kept=kept, top=True)
            budget.tuples = kept_tuples
            reply = self._encoded(lambda: {"r": self.enc(result, budget)}, op, "its result")
        if w:
            reply["w"] = w
        if snaps is not None and "f" not in reply:
            wb = self._encoded(lambda: self._changes(track, snaps), op, "the changes to its arguments")
            if _type(wb) is dict:
                reply = wb
            elif wb:
                reply["wb"] = wb
        if track and "f" not in reply:
            args = result = snaps = None  # (this frame's references: ``_retained`` counts the tree's)
            kept_args = self._retained(track, "x" in reply)
            if kept_args:
                reply["lk"] = kept_args
            if self.frozen_out:
                reply["ov"], self.frozen_out = self.frozen_out, []
        self._send(reply)

    def _handle_deep(self, sd: int, op: str, args: list):
        """``_handle_free`` from the driver's depth ``sd`` (``STACK_DEPTH_RULE``; 0: as it comes): a request nested in
        one served here adds only the driver's frames since that one's."""
        if not sd:
            return self._handle_free(op, args)
        outer = self.sd_served
        self.sd_served = sd
        try:
            if outer is None:
                return _at_depth(sd, self._handle_free, op, args)
            return _pad(sd - outer, self._handle_free, (op, args))
        finally:
            self.sd_served = outer

    def _handle_free(self, op: str, args: list):
        """``handle`` with the channel free (``Schedule``): the tree's threads run as they like while the
        request runs, and are frozen again before its reply is made. Only a request of the driver's own (served
        by ``serve_forever``): one the driver sends while the subject waits for the reply to its own request (a
        callback of the test calling into the tree) is served with the channel kept, since the next message the
        driver reads must be that request's reply, or a request nested in it, never another thread's."""
        sched = self.sched
        if sched is None or sched.calls:
            return self.handle(op, args)
        sched.free()
        try:
            return self.handle(op, args)
        finally:
            sched.hold()

    def _retained(self, track: list, raised: bool = False) -> list:
        """(once a request is served) The request's containers the callee still holds now that the call is
        done (the tree's ``self._items = items``, a closure, a thread's argument; a test's callback that keeps
        what the tree passed it), linked: [index, link id] each,
        and every container of the request inside one of them. Under plain pytest the tree holds the
        test's own object, so a later change of the tree (a later call, a thread) shows through the
        test's; a copy left behind would never change for the test. Counted by reference count as
        ``_kept`` counts a result (the arguments' own list, ``track[0]``, is held by ``track`` only). When
        the call ``raised``, its traceback keeps the raising frames, and so their arguments, alive for as
        long as the exception's handle lives: those are not linked (every message would check them) but
        checked at the test's end, as a container past the bound is (``_overflowed``). The driver links its
        own containers under these ids (``_adopt``)."""
        if _type(track[0]) is not list:
            return []
        found = _walk(track[0], 0)
        for entry in found.values():
            entry[1] += 1  # ``track``'s own reference
        held = _kept_of(found)
        del found
        if not held:
            return []
        index = {id(x): i for i, x in enumerate(track)}
        if self.inflight:  # a request under way's own container (``fl``): that request's caller holds it, not the callee
            for key in [k for k in index if self._in_flight(track[index[k]]) is not None]:
                del index[key]
        out: list = []
        for key in [k for k in index if k in held]:
            for inner in _walk(track[index[key]], 0):  # (itself first, then what it holds)
                i = index.get(inner)
                x = track[i] if i is not None else None
                if x is None or (self.link_ids.get(inner) in self.links and self.links[self.link_ids[inner]] is x):
                    continue
                if raised or not self._room(x):  # a copy, checked at each test's end (``_overflowed``)
                    if self.side != "subject":
                        pass
                    elif _len(self.overflow) < MAX_OVERFLOW:
                        self.overflow.append([x, _snapshot(x)])
                        if not raised:  # the driver checks its own too (``_freeze``)
                            self.frozen_out.append(i)
                    else:
                        self._dec_fault("more containers kept by the code under test than the judge can follow")
                    continue
                lid = self.link_next
                self.link_next += 1 if self.side == "subject" else -1
                self.links[lid], self.link_ids[inner], self.link_snaps[lid] = x, lid, _snapshot(x)
                self.link_sig = None
                out.append([i, lid])
        return out

    def _overflowed(self) -> None:
        """(each test's end, the leave's heartbeat) A container the callee kept past the links' bound
        (``_room``) stayed a copy on the caller's side: changed since, the caller read it stale, a fault.
        One no one else holds any more is dropped. (Checked here only: a change undone before the test's
        end goes unseen; docs/judge.md.)"""
        keep = []
        for entry in self.overflow:
            if _getrefcount(entry[0]) <= 2:  # (this list's and the argument's references)
                continue
            if not _unchanged(entry[0], entry[1]):
                self._dec_fault("a container kept by the code under test past the bound of linked ones changed "
                                f"(in the {'test' if self.side == 'driver' else 'code under test'}): the other side "
                                "read its stale copy")
                entry[1] = _snapshot(entry[0])
            keep.append(entry)
        self.overflow = keep

    def _freeze(self, ov, track: list) -> None:
        """(driver) The request's containers the callee keeps past the links' bound (``_retained``): each side
        holds a copy the other never sees change, so each checks its own at the test's end (``_overflowed``):
        the test's change to one (which plain pytest's tree would see in the object it holds) is a fault, as the
        tree's is. (Not those kept by a call that raised: its traceback alone keeps them, and an honest test
        reuses such an argument; docs/judge.md.)"""
        if ov is None:
            return
        if not _isinstance(ov, list) or not all(_type(i) is int and 0 <= i < _len(track) for i in ov):
            raise RemoteError("malformed kept containers")
        for i in ov:
            if _type(track[i]) not in _MUTABLE:
                raise RemoteError("malformed kept containers")
            if _len(self.overflow) < MAX_OVERFLOW:
                self.overflow.append([track[i], _snapshot(track[i])])

    def _adopt(self, lk, track: list) -> None:
        """Link this side's own containers of a request under the ids the peer gave them (``_retained``):
        from now on they are kept in step as every linked container is."""
        if lk is None:
            return
        if not _isinstance(lk, list):
            raise RemoteError("malformed retained containers")
        for item in lk:
            if not _isinstance(item, list) or _len(item) != 2 or _type(item[0]) is not int or \
                    not 0 <= item[0] < _len(track) or _type(item[1]) is not int or (item[1] > 0) != (self.side == "driver") or item[1] in self.links:
                raise RemoteError("malformed retained containers")
            obj = track[item[0]]
            if _type(obj) not in _MUTABLE or id(obj) in self.link_ids:
                raise RemoteError("malformed retained containers")
            self.links[item[1]], self.link_ids[id(obj)], self.link_snaps[item[1]] = obj, item[1], _snapshot(obj)
            self.link_sig = None

    def _apply_test_patches(self, msg: dict) -> None:
        """(subject, ``_serve``) What the test changed of code the tree's calls run, as a request carries it: its
        patches of the stdlib (``sp``), its ``sys.modules`` entries (``ms``), its patchers' changes of the stdlib's
        classes (``sc``), its members of the loggers (``lp``)."""
        start = module_state_start() if "sp" in msg or "ms" in msg or "sc" in msg or "lp" in msg else None
        if "sp" in msg:
            self._apply_patches(msg["sp"])
        if "ms" in msg:
            self._apply_stubs(msg["ms"])
        if "sc" in msg:
            self._apply_class_patches(msg["sc"])
        if "lp" in msg:
            self._apply_logger_patches(msg["lp"])
        if start is not None:
            library_modules_moved(True, start)  # (the test's patches are no change of the tree's: ``MODULE_STATE_RULE``)

    def _apply_patches(self, spec) -> None:
        """(subject) The test's patches of the stdlib as they are now (``StdlibPatches.pending``): each set on this
        side's module (its value from before kept), each no longer patched put back. One that cannot be applied
        (a module this side cannot import, a value that cannot be set) is a fault (``pf``): the test fails, never
        runs against the unpatched name."""
        if not _isinstance(spec, list):
            raise RemoteError("malformed stdlib patches")
        want: dict = {}
        for item in spec:
            if not _isinstance(item, list) or _len(item) != 4 or not _carried(item[0], item[1]):
                raise RemoteError("malformed stdlib patches")
            want[(item[0], item[1])] = (item[2], item[3] is True)
        undone = [k for k in self.stdlib_patches if k not in want]
        for key in undone:
            mod, orig = self.stdlib_patches.pop(key)
            try:
                if orig is _MISSING:
                    _vars(mod).pop(key[1], None)
                else:
                    _vars(mod)[key[1]] = orig
            except Exception as err:  # noqa: BLE001
                self._dec_fault(f"the test's patch of {key[0]}.{key[1]} could not be undone in the subject: {_why(err)}")
        for key, (value, deleted) in want.items():
            try:
                mod = _sys.modules.get(key[0]) or _import_module(key[0])
                if key not in self.stdlib_patches:
                    self.stdlib_patches[key] = (mod, _vars(mod).get(key[1], _MISSING))
                if deleted:
                    _vars(mod).pop(key[1], None)
                else:
                    _vars(mod)[key[1]] = self.dec(value)
            except Exception as err:  # noqa: BLE001 - never the call's exception: the test depends on the patch
                self._dec_fault(f"the test's patch of {key[0]}.{key[1]} could not be applied in the subject, where "
                                f"the code under test reads it: {_why(err)}")
        if _vars(_time).get("sleep", _MISSING) is not self.sleep_seen and \
                any(k == ("time", "sleep") for k in (*want, *undone)):  # (the test's own patch, not the tree's: ``ts``
            self.sleep_seen = _vars(_time).get("sleep", _MISSING)  # is only for the tree's changes)

    def _logger_patches(self) -> list | None:
        """(driver, each request) The members the test set on the driver's loggers (``LOGGER_PATCH_RULE``), when they
        changed since the last request: (logger name, member, value). Seen by the sizes of the loggers' ``__dict__``
        compared in C; the values, by identity, only while some are set. A patcher's undo that leaves the logger's
        own bound method in its ``__dict__`` (``monkeypatch``) is no member of the test's."""
        ps = self.ps
        if ps is None:
            return None
        loggers = [_LOG_ROOT, *ps.lt_loggers]  # (as this message's snapshot walked them: ``ProcState.snap``)
        try:
            sizes = list(map(_len, map(_vars, loggers)))
        except Exception:  # noqa: BLE001 - a logger without a __dict__: nothing of the test's on it
            return None
        if sizes == self.lp_sizes and not self.lp_sent:
            return None
        self.lp_sizes, items, base = sizes, [], _len(_LOGGER_OWN)
        for lg, n in zip(loggers, sizes):
            name = "" if lg is _LOG_ROOT else getattr(lg, "name", None)
            if n <= base or _type(name) is not str:
                continue
            for k, v in list(_vars(lg).items()):
                if k in _LOGGER_OWN or _type(k) is not str or (_type(v) is _types.MethodType and v.__self__ is lg
                                                                 and getattr(_type(lg), k, None) is v.__func__):
                    continue
                items.append((name, k, v))
        sent = self.lp_sent
        if _len(items) == _len(sent) and all(a[0] == b[0] and a[1] == b[1] and a[2] is b[2] for a, b in zip(items, sent)):
            return None
        self.lp_sent = items
        return items

    def _apply_logger_patches(self, spec) -> None:
        """(subject) The test's members of the loggers as they are now (``LOGGER_PATCH_RULE``): each set on this
        side's logger of that name, the test's value as itself (a callable of the test's called back there), its own
        value from before kept; each no longer set put back. One that cannot be applied is a fault."""
        if _type(spec) is not list or not all(_type(i) is list and _len(i) == 3 and _type(i[0]) is str
                                              and _type(i[1]) is str for i in spec):
            raise RemoteError("malformed logger patches")
        want = {(i[0], i[1]): i[2] for i in spec}
        for key in [k for k in self.logger_patches if k not in want]:
            lg, orig = self.logger_patches.pop(key)
            _LOG_CARRIED.pop((id(lg), key[1]), None)
            try:
                if orig is _MISSING:
                    _vars(lg).pop(key[1], None)
                else:
                    _vars(lg)[key[1]] = orig
            except Exception as err:  # noqa: BLE001
                self._dec_fault(f"the test's member {key[1]!r} of a logger could not be undone in the subject: {_why(err)}")
        for key, value in want.items():
            try:
                lg = _LOG_ROOT if key[0] == "" else _GET_LOGGER(key[0])
                if key not in self.logger_patches:
                    self.logger_patches[key] = (lg, _vars(lg).get(key[1], _MISSING))
                val = _vars(lg)[key[1]] = self.dec(value)
                _LOG_CARRIED[(id(lg), key[1])] = val
            except Exception as err:  # noqa: BLE001 - never run unpatched: the test depends on it
                self._dec_fault(f"the test's member {key[1]!r} of the logger {key[0][:60]!r} could not be set in the "
                                f"subject, where the code under test calls it: {_why(err)}")

    def _apply_class_patches(self, spec) -> None:
        """(subject) The test's patchers' changes of the interpreter's classes as they are now (``ClassPatches``):
        each set on (or deleted from) this side's class of that module and qualified name, its own value from before
        kept; each no longer patched put back. A class not found so, or a member that cannot be set, is a fault
        (``pf``): the test fails, never runs the tree against the unpatched class."""
        if not _isinstance(spec, list) or not all(_isinstance(i, list) and _len(i) == 6 and _type(i[0]) is str and
                                                  _type(i[1]) is str and _type(i[2]) is str for i in spec):
            raise RemoteError("malformed class patches")
        want = {(m, q, n): (k, v, d is True) for m, q, n, k, v, d in spec}
        kept = self.class_std_patches
        start = _class_versions()  # (the test's patches are no change of the tree's: ``library_classes_moved``)
        for key in [k for k in kept if k not in want]:
            cls, orig = kept.pop(key)
            try:
                if orig is _MISSING:
                    if key[2] in _TYPE_DICT(cls):
                        type.__delattr__(cls, key[2])
                else:
                    type.__setattr__(cls, key[2], orig)
            except Exception as err:  # noqa: BLE001
                self._dec_fault(f"the test's patch of {key[1]}.{key[2]} could not be undone in the subject: {_why(err)}")
        for key, (kind, value, deleted) in want.items():
            try:
                cls = self._class_at(key[0], key[1])
                if key not in kept:
                    kept[key] = (cls, _TYPE_DICT(cls).get(key[2], _MISSING))
                if deleted:
                    if key[2] in _TYPE_DICT(cls):
                        type.__delattr__(cls, key[2])
                else:
                    type.__setattr__(cls, key[2], _member_of(kind, self.dec(value), key[2]))
            except Exception as err:  # noqa: BLE001 - never the call's exception: the test depends on the patch
                self._dec_fault(f"the test's patch of {key[0]}.{key[1]}.{key[2]} could not be applied in the subject, "
                                f"where the code under test reads it: {_why(err)}")
        library_classes_moved(True, start)

    @staticmethod
    def _class_at(module: str, qual: str):
        """(subject) The class of the interpreter's module ``module`` at ``qual``, read from the namespaces themselves."""
        if not _carried(module, qual.partition(".")[0]):
            raise RemoteError(f"{module} is not carried")
        obj = _sys.modules.get(module) or _import_module(module)
        for part in qual.split("."):
            obj = _vars(obj)[part]
        if not _isinstance(obj, type):
            raise RemoteError(f"{module}.{qual} is not a class here")
        return obj

    def _apply_stubs(self, spec) -> None:
        """(subject) The test's ``sys.modules`` entries as they are now (``ModuleStubs``): each set here as the
        driver's object (its value from before kept), each no longer the test's put back; the guard of ``sys.modules``
        (``ProcState.guard``) takes the carried names, and only those, as the driver's doing: every other guarded item
        keeps its last state, so what the tree changed before this request (in the call whose callback set the stub)
        is still compared at the next reply (``IMPORT_STATE_RULE``)."""
        if not _isinstance(spec, list) or not all(_isinstance(i, list) and _len(i) == 2 and _type(i[0]) is str and
                                                  (_isinstance(i[1], dict) and i[1].get("t") in ("h", "ref") or
                                                   _type(i[1]) is int and i[1] == 0) for i in spec):
            raise RemoteError("malformed module stubs")
        mods: dict = _sys.modules  # (a stub the test made may be any object, as under plain pytest)
        want = {name: _MISSING if _type(v) is int else self.dec(v) for name, v in spec}  # (0: removed, ``ModuleStubs``)
        carried = {}  # name -> the value this sets (``_MISSING``: removed), for the guard's record below
        for name in [n for n in self.module_stubs if n not in want]:
            orig = self.module_stubs.pop(name)
            if orig is _MISSING:
                mods.pop(name, None)
            else:
                mods[name] = orig
            carried[name] = orig
        for name, value in want.items():
            if name not in self.module_stubs:
                self.module_stubs[name] = mods.get(name, _MISSING)
            if value is _MISSING:
                mods.pop(name, None)
            else:
                mods[name] = value
            carried[name] = value
        ps = self.ps
        g = ps.g if ps is not None else None
        if ps is not None and g is not None:
            modmap = g.get("modmap")  # (``_foreign_modules``: only the carried names are the driver's doing)
            if modmap is not None:
                for name, value in carried.items():
                    if value is _MISSING:
                        modmap.pop(name, None)
                    else:
                        modmap[name] = value

    def _dec_filters(self, spec) -> list:
        """The driver's warning filters (``_filter_spec``) as ``_Warnings`` applies them: "error" kept,
        every other action "always"; an entry whose category this side does not have is left out (no
        warning of the tree is an instance of it)."""
        if not _isinstance(spec, list):
            raise RemoteError("malformed warning filters")
        out = []
        for item in spec:
            if not _isinstance(item, list) or _len(item) != 5:
                raise RemoteError("malformed warning filters")
            action, message, category, module, lineno = item
            category = self.dec(category)
            if _type(message) is not str or _type(module) is not str or _type(lineno) is not int or lineno < 0 or \
                    not _isinstance(category, type) or not issubclass(category, Warning) or _isinstance(category, RemoteMeta):
                continue
            out.append(("error" if action == "error" else "always", message, category, module, lineno))
        return out if any(entry[0] == "error" for entry in out) else []

    def _encoded(self, build, op, what):
        """``build()``, or a protocol fault when it raises (``_serve``)."""
        try:
            return build()
        except BaseException as exc:  # noqa: BLE001 - an encoding failure is the protocol's, never the call's
            if _isinstance(exc, (KeyboardInterrupt, Closed)):
                raise
            return self._fault(f"{what} could not be sent for the request {str(op)[:40]!r}: {_why(exc)}")

    def _fault(self, why: str) -> dict:
        """A protocol fault this side sends: reported here too (``on_fault``: the driver records it
        and the test fails), and raised on the other side as ``ProtocolFault``."""
        if self.on_fault is not None:
            self.on_fault(why)
        return {"f": why}

    # -- write-back: a container passed by value and changed by the callee ------------------------
    def _changes(self, track: list, snaps: list) -> list:
        """[index, new contents] of every container of a request's arguments the call changed
        (the sender updates its own in place: a list the tree sorts in place is sorted for the
        test too, as under plain pytest). An inner container of the request is named by index."""
        refs = {id(x): i for i, x in enumerate(track)}
        out = []
        for i, (x, snap) in enumerate(zip(track, snaps)):
            if not _unchanged(x, snap):  # (its contents: the container itself may be one of a request under way)
                budget = _Budget(refs=refs)
                out.append([i, self._enc_contents(x, budget, 0) if _type(x) in _MUTABLE else self.enc(x, budget)])
        return out

    def _write_back(self, wb, track: list) -> None:
        """Apply the peer's changes to the containers this request carried (``_changes``)."""
        if not wb:
            return
        if not _isinstance(wb, list):
            raise RemoteError("a malformed write-back")
        for item in wb:
            if not _isinstance(item, list) or _len(item) != 2 or _type(item[0]) is not int or \
                    not 0 <= item[0] < _len(track):
                raise RemoteError("a malformed write-back")
            orig = track[item[0]]
            _fill(orig, self.dec(item[1], 0, _Ctx(originals=track)))

    def handle(self, op: str, args: list):
        """Apply one request to our own objects (the policy decides what the peer may do). Whatever
        runs the tree's code goes through ``self.cross`` (the subject's crossing frame, ``crossing``)
        with functions bound when this module loaded, never looked up in a module the tree can patch."""
        self.policy(op, args)
        cross = self.cross
        if op == "import":
            mod = cross(_import, (args[0], None, None, ("__name__",), 0), {})
            if _len(args) > 1 and args[1] is True:  # a module of the tree's: its namespace crosses with the reply
                return [self._watch_namespace(mod), None]  # (``tm``: ``_namespaces_moved``, ``_ProxyLoader``)
            return [self.export(mod), None]  # (a module the driver reads as a stand-in: ``remote_module``)
        if op == "call":
            return cross(args[0], args[1], dict(args[2]))
        if op == "vars":  # the live object's own ``__dict__``, which crosses linked (``STAND_IN_PATHS_RULE``): a
            # write through ``vars(o)`` reaches the live object, as under plain pytest (a module's: a copy)
            found = cross(_vars, (args[0],), {})
            if _type(found) is dict and "__builtins__" not in found:
                return found
            return {k: v for k, v in found.items() if k != "__builtins__"}
        if op == "slot":
            return cross(_slot, args, {})
        if op == "enter":
            return cross(_getattr(args[0], "__enter__"), (), {})
        if op == "exit":
            return self._exit(args, cross)
        if op == "observe":  # the probe observes a stand-in: its base value now, if no code of the tree answers for it
            return _observe(args[0])
        if op == "release":  # (the driver's ``rl`` with it did the work: ``_release``)
            return None
        if op == "abc":  # the test's isinstance/issubclass of a stand-in against an ABC of the interpreter's
            return _abc_check(args, cross)
        if op in ("sleep", "wait"):
            return self._wait(op, args, cross)
        if op == "csetattr":  # the test set a member of a tree class (``RemoteMeta.__setattr__``)
            return cross(_class_set, (self.class_patches, *args), {})
        if op == "cdelattr":
            return cross(_class_del, (self.class_patches, *args), {})
        if op == "subclass":  # a test's class deriving from tree classes (``_test_subclass``): made here
            made = cross(_subclass, args, {})
            self.test_classes[id(made)] = made  # (its instances cross as the test's class: ``_handle``'s ``tc``)
            return self.export(made)
        if op == "measure":  # the subject's share of a measure the test takes of its process (``MEASURES_RULE``)
            return cross(measure, args, {})
        if op == "log":  # a record of the test's the subject's logging decides (``LOG_ROUTE_RULE``)
            return cross(_route_record, args, {})
        if op == "sync":
            self._overflowed()
            _KERNEL_FULL[0] = True  # (the test's end: ``KERNEL_RULE``'s costlier reads come with this reply)
            _audit("hx.sync", args[0])
            return args[0]
        fn = _OPS.get(op)
        if fn is None:
            raise RemoteError(f"unknown request {op!r}")
        return cross(fn, args, {})

    def _exit(self, args: list, cross):
        """(an ``exit`` request) The live ``__exit__`` given the block's exception, as the interpreter hands it over
        (red team atk22): its class, the exception as it crossed, and a traceback (the exception raised and caught
        here: a real one, of this frame, where plain pytest's is the test's). The exception is a copy of the driver's
        (``enc_exc``): what the tree's ``__exit__`` changes of it (its args, notes, attributes, chain) cannot reach the
        exception the driver goes on raising, so such a change is a fault (``pending``: the test fails; stricter,
        never lenient; red team atk23)."""
        ev = args[1] if _len(args) > 1 else None
        if ev is None:
            return cross(_getattr(args[0], "__exit__"), (None, None, None), {})
        if not _isinstance(ev, BaseException):
            raise RemoteError("a malformed exit")
        context = _EXC_ATTR["__context__"].__get__(ev)
        try:
            raise ev
        except BaseException:  # noqa: BLE001 - (a traceback of its own: ``__traceback__`` is set by the raise)
            # called while it is the exception being handled, as the interpreter calls ``__exit__`` (``sys.exc_info()``
            # there is the block's: ``logging.exception``; an exception ``__exit__`` raises is chained to it)
            _EXC_ATTR["__context__"].__set__(ev, context)  # (the raise chained it to whatever this thread was handling)
            before = _exc_state(ev)
            try:
                return cross(_getattr(args[0], "__exit__"), (_type(ev), ev, ev.__traceback__), {})
            finally:
                if not _same(_exc_state(ev), before) and _len(self.pending) < 8:
                    self.pending.append("the code under test's __exit__ changed the exception of the block it ended "
                                        "(its args, notes, attributes or chain), which is the driver's exception: the "
                                        "judge cannot apply that change to it (harness.judge.subject_rpc Peer._exit)")

    def _wait(self, op: str, args: list, cross):
        """(subject) The test's ``time.sleep`` or a slice of another wait of its (harness.judge.probe_runtime
        ``_sleep``, ``_cond_wait``, ``_select``): the tree's threads run meanwhile."""
        secs = args[0] if args else None
        which = args[1] if _len(args) > 1 else 0  # (the value of ``time.sleep`` the test's function stands for)
        bad = _type(which) is not int or not 0 <= which < _len(self.sleeps)
        if bad or _type(secs) is not float or not 0.0 <= secs <= 1e7:  # type: ignore[operator]
            raise RemoteError("a malformed sleep")
        fn = self.sleeps[which] if op == "sleep" else _time_sleep
        if fn is _time_sleep:
            _time_sleep(secs)  # type: ignore[arg-type]
            return None
        return cross(fn, (secs,), {})

    def _sleep_moved(self) -> int:
        """(subject, at a message) ``time.sleep`` has another value than the driver was last told (``SLEEPS_RULE``):
        its index among the values it has had (the driver's ``time.sleep`` becomes a function standing for it), or
        -1 when it was deleted or past ``MAX_SLEEPS`` values (the driver fails the test if it calls it)."""
        cur = self.sleep_seen = _vars(_time).get("sleep", _MISSING)
        for i, fn in enumerate(self.sleeps):
            if fn is cur:
                return i
        if cur is _MISSING or _len(self.sleeps) >= MAX_SLEEPS:
            return -1
        self.sleeps.append(cur)
        return _len(self.sleeps) - 1

    def policy(self, op: str, args: list) -> None:
        """The subject serves every request of the driver; the driver serves only _driver_policy. A read of one of
        the test's ``sys.modules`` stubs the policy refuses though the stub has that attribute is also a fault
        (``IMPORT_STATE_RULE``: the tree's import or ``hasattr`` that catches the refusal takes a path plain
        pytest's does not)."""
        if self.side == "driver":
            if op == "getattr" and _len(args) > 1 and _type(args[1]) is str and args[1].startswith("_") and \
                    _stub_read(args[0], args[1]):
                return
            try:
                _driver_policy(op, args)
            except PermissionError as err:
                if op == "getattr" and _len(args) > 1 and args[1] != "__spec__" and _is_stub(args[0]) and \
                        self.on_fault is not None:  # (``__spec__``: the import system's own read, its error cleared in C)
                    self.on_fault(f"the tree read {str(args[1])[:60]!r} of a module the test put in sys.modules, which "
                                  f"the judge does not hand over ({err}; harness.judge.subject_rpc IMPORT_STATE_RULE)")
                raise

    # -- handles -----------------------------------------------------------------------------
    def export(self, obj) -> int:
        hid = self.byid.get(id(obj))
        if hid is None or self.objs.get(hid) is not obj:
            hid = self.next
            self.next += 1
            self.objs[hid], self.byid[id(obj)] = obj, hid
        elif self.exports_released:  # (driver: sent again before its release was applied: the subject holds it anew)
            self.exports_released.pop(hid, None)
        return hid

    def local(self, hid):
        if not _isinstance(hid, int) or hid not in self.objs:
            raise RemoteError(f"no such object {hid!r}")
        return self.objs[hid]

    # -- encoding (by real type) ---------------------------------------------------------------
    def enc(self, x, budget=None, depth=0):
        budget = budget or _Budget()
        budget.n += 1
        if budget.n > MAX_NODES or depth > 60:
            raise ValueError("a value too large or too deep to send")
        t = _type(x)
        if x is None or t is bool or t is str:
            return x
        if t is int:
            return x if -(1 << 62) < x < (1 << 62) else {"t": "I", "v": int.__format__(x, "x")}
        if t is float:
            if x is _NAN:  # ``math.nan``, the one NaN both sides share by identity (``x in [math.nan]`` holds)
                return {"t": "f", "v": "nan", "m": True}
            return x if x == x and x not in (float("inf"), float("-inf")) else {"t": "f", "v": repr(x)}
        if x is NotImplemented:  # one side of a binary operator declined (``_slot``): the caller tries the other
            return {"t": "NI"}
        if self.kept_ids:  # (driver) a kept value of the tree passed back: the tree's own object (``_enc_kept``)
            token = self.kept_ids.get(id(x))
            if token is not None and self.tuple_memo.get(token) is x:
                return {"t": "tk", "k": token}
        ref = _ref_of(x)
        if ref is not None:
            return {"t": "ref", "id": ref}
        if t in _MUTABLE:
            return self._enc_mutable(x, t, budget, depth)
        if t in _DICTS and (self.side == "driver" or (budget.refs is not None and id(x) in budget.refs)):
            return self._enc_counted(x, t, budget, depth)
        if t in _KEPT_BY_TOKEN and self.side == "subject" and (self.tuple_memo or budget.tuples):
            kept = self._enc_tuple(x, budget, depth) if t is tuple else self._enc_kept(x, t, budget, depth)
            if kept is not None:
                return kept
        if t in (list, tuple, set, frozenset, dict, bytes, bytearray, complex, range):
            return self._enc_builtin(x, t, budget, depth)
        if t is _OrderedDict:  # its own class, in its own order: its == reads the order (written back as a dict is)
            return self._enc_od(x, budget, depth)
        known = self._enc_known(x, t) if self.side != "subject" or all(unpatched(k) for k in _TYPE_MRO(t)) else None
        if known is not None:
            return known
        if _isinstance(x, BaseException):
            return {"t": "xv", "x": self.enc_exc(x)}
        if self.side == "subject" and _isinstance(x, _Enum):
            member = self._enc_member(x, t)
            if member is not None:
                return member
        if _isinstance(x, type):
            return self._cls_meta(x)
        if _isinstance(x, _types.ModuleType):
            if self.side == "driver" and not _by_name(x):  # a stub of the test's: itself (``ModuleStubs``)
                return self._handle(x)
            return {"t": "m", "n": x.__name__, "id": self.export(x), "ws": not trusted_file(getattr(x, "__file__", None))}
        name = _BUILTIN_IDS.get(id(x))  # (an object the interpreter has once: the receiver's own, ``SINGLETONS_RULE``)
        if name is not None and _BUILTIN_OBJECTS[name] is x:
            return {"t": "bi", "n": name}
        base = _value_base(x)
        return self._enc_sub(x, t, base, budget, depth) if base is not None else self._handle(x)

    def _enc_mutable(self, x, t, budget, depth):
        """A list, dict, set, bytearray or OrderedDict: the caller's own (``wb``), a linked one (``ln``), one met
        before in this message (``al``, ``_Budget.memo``) or of a request under way (``fl``, ``_in_flight``), one to
        link (``_link``), else its contents (recorded in ``track`` for a request's write-back)."""
        if budget.refs is not None and (depth > 0 or budget.top) and id(x) in budget.refs:
            return {"t": "wb", "i": budget.refs[id(x)]}
        lid = self.link_ids.get(id(x))
        if lid is not None and self.links.get(lid) is x:
            return {"t": "ln", "id": lid}
        if budget.track is not None and id(x) in budget.memo:  # met before in this message: the same object
            return {"t": "al", "i": budget.memo[id(x)]}
        if self.inflight:
            loc = self._in_flight(x)
            if loc is not None:
                if budget.track is not None:  # (a container of this message too: a change to it is written back)
                    budget.memo[id(x)] = _len(budget.track)
                    budget.track.append(x)
                return {"t": "fl", "k": loc[0], "i": loc[1]}
        if (budget.linking or (budget.kept is not None and id(x) in budget.kept)) and self._room(x):
            return self._link(x, budget, depth)
        if budget.track is None:
            return self._enc_contents(x, budget, depth)
        i = _len(budget.track)
        budget.track.append(x)
        out = self._enc_contents(x, budget, depth)
        budget.memo[id(x)] = i  # (once encoded: a cycle is still refused by the depth bound)
        return out

    def _enc_counted(self, x, t, budget, depth):
        """A ``defaultdict`` or ``Counter`` the driver passes (or the subject writes back), as itself (``_enc_dict``)."""
        if budget.refs is not None and (depth > 0 or budget.top) and id(x) in budget.refs:
            return {"t": "wb", "i": budget.refs[id(x)]}
        if budget.track is None:
            return self._enc_dict(x, t, budget, depth)
        if id(x) in budget.memo:
            return {"t": "al", "i": budget.memo[id(x)]}
        i = _len(budget.track)
        budget.track.append(x)
        out = self._enc_dict(x, t, budget, depth)
        budget.memo[id(x)] = i
        return out

    def _enc_sub(self, x, t, base, budget, depth) -> dict:
        """A subclass of a value type: its base value and its handle (``shadow``); a tree object's with the
        names its class answers, mirrored when its base is mutable (``_mirror``)."""
        if self.side == "subject":
            out = {"t": "sv", "v": self._enc_storage(x, base, budget, depth + 1), "h": self._handle(x)}
        else:
            linking, budget.linking = budget.linking, False  # (a copy made here: never linked)
            try:
                out = {"t": "sv", "v": self.enc(base, budget, depth + 1), "h": self._handle(x)}
            finally:
                budget.linking = linking
        if self.side == "subject" and trusted_name(t) is None:  # a class of the tree: its stand-in is made from it now
            self._stamp(t, self.export(t))
            hid = out["h"]["id"]
            if hid not in self.operated:
                self.operated[hid], self.operated_types[hid] = x, t
        if self.side == "subject" and not crosses_as_base(t):
            out["op"] = True  # a tree object: the receiver's stand-in runs here what its class answers
            self._enc_names(t, out)
            if _isinstance(x, bytearray) or \
                    _type(base) in (list, dict, set) and _isinstance(x, _type(base)) and not self._mirror(x, base):
                return self._handle(x)  # no stand-in whose storage could go stale: a bytearray's (its stand-in
                # would be bytes), or one past the bound
            if _type(base) in (list, dict, set) and _isinstance(x, _type(base)):
                out["mr"] = True  # mirrored (``_mirror_sync``)
            if observed_as_base(t):
                out["vb"] = True
        return out

    def _enc_storage(self, x, base=None, budget=None, depth=0):
        """The storage of a value-type object that crosses with a stand-in (``_enc_sub``, ``_mirror_sync``): its
        base value, a copy made here (never linked itself), with every mutable container in it linked (``_link``,
        within the bound): the live object holds those for as long as it lives, so they are the tree's state, one
        object on each side as under plain pytest (a list inside a tree tuple or a tree list that the tree changes
        later shows through the test's; the test's change to it reaches the tree)."""
        budget = budget or _Budget()
        base = _value_base(x) if base is None else base
        t = _type(base)
        if t not in (list, tuple, dict, set, frozenset):
            return self.enc(base, budget, depth)
        budget.n += 1
        if budget.track is not None and t in _MUTABLE:
            budget.track.append(base)  # (the receiver's decoding records it as ``enc`` would have)
        linking, budget.linking = budget.linking, True
        try:
            return self._enc_builtin(base, t, budget, depth)
        finally:
            budget.linking = linking

    def _enc_dict(self, x, t, budget, depth):
        """A ``defaultdict`` (with its factory) or ``Counter`` the test passes, as itself: the callee's
        in-place change is written back into the test's own (as a dict's is). Only the driver's (which
        holds no code of the tree) and the subject's write-back of the driver's own cross so; a value of
        the tree's crosses as a tree object (``crosses_as_base``: their special methods are not dict's)."""
        items = [[self.enc(k, budget, depth + 1), self.enc(v, budget, depth + 1)] for k, v in dict.items(x)]
        if t is _Counter:
            return {"t": "ctr", "v": items}
        return {"t": "dd", "v": items, "f": self.enc(_defaultdict.default_factory.__get__(x), budget, depth + 1)}

    def _enc_od(self, x, budget, depth):
        return {"t": "od", "v": [[self.enc(k, budget, depth + 1), self.enc(v, budget, depth + 1)]
                                 for k, v in _OrderedDict.items(x)]}

    # -- linked containers: the tree's own mutable state, one object on each side ------------------
    # Plain pytest hands the test the tree's own list (``return self._items``): a change the test makes
    # reaches the tree, a later change of the tree shows through, and every call returns the same object.
    # A container of the tree that the subject still holds when it crosses (``_kept``) is therefore
    # *linked*: the receiver builds one container for it (the same one each time it crosses again, a
    # ``ln`` reference), and each side, with every message it sends, sends the new contents of every
    # linked container it changed since the last message (``_link_sync``); the receiver applies them
    # (``_apply_links``) before it runs anything. Only one side runs at a time, so both hold the same
    # contents whenever either runs code. Every container inside a linked one is linked too, and so is
    # one the other side puts into it. A link ends when no one but the table holds its container on
    # one side (``_prune``); the other side then drops it too. A linked container stays a plain list
    # (dict, set, ...) of the receiver: the probe observes it by value, C code reads it as it is.
    # A container of a request the callee still holds once the call is done (``_retained``) is linked too,
    # the caller's own object on its side (``_adopt``). Between its messages the subject's state must not
    # change (only a thread of the tree or a signal handler can change it then, while the driver runs the
    # test against its copies): each message the subject receives checks it (``_moved``), and a change is a
    # fault the driver records (``pf``), so a stale copy never passes a test plain pytest's shared object fails.
    def _link(self, x, budget, depth) -> dict:
        lid = self.link_next
        self.link_next += 1 if self.side == "subject" else -1
        self.links[lid], self.link_ids[id(x)], self.link_snaps[lid] = x, lid, _snapshot(x)
        self.link_sig = None
        linking, budget.linking = budget.linking, True
        try:
            return {"t": "ln", "id": lid, "v": self._enc_contents(x, budget, depth)}
        finally:
            budget.linking = linking

    def _room(self, x) -> bool:
        """Whether one more container may be linked: every message checks every linked container (in C,
        ``_LinkSig``), so their number and items are bounded (``MAX_LINKS``, ``MAX_LINKED_ITEMS``); past
        that a container crosses as a copy, as every container did before links."""
        if _len(self.links) >= MAX_LINKS:
            return False
        self.link_items += _len(x)
        return self.link_items <= MAX_LINKED_ITEMS

    def _enc_contents(self, x, budget, depth):
        t = _type(x)
        return self._enc_od(x, budget, depth) if t is _OrderedDict else self._enc_builtin(x, t, budget, depth)

    def _unlink(self, lid) -> None:
        self.ns_origin.discard(lid)
        self.ns_exposed.discard(lid)
        obj = self.links.pop(lid, None)
        self.link_snaps.pop(lid, None)
        self.link_sig = None
        if obj is not None and self.link_ids.get(id(obj)) == lid:
            del self.link_ids[id(obj)]

    def _link_sync(self):
        """What goes with a message: the links this side ended (``rm``: no one but this side's tables
        still holds the container) and the new contents of every linked container changed since the
        last message (``c``: [link id, contents]). Checked in C over all links at once (``_LinkSig``);
        a container at a time only when something changed."""
        if not self.links:
            return None
        sig = self.link_sig or _LinkSig(self.links, self.link_snaps)
        self.link_sig, self.link_items = sig, sig.items
        counts = list(map(_getrefcount, sig.objs))
        gone, changed = [], []
        if any(map(_operator.le, counts, sig.base)):
            gone = [lid for lid, n, base in zip(sig.lids, counts, sig.base) if n <= base]
            for lid in gone:  # a change made just before it was dropped (the other side may hold it still)
                obj = self.links[lid]
                if not _unchanged(obj, self.link_snaps[lid]):
                    budget = _Budget()
                    budget.linking = True
                    changed.append([lid, self._enc_contents(obj, budget, 0)])
                self._unlink(lid)
            del obj
        del sig, counts
        if not gone and self.link_sig is not None and self.link_sig.unchanged():
            return None
        for lid in list(self.links):
            obj = self.links.get(lid)
            if obj is None or _unchanged(obj, self.link_snaps[lid]):
                continue
            budget = _Budget()
            budget.linking = True
            changed.append([lid, self._enc_contents(obj, budget, 0)])
            self.link_snaps[lid] = _snapshot(obj)
            self.link_sig = None
        if not gone and not changed:
            return None
        return {"rm": gone, "c": changed}

    def _apply_links(self, sync) -> None:
        """Apply the peer's ``_link_sync``: its changed contents, in place, then its ended links."""
        if sync is None:
            return
        if not _isinstance(sync, dict) or not _isinstance(sync.get("rm", []), list) or \
                not _isinstance(sync.get("c", []), list):
            raise RemoteError("a malformed link sync")
        for item in sync.get("c", []):
            if not _isinstance(item, list) or _len(item) != 2 or _type(item[0]) is not int or item[0] not in self.links:
                raise RemoteError("a change of an unknown link")
            obj = self.links[item[0]]
            if self.side == "subject" and not _unchanged(obj, self.link_snaps[item[0]]):  # (``Schedule``'s backstop)
                self.pending.append("a linked container changed in the subject (a thread of the tree) while the test's "
                                    "change to it was on its way: one of the two would be lost")
            _fill(obj, self.dec(item[1], 1))
            self.link_snaps[item[0]] = _snapshot(obj)
            self.link_sig = None
        for lid in sync.get("rm", []):
            if _type(lid) is not int:
                raise RemoteError("a malformed link sync")
            self._unlink(lid)

    def _dec_link(self, v: dict, depth: int, ctx):
        lid = v.get("id")
        if not isinstance(lid, int) or _type(lid) is not int:
            raise RemoteError("a malformed link")
        if "v" not in v:
            if lid not in self.links:
                raise RemoteError(f"no such link {lid!r}")
            if not self.ns_reading and lid in self.ns_origin:  # (named by another message: the test may hold it)
                self.ns_exposed.add(lid)
            return self.links[lid]
        content = v["v"]
        kind = "l" if _isinstance(content, list) else content.get("t") if _isinstance(content, dict) else None
        make = _EMPTY.get(kind) if isinstance(kind, str) else None
        if make is None or lid in self.links or (lid > 0) != (self.side == "driver"):
            raise RemoteError("a malformed link")  # each side allocates its own sign (``link_next``)
        obj = make()
        self.links[lid], self.link_ids[id(obj)] = obj, lid  # before its contents: they may hold it
        if self.ns_reading:
            self.ns_origin.add(lid)
        self.link_sig = None
        _fill(obj, self.dec(content, depth + 1, _Ctx(track=ctx.track, originals=ctx.originals) if ctx is not None else None))
        self.link_snaps[lid] = _snapshot(obj)
        return obj

    def _stamp(self, cls, hid: int, names=None) -> None:
        """(subject) Remember what a tree class answered when a stand-in of its value was first made (``_classes_moved``)."""
        if hid not in self.class_stamps:
            mro = _TYPE_MRO(cls)
            self.class_stamps[hid] = [cls, mro, _class_marks(mro), differing_names(cls) if names is None else names]

    def _enc_names(self, cls, out: dict) -> None:
        """The names ``cls`` answers otherwise than its base (``differing_names``, read again at every
        crossing: a class patched since is read as it is now), sent only when they differ from what was
        last sent for that class (``nc``: the class's handle; the driver keeps them, ``class_names``)."""
        names = differing_names(cls)
        out["nc"] = hid = self.export(cls)
        self._stamp(cls, hid, names)
        if self.class_names.get(hid) != names:
            self.class_names[hid] = names
            out["nm"] = names

    # -- a tree module's namespace, kept in step (``TREE_NAMESPACE_RULE``) -----------------------------
    def _watch_namespace(self, mod) -> int:
        """(subject, an ``import`` request of the driver's proxy module) Watch the namespace of the tree's module
        ``mod`` from now on: the reply to the import carries it whole (``_namespaces_moved``, from an empty one)."""
        hid = self.export(mod)
        cells = _dict_cells_of([_vars(mod)])
        # [the module, its namespace as last sent, its dict's version cell, that version, its class then, whether the
        # next message sends it whole, the names its proxy reads by a request]
        self.namespaces[hid] = [mod, {}, cells[0] if cells else None, None, None, True, set()]
        return hid

    def _namespaces_moved(self, msg: dict) -> None:
        """(subject, every message it sends) The bindings of each watched module of the tree that changed since the
        last message (``tm``: ``_namespace_change``), found by the module dict's version tag (one 8-byte read), else
        by identity, and by the module's class (a module class answers every name itself: nothing is kept)."""
        out = []
        for hid, entry in self.namespaces.items():
            mod, old, cell, seen, cls, fresh, _remote = entry
            now = _VERSIONS[2](cell) if cell is not None else None
            if cell is not None and now == seen and _type(mod) is cls:
                continue
            fresh = fresh or (cls is not None and _type(mod) is not cls)  # (a class changed: every name again)
            entry[3], entry[4] = now, _type(mod)
            new = _namespace_of(mod)
            if not fresh and _len(new) == _len(old) and all(map(_is_, new.values(), old.values())) and \
                    new.keys() == old.keys():
                continue
            entry[1], entry[5] = new, False
            try:
                out.append(self._namespace_change(hid, entry, {} if fresh else old, fresh))
            except (KeyboardInterrupt, Closed):
                raise
            except BaseException as exc:  # noqa: BLE001 - the test would read the binding as it was: a fault
                self.pending.append(f"a binding of the tree's module {_getattr(mod, '__name__', '?')!s:.60} that "
                                    f"changed could not cross ({_why(exc)}): the test would read it as it was before "
                                    "(TREE_NAMESPACE_RULE)")
        if out:
            msg["tm"] = out

    def _namespace_change(self, hid: int, entry: list, old: dict, fresh: bool) -> dict:
        """One module's change: its bindings set (``k`` names, ``v`` their values as a reply's cross: a handle, a linked
        container, a value), the names deleted (``x``), and every name its proxy reads by a ``getattr`` request
        (``r``, whole): one bound to a module (read when first read, so that no import runs while this message is
        read), to a container past the link bounds (it would cross as a copy: a request is as fresh as a reply), and
        every name of a module whose class is not the module type (a property, a setter answers); ``i``: the whole
        namespace, of a proxy module being imported (``n``: its name)."""
        mod, new, remote = entry[0], entry[1], entry[6]
        if fresh:
            remote.clear()
        changed = {k: v for k, v in new.items() if k not in old or old[k] is not v}
        gone = [k for k in old if k not in new]
        remote.difference_update(gone, changed)
        if _type(mod) is not _types.ModuleType:
            remote.update(new)
            changed = {}
        keys = [k for k, v in changed.items() if not _isinstance(v, _types.ModuleType)]
        remote.update(k for k in changed if _isinstance(changed[k], _types.ModuleType))
        values = [changed[k] for k in keys]
        kept, kept_tuples = _kept_with_tuples(values, 1)
        budget = _Budget(kept=kept)
        budget.tuples = kept_tuples
        enc = self.enc(values, budget)
        copied = {i for i, (v, e) in enumerate(zip(values, enc))
                  if _type(v) in _MUTABLE and not (_type(e) is dict and e.get("t") in ("ln", "al"))}
        remote.update(keys[i] for i in copied)
        out = {"id": hid, "k": [k for i, k in enumerate(keys) if i not in copied],
               "v": [e for i, e in enumerate(enc) if i not in copied], "x": gone, "r": sorted(remote)}
        if fresh:
            out["i"], out["n"] = 1, _getattr(mod, "__name__", "")
        return out

    def _apply_namespaces(self, moved) -> None:
        """(driver) Set the peer's changed bindings (``tm``) in the proxy module of each (``set_namespace``)."""
        if not moved or self.side != "driver":
            return
        if not _isinstance(moved, list):
            raise RemoteError("a malformed namespace change")
        for item in moved:
            if not _isinstance(item, dict) or _type(item.get("id")) is not int or \
                    not all(_isinstance(item.get(f), list) for f in ("k", "v", "x", "r")) or \
                    _len(item["k"]) != _len(item["v"]) or \
                    not all(_type(n) is str for f in ("k", "x", "r") for n in item[f]):
                raise RemoteError("a malformed namespace change")
            mod = self._namespace_module(item)
            self.ns_reading = True
            try:
                values = self.dec(item["v"], 0)
            finally:
                self.ns_reading = False
            self.set_namespace(mod, dict(zip(item["k"], values)), item["x"], item["r"])

    def _namespace_module(self, item: dict):
        """(driver) The proxy module a namespace change is of: by its handle, or (``i``: the reply to its import) the
        module of that name being imported, which has no handle yet (``_ProxyLoader``)."""
        hid = item["id"]
        if item.get("i"):
            name = item.get("n")
            found = _sys.modules.get(name) if isinstance(name, str) else None
            if _isinstance(found, ProxyModuleBase) and module_ref(found) in (None, hid):
                _MODULE_REFS[found] = hid
                self.namespaces[hid] = found
                return found
        mod = self.namespaces.get(hid)
        if mod is None:
            raise RemoteError("a change of an unknown module's namespace")
        return mod

    def set_namespace(self, mod, bindings: dict, gone=(), remote=()) -> None:
        """(driver) The one writer of a proxy module's namespace (``TREE_NAMESPACE_RULE``): the bindings set, the names
        deleted, the names it reads by a request (``remote_names``), dropped."""
        own = object.__getattribute__(mod, "__dict__")
        for k, v in bindings.items():
            if namespace_name(k):
                own[k] = v
        for k in (*gone, *remote):
            if namespace_name(k):
                own.pop(k, None)
        self.ns_remote[module_ref(mod)] = set(remote)
        self.ns_synced(mod)

    def remote_names(self, mod) -> set:
        """(driver) The names the subject's module binds that its proxy reads by a request."""
        return self.ns_remote.get(module_ref(mod), set())

    def materialize(self, mod) -> None:
        """(driver) The test reads the proxy's ``__dict__`` (``vars``, ``dir``, ``import *``, ``monkeypatch``): every
        name it reads by a request is taken now from the module's own dict (one ``vars`` request: never a ``getattr``,
        which would run a module class's ``__getattribute__`` or its property shadowing the binding; red team atk27)
        and put there, until the subject's next message (``_dematerialize``: then read by a request again)."""
        own = object.__getattribute__(mod, "__dict__")
        hid = module_ref(mod)
        if self.ended or hid is None:
            return
        missing = self.remote_names(mod) - own.keys()
        if not missing:
            return
        found = self.request("vars", mod)  # (the module's own dict, as plain ``vars`` reads it: no getattr, no property)
        got = {k: found[k] for k in missing if _type(found) is dict and k in found}
        own.update(got)  # (after the reply: a reply ends what an earlier materialization put there)
        self.ns_materialized.setdefault(hid, set()).update(got)
        self.ns_synced(mod)

    def _dematerialize(self) -> None:
        for hid, names in self.ns_materialized.items():
            mod = self.namespaces.get(hid)
            if mod is not None:
                own = object.__getattribute__(mod, "__dict__")
                for k in names:
                    own.pop(k, None)
                self.ns_synced(mod)
        self.ns_materialized.clear()

    def ns_synced(self, mod) -> None:
        """(driver) What the harness wrote in a proxy module's namespace is as the subject's messages say: recorded, so
        that a write of the test's own into its ``__dict__`` is seen (``_namespace_written``)."""
        if module_ref(mod) in self.ns_written:
            return
        own = object.__getattribute__(mod, "__dict__")
        cells = _dict_cells_of([own])
        cell = cells[0] if cells else None
        self.ns_snap[module_ref(mod)] = [cell, _VERSIONS[2](cell) if cell is not None else None, dict(own)]

    def _namespace_written(self) -> str | None:
        """(driver, before each request) A binding of a proxy module the test wrote into its ``__dict__`` itself
        (``mock.patch.dict(pkg.__dict__)``, ``vars(pkg).update``): no request carries it to the tree, which reads its
        own; the judge cannot say what plain pytest's tree would read: a fault."""
        for hid, (cell, seen, items) in list(self.ns_snap.items()):
            if cell is not None and _VERSIONS[2](cell) == seen:
                continue
            mod = self.namespaces.get(hid)
            if mod is None:
                continue
            own = object.__getattribute__(mod, "__dict__")  # (every key: a dunder written there reaches no tree either)
            if own.keys() == items.keys() and all(own[k] is items[k] for k in own):
                self.ns_synced(mod)
                continue
            moved = sorted(k for k in own.keys() | items.keys() if own.get(k, _MISSING) is not items.get(k, _MISSING))
            del self.ns_snap[hid]
            self.ns_written.add(hid)  # (reported once: the test fails; the requests after it go on, the module unchecked)
            return (f"the test wrote {', '.join(moved[:3])} into the tree module {mod.__name__}'s __dict__ itself "
                    "(not by setattr): no request carries it to the tree (TREE_NAMESPACE_RULE)")
        return None

    # -- mirrored tree objects: a tree subclass of list, dict or set, its storage kept in step ------------
    # The driver's stand-in of a tree object (``shadow``, operated) is an instance of its base type: C code
    # of the driver reads its storage wherever plain pytest's C code reads the live object's (``dict()`` of
    # a dict subclass, a set's union, a list's comparison with it). For an immutable base that storage is
    # the value for good; for a mutable one the subject sends, with every message, the storage of every
    # such object changed since the last (``_mirror_sync``), read through the base type's own methods, and
    # the driver puts it into the stand-in (``_apply_mirrors``) before anything of its own runs. What the
    # driver does to it goes to the live object (the stand-in forwards every mutating special method and
    # public attribute). Past the bound a tree object of a mutable base crosses as a plain handle: no stand-in
    # whose storage could go stale.
    def _mirror(self, x, base) -> bool:
        """Register the subject's tree object ``x`` (its base value ``base``, a list, dict or set) for
        ``_mirror_sync``; False when past the bound (``MAX_LINKS``, ``MAX_LINKED_ITEMS``)."""
        hid = self.export(x)
        if hid in self.mirrors:
            self.mirrors[hid][1] = _base_snapshot(x)
            return True
        if _len(self.mirrors) >= MAX_LINKS or self.mirror_items + _len(base) > MAX_LINKED_ITEMS:
            return False
        self.mirror_items += _len(base)
        self.mirrors[hid] = [x, _base_snapshot(x)]
        return True

    def _mirror_sync(self) -> tuple:
        """([handle id, storage] of every mirrored object whose storage changed since it was last sent (the
        subject's handle id on both sides: the driver keeps its stand-ins under it, ``shadow``), [handle id]
        of every stand-in the driver no longer holds but in its own tables: its mirror ends on both sides,
        and the live object crossing again gets a new stand-in)."""
        out, dropped = [], []
        for hid, entry in list(self.mirrors.items()):  # (encoding one may mirror another it holds)
            gone = self.side == "driver" and _getrefcount(entry[0]) <= 3  # proxies, this entry, the argument
            now = _base_snapshot(entry[0])
            if now[0] is not entry[1][0] or not _same(now[1], entry[1][1]) or not _same(now[2], entry[1][2]):
                entry[1] = now  # (a write the driver made just before it dropped the stand-in still goes)
                out.append([hid, self._enc_storage(entry[0])])
            if gone:
                del self.mirrors[hid]
                self.proxies.pop(("sv", hid, True), None)
                dropped.append(hid)
        return out, dropped

    def _apply_mirrors(self, sync, dropped=None) -> None:
        """Put the peer's storage of each mirrored object (``_mirror_sync``) into this side's: the driver's
        stand-in, or (a change the driver's own C code made to the stand-in's storage: ``heapq.heappush``)
        the live object, through the base type's own methods, as plain pytest's C code changes it."""
        if sync:
            if not _isinstance(sync, list):
                raise RemoteError("a malformed mirror sync")
            for item in sync:
                if not _isinstance(item, list) or _len(item) != 2 or _type(item[0]) is not int:
                    raise RemoteError("a malformed mirror sync")
                new, entry = self.dec(item[1], 1), self.mirrors.get(item[0])
                if entry is None:  # no stand-in was made of it here (a plain handle): nothing to keep in step
                    continue
                _fill_base(entry[0], new)
                entry[1] = _base_snapshot(entry[0])
        if dropped:  # (after the changes: the driver's last write to a stand-in it dropped still applies)
            if not _isinstance(dropped, list) or not all(_type(h) is int for h in dropped):
                raise RemoteError("a malformed mirror sync")
            for hid in dropped:  # the driver holds no stand-in of it any more: no need to send its storage
                entry = self.mirrors.pop(hid, None) if self.side == "subject" else None
                if entry is not None:
                    self.mirror_items -= _len(entry[1][1])

    def _enc_builtin(self, x, t, budget, depth):
        if t is list:
            return [self.enc(v, budget, depth + 1) for v in list.__iter__(x)]
        if t is tuple:
            return {"t": "tu", "v": [self.enc(v, budget, depth + 1) for v in tuple.__iter__(x)]}
        if t is dict:
            return {"t": "d", "v": [[self.enc(k, budget, depth + 1), self.enc(v, budget, depth + 1)]
                                    for k, v in dict.items(x)]}
        if t in (set, frozenset):
            return {"t": "s" if t is set else "fs", "v": [self.enc(v, budget, depth + 1) for v in t.__iter__(x)]}
        if t in (bytes, bytearray):
            return {"t": "b" if t is bytes else "ba", "v": _b64encode(bytes(x)).decode()}
        if t is complex:
            return {"t": "c", "v": [x.real, x.imag]}
        return {"t": "r", "v": [x.start, x.stop, x.step]}

    # -- kept values: one object in the driver for one object in the tree, across messages ----------------------
    # The rule: what the tree can change here is which object a call returns (the same one from two calls: a constant,
    # a cache, a code object's constant), whatever its type. Every object crosses either as itself (a handle, a link,
    # a class, a module, an exception: one stand-in per live object) or as a copy; of the copies, every value the tree
    # keeps (``_kept_with_tuples``: a tuple or any other immutable value that crosses as a copy, ``_KEPT_VALUES``: a
    # frozenset, bytes, a range, a complex, a Decimal, a Fraction, a date, datetime, time or timedelta, a path) crosses
    # with a token (``k`` on a tuple, ``kv`` around any other), and the driver keeps the object it decoded under it;
    # sent again while the tree still holds it, it crosses as that token (``tk``) and the driver hands over the same
    # object, so ``is`` answers as under plain pytest. Passed back by the test, the driver's object crosses as the
    # token too, and the tree gets its own object (``Peer.dec``). Only a value whose every item decodes to the same
    # object again is kept so (scalars and immutable values, tuples, linked containers and handles, each checked
    # still the same link or handle when reused: ``_tuple_refs``); the subject forgets it (``tx``) once only its table
    # holds it, or past ``MAX_KEPT_TUPLES``. Left out: the JSON scalars (a str, a float, an int), which carry no
    # identity (docs/judge.md's open list).
    def _reused(self, x) -> dict | None:
        """The token of the kept value ``x`` when it was sent before and every item still decodes to the same object."""
        entry = self.tuple_memo.get(id(x))
        if entry is not None and entry[0] is x:
            if all(table.get(key) is obj for table, key, obj in entry[2]):
                self.tuple_used.add(entry[1])
                return {"t": "tk", "k": entry[1]}
            del self.tuple_memo[id(x)]  # (an item no longer decodes to the object it did: a new token)
            self.tuple_gone.append(entry[1])
        return None

    def _keep(self, x, refs: list) -> int:
        """A new token for the kept value ``x`` (the oldest forgotten past ``MAX_KEPT_TUPLES``)."""
        if _len(self.tuple_memo) >= MAX_KEPT_TUPLES:
            oldest = next(iter(self.tuple_memo))
            self.tuple_gone.append(self.tuple_memo.pop(oldest)[1])
        token = self.tuple_next
        self.tuple_next += 1
        self.tuple_memo[id(x)] = [x, token, refs]
        self.tuple_used.add(token)
        return token

    def _enc_tuple(self, x, budget, depth) -> dict:
        again = self._reused(x)
        if again is not None:
            return again
        kept = budget.tuples is not None and id(x) in budget.tuples
        linking = budget.linking
        budget.linking = linking or kept  # (what a kept tuple holds, the tree holds: linked, as a linked list's items)
        try:
            items = [self.enc(v, budget, depth + 1) for v in tuple.__iter__(x)]
        finally:
            budget.linking = linking
        out: dict = {"t": "tu", "v": items}
        if kept:
            refs: list = []
            if self._tuple_refs(items, refs, 0):
                out["k"] = self._keep(x, refs)
        return out

    def _enc_kept(self, x, t, budget, depth) -> dict | None:
        """A kept immutable value other than a tuple (``_KEPT_VALUES``): its token when sent before, else its copy
        with a new token (``kv``) when the tree keeps it; None: not kept (``enc`` copies it as ever)."""
        again = self._reused(x)
        if again is not None:
            return again
        if budget.tuples is None or id(x) not in budget.tuples:
            return None
        if t in (frozenset, bytes, complex, range):
            inner = self._enc_builtin(x, t, budget, depth)
        elif all(unpatched(k) for k in _TYPE_MRO(t)):
            inner = self._enc_known(x, t)
        else:
            return None
        refs: list = []
        if inner is None or not self._tuple_refs([inner], refs, 0):
            return inner
        return {"t": "kv", "k": self._keep(x, refs), "v": inner}

    def _tuple_refs(self, items: list, refs: list, depth: int) -> bool:
        """Whether the encoded ``items`` decode to the same objects when sent again: JSON scalars, immutable values,
        tuples, kept tuples, linked containers and handles (each recorded in ``refs`` as (table, key, object): the
        link or handle it must still be). Anything else (a copied container, an alias of this message, a stand-in
        with storage): no."""
        if depth > 60:
            return False
        for v in items:
            if v is None or _type(v) in (bool, int, float, str):
                continue
            if _type(v) is not dict:
                return False
            t = v.get("t")
            if t in ("tu", "fs"):
                if not self._tuple_refs(v["v"], refs, depth + 1):
                    return False
            elif t == "kv":
                if not self._tuple_refs([v["v"]], refs, depth + 1):
                    return False
            elif t == "ln":
                refs.append((self.links, v["id"], self.links.get(v["id"])))
            elif t == "h":
                refs.append((self.objs, v["id"], self.objs.get(v["id"])))
            elif t not in ("tk", "I", "f", "b", "c", "r", "ref", "dec", "fr", "date", "datetime", "time", "td", "path"):
                return False
        return True

    def _forget_tuples(self, msg: dict) -> None:
        """(subject, at each message it sends) The kept tuples only this side's table still holds (the tree dropped
        them: none can be sent again) are forgotten, and with them the driver's (``tx``); never one this message
        names."""
        used = self.tuple_used
        for key, entry in list(self.tuple_memo.items()):
            if entry[1] not in used and _getrefcount(entry[0]) <= 2:  # (the table's list, the argument)
                del self.tuple_memo[key]
                self.tuple_gone.append(entry[1])
        entry = None
        used.clear()
        if self.tuple_gone:
            msg["tx"], self.tuple_gone = self.tuple_gone, []

    @staticmethod
    def _enc_known(x, t):
        """The stdlib's value types, recognized by identity (a tree class named ``decimal.Decimal``
        is a tree class) and read through their own methods."""
        if t is _Decimal:
            return {"t": "dec", "v": _Decimal.__str__(x)}
        if t is _Fraction:
            return {"t": "fr", "v": [x.numerator, x.denominator]}
        if t is _DATE:
            return {"t": "date", "v": t.isoformat(x)}
        if t is _DATETIME or t is _TIME:  # with ``fold``, which isoformat leaves out
            out = {"t": t.__name__, "v": t.isoformat(x), "fold": t.fold.__get__(x)}
            zone = _zone_key(t.tzinfo.__get__(x))
            if zone is not None:
                out["tz"] = zone
            return out
        if t is _TIMEDELTA:
            return {"t": "td", "v": [x.days, x.seconds, x.microseconds]}
        if t is _PosixPath or t is _PurePosixPath:  # a pure path stays pure (no filesystem methods)
            return {"t": "path", "v": t.__fspath__(x), "pure": t is _PurePosixPath}
        return None

    @staticmethod
    def _enc_member(x, t) -> dict | None:
        """(subject) A member of an enum class of the interpreter's (``trusted_name``: by identity, never by the name
        a class gives itself) crosses as the receiver's own member of that class and name: one process has one
        ``http.HTTPStatus.OK``, so ``record.st is HTTPStatus.OK`` and ``f() is HTTPStatus.OK`` hold as under plain
        pytest. Only a canonical member (its class's ``_member_map_`` holds it under its name); a composite flag and
        a class of the tree's cross as before (a stand-in)."""
        name = trusted_name(t)
        if name is None or not unpatched(t):
            return None
        try:
            mod, qn = _TYPE_MODULE(t), _TYPE_QUALNAME(t)
            mm, key = _TYPE_DICT(t).get("_member_map_"), _vars(x).get("_name_")
        except Exception:  # noqa: BLE001 - not an enum as ``enum`` makes one: as before
            return None
        if f"{mod}.{qn}" != name or _type(mm) is not dict or _type(key) is not str or mm.get(key) is not x:
            return None
        own = _member_fields(x, t)  # (what the member holds: compared with the receiver's, a fault where it differs)
        return None if own is None else {"t": "em", "m": mod, "q": qn, "n": key, "d": own}

    def _dec_member(self, v: dict):
        """(driver) ``_enc_member``'s member: this process's own, found by module and qualified name among its
        loaded modules; one it cannot find so is a fault (never another value)."""
        mod, qn, key = v.get("m"), v.get("q"), v.get("n")
        cls: Any = _sys.modules.get(mod) if _type(mod) is str else None  # type: ignore[arg-type]
        for part in (qn.split(".") if _type(qn) is str and cls is not None else ()):  # type: ignore[union-attr]
            cls = _vars(cls).get(part) if hasattr(cls, "__dict__") else None
        mm: Any = _TYPE_DICT(cls).get("_member_map_") if _isinstance(cls, type) and issubclass(cls, _Enum) else None
        if not _isinstance(mm, dict) or _type(key) is not str or key not in mm or \
                f"{_TYPE_MODULE(cls)}.{_TYPE_QUALNAME(cls)}" != f"{mod}.{qn}" or \
                _member_fields(mm[key], cls) != v.get("d"):
            raise self._dec_fault(f"a member of the interpreter's enum {str(mod)[:60]}.{str(qn)[:60]} that this "
                                  "process cannot find as the subject's holds it")
        return mm[key]

    def _handle(self, x) -> dict:
        new = self.side == "driver" and id(x) not in self.byid
        out = {"t": "h", "id": self.export(x), "ty": qualname(_type(x))}
        if new and _finalizes(x):  # (an object of the test's whose drop runs code: ``DRIVER_OBJECTS_RULE``)
            self.fz_exported.add(out["id"])
        if self.side == "subject":
            named = self.ps.abc_named if self.ps is not None else None
            if named and named.get(out["ty"], _type(x)) is not _type(x) and _len(self.pending) < 8:
                self.pending.append("an object of a class of the tree's named as one it registered with an ABC of the "
                                    "interpreter's (the driver's stand-ins of both answer the ABC alike: "
                                    "harness.judge.subject_rpc CENSUS_RULE)")
            if trusted_name(_type(x)) is None:
                out["tt"] = True  # its class is the tree's (the driver never reads its name as an identity)
                out["k"] = self.export(_type(x))  # (that class, for the driver's ABC checks: ``ABC_CHECKS_RULE``)
                if self.test_classes and self.test_classes.get(id(_type(x))) is _type(x):
                    out["tc"] = self.export(_type(x))  # an instance of the test's own class (``_test_instance``)
            if _finalizes(x):  # (an object of the interpreter's classes too: a file the tree returned)
                out["fz"] = True  # dropping it runs code (``Peer._dropped``)
                self.fz_sent.add(out["id"])
        try:
            out["c"] = bool(callable(x))
        except Exception:  # noqa: BLE001
            out["c"] = False
        return out

    def _cls_meta(self, cls) -> dict:
        """A class as it crosses: its handle, its name and its MRO's names. In the subject a name is
        given only for the interpreter's own classes, by identity (``trusted_name``): a class of the
        tree is ``ws`` and its MRO entry null, whatever it calls itself ("n" is then only shown). The
        driver holds no code of the tree: its classes are named as they name themselves."""
        if self.side == "subject":
            names = [trusted_name(c) for c in _TYPE_MRO(cls)]
            out = {"t": "cls", "id": self.export(cls), "n": names[0] or qualname(cls), "mro": names,
                   "ws": names[0] is None}
            hooks = class_hooks(cls)
            if hooks:
                out["hk"] = hooks
            if issubclass(cls, BaseException) and not all(unpatched(k) for k in _TYPE_MRO(cls)):
                out["fw"], out["fn"] = exception_names(cls)
                if names[0] is None:  # its bases, so the driver's stand-ins keep the tree's hierarchy
                    out["bs"] = [self._cls_meta(b) for b in _TYPE_BASES(cls)]
            return out
        try:
            mro = [qualname(c) for c in _TYPE_MRO(cls)]
        except Exception:  # noqa: BLE001
            mro = [qualname(cls)]
        mod = _sys.modules.get(getattr(cls, "__module__", "") or "")
        return {"t": "cls", "id": self.export(cls), "n": qualname(cls), "mro": mro,
                "ws": not trusted_file(getattr(mod, "__file__", None)) if mod is not None else True}

    def enc_exc(self, exc, depth=0, seen=None) -> dict:
        """An exception as it crosses: its exact class, its ``args``, the interpreter's own fields of its
        class (``_exc_fields``: ``SystemExit.code``, ``OSError.errno``, ``StopIteration.value``, an
        exception group's ``message`` and ``exceptions``, read through the C descriptors, never the
        tree's code), its public ``__dict__`` entries, its notes and chain. Whatever of that cannot be
        encoded raises (the caller's protocol fault: ``Peer._serve``), never crosses without it."""
        seen = {} if seen is None else seen  # id(exception) -> its handle: one chain's exceptions, each once
        hid = self.export(exc)
        seen[id(exc)] = hid
        args = self.enc(list(BaseException.__getattribute__(exc, "args")))
        try:
            text = str(exc)
            text = text if _type(text) is str else ""
        except Exception:  # noqa: BLE001
            text = ""
        fields = {}
        for name, desc in _exc_fields(_type(exc)).items():
            try:
                value = desc.__get__(exc)
            except AttributeError:  # a field never set (``characters_written``): absent on the receiver too
                continue
            fields[name] = self.enc(value)
        attrs = {}
        try:
            own = dict(getattr(exc, "__dict__", {}) or {})
        except Exception:  # noqa: BLE001 - no readable __dict__: no attributes of its own
            own = {}
        for k, v in own.items():
            if _type(k) is str and not k.startswith("_"):
                attrs[k] = self.enc(v)
        out = {"cls": self._cls_meta(_type(exc)), "args": args, "str": text[:1 << 20], "d": attrs, "fld": fields,
               "id": hid}
        self._enc_chain(exc, out, depth, seen)
        return out

    def _enc_chain(self, exc, out: dict, depth: int, seen: dict) -> None:
        """What else plain pytest's reading of an exception sees: its PEP 678 notes (``match=`` reads
        them), and its ``__cause__``, ``__context__`` and ``__suppress_context__``, read through
        BaseException's own descriptors. An exception met twice in one chain (``raise X from e`` in
        ``except ... as e`` makes ``e`` both cause and context; a cycle) crosses once, then by its handle
        (``same``), so ``is`` holds on the receiver as it does here; a chain is cut past _MAX_CHAIN links."""
        notes, bad = self._notes(exc)
        if notes is not None:
            out["notes"] = notes
        if bad is not None:
            out["nb"] = bad
        out["sup"] = _EXC_ATTR["__suppress_context__"].__get__(exc) is True
        for key, name in (("cause", "__cause__"), ("ctx", "__context__")):
            linked = _EXC_ATTR[name].__get__(exc)
            if linked is None or not _isinstance(linked, BaseException):
                continue
            if id(linked) in seen:
                out[key] = {"same": seen[id(linked)]}
            elif depth < _MAX_CHAIN:
                out[key] = self.enc_exc(linked, depth + 1, seen)

    def _notes(self, exc):
        """(notes, bad): ``exc.__notes__`` as pytest's ``stringify_exception`` joins it for ``match=`` (``getattr``,
        then ``"\\n".join([message, *notes])``), and the type name of the first item that join refuses (its
        TypeError, which the receiver's match raises: probe_runtime ``_match_text``), or None. The subject reads it as
        plain pytest does: the tree's own property and its container's iteration run here, where the tree's code runs;
        a str subclass's item is its str value, as the join reads it (red team atk14: notes in a list subclass, a
        non-str note). The driver reads only the instance's own ``__dict__``, a list or tuple of str (no attribute
        lookup of a stand-in)."""
        try:
            if self.side == "subject":
                notes = getattr(exc, "__notes__", None)
                if notes is None:
                    return None, None
                out = []
                for n in [*notes]:
                    if not _isinstance(n, str):
                        return out[:64], _type(n).__name__[:80]
                    out.append(str.__str__(n)[:1 << 16])
                return out[:64], None
            notes = dict.get(object.__getattribute__(exc, "__dict__"), "__notes__")
            if _type(notes) in (list, tuple) and all(_type(n) is str for n in notes):
                return [n[:1 << 16] for n in notes[:64]], None
        except Exception as e:  # noqa: BLE001 - whatever a tree object does, the exception still crosses
            return None, _type(e).__name__[:80]  # (pytest's own reading raises there too)
        return None, None

    # -- decoding ------------------------------------------------------------------------------
    def dec(self, v, depth=0, ctx=None):
        """A value as the peer encoded it. ``ctx``: the request's mutable containers are recorded
        in encoding order (pre-order, as ``enc`` meets them), or a write-back's names resolved."""
        if depth > 70:
            raise RemoteError("a value nested too deep")
        if v is None or _isinstance(v, (bool, int, float, str)):
            return v
        if _isinstance(v, list):
            return self._tracked(ctx, lambda: [self.dec(x, depth + 1, ctx) for x in v])
        if not _isinstance(v, dict):
            raise RemoteError("not an encoded value")
        t, x = v.get("t"), v.get("v")
        if t == "tu":
            out = tuple(self.dec(e, depth + 1, ctx) for e in x)
            token = v.get("k")
            if _type(token) is int and self.side == "driver":  # a tuple the tree keeps (``_enc_tuple``)
                self._kept_token(token, out)
            return out
        if t == "kv":  # another immutable value the tree keeps (``_enc_kept``)
            out = self.dec(x, depth + 1, ctx)
            token = v.get("k")
            if self.side != "driver" or _type(token) is not int or _type(out) not in _KEPT_VALUES:
                raise RemoteError("a malformed kept value")
            self._kept_token(token, out)
            return out
        if t == "tk":
            return self._dec_token(v.get("k"))
        if t == "d":
            return self._tracked(ctx, lambda: {self.dec(k, depth + 1, ctx): self.dec(e, depth + 1, ctx) for k, e in x})
        if t == "s":
            return self._tracked(ctx, lambda: {self.dec(e, depth + 1, ctx) for e in x})
        if t == "fs":
            return frozenset(self.dec(e, depth + 1, ctx) for e in x)
        if t in ("b", "ba"):
            b = _b64decode(x)
            return b if t == "b" else self._tracked(ctx, lambda: bytearray(b))
        if t == "ref":
            return self.local(v.get("id"))
        if t == "ln":
            return self._dec_link(v, depth, ctx)
        if t == "al":  # a container met before in this message (``_Budget.memo``)
            i = v.get("i")
            if ctx is None or ctx.track is None or _type(i) is not int or not 0 <= i < _len(ctx.track) or ctx.track[i] is None:
                raise RemoteError("an alias outside its message")
            return ctx.track[i]
        if t == "fl":  # a container of a request under way (``_in_flight``)
            k, i = v.get("k"), v.get("i")
            if _type(k) is not int or _type(i) is not int or not 0 <= k < _len(self.inflight) or \
                    not 0 <= i < _len(self.inflight[k]) or self.inflight[k][i] is None:
                raise RemoteError("a container of no request under way")
            obj = self.inflight[k][i]
            if ctx is not None and ctx.track is not None:
                ctx.track.append(obj)  # (as ``enc`` tracked it: this message's write-back covers it)
            return obj
        if t == "wb":
            i = v.get("i")
            if ctx is None or ctx.originals is None or _type(i) is not int or not 0 <= i < _len(ctx.originals):
                raise RemoteError("a write-back name outside a write-back")
            return ctx.originals[i]
        return self._dec_other(t, x, v, depth, ctx)

    def _kept_token(self, token: int, out) -> None:
        """(driver) Keep ``out`` under the tree's token (``_enc_tuple``, ``_enc_kept``), and its id for the way back."""
        if _len(self.tuple_memo) >= MAX_KEPT_TUPLES * 2:
            raise RemoteError("more kept values than the subject may name")
        self.tuple_memo[token] = out
        self.kept_ids[id(out)] = token

    def _dec_token(self, token):
        """A kept value's token (``tk``): in the driver the object it decoded under it; in the subject, passed back
        by the test, the tree's own object (an unknown token is a protocol fault: fail closed)."""
        if _type(token) is not int:
            raise RemoteError("a malformed kept value's token")
        if self.side == "driver":
            if token not in self.tuple_memo:
                raise RemoteError("a kept value the driver never had")
            return self.tuple_memo[token]
        for entry in self.tuple_memo.values():
            if entry[1] == token:
                self.tuple_used.add(token)
                return entry[0]
        raise RemoteError("a kept value the subject no longer names")

    @staticmethod
    def _tracked(ctx, build):
        if ctx is None or ctx.track is None:
            return build()
        i = _len(ctx.track)
        ctx.track.append(None)  # its place before its contents': the order enc met them in
        out = build()
        ctx.track[i] = out
        return out

    def _dec_other(self, t, x, v, depth, ctx=None):
        if t == "I":
            return int(x, 16)
        if t == "f":
            return _NAN if v.get("m") is True else float(x)
        if t == "c":
            return complex(*x)
        if t == "r":
            return range(*x)
        if t == "dec":
            return _Decimal(x)
        if t == "fr":
            return _Fraction(*x)
        if t in ("date", "datetime", "time"):
            out = {"date": _DATE, "datetime": _DATETIME, "time": _TIME}[t].fromisoformat(x)
            if _type(v.get("tz")) is str:
                out = _in_zone(out, v["tz"])
            return out.replace(fold=1) if v.get("fold") == 1 else out
        if t == "od":
            return self._tracked(ctx, lambda: _OrderedDict([(self.dec(k, depth + 1, ctx), self.dec(e, depth + 1, ctx))
                                                            for k, e in x]))
        if t == "td":
            return _TIMEDELTA(days=x[0], seconds=x[1], microseconds=x[2])
        if t in ("dd", "ctr"):
            return self._tracked(ctx, lambda: self._dec_dict(t, x, v, depth, ctx))
        if t == "path":
            return _PurePosixPath(x) if v.get("pure") is True else _Path(x)
        if t == "em" and self.side == "driver":
            return self._dec_member(v)
        if t == "h":
            return self.proxy(v)
        if t == "sv":
            return self.shadow(self.dec(x, depth + 1, ctx), v["h"], v.get("op") is True, v.get("vb") is True,
                               self._dec_names(v), v.get("mr") is True)
        if t == "NI":
            return NotImplemented
        if t == "bi":  # (``SINGLETONS_RULE``)
            obj = _BUILTIN_OBJECTS.get(v.get("n")) if _type(v.get("n")) is str else None
            if obj is None:
                raise RemoteError("an unknown built-in object")
            return obj
        if t == "cls":
            return self.class_for(v)
        if t == "m":
            return self.module_for(v)
        if t == "xv":
            return self.dec_exc(v["x"])
        raise RemoteError(f"unknown tag {t!r}")

    def _dec_names(self, v: dict) -> tuple:
        """The names a tree object's class answers (``_enc_names``): sent with it, or as last sent for its class."""
        hid, names = v.get("nc"), v.get("nm")
        if names is not None:
            if not _isinstance(names, list) or not all(_type(n) is str for n in names):
                raise RemoteError("malformed names of a tree object")
            if _type(hid) is int:
                self.class_names[hid] = tuple(names)
            return tuple(names)
        if hid is None:
            return ()
        if _type(hid) is not int or hid not in self.class_names:
            raise RemoteError("names of an unknown class")
        return self.class_names[hid]

    def _dec_dict(self, t, x, v, depth, ctx):
        out = _Counter() if t == "ctr" else _defaultdict()
        if t == "dd":
            factory = self.dec(v.get("f"), depth + 1, ctx)
            if factory is not None and not callable(factory):
                raise RemoteError("a defaultdict's factory that is not callable")
            _defaultdict.default_factory.__set__(out, factory)
        dict.update(out, {self.dec(k, depth + 1, ctx): self.dec(e, depth + 1, ctx) for k, e in x})
        return out

    def proxy(self, meta: dict):
        hid = meta["id"]
        if self.side == "driver":  # held weakly: the test dropping it releases the live object (``_dropped``)
            ref = self.handles.get(hid)
            p = ref() if ref is not None else None
            if p is None:
                ty = str(meta.get("ty", "?"))
                p = _test_instance(self, meta, hid, ty)
                if p is None:
                    p = _named(RemoteCallable if meta.get("c") else RemoteObject, ty, meta.get("tt") is True,
                               True, self._tree_class(meta))(self, hid, ty)
                self.handles[hid] = _weakref.ref(p, self._on_drop(hid, meta.get("fz") is True))
                self.released.pop(hid, None)
            elif meta.get("fz") is True:  # (it gained a finalizer since it first crossed: ``_finalizes``)
                self.late_fz.add(hid)
            return p
        ref = self.proxies.get(hid)  # (subject: held weakly, released to the driver when dropped: ``DRIVER_OBJECTS_RULE``)
        p = ref() if ref is not None else None
        if p is None:
            ty = str(meta.get("ty", "?"))
            p = _named(RemoteCallable if meta.get("c") else RemoteObject, ty, meta.get("tt") is True)(self, hid, ty)
            self.proxies[hid] = _weakref.ref(p, self._on_drop(hid, False))
            self.released.pop(hid, None)
        return p

    def _tree_class(self, meta: dict):
        """(driver) The subject's handle of a tree object's class (``k``) with this peer, or None."""
        k = meta.get("k") if self.side == "driver" and meta.get("tt") is True else None
        return (k, self) if _type(k) is int else None

    def shadow(self, base, meta: dict, operated: bool = False, value_like: bool = False, names=(),
               mirrored: bool = False):
        """A stand-in of the peer's value-type subclass: its base value, with the live object's
        repr/str/attributes on request. ``operated`` (a tree object, ``crosses_as_base``): each name its
        class answers otherwise than the base (``names``: ``differing_names``), every public attribute and
        every change is a request to the live object, and its storage is the live object's
        (``_mirror_sync``), so it compares, hashes, iterates and answers as the live object does, in the
        driver's C code too; it stays an instance of the base type (``isinstance(x, int)`` holds, as it
        does for the live object). ``value_like``:
        the probe may observe it by its base value (``observed_as_base``), else it observes it as opaque
        (``observation``)."""
        key = ("sv", meta["id"], operated)
        if key in self.proxies:  # the same live object: the same stand-in (``is`` holds, as for enum members)
            s = self.proxies[key]
            entry = self.mirrors.get(meta["id"])
            if entry is not None and entry[0] is s:
                _fill_base(s, base)  # its storage as the live object holds it now
                entry[1] = _base_snapshot(s)
            return s
        if not _isinstance(names, (list, tuple)) or not all(_type(n) is str for n in names):
            raise RemoteError("malformed names of a tree object")
        cls = _forward_class(_type(base), tuple(names)) if operated else _shadow_class(_type(base))
        if cls is None:
            return self.proxy(meta) if operated else base
        cls = _named(cls, str(meta.get("ty", "?")), meta.get("tt") is True, klass=self._tree_class(meta))
        try:
            s = _made_as(cls, base)
        except Exception:  # noqa: BLE001
            return self.proxy(meta) if operated else base
        object.__setattr__(s, "_hx_remote", self.proxy(meta))
        if operated:
            object.__setattr__(s, "_hx_vb", value_like)
            if mirrored and _type(base) in (list, dict, set) and _type(meta["id"]) is int:
                self.mirrors[meta["id"]] = [s, _base_snapshot(s)]  # its storage kept in step (``_mirror_sync``)
        self.proxies[key] = s
        return s

    def module_for(self, meta: dict):
        return _import_module(meta["n"]) if self.side == "subject" else self._driver_module(meta)

    def _driver_module(self, meta: dict):
        importlib = _importlib
        name = meta["n"]
        if not meta.get("ws") and name.split(".")[0] not in REMOTE_MODULES:
            return importlib.import_module(name)  # the driver's own (trusted) copy, or a proxy if untrusted
        if meta.get("ws"):
            known = _sys.modules.get(name)
            if _isinstance(known, ProxyModuleBase) and module_ref(known) == meta["id"]:
                return known
            found: object = None
            try:  # a module of the tree by its import name: the import hook makes its proxy
                found = importlib.import_module(name)
            except Exception:  # noqa: BLE001 - a module made by module_from_spec: no import name
                found = None
            if _isinstance(found, ProxyModuleBase) and module_ref(found) == meta["id"]:
                return found
        return self.proxy({"id": meta["id"], "ty": "builtins.module", "c": False})

    def class_for(self, meta: dict):
        hid = meta["id"]
        cls = self.classes.get(hid)
        if cls is None:
            local = not meta.get("ws") and meta["n"].split(".")[0] not in REMOTE_MODULES \
                and not meta["n"].startswith("_hx")
            cls = _resolve_class(meta) if local else None
            if cls is not None and self.side == "driver" and not issubclass(cls, BaseException):
                cls = None  # only exception and warning classes map onto the driver's own: no
                # other driver class is ever built because the subject named it
            if cls is None:
                cls = _synth_class(self, meta)
                if self.side == "driver":
                    _seal(cls)  # (``STAND_IN_PATHS_RULE``: a write not through its hooks is seen)
            self.classes[hid] = cls
        elif self.side == "driver" and meta.get("fw") and _isinstance(cls, RemoteMeta):
            _exc_forward_more(cls, meta)
        return cls

    def dec_exc(self, e: dict, depth: int = 0, made: dict | None = None) -> BaseException:
        """The peer's exception, built as it was there: its exact class (``BaseException.__new__``-like,
        with no arguments for the constructor to remap: ``OSError`` by errno, ``BaseExceptionGroup`` of
        Exceptions to ``ExceptionGroup``), then its ``args``, the interpreter's fields ``enc_exc`` sent,
        set through this side's own descriptors, and its public attributes. What cannot be built exactly
        is a protocol fault (``_dec_fault``), never an approximation."""
        made = {} if made is None else made  # the peer's handle -> the exception built for it, in one chain
        cls = self.class_for(e["cls"])
        if not (_isinstance(cls, type) and issubclass(cls, BaseException)):
            cls = RuntimeError
        try:
            args = tuple(self.dec(e["args"]))
            fields = {k: self.dec(v) for k, v in dict(e.get("fld") or {}).items()}
        except Exception as err:  # noqa: BLE001
            raise self._dec_fault(f"an exception's args or fields could not be read: {_why(err)}") from None
        own = _exc_fields(cls)
        try:
            if issubclass(cls, BaseExceptionGroup):  # its message and members are read-only: given to __new__
                exc = cls.__new__(cls, fields.pop("message"), fields.pop("exceptions"))
            else:
                exc = cls.__new__(cls)
        except Exception as err:  # noqa: BLE001
            raise self._dec_fault(f"{qualname(cls)} could not be built: {_why(err)}") from None
        if _type(exc) is not cls:
            raise self._dec_fault(f"{qualname(cls)} was built as {qualname(_type(exc))}")
        try:  # the base's own __init__ (a Python-level class's attributes); never the peer's code
            cls.__init__(exc, *args)
        except Exception:  # noqa: BLE001
            pass
        try:
            BaseException.__dict__["args"].__set__(exc, args)
            for name, value in fields.items():
                own[name].__set__(exc, value)  # a field this side's class has not: KeyError, a fault
            own_dict = object.__getattribute__(exc, "__dict__")  # written as the instance's own: never through
            # a name the stand-in class forwards (``_exc_forward``)
            for k, v in (e.get("d") or {}).items():
                if _type(k) is not str:
                    raise TypeError("an attribute name that is not a str")
                own_dict[k] = self.dec(v)
        except Exception as err:  # noqa: BLE001
            raise self._dec_fault(f"a field of {qualname(cls)} could not be set: {_why(err)}") from None
        if getattr(cls, "_hx_synth", False):
            own_dict["_hx_str"] = e.get("str", "")
            own_dict["_hx_ref"] = e.get("id")
        if _type(e.get("id")) is int:
            made[e["id"]] = exc
        self._dec_chain(e, exc, depth, made)
        return exc

    def _dec_fault(self, why: str) -> "ProtocolFault":
        """A request this side cannot send or a reply it cannot read exactly: reported (the driver's
        ``on_fault``; the subject's go with its next message, ``pf``): the test fails whatever it does with
        the exception returned, to raise in place of the call's."""
        if self.on_fault is not None:
            self.on_fault(why)
        elif self.side == "subject" and _len(self.pending) < 8:
            self.pending.append(why)
        return ProtocolFault(why)

    def _dec_chain(self, e: dict, exc, depth: int, made: dict) -> None:
        """The notes, cause, context and ``__suppress_context__`` ``_enc_chain`` sent (set through
        BaseException's own descriptors); a link the peer named by handle (``same``) is the exception
        already built for it."""
        notes = e.get("notes") or []
        bad = e.get("nb")
        if _type(notes) is list and all(_type(n) is str for n in notes) and ("notes" in e or _type(bad) is str):
            object.__getattribute__(exc, "__dict__")["__notes__"] = list(notes) + (
                [NonStrNote(bad)] if _type(bad) is str else [])
        for key, name in (("cause", "__cause__"), ("ctx", "__context__")):
            link = e.get(key) or {}
            if not _isinstance(link, dict) or not link:
                continue
            if "same" in link:
                linked = made.get(link["same"]) if _type(link["same"]) is int else None
            elif depth < _MAX_CHAIN:
                linked = self.dec_exc(link, depth + 1, made)
            else:
                linked = None
            if linked is not None:
                _EXC_ATTR[name].__set__(exc, linked)
        _EXC_ATTR["__suppress_context__"].__set__(exc, e.get("sup") is True)


_EXC_OWN = frozenset({"args", "__traceback__", "__context__", "__cause__", "__suppress_context__", "__dict__",
                      "__weakref__", "__class__", "__notes__"})
_FIELD_TYPES = (_types.MemberDescriptorType, _types.GetSetDescriptorType)


def _exc_fields(cls) -> dict:
    """{name: descriptor} of the fields the interpreter's own classes in ``cls``'s MRO define in C
    (types no code can change): ``SystemExit.code``, ``OSError.errno``/``strerror``/``filename``/
    ``filename2``/``characters_written``, ``StopIteration.value``, ``ImportError.name``, a group's
    ``message`` and ``exceptions``, ...; BaseException's own (args, the chain) cross apart."""
    out: dict = {}
    for klass in _TYPE_MRO(cls):
        flags = _TYPE_FLAGS(klass)
        if flags & _HEAPTYPE and not flags & _IMMUTABLETYPE:
            continue
        for name, desc in _TYPE_DICT(klass).items():
            if name not in _EXC_OWN and name not in out and _type(desc) in _FIELD_TYPES:
                out[name] = desc
    return out


_MAX_CHAIN = 32  # the links of an exception chain that cross (a longer chain is cut there)
_EXC_ATTR: dict = {name: BaseException.__dict__[name]  # (the interpreter's descriptors: never the class's code)
                   for name in ("__cause__", "__context__", "__suppress_context__", "args", "__dict__")}
REMOTE_MODULES = frozenset({"doctest", "inspect", "importlib", "runpy", "pkgutil"})


def _zone_key(tz):
    """The key of ``tz`` when it is the interpreter's ``zoneinfo.ZoneInfo`` (a type defined in C, named by
    identity: ``trusted_name``) and the instance ``ZoneInfo(key)`` gives (its cache's), else None. Such a
    datetime crosses with its zone, not the fixed offset its isoformat shows: two datetimes of one zone
    compare by wall clock under plain pytest (02:30 in the spring gap is not 03:30), and arithmetic, ``dst()``
    and ``astimezone`` read the zone's rules."""
    if tz is None:
        return None
    cls = _type(tz)
    try:
        if trusted_name(cls) != "zoneinfo.ZoneInfo":
            return None
        key = _TYPE_DICT(cls)["key"].__get__(tz)
        return key if _type(key) is str and cls(key) is tz else None
    except Exception:  # noqa: BLE001 - a zone that cannot be found again crosses as its offset
        return None


def _in_zone(value, key: str):
    """``value`` (read from its isoformat, a fixed offset) in the zone ``key`` (``_zone_key``), the same
    wall clock; ``value`` itself when this side cannot load that zone."""
    try:
        import zoneinfo
        return value.replace(tzinfo=zoneinfo.ZoneInfo(key))
    except Exception:  # noqa: BLE001
        return value


def _weak_bookkeeping() -> dict:
    """id(code) -> code of the callbacks the standard library's weak containers put on a weak reference (``WeakSet``,
    ``WeakValueDictionary``, ``WeakKeyDictionary``: each removes its own dead entry), bound when this module loads.
    Freeing an object they hold weakly runs no code a test reads before its next message (the container is the
    subject's, read with a request, after the release): not a finalizer (``_has_finalizer``). Matched by identity."""
    out: dict = {}
    for make in (_weakref.WeakSet, _weakref.WeakValueDictionary, _weakref.WeakKeyDictionary):
        try:
            code = getattr(make(), "_remove").__code__  # noqa: B009 - a private name mypy does not know
            out[id(code)] = code
        except Exception:  # noqa: BLE001 - another interpreter's: every callback counts
            pass
    return out


_WEAK_BOOKKEEPING = _weak_bookkeeping()
_REF_CALLBACK = _weakref.ReferenceType.__dict__["__callback__"].__get__
_FUNC_CODE = _types.FunctionType.__dict__["__code__"].__get__


def _has_finalizer(x) -> bool:
    """A ``__del__`` in the MRO of ``x``'s class, or a weak reference to ``x`` whose callback runs code when it is freed
    (``weakref.finalize``, any callback but a standard weak container's own bookkeeping; a weak proxy: taken to)."""
    if _weakref.getweakrefcount(x):
        for r in _weakref.getweakrefs(x):
            if not _isinstance(r, _weakref.ReferenceType):
                return True
            cb = _REF_CALLBACK(r)
            if cb is None:
                continue
            if _type(cb) is not _types.FunctionType or _WEAK_BOOKKEEPING.get(id(_FUNC_CODE(cb))) is not _FUNC_CODE(cb):
                return True
    return any("__del__" in _TYPE_DICT(k) for k in _TYPE_MRO(_type(x))[:-1])


# Finalizers. The rule: what the tree can change here is which objects a drop of the test's stand-in frees and
# what runs then. Under plain pytest all of it runs at the test's ``del`` (CPython's reference counting). What a drop
# can free is whatever the dropped object reaches through the interpreter's own traversal (``gc.get_referents``: the
# C ``tp_traverse`` of every type, never the tree's code: attributes, slots, every container the interpreter has, a
# closure's cells, a bound method's ``__self__``, a ``partial``'s arguments, a ``deque``, a dict view, a generator's
# frame), and, through a standard weak container's bookkeeping callback on a weak reference to a freed object, the
# other half of that container's entry (a ``WeakKeyDictionary``'s value, a ``WeakValueDictionary``'s key). Not walked:
# what no drop frees, a class (every class is in a reference cycle with its own ``__mro__``: only the cyclic collector
# frees one, never a drop) and a module in ``sys.modules`` with its namespace (a function's ``__globals__`` and
# ``__builtins__``, a frame's); a module or a globals dict only the dropped object holds is walked like any object.
# Anything found there that runs code when freed (``_has_finalizer``: a ``__del__`` in its class's MRO, a weak
# reference with a callback) makes the drop one that runs code: the judge releases the live object at once (``fz``: a
# ``release`` request, the finalizers' effects return with its reply) when the subject said so at the object's
# crossing, and says so again whenever the object crosses later (``Peer.late_fz``); over the bound or unreadable it
# says yes. A finalizing object the driver was never told of that a release coming with a later message frees (its
# effects reached the test after its next statements) is a fault (``Peer._late_finalizers``): the test fails.
MAX_FINALIZER_WALK = 256  # objects ``_finalizes`` reads of one value before it answers yes unread
_NO_FINALIZER: frozenset = frozenset({_type(None), bool, int, float, complex, str, bytes, range, _types.CodeType})
# (no finalizer of their own, nothing they hold drops)
_REFERENTS = _gc.get_referents  # the interpreter's own traversal (C ``tp_traverse``: runs no Python code)
_PLAIN_CONTAINERS = frozenset({list, tuple, dict})  # (their instances take no weak reference and have no ``__del__``)
_MODULE_DICT = _TYPE_DICT(_types.ModuleType)["__dict__"].__get__
_NAMESPACES: dict = {"n": -1, "ids": {}}  # id of a namespace of a module in sys.modules -> a weak reference to it
_FUNC_DEFAULTS = _types.FunctionType.__dict__["__defaults__"].__get__
_REF_CALL = _weakref.ReferenceType.__call__


def _registered(o, t) -> bool:
    """Whether ``o`` is a module in ``sys.modules`` or the namespace of one (no drop frees it), by identity: the
    namespaces' ids are read again whenever ``sys.modules`` changed size, each checked still its module's through a
    weak reference to the module (never a reference that would keep a namespace alive)."""
    if t is dict:
        mods = _sys.modules
        if _len(mods) != _NAMESPACES["n"]:
            ids: dict = {}
            for m in list(dict.values(mods)) if _type(mods) is dict else ():
                if _isinstance(m, _types.ModuleType):
                    try:
                        ids[id(_MODULE_DICT(m))] = _weakref.ref(m)
                    except TypeError:
                        pass
            _NAMESPACES["n"], _NAMESPACES["ids"] = _len(mods), ids
        r = _NAMESPACES["ids"].get(id(o))
        mod = r() if r is not None else None
        return mod is not None and _MODULE_DICT(mod) is o
    if _isinstance(o, _types.ModuleType):
        return _registered(_MODULE_DICT(o), dict)
    return False


def _finalizes(x, found: list | None = None) -> bool:
    """Whether dropping ``x`` may run code: an object ``x`` reaches through the interpreter's own traversal
    (``gc.get_referents``, to any depth; not a class, nor a module in ``sys.modules`` or its namespace:
    ``_registered``; through a standard weak
    container's bookkeeping, the entry it would remove: ``_weak_entries``) has a ``__del__`` in its class's MRO or a
    weak reference with a callback (``weakref.finalize``; a file the tree left open, flushed and closed when its
    holder goes). Past ``MAX_FINALIZER_WALK`` objects, or unreadable: yes (a release at once, never a late one).
    ``found``: given, the finalizing objects met are appended to it (``Peer._late_finalizers`` asks whether the drop
    freed one); it is cleared when the answer is yes unread."""
    try:
        seen: set = set()
        stack = [x]
        out = False
        while stack:
            o = stack.pop()
            t = _type(o)
            if t in _NO_FINALIZER or id(o) in seen:
                continue
            seen.add(id(o))
            if _len(seen) > MAX_FINALIZER_WALK:
                break
            if t in _PLAIN_CONTAINERS:  # (no finalizer, no weak reference: only what they hold)
                if t is not dict or not _registered(o, t):
                    stack.extend(_REFERENTS(o))
                continue
            if _isinstance(o, type) or _registered(o, t) or _ref_of(o) is not None:
                continue  # (freed by no drop; a stand-in of the driver's object: the driver's own)
            if _has_finalizer(o):
                if found is None:
                    return True
                found.append(o)
                out = True
            if _weakref.getweakrefcount(o) and _weak_entries(o, stack):
                break
            stack.extend(_REFERENTS(o))
        else:
            return out
    except Exception:  # noqa: BLE001 - an object the interpreter cannot say: treated as finalizing (a sync release)
        pass
    if found is not None:
        found.clear()
    return True


def _weak_entries(o, stack: list) -> bool:
    """Push the other half of each standard weak container's entry that a weak reference to ``o`` with that
    container's bookkeeping callback (``_WEAK_BOOKKEEPING``) would remove when ``o`` is freed: a
    ``WeakKeyDictionary``'s value, a ``WeakValueDictionary``'s key (the container found through the callback's
    ``selfref`` default, its entries by identity with the weak reference, read in C). True when a container is
    past ``MAX_FINALIZER_WALK`` entries (then taken to finalize)."""
    for r in _weakref.getweakrefs(o):
        cb = _REF_CALLBACK(r) if _isinstance(r, _weakref.ReferenceType) else None
        if _type(cb) is not _types.FunctionType or _WEAK_BOOKKEEPING.get(id(_FUNC_CODE(cb))) is not _FUNC_CODE(cb):
            continue  # (any other callback: a finalizer, ``_has_finalizer``)
        for d in _FUNC_DEFAULTS(cb) or ():
            box = _REF_CALL(d) if _type(d) is _weakref.ReferenceType else None
            if box is None:
                continue
            for held in _REFERENTS(box):
                if _type(held) is not dict:
                    continue
                if _len(held) > MAX_FINALIZER_WALK:
                    return True
                for k, v in dict.items(held):
                    if k is r:
                        stack.append(v)
                    elif v is r:
                        stack.append(k)
    return False


def traversal_codes() -> tuple:
    """The code objects of this module's functions that call ``gc.get_referents`` (``_finalizes``,
    ``_weak_entries``) or ``gc.get_objects`` (``froze_since``: a bool out, no object): the subject's audit hook takes
    their traversal for the harness's own (matched by identity, harness.judge.subject_main ``_exempt_check``), never
    the tree's."""
    return (_finalizes.__code__, _weak_entries.__code__, froze_since.__code__)


def _ref_of(x):
    """The peer's handle id when x stands for one of the peer's objects, else None. By its real type (never
    ``isinstance``, which a ``Mock(spec=...)`` of a stand-in answers through its ``__class__``)."""
    t = _type(x)
    if issubclass(t, RemoteMeta):
        return type.__getattribute__(x, "__dict__").get("_hx_id")
    if issubclass(t, RemoteObject):
        return object.__getattribute__(x, "_hx_ref")
    if t is _ClassRef:
        return x._hx_ref
    if _SHADOWS and issubclass(t, tuple(_SHADOWS.values())):
        own = object.__getattribute__(x, "__dict__")
        return object.__getattribute__(own["_hx_remote"], "_hx_ref") if "_hx_remote" in own else None
    if issubclass(t, ProxyModuleBase):  # (beside it, never in its namespace: ``module_ref``)
        return module_ref(x)
    if _isinstance(t, RemoteMeta) and _isinstance(x, BaseException):
        return object.__getattribute__(x, "__dict__").get("_hx_ref")
    return None


def _is_proxy(x) -> bool:
    return _ref_of(x) is not None


def _value_base(x):
    """The built-in value of a value-type subclass (an IntEnum, numpy.float64, OrderedDict), read
    through the base type's own methods; None for other objects."""
    if _isinstance(x, bool):
        return bool(x)
    if _isinstance(x, int):
        return int.__int__(x)
    if _isinstance(x, float):
        return float.__float__(x)
    if _isinstance(x, str):
        return str.__str__(x)
    if _isinstance(x, (bytes, bytearray)):
        return bytes(memoryview(x))
    if _isinstance(x, tuple):
        return tuple(tuple.__iter__(x))
    if _isinstance(x, list):
        return list(list.__iter__(x))
    if _isinstance(x, dict):
        return dict(dict.items(x))
    if _isinstance(x, frozenset):
        return frozenset(frozenset.__iter__(x))
    if _isinstance(x, set):
        return set(set.__iter__(x))
    for base in _KNOWN_BASES:  # (the classes themselves, bound when this module loads: ``_value_base_known``)
        if _isinstance(x, base):
            return _value_base_known(x, base)
    np = _sys.modules.get("numpy")
    if np is not None and _type(x) is np.ndarray and np.ndarray.ndim.__get__(x) == 0:
        return _value_base(np.ndarray.item(x)) if not _isinstance(np.ndarray.item(x), (int, float, bool)) else np.ndarray.item(x)
    if qualname(_type(x)) in ("numpy.bool_", "numpy.bool"):
        return bool(x)
    if not _eq_by_value(_type(x)):  # == is identity (a class merely registered with an ABC): never a value
        return None
    if _isinstance(x, _numbers.Integral):
        return _operator.index(x)
    if _isinstance(x, _numbers.Real):
        return float(x)
    if _isinstance(x, _Mapping):
        return dict(x.items())
    return None


def _eq_by_value(cls) -> bool:
    """Whether ``==`` on instances of ``cls`` is anything but ``object``'s identity. An ABC counts a
    class as a Mapping or a number by ``register`` alone: such an instance equals nothing but itself
    under plain pytest, so it never crosses as the value its ``items()`` or ``__index__`` would give
    (red team r32b)."""
    for klass in _TYPE_MRO(cls):
        if "__eq__" in _TYPE_DICT(klass):
            return klass is not object
    return False


# The stdlib's value classes a subclass's value is read as, by the objects this module bound when it loaded, never by
# a module attribute: what the test or the tree can change here is ``datetime.date`` itself (a test's frozen clock,
# ``monkeypatch.setattr(datetime, "date", D)`` with D a subclass): read through the module, D's own ``fromisoformat``
# would make a D again, whose base value is a D, and so on until the encoder's depth bound (a protocol fault).
_KNOWN_BASES = (_Decimal, _DATETIME, _DATE, _Fraction)


def _value_base_known(x, base):
    if base is _Decimal:
        return _Decimal(_Decimal.__str__(x))
    if base is _Fraction:  # through Fraction's own slots, never a property of a subclass
        own = _TYPE_DICT(_Fraction)
        return _Fraction(own["_numerator"].__get__(x), own["_denominator"].__get__(x))
    out = base.fromisoformat(base.isoformat(x))
    return out.replace(fold=_DATETIME.fold.__get__(x)) if base is _DATETIME else out


def _resolve_class(meta: dict):
    """A class the receiver has itself (builtins, the stdlib, pytest), by its qualified name (in the
    subject, the class captured under that name first: ``capture_identities``)."""
    captured = _BY_NAME.get(meta["n"])
    if captured is not None:
        return captured
    mod, _, qual = meta["n"].rpartition(".")
    if "<" in qual:
        return None
    m = _sys.modules.get(mod)
    if m is None or not _isinstance(m, _types.ModuleType) or _isinstance(m, ProxyModuleBase):
        return None
    obj: object = m
    for part in qual.split("."):
        obj = getattr(obj, part, None)
        if obj is None:
            break
    if obj is None and mod == "builtins":  # pytest names its outcome exceptions builtins.Failed, ...
        obj = getattr(_sys.modules.get("_pytest.outcomes"), qual, None)
    return obj if _isinstance(obj, type) else None


def _synth_class(peer, meta: dict):
    """A stand-in class for a peer's class: exception classes subclass their nearest base the
    receiver has (so ``pytest.raises`` and ``except`` match by class), every other class is a
    ``RemoteMeta`` whose call, instance check and attributes go to the peer."""
    base = object
    for name in meta.get("mro", [])[1:]:
        if not _isinstance(name, str) or name.startswith("_hx"):
            continue  # never a subclass of the protocol's own errors (the driver treats those as "the subject is gone")
        c = _resolve_class({"n": name})
        if c is not None and c is not object:
            base = c if issubclass(c, BaseException) else object
            break
    mod, _, qual = meta["n"].rpartition(".")
    ns = {"__module__": mod, "__qualname__": qual, "_hx_synth": True, "_hx_peer": peer, "_hx_id": meta["id"]}
    if meta.get("ws") and peer.side == "driver":
        ns["_hx_tree"] = True  # a class of the tree: never read as the class it names (probe_runtime._name)
    if issubclass(base, BaseException):
        ns["__str__"] = _exc_str
        ns["__getattr__"] = _exc_getattr
    if peer.side == "driver":
        hooks = meta.get("hk") or []
        ns["_hx_hooks"] = frozenset(h for h in hooks if _type(h) is str) if _isinstance(hooks, list) else frozenset()
        if issubclass(base, BaseException):
            names, nones = meta.get("fw") or [], meta.get("fn") or []
            if not _isinstance(names, list) or not _isinstance(nones, list) or \
                    not all(_type(n) is str for n in (*names, *nones)):
                raise RemoteError("malformed names of a tree exception class")
            ns["_hx_fw"] = frozenset(names)
            for name in names:
                if name[:3] == "_hx":
                    continue
                ns[name] = None if name in nones else _exc_closed(name) if name in EXC_CLOSED else _ExcForward(name)
    bases = _tree_bases(peer, meta) if peer.side == "driver" and issubclass(base, BaseException) else ()
    if bases:
        try:
            made = RemoteMeta(qual.rpartition(".")[2] or "X", bases, ns)
        except TypeError:  # a layout the driver's classes cannot combine: the nearest base only
            made = None
        want = [n for n in meta.get("mro", []) if _type(n) is str]
        if made is not None and [qualname(k) for k in _TYPE_MRO(made) if "_hx_synth" not in _TYPE_DICT(k)] == want:
            return made  # (only when its MRO holds the interpreter's classes the tree's does, in that order: a
            # metaclass's ``mro()`` or a trusted mixin left out makes it the nearest base's)
    try:
        return RemoteMeta(qual.rpartition(".")[2] or "X", (base,), ns)
    except TypeError:
        return RemoteMeta(qual.rpartition(".")[2] or "X", (Exception if issubclass(base, BaseException) else object,), ns)


def _tree_bases(peer, meta: dict) -> tuple:
    """The driver's classes for the direct bases of a tree exception class (``bs``: the tree's own as their
    stand-ins, the interpreter's exception classes as the driver's own; ``object`` and the interpreter's other
    classes left out), so that ``except AppError`` and ``pytest.raises(AppError)`` match the tree's
    ``NotFound(AppError)`` in the driver as under plain pytest. Empty when none is sent or none has an
    exception class among them (the nearest built-in base is used)."""
    metas = meta.get("bs")
    if not _isinstance(metas, list) or not metas or not all(_isinstance(b, dict) for b in metas):
        return ()
    out: list = []
    for b in metas:
        if not b.get("ws"):
            found = _resolve_class(b) if _type(b.get("n")) is str else None
            if found is not None and issubclass(found, BaseException):
                out.append(found)
            continue
        out.append(peer.class_for(b))
    if not any(_isinstance(c, type) and issubclass(c, BaseException) for c in out):
        return ()
    return tuple(out)


def _exc_forward_more(cls, meta: dict) -> None:
    """A tree exception class that crosses again with names its stand-in does not forward yet (the tree
    gave its class a ``__str__`` since): its stand-in class forwards them from now on."""
    names, nones = meta.get("fw") or [], meta.get("fn") or []
    if not _isinstance(names, list) or not _isinstance(nones, list) or \
            not all(_type(n) is str for n in (*names, *nones)):
        raise RemoteError("malformed names of a tree exception class")
    have = type.__getattribute__(cls, "__dict__").get("_hx_fw") or frozenset()
    new = [n for n in names if n not in have and n[:3] != "_hx"]
    for name in new:
        type.__setattr__(cls, name, None if name in nones else _exc_closed(name) if name in EXC_CLOSED
                         else _ExcForward(name))
    if new:
        type.__setattr__(cls, "_hx_fw", frozenset((*have, *new)))


def _exc_str(self):
    got = object.__getattribute__(self, "__dict__").get("_hx_str")
    return got if _type(got) is str else BaseException.__str__(self)


def _live_exception(exc, name):
    """(peer, proxy of the live exception) for the driver's stand-in ``exc`` of a tree exception; a protocol
    fault when it has none: an instance the driver made of a test's subclass of the tree's class, on which
    plain pytest would run the tree's ``name`` and the driver has none to run."""
    peer = getattr(_type(exc), "_hx_peer", None)
    ref = object.__getattribute__(exc, "__dict__").get("_hx_ref")
    if not _isinstance(peer, Peer):
        raise AttributeError(name)
    if _type(ref) is not int:
        raise peer._dec_fault(f"{qualname(_type(exc))}.{name} of the tree's class read on an exception the driver "
                              "made (no live exception runs it)")
    return peer, peer.proxy({"id": ref, "ty": "builtins.BaseException", "c": False})


class _ExcForward:
    """A name a tree exception class defines (``exception_names``), on the driver's stand-in class: read,
    written and deleted on the live exception, where the tree's method or property runs as under plain
    pytest (``except*`` calls ``split`` by name; ``repr``, ``str`` and the traceback's ``__cause__`` find the
    forwarder in the class, as the interpreter finds the tree's). On the class itself: the tree class's."""

    def __init__(self, name: str):
        self.name = name

    def __get__(self, exc, owner=None):
        if exc is None:
            return owner._hx_peer.request("getattr", _ClassRef(owner), self.name)
        peer, live = _live_exception(exc, self.name)
        return peer.request("getattr", live, self.name)

    def __set__(self, exc, value):
        peer, live = _live_exception(exc, self.name)
        peer.request("setattr", live, self.name, value)

    def __delete__(self, exc):
        peer, live = _live_exception(exc, self.name)
        peer.request("delattr", live, self.name)


def _exc_closed(name):
    """A tree exception class's ``__getattribute__``/``__setattr__``/``__delattr__`` on the driver's stand-in:
    every read (but the stand-in's own ``_hx`` bookkeeping), write or deletion is a protocol fault. Plain pytest
    runs the tree's code on each, and the driver's own code (pytest's) reads the stand-in too."""
    def closed(self, attr, *rest):
        if name == "__getattribute__" and _type(attr) is str and attr[:3] == "_hx":
            return object.__getattribute__(self, attr)
        peer = getattr(_type(self), "_hx_peer", None)
        why = f"{qualname(_type(self))} defines {name}: no attribute of the stand-in reads as plain pytest's"
        raise peer._dec_fault(why) if _isinstance(peer, Peer) else ProtocolFault(why)
    closed.__name__ = name
    return closed


def _exc_getattr(self, name):
    """A public attribute of a peer's exception that crossed neither in its arguments nor in its
    ``__dict__`` (an attribute of its class, a property the class defines): read from the live exception,
    where it lives (the subject runs the tree's property, as plain pytest does). Only what normal lookup
    does not find comes here."""
    if name[:1] == "_":
        raise AttributeError(name)
    ref = object.__getattribute__(self, "__dict__").get("_hx_ref")
    peer = _TYPE_DICT(_type(self)).get("_hx_peer")
    if _type(ref) is not int or not _isinstance(peer, Peer):
        raise AttributeError(name)
    try:
        return peer.request("getattr", peer.proxy({"id": ref, "ty": "builtins.BaseException", "c": False}), name)
    except RemoteError:
        raise AttributeError(name) from None


def _hooks(cls) -> frozenset:
    """The class hooks of the tree class ``cls`` stands for (``class_hooks``), or none (a test's subclass: its
    bases' are checked where it is made)."""
    got = type.__getattribute__(cls, "__dict__").get("_hx_hooks")
    return got if _type(got) is frozenset else frozenset()


def _hook_fault(cls, why: str):
    peer = getattr(cls, "_hx_peer", None)
    return peer._dec_fault(why) if peer is not None and _isinstance(peer, Peer) else ProtocolFault(why)


_SCALARS = (type(None), bool, int, float, complex, str, bytes)


# -- what the test puts on a tree class --------------------------------------------------------------
# Under plain pytest the test's class attribute, ``mock.patch.object`` of a method and a subclass's override are
# what the tree's own code finds (``self.fetch()``, ``self.hook()``). Here the tree's class lives in the subject,
# so a member the test sets on a tree class's stand-in is set on the live class (``csetattr``: the test's value
# crossing as itself, a driver callable as a callback handle, bound as a method where a function would be), put
# back when the test deletes it (``mock``'s and ``monkeypatch``'s undo), and a test's class deriving from tree
# classes is made in the subject (``subclass``) with the test's members so: the tree's methods run there, the
# test's call back into the driver. What cannot be carried so fails closed (a protocol fault: the test fails).

def _class_peer(cls, name: str):
    """The driver's peer when ``name`` set on ``cls`` must reach the live class: ``cls`` stands for a class of the
    subject (a tree class, or a test's subclass made there) and the name is not the stand-in's own bookkeeping."""
    if name[:3] == "_hx" or "_hx_id" not in type.__getattribute__(cls, "__dict__"):
        return None
    peer = getattr(cls, "_hx_peer", None)
    return peer if _isinstance(peer, Peer) and peer.side == "driver" else None  # type: ignore[union-attr]


def _uses_super(code) -> bool:
    """Whether a function's code (or one nested in it) calls ``super`` or reads ``__class__``: in the driver its
    ``self`` is the live object's stand-in, never an instance of the test's class, so no ``super()`` there finds
    the tree's next method as plain pytest's does."""
    if "super" in code.co_names or "__class__" in code.co_freevars:
        return True
    return any(_isinstance(c, _types.CodeType) and _uses_super(c) for c in code.co_consts)


def _member_kind(peer, value, where: str) -> tuple:
    """How a test's class member crosses to the live class (``_member_of``): ``f`` a function (bound as a method
    there), ``s``/``c`` a staticmethod's or classmethod's function, ``p`` a property's three functions, ``v`` any
    other value (itself; a driver callable as a callback). A descriptor of another kind, or a function calling
    ``super()``, fails closed: a protocol fault, the test fails."""
    def fn(f):
        if f is None:
            return None
        if _type(f) is not _types.FunctionType:
            raise peer._dec_fault(f"{where}: a {qualname(_type(f))} in a staticmethod, classmethod or property "
                                  "of the test's, which the judge cannot run in the subject")
        if _uses_super(f.__code__):
            raise peer._dec_fault(f"{where} calls super(): in the subject the tree's next method runs for plain "
                                  "pytest; the judge cannot run it for the test's method")
        return f
    t = _type(value)
    if t is _types.FunctionType:
        return "f", fn(value)
    if t is staticmethod:
        return "s", value.__func__
    if t is classmethod:
        return "c", fn(value.__func__)
    if t is property:
        return "p", [fn(value.fget), fn(value.fset), fn(value.fdel)]
    if _mro_get(_TYPE_MRO(t), "__get__") is not _MISSING:
        raise peer._dec_fault(f"{where}: a {qualname(t)} (a descriptor of the test's, which the judge cannot run "
                              "in the subject)")
    return "v", value


def _method_of(proxy, name):
    """(subject) A function calling the driver's ``proxy``: bound as a method, as the test's function is."""
    def method(*args, **kwargs):
        return proxy(*args, **kwargs)
    method.__name__ = method.__qualname__ = name if _type(name) is str else "method"
    return method


def _member_of(kind, payload, name):
    """(subject) The live class's member for what ``_member_kind`` sent."""
    if kind == "v":
        return payload
    if kind == "s":
        return staticmethod(_method_of(payload, name))
    if kind == "f":
        return _method_of(payload, name)
    if kind == "c":
        return classmethod(_method_of(payload, name))
    if kind == "p" and _isinstance(payload, list) and _len(payload) == 3:
        return property(*(None if f is None else _method_of(f, name) for f in payload))
    raise RemoteError("a malformed class member")


def _class_set(patches: dict, cls, name, kind, payload) -> None:
    """(subject) The test sets ``name`` on the live class: the class's own value from before is kept to put back
    (``_class_del``: ``mock`` and ``monkeypatch`` undo a patch of a stand-in class by deleting it, since the
    stand-in's ``__dict__`` does not hold the tree's member). Kept as a stack: a set after the test's own delete
    keeps the value the class has then (none), for the undo of a patcher that set it then, above the value an
    earlier patcher's undo puts back; a patcher saw, under plain pytest, the class's own value at its own set."""
    if not _isinstance(cls, type) or _type(name) is not str:
        raise RemoteError("a malformed class member")
    member = _member_of(kind, payload, name)
    key = (id(cls), name)
    entry = patches.get(key)
    if entry is None or entry[2]:
        if entry is None:
            entry = patches[key] = [cls, [], False]
        entry[1].append(_TYPE_DICT(cls).get(name, _MISSING))
        entry[2] = False
    setattr(cls, name, member)


def _class_del(patches: dict, cls, name, own=False) -> None:
    """(subject) The test deletes ``name`` from the live class: put back what the test's ``_class_set`` replaced, or
    delete it. ``own``: the test's own code deleted it (``RemoteMeta.__delattr__``): deleted here as under plain
    pytest, where the test's set had replaced the class's own member and its delete leaves none; the values from
    before stay kept, for a patcher's undo later (under plain pytest ``monkeypatch`` puts back what it saved), and a
    later set keeps the none it replaces (``_class_set``). A patcher's undo puts back the latest value kept."""
    if not _isinstance(cls, type) or _type(name) is not str or own not in (False, True):
        raise RemoteError("a malformed class member")
    key = (id(cls), name)
    entry = patches.get(key)
    if own:
        if entry is not None:
            entry[2] = True
        delattr(cls, name)
        return
    value = entry[1].pop() if entry is not None else _MISSING
    if entry is not None and not entry[1]:
        del patches[key]
    if value is _MISSING:
        delattr(cls, name)
    else:
        setattr(cls, name, value)


def _by_test(frame) -> bool:
    """(driver) Whether a delete made by ``frame`` is the test's own (CPython's: ``_class_del``'s ``own``), decided by
    who runs the deleting code, never by its file being the test's: every delete is, except a patcher's undo, the
    code of ``mock``'s ``_patch.__exit__`` or ``monkeypatch``'s ``MonkeyPatch.undo`` (an interpreter file, by its
    function). Those two decided to delete from the stand-in's ``__dict__``, which does not hold the tree's member
    (under plain pytest they would have set the class's own member back), so their delete puts it back. A delete
    through ``exec``, a helper, ``ExitStack.callback(delattr, ...)`` or ``monkeypatch.delattr`` is CPython's."""
    if frame is None:
        return False
    code = frame.f_code
    name, path = code.co_name, code.co_filename
    return not (name in ("__exit__", "undo") and _type(path) is str and path.endswith(_PATCHERS) and trusted_file(path))


def _subclass(name, qual, module, bases, members):
    """(subject) The live class of a test's subclass of tree classes (``_test_subclass``)."""
    if _type(name) is not str or _type(qual) is not str or _type(module) is not str or not _isinstance(bases, list) \
            or not all(_isinstance(b, type) for b in bases) or not _isinstance(members, list):
        raise RemoteError("a malformed subclass")
    ns: dict = {"__module__": module, "__qualname__": qual}
    for item in members:
        if not _isinstance(item, list) or _len(item) != 3 or _type(item[0]) is not str:
            raise RemoteError("a malformed subclass")
        ns[item[0]] = _member_of(item[1], item[2], item[0])
    return type(name, tuple(bases) or (object,), ns)


def _tree_base_peer(bases):
    """The driver's peer when a test's class derives from a (non-exception) class of the subject."""
    for base in bases:
        if _isinstance(base, RemoteMeta) and not issubclass(base, BaseException):
            peer = getattr(base, "_hx_peer", None)
            if _isinstance(peer, Peer) and peer.side == "driver":
                return peer
    return None


_NOT_SENT = frozenset({"__module__", "__qualname__", "__annotations__", "__dict__", "__weakref__"})


def _test_subclass(mcls, peer, name, bases, ns, kwargs):
    """A test's class deriving from tree classes: under plain pytest its instances run the tree's methods, and
    those call the test's overrides (a hook, a template method). Here the class is made in the subject with the
    tree's classes as bases and the test's members as callbacks into the driver (``_member_kind``), and the
    test's class (this one) stands for it: calling it makes an instance there, as a tree class's stand-in does.
    Fails closed (a protocol fault) where that cannot be built: a base of the test's own, ``__slots__``, class
    keywords, a method that calls ``super()``."""
    where = f"the test's class {name}"
    if kwargs:
        raise peer._dec_fault(f"{where}: class keywords, which the judge cannot pass to the tree's metaclass")
    for base in bases:
        if base is object:
            continue
        if not (_isinstance(base, RemoteMeta) and "_hx_id" in type.__getattribute__(base, "__dict__")
                and getattr(base, "_hx_peer", None) is peer) or issubclass(base, BaseException):
            raise peer._dec_fault(f"{where} derives from {qualname(base)} besides a tree class: the judge cannot "
                                  "make it in the subject")
    if "__slots__" in ns or "__classcell__" in ns:
        raise peer._dec_fault(f"{where} has __slots__ or uses super()/__class__: the judge cannot make it in the "
                              "subject as plain pytest's class is")
    members = []
    for k, v in ns.items():
        if _type(k) is not str or k in _NOT_SENT:
            continue
        kind, payload = _member_kind(peer, v, f"{name}.{k}")
        members.append([k, kind, payload])
    hid = peer.request("subclass", name, str(ns.get("__qualname__", name)), str(ns.get("__module__", "")),
                       [_ClassRef(b) for b in bases if b is not object], members)
    if _type(hid) is not int:
        raise peer._dec_fault(f"{where}: the subject made no class for it")
    ns = {**ns, "_hx_id": hid, "_hx_peer": peer, "_hx_test_class": True}
    try:  # (its instances are the driver's proxies of the live ones, of this class itself: ``_test_instance``)
        cls = type.__new__(mcls, name, (*bases, _TestInstance), ns)
    except TypeError:  # a layout the proxy cannot join: instances of another class (``type(m) is My`` is False)
        cls = type.__new__(mcls, name, bases, {**ns, "_hx_test_class": False})
    peer.classes[hid] = cls
    return cls


class RemoteMeta(type):
    """The class of a stand-in for a peer's class. What plain pytest runs of the tree's class itself
    (``class_hooks``) runs in the subject (``isinstance``/``issubclass`` of what crosses as itself, ``C[...]``)
    or fails closed (a protocol fault: the test fails): a test's subclass of a class whose metaclass is not
    ``type`` or which has an ``__init_subclass__`` of the tree, a check of a driver object the subject would
    see as another."""

    def __new__(mcls, name, bases, ns, **kwargs):
        if "_hx_synth" not in ns:  # a test's class with a base of the tree
            for base in bases:
                for klass in (type.__getattribute__(base, "__mro__") if _isinstance(base, type) else ()):
                    if _isinstance(klass, RemoteMeta) and "sub" in _hooks(klass):
                        raise _hook_fault(klass, f"a subclass of {qualname(klass)}: plain pytest runs the tree's "
                                          "__init_subclass__ or metaclass, the driver has none to run")
            peer = _tree_base_peer(bases)
            if peer is not None:
                return _test_subclass(mcls, peer, name, bases, ns, kwargs)
        return super().__new__(mcls, name, bases, ns, **kwargs)

    def __setattr__(cls, name, value):
        """A member the test sets on a tree class (``mock.patch.object``, ``monkeypatch.setattr``, an assignment)
        is set on the live class too, where the tree's own calls find it (``_class_set``); the stand-in keeps it
        for the test's own reads."""
        peer = _class_peer(cls, name)
        if peer is not None:
            kind, payload = _member_kind(peer, value, f"{qualname(cls)}.{name}")
            peer.request("csetattr", _ClassRef(cls), name, kind, payload)
        _unsealed(cls, type.__setattr__, name, value)

    def __delattr__(cls, name):
        """A member the test deletes from a tree class: deleted on the live class, or, when the test set it
        (``_class_set``) and a patcher deletes it (``mock``, ``monkeypatch``: their undo), the class's own value
        from before put back (``_class_del``). Any other delete (``del``/``delattr`` wherever its code runs, ``exec``
        included: ``_by_test``) deletes it there as CPython does, whatever the test set before."""
        peer = _class_peer(cls, name)
        if peer is not None:
            peer.request("cdelattr", _ClassRef(cls), name, *((True,) if _by_test(_getframe(1)) else ()))
            if name in type.__getattribute__(cls, "__dict__"):
                _unsealed(cls, type.__delattr__, name)
            return
        _unsealed(cls, type.__delattr__, name)

    def __call__(cls, *args, **kwargs):
        if issubclass(cls, BaseException):
            if "_hx_synth" in type.__getattribute__(cls, "__dict__") and getattr(cls, "_hx_fw", None):
                # the tree's class writes members (an __init__ storing fields, a __str__): the instance is
                # the subject's, built by the tree's code, its stand-in forwarding them (``_ExcForward``)
                return cls._hx_peer.request("call", _ClassRef(cls), list(args), kwargs)
            return type.__call__(cls, *args, **kwargs)
        return cls._hx_peer.request("call", _ClassRef(cls), list(args), kwargs)

    def __getitem__(cls, item):
        if "cgi" in _hooks(cls):  # the tree's __class_getitem__, run where it lives
            return cls._hx_peer.request("getitem", _ClassRef(cls), item)
        try:  # a built-in base's (``ExceptionGroup[ValueError]``), as without this method
            found = type.__getattribute__(cls, "__class_getitem__")
        except AttributeError:
            raise TypeError(f"type {type.__getattribute__(cls, '__name__')!r} is not subscriptable") from None
        return found(item)

    def __subclasscheck__(cls, sub):
        if "ssc" not in _hooks(cls):
            return type.__subclasscheck__(cls, sub)
        if _ref_of(sub) is None and not (_isinstance(sub, type) and sub in _SCALARS):
            raise _hook_fault(cls, f"issubclass of a driver class against {qualname(cls)}: plain pytest runs its "
                              "metaclass's __subclasscheck__ on a class the subject does not have")
        return bool(cls._hx_peer.request("issubclass", sub, _ClassRef(cls)))

    def __instancecheck__(cls, obj):
        if "isc" in _hooks(cls):
            if _ref_of(obj) is None and _type(obj) not in _SCALARS:
                raise _hook_fault(cls, f"isinstance of a driver object against {qualname(cls)}: plain pytest runs "
                                  "its metaclass's __instancecheck__ on an object the subject does not have")
            return bool(cls._hx_peer.request("isinstance", obj, _ClassRef(cls)))
        if type.__instancecheck__(cls, obj):
            return True
        if _isinstance(obj, RemoteObject) and obj._hx_peer is cls._hx_peer:
            return bool(cls._hx_peer.request("isinstance", obj, _ClassRef(cls)))
        try:
            remote = object.__getattribute__(obj, "__dict__").get("_hx_remote") if not _isinstance(obj, type) else None
        except (AttributeError, TypeError):
            remote = None
        if remote is not None and remote._hx_peer is cls._hx_peer:
            return bool(cls._hx_peer.request("isinstance", remote, _ClassRef(cls)))
        return False

    def __getattr__(cls, name):
        if name.startswith("__") and name.endswith("__"):
            raise AttributeError(name)
        return cls._hx_peer.request("getattr", _ClassRef(cls), name)


# -- the standard library's object protocols on a stand-in: run where the live object lives --------------
# ``copy.copy``, ``copy.deepcopy`` and ``pickle`` read an object through ``__copy__``/``__deepcopy__``/
# ``__reduce_ex__``; on a stand-in the interpreter's defaults would read the stand-in's own machinery (its
# ``__dict__`` holds the live object's handle, so a copy *is* the live object, and a tree list's copy
# forwarded its ``extend`` to the live list with an iterator over its own growing storage). Each is
# instead the request of that protocol on the live object in the subject (``_OPS``: ``copy``,
# ``deepcopy``, ``pickle``), where the tree's own ``__copy__``/``__reduce__`` run as under plain pytest:
# the copy is a new live object of the tree, crossing back as its own stand-in; a pickle is the subject's
# bytes, wrapped so that ``pickle.loads`` in the driver asks the subject to load them (``_unpickled``).
_DRIVER_PEERS: list = []  # the driver's Peer (``_unpickled``), set when it is made


def _unpickled(data):
    """(driver) ``pickle.loads`` of a stand-in's pickle: the subject loads the bytes it made (the tree's
    classes are its), and the result crosses back."""
    if not _DRIVER_PEERS:
        raise _pickle.UnpicklingError("a pickle of the code under test's object outside a judged run")
    return _DRIVER_PEERS[-1].request("unpickle", data)


def _live_of(x):
    """The proxy of the live object a stand-in (``RemoteObject`` or a shadow) stands for."""
    if _isinstance(x, RemoteObject):
        return x
    return object.__getattribute__(x, "__dict__")["_hx_remote"]


def _protocol_copy(self):
    return _live_of(self)._q("copy")


def _protocol_deepcopy(self, memo=None):
    return _live_of(self)._q("deepcopy")


def _protocol_reduce_ex(self, protocol=_pickle.DEFAULT_PROTOCOL):
    if _type(protocol) is not int:
        protocol = _pickle.DEFAULT_PROTOCOL
    return _unpickled, (_live_of(self)._q("pickle", protocol),)


_PROTOCOLS = {"__copy__": _protocol_copy, "__deepcopy__": _protocol_deepcopy, "__reduce_ex__": _protocol_reduce_ex}

ABC_CHECKS_RULE = """The test's ``isinstance`` or ``issubclass`` of a stand-in (an object or class of the subject's, as the driver
holds it) against an ABC of the interpreter's (``collections.abc.Hashable``, ``os.PathLike``, a runtime-checkable
``typing`` protocol: a class whose metaclass is ``abc.ABCMeta``'s) is answered by the subject, on the live object and
that ABC as the subject captured it before any code of the tree ran (``_BY_NAME``), as plain pytest's check runs on
the tree's object in one process: its ``__subclasshook__`` reads the tree's class, its registrations are the tree's.
In the driver such a check read the stand-in's own class, which has every special method the protocol may forward
(``__hash__``, ``__len__``, ``__iter__``, ``__fspath__``, ``__int__``): a tree object with none of them was Hashable,
Sized, Iterable, an Iterator, PathLike and SupportsInt judged, and not under plain pytest (red team atk14). The driver's
``ABCMeta`` and ``typing``'s protocol metaclass route such a check (``abc_answer``, installed by harness.judge.
probe_runtime ``_abc_checks``); an ABC the subject does not have by that name (the test's own) is answered as before,
in the driver, unless it decides by the class's members (a ``__subclasshook__``, a ``typing`` protocol: the stand-in's
class has every special method), which fails closed (red team atk20; stricter for a right tree); and so is a check the
harness's own code makes (the protocol's value reading), one made while
answering another, and one of a value-type object's stand-in (a tree ``int``, ``Fraction`` or ``list`` subclass, an
instance of its base type carrying the names its class answers: forwarding its checks recursed through the ABCs'
subclass walks)."""
_ABC_META = type(_Mapping)




def _exc_state(ev) -> list:
    """What of an exception code can change (``Peer._exit``): its args, its own attributes (its notes' entries too),
    its chain, each the object itself (held, so compared by identity: ``_same``); read through the interpreter's
    descriptors, never the exception's class's code."""
    own = _EXC_ATTR["__dict__"].__get__(ev)
    notes = own.get("__notes__")
    return [_EXC_ATTR["args"].__get__(ev), *own.keys(), *own.values(), *(notes if _type(notes) is list else ()),
            *(_EXC_ATTR[n].__get__(ev) for n in ("__cause__", "__context__", "__suppress_context__"))]


def _abc_check(args: list, cross):
    """(subject, an ``abc`` request: [the stand-in's object or class, the ABC's name, "i" or "s"]) ``isinstance`` or
    ``issubclass`` against the interpreter's ABC of that name as captured before the tree ran, on the live object; None
    when there is none here (the driver answers as before: ``ABC_CHECKS_RULE``)."""
    cls = _BY_NAME.get(args[1]) if _len(args) == 3 and _type(args[1]) is str else None
    if cls is None or not _isinstance(cls, _ABC_META) or args[2] not in ("i", "s"):
        return None
    return cross(_OPS["isinstance"] if args[2] == "i" else _OPS["issubclass"], (args[0], cls), {})


def abc_answer(cls, x, kind: str):
    """(driver, ``ABC_CHECKS_RULE``) The subject's answer to ``isinstance(x, cls)`` (``kind`` "i") or ``issubclass(x,
    cls)`` ("s") for a stand-in ``x``, or None when the subject has no ABC of ``cls``'s name (the caller answers)."""
    try:
        name = f"{_TYPE_MODULE(cls)}.{_TYPE_QUALNAME(cls)}"
    except Exception:  # noqa: BLE001
        return None
    t = _type(x)
    if issubclass(t, RemoteObject):  # a stand-in of a tree object
        peer = object.__getattribute__(x, "_hx_peer")
    elif issubclass(t, RemoteMeta):  # a stand-in of a tree class
        peer = _TYPE_DICT(x).get("_hx_peer")
    elif _isinstance(x, type):  # the class of a tree object's stand-in (``_named``): the tree's class, by its handle
        own = _TYPE_DICT(x)
        peer = own.get("_hx_cls_peer")
        if _type(own.get("_hx_cls")) is not int:
            return None
        x = _ClassRef.of(own["_hx_cls"])
    else:
        return None
    if not _isinstance(peer, Peer) or _ref_of(x) is None:
        return None
    found = peer.request("abc", x, name, kind)
    return None if found is None else bool(found)


class _ClassRef:
    """Marks a synthesized class in a request: it crosses as a reference to the peer's class."""

    def __init__(self, cls):
        self._hx_ref = cls._hx_id

    @classmethod
    def of(cls, hid: int) -> "_ClassRef":
        """A reference to the peer's class by its handle."""
        ref = cls.__new__(cls)
        ref._hx_ref = hid
        return ref


class RemoteObject:
    """A proxy of an object that lives in the peer: every operation is a request."""
    __slots__ = ("_hx_peer", "_hx_ref", "_hx_ty", "__weakref__")

    def __init__(self, peer, hid, ty):
        object.__setattr__(self, "_hx_peer", peer)
        object.__setattr__(self, "_hx_ref", hid)
        object.__setattr__(self, "_hx_ty", ty)

    def _q(self, op, *args):
        return object.__getattribute__(self, "_hx_peer").request(op, self, *args)

    def __getattr__(self, name):
        if name == "__dict__":
            return self._q("vars")
        return self._q("getattr", name)

    def __setattr__(self, name, value):
        self._q("setattr", name, value)

    def __delattr__(self, name):
        self._q("delattr", name)

    __doc__ = property(lambda self: self._q("getattr", "__doc__"))
    __module__ = property(lambda self: self._q("getattr", "__module__"))

    def __hash__(self):
        return object.__getattribute__(self, "_hx_peer").request("hash", self)

    def __repr__(self):
        return self._q("repr")

    def __str__(self):
        return self._q("str")

    def __format__(self, spec):
        return self._q("format", spec)

    def __bool__(self):
        return self._q("bool")

    def __len__(self):
        return self._q("len")

    def __iter__(self):
        it = self._q("iter")
        return it if it is not self else _Iter(self)

    def __next__(self):
        return self._q("next")

    def __contains__(self, item):
        return object.__getattribute__(self, "_hx_peer").request("contains", self, item)

    def __getitem__(self, key):
        return object.__getattribute__(self, "_hx_peer").request("getitem", self, key)

    def __setitem__(self, key, value):
        self._q("setitem", key, value)

    def __delitem__(self, key):
        self._q("delitem", key)

    def __enter__(self):
        return self._q("enter")

    def __exit__(self, et, ev, tb):
        return self._q("exit", ev)

    def __int__(self):
        return self._q("int")

    def __float__(self):
        return self._q("float")

    def __index__(self):
        return object.__getattribute__(self, "_hx_peer").request("index", self)

    def __fspath__(self):
        return self._q("getattr", "__fspath__")()


class _Iter:
    def __init__(self, r):
        self.r = r

    def __iter__(self):
        return self

    def __next__(self):
        return self.r._q("next")


def _slot_method(name):
    """A binary operator's method of a proxy: the live object's own method for it, run where the
    object lives (``_slot``). Its ``NotImplemented`` comes back as such, so this interpreter tries the
    other operand's reflected method and then (for ``==``/``!=``) identity, exactly as plain pytest's
    would: equality and ordering of a tree object are the tree's, never the driver's reading of its state."""
    def f(self, other):
        return object.__getattribute__(self, "_hx_peer").request("slot", name, self, other)
    f.__name__ = name
    return f


for _name in sorted(SLOTS):
    setattr(RemoteObject, _name, _slot_method(_name))
for _op in ("neg", "pos", "abs", "invert"):
    setattr(RemoteObject, f"__{_op}__", (lambda o: lambda self: self._q(o))(_op))
for _op in INPLACE:
    setattr(RemoteObject, f"__{_op}__", (lambda o: lambda self, other: self._q(o, other))(_op))
for _name, _fn in _PROTOCOLS.items():
    setattr(RemoteObject, _name, _fn)


class RemoteCallable(RemoteObject):
    __slots__ = ()

    def __call__(self, *args, **kwargs):
        return object.__getattribute__(self, "_hx_peer").request("call", self, list(args), kwargs)


for _name in ("__doc__", "__module__"):  # a class body sets both; the live object's are wanted
    setattr(RemoteCallable, _name, RemoteObject.__dict__[_name])


STAND_IN_MEMBERS_RULE = """Whether a tree object, or its class, has a special method is the subject's answer on the live
object or class, never the stand-in's. The driver's stand-in of a tree object (``_named`` with ``klass``) is an instance
of ``RemoteObject`` or ``RemoteCallable``, which define every special method an operation may forward (``__len__``,
``__iter__``, ``__getitem__``, ``__fspath__``, ``__enter__``, the binary operators, ``__getattr__``), so the test's
``hasattr(x, '__len__')``, ``getattr(x, '__iter__', None)``, ``'__getitem__' in dir(x)``, and the same of ``type(x)``
(or a metaclass of the test's reading ``dir(type(x))``), were True judged for a tree class that has none of them, and
False under plain pytest (red team atk21; stricter the other way: ``not hasattr(x, '__len__')``). Each such name
(``_MACHINERY``) read by attribute is the live object's attribute (``__getattr__``: its ``getattr`` request), read of
the class it is the subject's ``hasattr`` on the live class (``_TreeClassView``), and ``dir`` of either is the
subject's ``dir``; the interpreter's own special-method calls (``len(x)``, ``with x``) find the stand-in's methods by
the type's slots, as before, and ``copy.copy``/``copy.deepcopy`` find theirs in the copy module's dispatch tables (the
copy a request in the subject, as ``_PROTOCOLS``). Names ``object`` has (``__eq__``, ``__hash__``, ``__repr__``,
``__reduce_ex__``) stay the stand-in's: every class answers them (a tree ``__hash__ = None`` read by attribute is the
documented residual). The rule's own ``__getattribute__`` and ``__dir__`` live in bases of their own (``_TreeObject``,
``_TreeCallable``), so the stand-in class's namespace holds none of them; once the subject has ended (a finalizer of the
test's at the driver's end) no request can be sent, and the stand-in's own answer stands, as before the rule. Open
(red team atk22, test_atk22_attacks.py): the stand-in's class is not the tree's class in what it holds and builds
(``vars``, its metaclass, its constructor and signature), and the class's value of a name is the machinery's."""
_MACHINERY = frozenset(n for k in (RemoteObject, RemoteCallable) for n in vars(k)
                       if n[:2] == "__" == n[-2:] and n not in dir(object) and n != "__module__")


def _members_getattribute(self, name, _get=object.__getattribute__):
    """(a tree object's stand-in) ``STAND_IN_MEMBERS_RULE``: a special name of the stand-in's machinery read by
    attribute is the live object's (``RemoteObject.__getattr__``: its AttributeError when it has none); once the
    subject has ended (a finalizer of the test's at the driver's end), the stand-in's own, as before the rule."""
    if name in _MACHINERY and not _get(self, "_hx_peer").ended:
        raise AttributeError(name)
    return _get(self, name)


def _members_dir(self):
    """``dir`` of a tree object's stand-in: the live object's (``STAND_IN_MEMBERS_RULE``); the stand-in's own once the
    subject has ended."""
    if object.__getattribute__(self, "_hx_peer").ended:
        return object.__dir__(self)
    return self._q("dir")


def _machinery_answers(cls, name: str) -> bool:
    """Whether lookup of ``name`` on ``cls`` finds the stand-in's machinery (not a class of the test's deriving)."""
    for k in type.__getattribute__(cls, "__mro__"):
        if name in _TYPE_DICT(k):
            return k is RemoteObject or k is RemoteCallable
    return False


def _tree_class_of(cls):
    """(the tree class's handle, the peer) of a tree object's stand-in class, or None (``_named``'s ``klass``)."""
    for k in type.__getattribute__(cls, "__mro__"):
        own = _TYPE_DICT(k)
        if _type(own.get("_hx_cls")) is int:
            return own["_hx_cls"], own["_hx_cls_peer"]
    return None


class _TreeClassView(type):
    """The metaclass of a tree object's stand-in class: its special names of the machinery, and its ``dir``, are the
    live class's (``STAND_IN_MEMBERS_RULE``)."""

    def __getattribute__(cls, name):
        if name in _MACHINERY and _machinery_answers(cls, name):
            own = _tree_class_of(cls)
            if own is not None and not own[1].ended and not own[1].request("hasattr", _ClassRef.of(own[0]), name):
                raise AttributeError(f"type object {type.__getattribute__(cls, '__name__')!r} has no attribute {name!r}")
        return type.__getattribute__(cls, name)

    def __dir__(cls):
        own = _TYPE_DICT(cls)
        if _type(own.get("_hx_cls")) is int and not own["_hx_cls_peer"].ended:
            return own["_hx_cls_peer"].request("dir", _ClassRef.of(own["_hx_cls"]))
        return type.__dir__(cls)


class _TreeObject(RemoteObject):
    """The base of a tree object's stand-in class (``_named`` with ``klass``): the rule's reads, outside the class's
    own namespace (``vars(type(x))`` holds what the tree's class holds of them: none)."""
    __slots__ = ()
    __getattribute__ = _members_getattribute
    __dir__ = _members_dir


class _TreeCallable(_TreeObject, RemoteCallable):
    """``_TreeObject`` of a callable tree object."""
    __slots__ = ()


for _name in ("__doc__", "__module__"):  # a class body sets both; the live object's are wanted
    setattr(_TreeObject, _name, RemoteObject.__dict__[_name])
    setattr(_TreeCallable, _name, RemoteObject.__dict__[_name])
_TREE_BASES: dict = {RemoteObject: _TreeObject, RemoteCallable: _TreeCallable}


_COPY_TABLES: tuple = tuple((table, fn) for table, fn in ((getattr(_copy, "_copy_dispatch", None), _protocol_copy),
                                                   (getattr(_copy, "_deepcopy_dispatch", None), _protocol_deepcopy))
                     if _type(table) is dict)


_SHADOWS: dict = {}
_NAMED: dict = {}


class _TestInstance(RemoteObject):
    """The last base of a test's subclass of tree classes in the driver (``_test_subclass``): an instance of it is a
    proxy of the live instance in the subject (every operation a request, as any handle's), of the test's class
    itself. The rule: what the test can ask of the object is its class (``type(m) is My``, ``m.__class__``) and its
    members; under plain pytest both are the test's class's, so the proxy is an instance of that very class, its own
    methods run in the driver (the test's code, as under plain pytest) and every other name goes to the live object."""
    __slots__ = ()


def _test_instance(peer, meta: dict, hid, ty: str):
    """(driver) The proxy of an instance of the test's own subclass of tree classes (``tc``: its class's handle), as an
    instance of that class; None for any other handle, or when the class could not take the proxy's layout."""
    tc = meta.get("tc")
    cls = peer.classes.get(tc) if _type(tc) is int else None
    if cls is None or type.__getattribute__(cls, "__dict__").get("_hx_test_class") is not True:
        return None
    p = object.__new__(cls)
    RemoteObject.__init__(p, peer, hid, ty)
    return p


def _named(base: type, ty: str, tree: bool = False, open_dict: bool = False, klass: tuple | None = None) -> type:
    """A subclass of a stand-in class (``RemoteObject``, ``RemoteCallable``, a shadow) that carries
    the live object's class name, qualified name and module, so that ``type(x).__name__`` in a test
    reads what plain pytest reads (expectations written as plain data compare class names). ``tree``:
    the live object's class is the tree's (the subject says so by identity), so the harness never
    reads that name as the class it names (``_hx_tree``; harness.judge.probe_runtime ``_name``). ``open_dict``
    (the driver's stand-ins of the peer's objects): its instances have a dict of their own, which only
    ``object.__setattr__`` reaches (``o.__dict__``/``vars(o)`` is the live object's: ``_live_vars``), so that such a
    write lands, as under plain pytest, and is seen at the test's end (``stand_in_writes``: ``STAND_IN_PATHS_RULE``)
    rather than refused with an ``AttributeError`` of the stand-in's own. ``klass`` (the driver's stand-ins of tree
    objects): the subject's handle of the live object's class and the peer: one such class per class of the tree, as
    under plain pytest (two tree classes of one name are two classes), through which an ABC's check of the class is the
    subject's (``_hx_cls``, ``_hx_peer``: ``ABC_CHECKS_RULE``)."""
    cls = _NAMED.get((base, ty, tree, open_dict, klass))
    if cls is None:
        mod, _, qual = ty.rpartition(".")
        ns: dict = {"__qualname__": qual or ty, "__module__": mod}
        if tree:
            ns["_hx_tree"] = True
        if klass is not None:
            ns["_hx_cls"], ns["_hx_cls_peer"] = klass
        for name in ("__doc__", "__module__"):  # a class body sets both: keep a base's live-object property
            if _isinstance(getattr(base, name, None), property):
                ns[name] = getattr(base, name)
        if open_dict:
            ns["__dict__"], ns["_hx_open"] = _live_vars, True
        elif "__slots__" in base.__dict__:
            ns["__slots__"] = ()
        members = klass is not None and base in _TREE_BASES  # ``STAND_IN_MEMBERS_RULE``
        meta = _TreeClassView if members else type(base)
        cls = meta((qual or ty).rpartition(".")[2] or base.__name__, (_TREE_BASES[base] if members else base,), ns)
        for table, fn in _COPY_TABLES if members else ():
            table[cls] = fn  # (``copy.copy`` reads ``__copy__`` of the class: the machinery's, hidden above)
        _NAMED[(base, ty, tree, open_dict, klass)] = cls
    return cls


_live_vars = property(lambda self: self._q("vars"))  # (``_named``: a stand-in's ``__dict__`` is the live object's)


def _shadow_class(base: type):
    """A subclass of ``base`` whose instances carry the live object (``_hx_remote``): equality and
    hashing are the base type's, repr/str/attributes the live object's."""
    if base in (bool,) or base not in (int, float, complex, str, bytes, tuple, list, dict, frozenset, set) and \
            qualname(base) not in ("decimal.Decimal", "fractions.Fraction", "datetime.datetime", "datetime.date"):
        return None
    cls = _SHADOWS.get(base)
    if cls is None:
        def _r(self):
            return self._hx_remote._q("repr")

        def _s(self):
            return self._hx_remote._q("str")

        def _ga(self, name):
            if name.startswith("__") or name == "_hx_remote":
                raise AttributeError(name)
            return self._hx_remote._q("getattr", name)

        def _ref(self):
            return object.__getattribute__(self._hx_remote, "_hx_ref")

        cls = type(f"Shadow{base.__name__.capitalize()}", (base,), {"__repr__": _r, "__str__": _s,
                                                                     "__getattr__": _ga, "_hx_ref": property(_ref),
                                                                     **_PROTOCOLS})
        _SHADOWS[base] = cls
    return cls


def _made_as(cls, base):
    """An instance of the stand-in class ``cls`` holding the value ``base``: ``cls(base)``, or for a
    date or datetime (whose constructor takes its fields, not a value) ``cls`` of ``base``'s fields."""
    if _isinstance(base, _DATETIME):
        return cls(base.year, base.month, base.day, base.hour, base.minute, base.second, base.microsecond,
                   base.tzinfo, fold=base.fold)
    if _isinstance(base, _DATE):
        return cls(base.year, base.month, base.day)
    return cls(base)


_FORWARDS: dict = {}
# what a stand-in of a mutable base always sends to the live object: every change the driver makes to it
_MUTATING = ("__setitem__", "__delitem__", "__iadd__", "__imul__", "__ior__", "__iand__", "__ixor__", "__isub__")
_STAND_IN_OWN = frozenset({"__repr__", "__str__", "__getattr__", "_hx_ref", "_hx_remote", "_hx_vb", "__copy__", "__deepcopy__",
                           "__reduce_ex__"})


def _forward_class(base: type, names: tuple = ()):
    """The stand-in class of a tree object of a value type (``Peer.shadow``, ``operated``): a subclass of
    the base's shadow (repr and str are the live object's) in which exactly the names the live object's
    class answers otherwise than the base (``differing_names``), every public attribute, and for a
    mutable base every mutating special method (``_MUTATING``), are the live object's, each a request
    (``RemoteObject``). Every other special method is the base type's own, on storage that is the live
    object's (``Peer._mirror_sync``), so whatever the driver's C code does with it (``dict()``, ``reversed``,
    ``round``, ``+=``, ``%``) reads it as plain pytest's reads the live object."""
    shadow = _shadow_class(base)
    if shadow is None:
        return None
    key = (base, names)
    cls = _FORWARDS.get(key)
    if cls is None:
        def forward(name):
            def f(self, *args):
                return _getattr(object.__getattribute__(self, "__dict__")["_hx_remote"], name)(*args)
            f.__name__ = name
            return f

        def attribute(name):
            return property(lambda self: object.__getattribute__(self, "__dict__")["_hx_remote"]._q("getattr", name))

        def _gattr(self, name):
            if name[:1] != "_":
                return object.__getattribute__(self, "__dict__")["_hx_remote"]._q("getattr", name)
            if name == "__dict__":  # ``vars()``: the live object's attributes, never the stand-in's bookkeeping
                return object.__getattribute__(self, "__dict__")["_hx_remote"]._q("vars")
            return object.__getattribute__(self, name)

        mutable = base in (list, dict, set)
        ns: dict = {}
        for name in (*names, *(_MUTATING if mutable else ())):
            if name in _STAND_IN_OWN or name in ns or (name in _MUTATING and not hasattr(base, name)):
                continue
            ns[name] = forward(name) if name[:2] == "__" == name[-2:] else attribute(name)
        ns["__getattribute__"] = _gattr
        cls = type(f"Tree{shadow.__name__}", (shadow,), ns)
        _FORWARDS[key] = cls
    return cls


_OPAQUE = ("opaque",)


def observation(x):
    """How the probe observes ``x``: None when it is not the stand-in of a peer's value (read it as it
    is); ``_OPAQUE`` for a tree object the probe must observe as opaque, never by the base value it also
    holds (``Peer.shadow``; ``observed_as_base`` in the subject); else (its base value now, the names the
    tree answers for it). Asked of the subject at every observation (``observe`` request): a class given
    an ``__eq__`` since the value crossed is observed as it is now, a list a method of the tree sorted
    since is observed sorted; a stand-in the subject cannot vouch for (no answer) is opaque."""
    stand_ins = (*_FORWARDS.values(), *_SHADOWS.values())
    if not stand_ins or not _isinstance(x, stand_ins):
        return None
    own = object.__getattribute__(x, "__dict__")
    remote = own.get("_hx_remote")
    if remote is None:
        return None
    if _FORWARDS and _isinstance(x, tuple(_FORWARDS.values())) and own.get("_hx_vb") is not True:
        return _OPAQUE
    try:
        got = object.__getattribute__(remote, "_hx_peer").request("observe", remote)
    except Exception:  # noqa: BLE001 - no answer the probe can trust: opaque (the judge fails the comparison)
        return _OPAQUE
    if _type(got) is not list or _len(got) != 2 or _type(got[1]) is not list or not all(_type(n) is str for n in got[1]):
        return _OPAQUE
    return got[0], got[1]


def _member_fields(x, t) -> dict | None:
    """An enum member's own fields (``Peer._enc_member``) when each is a plain scalar (its class aside), else None."""
    out = {}
    for k, v in _vars(x).items():
        if v is t and k == "__objclass__":
            continue
        if _type(k) is not str or not (v is None or _type(v) in (str, int, float, bool)):
            return None
        out[k] = v
    return out


class ProxyModuleBase(_types.ModuleType):
    """Base of the driver's proxy modules (harness.judge.probe_runtime defines the import hook)."""


def _driver_policy(op: str, args: list) -> None:
    """What the subject may ask of the driver's objects: call a callable the driver gave it, read a
    public attribute of a non-module object, iterate, take str/repr/len/bool/next of it. Nothing
    reaches the probe runtime, its channel, its nonce or a module."""
    allowed = {"call", "getattr", "repr", "str", "len", "bool", "iter", "next", "format", "hash", "getitem",
               "contains", "int", "float", "index", "enter", "exit", "slot", *BINOPS, *UNOPS, *INPLACE}
    if op not in allowed:
        raise PermissionError(f"the subject may not {op} the driver's objects")
    if op == "slot" and (not args or args[0] not in SLOTS):
        raise PermissionError("the subject may call only a binary operator's method of the driver's objects")
    target = (args[1] if _len(args) > 1 else None) if op == "slot" else (args[0] if args else None)
    if _isinstance(target, _types.ModuleType) and not _stub_module(target) or \
            getattr(_type(target), "_hx_private", False):  # never the object's own __getattr__ (a Mock answers every name)
        raise PermissionError("the subject may not reach the driver's modules")
    if op == "getattr" and (not _isinstance(args[1], str) or args[1].startswith("_")):
        raise PermissionError("the subject may read only public attributes of the driver's objects")
    if op == "getattr" and not _readable_attribute(target, args[1]):
        raise PermissionError(f"the subject may not read {args[1]!r} of the driver's {qualname(_type(target))}: "
                              "interpreter internals (frames, code, generators' frames) and pytest's or the "
                              "harness's own objects are never handed over")


# What the subject may never read on the driver's objects: the interpreter's own objects and
# attributes through which a frame, and from it the driver's builtins (``eval``) and the probe
# runtime, are reached (a generator's ``gi_frame``, a frame's ``f_builtins``/``f_globals``/
# ``f_back``/``f_locals``, a traceback's ``tb_frame``, a code object's ``co_consts``, a closure
# cell's contents), and the objects of pytest and the harness (a fixture's node, config, plugin
# manager, the runtime's records).
_INTERNAL_PREFIXES = ("gi_", "cr_", "ag_", "f_", "tb_", "co_")
_INTERNAL_TYPES = (_types.GeneratorType, _types.CoroutineType, _types.AsyncGeneratorType, _types.FrameType,
                   _types.TracebackType, _types.CodeType, _types.CellType)
_HARNESS_PACKAGES = frozenset({"_pytest", "pytest", "pluggy", "py", "iniconfig"})


def _readable_attribute(target, name: str) -> bool:
    """Whether the subject may read ``getattr(target, name)`` of a driver object: an entry the
    test stored in the object's own ``__dict__`` (a SimpleNamespace field, a fake's attribute),
    or any other public attribute of an object that is neither one of the interpreter's internal
    objects (``_INTERNAL_TYPES``) nor pytest's or the harness's, under a name that is not one of
    the interpreter's frame or code attributes (``_INTERNAL_PREFIXES``). A generator the test
    passes (the median oracle's ``x for x in ...``) led through ``gi_frame.f_builtins`` to the
    driver's ``eval``: the tree's code then ran in the process that writes observations (issue 21)."""
    try:
        own = object.__getattribute__(target, "__dict__")
    except (AttributeError, TypeError):
        own = None
    if _type(own) is dict and name in own and not _isinstance(target, type):
        return True
    if name.startswith(_INTERNAL_PREFIXES) or name == "cell_contents" or _isinstance(target, _INTERNAL_TYPES):
        return False
    cls = target if _isinstance(target, type) else _type(target)
    if _isinstance(cls, RemoteMeta):
        return False
    if cls is _WatchedModule:  # (a module the judge watches is a module: ``StdlibPatches``)
        cls = _types.ModuleType
    modname = type.__getattribute__(cls, "__module__")
    top = modname.partition(".")[0] if _isinstance(modname, str) else ""
    return not (top in _HARNESS_PACKAGES or top.startswith("_hx"))


class _Warnings:
    """In the subject: record the warnings a request emits and send them with the reply. The driver's
    filters that turn a warning into an error (the test's ``simplefilter("error")``, a ``filterwarnings``
    mark, ``-W error``) apply here too, in the driver's order (``Peer.warning_filters``): under plain
    pytest ``warnings.warn`` raises inside the tree, which may catch it and take another path. Every
    other action records the warning ("always"); the driver replays it under its own filters."""

    def __init__(self, peer):
        self.peer = peer

    def __enter__(self):
        if self.peer.side != "subject":
            return None
        self.cm = _warnings.catch_warnings(record=True)
        self.rec = self.cm.__enter__()
        _warnings.simplefilter("always")
        for action, message, category, module, lineno in reversed(self.peer.warning_filters):  # each goes first
            _warnings.filterwarnings(action, message, category, module, lineno)
        self.base = list(_warnings.filters)  # the tree's own filters go to the driver (``ProcState.tree_filters``)
        self.at: list = []  # the filters in force when each warning was recorded (``_late_filters``)
        _warnings._showwarnmsg_impl = self._shown  # (put back by the exit)
        self.out: list = []
        self.peer._last_warnings = self.out
        return self.out

    def __exit__(self, et, ev, tb):
        if self.peer.side != "subject":
            return False
        ps = self.peer.ps
        if ps is not None:
            try:
                now = list(_warnings.filters)
            except Exception:  # noqa: BLE001 - the tree replaced the list with what is no list: as removed
                now = []
            if now != self.base:
                ps.tree_filters(self.base, now)
                if _late_filters(self.rec, self.at, now):
                    ps.faults.append("the tree added a warning filter after a warning it applies to, in one call: the "
                                     "driver replays the call's warnings under the filters it ended with (harness."
                                     "judge.subject_rpc PROCESS_STATE: warning filters)")
        self.cm.__exit__(et, ev, tb)
        crossing = self.peer.crossing_file
        for w in self.rec:
            try:
                out = {"c": self.peer._cls_meta(w.category), "m": str(w.message)[:1 << 20],
                       "f": str(w.filename), "l": int(w.lineno)}
                if crossing is not None and _type(w.filename) is str and w.filename == crossing:
                    out["at"] = True  # attributed to the crossing frame: the driver places it (``crossing``)
                self.out.append(out)
            except Exception:  # noqa: BLE001
                pass
        return False


    def _shown(self, msg) -> None:
        """The record's own ``log.append``, noting the filters then in force."""
        self.rec.append(msg)
        if _len(self.at) < 10_000:
            try:
                self.at.append(list(_warnings.filters))
            except Exception:  # noqa: BLE001 - the tree replaced the list: ``tree_filters`` faults it
                self.at.append([])


def _late_filters(rec: list, at: list, now: list) -> bool:
    """(subject) The rule for the warning filters the tree adds during a call: the driver replays the call's
    warnings after applying every filter the call added (``wa``), so a warning recorded *before* a filter that
    matches it (its category, message and line; any module) would meet a filter plain pytest's never did: fail
    closed. A warning recorded after every filter, or one no later filter matches, replays as it happened."""
    for w, then in zip(rec, at):
        for e in now:
            if e in then or _type(e) is not tuple or _len(e) != 5:
                continue
            _, m, c, _, n = e
            try:
                if (_isinstance(c, type) and issubclass(w.category, c)) and (m is None or m.match(str(w.message))) \
                        and (not n or n == w.lineno):
                    return True
            except Exception:  # noqa: BLE001 - a filter or warning the judge cannot read: as matching
                return True
    return False


def _filter_spec() -> list:
    """This process's warning filters up to the last that makes a warning an error: (action, message
    pattern, category, module pattern, line), as ``warnings.filterwarnings`` takes them; [] when none does."""
    out, last = [], 0
    for entry in list(_warnings.filters):
        try:
            action, message, category, module, lineno = entry
            out.append((str(action), getattr(message, "pattern", "") or "", category,
                        getattr(module, "pattern", "") or "", int(lineno)))
        except (TypeError, ValueError):
            continue
        if action == "error":
            last = _len(out)
    return out[:last]


class _OutBuffer(_io.BytesIO):
    """(subject) The binary file under the subject's ``sys.stdout``/``sys.stderr`` (harness.judge.testrun
    ``STREAMS_RULE``): what the tree wrote since the last message, with the size its descriptor (``fd``, 1 or 2,
    the file the driver relays) had at each write that found it grown (``marks``: the driver writes each part after
    the descriptor's output that came before it, as plain pytest's one capture file keeps them); ``fileno`` is that
    descriptor (``used``: the driver checks the test's stream has one too)."""

    def __init__(self, fd: int) -> None:
        super().__init__()
        self.fd, self.used = fd, False
        self.marks: list[tuple[int, int]] = []

    def write(self, b, _write=_io.BytesIO.write, _tell=_io.BytesIO.tell, _lseek=_os.lseek, _end=_os.SEEK_END):
        try:  # (its size: the file is append-only, so its offset is at its end at every write, moved or not)
            n = _lseek(self.fd, 0, _end)
        except OSError:
            n = -1
        marks = self.marks
        if not marks or marks[-1][1] != n:
            marks.append((_tell(self), n))
        return _write(self, b)

    def fileno(self) -> int:
        self.used = True
        return self.fd


class NonStrNote:
    """(driver) Where an exception's notes held an item pytest's join refuses (``name``: its type's name, or the error
    reading the notes raised): the receiver's ``match`` raises pytest's TypeError there (probe_runtime ``_match_text``)."""
    __slots__ = ("name",)

    def __init__(self, name):
        self.name = name

    def __repr__(self):
        return f"<a note of type {self.name}>"


_NO_INPUT = "pytest: reading from stdin while output is captured!  Consider using `-s`."


class DontReadFromInput(_typing.TextIO):
    """(subject) ``sys.stdin`` as pytest's capture gives plain pytest's tree (``_pytest.capture.DontReadFromInput``,
    written out here: importing ``_pytest.capture`` costs the subject ~90 ms): every read is an OSError, never the
    empty input a descriptor at EOF gives, so a tree's ``input()`` meets what it meets under plain pytest
    (harness.judge.testrun ``STREAMS_RULE``; red team atk15: a prompt with a default at EOF passed judged). Its base is
    pytest's, ``typing.TextIO``, whose ``name``, ``mode``, ``closed``... answer None (red team atk16)."""

    @property
    def encoding(self):
        return _sys.__stdin__.encoding if _sys.__stdin__ is not None else "utf-8"

    def read(self, size=-1):
        raise OSError(_NO_INPUT)

    readline = read

    def __next__(self):
        return self.readline()

    def readlines(self, hint=-1):
        raise OSError(_NO_INPUT)

    def __iter__(self):
        return self

    def fileno(self):
        raise _io.UnsupportedOperation("redirected stdin is pseudofile, has no fileno()")

    def flush(self):
        raise _io.UnsupportedOperation("redirected stdin is pseudofile, has no flush()")

    def isatty(self):
        return False

    def close(self):
        pass

    def readable(self):
        return False

    def seek(self, offset, whence=0):
        raise _io.UnsupportedOperation("redirected stdin is pseudofile, has no seek(int)")

    def seekable(self):
        return False

    def tell(self):
        raise _io.UnsupportedOperation("redirected stdin is pseudofile, has no tell()")

    def truncate(self, size=None):
        raise _io.UnsupportedOperation("cannot truncate stdin")

    def write(self, data):
        raise _io.UnsupportedOperation("cannot write to stdin")

    def writelines(self, lines):
        raise _io.UnsupportedOperation("Cannot write to stdin")

    def writable(self):
        return False

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        pass

    @property
    def buffer(self):
        return self


def _capture() -> tuple:
    out, err = [_io.TextIOWrapper(_OutBuffer(fd), encoding="utf-8", errors="replace", newline="", write_through=True)
                for fd in (1, 2)]
    _OUT_BUFS[:] = [out.buffer, err.buffer]
    _sys.stdout, _sys.stderr = out, err
    _sys.stdin = DontReadFromInput()
    return out, err


_OUT_BUFS: list = []  # (subject) the binary files under its streams (``_capture``)


def _output_pending() -> bool:
    """(subject) Whether the tree wrote to its streams since the last message."""
    b = _OUT_BUFS
    return _len(b) == 2 and bool(b[0].tell() or b[1].tell())


def _take_output(msg: dict, _lseek=_os.lseek, _end=_os.SEEK_END) -> None:
    """(subject, at every message) What the tree wrote to its streams (``_capture``) since the last one: ``o``/``e``
    the text (bytes that are not UTF-8 as surrogate escapes), or a list of [size of the descriptor, text] parts when
    the descriptor grew between its writes (``STREAMS_RULE``); ``fn`` the descriptors whose ``fileno`` it read."""
    bufs = _OUT_BUFS
    if _len(bufs) != 2 or not (bufs[0].tell() or bufs[1].tell() or bufs[0].used or bufs[1].used):
        return  # (nothing written: one check a message)
    for buf in bufs:
        if buf.used:
            msg.setdefault("fn", []).append(buf.fd)
            buf.used = False
        if not buf.tell():
            continue
        key = "o" if buf.fd == 1 else "e"
        data, marks = buf.getvalue(), buf.marks
        try:
            end = _lseek(buf.fd, 0, _end)
        except OSError:
            end = -1
        if all(m[1] == end for m in marks):
            msg[key] = data.decode("utf-8", "surrogateescape")
        else:
            cuts = [m[0] for m in marks[1:]] + [_len(data)]
            msg[key] = [[m[1], data[m[0]:c].decode("utf-8", "surrogateescape")] for m, c in zip(marks, cuts)]
        buf.seek(0)
        buf.truncate(0)
        marks.clear()



# -- what the test patches in the standard library ------------------------------------------------------
# Under plain pytest ``monkeypatch.setattr(time, "time", ...)``, ``mock.patch("os.getcwd")`` or
# ``monkeypatch.setattr(builtins, "open", fake)`` change the one module the tree's own calls read. Here each
# process has its own: the driver watches its modules (``StdlibPatches``: every module of the interpreter gets a
# ``ModuleType`` subclass whose ``__setattr__``/``__delattr__`` note the name) and sends, with each request whose
# patches changed, the whole set of names that differ from the value they had before the first change (``sp``);
# the subject sets them on its own modules (the test's value crossing as itself, a driver callable as a callback
# handle) and puts back what is no longer patched (``Peer._apply_patches``). What cannot be applied there is a
# protocol fault: the test fails, never runs against the unpatched function.
# Left to other rules (never carried): what pytest and the harness set on ``sys`` and ``warnings`` for their
# own machinery (the streams, ``sys.argv`` and ``os.environ`` are synced as process state, warning filters by
# ``_Warnings``), and the hooks the judge itself relies on.
_NOT_CARRIED = {
    "sys": frozenset({"stdin", "stdout", "stderr", "__stdin__", "__stdout__", "__stderr__", "argv", "orig_argv",
                      "modules", "path", "meta_path", "path_hooks", "path_importer_cache", "displayhook",
                      "excepthook", "unraisablehook", "breakpointhook", "last_type", "last_value", "last_traceback",
                      "last_exc", "audit", "addaudithook", "settrace", "setprofile", "gettrace", "getprofile",
                      "_getframe", "getrefcount", "exc_info", "exception", "tracebacklimit", "ps1", "ps2"}),
    "os": frozenset({"environ", "environb"}),
}
_NEVER_CARRIED = ("warnings", "_warnings", "pytest", "_pytest", "pluggy", "py", "iniconfig", "_hx", "harness")


def _carried(mod_name, name) -> bool:
    """Whether a patch of ``mod_name.name`` goes to the subject (see above)."""
    if _type(mod_name) is not str or _type(name) is not str or (name[:2] == "__" == name[-2:]):
        return False
    root = mod_name.partition(".")[0]
    if root in _NEVER_CARRIED or root.startswith("_hx"):
        return False
    return name not in _NOT_CARRIED.get(mod_name, ())


class _WatchedModule(_types.ModuleType):
    """(driver) The class of the interpreter's modules while the judge watches them (``StdlibPatches``): a module
    as before, whose attribute writes and deletions are noted first."""

    def __setattr__(self, name, value):
        w = _WATCH[0]
        if w is not None:
            w.note(self, name, _getframe(1).f_code.co_filename)
        _ModuleType.__setattr__(self, name, value)

    def __delattr__(self, name):
        w = _WATCH[0]
        if w is not None:
            w.note(self, name, _getframe(1).f_code.co_filename)
        _ModuleType.__delattr__(self, name)


_getframe = _sys._getframe


STACK_DEPTH_RULE = """Under plain pytest the tree's code runs on the test's stack, below pytest's frames; in the subject it
ran below the serving loop's few, so a recursion the interpreter's limit (synced) stops under plain pytest returned in
the subject (red team atk15: 956 frames of room under plain pytest, 990 in the subject). Each request of the driver
carries the driver's depth at the request (``sd``: the test's frames, pytest's and the stand-in's call), and the
subject serves it from at least that depth (``_at_depth``); a request nested in one the subject is serving (the tree
called the test's callback, which called the tree) adds the driver's frames since the outer one on top of the tree's
own (``_pad``), as plain pytest's one stack holds both: the tree's code never has more room than plain pytest's (a few
frames less: stricter, which the rule allows). Open: a finalizer a release runs (at the serving loop's depth)."""


def _request_depth(msg: dict) -> int:
    """The driver's stack depth a request carries (``sd``), or 0."""
    v: Any = msg.get("sd", 0)
    return v if _type(v) is int and v > 0 else 0


def _stack_depth(_getframe=_getframe) -> int:
    """The calling thread's frames (the caller's included)."""
    f, n = _getframe(1), 0
    while f is not None:
        f, n = f.f_back, n + 1
    return n


def _at_depth(depth: int, fn, *args, _min=min, _limit=_sys.getrecursionlimit):
    """``fn(*args)`` called from at least ``depth`` frames deep (``STACK_DEPTH_RULE``); never past the recursion limit's
    room for the call itself."""
    n = _min(depth, _limit() - 10) - _stack_depth()
    return _pad(n, fn, args) if n > 0 else fn(*args)


def _pad(n: int, fn, args):
    """``fn(*args)`` called ``n`` frames deeper (none for ``n`` <= 1)."""
    return _pad(n - 1, fn, args) if n > 1 else fn(*args)
_PATCHERS = ("/unittest/mock.py", "/_pytest/monkeypatch.py")  # the interpreter's files that patch for a test


_WATCH: list = [None]


class StdlibPatches:
    """(driver) The names of the interpreter's modules the test changed (``note``), and the value each had before
    its first change; ``pending`` the set to send when it changed since the last send. A change is the test's
    when the code making it is the test's file (``test_files``: an assignment, ``setattr``) or ``mock``'s or
    ``monkeypatch``'s: never the import system binding a submodule to its package, nor pytest's or a plugin's
    own hooks (``threading.excepthook``, ``pdb.set_trace``); once a name is the test's, every later change of it
    (its undo, by whatever code) counts."""

    def __init__(self, test_files=()):
        self.originals: dict = {}  # (module name, attribute) -> (module, its value before the first change)
        self.dirty = False
        self.seen = -1  # len(sys.modules) when modules were last watched
        self.test_files = test_files  # (a live set: the driver adds the probe's paths)

    def watch(self) -> None:
        """Watch every module of the interpreter not watched yet (those imported since the last call)."""
        mods = _sys.modules
        if _len(mods) == self.seen:
            return
        self.seen = _len(mods)
        for name, mod in list(mods.items()):
            if _type(mod) is not _ModuleType or _type(name) is not str or name.partition(".")[0] in _NEVER_CARRIED \
                    or name.startswith("_hx") or not trusted_file(getattr(mod, "__file__", None)):
                continue  # (the names first: a module never watched is not resolved again at every new import)
            try:
                object.__setattr__(mod, "__class__", _WatchedModule)
            except TypeError:
                pass

    def unwatch(self) -> None:
        """Give every watched module its plain class back (a process that goes on after the judge: a test of
        this class; the driver itself never needs it, it exits)."""
        for mod in list(_sys.modules.values()):
            if _type(mod) is _WatchedModule:
                object.__setattr__(mod, "__class__", _ModuleType)
        self.seen = -1

    def note(self, mod, name, by: str) -> None:
        mod_name = _vars(mod).get("__name__")
        key = (mod_name, name)
        if key not in self.originals:
            if not _carried(mod_name, name) or not (by in self.test_files or (
                    _type(by) is str and by.endswith(_PATCHERS) and trusted_file(by))):
                return
            self.originals[key] = (mod, _vars(mod).get(name, _MISSING))
        self.dirty = True

    def pending(self) -> list | None:
        """[[module, name, value, deleted]] of every name that differs now from its value before the test's first
        change (identity), when a change was noted since the last call; else None."""
        if _len(_sys.modules) != self.seen:
            self.watch()
        if not self.dirty:
            return None
        self.dirty = False
        out = []
        for key, (mod, orig) in list(self.originals.items()):
            cur = _vars(mod).get(key[1], _MISSING)
            if cur is orig:
                del self.originals[key]
                continue
            out.append([key[0], key[1], None if cur is _MISSING else cur, cur is _MISSING])
        return out


def watch_stdlib(test_files=()) -> StdlibPatches:
    """(driver, before pytest starts) Start watching the interpreter's modules for the test's patches (made by
    ``test_files``, ``mock`` or ``monkeypatch``)."""
    if _WATCH[0] is None:
        watcher = StdlibPatches(test_files)
        watcher.watch()
        _WATCH[0] = watcher
    return _WATCH[0]


# -- what the test's patchers set on a class of the interpreter's modules ---------------------------------
# ``monkeypatch.setattr(pathlib.Path, "home", ...)``, ``mock.patch.object(subprocess.Popen, ...)``: under plain pytest
# the tree's own calls run the patch. The rule, as for a module's attribute (``StdlibPatches``): **a member a patcher
# of the test (``monkeypatch``'s ``setattr``/``delattr``, ``mock``'s patches) sets on or deletes from a class of the
# interpreter's modules is set on or deleted from the subject's class of the same module and qualified name, the
# test's value crossing as a tree class's member does (``_member_kind``: a function bound as a method, a
# staticmethod, classmethod or property by its functions, any other value as itself; a descriptor it cannot carry
# fails closed), and put back when the driver's is; a class the subject cannot find so, or cannot set, is a fault.**
# Seen where the patchers make the change (``ClassPatches.wrap``), compared at every request only while a patch is
# noted. Open: an assignment in the test's own file (``pathlib.Path.home = f``: no hook sees a class's attribute
# set), and a class's attribute set through its ``__dict__``.
class ClassPatches:
    """(driver) The members of the interpreter's classes the test's patchers changed (``note``), with each one's value
    in the class's own ``__dict__`` before the first change; ``pending`` the set to send when it changed."""

    def __init__(self):
        self.originals: dict = {}  # (id(class), name) -> (class, its own value before, or _MISSING)
        self.sent: list | None = None
        self.mocks: set = set()  # id of each ``mock._patch`` class wrapped (``wrap_mock``)

    def note(self, cls, name, before) -> None:
        if not _isinstance(cls, type) or _isinstance(cls, RemoteMeta) or _type(name) is not str or \
                (id(cls), name) in self.originals:
            return
        mod = _sys.modules.get(type.__getattribute__(cls, "__module__"))
        if mod is None or not trusted_file(getattr(mod, "__file__", None)) or \
                type.__getattribute__(cls, "__module__").partition(".")[0] in _HARNESS_PACKAGES:
            return
        self.originals[(id(cls), name)] = (cls, before)

    def pending(self, peer) -> list | None:
        """[[module, qualified name, name, kind, payload, deleted]] of every noted member that differs now from its
        value before (identity), when the set changed since the last send; else None."""
        if not self.originals and self.sent is None:
            return None
        out = []
        for key, (cls, before) in list(self.originals.items()):
            cur = _TYPE_DICT(cls).get(key[1], _MISSING)
            if cur is before:
                del self.originals[key]
                continue
            mod, qual = type.__getattribute__(cls, "__module__"), type.__getattribute__(cls, "__qualname__")
            kind, payload = ("v", None) if cur is _MISSING else \
                _member_kind(peer, cur, f"{qual}.{key[1]}")
            out.append([mod, qual, key[1], kind, payload, cur is _MISSING])
        same = self.sent is not None and _len(out) == _len(self.sent) and \
            all(a[:4] == b[:4] and (a[4] is b[4] or _type(a[4]) is list and a[4] == b[4]) and a[5] == b[5]
                for a, b in zip(out, self.sent))
        if same:
            return None
        self.sent = out if out else None
        return out

    def wrap(self) -> None:
        """Note what ``monkeypatch``'s ``setattr``/``delattr`` and ``mock``'s patches set on a class, from their own
        records (``MonkeyPatch._setattr``: the class's own value before; ``_patch.temp_original``/``is_local``)."""
        mp_cls: type | None = None
        notset: object = _MISSING
        try:
            from _pytest import monkeypatch as _mp
            mp_cls, notset = _mp.MonkeyPatch, getattr(_mp, "NOTSET", getattr(_mp, "notset", _MISSING))
        except ImportError:  # pragma: no cover - the driver runs pytest
            pass
        if mp_cls is not None:
            for meth in ("setattr", "delattr"):
                orig = _vars(mp_cls)[meth]
                _setattr_builtin(mp_cls, meth, self._after_monkeypatch(orig, notset))
        mock = _sys.modules.get("unittest.mock")
        if mock is not None:
            self.wrap_mock(mock)

    def wrap_mock(self, mock) -> None:
        """Note what ``mock``'s patches set on a class (``wrap``), once ``unittest.mock`` is imported: by ``wrap`` if the
        driver has it already, else by the driver's import of it (harness.judge.probe_runtime ``_AFTER_IMPORT``), before
        the module is returned to the code importing it, so before any patch of it. Importing it up front would cost
        every judged run its import of ``asyncio`` (about 25 ms of the driver's start-up, benchmarks.bench_judge),
        which a test that never uses ``mock`` does not otherwise pay. Each ``_patch`` class is wrapped once."""
        patch = getattr(mock, "_patch", None)
        if not _isinstance(patch, type) or id(patch) in self.mocks:
            return
        self.mocks.add(id(patch))
        enter = _vars(patch)["__enter__"]
        _setattr_builtin(patch, "__enter__", self._after_mock(enter))

    def _after_monkeypatch(self, orig, notset):
        note = self.note

        def patched(mp, *args, **kwargs):
            n = _len(mp._setattr)
            out = orig(mp, *args, **kwargs)
            if _len(mp._setattr) > n:
                cls, name, before = mp._setattr[-1]
                note(cls, name, _MISSING if before is notset else before)
            return out
        patched.__wrapped__ = orig
        return patched

    def _after_mock(self, orig):
        note = self.note

        def enter(p):
            out = orig(p)
            cls = getattr(p, "target", None)
            if _isinstance(cls, type):
                note(cls, p.attribute, p.temp_original if p.is_local else _MISSING)
            return out
        enter.__wrapped__ = orig
        return enter


_setattr_builtin = setattr
_CLASS_PATCHES: list = [None]


def watch_class_patches() -> ClassPatches:
    """(driver, before pytest starts) Start carrying the test's patchers' changes of the interpreter's classes."""
    if _CLASS_PATCHES[0] is None:
        cp = ClassPatches()
        cp.wrap()
        _CLASS_PATCHES[0] = cp
    return _CLASS_PATCHES[0]


# -- the modules the test puts in sys.modules -----------------------------------------------------------
# Under plain pytest ``sys.modules`` is one dict: a module the test stubs there (``monkeypatch.setitem(sys.modules,
# "subprocess", fake)``, ``mock.patch.dict(sys.modules, ...)``, an assignment) is what the tree's next ``import`` of that
# name gets. The rule: **an entry of the driver's ``sys.modules`` that no import made (a value that is not a module
# whose ``__spec__`` names it, with a loader, nor a module of the tree's) is the subject's entry of that name for the
# tree's own imports, the test's object crossing as itself (a handle: its members are read and called in the
# driver), and is put back when the test's entry goes; a driver module crosses by name only when it is such an import
# (``_by_name``), else as itself.** Seen at every request at the cost of one read of the dict's version tag
# (``ModuleStubs``); the subject's guard of ``sys.modules`` takes the carried entries as the driver's
# (``Peer._apply_stubs``). A removal of a tree module (``monkeypatch.delitem(sys.modules, "pkg")``, to make the tree
# import afresh) is carried too, and so is the proxy of its re-import (``IMPORT_STATE_RULE``). Open: a file of the
# test's loaded under a module's name with its own spec reads as an import.
def _by_name(x) -> bool:
    """(driver) Whether a module crosses by its name (the receiver's own module of that name): it is an import's
    (``__spec__`` names it, with a loader) and is that name's entry in ``sys.modules``, or a tree module's proxy."""
    if _isinstance(x, ProxyModuleBase):
        return True
    try:
        d = _MODULE_DICT(x)
    except TypeError:
        return False
    name, spec = d.get("__name__"), d.get("__spec__")
    return _type(name) is str and _type(spec) is _SPEC_TYPE and spec.name == name and spec.loader is not None and \
        _sys.modules.get(name) is x


def _stub_module(x) -> bool:
    """(driver) A module the test made (``ModuleStubs``): no import's, nor pytest's or the harness's own. The subject
    may read its public attributes as it reads a SimpleNamespace's (``_driver_policy``)."""
    try:
        name = _MODULE_DICT(x).get("__name__")
    except TypeError:
        return False
    top = name.partition(".")[0] if _type(name) is str else ""
    return not _by_name(x) and top not in _HARNESS_PACKAGES and not top.startswith("_hx")


_PLAIN_SCALARS = (str, int, float, bool, type(None))


def _is_stub(x) -> bool:
    """(driver) Whether ``x`` is one of the test's ``sys.modules`` entries as last carried to the subject
    (``ModuleStubs``), by identity, and no stand-in of the tree's."""
    stubs = _STUBS[0]
    if stubs is None or _isinstance(_type(x), RemoteMeta) or getattr(_type(x), "_hx_private", False):
        return False
    return any(v is x for v in stubs.sent.values())


def _stub_read(target, name: str) -> bool:
    """(driver, ``Peer.policy``) A read of a name starting with "_" on one of the test's ``sys.modules`` stubs, as
    the import system makes it (``__path__`` for a from-import, ``__spec__``, ``__name__`` for ``import a.b as c``'s
    fallback) and ``hasattr`` does: an entry of the stub's own ``__dict__`` that is plain data (None, a str, a number,
    a list or tuple of str) is handed over (True); a name the stub does not have raises AttributeError, as the module
    itself (or a Mock, for a dunder it does not support) raises it under plain pytest; anything else is left to
    ``_driver_policy`` (False): refused, and a fault (``Peer.policy``)."""
    if not _is_stub(target):
        return False
    try:
        own = object.__getattribute__(target, "__dict__")
    except (AttributeError, TypeError):
        own = None
    if _type(own) is dict and name in own and name != "__builtins__":
        v = own[name]
        return _type(v) in _PLAIN_SCALARS or (_type(v) in (list, tuple) and all(_type(i) is str for i in v))
    if _isinstance(target, _types.ModuleType):
        if hasattr(_types.ModuleType, name) or (_type(own) is dict and "__getattr__" in own):
            return False
        raise AttributeError(f"module {str(own.get('__name__', '?') if _type(own) is dict else '?')!r} has no "
                             f"attribute {name!r}")
    if name.startswith("__") and name.endswith("__") and not hasattr(_type(target), name):
        try:
            getattr(target, name)  # (a Mock raises AttributeError for a dunder it does not support)
        except AttributeError:
            raise AttributeError(name) from None
    return False


def _version_tag():
    """``sys.modules``' version tag (CPython 3.11's ``ma_version_tag``: every change of the dict gives it a new one),
    read through ctypes after checking the layout on the dict itself (its ``ma_used`` is its size, and a change
    moves the tag); None where that does not hold (``ModuleStubs`` then compares the entries at every request)."""
    if _sys.version_info[:2] != (3, 11) or _sys.implementation.name != "cpython":
        return None
    try:
        import ctypes
        mods = _sys.modules
        used = ctypes.c_ssize_t.from_address(id(mods) + 16)
        tag = ctypes.c_uint64.from_address(id(mods) + 24)
        if used.value != _len(mods):
            return None
        v0 = tag.value
        mods["_hx_version_probe"] = None
        v1 = tag.value
        del mods["_hx_version_probe"]
        return tag if v0 != v1 != tag.value and used.value == _len(mods) else None
    except Exception:  # noqa: BLE001 - no tag: the entries are compared instead
        return None


class ModuleStubs:
    """(driver) The entries of ``sys.modules`` no import made (the section's comment above); ``pending`` the set
    [[name, handle], ...] to send when it changed since the last send, else None."""

    def __init__(self):
        self.tag = _version_tag()
        self.seen = None  # the version tag when last read (None: read the entries)
        self.imports: dict = dict(_sys.modules)  # name -> the value an import (or the run before any test) put there
        self.proxied: dict = {}  # name -> the first proxy of the tree's module of that name (``_stubs``)
        self.sent: dict = {}  # name -> the stub last sent
        # what the driver's own imports put in ``sys.modules`` under the loaded name or a name below it (``_Loads``,
        # the subject's rule): ``typing.io`` when ``typing`` is first imported, ``pyexpat.errors``, pytest's
        # ``py.path`` are an import's, never the test's stub (carried, they made the driver's modules reachable from
        # the subject); a test file's own ``sys.modules['x'] = fake`` is under no loaded name: the test's
        self.loads = import_record()

    def _stubs(self) -> dict:
        out = {}
        imports = self.imports
        if self.loads is not None and self.loads.loaded:
            imports.update(self.loads.take())
        mods = _sys.modules
        proxied = self.proxied
        for k, v in list(mods.items()):
            if v is None or imports.get(k, _MISSING) is v or _type(k) is not str or k.startswith("_hx") or \
                    k in _OWN_MAIN:
                continue  # (None: an import blocked, synced with the process state; each process's own ``__main__``)
            if _isinstance(v, ProxyModuleBase):  # (a module of the tree's, never in ``imports``: ``IMPORT_STATE_RULE``)
                first = proxied.setdefault(k, v)
                if v is not first:  # imported afresh: the subject's module of this import (being imported: none yet)
                    out[k] = v if module_ref(v) is not None else _REMOVED
                continue
            if _by_name(v) and getattr(v, "__name__", None) == k:  # (an import's, under its own name)
                imports[k] = v
                continue
            out[k] = v
        for k in proxied:
            if k not in mods:  # (the test removed the tree's module: the tree's next import of it executes it afresh)
                out[k] = _REMOVED
        return out

    def pending(self) -> dict | None:
        tag = self.tag
        if tag is not None:
            v = tag.value
            if v == self.seen:
                return None
            self.seen = v
        now = self._stubs()
        sent = self.sent
        if _len(now) == _len(sent) and all(sent.get(k, _MISSING) is v for k, v in now.items()):
            return None
        self.sent = now
        return now


_STUBS: list = [None]
_REMOVED = object()  # (``ModuleStubs``: a module of the tree's the test removed from sys.modules; 0 on the wire)
_OWN_MAIN = frozenset({"__main__", "__mp_main__"})


def watch_module_stubs() -> ModuleStubs:
    """(driver, before pytest starts) Start carrying the test's ``sys.modules`` entries to the subject."""
    if _STUBS[0] is None:
        _STUBS[0] = ModuleStubs()
    return _STUBS[0]


# -- one process, two interpreters: the state a test acts on, synced at every message ------------------
# Under plain pytest the test and the code under test share one process: what a fixture does to it
# (``monkeypatch.setenv``/``chdir``, a patched ``sys.argv``, ``caplog.set_level``, the umask, ``time.tzset``)
# is what the code sees, and what the code does to it the test sees. Here they are two processes, so
# every message carries the sender's changes since the last message (``ProcState``): the driver's
# before each request (the code under test runs with what the test arranged), the subject's with each
# reply (the test sees what the code did). The subject's log records travel with its messages too and
# are handled by the driver's loggers (caplog's handler is there). Nothing of this is a verdict: it is
# what the tree could do to the test's process under plain pytest, applied to the driver's, and the
# driver takes only strings and numbers of it.
import logging as _logging  # noqa: E402 - this section's own import
import time as _time  # noqa: E402

_ENV = _os.environ
_getcwd, _chdir, _umask, _tzset, _fstat = _os.getcwd, _os.chdir, _os.umask, _time.tzset, _os.fstat
import _locale  # noqa: E402

_SETLOCALE = _locale.setlocale
_LC = tuple(getattr(_locale, n) for n in ("LC_CTYPE", "LC_NUMERIC", "LC_TIME", "LC_COLLATE", "LC_MONETARY", "LC_MESSAGES")
            if hasattr(_locale, n))


def _locale_now() -> list:
    """The C library's locale (``lc``), every ``LC_*`` category as ``setlocale(cat, NULL)`` answers (``KERNEL_RULE``)."""
    out: list = []
    for c in _LC:
        try:
            out.append(_SETLOCALE(c))
        except Exception:  # noqa: BLE001 - unreadable: sent as such
            out.append(None)
    return out


def _apply_locale(lc) -> None:
    """The peer's locale, each category that differs set here; one this side refuses is left (``ProcState._check``)."""
    if lc is None:
        return
    if _type(lc) is not list or _len(lc) != _len(_LC) or not all(_type(v) is str or v is None for v in lc):
        raise RemoteError("a malformed locale")
    for c, v, now in zip(_LC, lc, _locale_now()):
        if v is not None and v != now:
            try:
                _SETLOCALE(c, v)
            except Exception:  # noqa: BLE001 - a locale this side lacks: a fault (``_check``)
                pass


_LOCALTIME = _time.localtime
_ZONE_AT = (1767225600, 1782864000)  # 2026-01-01 and 2026-07-01 (UTC): the zone's winter and summer offsets


def _zone() -> list:
    """The time zone (``tz``): ``time``'s copy of it (``tzname``, ``timezone``, ``altzone``, ``daylight``, set by
    ``time.tzset``) and the C library's own, read at its source: ``localtime_r``'s offset and name at two dates, which
    follow the zone libc's last ``tzset`` left (``KERNEL_RULE``), whatever ``TZ`` says now."""
    out = [*_time.tzname, _time.timezone, _time.altzone, _time.daylight]
    for t in _ZONE_AT:
        tm = _LOCALTIME(t)
        out += [tm.tm_gmtoff, tm.tm_zone]
    return out
_LOG_MANAGER, _LOG_ROOT, _Logger, _PlaceHolder = _logging.Logger.manager, _logging.root, _logging.Logger, _logging.PlaceHolder
_LOGGER_SET_LEVEL, _LOGGER_HANDLE, _GET_LOGGER = _logging.Logger.setLevel, _logging.Logger.handle, _logging.getLogger
_MAKE_RECORD, _DISABLE, _FORMAT_EXC = _logging.makeLogRecord, _logging.disable, _logging.Formatter().formatException
_RECORD_FIELDS = {"name": str, "msg": str, "levelno": int, "levelname": str, "pathname": str, "filename": str,
                  "module": str, "lineno": int, "funcName": str, "created": float, "msecs": float,
                  "relativeCreated": float, "thread": int, "threadName": str, "processName": str, "process": int,
                  "exc_text": str, "stack_info": str}
_RECORD_ATTRS = frozenset(dir(_logging.LogRecord("", 0, "", 0, "", None, None)))
_LT_ATTRS = _operator.attrgetter("level", "propagate", "disabled", "name", "parent")
_LX_FILTERS, _LX_HANDLERS = _operator.attrgetter("filters"), _operator.attrgetter("handlers")
_ORIG_RECORD_FACTORY, _ORIG_LOGGER_CLASS = _logging.getLogRecordFactory(), _logging.getLoggerClass()
_LOGGING_NS = _vars(_logging)
_ORIG_LEVEL_NAMES = dict(_logging._levelToName)  # (bound before any code under test: ``LOG_ROUTE_RULE``)
_LOG_LOG = _logging.Logger._log  # logging's own, before the driver routes the test's records (``route_test_logs``)
_NO_LX: list = [0, []]  # (the driver's ``lx``: its logging is never the one that decides)
_RELAYED_OWN = frozenset({"msg", "args", "exc_info"})  # a relayed record's fields ``_Forwarder._fields`` sends
_LOGGER_KEYS = frozenset(_vars(_logging.Logger("hx")))  # a logger's own instance fields
_LOGGER_OWN = _LOGGER_KEYS | {"manager"}  # (and the one ``Manager.getLogger`` sets on each: ``LOGGER_PATCH_RULE``)
MAX_LOGGERS = 4096  # new logger names per message; more are a fault (a flood, not a tree's loggers)
MAX_RECORDS = 10_000  # per message; more are dropped (a flood, not a test's records)


import _signal  # noqa: E402
import gc as _gc  # noqa: E402
import random as _random  # noqa: E402
import re as _re  # noqa: E402

SYNCED, GUARDED, OPEN = "synced", "guarded", "open"


class StateItem(_collections.namedtuple("StateItem", "key name rule why")):
    """One item of the interpreter state the test and the tree share under plain pytest (``PROCESS_STATE``):
    ``key`` on the wire (a synced item's in ``ps``; "" for one that never travels), ``name`` as
    docs/judge.md's "One process state" lists it, ``rule`` (SYNCED, GUARDED or OPEN) and why."""


# The closed inventory of the process state the test and the tree share under plain pytest, and what the judge
# does with each (docs/judge.md "One process state"; tests/harness/judge/test_subject_rpc.py checks the two agree).
# SYNCED: plain data, carried with every message both ways when it changed (``ProcState.snap``/``_apply``), the
# driver's replacing the fresh subject's on the first message. GUARDED: it cannot be carried (it holds objects of one
# process); a change the tree makes, seen at its next reply, is a fault (``ProcState.guard``): the test fails, never
# passes on the stale other side. OPEN: neither yet (named so that a reader knows it is not covered).
PROCESS_STATE: tuple = (
    StateItem("env", "os.environ", SYNCED, "strings; the whole environment on the first message"),
    StateItem("ce", "C environment", SYNCED, "the C environment a child process inherits, read in the subject at "
              "its source (libc's ``environ``, ``_CEnviron``: libc ``setenv`` through ctypes, ``os.environ._data`` "
              "written directly, ``os.putenv``) where it differs from os.environ; applied by the driver with "
              "os.putenv/os.unsetenv after os.environ (the subject's side only: the test's own libc calls are not read)"),
    StateItem("cwd", "working directory", SYNCED, "a path"),
    StateItem("um", "umask", SYNCED, "an int"),
    StateItem("argv", "sys.argv", SYNCED, "strings"),
    StateItem("lv", "logging levels", SYNCED, "ints by logger name"),
    StateItem("ld", "logging.disable", SYNCED, "an int"),
    StateItem("ln", "which loggers exist", SYNCED, "names (``logging.getLogger`` in the peer: the test's ``dictConfig`` "
              "disables the tree's loggers as it does under plain pytest); names are never removed (the tree's removal, "
              "renaming or aliasing of an entry, or a parent set by hand, is a fault: ``LOG_ROUTE_RULE``)"),
    StateItem("lx", "logger class, record factory, level names, loggers' filters and handlers", SYNCED,
              "code of the subject's: which of them the tree has of its own (flags and logger names, read at every "
              "message): the test's records that cross them are made and handled in the subject (``LOG_ROUTE_RULE``)"),
    StateItem("lt", "logger propagate and disabled", SYNCED, "two bits by logger name; with the levels read by a walk "
              "of the logger tree at every message (``_log_fp``), so a direct assignment is seen (``LOG_TREE_RULE``)"),
    StateItem("tz", "time zone", SYNCED, "``time``'s copy and the C library's own zone (``localtime_r`` at two dates, "
              "``_zone``); ``time.tzset`` when the sender's changed, and a receiver whose ``tzset`` does not give the "
              "sender's zone faults (``KERNEL_RULE``)"),
    StateItem("lc", "locale", SYNCED, "strings: the C library's every ``LC_*`` category (``setlocale(cat, NULL)``); one the "
              "receiver refuses faults (``KERNEL_RULE``)"),
    StateItem("sp", "sys.path", SYNCED, "strings (the driver's own runtime directory aside, as on the first message)"),
    StateItem("rs", "random", SYNCED, "the random module's global generator, ``random.getstate()``: ints"),
    StateItem("dc", "decimal context", SYNCED, "the current context's prec, rounding, Emin, Emax, capitals, clamp, "
              "flags and traps (its C repr: numbers and names)"),
    StateItem("dd", "decimal.DefaultContext", SYNCED, "the template a new thread's context is copied from, the object "
              "``_decimal`` holds (a rebound module attribute is not it), as the current context's fields"),
    StateItem("wa", "warning filters", SYNCED, "the tree's ``simplefilter``/``filterwarnings`` during a call, when "
              "its category is a builtin warning or an installed library's (``_library_category``: numpy's import "
              "filters its ``RankWarning``); the driver's reach the subject as ``wf``, ``Peer.request``"),
    StateItem("mn", "sys.modules entries set to None", SYNCED, "names (an import the test or the tree blocks: "
              "``sys.modules['old_dep'] = None``); read again when the number of entries changed, or, in the subject, "
              "when any entry did (``guard``)"),
    StateItem("rl", "sys.setrecursionlimit", SYNCED, "an int"),
    StateItem("im", "sys.set_int_max_str_digits", SYNCED, "an int"),
    StateItem("si", "sys.setswitchinterval", SYNCED, "a float"),
    StateItem("gc", "gc.enable/gc.disable/gc.set_threshold", SYNCED, "a bool and ints"),
    StateItem("st", "socket.setdefaulttimeout", SYNCED, "a float or None"),
    StateItem("ts", "threading.stack_size", SYNCED, "an int (a tree setting it for its deep recursion's thread, as the "
              "test's own threads would get it under plain pytest)"),
    StateItem("eh", "codec error handlers", SYNCED, "a handler the tree registers (``codecs.register_error``, read in "
              "the interpreter's own dict), registered in the driver under its name as a stand-in of the tree's function; "
              "a builtin handler's name replaced is a fault (``CENSUS_RULE``)"),
    StateItem("ar", "ABC registrations", SYNCED, "a class the tree registers with an ABC of the interpreter's, registered "
              "with the driver's same ABC (named by identity) as the driver's class or stand-ins of it; a registration "
              "not made through ``ABCMeta.register`` (``abc.get_cache_token`` moved otherwise) is a fault (``CENSUS_RULE``)"),
    StateItem("", "warning filters of a tree category", GUARDED, "a class of the tree, which the driver does not have"
              " (and ``warnings.resetwarnings`` or filters removed)"),
    StateItem("", "sys.modules", GUARDED, "modules are objects: an entry added, replaced or removed that is not the value "
              "a load of the import system left under that name or, within that load, one below it (``_Loads``), nor the "
              "name's value at an earlier reply, is a fault, whatever the value calls itself; the interpreter's modules "
              "the tree's imports add are imported by the driver too (``IMPORT_STATE_RULE``)"),
    StateItem("", "gc.callbacks", GUARDED, "functions of one process (the list the collector calls)"),
    StateItem("", "codec search functions", GUARDED, "functions of one process (``codecs.register``; the interpreter's "
              "own list, found once)"),
    StateItem("", "sys.path entries that are not str", GUARDED, "objects (a ``Path``); an import ignores them, a test "
              "reading ``sys.path`` does not"),
    StateItem("", "sys.meta_path/sys.path_hooks", GUARDED, "finders of one process (an installed library's own import "
              "adding one is the library's: ``_Loads.load``, as for every registry here)"),
    StateItem("", "copyreg.dispatch_table", GUARDED, "reducers of one process (``copyreg.pickle``)"),
    StateItem("", "os.register_at_fork handlers", GUARDED, "functions of one process (the interpreter's three lists, found "
              "once before the tree runs: ``CENSUS_RULE``)"),
    StateItem("", "sys.path_importer_cache and the finders an import goes through", GUARDED, "finders of one process: an "
              "entry not of the interpreter's classes for its own path, or an import made through a finder or path hook "
              "of the tree's (one added and removed within a call included), is a fault (``CENSUS_RULE``)"),
    StateItem("", "members of the interpreter's classes", GUARDED, "a class of the interpreter's files whose dict the tree "
              "changed (its version tag read at each reply; an installed library's own load and the test's patches "
              "aside); a member set to plain data crosses instead (``cm``, set on the driver's same class; "
              "``CENSUS_RULE``)"),
    StateItem("", "bindings of the interpreter's modules and the dicts bound there", GUARDED, "every name in the "
              "namespace of a module of the interpreter's (``sys``, ``builtins`` included) and every entry of a dict bound "
              "there, by version tag at each reply: a change to plain data crosses (``mg``, set in the driver's same "
              "module), a submodule bound by the import system or a lazy cache of the library's own is accepted, any "
              "other is a fault (``MODULE_STATE_RULE``)"),
    StateItem("", "the census (tracemalloc, gc debug flags and freeze, async generator hooks, coroutine "
              "origin tracking, nice value, dlopen flags, audit hooks)", GUARDED, "read by the stdlib's own getters at "
              "each reply (``CENSUS_RULE``)"),
    StateItem("", "what the kernel and the C runtime keep per process or thread (interval timers, resource limits, "
              "signal mask and dispositions, signal wakeup fd, scheduling policy and affinity, credentials, "
              "process group and session, capabilities, seccomp, the descriptor table, faulthandler, threading's "
              "profile and trace hooks)", GUARDED, "read at its source at each reply (``KERNEL_RULE``)"),
    StateItem("", "atexit callbacks", OPEN, "functions of one process, run at the subject's exit: a tree that registers "
              "one at its import or in a call is common and honest, so a test's ``atexit._ncallbacks()`` reads the "
              "driver's count"),
    StateItem("", "signal handlers", GUARDED, "a handler is an object of one process (and the driver's SIGALRM and "
              "SIGTERM are the harness's and pytest-timeout's); the driver's own changes are not checked"),
    StateItem("", "root logger handlers", GUARDED, "handlers are objects; the subject's forwarder aside, put back "
              "at every call as pytest puts its handlers back for every test"),
    StateItem("", "sys.stdout/sys.stderr", GUARDED, "the tree's replacement of its streams (the subject's are the "
              "capture the driver replays, capsys); a replacement undone before the reply is not seen"),
    StateItem("", "sys.stdin", GUARDED, "the subject's is pytest's capture's (``DontReadFromInput``: every read an "
              "OSError), over an empty pipe at descriptor 0 as pytest's /dev/null; the tree's replacement is not seen"),
    StateItem("", "attributes of standard-library modules", OPEN, "the test's own assignment in the driver (``time.time "
              "= f`` in the test's file crosses; ``vars(time)['time'] = f`` or a registry call of the test's does not: "
              "\"What the test patches\"); the tree's are guarded above"),
    StateItem("", "sys.excepthook, threading.excepthook", OPEN, "not yet in the inventory"),
)
_FIELD_NAMES = {i.key: i.name for i in PROCESS_STATE if i.key}
_GC_SET = (_gc.enable, _gc.disable, _gc.set_threshold, _gc.isenabled, _gc.get_threshold)
_RANDOM = _random._inst  # the module-level functions' generator, bound before the tree can replace it
_RANDOM_GET, _RANDOM_SET = _random.Random.getstate, _random.Random.setstate
_CTX_REPR, _CTX_TYPE, _GETCONTEXT = _decimal.Context.__repr__, _decimal.Context, _decimal.getcontext
_CTX_FIELDS = _re.compile(r"(\w+)=(\[[^\]]*\]|[^,)]*)")
_CTX_INTS = {"prec": "prec", "Emin": "Emin", "Emax": "Emax", "capitals": "capitals", "clamp": "clamp"}
_SIGNALS = tuple(s for s in _signal.valid_signals() if 0 < s < 65)
_GETSIGNAL = _signal.getsignal
_BUILTIN_WARNINGS = {k: v for k, v in _vars(_builtins).items() if _isinstance(v, type) and issubclass(v, Warning)}
_MODULE_DICT = _vars(_types.ModuleType)["__dict__"].__get__
_SPEC_TYPE = type(_os.__spec__)
_ADD_AUDIT_HOOK = _sys.addaudithook
_is_ = _operator.is_


def _out_sizes() -> tuple:
    """The sizes of descriptors 1 and 2 (the subject's are append-only files the driver relays)."""
    held = _IO["held"]
    out = []
    for fd in (1, 2):
        try:
            out.append(held.size(fd) if held is not None else _fstat(fd).st_size)
        except OSError:
            out.append(-1)
    return tuple(out)


def _cwd() -> str:
    held = _IO["held"]
    return held.cwd() if held is not None else _getcwd()


def _is_str_map(d) -> bool:
    return _type(d) is dict and all(_type(k) is str and (_type(v) is str or v is None) for k, v in d.items())


class ProcState:
    """One side's view of the process state both sides share (``PROCESS_STATE``, the inventory above).
    ``outgoing`` adds the changes of the SYNCED items since the last message to a message (``ps``; ``full``
    on the first one, which replaces the receiver's environment: the driver's state wins over the fresh
    subject's), ``incoming`` applies the peer's. A synced item the receiver cannot take (a recursion limit
    below its depth, a decimal context it refuses) is a fault there. In the subject, every reply also checks
    the GUARDED items (``guard``): a change of the tree's since its last reply is a fault (``faults``, sent
    as ``pf``). The subject relays every log record at the logger it was logged on (``lg``,
    ``_relay_call_handlers``); the driver hands each to its own logger of that name (``LOG_TREE_RULE``)."""

    ml_out: list  # subject, to cross: the interpreter's modules the tree's imports loaded (``ml``)
    mg_out: list  # subject, to cross: plain values the tree set in the interpreter's modules (``mg``, MODULE_STATE_RULE)

    def __init__(self, side: str, peer: "Peer | None" = None, skip=None):
        self.side, self.peer = side, peer  # ``peer``: a record's args and exception cross through its encoding
        self.last: dict | None = None
        self.raw: dict | None = None
        self.records: list = []
        self.faults: list = []  # faults found here (a guarded change, a synced item not applied): the test fails
        self.forwarder: _Forwarder | None = None
        self.log_fp: tuple | None = None  # the logger tree as the last snapshot read it (``_log_fp``)
        self.lt_vals: list = []  # ``loggerDict``'s values at the last walk, and the loggers among them
        self.lt_loggers: list = []
        self.lt_gen = 0
        self.shape_seen: set = set()  # (subject) the changes of the logger tree's shape faulted (``_log_shape``)
        self.fp_now: tuple | None = None  # (subject) the walk ``guard`` made for this reply's ``snap``
        self.relay_key: list | None = None  # (subject) what ``_relay_ok`` last read in full, and what it found
        self.relay_types: set = set()
        self.relay_intact = True
        self.skip = skip  # driver: whether a ``sys.path`` entry is its own runtime's (never the subject's)
        self.skipped: dict = {}
        self.filters_out: list = []  # subject: the tree's warning filters to send (``_Warnings``, ``tree_filters``)
        self.puts: dict = {}  # subject: os.putenv/os.unsetenv since the last message (the audit hook)
        self.imports: set = set()  # subject: names an import statement loaded since the last reply
        self.g: dict | None = None  # subject: the guarded items at its last reply (``guard``)
        self.mn_len = -1  # the size of ``sys.modules`` when its None entries were last read (``_blocked``)
        self.cenv: _CEnviron | None = None  # subject: the C environment read at its source (``_c_env``)
        self.codecs: list | None = None  # subject: the interpreter's codec search functions (``_registries``)
        self.hooks: list = []  # subject: the audit hooks added (``_state_hook``; ``CENSUS_RULE``)
        self.census: list = []  # subject: the census as the last reply read it (``census``)
        self.frost: list | None = None  # subject: the witness of a gc.freeze since the last reply (``froze_since``)
        self.errs: dict | None = None  # subject: the codec error handlers' dict (``codec_error_registry``)
        self.err_seen: dict = {}
        self.eh_out: dict = {}  # subject: codec error handlers the tree registered, to cross (``eh``)
        self.ar_out: list = []  # subject: ABC registrations of the tree's, to cross (``ar``)
        self.abc_tok = None  # subject: ``abc.get_cache_token()`` at the last reply
        self.abc_named: dict = {}  # subject: a class of the tree's it registered with an ABC, by its name
        self.cm_out: list = []  # subject: plain members the tree set on the interpreter's classes, to cross (``cm``)
        self.ml_out, self.mg_out = [], []
        if side == "subject":
            self._subject_start(peer)

    def _subject_start(self, peer) -> None:
        """The subject's state before any code of the tree runs: what each rule compares a reply against."""
        self.forwarder = _Forwarder(self.records, peer)
        self._ensure_forwarder()
        self.cenv = _c_environ()
        self.codecs = SOURCES["codecs"] if "codecs" in SOURCES else codec_search_path()
        if not _FORKS and _type(SOURCES.get("forks")) is list:
            _FORKS[:] = SOURCES["forks"]
        errs = SOURCES["errors"] if "errors" in SOURCES else codec_error_registry()
        self.errs = errs if _isinstance(errs, dict) and _type(errs) is dict else None
        self.err_seen = dict(self.errs) if self.errs is not None else {}
        self.census = census(self.hooks, True)
        self.frost = frost_witness()
        self.kernel: KernelState | None = KernelState()  # (``KERNEL_RULE``)
        _KERNEL_STATE[:] = [self.kernel]
        self.abc_tok = _ABC_WATCH[0].token() if _ABC_WATCH else None
        _PIC_SEEN.update(_sys.path_importer_cache)  # (the entries before any code of the tree: the interpreter's)
        if _LOADS:
            _LOADS[0].codecs = self.codecs
        self.g = self._guarded()
        self.g["modmap"] = dict(_sys.modules) if _type(_sys.modules) is dict else {}
        if _LOADS:
            _LOADS[0].base = self.g["reg"]
            _LOADS[0].take()  # (the loads before the first request are the harness's: in ``modmap`` already)
        if not _HOOK:
            _ADD_AUDIT_HOOK(_state_hook(_HOOK))  # once per process (an audit hook cannot be removed)
        _HOOK[:] = [self.puts, self.imports, self.hooks]

    def _ensure_forwarder(self) -> None:
        """The forwarder on the subject's root logger at every call boundary, as pytest puts its
        handlers on the root logger for every test (a tree that cleared them at import)."""
        try:
            if self.forwarder is not None and self.forwarder not in _LOG_ROOT.handlers:
                _LOG_ROOT.addHandler(self.forwarder)
        except Exception:  # noqa: BLE001 - the tree replaced the list: its records are its own
            pass

    def snap(self, commit: bool = True) -> dict:
        """The state now. The environment and the log levels are read again only when they changed:
        the environment's raw dict compared with its copy at the last snapshot, the levels by a key this
        object puts in the root logger's level cache, which every ``setLevel`` and ``logging.disable``
        clears (``Manager._clear_cache``): a message costs microseconds, not a walk of every logger. An
        unchanged value is the last snapshot's own object (``outgoing`` compares by identity first)."""
        last = self.last
        data = getattr(_ENV, "_data", None)
        same_env = last is not None and _type(data) is dict and data == self.raw
        if same_env and last is not None:
            env = last["env"]
        else:
            env = {k: v for k, v in dict(_ENV).items() if _type(k) is str and _type(v) is str}
            if commit:
                self.raw = dict(data) if isinstance(data, dict) and _type(data) is dict else None
        fp, self.fp_now = self.fp_now or self._log_fp(), None
        if last is not None and fp is not None and fp == self.log_fp:
            lv, ld, ln, lt = last["lv"], last["ld"], last["ln"], last["lt"]
        else:
            lv, ld = self._levels(commit), _LOG_MANAGER.disable
            ln, lt = self._log_tree(commit)
            if commit:
                self.log_fp = fp
        lx = self._log_route() if self.side == "subject" else _NO_LX
        if last is not None and lx is not last["lx"] and lx == last["lx"]:
            lx = last["lx"]
        try:
            cwd = _cwd()
        except OSError:
            cwd = None
        um = _umask(0o022)
        _umask(um)
        argv = [a for a in _sys.argv if _type(a) is str] if _type(_sys.argv) is list else []
        tz = _zone()
        rs = _RANDOM_GET(_RANDOM) if commit or last is None else last["rs"]  # (``moved``: see there)
        out = {"env": env, "cwd": cwd, "um": um, "argv": argv, "lv": lv, "ld": ld, "ln": ln, "lt": lt, "lx": lx, "tz": tz,
               "sp": self._path(),
               "rs": rs, "dc": _CTX_REPR(_GETCONTEXT()), "dd": _CTX_REPR(_DEFAULT_CONTEXT), "rl": _sys.getrecursionlimit(),
               "im": _sys.get_int_max_str_digits(), "si": _switch_interval(self.peer),
               "gc": [_GC_SET[3](), *_GC_SET[4]()], "st": _socket_timeout(), "ts": _stack_size(),
               "mn": self._blocked(last), "lc": _locale_now()}
        if last is not None and rs is not last["rs"] and rs == last["rs"]:
            out["rs"] = last["rs"]
        return out

    def _blocked(self, last: dict | None) -> list:
        """The names ``sys.modules`` maps to None (imports blocked), read again only when its size changed
        since the last snapshot (``mn_len``; the subject's ``guard`` clears it when any entry changed)."""
        mods = _sys.modules
        if _type(mods) is not dict:
            return []
        n = _len(mods)
        if last is not None and n == self.mn_len:
            return last["mn"]
        self.mn_len = n
        return sorted(k for k, v in list(mods.items()) if v is None and _type(k) is str)

    def _path(self) -> list:
        """``sys.path``'s strings; in the driver, without its own runtime's directory (``skip``)."""
        p = _sys.path
        if _type(p) is not list:
            return []
        if self.skip is None:
            return [e for e in p if _type(e) is str]
        return [e for e in p if _type(e) is str and not self._skipped(e)]

    def _skipped(self, e: str) -> bool:
        s = self.skipped.get(e)
        if s is None:
            s = self.skipped[e] = self.skip is not None and bool(self.skip(e))
        return s

    def moved(self) -> list:
        """What of the state differs from the last message's (``last``), and whether a log record waits to
        go (``Peer._moved``), without touching what ``snap`` keeps for the next message (``commit``). The
        random generator is not read here (its state is the costliest item to read, at every message): a
        tree thread's draws between messages reach the driver with the next reply, not as a fault."""
        last = self.last
        if last is None:
            return []
        cur = self.snap(commit=False)
        out = [_FIELD_NAMES[k] for k, v in cur.items() if v is not last[k] and v != last[k]]
        if self.records:
            out.append("log records")
        if self.puts or self.cenv is not None and self.cenv.changed():
            out.append(_FIELD_NAMES["ce"])
        return out

    def _levels(self, commit: bool = True) -> dict:
        lv = {"": _LOG_ROOT.level}
        for name, lg in list(_LOG_MANAGER.loggerDict.items()):
            level = getattr(lg, "level", None) if _isinstance(lg, _Logger) else None
            if _type(name) is str and _type(level) is int and level:
                lv[name] = level
            elif _type(name) is str and level is not None and _type(level) is not int and commit:
                self.faults.append(f"a logger's level that is no int ({name[:60]}), which the other process cannot "
                                   "take (harness.judge.subject_rpc LOG_TREE_RULE)")
        return lv

    def _log_fp(self) -> tuple | None:
        """What of the logger tree decides a record's way, read at every message in C (``LOG_TREE_RULE``): the
        identity of every entry of ``loggerDict`` (a new logger, a placeholder replaced), each logger's level,
        ``propagate`` and ``disabled`` (assigned directly: no cache is cleared for these), the root's, and
        ``logging.disable``. None when it cannot be read (the tree is read in full)."""
        d = _LOG_MANAGER.loggerDict
        if _type(d) is not dict:
            return None
        vals = list(d.values())
        if _len(vals) != _len(self.lt_vals) or not all(map(_is_, vals, self.lt_vals)):
            self.lt_vals, self.lt_gen = vals, self.lt_gen + 1
            self.lt_loggers = [lg for lg in vals if _isinstance(lg, _Logger)]
        try:
            return (self.lt_gen, list(map(_LT_ATTRS, self.lt_loggers)), _LT_ATTRS(_LOG_ROOT), _LOG_MANAGER.disable)
        except Exception:  # noqa: BLE001 - a logger without one of them: read in full
            return None

    def _log_route(self) -> list:
        """(subject, every message) What of the subject's logging a record passes through that the driver's cannot
        reproduce (``LOG_ROUTE_RULE``): [flags, names]: 1 the record factory, 2 the logger class, 4 the level names
        are not logging's own; the names of the loggers with a filter or a handler of the tree's ("" the root's
        filters; its handlers are guarded). Read in C over the loggers ``_log_fp`` keeps (``lt_loggers``)."""
        ns = _LOGGING_NS
        flags = (ns.get("_logRecordFactory") is not _ORIG_RECORD_FACTORY) \
            | (ns.get("_loggerClass") is not _ORIG_LOGGER_CLASS or _vars(_LOG_MANAGER).get("loggerClass") is not None) << 1 \
            | (ns.get("_levelToName") != _ORIG_LEVEL_NAMES) << 2
        loggers = self.lt_loggers
        names: list = []
        try:
            if any(map(_LX_FILTERS, loggers)) or any(map(_LX_HANDLERS, loggers)) or _LOG_ROOT.filters:
                names = sorted({lg.name for lg in loggers if (lg.filters or lg.handlers) and _type(lg.name) is str}
                               | ({""} if _LOG_ROOT.filters else set()))
        except Exception:  # noqa: BLE001 - a logger without them: every record of the test's is routed
            flags |= 8
        return [flags, names] if flags or names else _NO_LX

    def _relay_ok(self) -> bool:
        """(subject, ``guard``) ``_relay_intact``, read in full only when a logger was made or one's ``__dict__``
        changed size (compared in C); the classes' ``callHandlers`` every time (a handful of classes)."""
        self.fp_now = fp = self._log_fp()  # (``snap`` of this reply takes it: one walk per message)
        if fp is None:
            return False
        try:
            key = [self.lt_gen, *map(_len, map(_vars, self.lt_loggers)), _len(_vars(_LOG_ROOT))]
        except Exception:  # noqa: BLE001 - a logger without a __dict__: read in full
            key = None
        if key is None or key != self.relay_key:
            self.relay_key = key
            self.relay_types = {_type(lg) for lg in self.lt_loggers} | {_Logger, _type(_LOG_ROOT)}
            self.relay_intact = _relay_intact(self.lt_loggers)
        return self.relay_intact and all(getattr(t, "callHandlers", None) is _relay_call_handlers
                                         for t in self.relay_types)

    def _log_tree(self, commit: bool) -> tuple:
        """The names of the loggers that exist (``ln``) and, by name ("" the root), the two bits of each whose
        ``propagate`` is false (1) or ``disabled`` true (2) (``lt``). A value of another type than bool or int is
        a fault (its truth would run code of one process only)."""
        names, lt = [], {}
        d = _LOG_MANAGER.loggerDict
        items = list(d.items()) if _type(d) is dict else []
        for name, lg in [("", _LOG_ROOT), *items]:
            if _type(name) is not str or not _isinstance(lg, _Logger):
                continue
            if name:
                names.append(name)
            flags = 0
            for bit, v, want in ((1, getattr(lg, "propagate", True), False), (2, getattr(lg, "disabled", False), True)):
                if _type(v) not in (bool, int) and v is not None:
                    if commit:
                        self.faults.append(f"a logger's propagate or disabled that is no bool ({name[:60]}), which the "
                                           "other process cannot take (harness.judge.subject_rpc LOG_TREE_RULE)")
                    continue
                if bool(v) is want:
                    flags |= bit
            if flags:
                lt[name] = flags
        if commit and self.side == "subject":
            self._log_shape(items)
        return names, lt

    def _log_shape(self, items: list) -> None:
        """(subject, when the logger tree changed) Its shape is shared by name (``LOG_ROUTE_RULE``): each entry of
        ``loggerDict`` a logger of that name or a placeholder, with the parent logging's manager gives it (the nearest
        registered ancestor, else the root), and never removed. A logger renamed, an entry aliased to another logger
        or removed, a parent set by hand is a fault: the driver's ``getLogger`` would not return what the test's
        does under plain pytest, nor its records take the tree's way up."""
        reg, bad = _LOG_MANAGER.loggerDict, []
        for key, lg in items:
            if _type(key) is not str or not _isinstance(lg, _Logger):
                continue
            if getattr(lg, "name", None) != key:
                bad.append(f"{key[:60]} (an entry whose logger is named otherwise)")
            elif getattr(lg, "parent", None) is not _natural_parent(key, reg):
                bad.append(f"{key[:60]} (a parent set by hand)")
        last = self.last
        if last is not None:
            bad += [f"{n[:60]} (removed)" for n in last["ln"] if not _isinstance(reg.get(n), _Logger)]
        for what in bad:
            if what not in self.shape_seen and _len(self.shape_seen) < 64:
                self.shape_seen.add(what)
                self.faults.append(f"the tree changed the shape of the logger tree: {what}, which the driver cannot "
                                   "share with the test (harness.judge.subject_rpc LOG_ROUTE_RULE)")

    def outgoing(self, msg: dict, capture=None) -> None:
        if self.forwarder is not None:
            self._ensure_forwarder()
            if self.records:
                msg["lg"] = self.records[:MAX_RECORDS]
                self.records.clear()
        if self.side == "subject" and "q" not in msg:  # a reply: the tree's call is done
            self.guard(capture)
        elif self.side == "subject":  # a call-out (the test's callback): what it reads of the modules is the tree's
            self._modules_at_call_out()
        cur = self.snap()
        last = self.last
        if last is None:
            delta = {**cur, "full": True}
        else:
            delta = {k: v for k, v in cur.items() if k not in ("env", "lv", "ln", "lt") and v is not last[k] and v != last[k]}
            if cur["ln"] is not last["ln"] or cur["lt"] is not last["lt"]:
                _log_tree_delta(cur, last, delta)
            if cur["env"] is not last["env"]:
                env = {k: v for k, v in cur["env"].items() if last["env"].get(k) != v}
                env.update({k: None for k in last["env"] if k not in cur["env"]})
                if env:
                    delta["env"] = env
            if cur["lv"] is not last["lv"]:
                lv = {k: v for k, v in cur["lv"].items() if last["lv"].get(k) != v}
                lv.update({k: 0 for k in last["lv"] if k not in cur["lv"]})
                if lv:
                    delta["lv"] = lv
        if self.side == "subject":
            ce = self._c_env(last is None or cur["env"] is not last["env"])
            if ce:
                delta["ce"] = ce
            if self.filters_out:
                delta["wa"] = self.filters_out[:256]
                self.filters_out.clear()
            if self.eh_out or self.ar_out:
                self._crossing_registrations(delta)
            if self.cm_out:
                delta["cm"], self.cm_out = self.cm_out, []
            if self.ml_out:
                delta["ml"], self.ml_out = self.ml_out[:MAX_CARRIED_IMPORTS], []
            if self.mg_out:
                delta["mg"], self.mg_out = self.mg_out, []
        if delta:
            msg["ps"] = delta
        self.last = cur

    def _import_carried(self, names) -> None:
        """(driver) The interpreter's modules the tree's imports loaded since its last reply (``ml``,
        ``IMPORT_STATE_RULE``), imported here too: under plain pytest the tree's import is in the test's
        ``sys.modules``. One that cannot be imported here is a fault."""
        if _type(names) is not list or not all(_type(n) is str for n in names):
            raise RemoteError("malformed carried imports")
        mods = _sys.modules
        for name in names[:MAX_CARRIED_IMPORTS]:
            if name in mods:
                continue
            try:
                with _warnings.catch_warnings():  # (a warning its import gives was the tree's, replayed already)
                    _warnings.simplefilter("ignore")
                    _import_module(name)
            except Exception as err:  # noqa: BLE001 - fail closed
                self.faults.append(f"the tree imported {name[:60]}, which the driver could not import into the test's "
                                   f"sys.modules ({_why(err)}; harness.judge.subject_rpc IMPORT_STATE_RULE)")

    def _c_env(self, env_moved: bool = True) -> dict:
        """(subject) The variables ``os.putenv``/``os.unsetenv`` set since the last message where the C
        environment (what a child process inherits) now differs from ``os.environ`` (whose own changes
        call them too, and agree): name -> value, None for unset."""
        out: dict = {}
        puts: dict = {}
        if self.puts:
            puts, env = dict(self.puts), _ENV
            self.puts.clear()
            for k, v in puts.items():
                if env.get(k) != v:
                    out[k] = v
        if self.cenv is not None:  # (the C environment itself: what no audit event shows, ``_CEnviron``)
            try:
                out.update(self.cenv.delta(puts, env_moved))
            except Exception:  # noqa: BLE001 - an environment the judge cannot read: fail closed
                self.faults.append("the subject's C environment could not be read (harness.judge.subject_rpc "
                                   "PROCESS_STATE: synced)")
        return out

    def _guarded(self, capture=None) -> dict:
        handlers = _LOG_ROOT.handlers
        mods = _sys.modules
        return {"sig": list(map(_GETSIGNAL, _SIGNALS)),
                "log": [h for h in handlers if h is not self.forwarder] if _type(handlers) is list else [handlers],
                "mods": list(mods.values()) if _type(mods) is dict else [mods], "modmap": None,
                "std": [_sys.stdout, _sys.stderr] if capture is None else list(capture),
                "reg": _registries(self.codecs)}

    def guard(self, capture=None) -> None:
        """(subject, at each reply) The GUARDED items of ``PROCESS_STATE``: what the tree changed of them since
        its last reply is a fault (``faults``), named once. Compared by identity, in C, unless one changed."""
        g = self.g
        if g is None:
            return
        if capture is not None and g.get("cap") is None:
            g["cap"], g["std"] = True, list(capture)  # the subject's streams are the capture from here on
        cur = self._guarded(None)
        found = []
        if not all(map(_is_, cur["sig"], g["sig"])):
            found.append("signal handlers")
        if _len(cur["log"]) != _len(g["log"]) or not all(map(_is_, cur["log"], g["log"])):
            found.append("root logger handlers")
        if not all(map(_is_, cur["std"], g["std"])):
            found.append("sys.stdout/sys.stderr")
        rec = _LOADS[0] if _LOADS else None
        base = rec.base if rec is not None and rec.base is not None else g["reg"]  # (a library's import: its own)
        for name, now, was in zip(_REGISTRY_NAMES, cur["reg"], base):
            if _len(now) != _len(was) or not all(map(_is_, now, was)):
                found.append(name)
        if rec is not None:
            rec.base = cur["reg"]
            if rec.faults:
                found += rec.faults[:4]
                rec.faults.clear()
        found += self._census_moved()
        if _LOG_RELAY[0] is not None and _LOG_RELAY[0] is self.forwarder:
            intact = self._relay_ok()
            if not intact and g.get("relay", True):  # (named once, as every guarded change)
                found.append("loggers' callHandlers (a record's way to the test's handlers)")
            g["relay"] = intact
        mods = cur["mods"]
        if _len(mods) != _len(g["mods"]) or not all(map(_is_, mods, g["mods"])):
            self.mn_len = -1  # (its None entries read again: ``_blocked``)
            bad = self._foreign_modules(g)
            if bad:
                found.append(f"sys.modules ({', '.join(bad[:3])})")
        self.imports.clear()
        for k in ("sig", "log", "std", "mods", "reg"):
            g[k] = cur[k]
        for what in found:
            self.faults.append(f"the tree changed the subject's {what}, which the driver cannot share with the test "
                               f"(harness.judge.subject_rpc PROCESS_STATE: guarded): plain pytest's test would see it")

    def _modules_at_call_out(self) -> None:
        """(subject, a call-out during the tree's call) ``MODULE_STATE_RULE`` as at a reply: the test's callback, run
        now in the driver, reads the interpreter's modules as the tree's call left them so far under plain pytest. The
        plain changes cross with this message (``mg``), any other is a fault, whatever the tree does after."""
        moved = library_modules_moved(sync=self.mg_out)
        if moved:
            self.faults.append(f"the tree changed the subject's bindings of the interpreter's modules ({', '.join(moved[:3])}; "
                               "MODULE_STATE_RULE), read by the test's callback, which the driver cannot share with the "
                               "test (harness.judge.subject_rpc PROCESS_STATE: guarded): plain pytest's test would see it")

    def _census_moved(self) -> list:
        """(subject, ``guard``) ``CENSUS_RULE``: the census items the tree changed since the last reply, an ABC
        registration not seen at ``ABCMeta.register``, a ``sys.path_importer_cache`` entry that is not the import
        system's, a builtin codec error handler replaced; the tree's codec error handlers and ABC registrations are
        kept to cross with this reply (``eh``, ``ar``)."""
        peer = self.peer
        local = peer is None or peer.server is None or _get_ident() == peer.server
        last, self.frost = self.frost, frost_witness()  # (made first: a freeze at any moment moves one of the two)
        now = census(self.hooks, local)
        frozen = now[_CENSUS_FROZEN]  # (none frozen: nothing to read, the common case costs nothing)
        froze = last is not None and _type(frozen) is int and frozen > 0 and froze_since(last)
        found = census_moved(now, self.census, froze)
        kernel = getattr(self, "kernel", None)
        if kernel is not None:
            found += kernel.moved(local, getattr(peer, "sched", None))
        moved = library_classes_moved(sync=self.cm_out)
        if moved:
            found.append(f"members of the interpreter's classes ({', '.join(moved[:3])})")
        moved = library_modules_moved(sync=self.mg_out)
        if moved:
            found.append(f"bindings of the interpreter's modules ({', '.join(moved[:3])}; MODULE_STATE_RULE)")
        aw = _ABC_WATCH[0] if _ABC_WATCH else None
        if aw is not None and self.abc_tok is not None:
            tok = aw.token()
            if tok - self.abc_tok != aw.seen:
                found.append("ABC registrations (one made without ABCMeta.register)")
            self.abc_tok, aw.seen = tok, 0
            if aw.new:
                self.ar_out += aw.new[:1_000]
                aw.new.clear()
        errs, seen = self.errs, self.err_seen
        if errs is not None and (_len(errs) != _len(seen) or not all(map(_is_, errs.values(), seen.values()))):
            for k, v in list(errs.items()):
                if seen.get(k) is not v:
                    if _type(k) is not str or k in BUILTIN_ERROR_HANDLERS or _len(self.eh_out) > 256:
                        found.append("codec error handlers (a builtin one replaced)")
                    else:
                        self.eh_out[k] = v
            self.err_seen = dict(errs)
        if not _importer_cache_faithful():
            found.append("sys.path_importer_cache (a finder the import system did not make)")
        return found

    def _crossing_registrations(self, delta: dict) -> None:
        """(subject, ``outgoing``) The tree's codec error handlers (``eh``: name -> the function, a stand-in in the
        driver) and ABC registrations (``ar``: the ABC by its module's name for it, the class as it crosses) of this
        reply (``CENSUS_RULE``). An ABC of the interpreter's that cannot be named is a fault; the tree's own ABC
        needs nothing (the driver's stand-in of it asks the subject)."""
        peer = self.peer
        if peer is None:
            self.eh_out.clear()
            self.ar_out.clear()
            return
        try:
            if self.eh_out:
                delta["eh"] = {k: peer.enc(v) for k, v in self.eh_out.items()}
            ar = []
            for cls, sub in self.ar_out:
                name = _named_library_class(cls)
                if name is None:
                    if _library_value(cls) or trusted_name(cls) is not None:
                        self.faults.append("the tree registered a class with an ABC of the interpreter's that the judge "
                                           "cannot name in the driver (harness.judge.subject_rpc CENSUS_RULE)")
                    continue
                if not _isinstance(sub, type):
                    continue
                meta = peer._cls_meta(sub)
                if meta.get("ws"):
                    self.abc_named[meta["n"]] = sub
                ar.append([name, meta])
            if ar:
                delta["ar"] = ar
        except Exception as exc:  # noqa: BLE001 - what cannot cross: fail closed
            self.faults.append(f"a codec error handler or ABC registration of the tree's could not cross ({_why(exc)}; "
                               "harness.judge.subject_rpc CENSUS_RULE)")
        self.eh_out, self.ar_out = {}, []

    def _apply_registrations(self, d: dict) -> None:
        """(driver) The tree's codec error handlers and ABC registrations (``_crossing_registrations``) made here."""
        eh, ar = d.get("eh"), d.get("ar")
        peer = self.peer
        if "cm" in d and self.side == "driver":
            _apply_class_members(d["cm"], self)
        if "mg" in d and self.side == "driver":
            _apply_module_state(d["mg"], self)
        if eh is None and ar is None or peer is None or self.side != "driver":
            return
        if eh is not None:
            if _type(eh) is not dict or not all(_type(k) is str for k in eh):
                raise RemoteError("malformed codec error handlers")
            import codecs
            for k, v in eh.items():
                h = peer.dec(v)
                if k in BUILTIN_ERROR_HANDLERS or not callable(h):
                    self.faults.append("a codec error handler of the tree's could not be registered here (harness.judge."
                                       "subject_rpc CENSUS_RULE)")
                    continue
                codecs.register_error(k, h)
        if ar is not None:
            if _type(ar) is not list or not all(_type(e) is list and _len(e) == 2 and _type(e[0]) is str
                                                and _type(e[1]) is dict for e in ar):
                raise RemoteError("malformed ABC registrations")
            import abc
            for name, meta in ar[:1_000]:
                target = _library_class_here(name)
                if meta.get("ws"):
                    n = str(meta.get("n", "?"))
                    klass = (meta["id"], peer) if _type(meta.get("id")) is int else None
                    subs = [peer.class_for(meta), _named(RemoteObject, n, True, True, klass),
                            _named(RemoteCallable, n, True, True, klass)]
                else:
                    c = _resolve_class(meta) if _type(meta.get("n")) is str else None
                    subs = [c] if _isinstance(c, type) else []
                if not _isinstance(target, abc.ABCMeta) or not subs:
                    self.faults.append("an ABC registration of the tree's could not be made here (harness.judge."
                                       "subject_rpc CENSUS_RULE)")
                    continue
                for c in subs:
                    target.register(c)

    def _foreign_modules(self, g: dict) -> list:
        """The ``sys.modules`` names added or replaced since the last reply whose value the import system did not
        put there. The rule: an entry is the import's only when it is the very value a load left under that name
        or under a name below the loaded one (``_Loads``, which wraps the one function every import goes
        through), or the value the name held at an earlier reply (a module put back); anything else is a fault,
        whatever the value calls itself: an existing module under a new name, a module built from a spec (even
        the real one's), a loaded module replaced after its import, a name rebound to another loaded module. An
        honest tree loading a file by hand (``module_from_spec`` and ``sys.modules[name] = m``) is refused too:
        stricter than plain pytest, never more lenient."""
        mods = _sys.modules
        old = g.get("modmap")  # name -> its value at the last reply (and a name since gone: its last value)
        if old is None:
            old = g["modmap"] = {}
        rec = _LOADS[0] if _LOADS else None
        loaded = rec.take() if rec is not None else {}
        for k, v in loaded.items():  # (the interpreter's modules among them reach the driver's sys.modules: ``ml``)
            if _len(self.ml_out) < MAX_CARRIED_IMPORTS and _carried_import(k, v):
                self.ml_out.append(k)
        was = g.setdefault("was", {})  # name -> the other values it held at earlier replies (a few)
        bad = []
        if _type(mods) is not dict:
            return ["replaced"]
        for k, v in list(mods.items()):
            prev = old.get(k)
            if v is None or prev is v:  # (None: an import blocked, synced)
                continue
            if prev is _GONE:
                prev = None
            if prev is not None and _len(was.setdefault(k, [])) < 8:
                was[k].append(prev)
            if loaded.get(k, _NOT_LOADED) is v or any(x is v for x in was.get(k, ())):
                continue
            if k == "__mp_main__" and v is mods.get("__main__") and "multiprocessing" in loaded:
                continue  # (multiprocessing's own load aliases ``__main__`` so, its __init__: red team atk16's pool)
            bad.append(str(k)[:60] if _type(k) is str else "?")
        old.update(mods)
        gone = g.get("gone", ())  # (the names of ``old`` not in ``sys.modules`` at the last reply: few)
        if _len(old) - _len(mods) > sum(1 for k in gone if k not in mods):  # (a name removed since: walk them all)
            gone = [k for k in old if k not in mods]  # (``IMPORT_STATE_RULE``: a removal is no state the driver shares)
            for k in gone:
                prev = old[k]
                if prev is not None and prev is not _GONE and not (_type(k) is str and k.startswith("_hx")):
                    old[k] = _GONE
                    bad.append(f"{str(k)[:60] if _type(k) is str else '?'} removed")
        g["gone"] = [k for k in gone if k not in mods]
        return bad

    def tree_filters(self, base: list, now: list) -> None:
        """(subject, ``_Warnings``) The warning filters the tree added during a call (``base`` as the call
        began, ``now`` as it ends, before ``catch_warnings`` puts them back), to send with the reply
        (``wa``): each in front (``simplefilter``/``filterwarnings``) or at the end (``append=True``). One
        whose category is no builtin warning, or filters removed (``resetwarnings``): a fault (guarded)."""
        def key(e):
            if _type(e) is not tuple or _len(e) != 5:
                return None
            a, m, c, mod, n = e
            return (a, m.pattern if _isinstance(m, _re.Pattern) else m, id(c), c,
                    mod.pattern if _isinstance(mod, _re.Pattern) else mod, n)
        bk, nk = [key(e) for e in base], [key(e) for e in now]
        for j in range(_len(nk) + 1):
            front = nk[:j]
            rest = [b for b in bk if b not in front]
            if nk[j:j + _len(rest)] == rest:
                back = nk[j + _len(rest):]
                break
        else:
            self.faults.append("the tree removed warning filters during a call (resetwarnings), which the driver "
                               "cannot share with the test (harness.judge.subject_rpc PROCESS_STATE: guarded)")
            return
        for where, entries in (("f", front), ("b", back)):
            for e in entries:
                if e is None:
                    continue
                a, m, _, c, mod, n = e
                name = _WARNING_NAMES.get(id(c))
                if name is None or _BUILTIN_WARNINGS.get(name) is not c:
                    name = _library_category(c)
                if name is None or _type(a) is not str or \
                        (m is not None and _type(m) is not str) or (mod is not None and _type(mod) is not str) or \
                        _type(n) is not int:
                    self.faults.append("the tree added a warning filter for a category of its own, which the driver "
                                       "cannot share with the test (harness.judge.subject_rpc PROCESS_STATE: guarded)")
                    continue
                self.filters_out.append([where, a, m or "", name, mod or "", n])

    def incoming(self, msg: dict) -> None:
        d = msg.get("ps")
        if d is not None:
            if _type(d) is not dict:
                raise RemoteError("a malformed process state")
            start = module_state_start() if self.side == "subject" else None
            self._apply(d)
            if "ml" in d and self.side == "driver":
                self._import_carried(d["ml"])
            self.last = self.snap()
            self._check(d)
            if start is not None:  # (the driver's state applied here is no change of the tree's; one the tree made
                library_modules_moved(True, start)  # before, in a call now waiting for a callback, stays the tree's)
            if self.cenv is not None and ("env" in d or "ce" in d):
                try:  # (the driver's changes, applied here, are no disagreement of the tree's to send back)
                    self.cenv.delta()
                except Exception:  # noqa: BLE001 - unreadable: the next reply's read faults it
                    pass
        if self.side == "driver" and "lg" in msg:
            if _type(msg["lg"]) is not list:
                raise RemoteError("malformed log records")
            busy, _ROUTE_STATE["busy"] = _ROUTE_STATE["busy"], True  # (a handler of the test's logging: its own)
            try:
                for r in msg["lg"][:MAX_RECORDS]:
                    _handle_record(r, self.peer)
            finally:
                _ROUTE_STATE["busy"] = busy
        if self.forwarder is not None:
            self._ensure_forwarder()

    def _check(self, d: dict) -> None:
        """The synced items the peer sent that this side could not take (fail closed: a fault)."""
        last = self.last
        if last is None:
            return
        for k in ("rs", "dc", "dd", "rl", "im", "si", "gc", "st", "sp", "mn", "ts", "tz", "lc"):
            if k not in d or (k == "sp" and (self.side == "subject" and d.get("full") is True)):
                continue
            mine = last[k]
            theirs = d[k]
            if k == "sp" and _type(theirs) is list:  # (the driver's own runtime's entries are never the subject's)
                theirs = [e for e in theirs if _type(e) is str and not self._skipped(e)]
            if k == "rs":
                mine = [mine[0], list(mine[1]), mine[2]] if _type(mine) is tuple else mine
                theirs = [theirs[0], list(theirs[1]), theirs[2]] if _type(theirs) in (list, tuple) and \
                    _len(theirs) == 3 and _type(theirs[1]) in (list, tuple) else theirs
            if mine != theirs:
                self.faults.append(f"the {'subject' if self.side == 'driver' else 'driver'}'s {_FIELD_NAMES[k]} could "
                                   f"not be applied here (harness.judge.subject_rpc PROCESS_STATE: synced)")

    def _apply(self, d: dict) -> None:
        """Apply the peer's changes; what cannot be applied (a path that does not exist here, a
        value the kernel refuses) is left as it is (and, for the interpreter's items, a fault: ``_check``)."""
        env = d.get("env")
        if env is not None:
            if not _is_str_map(env):
                raise RemoteError("a malformed environment")
            if d.get("full") is True:
                for k in [k for k in list(_ENV) if k not in env]:
                    try:
                        del _ENV[k]
                    except Exception:  # noqa: BLE001
                        pass
            for k, v in env.items():
                try:
                    if v is None:
                        _ENV.pop(k, None)
                    elif _ENV.get(k) != v:
                        _ENV[k] = v
                except Exception:  # noqa: BLE001 - a name or value with a NUL, a name with "="
                    pass
        ce = d.get("ce")
        if ce is not None:
            if not _is_str_map(ce):
                raise RemoteError("a malformed C environment")
            for k, v in ce.items():
                try:
                    if v is None:
                        _os.unsetenv(k)
                    else:
                        _os.putenv(k, v)
                except Exception:  # noqa: BLE001 - as the environment's
                    pass
        if _type(d.get("cwd")) is str:
            try:
                if _cwd() != d["cwd"]:
                    held = _IO["held"]
                    held.chdir(d["cwd"]) if held is not None else _chdir(d["cwd"])
            except OSError:
                pass
        if _type(d.get("um")) is int and 0 <= d["um"] <= 0o777:
            _umask(d["um"])
        argv = d.get("argv")
        if isinstance(argv, list) and _type(argv) is list and all(_type(a) is str for a in argv):
            _sys.argv = list(argv)
        lv = d.get("lv")
        if lv is not None:
            if _type(lv) is not dict or not all(_type(k) is str and _type(v) is int for k, v in lv.items()):
                raise RemoteError("malformed logging levels")
            for name, level in lv.items():
                try:
                    _LOGGER_SET_LEVEL(_LOG_ROOT if name == "" else _GET_LOGGER(name), level)
                except Exception:  # noqa: BLE001
                    pass
        _apply_log_tree(d, self)
        tz = d.get("tz")
        if _type(tz) is list and tz != _zone():
            _tzset()
        _apply_locale(d.get("lc"))
        _apply_interpreter(d, self)

    def _set_path(self, path: list) -> None:
        """``sys.path`` as the peer's; in the driver its own runtime's entries kept (``skip``), in front."""
        p = _sys.path
        if _type(p) is not list:
            return
        if self.skip is None:
            p[:] = path
            return
        own = [e for e in p if _type(e) is str and self._skipped(e)]
        p[:] = own + [e for e in path if e not in own]


LOG_TREE_RULE = """The logging tree is one state with one writer per message. What the tree (or the test) can change of it
is each logger's level, ``propagate`` and ``disabled``, ``logging.disable``, which loggers exist, and each logger's
handlers and filters. The first four are plain data: read at every message by a walk of the tree (``_log_fp``, in C;
an assignment made without ``setLevel`` included) and carried both ways (``lv``, ``ld``, ``ln``, ``lt``), so the
test's ``dictConfig`` disables the tree's loggers and the tree's ``propagate = False`` holds for the test's own
records, as in one process. A value neither side can carry (a level that is no int, a ``propagate`` that is no bool)
is a fault. Handlers and filters are objects of one process: each side keeps its own, and a record takes both sides'
(``_relay_call_handlers``): the subject's handlers on the way up from the logger it was logged on, then the driver's
from its logger of the same name (``_deliver_record``), under the same synced propagation; a record the test's filter
rejects after the tree's handlers took it is a fault. The hook itself is guarded: a ``callHandlers`` of the tree's
(a logger class of its own, or the method replaced) is a fault. A record of the test's that would cross the tree's
filters, handlers, logger class, record factory or level names is made and handled in the subject
(``LOG_ROUTE_RULE``)."""


def _log_tree_delta(cur: dict, last: dict, delta: dict) -> None:
    """(``ProcState.outgoing``) The loggers made since the last message (``ln``: new names only, they are never
    removed) and the loggers whose two bits changed (``lt``; 0 for one back to the default)."""
    if cur["ln"] is not last["ln"]:
        seen = set(last["ln"])
        new = [n for n in cur["ln"] if n not in seen]
        if new:
            delta["ln"] = new
    if cur["lt"] is not last["lt"]:
        lt = {k: v for k, v in cur["lt"].items() if last["lt"].get(k) != v}
        lt.update({k: 0 for k in last["lt"] if k not in cur["lt"]})
        if lt:
            delta["lt"] = lt


def _apply_log_tree(d: dict, ps: "ProcState") -> None:
    """(``ProcState._apply``) The peer's new loggers made here (``logging.getLogger``) and its two bits set on
    each (``LOG_TREE_RULE``), and ``logging.disable``; more names than ``MAX_LOGGERS`` in one message are a fault."""
    if _type(d.get("ld")) is int and _LOG_MANAGER.disable != d["ld"]:
        _DISABLE(d["ld"])
    lx = d.get("lx")
    if lx is not None and ps.side == "driver":
        if _type(lx) is not list or _len(lx) != 2 or _type(lx[0]) is not int or _type(lx[1]) is not list \
                or not all(_type(n) is str for n in lx[1]):
            raise RemoteError("malformed logging state")
        _LOG_ROUTE[:] = [ps.peer if lx[0] or lx[1] else None, lx[0], frozenset(lx[1])]
    ln, lt = d.get("ln"), d.get("lt")
    if ln is not None:
        if _type(ln) is not list or not all(_type(n) is str for n in ln):
            raise RemoteError("malformed logger names")
        if _len(ln) > MAX_LOGGERS and d.get("full") is not True:
            ps.faults.append("more new loggers in one message than the judge carries (harness.judge.subject_rpc "
                             "LOG_TREE_RULE)")
        for name in ln[:MAX_LOGGERS * 4]:
            if name and not _isinstance(_LOG_MANAGER.loggerDict.get(name), _Logger):
                try:
                    _GET_LOGGER(name)
                except Exception:  # noqa: BLE001 - a logger class of this side's that refuses the name
                    ps.faults.append("a logger of the other process could not be made here (harness.judge.subject_rpc "
                                     "LOG_TREE_RULE)")
    if lt is not None:
        if _type(lt) is not dict or not all(_type(k) is str and _type(v) is int for k, v in lt.items()):
            raise RemoteError("malformed logger flags")
        for name, flags in lt.items():
            try:
                lg = _LOG_ROOT if name == "" else _GET_LOGGER(name)
                if bool(lg.propagate) is bool(flags & 1):
                    lg.propagate = not flags & 1
                if bool(lg.disabled) is not bool(flags & 2):
                    lg.disabled = bool(flags & 2)
            except Exception:  # noqa: BLE001
                ps.faults.append("a logger's propagate or disabled of the other process could not be set here "
                                 "(harness.judge.subject_rpc LOG_TREE_RULE)")


LOG_ROUTE_RULE = """Everything of the logging module a record passes through is one state, the subject's, wherever the
record is logged. Under plain pytest the test's own ``getLogger('app').warning('w')`` runs the tree's logger class
(``isEnabledFor``, ``makeRecord``), record factory, level names, the filters and handlers the tree put on the loggers
on its way up, and the way up itself (each logger's ``parent``, ``name``, the manager's ``loggerDict``). The plain data
of it is synced (``LOG_TREE_RULE``); the rest is code of the subject's. So the subject says at every message what of
its logging the driver cannot reproduce (``lx``, ``ProcState._log_route``: a record factory, a logger class or level
names not logging's own, the loggers with a filter or a handler of the tree's), and while it does, a record the test
logs on a logger whose way up crosses one of them (or any, for the global three) is made and handled in the subject
(``_route_log`` in the driver, ``_route_record`` there: the tree's class decides ``isEnabledFor`` and makes the
record, the tree's filters and handlers take it), then comes back as every record of the tree's does, to the driver's
handlers (caplog), with the test's own ``msg``, ``args`` and exception where the tree left them as they were. What
the driver cannot route is a fault, never a record the tree's logging did not see: a record logged by a thread of the
test's, or on a logger outside the manager's tree. The shape of the tree is shared by name and guarded
(``_log_shape``): a logger renamed, a ``loggerDict`` entry aliased or removed, a parent set by hand is a fault. A
relayed record's ``process`` is the test's process, and its ``thread``/``threadName`` the test's thread when the tree
logged it on the thread serving the test's call (plain pytest: one process, the test's thread)."""
LOGGER_PATCH_RULE = """A logger is an object of the standard library both processes hold by name (``getLogger``), and the
tree's calls go through the subject's. A member the test sets on one (``monkeypatch.setattr(getLogger('pkg'),
'warning', f)``, ``mock.patch.object``, an assignment: anything in the logger's ``__dict__`` beyond a logger's own
fields) is carried with the next request to the subject's logger of that name, the test's value crossing as itself (a
callable of the test's called back in the driver), and put back there when the test undoes it
(``Peer._logger_patches``, ``_apply_logger_patches``), so the tree's ``log.warning`` runs the test's mock as under
plain pytest. One that cannot be set there is a fault. The subject's guard of the loggers' methods takes these as the
test's (``_LOG_CARRIED``); a method of a logger the tree replaces stays a fault."""
_LOG_CARRIED: dict = {}  # (subject) (id(logger), member) -> the test's value set there (``_apply_logger_patches``)
_LOG_ROUTE: list = [None, 0, frozenset()]  # (driver) the peer while the subject's logging decides, its flags, names
_ROUTED: list = [None]  # (subject) the record ``_route_record`` handles now, and the test's fields it was made of
_ROUTE_STATE: dict = {"main": None, "busy": False, "current": None}  # (driver) ``route_test_logs``


def _natural_parent(name: str, reg) -> object:
    """The parent logging's manager gives a logger of ``name`` (``Manager._fixupParents``): the nearest ancestor
    registered as a logger, else the root."""
    i = name.rfind(".")
    while i > 0:
        p = reg.get(name[:i])
        if _isinstance(p, _Logger):
            return p
        i = name.rfind(".", 0, i)
    return _LOG_ROOT


def _route_wanted(lg) -> bool:
    """(driver) Whether a record of the test's logged on ``lg`` crosses the subject's logging (``LOG_ROUTE_RULE``)."""
    if _LOG_ROUTE[1]:
        return True
    names = _LOG_ROUTE[2]
    if "" in names:
        return True
    name = getattr(lg, "name", None)
    if _type(name) is not str:
        return True
    while name:
        if name in names:
            return True
        i = name.rfind(".")
        name = name[:i] if i > 0 else ""
    return False


def _route_log(self, level, msg, args, exc_info=None, extra=None, stack_info=False, stacklevel=1):
    """(driver) ``logging.Logger._log`` while the judge runs a test (``route_test_logs``): logging's own unless the
    subject's logging decides this record (``LOG_ROUTE_RULE``); then the record is made and handled there."""
    peer = _LOG_ROUTE[0]
    st = _ROUTE_STATE
    if peer is None or st["busy"] or peer.ended or not _route_wanted(self):  # (``stacklevel``: no caller of the test's)
        return _LOG_LOG(self, level, msg, args, exc_info, extra, stack_info, stacklevel + 1)
    name = getattr(self, "name", None)
    key = "" if self is _LOG_ROOT else name
    if _type(key) is not str or (key and _LOG_MANAGER.loggerDict.get(key) is not self) or \
            _get_ident() != st["main"]:
        raise peer._dec_fault("a record the test logged where the tree's logging decides it (a filter, handler, "
                              "record factory, logger class or level name of the tree's), from a thread of the test's "
                              "or on a logger outside the manager's tree: the judge cannot route it "
                              "(harness.judge.subject_rpc LOG_ROUTE_RULE)")
    try:
        fn, lno, func, sinfo = self.findCaller(stack_info, stacklevel + 1)
    except ValueError:
        fn, lno, func, sinfo = "(unknown file)", 0, "(unknown function)", None
    exc = None
    if exc_info:
        if _isinstance(exc_info, BaseException):
            exc = exc_info
        else:
            ei = exc_info if _type(exc_info) is tuple else _sys.exc_info()
            exc = ei[1] if _len(ei) == 3 else None
            if exc is None and ei != (None, None, None):
                raise peer._dec_fault("a record the test logged with an exc_info the judge cannot carry "
                                      "(harness.judge.subject_rpc LOG_ROUTE_RULE)")
    token = st["next"] = st.get("next", 0) + 1
    st["current"] = (token, msg, args, exc)
    try:
        peer.request("log", key, level, fn, lno, func, msg, args, exc, bool(exc_info) and exc is None, extra, sinfo,
                     token)
    finally:
        st["current"] = None


def _route_record(key, level, fn, lno, func, msg, args, exc, bare_exc, extra, sinfo, token):
    """(subject) A record the test logs while the subject's logging decides it (``LOG_ROUTE_RULE``): made by the
    subject's logger of that name (its class's ``isEnabledFor`` and ``makeRecord``, the record factory, the level
    names), handled by it (its filters, the tree's handlers on the way up, then the relay to the driver's)."""
    if _type(key) is not str or _type(level) is not int or _type(token) is not int:
        raise RemoteError("a malformed log request")
    lg = _LOG_ROOT if key == "" else _GET_LOGGER(key)
    if not lg.isEnabledFor(level):
        return None
    ei = (_type(exc), exc, getattr(exc, "__traceback__", None)) if exc is not None else \
        ((None, None, None) if bare_exc else None)
    record = lg.makeRecord(lg.name, level, fn, lno, msg, args, ei, func, extra, sinfo)
    _ROUTED[0] = (token, record, msg, args, ei)
    try:
        lg.handle(record)
    finally:
        _ROUTED[0] = None
    return None


def route_test_logs(main: int, current_thread) -> None:
    """(driver, probe_runtime) The test's records through the subject's logging while it decides them
    (``LOG_ROUTE_RULE``): ``logging.Logger._log`` is ``_route_log`` from here on, ``main`` the test's thread."""
    _ROUTE_STATE.update(main=main, thread=current_thread)
    _logging.Logger._log = _route_log  # type: ignore[method-assign]


def _apply_interpreter(d: dict, ps: "ProcState") -> None:
    """``ProcState._apply`` for the interpreter's synced items (``PROCESS_STATE``): each set only when it differs,
    each a plain value checked here; one this side refuses is left (``ProcState._check`` makes it a fault)."""
    sp = d.get("sp")
    if sp is not None and not (ps.side == "subject" and d.get("full") is True):  # (the subject's first path is
        # set by subject_main once the test's installed modules are imported: never with the tree's first)
        if _type(sp) is not list or not all(_type(e) is str for e in sp):
            raise RemoteError("a malformed sys.path")
        if ps._path() != sp:
            ps._set_path(sp)
    mn = d.get("mn")
    if mn is not None:
        _apply_blocked(mn, ps)
    rs = d.get("rs")
    if rs is not None:
        _apply_random(rs)
    dc = d.get("dc")
    if dc is not None:
        if _type(dc) is not str:
            raise RemoteError("a malformed decimal context")
        ctx = _GETCONTEXT()
        if _CTX_REPR(ctx) != dc and _type(ctx) is _CTX_TYPE:
            _set_context(ctx, dc)
    dd = d.get("dd")
    if dd is not None:
        if _type(dd) is not str:
            raise RemoteError("a malformed decimal default context")
        if _CTX_REPR(_DEFAULT_CONTEXT) != dd:
            _set_context(_DEFAULT_CONTEXT, dd)
    _apply_limits(d, ps)
    gc = d.get("gc")
    if gc is not None:
        if _type(gc) is not list or _len(gc) != 4 or _type(gc[0]) is not bool or not all(_type(x) is int for x in gc[1:]):
            raise RemoteError("a malformed gc state")
        if _GC_SET[3]() != gc[0]:
            (_GC_SET[0] if gc[0] else _GC_SET[1])()
        if list(_GC_SET[4]()) != gc[1:]:
            try:
                _GC_SET[2](*gc[1:])
            except (ValueError, OverflowError):
                pass
    if "st" in d:
        st = d["st"]
        if (st is None or _type(st) in (int, float)) and _socket_timeout() != st:
            try:
                import _socket
                import socket  # noqa: F401 - (readies _socket's types: ``_socket_timeout``)
                _socket.setdefaulttimeout(st)
            except (ImportError, ValueError, TypeError, OverflowError):
                pass
    wa = d.get("wa")
    if wa is not None and ps.side == "driver":
        _apply_filters(wa)
    ps._apply_registrations(d)


def _apply_random(rs) -> None:
    """The peer's random generator state (``random.getstate()``, as JSON made it) set here."""
    if _type(rs) not in (list, tuple) or _len(rs) != 3 or _type(rs[0]) is not int or _type(rs[1]) not in (list, tuple) or \
            not all(_type(x) is int for x in rs[1]) or not (rs[2] is None or _type(rs[2]) is float):
        raise RemoteError("a malformed random state")
    state = (rs[0], tuple(rs[1]), rs[2])
    if _RANDOM_GET(_RANDOM) != state:
        try:
            _RANDOM_SET(_RANDOM, state)
        except (ValueError, TypeError, OverflowError):
            pass


def _apply_blocked(mn, ps: "ProcState") -> None:
    """The peer's imports blocked (``sys.modules[name] = None``) blocked here; one it no longer blocks, freed."""
    if _type(mn) is not list or not all(_type(k) is str for k in mn):
        raise RemoteError("malformed blocked imports")
    mods = _sys.modules
    if _type(mods) is not dict:
        return
    was = ps.last["mn"] if ps.last is not None else []
    ps.mn_len = -1  # (read again at the next snapshot)
    for k in mn:
        if mods.get(k, 0) is not None:
            mods[k] = None  # type: ignore[assignment]
    want = set(mn)
    for k in was:
        if k not in want and k in mods and mods[k] is None:
            del mods[k]


_TYPE_QUALNAME = type.__dict__["__qualname__"].__get__  # (the type's slot, read in C)


def _library_value(v) -> bool:
    """(subject) Whether ``v`` is a module or class the interpreter's own files define (the stdlib's or an
    installed package's: ``trusted_file`` of its module's file, read from the module's and class's own dicts,
    never through the tree's code); a built-in module without a file, or anything of the tree's, is not."""
    try:
        t = _type(v)
        if issubclass(t, _types.ModuleType):
            f = _MODULE_DICT(v).get("__file__")
        elif issubclass(t, type):
            modname = _TYPE_DICT(v).get("__module__")
            mod = _sys.modules.get(modname) if _type(modname) is str else None
            f = _MODULE_DICT(mod).get("__file__") if mod is not None and issubclass(_type(mod), _types.ModuleType) else None
        else:
            return False
        return _type(f) is str and trusted_file(f)
    except Exception:  # noqa: BLE001 - what the interpreter cannot read: the tree's (guarded)
        return False


def _library_category(c) -> str | None:
    """(subject) ``lib:MODULE:QUALNAME`` for a warning category an installed library defines (numpy's
    ``RankWarning``, which numpy's own import puts an "always" filter on), when its module's file is the
    interpreter's (``trusted_file``: never a module of the tree, whatever its name); else None (the tree's own
    category: guarded). Read from the class's and module's own dicts, never through the tree's code."""
    try:
        d = _TYPE_DICT(c)
        modname, qual = d.get("__module__"), _TYPE_QUALNAME(c)
        mod = _sys.modules.get(modname) if _type(modname) is str else None
        if mod is None or _type(qual) is not str or not trusted_file(_MODULE_DICT(mod).get("__file__")):
            return None
        return f"lib:{modname}:{qual}"
    except Exception:  # noqa: BLE001 - a class or module the interpreter cannot read: the tree's (guarded)
        return None


def _warning_category(name: str):
    """(driver) The class a filter's category names: a builtin warning, or an installed library's (``lib:``,
    ``_library_category``) resolved in the driver from the library's own module (imported if it is not yet,
    and only when its file is the interpreter's); None when it is neither (a fault at the caller)."""
    if name in _BUILTIN_WARNINGS:
        return _BUILTIN_WARNINGS[name]
    kind, _, rest = name.partition(":")
    modname, _, qual = rest.partition(":")
    if kind != "lib" or not modname or not qual:
        return None
    try:
        mod = _sys.modules.get(modname) or _import_module(modname)
        if not trusted_file(_MODULE_DICT(mod).get("__file__")):
            return None
        c: object = mod
        for part in qual.split("."):
            c = _vars(c)[part]
        return c if _isinstance(c, type) and issubclass(c, Warning) else None  # type: ignore[arg-type]
    except Exception:  # noqa: BLE001 - not importable here, or no such class: none
        return None


def _apply_filters(wa) -> None:
    """(driver) The tree's warning filters (``ProcState.tree_filters``) added to the driver's, in their order."""
    if _type(wa) is not list:
        raise RemoteError("malformed warning filters")
    front = []
    for e in wa[:256]:
        if _type(e) is not list or _len(e) != 6 or e[0] not in ("f", "b") or not all(_type(x) is str for x in e[1:5]) \
                or _type(e[5]) is not int or _warning_category(e[3]) is None:
            raise RemoteError("a malformed warning filter")
        if e[0] == "f":
            front.append(e)
        else:
            _add_filter(e, True)
    for e in reversed(front):
        _add_filter(e, False)


_EVAL_DEFAULT = None


def _ctx_key(ctx) -> str:
    """A decimal context's C repr without its flags (``eval_state``)."""
    head, _, rest = _CTX_REPR(ctx).partition(", flags=[")
    return head + rest.partition("]")[2]


_EVAL_KEY = [_ctx_key(_CTX_TYPE())]


def eval_state():
    """(driver, with each assertion's observation) The interpreter state the judge's own evaluation of an
    assertion depends on, when it differs from a fresh interpreter's: the decimal context (arithmetic and
    comparisons of Decimals: precision, rounding, exponent bounds, traps; not its flags) and the int/str digit
    limit. The judge evaluates under it (harness.judge.judge ``_check``): the test's ``localcontext``, or
    the tree's ``prec`` synced here (``PROCESS_STATE``), holds for ``assert third(1) == Decimal(1) / 3``."""
    global _EVAL_DEFAULT
    ctx = _GETCONTEXT()
    if _ctx_key(ctx) == _EVAL_KEY[0] and _sys.get_int_max_str_digits() == _sys.int_info.default_max_str_digits and \
            not JUDGE_MODULES_MOVED:
        return None
    try:
        dc = [ctx.prec, str(ctx.rounding), ctx.Emin, ctx.Emax, ctx.capitals, ctx.clamp,
              sorted(t.__name__ for t, on in ctx.traps.items() if on)]
    except Exception:  # noqa: BLE001 - a context of the test's own class that does not answer: as the default
        dc = None
    im = _sys.get_int_max_str_digits()
    if _EVAL_DEFAULT is None:
        d = _CTX_TYPE()
        _EVAL_DEFAULT = ([d.prec, str(d.rounding), d.Emin, d.Emax, d.capitals, d.clamp,
                          sorted(t.__name__ for t, on in d.traps.items() if on)], _sys.int_info.default_max_str_digits)
    out = {}
    if dc is not None and dc != _EVAL_DEFAULT[0]:
        out["dc"] = dc
    if im != _EVAL_DEFAULT[1]:
        out["im"] = im
    if JUDGE_MODULES_MOVED:
        out["jm"] = sorted(JUDGE_MODULES_MOVED)[:16]
    return out or None


# The modules the judge's own evaluation computes expectations with (harness.judge.probes ``JUDGE_MODULES``, and the
# modules their functions read at call time): a binding or entry the tree set in one of them, carried to the driver
# (``_apply_module_state``), is one plain pytest's expectation reads and the judge's never does (probes
# ``JUDGE_STATE_RULE``; red team atk14: ``string``'s constants, ``fractions``' pattern, ``json``'s decoder tables).
JUDGE_STATE_MODULES = frozenset({"math", "json", "json.decoder", "json.scanner", "json.encoder", "re", "re._compiler",
                                 "re._parser", "re._constants", "re._casefix", "decimal", "fractions", "numbers",
                                 "datetime", "string"})
JUDGE_MODULES_MOVED: set = set()  # (driver) "module.name" of each carried into a JUDGE_STATE_MODULES module


def _stack_size() -> int:
    """``threading.stack_size()`` read without changing it (called with no size it sets the default, 0, and returns
    the old one: put back)."""
    v = _thread.stack_size()
    if v:
        _thread.stack_size(v)
    return v


def _socket_timeout():
    """``socket.getdefaulttimeout()``; None (its default) while this process has not imported ``socket``
    (importing ``_socket`` alone leaves its classes half-made for ``capture_identities``)."""
    if "socket" not in _sys.modules:
        return None
    import _socket
    return _socket.getdefaulttimeout()


def _add_filter(e: list, append: bool) -> None:
    try:
        _FILTERWARNINGS(e[1], e[2], _warning_category(e[3]), e[4], e[5], append)
    except (ValueError, TypeError, _re.error):
        pass


def _set_context(ctx, text: str) -> None:
    """The decimal context ``ctx`` set to the peer's (its C repr, ``_CTX_REPR``): numbers, a rounding's
    name, the names of the flags and traps set."""
    for k, v in _CTX_FIELDS.findall(text):
        try:
            if k in _CTX_INTS:
                setattr(ctx, k, int(v))
            elif k == "rounding":
                ctx.rounding = v
            elif k in ("flags", "traps"):
                names = {n.strip() for n in v.strip("[]").split(",") if n.strip()}
                signals = ctx.flags if k == "flags" else ctx.traps
                for sig in list(signals):
                    signals[sig] = sig.__name__ in names
        except (ValueError, TypeError, KeyError, OverflowError):
            pass


_FS_SEEN: list = [None]  # (subject) during a late give (``Peer._give``): "" until the tree's threads change a path, then what
_FS_EVENTS = frozenset({"open", "os.remove", "os.rename", "os.rmdir", "os.mkdir", "os.truncate", "os.chmod", "os.chown",
                        "os.utime", "os.link", "os.symlink", "os.setxattr", "os.removexattr", "os.mkfifo", "os.mknod",
                        "shutil.rmtree", "shutil.move", "shutil.copyfile", "shutil.copytree", "mmap.__new__"})
_OPEN_WRITING = _os.O_WRONLY | _os.O_RDWR | _os.O_CREAT | _os.O_TRUNC | _os.O_APPEND


def _fd_sizes(channel: int) -> dict:
    """(subject) The size of the file of each of the subject's descriptors 0 and 3 to 1023 but the channel (1 and 2:
    the output the driver relays, checked at every message), read with the GIL held while the threads are frozen
    (``_HeldIO``): a file a thread of the tree writes through a descriptor it holds grows (``Peer._give``)."""
    held = _IO["held"]
    size = held.size if held is not None else (lambda fd: _fstat(fd).st_size)
    out = {}
    for fd in range(1024):
        if fd == 1 or fd == 2 or fd == channel:
            continue
        try:
            out[fd] = size(fd)
        except OSError:
            continue
    return out


def _state_hook(target: list):
    """(subject) The audit hook that sees what no attribute shows: ``os.putenv``/``os.unsetenv`` (the C
    environment), the names an import statement loads (``ProcState._foreign_modules``) and the audit hooks added
    (``CENSUS_RULE``), into the subject's ``ProcState`` (``target``: [its ``puts``, its ``imports``, its ``hooks``]);
    and, while the tree's threads run for time the test waited (``Peer._give``, ``_FS_SEEN`` not None), the first
    change they make on disk (``_FS_EVENTS``: an open for writing, a rename, a removal, ...)."""
    def hook(event, args, _target=target, _fsdecode=_os.fsdecode, _type=_type, _len=_len, _fs=_FS_SEEN,
             _fs_events=_FS_EVENTS, _writing=_OPEN_WRITING):
        if event in _fs_events:
            if _fs[0] == "" and (event != "open" or (_len(args) > 2 and _type(args[2]) is int and args[2] & _writing)):
                _fs[0] = event if event != "open" or _type(args[0]) is not str else f"open {args[0]!r}"[:200]
            return
        if event != "import" and event != "os.putenv" and event != "os.unsetenv" and event != "sys.addaudithook":
            return
        _puts, _imports, _hooks = _target
        if event == "sys.addaudithook":  # (a hook of the tree's: the census's, ``CENSUS_RULE``)
            if _len(_hooks) < 1_000:
                _hooks.append(1)
        elif event == "import":
            if args and _type(args[0]) is str and _len(_imports) < 100_000:
                _imports.add(args[0])
        elif event == "os.putenv" or event == "os.unsetenv":
            try:
                k = _fsdecode(args[0])
                v = _fsdecode(args[1]) if event == "os.putenv" else None
            except Exception:  # noqa: BLE001 - not a name os.putenv took
                return
            if _type(k) is str and (v is None or _type(v) is str) and _len(_puts) < 10_000:
                _puts[k] = v
    return hook


def _apply_limits(d: dict, ps: "ProcState") -> None:
    """(``_apply_interpreter``) The interpreter's limits of ``_LIMITS``; the switch interval, while the subject holds
    the tree's threads frozen, into the freeze's saved state (set when they are thawed: ``_switch_interval``)."""
    frozen = _frozen(ps.peer)
    saved = frozen.saved if frozen is not None else None
    for k, get, put, ok in _LIMITS:
        v = d.get(k)
        if k == "si" and frozen is not None and saved is not None and v is not None and ok(v):
            if 0 < v < 1e9:  # (a value the thaw's setswitchinterval would refuse is left: ``_check``'s fault)
                raised_to = saved[3]
                if _getswitchinterval() != raised_to:  # (the tree's write earlier in this freeze: the test's is later)
                    _setswitchinterval(raised_to)
                    raised_to = _getswitchinterval()
                frozen.saved = (saved[0], v, saved[2], raised_to)
            continue
        if v is not None and ok(v) and get() != v:
            try:
                put(v)
            except (ValueError, TypeError, OverflowError, RecursionError):
                pass


def _frozen(peer) -> "Schedule | None":
    """(``PROCESS_STATE``'s ``si``) The subject's schedule while it holds the tree's threads frozen with the switch
    interval raised to ``FROZEN_INTERVAL`` (``Schedule._freeze``), else None (the driver's side, no thread frozen)."""
    sched = getattr(peer, "sched", None) if peer is not None else None
    saved = sched.saved if sched is not None else None
    return sched if saved is not None and saved[1] is not None else None


def _switch_interval(peer) -> float:
    """The switch interval the tree and the test see: the interpreter's, but while the subject holds the tree's
    threads frozen, the one the freeze saved (``FROZEN_INTERVAL`` is the schedule's, never the tree's: sent to the
    driver, it held the GIL in the test's main thread for a second at a time, so CLOCK_READS_RULE's pulse and the
    test's own threads waited behind a busy loop, and ``sys.getswitchinterval()`` read 1.0 in the test). An interval
    set while frozen (a thread of the tree that ran at the next message after a freeze longer than
    ``FROZEN_INTERVAL``) is no longer the one the freeze set: it is the tree's, reported as it is (``Peer._moved``
    sees the change) and kept by the thaw (``Schedule._thaw``)."""
    frozen = _frozen(peer)
    saved = frozen.saved if frozen is not None else None
    live = _getswitchinterval()
    return saved[1] if saved is not None and live == saved[3] else live


_LIMITS = (("rl", _sys.getrecursionlimit, _sys.setrecursionlimit, lambda v: _type(v) is int),
           ("im", _sys.get_int_max_str_digits, _sys.set_int_max_str_digits, lambda v: _type(v) is int),
           ("si", _sys.getswitchinterval, _sys.setswitchinterval, lambda v: _type(v) in (int, float)),
           ("ts", _stack_size, _thread.stack_size, lambda v: _type(v) is int))
_FILTERWARNINGS = _warnings.filterwarnings
_HOOK: list = []  # the subject's ``ProcState`` the audit hook reports to (``_state_hook``), once installed
_WARNING_NAMES = {id(v): k for k, v in _BUILTIN_WARNINGS.items()}


# -- interpreter state read at its source (red team r32atk5) -------------------------------------------------
# The rule for every item of ``PROCESS_STATE``: the tree may change it by any path the interpreter offers, so the
# judge reads it where the interpreter itself reads it (the C environment ``execve`` hands a child, the list the
# codec machinery walks, the list the collector calls), never through a Python view the tree can write around
# (``os.environ._data``) nor through the calls that change it (libc ``setenv`` raises no audit event). What
# is plain data there is carried (SYNCED); what holds objects of one process is compared by identity at every reply
# and a change is a fault (GUARDED): the test fails, never passes on the other process's unchanged copy.


class _CEnviron:
    """(subject) The C environment, read from libc's ``environ`` (what ``execve`` hands a child): the variables
    where it and ``os.environ`` disagree (libc ``setenv``/``putenv``/``unsetenv`` through ctypes, ``os.putenv``,
    ``os.environ._data`` written directly) are state, sent as ``ce`` when that disagreement changed, and the
    driver makes its own C environment disagree with its ``os.environ`` the same way (``ProcState._apply``).
    A change is seen by a fingerprint, the array's address and its pointers read in C (``string_at``, bound
    before the tree runs); the strings are read only then. None of it when ctypes cannot reach ``environ``.
    ``at``: the address of libc's ``environ`` (the subject finds it before its audit hook is on, where looking a
    symbol up is no evidence: harness.judge.subject_main ``_interpreter_registries``)."""

    def __init__(self, at: int | None = None):
        import ctypes
        self.size = ctypes.sizeof(ctypes.c_void_p)
        self.at = at if at is not None else environ_address()
        self.read_at = ctypes.string_at
        self.order = _sys.byteorder
        self.n = 0  # entries at the last read
        self.fp: tuple | None = None
        self.diff: dict = {}  # name -> C value (None: not in the C environment) where it differs from os.environ

    def _fingerprint(self) -> tuple:
        p = int.from_bytes(self.read_at(self.at, self.size), self.order)
        return (p, self.read_at(p, self.size * (self.n + 1)) if p else b"")

    def changed(self) -> bool:
        return self._fingerprint() != self.fp

    def _read(self) -> dict:
        size, read_at, order = self.size, self.read_at, self.order
        p = int.from_bytes(read_at(self.at, size), order)
        out: dict = {}
        n = 0
        while p and n < 100_000:
            q = int.from_bytes(read_at(p + n * size, size), order)
            if not q:
                break
            k, sep, v = read_at(q).partition(b"=")
            if sep:
                out.setdefault(_os.fsdecode(k), _os.fsdecode(v))  # (getenv reads the first)
            n += 1
        self.n = n
        self.fp = (p, read_at(p, size * (n + 1)) if p else b"")
        return out

    def delta(self, names=(), env_moved: bool = True) -> dict:
        """The disagreement's change since the last call (name -> the C value, None: unset there), the
        ``names`` (``os.putenv``'s since the last message) always; {} when neither the C environment nor
        ``os.environ`` (``env_moved``, ``ProcState.snap``'s comparison of its raw dict) changed."""
        if self.fp is not None and not names and not env_moved and not self.changed():
            return {}
        c = self._read()
        try:
            env = {k: v for k, v in _ENV.items() if _type(k) is str and _type(v) is str}
        except Exception:  # noqa: BLE001 - os.environ broken by the tree: the C environment alone
            env = {}
        diff = {k: c.get(k) for k in c.keys() | env.keys() if c.get(k) != env.get(k)}
        out = {k: v for k, v in diff.items() if k not in self.diff or self.diff[k] != v}
        out.update({k: c.get(k) for k in self.diff if k not in diff})
        out.update({k: diff[k] for k in names if k in diff})
        self.diff = diff
        return out


def environ_address() -> int:
    """The address of libc's ``environ`` (what ``_CEnviron`` reads)."""
    import ctypes
    return ctypes.addressof(ctypes.c_void_p.in_dll(ctypes.CDLL(None), "environ"))


def _c_environ() -> "_CEnviron | None":
    try:
        return _CEnviron(SOURCES.get("environ"))
    except Exception:  # noqa: BLE001 - no ctypes, no ``environ`` symbol: os.putenv's audit events alone
        return None


# (subject) what harness.judge.subject_main found before its audit hook was on ("environ": the address of libc's
# ``environ``, "codecs": the codec search functions' list), where looking them up is not evidence of the tree's
SOURCES: dict = {}


IMPORT_STATE_RULE = """\
What a test can observe of the import system is one state: ``sys.modules``, the mapping from a name to a module
object, and each module's origin (the file it was loaded from, by which loader). Under plain pytest the test and the
tree share it; judged, each process has its own, and the judge keeps them one by rule or fails the test:

- a name's value in the subject is the import system's only when a load left it there: the value the load of that
  name left, or an entry added *within one module's load* under a name below that module's (``_Loads``); a module
  the tree puts in place otherwise, an entry set below a package after that package's load ended, or an entry the
  tree *removes* (the test's next import would execute the module afresh; the driver keeps its own) is a fault at the
  tree's next reply (``ProcState._foreign_modules``);
- a module loaded from a file that is not the interpreter's under a standard-library name (a ``colorsys.py`` the
  tree wrote, a ``wsgiref/util.py`` on a path it added) is a fault at its load (``_Loads._shadows``): the driver's
  import of such a name is always the interpreter's module (harness.judge.probe_runtime ``_Finder._stdlib``);
- the test's entries (stubs, ``ModuleStubs``) reach the subject before each request; the subject's guard takes
  the carried names, and only those, as the driver's doing (``Peer._apply_stubs``): whatever the tree changed
  before a callback that set a stub is still compared;
- a stub is read by the tree as the import system and ``hasattr`` read it: an entry of its own ``__dict__`` that is
  plain data is handed over, a name it lacks raises AttributeError (``_stub_read``); any other refused read of a
  stub is a fault (``Peer.policy``);
- the record of the loads is held where the tree does not reach it by a plain attribute: the functions put in
  ``importlib._bootstrap`` carry none of its state (``_recorded_find_and_load``).

What can be carried is carried: the interpreter's modules the tree's imports load are imported into the driver's
``sys.modules`` with the reply (``ml``, ``ProcState._import_carried``; one the driver cannot import is a fault); the
test's removal of a tree module, and the proxy of its re-import, reach the subject (``ModuleStubs``, ``_REMOVED``);
a stand-in of the tree's the test puts in ``sys.modules`` is the tree's own object there; a module the test made is
never imported in the subject before the tree (harness.judge.probe_runtime ``_test_imports``).

Open: a module the test imports is not added to the subject's ``sys.modules``; a file of the tree's loaded under an
installed package's name (the driver's finder makes a proxy of the tree's module for a file it finds itself, but a
file on a path the tree added and removed within one call it does not find: it imports the installed package); a tree module registered by hand below
its package crosses by a name the driver cannot import (stricter); a library's alias entry (no spec of its own name)
is not carried to the driver; the record is reachable through the harness's functions' ``__globals__`` or the
collector (reported by the audit hook for the collector, not for ``__globals__``); the harness's own imports in either
process are modules plain pytest's process does not have.
"""


class _Loads:
    """(subject; the driver's ``ModuleStubs`` too) What the import system itself put in ``sys.modules``:
    ``importlib._bootstrap._find_and_load`` (what an import statement, ``__import__`` and
    ``importlib.import_module`` all call for a name not yet loaded) and ``_load_unlocked`` (the load of one spec)
    wrapped once per process, before the tree runs. A loaded name is noted with the value its own load left; an
    entry added *within one module's load* (between its ``_load_unlocked``'s start and end) under a name below
    that module's (``typing.io``, ``xml.parsers.expat.model``, a package's own alias, ``pkg.memory`` set by
    ``pkg``'s own code) is that load's too. ``ProcState._foreign_modules`` takes every other entry the tree added
    or replaced as foreign: an existing module under a new name, a module made from a spec and put in place by
    hand, a loaded module replaced after its import, an entry set below a package after that package's load
    ended (``IMPORT_STATE_RULE``). A load of a file that is not the interpreter's under a standard-library name (a
    ``colorsys.py`` the tree wrote) is a fault at that load.

    The record is held by this module only (hidden in the subject): the functions put in ``importlib._bootstrap``
    (``_recorded_find_and_load``, ``_recorded_load``) carry none of its state as attributes."""

    def __init__(self, boot):
        self.boot, self.orig = boot, boot._find_and_load
        self.orig_load = boot._load_unlocked
        self.orig_exec = getattr(boot, "_exec", None)  # (``importlib.reload``'s: ``reexec``)
        self.depth = 0
        self.loaded: dict = {}
        self.codecs: list | None = None  # (``_registries``: the subject's ``ProcState`` sets it)
        self.base: list | None = None  # the registries as last accepted: at a reply, or a library's own load
        self.origins: list = []  # whether each load under way is of a file of the interpreter's (innermost last)
        self.faults: list = []  # an import made through a finder of the tree's (``_finders_faithful``), for ``guard``
        self.names: frozenset | None = None  # the top-level names the interpreter's directories provide (``_shadows``)

    def load(self, spec):
        """``_load_unlocked`` wrapped: a registry change an installed library's own import makes (numpy's
        ``copyreg.pickle``, six's finder on ``sys.meta_path``, a codec registered at import) is the library's,
        as the driver's import of it makes the same: accepted when the load began from the accepted state and the
        module's file, as the finder gave it before any of its code ran, is the interpreter's (``trusted_file``).
        A change the tree made first, or one a module of the tree makes, stays a fault (``ProcState.guard``).
        The entries added during this load below its name are its own (``_own``)."""
        origin = getattr(spec, "origin", None)
        mods = _sys.modules
        last = next(reversed(mods), _NOT_LOADED) if _type(mods) is dict and mods else _NOT_LOADED
        start = _registries(self.codecs)
        ok = self.base is not None and _same_lists(start, self.base)
        lib = _type(origin) is str and trusted_file(origin)
        if not lib and _type(origin) is str and origin.startswith("/"):
            self._shadows(getattr(spec, "name", None), origin)
        disp = library_load_begins() if lib and not any(self.origins) else None  # (``KERNEL_RULE``)
        self.origins.append(lib)
        versions = _class_versions() if lib else None
        mversions = module_state_start() if lib else None
        try:
            return self.orig_load(spec)
        finally:
            self.origins.pop()
            self._own(mods, last, getattr(spec, "name", None))
            if disp is not None:
                library_load_ends(disp)
            if lib:  # (its own changes of the interpreter's classes are the library's; its classes watched from here)
                try:
                    library_classes_moved(True, versions)
                    watch_library_classes([_sys.modules.get(getattr(spec, "name", None))])
                    library_modules_moved(True, mversions)
                    watch_library_modules([_sys.modules.get(getattr(spec, "name", None))])
                except Exception:  # noqa: BLE001 - unreadable: the next reply compares what it can
                    pass
            if ok:
                end = _registries(self.codecs)
                if not _same_lists(end, start) and _type(origin) is str and trusted_file(origin):
                    self.base = end

    def _own(self, mods, last, name) -> None:
        """The entries added to ``sys.modules`` since ``last`` was its newest key (a dict keeps insertion order: the
        newest first in reverse) under ``name`` or a name below it, each with the value it has now. ``last`` gone
        meanwhile: none (fail closed: such an entry is foreign at the next reply)."""
        if _type(mods) is not dict or _type(name) is not str or (last is not _NOT_LOADED and last not in mods):
            return
        below, loaded = name + ".", self.loaded
        for k in reversed(mods):
            if k is last or (_type(k) is str and k == last):
                break
            if _type(k) is str and (k == name or k.startswith(below)) and k not in loaded and _len(loaded) < 100_000:
                loaded[k] = mods.get(k)

    def _shadows(self, name, origin: str) -> None:
        """A file that is not the interpreter's loaded under a top-level name of the standard library (or a builtin
        module's): a fault (``IMPORT_STATE_RULE``: the driver's import of that name is always the interpreter's
        module, the subject's would be the tree's file)."""
        if _type(name) is not str:
            return
        if self.names is None:
            self.names = _library_names()
        top = name.partition(".")[0]
        if top in self.names and _len(self.faults) < 4:
            self.faults.append(f"sys.modules ({name[:60]} loaded from {origin[-80:]}, a file that is not the "
                               f"interpreter's, under a standard-library name)")

    def reexec(self, spec, module):
        """``_exec`` wrapped (``importlib.reload``): a module of the interpreter's files run again changes its own
        namespace as its load did, and as the driver's reload does (``MODULE_STATE_RULE``: accepted, of the dicts the
        tree had not changed before)."""
        origin = getattr(spec, "origin", None)
        lib = _type(origin) is str and trusted_file(origin)
        before = None
        if lib:
            try:
                before = library_module_reload_begins(module, spec)
            except Exception:  # noqa: BLE001 - unreadable: the next reply compares all of it (fail closed)
                before = None
        try:
            return self.orig_exec(spec, module)
        finally:
            if before is not None:  # (only what this run bound anew in the module's own dicts is the reload's)
                try:
                    library_module_reloaded(before)
                except Exception:  # noqa: BLE001 - unreadable: the next reply compares what it can
                    pass

    def __call__(self, name, import_):
        mods = _sys.modules
        if _type(mods) is not dict or name in mods:  # (loaded, or being loaded: no entry of its own)
            return self.orig(name, import_)
        if self.base is not None and not self._finders_faithful() and _len(self.faults) < 4:
            self.faults.append(f"import system's finders (the import of {str(name)[:60]} went through a finder, path "
                               "hook or path_importer_cache entry of the tree's)")
        self.depth += 1
        try:
            return self.orig(name, import_)
        finally:
            self.depth -= 1
            if _len(self.loaded) < 100_000:
                self.loaded[name] = mods.get(name)  # the value its own load left (not one a later line put there)

    def _finders_faithful(self) -> bool:
        """Whether the finders this import goes through are the state last accepted (``base``) or the interpreter's
        own (an installed library's finder, its own load added: ``_interpreter_object``), and every
        ``sys.path_importer_cache`` entry one the import system could have made (``CENSUS_RULE``): a finder of the
        tree's added and removed within one call is seen at the import it served."""
        base = self.base
        mp, ph = _sys.meta_path, _sys.path_hooks
        for now, was in ((mp, base[3]), (ph, base[4])):  # type: ignore[index]
            if _type(now) is not list:
                return False
            if _len(now) == _len(was) and all(map(_is_, now, was)):
                continue
            if not all(any(x is y for y in was) or _interpreter_object(x) for x in now):
                return False
        return _importer_cache_faithful()

    def take(self) -> dict:
        out, self.loaded = self.loaded, {}
        return out


def _library_names() -> frozenset:
    """The top-level module names the driver's import always takes from the interpreter's own directories
    (harness.judge.probe_runtime ``_Finder._stdlib``): the standard library's and the builtin modules'."""
    return frozenset(_sys.stdlib_module_names) | frozenset(_sys.builtin_module_names)


def _recorded_find_and_load(name, import_):
    """(``importlib._bootstrap._find_and_load`` in this process) ``_Loads.__call__``, through this module's record."""
    return _LOADS[0](name, import_)


def _recorded_load(spec):
    """(``importlib._bootstrap._load_unlocked`` in this process) ``_Loads.load``, through this module's record."""
    return _LOADS[0].load(spec)


def _recorded_exec(spec, module):
    """(``importlib._bootstrap._exec`` in this process, ``importlib.reload``'s) ``_Loads.reexec``, through this
    module's record."""
    return _LOADS[0].reexec(spec, module)


def import_record() -> "_Loads | None":
    """The process's ``_Loads``, installed on first use (by harness.judge.subject_main, before the tree runs; None
    when the import system is not the one it wraps). Without it every entry the subject's ``sys.modules`` gains is
    foreign (fail closed)."""
    if _LOADS:
        return _LOADS[0]
    boot = _sys.modules.get("_frozen_importlib")
    if boot is None or not callable(getattr(boot, "_find_and_load", None)):
        return None
    rec = _Loads(boot)
    _LOADS.append(rec)
    boot._find_and_load = _recorded_find_and_load  # type: ignore[attr-defined]
    boot._load_unlocked = _recorded_load  # type: ignore[attr-defined]
    if callable(rec.orig_exec):
        boot._exec = _recorded_exec  # type: ignore[attr-defined]
    return rec


def drop_import_record() -> None:
    """``import_record`` undone (a unit test leaves its process as it found it)."""
    if _LOADS:
        rec = _LOADS[-1]
        if rec.boot._find_and_load is _recorded_find_and_load:
            rec.boot._find_and_load = rec.orig
        if rec.boot._load_unlocked is _recorded_load:
            rec.boot._load_unlocked = rec.orig_load
        if getattr(rec.boot, "_exec", None) is _recorded_exec:
            rec.boot._exec = rec.orig_exec
        _LOADS.pop()


_LOADS: list = []
_NOT_LOADED = object()
MAX_CARRIED_IMPORTS = 4096  # names a reply carries to the driver's sys.modules (``ProcState._import_carried``)


def _carried_import(name, v) -> bool:
    """(subject) Whether the value a load left under ``name`` is a module of the interpreter's (stdlib, installed or
    builtin) loaded under that very name, which the driver imports too (``ml``): its spec names it, with a loader,
    and its origin is the interpreter's."""
    if _type(name) is not str or name.startswith("_hx") or not _isinstance(v, _types.ModuleType):
        return False
    try:
        spec = _MODULE_DICT(v).get("__spec__")
    except TypeError:
        return False
    if _type(spec) is not _SPEC_TYPE or spec.name != name or spec.loader is None:
        return False
    origin = spec.origin
    if origin is None:  # (a namespace package: each of its directories the interpreter's)
        locs = spec.submodule_search_locations
        return locs is not None and all(_type(p) is str and p.startswith("/") and trusted_file(p) for p in locs)
    return _type(origin) is str and trusted_file(origin)


_GONE = object()  # (``ProcState._foreign_modules``: a name removed since a reply, already named)
_PIC_SEEN: dict = {}  # (subject) sys.path_importer_cache's entries found faithful (``_importer_cache_faithful``)
_PIC_LAST: list = [[]]


def _importer_cache_faithful() -> bool:
    """Whether every ``sys.path_importer_cache`` entry is one the import system could have made (``_finder_faithful``),
    each entry read once per value (compared by identity in C while none changed)."""
    pic = _sys.path_importer_cache
    if _type(pic) is not dict:
        return False
    vals = list(pic.values())
    last = _PIC_LAST[0]
    if _len(vals) == _len(last) and all(map(_is_, vals, last)):
        return True
    ok = True
    for k, v in list(pic.items()):
        if k in _PIC_SEEN and _PIC_SEEN[k] is v:
            continue
        if not _finder_faithful(k, v):
            ok = False
        if _len(_PIC_SEEN) < 100_000:
            _PIC_SEEN[k] = v  # (a fault is named once, as every guarded change)
    _PIC_LAST[0] = vals
    return ok


def codec_search_path() -> list | None:
    """The interpreter's own list of codec search functions (``codecs.register`` appends to it; nothing in
    Python reads it): found once as the one list holding a probe just registered, then read by identity
    (``gc.get_referrers``: in the subject, before its audit hook is on, ``SOURCES``)."""
    import codecs

    def probe(name):
        return None

    codecs.register(probe)
    try:
        found = [r for r in _gc.get_referrers(probe) if _type(r) is list and _len(r) and r[-1] is probe]
    finally:
        codecs.unregister(probe)
    return found[0] if _len(found) == 1 else None


_GC_CALLBACKS = _gc.callbacks  # the list the collector calls (rebinding ``gc.callbacks`` changes nothing there)
_DEFAULT_CONTEXT = _decimal.DefaultContext  # the template a new thread's context is copied from (in C)


def _registries(codecs: list | None) -> list:
    """(subject, at every reply) The interpreter's registries of objects the judge cannot carry to the driver, as
    lists compared by identity (``ProcState.guard``), each read where the interpreter reads it: gc's callbacks, the
    codec search functions, ``sys.path``'s entries that are no str (``_path`` carries the strings; an import ignores
    the rest, a test reading ``sys.path`` does not), ``sys.meta_path`` and ``sys.path_hooks`` (the import system
    reads the attributes), copyreg's dispatch table (what ``pickle`` reduces a type with) and the fork handlers
    (``os.register_at_fork``'s lists, ``_FORKS``)."""
    p, mp, ph = _sys.path, _sys.meta_path, _sys.path_hooks
    return [list(_GC_CALLBACKS), list(codecs) if codecs is not None else [],
            [e for e in p if _type(e) is not str] if _type(p) is list else [p],
            list(mp) if _type(mp) is list else [mp], list(ph) if _type(ph) is list else [ph],
            [*_DISPATCH.keys(), *_DISPATCH.values()], [x for f in _FORKS for x in (*f, None)]]


def _same_lists(a: list, b: list) -> bool:
    return _len(a) == _len(b) and all(_len(x) == _len(y) and all(map(_is_, x, y)) for x, y in zip(a, b))


import copyreg as _copyreg  # noqa: E402

_DISPATCH = _copyreg.dispatch_table  # (the object ``_pickle`` holds; a rebound attribute is not it)
_REGISTRY_NAMES = ("gc.callbacks", "codec search functions", "sys.path entries that are not str", "sys.meta_path",
                   "sys.path_hooks", "copyreg.dispatch_table", "os.register_at_fork handlers")
_FORKS: list = []  # (subject) the interpreter's three lists of fork handlers (``fork_handler_lists``), once found


# -- the rest of the interpreter's state, read at its source at every reply (red team r32atk6) -----------------
CENSUS_RULE = """Every piece of interpreter-wide state the test's own code can read under plain pytest is, in the judged
run, either carried (SYNCED), or read in the subject at its source after every call and a change of the tree's a
fault (GUARDED), or named OPEN (``PROCESS_STATE``). The census below is every getter the standard library offers for
such state that no row above covers, read at each reply in the thread that serves the test's calls (thread-local
items: the async generator hooks, the coroutine origin tracking depth, the nice value, which Linux keeps per thread):
``tracemalloc`` (tracing and its frame limit), gc's debug flags and frozen generation (its count, which a frozen
object's death lowers, and whether a ``gc.freeze`` ran since the last reply, which moves a witness the subject made
then into it, ``froze_since``: a freeze is a fault whatever the count, one in a call that also frees frozen objects
and ends lower included, red team atk12),
``sys.get_asyncgen_hooks``, ``sys.get_coroutine_origin_tracking_depth``, ``os.getpriority``, ``sys.getdlopenflags``,
and the audit hooks (``sys.addaudithook`` is an audit event the subject's own hook hears; a hook cannot be removed).
A registry with no reader is read where the interpreter keeps it, found once before any code of the tree runs: the
fork handlers (``os.register_at_fork``'s three lists, guarded with the other registries: an installed library's own
import adding one is the library's, ``_Loads.load``), the codec error handlers (``codecs.register_error``'s dict), the
ABC registrations (``abc.get_cache_token``, which every registration moves: ``ABCMeta.register`` is watched, and a
move it did not see is a fault), ``sys.path_importer_cache`` (an entry is the import system's only when its finder is
of the interpreter's classes, for that very path, with the interpreter's loaders) and the finders an import goes
through (every import of a name not yet loaded checks ``sys.meta_path`` and ``sys.path_hooks`` against the state last
accepted: a finder of the tree's added and removed within one call is seen at the import it served), and the
members of the interpreter's classes (``library_classes_moved``: each mutable class a module of the interpreter's files
defines, its dict's version tag read at each reply; a plain member crosses, ``cm``, any other change is a fault;
bookkeeping aside). ``threading.stack_size`` is plain data and synced (``ts``). What the test
can use of the tree's registrations crosses: a codec error handler the tree registers is registered in the driver
under its name as a stand-in of the tree's function (the test's ``encode(..., 'qmark')`` calls it), and an ABC of the
interpreter's (named by identity: its module's own attribute) with a class registered by the tree is registered in the
driver with the same class (an interpreter's class by its name, a class of the tree as its stand-ins); a builtin
handler name replaced, an ABC that cannot be named, or an instance of another class of the same name as a registered
class of the tree's crossing afterwards is a fault."""
_CENSUS_NAMES = ("tracemalloc", "tracemalloc's traceback limit", "gc's debug flags", "gc's frozen objects",
                 "the audit hooks", "sys.getdlopenflags", "the async generator firstiter hook",
                 "the async generator finalizer hook", "the coroutine origin tracking depth", "the nice value")
_CENSUS_LOCAL = 6  # the items from here on are the serving thread's own (read only there)
_CENSUS_FROZEN = _CENSUS_NAMES.index("gc's frozen objects")  # (a count the death of a frozen object lowers)
try:
    import _tracemalloc
    _TM = (_tracemalloc.is_tracing, _tracemalloc.get_traceback_limit)
except ImportError:  # pragma: no cover - every CPython has it
    _TM = (lambda: False, lambda: 1)
_GC_CENSUS = (_gc.get_debug, _gc.get_freeze_count)
_GC_OBJECTS, _REPEAT = _gc.get_objects, _itertools.repeat
_DLOPEN = getattr(_sys, "getdlopenflags", lambda: 0)
_AGEN_HOOKS, _CORO_DEPTH = _sys.get_asyncgen_hooks, _sys.get_coroutine_origin_tracking_depth
_GETPRIORITY, _PRIO = getattr(_os, "getpriority", None), getattr(_os, "PRIO_PROCESS", 0)
_CENSUS_VALUES = (int, bool, float, str, type(None))


def census(hooks: list, local: bool) -> list:
    """(subject, at each reply) The census's items now (``CENSUS_RULE``); ``local``: this is the serving thread, whose
    own items are read too (else None for them). ``hooks``: the audit hooks added since the subject began."""
    out = [_TM[0](), _TM[1](), _GC_CENSUS[0](), _GC_CENSUS[1](), _len(hooks), _DLOPEN()]
    if not local:
        return out + [None] * (_len(_CENSUS_NAMES) - _CENSUS_LOCAL)
    ag = _AGEN_HOOKS()
    try:
        nice = _GETPRIORITY(_PRIO, 0) if _GETPRIORITY is not None else 0
    except OSError:
        nice = None
    return out + [ag[0], ag[1], _CORO_DEPTH(), nice]


def frost_witness() -> list:
    """(subject, at each reply) A fresh gc-tracked object, in generation 0 now: what ``froze_since`` looks for at the
    next reply (``CENSUS_RULE``, the frozen generation)."""
    return []


def froze_since(witness: list, _objects=_GC_OBJECTS, _any=any, _map=map, _is=_operator.is_, _repeat=_REPEAT) -> bool:
    """Whether a ``gc.freeze`` ran since ``witness`` was made: a freeze moves every object of generations 0, 1 and 2,
    the witness included, into the permanent generation, which ``gc.get_objects`` does not list, and nothing but an
    unfreeze (which empties the count) moves it back. The generations are listed youngest first (a collection moves
    the witness only to an older one, so one between two listings leaves it in a later one; the survivors of a
    collection are merged before any finalizer of it runs), the oldest, the largest, only when the witness is in
    neither younger one. Compared by identity, in C (no ``__eq__`` of the tree's runs). Every name it calls is a
    default bound here (no global is looked up while it holds a listing: ``gc.get_objects`` from this code is no
    evidence to the subject's audit hook, ``traversal_codes``)."""
    for gen in (0, 1, 2):
        if _any(_map(_is, _objects(gen), _repeat(witness))):
            return False
    return True


def census_moved(now: list, then: list, froze: bool = False) -> list:
    """The census items that differ (a hook by identity, a number by value); an item not read (None on one side for a
    thread-local one read elsewhere) is not compared. ``then`` takes ``now``'s read values. ``froze``: a ``gc.freeze``
    ran since ``then`` was read (``froze_since``): the frozen count moved whatever its value, unless it is 0 (an
    unfreeze after it: the count and what it counts as they were, or a fault by the count)."""
    out = []
    for i, (a, b) in enumerate(zip(now, then)):
        if i == _CENSUS_FROZEN and froze and _type(a) is int and a > 0:
            out.append(_CENSUS_NAMES[i])
            then[i] = a
            continue
        if a is b or (i >= _CENSUS_LOCAL and (a is None or b is None) and _type(a) in _CENSUS_VALUES
                      and _type(b) in _CENSUS_VALUES):
            if a is not None:
                then[i] = a
            continue
        if _type(a) is _type(b) and _type(a) in _CENSUS_VALUES and a == b:
            continue
        if i >= _CENSUS_LOCAL and a is None:
            continue
        if i == _CENSUS_FROZEN and _type(a) is int and _type(b) is int and 0 < a < b:  # frozen objects freed (no
            then[i] = a  # freeze: ``froze``; no unfreeze, which leaves none); a freeze seen stays faulted where it was made
            continue
        out.append(_CENSUS_NAMES[i])
        then[i] = a
    return out


def codec_error_registry() -> dict | None:
    """The interpreter's codec error handlers (``codecs.register_error`` writes it, ``lookup_error`` reads it; no
    function lists it): the one dict that maps "strict" and "ignore" to the handlers ``lookup_error`` gives (found by
    ``gc.get_referrers``, in the subject before its audit hook is on: ``SOURCES``)."""
    import codecs
    strict, ignore = codecs.lookup_error("strict"), codecs.lookup_error("ignore")
    found = [r for r in _gc.get_referrers(strict) if _type(r) is dict and r.get("strict") is strict
             and r.get("ignore") is ignore]
    return found[0] if _len(found) == 1 else None


BUILTIN_ERROR_HANDLERS = frozenset({"strict", "ignore", "replace", "xmlcharrefreplace", "backslashreplace",
                                    "namereplace", "surrogateescape", "surrogatepass"})


def _named_library_class(cls) -> str | None:
    """``MODULE:QUALNAME`` of a class of the interpreter's files that its module names by identity (the module's own
    attribute, walked by the class's qualified name, is ``cls``); else None. Read from the dicts, never by the class's
    code: a class of the tree calling itself ``collections.abc.Sequence`` is not the module's."""
    try:
        modname, qual = _TYPE_DICT(cls).get("__module__"), _TYPE_QUALNAME(cls)
        mod = _sys.modules.get(modname) if _type(modname) is str else None
        if mod is None or _type(qual) is not str or "<" in qual or \
                not _library_value(cls) and trusted_name(cls) is None:
            return None
        obj: object = mod
        for part in qual.split("."):
            ns = _MODULE_DICT(obj) if _isinstance(obj, _types.ModuleType) else _TYPE_DICT(obj)
            obj = ns.get(part)
        return f"{modname}:{qual}" if obj is cls else None
    except Exception:  # noqa: BLE001 - what the interpreter cannot read so: unnamed
        return None


def _library_class_here(name: str):
    """(driver) The class ``_named_library_class`` named, from the module of the interpreter's files (imported if it
    is not yet); None when it is not one."""
    modname, _, qual = name.partition(":")
    try:
        mod = _sys.modules.get(modname) or _import_module(modname)
        f = _MODULE_DICT(mod).get("__file__")
        if _type(f) is str and not trusted_file(f):
            return None
        c: object = mod
        for part in qual.split("."):
            c = _vars(c)[part]
        return c if _isinstance(c, type) else None
    except Exception:  # noqa: BLE001 - not importable here, or no such class: none
        return None


class _AbcRegistrations:
    """(subject) ``ABCMeta.register`` watched at its source (abc's ``_abc_register``, which the method calls): each
    registration that moved ``abc.get_cache_token()`` is counted, and one made outside an installed library's own
    import is kept to cross (``ProcState``'s ``ar``). The token is read at each reply: a move this did not count (a
    registration through ``_abc`` directly) is a fault (``CENSUS_RULE``)."""

    def __init__(self, abc_mod, token):
        self.mod, self.orig, self.token = abc_mod, abc_mod._abc_register, token
        self.seen = 0
        self.new: list = []

    def __call__(self, cls, subclass):
        before = self.token()
        try:
            return self.orig(cls, subclass)
        finally:
            after = self.token()
            if after != before:
                self.seen += after - before
                rec = _LOADS[0] if _LOADS else None
                if not (rec is not None and rec.origins and rec.origins[-1]) and _len(self.new) < 10_000:
                    self.new.append((cls, subclass))


_ABC_WATCH: list = []


def watch_abc_registrations() -> "_AbcRegistrations | None":
    """(harness.judge.subject_main, before the tree runs) ``_AbcRegistrations`` installed once per process."""
    if _ABC_WATCH:
        return _ABC_WATCH[0]
    import _abc
    import abc
    if not callable(getattr(abc, "_abc_register", None)):
        return None
    w = _AbcRegistrations(abc, _abc.get_cache_token)
    abc._abc_register = w  # type: ignore[attr-defined]
    _ABC_WATCH.append(w)
    return w


def drop_abc_watch() -> None:
    """``watch_abc_registrations`` undone (a unit test leaves its process as it found it)."""
    if _ABC_WATCH:
        w = _ABC_WATCH.pop()
        if w.mod._abc_register is w:
            w.mod._abc_register = w.orig


def _import_system_classes() -> dict:
    """The import system's own classes (``FileFinder``, ``SourceFileLoader``, ``zipimporter``...), by identity, as this
    module found them when it loaded (frozen modules: never a file of the tree's)."""
    out: dict = {}
    for name in ("_frozen_importlib", "_frozen_importlib_external", "zipimport"):
        mod = _sys.modules.get(name)
        for v in list(_MODULE_DICT(mod).values()) if _isinstance(mod, _types.ModuleType) else ():
            if _isinstance(v, type):
                out[id(v)] = v
    return out


_IMPORT_CLASSES = _import_system_classes()


def _interpreter_object(x) -> bool:
    """Whether ``x`` (a finder, a path hook, a loader) is of the interpreter's: a class or a function of its files, or
    an instance of such a class (``_library_value``), or a static type."""
    if _isinstance(x, type):
        return _IMPORT_CLASSES.get(id(x)) is x or _library_value(x) or \
            trusted_name(x) is not None and not _TYPE_FLAGS(x) & _HEAPTYPE
    if _isinstance(x, (_types.FunctionType, _types.MethodType)):
        if _isinstance(x, _types.MethodType) and not _interpreter_object(x.__self__):
            return False
        code = getattr(getattr(x, "__func__", x), "__code__", None)
        fn: str = getattr(code, "co_filename", None) or ""
        return _type(fn) is str and (fn.startswith("<frozen ") or fn.startswith("/") and trusted_file(fn))
    if not (_IMPORT_CLASSES.get(id(_type(x))) is _type(x) or _library_value(_type(x))):
        return False
    try:  # (an instance of the interpreter's class holding a function of the tree's: ``SimpleNamespace(find_spec=f)``)
        own = list(_vars(x).values()) if hasattr(x, "__dict__") else []
    except Exception:  # noqa: BLE001
        return False
    return not any(_isinstance(v, (_types.FunctionType, _types.MethodType)) and not _interpreter_object(v) for v in own)


def _finder_faithful(key, v) -> bool:
    """A ``sys.path_importer_cache`` entry the import system could have made: None, or a finder of the interpreter's
    classes for that very path (a ``FileFinder``'s ``path``) with the interpreter's loaders."""
    if v is None:
        return True
    if not _interpreter_object(v):
        return False
    path: str = getattr(v, "path", None) or ""
    if path and _type(path) is str and _type(key) is str and path != key:
        try:
            if _os.path.abspath(path) != _os.path.abspath(key or "."):
                return False
        except Exception:  # noqa: BLE001
            return False
    loaders = getattr(v, "_loaders", ())
    try:
        return all(_interpreter_object(entry[1]) for entry in list(loaders))
    except Exception:  # noqa: BLE001 - loaders the judge cannot read: not the import system's
        return False

# (subject) The members of the interpreter's classes (``CENSUS_RULE``): every mutable class a module of the
# interpreter's files defines, its dict's version tag read at each reply (``_dict_cells``: one 8-byte read a class);
# a class whose tag moved is compared with its dict as last accepted. Watched from just before the first request
# (``watch_library_classes``) and, for a library the tree imports, from the end of that library's own load.
_CW: dict = {"ids": set(), "classes": [], "cells": [], "vals": [], "snaps": []}
_CW_EXEMPT = frozenset({"__slotnames__"})  # copyreg's cache of a class's slot names (``copy``/``pickle`` make it)
_CW_PLAIN = (bool, int, float, str, bytes, type(None))  # a member set to one of these crosses (``library_classes_moved``)


def _library_classes(mods) -> list:
    """The mutable classes the modules ``mods`` (of the interpreter's files) define, not yet watched."""
    out, ids = [], _CW["ids"]
    for mod in mods:
        try:
            if not _isinstance(mod, _types.ModuleType):
                continue
            ns = _MODULE_DICT(mod)
            f, name = ns.get("__file__"), ns.get("__name__")
            if _type(f) is not str or not trusted_file(f) or _type(name) is not str:
                continue
            for v in list(ns.values()):
                if _isinstance(v, type) and id(v) not in ids and _TYPE_FLAGS(v) & _HEAPTYPE and \
                        not _TYPE_FLAGS(v) & _IMMUTABLETYPE and _TYPE_DICT(v).get("__module__") == name:
                    ids.add(id(v))
                    out.append(v)
        except Exception:  # noqa: BLE001 - a module the judge cannot read so: not watched
            continue
    return out


def watch_library_classes(mods=None) -> None:
    """(subject) Watch the classes of ``mods`` (every module loaded now when None)."""
    if _VERSIONS is None:
        return
    new = _library_classes(list(_sys.modules.values()) if mods is None else mods)
    if not new:
        return
    cells = _dict_cells(new)
    if cells is None:
        return
    _CW["classes"] += new
    _CW["cells"] += cells
    _CW["vals"] += list(map(_VERSIONS[2], cells))
    _CW["snaps"] += [dict(_TYPE_DICT(c)) for c in new]


def _class_versions() -> list:
    return list(map(_VERSIONS[2], _CW["cells"])) if _VERSIONS is not None and _CW["cells"] else []


def library_classes_moved(accept: bool = False, start: list | None = None, sync: list | None = None) -> list:
    """(subject) The watched classes whose members changed since last accepted: names of those whose dict differs
    from the snapshot by more than an exempt entry (``_CW_EXEMPT``; a private, non-dunder name whose old and new
    values are plain scalars: the interpreter's own bookkeeping, ``weakref.finalize._dirty``) or a member set to (or
    deleted from) plain data, which goes to ``sync`` instead ([the class's name, the member, its value, deleted]:
    ``socketserver.TCPServer.allow_reuse_address = True`` holds in the driver too). Each is accepted as it is now
    (named once). ``accept``: every change is accepted, for those whose tag was as accepted at ``start`` (an
    installed library's own load, ``_Loads.load``)."""
    now = _class_versions()
    vals = _CW["vals"]
    if now == vals:
        return []
    out: list = []
    for i, (a, b) in enumerate(zip(now, vals)):
        if a == b:
            continue
        cls, snap = _CW["classes"][i], _CW["snaps"][i]
        cur = dict(_TYPE_DICT(cls))
        if accept:
            # (a class first watched after ``start`` was read is one a module loaded inside this library's own load
            # defined: ``tomllib`` sets ``TOMLDecodeError.__module__`` after its ``_parser`` is loaded and watched)
            if start is not None and (i >= _len(start) or start[i] == b):
                _CW["snaps"][i], vals[i] = cur, a
            continue
        changed = [k for k in set(cur) | set(snap) if not (k in cur and k in snap and cur[k] is snap[k])]
        changed = [k for k in changed if not _exempt_member(k, snap.get(k, _NOT_LOADED), cur.get(k, _NOT_LOADED))]
        name = _named_library_class(cls) if changed else None
        name = name if name is not None and _stdlib_class(name) else None  # (an installed package's: a fault)
        plain = [k for k in changed if _type(k) is str and k[:2] != "__" and _type(cur.get(k)) in _CW_PLAIN]
        if changed and name is not None and sync is not None and _len(plain) == _len(changed) and _len(sync) < 256:
            sync += [[name, k, cur.get(k), k not in cur] for k in plain]
        elif changed:
            out.append(f"{_TYPE_DICT(cls).get('__module__')}.{_TYPE_QUALNAME(cls)}"[:80])
        _CW["snaps"][i], vals[i] = cur, a
    return out


def _stdlib_prefixes() -> tuple:
    import sysconfig
    paths = sysconfig.get_paths()
    keys = [paths[k] for k in ("stdlib", "platstdlib") if paths.get(k)]
    site = tuple(_os.path.realpath(paths[k]) for k in ("purelib", "platlib") if paths.get(k))
    return tuple(p for p in {_os.path.realpath(k) for k in keys} | {_os.path.abspath(k) for k in keys}), site


_STDLIB = _stdlib_prefixes()


def _stdlib_class(name: str) -> bool:
    """Whether ``MODULE:QUALNAME`` (``_named_library_class``) is of a module of the standard library's own files (not
    an installed package's: pytest's classes in the driver are never the tree's to set)."""
    mod = _sys.modules.get(name.partition(":")[0])
    f: str = _MODULE_DICT(mod).get("__file__") or "" if _isinstance(mod, _types.ModuleType) else ""
    if _type(f) is not str or not f.startswith("/"):
        return False
    real = _os.path.realpath(f)
    return real.startswith(_STDLIB[0]) and not (_STDLIB[1] and real.startswith(_STDLIB[1]))


def _apply_class_members(cm, ps) -> None:
    """(driver) The plain members the tree set on (or deleted from) the interpreter's classes (``cm``), set here on the
    driver's same class (``_library_class_here``); one this side cannot set is a fault."""
    if _type(cm) is not list or not all(_type(e) is list and _len(e) == 4 and _type(e[0]) is str and _type(e[1]) is str
                                        and _type(e[2]) in _CW_PLAIN for e in cm):
        raise RemoteError("malformed class members")
    for name, k, v, deleted in cm[:256]:
        cls = _library_class_here(name)
        if cls is not None and not _stdlib_class(name):
            cls = None
        try:
            if cls is None or k[:2] == "__":
                raise TypeError("no such class here")
            if deleted is True:
                if k in _TYPE_DICT(cls):
                    type.__delattr__(cls, k)
            else:
                type.__setattr__(cls, k, v)
        except Exception:  # noqa: BLE001 - not settable here: the test would read another value
            ps.faults.append(f"a member the tree set on {name[:60]} could not be set here (harness.judge.subject_rpc "
                             "CENSUS_RULE)")


def _exempt_member(k, old, new) -> bool:
    """The interpreter's own bookkeeping in a class's dict: copyreg's ``__slotnames__`` cache, the empty
    ``__annotations__`` a read of it makes, a private non-dunder plain scalar changed (``weakref.finalize._dirty``)."""
    if k in _CW_EXEMPT or k == "__annotations__" and old is _NOT_LOADED and _type(new) is dict and not new:
        return True
    plain = (bool, int, float, str, type(None))
    return _type(k) is str and k[:1] == "_" and k[:2] != "__" and _type(old) in plain and _type(new) in plain


# -- the namespaces of the interpreter's modules (``MODULE_STATE_RULE``) --------------------------------------------
MODULE_STATE_RULE = """Every binding in the namespace of every module of the interpreter's (the standard library's and
installed packages' files, and the built-in modules: ``sys``, ``builtins``), and every container below one (a ``dict``,
``list`` or ``set`` bound there, and those in their values and items, to ``MAX_MODULE_DEPTH`` levels: a module's
registry, ``shutil._ARCHIVE_FORMATS``, ``linecache.cache``, ``urllib.parse.uses_relative``, ``os.supports_fd``,
``sysconfig._INSTALL_SCHEMES[scheme]``), is one state under plain pytest: what the tree's call writes there the test
reads. In the judged run the subject reads each watched dict at each reply by its version tag (``ma_version_tag``: one
8-byte read a dict, ``_dict_cells``) and each list and set by its items' identities (all at once, in C:
``_seqs_moved``); a container that moved is compared with its copy as last accepted, by identity, and each binding,
entry or content the tree added, replaced or deleted is (1) carried to the driver, set in the driver's same module or
container (``mg``: a binding, an entry, a nested entry by its path, a list's or set's whole content), when it is plain
data (None, bool, int, float, str, bytes, a compiled pattern as its pattern and flags, tuples, lists and dicts of them:
``tempfile.tempdir``, ``sys.dont_write_bytecode``, ``builtins.x = 1``, a ``linecache`` or ``mimetypes`` entry, a first-use
``urllib.parse._typeprog``, a first-use ``platform._os_release_cache``); (2) accepted as the import system's or the library's own: a submodule bound on its
package; a package's re-export of its own submodule's class or function under that object's own name
(``concurrent.futures.ThreadPoolExecutor``, bound by its ``__getattr__`` on first use); a binding made on first use,
from None to an instance of the interpreter's classes that is not callable (asyncio's event loop policy,
``tempfile._name_sequence``); an entry of a memo (``_MW_MEMO``, ``_MW_MEMO_SETS``, ``_MW_MEMO_BINDINGS``: ``re._cache``,
``encodings._cache``, ``_strptime``'s caches, ``platform._uname_cache``, asyncio's coroutine type cache) that equals
what the library's own code computes of its key afresh, in the subject (a memo's entry removed: an eviction); the
interpreter's bookkeeping of live objects in ``_MW_LAZY`` (import locks, ``threading._active``, ``logging._handlerList``);
``linecache.lazycache``'s entry; what ``importlib.reload`` of a module of the interpreter's binds anew in that module's
own dicts while its code runs again (``_Loads.reexec``) that is no plain data (its functions and classes: its code's
own, as the driver's import made them; a plain value it computed crosses as in (1)). ``mimetypes.init`` is run in the
subject at that module's own load (``_MW_EAGER``), so that its lazy rebinding of the maps is the load's; or (3) a fault:
any other value (a function: ``json.dumps`` replaced, ``pytest.approx``, ``os.getcwd`` at the tree's import,
``threading.setprofile``'s hook; a registry entry or set member holding one; a memo's entry its code would not compute;
a first-use binding to an instance of the tree's class; a binding the tree made before a reload in the same call, or in
another module). The same reading is made at each call-out of the tree's call (the test's callback, run in the driver,
reads what the tree wrote so far, even if the tree undoes it before its reply): plain changes cross with the call-out,
others are a fault. Names another row carries or guards (``sys.path``, the streams, ``os.environ``, the time zone,
``time.sleep``, logging's factory, class and level names, ``copyreg.dispatch_table``, ``warnings``) are that row's; an
installed library's own load (``_Loads.load``), the driver's state and the test's patches applied in the subject are
accepted (only the containers the tree had not changed before), as the driver's import of the library and the test's
patch make them too. Open: containers that are no dict, list or set, or sit in an instance's attribute
(``mimetypes._db``'s other maps) or a tuple, or past ``MAX_MODULE_DEPTH`` or ``MAX_MODULE_CONTAINERS``; the test's own
writes to these namespaces in the driver (only its patches through ``monkeypatch``/``mock`` cross: "What the test
patches"); a write the tree makes and undoes between two messages (no call-out between); a forged entry of the
bookkeeping in ``_MW_LAZY``; a first-use binding to another instance of the interpreter's classes that is no plain
data (no value of the library's own to compare it with); and a module the judge could not read when it was watched
(not watched)."""
_MW: dict = {"ids": set(), "objs": [], "where": [], "cells": [], "vals": [], "snaps": [], "seqs": [], "flat": []}
_MW_OWN_ROOTS = frozenset({"warnings", "_warnings", "_hx_rpc", "__main__", "__mp_main__"})  # (the filters: ``_Warnings``)
# names another row of ``PROCESS_STATE`` carries or guards, and the interpreter's own bookkeeping in a namespace
_MW_OTHER_ROWS = {
    "sys": frozenset({"stdin", "stdout", "stderr", "__stdin__", "__stdout__", "__stderr__", "argv", "orig_argv", "modules",
                      "path", "meta_path", "path_hooks", "path_importer_cache", "displayhook", "excepthook",
                      "unraisablehook", "breakpointhook", "last_type", "last_value", "last_traceback", "last_exc",
                      "tracebacklimit", "ps1", "ps2"}),  # (synced, guarded or open rows; the interpreter's bookkeeping)
    "os": _NOT_CARRIED["os"],
    "time": frozenset({"tzname", "timezone", "altzone", "daylight", "sleep"}),  # (the time zone; ``SLEEPS_RULE``)
    "logging": frozenset({"_loggerClass", "_logRecordFactory", "_levelToName", "_nameToLevel"}),  # (``LOG_ROUTE_RULE``)
    "builtins": frozenset({"_"}),
    "copyreg": frozenset({"dispatch_table"}),  # (a guarded registry: ``_registries``)
}
# The interpreter's own bookkeeping of live objects (rule (2)): the module, then the names whose binding or content
# may change to any value, never compared nor carried (open: a forged entry; ``MEASURES_RULE`` reads some of them)
_MW_LAZY = {
    "_frozen_importlib": {"_module_locks", "_blocking_on"}, "importlib._bootstrap": {"_module_locks", "_blocking_on"},
    "threading": {"_active", "_limbo", "_shutdown_locks", "_main_thread", "_counter"},
    "logging": {"_handlerList"}, "multiprocessing.process": {"_children"}, "subprocess": {"_active"},
    # (the finalizers of live pools, queues and managers the process runs at its end: red team atk16, an honest tree
    # leaving a ProcessPoolExecutor open failed judged)
    "multiprocessing.util": {"_finalizer_registry", "_finalizer_counter"},
}


def _memo_re(d, k, v) -> bool:
    """``re._cache``: (type of the pattern, the pattern, its int flags) -> ``_compiler.compile`` of them."""
    if _type(k) is not tuple or _len(k) != 3 or k[0] not in (str, bytes) or _type(k[1]) is not k[0] or \
            _type(k[2]) is not int or k[2] & (_re.DEBUG | _re.TEMPLATE) or _type(v) is not _re.Pattern:
        return False
    return v == _vars(_re)["_compiler"].compile(k[1], k[2])  # (a compiled pattern compares by its pattern, flags and code)


def _memo_strptime(d, k, v) -> bool:
    """``_strptime._regex_cache``: a format -> its ``_TimeRE_cache.compile`` (that cache checked as a memo itself)."""
    m = _sys.modules.get("_strptime")
    return _type(k) is str and _type(v) is _re.Pattern and v == _MODULE_DICT(m)["_TimeRE_cache"].compile(k)


def _memo_codec(d, k, v) -> bool:
    """``encodings._cache``: an encoding's name -> ``encodings.search_function``'s answer with no entry cached (None,
    or a ``CodecInfo`` equal in its functions and fields)."""
    if _type(k) is not str:
        return False
    search = _MODULE_DICT(_sys.modules["encodings"])["search_function"]
    d.pop(k, None)
    try:
        fresh = search(k)
    finally:
        d[k] = v
    if v is None or fresh is None:
        return v is fresh
    if _type(v) is not _type(fresh) or _len(v) != _len(fresh) or not all(map(_memo_same, v, fresh)):
        return False
    mine, theirs = _vars(v), _vars(fresh)
    return mine.keys() == theirs.keys() and all(_memo_same(x, theirs[k]) for k, x in mine.items())


def _memo_same(a, b) -> bool:
    """One field of a memo's value as its own code makes it again: the same object, an equal plain value, or a method
    of the same function bound to an instance of the same class holding the same (a codec's ``Codec().encode``)."""
    if a is b or _type(a) is _type(b) and _type(a) in _MW_PLAIN and a == b:
        return True
    if _type(a) is not _types.MethodType or _type(b) is not _types.MethodType or a.__func__ is not b.__func__:
        return False
    x, y = a.__self__, b.__self__
    if _type(x) is not _type(y) or _isinstance(x, type):
        return x is y
    own_x: dict = getattr(x, "__dict__", None) or {}
    own_y: dict = getattr(y, "__dict__", None) or {}
    return _type(own_x) is dict and _type(own_y) is dict and own_x.keys() == own_y.keys() and \
        all(_memo_same(v, own_y[k]) for k, v in own_x.items())


def _memo_binding(ns, k, v, compute):
    """The value the module's own code computes for the memo ``k`` with none kept (``ns[k]`` None while it runs)."""
    ns[k] = None
    try:
        return compute(ns)
    finally:
        ns[k] = v


def _memo_uname(ns, k, v) -> bool:
    """``platform._uname_cache``: ``platform.uname()`` computed afresh (its five fields)."""
    fresh = _memo_binding(ns, k, v, lambda n: n["uname"]())
    return _type(v) is _type(fresh) and tuple.__eq__(v, fresh) is True


def _memo_time_re(ns, k, v) -> bool:
    """``_strptime._TimeRE_cache``: a ``TimeRE()`` of the current locale (its directives' regexes, its locale's names)."""
    fresh = ns["TimeRE"]()
    return _type(v) is _type(fresh) and dict(v) == dict(fresh) and _vars(v.locale_time) == _vars(fresh.locale_time)


# A memo of the standard library's own (rule (2)): a cache whose every entry (a dict's) or value (a binding's) is a
# pure function of its key, written by the library's own code on first use. Each added or replaced entry is compared by
# value with that function computed afresh (in the subject, by the library's own code): equal, it is accepted (the
# driver computes the same on its own use); else a fault. An entry removed is accepted (an eviction: recomputed on use).
_MW_MEMO = {
    ("re", "_cache"): _memo_re, ("_strptime", "_regex_cache"): _memo_strptime, ("encodings", "_cache"): _memo_codec,
}
_MW_MEMO_SETS = {("asyncio.coroutines", "_iscoroutine_typecache"): lambda x: _isinstance(x, type) and issubclass(
    x, _MODULE_DICT(_sys.modules["asyncio.coroutines"])["_COROUTINE_TYPES"])}  # (a type found to be a coroutine's)
_MW_MEMO_BINDINGS = {("platform", "_uname_cache"): _memo_uname, ("_strptime", "_TimeRE_cache"): _memo_time_re}
MAX_MODULE_CONTAINERS = 50_000  # containers watched below the modules' namespaces (``_mw_walk``); more: not watched
MAX_MODULE_DEPTH = 6  # levels of containers watched below a namespace
_MW_EAGER = {"mimetypes": "init"}  # (a lazy initialisation that rebinds the module's maps: run at the module's load)
_MW_PLAIN = (type(None), bool, int, float, str, bytes)
_MW_KEYS = (str, int, bytes, bool, type(None))
MAX_MODULE_CARRIED = 4096  # plain bindings and entries carried per reply (``mg``); more is a fault
MAX_MODULE_NODES = 500_000  # values in one carried binding or entry (a ``linecache`` entry of a long file's lines)


def _mw_watchable(name, mod) -> bool:
    """Whether ``mod`` (under ``name`` in ``sys.modules``) is a module of the interpreter's: its file is one of the
    interpreter's, or it is a built-in or frozen module (no file: ``sys``, ``builtins``, ``_frozen_importlib``)."""
    if _type(name) is not str or not _isinstance(mod, _types.ModuleType) or name.partition(".")[0] in _MW_OWN_ROOTS:
        return False
    ns = _MODULE_DICT(mod)
    if ns.get("__name__") != name:
        return False
    f = ns.get("__file__")
    if f is None:
        spec = ns.get("__spec__")
        return _type(spec) is _SPEC_TYPE and getattr(spec, "origin", None) in ("built-in", "frozen")
    return _type(f) is str and f.startswith("/") and _mw_trusted(f)


_MW_DIRS: dict = {}  # a module file's directory -> whether it (as given and resolved) is the interpreter's


def _mw_trusted(f: str) -> bool:
    """``trusted_file`` with the directory's answer kept (a watch of every module resolves each directory once): the
    file's directory, as given and resolved, is one of the interpreter's, and the file itself is no link."""
    d, _, base = f.rpartition("/")
    ok = _MW_DIRS.get(d)
    if ok is None:
        ok = _MW_DIRS[d] = _under_trusted(_os.path.abspath(d or "/")) and _under_trusted(_os.path.realpath(d or "/"))
    if not ok or not base:
        return False
    return not _os.path.islink(f)


def _mw_add(obj, where) -> bool:
    if id(obj) in _MW["ids"]:
        return False
    _MW["ids"].add(id(obj))
    _MW["objs"].append(obj)  # (held: a cell is read at its dict's address, which must stay that dict's)
    _MW["where"].append(where)
    _MW["snaps"].append({} if where[1] is not None and where[1] in _MW_LAZY.get(where[0], ()) else dict(obj))
    return True


def _mw_seq(c) -> list:
    """A list's or set's content as last accepted: [a copy (held: its items' ids stay theirs), the ids of a set's]."""
    items = list(c)
    return [items, frozenset(map(id, items)) if _type(c) is set else None]


def _mw_walk(mod: str, binding: str, path: tuple, v, depth: int) -> None:
    """Watch the containers below ``mod.binding`` (``v`` at ``path``): a dict by its version tag (``_mw_add``), a list
    or set by a copy of its content (``_MW["seqs"]``), and those in a dict's values or a list's items, to
    ``MAX_MODULE_DEPTH`` levels and ``MAX_MODULE_CONTAINERS`` in all (more: not watched)."""
    t = _type(v)
    if binding in _MW_LAZY.get(mod, ()) or path and _len(_MW["ids"]) >= MAX_MODULE_CONTAINERS:
        return
    if t is dict:
        if path and not _mw_add(v, (mod, binding, path)):
            return
        items = list(v.items())
    elif t is list or t is set:
        if id(v) in _MW["ids"]:
            return
        _MW["ids"].add(id(v))
        _MW["seqs"].append([v, (mod, binding, path), *_mw_seq(v)])
        _MW["flat"] = []
        if t is set:
            return
        items = list(enumerate(v))
    else:
        return
    if depth >= MAX_MODULE_DEPTH or (mod, binding) in _MW_MEMO:
        return
    for k, x in items:
        if _type(x) in (dict, list, set) and _type(k) in (str, int, bytes):
            _mw_walk(mod, binding, path + (k,), x, depth + 1)


def watch_library_modules(mods=None) -> None:
    """(subject) Watch the namespaces of the interpreter's modules ``mods`` (every module loaded now when None) and
    the dicts bound in them (``MODULE_STATE_RULE``)."""
    if _VERSIONS is None:
        return
    items: list = list(_sys.modules.items()) if mods is None else \
        [(_MODULE_DICT(m).get("__name__") if _isinstance(m, _types.ModuleType) else None, m) for m in mods]
    start = _len(_MW["objs"])
    for name, mod in items:
        try:
            if _type(name) is not str or not _mw_watchable(name, mod):
                continue
            eager = _MW_EAGER.get(name)
            ns = _MODULE_DICT(mod)
            if eager is not None and ns.get("inited") is False and callable(ns.get(eager)):
                ns[eager]()
            _mw_add(ns, (name, None))
            _mw_dicts(name, ns)
        except Exception:  # noqa: BLE001 - a module the judge cannot read so: not watched
            continue
    _mw_cells(start)


def _mw_dicts(name: str, ns: dict) -> None:
    other = _MW_OTHER_ROWS.get(name, ())
    for k, v in list(ns.items()):
        if _type(k) is str and v is not ns and k not in other and k != "__builtins__":
            if _type(v) is dict:
                _mw_add(v, (name, k))
            if _type(v) in (dict, list, set):
                _mw_walk(name, k, (), v, 1)


def _mw_cells(start: int) -> None:
    new = _MW["objs"][_len(_MW["cells"]):]
    if not new:
        return
    cells = _dict_cells_of(new)
    if cells is None:  # (no tag to read: not watched)
        for key in ("objs", "where", "snaps"):
            del _MW[key][start:]
        return
    _MW["cells"] += cells
    _MW["vals"] += list(map(_VERSIONS[2], cells))


def _dict_cells_of(dicts) -> list | None:
    """A ctypes cell over each dict's version tag (``_dict_cells``'s check that a write moves it made first)."""
    if _dict_cells(()) is None:
        return None
    u64 = _VERSIONS[0]
    out = []
    for d in dicts:
        out.append(u64(id(d) + _DICT_VERSION_AT))
    return out


def _module_versions() -> list:
    return list(map(_VERSIONS[2], _MW["cells"])) if _VERSIONS is not None and _MW["cells"] else []


def _seqs_moved() -> list:
    """The indices of the watched lists and sets whose content is not as last accepted (by identity, in C): at once,
    every container's length and every item in order (a set unchanged iterates as it did), else one by one."""
    seqs = _MW["seqs"]
    flat = _MW["flat"]
    if not flat:  # (the containers, their lengths and their items in order; [] when one was added or accepted anew)
        flat = _MW["flat"] = [[e[0] for e in seqs], [_len(e[2]) for e in seqs], list(_chain(e[2] for e in seqs))]
    try:
        if list(map(_len, flat[0])) == flat[1] and all(map(_is_, _chain(flat[0]), flat[2])):
            return []
    except RuntimeError:  # (one changed size while read, by a thread of the tree's: read one by one)
        pass
    out = []
    for i, (c, _, items, ids) in enumerate(seqs):
        try:
            if _len(c) == _len(items) and (all(map(_is_, c, items)) if ids is None else all(map(ids.__contains__, map(id, c)))):
                continue
        except RuntimeError:
            pass
        out.append(i)
    return out


def module_state_start() -> tuple:
    """(subject) The modules' state as it is now, for ``library_modules_moved(True, start)``: the dicts' version tags
    and the lists and sets that moved since last accepted (those the tree changed before stay the tree's)."""
    return _module_versions(), frozenset(_seqs_moved())


def _mw_plain(v, budget: list, depth: int = 0) -> bool:
    t = _type(v)
    if t in _MW_PLAIN:
        budget[0] -= 1
        return budget[0] > 0 and not (t is int and v.bit_length() > 4000)
    if t is _re.Pattern:  # (a value: its pattern and flags determine it, as ``re.compile`` of them in the driver)
        budget[0] -= 1
        return not v.flags & (_re.DEBUG | _re.TEMPLATE) and _mw_plain(v.pattern, budget, depth + 1)
    if t in (tuple, list) and depth < 4:
        budget[0] -= 1
        return budget[0] > _len(v) and all(_mw_plain(x, budget, depth + 1) for x in v)
    if t is dict and depth < 4:  # (its keys hashed as plain data: no code of the tree's runs)
        budget[0] -= 1
        return budget[0] > 2 * _len(v) and _keys_plain(v) and \
            all(_mw_plain(k, budget, depth + 1) and _mw_plain(x, budget, depth + 1) for k, x in list(v.items()))
    return False


def _mw_enc(v):
    t = _type(v)
    if t is bytes:
        return {"b": v.decode("latin-1")}
    if t is _re.Pattern:
        return {"re": [_mw_enc(v.pattern), v.flags]}
    if t is tuple:
        return {"t": [_mw_enc(x) for x in v]}
    if t is list:
        return [_mw_enc(x) for x in v]
    if t is dict:
        return {"d": [[_mw_enc(k), _mw_enc(x)] for k, x in v.items()]}
    return v


def _mw_dec(v):
    t = _type(v)
    if t is list:
        return [_mw_dec(x) for x in v]
    if t is dict:
        if _len(v) == 1 and _type(v.get("b")) is str:
            return v["b"].encode("latin-1")
        if _len(v) == 1 and _type(v.get("t")) is list:
            return tuple(_mw_dec(x) for x in v["t"])
        if _len(v) == 1 and _type(v.get("re")) is list and _len(v["re"]) == 2 and _type(v["re"][1]) is int and \
                not v["re"][1] & (_re.DEBUG | _re.TEMPLATE):
            pattern = _mw_dec(v["re"][0])
            if _type(pattern) in (str, bytes):
                return _re.compile(pattern, v["re"][1])
        if _len(v) == 1 and _type(v.get("d")) is list and all(_type(e) is list and _len(e) == 2 for e in v["d"]):
            out = {}
            for k, x in v["d"]:
                k = _mw_dec(k)
                if _type(k) not in (str, int, float, bytes, bool, type(None), tuple, _re.Pattern):
                    raise RemoteError("malformed module state")
                out[k] = _mw_dec(x)
            return out
        raise RemoteError("malformed module state")
    if t in (type(None), bool, int, float, str):
        return v
    raise RemoteError("malformed module state")


def _mw_lazy_entry(mod: str, name: str, v) -> bool:
    """``linecache.lazycache``'s entry (a 1-tuple of a ``functools.partial`` of a loader's ``get_source`` of the
    interpreter's classes: ``traceback`` makes one for every frame it formats); read in full on use, then plain."""
    if mod != "linecache" or name != "cache" or _type(v) is not tuple or _len(v) != 1:
        return False
    import functools
    p = v[0]
    if _type(p) is not functools.partial:
        return False
    f = p.func
    owner = getattr(f, "__self__", None)
    return getattr(f, "__name__", None) == "get_source" and _interpreter_object(owner)


def library_modules_moved(accept: bool = False, start: tuple | None = None, sync: list | None = None) -> list:
    """(subject) ``MODULE_STATE_RULE`` at a reply: the names of the bindings and entries the tree changed that are a
    fault; the plain ones go to ``sync`` ([kind, module, binding, key or path, value, deleted]). Each watched dict,
    list and set is accepted as it is now. ``accept``: every change is accepted (of the containers not moved from as
    accepted at ``start``, ``module_state_start``, when given: an installed library's own load; the driver's state or
    the test's patches applied here)."""
    now = _module_versions()
    vals = _MW["vals"]
    seqs = _seqs_moved()
    if now == vals and not seqs:
        return []
    tags, seq_start = start if start is not None else (None, None)
    out: list = []
    grown: list = []
    for i, (a, b) in enumerate(zip(now, vals)):
        if a == b:
            continue
        obj, snap = _MW["objs"][i], _MW["snaps"][i]
        where = _MW["where"][i]
        mod, binding, path = where[0], where[1], where[2] if _len(where) > 2 else ()
        lazy = binding is not None and binding in _MW_LAZY.get(mod, ())  # (bookkeeping: never compared, never copied)
        if accept and (tags is None or i >= _len(tags) or tags[i] == b):
            _MW["snaps"][i], vals[i] = {} if lazy else dict(obj), a
            grown.append((mod, binding, path, obj))
            continue
        if accept:
            continue
        try:
            out += _mw_changes(obj, snap, mod, binding, sync, path)
        except Exception as exc:  # noqa: BLE001 - what the judge cannot compare: fail closed
            out.append(f"{mod}{'.' + binding if binding else ''}{_mw_path(path)} ({_why(exc)})")
        _MW["snaps"][i], vals[i] = {} if lazy else dict(obj), a
        grown.append((mod, binding, path, obj))
    for i in seqs:
        e = _MW["seqs"][i]
        c, (mod, binding, path) = e[0], e[1]
        if accept:
            if seq_start is not None and i in seq_start:
                continue  # (the tree's change from before: compared at the reply)
        else:
            try:
                out += _mw_seq_changed(e, sync)
            except Exception as exc:  # noqa: BLE001 - what the judge cannot compare: fail closed
                out.append(f"{mod}.{binding}{_mw_path(path)} ({_why(exc)})")
        e[2:] = _mw_seq(c)
        _MW["flat"] = []
        grown.append((mod, binding, path, c))
    n = _len(_MW["objs"])
    for mod, binding, path, obj in grown:  # (a container newly bound or put in a watched one: watched from here on)
        if binding is None:
            _mw_dicts(mod, obj)
        elif _type(obj) is not set:
            for k, x in (obj.items() if _type(obj) is dict else enumerate(obj)):
                if _type(x) in (dict, list, set) and _type(k) in (str, int, bytes) and id(x) not in _MW["ids"]:
                    _mw_walk(mod, binding, path + (k,), x, _len(path) + 2)
    _mw_cells(n)
    return out


def _mw_path(path: tuple) -> str:
    return "".join(f"[{str(k)[:40]}]" for k in path)


def _mw_seq_changed(e: list, sync: list | None) -> list:
    """A watched list or set (``e``: it, where, its content as last accepted) whose content the tree changed: carried
    whole (``mg`` kind "c") when its items are plain, else a fault; a memo set's new members each checked instead."""
    c, (mod, binding, path) = e[0], e[1]
    items = list(c)
    memo = _MW_MEMO_SETS.get((mod, binding)) if not path else None
    if memo is not None and _type(c) is set:  # (a memo set: each member one its own code would have added)
        if all(id(x) in e[3] or memo(x) for x in items):
            return []
        return [f"{mod}.{binding} (a member its own code would not add)"]
    if sync is not None and _len(sync) < MAX_MODULE_CARRIED and mod.partition(".")[0] not in _NEVER_CARRIED and \
            _mw_plain(items, [MAX_MODULE_NODES]):
        sync.append(["c", mod, binding, [_mw_enc(k) for k in path], _mw_enc(items), _type(c) is set])
        return []
    return [f"{mod}.{binding}{_mw_path(path)} (a {_type(c).__name__}'s content)"]


def library_module_reload_begins(module, spec) -> list:
    """(subject) Before ``importlib.reload`` runs ``module``'s code again: each watched dict of that module (its
    namespace, the dicts bound in it) with a copy of it as it is now (``library_module_reloaded``). The ``__spec__``
    ``reload`` found afresh and bound before this (``spec``, the one it runs) is the reload's own."""
    ns = _MODULE_DICT(module)
    name = ns.get("__name__")
    if ns.get("__spec__") is spec and _type(name) is str:
        for i, where in enumerate(_MW["where"]):
            if where[0] == name and where[1] is None:
                _MW["snaps"][i]["__spec__"] = spec
    return [(i, obj, dict(obj)) for i, (obj, where) in enumerate(zip(_MW["objs"], _MW["where"]))
            if where[0] == name and _type(name) is str and not (where[1] is not None and where[1] in _MW_LAZY.get(name, ()))]


def library_module_reloaded(before: list) -> None:
    """(subject) After the reload: what its run bound anew in the module's own dicts (a binding or entry whose value it
    replaced or added) that is no plain data (a function, a class: its code's own, as the driver's import made it) is
    accepted as that module's own; a plain one stays to be compared at the reply, so that it crosses (the values its
    code computed here, which the driver's module does not have); any other change, the tree's before the reload in the
    same call or another module's, stays to be compared too (rule (2))."""
    snaps = _MW["snaps"]
    for i, obj, pre in before:
        snap = snaps[i]
        for k in [k for k in obj if pre.get(k, _NOT_LOADED) is not obj[k]]:
            if not _mw_plain(obj[k], [MAX_MODULE_NODES]):
                snap[k] = obj[k]


def _mw_changes(obj: dict, snap: dict, mod: str, binding, sync: list | None, path: tuple = ()) -> list:
    lazy = _MW_LAZY.get(mod, ())
    if binding is not None and binding in lazy:
        return []
    memo = _MW_MEMO.get((mod, binding)) if binding is not None and not path else None
    if memo is not None:  # (a memo: each entry added or replaced is what the library's own code computes of its key)
        items = list(obj.items())
        if not all(_type(k) is str or _type(k) is tuple and _len(k) == 3 and k[0] in (str, bytes) and
                   _type(k[1]) in (str, bytes) and _type(k[2]) is int for k, _ in items):  # (hashed without code of the tree's)
            return [f"{mod}.{binding} (an entry the judge cannot compare)"]
        return [f"{mod}.{binding}[{str(k)[:40]}] (not what its own code computes)" for k, v in items
                if snap.get(k, _NOT_LOADED) is not v and not memo(obj, k, v)]
    keys = [k for k in obj if snap.get(k, _NOT_LOADED) is not obj[k]] if _keys_plain(obj) else None
    if keys is None:
        return [f"{mod}.{binding}{_mw_path(path)} (an entry the judge cannot compare)"]
    keys += [k for k in snap if k not in obj]
    other = _MW_OTHER_ROWS.get(mod, ()) if binding is None else ()
    out: list = []
    mods = _sys.modules
    for k in keys:
        new = obj.get(k, _NOT_LOADED)
        plain = new is _NOT_LOADED or _mw_plain(new, [MAX_MODULE_NODES])
        accepted = False
        if binding is None:
            if k in other or k == "__warningregistry__" or k in lazy:
                continue
            if _isinstance(new, _types.ModuleType) and _type(mods) is dict and \
                    mods.get(_MODULE_DICT(new).get("__name__")) is new:  # (the import system's: a submodule bound)
                continue
            memo_b = _MW_MEMO_BINDINGS.get((mod, k))
            if memo_b is not None and new is not None and new is not _NOT_LOADED:
                if memo_b(obj, k, new):  # (a memo's value: what the module's own code computes afresh)
                    continue
                out.append(f"{mod}.{k} (not what its own code computes)")
                continue
            accepted = snap.get(k, _NOT_LOADED) is None and new is not None and _mw_made_lazily(new) or \
                _mw_reexport(mod, k, new)
        elif not path and _mw_lazy_entry(mod, binding, new):
            continue
        if plain and sync is not None and _len(sync) < MAX_MODULE_CARRIED and \
                mod.partition(".")[0] not in _NEVER_CARRIED and _type(k) in ((str,) if binding is None else (str, int, bytes, tuple)):
            deleted = new is _NOT_LOADED
            if path:
                sync.append(["p", mod, binding, [_mw_enc(x) for x in path + (k,)], None if deleted else _mw_enc(new),
                             deleted])
            else:
                sync.append(["b" if binding is None else "d", mod, k if binding is None else binding,
                             None if binding is None else _mw_enc(k), None if deleted else _mw_enc(new), deleted])
            continue
        if accepted:
            continue
        out.append(f"{mod}.{k}" if binding is None else f"{mod}.{binding}{_mw_path(path)}[{str(k)[:40]}]")
    return out


def _mw_made_lazily(new) -> bool:
    """A binding made on first use (rule (2)): from None to an instance, not callable, of a class of the interpreter's
    holding no function of the tree's (``_interpreter_object``): asyncio's event loop policy, ``tempfile._name_sequence``
    (a compiled pattern, ``urllib.parse._typeprog``, or a dict of plain data is plain: carried as it is, whichever the
    tree chose)."""
    return not callable(new) and not _isinstance(new, type) and _interpreter_object(new)


def _mw_reexport(mod: str, k, new) -> bool:
    """A package's re-export of its own submodule's class or function, bound under that object's own name (rule (2):
    ``concurrent.futures.ThreadPoolExecutor``, which the package's ``__getattr__`` imports and binds on first use):
    an object of the interpreter's whose module (``mod`` or one below it) binds it under that very name."""
    if not _isinstance(new, (type, _types.FunctionType, _types.BuiltinFunctionType)) or not _interpreter_object(new):
        return False
    owner = _TYPE_MODULE(new) if _isinstance(new, type) else getattr(new, "__module__", None)
    name = _TYPE_DICT(type)["__name__"].__get__(new) if _isinstance(new, type) else getattr(new, "__name__", None)
    if not isinstance(owner, str) or _type(owner) is not str or name != k or \
            not (owner == mod or owner.startswith(mod + ".")):
        return False
    m = _sys.modules.get(owner)
    return _isinstance(m, _types.ModuleType) and _MODULE_DICT(m).get(k) is new


def _keys_plain(d: dict) -> bool:
    """Whether every key of ``d`` hashes and compares without running code of the tree (a builtin scalar, a tuple of
    them, a class whose metaclass is ``type``)."""
    for k in d:
        t = _type(k)
        if t in _MW_KEYS or t is float or t is type or t is tuple and all(_type(x) in _MW_KEYS for x in k):
            continue
        if _isinstance(k, type) and _type(k) is type:
            continue
        return False
    return True


def _apply_module_state(mg, ps) -> None:
    """(driver) The plain bindings and entries the tree set in the interpreter's modules (``mg``), set in the driver's
    same module (imported here when the test has not, as the test's own import would find the tree's value); one
    this side cannot set is a fault."""
    if _type(mg) is not list or not all(_type(e) is list and _len(e) == 6 and e[0] in ("b", "d", "p", "c") and
                                        _type(e[1]) is str and _type(e[2]) is str and
                                        e[1].partition(".")[0] not in _NEVER_CARRIED and
                                        (e[0] in ("b", "d") or _type(e[3]) is list and _len(e[3]) <= MAX_MODULE_DEPTH + 1)
                                        for e in mg):
        raise RemoteError("malformed module state")
    for kind, mod, name, key, value, deleted in mg[:MAX_MODULE_CARRIED]:
        if mod in JUDGE_STATE_MODULES:
            JUDGE_MODULES_MOVED.add(f"{mod}.{name}")
        try:
            m = _sys.modules.get(mod) or _import_module(mod)
            ns = _MODULE_DICT(m)
            f = ns.get("__file__")
            if f is not None and not (_type(f) is str and trusted_file(f)):
                raise TypeError("not a module of the interpreter's here")
            if kind == "b":
                if deleted is True:
                    ns.pop(name, None)
                else:
                    ns[name] = _mw_dec(value)
                continue
            d = ns.get(name)
            if kind in ("p", "c"):  # (a container below: its path walked here, each level the same kind of container)
                path = [_mw_dec(x) for x in key]
                for x in path[:-1] if kind == "p" else path:
                    if _type(d) is dict and _type(x) in (str, int, bytes) or _type(d) is list and _type(x) is int:
                        d = d[x]
                    else:
                        raise TypeError("no such container here")
                if kind == "c":
                    items = _mw_dec(value)
                    if deleted is True and _type(d) is set and _type(items) is list:
                        d.clear()
                        d.update(items)
                    elif deleted is False and _type(d) is list and _type(items) is list:
                        d[:] = items
                    else:
                        raise TypeError("no such container here")
                    continue
                if not path or _type(d) is not dict:
                    raise TypeError("no such dict here")
                if deleted is True:
                    d.pop(path[-1], None)
                else:
                    d[path[-1]] = _mw_dec(value)
                continue
            if _type(d) is not dict:
                raise TypeError("no such dict here")
            k = _mw_dec(key)
            if deleted is True:
                d.pop(k, None)
            else:
                d[k] = _mw_dec(value)
        except Exception as exc:  # noqa: BLE001 - not settable here: the test would read another value
            ps.faults.append(f"a value the tree set in {mod[:60]}.{name[:60]} could not be set here ({_why(exc)}; "
                             "harness.judge.subject_rpc MODULE_STATE_RULE)")


MAX_ARG_ITEMS = 1_000  # a record's args crossing as data (``_plain_args``); more is not faithful, and fails on read


def _plain_args(v, budget: list, depth: int = 0) -> bool:
    """Whether a record's ``args`` are plain data (exact built-in scalars, tuples, lists and dicts of them,
    bounded): they cross as themselves, so the driver's record holds equal ``args`` and formats its
    message as the subject's did."""
    budget[0] -= 1
    if budget[0] < 0 or depth > 8:
        return False
    t = _type(v)
    if v is None or t in (bool, int, float, str, bytes):
        return True
    if t in (tuple, list):
        return all(_plain_args(x, budget, depth + 1) for x in v)
    if t is dict:
        return all(_plain_args(k, budget, depth + 1) and _plain_args(x, budget, depth + 1) for k, x in v.items())
    return False


class _Forwarder(_logging.Handler):
    """The subject's root handler: every record that reaches the subject's root logger goes to the
    driver with the next message, as plain data: its message formatted here, where its arguments live
    (``msg``), and what the driver rebuilds the record's own fields from (``_handle_record``): the
    unformatted ``msg`` when it is a str (``ma``), the ``args`` when they are plain data (``ag``,
    ``_plain_args``), the exception of ``exc_info`` through the protocol's exception encoding (``xi``:
    its class, args, fields, chain; a tree exception's class as its stand-in), or marks that a field
    could not cross faithfully (``mu``, ``au``, ``xu``): the driver's record fails closed when it is read."""

    def __init__(self, out: list, peer: "Peer | None" = None):
        super().__init__(0)
        self.out, self.peer = out, peer

    def emit(self, record) -> None:
        """A record a root handler is handed outside ``_relay_call_handlers`` (the tree called it itself):
        the driver's root handlers take it, no other logger's (``at``: the root, not its own)."""
        rec = self._encode(record)
        if rec is not None and _len(self.out) < MAX_RECORDS:
            rec["at"], rec["own"], rec["hf"] = "", False, 1
            self.out.append(rec)

    def relay(self, logger, record, found: int) -> None:
        """(``_relay_call_handlers``) A record the subject's handlers from ``logger`` up have taken (``found`` of
        them): the driver hands it to its own logger of that name (``at``; ``own``: the logger it was logged on,
        whose ``disabled`` and filters apply there too), or, for a logger outside the tree (``logging.Logger('x')``
        made directly), to the first registered one its propagation reaches. A record that reaches no registered
        logger and no handler of the subject's goes to ``logging.lastResort`` here, as in one process."""
        at = _deliver_at(logger)
        if at is None:
            if not found:
                _last_resort(logger, record)
            return
        rec = self._encode(record)
        if rec is not None and _len(self.out) < MAX_RECORDS:
            rec["at"], rec["own"], rec["hf"] = at[0], at[1], found
            self.out.append(rec)

    def _encode(self, record) -> dict | None:
        try:
            rec: dict = {}
            text = None
            for k, t in _RECORD_FIELDS.items():
                v = getattr(record, k, None)
                if k == "msg":
                    try:
                        v = text = record.getMessage()
                    except Exception:  # noqa: BLE001 - logging's own error, replayed by the driver's handlers
                        v = None
                if v is not None and t is float and _type(v) is int:
                    v = float(v)
                if _type(v) is t:
                    rec[k] = v
            if self.peer is not None:
                self._fields(record, rec, text)
            elif text is None:
                raise TypeError("a record whose message cannot be formatted")
            routed = _ROUTED[0]
            if routed is not None and routed[1] is record:  # a record of the test's (``LOG_ROUTE_RULE``): which of
                d = record.__dict__  # the test's own fields the tree left as they were (the driver puts its own back)
                rec["rt"] = [routed[0], d.get("msg") is routed[2], d.get("args") is routed[3],
                             d.get("exc_info") is routed[4] and not d.get("exc_text")]
            if record.exc_info and not rec.get("exc_text"):
                rec["exc_text"] = _FORMAT_EXC(record.exc_info)
            peer = self.peer
            if peer is not None and peer.server is not None and _get_ident() == peer.server:
                rec["st"] = 1  # logged on the thread serving the test's call: the test's thread (``LOG_ROUTE_RULE``)
            self._extra(record, rec)
            return rec
        except Exception:  # noqa: BLE001 - a record that cannot be read is handled as logging handles one
            self.handleError(record)
            return None

    def _extra(self, record, rec: dict) -> None:
        """Every other field of the record (``RECORD_FIELD_RULE``): plain scalars as they are (``x``), other plain
        data and, on the serving thread, any object through the protocol's encoding (``xe``: a tree object as its
        stand-in), else its name and type (``xl``): the driver's field faults when read, never silently missing."""
        x, xe, xl = {}, {}, {}
        for k, v in list(_vars(record).items()):
            if k in _RELAYED_OWN or (k in _RECORD_FIELDS and k in rec):
                continue
            if _type(k) is not str or k.startswith("_hx"):
                xl[k[:80] if _type(k) is str else "_hx_key"] = "a field of a name the driver cannot give a record"
            elif v is None or _type(v) in (str, int, float, bool) and (_type(v) is not int or -(1 << 62) < v < (1 << 62)):
                x[k] = v
            elif self.peer is None:
                xl[k] = qualname(_type(v))
            elif not _plain_args(v, [MAX_ARG_ITEMS]) and self.peer.server is not None and \
                    _get_ident() != self.peer.server:
                xl[k] = f"{qualname(_type(v))} (logged by a thread of the tree)"
            else:
                try:
                    xe[k] = self.peer.enc(v)
                except Exception as err:  # noqa: BLE001 - read in the driver as a fault
                    xl[k] = f"{qualname(_type(v))} ({_why(err)})"
            if _len(x) + _len(xe) + _len(xl) >= 256:
                xl["_hx_more"] = "more fields than the judge carries"
                break
        for key, part in (("x", x), ("xe", xe), ("xl", xl)):
            if part:
                rec[key] = part

    def _fields(self, record, rec: dict, text) -> None:
        """The record's own ``msg``, ``args`` and ``exc_info`` as the driver rebuilds them (see the class)."""
        peer = self.peer
        assert peer is not None
        msg, args = record.__dict__.get("msg"), record.__dict__.get("args")
        if _type(msg) is str:
            rec["ma"] = msg
        else:
            rec["mu"] = qualname(_type(msg))
        if _plain_args(args, [MAX_ARG_ITEMS]):
            rec["ag"] = peer.enc(args)
        else:
            rec["au"] = qualname(_type(args))
        if text is None and ("ma" not in rec or "ag" not in rec):
            raise TypeError("a record whose message cannot be formatted")  # (``handleError`` here, as before)
        ei = record.__dict__.get("exc_info")
        if ei is None or ei is False:
            return
        if _type(ei) is tuple and _len(ei) == 3 and ei[0] is None and ei[1] is None and ei[2] is None:
            rec["xn"] = True  # ``log.exception`` outside a handler: (None, None, None), as logging stores it
            return
        value = ei[1] if _type(ei) is tuple and _len(ei) == 3 else None
        if not _isinstance(value, BaseException) or _type(value) is not ei[0]:
            rec["xu"] = "an exc_info that is no exception's (type, value, traceback)"
            return
        if peer.server is not None and _get_ident() != peer.server:  # (handles are made by the serving thread only)
            rec["xu"] = "an exception logged by a thread of the tree"
            return
        try:
            rec["xi"] = peer.enc_exc(value)
        except Exception as err:  # noqa: BLE001 - read in the driver as a fault, never as another exception
            rec["xu"] = f"its exception could not be sent: {_why(err)}"


class _Unfaithful:
    """What stands in the driver's copy of a subject's log record for a field that could not cross as it is
    (``_RelayedRecord``, ``_ExcInfo``): any use of it is a recorded protocol fault (the test fails), never a
    value plain pytest would not read."""
    __slots__ = ("_hx_why", "_hx_peer")

    def __init__(self, peer, why: str):
        object.__setattr__(self, "_hx_why", why)
        object.__setattr__(self, "_hx_peer", peer)

    def _hx_fault(self, *args):
        peer = object.__getattribute__(self, "_hx_peer")
        why = f"a relayed log record's {object.__getattribute__(self, '_hx_why')}: plain pytest reads the record itself"
        raise peer._dec_fault(why) if peer is not None else ProtocolFault(why)

    def __getattribute__(self, name):
        object.__getattribute__(self, "_hx_fault")()

    __eq__ = __ne__ = __lt__ = __le__ = __gt__ = __ge__ = __bool__ = __hash__ = __repr__ = __str__ = __len__ = \
        __iter__ = __contains__ = __getitem__ = __call__ = __format__ = _hx_fault


class _ExcInfo(tuple):
    """A relayed record's ``exc_info``: (the exception's class, the exception, rebuilt by the protocol as a raised
    one is), with the traceback, which stays in the subject, an ``_Unfaithful`` that faults when read; unpacking,
    indexing and comparison read it, so only ``exc_info[0]``, ``exc_info[1]`` and its truth are free."""

    def __getitem__(self, i):
        got = tuple.__getitem__(self, i)
        for x in (got if _type(i) is slice else (got,)):
            if _type(x) is _Unfaithful:
                x._hx_fault()
        return got

    def __iter__(self):
        return (self[i] for i in range(tuple.__len__(self)))


class _RelayedRecord(_logging.LogRecord):
    """A relayed record one of whose ``msg``/``args`` could not cross as it is (an object, not a str; args not
    plain data): reading that field is a fault (``_Unfaithful``); its message is the text the subject formatted
    (``getMessage``), what every handler and caplog's ``messages`` read. A field the test assigns is its own."""

    def getMessage(self):
        d = self.__dict__
        if _type(d.get("msg")) is not _Unfaithful and _type(d.get("args")) is not _Unfaithful:
            return _logging.LogRecord.getMessage(self)
        return d.get("_hx_text", "")


def _field(name):
    def get(self):
        v = self.__dict__.get(name)
        if _type(v) is _Unfaithful:
            v._hx_fault()
        return v

    def put(self, value):
        self.__dict__[name] = value

    return property(get, put)


for _name in ("msg", "args"):
    setattr(_RelayedRecord, _name, _field(_name))


def _handle_record(r, peer: "Peer | None" = None) -> None:
    """In the driver: a record from the subject, rebuilt from its strings and numbers (and, with the
    ``peer``, its own ``msg``, ``args`` and ``exc_info`` as the subject's ``_Forwarder`` sent them: a field
    it could not send faithfully faults when read), handled by the driver's logger of its name (its
    handlers and its ancestors', caplog's on the root)."""
    if _type(r) is not dict:
        raise RemoteError("a malformed log record")
    d = {k: r[k] for k, t in _RECORD_FIELDS.items() if k in r and _type(r[k]) is t}
    _record_extra(r, d, peer)
    d["args"], d["exc_info"] = None, None
    name = d.get("name", "root")
    if peer is None or not ("ma" in r or "mu" in r):
        record = _MAKE_RECORD(d)
    else:
        record = _relayed(r, d, peer)
    _as_the_tests(r, record)
    at = r.get("at")
    try:
        if "at" not in r:  # (a record of an older subject's forwarder: by its name)
            _LOGGER_HANDLE(_LOG_ROOT if name == "root" else _GET_LOGGER(name), record)
        elif _type(at) is str and _type(r.get("hf")) is int:
            _deliver_record(_LOG_ROOT if at == "" else _GET_LOGGER(at), record, r.get("own") is True, r["hf"], peer)
        else:
            raise RemoteError("a malformed log record")
    except RemoteError:
        raise
    except Exception:  # noqa: BLE001 - a handler of the test's that failed: as logging reports it
        pass


def _as_the_tests(r: dict, record) -> None:
    """(driver, ``_handle_record``) A relayed record's process and thread as plain pytest's (one process: the test's,
    and the test's thread for a record logged on the thread serving its call), and, for a record of the test's the
    subject's logging made (``rt``, ``LOG_ROUTE_RULE``), the test's own ``msg``, ``args`` and exception where the tree
    left them as they were."""
    d = record.__dict__
    d["process"] = _os.getpid()
    if r.get("st") == 1:
        d["thread"] = _get_ident()
        ct = _ROUTE_STATE.get("thread")
        if ct is not None:
            try:
                d["threadName"] = ct().name
            except Exception:  # noqa: BLE001 - the subject's name stays
                pass
    rt: Any = r.get("rt")
    cur: Any = _ROUTE_STATE["current"]
    if _type(rt) is not list or _len(rt) != 4 or _type(cur) is not tuple or rt[0] != cur[0]:
        return
    if rt[1] is True:
        d["msg"] = cur[1]
    if rt[2] is True:
        d["args"] = cur[2]
    if rt[3] is True and cur[3] is not None:
        d["exc_info"], d["exc_text"] = (_type(cur[3]), cur[3], cur[3].__traceback__), None


RECORD_FIELD_RULE = """A log record of the tree's is one object under plain pytest: the test reads every field of it.
Each field of the subject's record crosses exactly or is a fault: the standard ones as their str/int/float; every
other (``extra``, a filter's) of a plain scalar as it is, of plain data (bytes, a list, a dict) and, logged on the
serving thread, of any object through the protocol's encoding (a tree object as its stand-in); one that cannot cross
is an ``_Unfaithful`` in its place (reading it is a fault), and a name no record can take (no str) a fault at once.
Nothing is dropped or renamed: a record is delivered at the logger it was logged on (``_relay_call_handlers``),
whatever name a filter of the tree gave it."""


def _record_extra(r: dict, d: dict, peer: "Peer | None") -> None:
    """(``_handle_record``) A relayed record's other fields (``RECORD_FIELD_RULE``): ``x`` as they are, ``xe``
    decoded, ``xl`` an ``_Unfaithful`` each (or, under a name no record takes, a fault now)."""
    x, xe, xl = r.get("x"), r.get("xe"), r.get("xl")
    for part in (x, xe, xl):
        if part is not None and _type(part) is not dict:
            raise RemoteError("malformed log record fields")
    for k, v in (x or {}).items():
        if _type(k) is str and not k.startswith("_hx") and (v is None or _type(v) in (str, int, float, bool)):
            d[k] = v
    for k, v in (xe or {}).items():
        if _type(k) is str and not k.startswith("_hx") and peer is not None:
            d[k] = peer.dec(v)
    for k, why in (xl or {}).items():
        text = f"field {str(k)[:80]!r} ({str(why)[:120]})"
        if _type(k) is str and not k.startswith("_hx"):
            d[k] = _Unfaithful(peer, text)
        elif peer is not None:
            peer._dec_fault(f"a relayed log record's {text}: plain pytest reads the record itself")
        else:
            raise ProtocolFault(f"a relayed log record's {text}")


def _deliver_at(logger) -> tuple | None:
    """(subject) Where the driver hands a record logged on ``logger`` (``_Forwarder.relay``): (its name, True) when
    the tree's ``loggerDict`` holds it ("" the root), else (the name of the first registered logger its propagation
    reaches, False), or None."""
    c, own, reg = logger, True, _LOG_MANAGER.loggerDict
    for _ in range(1000):
        if c is None:
            return None
        if c is _LOG_ROOT:
            return "", own
        name = getattr(c, "name", "")
        if _type(name) is str and _type(reg) is dict and reg.get(name) is c:
            return name, own
        if not getattr(c, "propagate", True):
            return None
        c, own = getattr(c, "parent", None), False
    return None


def _last_resort(logger, record) -> None:
    """``Logger.callHandlers``'s end when no handler took a record (``logging.lastResort``, or its warning)."""
    lr = _logging.lastResort
    if lr:
        if record.levelno >= lr.level:
            lr.handle(record)
    elif _logging.raiseExceptions and not logger.manager.emittedNoHandlerWarning:
        _sys.stderr.write("No handlers could be found for logger \"%s\"\n" % logger.name)
        logger.manager.emittedNoHandlerWarning = True


def _relay_call_handlers(self, record) -> None:
    """(subject) ``logging.Logger.callHandlers`` while the subject relays its records (``relay_logs``): the subject's
    own handlers from this logger up, as logging walks them (``propagate``), its forwarder aside; then the record to
    the driver, which walks its own handlers from its logger of the same name (``_deliver_record``,
    ``LOG_TREE_RULE``). ``logging.lastResort`` only when neither side has a handler (decided by the driver)."""
    fw = _LOG_RELAY[0]
    if fw is None:
        return _CALL_HANDLERS(self, record)
    c, found = self, 0
    while c:
        for h in c.handlers:
            if h is fw:
                continue
            found += 1
            if record.levelno >= h.level:
                h.handle(record)
        c = c.parent if c.propagate else None
    fw.relay(self, record, found)
    return None


_CALL_HANDLERS = _logging.Logger.callHandlers  # logging's own, before anything can replace it
_LOG_RELAY: list = [None]  # the subject's forwarder while ``_relay_call_handlers`` relays (``relay_logs``)


def relay_logs(ps: "ProcState | None") -> None:
    """(subject_main) Relay every record at the logger it was logged on (``_relay_call_handlers``); None puts
    logging's own ``callHandlers`` back (a unit test)."""
    if ps is None:
        _LOG_RELAY[0] = None
        _logging.Logger.callHandlers = _CALL_HANDLERS  # type: ignore[method-assign]
        return
    _LOG_RELAY[0] = ps.forwarder
    _logging.Logger.callHandlers = _relay_call_handlers  # type: ignore[method-assign]


def _relay_intact(loggers: list) -> bool:
    """(subject, ``ProcState.guard``) Whether every logger still hands its records through the relay: no logger
    class of the tree's with a ``callHandlers`` of its own, no method of a logger replaced on the instance."""
    if _LOG_RELAY[0] is None:
        return True
    for t in {_type(lg) for lg in loggers} | {_Logger, _type(_LOG_ROOT)}:
        if getattr(t, "callHandlers", None) is not _relay_call_handlers:
            return False
    for lg in (_LOG_ROOT, *loggers):
        d = getattr(lg, "__dict__", {})
        if _type(d) is dict and _len(d) > _len(_LOGGER_KEYS):
            if any(k not in _LOGGER_KEYS and callable(getattr(_type(lg), k, None))
                   and _LOG_CARRIED.get((id(lg), k), _MISSING) is not d[k] for k in d):  # (the test's: carried)
                return False
    return True


def _deliver_record(lg, record, own: bool, found: int, peer: "Peer | None") -> None:
    """(driver) A relayed record handed to the driver's ``lg`` as logging would: when it is the logger the record
    was logged on (``own``), its ``disabled`` and the test's filters on it first (a record the test's filter rejects
    that the tree's handlers took, ``found``, is a fault: one process would have stopped both); then the handlers up
    the tree; ``logging.lastResort`` when neither side had one. A ``handle``/``callHandlers`` the test patched is
    called itself (``mock.patch.object(logger, 'handle')`` sees the tree's record, as under plain pytest)."""
    t = _type(lg)
    if getattr(t, "handle", None) is not _LOGGER_HANDLE or getattr(t, "callHandlers", None) is not _CALL_HANDLERS \
            or "handle" in _vars(lg) or "callHandlers" in _vars(lg):
        lg.handle(record) if own else lg.callHandlers(record)
        return
    if own:
        if lg.disabled:
            return
        if not lg.filter(record):
            if found and peer is not None:
                peer._dec_fault("a filter of the test's rejected a log record the tree's handlers had taken: one "
                                "process would have stopped both (harness.judge.subject_rpc LOG_TREE_RULE)")
            return
    c, n = lg, 0
    while c:
        for h in c.handlers:
            n += 1
            if record.levelno >= h.level:
                h.handle(record)
        c = c.parent if c.propagate else None
    if not n and not found:
        _last_resort(lg, record)


def _relayed(r: dict, d: dict, peer: "Peer"):
    """The driver's record of a subject's (``_Forwarder``): ``msg`` and ``args`` as the tree logged them when
    they crossed as data, the exception of ``exc_info`` rebuilt as a raised one is (``dec_exc``); what did not
    cross faithfully an ``_Unfaithful`` that faults when read."""
    text = d.get("msg")
    if _type(r.get("ma")) is str and "ag" in r:
        args = peer.dec(r["ag"])
        if _type(args) not in (tuple, dict):
            raise RemoteError("malformed log record args")
        d["msg"], d["args"] = r["ma"], args
        record = _MAKE_RECORD(d)
        try:
            same = text is None or record.getMessage() == text
        except Exception:  # noqa: BLE001
            same = False
        if not same:  # formatted otherwise here (never for plain data): its message is the subject's
            record = _relayed_unfaithful(d, text, "args", "its args formatted otherwise than in the subject", peer)
    else:
        d["msg"] = r["ma"] if _type(r.get("ma")) is str else \
            _Unfaithful(peer, f"msg (a {str(r.get('mu'))[:80]}, not a str)")
        d["args"] = peer.dec(r["ag"]) if "ag" in r else _Unfaithful(peer, f"args (a {str(r.get('au'))[:80]})")
        record = _RelayedRecord.__new__(_RelayedRecord)
        record.__dict__.update(_MAKE_RECORD({}).__dict__)
        record.__dict__.update(d)
        record.__dict__["_hx_text"] = text if _type(text) is str else ""
    if r.get("xn") is True:
        record.exc_info = (None, None, None)
    elif "xi" in r:
        exc = peer.dec_exc(r["xi"])
        record.exc_info = _ExcInfo((_type(exc), exc, _Unfaithful(peer, "exc_info[2] (the traceback stays in the subject)")))
    elif "xu" in r:
        why = f"exc_info ({str(r['xu'])[:120]})"
        record.exc_info = _ExcInfo((_Unfaithful(peer, why), _Unfaithful(peer, why), _Unfaithful(peer, why)))
    return record


def _relayed_unfaithful(d: dict, text, field: str, why: str, peer: "Peer"):
    record = _RelayedRecord.__new__(_RelayedRecord)
    record.__dict__.update(d)
    record.__dict__[field] = _Unfaithful(peer, why)
    record.__dict__["_hx_text"] = text if _type(text) is str else ""
    return record


# -- one schedule: the tree's threads never run while the driver runs the test ----------------------------
# Under plain pytest a thread of the tree may or may not be scheduled while the test's own code runs; a run in
# which it is not scheduled at all between the tree's reply and the test's next call into the tree is one of
# the schedules plain pytest can run. The subject runs exactly that one (``Schedule``): while it waits for the
# driver's next message, and from its reply's snapshot of the state the driver copies (linked containers,
# mirrors, the process state, output, log records) until that next message has been applied, no other Python
# thread of the tree runs, so nothing the driver holds a copy of can change while the test reads it (what
# ``Peer._moved`` still checks is a backstop). The test's own waits let the tree run, as under plain pytest:
# the driver's ``time.sleep`` during a test is a ``sleep`` request the subject sleeps through (its threads
# run), and the reply carries what they did as every reply does (harness.judge.probe_runtime ``_sleep``).
import _signal  # noqa: E402 - this section's own (not ``signal``: its pthread_sigmask makes an enum of every signal, 0.4 ms a call)
import _thread  # noqa: E402
import gc as _gc  # noqa: E402

FROZEN_INTERVAL = 1.0  # the switch interval while the tree's threads are frozen (``Schedule``)
_IO: dict = {"held": None}  # the ``_HeldIO`` calls while the subject's threads are frozen, else None
_time_sleep, _getswitchinterval, _setswitchinterval = _time.sleep, _sys.getswitchinterval, _sys.setswitchinterval
_thread_count, _allocate_lock, _start_thread, _get_ident = _thread._count, _thread.allocate_lock, _thread.start_new_thread, _thread.get_ident
_gc_enabled, _gc_disable, _gc_enable = _gc.isenabled, _gc.disable, _gc.enable
_sigmask = getattr(_signal, "pthread_sigmask", None)
_ALL_SIGNALS = _signal.valid_signals() if _sigmask is not None else set()


class _HeldIO:
    """The libc calls the subject makes while its threads are frozen, made through ``ctypes.PyDLL`` so the
    calling thread keeps the GIL across them (``os.read``, ``os.write``, ``os.fstat`` and ``os.getcwd`` release
    it, and any waiting thread of the tree would run then; ``chdir`` too, for a directory the test changed). ``libc``: harness.judge.subject_main ``_held_libc``,
    made before the audit hook and before any code of the tree; the hook takes the audit events these methods
    raise (``ctypes.get_errno``, read when a call fails) as the harness's own (by their code objects' identity,
    ``codes``)."""

    def __init__(self, libc: dict):
        self._read, self._write, self._fstat, self._getcwd = libc["read"], libc["write"], libc["fstat"], libc["getcwd"]
        self._chdir = libc["chdir"]
        self._errno, self._buf, self._st, self._cwdbuf = libc["errno"], libc["buf"], libc["st"], libc["cwd"]
        self._view, self._stview = memoryview(libc["buf"]).cast("B"), memoryview(libc["st"]).cast("B")
        self._size_at = libc.get("size_at")  # st_size's offset in ``struct stat`` (checked at start-up), or None

    @classmethod
    def codes(cls) -> list:
        return [cls.read.__code__, cls.write.__code__, cls.size.__code__, cls.cwd.__code__, cls.chdir.__code__]

    def read(self, fd: int, n: int) -> bytes:
        n = min(n, _len(self._view))
        while True:
            got = self._read(fd, self._buf, n)
            if got >= 0:
                return bytes(self._view[:got])
            err = self._errno()
            if err != 4:  # EINTR: again (the freezing thread blocks the signals it can)
                raise OSError(err, _os.strerror(err))

    def write(self, fd: int, data: bytes) -> int:
        while True:
            got = self._write(fd, data, _len(data))
            if got >= 0:
                return got
            err = self._errno()
            if err != 4:
                raise OSError(err, _os.strerror(err))

    def size(self, fd: int) -> int:
        if self._size_at is None:
            return _fstat(fd).st_size
        if self._fstat(fd, self._st) != 0:
            err = self._errno()
            raise OSError(err, _os.strerror(err))
        return int.from_bytes(self._stview[self._size_at:self._size_at + 8], _sys.byteorder)

    def cwd(self) -> str:
        if not self._getcwd(self._cwdbuf, _len(self._cwdbuf)):
            err = self._errno()
            raise OSError(err, _os.strerror(err))
        return _os.fsdecode(self._cwdbuf.value)

    def chdir(self, path: str) -> None:
        if self._chdir(_os.fsencode(path)) != 0:
            err = self._errno()
            raise OSError(err, _os.strerror(err))


class Schedule:
    """(subject) One schedule plain pytest could run: the tree's threads never run while the driver runs the
    test (the section's comment above). The channel to the driver is held by one thread at a time (``hold``,
    reentrant for its holder): by the main thread whenever it is not running a request (from its reply until
    the next request has been applied), by a thread of the tree for the whole exchange of its call to a
    callback of the test. While it is held the subject's threads are frozen (``_freeze``):

    - the holder keeps the GIL: its reads, writes, ``fstat`` and ``getcwd`` go through ``_HeldIO`` (no GIL
      release), cyclic garbage collection is off (no finalizer of the tree runs), and it blocks the signals it
      can (a handler runs when the request runs, not while the test does);
    - no other thread asks for the GIL: the switch interval is ``FROZEN_INTERVAL`` and, first, one switch to a
      harness thread and back (``_settle``) makes every thread that was already waiting for the GIL wait anew
      at that interval (CPython asks the holder to drop the GIL only when a waiter's interval passes with no
      switch meanwhile). A thread that was ready runs then, before the reply's snapshot: during the call.

    With no other thread alive when the channel is taken, none can start before it is freed (only code of the
    tree starts one): only the signals and the collector are dealt with, and the reads and writes are the
    ``os`` module's. Left open, documented in docs/judge.md ("Between messages"): a freeze longer than
    ``FROZEN_INTERVAL`` lets a waiting thread run once the next message is read, before ``Peer._moved``
    compares (a recorded fault, never a pass); a thread inside a C call that does not hold the GIL finishes that
    call (a file write: the test reads the file itself, as plain pytest's does); a child process is never frozen;
    a signal delivered to another thread runs its Python handler in the main thread at its next instruction."""

    def __init__(self, libc: dict | None):
        self.io = _HeldIO(libc) if libc else None
        self.lock = _allocate_lock()
        self.owner: int | None = None
        self.depth = 0
        self.saved: tuple | None = None
        self.calls = 0  # requests of the subject's awaiting their replies (``Peer._handle_free``)
        self.go: _thread.LockType | None = None  # the switcher's locks (``_settle``), once a thread of the tree exists
        self.back: _thread.LockType | None = None

    def hold(self) -> None:
        me = _get_ident()
        if self.owner == me:
            self.depth += 1
            return
        self.lock.acquire()
        self.owner, self.depth = me, 1
        self._freeze()

    def free(self) -> None:
        self.depth -= 1
        if self.depth:
            return
        self._thaw()
        self.owner = None
        self.lock.release()

    def _freeze(self) -> None:
        sigmask = _sigmask
        mask = sigmask(_signal.SIG_BLOCK, _ALL_SIGNALS) if sigmask is not None else None
        interval, collecting = _getswitchinterval(), _gc_enabled()
        threads = _thread_count() - (self.go is not None)
        raised_to = None
        if threads > 0:
            _setswitchinterval(_raised(interval))
            raised_to = _getswitchinterval()  # (as the interpreter keeps it: whole microseconds)
            self._settle()
            _IO["held"] = self.io
        _gc_disable()
        # (the signal mask, the tree's interval, the collector's state, and the interval set here: one set since
        # is the tree's own, kept by the thaw, ``_switch_interval``)
        self.saved = (mask, interval if threads > 0 else None, collecting, raised_to)

    def _thaw(self) -> None:
        mask, interval, collecting, raised_to = self.saved or (None, None, False, None)
        self.saved = None
        _IO["held"] = None
        if interval is not None and _getswitchinterval() == raised_to:
            _setswitchinterval(interval)
        if collecting:
            _gc_enable()
        sigmask = _sigmask
        if mask is not None and sigmask is not None:
            sigmask(_signal.SIG_SETMASK, mask)

    def _settle(self) -> None:
        """One GIL switch to the harness's switcher thread and back: every thread of the tree already waiting
        for the GIL (with the interval it had then) sees a switch when its wait ends and waits again, now at
        ``FROZEN_INTERVAL``, instead of asking the holder to drop the GIL while the driver runs the test."""
        go, back = self.go, self.back
        if go is None or back is None:
            go, back = self.go, self.back = _allocate_lock(), _allocate_lock()
            go.acquire()
            back.acquire()
            _start_thread(_switcher, (go, back))
        go.release()
        back.acquire()


def _raised(interval: float) -> float:
    """The switch interval a freeze sets: the tree's own when it is already ``FROZEN_INTERVAL`` or longer, else
    ``FROZEN_INTERVAL`` and a random part under a second, in whole microseconds. A write of the tree's while frozen is
    told from the freeze's own by the value alone (``_switch_interval``): a fixed 1.0 was a value the tree could write
    and have undone by the thaw, where plain pytest keeps it (reviewer rv32); the tree reads the raised value only
    while frozen, where writing it back changes nothing, as writing back what it read does under plain pytest."""
    if interval >= FROZEN_INTERVAL:
        return interval
    return FROZEN_INTERVAL + (1 + int.from_bytes(_urandom(4), "big") % 999_999) / 1e6


def _switcher(go, back) -> None:
    """The harness's one thread in the subject (``Schedule._settle``): takes the GIL once per freeze."""
    while True:
        go.acquire()
        back.release()


# -- the test's other waits: the tree runs for the time the test waited -------------------------------------
# The schedule above is one plain pytest could run only while the test's main thread runs: the moment it waits
# in a call that releases the GIL (a child process, ``select``, a socket, a lock, an event loop's selector),
# CPython runs the tree's ready threads. The rule: **every wall-clock second the driver's main thread spends
# waiting during a test, between two messages, outside the judge's own scheduled waits (``time.sleep``,
# threading's conditions, a selector's ``select``: harness.judge.probe_runtime), is given to the tree's threads
# with the next message, before the subject compares what the driver holds a copy of (``Peer._moved``): what they
# change then is a fault (the test read it stale), what they do not change the test could not have seen
# otherwise.** The waiting is measured, not listed: the main thread's wall time minus the time it ran on a
# CPU and the time it waited for one (``/proc/thread-self/schedstat``; where that cannot be read, its CPU
# time alone, which counts waiting for a CPU as waiting: more time given, never less).
SLEEPS_RULE = """The test's waits run what the test's own reference denotes, decided by the function object the test
called, never by the name ``time.sleep`` at the call. Under plain pytest ``from time import sleep`` (or any reference the
test took) keeps the object ``time.sleep`` was when the test read it, and a later assignment of the tree's to
``time.sleep`` changes only what later reads get. So the driver's ``time.sleep`` is, at every moment, a function
standing for the subject's ``time.sleep`` as of the subject's last message: the subject keeps every value
``time.sleep`` has had (``Peer.sleeps``, its own first) and, at any message where it differs from the value last told
(one dict read), sends its index (``ts``); the driver then puts a new function standing for that index in its own
``time`` module (harness.judge.probe_runtime ``_sleep_moved``), so a reference the test took before keeps its own
index. A ``sleep`` request names the index of the function the test called, and the subject runs that value: its own
``time.sleep`` (the tree's threads run for that time) for a reference taken before the tree's assignment, the
tree's function for one taken after. Fails closed: the tree replacing ``time.sleep`` while a patch of the test's own
stands on it (plain pytest's module would lose the test's patch), a value past ``MAX_SLEEPS``, a deleted
``time.sleep``, or a function standing for a value of the tree's called where the driver cannot run it in the
subject (a thread of the test's own during a test) are faults."""
MAX_SLEEPS = 64  # values of ``time.sleep`` the subject keeps (``SLEEPS_RULE``)
SLEEP_MOVED: list = [None]  # (driver) probe_runtime's ``_sleep_moved``: index -> a fault's text or None (``SLEEPS_RULE``)
WAITS_RULE = """The time the test's main thread waits outside the judge's schedule (a child process, ``select``, a lock,
``Thread.join``: ``Waits``) is given to the tree's threads before the test's next read of anything they can write, not
only with the next message: the driver's copies (linked containers, the process state) are compared at that message as
before, and files, which the test reads directly, are given their time at the test's next act on the outside world.
Every such act raises an audit event in the driver (an open, a listing, a child, a socket: harness.judge.probe_runtime
``_GIVE_EVENTS``); at one made by the test's own code (a frame of its file in the stack) while the waiting owed
reaches ``WAIT_OWED``, the driver first sends the time (``bl`` with ``bp``), so the file the thread wrote during the
wait is there when the test opens it. Time given later, at a message (the test read the file without an audited act
first: ``os.stat``, a descriptor it held; or the test ended), is given as before, and then any change the tree's
threads make on disk during it (an open for writing, a rename, a removal, ... seen by the subject's audit hook, or a
descriptor's file that grew, shrank or was closed) is a fault: the test may have read those files stale. Open: a read without an
audit event between the wait's end and an audited act (``os.path.getsize`` then ``open``) is given its time at the act,
after the read, with no fault; a file changed in place to the same size through a descriptor opened before the give."""
WAIT_NOISE = 0.001  # a gap between two messages whose waiting is shorter than this adds nothing (``Waits``)
WAIT_OWED = 0.01  # the waiting owed is sent once it reaches this (``Waits``); less at the test's end is dropped


class Waits:
    """(driver) The time the test's main thread waited between messages (the section's comment above). ``start``
    at the end of each outermost exchange made in the test's main thread during a test, while the subject's last
    message said a thread of the tree is alive (``th``, ``on``); ``take`` at the next outermost request of that
    thread: the waiting owed, sent as ``bl`` (``Peer._give`` in the subject) once it reaches ``WAIT_OWED`` (the
    test's last exchange, ``final``, drops what is left under it: a thread not run for 10 ms is a schedule CPython
    can run). Costs a ``pread`` and a clock read at each end of a gap, and only while a tree thread lives."""

    def __init__(self, gate):
        self.gate = gate  # () -> whether the calling thread is the test's main thread during a test
        self.on = False  # the subject's last message said a thread of the tree is alive
        self.mark: tuple | None = None
        self.owed = 0.0
        self.fd: int | None = None  # /proc/thread-self/schedstat of the main thread (-1: unreadable)

    def _now(self) -> tuple:
        fd = self.fd
        if fd is None:
            try:
                fd = _os.open("/proc/thread-self/schedstat", _os.O_RDONLY | _os.O_CLOEXEC)
            except OSError:
                fd = -1
            self.fd = fd
        wall = _M_MONO()  # (bound at load: the driver's ``time.monotonic`` is ``CLOCK_READS_RULE``'s)
        if fd >= 0:
            try:
                run, queued = _os.pread(fd, 128, 0).split()[:2]
                return wall, int(run) / 1e9, int(queued) / 1e9
            except (OSError, ValueError):
                pass
        return wall, _M_TTIME() / 1e9, 0.0  # (bound at load: the driver's ``time.thread_time`` is MEASURES_RULE's)

    def start(self) -> None:
        if self.on and self.gate():
            self.mark = (_get_ident(), *self._now())

    def busy(self) -> bool:
        """(``CLOCK_READS_RULE``) The test's main thread read a clock: the whole of the current gap so far, its CPU
        time too, is owed to the tree's threads (a new gap starts now). Whether the owed time reaches ``WAIT_OWED``."""
        mark = self.mark
        if mark is None or mark[0] != _get_ident():
            return False
        now = self._now()
        gap = now[0] - mark[1]
        if self.owed + gap < WAIT_OWED:
            return False
        self.owed += gap
        self.mark = (mark[0], *now)
        return True

    def due(self) -> bool:
        """Whether the waiting owed, with the current gap's so far, reaches ``WAIT_OWED`` (the gap goes on: nothing
        is taken). For ``WAITS_RULE``'s give before the test's next act on the outside world."""
        mark = self.mark
        if mark is None or mark[0] != _get_ident():
            return False
        now = self._now()
        waited = (now[0] - mark[1]) - (now[1] - mark[2]) - (now[2] - mark[3])
        return self.owed + (waited if waited >= WAIT_NOISE else 0.0) >= WAIT_OWED

    def take(self, final: bool = False) -> float | None:
        mark = self.mark
        if mark is not None and mark[0] != _get_ident():
            return None  # (another thread's request: the main thread's gap goes on)
        self.mark = None
        if mark is not None:
            now = self._now()
            waited = (now[0] - mark[1]) - (now[1] - mark[2]) - (now[2] - mark[3])
            if waited >= WAIT_NOISE:
                self.owed += waited
        owed = self.owed
        if owed >= WAIT_OWED:
            self.owed = 0.0
            return owed
        if final:  # (the test's last exchange: what is left under ``WAIT_OWED`` is a schedule CPython can run)
            self.owed = 0.0
        return None


# -- what the test measures of its process: the driver's share and the subject's (red team r32atk8, r32atk9) -----------
import threading as _threading  # noqa: E402 - this section's own (imported already: logging imports it)

MEASURES_RULE = """Under plain pytest the test and the tree are one process, so every standard-library function that
reports a measure of the calling process or interpreter as a whole counts the tree's share: its CPU, its memory, its
threads, its garbage. The judged run splits that process in two, and the driver's own reading counts the driver only.
The inventory (harness.judge.probe_runtime ``MEASURES``, installed in the driver's modules before any code of the test
runs; each reached by the test only when it calls it, nothing per message) is written and closed; each item either
answers for both processes, the subject's share read at its source by functions this module bound when it loaded
(``measure``, run on the serving thread, never the tree's names), or, where no exact combination exists, is a fault
when the test calls it during a test with the subject in use (fail closed):

- combined: ``time.process_time``/``process_time_ns`` (the driver's plus the subject's since it loaded),
  ``time.thread_time``/``thread_time_ns`` in the test's main thread (plus the subject's serving thread's),
  ``os.times`` (user, system and the children's, each summed; elapsed the driver's), ``gc.collect`` (run in the
  driver, then in the subject under the driver's debug flags: the tree's finalizers run, the two counts summed),
  ``threading.active_count``/``activeCount`` (plus the tree's threads alive) and ``threading.enumerate`` (plus
  stand-ins of the tree's ``Thread`` objects), ``multiprocessing.active_children`` (the module's, its process
  module's and every context's: plus stand-ins of the tree's child processes alive), ``sys.getsizeof`` of a stand-in (the live object's, its own
  ``__sizeof__`` run in the subject), ``gc.get_objects`` (plus stand-ins of the tree's objects the subject's
  collector tracks, of the same generation: every object whose class the tree defined, named by its ``__module__``
  as a module whose file is the tree's, ``_tree_objects``; more than ``_M_MAX_OBJECTS`` of them, or any while the
  test's own ``gc.freeze`` holds objects in the driver, which of the tree's it would hold being unknown, a fault);
- faults: ``resource.getrusage`` (a peak resident size has no sum), tracemalloc's readings while the driver traces
  (``get_traced_memory``, ``take_snapshot``, ``get_tracemalloc_memory``, ``get_object_traceback``: the tree's
  allocations are the subject's, and peaks do not add), ``gc.get_count``/``gc.get_stats``, ``sys.getallocatedblocks``,
  ``sys.getrefcount`` of any object (a value the tree holds is referenced from the subject, a copy of the tree's is
  not the tree's object, and the driver cannot tell a copy from the test's own), ``sys.getsizeof`` of a plain value
  whose size is its history's, not its content's (``dict``, ``list``, ``set``, ``bytearray``, ``deque``: a copy's
  table is the copy's), a read of ``threading``'s registries of threads as a whole (``_active``, ``_limbo``: their
  length, keys, values, items or a copy, by the test's own code: ``_Registry``),
  ``thread_time`` in another thread of the test's, a combined measure read inside an exchange with the subject (a
  callback of the test's the tree called, a signal handler such as pytest-timeout's), and a ``gc.collect`` after which the subject saved garbage of the
  tree in its ``gc.garbage`` (``DEBUG_SAVEALL``: under plain pytest it is in the test's ``gc.garbage``); an open or
  listing of the process's own ``/proc`` entries (``/proc/self``, ``/proc/thread-self``, ``/proc/<pid>``) by the
  test's code (the driver's audit hook; ``psutil`` reads them so), a fault.

Stricter, never more lenient, where the combination over-counts: the subject's CPU for encoding replies and the
driver's for stand-ins are counted, a ``gc.collect`` counts the harness's own garbage of either side, and
``gc.get_objects`` lists the tree's objects the subject's harness still holds for a stand-in the test dropped (released
with the next message). Open: in ``gc.get_objects``, the tree's objects of the interpreter's classes (a list it keeps,
a ``dict``) and those of a class whose ``__module__`` the tree names as a module of the interpreter's;
``gc.get_referrers``/``gc.get_referents`` (the driver's objects only: a test looking for its own objects' referrers
reads them as under plain pytest; one looking for the tree's does not); ``sys.getrefcount`` called through C code
(``map(sys.getrefcount, ...)``: one more, the wrapper's argument tuple); ``gc.garbage`` read without a
``gc.collect`` of the test's after the tree's automatic collections saved into the subject's; ``threading``'s other
private state (``_dangling``, ``_shutdown_locks``) and other modules' private state; and a measure the tree's
thread takes of the test's share (the tree runs in the subject)."""
_M_PTIME, _M_TTIME, _M_TIMES = _time.process_time_ns, _time.thread_time_ns, _os.times
_M_COLLECT, _M_GET_DEBUG, _M_SET_DEBUG, _M_GARBAGE = _gc.collect, _gc.get_debug, _gc.set_debug, _gc.garbage
_M_ENUMERATE, _M_MAIN, _M_SIZEOF = _threading.enumerate, _threading.main_thread, _sys.getsizeof
_M_OBJECTS, _M_MAX_OBJECTS = _gc.get_objects, 10000
_M_BASE = (_M_PTIME(), _M_TTIME(), *_M_TIMES()[:2])  # the subject's own start-up, before any code of the tree


def measure(what, *args):
    """(subject, a ``measure`` request run through the crossing frame) The subject's share of a measure of the test's
    (``MEASURES_RULE``): "cpu" the CPU since this module loaded ([process ns, serving thread ns, user, system, children's
    user, children's system]); "gc" a collection of generation ``args[0]`` under the driver's debug flags
    ``args[1]`` ([unreachable objects found, objects saved in ``gc.garbage`` by it]); "threads" the tree's threads
    alive (every thread ``threading`` knows but the main one); "sizeof" ``sys.getsizeof`` of the live object;
    "objects" the tree's objects the collector tracks (``_tree_objects``);
    "rlimit" a resource limit of the subject's (``args``: the resource, and the test's new limits to set here too:
    ``KERNEL_RULE``)."""
    if what == "cpu":
        t = _M_TIMES()
        return [_M_PTIME() - _M_BASE[0], _M_TTIME() - _M_BASE[1], t[0] - _M_BASE[2], t[1] - _M_BASE[3], t[2], t[3]]
    if what == "gc":
        gen, flags = args
        if _type(gen) is not int or _type(flags) is not int:
            raise RemoteError("a malformed measure")
        old, n0 = _M_GET_DEBUG(), _len(_M_GARBAGE)
        _M_SET_DEBUG(flags)
        try:
            found = _M_COLLECT(gen)
        finally:
            _M_SET_DEBUG(old)
        return [found, _len(_M_GARBAGE) - n0]
    if what == "threads":
        main = _M_MAIN()
        return [t for t in _M_ENUMERATE() if t is not main]
    if what == "sizeof":
        return _M_SIZEOF(*args)
    if what == "children":  # the tree's child processes ``multiprocessing`` started and has not seen end (its own
        # ``active_children``, which reaps those that ended; a replacement of it by the tree is MODULE_STATE_RULE's fault)
        mp = _sys.modules.get("multiprocessing.process")
        return list(_vars(mp)["active_children"]()) if mp is not None else []
    if what == "objects":  # the tree's objects (``gc.get_objects``), but past ``_M_MAX_OBJECTS``: None
        if _len(args) != 1 or (args[0] is not None and _type(args[0]) is not int):
            raise RemoteError("a malformed measure")
        return _tree_objects(args[0])
    if what == "rlimit":  # (``KERNEL_RULE``: the limit the tree runs under; with a value, the test's own set carried)
        ks = _KERNEL_STATE[0] if _KERNEL_STATE else None
        if ks is None or not 1 <= _len(args) <= 2 or _type(args[0]) is not int:
            raise RemoteError("a malformed measure")
        return ks.limit(*args)
    raise RemoteError("a malformed measure")


def _tree_objects(generation):
    """(subject, ``measure`` "objects") The objects the collector tracks here (of ``generation``, or all) whose class
    is the tree's: named by its ``__module__`` (read in the class's own dict) as a module of ``sys.modules`` whose file
    is not the interpreter's (``trusted_file``); the harness's classes (its module is in no ``sys.modules``) and
    ``__main__``'s aside. None past ``_M_MAX_OBJECTS`` (``MEASURES_RULE``: the test's read faults then)."""
    memo: dict = {}
    mods, out = _sys.modules, []
    for o in _M_OBJECTS() if generation is None else _M_OBJECTS(generation):
        t = _type(o)
        tree = memo.get(t)
        if tree is None:
            name = _TYPE_DICT(t).get("__module__")
            mod = mods.get(name) if _type(name) is str and name != "__main__" else None
            f = _MODULE_DICT(mod).get("__file__") if _isinstance(mod, _types.ModuleType) else None
            tree = memo[t] = _type(f) is str and not trusted_file(f)
        if tree:
            if _len(out) >= _M_MAX_OBJECTS:
                return None
            out.append(o)
    return out


# -- every path by which the test writes a stand-in's state (red team r32atk8) -----------------------------------------
STAND_IN_PATHS_RULE = """What the test writes to a stand-in reaches the live object, by whatever path the interpreter
offers for that write, or lands in the driver's copy only (which the tree's code, in the subject, never reads) and is
then a fault at the test's end; never refused with an exception of the stand-in's own, which a test expecting one
(``pytest.raises``, an ``except``) would take for the tree's (red team atk11: a test that the tree's class is immutable,
or its object has no ``__dict__``, passed on the stand-in's ``TypeError``/``AttributeError``). The paths, all of them:
a tree class's members are written through its metaclass's hooks (``RemoteMeta.__setattr__``/``__delattr__``:
``setattr``, an assignment, ``mock``, ``monkeypatch``), which carry the write to the live class; the only other path
CPython has, ``type.__setattr__``/``type.__delattr__`` called on the class itself, writes the stand-in class's own
dict, which ``stand_in_writes`` compares at the test's end (harness.judge.probe_runtime ``leave``) with what the hooks
last left there (``_seal``, ``_unsealed``: by the identity of every key and value), a change a fault. An object's
attributes are written through the stand-in's ``__setattr__``/``__delattr__``; ``vars(o)``/``o.__dict__`` is the live
object's own dict, which crosses linked: a write to it reaches the live object with the next message, as the test's
write to the tree's dict does under plain pytest; and ``object.__setattr__`` writes the stand-in's own dict (the
driver's stand-ins have one, ``_named``'s ``open_dict``, which no other path reads or writes), which
``stand_in_writes`` finds non-empty at the test's end (the collector's referents of each stand-in alive: about 0.25 µs
a stand-in), a fault. Stricter than plain pytest (a fault where plain pytest writes), never more lenient. Open: a stand-in class of a tree
exception (its forwarded names are added after it is made, ``_exc_forward_more``), a test's subclass of a tree class
(the test's own class), a delete by the generic path (``type.__delattr__``/``object.__delattr__``) of a name the live
object has and the stand-in's own dict does not (CPython's ``AttributeError``, which a test expecting one takes), a
write by a generic path undone before the test's end, and a linked dict past the bound of links (compared at the
test's end, a fault)."""


_STAND_IN_DICTS: dict = {}  # (driver) id(stand-in class) -> [the class, its dict's items as its hooks last left them]


def _seal(cls) -> None:
    """(driver) Note what the stand-in class of a tree class (not of an exception: ``STAND_IN_PATHS_RULE``'s open part)
    holds, so that a write not made through its hooks (``_unsealed``) is seen (``stand_in_writes``)."""
    if not _isinstance(cls, RemoteMeta) or issubclass(cls, BaseException):
        return
    _STAND_IN_DICTS[id(cls)] = [cls, dict(_TYPE_DICT(cls))]


def _unsealed(cls, write, *args) -> None:
    """(driver) ``write(cls, *args)`` (``type.__setattr__``/``type.__delattr__``), the hooks' own write: what the class
    holds after it is what ``stand_in_writes`` compares with next."""
    try:
        write(cls, *args)
    finally:
        entry = _STAND_IN_DICTS.get(id(cls))
        if entry is not None and entry[0] is cls:
            entry[1] = dict(_TYPE_DICT(cls))


_STAND_IN_REFERENTS = 4  # what the collector finds in a stand-in of ``_named``'s ``open_dict``: its class and its 3 slots


def stand_in_writes(peer=None) -> list:
    """(driver, at the test's end: harness.judge.probe_runtime ``leave``) The stand-in classes whose members changed by
    another path than their hooks since they were last compared (``type.__setattr__``/``type.__delattr__`` called on
    the class: the driver's copy only), each then taken as it is; a class's ``__annotations__`` made empty by a read
    (CPython stores one at the first read of a class that has none) is no write. With ``peer``, also each stand-in of
    its objects whose own dict holds anything (``object.__setattr__`` on it: ``_named``'s ``open_dict``)."""
    out = []
    if peer is not None:
        for ref in list(peer.handles.values()):
            p = ref()
            if p is not None and _TYPE_DICT(_type(p)).get("_hx_open") is True and \
                    _len(_gc.get_referents(p)) > _STAND_IN_REFERENTS:
                out.append(f"an attribute of a {qualname(_type(p))} object")
    for entry in list(_STAND_IN_DICTS.values()):
        cls, was = entry
        now = _TYPE_DICT(cls)
        if _len(now) == _len(was) and all(was.get(k, _MISSING) is v for k, v in now.items()):
            continue
        moved = [k for k in {*now, *was} if now.get(k, _MISSING) is not was.get(k, _MISSING) and
                 not (k == "__annotations__" and k not in was and _type(now[k]) is dict and not now[k])]
        entry[1] = dict(now)
        if moved:
            out.append(f"a member of class {qualname(cls)} ({sorted(map(str, moved))[0]})")
    return out


DRIVER_OBJECTS_RULE = """What a drop frees, the other way: an object of the test's (the driver's) that the tree holds is
freed, under plain pytest, when the tree's last reference to it goes, and its finalizers (a ``__del__`` of the test's,
a weak reference's callback, a ``weakref.finalize``) run then. So the subject holds its proxies of the driver's
objects weakly (``Peer.proxy``) and, when one goes, releases it to the driver with its next message (``rl``, as the
driver releases the tree's objects); the driver forgets its export then and drops it once that exchange ends
(``Peer._release_exports``, ``_drop_exports``), so its finalizer runs before the test's next line. And a drop of a
stand-in by the test may free, in the subject, the last holder of such an object: while the driver has exported an
object of the test's whose drop runs code (``_finalizes`` at its export, ``fz_exported``) that the subject still
holds, every drop of a stand-in is released at once (a ``release`` exchange), as one of a finalizing tree object is;
its reply brings the subject's release of the test's object. Open: a finalizer the test's object gains after it
crossed (it is checked at its first export only: released with the next message), and an object the subject's
harness holds for its own bookkeeping (a linked container's items, a kept value) is released when that ends."""


CLOCK_READS_RULE = """A busy wait is a loop on a clock: under plain pytest, while the test's main thread runs Python, CPython
hands the GIL to the tree's ready threads every switch interval (5 ms), so a test polling ``time.monotonic`` until a
file a thread of the tree writes appears (or a counter it bumps moves) sees it; judged, the tree's threads are frozen
while the driver runs the test, and ``WAITS_RULE`` counts only the time the main thread was off the CPU. The rule:
every read of a clock by the test's main thread during a test (the driver's ``time.monotonic``, ``perf_counter``,
``time`` and their ``_ns``: harness.judge.probe_runtime ``_CLOCKS``, replaced before any code of the test runs) while
a thread of the tree lives and the gap since the last exchange reaches ``WAIT_OWED`` gives that whole gap, CPU time
included, to the tree's threads before the read returns (``Waits.busy``; a ``wait`` request carrying it, as a give
before an act: ``bl`` with ``bp``). More time than CPython's share for a CPU-bound thread of the tree (stricter for a
test that its thread has not yet run, as for any wait), the same for one that sleeps or waits. And a busy loop on
another clock (``datetime.datetime.now`` and ``os.times`` read it in C, as does a C library), or on none (a count of
iterations), gives the same: a thread of the driver's own (harness.judge.probe_runtime ``_pulse``, a ``_thread`` never
in ``threading``'s registries) asks the main thread every ``WAIT_OWED`` while such a gap is open to run the same give
(``Py_AddPendingCall``: at its next instruction boundary, ``_pulse_give``) when the code it interrupted is the test's
own (red team atk11: a loop on ``datetime.now`` waited with the tree's thread frozen). The pulse's thread needs the
GIL from the test's busy loop, so the driver's switch interval is the tree's, never the freeze's (``_switch_interval``:
the raised one crossed as synced state and held the GIL a second at a time; red team atk25). Open: a busy loop in a helper
of the test's outside its file (a library's, a fixture's module), as for a clock read; where ``Py_AddPendingCall``
cannot be reached (no ctypes), the clocks above only."""
_M_MONO = _time.monotonic

# -- what the kernel and the C runtime keep per process or thread (red team r32atk8) ----------------------------
KERNEL_RULE = """Every attribute the kernel or the C runtime keeps for the process, or for the thread that serves the test's
calls, that a Python test can read (with ``os``, ``signal``, ``resource``, ``locale``, ``time``, ``faulthandler``,
``atexit``, ``threading``, or a read of ``/proc/self``) is in ``PROCESS_STATE``, read in the subject at its source (the
kernel's answer, a syscall or ``/proc/self/status``, or the C library's, never a Python module's cache), and is either
SYNCED (plain data both processes can hold: the environment, the working directory, the umask, and here the time zone
and the locale) or GUARDED (a change of the tree's since it was last read is a fault that fails the test).

SYNCED here: the C library's locale, every ``LC_*`` category (``setlocale(cat, NULL)``, ``lc``: the test's
``setlocale`` reaches the tree and the tree's the test); the time zone, ``time``'s cached ``tzname``/``timezone``/
``altzone``/``daylight`` and the C library's own zone (``localtime_r``'s offset and name at two dates: ``_zone``), and a
receiver whose ``tzset`` does not give the sender's zone (a tree that set ``TZ``, called ``tzset`` and removed ``TZ``)
faults (``ProcState._check``), as does a locale the receiver refuses.

GUARDED (``KernelState``, item by item ``KERNEL_ITEMS``): the interval timers (real, virtual, prof: armed or not, and
the interval); every resource limit (``getrlimit`` of every ``RLIMIT_*``); the serving thread's signal mask (the mask
the tree left, as the freeze found it: ``Schedule.saved``); the signal dispositions the kernel keeps (``SigIgn``,
``SigCgt``: a handler installed around Python's table, by ctypes or ``faulthandler.register``; the C library's own
signals, 32 and 33, aside: ``_USER_SIGNALS``); the signal wakeup
descriptor; the serving thread's scheduling policy, priority and CPU affinity; from ``/proc/self/status`` the
credentials (``Uid``, ``Gid``, ``Groups``), process group and session, capabilities, ``NoNewPrivs``, seccomp,
speculation controls, transparent huge pages, memory nodes and the main thread's name; the descriptor table: every
descriptor open before the tree ran (0, 1, 2 and the harness's own, listed before the audit hook) still refers to the
same file (``st_dev``, ``st_ino``), and 0, 1, 2 keep their status flags (``O_APPEND``, ``O_NONBLOCK``); three hooks
the runtime runs: ``faulthandler.is_enabled()`` (the subject runs with it on, as pytest's process has it),
``threading``'s profile and trace hooks for new threads (``threading.setprofile``/``settrace``: the module globals
``Thread._bootstrap_inner`` reads) (``atexit``'s callbacks are open: a tree's registration, common and honest, runs
at the subject's exit; an installed library's own import is accepted by ``_Loads.load``, which likewise accepts the
signal dispositions a library's own load sets: ``readline``'s
``SIGWINCH``, imported by ``doctest``'s debugger; ``weakref.finalize``'s hook is registered by harness.judge.subject_main before the tree runs, as
pytest's process has it). The cheap items are read at every reply (about 10-20 µs together); the resource limits,
``/proc/self/status`` and the descriptors past 2 (about 60 µs) at the reply that ends each test (``sync``,
``_KERNEL_FULL``). Already elsewhere: the nice value (``CENSUS_RULE``), the umask, the working directory and the
environment (synced), Python's signal handlers (guarded).

The resource limits are also the test's to read and set, as in plain pytest's one process (harness.judge.probe_runtime
``_limits``): while the subject is in use, the test's ``resource.getrlimit`` (or ``prlimit`` of its own process, a
read) answers the subject's limit, the one the tree runs under, whatever the tree changed since the last reply and
undoes before the test's end; the test's ``setrlimit`` (or ``prlimit`` with limits) sets the driver's and is carried to
the subject (``measure`` "rlimit", bringing an unused subject into use), where it is no change of the tree's (the last
value compared takes it, for that resource only: ``KernelState.limit``). Inside an exchange (a callback of the
test's the tree called) either is a fault.

Left open: a change of ``/proc/self/status`` or the harness's descriptors the tree undoes before the test's end (a
limit so changed is read by the test's own ``getrlimit`` in the subject: above); a signal disposition a thread of the tree sets while a library loads (taken as the library's); descriptors the tree opens itself (a test counting ``/proc/self/fd`` in the driver does not see them; honest
trees keep files and sockets open); pending signals (the freeze blocks signals; what arrives meanwhile is delivered at
the thaw); a thread of the tree's own mask, policy and affinity (under plain pytest that thread is not the test's
either); the per-thread locale (``uselocale``), the I/O priority, the alternate signal stack, prctl's other switches
(dumpable, parent-death signal, child subreaper, timer slack, keep-caps) and the personality (each readable through
ctypes only); what the process measures of itself (CPU time, memory, context switches, threads: the accounting); and
every guarded item but the resource limits the *test* changes in the driver (a blocked signal or an interval timer
the tree would feel under plain pytest is not carried to the subject), and a limit the test sets outside a test
before the subject is in use (at collection: the subject started early keeps the limits it started under)."""
KERNEL_ITEMS = ("interval timers", "resource limits", "signal mask", "signal dispositions (SigIgn/SigCgt)",
                "signal wakeup descriptor", "scheduling policy and priority", "CPU affinity",
                "/proc/self/status (credentials, process group and session, capabilities, no_new_privs, seccomp, "
                "speculation, memory nodes, name)", "descriptor table", "standard descriptors (0, 1, 2)", "faulthandler",
                "threading's profile and trace hooks")
# the signals a program may handle (the C library's own, 32 and 33 on glibc, which it installs at a thread's creation, aside)
_USER_SIGNALS = sum(1 << (s - 1) for s in _signal.valid_signals() if 0 < s <= 64)
_KERNEL_FULL = [False]  # (subject) the reply to the test's last exchange (``sync``): every item read, the costlier too
_STATUS_FIELDS = _re.compile(rb"^(?:Name|Uid|Gid|Groups|NSpgid|NSsid|SigIgn|SigCgt|Cap\w+|NoNewPrivs|Seccomp\w*|"
                             rb"Speculation\w*|Mems_allowed|THP_enabled):[^\n]*", _re.M)


class KernelState:
    """(subject) ``KERNEL_RULE``'s guarded items, their readers bound when the subject's ``ProcState`` is made (before
    any code of the tree runs), read at every reply (``moved``) and compared with the last reply's."""

    def __init__(self):
        import faulthandler
        import fcntl
        import resource
        import threading
        self.limits = tuple(getattr(resource, n) for n in sorted(dir(resource)) if n.startswith("RLIMIT_"))
        self.getrlimit, self.setrlimit, self.getitimer = resource.getrlimit, resource.setrlimit, _signal.getitimer
        self.wakeup, self.fault_on, self.getfl, self.F_GETFL = _signal.set_wakeup_fd, faulthandler.is_enabled, \
            fcntl.fcntl, fcntl.F_GETFL
        self.threading = _vars(threading)
        self.sched = (getattr(_os, "sched_getscheduler", None), getattr(_os, "sched_getparam", None),
                      getattr(_os, "sched_getaffinity", None))
        fd, fds = SOURCES.get("status_fd"), SOURCES.get("fds")  # (found before the subject's audit hook was on)
        if _type(fd) is not int:
            try:
                fd = _os.open("/proc/self/status", _os.O_RDONLY | _os.O_CLOEXEC)
            except OSError:
                fd = -1
        self.status_fd = fd
        self.fds = self._table(fds if _type(fds) is list else None)
        self.last = self.read(True, None)
        self.key = _cheap(self.last)

    @staticmethod
    def _table(names: list | None) -> tuple:
        """The descriptors open before the tree runs (0, 1, 2 and the harness's own): ``names`` as the subject listed
        them then, else those of the process now."""
        if names is None:
            try:
                names = _os.listdir("/proc/self/fd")
            except OSError:
                names = ["0", "1", "2"]
        out = []
        for n in names:
            try:
                fd = int(n)
                _fstat(fd)
            except (ValueError, OSError):
                continue
            out.append(fd)
        return tuple(sorted(out))

    def read(self, local: bool, sched, full: bool = True) -> list:
        """The items now, in ``KERNEL_ITEMS``' order; a thread's own (mask, policy, affinity, wakeup descriptor, read
        only in the serving thread, ``local``) None elsewhere, and, unless ``full``, the costlier ones (the resource
        limits, ``/proc/self/status``, the descriptors past 2) None too."""
        it = self.getitimer
        timers = []
        for which in (0, 1, 2):
            v, i = it(which)
            timers.append((v > 0, i))
        lim = self.getrlimit
        limits = tuple(lim(r) for r in self.limits) if full else None
        mask = wake = policy = affinity = None
        if local:
            saved = sched.saved if sched is not None and sched.owner == _get_ident() else None
            if saved is not None and saved[0] is not None:
                mask = frozenset(saved[0])  # (the mask the tree left: the freeze blocked every signal since)
            elif _sigmask is not None:
                mask = frozenset(_sigmask(_signal.SIG_BLOCK, ()))
            try:
                wake = self.wakeup(-1)
                if wake != -1:
                    self.wakeup(wake)
            except (ValueError, OSError):  # (not the main thread: the wakeup descriptor is the main thread's)
                wake = None
            g, p, a = self.sched
            try:
                policy = (g(0), p(0).sched_priority) if g is not None and p is not None else ()
                affinity = a(0) if a is not None else ()
            except OSError:
                policy = affinity = ()
        status, disp = self.status() if full else (None, None)
        std: list = []
        table: list | None = [] if full else None
        for fd in self.fds:
            if fd >= 3 and table is None:
                break
            try:
                st = _fstat(fd)
                entry = (st.st_dev, st.st_ino, self.getfl(fd, self.F_GETFL) if fd < 3 else 0)
            except OSError:
                entry = None
            (std if fd < 3 else table).append(entry)  # type: ignore[union-attr]
        th = self.threading
        return [tuple(timers), limits, mask, disp, wake, policy, affinity, status,
                tuple(table) if table is not None else None, tuple(std), self.fault_on(),
                (th.get("_profile_hook"), th.get("_trace_hook"))]

    def limit(self, res: int, new=None) -> list:
        """(``measure``) The subject's limit of ``res`` now, the tree's if it changed it (``KERNEL_RULE``: the test's
        ``getrlimit`` reads the limit the tree runs under); with ``new``, the test's ``setrlimit`` carried here first,
        which is no change of the tree's: the last value compared takes it, for ``res`` only."""
        if new is not None:
            if _type(new) is not list or _len(new) != 2 or _type(new[0]) is not int or _type(new[1]) is not int:
                raise RemoteError("a malformed measure")
            self.setrlimit(res, (new[0], new[1]))
            last, now = self.last[1], self.getrlimit(res)
            if last is not None:  # (each name of it: ``RLIMIT_OFILE`` is ``RLIMIT_NOFILE``)
                self.last[1] = tuple(now if r == res else v for r, v in zip(self.limits, last))
                self.key = _cheap(self.last)
        soft, hard = self.getrlimit(res)
        return [soft, hard]

    def status(self) -> tuple:
        """``/proc/self/status``'s guarded lines, and the signal dispositions (``SigIgn``, ``SigCgt``) as numbers, the
        signals a program may handle only (``_USER_SIGNALS``); (None, None) when it cannot be read."""
        if self.status_fd < 0:
            return b"", ()
        try:
            fields = _STATUS_FIELDS.findall(_os.pread(self.status_fd, 8192, 0))
        except OSError:
            return None, None
        return (b"\n".join(f for f in fields if not f.startswith(b"Sig")),
                tuple(int(f.rpartition(b"\t")[2], 16) & _USER_SIGNALS for f in fields if f.startswith(b"Sig")))

    def accept(self, before: tuple | None, after: tuple | None) -> None:
        """The signal dispositions an installed library's own load changed (``readline``'s ``SIGWINCH``, which
        ``doctest``'s debugger imports): those bits take their new values in the state last accepted."""
        last = self.last[3]
        if last is None or before is None or after is None or _len(last) != _len(after) or before == after:
            return
        self.last[3] = tuple((was & ~(b ^ a)) | (a & (b ^ a)) for was, b, a in zip(last, before, after))

    def moved(self, local: bool, sched) -> list:
        """The items the tree changed since the last reply that read them (``KERNEL_ITEMS``' names); the last values
        take the new ones. An item not read (None: a thread's own read elsewhere; a costlier one at a reply before the
        test's end, ``_KERNEL_FULL``) is not compared."""
        full, _KERNEL_FULL[0] = _KERNEL_FULL[0], False
        now, last = self.read(local, sched, full), self.last
        out: list = []
        hooks, was = now[11], last[11]
        if not full and _cheap(now) == self.key and hooks[0] is was[0] and hooks[1] is was[1]:
            return out  # (the common case: one comparison of plain values in C)
        for i, (a, b) in enumerate(zip(now, last)):
            if a is None or b is None:
                if a is not None:
                    last[i] = a
                continue
            if a is b or (_type(a) is _type(b) and a == b and (i != 11 or all(map(_is_, a, b)))):
                continue
            out.append(KERNEL_ITEMS[i])
            last[i] = a
        self.key = _cheap(last)
        return out


_KERNEL_STATE: list = []  # (subject) the ``KernelState`` of its ``ProcState``, for ``_Loads.load``


def library_load_begins() -> tuple | None:
    """(``_Loads.load``, the outermost load of a file of the interpreter's) The signal dispositions before it."""
    return _KERNEL_STATE[0].status()[1] if _KERNEL_STATE else None


def library_load_ends(before: tuple) -> None:
    """What that load changed of the signal dispositions is the library's (``KERNEL_RULE``), as the driver's load of
    the same library does in its own process."""
    if _KERNEL_STATE:
        ks = _KERNEL_STATE[0]
        ks.accept(before, ks.status()[1])


def _cheap(items: list) -> tuple:
    """``KernelState``'s items read at every reply, but the hooks (compared by identity): plain values only."""
    return (items[0], items[2], items[4], items[5], items[6], items[9], items[10])

