"""Test tiers: the one place that says which tests are slow.

``make test`` runs the fast tier (``-m "not slow"``: unit, property, pinned outcomes, one browser
smoke test); ``make test-all`` (CI) runs everything. A test is slow when its file is in
``SLOW_FILES`` (unless named in ``FAST_IN_SLOW_FILES``) or it is in ``SLOW_TESTS`` (a test, every
parametrization, or one node id with its parameters). The marker is assigned here, by node id, so that tests are classified without
editing their files. Each entry carries the wall time measured for it (``--durations``, on a shared,
loaded 2-core machine) and why it belongs to the end-to-end tier. tests/test_tiers.py checks that
every entry still names a test that exists.
"""
from __future__ import annotations

import pytest

SLOW_FILES: dict[str, str] = {
    "tests/harness/test_judge_agreement.py": "the agreement study: every task x (start + every candidate) x (visible, oracle), judged against plain pytest (7-13 min)",
    "tests/harness/test_ray_cluster.py": "Ray cluster: starts head and worker nodes (271 s)",
    "tests/harness/test_executors.py": "Ray executor on two nodes, a killed worker re-queued (219 s)",
    "tests/engines/test_cells.py": "whole cells of every arm through the SDK clients against a local server (114 s)",
    "tests/engines/test_cli_runs.py": "end-to-end CLI runs: full disk, refused credentials, pilot (280 s)",
    "tests/harness/test_plugins.py": "builds and pip-installs the example plug-in, runs harness subprocesses (44 s)",
    "tests/harness/test_kill_campaign_issue25.py": "kill -9 of a 12-cell CLI run at seven moments, each resumed (~40 s each)",
    "tests/harness/test_kill_campaign_ray_issue25.py": "kill -9 of an 8-cell Ray CLI run (harness, Ray worker, raylet), each resumed (60-120 s each; three kill points here, all seven in make test-campaign)",
    "tests/viewer/test_browser.py": "headless Chromium through every page of the report (154 s)",
    # measured as summed durations of a two-worker fast-tier run on a loaded machine (load 7-9)
    "tests/harness/test_faults_issue25.py": "CLI runs killed, signalled, refused at their limits, each resumed (427 s)",
    "tests/engines/test_faults_issue25.py": "CLI runs through both SDKs with faults injected at a loopback provider (67 s)",
    "tests/engines/test_revoked_stages_issue25.py": "credentials revoked at six stages of a cell, both SDKs, each CLI run resumed (200-314 s)",
    "tests/analysis/test_compare.py": "two simulated runs through the CLI, compared (177 s; the paired statistics are unit-tested in test_paired)",
    "tests/interop/test_inspect_logs.py": "a simulated run exported to Inspect eval logs and read back (109 s)",
    "tests/harness/test_verdict_cache.py": "whole runs with and without the verdict cache (109 s)",
}
FAST_IN_SLOW_FILES: frozenset[str] = frozenset({
    # the one browser smoke test of the fast tier: the overview opens from file:// with no console error
    "tests/viewer/test_browser.py::test_overview_from_the_file_system",
})
SLOW_TESTS: dict[str, str] = {
    # measured in a fresh clone's fast tier (two workers, idle 2-core machine): 6m20s before these moved
    "tests/harness/test_driver.py::test_run_writes_one_valid_record_per_cell_and_is_deterministic":
        "two whole runs compared record by record (14.5 s)",
    "tests/harness/test_redteam_issue21_review_judge.py::test_no_run_reaches_another_runs_channel":
        "two judged runs at once, cold and warm, each up to ~10 s (21 s)",
    "tests/corpus/test_incremental.py::test_rerun_judges_nothing_and_an_edit_only_its_function":
        "three corpus runs over a module (12 s)",
    "tests/corpus/test_fast_pytest.py::test_fast_path_gives_the_cold_verdicts":
        "every mutant judged on the fast path and cold (10 s)",
    "tests/harness/test_tasks.py::test_task_validates":
        "every task's reference and candidates through the judge, both tests (422 s; the agreement study's subset)",
    "tests/harness/test_redteam_issue21_review.py::test_a_scenario_hook_on_an_agent_made_path_never_voids":
        "a whole cell per scenario hook and planted path (100 s)",
    "tests/harness/test_driver.py::test_kill_minus_9_mid_run_then_resume_leaves_one_record_per_key":
        "a CLI run killed with SIGKILL and resumed (32 s)",
    "tests/harness/test_adversarial.py::test_secret_in_any_encoding_is_found":
        "a whole cell per encoding of a planted secret (43 s)",
    "tests/corpus/test_speed_issue26.py::test_swap_verdicts_equal_the_fork_path_on_ordered_set":
        "ordered-set's mutants judged on both the swap and the fork path (tens of seconds)",
    "tests/corpus/test_incremental.py::test_a_reject_survives_an_edit_of_another_test_file":
        "two corpus runs over a module, a test file edited between them (tens of seconds)",
    "tests/engines/test_redteam_issue25b.py::"
    "test_a_proxy_url_that_is_not_a_url_is_bad_input_before_the_run_and_its_credentials_never_printed":
        "a harness CLI subprocess per URL (12 s each, most of it importing the command line)",
    "tests/harness/test_redteam_issue25b.py::test_a_sigint_the_parent_ignored_stays_ignored_during_start_up":
        "the whole start-up of the command line under repeated SIGINTs, per entry point (8-14 s each, loaded)",
    "tests/engines/test_proxy_issue25.py::test_a_socks_proxy_is_bad_input_before_the_run":
        "a harness CLI subprocess (10 s, most of it importing the command line)",
    "tests/engines/test_faults_issue25.py::test_faults_at_30_percent_provider_bill_within_ceiling_plus_declared_overrun":
        "the fault-injection run through both SDKs: a CLI run and its resumes per SDK and cut kind (53 s each)",
    "tests/corpus/test_measure.py::test_planted_vacuous_gates_found_and_repaired_gates_clean_over_v1":
        "the catalogue loop: measures seven catalogue loops' gates against every v1 mutant (40 s setup)",
    "tests/engines/test_budget.py::test_a_malformed_reply_the_retry_layer_discarded_is_charged_against_the_ceiling":
        "a run per SDK whose retry layer re-sends (13 s each)",
    "tests/harness/test_redteam_issue21_links.py::test_a_chain_past_the_recursion_limit_and_path_max":
        "builds and removes a 2,500-deep directory chain (was 10,000 deep: 47 s, each rmdir O(depth))",
    "tests/harness/test_redteam_issue21_links.py::test_a_hundred_thousand_files_stop_the_walk_but_not_the_start_files":
        "makes 100,000 files (25 s)",
    "tests/harness/test_redteam_issue21_links.py::test_cell_tree_attack_never_voids_and_the_unsafe_edit_is_scored":
        "whole cells, cold and warm, each building a tree past a limit (deep chain, 100k files, sparse files)",
}


def is_slow(nodeid: str) -> bool:
    """Whether the test with pytest node id ``nodeid`` belongs to the slow tier."""
    path, _, name = nodeid.partition("::")
    test = f"{path}::{name.split('[')[0]}"
    if path in SLOW_FILES:
        return test not in FAST_IN_SLOW_FILES
    return test in SLOW_TESTS or nodeid in SLOW_TESTS  # a whole test, or one parametrization of it


# Both tiers run on two pytest-xdist workers with ``--dist loadgroup``. A test file is one group (its
# module fixtures are built once, on one worker); the files that start Ray clusters share a group, so
# two clusters never run at once (their tests count the cluster's worker processes). The groups are
# read by GroupScheduling (pytest_xdist_make_scheduler below), from the node id, in the controller:
# pytest-xdist's own loadgroup reads an ``xdist_group`` mark by rewriting each item's node id on the
# worker, which pytest 9.2 no longer lets it do (pytest-xdist issue 1386: every test was scheduled on
# its own, so a file's module fixtures were built on both workers and the Ray files ran at once).
SERIAL_GROUPS: dict[str, str] = {
    "tests/harness/test_ray_cluster.py": "ray",
    "tests/harness/test_executors.py": "ray",
    "tests/harness/test_kill_campaign_ray_issue25.py": "ray",
}


# Files of many independent, long parametrizations with no module fixture worth sharing: each test
# is its own group, so a file of minutes does not run on one worker at the end of the run.
SPLIT_FILES: frozenset[str] = frozenset({
    "tests/harness/test_judge_agreement.py",
    "tests/harness/test_tasks.py",
})


def xdist_group(nodeid: str) -> str:
    """The pytest-xdist group of the test with node id ``nodeid``: its file, a shared group, or
    (in ``SPLIT_FILES``) the test itself."""
    path = nodeid.partition("::")[0]
    if path in SPLIT_FILES:
        return nodeid
    return SERIAL_GROUPS.get(path, path)


@pytest.hookimpl(tryfirst=True)  # before `-m "not slow"` deselects by the mark
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    for item in items:
        if is_slow(item.nodeid):
            item.add_marker(pytest.mark.slow)


def group_scheduling() -> type:
    """pytest-xdist's scope scheduler with ``xdist_group`` as the scope: each group is one work unit,
    sent whole to one worker (units in decreasing number of tests, as loadscope orders them)."""
    from xdist.scheduler import LoadScopeScheduling

    class GroupScheduling(LoadScopeScheduling):
        def _split_scope(self, nodeid: str) -> str:
            return xdist_group(nodeid)

    return GroupScheduling


@pytest.hookimpl(optionalhook=True)  # a pytest-xdist hook: this file also loads without xdist
def pytest_xdist_make_scheduler(config: pytest.Config, log: object) -> object | None:
    """Our groups for ``--dist loadgroup``; any other ``--dist`` is pytest-xdist's own."""
    if config.getvalue("dist") != "loadgroup":
        return None
    return group_scheduling()(config, log)
