"""Bounded-loop graphs (harness.loop.loop_graph): refusals, the closed-form worst case, and the
adversarial tests of the paper (a claiming worker never reaches DONE; observed attempts never
exceed the bound)."""
from __future__ import annotations

import json
import tempfile
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from corpus.gates import Judgement, Verdict
from harness.core.errors import InputError
from harness.ledger.ledger import Ledger
from harness.loop.loop import DONE, HALT, audit_done
from harness.loop.loop_graph import load_graph, run_graph, worst_case_attempts
from harness.loop.loop_workers import ClaimingWorker, ScriptedWorker, write_scripted_gate

TARGET = "status.json"


def fast_judge(gate, ws: Path, target: str) -> Judgement:
    """The scripted gate's rule in-process (the real jsonschema gate is exercised in test_loop.py)."""
    p = ws / target
    text = p.read_text() if p.is_file() else "<absent>"
    if text == json.dumps("ACCEPT"):
        return Judgement(Verdict.ACCEPT, "valid")
    return Judgement(Verdict.REJECT, f"{text} does not match '^ACCEPT$'")


def graph_file(d: Path, nodes: dict[str, int], edges=(), repairs=(), budget: int | None = 1, node_extra=None,
               graph_extra: str = "") -> Path:
    d.mkdir(parents=True, exist_ok=True)
    write_scripted_gate(d / "gate")
    lines = ["[graph]"] + ([f"repair_budget = {budget}"] if budget is not None else []) + [graph_extra, ""]
    for nid, n in nodes.items():
        lines += ["[[nodes]]", f'id = "{nid}"', 'requirement = "The artifact is the JSON string ACCEPT."',
                  f'target = "{TARGET}"', 'gate = "gate/gate.toml"', f"max_attempts = {n}"]
        lines += (node_extra or {}).get(nid, [])
        lines.append("")
    for a, b in edges:
        lines += ["[[edges]]", f'from = "{a}"', f'to = "{b}"', ""]
    for a, b in repairs:
        lines += ["[[repairs]]", f'from = "{a}"', f'to = "{b}"', ""]
    p = d / "graph.toml"
    p.write_text("\n".join(lines))
    return p


CHAIN = {"a": 3, "b": 2, "c": 4}


def test_closed_form_on_a_hand_worked_chain(tmp_path):
    # a -> b -> c, c repairs a, R = 2: sum N = 9; Reach(a) = {a, b, c} costs 9; 9 + 2 * 9 = 27
    g = load_graph(graph_file(tmp_path, CHAIN, [("a", "b"), ("b", "c")], [("c", "a"), ("c", "b")], budget=2))
    b = worst_case_attempts(g)
    assert (b["sum_N"], b["repair_costs"], b["total"]) == (9, {"c->a": 9, "c->b": 6}, 27)
    assert worst_case_attempts(load_graph(graph_file(tmp_path / "n", CHAIN, [("a", "b")], budget=0)))["total"] == 9


def test_the_bound_is_attained_by_the_worst_workers(tmp_path):
    """Every node accepted only on its last attempt, c never accepted: observed = 27 = the bound."""
    g = load_graph(graph_file(tmp_path, CHAIN, [("a", "b"), ("b", "c")], [("c", "a")], budget=2))
    ledger = Ledger(tmp_path / "ledger.jsonl")

    def worker_for(node, pass_no):
        n = node.budget.max_attempts
        return ScriptedWorker(TARGET, productive=n - 1 if node.id != "c" else 99, accepts=node.id != "c")

    res = run_graph(g, worker_for, ledger, run_id="g", judge_fn=fast_judge)
    assert res.state == HALT and "global repair budget is spent" in res.reason
    assert res.attempts == 27 == worst_case_attempts(g)["total"] == sum(r.get("spent") is True for r in ledger.records)
    assert [p.node for p in res.passes] == ["a", "b", "c"] * 3 and res.repairs_used == 2


def test_a_repair_reruns_the_upstream_node_and_the_graph_reaches_done(tmp_path):
    g = load_graph(graph_file(tmp_path, {"a": 2, "b": 2}, [("a", "b")], [("b", "a")], budget=1))
    ledger = Ledger(tmp_path / "ledger.jsonl")
    seen = []

    def worker_for(node, pass_no):
        seen.append((node.id, pass_no))
        # b fails its first pass, succeeds after a's re-run
        return ScriptedWorker(TARGET, productive=0 if node.id == "a" else (5 if pass_no == 1 else 0), accepts=True)

    res = run_graph(g, worker_for, ledger, run_id="g", judge_fn=fast_judge)
    assert res.state == DONE and res.repairs_used == 1
    assert seen == [("a", 1), ("b", 1), ("a", 2), ("b", 2)]
    assert audit_done(ledger.records) == []
    assert any(r["kind"] == "repair" and r["rerun"] == ["a", "b"] for r in ledger.records)


def test_a_claiming_worker_against_a_refusing_gate_reaches_halt_never_done(tmp_path):
    g = load_graph(graph_file(tmp_path, {"a": 2, "b": 2}, [("a", "b")], [("b", "a")], budget=3))
    ledger = Ledger(tmp_path / "ledger.jsonl")

    def refuse(gate, ws, target):
        return Judgement(Verdict.REJECT, "refused")

    res = run_graph(g, lambda node, p: ClaimingWorker(TARGET, str(node.spec.gate.path)), ledger, run_id="g",
                    judge_fn=refuse)
    assert res.state == HALT
    assert not any(r.get("state") == DONE for r in ledger.records)
    assert all(r["refused"] for r in ledger.records if r["kind"] == "attempt")


def test_per_node_repair_budgets_are_refused_with_the_counterexample(tmp_path):
    # the paper's construction: two nodes each holding their own repair counter
    p = graph_file(tmp_path, {"a": 2, "b": 2}, [("a", "b")], [("b", "a")], budget=None,
                   node_extra={"a": ["repair_budget = 1"], "b": ["repair_budget = 1"]})
    with pytest.raises(InputError) as e:
        load_graph(p)
    assert e.value.field == "nodes[0].repair_budget" and e.value.line == 10
    assert "need not terminate" in str(e.value) and "Fig. 9" in str(e.value)


def test_nodes_that_disagree_about_the_budget_are_refused(tmp_path):
    p = graph_file(tmp_path, {"a": 2, "b": 2}, [("a", "b")], budget=None,
                   node_extra={"a": ["global_repair_budget = 1"], "b": ["global_repair_budget = 2"]})
    with pytest.raises(InputError, match="disagree about the global repair budget \\(a=1, b=2\\)"):
        load_graph(p)
    agree = graph_file(tmp_path / "ok", {"a": 2, "b": 2}, [("a", "b")], budget=None,
                       node_extra={"a": ["global_repair_budget = 2"], "b": ["global_repair_budget = 2"]})
    assert load_graph(agree).repair_budget == 2
    with pytest.raises(InputError, match="repair_budget=1"):
        load_graph(graph_file(tmp_path / "g", {"a": 2}, budget=1, node_extra={"a": ["global_repair_budget = 3"]}))


@pytest.mark.parametrize("edges,repairs,field,msg", [
    ([("a", "b"), ("b", "a")], [], "edges", "cycle"),
    ([("a", "b")], [("a", "b")], "repairs[0]", "not upstream"),
    ([("a", "b")], [("a", "a")], "repairs[0]", "not upstream"),
    ([("a", "z")], [], "edges[0].to", "no node 'z'"),
])
def test_malformed_graphs_are_refused_with_file_and_key(tmp_path, edges, repairs, field, msg):
    with pytest.raises(InputError) as e:
        load_graph(graph_file(tmp_path, {"a": 2, "b": 2}, edges, repairs))
    assert e.value.field == field and msg in e.value.message and str(tmp_path) in str(e.value)


def test_unknown_keys_and_missing_budget_are_refused(tmp_path):
    with pytest.raises(InputError) as e:
        load_graph(graph_file(tmp_path, {"a": 2}, node_extra={"a": ["retries = 3"]}))
    assert e.value.field == "nodes[0].retries" and e.value.line == 11
    with pytest.raises(InputError, match="declare the one global repair budget"):
        load_graph(graph_file(tmp_path / "m", {"a": 2}, budget=None))


def test_a_corpus_loop_node_loads_with_its_gate(tmp_path):
    p = tmp_path / "g.toml"
    p.write_text('[graph]\nrepair_budget = 0\nmax_attempts = 2\n[[nodes]]\nid = "rb"\nloop = "runbook-complete"\n'
                 'gate = "headings-only"\n')
    g = load_graph(p)
    assert g.nodes["rb"].spec.gate.status == "planted" and g.nodes["rb"].spec.target == "runbook.md"
    p.write_text(p.read_text().replace("headings-only", "nope"))
    with pytest.raises(InputError, match="has no gate 'nope'"):
        load_graph(p)


@st.composite
def small_graphs(draw):
    n = draw(st.integers(1, 4))
    ids = [f"n{i}" for i in range(n)]
    edges = [(ids[i], ids[j]) for i in range(n) for j in range(i + 1, n) if draw(st.booleans())]
    reach = {u: {u} for u in ids}
    for _ in ids:  # transitive closure over the DAG (ids are in topological order)
        for a, b in edges:
            reach[a] |= reach[b]
    pairs = [(d, u) for u in ids for d in reach[u] if d != u]
    repairs = draw(st.lists(st.sampled_from(pairs), max_size=3, unique=True)) if pairs else []
    caps = {i: draw(st.integers(1, 3)) for i in ids}
    # per (node, pass): productive drafts and whether the worker is then accepted
    behaviour = {i: draw(st.lists(st.tuples(st.integers(0, 4), st.booleans()), min_size=1, max_size=4)) for i in ids}
    return caps, edges, repairs, draw(st.integers(0, 3)), draw(st.sampled_from([None, 1, 2])), behaviour


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(small_graphs())
def test_observed_attempts_never_exceed_the_closed_form_bound(case):
    caps, edges, repairs, budget, soft, behaviour = case
    with tempfile.TemporaryDirectory() as tmp:
        extra = f"soft_bound = {soft}" if soft else ""
        g = load_graph(graph_file(Path(tmp), caps, edges, repairs, budget=budget, graph_extra=extra))
        ledger = Ledger(Path(tmp) / "ledger.jsonl")

        def worker_for(node, pass_no):
            prod, acc = behaviour[node.id][(pass_no - 1) % len(behaviour[node.id])]
            return ScriptedWorker(TARGET, prod, acc)

        res = run_graph(g, worker_for, ledger, run_id="h", judge_fn=fast_judge)
        observed = sum(r.get("spent") is True for r in ledger.records)
        assert observed == res.attempts <= worst_case_attempts(g)["total"]
        assert res.repairs_used <= budget
        assert audit_done(ledger.records) == []
        done_nodes = {r["node"] for r in ledger.records if r.get("state") == DONE}
        assert res.state != DONE or done_nodes == set(caps)


def test_cli_plan_prints_the_closed_form_and_run_uses_the_ledger(tmp_path):
    from click.testing import CliRunner

    from harness.cli.cli import main
    from harness.ledger.ledger import inspect
    example = Path(__file__).resolve().parents[3] / "corpus" / "examples" / "loop-graph" / "graph.toml"
    r = CliRunner().invoke(main, ["loop", "plan", str(example)])
    assert r.exit_code == 0 and "= 11 + 1 x 8 = 19" in r.output
    drafts = tmp_path / "g" / "drafts"
    drafts.mkdir(parents=True)
    (drafts / "good").write_text(json.dumps("ACCEPT"))
    (drafts / "bad").write_text(json.dumps("nope"))
    p = graph_file(tmp_path / "g", {"a": 2, "b": 2}, [("a", "b")], [("b", "a")],
                   node_extra={"a": ['drafts = "drafts"'], "b": ['drafts = "drafts"']})
    r = CliRunner().invoke(main, ["loop", "run", str(p), "--out", str(tmp_path / "o")])
    assert r.exit_code == 0, r.output
    recs = inspect(tmp_path / "o" / "ledger.jsonl").records
    assert "graph: done" in r.output and audit_done(recs) == []
    bad = graph_file(tmp_path / "bad", {"a": 2}, node_extra={"a": ["repair_budget = 2"]})
    r = CliRunner().invoke(main, ["loop", "plan", str(bad)])
    assert r.exit_code == 2 and r.output.count("\n") == 1 and "per-node repair budgets are refused" in r.output


@pytest.mark.parametrize("target", ["../escape.json", "/tmp/rev15-escape.json", "sub/../../escape.json", "inputs/x/../.."])
def test_a_task_target_outside_the_workspace_is_refused_at_load(tmp_path, target):
    """The worker may write exactly the target, so a target that leaves the workspace (an absolute
    path, or one climbing out with ..) would let the worker write anywhere the harness can, gate
    files included; the graph is refused, naming the file, line and key."""
    p = graph_file(tmp_path, {"a": 2})
    p.write_text(p.read_text().replace(f'target = "{TARGET}"', f'target = "{target}"'))
    with pytest.raises(InputError, match=r"nodes\[0\]\.target") as e:
        load_graph(p)
    assert e.value.line == 8  # the target key of the first node


@pytest.mark.parametrize("old,new,field", [
    ('from = "a"', 'from = ["a"]', "edges[0].from"),
    ('to = "b"', "to = 7", "edges[0].to"),
    ('gate = "gate/gate.toml"', 'gate = "gate/gate.toml"\nfiles = 5', "nodes[0].files"),
    ('gate = "gate/gate.toml"', 'gate = "gate/gate.toml"\ndrafts = ["d"]', "nodes[0].drafts"),
    ('requirement = "The artifact is the JSON string ACCEPT."\ntarget = "status.json"', "loop = 3", "nodes[0].loop"),
])
def test_a_value_of_the_wrong_type_is_a_named_error_not_a_traceback(tmp_path, old, new, field):
    """A TOML value of the wrong type (a list where a node id goes, a number where a directory
    goes) is refused with the file, line and key, like every other malformed graph."""
    p = graph_file(tmp_path, {"a": 2, "b": 2}, [("a", "b")])
    p.write_text(p.read_text().replace(old, new, 1))
    with pytest.raises(InputError) as e:
        load_graph(p)
    assert e.value.field == field and e.value.line is not None
