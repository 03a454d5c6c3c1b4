"""Per-provider limits on requests and tokens per minute, shared by every worker process.

The protocol declares them::

    [providers.anthropic]
    requests_per_minute = 50
    tokens_per_minute = 80000     # input + output, as the provider counts them

Cells may run in several processes, so the window lives in a small JSON file in the run
directory (``run_dir/.limits/<provider>.json``) guarded by ``fcntl.flock``. ``acquire`` waits
until one more request (and its estimated tokens: the prompt at ~4 characters a token plus the
request's max_tokens) fits in the last 60 seconds; ``settle`` replaces the estimate with what the
provider reported. Time spent waiting is returned so it can be recorded.
"""
from __future__ import annotations

import fcntl
import json
import os
import time
import uuid
from pathlib import Path

WINDOW_S = 60.0


class Limiter:
    def __init__(self, path: Path | None, requests_per_minute: int | None = None, tokens_per_minute: int | None = None,
                 sleep=time.sleep, clock=time.time):
        self.path = Path(path) if path else None
        self.rpm = requests_per_minute
        self.tpm = tokens_per_minute
        self.sleep, self.clock = sleep, clock
        self._local: list[list] = []  # used when there is no run directory (single process)

    @classmethod
    def for_provider(cls, provider: str, options: dict) -> "Limiter":
        conf = (options.get("providers") or {}).get(provider, {})
        run_dir = options.get("run_dir")
        path = Path(run_dir) / ".limits" / f"{provider}.json" if run_dir else None
        return cls(path, conf.get("requests_per_minute"), conf.get("tokens_per_minute"))

    @property
    def active(self) -> bool:
        return bool(self.rpm or self.tpm)

    # -- window storage -----------------------------------------------------------------------
    def _update(self, fn):
        if self.path is None:
            return fn(self._local)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        fd = os.open(self.path, os.O_RDWR | os.O_CREAT, 0o600)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX)
            with os.fdopen(os.dup(fd), "r+") as f:
                text = f.read()
                entries = _window(text)
                out = fn(entries)
                f.seek(0)
                f.truncate()
                f.write(json.dumps(entries))
            return out
        finally:
            fcntl.flock(fd, fcntl.LOCK_UN)
            os.close(fd)

    def acquire(self, est_tokens: int, deadline_wall: float | None = None) -> tuple[str | None, float]:
        """Block until the request fits; returns (ticket, seconds waited)."""
        if not self.active:
            return None, 0.0
        ticket = uuid.uuid4().hex[:12]
        start = self.clock()
        while True:
            def attempt(entries):
                now = self.clock()
                entries[:] = [e for e in entries if now - e[1] < WINDOW_S]
                reqs = len(entries)
                toks = sum(e[2] for e in entries)
                fits_r = self.rpm is None or reqs < self.rpm
                # A request larger than the whole budget is let through alone rather than starved.
                fits_t = self.tpm is None or toks + est_tokens <= self.tpm or not entries
                if fits_r and fits_t:
                    entries.append([ticket, now, est_tokens])
                    return 0.0
                oldest = min(e[1] for e in entries)
                return max(0.05, WINDOW_S - (now - oldest))
            wait = self._update(attempt)
            if wait == 0.0:
                return ticket, self.clock() - start
            self.sleep(min(wait, 5.0))

    def settle(self, ticket: str | None, tokens: int) -> None:
        if ticket is None:
            return

        def fix(entries):
            for e in entries:
                if e[0] == ticket:
                    e[2] = tokens
        self._update(fix)


def _window(text: str) -> list:
    """The shared window's entries; a torn file (a kill mid-rewrite: it is rewritten in place under
    its flock) or one that is not a list of entries starts an empty window rather than failing calls."""
    from harness.core.statefile import loads
    try:
        entries = loads(text) if text.strip() else []
    except ValueError:
        return []
    return [e for e in entries if isinstance(e, list) and len(e) == 3] if isinstance(entries, list) else []
