"""Red team atk16: the judge's changes of 2026-12-06 (PROCESS_END_RULE, JUDGE_STATE_RULE, the canary's teardown
attribution, the subject's ``sys.stdin``, ``_own_submodule``, ``trusted_file``'s directory cache), attacked with
concrete trees, each judged and run under plain pytest in the same sandbox, cold and warm.

The promise (issue 32): a judged verdict is never more lenient than plain pytest's on the same tree, and an honest
tree's verdict does not change. A tree the judge alone passes where honest plain pytest fails is also a break of the
final check: plain pytest's pass can be forged from inside the tree's process (red team atk15's ``FORGE``), and one
such case is run through ``final_check`` whole here (``test_the_final_check_fails_a_forged_tree_...``).

Open (strict xfails; a name moved into ``ATK16_CLOSED`` runs as an ordinary test):

* ``LENIENT`` (a wrong tree: plain pytest fails it, the judge passes it):

  1. PROCESS_END_RULE reads the subject's exit status, but the subject never finalizes what its protocol holds: the
     values of a tree module's namespace the import reply sent to the driver (every import-time global) and every
     tree object the test still holds when the driver's session ends (the driver marks its peer ``ended`` and
     releases nothing). Their ``__del__`` never runs in the subject; under plain pytest it runs at the interpreter's
     end, and a finalizer that exits non-zero (or crashes: atk15's ``finalizer_crash_at_exit``, the same cause) fails
     the run. So a tree whose import-time pool's finalizer exits 3 passes judged. Not only at the end: the import
     reply's handle keeps an import-time global alive in the subject after the tree rebinds it during a test (a cache
     replaced by ``reset()``), so its finalizer never runs there, where plain pytest runs it at the rebinding (both
     directions: a test that reads what the finalizer did, ``finalizer_of_a_rebound_import_time_global_...``).
  2. JUDGE_STATE_RULE lists ``%`` format specs as the locale's (strftime) but not the ``n`` spec, which reads the C
     library's ``LC_NUMERIC`` (``localeconv``): ``f'{1234567:n}'`` and ``'{:n}'.format(1234567)`` are computed in the
     harness process, under its C locale, where plain pytest computes them under the locale the tree set.
  2b. JUDGE_STATE_RULE's codec check (``_reads_process_state``) reads an attribute call's ``encode``/``decode`` only:
     ``bytes(s, 'windows-1252')`` and ``str(b, 'windows-1252')`` (builtins the judge computes) resolve the codec in
     the harness's registry, never the tree's (atk14's alias entry ``windows_1252 -> cp437``, closed for ``.encode``,
     is open again through the constructors).
  3. The subject's ``DontReadFromInput`` is written out without pytest's base class, ``typing.TextIO``: under plain
     pytest ``sys.stdin`` is a ``typing.TextIO`` whose ``name``, ``mode``, ``closed``, ``errors``... are ``None``
     (the base's abstract properties); in the subject ``isinstance(sys.stdin, typing.TextIO)`` is False and those
     attributes are missing, so a ``getattr`` default answers there.
  4. ``_own_submodule``: the binding of the harness's test module on the tree's ``tests`` package stays in the
     driver, so in the subject the tree's package has no ``test_t`` attribute, which plain pytest's import system
     sets (a tree that reads it tells the two apart without naming anything of the harness).

* ``HONEST`` (a right tree: plain pytest passes it, the judge fails it):

  4b. (1. the other way) a right tree whose import-time cache's finalizer, run at its rebinding, is what the test reads.
  5. PROCESS_END_RULE's 5 s: a non-daemon thread that legitimately ends 5.5 s after the test (plain pytest's process
     waits for it, well within its time limit) is killed and faulted.
  6. JUDGE_STATE_RULE's ``_spec_reads_state`` sees a ``%`` only in an f-string's literal spec: ``'{:%Y-%m-%d}'.format(d)``
     and ``f'{d:{SPEC}}'`` (the spec a constant) stay the judge's, whose ``strftime`` then imports ``time`` through
     the evaluation's ``__import__``, which refuses it: "could not be compared" for a right tree. And the ``n`` spec
     (2.) the other way: a right tree formatting under its locale fails judged.
  7. ``sys.stdin.name`` (``None`` under plain pytest) is an AttributeError in the subject.
  8. (noticed; MODULE_STATE_RULE, not a change of today) a ``concurrent.futures.ProcessPoolExecutor`` left open
     registers ``multiprocessing.util._finalizer_registry`` entries, a change of the interpreter's modules' bindings
     the driver cannot share: a protocol fault.

Held (ordinary tests, ``HELD``): the driver's decimal context travels with each observation (``_Under``), so the
tree's ``getcontext().prec`` is the judge's; atk14's codec alias read by ``.encode`` is a leaf; a method of datetime bound to a module constant (``FROM =
datetime.datetime.fromtimestamp``) is not computed by the judge; a module-scoped fixture's teardown assert after the
canary is a stray observation, checked (``<module>``); a tree's ``tests`` package imported by the harness's test
(``from tests.helpers import``, ``from . import helpers``) crosses; the interpreter's directories are read-only in
the sandbox (EROFS), so ``trusted_file``'s once-a-process resolution of them cannot be made stale by the tree.
"""
from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from harness.judge.testrun import run_pytest
from tests.harness.judge.test_atk15_final_verdict import FORGE, _final
from tests.harness.judge.test_identity import HIDE

T = "from pkg import f\n\n\ndef test_f():\n    assert f() == 1\n"
# the tree compiles a German locale under LOCPATH (C, C.utf8 and POSIX alone group no digits) and sets LC_NUMERIC
_DE = ("import locale\nimport os\nimport subprocess\nimport tempfile\n\n\ndef _de():\n    d = tempfile.mkdtemp()\n"
       "    subprocess.run(['localedef', '-i', 'de_DE', '-f', 'UTF-8', d + '/de_DE.UTF-8'], capture_output=True)\n"
       "    os.environ['LOCPATH'] = d\n    locale.setlocale(locale.LC_NUMERIC, 'de_DE.UTF-8')\n\n\n")
_HAS_LOCALEDEF = bool(shutil.which("localedef")) and os.path.isfile("/usr/share/i18n/locales/de_DE")
_N_SPEC = "from pkg import f\n\n\ndef test_f():\n    assert f() == f'{1234567:n}'\n"
_POOL_EXITS = ("import os\n\n\nclass _Pool:\n    def __del__(self):\n        os._exit(3)  # the pool could not be "
               "flushed\n\n\n_POOL = _Pool()\n\n\ndef f():\n    return 1\n")
_CONN_EXITS = ("import os\n\n\nclass Conn:\n    def get(self):\n        return 1\n\n    def __del__(self):\n"
               "        os._exit(3)\n")
# an import-time cache whose finalizer records its flush; ``reset`` replaces it (the old one's last reference)
_CACHE = ("FLUSHED = []\n\n\nclass Cache:\n    def __del__(self):\n        FLUSHED.append(1)\n\n\n_CACHE = Cache()\n\n\n"
          "def reset():\n    global _CACHE\n    _CACHE = Cache()\n\n\ndef flushed():\n    return len(FLUSHED)\n")
_CODEC_ALIAS = ("import encodings.aliases\n\n\ndef f():\n    encodings.aliases.aliases['windows_1252'] = 'cp437'\n"
                "    return 1\n")

# name -> (the tree's package, the harness's test[, more files of the tree]); plain pytest fails each
LENIENT: dict[str, tuple] = {
    # 1. the subject never finalizes what its protocol holds
    "finalizer_of_an_import_time_global_exits_non_zero": (_POOL_EXITS, T),
    "finalizer_of_a_tree_object_the_test_module_holds_exits_non_zero": (
        _CONN_EXITS, "from pkg import Conn\n\n_C = Conn()\n\n\ndef test_f():\n    assert _C.get() == 1\n"),
    "finalizer_of_a_rebound_import_time_global_never_runs": (_CACHE, "from pkg import flushed, reset\n\n\ndef test_f():\n"
                                                             "    reset()\n    assert flushed() == 0\n"),
    # 2. the n format spec reads LC_NUMERIC: the judge's C locale, not the tree's
    "n_format_spec_in_an_f_string_under_the_trees_locale": (_DE + "def f():\n    _de()\n    return '1234567'\n", _N_SPEC),
    "n_format_spec_in_str_format_under_the_trees_locale": (
        _DE + "def f():\n    _de()\n    return '1234567'\n",
        "from pkg import f\n\n\ndef test_f():\n    assert f() == '{:n}'.format(1234567)\n"),
    # 2b. a codec named to bytes()/str() is resolved in the judge's registry (atk14's alias, closed for .encode)
    "codec_alias_of_the_tree_in_a_bytes_call": (_CODEC_ALIAS, "from pkg import f\n\n\ndef test_f():\n    assert f() == 1\n"
                                                "    assert bytes('\\u00e9', 'windows-1252') == b'\\xe9'\n"),
    "codec_alias_of_the_tree_in_a_str_call": (_CODEC_ALIAS, "from pkg import f\n\n\ndef test_f():\n    assert f() == 1\n"
                                              "    assert str(b'\\x82', 'windows-1252') == '\\u201a'\n"),
    # 3. pytest's DontReadFromInput is a typing.TextIO (name, mode, closed... None); the subject's is not
    "stdin_name_default_answers_in_the_subject": ("import sys\n\n\ndef f():\n    return getattr(sys.stdin, 'name', '<stdin>')\n",
                                                  "from pkg import f\n\n\ndef test_f():\n    assert f() == '<stdin>'\n"),
    "stdin_is_no_typing_textio_in_the_subject": ("import sys\nimport typing\n\n\ndef f():\n"
                                                 "    return 0 if isinstance(sys.stdin, typing.TextIO) else 1\n", T),
    # 4. _own_submodule: the tree's tests package lacks the attribute plain pytest's import system binds
    "tests_package_lacks_the_test_module_attribute": ("import tests\n\n\ndef f():\n    return 0 if hasattr(tests, 'test_t') else 1\n",
                                                      T, {"tests/__init__.py": ""}),
}
# name -> (the tree's package, the harness's test[, more files]); plain pytest passes each
HONEST: dict[str, tuple] = {
    # 4b. the finalizer of an import-time global the tree rebinds runs at the rebinding under plain pytest
    "finalizer_of_a_rebound_import_time_global_runs": (_CACHE, "from pkg import flushed, reset\n\n\ndef test_f():\n"
                                                       "    reset()\n    assert flushed() == 1\n"),
    # 5. a non-daemon thread that ends 5.5 s after the test: plain pytest's process waits for it
    "non_daemon_thread_ending_after_five_seconds": ("import threading\nimport time\n\n\ndef f():\n"
                                                    "    threading.Thread(target=time.sleep, args=(5.5,)).start()\n"
                                                    "    return 1\n", T),
    # 6. a % spec the judge does not see as one: its strftime imports time, which the evaluation refuses
    "date_spec_in_str_format": ("def f():\n    return '2026-12-06'\n",
                                "import datetime\nfrom pkg import f\n\n\ndef test_f():\n"
                                "    assert f() == '{:%Y-%m-%d}'.format(datetime.date(2026, 12, 6))\n"),
    "date_spec_in_a_nested_f_string_spec": ("def f():\n    return '2026'\n",
                                            "import datetime\nfrom pkg import f\n\nSPEC = '%Y'\n\n\ndef test_f():\n"
                                            "    assert f() == f'{datetime.date(2026, 12, 6):{SPEC}}'\n"),
    "n_format_spec_under_the_trees_locale": (_DE + "def f():\n    _de()\n    return format(1234567, 'n')\n", _N_SPEC),
    # 7. sys.stdin.name is None under plain pytest
    "stdin_name_read_plainly": ("import sys\n\n\ndef f():\n    return sys.stdin.name or '<stdin>'\n",
                                "from pkg import f\n\n\ndef test_f():\n    assert f() == '<stdin>'\n"),
    # 8. noticed (MODULE_STATE_RULE): a process pool left open
    "process_pool_left_open": ("import concurrent.futures\n\n_POOLS = []\n\n\ndef f():\n"
                               "    p = concurrent.futures.ProcessPoolExecutor(2)\n    _POOLS.append(p)\n"
                               "    return p.submit(abs, -1).result()\n", T),
}
_NEEDS_LOCALEDEF = {"n_format_spec_in_an_f_string_under_the_trees_locale",
                    "n_format_spec_in_str_format_under_the_trees_locale", "n_format_spec_under_the_trees_locale"}
ATK16_CLOSED: frozenset[str] = frozenset({
    # subject_main: the protocol's tables released at the subject's end (PROCESS_END_RULE): the finalizers run
    "finalizer_of_an_import_time_global_exits_non_zero", "finalizer_of_a_tree_object_the_test_module_holds_exits_non_zero",
    # probes JUDGE_STATE_RULE: bytes()/str() with a codec, an n spec, str.format's fields, a spec computed at run time
    "codec_alias_of_the_tree_in_a_bytes_call", "codec_alias_of_the_tree_in_a_str_call",
    "n_format_spec_in_str_format_under_the_trees_locale", "n_format_spec_in_an_f_string_under_the_trees_locale",
    "n_format_spec_under_the_trees_locale", "date_spec_in_str_format", "date_spec_in_a_nested_f_string_spec",
    # subject_rpc DontReadFromInput: typing.TextIO's base, as pytest's
    "stdin_is_no_typing_textio_in_the_subject", "stdin_name_default_answers_in_the_subject", "stdin_name_read_plainly",
    # subject_rpc _MW_LAZY (multiprocessing.util's finalizer registry) and _foreign_modules (multiprocessing's __mp_main__)
    "process_pool_left_open",
    # subject_rpc TREE_NAMESPACE_RULE: the rebinding crosses, so the driver drops the old global's stand-in and the
    # subject finalizes it with the next message, as plain pytest does at the rebinding
    "finalizer_of_a_rebound_import_time_global_never_runs", "finalizer_of_a_rebound_import_time_global_runs"})

_LENIENT_OPEN = pytest.mark.xfail(strict=True, raises=AssertionError, reason=(
    "red team atk16: the judge passes a tree plain pytest fails (the subject never finalizes the objects its protocol "
    "holds; the n format spec reads the harness's locale; bytes()/str() resolve a codec in the harness's registry; the subject's stdin is no typing.TextIO; the tests "
    "package's attribute stays in the driver)"))
_HONEST_OPEN = pytest.mark.xfail(strict=True, raises=AssertionError, reason=(
    "red team atk16: the judge fails a right tree plain pytest passes (a rebound import-time global never finalized; the 5 s end of the subject; a % spec the "
    "judge computes and whose strftime it refuses; the n spec; sys.stdin.name; a process pool's finalizer registry)"))


def _params(cases: dict, mark) -> list:
    out = []
    for n in sorted(cases):
        marks = [] if n in ATK16_CLOSED else [mark]
        if n in _NEEDS_LOCALEDEF:
            marks.append(pytest.mark.skipif(not _HAS_LOCALEDEF, reason="needs glibc's localedef and de_DE's source"))
        out.append(pytest.param(n, marks=marks))
    return out


def _judged_as_plain(tmp_path: Path, case: tuple, *, plain_passes: bool) -> None:
    """The premise first (plain pytest's verdict on the tree is ``plain_passes``; otherwise ``pytest.fail``, never
    the strict xfail's AssertionError), then the judged verdict equals it, and a wrong tree is not read as
    tampering (as tests.harness.judge.test_final_check_attacks ``judged_as_plain``, with the tree's other files)."""
    module, test, *files = case
    tree = tmp_path / "tree"
    (tree / "pkg").mkdir(parents=True)
    (tree / "pkg" / "__init__.py").write_text(module)
    for rel, data in (files[0] if files else {}).items():
        (tree / rel).parent.mkdir(parents=True, exist_ok=True)
        (tree / rel).write_text(data)
    test_file = tmp_path / "test_harness_owned.py"
    test_file.write_text(test)
    plain = run_pytest(tree, test_file, dest_rel="tests/test_t.py", hide=HIDE, show=True, judged=False)
    if plain.passed is not plain_passes:
        pytest.fail(f"premise: plain pytest's verdict: {plain.output}")
    judged = run_pytest(tree, test_file, dest_rel="tests/test_t.py", hide=HIDE, show=True)
    out = judged.output + "\n--- plain pytest ---\n" + plain.output
    assert judged.passed is plain_passes and not judged.subverted, out


@pytest.mark.parametrize("name", _params(LENIENT, _LENIENT_OPEN))
def test_the_judge_fails_a_wrong_tree_through_its_process_end_its_locale_its_stdin_or_its_tests_package(
        tmp_path, executor, name):
    _judged_as_plain(tmp_path, LENIENT[name], plain_passes=False)


@pytest.mark.parametrize("name", _params(HONEST, _HONEST_OPEN))
def test_an_honest_tree_with_a_late_thread_a_formatted_date_its_locale_or_its_stdin_passes_judged(
        tmp_path, executor, name):
    _judged_as_plain(tmp_path, HONEST[name], plain_passes=True)


# closed (subject_main releases the protocol's tables at the subject's end; was a strict xfail)
def test_the_final_check_fails_a_forged_tree_whose_import_time_finalizer_fails_the_process(tmp_path, executor):
    """The premise (honest plain pytest fails the tree: exit status 3 at the interpreter's end), then the same tree
    with atk15's ``FORGE`` must fail the final check."""
    honest = _final(tmp_path / "honest", _POOL_EXITS)
    if honest.plain.passed:
        pytest.fail(f"premise: honest plain pytest passed the tree: {honest.plain.output}")
    forged = _final(tmp_path / "forged", FORGE + _POOL_EXITS)
    assert not forged.passed, (honest.judged.passed, forged.judged.output, forged.plain.output)


# name -> (the tree's package, the harness's test, plain pytest's verdict[, more files])
HELD: dict[str, tuple] = {
    # the driver's decimal context travels with the observation (judge ``_Under``): the tree's precision is the judge's
    "decimal_context_the_tree_set": ("import decimal\n\n\ndef f():\n    r = decimal.Decimal(1) / decimal.Decimal(3)\n"
                                     "    decimal.getcontext().prec = 6\n    return r\n",
                                     "from decimal import Decimal\nfrom pkg import f\n\n\ndef test_f():\n"
                                     "    assert f() == Decimal(1) / Decimal(3)\n", False),
    # a datetime method bound to a module constant is no expectation the judge computes (the tree's time zone)
    "fromtimestamp_bound_to_a_constant": ("import datetime\nimport os\nimport time\n\n\ndef f(ts):\n"
                                          "    os.environ['TZ'] = 'XXX-9'\n    time.tzset()\n"
                                          "    return datetime.datetime.utcfromtimestamp(ts)\n",
                                          "import datetime\nfrom pkg import f\n\nFROM = datetime.datetime.fromtimestamp"
                                          "\n\n\ndef test_f():\n    assert f(0) == FROM(0)\n", False),
    # the same alias read by .encode: a leaf (BUILTIN_CODECS), observed in the driver, whose registry is the tree's
    "codec_alias_of_the_tree_in_an_encode_call": (_CODEC_ALIAS, "from pkg import f\n\n\ndef test_f():\n    assert f() == 1\n"
                                                  "    assert '\\u00e9'.encode('windows-1252') == b'\\xe9'\n", False),
    # a module-scoped fixture's teardown runs after the canary: a stray observation, checked as <module>
    "module_fixture_teardown_assert_after_the_canary": (
        "class Conn:\n    def get(self):\n        return 1\n\n    def close(self):\n        return False\n",
        "import pytest\nfrom pkg import Conn\n\n\n@pytest.fixture(scope='module')\ndef conn():\n    c = Conn()\n"
        "    yield c\n    assert c.close() is None\n\n\ndef test_f(conn):\n    assert conn.get() == 1\n", False),
    # the tree's tests package's own modules, imported by the harness's test, cross (_own_submodule binds only its own)
    "tests_package_helpers_imported_by_the_test": (
        "def f():\n    return 1\n",
        "from tests.helpers import one\nfrom . import helpers\nfrom pkg import f\n\n\ndef test_f():\n"
        "    assert f() == one() == helpers.one()\n", True,
        {"tests/__init__.py": "", "tests/helpers.py": "def one():\n    return 1\n"}),
    # trusted_file resolves the interpreter's directories once a process: they are read-only in the sandbox (EROFS),
    # so no tree can replace one by a link after its resolution
    "interpreter_directories_are_read_only": (
        "import errno\nimport os\nimport sysconfig\n\n\ndef f():\n"
        "    for k in ('stdlib', 'platstdlib', 'purelib', 'platlib'):\n"
        "        p = os.path.join(sysconfig.get_paths()[k], 'zz_atk16')\n        try:\n            os.mkdir(p)\n"
        "        except OSError as e:\n            if e.errno != errno.EROFS:\n                return 0\n"
        "        else:\n            os.rmdir(p)\n            return 0\n    return 1\n", T, True),
}


@pytest.mark.parametrize("name", sorted(HELD))
def test_the_judge_reads_the_decimal_context_a_bound_method_a_late_teardown_and_the_tests_package_as_plain_pytest(
        tmp_path, executor, name):
    module, test, plain_passes, *files = HELD[name]
    _judged_as_plain(tmp_path, (module, test, *files), plain_passes=plain_passes)
