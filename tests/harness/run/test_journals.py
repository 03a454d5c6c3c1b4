"""harness.run.journals: the void and requeue journals' lines, written and parsed at one edge."""
from __future__ import annotations

import pytest

from harness.core.errors import InputError
from harness.run.journals import RequeueLine, VoidLine


def test_a_void_line_and_a_requeue_line_round_trip():
    v = VoidLine("A1|t|null|0", "engine fault: 503", 2)
    assert VoidLine.from_json(v.to_json()) == v
    q = RequeueLine("A1|t|null|0", "worker died", 12.5)
    assert RequeueLine.from_json(q.to_json()) == q


def test_a_line_written_without_its_optional_keys_parses_to_none():
    assert VoidLine.from_json({"cell_key": "k"}) == VoidLine("k", None, None)


@pytest.mark.parametrize("obj, field", [([1], "<line>"), ({"void_reason": "x"}, "cell_key"), ({"cell_key": 3}, "cell_key")])
def test_a_damaged_line_is_an_error_naming_the_file_line_and_field(obj, field):
    with pytest.raises(InputError) as exc:
        VoidLine.from_json(obj, "run/voids.jsonl", 4)
    assert (exc.value.file, exc.value.field, exc.value.line) == ("run/voids.jsonl", field, 4)
