"""Reviewer discrimination: reference endpoints, n/a denominators, no label leak."""
import inspect

from corpus import reviewer_discrimination as rd
from corpus.reviewer_discrimination import BLOCK, SHIP, Item, items_from_tasks, score, score_references


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


def test_read_task_dirs(tmp_path):
    d = tmp_path / "t1"
    (d / "candidates").mkdir(parents=True)
    (d / "candidates" / "a.diff").write_text("+x\n")
    (d / "task.toml").write_text('id = "t1"\nprompt = "do it"\n[candidates.a]\ndefective = true\n')
    recs = rd.read_task_dirs(tmp_path)
    assert recs == [{"id": "t1", "prompt": "do it", "candidates": [
        {"name": "a", "diff": "+x\n", "defective": True, "visible_pass": True}]}]
