"""Visible acceptance test for slugify-tests-v2 (the agent can see and run this).

It loads the repaired suite tests/test_slugify.py and calls every test_* function directly:
against the shipped slugify all must pass, and against an obviously wrong slugify some must fail.
"""
import importlib.util
from pathlib import Path

import pytest

import slugkit
import slugkit.core

SUITE = Path("tests/test_slugify.py")


def run_suite(impl=None):
    """(test names, failing test names) of the suite, with slugify replaced by impl if given."""
    saved = {m: m.slugify for m in (slugkit, slugkit.core)}
    try:
        if impl is not None:
            for m in saved:
                m.slugify = impl
        spec = importlib.util.spec_from_file_location("suite_under_check", SUITE)
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
        for m, f in saved.items():
            m.slugify = f


def test_suite_passes_on_the_shipped_slugify():
    names, failing = run_suite()
    assert len(names) >= 8
    assert failing == []


def test_suite_catches_a_do_nothing_slugify():
    _, failing = run_suite(lambda text, sep="-", max_len=None: text)
    assert failing
