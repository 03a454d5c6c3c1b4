"""Every configuration key with its default value (the type of the default is the key's type).

Changes in 3.0: `legacy_mode` removed; `max_connections` and `log_format` added;
`retries` default 3 -> 5; `timeout_s` default 30 -> 10.
"""

DEFAULTS: dict[str, object] = {
    "debug": False,
    "host": "127.0.0.1",
    "log_format": "text",
    "max_connections": 100,
    "port": 8080,
    "retries": 5,
    "timeout_s": 10,
}
