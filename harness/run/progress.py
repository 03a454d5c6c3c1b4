"""Progress of a run: done / void / in flight / spend, on one line.

On a terminal the line is redrawn in place; otherwise (a log file, CI) a line is printed at most
every ``every_s`` seconds and at the end. Spend is the run's spend: with a spend ledger
(``spent``, reading spend.json: every engine call, including calls of void cells, retries, cut
replies charged at their bookings and earlier sessions) it is that figure, the same as the final
spend line (issue 34: a sum of the records' ``cost_usd`` undercounted it); without one it sums
``cost_usd`` over the records so far, and cells whose model has no price are counted separately,
never as zero.

``extra`` (optional) is a callable whose short text is appended to the line, recomputed at most
every ``extra_every_s`` seconds (``harness run --monitor`` uses it for the primary hypothesis's
confidence sequence: analysis/monitor.py). A failure of ``extra`` shows as its message, never
stops the run.
"""
from __future__ import annotations

import sys
import time

from harness.core.record import CellRecord


def _fmt_s(s: float) -> str:
    s = int(round(s))
    return f"{s // 3600}:{s % 3600 // 60:02d}:{s % 60:02d}"


class Progress:
    def __init__(self, total: int, workers: int, stream=None, every_s: float = 10.0, clock=time.monotonic,
                 extra=None, extra_every_s: float = 10.0, spent=None):
        self.total, self.workers = total, max(1, workers)
        self.stream = stream if stream is not None else sys.stderr
        self.tty = hasattr(self.stream, "isatty") and self.stream.isatty()
        self.every_s, self.clock = every_s, clock
        self.start = self.last = clock()
        self.done = self.void = self.unpriced = 0
        self.spend = 0.0
        self.in_flight = 0
        self.extra, self.extra_every_s = extra, extra_every_s
        self.spent = spent  # () -> the run's spend in USD (spend.json), or None
        self._extra_text, self._extra_at = "", None

    def update(self, rec: CellRecord | None = None, *, in_flight: int | None = None, voided: bool = False) -> None:
        if rec is not None:
            if voided or not rec.scored:
                self.void += 1
            else:
                self.done += 1
            cost = rec.cost_usd
            if cost is None:
                self.unpriced += 1
            else:
                self.spend += float(cost)
        if in_flight is not None:
            self.in_flight = in_flight
        now = self.clock()
        if self.tty:
            self.stream.write("\r" + self.line() + "\033[K")
            self.stream.flush()
        elif now - self.last >= self.every_s:
            self.last = now
            self.stream.write(self.line() + "\n")
            self.stream.flush()

    def line(self) -> str:
        el = self.clock() - self.start
        finished = self.done + self.void
        spend = self._spend_text()
        eta = ""
        if finished and self.done < self.total:
            eta = f" | eta {_fmt_s(el / finished * max(0, self.total - self.done))}"
        return (f"{_fmt_s(el)} done {self.done}/{self.total} | void {self.void} | in flight {self.in_flight} | "
                f"spend {spend}{eta}{self._extra(force=False)}")

    def _spend_text(self) -> str:
        if self.spent is not None:
            try:
                usd = self.spent()
            except Exception as exc:  # noqa: BLE001 -- a display: an unreadable spend.json shows as such
                return f"unreadable ({type(exc).__name__})"
            if usd is not None:
                return f"${usd:,.4f} (spend.json)"
        return f"${self.spend:,.4f}" + (f" (+{self.unpriced} unpriced)" if self.unpriced else "")

    def _extra(self, force: bool) -> str:
        if self.extra is None:
            return ""
        now = self.clock()
        if force or self._extra_at is None or now - self._extra_at >= self.extra_every_s:
            self._extra_at = now
            try:
                self._extra_text = str(self.extra())
            except Exception as exc:  # noqa: BLE001 - a monitoring problem must never stop the run
                self._extra_text = f"monitor unavailable ({type(exc).__name__}: {exc})"
        return f" | {self._extra_text}" if self._extra_text else ""

    def close(self) -> None:
        self._extra(force=True)  # the final line carries the sequence over every record
        if self.tty:
            self.stream.write("\r" + self.line() + "\033[K\n")
        else:
            self.stream.write(self.line() + "\n")
        self.stream.flush()
