"""The plug-in surface: what a separately installed plug-in imports from the harness (CONTRIBUTING.md;
``examples/plugin/`` imports nothing else of it). The registries and their decorators, the engine
seam's types and base class with the engine context, the arm parameter and result types with the
attempt loop an arm runs, the detector input, and the executor interface. Gate kinds and mutant operators also use the
``corpus`` package's own types (``corpus.gates``, ``corpus.operators``).

No module of the harness imports this one (``tests/architecture/test_layers.py``): the layers behind it may move,
this surface stays."""
from __future__ import annotations

from harness.control.arms import ArmParams, ArmResult, Count
from harness.control.attempt import run_attempt
from harness.core.engine import (
    Engine,
    EngineReply,
    EngineRequest,
    Message,
    ToolCall,
    ToolSpec,
    Usage,
    estimate_tokens,
)
from harness.core.registry import ARMS, DETECTORS, ENGINES, EXECUTORS, GATES, OPERATORS, SCENARIOS
from harness.engines import EngineContext, register
from harness.judge.detectors import DetectorInput
from harness.run.executors import Executor, Job

__all__ = [
    "ARMS", "DETECTORS", "ENGINES", "EXECUTORS", "GATES", "OPERATORS", "SCENARIOS",  # the registries (``.register(name)``)
    "Executor", "Job",  # an executor's interface (``EXECUTORS.register(name)`` on a subclass) and its unit of work
    "register",  # an engine factory: ``@register("name", live=...)``
    "Engine", "EngineContext", "EngineReply", "EngineRequest", "Message", "ToolCall", "ToolSpec", "Usage",
    "estimate_tokens",
    "ArmParams", "ArmResult", "Count", "run_attempt",
    "DetectorInput",
]
