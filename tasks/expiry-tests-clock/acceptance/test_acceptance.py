"""Visible acceptance test for expiry-tests-clock (the agent can see and run this).

It loads the repaired suite tests/test_expiry.py and calls every test_* function directly:
against the shipped pantry package all must pass, and against a package whose checks never
report anything some must fail.
"""
import importlib.util
from pathlib import Path

import pytest

import pantry
import pantry.expiry

NAMES = ("days_left", "expiring_soon", "is_expired")


def run_suite(impl=None):
    saved = {(m, n): getattr(m, n) for m in (pantry, pantry.expiry) for n in NAMES}
    try:
        if impl is not None:
            for (m, n) in saved:
                setattr(m, n, impl[n])
        spec = importlib.util.spec_from_file_location("suite_under_check", Path("tests/test_expiry.py"))
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        tests = [(n, f) for n, f in sorted(vars(module).items()) if n.startswith("test_") and callable(f)]
        failing = []
        for name, func in tests:
            try:
                func()
            except (Exception, pytest.fail.Exception, pytest.skip.Exception):
                failing.append(name)
        return [n for n, _ in tests], failing
    finally:
        for (m, n), f in saved.items():
            setattr(m, n, f)


def test_suite_passes_on_the_shipped_package():
    names, failing = run_suite()
    assert len(names) >= 5
    assert failing == []


def test_suite_catches_a_package_that_never_reports():
    inert = {"days_left": lambda bb, today=None: 0, "is_expired": lambda bb, today=None: False,
             "expiring_soon": lambda items, within_days, today=None: []}
    _, failing = run_suite(inert)
    assert failing
