"""Visible acceptance test for dep-minijson-config."""
import sys
from pathlib import Path

sys.modules["vendor.minijson_v1"] = None  # minijson 1.x is being removed: importing it must not be needed

import configkit  # noqa: E402
from configkit import load_config, save_config  # noqa: E402

ROOT = Path(configkit.__file__).resolve().parent.parent


def test_loads_sample_settings_with_defaults():
    cfg = load_config(ROOT / "data" / "settings.json")
    assert cfg["name"] == "inventory-service"
    assert cfg["port"] == 8080
    assert cfg["features"] == {"search": True, "export": False}


def test_round_trip(tmp_path):
    cfg = load_config(ROOT / "data" / "settings.json")
    out = tmp_path / "out.json"
    save_config(cfg, out)
    assert load_config(out) == {"name": "inventory-service", "port": 8080, "debug": True,
                                "features": {"search": True, "export": False}}


def test_pin_names_minijson_2():
    pins = (ROOT / "requirements.txt").read_text()
    assert "minijson==2." in pins
