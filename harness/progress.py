"""Progress of a run: done / void / in flight / spend, on one line.

On a terminal the line is redrawn in place; otherwise (a log file, CI) a line is printed at most
every ``every_s`` seconds and at the end. Spend sums ``cost_usd`` over the records so far; cells
whose model has no price are counted separately, never as zero.
"""
from __future__ import annotations

import sys
import time


def _fmt_s(s: float) -> str:
    s = int(round(s))
    return f"{s // 3600}:{s % 3600 // 60:02d}:{s % 60:02d}"


class Progress:
    def __init__(self, total: int, workers: int, stream=None, every_s: float = 10.0, clock=time.monotonic):
        self.total, self.workers = total, max(1, workers)
        self.stream = stream if stream is not None else sys.stderr
        self.tty = hasattr(self.stream, "isatty") and self.stream.isatty()
        self.every_s, self.clock = every_s, clock
        self.start = self.last = clock()
        self.done = self.void = self.unpriced = 0
        self.spend = 0.0
        self.in_flight = 0

    def update(self, rec: dict | None = None, *, in_flight: int | None = None, voided: bool = False) -> None:
        if rec is not None:
            if voided or rec.get("outcome") == "void":
                self.void += 1
            else:
                self.done += 1
            cost = rec.get("cost_usd")
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
        spend = f"${self.spend:,.4f}" + (f" (+{self.unpriced} unpriced)" if self.unpriced else "")
        eta = ""
        if finished and self.done < self.total:
            eta = f" | eta {_fmt_s(el / finished * max(0, self.total - self.done))}"
        return (f"{_fmt_s(el)} done {self.done}/{self.total} | void {self.void} | in flight {self.in_flight} | "
                f"spend {spend}{eta}")

    def close(self) -> None:
        if self.tty:
            self.stream.write("\r" + self.line() + "\033[K\n")
        else:
            self.stream.write(self.line() + "\n")
        self.stream.flush()
