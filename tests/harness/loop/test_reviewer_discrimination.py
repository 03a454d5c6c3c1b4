"""Reviewer discrimination: reference endpoints, n/a denominators, no label leak."""
import inspect

from harness.loop import reviewer_discrimination as rd
from harness.loop.reviewer_discrimination import BLOCK, SHIP, Item, items_from_tasks, score, score_references


def corpus_items():
    return [Item("p1", "diff-wrong-1", True), Item("p1", "diff-good-1", False),
            Item("p2", "diff-wrong-2", True), Item("p2", "diff-good-2", False), Item("p3", "diff-wrong-3", True)]


def test_reference_endpoints():
    s = {r.reviewer: r for r in score_references(corpus_items())}
    assert s["test-only"].pair == (0.0, 0.0)
    assert s["block-all"].pair == (1.0, 1.0)
    assert s["oracle"].pair == (1.0, 0.0)
    assert s["oracle"].catch_rate.n == 3 and s["oracle"].false_block.n == 2


def test_empty_and_all_genuine_are_na():
    for items in ([], [Item("p", "d", False)]):
        s = {r.reviewer: r for r in score_references(items)}
        for r in s.values():
            assert r.catch_rate.rate is None and r.catch_rate.fmt() == "n/a (0/0)"
    s = {r.reviewer: r for r in score_references([Item("p", "d", True)])}
    assert s["block-all"].false_block.rate is None


def test_no_verdict_counted_apart():
    r = score(lambda p, d: None if d.endswith("1") else BLOCK, corpus_items())
    assert r.no_verdict_defective == 1 and r.no_verdict_genuine == 1
    assert (r.catch_rate.k, r.catch_rate.n) == (2, 2) and (r.false_block.k, r.false_block.n) == (1, 1)


def test_reviewer_never_sees_label():
    seen = []

    def spy(*args, **kwargs):
        seen.append((args, kwargs))
        return SHIP

    items = corpus_items()
    score(spy, items)
    assert all(kw == {} and len(a) == 2 and all(isinstance(x, str) for x in a) for a, kw in seen)
    assert all("defective" not in x and "True" != x for a, _ in seen for x in a)
    assert len(inspect.signature(rd.block_all).parameters) == 2


def test_items_from_tasks_as_data():
    tasks = [{"id": "t1", "prompt": "fix bug", "candidates": [
        {"name": "good", "diff": "+a", "defective": False},
        {"name": "plausible-wrong", "diff": "+b", "defective": True, "visible_pass": True}]}]
    items = items_from_tasks(tasks)
    assert [(i.id, i.is_defective) for i in items] == [("t1/good", False), ("t1/plausible-wrong", True)]
    assert {r.reviewer: r.pair for r in score_references(items)}["oracle"] == (1.0, 0.0)


def test_read_task_dirs_from_the_real_pilot_tasks():
    """Defective items are the plausible-wrong candidates; controls the reference/correct ones;
    no candidate name, kind or defect text reaches the diff a reviewer sees."""
    from pathlib import Path

    from harness.core.tasks import load_tasks
    root = Path(__file__).resolve().parents[3] / "tasks"
    tasks = load_tasks(root, ["parse-range", "median"])
    import shutil
    import tempfile
    tmp = Path(tempfile.mkdtemp())
    for tid in tasks:
        shutil.copytree(root / tid, tmp / tid)
    recs = rd.read_task_dirs(tmp)
    items = items_from_tasks(recs)
    assert sorted((i.id, i.is_defective) for i in items) == [
        ("median/lower-middle", True), ("median/reference", False),
        ("parse-range/falsy-guard", True), ("parse-range/reference", False)]
    for i in items:
        t = tasks[i.id.split("/")[0]]
        for c in t.candidates:
            assert c.name not in i.diff and (not c.defect or c.defect not in i.diff)
        assert "plausible" not in i.diff and "oracle" not in i.diff.lower()
    s = {r.reviewer: r.pair for r in score_references(items)}
    assert s == {"test-only": (0.0, 0.0), "block-all": (1.0, 1.0), "oracle": (1.0, 0.0)}
    sim = score(rd.engine_reviewer("simulated", tmp), items, name="simulated")
    assert sim.catch_rate.n == 2 and sim.false_block.n == 2
    shutil.rmtree(tmp)

