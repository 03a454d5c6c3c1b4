"""``harness.cli.cli.LAZY_COMMANDS``: the commands of the analysis stage, the corpus, the viewer and
Inspect interop load when used, so ``harness run`` (and every ``--resume``) starts without pandas,
scipy or statsmodels, while ``harness --help`` and each command behave as when they were imported
at start-up."""
from __future__ import annotations

import subprocess
import sys

import click
import pytest
from click.testing import CliRunner

import analysis.cli
import corpus.cli
import interop.cli
import viewer.cli
from harness.cli.cli import LAZY_COMMANDS, main
from support.scripted import REPO

HEAVY = ("pandas", "scipy", "statsmodels", "numpy", "pyarrow", "matplotlib", "analysis", "corpus", "viewer", "interop")


def test_resolving_run_imports_nothing_of_the_analysis_stack():
    code = ("import sys, click\nimport harness.cli.cli as c\n"
            "c.main.get_command(click.Context(c.main), 'run')\n"
            "print(' '.join(sorted({m.split('.')[0] for m in sys.modules})))")
    out = subprocess.run([sys.executable, "-c", code], cwd=REPO, capture_output=True, text=True, check=True)
    assert set(out.stdout.split()) & set(HEAVY) == set()


def test_the_lazy_table_names_every_command_the_packages_register():
    """Each package's ``register`` is its own list of top-level commands; the table must not miss one."""
    group = click.Group()
    for package in (analysis.cli, corpus.cli, viewer.cli, interop.cli):
        package.register(group)
    assert set(group.commands) == set(LAZY_COMMANDS)


def test_every_lazy_command_loads_under_its_name_with_the_harness_additions():
    ctx = click.Context(main)
    for name in LAZY_COMMANDS:
        assert main.get_command(ctx, name).name == name
    assert "bounded-loops" in main.get_command(ctx, "reproduce").commands
    assert "reviewer" in main.get_command(ctx, "corpus").commands


def test_help_lists_every_command_and_a_lazy_one_runs():
    listed = CliRunner().invoke(main, ["--help"]).output
    assert all(f"\n  {name} " in listed for name in [*LAZY_COMMANDS, "run", "plan"])
    assert "paper" in CliRunner().invoke(main, ["reproduce", "--help"]).output


SIGNALS_ON_IMPORT = "import os, signal, time\nos.kill(os.getpid(), signal.SIGINT)\ntime.sleep(5)\n"


@pytest.mark.parametrize("ref", ["signals_on_import:cmd", "a_factory:make"], ids=["module", "factory"])
def test_a_signal_while_a_lazy_command_imports_is_the_start_up_line_and_exit_4(tmp_path, ref):
    """The lazy import is part of start-up (``harness.cli.startup``): a Ctrl-C there is one STOPPED
    line and exit 4, not click's "Aborted!" and exit 1. The command's module signals itself on
    import, directly or from a factory (red team r27: ``reproduce`` and ``corpus`` are factories,
    ``reproduce_group`` and ``corpus_with_reviewer``, whose heavy import runs when called, and the
    factory was called after the guard ended)."""
    (tmp_path / "signals_on_import.py").write_text(SIGNALS_ON_IMPORT)
    (tmp_path / "a_factory.py").write_text("def make():\n    import signals_on_import  # noqa\n")
    code = ("import sys\nfrom harness.cli.cli import LAZY_COMMANDS, main\n"
            f"LAZY_COMMANDS['slow'] = {ref!r}\nmain(['slow'])")
    env = {"PYTHONPATH": f"{tmp_path}:{REPO}", "PATH": "/usr/bin:/bin"}
    r = subprocess.run([sys.executable, "-c", code], cwd=REPO, env=env, capture_output=True, text=True, timeout=120)
    assert r.returncode == 4, r.stderr
    assert r.stderr.startswith("STOPPED: SIGINT while the harness was starting") and "Traceback" not in r.stderr


_BROKEN = ("import sys\nfrom harness.cli.cli import LAZY_COMMANDS, main\n"
           "LAZY_COMMANDS['broken'] = 'broken_on_import:cmd'\nmain(sys.argv[1:])")


def _with_a_broken_command(tmp_path, *args: str) -> subprocess.CompletedProcess:
    """``harness ARGS`` with one more lazy command, whose module fails to import (a dependency
    missing from a partial install)."""
    (tmp_path / "broken_on_import.py").write_text("import a_dependency_that_is_not_installed\n")
    env = {"PYTHONPATH": f"{tmp_path}:{REPO}", "PATH": "/usr/bin:/bin"}
    return subprocess.run([sys.executable, "-c", _BROKEN, *args], cwd=REPO, env=env, capture_output=True,
                          text=True, timeout=120)


def test_a_lazy_command_that_cannot_import_is_one_line_and_exit_2(tmp_path):
    """Red team (r27): it was an ImportError traceback, exit 1, for the command and for its --help."""
    for args in (["broken"], ["broken", "--help"], ["broken", "--an-option", "x"]):
        r = _with_a_broken_command(tmp_path, *args)
        assert r.returncode == 2, (args, r.stderr)
        assert r.stderr.count("\n") == 1 and "Traceback" not in r.stderr, r.stderr
        assert "harness broken cannot be loaded" in r.stderr and "a_dependency_that_is_not_installed" in r.stderr


def test_one_broken_lazy_command_leaves_help_and_completion_of_the_others(tmp_path):
    """Red team (r27): ``harness --help`` loads every command to list it, so one broken import was a
    traceback instead of the help; it now lists the others and says why the broken one is out."""
    r = _with_a_broken_command(tmp_path, "--help")
    assert r.returncode == 0 and "Traceback" not in r.stderr, r.stderr
    assert "\n  run " in r.stdout and "\n  analyze " in r.stdout
    assert "\n  broken " in r.stdout and "(cannot be loaded" in r.stdout
    (tmp_path / "broken_on_import.py").write_text("import a_dependency_that_is_not_installed\n")
    env = {"PYTHONPATH": f"{tmp_path}:{REPO}", "PATH": "/usr/bin:/bin", "_CLI_COMPLETE": "bash_complete",
           "COMP_WORDS": "cli ", "COMP_CWORD": "1"}
    c = subprocess.run([sys.executable, "-c", _BROKEN.replace("main(sys.argv[1:])", "main(prog_name='cli')")],
                       cwd=REPO, env=env, capture_output=True, text=True, timeout=120)
    assert "Traceback" not in c.stderr and "plain,analyze" in c.stdout and "plain,run" in c.stdout, c.stderr


def test_a_sigint_the_parent_ignores_stays_ignored_while_a_lazy_command_imports(tmp_path):
    """Red team (r27), held: under ``nohup`` (SIGINT ignored) the guard leaves SIGINT ignored during
    the lazy import, so a SIGINT meant for the parent neither stops the harness nor prints STOPPED."""
    (tmp_path / "signals_on_import.py").write_text(
        "import os, signal, click\nos.kill(os.getpid(), signal.SIGINT)\n"
        "cmd = click.Command('slow', callback=lambda: click.echo('ran'))\n")
    code = ("import signal\nsignal.signal(signal.SIGINT, signal.SIG_IGN)\n"
            "from harness.cli.cli import LAZY_COMMANDS, main\n"
            "LAZY_COMMANDS['slow'] = 'signals_on_import:cmd'\nmain(['slow'])")
    env = {"PYTHONPATH": f"{tmp_path}:{REPO}", "PATH": "/usr/bin:/bin"}
    r = subprocess.run([sys.executable, "-c", code], cwd=REPO, env=env, capture_output=True, text=True, timeout=120)
    assert (r.returncode, r.stdout, r.stderr) == (0, "ran\n", "")


def test_a_lazy_command_loads_from_a_thread_that_cannot_set_signal_handlers():
    """Red team (r27), held: CliRunner on a worker thread (an embedding caller): the guard is skipped
    (``signal.signal`` works on the main thread only) and the command still loads and runs."""
    code = ("import threading\nfrom click.testing import CliRunner\nfrom harness.cli.cli import main\nout = []\n"
            "t = threading.Thread(target=lambda: out.append(CliRunner().invoke(main, ['reproduce', '--help'])))\n"
            "t.start(); t.join()\nprint(out[0].exit_code, out[0].exception, 'bounded-loops' in out[0].output)")
    r = subprocess.run([sys.executable, "-c", code], cwd=REPO, capture_output=True, text=True, timeout=120)
    assert r.stdout.split() == ["0", "None", "True"], r.stderr
