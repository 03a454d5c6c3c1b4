"""Bounded-loop graphs (Bounded Loops paper, Section 5, Fig. 9): bounded loops composed by data
edges (a DAG) and repair edges (a downstream failure re-runs a finished upstream node and
everything downstream of it), under ONE global repair budget.

A graph file (TOML)::

    [graph]
    repair_budget = 2          # R, one counter for the whole graph, never reset
    max_attempts = 5           # N_v for every node unless the node says otherwise
    soft_bound = 3             # optional no-progress bound

    [[nodes]]                  # a corpus loop ...
    id = "runbook"
    loop = "runbook-complete"  # a loop id in corpus/catalogue, or a loop directory (relative to the file)
    gate = "headings-with-content"   # optional: one of the loop's gates (default: the first not planted)

    [[nodes]]                  # ... or a task with its gate
    id = "notes"
    requirement = "..."
    target = "notes.json"
    gate = "gates/notes.toml"  # a gate file (corpus gate kinds), relative to the graph file
    files = "notes-start"      # optional: companions the workspace starts with
    drafts = "notes-drafts"    # optional: candidate artifacts for the simulated worker
    max_attempts = 3

    [[edges]]                  # data: notes consumes runbook (runbook's artifact is placed read-only
    from = "runbook"           # in notes' workspace at inputs/runbook/<target>)
    to = "notes"

    [[repairs]]                # when notes halts, re-run runbook (and everything reachable from it)
    from = "notes"
    to = "runbook"

Refused at load, with the file, the line and the key: data cycles; a repair edge whose target is
not upstream of its source; a node stating a per-node ``repair_budget`` (the paper's
counterexample: with per-node counters two nodes can repair each other for ever while every
declared bound holds, Fig. 9); nodes whose ``global_repair_budget`` disagree with each other or
with ``[graph] repair_budget`` (there is no correct way to choose among conflicting global
bounds).
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath
from typing import Callable

from corpus.catalogue import CATALOGUE_DIR, CatalogueError, load_loop
from corpus.gates import GateError, judge, load_gate
from harness.core import runio
from harness.core.engine import Engine
from harness.core.errors import InputError
from harness.core.outcomes import LoopEnding
from harness.core.tomlfile import load_toml
from harness.ledger.ledger import Ledger
from harness.loop.loop import DONE, HALT, JudgeFn, LoopBudget, LoopResult, LoopSpec, run_loop

GRAPH_KEYS = {"name", "repair_budget", "max_attempts", "soft_bound"}
NODE_KEYS = {"id", "loop", "gate", "requirement", "target", "files", "drafts", "max_attempts", "soft_bound",
             "global_repair_budget", "repair_budget"}
EDGE_KEYS = {"from", "to"}
PER_NODE_REFUSAL = ("per-node repair budgets are refused: each node would decrement only its own counter, so two "
                    "nodes that repair each other both see credit after every round and the run need not "
                    "terminate while every declared bound holds (Bounded Loops, Fig. 9; Theorem 5.2 needs one "
                    "global counter). Declare one [graph] repair_budget")


@dataclass
class Node:
    id: str
    spec: LoopSpec
    budget: LoopBudget
    loop_dir: Path | None = None       # a corpus loop node
    drafts: Path | None = None         # a task node's candidate artifacts for the simulated worker


@dataclass
class Graph:
    path: Path
    nodes: dict[str, Node]                        # in file order
    edges: list[tuple[str, str]]                  # data: (upstream, downstream)
    repairs: list[tuple[str, str]]                # (failing node, node to re-run)
    repair_budget: int

    def downstream(self, u: str) -> list[str]:
        """Reach(u): u and every node reachable from u by data edges, in topological order."""
        seen, stack = {u}, [u]
        while stack:
            x = stack.pop()
            for a, b in self.edges:
                if a == x and b not in seen:
                    seen.add(b)
                    stack.append(b)
        return [n for n in self.order() if n in seen]

    def upstream(self, v: str) -> list[str]:
        return [a for a, b in self.edges if b == v]

    def order(self) -> list[str]:
        """Kahn's topological order of the data edges, ties broken by file order."""
        indeg = {n: 0 for n in self.nodes}
        for _, b in self.edges:
            indeg[b] += 1
        ready = [n for n in self.nodes if indeg[n] == 0]
        out = []
        while ready:
            n = ready.pop(0)
            out.append(n)
            for a, b in self.edges:
                if a == n:
                    indeg[b] -= 1
                    if indeg[b] == 0:
                        ready.append(b)
            ready.sort(key=list(self.nodes).index)
        return out


def worst_case_attempts(graph: Graph) -> dict:
    """The closed-form worst-case attempt total of a bounded-loop graph (Bounded Loops, Theorem 5.2,
    "termination holds under repair, with the worst-case attempt total in closed form, if the
    repair budget is global"):

        T_max = sum_v N_v  +  R * max_{(d -> u) in repairs} sum_{w in Reach(u)} N_w

    where N_v is node v's hard attempt ceiling per pass, R the global repair budget, and Reach(u)
    the repaired node u with every node reachable from it by data edges (a repair returns exactly
    those to pending). Why: without repair every node runs at most one pass of at most N_v
    attempts; each repair spends one unit of the single counter, which is never reset, and
    re-opens at most one Reach(u), whose nodes then run at most one further pass each before the
    next failure. With no repair edge the second term is 0. The bound is attained by workers that
    are accepted only on their last allowed attempt and a repaired downstream node that halts
    every pass."""
    base = sum(n.budget.max_attempts for n in graph.nodes.values())
    per_repair = {f"{d}->{u}": sum(graph.nodes[w].budget.max_attempts for w in graph.downstream(u))
                  for d, u in graph.repairs}
    worst = max(per_repair.values(), default=0)
    return {"total": base + graph.repair_budget * worst, "sum_N": base, "repair_budget": graph.repair_budget,
            "max_repair_cost": worst, "repair_costs": per_repair,
            "formula": "sum_v N_v + R * max_{(d->u) in repairs} sum_{w in Reach(u)} N_w"}


# ------------------------------------------------------------------------------------------- loading
def _line(text: str, table: str, index: int, key: str | None = None) -> int | None:
    """The line of the index-th [[table]] header (or of ``key`` inside it) in the TOML text."""
    pat = r"^[ \t]*\[[ \t]*graph[ \t]*\]" if table == "graph" else rf"^[ \t]*\[\[[ \t]*{re.escape(table)}[ \t]*\]\]"
    heads = [m.start() for m in re.finditer(pat, text, re.M)]
    if index >= len(heads):
        return None
    start = heads[index]
    end = heads[index + 1] if index + 1 < len(heads) else len(text)
    pos = start
    if key is not None:
        body = text.find("\n", start) + 1 or end  # the header line's end
        nxt = re.search(r"^[ \t]*\[", text[body:end], re.M)
        stop = body + nxt.start() if nxt else end
        m = re.search(rf"^[ \t]*{re.escape(key)}[ \t]*=", text[start:stop], re.M)
        if m:
            pos = start + m.start()
    return text.count("\n", 0, pos) + 1


def _int(path, text, table, i, d, key, default=None, minimum=1):
    v = d.get(key, default)
    if v is None:
        return None
    if not isinstance(v, int) or isinstance(v, bool) or v < minimum:
        raise InputError(str(path), f"{table}.{key}", f"expected an integer >= {minimum}, got {v!r}",
                         _line(text, table, i, key))
    return v


def load_graph(path: str | Path, catalogue: Path | None = None) -> Graph:
    """A graph file, validated; every refusal is an InputError naming the file, line and key."""
    path = Path(path).resolve()
    data = load_toml(path)
    text = runio.read_text(path, "graph file")
    where = path.parent
    extra = sorted(set(data) - {"graph", "nodes", "edges", "repairs"})
    if extra:
        raise InputError(str(path), extra[0], "unknown table (expected [graph], [[nodes]], [[edges]], [[repairs]])")
    g = data.get("graph", {})
    if not isinstance(g, dict):
        raise InputError(str(path), "graph", "expected a table")
    for k in sorted(set(g) - GRAPH_KEYS):
        raise InputError(str(path), f"graph.{k}", f"unknown key (expected one of {sorted(GRAPH_KEYS)})",
                         _line(text, "graph", 0, k))
    graph_n = _int(path, text, "graph", 0, g, "max_attempts")
    graph_s = _int(path, text, "graph", 0, g, "soft_bound")
    graph_r = _int(path, text, "graph", 0, g, "repair_budget", minimum=0)
    nodes, stated = _nodes(path, text, data, graph_n, graph_s, where, catalogue)
    budget = _repair_budget(path, stated, graph_r)
    edges = _edges(path, text, data, "edges", nodes)
    repairs = _edges(path, text, data, "repairs", nodes)
    graph = Graph(path, nodes, edges, repairs, budget)
    order = graph.order()
    if len(order) < len(nodes):
        stuck = [n for n in nodes if n not in order]
        raise InputError(str(path), "edges", f"the data edges form a cycle through {', '.join(stuck)}: data edges "
                         "must form a DAG (a backward dependency is a [[repairs]] edge)")
    for i, (d, u) in enumerate(repairs):
        if u == d or d not in graph.downstream(u):
            raise InputError(str(path), f"repairs[{i}]", f"{u!r} is not upstream of {d!r}: a repair edge re-runs a "
                             "finished upstream node of the failing one", _line(text, "repairs", i))
    return graph


def _nodes(path: Path, text: str, data: dict, graph_n: int | None, graph_s: int | None, where: Path,
           catalogue: Path | None) -> tuple[dict[str, "Node"], dict[str, int]]:
    """The [[nodes]] tables: (nodes by id, the global repair budget each node states, if any).
    Each node has a unique id, an attempt ceiling (its own or [graph]'s) and no per-node repair
    budget (Bounded Loops: the repair budget is global)."""
    raw_nodes = data.get("nodes", [])
    if not isinstance(raw_nodes, list) or not raw_nodes:
        raise InputError(str(path), "nodes", "expected at least one [[nodes]] table")
    stated: dict[str, int] = {}
    nodes: dict[str, Node] = {}
    for i, nd in enumerate(raw_nodes):
        if not isinstance(nd, dict):
            raise InputError(str(path), f"nodes[{i}]", "expected a table", _line(text, "nodes", i))
        for k in sorted(set(nd) - NODE_KEYS):
            raise InputError(str(path), f"nodes[{i}].{k}", f"unknown key (expected one of {sorted(NODE_KEYS)})",
                             _line(text, "nodes", i, k))
        nid = nd.get("id")
        if not isinstance(nid, str) or not re.fullmatch(r"[A-Za-z0-9_.-]+", nid or ""):
            raise InputError(str(path), f"nodes[{i}].id", f"expected a name of letters, digits, _ . -, got {nid!r}",
                             _line(text, "nodes", i, "id"))
        if nid in nodes:
            raise InputError(str(path), f"nodes[{i}].id", f"duplicate node id {nid!r}", _line(text, "nodes", i, "id"))
        if "repair_budget" in nd:
            raise InputError(str(path), f"nodes[{i}].repair_budget", PER_NODE_REFUSAL,
                             _line(text, "nodes", i, "repair_budget"))
        gb = _int(path, text, "nodes", i, nd, "global_repair_budget", minimum=0)
        if gb is not None:
            stated[nid] = gb
        n = _int(path, text, "nodes", i, nd, "max_attempts", graph_n)
        if n is None:
            raise InputError(str(path), f"nodes[{i}].max_attempts", "no attempt ceiling: set it on the node or in "
                             "[graph] max_attempts (every loop needs a declared budget)", _line(text, "nodes", i))
        s = _int(path, text, "nodes", i, nd, "soft_bound", graph_s)
        nodes[nid] = _node(path, text, i, nd, nid, LoopBudget(n, s), where, catalogue)
    return nodes, stated


def _repair_budget(path: Path, stated: dict[str, int], graph_r: int | None) -> int:
    """The one global repair budget: [graph] repair_budget and every node's statement agree, and
    one of them declares it; conflicting bounds are refused, never resolved by picking one."""
    values = set(stated.values()) | ({graph_r} if graph_r is not None else set())
    if len(values) > 1:
        said = ", ".join(f"{k}={v}" for k, v in stated.items())
        raise InputError(str(path), "global_repair_budget",
                         f"the nodes disagree about the global repair budget ({said}"
                         + (f"; [graph] repair_budget={graph_r}" if graph_r is not None else "")
                         + "): there is no correct way to choose among conflicting global bounds, so the plan is "
                           "refused rather than adopting the first value found")
    if graph_r is None and not values:
        raise InputError(str(path), "graph.repair_budget", "missing: declare the one global repair budget "
                         "(0 for no repair)")
    return graph_r if graph_r is not None else values.pop()


def _edges(path, text, data, table, nodes) -> list[tuple[str, str]]:
    out = []
    raw = data.get(table, [])
    if not isinstance(raw, list):
        raise InputError(str(path), table, "expected [[" + table + "]] tables")
    for i, e in enumerate(raw):
        if not isinstance(e, dict) or set(e) != EDGE_KEYS:
            raise InputError(str(path), f"{table}[{i}]", "expected exactly the keys 'from' and 'to'",
                             _line(text, table, i))
        for k in ("from", "to"):
            if not isinstance(e[k], str) or e[k] not in nodes:
                raise InputError(str(path), f"{table}[{i}].{k}", f"no node {e[k]!r} (nodes: {', '.join(nodes)})",
                                 _line(text, table, i, k))
        out.append((e["from"], e["to"]))
    return out


def _node(path, text, i, nd, nid, budget, where: Path, catalogue: Path | None) -> Node:
    line = _line(text, "nodes", i)
    try:
        if "loop" in nd:
            if "requirement" in nd or "target" in nd:
                raise InputError(str(path), f"nodes[{i}]", "a node is a corpus loop (loop) or a task (requirement, "
                                 "target, gate), not both", line)
            ref = nd["loop"]
            if not isinstance(ref, str) or not ref.strip():
                raise InputError(str(path), f"nodes[{i}].loop", f"expected a loop id or directory (a string), got "
                                 f"{ref!r}", _line(text, "nodes", i, "loop"))
            cand = (where / ref) if (where / ref).is_dir() else Path(catalogue or CATALOGUE_DIR) / str(ref)
            if not (cand / "loop.toml").is_file():
                raise InputError(str(path), f"nodes[{i}].loop", f"no corpus loop {ref!r} (neither a directory "
                                 f"relative to the graph nor a loop id in {catalogue or CATALOGUE_DIR})",
                                 _line(text, "nodes", i, "loop"))
            loop = load_loop(cand)
            gates = loop.gates()
            if "gate" in nd:
                match = [g for g in gates if g.name == nd["gate"]]
                if not match:
                    raise InputError(str(path), f"nodes[{i}].gate", f"loop {loop.id} has no gate {nd['gate']!r} "
                                     f"(it has {', '.join(g.name for g in gates)})", _line(text, "nodes", i, "gate"))
                gate = match[0]
            else:
                gate = next((g for g in gates if g.status != "planted"), gates[0])
            spec = LoopSpec(nid, loop.requirement, loop.target, gate, loop.artifact_dir)
            return Node(nid, spec, budget, loop_dir=loop.dir)
        for k in ("requirement", "target", "gate"):
            if not isinstance(nd.get(k), str) or not nd[k].strip():
                raise InputError(str(path), f"nodes[{i}].{k}", "a task node needs a non-empty string "
                                 "(requirement, target, gate; or loop = a corpus loop)", line)
        t = PurePosixPath(nd["target"])
        if t.is_absolute() or ".." in t.parts or "\\" in nd["target"] or not t.parts or t.parts == (".",):
            raise InputError(str(path), f"nodes[{i}].target", f"expected a file path inside the workspace (relative, "
                             f"no '..'), got {nd['target']!r}: the worker may write exactly the target",
                             _line(text, "nodes", i, "target"))
        gate = load_gate(where / nd["gate"])
        for k in ("files", "drafts"):
            if k in nd and not isinstance(nd[k], str):
                raise InputError(str(path), f"nodes[{i}].{k}", f"expected a directory relative to the graph file (a "
                                 f"string), got {nd[k]!r}", _line(text, "nodes", i, k))
        files = (where / nd["files"]) if "files" in nd else None
        drafts = (where / nd["drafts"]) if "drafts" in nd else None
        for k, d in (("files", files), ("drafts", drafts)):
            if d is not None and not d.is_dir():
                raise InputError(str(path), f"nodes[{i}].{k}", f"no directory {d}", _line(text, "nodes", i, k))
        return Node(nid, LoopSpec(nid, nd["requirement"].strip(), nd["target"], gate, files), budget, drafts=drafts)
    except (CatalogueError, GateError, OSError) as exc:
        raise InputError(str(path), f"nodes[{i}]", str(exc), line) from None


# ------------------------------------------------------------------------------------------- running
@dataclass
class GraphResult:
    state: str                      # DONE (every node done) or HALT
    reason: str
    passes: list[LoopResult] = field(default_factory=list)
    repairs_used: int = 0

    @property
    def attempts(self) -> int:
        return sum(p.spent for p in self.passes)


WorkerFor = Callable[[Node, int], Engine]


def run_graph(graph: Graph, worker_for: WorkerFor, ledger: Ledger, *, run_id: str,
              judge_fn: JudgeFn = judge, extra: dict | None = None) -> GraphResult:
    """Run pending nodes in topological order. A node that halts (not on incapacity, which no
    retry can mend) with a repair edge and budget left spends one unit of the global counter:
    the repaired node and everything reachable from it return to pending, the repaired node
    re-runs from its last artifact with the failure as its first message. Otherwise the graph
    halts. DONE when every node is done."""
    status = {n: "pending" for n in graph.nodes}
    artifacts: dict[str, bytes | None] = {}
    passes = {n: 0 for n in graph.nodes}
    feedback: dict[str, str] = {}
    left = graph.repair_budget
    res = GraphResult(HALT, "")
    order = graph.order()
    while True:
        todo = [n for n in order if status[n] == "pending" and all(status[u] == DONE for u in graph.upstream(n))]
        if not todo:
            res.state, res.reason = DONE, "every node reached DONE with a gate verdict"
            return res
        nid = todo[0]
        node = graph.nodes[nid]
        passes[nid] += 1
        inputs = {f"inputs/{u}/{graph.nodes[u].spec.target}": art for u in graph.upstream(nid)
                  if (art := artifacts.get(u)) is not None}
        r = run_loop(node.spec, worker_for(node, passes[nid]), node.budget, ledger, run_id=run_id,
                     pass_no=passes[nid], start=artifacts.get(nid), judge_fn=judge_fn, inputs=inputs,
                     feedback=feedback.pop(nid, None), extra={"graph": graph.path.name, **(extra or {})})
        res.passes.append(r)
        artifacts[nid] = r.final_content
        if r.state == DONE:
            status[nid] = DONE
            continue
        edge = next(((d, u) for d, u in graph.repairs if d == nid), None)
        if r.ending in (LoopEnding.NO_PROGRESS, LoopEnding.CEILING) and edge is not None and left > 0:
            left -= 1
            res.repairs_used += 1
            for w in graph.downstream(edge[1]):
                status[w] = "pending"
            feedback[edge[1]] = f"downstream node {nid!r} failed ({r.reason}); revise this artifact"
            ledger.append({"run_id": run_id, "kind": "repair", "cell_key": f"{run_id}|repair|{res.repairs_used}",
                           "spent": False, "failed": nid, "rerun": graph.downstream(edge[1]), "budget_left": left,
                           **(extra or {})})
            continue
        why = ("no repair edge" if edge is None else "the global repair budget is spent" if left == 0
               else "incapacity is not repaired")
        res.state, res.reason = HALT, f"node {nid!r} halted ({r.reason}); {why}"
        return res
