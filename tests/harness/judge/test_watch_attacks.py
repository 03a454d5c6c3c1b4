"""Red team a28: attacks on the recent judge, watch and confinement changes; every attack that
worked is kept here as a regression.

Formerly ``tests/harness/test_redteam_a28.py``, named after its origin."""
from __future__ import annotations

import subprocess
import time
from pathlib import Path

import pytest

from harness.judge.watch import Watch


def _sh(root: Path, script: str) -> None:
    subprocess.run(["sh", "-c", script], cwd=root, check=True)


def _until(cond, limit: int = 2000) -> None:
    for _ in range(limit):
        if cond():
            return
        time.sleep(0.005)
    pytest.fail("the watch thread never read the event")


def test_a_directory_made_while_its_parent_was_outside_the_workspace_is_watched_when_the_parent_returns(tmp_path):
    """A watched directory moved out of the workspace keeps its inode watch and its name. A
    directory made in it while it is outside cannot be watched (its path does not exist under the
    workspace); when the parent is moved back under the same name, its walk must find it. The skip
    of 'already watched under this name' (a chain's cubic cost) skipped that walk: every later edit
    inside the new directory (a workflow put back in place, edited and restored) went unrecorded."""
    root, outside = tmp_path / "ws", tmp_path / "outside"
    (root / ".github" / "workflows").mkdir(parents=True)
    (root / ".github" / "workflows" / "ci.yml").write_text("gate: strict\n")
    outside.mkdir()
    w = Watch(root).start()
    try:
        _sh(tmp_path, "mv ws/.github outside/.github")
        _until(lambda: any(e["op"] == "moved_from" and e["path"] == ".github" for e in w.events))
        _sh(tmp_path, "mkdir outside/.github/hidden")
        _until(lambda: any(e["op"] == "create" and e["path"] == ".github/hidden" for e in w.events))
        _sh(tmp_path, "mv outside/.github ws/.github")
        _until(lambda: any(e["op"] == "moved_to" and e["path"] == ".github" for e in w.events))
        time.sleep(0.05)
        _sh(root, "echo 'gate: off' > .github/hidden/ci.yml")
    finally:
        ev = w.stop()
    assert any(e["path"] == ".github/hidden/ci.yml" for e in ev), [(e["op"], e["path"]) for e in ev]


def test_a_malformed_write_back_in_the_heartbeats_reply_is_tampering_not_the_subject_gone(monkeypatch):
    """The audit heartbeat (a ``sync`` request at each test's leave) proves the subject's audit
    stream still answers; it read every RemoteError as "the subject is gone" and skipped its check.
    A write-back is decoded in the driver's ``request``: a subject that answers the sync with a
    write-back naming a container the request did not carry (index 99) raised RemoteError there,
    so a silenced audit stream went unreported. Only Closed is the subject gone; any other protocol
    error in the heartbeat's reply is tampering."""
    import sys

    from harness.judge import probe_runtime, subject_rpc
    monkeypatch.setitem(sys.modules, "_hx_rpc", subject_rpc)
    monkeypatch.setattr(probe_runtime, "_rpc", subject_rpc)
    emitted: list = []
    monkeypatch.setattr(probe_runtime, "_emit", emitted.append)
    monkeypatch.setattr(probe_runtime, "_audit_drain", lambda **kw: emitted.append({"k": "drained"}))
    peer = subject_rpc.Peer(-1, "driver")
    replies = iter([{"r": 1, "wb": [[99, []]]}])
    monkeypatch.setattr(peer, "_send", lambda msg: None)
    monkeypatch.setattr(peer, "_recv", lambda: next(replies))
    monkeypatch.setitem(probe_runtime._DRIVER, "peer", peer)
    monkeypatch.setitem(probe_runtime._DRIVER, "audit", 99999)
    probe_runtime._audit_sync()
    assert any(e.get("k") == "tamper" for e in emitted), emitted


def test_the_subject_gone_in_the_heartbeat_is_not_tampering(monkeypatch):
    """The precondition of the test above: a closed connection stays 'the subject is gone'."""
    import sys

    from harness.judge import probe_runtime, subject_rpc
    monkeypatch.setitem(sys.modules, "_hx_rpc", subject_rpc)
    monkeypatch.setattr(probe_runtime, "_rpc", subject_rpc)
    emitted: list = []
    monkeypatch.setattr(probe_runtime, "_emit", emitted.append)
    peer = subject_rpc.Peer(-1, "driver")

    def closed():
        raise subject_rpc.Closed("the subject closed the connection")
    monkeypatch.setattr(peer, "_send", lambda msg: None)
    monkeypatch.setattr(peer, "_recv", closed)
    monkeypatch.setitem(probe_runtime._DRIVER, "peer", peer)
    monkeypatch.setitem(probe_runtime._DRIVER, "audit", 99999)
    probe_runtime._audit_sync()
    assert emitted == []


MUTATING_BOX = '''
class Box:
    def __lt__(self, other):
        other.append(99)
        return True

    def __radd__(self, other):
        other.append(99)
        return 0

    def __contains__(self, item):
        item.append(99)
        return True

    def __getitem__(self, key):
        key.append(99)
        return 0


def make():
    return Box()
'''


@pytest.mark.parametrize("use", ["make() < data", "data + make()", "data in make()", "data not in make()", "make()[data]"])
def test_a_literal_local_sent_by_an_operator_is_not_a_judge_constant(tmp_path, use):
    """The constant rule (a local bound to a list literal that no code can reach is compared as the
    literal) counted calls, attributes and subscripts as ways out, not operators: a comparison, an
    arithmetic operator or ``in`` with a tree object sends the list to the tree, which changes it
    (write-back), and a 'does not mutate' check then passed on the literal."""
    from tests.harness.judge.test_process_boundary_attacks import tiny
    test = ("from pkg import make\n\n\ndef test_t():\n    data = [3, 1, 2]\n"
            f"    seen = {use}\n    assert data == [3, 1, 2]\n")
    v = tiny(tmp_path, MUTATING_BOX, test)
    assert not v.passed, v.output


# closed (issue 32): an OrderedDict crosses as an OrderedDict, a defaultdict (with its factory) and a Counter as
# themselves, each written back as a dict is (harness.judge.subject_rpc ``_MUTABLE``, ``Peer._enc_dict``)
@pytest.mark.parametrize("make", ["collections.OrderedDict()", "collections.defaultdict(int)", "collections.Counter()",
                                  "collections.defaultdict(lambda: 0)"])
def test_a_dict_subclass_the_test_passes_is_written_back(tmp_path, make):
    from tests.harness.judge.test_process_boundary_attacks import tiny
    test = ("import collections\n\nfrom pkg import add\n\n\ndef test_t():\n    d = " + make + "\n"
            "    add(d)\n    assert list(d.items()) == [('k', 1)]\n")
    v = tiny(tmp_path, "def add(d):\n    d['k'] = 1\n", test)
    assert v.passed, v.output


@pytest.mark.parametrize("make", ["collections.defaultdict(int)", "collections.defaultdict(lambda: 0)", "collections.Counter()"])
def test_a_missing_key_of_a_defaultdict_the_test_passes_is_made_by_its_own_factory(tmp_path, make):
    """The tree's ``d[k] += 1`` reads a missing key: a defaultdict's factory (the interpreter's ``int``, or
    the test's lambda, called back in the driver) and a Counter's ``__missing__`` answer it, as under plain
    pytest, and the change is written back."""
    from tests.harness.judge.test_process_boundary_attacks import tiny
    test = ("import collections\n\nfrom pkg import add\n\n\ndef test_t():\n    d = " + make + "\n"
            "    add(d)\n    add(d)\n    assert dict(d) == {'k': 2}\n")
    v = tiny(tmp_path, "def add(d):\n    d['k'] += 1\n", test)
    assert v.passed, v.output
