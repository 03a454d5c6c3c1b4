"""A tree module's namespace is one state, as under plain pytest (``TREE_NAMESPACE_RULE``, harness.judge.subject_rpc).

What the tree's call binds in its module (a counter, a rebound function, a deleted name) and what it changes in a list,
dict or set bound there, the test reads afterwards through ``pkg.x`` or ``from pkg import x``; what the test binds or
appends the tree reads; a tree thread's change the test never reached is no fault after a busy wait. Each tree runs judged
and under plain pytest, cold and warm: the verdicts must agree (34 of the first 42 disagreed before the rule: the proxy
module held its import-time copy; red team atk24).
"""
from __future__ import annotations

import pytest

from tests.harness.judge.test_atk16_attacks import _judged_as_plain

_CNT = "n = 0\nlog = []\nd = {}\n\n\ndef f():\n    global n\n    n += 1\n    log.append(n)\n    d[n] = str(n)\n"
# name -> (the tree's package, the harness's test[, more files]); plain pytest passes each
HONEST: dict[str, tuple] = {
 "int_rebind": (_CNT, "import pkg\n\ndef test_f():\n    pkg.f()\n    assert pkg.n == 1\n"),
 "list_append": (_CNT, "import pkg\n\ndef test_f():\n    pkg.f(); pkg.f()\n    assert pkg.log == [1, 2]\n"),
 "dict_set": (_CNT, "import pkg\n\ndef test_f():\n    pkg.f()\n    assert pkg.d == {1: '1'}\n"),
 "from_import_list": (_CNT, "from pkg import log, f\n\ndef test_f():\n    f()\n    assert log == [1]\n"),
 "from_import_int_stays": (_CNT, "from pkg import n, f\n\ndef test_f():\n    f()\n    assert n == 0\n"),
 "test_appends": ("log = []\n\ndef f():\n    return len(log)\n", "import pkg\n\ndef test_f():\n    pkg.log.append(1)\n    assert pkg.f() == 1\n"),
 "test_sets": ("x = 0\n\ndef f():\n    return x\n", "import pkg\n\ndef test_f():\n    pkg.x = 5\n    assert pkg.f() == 5 and pkg.x == 5\n"),
 "monkeypatched": ("x = 0\n\ndef f():\n    return x\n", "import pkg\n\ndef test_f(monkeypatch):\n    monkeypatch.setattr(pkg, 'x', [5])\n    assert pkg.f() == [5] and pkg.x == [5]\n"),
 "raises_after_change": ("n = 0\n\ndef f():\n    global n\n    n = 7\n    raise KeyError(n)\n", "import pkg, pytest\n\ndef test_f():\n    with pytest.raises(KeyError):\n        pkg.f()\n    assert pkg.n == 7\n"),
 "callback_reads": ("n = 0\n\ndef f(cb):\n    global n\n    n = 3\n    return cb()\n", "import pkg\n\ndef test_f():\n    assert pkg.f(lambda: pkg.n) == 3\n"),
 "rebound_function": ("def g():\n    return 1\n\ndef swap():\n    global g\n    def g():\n        return 2\n", "import pkg\n\ndef test_f():\n    pkg.swap()\n    assert pkg.g() == 2\n"),
 "deleted": ("x = 1\n\ndef drop():\n    global x\n    del x\n", "import pkg\n\ndef test_f():\n    pkg.drop()\n    assert not hasattr(pkg, 'x')\n"),
 "class_attr_via_module": ("class C:\n    items = []\n\ndef add():\n    C.items.append(1)\n", "import pkg\n\ndef test_f():\n    pkg.add()\n    assert pkg.C.items == [1]\n"),
 "submodule": ("", "import pkg.sub\n\ndef test_f():\n    pkg.sub.f()\n    assert pkg.sub.n == 1 and pkg.sub.log == [1]\n", {"pkg/sub.py": _CNT}),
 "tuple_rebind": ("t = ()\n\ndef f():\n    global t\n    t = t + (1,)\n", "import pkg\n\ndef test_f():\n    pkg.f()\n    assert pkg.t == (1,)\n"),
 "nested": ("reg = {'a': []}\n\ndef f():\n    reg['a'].append(1)\n    reg['b'] = [2]\n", "import pkg\n\ndef test_f():\n    pkg.f()\n    assert pkg.reg == {'a': [1], 'b': [2]}\n"),
}
_THREAD = ("import threading, time\n\nDONE = []\n\n\ndef start():\n    def w():\n        time.sleep(0.1)\n"
           "        DONE.append(1)\n    threading.Thread(target=w).start()\n\n\ndef done():\n    return len(DONE)\n")
_BUSY = "    t0 = time.monotonic()\n    while time.monotonic() - t0 < 0.5:\n        pass\n"
HONEST.update({  # a thread of the tree changes a module's list while the test busy-waits (``Peer.unread_links``)
    "thread_appends_while_the_test_busy_waits": (_THREAD, "import time\nimport pkg\n\n\ndef test_f():\n    pkg.start()\n"
                                                 + _BUSY + "    assert pkg.done() == 1\n"),
    "thread_appends_then_the_test_reads_the_list": (_THREAD, "import time\nimport pkg\n\n\ndef test_f():\n"
                                                    "    pkg.start()\n" + _BUSY + "    assert pkg.DONE == [1]\n"),
})
# the same, wrong: plain pytest fails each (a judge reading the import-time copy passed them)
LENIENT: dict[str, tuple] = {
 "int_stale": (_CNT, "import pkg\n\ndef test_f():\n    pkg.f()\n    assert pkg.n == 0\n"),
 "list_stale": (_CNT, "import pkg\n\ndef test_f():\n    pkg.f()\n    assert pkg.log == []\n"),
 "from_list_stale": (_CNT, "from pkg import log, f\n\ndef test_f():\n    f()\n    assert log == []\n"),
 "sub_stale": ("", "import pkg.sub\n\ndef test_f():\n    pkg.sub.f()\n    assert pkg.sub.n == 0\n", {"pkg/sub.py": _CNT}),
 "callback_stale": ("n = 0\n\ndef f(cb):\n    global n\n    n = 3\n    r = cb()\n    n = 0\n    return r\n", "import pkg\n\ndef test_f():\n    assert pkg.f(lambda: pkg.n) == 0\n"),
 "thread_appends_then_the_test_reads_it_stale": (_THREAD, "import time\nimport pkg\n\n\ndef test_f():\n    pkg.start()\n"
                                                 + _BUSY + "    assert pkg.DONE == []\n"),
 "thread_appends_to_the_list_the_test_holds": (_THREAD, "import time\nfrom pkg import DONE, start\n\n\ndef test_f():\n"
                                               "    start()\n" + _BUSY + "    assert DONE == []\n"),
}



@pytest.mark.parametrize("name", sorted(HONEST))
def test_the_test_reads_the_tree_modules_namespace_as_it_is_now(tmp_path, executor, name):
    _judged_as_plain(tmp_path, HONEST[name], plain_passes=True)


@pytest.mark.parametrize("name", sorted(LENIENT))
def test_a_wrong_tree_is_never_passed_by_the_import_time_namespace(tmp_path, executor, name):
    _judged_as_plain(tmp_path, LENIENT[name], plain_passes=False)
