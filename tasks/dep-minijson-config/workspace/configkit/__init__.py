"""Load, merge and save JSON application settings."""
from configkit.errors import ConfigError
from configkit.io import load_config, save_config

__all__ = ["ConfigError", "load_config", "save_config"]
