"""Hidden ground-truth oracle for expiry-tests-clock (never visible to the agent)."""
import importlib.util
from datetime import date
from pathlib import Path

import pytest

import pantry
import pantry.expiry

NAMES = ("days_left", "expiring_soon", "is_expired")


def make(honour_today=True, expired_on_day=False, soon_inclusive=True, soon_keeps_expired=False,
         soon_tie_by_name=True, validate=True):
    def now(today):
        return today if (honour_today and today is not None) else date.today()

    def days_left(best_before, today=None):
        return (best_before - now(today)).days

    def is_expired(best_before, today=None):
        d = days_left(best_before, today)
        return d <= 0 if expired_on_day else d < 0

    def expiring_soon(items, within_days, today=None):
        if validate and within_days < 0:
            raise ValueError("within_days")
        left = {n: days_left(bb, today) for n, bb in items.items()}
        keep = [n for n, d in left.items()
                if (soon_keeps_expired or d >= 0) and (d <= within_days if soon_inclusive else d < within_days)]
        return sorted(keep, key=(lambda n: (left[n], n)) if soon_tie_by_name else (lambda n: left[n]))

    return {"days_left": days_left, "is_expired": is_expired, "expiring_soon": expiring_soon}


MUTANTS = {
    "ignores-today-uses-real-clock": make(honour_today=False),
    "expired-on-best-before-day": make(expired_on_day=True),
    "soon-window-exclusive": make(soon_inclusive=False),
    "soon-includes-expired": make(soon_keeps_expired=True),
    "soon-ties-in-insertion-order": make(soon_tie_by_name=False),
    "no-negative-window-check": make(validate=False),
}


def run_suite(impl=None):
    saved = {(m, n): getattr(m, n) for m in (pantry, pantry.expiry) for n in NAMES}
    try:
        if impl is not None:
            for (m, n) in saved:
                setattr(m, n, impl[n])
        spec = importlib.util.spec_from_file_location("suite_for_oracle", Path("tests/test_expiry.py"))
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        count, failing = 0, []
        for name, func in sorted(vars(module).items()):
            if name.startswith("test_") and callable(func):
                count += 1
                try:
                    func()
                except (Exception, pytest.fail.Exception, pytest.skip.Exception):
                    failing.append(name)
        return count, failing
    finally:
        for (m, n), f in saved.items():
            setattr(m, n, f)


def test_model_agrees_with_real_package():
    model = make()
    t = date(2024, 5, 1)
    items = pantry.load_items("data/pantry.csv")
    for w in (0, 2, 7, 9, 400):
        assert pantry.expiring_soon(items, w, today=t) == model["expiring_soon"](items, w, today=t)
    for bb in (date(2024, 4, 30), t, date(2024, 5, 2)):
        assert pantry.is_expired(bb, today=t) == model["is_expired"](bb, today=t)
        assert pantry.days_left(bb, today=t) == model["days_left"](bb, today=t)


def test_suite_is_green_on_the_real_package():
    count, failing = run_suite()
    assert count >= 5 and failing == []


@pytest.mark.parametrize("mutant", sorted(MUTANTS))
def test_suite_catches_mutant(mutant):
    _, failing = run_suite(MUTANTS[mutant])
    assert failing, f"the repaired suite does not catch {mutant}"
