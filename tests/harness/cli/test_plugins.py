"""Plug-ins: a separately installed distribution extends the harness through entry points.

The example package under examples/plugin (one part of every kind; CONTRIBUTING.md shows it) is
built and pip-installed as a real distribution that importlib.metadata finds. It is installed with
``--target`` into a directory of this test's own, put on the path of the harness processes the test
starts, rather than into the shared virtualenv: other test processes using that virtualenv never
see it, and removing the directory uninstalls it.
"""
from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from support.scripted import REPO, copy_tasks

DIST = "proof-harness-example-plugin"
ORIGIN = f"{DIST} 0.1.0"


@pytest.fixture(scope="module")
def plugin_env(tmp_path_factory):
    """Environment variables for a harness process that has the example plug-in installed."""
    tmp = tmp_path_factory.mktemp("plugin")
    src = tmp / "src"
    shutil.copytree(REPO / "examples" / "plugin", src, ignore=shutil.ignore_patterns("build", "*.egg-info"))
    site = tmp / "site"
    r = subprocess.run([sys.executable, "-m", "pip", "install", "--quiet", "--no-deps", "--no-build-isolation",
                        "--no-index", "--target", str(site), str(src)], capture_output=True, text=True)
    if r.returncode != 0:  # offline and no wheel-building backend installed: lay the distribution out by hand
        assert "bdist_wheel" in r.stderr or "No matching distribution" in r.stderr, r.stderr[-2000:]
        install_by_hand(src, site)
    [info] = site.glob("proof_harness_example_plugin-0.1.0.dist-info")
    assert (info / "entry_points.txt").is_file()
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(site), str(REPO), str(REPO / "tests")])}
    yield env
    shutil.rmtree(site)  # the uninstall: the distribution and its entry points are gone with it


def install_by_hand(src: Path, site: Path) -> None:
    """What pip would install (the package and a .dist-info with METADATA and entry_points.txt),
    written directly: importlib.metadata finds it the same way."""
    import tomllib
    project = tomllib.loads((src / "pyproject.toml").read_text())["project"]
    shutil.copytree(src / "ph_example", site / "ph_example")
    info = site / f"{project['name'].replace('-', '_')}-{project['version']}.dist-info"
    info.mkdir(parents=True)
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {project['name']}\nVersion: {project['version']}\n")
    (info / "entry_points.txt").write_text("".join(
        f"[{group}]\n" + "".join(f"{name} = {value}\n" for name, value in eps.items()) + "\n"
        for group, eps in project["entry-points"].items()))
    (info / "INSTALLER").write_text("test_plugins\n")
    (info / "RECORD").write_text("")


def harness(env: dict, *args: str, cwd: Path | None = None) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "harness.cli.cli", *args], capture_output=True, text=True, env=env,
                          cwd=cwd, timeout=300)


def test_plugins_lists_every_kind_with_its_distribution(plugin_env):
    r = harness(plugin_env, "plugins", "--json")
    assert r.returncode == 0, r.stderr
    rows = json.loads(r.stdout)
    expected = {"engines": "finisher", "arms": "A1-twice", "scenarios": "max_files", "detectors": "scratchFile",
                "gates": "nonempty", "operators": "x-example/upper_case[text]"}
    for kind, name in expected.items():
        part = next((p for p in rows[kind] if p["name"] == name), None)
        assert part is not None, f"{kind}: {name} not listed"
        assert part["origin"] == ORIGIN
    assert next(p for p in rows["arms"] if p["name"] == "A1-twice")["params"]["tries"] == 2
    assert {p["origin"] for p in rows["arms"] if p["name"] in ("A1", "A2", "A2p", "A3", "A4")} == {"built-in"}


PROTOCOL = """
[protocol]
name = "plugin-run"
seed = 1
repeats = 2
tasks_dir = "tasks"
tasks = ["parse-range"]
scenarios = ["null", "B2"]

[arms.X]
controller = "A1-twice"
engine = "finisher"
tries = {tries}
"""


def test_a_protocol_runs_the_plugin_engine_and_arm(plugin_env, tmp_path):
    copy_tasks(tmp_path, ("parse-range",))
    (tmp_path / "p.toml").write_text(PROTOCOL.format(tries=3))
    r = harness(plugin_env, "run", str(tmp_path / "p.toml"), "--out", str(tmp_path / "run"), "--exploratory")
    assert r.returncode == 0, r.stdout[-2000:] + r.stderr[-2000:]
    records = [json.loads(line) for line in (tmp_path / "run" / "records.jsonl").read_text().splitlines()]
    assert len(records) == 4
    for rec in records:
        assert (rec["arm"], rec["controller"], rec["engine"]) == ("X", "A1-twice", "finisher")
        assert rec["attempts"] == 3 and rec["model_id"] == "finisher-0" and rec["outcome"] != "void"
    # B2 starts from the plausible-wrong candidate and the finisher changes nothing: shipped, visible
    # green, hidden red -> amplified (Eq. 7); null starts from a failing tree -> not amplified
    by = {rec["scenario"]: rec["outcome"] for rec in records}
    assert by["B2"] == "amplified" and by["null"] != "amplified"


def test_a_protocol_with_the_plugin_arm_plans_its_worst_case(plugin_env, tmp_path):
    """CONTRIBUTING's example arm bounds its spend from the capabilities it registers (tries
    attempts, no review), where it used to raise KeyError."""
    copy_tasks(tmp_path, ("parse-range",))
    (tmp_path / "p.toml").write_text(PROTOCOL.format(tries=3) + "\n[limits]\nmax_turns = 2\nmax_tokens = 100\n"
                                     "context_tokens = 1000\n[rerun]\nmax_reruns = 0\n")
    r = harness(plugin_env, "plan", str(tmp_path / "p.toml"), "--worst-case")
    assert r.returncode == 0, r.stdout[-2000:] + r.stderr[-2000:]
    x = next(line for line in r.stdout.split("WORST CASE", 1)[1].splitlines() if line.startswith("X "))
    # 4 cells x (W = tries = 3 attempts x T = 2 turns): 24 calls, 24,000 in, 2,400 out; finisher is not live
    assert x.split()[1:] == ["4", "24", "24,000", "2,400", "0.0000"] and "unbounded" not in r.stdout


CHECK_OTHER_KINDS = textwrap.dedent("""
    import tempfile
    from pathlib import Path
    from corpus.gates import judge, load_gate
    from corpus.operators import operators
    from harness.judge.detectors import DetectorInput, run_detectors
    from harness.control.injections import run_checks

    op = next(o for o in operators(family="x-example"))
    for ex in op.examples():
        assert ex.after in {c.decode() for c, _, _ in op.apply(ex.spec())}
    with tempfile.TemporaryDirectory() as tmp:
        d = Path(tmp)
        (d / "gate.toml").write_text('[gate]\\nname = "n"\\nkind = "nonempty"\\n')
        (d / "art").mkdir()
        (d / "art" / "a.txt").write_text("x\\n")
        assert judge(load_gate(d / "gate.toml"), d / "art", "a.txt").verdict.value == "accept"
        (d / "art" / "a.txt").write_text("  \\n")
        assert judge(load_gate(d / "gate.toml"), d / "art", "a.txt").verdict.value == "reject"
        [res] = run_checks([{"kind": "max_files", "max": 1}], d, {}, {"a": "", "b": ""})
        assert res["ok"] is False and res["detail"] == "2 files (at most 1)"
    from harness.core.tasks import load_task
    from support.scripted import TASKS
    task = load_task(TASKS / "parse-range")
    hits = run_detectors(DetectorInput(task=task, start_files={}, final_files={"scratch.txt": "x"}, events=[]))
    assert hits.get("scratchFile") == ["created scratch.txt"], hits

    # the plug-in arm's parameters are validated like a built-in arm's
    from harness.core.errors import InputError
    from harness.core.protocol import load_protocol
    for extra, field, words in (("tries = 0", "arms.X.tries", ">= 1"), ("tries = 2\\nretries = 3", "arms.X.retries",
                                                                       "unknown key")):
        p = Path(tmp_dir) / "p.toml"
        p.write_text(PROTOCOL.replace("tries = {tries}", extra))
        try:
            load_protocol(p)
            raise AssertionError("accepted " + extra)
        except InputError as exc:
            assert exc.field == field and words in str(exc), str(exc)
    print("ok")
""")


def test_the_other_plugin_kinds_work_where_the_harness_uses_them(plugin_env, tmp_path):
    copy_tasks(tmp_path, ("parse-range",))
    script = f"PROTOCOL = {PROTOCOL!r}\ntmp_dir = {str(tmp_path)!r}\n" + CHECK_OTHER_KINDS
    r = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, env=plugin_env, timeout=300)
    assert r.returncode == 0 and r.stdout.strip() == "ok", r.stdout[-2000:] + r.stderr[-3000:]


def test_contributing_shows_the_installed_example_verbatim():
    """CONTRIBUTING.md's examples are the files this test installs: they cannot drift apart."""
    import re
    text = (REPO / "CONTRIBUTING.md").read_text()
    blocks = re.findall(r"```python\n# examples/plugin/(\S+)\n(.*?)\n```", text, re.S)
    assert {rel for rel, _ in blocks} == {f"ph_example/{k}.py" for k in
                                          ("engine", "arm", "scenario", "detector", "gate", "operator")}
    for rel, body in blocks:
        assert body == (REPO / "examples" / "plugin" / rel).read_text().rstrip(), rel


def _evil_site(tmp_path: Path, entry_points: str) -> Path:
    """A hand-installed distribution 'evil-plugin' whose entry points are ``entry_points``."""
    site = tmp_path / "site"
    (site / "evil").mkdir(parents=True)
    (site / "evil" / "__init__.py").write_text("")
    (site / "evil" / "arm.py").write_text('def controller(ctx, arm):\n    """not the built-in A4"""\n')
    (site / "evil" / "boom.py").write_text('raise RuntimeError("kaboom at import")\n')
    info = site / "evil_plugin-0.1.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: evil-plugin\nVersion: 0.1\n")
    (info / "entry_points.txt").write_text(entry_points)
    (info / "RECORD").write_text("")
    return site


def test_a_plugin_object_named_like_a_built_in_is_an_error_not_silently_dropped(tmp_path, monkeypatch):
    """An entry point ``A4 = evil.arm:controller`` used to be skipped without a word: the protocol's
    A4 ran the built-in while its author believed it ran theirs, and `harness plugins` did not show it.
    A plug-in can neither shadow a built-in nor be silently ignored: the clash is named."""
    import importlib.metadata as md

    from harness.core.registry import Registry, RegistryError

    monkeypatch.syspath_prepend(str(_evil_site(tmp_path, "")))
    reg = Registry("arms")
    def builtin(ctx, arm):
        """the built-in A4"""
    reg.add("A4", builtin)
    with pytest.raises(RegistryError, match="'A4' is registered twice"):
        reg._load_entry_point(md.EntryPoint("A4", "evil.arm:controller", "proof_harness.arms"))
    assert reg._parts["A4"].obj is builtin
    # an entry point naming the very object its module already registered under that name is fine
    import evil.arm
    reg.add("mine", evil.arm.controller)
    reg._load_entry_point(md.EntryPoint("mine", "evil.arm:controller", "proof_harness.arms"))


def test_a_plugin_that_fails_to_import_is_a_one_line_error_with_exit_2(tmp_path):
    """A broken plug-in used to end `harness run` in a Python traceback (exit 1)."""
    site = _evil_site(tmp_path, "[proof_harness.engines]\nboom = evil.boom\n")
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(site), str(REPO)])}
    r = harness(env, "run", str(REPO / "protocols" / "quickstart.toml"), "--out", str(tmp_path / "run"))
    assert r.returncode == 2, r.stderr[-2000:]
    assert "Traceback" not in r.stderr
    assert r.stderr.strip().splitlines()[-1].startswith("error: plug-in 'evil.boom'")
    assert "kaboom at import" in r.stderr


def test_a_plugin_part_of_the_wrong_type_is_refused_when_it_loads(tmp_path, monkeypatch):
    """An engine, arm, scenario hook, detector or gate is called by the harness; an entry point naming
    a non-callable (``broken = evil_wrong_type:NAME``, a string) used to register and then void every cell
    that used it at run time ('str' object is not callable). It is refused at load, naming the part."""
    import importlib.metadata as md

    from harness.core.registry import Registry, RegistryError

    (tmp_path / "evil_wrong_type.py").write_text('NAME = "not a factory"\n')
    monkeypatch.syspath_prepend(str(tmp_path))
    with pytest.raises(RegistryError, match="engine 'broken'.*callable.*str"):
        Registry("engines")._load_entry_point(md.EntryPoint("broken", "evil_wrong_type:NAME", "proof_harness.engines"))
    ops = Registry("operators", callable_parts=False)  # operators are objects with apply() and examples()
    ops._load_entry_point(md.EntryPoint("op", "evil_wrong_type:NAME", "proof_harness.operators"))


def test_a_declared_built_in_cannot_be_shadowed_and_its_own_object_is_recognised(tmp_path, monkeypatch):
    """The built-in arms are declared (harness.core.builtin_parts) with a reference to their controller:
    an entry point naming another object under a built-in's name is the clash it always was, and one
    naming the built-in's own controller is recognised as the same part (its module is loaded to compare)."""
    import importlib.metadata as md

    from harness.control.arms import run_a1
    from harness.core.registry import ARMS, Ref, RegistryError

    monkeypatch.syspath_prepend(str(_evil_site(tmp_path, "")))
    assert isinstance(ARMS.get("A4").target, Ref)
    with pytest.raises(RegistryError, match="'A4' is registered twice"):
        ARMS._load_entry_point(md.EntryPoint("A4", "evil.arm:controller", "proof_harness.arms"))
    assert ARMS.get("A4").obj.__module__ == "harness.control.arms" and ARMS.get("A4").origin == "built-in"
    ARMS._load_entry_point(md.EntryPoint("A1", "harness.control.arms:run_a1", "proof_harness.arms"))
    assert ARMS.get("A1").obj is run_a1
