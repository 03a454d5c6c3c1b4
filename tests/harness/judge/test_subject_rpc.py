"""The protocol between a judged run's driver and its subject (harness.judge.subject_rpc), in one process.

Two peers over a socket pair: the test is the driver, a thread serves a module as the subject. What a
value is once it has crossed, as plain pytest would hand it over (issue 32, "never more lenient than plain
pytest"): a container the tree still holds is one object on each side, kept in step (``Peer._link``); a
fresh one is a copy; a callee that returns its argument returns the caller's own object; an aware datetime
keeps its ZoneInfo; a defaultdict or Counter the test passes is itself and written back; the test's warning
filters that make a warning an error apply where the tree warns. The judged runs of these rules (a tree,
a test, plain pytest beside the judge) are in test_final_check_attacks.py, test_identity.py and
test_watch_attacks.py.
"""
from __future__ import annotations

import collections
import datetime as dt
import os
import re
import socket
import sys
import threading
import types
import warnings
import zoneinfo

import pytest

from harness.judge import subject_rpc as rpc

TREE = """
import collections, datetime as dt, warnings, zoneinfo

_S = [1, 2]
_C = {}
_NESTED = {"rows": [[1], [2]]}
_BIG = [[i] for i in range(50)]


def get():
    return _S


def total():
    return sum(_S)


def getc():
    return _C


def put(k, v):
    _C[k] = v


def nested():
    return _NESTED


def rows_total():
    return sum(sum(r) for r in _NESTED["rows"])


def grow_inner():
    _NESTED["rows"][0].append(10)


def fresh():
    return [1, [2], {"a": [3]}]


def same(x):
    return x


def first(d):
    return d["xs"]


def big():
    return _BIG


def wall_clock():
    return dt.datetime(2021, 3, 28, 2, 30, tzinfo=zoneinfo.ZoneInfo("Europe/Berlin"))


def uncached_zone():
    return dt.datetime(2021, 3, 28, 2, 30, tzinfo=zoneinfo.ZoneInfo.no_cache("Europe/Berlin"))


def count(d):
    d["k"] += 1


def sort_items(cfg):
    cfg.items.sort()


def sort_rows(rows):
    for r in rows:
        r.sort()


class L(list):
    def __reversed__(self):
        return iter([9])

    def sort(self, **kw):
        self.reverse()


class D(dict):
    def keys(self):
        return ["a"]


class F(float):
    def __round__(self, n=None):
        return 7


def values():
    return L([1, 2, 3]), D(a=1, secret=2), F(2.6)


def grow(xs):
    list.append(xs, 5)


def total_of(xs):
    return sum(list.__iter__(xs))


def nested_l():
    return L([L([1, 2])])


def nans():
    import math
    return [1.0, math.nan], float("nan")


def is_math_nan(x):
    import math
    return x is math.nan


def swallow():
    try:
        warnings.warn("d", DeprecationWarning)
    except DeprecationWarning:
        return "error"
    return "recorded"


_KEPT = []


def keep(x):
    _KEPT.append(x)


def later():
    _KEPT[-1].append(1)


def fail(x):
    raise ValueError("no")


_GIVEN = []


def give(cb):
    xs = [1]
    _GIVEN.append(xs)
    cb(xs)


def grow_given():
    _GIVEN[-1].append(2)


class P:
    def __init__(self, x):
        self.x = x


class Row(list):
    pass


class Tally(dict):
    pass


def made():
    return Row([1, 2]), Tally(k=1), P(1)


class T(tuple):
    pass


_INNER = []


def tuple_of_kept():
    _INNER[:] = [[]]
    return T((_INNER[0],)), Row([_INNER[0]])


def fill_inner():
    _INNER[0].append(1)


def kept_row():
    _KEPT.append(Row([1]))
    return _KEPT[-1]


def kept_total():
    return sum(_KEPT[-1])


class K(list):
    pass


def k():
    return K([3, 1])


def give_k_an_iter():
    K.__iter__ = lambda self: iter([])


def reclass(x):
    x.__class__ = Row


_DELS = []


class Fin:
    def __del__(self):
        _DELS.append(1)


def dels():
    return _DELS


def fin():
    return Fin()


def apply_back(items, cb):
    cb(items)
    return len(items)


def through_attribute(r, ns):
    r.append(1)
    return len(ns.items)


def aliased(a, b):
    a.append(1)
    return len(b), [a, a], {"x": a, "y": a}


def call_back(cb):
    deep = []
    for _ in range(100):
        deep = [deep]
    try:
        cb(deep)
    except Exception:
        return "swallowed"
    return "called"
"""


@pytest.fixture(autouse=True)
def _root_handlers_kept():
    """Every test leaves the root logger's handlers as it found them: a subject ``ProcState`` puts its log
    forwarder there (as in the subject process), and one left behind relays the next test's records."""
    import logging
    kept = list(logging.root.handlers)
    yield
    logging.root.handlers[:] = kept


@pytest.fixture
def pair():
    """(the driver's peer, the subject's peer, the tree module's proxy)."""
    a, b = socket.socketpair()
    driver, subject = rpc.Peer(a.detach(), "driver"), rpc.Peer(b.detach(), "subject")
    mod = types.ModuleType("tree")
    exec(TREE, mod.__dict__)  # noqa: S102 - the test's own tree
    hid = subject.export(mod)
    thread = threading.Thread(target=subject.serve_forever, daemon=True)
    thread.start()
    yield driver, subject, driver.proxy({"id": hid, "ty": "tree", "c": False})
    socket.socket(fileno=driver.fd).close()
    thread.join(timeout=10)


def test_a_container_the_tree_holds_is_one_object_kept_in_step_on_both_sides(pair):
    driver, subject, tree = pair
    x = tree.get()
    assert type(x) is list and x == [1, 2]
    assert tree.get() is x  # the same list for every call, as plain pytest's ``get() is get()``
    x.append(9)  # the test's change reaches the tree before it next runs
    assert tree.total() == 12
    c = tree.getc()
    tree.put("k", 1)  # the tree's later change shows through the test's dict
    assert c == {"k": 1}


def test_a_container_inside_a_linked_one_is_linked_too(pair):
    driver, subject, tree = pair
    n = tree.nested()
    row = n["rows"][0]
    row.append(5)
    assert tree.rows_total() == 8
    tree.grow_inner()
    assert row == [1, 5, 10] and n["rows"][0] is row
    n["rows"].append([100])  # a container the test puts into a linked one is linked from then on
    assert tree.rows_total() == 118
    n["rows"][-1].append(1)
    assert tree.rows_total() == 119


def test_a_fresh_container_is_a_copy_and_no_link_is_kept(pair):
    driver, subject, tree = pair
    f = tree.fresh()
    assert f == [1, [2], {"a": [3]}]
    tree.total()
    assert not driver.links and not subject.links


def test_a_link_ends_on_both_sides_when_the_test_drops_its_container(pair):
    driver, subject, tree = pair
    x = tree.get()
    assert driver.links and subject.links
    del x
    tree.total()  # the driver says so with its next message
    tree.total()
    assert not driver.links and not subject.links
    x = tree.get()  # crossing again links it again
    x.append(3)
    assert tree.total() == 6


def test_a_callee_that_returns_its_argument_returns_the_callers_own_object(pair):
    driver, subject, tree = pair
    xs = [3, 1]
    assert tree.same(xs) is xs
    d = {"xs": [1]}
    assert tree.first(d) is d["xs"]


def test_past_the_bound_a_container_crosses_as_a_copy(pair, monkeypatch):
    """Every message checks every link: their number is bounded (``MAX_LINKS``); past it, a copy."""
    driver, subject, tree = pair
    monkeypatch.setattr(rpc, "MAX_LINKS", 10)
    rows = tree.big()
    assert rows == [[i] for i in range(50)]
    assert len(subject.links) <= 10 and len(driver.links) <= 10
    assert tree.big() is rows  # the outer list was linked before the bound was reached


def test_kept_tells_the_trees_own_containers_from_fresh_ones():
    state = [1, [2]]

    def handed_out():
        return state

    def made():
        return [1, [2], (3, [4])]

    result = handed_out()
    assert rpc._kept(result, 1) == {id(state)}  # (its inner list is reached through it: linked with it)
    result = made()
    assert rpc._kept(result, 1) == set()
    result = (state, [5])
    assert rpc._kept(result, 1) == {id(state)}


def test_an_aware_datetime_keeps_its_zone(pair):
    driver, subject, tree = pair
    berlin = zoneinfo.ZoneInfo("Europe/Berlin")
    w = tree.wall_clock()
    assert w.tzinfo is berlin
    assert w != dt.datetime(2021, 3, 28, 3, 30, tzinfo=berlin)  # compared by wall clock, as under plain pytest
    u = tree.uncached_zone()  # not the zone's cached instance: its fixed offset (what ``==`` reads across zones)
    assert u.tzinfo is not berlin and u.utcoffset() == dt.timedelta(hours=1)


@pytest.mark.parametrize("make", [lambda: collections.defaultdict(int), lambda: collections.defaultdict(lambda: 0),
                                  collections.Counter])
def test_a_defaultdict_or_counter_the_test_passes_is_itself_and_written_back(pair, make):
    driver, subject, tree = pair
    d = make()
    tree.count(d)
    tree.count(d)
    assert type(d) is type(make()) and d == {"k": 2}


def test_the_tests_error_filters_apply_where_the_tree_warns(pair):
    driver, subject, tree = pair
    assert tree.swallow() == "recorded"
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert tree.swallow() == "error"
        warnings.simplefilter("ignore", DeprecationWarning)  # first in the list: it wins
        assert tree.swallow() == "recorded"
    with warnings.catch_warnings():
        warnings.simplefilter("error", UserWarning)
        assert tree.swallow() == "recorded"


def test_the_filter_spec_is_empty_unless_a_filter_makes_an_error():
    with warnings.catch_warnings():
        warnings.resetwarnings()
        warnings.simplefilter("always")
        assert rpc._filter_spec() == []
        warnings.filterwarnings("error", message="x", category=DeprecationWarning)
        warnings.simplefilter("ignore", UserWarning, append=True)
        assert rpc._filter_spec() == [("error", "x", DeprecationWarning, "", 0)]


def test_a_date_or_datetime_stand_in_is_made_from_the_values_fields():
    class Stamp(dt.datetime):
        pass

    class Day(dt.date):
        pass

    when = dt.datetime(2024, 1, 2, 3, 4, 5, 6, tzinfo=dt.timezone.utc, fold=1)
    made = rpc._made_as(Stamp, when)
    assert type(made) is Stamp and made == when and made.fold == 1
    assert rpc._made_as(Day, dt.date(2024, 1, 2)) == dt.date(2024, 1, 2)


def test_a_link_the_peer_defines_with_this_sides_sign_or_changes_unknown_is_refused():
    a, b = socket.socketpair()
    driver = rpc.Peer(a.detach(), "driver")
    try:
        with pytest.raises(rpc.RemoteError):
            driver.dec({"t": "ln", "id": -5, "v": [1]})  # the driver's own sign: never the subject's to define
        with pytest.raises(rpc.RemoteError):
            driver.dec({"t": "ln", "id": 7})  # a reference to a link never defined
        with pytest.raises(rpc.RemoteError):
            driver._apply_links({"rm": [], "c": [[3, [1]]]})
        linked = driver.dec({"t": "ln", "id": 1, "v": [1, {"t": "ln", "id": 2, "v": {"t": "d", "v": []}}]})
        assert linked == [1, {}] and driver.links[2] is linked[1]
        with pytest.raises(rpc.RemoteError):
            driver._apply_links({"rm": [], "c": [[1, {"t": "d", "v": []}]]})  # another kind of container
    finally:
        socket.socket(fileno=driver.fd).close()
        b.close()


def test_a_container_the_test_still_holds_reached_through_a_reply_is_linked(pair):
    """The subject reads the test's list through a reply (a public attribute of the test's object, the
    next item of the test's iterator): the driver still holds it, so it crosses linked and the tree's
    in-place change reaches the test's own list, as under plain pytest (only a request's own arguments
    were written back)."""
    driver, subject, tree = pair
    cfg = types.SimpleNamespace(items=[3, 1, 2])
    tree.sort_items(cfg)
    assert cfg.items == [1, 2, 3]
    rows = ([3, 1, 2],)
    tree.sort_rows(iter(rows))
    assert rows[0] == [1, 2, 3]


def test_a_tree_object_of_a_value_type_reads_in_the_drivers_c_code_as_the_live_object(pair):
    """The stand-in forwards the names its class answers (``differing_names``: ``__reversed__``, ``__round__``,
    ``keys``, ``sort``) and holds the live object's storage (``Peer._mirror_sync``): ``dict()`` of a dict
    whose class writes only ``keys`` reads the storage, as plain pytest's does; a method of the tree that
    changes the live list changes what the driver's C code reads; ``+=`` changes the live object."""
    driver, subject, tree = pair
    xs, d, f = tree.values()
    assert isinstance(xs, list) and isinstance(d, dict) and isinstance(f, float)
    assert list(reversed(xs)) == [9] and round(f) == 7 and f == 2.6
    assert dict(d) == {"a": 1, "secret": 2} and d.keys() == ["a"]
    xs.sort()  # the tree's sort reverses the live list
    assert list(xs) == [3, 2, 1] and xs == [3, 2, 1] and list.__len__(xs) == 3
    tree.grow(xs)  # the tree changes it through the base's own method
    assert list(xs) == [3, 2, 1, 5]
    before = xs
    xs += [6]
    assert xs is before and tree.values()[0] is not xs and list(xs) == [3, 2, 1, 5, 6]
    live_class = type(subject.local(object.__getattribute__(xs._hx_remote, "_hx_ref")))
    assert rpc.differing_names(live_class) == rpc.answered_names(live_class) == ["__reversed__", "sort"]
    import heapq
    heapq.heappush(xs, 0)  # the driver's own C code writes the stand-in's storage: the live list gets it too
    assert tree.total_of(xs) == 17
    outer = tree.nested_l()  # a mirrored list inside a mirrored list
    outer[0].sort()
    assert list(outer[0]) == [2, 1] and tree.total_of(outer[0]) == 3


def test_math_nan_crosses_as_the_receivers_own(pair):
    """``x in [...]`` matches a NaN by identity first: the tree's ``math.nan`` is the test's under plain pytest."""
    import math
    driver, subject, tree = pair
    xs, other = tree.nans()
    assert math.nan in xs and xs[1] is math.nan
    assert other is not math.nan and other != other
    assert tree.is_math_nan(math.nan) is True


def test_a_mirror_ends_on_both_sides_when_the_test_drops_its_stand_in(pair):
    driver, subject, tree = pair
    xs = tree.values()[0]
    assert driver.mirrors and subject.mirrors
    del xs
    tree.total()  # the driver says so with its next message
    assert not driver.mirrors and not subject.mirrors and subject.mirror_items == 0
    xs = tree.values()[0]
    xs.sort()
    assert list(xs) == [3, 2, 1] and len(driver.mirrors) == len(subject.mirrors) == 1


def test_a_container_the_tree_keeps_from_a_call_is_the_callers_own(pair):
    """``Peer._retained``: the tree keeps the test's list (plain pytest: the one object); a later change
    of the tree shows through the test's, and the test's reaches the tree."""
    driver, subject, tree = pair
    ls = []
    tree.keep(ls)
    assert driver.links and subject.links
    tree.later()
    assert ls == [1]
    ls.append(2)
    tree.later()
    assert ls == [1, 2, 1]
    rows = {"a": [1]}
    tree.keep(rows["a"])  # (an inner container of the request: the test's own inner list)
    tree.later()
    assert rows == {"a": [1, 1]}
    inner = [[0]]
    tree.keep(inner)  # a container inside a kept one is linked with it, as the caller's own
    tree.keep(inner[0])
    tree.later()
    assert inner == [[0, 1]]


def test_a_container_the_tree_does_not_keep_stays_a_copy(pair):
    driver, subject, tree = pair
    assert tree.same([1]) == [1]
    with pytest.raises(ValueError):
        tree.fail({"a": 1})
    tree.total()
    assert not any(type(x) is list and x == [1] for x in driver.links.values())


def _faults(driver) -> list:
    out: list = []
    driver.on_fault = out.append
    return out


def test_a_change_the_subject_makes_between_messages_is_a_fault(pair):
    """``Peer._moved``: the subject's state changed while the driver ran the test (here the test's own
    thread stands for a thread of the tree): the driver's copy was stale, so the test fails, whatever it read."""
    driver, subject, tree = pair
    faults = _faults(driver)
    x = tree.get()
    tree.total()
    assert faults == []
    x.append(3)  # the driver's own change: synced with its next message, no fault
    assert tree.total() == 6
    assert faults == []
    subject_list(subject, x).append(4)  # the subject's own change, between messages
    assert tree.total() == 10
    assert len(faults) == 1 and "linked containers" in faults[0], faults
    assert x == [1, 2, 3, 4]  # (and the change still reaches the driver with the reply)
    tree.total()
    assert len(faults) == 1


def subject_list(subject, driver_list):
    """The subject's object linked with the driver's ``driver_list`` (found by content)."""
    return next(o for o in subject.links.values() if o == driver_list)


def test_the_process_state_the_subject_changed_between_messages_is_named_without_being_taken(monkeypatch):
    """``ProcState.moved`` reads the state as ``snap`` does, but leaves what the next message ships alone."""
    ps = rpc.ProcState("driver")
    ps.outgoing({})
    assert ps.moved() == []
    monkeypatch.setenv("HX_LATE", "1")
    assert ps.moved() == ["os.environ"]
    assert ps.moved() == ["os.environ"]  # (not committed: still a change)
    msg: dict = {}
    ps.outgoing(msg)
    assert msg["ps"]["env"] == {"HX_LATE": "1"}  # shipped with the next message all the same
    assert ps.moved() == []


def test_a_request_the_driver_cannot_send_is_a_recorded_fault(pair):
    """A value the driver cannot encode is a fault, never an exception of the call a test could expect
    (``pytest.raises(ValueError)``, ``except Exception``): the driver records it, the test fails."""
    driver, subject, tree = pair
    faults = _faults(driver)
    deep: list = []
    for _ in range(100):
        deep = [deep]
    with pytest.raises(rpc.ProtocolFault):
        tree.same(deep)
    assert len(faults) == 1 and "could not be sent" in faults[0], faults
    assert not isinstance(rpc.ProtocolFault("x"), ValueError)
    assert tree.total() == 3  # the connection is still in step


def test_a_callback_the_subject_cannot_call_is_a_fault_the_tree_cannot_swallow(pair):
    """The subject's own send failure (the tree calls the test's callback with a value it cannot
    encode) goes to the driver with its next message (``pf``), whatever the tree did with the exception."""
    driver, subject, tree = pair
    faults = _faults(driver)
    assert tree.call_back(lambda x: 1) == "swallowed"
    assert len(faults) == 1 and "could not be sent" in faults[0], faults


def test_the_subject_gone_is_a_recorded_fault():
    a, b = socket.socketpair()
    driver = rpc.Peer(a.detach(), "driver")
    faults = _faults(driver)
    b.close()
    with pytest.raises((rpc.Closed, rpc.ProtocolFault)):
        driver.request("call", len, [[1]], {})
    assert len(faults) == 1, faults
    socket.socket(fileno=driver.fd).close()


def test_a_container_kept_past_the_bound_is_checked_at_the_tests_end(pair, monkeypatch):
    """Past ``MAX_LINKS`` a kept container stays a copy; changed by the time of the test's last exchange
    (the leave's ``sync``), it is a fault (``Peer._overflowed``)."""
    driver, subject, tree = pair
    faults = _faults(driver)
    monkeypatch.setattr(rpc, "MAX_LINKS", 2)
    lists: list = [[], [], []]
    for ls in lists:
        tree.keep(ls)
    assert len(subject.overflow) == 1
    driver.request("sync", 1)
    assert faults == []
    tree.later()  # the tree changes the last one, which the driver holds as a copy
    assert lists[-1] == []
    driver.request("sync", 2)
    assert len(faults) == 1 and "past the bound" in faults[0], faults


def test_a_container_the_tests_callback_keeps_is_the_trees_own(pair):
    """The other direction of ``Peer._retained``: the test's callback keeps the list the tree passed it
    (the driver links it under an id of its own sign, which the subject adopts)."""
    driver, subject, tree = pair
    seen: list = []
    tree.give(seen.append)
    assert seen == [[1]]
    tree.grow_given()
    assert seen == [[1, 2]]
    assert any(lid < 0 for lid in subject.links)


EXC_TREE = """
import abc


class G(ExceptionGroup):
    def split(self, t):
        return None, self


class E(FileNotFoundError):
    errno = property(lambda self: 13)


class C(ValueError):
    __cause__ = property(lambda self: KeyError('k'))

    def __repr__(self):
        return 'other'


class AppError(Exception):
    def __init__(self, field):
        super().__init__(f"bad {field}")
        self.field = field

    def __str__(self):
        return f"app {self.field}"


class NotFound(AppError):
    pass


class Sneaky(ValueError):
    def __getattribute__(self, name):
        return 1


class Final:
    def __init_subclass__(cls, **kw):
        raise TypeError('final')


class M(type):
    def __subclasscheck__(c, o):
        return False

    def __instancecheck__(c, o):
        return True


class W(UserWarning, metaclass=M):
    pass


class Box:
    def __class_getitem__(cls, item):
        return ('box', item)


def raise_(cls, *args):
    raise cls(*args)


def group():
    raise G('m', [ValueError('x')])


def returned():
    return C('bad')
"""


@pytest.fixture
def exc_pair():
    """(the driver's peer, the faults it recorded, the tree module's proxy) for EXC_TREE."""
    a, b = socket.socketpair()
    driver, subject = rpc.Peer(a.detach(), "driver"), rpc.Peer(b.detach(), "subject")
    faults: list = []
    driver.on_fault = faults.append
    mod = types.ModuleType("tree")
    exec(EXC_TREE, mod.__dict__)  # noqa: S102 - the test's own tree
    hid = subject.export(mod)
    thread = threading.Thread(target=subject.serve_forever, daemon=True)
    thread.start()
    yield driver, faults, driver.proxy({"id": hid, "ty": "tree", "c": False})
    socket.socket(fileno=driver.fd).close()
    thread.join(timeout=10)


def test_a_tree_exception_classs_own_names_are_read_on_the_live_exception(exc_pair):
    """The stand-in class forwards every name the tree's classes define (``exception_names``): ``except*``
    calls the tree's ``split``, a property over a C field (errno, __cause__) and ``__repr__`` run the tree's."""
    driver, faults, tree = exc_pair
    matched = []
    try:
        try:
            tree.group()
        except* ValueError:
            matched.append(True)
    except* ValueError:  # the tree's split matched nothing: the group goes on, as under plain pytest
        pass
    assert matched == []
    with pytest.raises(OSError) as ei:
        tree.raise_(tree.E, 2, "missing")
    assert ei.value.errno == 13 and ei.value.strerror == "missing"  # the C field itself crossed as it is
    got = tree.returned()
    assert repr(got) == "other" and isinstance(got.__cause__, KeyError)
    assert faults == []


def test_an_honest_exception_class_keeps_its_hierarchy_fields_and_str(exc_pair):
    driver, faults, tree = exc_pair
    with pytest.raises(tree.AppError) as ei:  # the tree's subclass is the stand-in's subclass too
        tree.raise_(tree.NotFound, 3)
    assert type(ei.value).__name__ == "NotFound" and ei.value.field == 3 and str(ei.value) == "app 3"
    made = tree.AppError(4)  # the test's instance is built by the tree's __init__, in the subject
    assert str(made) == "app 4" and made.field == 4 and made.args == ("bad 4",)
    assert faults == []


def test_what_the_driver_cannot_forward_fails_closed(exc_pair):
    """A tree ``__getattribute__`` on an exception class, a test's subclass of a class with a tree
    ``__init_subclass__``, and an ``isinstance`` whose metaclass hook the subject cannot run on the
    driver's object are protocol faults (recorded: the test fails), never the built-in's answer."""
    driver, faults, tree = exc_pair
    with pytest.raises(ValueError) as ei:
        tree.raise_(tree.Sneaky, "x")
    with pytest.raises(rpc.ProtocolFault):
        _ = ei.value.args
    Final = tree.Final
    with pytest.raises(rpc.ProtocolFault):
        class Sub(Final):
            pass
    W = tree.W
    with pytest.raises(rpc.ProtocolFault):
        isinstance(object(), W)
    assert len(faults) == 3


def test_a_tree_classs_hooks_run_in_the_subject(exc_pair):
    driver, faults, tree = exc_pair
    W = tree.W
    assert not issubclass(W, W)  # the tree metaclass's __subclasscheck__ (pytest.warns asks it)
    assert isinstance(3, W)  # its __instancecheck__, on a value that crosses as itself
    assert tree.Box["k"] == ("box", "k")  # its __class_getitem__
    assert faults == []


def test_exception_names_and_class_hooks_read_the_trees_classes_only():
    ns: dict = {}
    exec(EXC_TREE, ns)  # noqa: S102 - the test's own tree
    assert rpc.exception_names(ns["E"]) == (["errno"], [])
    assert "__str__" in rpc.exception_names(ns["NotFound"])[0] and "__init__" not in rpc.exception_names(ns["NotFound"])[0]
    assert rpc.exception_names(ValueError) == ([], [])
    assert rpc.class_hooks(ns["W"]) == ["isc", "ssc", "sub"]
    assert rpc.class_hooks(ns["Final"]) == ["sub"] and rpc.class_hooks(ns["Box"]) == ["cgi"]
    assert rpc.class_hooks(ValueError) == [] and rpc.class_hooks(ns["AppError"]) == []


def test_copy_deepcopy_pickle_and_vars_of_a_stand_in_run_on_the_live_object(pair, monkeypatch):
    """The standard library's object protocols on a stand-in are the live object's, run in the subject: a copy
    is a new object of the tree, independent of the original (the stand-in's own ``__dict__``, which holds the
    live object's handle, is never what is copied); a pickle round trip loads in the subject; ``vars`` reads the
    live object's attributes."""
    import copy
    import pickle
    import sys

    driver, subject, tree = pair
    monkeypatch.setitem(sys.modules, "tree", subject.local(1))  # (pickle finds the tree's classes by module)
    row, tally, p = tree.made()
    c = copy.copy(row)
    assert c == [1, 2] and c is not row and type(c).__name__ == "Row"
    c.append(3)
    assert row == [1, 2]
    d = copy.copy(tally)
    d["k"] = 2
    assert tally["k"] == 1
    q = copy.deepcopy(p)
    q.x = 5
    assert p.x == 1
    assert pickle.loads(pickle.dumps(row)) == [1, 2]
    assert pickle.loads(pickle.dumps(p)).x == 1
    assert vars(row) == {}


def test_a_list_inside_a_tree_tuple_or_tree_list_is_linked(pair):
    driver, subject, tree = pair
    t, row = tree.tuple_of_kept()
    assert t[0] is row[0]  # one live list, one object for the test
    tree.fill_inner()
    assert t[0] == [1] and row[0] == [1]  # the tree's later change shows through, as under plain pytest


def test_a_write_to_a_mirrored_stand_in_the_test_drops_still_reaches_the_live_object(pair):
    driver, subject, tree = pair
    x = tree.kept_row()
    list.append(x, 5)  # the driver's C code writes the stand-in's storage
    del x  # and drops it before any message
    assert tree.kept_total() == 6


def test_a_class_given_a_name_or_an_object_given_a_class_after_crossing_is_a_fault(pair):
    driver, subject, tree = pair
    faults: list = []
    driver.on_fault = faults.append
    x = tree.k()
    assert sorted(x) == [1, 3] and not faults
    tree.give_k_an_iter()  # the stand-in would still iterate the storage: plain pytest's iterates nothing
    assert faults and "answers other names" in faults[0]
    faults.clear()
    tree.reclass(x)
    assert faults and "another class" in faults[0]


def test_the_subject_drops_what_the_test_drops_and_a_finalizer_runs_then(pair):
    driver, subject, tree = pair
    done = tree.dels()
    o = tree.fin()
    hid = object.__getattribute__(o, "_hx_ref")
    del o  # a finalizer to run (``fz``): released at once, its change arrives with that reply
    assert done == [1]
    assert hid not in subject.objs
    p = tree.made()[2]  # no finalizer: released with the next message
    hid = object.__getattribute__(p, "_hx_ref")
    del p
    assert hid in subject.objs
    tree.dels()
    assert hid not in subject.objs


# The stand-ins' rules, each in one process: a class stamp sees every write to a class dict of the MRO
# (``_class_marks``); ``_finalizes`` reads an object's whole reachable state; a finalizer the driver learned of
# late is released at once once it crosses again, and a release that frees one the driver never heard of is a fault.
STAND_IN_TREE = """
import io, os, weakref

_KEEP = []
_FIRED = []


class Obj:
    pass


class Inner:
    def __del__(self):
        _FIRED.append(1)


class Slotted:
    __slots__ = ("inner",)

    def __init__(self):
        self.inner = Inner()


def obj():
    return Obj()


def nested():
    o = Obj()
    o.parts = ({"k": [Inner()]},)
    return o


def slotted():
    return Slotted()


def watch(o):
    weakref.finalize(o, _FIRED.append, 2)


def same(o):
    return o


def fired():
    return _FIRED


_CONST = (1, [2])


def const():
    return _CONST


def fresh():
    return (1, [2])


def folded():
    return (1, "a")


def drop_const():
    global _CONST
    _CONST = None


def is_const(t):
    return t is _CONST


import datetime, decimal  # noqa: E402

_KEPT = {"fs": frozenset({1, 2}), "r": range(3), "d": decimal.Decimal("1.5"), "dt": datetime.datetime(2020, 1, 1),
         "b": b"xy", "c": 1j}


def kept(k):
    return _KEPT[k]


def is_kept(k, v):
    return v is _KEPT[k]


def fresh_decimal():
    return decimal.Decimal("1.5") + 0


def wrapped():
    return frozenset({_KEPT["d"]}), {_KEPT["fs"]: 1}, {_KEPT["dt"]}
"""


@pytest.fixture
def stand_in_pair():
    """(the driver's peer, the subject's peer, STAND_IN_TREE's proxy), as ``pair``."""
    a, b = socket.socketpair()
    driver, subject = rpc.Peer(a.detach(), "driver"), rpc.Peer(b.detach(), "subject")
    mod = types.ModuleType("stand_in_tree")
    exec(STAND_IN_TREE, mod.__dict__)  # noqa: S102 - the test's own tree
    hid = subject.export(mod)
    thread = threading.Thread(target=subject.serve_forever, daemon=True)
    thread.start()
    yield driver, subject, driver.proxy({"id": hid, "ty": "stand_in_tree", "c": False})
    socket.socket(fileno=driver.fd).close()
    thread.join(timeout=10)


@pytest.mark.parametrize("tags", [True, False], ids=["version_tags", "keys_and_values"])
def test_a_class_stamp_sees_every_write_to_a_class_dict_of_the_mro_whatever_the_sizes(monkeypatch, tags):
    """The rule: every class dict of the MRO, each write seen (never by sizes: a name replaced in place, or one
    deleted and one added, keeps every size), with CPython's version tags or else by every key and value."""
    if not tags:
        monkeypatch.setattr(rpc, "_VERSIONS", None)
    elif rpc._VERSIONS is None:
        pytest.skip("no dict version tag on this interpreter")

    class B(list):
        __reversed__ = list.__reversed__

    class L(B):
        def helper(self):
            return 0

    writes = [lambda: setattr(L, "__reversed__", list.__reversed__),  # (a name given the value the base had)
              lambda: setattr(B, "__reversed__", lambda self: iter([9])),  # a base class's name replaced in place
              lambda: (delattr(L, "helper"), setattr(L, "__iter__", list.__iter__)),  # one deleted, one added
              lambda: (setattr(L, "__iter__", list.__reversed__), setattr(L, "__reversed__", list.__iter__))]  # a swap
    for write in writes:
        marks = rpc._class_marks(type.__dict__["__mro__"].__get__(L))
        assert rpc._marks_same(marks)
        write()
        assert not rpc._marks_same(marks)
    marks = rpc._class_marks(L.__mro__)
    L.__iter__ = L.__dict__["__iter__"]  # the same object again: no change
    assert rpc._marks_same(marks)


def test_dropping_an_object_runs_code_when_anything_it_holds_finalizes_however_deep():
    """``_finalizes`` reads the object's whole state (``__dict__``, slots, built-in containers to any depth); an
    object of the interpreter's classes by its own finalizer (a file)."""
    class Inner:
        def __del__(self):
            pass

    class Holder:
        pass

    class S:
        __slots__ = ("x",)

    deep, slot, kept_file, plain = Holder(), S(), Holder(), Holder()
    deep.parts = ({"k": [Inner()]},)
    slot.x = [Inner()]
    with open(os.devnull, "w") as f:
        kept_file.files = {"main": f}
        assert rpc._finalizes(deep) and rpc._finalizes(slot) and rpc._finalizes(kept_file) and rpc._finalizes(f)
    plain.items, plain.cls, plain.mod = [1, (2, "x")], Holder, rpc
    assert not rpc._finalizes(plain) and not rpc._finalizes(S())
    import weakref
    weak = weakref.WeakSet([plain]), weakref.WeakValueDictionary({1: plain}), weakref.ref(plain)
    assert not rpc._finalizes(plain)  # a weak container's own bookkeeping, a weak reference without a callback
    done = weakref.finalize(plain, int)
    assert rpc._finalizes(plain)
    done.detach()
    plain.items.append([[i] for i in range(rpc.MAX_FINALIZER_WALK + 1)])  # past the bound: unread, taken to finalize
    assert rpc._finalizes(plain) and weak


def test_what_a_drop_frees_is_what_the_interpreters_traversal_reaches_whatever_holds_it():
    """``_finalizes`` walks ``gc.get_referents`` (the interpreter's own traversal), not a list of container kinds: a
    finalizing object in a closure cell, behind a bound method, in a ``partial``, a ``deque``, a dict view, a
    function's closure, or a ``WeakKeyDictionary``'s value keyed by the object (the entry its bookkeeping removes) is
    found; a function's module namespace, a class and a module are not walked (no drop frees them). ``found``
    collects the finalizing objects themselves (the late-finalizer fault asks whether the drop freed one)."""
    import collections
    import functools
    import weakref

    class Inner:
        def __del__(self):
            pass

        def m(self):
            return 1

    class Holder:
        pass

    def closure(x):
        return lambda: x

    holders = []
    for make in (closure, lambda i: i.m, lambda i: functools.partial(id, i), lambda i: collections.deque([i]),
                 lambda i: {i: 1}.keys(), lambda i: {1: i}.values()):
        h = Holder()
        h.cb = make(Inner())
        holders.append(h)
    holders.append(closure(Inner()))
    assert all(rpc._finalizes(h) for h in holders)
    meta, key = weakref.WeakKeyDictionary(), Holder()
    assert not rpc._finalizes(key)
    meta[key] = [Inner()]
    found: list = []
    assert rpc._finalizes(key, found) and len(found) == 1 and type(found[0]) is Inner
    plain = Holder()
    plain.fn, plain.cls, plain.mod = closure(1), Holder, rpc  # (the function's globals reach the whole module)
    plain.bound = plain.__init__
    assert not rpc._finalizes(plain)
    own: dict = {"kept": Inner()}  # a namespace no module in sys.modules has: only the function holds it
    plain.fn = types.FunctionType(closure.__code__, own)
    private = types.ModuleType("hx_private")
    private.kept = Inner()
    assert rpc._finalizes(plain) and rpc._finalizes(private) and not rpc._finalizes(rpc)


def test_a_subclass_of_a_stdlib_value_class_is_read_as_the_class_bound_at_load_never_the_modules(monkeypatch):
    """The rule: ``datetime.date`` (and ``datetime``, ``Decimal``, ``Fraction``) as this module bound it, whatever the
    module holds now: a test's frozen clock (a subclass patched over it) or the tree's replacement whose ``isoformat``
    lies never decides a value's base."""
    class Frozen(dt.date):
        @classmethod
        def fromisoformat(cls, s):
            return cls(2020, 1, 2)

        def isoformat(self):
            return "2020-01-02"

    monkeypatch.setattr(dt, "date", Frozen)
    base = rpc._value_base(Frozen(1999, 1, 1))
    assert type(base) is dt.datetime.__mro__[1] and base == dt.datetime(1999, 1, 1).date()
    assert type(rpc._value_base(Frozen(1999, 1, 1))) is not Frozen


def test_a_finalizer_nested_or_in_a_slot_runs_when_the_test_drops_its_holder(stand_in_pair):
    driver, subject, tree = stand_in_pair
    fired = tree.fired()  # (a list the tree keeps: linked, kept in step with each message)
    o, s = tree.nested(), tree.slotted()
    del o
    assert fired == [1]
    del s
    assert fired == [1, 1]


def test_a_finalizer_attached_after_crossing_runs_at_the_drop_once_it_crossed_again_else_is_a_fault(stand_in_pair):
    driver, subject, tree = stand_in_pair
    faults: list = []
    driver.on_fault = faults.append
    fired = tree.fired()
    o = tree.obj()
    tree.watch(o)
    assert tree.same(o) is o  # crossing again, it says it finalizes now: released at the drop
    del o
    assert fired == [2] and not faults
    p = tree.obj()
    tree.watch(p)
    del p  # released only with the next message: the finalizer ran after the test's next statements
    assert fired == [2]
    tree.fired()
    assert fired == [2, 2] and faults and "learned of only when the test dropped" in faults[0]


def test_a_tuple_the_tree_keeps_is_one_object_across_calls_and_is_forgotten_once_the_tree_drops_it(stand_in_pair):
    """The rule: one tuple object of the tree is one object of the driver (``_enc_tuple``): a kept tuple (a module's,
    a code object's constant) crosses with a token the driver keeps; a fresh one is fresh each time; the list a kept
    tuple holds is linked (the tree's change shows through); a tuple only the subject's table holds is forgotten."""
    driver, subject, tree = stand_in_pair
    a, b = tree.const(), tree.const()
    assert a is b and tree.folded() is tree.folded()
    assert tree.fresh() is not tree.fresh()
    a[1].append(3)  # one linked list: the tree sees the test's change
    assert tree.const()[1] == [2, 3]
    n = len(driver.tuple_memo)
    tree.drop_const()
    tree.fired()  # (the message after the tree dropped it)
    assert len(driver.tuple_memo) == n - 1 and len(subject.tuple_memo) == n - 1
    assert a == (1, [2, 3])  # the test's own reference is still its object


def test_any_immutable_value_the_tree_keeps_is_one_object_across_calls_and_its_own_when_passed_back(stand_in_pair):
    """The rule, whatever the type: a value that crosses as a copy and that the tree keeps (a frozenset, a range, a
    Decimal, a datetime, bytes, a complex; a tuple) crosses with a token, so two calls give one object in the driver;
    passed back by the test it crosses as the token and the tree gets its own object (``is`` as under plain pytest).
    A fresh value is fresh each time."""
    driver, subject, tree = stand_in_pair
    for k in ("fs", "r", "d", "dt", "b", "c"):
        v = tree.kept(k)
        assert v is tree.kept(k) and tree.is_kept(k, v) and tree.is_kept(k, tree.kept(k)), k
    assert tree.is_const(tree.const()) and not tree.is_const((1, [2]))
    assert tree.fresh_decimal() is not tree.fresh_decimal()
    (fs, d, st), again = tree.wrapped(), tree.wrapped()  # (in a fresh frozenset, a dict's key, a set: still kept)
    assert next(iter(fs)) is next(iter(again[0])) is tree.kept("d") and next(iter(d)) is tree.kept("fs")
    assert next(iter(st)) is tree.kept("dt")


def test_one_container_met_twice_in_one_message_crosses_as_one_object(pair):
    driver, subject, tree = pair
    r: list = []
    n, pair_, d = tree.aliased(r, r)  # one list as two arguments: one list in the subject
    assert n == 1 and r == [1]
    assert pair_[0] is pair_[1] and d["x"] is d["y"]  # and one object met twice in the reply
    r2: list = []
    assert tree.through_attribute(r2, types.SimpleNamespace(items=r2)) == 1  # the nested read names the argument
    assert r2 == [1]
    assert tree.apply_back(r2, lambda xs: xs.append(2)) == 2  # a callback's change to the argument it is handed back
    assert r2 == [1, 2]


def test_the_tests_change_to_a_container_kept_past_the_bound_is_a_fault(pair, monkeypatch):
    """Past the bound the tree keeps a copy of the test's container: the test's change to its own never reaches
    it, so each side checks its own copy at the test's end (``Peer._overflowed``, the driver's at its ``sync``)."""
    driver, subject, tree = pair
    faults: list = []
    driver.on_fault = faults.append
    monkeypatch.setattr(rpc, "MAX_LINKS", 0)
    rows = [[1]]
    tree.keep(rows)
    driver.request("sync", 1)
    assert not faults
    rows.append([2])
    driver.request("sync", 2)
    assert faults and "in the test" in faults[0]


def test_a_dict_subclass_with_only_a_missing_of_its_own_is_observed_by_its_storage():
    """``==``, ``in``, ``len`` and iteration of a dict never call ``__missing__``: the judge compares such a value by
    its storage, and its copy still raises on ``__missing__`` (a subscript of a missing key: the tree's code)."""
    class Tally(dict):
        def __missing__(self, k):
            return 0

    class Odd(dict):
        def __missing__(self, k):
            return 0

        def __eq__(self, other):
            return False

    assert rpc.observed_as_base(Tally) and "__missing__" in rpc.answered_names(Tally)
    assert not rpc.observed_as_base(Odd)


# == one schedule: the tree's threads never run while the driver runs the test (``Schedule``) ===========
SCHEDULED_SUBJECT = """
import importlib.util, sys, threading, time, types


def load(name, path):
    spec = importlib.util.spec_from_file_location(name, path)
    mod = importlib.util.module_from_spec(spec)
    sys.modules[name] = mod
    spec.loader.exec_module(mod)
    return mod


rpc, sm = load("_hx_rpc", sys.argv[1]), load("_hx_sm", sys.argv[2])
peer = rpc.Peer(int(sys.argv[3]), "subject")
if sys.argv[4] == "scheduled":
    peer.sched = rpc.Schedule(sm._held_libc())
ticks = []


def tick():
    while True:
        time.sleep(0.005)
        ticks.append(1)


def call_later(cb):
    def later():
        time.sleep(0.05)
        cb(1)
    threading.Thread(target=later, daemon=True).start()


flags = []
_nap = time.sleep


def late():
    def w():
        for _ in range(3):  # (a list the driver holds no copy of; 0.3 s in all, no step of which fits in one call)
            _nap(0.1)
            flags.append(1)
    threading.Thread(target=w, daemon=True).start()


def own_sleep():
    time.sleep = lambda secs: "the tree's"


def writes(path, held):
    def w():
        _nap(0.05)
        if held:  # (through a descriptor opened before: its file grows)
            fh.write("x")
            fh.flush()
        else:  # (a path opened for writing: the audit hook sees it)
            with open(path, "w") as out:
                out.write("done")
    fh = open(path + ".held", "a") if held else None
    threading.Thread(target=w, daemon=True).start()


sys.addaudithook(rpc._state_hook(rpc._HOOK))  # (as ProcState installs it: the subject's file changes in a give)
rpc._HOOK[:] = [{}, set()]
tree = types.ModuleType("tree")
tree.writes = writes
tree.nap = lambda x: time.sleep(0.2) or 2 * x
tree.late = late
tree.flags = lambda: list(flags)
tree.own_sleep = own_sleep
tree.start = lambda: threading.Thread(target=tick, daemon=True).start()
tree.ticks = lambda: ticks
tree.call_later = call_later
peer.export(tree)
peer.serve_forever()
"""


@pytest.fixture
def scheduled(tmp_path, request):
    """(the driver's peer, the faults it recorded, the tree's proxy) of a subject in its own process, as
    harness.judge.subject_main starts it: with its ``Schedule`` (or without, ``request.param == "unscheduled"``)."""
    import subprocess
    import sys

    from harness.judge import subject_main
    script = tmp_path / "subject.py"
    script.write_text(SCHEDULED_SUBJECT)
    a, b = socket.socketpair()
    proc = subprocess.Popen([sys.executable, "-I", str(script), rpc.__file__, subject_main.__file__, str(b.fileno()),
                             getattr(request, "param", "scheduled")], pass_fds=(b.fileno(),))
    b.close()
    driver = rpc.Peer(a.detach(), "driver")
    faults: list = []
    driver.on_fault = faults.append
    yield driver, faults, driver.proxy({"id": 1, "ty": "tree", "c": False})
    socket.socket(fileno=driver.fd).close()
    try:
        proc.wait(timeout=30)
    finally:
        proc.kill()


def test_the_trees_threads_are_frozen_while_the_driver_runs_and_run_while_it_sleeps(scheduled):
    """A thread of the tree appending every 5 ms to a list the test holds (linked): while the driver runs the
    test (here its own ``time.sleep``, which the runtime would have sent; a test's computation alike) the
    subject's threads do not run, so no change waits to be found at the next message (no fault); the test's
    sleep sent as a ``sleep`` request lets them run, and the reply brings the list as they left it."""
    import time
    driver, faults, tree = scheduled
    tree.start()
    xs = tree.ticks()
    time.sleep(0.2)  # the driver runs: the subject is frozen
    assert tree.ticks() is xs and faults == []  # (the call itself lets the thread run: during the call)
    n = len(xs)
    driver.request("sleep", 0.1)  # the test waits: the tree runs
    assert len(xs) > n and faults == []


@pytest.mark.parametrize("scheduled", ["unscheduled"], indirect=True)
def test_without_the_schedule_the_change_is_only_found_at_the_next_message(scheduled):
    """The premise of the test above: unscheduled, the thread runs while the driver does, and ``Peer._moved``
    reports the change with the next message (a fault: the test read a stale copy)."""
    import time
    driver, faults, tree = scheduled
    tree.start()
    xs = tree.ticks()  # (held: the list stays linked)
    time.sleep(0.2)
    assert tree.ticks() is xs
    assert faults and "changed after its last message" in faults[0]


def test_a_thread_of_the_tree_calls_the_tests_callback_while_the_test_sleeps(scheduled):
    """The channel is one thread's at a time: a thread of the tree calling a callback of the test waits for it
    and has the driver run the callback while the driver waits (here for its ``sleep``)."""
    driver, faults, tree = scheduled
    results: list = []
    tree.call_later(results.append)
    assert results == []
    driver.request("sleep", 0.5)
    assert results == [1] and faults == []


@pytest.mark.timeout(120)
def test_a_callback_a_thread_calls_may_call_back_into_the_tree_while_the_main_thread_waits(scheduled):
    """The thread holds the channel for its whole exchange, nested requests included: the main thread, whose sleep
    ends meanwhile, sends its reply only after (the driver reads the nested reply first, as its stack expects;
    freeing the channel while the thread ran the nested request hung here)."""
    driver, faults, tree = scheduled
    results: list = []
    tree.call_later(lambda x: results.append(tree.nap(x)))  # (the thread calls at 0.05 s, the nap ends at 0.25 s)
    driver.request("sleep", 0.1)
    assert results == [2] and faults == []


def test_a_malformed_sleep_is_refused(scheduled):
    driver, faults, tree = scheduled
    for bad in (-1.0, "1", float("nan")):
        with pytest.raises(Exception, match="a malformed sleep"):  # (the subject's RemoteError)
            driver.request("sleep", bad)
    assert driver.request("sleep", 0.0) is None


def _blocked(secs: float) -> None:
    """The driver's main thread waits in a call that releases the GIL and that the judge does not schedule."""
    import select
    select.select([], [], [], secs)


def test_the_tests_wait_outside_the_schedule_is_given_to_the_trees_threads(scheduled):
    """``Waits``: the time the driver's main thread waited between two messages (here in ``select``, which the
    judge does not schedule) goes with the next request (``bl``), and the subject lets its threads run that long
    before it serves it (``Peer._give``): a thread of the tree that changes nothing the driver holds does its work
    then, as under plain pytest it would have during the wait, and no fault is recorded."""
    driver, faults, tree = scheduled
    driver.waits = rpc.Waits(lambda: True)
    tree.late()  # (its reply says a thread of the tree is alive: ``th``)
    assert driver.waits.on
    _blocked(0.6)
    assert tree.flags() == [1, 1, 1] and faults == []


def test_what_the_trees_threads_change_during_the_given_time_is_a_fault(scheduled):
    """The rule's other half: what the tree's threads change in the given time, of what the driver holds a copy
    of (a linked list), the test may have read stale during its wait: a fault, the test fails (``Peer._moved``)."""
    driver, faults, tree = scheduled
    driver.waits = rpc.Waits(lambda: True)
    tree.start()
    xs = tree.ticks()
    _blocked(0.2)
    assert tree.ticks() is xs
    assert faults and "the test waited outside the judge's schedule" in faults[0]


@pytest.mark.parametrize("held", [False, True])
def test_files_the_trees_threads_change_in_time_given_late_are_a_fault_and_given_before_an_act_are_not(scheduled,
                                                                                                     tmp_path, held):
    """``WAITS_RULE``: time the test waited, given at a later message, in which a thread of the tree changes a file (a
    path opened for writing; a file it holds open that grows) is a fault, the test may have read the file before;
    given before the test's next act on the outside world (``prompt``, ``bp``) it is not, and the file is there."""
    driver, faults, tree = scheduled
    driver.waits = rpc.Waits(lambda: True)
    path = str(tmp_path / "f")
    tree.writes(path, held)
    _blocked(0.2)
    tree.flags()  # (the next message: the time goes with it, late)
    assert faults and "a thread of the tree changed files" in faults[-1]
    faults.clear()
    tree.writes(path, held)
    driver.waits.owed = 0.2
    driver.prompt = True
    try:
        driver.request("wait", 0.0)
    finally:
        driver.prompt = False
    assert faults == []
    assert (tmp_path / ("f.held" if held else "f")).read_text() in ("xx", "done")


def test_waits_due_reads_the_gap_without_taking_it():
    """``Waits.due``: whether the waiting owed with the open gap's reaches ``WAIT_OWED``; the gap stays open."""
    import time
    w = rpc.Waits(lambda: True)
    w.on = True
    assert not w.due()
    w.start()
    time.sleep(0.05)
    assert w.due() and w.mark is not None
    owed = w.take()
    assert owed is not None and owed >= rpc.WAIT_OWED


def test_without_waits_measured_the_wait_is_the_frozen_schedule(scheduled):
    """The premise: a driver that does not measure its waits (no ``Waits``) keeps the tree frozen through them."""
    driver, faults, tree = scheduled
    tree.late()
    _blocked(0.6)
    assert len(tree.flags()) < 3 and faults == []  # (a ready thread may still run during the call itself)


def test_the_tests_time_sleep_runs_the_value_its_function_stands_for(scheduled, monkeypatch):
    """``SLEEPS_RULE``: the subject tells the driver each value the tree gives ``time.sleep`` (``ts``: its index), and
    ``sleep`` runs the value the test's function stands for: a no-op the tree put there (index 1) is the no-op of a
    test that read ``time.sleep`` after it (its threads get no time); the subject's own (index 0, a reference the
    test took before) and ``wait`` (the judge's own slices) sleep for real. An index it never sent is refused."""
    moved: list = []
    monkeypatch.setattr(rpc, "SLEEP_MOVED", [moved.append])
    driver, faults, tree = scheduled
    tree.own_sleep()
    assert moved == [1]
    tree.late()
    assert driver.request("sleep", 0.6, 1) == "the tree's"
    assert len(tree.flags()) < 3
    assert driver.request("sleep", 0.6) is None
    assert tree.flags() == [1, 1, 1] and faults == []
    assert driver.request("wait", 0.01) is None
    with pytest.raises(Exception, match="a malformed sleep"):  # (the subject's copy of the protocol's class)
        driver.request("sleep", 0.01, 2)
    tree.own_sleep()
    assert moved == [1, 2]


def test_waits_counts_waiting_not_running():
    """``Waits.take``: the main thread's wall time minus its time on (or waiting for) a CPU; a wait is owed, a
    computation is not (where the kernel's schedstat is readable; without it, waiting for a CPU counts too)."""
    import time
    w = rpc.Waits(lambda: True)
    w.on = True
    w.start()
    time.sleep(0.05)
    owed = w.take()
    assert owed is not None and owed >= rpc.WAIT_OWED
    w.start()
    end = time.thread_time() + 0.05
    while time.thread_time() < end:
        pass
    if w.fd is not None and w.fd >= 0:
        assert w.take() is None
    w.on = False
    w.start()
    assert w.mark is None  # (no thread of the tree alive: nothing measured)


def test_a_link_changed_on_both_sides_between_messages_is_a_fault_not_a_lost_change(pair):
    """The backstop where the driver's change to a linked container arrives: one the subject's side changed too since
    its last message (a thread of the tree, in what the schedule leaves open) would lose one of the two changes."""
    driver, subject, tree = pair
    faults: list = []
    driver.on_fault = faults.append
    x = tree.get()
    (live,) = subject.links.values()
    live.append(7)  # the subject's side, between messages
    x.append(9)  # the test's
    tree.total()
    assert any("one of the two would be lost" in f for f in faults), faults


# -- the inventory of the process state (``PROCESS_STATE``) -----------------------------------------
def _via_json(msg: dict) -> dict:
    import json
    return json.loads(json.dumps(msg))


def test_the_process_state_inventory_is_what_docs_judge_md_lists():
    """``PROCESS_STATE`` and the table of docs/judge.md's "One process state" name the same items, each
    under the same rule; every synced item travels under its own key, and every rule is one of three."""
    import pathlib
    import re
    text = (pathlib.Path(__file__).resolve().parents[3] / "docs" / "judge.md").read_text()
    section = text.split("## One process state", 1)[1].split("\n## ", 1)[0]
    rows = {tuple(c.strip() for c in m.group(1, 2)) for m in re.finditer(r"^\| (.+?) \| (synced|guarded|open) \|$",
                                                                            section, re.M)}
    assert rows == {(i.name, i.rule) for i in rpc.PROCESS_STATE}
    assert {i.rule for i in rpc.PROCESS_STATE} == {rpc.SYNCED, rpc.GUARDED, rpc.OPEN}
    keys = [i.key for i in rpc.PROCESS_STATE if i.rule == rpc.SYNCED]
    assert all(keys) and len(set(keys)) == len(keys)
    assert not [i for i in rpc.PROCESS_STATE if i.rule != rpc.SYNCED and i.key]
    assert all(i.why for i in rpc.PROCESS_STATE)
    snapped = set(rpc.ProcState("driver").snap())
    assert snapped | {"ce", "wa", "eh", "ar"} == set(keys)  # (the C environment, the tree's filters, its codec error
    # handlers and ABC registrations travel as changes)


def test_what_the_kernel_keeps_is_read_at_its_source_and_each_change_named():
    """``KERNEL_RULE``: each guarded item the process changes is named at the next read (the costlier ones, the resource
    limits, at the test's end only), and an unchanged process names nothing; the process is left as it was found."""
    import faulthandler
    import os
    import resource
    import signal
    import threading
    k = rpc.KernelState()
    assert len(k.read(True, None)) == len(rpc.KERNEL_ITEMS)
    assert k.moved(True, None) == []
    was_on = faulthandler.is_enabled()
    signal.setitimer(signal.ITIMER_VIRTUAL, 100)
    faulthandler.disable() if was_on else faulthandler.enable()
    threading.setprofile(lambda *a: None)
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (soft - 1, hard))
    try:
        moved = k.moved(True, None)
        assert {"interval timers", "faulthandler", "threading's profile and trace hooks"} <= set(moved)
        assert "resource limits" not in moved  # (read at the test's end)
        rpc._KERNEL_FULL[0] = True
        assert "resource limits" in k.moved(True, None)  # (and faulthandler's handlers, in the kernel's dispositions)
    finally:
        signal.setitimer(signal.ITIMER_VIRTUAL, 0)
        faulthandler.enable() if was_on else faulthandler.disable()
        threading.setprofile(None)  # type: ignore[arg-type]
        resource.setrlimit(resource.RLIMIT_NOFILE, (soft, hard))
        rpc._KERNEL_FULL[0] = False
    k.moved(True, None)
    fd = os.dup(2)
    try:
        os.dup2(os.open(os.devnull, os.O_WRONLY), 2)
        assert k.moved(True, None) == ["standard descriptors (0, 1, 2)"]
    finally:
        os.dup2(fd, 2)
        os.close(fd)


def test_the_locale_and_the_c_librarys_time_zone_travel():
    """The locale crosses (every ``LC_*`` category), and the time zone with the C library's own, so a receiver whose
    ``tzset`` cannot give the sender's zone faults (``KERNEL_RULE``)."""
    import locale
    import os
    import time
    sender, receiver = rpc.ProcState("driver"), rpc.ProcState("driver")
    sender.outgoing({})
    receiver.outgoing({})
    was, tz = locale.setlocale(locale.LC_TIME), os.environ.get("TZ")
    other = "C" if was != "C" else "C.UTF-8"
    try:
        locale.setlocale(locale.LC_TIME, other)
        msg: dict = {}
        sender.outgoing(msg)
        assert set(msg["ps"]) == {"lc"}
        locale.setlocale(locale.LC_TIME, was)
        receiver.incoming(_via_json(msg))
        assert locale.setlocale(locale.LC_TIME) == other and receiver.faults == []
        locale.setlocale(locale.LC_TIME, was)
        zone = rpc._zone()
        assert len(zone) == 9 and zone[5] in (-time.timezone, -time.altzone)  # (the C library's own offset beside time's)
        receiver.incoming({"ps": {"tz": ["JST", "JST", -32400, -32400, 0, 32400, "JST", 32400, "JST"]}})
        assert receiver.faults and "time zone" in receiver.faults[0]  # (a zone the environment here cannot give)
    finally:
        locale.setlocale(locale.LC_TIME, was)
        if tz is None:
            os.environ.pop("TZ", None)
        else:
            os.environ["TZ"] = tz
        time.tzset()


def test_the_random_generator_and_the_decimal_context_travel_and_apply(monkeypatch):
    import decimal
    import random
    sender, receiver = rpc.ProcState("driver"), rpc.ProcState("driver")
    saved = random.getstate()
    try:
        first: dict = {}
        sender.outgoing(first)
        assert first["ps"]["full"] is True and "rs" in first["ps"] and "dc" in first["ps"]
        nothing: dict = {}
        sender.outgoing(nothing)
        assert "ps" not in nothing  # unchanged: nothing is sent
        random.seed(7)
        want = random.getstate()
        with decimal.localcontext() as ctx:
            ctx.prec = 6
            ctx.traps[decimal.Inexact] = True
            msg: dict = {}
            sender.outgoing(msg)
            assert set(msg["ps"]) == {"rs", "dc"}
        receiver.outgoing({})
        random.seed(8)
        with decimal.localcontext() as ctx:
            receiver.incoming(_via_json(msg))
            assert random.getstate() == want
            assert ctx.prec == 6 and ctx.traps[decimal.Inexact]
        assert receiver.faults == []
    finally:
        random.setstate(saved)


def test_a_limit_the_receiver_refuses_is_a_fault():
    receiver = rpc.ProcState("driver")
    receiver.outgoing({})
    receiver.incoming({"ps": {"rl": 1}})  # below this frame's depth: RecursionError, not applied
    assert receiver.faults and "sys.setrecursionlimit" in receiver.faults[0]


@pytest.fixture
def import_record():
    """The subject's record of what the import system puts in ``sys.modules`` (``rpc.import_record``, which
    harness.judge.subject_main installs), taken off again after the test."""
    rec = rpc.import_record()
    try:
        yield rec
    finally:
        rpc.drop_import_record()


def test_the_subject_guards_what_it_cannot_carry_at_its_replies(monkeypatch, import_record):
    """A change of a guarded item by the tree since the subject's last reply is a fault at the next one,
    named once; a module an import made is no change of the tree's; a request (a callback) checks nothing."""
    import importlib
    import signal
    ps = rpc.ProcState("subject")
    ps.outgoing({"r": 1})
    assert ps.faults == []
    monkeypatch.setitem(sys.modules, "hx_fake", types.ModuleType("hx_fake"))
    old = signal.signal(signal.SIGUSR2, signal.SIG_IGN)
    try:
        ps.outgoing({"q": "call"})
        assert ps.faults == []
        ps.outgoing({"r": 1})
        assert any("signal handlers" in f for f in ps.faults), ps.faults
        assert any("sys.modules (hx_fake)" in f for f in ps.faults), ps.faults
    finally:
        signal.signal(signal.SIGUSR2, old)
    ps.faults.clear()
    monkeypatch.delitem(sys.modules, "colorsys", raising=False)
    importlib.import_module("colorsys")
    ps.outgoing({"r": 1})
    assert [f for f in ps.faults if "sys.modules" in f] == []


def test_a_sys_modules_entry_is_the_imports_only_when_a_load_left_it_there(monkeypatch, tmp_path, import_record):
    """The rule (``ProcState._foreign_modules``): an entry added or replaced since the last reply is the import's
    only when a load left that very value under the loaded name or a name below it (``typing.io``, a package's
    own alias: ``_Loads``), or it is the name's value at an earlier reply (put back). An existing module under a
    new name, a module made from a real module's spec and a name rebound after its import are faults, whatever
    the value calls itself; so is an entry a load puts under a name outside the one it loads."""
    import colorsys  # loaded before the state below is made: the put-back at the end needs colorsys's value at an
    import importlib  # earlier reply (run alone, the import further down was colorsys's first load: order-dependent)
    (tmp_path / "hx_pkgr").mkdir()
    (tmp_path / "hx_pkgr" / "__init__.py").write_text("import sys, types\n\nsys.modules[__name__ + '.io'] = "
                                                      "types.ModuleType('io_alias')\n")
    (tmp_path / "hx_pkgs.py").write_text("import sys, types\n\nsys.modules['hx_elsewhere'] = types.ModuleType('x')\n")
    (tmp_path / "hx_dep.py").write_text("")
    (tmp_path / "hx_pkgt.py").write_text("import sys, types\nimport hx_dep\n\nsys.modules['hx_dep'] = types.ModuleType('hx_dep')\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    ps = rpc.ProcState("subject")
    ps.outgoing({"r": 1})
    names = ("hx_pkgr", "hx_pkgr.io", "hx_pkgs", "hx_elsewhere", "hx_dep", "hx_pkgt")
    try:
        importlib.import_module("hx_pkgr")
        ps.outgoing({"r": 1})
        assert [f for f in ps.faults if "sys.modules" in f] == []
        import hx_pkgs  # noqa: F401
        ps.outgoing({"r": 1})
        assert any("sys.modules (hx_elsewhere)" in f for f in ps.faults), ps.faults
        ps.faults.clear()
        import hx_pkgt  # noqa: F401 - (replaces hx_dep, which its own import loaded first: not what that load left)
        ps.outgoing({"r": 1})
        assert any("sys.modules (hx_dep)" in f for f in ps.faults), ps.faults
        ps.faults.clear()
        monkeypatch.setitem(sys.modules, "hx_alias", sys.modules["os"])
        ps.outgoing({"r": 1})
        assert any("sys.modules (hx_alias)" in f for f in ps.faults), ps.faults
        ps.faults.clear()
        forged = types.ModuleType("colorsys")
        forged.__spec__ = colorsys.__spec__
        monkeypatch.setitem(sys.modules, "colorsys", forged)
        ps.outgoing({"r": 1})
        assert any("sys.modules (colorsys)" in f for f in ps.faults), ps.faults
        ps.faults.clear()
        sys.modules["colorsys"] = colorsys  # put back: the value the name held at an earlier reply
        ps.outgoing({"r": 1})
        assert ps.faults == []
    finally:
        for k in names:
            sys.modules.pop(k, None)


def test_the_import_state_removals_late_entries_and_shadowing_files_are_faults_and_loads_cross(monkeypatch, tmp_path,
                                                                                                  import_record):
    """``IMPORT_STATE_RULE``: an entry the tree removes since the last reply, an entry set below a package after that
    package's load ended (an entry a load adds within it below its own name is its own), and a load of a file that is
    not the interpreter's under a name the interpreter provides are faults; an interpreter's module the tree's import
    loads goes to the driver with the reply (``ml``)."""
    import importlib
    (tmp_path / "hx_rm.py").write_text("")
    (tmp_path / "hx_pkgw").mkdir()
    (tmp_path / "hx_pkgw" / "__init__.py").write_text("")
    (tmp_path / "hx_late.py").write_text("import sys, types\nimport hx_pkgw\n\nsys.modules['hx_pkgw.util'] = "
                                         "types.ModuleType('u')\n")
    (tmp_path / "hx_shadow").mkdir()
    (tmp_path / "hx_shadow" / "colorsys.py").write_text("")
    monkeypatch.syspath_prepend(str(tmp_path))
    import colorsys  # noqa: F401 - (in sys.modules: put back by monkeypatch below)
    monkeypatch.delitem(sys.modules, "colorsys")
    monkeypatch.delitem(sys.modules, "mailbox", raising=False)
    ps = rpc.ProcState("subject")
    ps.outgoing({"r": 1})
    names = ("hx_rm", "hx_pkgw", "hx_pkgw.util", "hx_late")
    try:
        importlib.import_module("hx_rm")
        msg: dict = {"r": 1}
        importlib.import_module("mailbox")
        ps.outgoing(msg)
        assert ps.faults == [] and "mailbox" in msg["ps"]["ml"] and "hx_rm" not in msg["ps"]["ml"], (ps.faults, msg)
        del sys.modules["hx_rm"]
        ps.outgoing({"r": 1})
        assert any("sys.modules (hx_rm removed)" in f for f in ps.faults), ps.faults
        ps.faults.clear()
        importlib.import_module("hx_late")
        ps.outgoing({"r": 1})
        assert any("sys.modules (hx_pkgw.util)" in f for f in ps.faults), ps.faults
        ps.faults.clear()
        monkeypatch.syspath_prepend(str(tmp_path / "hx_shadow"))
        importlib.import_module("colorsys")
        ps.outgoing({"r": 1})
        assert any("colorsys loaded from" in f for f in ps.faults), ps.faults
    finally:
        for k in names:
            sys.modules.pop(k, None)
        sys.modules.pop("colorsys", None)


def test_the_interpreters_registries_are_read_where_it_reads_them_and_guarded(monkeypatch):
    """gc's callbacks (the list the collector calls), the codec search functions (the interpreter's own list,
    found once: ``codec_search_path``, whatever path registered them) and ``sys.path``'s entries that are no str
    hold objects of one process: a change since the last reply is a fault (``_registries``)."""
    import _codecs
    import codecs
    import encodings
    import gc
    import pathlib
    found = rpc.codec_search_path()
    assert found is not None and encodings.search_function in found
    ps = rpc.ProcState("subject")
    ps.outgoing({"r": 1})

    def search(name):
        return None

    def callback(phase, info):
        return None

    gc.callbacks.append(callback)
    _codecs.register(search)
    monkeypatch.setattr(sys, "path", [*sys.path, pathlib.Path("/nowhere")])
    try:
        ps.outgoing({"r": 1})
        for name in ("gc.callbacks", "codec search functions", "sys.path entries that are not str"):
            assert any(f"subject's {name}," in f for f in ps.faults), (name, ps.faults)
    finally:
        gc.callbacks.remove(callback)
        codecs.unregister(search)


def test_a_registry_change_an_installed_librarys_own_import_makes_is_the_librarys(monkeypatch, tmp_path, import_record):
    """A library registering a codec (or a reducer, a finder) at import: the driver's import of it does the same, so
    the change made inside its own load, from the accepted state, is no fault (``_Loads.load``); the same code in
    a module of the tree's stays one. (The library's directory stands in for the interpreter's: ``trusted_file``.)"""
    import codecs
    lib, tree = tmp_path / "lib", tmp_path / "tree"
    lib.mkdir()
    tree.mkdir()
    source = "import codecs\n\n\ndef search(n):\n    return None\n\n\ncodecs.register(search)\n"
    (lib / "hx_libcodec.py").write_text(source)
    (tree / "hx_treecodec.py").write_text(source)
    monkeypatch.syspath_prepend(str(lib))
    monkeypatch.syspath_prepend(str(tree))
    monkeypatch.setattr(rpc, "trusted_file", lambda p: isinstance(p, str) and p.startswith(str(lib)))
    ps = rpc.ProcState("subject")
    ps.outgoing({"r": 1})
    try:
        import hx_libcodec  # noqa: F401
        ps.outgoing({"r": 1})
        assert ps.faults == []
        import hx_treecodec  # noqa: F401
        ps.outgoing({"r": 1})
        assert any("subject's codec search functions," in f for f in ps.faults), ps.faults
    finally:
        for name in ("hx_libcodec", "hx_treecodec"):
            mod = sys.modules.pop(name, None)
            if mod is not None:
                codecs.unregister(mod.search)


def test_decimal_default_context_travels_as_the_current_one_does():
    """``decimal.DefaultContext`` (the template of a new thread's context, in C) is plain data: synced (``dd``)."""
    import decimal
    d = decimal.DefaultContext
    saved = (d.prec, d.traps[decimal.Inexact])
    sender, receiver = rpc.ProcState("driver"), rpc.ProcState("driver")
    sender.outgoing({})
    receiver.outgoing({})
    try:
        d.prec, d.traps[decimal.Inexact] = 9, True
        msg: dict = {}
        sender.outgoing(msg)
        assert set(msg["ps"]) == {"dd"}
        d.prec, d.traps[decimal.Inexact] = saved
        receiver.incoming(_via_json(msg))
        assert d.prec == 9 and d.traps[decimal.Inexact] and receiver.faults == []
    finally:
        d.prec, d.traps[decimal.Inexact] = saved


def test_the_c_environment_is_read_at_its_source():
    """libc's ``setenv`` (no audit event) and ``os.environ._data`` written directly (no putenv) leave the C
    environment and ``os.environ`` disagreeing: the disagreement is what travels (``_CEnviron``), once."""
    import ctypes
    import os
    env = rpc._CEnviron()
    env.delta()
    libc = ctypes.CDLL(None)
    try:
        libc.setenv(b"HX_LIBC", b"1", 1)
        os.environ._data[b"HX_DATA"] = b"2"  # type: ignore[attr-defined]
        assert env.delta() == {"HX_LIBC": "1", "HX_DATA": None}
        assert env.delta(env_moved=False) == {}
        libc.unsetenv(b"HX_LIBC")
        assert env.delta() == {"HX_LIBC": None}  # (agreeing again: the driver's C environment as its os.environ)
    finally:
        libc.unsetenv(b"HX_LIBC")
        os.environ._data.pop(b"HX_DATA", None)  # type: ignore[attr-defined]


def test_a_warning_recorded_before_a_filter_the_call_added_that_matches_it_is_late():
    """The driver replays a call's warnings under every filter the call added (``wa``): one recorded before a
    filter that matches it would meet a filter plain pytest's never did (``_late_filters``: a fault)."""
    with warnings.catch_warnings(record=True) as rec:
        warnings.simplefilter("always")
        warnings.warn("old", UserWarning)
        at = [list(warnings.filters)]
        warnings.filterwarnings("ignore", message="new")
        unrelated = list(warnings.filters)
        warnings.filterwarnings("ignore", message="old")
        now = list(warnings.filters)
    assert rpc._late_filters(rec, at, now)
    assert not rpc._late_filters(rec, at, unrelated)
    assert not rpc._late_filters(rec, [now], now)  # recorded after the filter: replayed as it happened


def test_the_c_environment_the_tree_sets_with_putenv_travels(monkeypatch):
    import os
    ps = rpc.ProcState("subject")
    ps.outgoing({"r": 1})
    monkeypatch.setenv("HX_ENV_SEEN", "1")  # through os.environ: no separate change
    os.putenv("HX_C_ONLY", "x")
    try:
        msg: dict = {}
        ps.outgoing(msg)
        assert msg["ps"]["ce"] == {"HX_C_ONLY": "x"}
    finally:
        os.unsetenv("HX_C_ONLY")


def test_a_filter_on_an_installed_librarys_category_goes_to_the_driver_by_name():
    """numpy's import puts an "always" filter on its own ``RankWarning`` (an honest tree importing numpy made
    this a fault before: test_scoring_attacks' generator_sorted, the first test of a module importing numpy).
    A category whose module is the interpreter's (``trusted_file``) crosses as ``lib:MODULE:QUALNAME`` and the
    driver puts the same filter on the same class; a category of the tree's own stays a fault (above)."""
    from numpy.exceptions import RankWarning
    ps = rpc.ProcState("driver")
    with warnings.catch_warnings():
        base = list(warnings.filters)
        warnings.simplefilter("always", RankWarning)
        now = list(warnings.filters)
    ps.tree_filters(base, now)
    assert ps.faults == [] and ps.filters_out == [["f", "always", "", "lib:numpy.exceptions:RankWarning", "", 0]]
    driver = rpc.ProcState("driver")
    driver.outgoing({})
    with warnings.catch_warnings():
        driver.incoming({"ps": {"wa": ps.filters_out}})
        assert warnings.filters[0][0] == "always" and warnings.filters[0][2] is RankWarning
    for forged in ("lib:tests.harness.judge.test_subject_rpc:Mine", "lib:os:path", "lib:numpy:nope", "Mine"):
        with pytest.raises(rpc.RemoteError, match="malformed warning filter"):
            driver.incoming({"ps": {"wa": [["f", "ignore", "", forged, "", 0]]}})


def test_the_tree_s_warning_filters_go_to_the_driver_and_its_own_categories_are_a_fault():
    ps = rpc.ProcState("driver")
    with warnings.catch_warnings():
        base = list(warnings.filters)
        warnings.simplefilter("ignore", DeprecationWarning)
        warnings.filterwarnings("error", "boom", UserWarning, append=True)
        now = list(warnings.filters)
    ps.tree_filters(base, now)
    assert ps.filters_out == [["f", "ignore", "", "DeprecationWarning", "", 0], ["b", "error", "boom", "UserWarning", "", 0]]
    assert ps.faults == []

    class Mine(UserWarning):
        pass
    with warnings.catch_warnings():
        base = list(warnings.filters)
        warnings.simplefilter("ignore", Mine)
        now = list(warnings.filters)
    ps.tree_filters(base, now)
    assert len(ps.faults) == 1 and "category of its own" in ps.faults[0]
    driver = rpc.ProcState("driver")
    driver.outgoing({})
    with warnings.catch_warnings():
        driver.incoming({"ps": {"wa": [["f", "ignore", "", "DeprecationWarning", "", 0]]}})
        assert warnings.filters[0][0] == "ignore" and warnings.filters[0][2] is DeprecationWarning


def test_the_state_an_assertion_is_evaluated_under_is_the_driver_s():
    import decimal
    assert rpc.eval_state() is None
    with decimal.localcontext() as ctx:
        ctx.prec = 4
        assert rpc.eval_state() == {"dc": [4, "ROUND_HALF_EVEN", ctx.Emin, ctx.Emax, 1, 0,
                                           ["DivisionByZero", "InvalidOperation", "Overflow"]]}


def test_an_import_the_test_blocks_is_blocked_for_the_tree_and_freed_with_it(monkeypatch):
    """``sys.modules[name] = None`` (a test proving the tree no longer needs a module) travels as a name."""
    sender, receiver = rpc.ProcState("driver"), rpc.ProcState("driver")
    sender.outgoing({})
    receiver.outgoing({})
    monkeypatch.setitem(sys.modules, "hx_blocked_dep", None)
    msg: dict = {}
    sender.outgoing(msg)
    assert msg["ps"]["mn"] == ["hx_blocked_dep"]
    monkeypatch.delitem(sys.modules, "hx_blocked_dep")
    receiver.incoming(_via_json(msg))
    assert "hx_blocked_dep" in sys.modules and sys.modules["hx_blocked_dep"] is None
    receiver.incoming({"ps": {"mn": []}})
    assert "hx_blocked_dep" not in sys.modules
    assert receiver.faults == []


def test_the_driver_keeps_its_own_path_entries_and_takes_the_tree_s(monkeypatch):
    """``sys.path`` from the subject: the driver's own runtime's entries (``skip``) stay, in front; an entry the
    tree adds that the driver never sends ('') is no fault."""
    monkeypatch.setattr(sys, "path", ["/hx/res", "/a", "/b"])
    ps = rpc.ProcState("driver", skip=lambda p: not p or p == "/hx/res")
    msg: dict = {}
    ps.outgoing(msg)
    assert msg["ps"]["sp"] == ["/a", "/b"]
    ps.incoming({"ps": {"sp": ["", "/new", "/a", "/b"]}})
    assert sys.path == ["/hx/res", "", "/new", "/a", "/b"]
    assert ps.faults == []


# -- what the test puts on a tree class or the stdlib; log records ---------------------------------------------
PATCH_TREE = """
class Client:
    def fetch(self):
        raise RuntimeError("network")

    def total(self):
        return self.fetch() + 1


class Base:
    def hook(self):
        return 1

    def run(self):
        return self.hook() * 10
"""


@pytest.fixture
def patch_pair():
    """(the driver's peer, the faults it recorded, the tree module's proxy) for PATCH_TREE."""
    a, b = socket.socketpair()
    driver, subject = rpc.Peer(a.detach(), "driver"), rpc.Peer(b.detach(), "subject")
    faults: list = []
    driver.on_fault = faults.append
    mod = types.ModuleType("tree")
    exec(PATCH_TREE, mod.__dict__)  # noqa: S102 - the test's own tree
    hid = subject.export(mod)
    thread = threading.Thread(target=subject.serve_forever, daemon=True)
    thread.start()
    yield driver, faults, driver.proxy({"id": hid, "ty": "tree", "c": False}), mod
    socket.socket(fileno=driver.fd).close()
    thread.join(timeout=10)


def test_a_member_the_test_sets_on_a_tree_class_is_the_live_classs_until_it_is_undone(patch_pair):
    """``RemoteMeta.__setattr__``: ``mock.patch.object`` (a callable crossing as a callback) and a function
    (bound as a method there) reach the tree's own ``self.fetch()``; mock's undo (a deletion: the stand-in's
    ``__dict__`` does not hold the tree's method) puts the tree's own back; the test's own delete after its own
    assignment leaves the class none, as CPython does (``_by_test``)."""
    from unittest import mock
    driver, faults, tree, mod = patch_pair
    Client = tree.Client
    with mock.patch.object(Client, "fetch", return_value=1) as m:
        assert Client().total() == 2
    assert m.call_count == 1
    assert mod.Client.__dict__["fetch"].__name__ == "fetch" and mod.Client.fetch.__qualname__ == "Client.fetch"
    with pytest.raises(RuntimeError):
        Client().total()
    Client.fetch = lambda self: 5
    assert Client().total() == 6 and Client.fetch(None) == 5  # (the test's own reads: its function)
    del Client.fetch  # (the test's own delete, after its own set: CPython's, the class has none left)
    with pytest.raises(AttributeError):
        Client().total()
    assert "fetch" not in mod.Client.__dict__ and faults == []


def test_a_tests_subclass_of_a_tree_class_is_made_in_the_subject_with_its_overrides_called_back(patch_pair):
    driver, faults, tree, mod = patch_pair

    class My(tree.Base):
        factor = 3

        def hook(self):
            return self.factor + 2

    m = My()
    assert m.run() == 50  # the tree's run, calling the test's hook
    assert isinstance(m, My) and isinstance(m, tree.Base)
    My.factor = 4  # a class attribute the test changes later: the live class's too
    assert m.run() == 60
    assert faults == []


def test_an_instance_of_the_tests_subclass_is_of_the_tests_class_whoever_makes_it(patch_pair):
    """The rule (``_TestInstance``): the proxy of a live instance of the test's subclass is an instance of the test's
    class itself, made by the test (``My()``) or by the tree (a call back into the test's ``__init__``, a factory)."""
    driver, faults, tree, mod = patch_pair

    class My(tree.Base):
        def __init__(self):
            self.seen = True

        def hook(self):
            return 5

    m = My()
    assert type(m) is My and m.__class__ is My and m.seen is True and m.run() == 50
    assert type(tree.Base) is not My and faults == []


@pytest.mark.parametrize("body", ["def hook(self):\n    return super().hook() + 1\n",
                                  "__slots__ = ()\n",
                                  "x = property(lambda self: 1)\n"])
def test_a_tests_subclass_the_subject_cannot_make_as_plain_pytests_is_a_fault(patch_pair, body):
    """A method calling ``super()`` (no tree's next method runs for the driver's function) and ``__slots__`` fail
    closed where the class is made; a property of the test's (its function called back) works."""
    driver, faults, tree, mod = patch_pair
    ns: dict = {"Base": tree.Base}
    src = "class My(Base):\n" + "".join("    " + line + "\n" for line in body.splitlines())
    if "property" in body:
        exec(src, ns)  # noqa: S102 - the test's own class
        assert ns["My"]().x == 1 and faults == []
        return
    with pytest.raises(rpc.ProtocolFault):
        exec(src, ns)  # noqa: S102 - the test's own class
    assert len(faults) == 1, faults


def test_member_kind_carries_functions_as_methods_and_refuses_other_descriptors():
    class P:
        def _dec_fault(self, why):
            return rpc.ProtocolFault(why)

    def f(self):
        return 1

    assert rpc._member_kind(P(), f, "C.f") == ("f", f)
    assert rpc._member_kind(P(), staticmethod(f), "C.f") == ("s", f)
    assert rpc._member_kind(P(), classmethod(f), "C.f") == ("c", f)
    assert rpc._member_kind(P(), 3, "C.x") == ("v", 3)
    from unittest import mock
    with pytest.raises(rpc.ProtocolFault):
        rpc._member_kind(P(), mock.PropertyMock(return_value=1), "C.p")  # a descriptor of the test's

    def calls_super(self):
        return super().f()  # type: ignore[misc]

    with pytest.raises(rpc.ProtocolFault):
        rpc._member_kind(P(), calls_super, "C.f")


def test_the_tests_patches_of_a_module_are_noted_and_sent_until_undone(monkeypatch):
    """``StdlibPatches``: a module of the interpreter watched (its class a ``ModuleType`` subclass) notes every
    name the test sets; ``pending`` is the set of names differing from their value before, when it changed."""
    fake = types.ModuleType("hx_fake_stdlib")
    fake.clock = time_clock = lambda: 1.0  # noqa: E731
    monkeypatch.setitem(__import__("sys").modules, "hx_fake_stdlib", fake)
    watcher = rpc.StdlibPatches({__file__})
    monkeypatch.setattr(rpc, "_WATCH", [watcher])
    watcher.seen = -1
    try:
        watcher.watch()  # (every trusted module of this process: unwatched below, or Ray cannot pickle `ray`)
        _patches_are_noted(watcher, fake, time_clock, monkeypatch)
    finally:
        watcher.unwatch()
    assert not [n for n, m in list(sys.modules.items()) if type(m) is rpc._WatchedModule]


def _patches_are_noted(watcher, fake, time_clock, monkeypatch):
    assert type(fake) is rpc._WatchedModule
    assert watcher.pending() is None
    fake_clock = lambda: 100.0  # noqa: E731
    fake.clock = fake_clock
    assert watcher.pending() == [["hx_fake_stdlib", "clock", fake_clock, False]]
    assert watcher.pending() is None  # (unchanged since)
    del fake.clock
    assert watcher.pending() == [["hx_fake_stdlib", "clock", None, True]]
    fake.clock = time_clock
    assert watcher.pending() == []  # undone: nothing differs, the subject puts its own back
    exec("import types\ntypes.ModuleType.__setattr__(fake, 'x', 1)\nsetattr(fake, 'y', 1)", {"fake": fake})  # noqa: S102
    assert watcher.pending() is None  # (code other than the test's, mock's or monkeypatch's: not the test's patch)
    monkeypatch.setattr(fake, "z", 2, raising=False)
    assert watcher.pending() == [["hx_fake_stdlib", "z", 2, False]]


def test_the_subject_applies_the_tests_patches_and_puts_back_its_own(monkeypatch):
    fake = types.ModuleType("hx_fake_stdlib")
    fake.clock = own = lambda: 1.0  # noqa: E731
    monkeypatch.setitem(__import__("sys").modules, "hx_fake_stdlib", fake)
    a, b = socket.socketpair()
    subject = rpc.Peer(a.detach(), "subject")
    subject._apply_patches([["hx_fake_stdlib", "clock", 5, False]])
    assert fake.clock == 5
    subject._apply_patches([["hx_fake_stdlib", "clock", None, True]])
    assert not hasattr(fake, "clock")
    subject._apply_patches([])
    assert fake.clock is own
    subject._apply_patches([["hx_no_such_module_anywhere", "f", 1, False]])
    assert len(subject.pending) == 1 and "could not be applied" in subject.pending[0]  # a fault, never silence
    with pytest.raises(rpc.RemoteError):
        subject._apply_patches([["sys", "stdout", 1, False]])  # never carried: synced by its own rule
    socket.socket(fileno=subject.fd).close()
    b.close()


def _relayed_record(driver, subject, log):
    """A record the subject's forwarder sends (as JSON) and the driver rebuilds, as caplog would hold it."""
    import json
    import logging
    out: list = []
    ps = types.SimpleNamespace(forwarder=rpc._Forwarder(out, subject))
    lg = logging.getLogger("hx.relay.probe")
    lg.propagate = False
    rpc.relay_logs(ps)  # (the subject's ``callHandlers``: relayed at the logger it was logged on)
    try:
        log(lg)
    finally:
        rpc.relay_logs(None)
        lg.propagate = True
    got: list = []

    class Keep(logging.Handler):
        def emit(self, record):
            got.append(record)

    keep = Keep()
    lg.addHandler(keep)
    try:
        rpc._handle_record(json.loads(json.dumps(out[0])), driver)
    finally:
        lg.removeHandler(keep)
    return got[0]


def test_a_relayed_log_record_carries_its_msg_args_and_exception(patch_pair):
    driver, faults, tree, mod = patch_pair
    subject = rpc.Peer(-1, "subject")

    def log(lg):
        try:
            1 / 0
        except ZeroDivisionError:
            lg.exception("x=%s %r", 5, "a")

    r = _relayed_record(driver, subject, log)
    assert r.msg == "x=%s %r" and r.args == (5, "a") and r.getMessage() == "x=5 'a'"
    assert r.exc_info[0] is ZeroDivisionError and isinstance(r.exc_info[1], ZeroDivisionError)
    assert str(r.exc_info[1]) == "division by zero" and "ZeroDivisionError" in r.exc_text
    with pytest.raises(rpc.ProtocolFault):
        r.exc_info[2]  # the traceback stays in the subject: read, a fault
    with pytest.raises(rpc.ProtocolFault):
        _, _, _ = r.exc_info
    assert len(faults) == 2
    r = _relayed_record(driver, subject, lambda lg: lg.warning("plain"))
    assert r.args == () and r.exc_info is None and r.msg == "plain"


def test_a_relayed_log_record_field_that_could_not_cross_faults_when_read(patch_pair):
    driver, faults, tree, mod = patch_pair
    subject = rpc.Peer(-1, "subject")

    class Obj:
        def __repr__(self):
            return "<obj>"

    r = _relayed_record(driver, subject, lambda lg: lg.warning("got %r", Obj()))
    assert r.getMessage() == "got <obj>" and r.msg == "got %r"  # (the text, formatted where the object lives)
    with pytest.raises(rpc.ProtocolFault):
        r.args
    r = _relayed_record(driver, subject, lambda lg: lg.warning(Obj()))
    assert r.getMessage() == "<obj>"
    with pytest.raises(rpc.ProtocolFault):
        r.msg
    assert len(faults) == 2
    r.msg = "set by the test"  # (a field the test assigns is its own)
    assert r.msg == "set by the test"


def test_a_relayed_record_carries_every_field_of_any_type_or_faults_on_it(patch_pair):
    """``RECORD_FIELD_RULE``: bytes, a list and a dict in ``extra``, a field a filter adds, a standard field a filter
    gave another type: each reads as in the subject; one that cannot cross (too deep to send) is an ``_Unfaithful``
    that faults when used, never missing; a field name no record can take is a fault at once."""
    import logging
    driver, faults, tree, mod = patch_pair
    subject = rpc.Peer(-1, "subject")
    deep: list = []
    for _ in range(100):
        deep = [deep]

    class Add(logging.Filter):
        def filter(self, r):
            r.token, r.lineno, r.deep = b"\x00k", "seven", deep
            return True

    def log(lg):
        f = Add()
        lg.addFilter(f)
        try:
            lg.warning("x", extra={"raw": b"\x01", "tags": ["a", ("b", 2)], "meta": {"k": [1.5, None]}, "my-key": 1})
        finally:
            lg.removeFilter(f)

    r = _relayed_record(driver, subject, log)
    assert (r.raw, r.tags, r.meta, r.token, r.lineno) == (b"\x01", ["a", ("b", 2)], {"k": [1.5, None]}, b"\x00k", "seven")
    assert vars(r)["my-key"] == 1 and hasattr(r, "deep") and faults == []
    with pytest.raises(rpc.ProtocolFault):
        len(r.deep)
    assert len(faults) == 1

    class Bad(logging.Filter):
        def filter(self, r):
            r.__dict__[3] = "no str"
            return True

    def bad(lg):
        f = Bad()
        lg.addFilter(f)
        try:
            lg.warning("y")
        finally:
            lg.removeFilter(f)

    _relayed_record(driver, subject, bad)
    assert len(faults) == 2 and "field" in faults[1]


def test_a_relayed_record_is_handled_at_the_logger_it_was_logged_on(patch_pair):
    """``LOG_TREE_RULE``: a record a filter of the tree renames is still the logger's it was logged on (the test's
    handler there sees it, under its new name); the subject's own handlers count, so the driver's ``lastResort``
    stays quiet; a ``callHandlers`` set on a logger breaks the relay (``_relay_intact``: a guarded fault)."""
    import logging
    driver, faults, tree, mod = patch_pair
    subject = rpc.Peer(-1, "subject")

    class Rename(logging.Filter):
        def filter(self, r):
            r.name = "audit"
            return True

    def log(lg):
        f = Rename()
        lg.addFilter(f)
        try:
            lg.warning("secret")
        finally:
            lg.removeFilter(f)

    r = _relayed_record(driver, subject, log)
    assert r.name == "audit" and r.getMessage() == "secret"
    lg = logging.getLogger("hx.relay.probe")
    assert rpc._deliver_at(lg) == ("hx.relay.probe", True) and rpc._deliver_at(logging.root) == ("", True)
    loose = logging.Logger("hx.loose")  # (made directly: not in the tree; its propagation reaches the probe)
    loose.parent = lg
    assert rpc._deliver_at(loose) == ("hx.relay.probe", False)
    loose.propagate = False
    assert rpc._deliver_at(loose) is None
    assert rpc._relay_intact([lg])
    rpc._LOG_RELAY[0] = object()
    try:
        lg.callHandlers = lambda r: None  # type: ignore[method-assign]
        assert not rpc._relay_intact([lg])
    finally:
        rpc._LOG_RELAY[0] = None
        del lg.callHandlers
    assert faults == []


def test_the_logger_tree_is_read_by_a_walk_and_carried_both_ways():
    """``LOG_TREE_RULE``: a new logger, a level assigned directly (no ``setLevel``: no cache cleared), ``propagate``,
    ``disabled`` and ``manager.disable`` assigned directly all travel with the next message, and the receiver makes
    the logger and sets them; a ``propagate`` that is no bool is a fault, not a guess."""
    import logging
    sender = rpc.ProcState("driver")
    sender.outgoing({})
    lg = logging.getLogger("hx.tree.probe.walked")
    made = None
    old_disable = logging.root.manager.disable
    try:
        lg.level, lg.propagate, lg.disabled = logging.ERROR, False, True
        logging.root.manager.disable = 5
        msg: dict = {}
        sender.outgoing(msg)
        ps = _via_json(msg)["ps"]
        assert "hx.tree.probe.walked" in ps["ln"] and ps["lv"]["hx.tree.probe.walked"] == logging.ERROR
        assert ps["lt"]["hx.tree.probe.walked"] == 3 and ps["ld"] == 5
        logging.root.manager.disable = old_disable
        nothing: dict = {}
        sender.outgoing(nothing)
        assert set(nothing.get("ps", {})) == {"ld"}  # (only what changed since)
        receiver = rpc.ProcState("driver")
        receiver.outgoing({})
        receiver.incoming(_via_json({"ps": {"ln": ["hx.tree.probe.made"], "lt": {"hx.tree.probe.made": 1,
                                                                                "hx.tree.probe.walked": 0}}}))
        made = logging.Logger.manager.loggerDict["hx.tree.probe.made"]
        assert isinstance(made, logging.Logger) and made.propagate is False and made.disabled is False
        assert lg.propagate is True and lg.disabled is False and receiver.faults == []
        lg.propagate = "no"  # type: ignore[assignment]
        sender.outgoing({})
        assert sender.faults and "propagate" in sender.faults[0]
    finally:
        logging.root.manager.disable = old_disable
        lg.setLevel(logging.NOTSET)
        lg.propagate, lg.disabled = True, False
        if made is not None:
            made.propagate = True


def test_a_request_of_the_tests_code_from_a_thread_of_the_tree_is_a_fault_never_a_message(patch_pair):
    """A mocked ``time.sleep`` or a callback the tree calls from a thread of its own: the driver is not waiting for
    it and its bytes would interleave with the serving thread's; the fault goes with the subject's next message."""
    driver, faults, tree, mod = patch_pair
    code = "import threading\n\ndef in_thread(cb):\n    out = []\n    t = threading.Thread(target=lambda: out.append(_try(cb)))\n" \
           "    t.start()\n    t.join()\n    return out[0]\n\ndef _try(cb):\n    try:\n        return cb()\n    except Exception as e:\n" \
           "        return type(e).__name__\n"
    exec(code, mod.__dict__)  # noqa: S102 - the test's own tree
    assert tree.in_thread(lambda: 1) == "ProtocolFault"
    assert len(faults) == 1 and "thread of its own" in faults[0], faults
    assert tree.in_thread.__name__ == "in_thread"  # (the connection still in step)


# == what the test puts in sys.modules, and deletes from a tree class (``ModuleStubs``, ``_class_del``) ===========
def test_a_sys_modules_entry_no_import_made_is_a_stub_to_carry(monkeypatch, import_record):
    """``ModuleStubs``: an entry of ``sys.modules`` set by the test (a ModuleType without a spec, a SimpleNamespace, a
    real module under another name) is pending for the subject; an import's (``__spec__`` names it, with a loader) is
    not; the entry gone, the empty set is pending once (the subject puts its own back), then nothing."""
    import json
    stubs = rpc.ModuleStubs()
    assert stubs.loads is import_record
    stubs.pending()  # (the first read: the entries as the run left them, which are its imports)
    assert stubs.pending() is None
    fake, ns = types.ModuleType("subprocess"), types.SimpleNamespace(run=None)
    monkeypatch.setitem(sys.modules, "subprocess", fake)
    monkeypatch.setitem(sys.modules, "hx_ns_stub", ns)
    monkeypatch.setitem(sys.modules, "hx_json_alias", json)
    assert stubs.pending() == {"subprocess": fake, "hx_ns_stub": ns, "hx_json_alias": json}
    assert stubs.pending() is None  # (unchanged since the last send)
    monkeypatch.undo()
    assert stubs.pending() == {}
    assert stubs.pending() is None
    assert rpc._by_name(json) and not rpc._by_name(fake) and not rpc._by_name(ns)


def test_an_entry_an_import_puts_below_its_own_name_is_no_stub(monkeypatch, tmp_path, import_record):
    """``ModuleStubs``: what a module's own import registers under a name below its own (``typing.io``,
    ``pyexpat.errors``, pytest's ``py.path``: made after the driver began watching, in a cold start) is the import's,
    never carried (it made the driver's modules reachable from the subject, and the subject's guard faulted it); an
    entry the test sets under another name is a stub."""
    (tmp_path / "hx_registers_below.py").write_text(
        "import sys, types\nsys.modules['hx_registers_below.extra'] = types.ModuleType('hx_registers_below.extra')\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    stubs = rpc.ModuleStubs()
    try:
        __import__("hx_registers_below")
        assert "hx_registers_below.extra" in sys.modules
        fake = types.ModuleType("hx_not_installed")
        monkeypatch.setitem(sys.modules, "hx_not_installed", fake)
        assert stubs.pending() == {"hx_not_installed": fake}
    finally:
        for name in ("hx_registers_below", "hx_registers_below.extra"):
            sys.modules.pop(name, None)


def test_a_stub_module_crosses_as_itself_and_its_attributes_are_readable(pair):
    """A module of the test's own crosses as a handle (its members read and called in the driver), never by its name
    (the subject's real module of that name); the policy lets the subject read a stub's public attributes, never an
    import's or the harness's."""
    import json
    driver, subject, tree = pair
    fake = types.ModuleType("subprocess")
    assert driver.enc(fake)["t"] == "h" and driver.enc(json)["t"] == "m"
    fake.run = len
    rpc._driver_policy("getattr", [fake, "run"])
    for mod in (json, pytest):
        with pytest.raises(PermissionError):
            rpc._driver_policy("getattr", [mod, "dumps"])


def test_the_tests_own_delete_of_a_member_it_set_leaves_none(monkeypatch):
    """``_class_del``: a patcher's delete (its undo) puts back the class's own member; the test's own (``own``) deletes
    it as CPython does, and a patcher's undo after it still puts the class's own back."""
    class C:
        def m(self):
            return 1
    orig = C.__dict__["m"]
    patches: dict = {}
    rpc._class_set(patches, C, "m", "v", lambda self: 2)
    rpc._class_del(patches, C, "m")
    assert C.__dict__["m"] is orig and not patches
    rpc._class_set(patches, C, "m", "v", lambda self: 2)
    rpc._class_del(patches, C, "m", True)
    assert "m" not in C.__dict__
    rpc._class_del(patches, C, "m")
    assert C.__dict__["m"] is orig
    with pytest.raises(rpc.RemoteError):
        rpc._class_del(patches, C, "m", "yes")


def test_a_patcher_set_after_the_tests_own_delete_is_undone_to_none():
    """``_class_set``'s stack: the test sets, deletes as its own (none left), then a patcher sets: the patcher's undo
    leaves none (it saw none, under plain pytest), and a patcher's undo from before the delete still puts the class's
    own member back."""
    class C:
        def m(self):
            return 1
    orig = C.__dict__["m"]
    patches: dict = {}
    rpc._class_set(patches, C, "m", "v", lambda self: 2)
    rpc._class_del(patches, C, "m", True)
    rpc._class_set(patches, C, "m", "v", lambda self: 3)
    rpc._class_del(patches, C, "m")
    assert "m" not in C.__dict__
    rpc._class_del(patches, C, "m")
    assert C.__dict__["m"] is orig and not patches


def test_a_delete_is_the_tests_own_unless_a_patchers_undo_makes_it():
    """``_by_test``: decided by the code that deletes, never by its file being the test's: code run through ``exec``
    (no file of the test's) is the test's own; the undo of ``mock`` and of ``monkeypatch`` is not."""
    from unittest import mock

    from _pytest.monkeypatch import MonkeyPatch
    assert rpc._by_test(sys._getframe())
    assert not rpc._by_test(None)
    seen: list = []
    exec("seen.append(rpc._by_test(sys._getframe()))", {"seen": seen, "rpc": rpc, "sys": sys})

    class Probe:
        def __delattr__(self, name):
            seen.append(rpc._by_test(sys._getframe(1)))

    target = Probe()
    p = mock.patch.object(target, "x", 1, create=True)
    p.temp_original, p.is_local, p.target, p._exit_stack = 0, False, target, __import__("contextlib").ExitStack()
    p.attribute, p.create = "x", True
    p.__exit__(None, None, None)
    mp = MonkeyPatch()
    mp._setattr.append((target, "x", __import__("_pytest.monkeypatch").monkeypatch.NOTSET))
    mp.undo()
    assert seen == [True, False, False]


# == what the test's patchers set on a class of the interpreter's modules (``ClassPatches``) ===================
def test_a_patchers_change_of_a_stdlib_class_is_pending_until_undone(pair):
    """``ClassPatches``: ``monkeypatch.setattr`` of a standard-library class's member is noted from monkeypatch's own
    record (the class's own value before), sent with the kind it crosses as (a function: bound as a method there),
    once; undone, the empty set goes once; ``mock``'s patch alike. A class of the test's own is not noted."""
    import string
    from unittest import mock

    from _pytest import monkeypatch as mp_module
    from _pytest.monkeypatch import MonkeyPatch
    driver, subject, tree = pair
    cp = rpc.ClassPatches()
    setattr_ = cp._after_monkeypatch(MonkeyPatch.setattr, mp_module.NOTSET)
    mp = MonkeyPatch()

    def fake(self, *args, **kwargs):
        return "x"
    try:
        setattr_(mp, string.Formatter, "format", fake)
        assert cp.pending(driver) == [["string", "Formatter", "format", "f", fake, False]]
        assert cp.pending(driver) is None
    finally:
        mp.undo()
    assert cp.pending(driver) == []
    assert cp.pending(driver) is None
    enter = cp._after_mock(mock._patch.__enter__)
    p = mock.patch.object(string.Formatter, "vformat", return_value="y")
    new = enter(p)
    try:
        assert cp.pending(driver) == [["string", "Formatter", "vformat", "v", new, False]]
    finally:
        p.__exit__(None, None, None)
    assert cp.pending(driver) == []

    class Own:
        pass
    cp.note(Own, "x", rpc._MISSING)
    assert cp.originals == {}


def test_the_subject_sets_and_puts_back_a_stdlib_class_member(pair):
    """``Peer._apply_class_patches``: the member set on the subject's class of that module and qualified name, and put
    back (here deleted: it had none) when the set no longer holds it; a class not found so is a fault."""
    import string
    driver, subject, tree = pair
    faults: list = []
    subject.on_fault = faults.append
    subject._apply_class_patches([["string", "Formatter", "hx_probe", "v", 1, False]])
    try:
        assert string.Formatter.__dict__["hx_probe"] == 1
    finally:
        subject._apply_class_patches([])
    assert "hx_probe" not in string.Formatter.__dict__
    subject._apply_class_patches([["string", "NoSuchClass", "x", "v", 1, False]])
    subject._apply_class_patches([])
    assert subject.pending or faults


def test_what_of_the_subjects_logging_a_record_passes_through_is_reported_and_routes_the_tests_records():
    """``LOG_ROUTE_RULE``: a record factory, a logger class or a level name not logging's own, and the loggers with a
    filter or a handler, are reported (``_log_route``); a record of the test's on a logger whose way up crosses one is
    routed (``_route_wanted``), one on an unrelated logger only for the global three."""
    import logging
    ps = rpc.ProcState("driver")
    lg = logging.getLogger("hx.route.probe.child")
    # (what other tests and libraries of this worker left: loggers with handlers; level names inspect_ai added (flag
    # 4); a record factory ray sets when any test module imports it (flag 1): the factory is logging's own here)
    worker_factory = logging.getLogRecordFactory()
    logging.setLogRecordFactory(rpc._ORIG_RECORD_FACTORY)
    old = logging.getLogRecordFactory()
    ps._log_fp()
    f = logging.Filter("x")
    try:
        before = ps._log_route()
        assert before[0] & 3 == 0 and "hx.route.probe" not in before[1]
        logging.setLogRecordFactory(lambda *a, **k: old(*a, **k))
        logging.getLogger("hx.route.probe").addFilter(f)
        ps._log_fp()
        assert ps._log_route() == [before[0] | 1, sorted({*before[1], "hx.route.probe"})]
        logging.setLogRecordFactory(old)
        assert ps._log_route() == [before[0], sorted({*before[1], "hx.route.probe"})]
        saved = list(rpc._LOG_ROUTE)
        try:
            rpc._LOG_ROUTE[:] = [None, 0, frozenset(["hx.route.probe"])]
            assert rpc._route_wanted(lg) and not rpc._route_wanted(logging.getLogger("hx.other"))
            rpc._LOG_ROUTE[1] = 4
            assert rpc._route_wanted(logging.getLogger("hx.other"))
        finally:
            rpc._LOG_ROUTE[:] = saved
    finally:
        logging.setLogRecordFactory(worker_factory)
        logging.getLogger("hx.route.probe").removeFilter(f)


def test_the_shape_of_the_subjects_logger_tree_is_guarded():
    """``LOG_ROUTE_RULE`` (``_log_shape``): a logger renamed, an entry aliased to another logger or removed, a parent
    set by hand is a fault; a logger made by ``getLogger`` (its parent the nearest registered ancestor) is none."""
    import logging
    reg = logging.Logger.manager.loggerDict
    a, b = logging.getLogger("hx.shape.a"), logging.getLogger("hx.shape.a.b")
    assert rpc._natural_parent("hx.shape.a.b", reg) is a and rpc._natural_parent("hx.nowhere.x", reg) is logging.root
    ps = rpc.ProcState("driver")
    ps._log_shape([("hx.shape.a", a), ("hx.shape.a.b", b)])
    assert ps.faults == []
    b.parent = None
    try:
        ps._log_shape([("hx.shape.a", a), ("hx.shape.a.b", b), ("hx.shape.alias", a)])
    finally:
        b.parent = a
    assert len(ps.faults) == 2 and "parent" in ps.faults[0] and "named otherwise" in ps.faults[1]
    ps.last = {"ln": ["hx.shape.gone"]}
    ps._log_shape([])
    assert len(ps.faults) == 3 and "removed" in ps.faults[2]


def test_a_member_of_the_interpreters_enum_crosses_as_the_receivers_own_member():
    """``Peer._enc_member``: a canonical member of an enum class of the interpreter's is the driver's own member of
    that name (``is`` holds as in one process); a class of the tree's, or a composite flag, is not encoded so."""
    import enum
    import http
    import re
    rpc._capture_class(http.HTTPStatus)
    rpc._capture_class(re.RegexFlag)
    sent = rpc.Peer._enc_member(http.HTTPStatus.OK, http.HTTPStatus)
    assert sent is not None and (sent["t"], sent["m"], sent["q"], sent["n"]) == ("em", "http", "HTTPStatus", "OK")
    peer = rpc.Peer(-1, "subject")
    assert peer._dec_member(_via_json({"v": sent})["v"]) is http.HTTPStatus.OK
    sent["d"]["phrase"] = "changed by the tree"  # (a member the tree changed: not the receiver's, a fault)
    with pytest.raises(rpc.ProtocolFault):
        peer._dec_member(sent)

    class Mine(enum.Enum):
        A = 1

    assert rpc.Peer._enc_member(Mine.A, Mine) is None
    assert rpc.Peer._enc_member(re.I | re.M, re.RegexFlag) is None



# -- the rest of the interpreter's state, read at its source (``CENSUS_RULE``) ----------------------------------------
@pytest.fixture
def class_watch():
    """The subject's watch of the interpreter's classes (``_CW``) as it was, put back after the test."""
    saved = {k: (set(v) if isinstance(v, set) else list(v)) for k, v in rpc._CW.items()}
    try:
        yield rpc._CW
    finally:
        rpc._CW.update(saved)


def test_the_census_faults_a_change_the_tree_makes_to_interpreter_state_no_row_covered(import_record):
    """gc's debug flags (and every census item) read by its own getter at each reply: a change is a fault, named once."""
    import gc
    ps = rpc.ProcState("subject")
    ps.outgoing({"r": 1})
    before = gc.get_debug()
    try:
        gc.set_debug(gc.DEBUG_SAVEALL)
        ps.outgoing({"r": 1})
        assert any("gc's debug flags" in f for f in ps.faults), ps.faults
        ps.faults.clear()
        ps.outgoing({"r": 1})
        assert ps.faults == []
    finally:
        gc.set_debug(before)
        gc.garbage.clear()
    local = len(rpc._CENSUS_NAMES) - rpc._CENSUS_LOCAL
    assert rpc.census_moved([0] * rpc._CENSUS_LOCAL + [None] * local, [0] * len(rpc._CENSUS_NAMES)) == []  # (not read)
    n = len(rpc._CENSUS_NAMES) - 1
    assert rpc.census_moved([True] + [0] * n, [False] + [0] * n) == ["tracemalloc"]
    threading.stack_size(1 << 20)
    try:
        assert rpc._stack_size() == 1 << 20 and threading.stack_size() == 1 << 20  # (read without resetting it)
    finally:
        threading.stack_size(0)


def test_a_freeze_is_told_from_frozen_objects_deaths_whatever_the_count(import_record):
    """Red team atk12: a freeze in a call that also frees frozen objects ends with a lower frozen count. The witness
    made at a reply is found in a generation after collections of every generation, and not after a freeze; the
    census faults a freeze whatever the count (above zero), and takes a lower count with no freeze as it is."""
    import gc
    assert gc.get_freeze_count() == 0  # (this process freezes nothing else)
    w = rpc.frost_witness()
    for gen in (0, 1, 2):
        gc.collect(gen)
        assert not rpc.froze_since(w), gen
    gc.freeze()
    try:
        assert rpc.froze_since(w)
        assert not rpc.froze_since(rpc.frost_witness())
    finally:
        gc.unfreeze()
    i = rpc._CENSUS_FROZEN
    then = [0] * len(rpc._CENSUS_NAMES)
    then[i] = 500
    now = list(then)
    now[i] = 300  # (deaths of frozen objects)
    assert rpc.census_moved(list(now), then) == [] and then[i] == 300
    now[i] = 200  # (deaths and a freeze)
    assert rpc.census_moved(list(now), then, True) == ["gc's frozen objects"] and then[i] == 200
    assert rpc.census_moved(list(now), then, True) == ["gc's frozen objects"]  # (equal: a freeze all the same)
    now[i] = 0  # (an unfreeze after it: a fault by the count)
    assert rpc.census_moved(list(now), then, True) == ["gc's frozen objects"]
    assert rpc.census_moved(list(now), then, True) == []  # (none frozen: no freeze to tell)


def test_a_path_importer_cache_entry_is_the_import_systems_only_for_its_own_path():
    import importlib.machinery as m
    details = (m.SourceFileLoader, [".py"])
    assert rpc._finder_faithful("/x", None)
    assert rpc._finder_faithful("/x", m.FileFinder("/x", details))
    assert not rpc._finder_faithful("/x", m.FileFinder("/elsewhere", details))
    assert not rpc._finder_faithful("/x", types.SimpleNamespace(find_spec=lambda *a: None))

    class Loader(m.SourceFileLoader):
        pass
    assert not rpc._finder_faithful("/x", m.FileFinder("/x", (Loader, [".py"])))


def test_a_member_the_tree_sets_on_a_stdlib_class_is_named_once_a_librarys_bookkeeping_is_not(class_watch):
    import pathlib
    pathlib.PurePath._hx_flag = False  # type: ignore[attr-defined]
    try:
        rpc.watch_library_classes([pathlib])
        if not class_watch["cells"]:
            pytest.skip("no dict version tags to read here")
        assert rpc.library_classes_moved() == []
        pathlib.PurePath._hx_flag = True  # type: ignore[attr-defined]
        assert rpc.library_classes_moved() == []  # (a private plain scalar changed: the interpreter's bookkeeping)
        pathlib.PurePath.hx_member = property(lambda self: "forged")  # type: ignore[attr-defined]
        assert rpc.library_classes_moved() == ["pathlib.PurePath"]
        assert rpc.library_classes_moved() == []  # (named once)
        sync: list = []
        pathlib.PurePath.hx_plain = 3  # type: ignore[attr-defined]
        assert rpc.library_classes_moved(sync=sync) == [] and sync == [["pathlib:PurePath", "hx_plain", 3, False]]
    finally:
        for name in ("_hx_flag", "hx_member", "hx_plain"):
            if name in vars(pathlib.PurePath):
                delattr(pathlib.PurePath, name)
        rpc.library_classes_moved(True, rpc._class_versions())


@pytest.fixture
def module_watch():
    """The subject's watch of the interpreter's modules (``_MW``) as it was, put back after the test."""
    saved = {k: (set(v) if isinstance(v, set) else list(v)) for k, v in rpc._MW.items()}
    try:
        yield rpc._MW
    finally:
        rpc._MW.update(saved)


def test_a_binding_or_registry_entry_the_tree_sets_in_a_stdlib_module_crosses_as_plain_data_or_is_a_fault(module_watch):
    """``MODULE_STATE_RULE``: a plain value crosses (``mg``), a function bound or registered is a fault, named once; a
    submodule bound by the import system is not the tree's."""
    import shutil
    rpc.watch_library_modules([shutil])
    if not module_watch["cells"]:
        pytest.skip("no dict version tags to read here")
    try:
        assert rpc.library_modules_moved() == []
        sync: list = []
        shutil.hx_plain = (1, b"x", ["y"])  # type: ignore[attr-defined]
        shutil._ARCHIVE_FORMATS["hx"] = ("not", "callable")  # type: ignore[assignment]
        assert rpc.library_modules_moved(sync=sync) == []
        assert sorted(sync) == [["b", "shutil", "hx_plain", None, {"t": [1, {"b": "x"}, ["y"]]}, False],
                                ["d", "shutil", "_ARCHIVE_FORMATS", "hx", {"t": ["not", "callable"]}, False]]
        assert rpc._mw_dec(sync[0][4] if sync[0][0] == "b" else sync[1][4]) == (1, b"x", ["y"])
        shutil.hx_fn = lambda: 0  # type: ignore[attr-defined]
        shutil.register_archive_format("hx", lambda *a, **k: None)
        assert sorted(rpc.library_modules_moved(sync=[])) == ["shutil._ARCHIVE_FORMATS[hx]", "shutil.hx_fn"]
        assert rpc.library_modules_moved() == []  # (named once)
    finally:
        for name in ("hx_plain", "hx_fn"):
            vars(shutil).pop(name, None)
        shutil._ARCHIVE_FORMATS.pop("hx", None)
        rpc.library_modules_moved(True)


def test_a_list_set_nested_dict_or_memo_entry_the_tree_changes_in_a_stdlib_module_crosses_or_is_a_fault(module_watch):
    """``MODULE_STATE_RULE`` (red team atk11): a module-level list and a dict two levels down cross as plain data (by
    their path), a set member that is a function is a fault, and a ``re._cache`` entry is accepted only when it is what
    ``re``'s own code compiles of its key."""
    import re
    import sysconfig
    import urllib.parse
    rpc.watch_library_modules([urllib.parse, sysconfig, re])
    if not module_watch["cells"]:
        pytest.skip("no dict version tags to read here")
    scheme = sysconfig._INSTALL_SCHEMES["posix_prefix"]  # type: ignore[attr-defined]
    purelib, relative = scheme["purelib"], list(urllib.parse.uses_relative)
    try:
        assert rpc.library_modules_moved() == []
        sync: list = []
        urllib.parse.uses_relative.remove("http")
        scheme["purelib"] = "/hx"
        re.compile("hx-honest+")
        assert rpc.library_modules_moved(sync=sync) == []
        assert ["c", "urllib.parse", "uses_relative", [], [x for x in relative if x != "http"], False] in sync
        assert ["p", "sysconfig", "_INSTALL_SCHEMES", ["posix_prefix", "purelib"], "/hx", False] in sync
        re._cache[(str, "hx-a+", 0)] = re.compile("hx-b+")  # type: ignore[attr-defined]
        assert rpc.library_modules_moved(sync=[]) == ["re._cache[(<class 'str'>, 'hx-a+', 0)] (not what its own code computes)"]
    finally:
        urllib.parse.uses_relative[:] = relative
        scheme["purelib"] = purelib
        re._cache.pop((str, "hx-a+", 0), None)  # type: ignore[attr-defined]
        rpc.library_modules_moved(True)


def test_a_list_set_or_nested_entry_is_set_in_the_drivers_same_container():
    import sysconfig
    import urllib.parse
    ps = rpc.ProcState("driver")
    scheme = sysconfig._INSTALL_SCHEMES["posix_prefix"]  # type: ignore[attr-defined]
    purelib, relative = scheme["purelib"], list(urllib.parse.uses_relative)
    try:
        rpc._apply_module_state([["c", "urllib.parse", "uses_relative", [], ["hx"], False],
                                 ["p", "sysconfig", "_INSTALL_SCHEMES", ["posix_prefix", "purelib"], "/hx", False],
                                 ["b", "urllib.parse", "_hx_prog", None, {"re": ["(h)x", 48]}, False],
                                 ["b", "urllib.parse", "_hx_map", None, rpc._mw_enc({"ID": ("hx", b"x")}), False]], ps)
        assert urllib.parse.uses_relative == ["hx"] and scheme["purelib"] == "/hx" and ps.faults == []
        assert vars(urllib.parse)["_hx_prog"] == re.compile("(h)x", re.DOTALL)
        assert vars(urllib.parse)["_hx_map"] == {"ID": ("hx", b"x")}
        rpc._apply_module_state([["c", "urllib.parse", "uses_relative", [], ["hx"], True]], ps)  # (not a set there)
        assert ps.faults and "MODULE_STATE_RULE" in ps.faults[0]
    finally:
        urllib.parse.uses_relative[:] = relative
        scheme["purelib"] = purelib
        vars(urllib.parse).pop("_hx_prog", None)
        vars(urllib.parse).pop("_hx_map", None)


def test_the_trees_plain_module_values_are_set_in_the_drivers_same_module():
    import shutil
    ps = rpc.ProcState("driver")
    try:
        rpc._apply_module_state([["b", "shutil", "hx_plain", None, {"t": [1, 2]}, False],
                                 ["d", "shutil", "_ARCHIVE_FORMATS", "hx", "v", False]], ps)
        assert vars(shutil)["hx_plain"] == (1, 2) and shutil._ARCHIVE_FORMATS["hx"] == "v"
        rpc._apply_module_state([["b", "shutil", "hx_plain", None, None, True],
                                 ["d", "shutil", "_ARCHIVE_FORMATS", "hx", None, True]], ps)
        assert "hx_plain" not in vars(shutil) and "hx" not in shutil._ARCHIVE_FORMATS and ps.faults == []
        rpc._apply_module_state([["d", "shutil", "hx_no_such_dict", "k", 1, False]], ps)
        assert ps.faults and "MODULE_STATE_RULE" in ps.faults[0]
        with pytest.raises(rpc.RemoteError):
            rpc._apply_module_state([["b", "pytest", "approx", None, 0, False]], ps)
    finally:
        vars(shutil).pop("hx_plain", None)
        shutil._ARCHIVE_FORMATS.pop("hx", None)


def test_a_codec_error_handler_the_tree_registers_crosses_a_builtin_one_replaced_is_a_fault(import_record):
    import codecs
    ps = rpc.ProcState("subject")
    ps.outgoing({"r": 1})
    assert ps.errs is not None

    def handler(e):
        return "?", e.end
    codecs.register_error("hx_unit_qmark", handler)
    try:
        ps.guard()
        assert ps.eh_out == {"hx_unit_qmark": handler} and ps.faults == []
    finally:
        ps.errs.pop("hx_unit_qmark", None)  # (no unregister: the registry's own dict)
        ps.err_seen.pop("hx_unit_qmark", None)
        ps.eh_out.clear()


def test_an_abc_registration_crosses_by_the_abcs_name_one_made_around_the_watch_is_a_fault(import_record):
    import _abc
    import collections.abc
    w = rpc.watch_abc_registrations()
    try:
        ps = rpc.ProcState("subject")
        ps.outgoing({"r": 1})

        class Bag:
            pass
        collections.abc.Sized.register(Bag)
        ps.guard()
        assert ps.ar_out == [(collections.abc.Sized, Bag)] and ps.faults == []
        assert rpc._named_library_class(collections.abc.Sized) == "collections.abc:Sized"

        class Other:
            pass
        _abc._abc_register(collections.abc.Sized, Other)
        ps.guard()
        assert any("ABC registrations" in f for f in ps.faults), ps.faults
        assert w is not None
    finally:
        rpc.drop_abc_watch()


MEASURED_TREE = """
class C:
    def m(self):
        return 'tree'


class O:
    def __init__(self):
        self.v = 1

    def get(self):
        return self.v


HELD = []


def make():
    return O()


def keep(o, x):
    o.x = x


def ident(x):
    return x


def is_len(x):
    return x is len


def held():
    return len(HELD)
"""


@pytest.fixture
def measured_pair():
    """(the driver's peer, the tree module's proxy) over ``MEASURED_TREE``."""
    a, b = socket.socketpair()
    driver, subject = rpc.Peer(a.detach(), "driver"), rpc.Peer(b.detach(), "subject")
    mod = types.ModuleType("mtree")
    exec(MEASURED_TREE, mod.__dict__)  # noqa: S102 - the test's own tree
    hid = subject.export(mod)
    thread = threading.Thread(target=subject.serve_forever, daemon=True)
    thread.start()
    yield driver, driver.proxy({"id": hid, "ty": "mtree", "c": False})
    socket.socket(fileno=driver.fd).close()
    thread.join(timeout=10)


def test_every_path_that_writes_a_stand_in_reaches_the_live_object_or_is_seen(measured_pair):
    """``STAND_IN_PATHS_RULE``: a write to a tree class's stand-in through its hooks reaches the live class; one
    through ``type.__setattr__``/``type.__delattr__`` lands in the driver's copy only and is seen (``stand_in_writes``,
    a fault at the test's end), never refused with an exception of the stand-in's own; ``vars(o)`` is the live object's
    dict, linked; ``object.__setattr__`` on an object's stand-in lands in its own dict, and is seen the same way."""
    driver, tree = measured_pair
    C = tree.C
    assert rpc.stand_in_writes(driver) == []
    C.n = 5  # (through the hooks: no write to see)
    type.__setattr__(C, "m", lambda self: "test")
    assert C().m() == "tree"  # (the live class never saw it)
    assert rpc.stand_in_writes(driver) == [f"a member of class {rpc.qualname(C)} (m)"]
    type.__delattr__(C, "m")
    assert len(rpc.stand_in_writes(driver)) == 1
    _ = C.__annotations__  # (CPython stores an empty one at the first read: no write)
    assert rpc.stand_in_writes(driver) == []
    o = tree.make()
    vars(o)["v"] = 2
    assert o.get() == 2  # the write reached the live object, as under plain pytest
    assert rpc.stand_in_writes(driver) == []
    object.__setattr__(o, "v", 3)
    assert o.get() == 2 and vars(o)["v"] == 2
    assert len(rpc.stand_in_writes(driver)) == 1


def test_the_interpreters_singletons_cross_as_the_receivers_own(measured_pair):
    """``SINGLETONS_RULE``: ``...`` and a built-in function are the receiver's own object, both ways."""
    driver, tree = measured_pair
    assert tree.ident(...) is ...
    assert tree.ident(len) is len
    assert tree.is_len(len) is True


def test_a_test_object_the_tree_drops_is_released_and_finalized_before_the_next_line(measured_pair):
    """``DRIVER_OBJECTS_RULE``: the test's object with a ``__del__`` held only by a tree object is finalized at the
    test's drop of that object's stand-in (a release exchange), not when the run ends."""
    driver, tree = measured_pair
    fired = []

    class D:
        def __del__(self):
            fired.append(1)

    d, o = D(), tree.make()
    tree.keep(o, d)
    del d
    assert fired == []
    del o
    assert fired == [1]


def test_the_subjects_share_of_a_measure_is_read_by_functions_bound_at_load():
    """``MEASURES_RULE``: the subject's CPU since it loaded, a collection under given debug flags (counting what it
    saved in ``gc.garbage``), and its threads but the main one."""
    cpu = rpc.measure("cpu")
    assert len(cpu) == 6 and all(isinstance(v, (int, float)) for v in cpu) and cpu[0] >= 0
    assert rpc.measure("threads") == [t for t in threading.enumerate() if t is not threading.main_thread()]
    found, saved = rpc.measure("gc", 2, 0)
    assert isinstance(found, int) and saved == 0
    assert rpc.measure("sizeof", [1, 2]) == sys.getsizeof([1, 2])
    with pytest.raises(rpc.RemoteError):
        rpc.measure("gc", "2", 0)


class _Kept:
    """A class of a file outside the interpreter's directories: a tree's, to ``_tree_objects``."""


def test_the_subjects_objects_of_the_trees_classes_are_its_share_of_gc_get_objects(monkeypatch):
    """``MEASURES_RULE``: ``gc.get_objects``'s share is every object the collector tracks whose class is defined in a
    file that is not the interpreter's (this test file's class here), not the interpreter's objects; past the bound,
    None (the driver faults)."""
    kept = _Kept()
    got = rpc.measure("objects", None)
    assert any(o is kept for o in got) and not any(type(o) is dict for o in got)
    monkeypatch.setattr(rpc, "_M_MAX_OBJECTS", 0)
    assert rpc.measure("objects", None) is None
    with pytest.raises(rpc.RemoteError):
        rpc.measure("objects", "2")


def test_the_tests_limit_is_read_and_set_in_the_subject_as_no_change_of_the_trees(monkeypatch):
    """``KERNEL_RULE``: the test's ``getrlimit`` reads the subject's limit; its ``setrlimit``, carried there, is taken
    as the last value compared (no change of the tree's); a change made after it still moves."""
    import resource
    k = rpc.KernelState()
    monkeypatch.setattr(rpc, "_KERNEL_STATE", [k])
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    assert rpc.measure("rlimit", resource.RLIMIT_NOFILE) == [soft, hard]
    try:
        assert rpc.measure("rlimit", resource.RLIMIT_NOFILE, [soft - 1, hard]) == [soft - 1, hard]
        assert resource.getrlimit(resource.RLIMIT_NOFILE) == (soft - 1, hard)
        rpc._KERNEL_FULL[0] = True
        assert k.moved(True, None) == []
        resource.setrlimit(resource.RLIMIT_NOFILE, (soft - 2, hard))  # (the tree's, say)
        rpc._KERNEL_FULL[0] = True
        assert k.moved(True, None) == ["resource limits"]
    finally:
        resource.setrlimit(resource.RLIMIT_NOFILE, (soft, hard))
        rpc._KERNEL_FULL[0] = False
    with pytest.raises(rpc.RemoteError):
        rpc.measure("rlimit", resource.RLIMIT_NOFILE, (soft, hard))


def test_trusted_file_keeps_realpaths_answer_when_it_resolves_each_directory_once(tmp_path, monkeypatch):
    """``trusted_file`` resolves a directory once a process (``_REAL_DIRS``) and a file in a link-free one by its own
    entry: every answer, asked once and asked again, is the answer of resolving the whole path. A stand-in tree
    plays the interpreter's directory (``TRUSTED``): a file, a link to a file inside and outside it, a link to a
    directory outside, a missing file, a path through ``..`` and a doubled slash, a link that loops."""
    lib, out = tmp_path / "lib", tmp_path / "tree"
    (lib / "pkg").mkdir(parents=True)
    out.mkdir()
    (lib / "pkg" / "mod.py").write_text("")
    (out / "evil.py").write_text("")
    (lib / "pkg" / "inside.py").symlink_to(lib / "pkg" / "mod.py")
    (lib / "pkg" / "outside.py").symlink_to(out / "evil.py")
    (lib / "linked").symlink_to(out)
    (lib / "pkg" / "loop.py").symlink_to(lib / "pkg" / "loop.py")
    monkeypatch.setattr(rpc, "TRUSTED", (str(lib),))
    monkeypatch.setattr(rpc, "_REAL_DIRS", set())

    def whole(p):
        return rpc._under_trusted(os.path.abspath(p)) and rpc._under_trusted(os.path.realpath(p))

    paths = [f"{lib}/pkg/mod.py", f"{lib}/pkg/inside.py", f"{lib}/pkg/outside.py", f"{lib}/linked/evil.py",
             f"{lib}/pkg/missing.py", f"{lib}/linked/../pkg/mod.py", f"{lib}/pkg//mod.py", f"{lib}/pkg/loop.py",
             f"{out}/evil.py", str(lib)]
    want = [whole(p) for p in paths]
    assert want == [True, True, False, False, True, False, True, True, False, True]
    assert [rpc.trusted_file(p) for p in paths] == want
    assert f"{lib}/pkg" in rpc._REAL_DIRS and f"{lib}/linked" not in rpc._REAL_DIRS
    assert [rpc.trusted_file(p) for p in paths] == want  # (asked again: the kept directories answer)
