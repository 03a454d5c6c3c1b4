"""Acceptance of the fine family on the bundled sample (its suite misses a case: the surviving
mutant is reported as a diff, grouped by operator) and the --out reports: survivors.md, one HTML
page per gate, JUnit XML valid against the Jenkins/Ant junit-10.xsd CI tools read."""
import json
from pathlib import Path

import click
import pytest
import xmlschema
from click.testing import CliRunner

from corpus.cli import register
from corpus.operators import operators

ROOT = Path(__file__).resolve().parents[2]
ISBN = ROOT / "corpus" / "examples" / "isbn"
XSD = Path(__file__).parent / "data" / "junit-10.xsd"
GAP = ("-    return (10 - total % 10) % 10", "+    return (10 - total % 10) % 11")


@pytest.fixture(scope="module")
def isbn_run(tmp_path_factory):
    """The fine family's number-constant operator over the sample (the rest is left out to
    keep this test fast; `make bench` runs the whole family)."""
    tmp = tmp_path_factory.mktemp("isbn")
    keep = {"number_constant"}
    skip = sorted({o.name for o in operators("fine")} - keep)
    hints = tmp / "hints.toml"
    hints.write_text((ISBN / "hints.toml").read_text() + f"not_applicable = {json.dumps(skip)}\n")

    @click.group()
    def main():
        pass
    register(main)
    out = tmp / "out"
    r = CliRunner().invoke(main, ["corpus", "measure", "--gate", str(ISBN / "gate.toml"), "--artifact",
                                  str(ISBN / "isbn.py"), "--hints", str(hints), "--family", "fine",
                                  "--out", str(out), "--quiet", "--max-false-accept", "0"], catch_exceptions=False)
    return r, out


def test_fine_reports_the_surviving_mutant(isbn_run):
    r, out = isbn_run
    assert r.exit_code == 1 and "false-accept rate" in r.output          # --max-false-accept 0
    g = json.loads((out / "summary.json").read_text())["gates"][0]
    assert g["control_verdict"] == "accept"
    fa = g["by_family"]["fine"]["false_accept"]
    assert fa["k"] >= 1 and fa["n"] == g["by_family"]["fine"]["destroying_judged"] > 20
    md = (out / "survivors.md").read_text()
    assert "### number_constant" in md and "L28: 10 -> 11" in md and all(line in md for line in GAP)
    assert all(line in r.output for line in GAP)        # printed, not only written


def test_judgments_record_the_fast_path(isbn_run):
    _, out = isbn_run
    rows = (out / "judgments.csv").read_text().splitlines()
    assert rows[0].split(",")[11:13] == ["executor", "tests"]
    # mutants go through a pre-imported server (fork, or swap: one function's code replaced in a
    # pre-collected fork); the control runs cold
    assert any(",fork," in r or ",swap," in r for r in rows) and any(",control," in r and ",cold," in r for r in rows)


def test_junit_validates_against_the_ci_schema(isbn_run):
    _, out = isbn_run
    schema = xmlschema.XMLSchema(str(XSD))
    schema.validate(str(out / "junit.xml"))
    text = (out / "junit.xml").read_text()
    assert 'tests="1"' in text and 'failures="1"' in text and "false accept:" in text


def test_junit_schema_check_is_not_vacuous():
    schema = xmlschema.XMLSchema(str(XSD))
    assert not schema.is_valid('<testsuite name="x" tests="1"><testcase/></testsuite>')


def test_html_page_per_gate_is_static_and_shows_the_survivor(isbn_run):
    _, out = isbn_run
    pages = sorted((out / "html").glob("*.html"))
    assert [p.name for p in pages][0:1] and (out / "html" / "index.html") in pages and len(pages) == 2
    page = next(p for p in pages if p.name != "index.html").read_text()
    assert "Wilson" in page and "false accept" in page and "number_constant" in page
    assert '<span class="del">' + GAP[0].replace(">", "&gt;") in page or "% 11" in page
    for p in pages:
        text = p.read_text()
        assert "<script" not in text and "http://" not in text and "https://" not in text


def test_junit_stays_valid_xml_when_a_gate_prints_control_characters(isbn_run):
    """A gate's reason is the tail of its output, and tools colour their output (ANSI escapes):
    XML 1.0 forbids those characters, and one of them makes CI reject the whole JUnit file."""
    from corpus.junit import junit_xml
    _, out = isbn_run
    summary = json.loads((out / "summary.json").read_text())
    g = summary["gates"][0]
    g.update(control_verdict="reject", control_reason="\x1b[31mFAILED\x1b[0m test_isbn \x00\x07 done")
    xml = junit_xml(summary)
    xmlschema.XMLSchema(str(XSD)).validate(xml)
    assert "FAILED" in xml and "\\x1b" in xml, "the characters are shown escaped, not dropped silently"


def test_junit_stays_well_formed_when_a_gate_prints_control_characters():
    # a gate's own output (ANSI colours, a stray NUL) reaches the failure text; XML 1.0 forbids
    # those characters, and a CI system cannot read a junit.xml that does not parse
    import xml.etree.ElementTree as ET

    from corpus.junit import junit_xml
    from harness.core.wilson import wilson
    p = wilson(0, 0)
    rate = {**p.as_dict(), "fmt": p.fmt()}
    g = {"loop": "l", "gate": "g\x07", "status": "current", "control_verdict": "reject",
         "control_reason": "\x1b[31mFAIL\x1b[0m \x00", "never_judges": False, "vacuous": False,
         "vacuity": {c: {"verdict": "not vacuous", "proved_by": []} for c in ("absence", "hollowing", "self-attestation")},
         "all": {"false_accept": rate, "false_reject": rate, "destroying_judged": 0, "destroying_n": 0,
                 "preserving_judged": 0, "preserving_n": 0, "incapacity": 0, "equivalent": 0}}
    x = junit_xml({"gates": [g], "method": "m", "families": ["v1"]})
    case = ET.fromstring(x.encode()).find("testsuite/testcase")
    assert "FAIL" in case.find("failure").text and "\\x1b" in case.find("failure").text
    xmlschema.XMLSchema(str(XSD)).validate(x)
