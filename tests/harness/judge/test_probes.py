"""What the probe observes whole in the sandbox and what the judge keeps (harness.judge.probes)."""
from harness.judge.probes import transform


def _site(body: str):
    plan = transform(f"from pkg import f, g\n\ndef test_x():\n    {body}\n").plan
    return plan.sites[1]


def test_an_iterator_consuming_call_over_a_sandbox_value_is_one_leaf():
    site = _site("assert sorted(f()) == [1, 2]")
    assert site.leaves == 1 and site.expr == "_v[0] == [1, 2]"  # the expectation stays with the judge


def test_a_comparison_of_two_sandbox_values_is_observed_in_the_sandbox():
    site = _site("assert f() == g()")
    assert site.leaves == 1 and site.expr == "_v[0]"


def test_a_type_check_of_a_sandbox_value_is_observed_whole():
    site = _site("assert type(f()) is int")
    assert site.leaves == 1 and site.expr == "_v[0] is int"


def test_a_literal_expectation_is_never_in_the_probe():
    probe = transform("from pkg import f\n\ndef test_x():\n    assert f(2) == 41\n")
    assert "41" not in probe.source and probe.plan.sites[1].expr == "_v[0] == 41"


def test_an_operator_between_two_sandbox_values_is_computed_in_the_sandbox():
    site = _site("assert f() & g() == 2")  # (an IntFlag's ``&``: its own method, which the judge's copies cannot run)
    assert site.leaves == 1 and site.expr == "_v[0] == 2"
    site = _site("assert f() + 1 == 2")  # one sandbox value: the judge still computes with its copy
    assert site.expr == "_v[0] + 1 == 2"


def test_a_call_that_reads_the_process_state_is_observed_not_computed():
    """``JUDGE_STATE_RULE``: the clock, the time zone, the locale and ``_strptime``'s caches (``strptime``,
    ``strftime``, a ``%`` format spec, ``fromtimestamp``) and a codec the registry resolves are the test's process's,
    the tree's under plain pytest: each such call is a leaf, observed in the driver; a pure one (``isoformat``, a
    built-in codec's name, a format spec without ``%`` or ``n``) the judge still computes; ``bytes``/``str`` with a codec,
    ``str.format``'s fields and a spec computed at run time as the same (red team atk16)."""
    src = ("import datetime\nfrom pkg import f\n\n\ndef test_f():\n"
           "    assert f() == datetime.datetime.strptime('2021-03', '%Y-%m')\n"
           "    assert f() == datetime.date(2021, 3, 1).strftime('%B')\n"
           "    assert f() == f'{datetime.date(2021, 3, 1):%B}'\n"
           "    assert f() == datetime.datetime.fromtimestamp(0)\n"
           "    assert f() == datetime.datetime.strptime(f(), '%Y')\n"
           "    assert f() == 'x'.encode('cp1252')\n"
           "    assert f() == 'x'.encode('UTF-8')\n"
           "    assert f() == datetime.date(2021, 3, 1).isoformat()\n"
           "    assert f() == f'{3:>4}'\n"
           "    assert f() == bytes('x', 'cp1252')\n"
           "    assert f() == f'{1234:n}'\n"
           "    assert f() == '{:%Y}'.format(datetime.date(2021, 3, 1))\n"
           "    assert f() == f'{datetime.date(2021, 3, 1):{SPEC}}'\n"
           "    assert f() == bytes('x', 'utf-8')\n"
           "    assert f() == '{} items'.format(3)\n")
    sites = transform(src, "t.py").plan.sites  # a comparison with a leaf on each side is observed whole
    assert [s.expr == "_v[0]" for s in sites.values()] == [True] * 6 + [False] * 3 + [True] * 4 + [False] * 2


def test_an_encode_with_an_error_handler_that_is_not_builtin_is_observed_not_computed():
    """The codec error handlers are the test's process's (a tree registers one): the judge does not compute such a
    call itself (``_reads_process_state``); a builtin handler's name it still does."""
    src = ("from pkg import f\n\n\ndef test_f():\n    assert f() == 1\n    assert 'x'.encode('ascii', 'qmark') == b'?'\n"
           "    assert 'x'.encode('ascii', 'replace') == b'x'\n")
    sites = transform(src, "t.py").plan.sites
    assert [s.leaves for s in sites.values()] == [1, 1, 0]
