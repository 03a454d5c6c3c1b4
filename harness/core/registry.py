"""One registration idiom for every part a researcher extends: engines, arms, scenario hooks,
detectors, gate kinds, mutant operators and executors.

A part is registered once, by a decorator, with what the rest of the harness needs to know about
it: a typed parameter dataclass (its fields are the part's allowed keys, their types and defaults)
and capability flags (``single_shot``, ``budgeted``, ...). Validation and applicability are derived
from that declaration, never restated elsewhere.

Built-in parts live in the modules each registry names; they are imported on first use. A
registry may instead name a *declaration* module (``harness.core.builtin_parts``) that states each
built-in's metadata (name, parameter dataclass, flags) with ``Registry.declare`` and a ``Ref`` to
its implementation: looking such a part up (``get``, ``in``, ``names``, its flags and parameters)
then imports nothing above ``harness.core``, and the implementation module is imported only when
the part's object is asked for (``Part.obj``, ``Part.doc``), by the layer that calls it. A
separately installed distribution adds parts through entry points in the group
``proof_harness.<kind>`` (``proof_harness.engines``, ``.arms``, ``.scenarios``, ``.detectors``,
``.gates``, ``.operators``, ``.executors``). An entry point names a module, whose import registers parts with the
decorator, or an object, registered under the entry point's name. Either way the part's origin is
the distribution's name and version, which ``harness plugins`` prints.

This module imports nothing from the rest of the harness, so every package (analysis and corpus
included) may use it.
"""
from __future__ import annotations

import dataclasses
import importlib
import importlib.metadata
import types
import typing
from dataclasses import dataclass, field
from typing import Any, Callable, Iterator, Mapping

from harness.core.errors import HarnessError

BUILTIN = "built-in"
GROUP_PREFIX = "proof_harness."
# Where the parts being registered now come from: "built-in", or while an entry point loads, its
# distribution. Shared by every registry, since one plug-in module may register parts of several kinds.
_origin = [BUILTIN]


class UnknownPart(HarnessError, KeyError):
    """A name no registered part answers to; the message lists the known names."""

    def __init__(self, kind: str, name: str, known: list[str]) -> None:
        super().__init__(name)
        self.kind, self.name, self.known = kind, name, known

    def __str__(self) -> str:
        return f"unknown {self.kind.rstrip('s')} {self.name!r}; known: {self.known}"


class RegistryError(HarnessError):
    """Two parts claim one name, or a plug-in could not be loaded."""


@dataclass(frozen=True)
class Ref:
    """Where a declared built-in part's object lives: attribute ``attr`` of module ``module``,
    imported only when the object is asked for (never by a metadata lookup)."""

    module: str
    attr: str

    def resolve(self) -> Any:
        return getattr(importlib.import_module(self.module), self.attr)


@dataclass(frozen=True)
class Part:
    """One registered part: the object (a factory, a controller, a detector function, ...) or, for a
    declared built-in, a ``Ref`` to it, its parameter dataclass, its capability flags and where it
    came from."""

    kind: str
    name: str
    target: Any
    params: type | None = None
    flags: Mapping[str, Any] = field(default_factory=dict)
    origin: str = BUILTIN

    @property
    def obj(self) -> Any:
        """The part's object; a declared built-in's implementation module is imported here."""
        return self.target.resolve() if isinstance(self.target, Ref) else self.target

    @property
    def doc(self) -> str:
        """The first line of the object's docstring (loads a declared built-in's implementation)."""
        obj = self.obj
        return "" if isinstance(obj, (str, dict)) else (getattr(obj, "__doc__", None) or "").strip().split("\n")[0]

    def flag(self, name: str, default: Any = False) -> Any:
        return self.flags.get(name, default)

    def keys(self) -> tuple[str, ...]:
        """The part's allowed parameter keys (its parameter dataclass's fields)."""
        return tuple(f.name for f in dataclasses.fields(self.params)) if self.params else ()

    def defaults(self) -> dict[str, Any]:
        """Each parameter's default (fields without one are required)."""
        if not self.params:
            return {}
        return {f.name: f.default for f in dataclasses.fields(self.params) if f.default is not dataclasses.MISSING}

    def param_types(self) -> dict[str, Any]:
        """Each parameter's resolved type, ``Annotated`` constraints included (for validation)."""
        return typing.get_type_hints(self.params, include_extras=True) if self.params else {}


class Registry:
    """The parts of one kind, by name. Built-in modules and entry points load on first use."""

    def __init__(self, kind: str, builtin: tuple[str, ...] = (), *, callable_parts: bool = True) -> None:
        self.kind = kind
        self.callable_parts = callable_parts  # the harness calls each part (all kinds but operators)
        self.group = GROUP_PREFIX + kind
        self.builtin = builtin
        self._parts: dict[str, Part] = {}
        self._loaded = False
        self._loading = False

    def register(self, name: str, *, params: type | None = None, **flags: Any) -> Callable[[Any], Any]:
        """Decorator: register the decorated object as part ``name``."""
        def deco(obj: Any) -> Any:
            self.add(name, obj, params=params, **flags)
            return obj
        return deco

    def add(self, name: str, obj: Any, *, params: type | None = None, module: str | None = None, **flags: Any) -> Part:
        """Register ``obj`` as part ``name``. ``module`` is where it is defined (default: its
        ``__module__``); a part defined in a built-in module is built-in whoever imported it."""
        if params is not None and not dataclasses.is_dataclass(params):
            raise RegistryError(f"{self.kind} {name!r}: params must be a dataclass, got {params!r}")
        if self.callable_parts and not callable(obj):
            raise RegistryError(f"{self.kind.rstrip('s')} {name!r} must be callable, got {type(obj).__name__} {obj!r:.60}")
        old = self._parts.get(name)
        if old is not None:
            if old.obj is obj:
                return old  # the same module imported twice
            raise RegistryError(f"{self.kind} {name!r} is registered twice ({old.origin} and {_origin[-1]})")
        module = module or getattr(obj, "__module__", None)
        origin = BUILTIN if module in _builtin_modules() else _origin[-1]
        part = Part(self.kind, name, obj, params, dict(flags), origin)
        self._parts[name] = part
        return part

    def declare(self, name: str, ref: Ref, *, params: type | None = None, **flags: Any) -> Part:
        """Declare built-in part ``name``: its metadata here, its object at ``ref`` (imported when the
        part is called, not when it is looked up). Only a declaration module the registry names calls this."""
        if params is not None and not dataclasses.is_dataclass(params):
            raise RegistryError(f"{self.kind} {name!r}: params must be a dataclass, got {params!r}")
        old = self._parts.get(name)
        if old is not None:
            if old.target == ref and old.params is params and dict(old.flags) == flags:
                return old  # the declaration module imported again after an import that failed part-way
            raise RegistryError(f"{self.kind} {name!r} is registered twice ({old.origin} and {BUILTIN})")
        part = Part(self.kind, name, ref, params, dict(flags), BUILTIN)
        self._parts[name] = part
        return part

    def implementations(self) -> tuple[str, ...]:
        """The modules holding the declared built-ins' objects (imported only by ``Part.obj``)."""
        self.load()
        return tuple(dict.fromkeys(p.target.module for p in self._parts.values() if isinstance(p.target, Ref)))

    def get(self, name: str) -> Part:
        self.load()
        try:
            return self._parts[name]
        except KeyError:
            raise UnknownPart(self.kind, name, self.names()) from None

    def __contains__(self, name: object) -> bool:
        self.load()
        return name in self._parts

    def __iter__(self) -> Iterator[Part]:
        self.load()
        return iter(list(self._parts.values()))

    def names(self) -> list[str]:
        self.load()
        return list(self._parts)

    def load(self) -> None:
        """Import the built-in modules, then every installed entry point of this kind (once)."""
        if self._loaded or self._loading:
            return
        self._loading = True
        try:
            for mod in self.builtin:
                importlib.import_module(mod)
            for ep in importlib.metadata.entry_points(group=self.group):
                self._load_entry_point(ep)
            self._loaded = True
        finally:
            self._loading = False

    def _load_entry_point(self, ep: importlib.metadata.EntryPoint) -> None:
        dist = ep.dist
        origin = f"{dist.name} {dist.version}" if dist is not None else f"entry point {ep.value}"
        _origin.append(origin)
        try:
            obj = ep.load()
            if not isinstance(obj, types.ModuleType):  # a name taken by another part is a clash, never skipped
                self.add(ep.name, obj, params=getattr(obj, "params", None))
        except RegistryError:
            raise
        except Exception as exc:  # a broken plug-in is named, never a bare traceback
            raise RegistryError(f"plug-in {ep.value!r} ({self.group}, {origin}) failed to load: "
                                f"{type(exc).__name__}: {exc}") from exc
        finally:
            _origin.pop()


ENGINES = Registry("engines", ("harness.core.builtin_parts",))  # declared: harness.engines.{simulated,replay,anthropic,openai}
ARMS = Registry("arms", ("harness.core.builtin_parts",))  # declared: harness.control.arms
SCENARIOS = Registry("scenarios", ("harness.core.builtin_parts",))  # declared: harness.control.injections
DETECTORS = Registry("detectors", ("harness.judge.detectors",))
GATES = Registry("gates", ("corpus.gates",))
OPERATORS = Registry("operators", ("corpus.operators.common", "corpus.operators.markdown", "corpus.operators.jsondoc",
                                   "corpus.operators.python_src", "corpus.operators.pins", "corpus.operators.commits",
                                   "corpus.operators.v2", "corpus.operators.fine", "corpus.operators.structured",
                                   "corpus.operators.attestation"), callable_parts=False)
EXECUTORS = Registry("executors", ("harness.core.builtin_parts",))  # declared: harness.run.executors
KINDS: dict[str, Registry] = {r.kind: r for r in (ENGINES, ARMS, SCENARIOS, DETECTORS, GATES, OPERATORS, EXECUTORS)}


def needs_model(name: str) -> bool:
    """Whether the engine calls a provider and so needs a model id."""
    return name in ENGINES and bool(ENGINES.get(name).flag("live"))


def is_free(name: str) -> bool:
    """Whether the engine calls no provider, so nothing it does is billed: registered without ``live``.
    An unknown name is not free (it is priced like a live engine, or refused where it is built)."""
    return name in ENGINES and not ENGINES.get(name).flag("live")


def _builtin_modules() -> set[str]:
    """The built-in modules of every registry, declared implementations' modules included (a part
    defined in one is built-in whoever imported it)."""
    declared = {p.target.module for r in KINDS.values() for p in r._parts.values() if isinstance(p.target, Ref)}
    return {m for r in KINDS.values() for m in r.builtin} | declared
