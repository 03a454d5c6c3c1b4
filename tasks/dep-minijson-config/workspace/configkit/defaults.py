"""Default settings and the merge rule."""
import copy

DEFAULTS = {
    "name": "service",
    "port": 8000,
    "debug": False,
    "features": {"search": False, "export": False},
}


def merge(base, override):
    """Deep-merge override into a copy of base: nested dicts merge, other values replace."""
    out = copy.deepcopy(base)
    for key, value in override.items():
        if isinstance(value, dict) and isinstance(out.get(key), dict):
            out[key] = merge(out[key], value)
        else:
            out[key] = copy.deepcopy(value)
    return out
