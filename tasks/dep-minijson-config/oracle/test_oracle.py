"""Hidden oracle for dep-minijson-config: behaviour after the migration to minijson 2."""
import sys
from pathlib import Path

import pytest

sys.modules["vendor.minijson_v1"] = None  # simulate the removal of minijson 1.x

import configkit  # noqa: E402
from configkit import load_config, save_config  # noqa: E402

ROOT = Path(configkit.__file__).resolve().parent.parent


def config_error(fn, *args):
    """What fn(*args) raises: its class names (most derived first) and the exception."""
    with pytest.raises(Exception) as info:
        fn(*args)
    return [c.__name__ for c in type(info.value).__mro__], info.value


def _write(tmp_path, text, name="s.json"):
    p = tmp_path / name
    p.write_text(text)
    return p


@pytest.mark.parametrize("text", ['{"port": 1,', "{'a': 1}", "", '{"port": NaN}', '{"x": Infinity}'])
def test_malformed_json_is_a_config_error(tmp_path, text):
    names, err = config_error(load_config, _write(tmp_path, text))
    assert "ConfigError" in names
    assert "invalid JSON" in err.reason


def test_non_object_top_level(tmp_path):
    assert "ConfigError" in config_error(load_config, _write(tmp_path, "[1, 2]"))[0]


def test_missing_file_is_a_config_error(tmp_path):
    assert "ConfigError" in config_error(load_config, tmp_path / "nope.json")[0]


def test_defaults_merge_deeply(tmp_path):
    cfg = load_config(_write(tmp_path, '{"features": {"export": true}}'))
    assert cfg == {"name": "service", "port": 8000, "debug": False,
                   "features": {"search": False, "export": True}}


def test_saved_output_is_sorted_indented_with_newline(tmp_path):
    out = tmp_path / "o.json"
    save_config({"zeta": 1, "alpha": {"b": 2, "a": 1}}, out)
    assert out.read_text() == '{\n  "alpha": {\n    "a": 1,\n    "b": 2\n  },\n  "zeta": 1\n}\n'


def test_pin_is_exactly_the_vendored_v2():
    lines = [ln.strip() for ln in (ROOT / "requirements.txt").read_text().splitlines()
             if ln.strip() and not ln.startswith("#")]
    assert "minijson==2.0.1" in lines
    assert not any(ln.startswith("minijson==1") for ln in lines)


def test_no_minijson_1_left_in_package():
    for src in (ROOT / "configkit").rglob("*.py"):
        assert "minijson_v1" not in src.read_text(), src.name
