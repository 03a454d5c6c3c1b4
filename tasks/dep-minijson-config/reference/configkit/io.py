"""Reading and writing settings files through minijson."""
from pathlib import Path

from configkit.defaults import DEFAULTS, merge
from configkit.errors import ConfigError
from vendor import minijson_v2 as minijson


def load_config(path):
    """Load a JSON settings file and merge it over DEFAULTS; raise ConfigError on any problem."""
    path = Path(path)
    try:
        text = path.read_text()
    except OSError as exc:
        raise ConfigError(path, f"cannot read: {exc.strerror}") from None
    try:
        data = minijson.loads(text)
    except minijson.JSONError as exc:
        raise ConfigError(path, f"invalid JSON: {exc}") from None
    if not isinstance(data, dict):
        raise ConfigError(path, "top level must be an object")
    return merge(DEFAULTS, data)


def save_config(config, path):
    """Write config as pretty-printed JSON with sorted keys and a trailing newline."""
    Path(path).write_text(minijson.dumps(config, indent=2, sort_keys=True) + "\n")
