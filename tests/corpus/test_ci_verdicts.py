"""CI verdicts of `harness corpus measure`: --fail-on-vacuous fails gates that never judge or cannot
accept their own conforming artifact, and self-attesting gates; --max-false-accept with --bound;
exit codes 0 / 1 / 2."""
import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from corpus.measure import ci_failures, gate_failures

EX = Path(__file__).resolve().parents[2] / "corpus" / "examples" / "ci-verdicts"




def measure(cli, tmp_path, gate, *flags, families=("v1",)):
    args = ["corpus", "measure", "--gate", str(EX / gate), "--artifact", str(EX / "report.json"),
            "--out", str(tmp_path / gate), "--quiet", *[a for f in families for a in ("--family", f)], *flags]
    r = CliRunner().invoke(cli, args)
    assert "Traceback" not in r.output
    return r


@pytest.mark.parametrize("gate,why", [("never_judges.toml", "never judges"), ("hangs.toml", "never judges"),
                                      ("rejects_everything.toml", "cannot accept its own conforming artifact")])
def test_gates_that_cannot_accept_fail_ci(cli, tmp_path, gate, why):
    if gate == "never_judges.toml":  # no CI check asked for: still exit 1, nothing was measured (issue 35)
        r = measure(cli, tmp_path, gate)
        assert r.exit_code == 1 and "nothing measured" in r.output, r.output
    r = measure(cli, tmp_path, gate, "--fail-on-vacuous")
    assert r.exit_code == 1 and why in r.output, r.output
    case = (tmp_path / gate / "junit.xml").read_text()
    assert "<failure" in case and why in case


def test_self_attesting_gate(cli, tmp_path):
    r = measure(cli, tmp_path, "self_attesting.toml", "--fail-on-vacuous", families=("v2",))
    assert r.exit_code == 1 and "self-attesting" in r.output
    g = json.loads((tmp_path / "self_attesting.toml" / "summary.json").read_text())["gates"][0]
    sa = g["vacuity"]["self-attestation"]
    assert sa["verdict"] == "self-attesting" and sa["proved_by"] == ["user:report.json/v2/self_attestation/0"]
    r = measure(cli, tmp_path, "sound.toml", "--fail-on-vacuous", families=("v1", "v2"))
    assert r.exit_code == 0, r.output
    g = json.loads((tmp_path / "sound.toml" / "summary.json").read_text())["gates"][0]
    assert g["vacuity"]["self-attestation"]["verdict"] == "not vacuous"


def _gate(k, n, control="accept"):
    from harness.core.wilson import wilson
    p = wilson(k, n)
    return {"loop": "l", "gate": "g", "status": "current", "control_verdict": control, "control_reason": "",
            "never_judges": False, "vacuous": False,
            "vacuity": {c: {"verdict": "not vacuous", "proved_by": []} for c in ("absence", "hollowing", "self-attestation")},
            "all": {"false_accept": {**p.as_dict(), "fmt": p.fmt()}}}


def test_max_false_accept_point_and_upper_bound():
    g = _gate(1, 40)                                   # 2.5%, Wilson 95% upper bound 12.9%
    assert gate_failures(g, vacuity_fails=False, max_false_accept=0.05) == []
    fails = gate_failures(g, vacuity_fails=False, max_false_accept=0.05, bound="upper")
    assert len(fails) == 1 and "upper bound" in fails[0] and "1/40" in fails[0]
    assert gate_failures(g, vacuity_fails=False, max_false_accept=0.02)
    na = gate_failures(_gate(0, 0), vacuity_fails=False, max_false_accept=0.5)
    assert na and "n/a" in na[0]
    planted = {"gates": [{**_gate(30, 40), "status": "planted"}]}
    assert ci_failures(planted, max_false_accept=0.0) == []       # defective on purpose


def test_max_false_accept_on_the_command_line(cli, tmp_path):
    r = measure(cli, tmp_path, "self_attesting.toml", "--max-false-accept", "0.5", families=("v2",))
    assert r.exit_code == 1 and "false-accept rate" in r.output
    r = measure(cli, tmp_path, "sound.toml", "--max-false-accept", "0.5", "--bound", "upper")
    assert r.exit_code == 0, r.output


def test_exit_codes_are_documented(cli):
    text = " ".join(CliRunner().invoke(cli, ["corpus", "measure", "--help"]).output.split())
    assert "Exit codes: 0" in text and "1 nothing measured" in text and "a CI check failed" in text
    assert "2 bad input" in text


def test_a_gate_no_vacuity_probe_reached_does_not_pass_fail_on_vacuous(cli, tmp_path):
    # a gate that accepts everything, measured with the fine family only (which has no absence,
    # hollowing or self-attestation probe): its vacuity is untested, and --fail-on-vacuous must not
    # report it as passing, as --max-false-accept does not pass an n/a rate
    (tmp_path / "yes.toml").write_text('[gate]\nname = "yes"\nkind = "command"\nargv = ["true"]\n')
    (tmp_path / "hints.toml").write_text('[artifact]\nrole = "code"\n')
    tiny = EX.parent / "tiny" / "artifact" / "mod.py"
    args = ["corpus", "measure", "--gate", str(tmp_path / "yes.toml"), "--artifact", str(tiny),
            "--hints", str(tmp_path / "hints.toml"), "--family", "fine", "--out", str(tmp_path / "out"),
            "--quiet", "--fail-on-vacuous"]
    r = CliRunner().invoke(cli, args)
    assert r.exit_code == 1 and "vacuity untested" in r.output, r.output
    assert "vacuity untested" in (tmp_path / "out" / "junit.xml").read_text()
    assert "untested" in r.output.splitlines()[2]          # the table's vacuity column says so too
