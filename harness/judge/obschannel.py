"""The observation channel of a judged run: a FIFO the harness drains while the run lives.

The probe runtime (harness.judge.probe_runtime) writes its observations into a FIFO the harness
made in the run's result directory and opened for reading *before* the run started. A reader
thread here drains it as the records arrive, so what the run wrote is in the harness's memory
before the run ends: code under test cannot rewrite, truncate or delete an observation after the
fact (an atexit hook that rewrites "the file" finds nothing to rewrite), and anything it appends
is judged as what it is (a second ``enter``, a ``leave`` without one: tampering). The FIFO is
write-only for the run (mode 0222, owned by a user no run has, so the run can neither read the
channel nor chmod it open, at every level where the harness is root).

Since issue 21 the code under test runs in another process (the judged run's subject), which
holds neither the channel's descriptor nor the run's nonce: a record it writes into the FIFO
(write-only for every run) lacks the nonce and is tampering (docs/explanation/judge-design.md).
"""
from __future__ import annotations

import os
import select
import threading
from pathlib import Path
from typing import Self

CHANNEL_UID = 65533  # owns the FIFO: neither root (bwrap, namespaces+nocaps) nor nobody (namespaces+nobody)


class ObservationChannel:
    """``with ObservationChannel(path, limit) as ch: <run>``; then ``ch.data`` holds what the run
    wrote (at most ``limit + 1`` bytes: more means it was over the limit), ``ch.replaced`` says
    whether the run moved or replaced the FIFO, and the FIFO is gone. Nothing at the path is ever
    opened again: a link or a FIFO planted there is never followed nor waited for."""

    def __init__(self, path: Path, limit: int):
        self.path, self.limit = Path(path), limit
        self._buf = bytearray()
        self._stop = threading.Event()
        self._fd: int | None = None
        self._thread: threading.Thread | None = None
        self.data = b""
        self.replaced = False  # the run moved, removed or replaced the FIFO (harmless to the data; reported)

    def __enter__(self) -> Self:
        os.mkfifo(self.path, 0o600)
        self._fd = os.open(self.path, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC)  # never blocks
        if os.geteuid() == 0:
            os.chown(self.path, CHANNEL_UID, CHANNEL_UID)
        os.chmod(self.path, 0o222)
        self._wake_r, self._wake_w = os.pipe2(os.O_CLOEXEC)  # stops the reader at once when the run is over
        self._thread = threading.Thread(target=self._drain, name="hx-observations", daemon=True)
        self._thread.start()
        return self

    def _opened(self) -> int:
        """The FIFO's read end; only between ``__enter__`` and ``__exit__``."""
        if self._fd is None:
            raise RuntimeError("ObservationChannel used outside its `with` block")
        return self._fd

    def __exit__(self, *exc) -> None:
        fd = self._opened()
        assert self._thread is not None  # started by __enter__, which set the fd above
        self._stop.set()
        os.write(self._wake_w, b"x")
        self._thread.join()
        os.close(self._wake_r)
        os.close(self._wake_w)
        self._read_available()  # whatever the last writer left after the thread's last poll
        ours = os.fstat(fd)
        os.close(fd)
        try:
            st = os.lstat(self.path)
            self.replaced = (st.st_dev, st.st_ino) != (ours.st_dev, ours.st_ino)
            if not self.replaced:
                os.unlink(self.path)
        except OSError:
            self.replaced = True
        self.data = bytes(self._buf)

    def _read_available(self) -> bool:
        """Read until the pipe is empty; False once no writer holds it open (EOF)."""
        while True:
            try:
                chunk = os.read(self._opened(), 1 << 16)
            except BlockingIOError:
                return True
            if not chunk:
                return False
            room = self.limit + 1 - len(self._buf)
            if room > 0:
                self._buf += chunk[:room]  # past the limit: drained (the writer never blocks) and dropped

    def _drain(self) -> None:
        poller, idle = select.poll(), select.poll()
        poller.register(self._opened(), select.POLLIN)
        poller.register(self._wake_r, select.POLLIN)
        idle.register(self._wake_r, select.POLLIN)
        while not self._stop.is_set():
            events = poller.poll()  # data, a writer gone (POLLHUP), or the wake-up
            if any(fd == self._fd for fd, _ in events) and not self._read_available():
                idle.poll(10)  # no writer right now: POLLHUP repeats until one opens the FIFO again
