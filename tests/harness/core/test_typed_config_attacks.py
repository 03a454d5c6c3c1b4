"""Red team (r22b) of the typed configuration (issue 22): edge-case values in the protocol's tables.

Formerly ``tests/harness/test_redteam_r22b_typed_config.py``, named after its origin."""
from __future__ import annotations

import textwrap

import pytest

from harness.core.errors import InputError
from harness.core.protocol import load_protocol
from support.protocols import minimal_protocol
from support.scripted import copy_tasks

BASE = minimal_protocol("t", 7) + """
[[hypotheses]]
id = "H1"
a = "A1"
b = "A1"
endpoint = "completion"
cells = "all"
"""


@pytest.mark.parametrize("table, field", [
    ("[budget]\nmax_usd = true\n", "budget.max_usd"),
    ("[budget]\nmax_usd = \"5\"\n", "budget.max_usd"),
    ("[monitoring]\nmin_units = true\n", "monitoring.min_units"),
])
def test_a_bool_in_an_int_or_float_field_names_the_field_and_a_number(tmp_path, table, field):
    """max_usd and min_units accept an integer or a float (kept as written): a bool or a string is
    one problem at the key itself, 'expected a number', not a union member's path
    ('budget.max_usd.int: expected an integer ... (and 1 more problem(s))')."""
    copy_tasks(tmp_path, ("parse-range",))
    p = tmp_path / "p.toml"
    p.write_text(BASE + table)
    with pytest.raises(InputError) as ei:
        load_protocol(p)
    assert ei.value.field == field
    assert "expected a number" in str(ei.value) and "more problem" not in str(ei.value)


def test_an_infinite_max_usd_is_one_problem_at_the_key(tmp_path):
    copy_tasks(tmp_path, ("parse-range",))
    p = tmp_path / "p.toml"
    p.write_text(BASE + "[budget]\nmax_usd = inf\n")
    with pytest.raises(InputError) as ei:
        load_protocol(p)
    assert ei.value.field == "budget.max_usd" and "finite" in str(ei.value) and "more problem" not in str(ei.value)


def test_a_clash_with_a_declared_engine_is_named_by_every_later_lookup():
    """A part registered under a built-in engine's name before the registries' first lookup makes
    that lookup fail naming the engine. harness.core.builtin_parts declares the arms before the
    engines, so its failed import left A1..A2p declared; the next lookup re-imported it and every
    arm lookup then failed with "arms 'A1' is registered twice", a clash that does not exist: every
    later lookup names the real clash."""
    import subprocess
    import sys
    code = textwrap.dedent("""
        from harness.core.registry import ARMS, ENGINES, RegistryError
        ENGINES.add("simulated", lambda ctx: None)
        try:
            ENGINES.get("simulated")
        except RegistryError as exc:
            print("first:", exc)
        try:
            ARMS.get("A1")
        except RegistryError as exc:
            print("then:", exc)
    """)
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert "first: engines 'simulated' is registered twice" in out.stdout, out.stdout + out.stderr
    assert "then: engines 'simulated' is registered twice" in out.stdout, out.stdout + out.stderr
