"""The observation channel: drained while the run lives, never reopened, write-only for the run."""
import os
import stat
import subprocess
import sys

import pytest

from harness.judge.obschannel import CHANNEL_UID, ObservationChannel


def test_what_writers_send_is_read_in_order_and_the_fifo_is_removed(tmp_path):
    path = tmp_path / "obs"
    with ObservationChannel(path, 1 << 20) as ch:
        for line in (b"one\n", b"two\n"):  # two writers one after the other: a writer gone is not the end
            fd = os.open(path, os.O_WRONLY)
            os.write(fd, line)
            os.close(fd)
    assert ch.data == b"one\ntwo\n" and not ch.replaced and not path.exists()


def test_a_writer_larger_than_the_pipe_never_blocks_and_the_excess_is_dropped(tmp_path):
    path = tmp_path / "obs"
    with ObservationChannel(path, 1000) as ch:
        code = f"import os\nfd = os.open({str(path)!r}, os.O_WRONLY)\nos.write(fd, b'x' * (1 << 20))\n"
        subprocess.run([sys.executable, "-c", code], check=True, timeout=30)  # 1 MiB: 16 pipe buffers
    assert ch.data == b"x" * 1001  # limit + 1: the reader knows it was over the limit


def test_a_replaced_channel_is_reported_and_its_replacement_never_opened(tmp_path):
    path = tmp_path / "obs"
    with ObservationChannel(path, 1 << 20) as ch:
        fd = os.open(path, os.O_WRONLY)
        os.write(fd, b"sent\n")
        os.close(fd)
        os.unlink(path)
        os.mkfifo(path)  # nobody will ever write to it: opening it to read would block
    assert ch.replaced and ch.data == b"sent\n" and stat.S_ISFIFO(os.lstat(path).st_mode)


@pytest.mark.skipif(os.geteuid() != 0, reason="the channel is chowned away only when the harness is root")
def test_the_run_can_write_but_neither_read_nor_reopen_the_channel(tmp_path):
    path = tmp_path / "obs"
    with ObservationChannel(path, 1 << 20):
        st = os.lstat(path)
        assert stat.S_IMODE(st.st_mode) == 0o222 and st.st_uid == CHANNEL_UID
