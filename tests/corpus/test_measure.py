"""Denominators, incapacity apart, Wilson vs statsmodels, vacuity verdicts, the catalogue."""
import pytest

from corpus.catalogue import DOMAINS, load_catalogue
from corpus.measure import Row, measure, rates, summarize, vacuity
from corpus.tier2 import load_tier2
from harness.core.wilson import wilson


def row(label, verdict, probe=None, family="v1", mutant="m"):
    return Row(loop="l", gate="g", gate_path="p", gate_status="current", mutant=mutant, family=family,
               tier=1, operator="op", label=label, probe=probe, verdict=verdict, reason="", seconds=0.0)


def test_all_destroying_corpus_reports_false_reject_na():
    r = rates([row("destroying", "reject"), row("destroying", "accept")])
    assert r["false_reject"].n == 0 and r["false_reject"].rate is None
    assert r["false_reject"].fmt() == "n/a (0/0)"
    assert (r["false_accept"].k, r["false_accept"].n) == (1, 2)


def test_empty_corpus_is_na_not_zero_or_one():
    r = rates([])
    assert r["false_accept"].rate is None and r["false_reject"].rate is None


def test_incapacity_counted_apart():
    rows = [row("destroying", "incapacity"), row("destroying", "reject"), row("preserving", "incapacity"),
            row("preserving", "accept")]
    r = rates(rows)
    assert r["incapacity"] == 2
    assert (r["false_accept"].k, r["false_accept"].n) == (0, 1)
    assert (r["false_reject"].k, r["false_reject"].n) == (0, 1)
    assert r["destroying_n"] == 2 and r["destroying_judged"] == 1


def test_controls_do_not_enter_rates():
    ctrl = row(None, "reject", family="control")
    assert rates([ctrl])["mutants"] == 0


def test_vacuity_verdicts_name_the_proving_mutant():
    v = vacuity([row("destroying", "accept", "absence", mutant="del"), row("destroying", "reject", "hollowing")])
    assert v["absence"] == {"verdict": "vacuous", "proved_by": ["del"], "probes_judged": 1, "probes_incapacity": 0}
    assert v["hollowing"]["verdict"] == "not vacuous"
    assert vacuity([row("destroying", "incapacity", "absence")])["absence"]["verdict"] == "untested"


@pytest.mark.parametrize("k,n", [(0, 1), (0, 171), (14, 60), (3, 7), (60, 60), (1, 2), (112, 120)])
def test_wilson_against_statsmodels(k, n):
    from statsmodels.stats.proportion import proportion_confint
    lo, hi = proportion_confint(k, n, alpha=0.05, method="wilson")
    p = wilson(k, n)
    assert p.lo == pytest.approx(lo, abs=1e-9) and p.hi == pytest.approx(hi, abs=1e-9)


def test_catalogue_shape():
    loops = load_catalogue()
    assert len(loops) >= 24
    assert set(DOMAINS) <= {d for lp in loops for d in lp.domains}
    kinds = {g.kind for lp in loops for g in lp.gates()}
    assert kinds == {"command", "pytest", "jsonschema", "predicate", "composite", "external"}
    planted = [g for lp in loops for g in lp.gates() if g.status == "planted"]
    assert {g.spec["planted"] for g in planted} >= {"absence", "hollowing", "self-derived-scope"}
    for g in planted:     # each planted gate sits next to its repaired version
        assert (g.dir / g.spec["repaired_by"]).is_file()
    assert sum(len(load_tier2(lp)) for lp in loops) >= 30


@pytest.fixture(scope="module")
def planted_measurement():
    ids = {"runbook-complete", "resource-tags", "secret-scan-keyless", "discharge-summary",
           "citations-resolve", "terraform-scan", "version-consistency"}
    loops = [lp for lp in load_catalogue() if lp.id in ids]
    return summarize(measure(loops, families=("v1",), tier2=True, workers=2))


def test_planted_vacuous_gates_found_and_repaired_gates_clean_over_v1(planted_measurement):
    s = planted_measurement
    by = {(g["loop"], g["gate"]): g for g in s["gates"]}
    assert by[("runbook-complete", "headings-only")]["vacuity"]["hollowing"]["verdict"] == "vacuous"
    assert by[("discharge-summary", "headings-only")]["vacuity"]["hollowing"]["verdict"] == "vacuous"
    assert by[("resource-tags", "tags-all-over-found")]["vacuity"]["absence"]["verdict"] == "vacuous"
    assert by[("secret-scan-keyless", "keyless-scan-dir")]["vacuity"]["absence"]["verdict"] == "vacuous"
    assert "citations-resolve/tier2/fabricated-citation" in \
        by[("citations-resolve", "citations-self-derived")]["all"]["false_accept_ids"]
    for g in s["gates"]:
        if g["status"] != "planted":
            assert g["control_verdict"] == "accept", g["gate"]
            v1 = g["by_family"]["v1"]
            if v1["mutants"]:
                assert v1["false_accept"]["k"] == 0, (g["gate"], v1["false_accept_ids"])
                assert v1["incapacity"] == 0
            assert g["vacuity"]["absence"]["verdict"] != "vacuous"
    reasons = {(e["loop"], e["reason"]) for e in s["exclusions"]}
    assert ("terraform-scan", "external tool not present") in reasons
    assert ("version-consistency", "tier-1 inexpressible") in reasons


def test_a_gate_that_never_judges_is_named_so_even_beside_equivalent_mutants():
    # equivalent mutants are never run ("not-judged"): they say nothing of whether the gate judges
    from corpus.measure import Measurement, gate_failures
    rows = [row(None, "incapacity", family="control", mutant="l/control"),
            row("destroying", "incapacity", family="fine", mutant="a"),
            row("equivalent", "not-judged", family="fine", mutant="b")]
    g = summarize(Measurement(rows=rows, families=("fine",)))["gates"][0]
    assert g["never_judges"]
    assert "never judges" in gate_failures(g)[0]


def _calc_loop(tmp_path):
    from corpus.catalogue import Loop
    art = tmp_path / "art"
    art.mkdir()
    (art / "calc.py").write_text("def add(a, b):\n    return a + b\n\n\ndef neg(a):\n    return -a\n")
    (tmp_path / "tests").mkdir()
    (tmp_path / "tests" / "test_calc.py").write_text("import calc\n\n\ndef test_add():\n    assert calc.add(2, 3) == 5\n")
    (tmp_path / "gate.toml").write_text('[gate]\nname = "s"\nkind = "pytest"\ntests = "tests"\n')
    return Loop(id="calc", dir=tmp_path, title="calc", domains=["software"], requirement="(test)", kind="python",
                target="calc.py", artifact_dir=art, hints={"role": "code"}, not_applicable=(),
                gate_paths=[tmp_path / "gate.toml"])


def test_a_fresh_measurement_starts_its_session_while_the_mutants_are_generated(tmp_path, monkeypatch):
    """No journal and no judgment cache yet (a first run: the CLI names a journal that does not exist
    yet): every mutant will be judged, so the pytest gate's session (coverage run, fork-servers)
    starts before the plan is made, beside the generation; with a journal file (a run that may
    resume) it starts after the plan, as before. Same verdicts either way."""
    import threading

    import corpus.measure as cm
    from corpus.fast_pytest import PytestSession
    events: list[str] = []
    started = threading.Event()
    real_plan, real_enter = cm.plan, PytestSession.__enter__

    def plan(*a, **k):
        events.append("plan start")
        if not a[0][0].id.endswith("-late"):
            assert started.wait(60)             # the session began while the plan was being made
        out = real_plan(*a, **k)
        events.append("plan end")
        return out

    def enter(self):
        events.append("session start")
        started.set()
        return real_enter(self)
    monkeypatch.setattr(cm, "plan", plan)
    monkeypatch.setattr(PytestSession, "__enter__", enter)
    loop = _calc_loop(tmp_path)
    early = measure([loop], families=("fine",), tier2=False, workers=1, journal=tmp_path / "first.jsonl")
    assert events[:2] == ["plan start", "session start"] or events[:2] == ["session start", "plan start"]
    events.clear()
    started.clear()
    loop.id = "calc-late"
    (tmp_path / "journal.jsonl").write_text("")
    late = measure([loop], families=("fine",), tier2=False, workers=1, journal=tmp_path / "journal.jsonl")
    assert events == ["plan start", "plan end", "session start"], events
    assert [(r.operator, r.verdict, r.executor) for r in early.rows] == \
        [(r.operator, r.verdict, r.executor) for r in late.rows]
    assert {r.verdict for r in early.rows if not r.is_control} == {"accept", "reject"}
