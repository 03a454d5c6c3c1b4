"""Configuration loading for the ingest service."""
from svcconf.defaults import DEFAULTS
from svcconf.loader import load_config

__all__ = ["DEFAULTS", "load_config"]
