"""Load a TOML configuration file over the defaults."""
import tomllib

from svcconf.coerce import check_type
from svcconf.defaults import DEFAULTS


def load_config(path: str) -> dict[str, object]:
    """DEFAULTS overridden by the TOML file at path; unknown keys raise KeyError."""
    with open(path, "rb") as f:
        data = tomllib.load(f)
    unknown = sorted(set(data) - set(DEFAULTS))
    if unknown:
        raise KeyError(f"unknown configuration keys: {', '.join(unknown)}")
    config = dict(DEFAULTS)
    for key, value in data.items():
        config[key] = check_type(key, value, DEFAULTS[key])
    return config
