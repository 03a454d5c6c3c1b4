"""Fuzzing the harness's input loaders with Hypothesis (issue 11): a protocol, a lock, a transcript
and a run directory to resume, generated or mutated, give a clear error (InputError, exit 2) or a
result, never a traceback. Examples the fuzzer found are kept below as explicit @example cases."""
from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import tomli_w
from click.testing import CliRunner
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from harness.cli.cli import main
from harness.core.errors import InputError
from harness.core.protocol import load_protocol, read_lock
from harness.engines.transcript import load_entries
from support.scripted import TASKS

FUZZ = settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture,
                                                                          HealthCheck.too_slow])
VALID = {"protocol": {"name": "fz", "seed": 1, "repeats": 1, "tasks_dir": str(TASKS), "tasks": ["median"],
                      "scenarios": ["null"]},
         "arms": {"A1": {"controller": "A1"}, "A4": {"controller": "A4", "attempts": 2}},
         "limits": {"test_timeout_s": 60}, "rerun": {"max_reruns": 1}}
json_leaf = st.one_of(st.none(), st.booleans(), st.integers(-5, 10 ** 20), st.floats(allow_nan=True),
                      st.text(max_size=8))
json_value = st.recursive(json_leaf, lambda c: st.one_of(st.lists(c, max_size=3),
                                                         st.dictionaries(st.text(max_size=6), c, max_size=3)),
                          max_leaves=8)
toml_leaf = st.one_of(st.booleans(), st.integers(-5, 10 ** 6), st.floats(allow_nan=False), st.text(max_size=8))
toml_value = st.recursive(toml_leaf, lambda c: st.one_of(st.lists(c, max_size=3),
                                                         st.dictionaries(st.text(min_size=1, max_size=6), c, max_size=3)),
                          max_leaves=6)


def _paths(d: dict, prefix=()):
    for k, v in d.items():
        yield prefix + (k,)
        if isinstance(v, dict):
            yield from _paths(v, prefix + (k,))


PATHS = list(_paths(VALID))


@st.composite
def mutated_protocol(draw):
    doc = json.loads(json.dumps(VALID))
    for _ in range(draw(st.integers(1, 3))):
        path = draw(st.sampled_from(PATHS))
        parent = doc
        for k in path[:-1]:
            parent = parent.get(k) if isinstance(parent.get(k), dict) else parent
        action = draw(st.sampled_from(["drop", "retype", "unknown"]))
        if action == "drop":
            parent.pop(path[-1], None)
        elif action == "retype":
            parent[path[-1]] = draw(toml_value)
        else:
            parent[draw(st.text(min_size=1, max_size=8))] = draw(toml_value)
    return doc


@FUZZ
@given(doc=mutated_protocol())
@example(doc={**VALID, "limits": {"test_timout_s": "sixty"}})
@example(doc={**VALID, "rerun": {"max_rerun": "lots"}})
@example(doc={**VALID, "limit": {"x": 1}})
def test_protocol_loader_errors_clearly_or_loads(tmp_path, doc):
    p = tmp_path / "p.toml"
    p.write_text(tomli_w.dumps(doc))
    try:
        load_protocol(p)
    except InputError:
        pass


@FUZZ
@given(data=st.binary(max_size=300), cut=st.integers(0, 400))
def test_protocol_loader_survives_mutated_bytes(tmp_path, data, cut):
    text = tomli_w.dumps(VALID).encode()
    p = tmp_path / "p.toml"
    p.write_bytes(text[:cut] + data + text[cut:])
    try:
        load_protocol(p)
    except InputError:
        pass


@pytest.mark.parametrize("doc", [{**VALID, "limits": {"test_timout_s": "sixty"}}, {**VALID, "rerun": {"max_rerun": "lots"}},
                                 {**VALID, "limit": {"x": 1}}])
def test_the_issues_typos_are_refused_by_name(tmp_path, doc):
    p = tmp_path / "p.toml"
    p.write_text(tomli_w.dumps(doc))
    with pytest.raises(InputError):
        load_protocol(p)


@FUZZ
@given(lock=json_value)
@example(lock={"protocol": "fz", "protocol_sha256": "x", "files": {}, "digest": "0" * 64})
def test_lock_loader_errors_clearly_or_loads(tmp_path, lock):
    p = tmp_path / "p.toml"
    p.write_text(tomli_w.dumps(VALID))
    p.with_suffix(".lock.json").write_text(json.dumps(lock))
    try:
        read_lock(load_protocol(p))
    except InputError:
        pass


@FUZZ
@given(entries=json_value)
@example(entries=[{"reply": {"tool_calls": [{"name": 3}]}}])
@example(entries={"calls": 7})
def test_transcript_loader_errors_clearly_or_loads(tmp_path, entries):
    p = tmp_path / "t.json"
    p.write_text(json.dumps(entries))
    try:
        load_entries(p)
    except InputError:
        pass


@pytest.fixture(scope="module")
def finished_run(tmp_path_factory):
    """A tiny run, complete: resuming an intact copy runs nothing."""
    root = tmp_path_factory.mktemp("fuzzrun")
    p = root / "p.toml"
    p.write_text(tomli_w.dumps({**VALID, "arms": {"A1": {"controller": "A1"}}}))
    # its own process, as a user runs it: in a long-lived test worker this in-process run voided its
    # one cell in two full test-all runs (never alone); the void reasons are in the message if it does
    r = subprocess.run([sys.executable, "-m", "harness.cli", "run", str(p), "--out", str(root / "run"), "--exploratory"],
                       cwd=Path(__file__).resolve().parents[3], capture_output=True, text=True, timeout=600)
    records = root / "run" / "records.jsonl"
    voids = [line for line in records.read_text().splitlines() if '"void_reason": null' not in line
             and '"void_reason":null' not in line] if records.exists() else []
    assert r.returncode == 0, (r.stdout[-2000:], r.stderr[-2000:], [v[:1500] for v in voids])
    return root / "run"


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(target=st.sampled_from(["records.jsonl", "records.head", "run.json"]), pos=st.integers(0, 4000),
       junk=st.binary(min_size=0, max_size=12), truncate=st.booleans())
def test_resume_of_a_mutated_run_dir_is_an_error_or_a_run_never_a_traceback(tmp_path, finished_run, target, pos, junk,
                                                                            truncate):
    run = tmp_path / "run"
    if run.exists():
        shutil.rmtree(run)
    shutil.copytree(finished_run, run)
    f = run / target
    data = f.read_bytes()
    pos = min(pos, len(data))
    f.write_bytes(data[:pos] + junk + (b"" if truncate else data[pos + len(junk):]))
    r = CliRunner().invoke(main, ["run", "--resume", str(run)])
    assert r.exit_code in (0, 2, 3, 4) and (r.exception is None or isinstance(r.exception, SystemExit)), (
        r.exit_code, r.output[-800:], repr(r.exception))


@pytest.mark.parametrize("setup", ["empty dir", "no run.json", "run.json not JSON", "run.json {}"])
def test_resume_of_a_directory_that_is_not_a_run_is_one_clear_error(tmp_path, setup):
    d = tmp_path / "d"
    d.mkdir()
    if setup == "no run.json":
        (d / "records.jsonl").write_text("")
    elif setup == "run.json not JSON":
        (d / "run.json").write_text("{not json")
    elif setup == "run.json {}":
        (d / "run.json").write_text("{}")
    r = CliRunner().invoke(main, ["run", "--resume", str(d)])
    assert r.exit_code == 2 and r.output.startswith("error: ") and len(r.output.strip().splitlines()) == 1, r.output
