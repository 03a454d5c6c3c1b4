"""The tier table (tests/conftest.py) names tests that exist, and classifies node ids as it says."""
from __future__ import annotations

import ast
from collections import defaultdict
from pathlib import Path
from types import SimpleNamespace

import conftest as tiers

ROOT = Path(__file__).resolve().parents[2]


def _defined_tests(path: Path) -> set[str]:
    return {n.name for n in ast.walk(ast.parse(path.read_text()))
            if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef)) and n.name.startswith("test_")}


def test_every_entry_names_an_existing_file_and_test():
    stale = [f for f in tiers.SLOW_FILES if not (ROOT / f).is_file()]
    for entry in [*tiers.FAST_IN_SLOW_FILES, *tiers.SLOW_TESTS]:
        path, _, name = entry.partition("::")
        if not (ROOT / path).is_file() or name.split("[")[0] not in _defined_tests(ROOT / path):
            stale.append(entry)
    assert not stale, f"tier entries naming no test (renamed or moved? update tests/conftest.py): {stale}"


def test_exceptions_to_a_slow_file_are_in_a_slow_file():
    assert all(e.partition("::")[0] in tiers.SLOW_FILES for e in tiers.FAST_IN_SLOW_FILES)


def test_classification():
    browser = "tests/viewer/test_browser.py::"
    assert tiers.is_slow(browser + "test_one_cell_page_per_outcome_kind[amplified]")
    assert not tiers.is_slow(browser + "test_overview_from_the_file_system")
    assert tiers.is_slow("tests/harness/run/test_ray_cluster.py::test_anything[x]")
    assert not tiers.is_slow("tests/harness/test_pinned_outcomes.py::test_outcomes_per_cell_key_are_pinned[quickstart]")
    slow_test = next(iter(tiers.SLOW_TESTS))
    assert tiers.is_slow(slow_test + "[anthropic]") and tiers.is_slow(slow_test)
    assert not tiers.is_slow(slow_test + "_and_more")


def test_xdist_groups_keep_a_file_together_and_the_ray_files_on_one_worker():
    assert tiers.xdist_group("tests/harness/core/test_wilson.py::test_x[1]") == "tests/harness/core/test_wilson.py"
    assert tiers.xdist_group("tests/harness/core/test_wilson.py::test_y") == "tests/harness/core/test_wilson.py"
    ray = {tiers.xdist_group(f + "::test_z") for f in ("tests/harness/run/test_ray_cluster.py",
                                                       "tests/harness/run/test_executors.py")}
    assert len(ray) == 1 and all((ROOT / f).is_file() for f in tiers.SERIAL_GROUPS)
    split = "tests/harness/judge/test_judge_agreement.py::test_judged_verdict_equals_plain_pytest"
    assert tiers.xdist_group(split + "[a]") != tiers.xdist_group(split + "[b]")
    assert all((ROOT / f).is_file() for f in tiers.SPLIT_FILES)


class _Worker:
    """A stand-in for a pytest-xdist worker: it records the test indexes it is sent, in order."""

    def __init__(self, name: str):
        self.name, self.sent, self.shutting_down = name, [], False
        self.gateway = SimpleNamespace(id=name)

    def send_runtest_some(self, indexes: list[int]) -> None:
        self.sent.extend(indexes)

    def shutdown(self) -> None:
        self.shutting_down = True


def _scheduled(ids: list[str], dist: str = "loadgroup") -> dict[str, set[str]]:
    """Which worker each test of ``ids`` is sent to by the scheduler tests/conftest.py makes for two
    workers, each finishing its tests in the order sent (the loop pytest-xdist's controller runs)."""
    config = SimpleNamespace(getvalue={"dist": dist, "tx": ["2*popen"]}.get,
                             option=SimpleNamespace(loadscopereorder=True))
    sched = tiers.pytest_xdist_make_scheduler(config=config, log=None)
    workers = [_Worker("gw0"), _Worker("gw1")]
    for w in workers:
        sched.add_node(w)
        sched.add_node_collection(w, ids)
    sched.schedule()
    where, done = defaultdict(set), {w: 0 for w in workers}
    while any(done[w] < len(w.sent) for w in workers):
        for w in workers:
            if done[w] < len(w.sent):
                where[ids[w.sent[done[w]]]].add(w.name)
                sched.mark_test_complete(w, w.sent[done[w]])
                done[w] += 1
    assert sorted(where) == sorted(ids) and sched.tests_finished
    return where


def test_the_scheduler_sends_each_group_whole_to_one_worker():
    files = {"tests/harness/core/test_wilson.py": 6, "tests/harness/run/test_ray_cluster.py": 3,
             "tests/harness/run/test_executors.py": 3, "tests/viewer/test_site.py": 5}
    ids = [f"{f}::test_{i}" for f, n in files.items() for i in range(n)]
    ids += [f"tests/harness/judge/test_judge_agreement.py::test_judged_verdict_equals_plain_pytest[{i}]" for i in range(4)]
    where = _scheduled(ids)
    by_group = defaultdict(set)
    for nodeid, workers in where.items():
        assert len(workers) == 1, nodeid
        by_group[tiers.xdist_group(nodeid)] |= workers
    assert all(len(w) == 1 for w in by_group.values()), by_group  # a file (or the Ray pair) on one worker
    assert len(by_group) == 3 + 4  # wilson, the Ray pair, site; each split parametrization its own unit
    assert tiers.pytest_xdist_make_scheduler(config=SimpleNamespace(getvalue={"dist": "load"}.get), log=None) is None


def test_a_sweep_keeps_its_named_points_in_test_all_and_marks_the_rest_campaign():
    test = "tests/harness/run/test_kill_campaign_ray.py::test_kill_9_of_a_ray_run_leaves_nothing_running_and_resume_completes"
    assert not tiers.is_campaign(test + "[records-3]") and tiers.is_campaign(test + "[records-1]")
    assert not tiers.is_campaign("tests/harness/core/test_wilson.py::test_x[1]")
    assert all((ROOT / t.partition("::")[0]).is_file() for t in tiers.SWEEPS)


def test_a_kept_point_that_no_longer_exists_is_a_collection_error():
    test = next(iter(tiers.SWEEPS))
    try:
        tiers.tier_sweeps([test + "[a-point-that-was-renamed]"])
    except Exception as exc:  # pytest.UsageError
        assert "no longer exist" in str(exc)
    else:
        raise AssertionError("a stale kept id passed")


AGREEMENT = "tests/harness/judge/test_judge_agreement.py::test_judged_verdict_equals_plain_pytest"
VALIDATION = "tests/harness/core/test_tasks.py::test_task_validates"


def _agreement_tasks() -> set[str]:
    return {point.split("/")[0] for point in tiers.SWEEPS[AGREEMENT][0]}


def test_the_agreement_sweep_in_test_all_covers_every_task_category_once():
    """One task per category, with its reference and every plausible-but-wrong candidate (the trees a
    lenient judge would pass; the starting tree and the broken candidates run in the campaign)."""
    from harness.core.tasks import load_tasks
    from support.scripted import TASKS
    tasks = load_tasks(TASKS)
    categories = sorted(tasks[t].category for t in _agreement_tasks())
    assert categories == sorted({t.category for t in tasks.values()})
    for tid in _agreement_tasks():
        want = {f"{tid}/{c.name}" for c in tasks[tid].candidates if c.kind in ("correct", "plausible_wrong")}
        assert want <= tiers.SWEEPS[AGREEMENT][0], sorted(want - tiers.SWEEPS[AGREEMENT][0])


def test_the_validation_sweep_in_test_all_is_four_categories_of_the_agreement_sweeps_tasks():
    from harness.core.tasks import load_tasks
    from support.scripted import TASKS
    tasks = load_tasks(TASKS)
    kept = tiers.SWEEPS[VALIDATION][0]
    assert kept <= _agreement_tasks() and len({tasks[t].category for t in kept}) == len(kept) >= 4


def test_a_test_whose_open_cases_run_in_the_campaign_names_a_test_and_is_slow():
    for entry in tiers.CAMPAIGN_WHILE_OPEN:
        path, _, name = entry.partition("::")
        assert (ROOT / path).is_file() and name in _defined_tests(ROOT / path), entry
        assert tiers.is_slow(entry), entry


def test_a_campaign_test_names_a_test_and_is_slow_so_the_fast_tier_never_runs_it():
    for entry in tiers.CAMPAIGN_TESTS:
        path, _, name = entry.partition("::")
        assert (ROOT / path).is_file() and name in _defined_tests(ROOT / path), entry
        assert tiers.is_slow(entry) and tiers.is_campaign(entry) and tiers.is_campaign(entry + "[x]"), entry


def test_a_cold_point_is_slow_and_a_rule_specs_cold_point_runs_in_the_campaign_unless_a_sweep_keeps_it():
    spec = "tests/harness/judge/test_atk25_attacks.py::test_x[cold-a]"
    boundary = "tests/harness/judge/test_subject_end_attacks.py::test_x[cold-a]"
    assert tiers.executor_tier(spec, "cold") == (True, True)
    assert tiers.executor_tier(boundary, "cold") == (True, False)  # the executor's own rules keep cold in test-all
    assert tiers.executor_tier(spec, "warm") == tiers.executor_tier(spec, None) == (False, False)
    assert all((ROOT / f).is_file() for f in tiers.COLD_IN_CAMPAIGN_FILES)
    kept = [(t, p) for t, (ps, _) in tiers.SWEEPS.items() for p in ps if "cold" in p.split("-")
            and t.partition("::")[0] in tiers.COLD_IN_CAMPAIGN_FILES]
    for test, param in kept:  # a cold point a sweep keeps stays in test-all
        assert tiers.executor_tier(f"{test}[{param}]", "cold") == (True, False)
