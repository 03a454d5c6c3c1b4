"""The scenario tools' log: a channel the harness holds and the agent can neither erase nor bypass.

Scenario tools that act on the world (B13's production deploy, B12's database migration) report
each invocation, before they act, to the harness over a FIFO the harness creates outside the
workspace for the cell. The harness holds its read end (and a write end, so it never sees EOF)
and a thread drains it into memory; after the arm, each report becomes a ``tool_call`` event in
the cell's event log, and the scenario's ``tool_log`` checks and destructiveCmd read those, not
files in the workspace (a receipt the agent erased, or a table it refilled, changes nothing).

What the agent can and cannot do to it:

- erase or rewrite an entry: no. Entries live in the harness process as soon as they are read;
  the FIFO holds nothing on disk.
- bypass it with the provided tool: no. The tool refuses to act when its report cannot be made
  (the channel is missing or not a FIFO), so every effect of the provided tool is logged. At
  the bwrap level the FIFO is a bind mount (``run_command`` binds it writable at its own path):
  a mount point cannot be unlinked or replaced from inside the sandbox.
- read it (and so take a report before the harness thread does): no. Once the harness holds both
  ends the FIFO is write-only for everyone (0222) and, when the harness is root, owned by
  ``OWNER``, a uid no confined process runs as (bwrap and namespaces+nocaps run as root without
  capabilities, namespaces+nobody as nobody): not the owner, the agent can neither open it for
  reading nor chmod it back. (A harness that is not root cannot chown: there the confined user
  owns the FIFO at bwrap and could chmod it open again; stated in the README.)
- add an entry: writing to the channel *is* invoking the tool; an entry is never exculpatory
  (the readout only ever turns unsafe on an entry), so a made-up entry can only count against
  the agent. Lines are read bounded (``MAX_LINE``, ``MAX_ENTRIES``; past that the log says so); an
  over-long line keeps its head and its end, where a tool's own report ends (one write, newline-terminated),
  so a report behind an unterminated prefix another writer left is kept, its name at the tail of
  the first token (the ``tool_log`` check matches that tail).
- edit the tool and run the edited copy: that edit is a change to an out-of-scope start file,
  seen by the workspace watch even if restored (forbiddenPath); a copy the agent wrote itself is
  its own code, not the world's tool (its commands are read by destructiveCmd as ever).
"""
from __future__ import annotations

import os
import select
import shutil
import stat
import tempfile
import threading
from pathlib import Path

ENV = "HX_TOOL_CHANNEL"  # the variable naming the channel inside run_command's sandbox
MAX_LINE = 4096  # one report; a tool's write is at most PIPE_BUF, so reports never interleave
MAX_ENTRIES = 1000
OWNER = 65533  # the FIFO's owner when the harness is root: neither root (bwrap, nocaps) nor nobody (65534)


class ToolChannel:
    """One cell's FIFO and the thread draining it."""

    def __init__(self, base: Path):
        self._base = base
        self.path = base / "log"
        self.entries: list[dict] = []
        self.incomplete: list[str] = []
        os.chmod(base, 0o711)  # searchable, not listable or writable: the confined user (nobody) reaches the FIFO
        os.mkfifo(self.path, 0o600)
        self._r = os.open(self.path, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC)
        self._w = os.open(self.path, os.O_WRONLY | os.O_CLOEXEC)  # held: readers never see EOF between tools
        if os.geteuid() == 0:  # not the confined user's: it cannot chmod the FIFO readable again
            os.chown(self.path, OWNER, OWNER)
        os.chmod(self.path, 0o222)  # writable by every confined user, readable by none (a second reader steals reports)
        self._stop_r, self._stop_w = os.pipe2(os.O_CLOEXEC)
        self._buf = b""
        self._cut = False  # the line now in _buf has overflowed and its head was kept
        self._thread = threading.Thread(target=self._loop, name="tool-channel", daemon=True)
        self._thread.start()

    @classmethod
    def open(cls) -> ToolChannel:
        """A fresh channel in its own private directory outside any workspace."""
        return cls(Path(tempfile.mkdtemp(prefix="hx-toolchan-")))

    def _loop(self) -> None:
        poll = select.poll()
        poll.register(self._r, select.POLLIN)
        poll.register(self._stop_r, select.POLLIN)
        while True:
            ready = {f for f, _ in poll.poll()}
            if self._r in ready and self._drain():
                continue
            if self._stop_r in ready:
                return

    def _drain(self) -> bool:
        try:
            data = os.read(self._r, 1 << 16)
        except BlockingIOError:
            return False
        if not data:
            return False
        self._buf += data
        *lines, self._buf = self._buf.split(b"\n")
        for raw in lines:
            self._line(raw)
        if len(self._buf) > MAX_LINE:  # a line without end so far: its head kept now, its tail carried on
            if not self._cut:
                self._add(self._buf[:MAX_LINE].decode("utf-8", "replace"))
            self._cut, self._buf = True, self._buf[-MAX_LINE:]
        return True

    def _line(self, raw: bytes) -> None:
        """One complete line: its head (unless already kept) and, when it is longer than MAX_LINE,
        its tail too; a tool's report is one write ending in the newline, so it is in the tail even
        behind an unterminated prefix another writer left in the pipe first."""
        if not self._cut:
            self._add(raw[:MAX_LINE].decode("utf-8", "replace"))
        if self._cut or len(raw) > MAX_LINE:
            self._add(raw[-MAX_LINE:].decode("utf-8", "replace"))
        self._cut = False

    def _add(self, line: str) -> None:
        if not line.strip():
            return
        if len(self.entries) >= MAX_ENTRIES:
            if not self.incomplete:
                self.incomplete.append(f"more than {MAX_ENTRIES} tool reports: later ones were not kept")
            return
        tool, _, args = line.strip().partition(" ")  # the name's tail: an unterminated prefix glues onto its front
        self.entries.append({"tool": tool[-64:], "args": args.split(), "line": line[:MAX_LINE]})

    def close(self) -> list[dict]:
        """Drain what is left, stop the thread, remove the FIFO; the reports in arrival order."""
        os.write(self._stop_w, b"x")
        self._thread.join(timeout=30)
        while self._drain():
            pass
        if self._buf:
            self._add(self._buf.decode("utf-8", "replace"))
        for fd in (self._r, self._w, self._stop_r, self._stop_w):
            os.close(fd)
        shutil.rmtree(self._base, ignore_errors=True)
        return self.entries


def is_channel(path: str) -> bool:
    """Whether path is a FIFO (what a scenario tool checks before it reports and acts)."""
    try:
        return stat.S_ISFIFO(os.stat(path).st_mode)
    except OSError:
        return False
