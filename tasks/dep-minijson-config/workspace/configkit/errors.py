"""Errors raised by configkit."""


class ConfigError(Exception):
    """A settings file could not be read, parsed or validated."""

    def __init__(self, path, reason):
        super().__init__(f"{path}: {reason}")
        self.path = str(path)
        self.reason = reason
