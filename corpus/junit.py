"""JUnit XML for ``harness corpus measure --out``: one test case per gate, so a CI system shows each
gate's result natively. Valid against the Jenkins/Ant junit-10.xsd schema CI tools read
(tests/corpus/test_junit.py validates it).

A gate's test case fails with the reasons ``--fail-on-vacuous`` would give (it never judges, it
cannot accept its own conforming artifact, a vacuity verdict) and, when given,
``--max-false-accept``'s. A planted gate (defective on purpose) passes when the run found its
planted defect and fails when it did not: then the instrument, not the gate, is what broke.
Rates and denominators go in each case's system-out, with the method.
"""
from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from pathlib import Path

from corpus.measure import MISSING_TOOL, VACUITY_CLASSES, gate_failures, is_planted

# characters XML 1.0 forbids (a gate's output may carry ANSI colours or a NUL); written as \xNN
_NOT_XML = re.compile("[^\t\n\r\x20-\ud7ff\ue000-\ufffd\U00010000-\U0010ffff]")


def _xml_safe(text: str) -> str:
    return _NOT_XML.sub(lambda m: f"\\x{ord(m.group()):02x}", text)


def _case(g: dict, planted: dict | None, max_false_accept, bound) -> tuple[ET.Element, bool]:
    case = ET.Element("testcase", classname=f"corpus.{g['loop']}", name=g["gate"],
                      time=f"{g.get('seconds', 0.0):.3f}")
    if is_planted(g["status"]):
        fails = [] if planted is None or planted["found"] else \
            [f"planted defect {planted['planted']!r} not detected by this run"]
    else:
        fails = gate_failures(g, vacuity_fails=True, max_false_accept=max_false_accept, bound=bound)
    if fails:
        ET.SubElement(case, "failure", message=fails[0][:500], type="corpus-gate").text = "\n".join(fails)
    r = g["all"]
    out = [f"status: {g['status']}; control verdict: {g['control_verdict']}",
           f"false accept: {r['false_accept']['fmt']} over {r['destroying_judged']} judged destroying "
           f"of {r['destroying_n']}",
           f"false reject: {r['false_reject']['fmt']} over {r['preserving_judged']} judged preserving "
           f"of {r['preserving_n']}",
           f"incapacity: {r['incapacity']}; equivalent (not judged): {r['equivalent']}",
           "vacuity: " + "; ".join(f"{c} {g['vacuity'][c]['verdict']}" for c in VACUITY_CLASSES)]
    if planted is not None:
        out.append(f"planted: {planted['planted']} found={planted['found']}")
    ET.SubElement(case, "system-out").text = "\n".join(out)
    return case, bool(fails)


def _missing_tool_case(excl: dict, g: dict) -> tuple[ET.Element, bool]:
    """A gate never measured because a tool it requires is missing: a failing case, as under
    --fail-on-vacuous (a gate that judges nothing cannot pass)."""
    case = ET.Element("testcase", classname=f"corpus.{excl['loop']}", name=g["gate"], time="0.000")
    why = f"never judged: required tool {', '.join(g['missing'])} not found (probed with shutil.which)"
    ET.SubElement(case, "failure", message=why, type="corpus-gate").text = why
    return case, True


def junit_xml(summary: dict, *, max_false_accept: float | None = None, bound: str = "point",
              wall_s: float = 0.0) -> str:
    """The summary's gates as JUnit test cases; ``wall_s``: the measurement's wall time (``Measurement.wall_s``,
    rounded as the summary states it), the suites' time."""
    planted = {(p["loop"], p["gate"]): p for p in summary.get("planted", [])}
    cases = [_case(g, planted.get((g["loop"], g["gate"])), max_false_accept, bound) for g in summary["gates"]]
    cases += [_missing_tool_case(e, g) for e in summary.get("exclusions", []) if e["reason"] == MISSING_TOOL
              for g in e.get("gates", []) if not is_planted(g["status"])]
    failures = sum(f for _, f in cases)
    wall = f"{wall_s:.3f}"
    root = ET.Element("testsuites", name="harness corpus measure", tests=str(len(cases)),
                      failures=str(failures), errors="0", time=wall)
    suite = ET.SubElement(root, "testsuite", name="corpus gates", tests=str(len(cases)),
                          failures=str(failures), errors="0", skipped="0", time=wall)
    props = ET.SubElement(suite, "properties")
    ET.SubElement(props, "property", name="method", value=summary["method"])
    ET.SubElement(props, "property", name="families", value=",".join(summary["families"]))
    if max_false_accept is not None:
        ET.SubElement(props, "property", name="max_false_accept", value=f"{max_false_accept:g} ({bound})")
    for case, _ in cases:
        suite.append(case)
    for el in root.iter():
        el.text = _xml_safe(el.text) if el.text else el.text
        el.attrib.update({k: _xml_safe(v) for k, v in el.attrib.items()})
    ET.indent(root)
    return ET.tostring(root, encoding="unicode", xml_declaration=True) + "\n"


def write(path: Path, summary: dict, **kw) -> Path:
    path.write_text(junit_xml(summary, **kw), encoding="utf-8")
    return path
