"""``harness compare`` reads side B in a forked process when both inputs are large (analysis.compare._load_sides,
issue 37: the read is most of a comparison of a million rows, and the machine has two cores). A refused input is
refused with the message, and in the order, of the serial reads (A's first), and no child process is left
behind. The results themselves are compared with the serial and per-row paths in
tests/analysis/test_fast_path_differential.py."""
from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from analysis import compare as compare_module
from analysis.compare import Options, compare
from analysis.records import RecordsError


def _file(path: Path, arm: str, bad_line: int | None = None) -> Path:
    lines = []
    for r in range(1, 41):
        row = {"arm": arm, "task": f"t{r % 3}", "scenario": "B1", "repeat": r, "outcome": "completed",
               "visible_pass": True, "hidden_pass": True, "shipped": True, "tokens_in": 10, "tokens_out": 1,
               "wall_s": 1.0}
        if r == bad_line:
            row["wall_s"] = -1.0
        lines.append(json.dumps(row))
    path.write_text("\n".join(lines) + "\n")
    return path


def _children() -> set[int]:
    """This process's live children (every thread's), from /proc: the test worker may hold children of
    its own from earlier tests (a warm zygote), so the check compares sets, never 'no child at all'."""
    out: set[int] = set()
    for task in os.listdir(f"/proc/{os.getpid()}/task"):
        try:
            with open(f"/proc/{os.getpid()}/task/{task}/children") as fh:
                out |= {int(p) for p in fh.read().split()}
        except OSError:
            pass
    return out


_BEFORE: set[int] = set()


def _no_child_left() -> bool:
    """No child the compare forked is still alive (a zombie it failed to reap counts too)."""
    return not (_children() - _BEFORE)


@pytest.fixture(autouse=True)
def _children_before():
    global _BEFORE
    _BEFORE = _children()


@pytest.fixture
def forked(monkeypatch):
    monkeypatch.setattr(compare_module, "PARALLEL_BYTES", 0)


def _error(a: Path, b: Path) -> str:
    with pytest.raises(RecordsError) as exc:
        compare(a, b, Options())
    return str(exc.value)


def test_the_forked_read_gives_the_serial_result(tmp_path, forked, monkeypatch):
    a, b = _file(tmp_path / "a.jsonl", "A2p"), _file(tmp_path / "b.jsonl", "A4")
    got = json.dumps(compare(a, b, Options()), default=str)
    monkeypatch.setattr(compare_module, "PARALLEL_BYTES", 1 << 62)
    assert got == json.dumps(compare(a, b, Options()), default=str)
    assert _no_child_left()


@pytest.mark.parametrize("bad", ["a", "b", "both"])
def test_a_refused_input_is_refused_as_the_serial_reads_refuse_it(tmp_path, forked, monkeypatch, bad):
    a = _file(tmp_path / "a.jsonl", "A2p", 7 if bad in ("a", "both") else None)
    b = _file(tmp_path / "b.jsonl", "A4", 9 if bad in ("b", "both") else None)
    got = _error(a, b)
    assert _no_child_left()
    monkeypatch.setattr(compare_module, "PARALLEL_BYTES", 1 << 62)
    assert got == _error(a, b)
    assert ("a.jsonl:7: field 'wall_s'" if bad != "b" else "b.jsonl:9: field 'wall_s'") in got
