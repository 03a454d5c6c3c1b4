"""CLI end to end: the README's user-gate example, outputs, --fail-on-vacuous, registration."""
import csv
import json
from pathlib import Path

from click.testing import CliRunner

from corpus.cli import infer_kind

EX = Path(__file__).resolve().parents[2] / "corpus" / "examples" / "user-gate"




def test_user_gate_end_to_end(cli, tmp_path):
    args = ["corpus", "measure", "--gate", str(EX / "gate.toml"), "--artifact", str(EX / "release-notes.md"),
            "--hints", str(EX / "hints.toml"), "--out", str(tmp_path / "out"), "--quiet"]
    r = CliRunner().invoke(cli, args, catch_exceptions=False)
    assert r.exit_code == 0, r.output
    s = json.loads((tmp_path / "out" / "summary.json").read_text())
    g = s["gates"][0]
    assert g["control_verdict"] == "accept"
    assert g["vacuity"]["absence"]["verdict"] == "vacuous"
    assert g["vacuity"]["absence"]["proved_by"][0].endswith("/v1/delete/0")
    assert g["all"]["false_reject"]["n"] > 0 and "method" in s
    assert "absence" in r.output and "false accept" in r.output
    rows = list(csv.DictReader((tmp_path / "out" / "gates.csv").open()))
    assert rows and rows[0]["absence"] == "vacuous"
    assert (tmp_path / "out" / "judgments.csv").is_file() and (tmp_path / "out" / "exclusions.csv").is_file()
    r2 = CliRunner().invoke(cli, args + ["--fail-on-vacuous"], catch_exceptions=False)
    assert r2.exit_code == 1


def test_one_loop_and_na_printing(cli, tmp_path):
    r = CliRunner().invoke(cli, ["corpus", "measure", "--loop", "version-consistency", "--no-tier2",
                                 "--out", str(tmp_path / "o"), "--quiet"], catch_exceptions=False)
    # tier 1 excluded and tier 2 left out: nothing measured, the exclusion is reported
    assert r.exit_code == 0
    s = json.loads((tmp_path / "o" / "summary.json").read_text())
    assert s["gates"] == [] and {e["reason"] for e in s["exclusions"]} >= {"tier-1 inexpressible", "no mutants"}


def test_frozen_refuses_changed_gates(cli, tmp_path):
    fz = tmp_path / "frozen.json"
    assert CliRunner().invoke(cli, ["corpus", "freeze", "--out", str(fz)]).exit_code == 0
    data = json.loads(fz.read_text())
    key = next(k for k in data["gates"] if k.startswith("runbook-complete:"))
    data["gates"][key]["digest"] = "0" * 64
    fz.write_text(json.dumps(data))
    r = CliRunner().invoke(cli, ["corpus", "measure", "--loop", "runbook-complete", "--frozen", str(fz),
                                 "--out", str(tmp_path / "o")])
    assert r.exit_code == 2 and "changed since the freeze" in r.output


def test_usage_errors(cli, tmp_path):
    r = CliRunner().invoke(cli, ["corpus", "measure", "--gate", str(EX / "gate.toml"), "--out", str(tmp_path)])
    assert r.exit_code != 0 and "go together" in r.output


def test_infer_kind():
    assert infer_kind(Path("requirements.txt")) == "pins"
    assert infer_kind(Path("COMMIT_EDITMSG")) == "commit"
    assert infer_kind(Path("a.md")) == "markdown" and infer_kind(Path("x.json")) == "json"


def test_reviewer_command(cli, tmp_path):
    p = tmp_path / "items.json"
    p.write_text(json.dumps([{"prompt": "p", "diff": "d1", "is_defective": True},
                             {"prompt": "p", "diff": "d2", "is_defective": False}]))
    r = CliRunner().invoke(cli, ["corpus", "reviewer", "--items", str(p), "--out", str(tmp_path / "r.json")],
                           catch_exceptions=False)
    assert r.exit_code == 0 and "oracle" in r.output
    assert json.loads((tmp_path / "r.json").read_text())[2]["catchRate"]["rate"] == 1.0


def test_registered_in_main_cli():
    import click

    from harness.cli.cli import main
    assert main.get_command(click.Context(main), "corpus").name == "corpus"
