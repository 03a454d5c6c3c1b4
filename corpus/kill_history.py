"""Kill history: which tests killed a mutant of a function, so that the next mutant of that
function runs them first (issue 26; mutmut orders its tests by duration, cosmic-ray not at all).

With ``-x`` a mutant's run stops at its first failing test, so a test that killed the function's
last mutant, tried first, often ends the run after one test instead of several. Only the order
changes, never the set of tests run to an accept: an accepted mutant runs every selected test
either way, and a rejected one is rejected by a test of the same selection. Kept in memory for
one measurement (shared by its workers) and, when given a file, across measurements (the
judgment cache's directory: ``kill-history.json``), keyed by (gate, function's qualified name).
"""
from __future__ import annotations

import json
import os
import threading
from pathlib import Path

KILL_HISTORY = "kill-history.json"    # beside the judgment cache
# the key of the mutants judged by the whole suite (no one function changed, or a selection the
# coverage map distrusts: module-level code): their killers go first in the forked whole-suite run
WHOLE_SUITE = "<whole suite>"
MAX_KILLERS = 8         # per function: the most recent killers, newest first


def node_key(nodeid: str) -> tuple[str, str]:
    """A node id as (its file's name, the rest): the coverage map names a test by its path, pytest's
    reports by its path relative to the rootdir; both name the same test this way."""
    path, _, rest = nodeid.partition("::")
    return os.path.basename(path), rest


def first_failure(output: str) -> str | None:
    """The node id of the first ``FAILED <nodeid> ...`` line of a pytest (or swap) summary."""
    for line in output.splitlines():
        if line.startswith("FAILED "):
            parts = line.split()
            if len(parts) > 1:
                return parts[1]
    return None


class KillHistory:
    """Thread-safe; ``path`` (optional) is read at creation and written by ``save``."""

    def __init__(self, gate: str, path: Path | None = None):
        self.gate, self.path = gate, path
        self._lock = threading.Lock()
        self._mine: dict[str, list[list[str]]] = _read(path).get(gate, {}) if path is not None else {}

    def order(self, function: str, selected: list[str], durations: dict[str, float] | None = None) -> list[str]:
        """``selected`` with the tests that killed a mutant of ``function`` first (most recent
        first); the rest keep their (suite) order, or with ``durations`` (seconds per node id, the
        coverage run's) go fastest first, as mutmut orders them (a test without a time after the
        timed ones, in suite order): with -x a mutant most tests kill stops after the cheapest."""
        with self._lock:
            killers = [tuple(k) for k in self._mine.get(function, []) if isinstance(k, list) and len(k) == 2]
        rank = {k: i for i, k in enumerate(killers)}
        first = sorted((t for t in selected if node_key(t) in rank), key=lambda t: rank[node_key(t)])
        rest = [t for t in selected if node_key(t) not in rank]
        if durations:
            rest.sort(key=lambda t: (t not in durations, durations.get(t, 0.0)))
        return first + rest

    def killers(self, function: str) -> list[tuple[str, str]]:
        """The tests (``node_key`` form) that killed a mutant of ``function``, most recent first."""
        with self._lock:
            return [(k[0], k[1]) for k in self._mine.get(function, []) if isinstance(k, list) and len(k) == 2]

    def killed(self, function: str, nodeid: str) -> None:
        key = list(node_key(nodeid))
        with self._lock:
            old = [k for k in self._mine.get(function, []) if k != key]
            self._mine[function] = [key, *old][:MAX_KILLERS]

    def save(self) -> None:
        if self.path is None:
            return
        data = _read(self.path)     # other gates' sessions may have saved theirs since: keep them
        with self._lock:
            data[self.gate] = self._mine
            text = json.dumps(data, sort_keys=True)
        tmp = self.path.with_suffix(".tmp")
        try:
            tmp.write_text(text, encoding="utf-8")
            os.replace(tmp, self.path)
        except OSError:
            pass        # the history only orders tests: losing it costs time, never a verdict


def _read(path: Path) -> dict[str, dict[str, list[list[str]]]]:
    """The history file's gates (empty when there is none yet, or it is damaged)."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return {g: v for g, v in data.items() if isinstance(v, dict)} if isinstance(data, dict) else {}
