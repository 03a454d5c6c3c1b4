"""The wsaccel fallback of websocket/_abnf.py, as a project tests an optional accelerator: the
module is reloaded with a fake ``wsaccel`` installed, then reloaded without it (written for this
benchmark; not part of websocket-client's own suite, see ATTRIBUTION.md). The frames are then
built and read back through the reloaded module."""
import importlib
import sys
import types

import websocket._abnf as abnf_mod


def _reload_without_wsaccel():
    for name in ("wsaccel", "wsaccel.xormask"):
        sys.modules.pop(name, None)
    return importlib.reload(abnf_mod)


def test_mask_uses_wsaccel_when_installed(monkeypatch):
    calls = []

    class XorMaskerSimple:
        def __init__(self, mask):
            self.mask = mask

        def process(self, data):
            calls.append(bytes(data))
            return bytes(b ^ self.mask[i % 4] for i, b in enumerate(data))

    pkg = types.ModuleType("wsaccel")
    sub = types.ModuleType("wsaccel.xormask")
    sub.XorMaskerSimple = XorMaskerSimple
    monkeypatch.setitem(sys.modules, "wsaccel", pkg)
    monkeypatch.setitem(sys.modules, "wsaccel.xormask", sub)
    mod = importlib.reload(abnf_mod)
    try:
        assert mod.ABNF.mask(b"\x01\x02\x03\x04", b"abcdef") == bytes(
            b ^ k for b, k in zip(b"abcdef", b"\x01\x02\x03\x04\x01\x02"))
        assert calls == [b"abcdef"]
    finally:
        monkeypatch.undo()
        _reload_without_wsaccel()


def test_pure_python_mask_round_trips():
    mod = _reload_without_wsaccel()
    key = b"\x9a\x01\xff\x10"
    for data in (b"", b"a", b"abcd", b"hello world!!", bytes(range(256))):
        masked = mod.ABNF.mask(key, data)
        assert len(masked) == len(data)
        assert mod.ABNF.mask(key, masked) == data
    assert mod.ABNF.mask("abcd", "ab") == bytes([ord("a") ^ ord("a"), ord("b") ^ ord("b")])


def _reader(data):
    chunks = [data]

    def recv(n):
        head, chunks[0] = chunks[0][:n], chunks[0][n:]
        return head
    return recv


def test_frames_round_trip_after_reload():
    mod = _reload_without_wsaccel()
    for payload in (b"x" * 5, b"y" * 200, b"z" * 70000):
        frame = mod.ABNF.create_frame(payload, mod.ABNF.OPCODE_BINARY)
        frame.get_mask_key = lambda n: b"\x11\x22\x33\x44"
        wire = frame.format()
        got = mod.frame_buffer(_reader(wire), True).recv_frame()
        assert (got.fin, got.opcode, got.data) == (1, mod.ABNF.OPCODE_BINARY, payload)


def test_text_frame_and_close_validation_after_reload():
    mod = _reload_without_wsaccel()
    frame = mod.ABNF.create_frame("héllo", mod.ABNF.OPCODE_TEXT)
    assert frame.data == "héllo".encode("utf-8")
    mod.ABNF(1, 0, 0, 0, mod.ABNF.OPCODE_CLOSE, 0, b"\x03\xe8ok").validate()
    mod.ABNF(1, 0, 0, 0, mod.ABNF.OPCODE_CLOSE, 0, b"\x0b\xb8").validate()    # 3000: application code
    for bad in (b"\x03\xe7", b"\x13\x88"):                                       # 999, 5000
        try:
            mod.ABNF(1, 0, 0, 0, mod.ABNF.OPCODE_CLOSE, 0, bad).validate()
        except mod.WebSocketProtocolException:
            continue
        raise AssertionError(bad)


def test_continuous_frames_after_reload():
    mod = _reload_without_wsaccel()
    cont = mod.continuous_frame(False, False)
    first = mod.ABNF(0, 0, 0, 0, mod.ABNF.OPCODE_TEXT, 0, b"he")
    cont.validate(first)
    cont.add(first)
    assert not cont.is_fire(first)
    last = mod.ABNF(1, 0, 0, 0, mod.ABNF.OPCODE_CONT, 0, b"llo")
    cont.validate(last)
    cont.add(last)
    assert cont.is_fire(last)
    assert cont.extract(last) == (mod.ABNF.OPCODE_TEXT, last)
    assert last.data == b"hello"
