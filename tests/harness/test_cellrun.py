"""harness/cellrun.py: the price a cell's calls are booked at under the run's ceiling."""
import pytest

from harness.cellrun import _ceiling_price


def test_a_priced_model_is_booked_at_its_pricing_entry():
    price = {"input": 3.0, "output": 15.0}
    assert _ceiling_price({"gpt-x": price}, "openai", "gpt-x") == price


def test_an_engine_that_calls_no_provider_is_free():
    assert _ceiling_price({}, "simulated", None) == {"input": 0.0, "output": 0.0}


def test_an_unpriced_model_is_a_clear_error_not_a_crash_inside_the_first_call():
    # call_price returns None for it; the ceiling engine used to take None and fail on
    # the first booking with "'NoneType' object has no attribute 'get'".
    with pytest.raises(ValueError, match=r"openai model 'gpt-unpriced' has no \[pricing\] entry"):
        _ceiling_price({"gpt-x": {"input": 3.0, "output": 15.0}}, "openai", "gpt-unpriced")
