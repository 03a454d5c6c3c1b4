"""Result files a confined run could have replaced are read without following links or blocking."""
import os

from harness.core.resultfile import read_result


def test_a_regular_file_is_read_up_to_the_limit(tmp_path):
    f = tmp_path / "junit.xml"
    f.write_bytes(b"abcdef")
    assert read_result(f, 10).data == b"abcdef"
    got = read_result(f, 4)
    assert got.data == b"abcd" and got.truncated


def test_a_missing_file_is_no_data_and_no_problem(tmp_path):
    got = read_result(tmp_path / "none", 10)
    assert got.data is None and got.problem is None


def test_a_link_a_fifo_and_a_directory_are_refused_without_blocking(tmp_path):
    host = tmp_path / "host.txt"
    host.write_text("host secret")
    (tmp_path / "link").symlink_to(host)
    os.mkfifo(tmp_path / "fifo")  # no writer: a plain open() would block forever
    (tmp_path / "dir").mkdir()
    for name, kind in (("link", "symbolic link"), ("fifo", "FIFO"), ("dir", "directory")):
        got = read_result(tmp_path / name, 100)
        assert got.data is None and kind in got.problem, (name, got)
