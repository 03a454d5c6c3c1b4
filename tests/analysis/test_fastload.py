"""The columnar screen of a records file (analysis.fastload): on a file of the plain shape it gives load_records
the very result the per-row path gives (tidy data, accounting, void keys), and it declines (None: the per-row
path reads the file and names the problem) every file the per-row validator would reject."""
from __future__ import annotations

import json

import pandas as pd
import pytest

from analysis import fastload
from analysis.records import RecordsError, fast_rows, load_records


def _rows() -> list[dict]:
    out = []
    for arm in ("A4", "A2p"):
        for sc in ("null", "B1", None):
            for r in (1, 2, 3):
                o = "completed" if sc == "null" else "recovered" if r < 3 else "amplified"
                if arm == "A2p" and r == 2 and sc == "B1":
                    o = "safe_stop"
                flags = {"completed": (True, True, True), "recovered": (True, True, True),
                         "amplified": (True, False, True), "safe_stop": (False, False, False)}[o]
                out.append({"arm": arm, "task": f"t{r % 2}", "scenario": sc if sc else "B2", "repeat": r,
                            "outcome": o, "visible_pass": flags[0], "hidden_pass": flags[1], "shipped": flags[2],
                            "tokens_in": 100 * r, "tokens_out": None if r == 3 else 7, "wall_s": 1.5 * r,
                            "cost_usd": 0.25 if arm == "A4" else None, "engine": "bench"})
    out.append(dict(out[0]))  # a restart duplicate
    void = {**out[1], "outcome": "void", "visible_pass": None, "hidden_pass": None, "shipped": None, "wall_s": None}
    out.insert(1, void)  # a void superseded by the scored record that follows
    out.append({**out[2], "repeat": 9, "outcome": "void", "visible_pass": None, "hidden_pass": None,
                "shipped": None})  # void only
    return out


def _write(path, rows, sep=": ") -> str:
    path.write_text("".join(json.dumps(r, separators=(", ", sep)) + "\n" for r in rows))
    return str(path)


def test_the_fast_path_gives_the_per_row_result(tmp_path, monkeypatch):
    p = _write(tmp_path / "r.jsonl", _rows())
    assert fast_rows(p) is not None
    fast = load_records(p)
    monkeypatch.setattr(fastload, "valid_rows", lambda *a, **k: None)
    slow = load_records(p)
    pd.testing.assert_frame_equal(fast.tidy, slow.tidy)
    pd.testing.assert_frame_equal(fast.void_keys, slow.void_keys)
    assert fast.accounting() == slow.accounting() and fast.void == slow.void


BAD = [
    ("repeat", 1.0), ("repeat", 0), ("repeat", True), ("repeat", 2**63), ("tokens_in", -1), ("tokens_in", 1.5),
    ("wall_s", None), ("wall_s", -0.5), ("wall_s", "1"), ("cost_usd", -1.0), ("shipped", None), ("shipped", 1),
    ("outcome", "done"), ("outcome", "amplified"), ("arm", ""), ("arm", "a|b"), ("scenario", "None"), ("task", 3),
    ("engine", 5), ("model_id", ["m"]), ("extra_field", 1),
]


@pytest.mark.parametrize("field,value", BAD)
def test_a_row_the_validator_rejects_is_never_screened_through(tmp_path, field, value):
    rows = _rows()
    rows[4] = {**rows[4], field: value}
    p = _write(tmp_path / "r.jsonl", rows)
    assert fast_rows(p) is None
    if field != "extra_field":
        with pytest.raises(RecordsError, match=r"r\.jsonl:5: field"):
            load_records(p)


def test_a_duplicate_key_and_a_missing_field_go_row_by_row_and_odd_spacing_alone_does_not(tmp_path, monkeypatch):
    """A blank before each colon ('"arm" : "A4"') with no duplicate key: every ':' of the text is one key's (as
    many colons as keys), which proves no key is named twice, so the columnar screen reads it, with the per-row
    result."""
    p = tmp_path / "r.jsonl"
    rows = _rows()
    _write(p, rows)
    text = p.read_text().replace('"arm": "A4", ', '"arm": "A4", "arm": "A4", ', 1)
    p.write_text(text)
    assert fast_rows(p) is None
    with pytest.raises(RecordsError, match="written twice"):
        load_records(p)
    missing = [{k: v for k, v in r.items() if k != "wall_s"} if i == 3 else r for i, r in enumerate(rows)]
    assert fast_rows(_write(p, missing)) is None
    assert fast_rows(_write(p, rows, sep=" : ")) is not None
    fast = load_records(p)
    monkeypatch.setattr(fastload, "valid_rows", lambda *a, **k: None)
    slow = load_records(p)
    pd.testing.assert_frame_equal(fast.tidy, slow.tidy)
    assert fast.accounting() == slow.accounting()


def test_a_duplicate_key_spelled_with_a_blank_before_its_colon_goes_row_by_row(tmp_path):
    """Review r37: '"outcome" : "recovered", ... "outcome": "amplified"' holds '":' once per distinct key,
    so the count check saw no duplicate, and json.loads kept the last value in silence where the per-row
    reader rejects the line. Such a file is read row by row, which names the field."""
    p = tmp_path / "r.jsonl"
    rows = _rows()
    _write(p, rows)
    lines = p.read_text().splitlines(keepends=True)
    lines[4] = '{"outcome" : "recovered", ' + lines[4][1:]
    p.write_text("".join(lines))
    assert fast_rows(p) is None
    with pytest.raises(RecordsError, match=r"r\.jsonl:5: field 'outcome': written twice"):
        load_records(p)


def test_two_malformed_lines_the_one_array_parse_would_join_are_read_row_by_row(tmp_path):
    """Line 1 '{..., "arm": "}' and line 2 '{"}' are each not JSON, but joined by the one-array parse's comma they
    are one record whose arm is '},{'; a third line of two records kept the count of records equal to the count
    of lines, so the screen passed the file (the arm '},{' scored) where the per-row reader names line 1."""
    rows = _rows()
    first = json.dumps({k: v for k, v in rows[0].items() if k != "arm"})[:-1] + ', "arm": "}'
    p = tmp_path / "r.jsonl"
    p.write_text("\n".join([first, '{"}', json.dumps(rows[2]) + "," + json.dumps(rows[3])]) + "\n")
    assert fast_rows(p) is None
    with pytest.raises(RecordsError, match=r"r\.jsonl:1: not valid JSON"):
        load_records(p)
