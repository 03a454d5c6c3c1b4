"""Hidden ground-truth oracle for config-docs-table (never visible to the agent)."""
import re
import tomllib
from pathlib import Path

from svcconf import DEFAULTS, load_config


def parse_table():
    lines = [l.strip() for l in Path("docs/config.md").read_text().splitlines()]
    table = [l for l in lines if l.startswith("|")]
    header = [c.strip() for c in table[0].strip("|").split("|")]
    assert header == ["key", "type", "default", "description"]
    assert re.fullmatch(r"\|(\s*:?-+:?\s*\|)+", table[1])
    rows = [[c.strip() for c in l.strip("|").split("|")] for l in table[2:]]
    assert all(len(r) == 4 for r in rows)
    return rows


def test_keys_exact_and_alphabetical():
    keys = [r[0] for r in parse_table()]
    assert keys == sorted(DEFAULTS)


def test_types_match_defaults():
    for key, typ, _, _ in parse_table():
        assert typ == type(DEFAULTS[key]).__name__, key


def test_defaults_are_the_real_ones_as_toml_literals():
    for key, _, literal, _ in parse_table():
        value = tomllib.loads(f"v = {literal}")["v"]
        assert value == DEFAULTS[key] and type(value) is type(DEFAULTS[key]), (key, literal)


def test_descriptions_present():
    for key, _, _, description in parse_table():
        assert len(description) >= 5, key


def test_removed_key_not_documented_as_live():
    keys = {r[0] for r in parse_table()}
    assert "legacy_mode" not in keys
    assert load_config("data/service.toml")["log_format"] == "json"
