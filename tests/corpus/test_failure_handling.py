"""`harness corpus measure` when things go wrong or the user takes the obvious path: a `.py` artifact
is code by default; a control that cannot be judged stops the gate's mutants; mutant timeouts come
from the control's own time; Ctrl-C keeps what it reached and says how to resume (exit 130); a
gate's hostile output is escaped in CSV and HTML; a missing required tool fails --fail-on-vacuous;
an unreachable --bound upper is refused with the n it needs."""
from __future__ import annotations

import csv
import json
from pathlib import Path

import pytest
from click.testing import CliRunner
from statsmodels.stats.proportion import proportion_confint

import corpus.measure as measure_mod
from corpus.cli import EXIT_INTERRUPTED, wilson_n_needed
from corpus.gates import load_gate
from corpus.measure import derive_timeout
from corpus.text import escape_controls

EX = Path(__file__).resolve().parents[2] / "corpus" / "examples" / "ci-verdicts"
CALC = "def add(a, b):\n    return a + b\n\n\ndef sign(x):\n    if x < 0:\n        return -1\n    return 1\n"
TESTS = ("from calc import add, sign\n\n\ndef test_add():\n    assert add(2, 3) == 5\n\n\n"
         "def test_sign():\n    assert sign(-4) == -1\n")




def _calc(tmp_path: Path) -> tuple[Path, Path]:
    """A two-function module, its suite and a pytest gate over it."""
    (tmp_path / "calc.py").write_text(CALC)
    (tmp_path / "tests").mkdir()
    (tmp_path / "tests" / "test_calc.py").write_text(TESTS)
    gate = tmp_path / "gate.toml"
    gate.write_text('[gate]\nname = "calc-suite"\nkind = "pytest"\ntests = "tests"\ntimeout_s = 60\n')
    return gate, tmp_path / "calc.py"


def _command_gate(tmp_path: Path, name: str, code: str, extra: str = "") -> Path:
    script = tmp_path / f"{name}.py"
    script.write_text(code)
    gate = tmp_path / f"{name}.toml"
    gate.write_text(f'[gate]\nname = "{name}"\nkind = "command"\n{extra}'
                    f'argv = ["{{python}}", "{script}", "{{artifact}}"]\n')
    return gate


def _run(cli, *args):
    r = CliRunner().invoke(cli, ["corpus", "measure", *map(str, args)])
    assert "Traceback" not in r.output, r.output
    return r


def test_py_artifact_is_code_by_default(cli, tmp_path):
    gate, art = _calc(tmp_path)
    r = _run(cli, "--gate", gate, "--artifact", art, "--family", "fine", "--out", tmp_path / "o", "--quiet")
    assert r.exit_code == 0, r.output
    s = json.loads((tmp_path / "o" / "summary.json").read_text())
    assert s["gates"][0]["all"]["destroying_judged"] > 0
    assert not [e for e in s["exclusions"] if e["scope"] == "fine"]
    # an explicit role in the hints still wins: a test-suite rule is not the module's behaviour
    hints = tmp_path / "hints.toml"
    hints.write_text('[artifact]\nrole = "tests"\n')
    r = _run(cli, "--gate", gate, "--artifact", art, "--hints", hints, "--family", "fine",
             "--out", tmp_path / "o2", "--quiet")
    s = json.loads((tmp_path / "o2" / "summary.json").read_text())
    assert [e for e in s["exclusions"] if e["scope"] == "fine"]


def test_control_incapacity_stops_judging(cli, tmp_path):
    r = _run(cli, "--gate", EX / "hangs.toml", "--artifact", EX / "report.json", "--out", tmp_path / "o",
             "--quiet")
    assert r.exit_code == 1 and "nothing measured" in r.output, r.output  # issue 35: its control never passed
    assert "JUDGING STOPPED" in r.output and "timeout after 1s" in r.output
    rows = list(csv.DictReader((tmp_path / "o" / "judgments.csv").open()))
    mutants = [x for x in rows if x["family"] != "control"]
    assert mutants and {x["verdict"] for x in mutants} == {"skipped"}
    assert all("control could not be judged" in x["reason"] for x in mutants)
    g = json.loads((tmp_path / "o" / "summary.json").read_text())["gates"][0]
    assert g["all"]["skipped"] == len(mutants) and g["all"]["destroying_judged"] == 0
    assert g["never_judges"] and g["all"]["false_accept"]["rate"] is None    # n/a, never 0


def test_timeout_derived_from_control(tmp_path, cli):
    gate = load_gate(_command_gate(tmp_path, "g", "import sys\nsys.exit(0)\n", "timeout_s = 60\n"))
    t = derive_timeout(gate, 0.5)
    assert gate.timeout_s == t["timeout_s"] == 10.0 and "control 0.50s" in t["basis"]
    derive_timeout(gate, 30.0)
    assert gate.timeout_s == 60.0                      # never above the declared timeout
    # end to end: the emptied artifact makes this gate hang; it is stopped at the derived timeout
    hang = _command_gate(tmp_path, "hang", "import sys, time\nif not open(sys.argv[1]).read():\n"
                         "    time.sleep(120)\nsys.exit(0)\n", "timeout_s = 120\n")
    r = _run(cli, "--gate", hang, "--artifact", EX / "report.json", "--out", tmp_path / "o", "--quiet")
    assert r.exit_code == 0, r.output
    g = json.loads((tmp_path / "o" / "summary.json").read_text())["gates"][0]
    assert g["timeout"]["timeout_s"] < 120
    rows = {x["mutant"]: x for x in csv.DictReader((tmp_path / "o" / "judgments.csv").open())}
    empty = rows["user:report.json/v1/empty/0"]
    assert empty["verdict"] == "incapacity" and f"timeout after {g['timeout']['timeout_s']:g}s" in empty["reason"]


def test_ctrl_c_keeps_judgments_and_prints_resume(cli, tmp_path, monkeypatch):
    calls = [0]
    real = measure_mod.judge

    def judge(*a, **kw):
        calls[0] += 1
        if calls[0] == 4:
            raise KeyboardInterrupt
        return real(*a, **kw)

    monkeypatch.setattr(measure_mod, "judge", judge)
    args = ["--gate", EX / "sound.toml", "--artifact", EX / "report.json", "--out", tmp_path / "o",
            "--workers", "1", "--quiet"]
    r = _run(cli, *args)
    assert r.exit_code == EXIT_INTERRUPTED == 130, r.output
    assert "interrupted: 3 judgments kept" in r.output and "resume with:" in r.output
    assert f"corpus measure --gate {EX / 'sound.toml'}" in r.output
    monkeypatch.setattr(measure_mod, "judge", real)
    r = _run(cli, *args)
    assert r.exit_code == 0 and "resumed 3 judgments" in r.output, r.output


def test_hostile_gate_output_is_escaped(cli, tmp_path):
    gate = _command_gate(tmp_path, "noisy", "import sys\nprint('\\x00\\x1b[31mRED\\x1b[0m\\x07\\r\\u202eevil')\n"
                                            "sys.exit(1)\n")
    _run(cli, "--gate", gate, "--artifact", EX / "report.json", "--out", tmp_path / "o", "--quiet")
    for f in [tmp_path / "o" / "judgments.csv", tmp_path / "o" / "summary.json",
              *(tmp_path / "o" / "html").glob("*.html")]:
        text = f.read_text(encoding="utf-8")
        for bad in ("\x00", "\x1b", "\x07", "\u202e"):
            assert bad not in text, (f.name, bad)
    assert "\\x1b[31mRED" in (tmp_path / "o" / "judgments.csv").read_text()
    assert escape_controls("a\x00b\tc\nd\x9b\ufeff") == "a\\x00b\tc\nd\\x9b\\ufeff"
    assert escape_controls(escape_controls("\x1b")) == "\\x1b"      # idempotent


def test_missing_required_tool_fails_ci(cli, tmp_path):
    gate = tmp_path / "ext.toml"
    gate.write_text('[gate]\nname = "ext"\nkind = "external"\nrequires = ["no-such-analyser-xyz"]\n'
                    'argv = ["no-such-analyser-xyz", "{artifact}"]\n')
    args = ["--gate", gate, "--artifact", EX / "report.json", "--out", tmp_path / "o", "--quiet"]
    r = _run(cli, *args)  # no CI check asked for, but the control could not run: nothing measured (issue 35)
    assert r.exit_code == 1 and "nothing measured" in r.output, r.output
    r = _run(cli, *args, "--fail-on-vacuous")
    assert r.exit_code == 1 and "required tool no-such-analyser-xyz not found" in r.output, r.output
    assert "<failure" in (tmp_path / "o" / "junit.xml").read_text()


def test_bound_upper_refuses_unreachable_n(cli, tmp_path):
    r = _run(cli, "--gate", EX / "sound.toml", "--artifact", EX / "report.json", "--out", tmp_path / "o",
             "--max-false-accept", "0.05", "--bound", "upper", "--quiet")
    assert r.exit_code == 2 and "needs n >= 73" in r.output, r.output
    assert not (tmp_path / "o" / "judgments.csv").exists()              # refused before judging


@pytest.mark.parametrize("rate", [0.01, 0.05, 0.1, 0.18, 0.3, 0.5, 0.9])
def test_n_needed_against_statsmodels(rate):
    n = wilson_n_needed(rate)
    assert proportion_confint(0, n, alpha=0.05, method="wilson")[1] <= rate
    assert n == 1 or proportion_confint(0, n - 1, alpha=0.05, method="wilson")[1] > rate
    assert wilson_n_needed(0.18) == 18 and wilson_n_needed(0.0) is None   # issue 26: n <= 17 fails at 18%


def test_a_control_that_timed_out_is_judged_again_next_run(cli, tmp_path):
    args = ["--gate", EX / "hangs.toml", "--artifact", EX / "report.json", "--out", tmp_path / "o"]
    _run(cli, *args, "--quiet")
    r = _run(cli, *args)
    assert "0 unchanged" in r.output and "JUDGING STOPPED" in r.output, r.output    # not served from the cache
