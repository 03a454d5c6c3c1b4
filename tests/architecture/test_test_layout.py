"""Tests are shelved like the code (issue 36, item 2): ``tests/`` mirrors the packages, so a module's
specification is found by its path, not by grep.

Every module of ``harness``, ``analysis``, ``corpus``, ``viewer`` and ``interop`` has a test file of its
name (``analysis/compare.py`` -> ``tests/analysis/test_compare.py``, ``harness/judge/testrun.py`` ->
``tests/harness/judge/test_testrun.py``), or an entry in ``WITHOUT_TEST_FILE`` that says why not and
names the test files that specify it. No test file is named after where its finding came from (a
review, an attack round, an issue): the origin goes in the file's docstring. tests/README.md says where
a new test goes.
"""
from __future__ import annotations

import re
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
PACKAGES = ("harness", "analysis", "corpus", "viewer", "interop")
NOT_MODULES = ("corpus/catalogue/", "corpus/examples/")  # the corpus's data: artifacts and gates, not code of ours
NOT_SPECIFIED_ALONE = {"__init__.py", "__main__.py"}

# The one table: a module with no test file of its name, why not, and the test files that specify it
# (or, for modules reached only through a command or a caller, the test files that reach it).
# It may only shrink: a module that gains a test file of its name leaves it (test below).
WITHOUT_TEST_FILE: dict[str, str] = {
    # harness: the command line's command modules are specified through the commands they register
    "harness/api.py": "the plug-in surface, re-exports only: tests/harness/cli/test_plugins.py installs a plug-in "
                      "that imports it, and tests/architecture/test_layers.py checks the plug-in imports nothing else",
    "harness/cli/docs_gen.py": "the generated reference pages (docs/reference): tests/architecture/test_docs.py",
    "harness/cli/corpus_reviewer.py": "the `harness corpus reviewer` command: tests/corpus/test_cli.py, tests/corpus/test_input_errors.py, "
                                      "tests/harness/cli/test_command_fault_attacks.py",
    "harness/cli/ledger_guard.py": "the ledger check before every reading command (analyze, compare, export, monitor, reproduce): "
                                   "tests/harness/cli/test_command_faults.py",
    "harness/cli/receipts_cli.py": "`harness receipts verify` and `harness rejudge`: tests/harness/run/test_tamper.py, "
                                   "tests/harness/run/test_receipts_verify.py",
    "harness/cli/reproduce_cli.py": "`harness reproduce`: tests/harness/loop/test_reproduce_loops.py, tests/analysis/test_paper.py",
    "harness/cli/schema_cli.py": "`harness schema`: tests/harness/test_pinned_outcomes.py, tests/harness/core/test_record.py",
    "harness/cli/validate.py": "`harness tasks validate`: tests/harness/core/test_tasks.py",
    # harness.control: the arms' parts, specified by the arms that use them
    "harness/control/attempt.py": "one attempt of an arm: tests/harness/control/test_arms.py, "
                                  "tests/harness/control/test_measurement_core.py",
    "harness/control/budget.py": "an arm's turn and token budget: tests/harness/control/test_arms.py, "
                                 "tests/harness/control/test_measurement_core.py",
    "harness/control/reviewer.py": "the reviewer an arm consults: tests/harness/control/test_arms.py, "
                                   "tests/harness/engines/test_simulated.py",
    "harness/control/tools.py": "the agent's tools, specified by the scoring path: tests/harness/control/test_scoring_path.py, "
                                "tests/harness/control/test_scoring_attacks.py, tests/harness/sandbox/test_workspace.py",
    # harness.core: types and small helpers, specified where they are read
    "harness/core/arm_params.py": "an arm's parameter dataclasses, filled from the protocol: "
                                  "tests/harness/core/test_typed_config.py, tests/harness/cli/test_plugins.py",
    "harness/core/builtin_parts.py": "the built-in parts' declarations (data, no behaviour): read through the "
                                     "registry in tests/harness/core/test_typed_config.py",
    "harness/core/engine.py": "the engine interface, specified by its engines: tests/harness/engines/test_simulated.py, "
                              "tests/harness/engines/test_wire.py",
    "harness/core/errors.py": "the exception root, specified with the exit-code table: tests/harness/core/test_exits.py",
    "harness/core/interval_methods.py": "the interval method names (data, no behaviour): reached by the "
                                        "protocol's validation in tests/harness/core/test_protocol.py",
    "harness/core/layout.py": "a run directory's file names: tests/harness/judge/test_treediff.py, tests/viewer/test_browser.py",
    "harness/core/matrix.py": "the cell matrix: tests/harness/core/test_protocol.py (including the paper's 9,240 cells)",
    "harness/core/pricing.py": "token prices: tests/harness/core/test_typed_config.py, tests/harness/engines/test_wire.py",
    "harness/core/registry.py": "the parts registry: tests/harness/cli/test_plugins.py, tests/harness/core/test_exits.py",
    "harness/core/roles.py": "the protocol's roles table: tests/harness/core/test_typed_config.py",
    "harness/core/scenarios.py": "the scenario table B1-B15: tests/harness/control/test_injections.py",
    "harness/core/scope.py": "path-scope globs, reached through the detectors' scope rules: "
                             "tests/harness/judge/test_detectors.py",
    "harness/core/statefile.py": "state files rewritten atomically: tests/harness/core/test_runio.py, "
                                 "tests/harness/run/test_fault_recovery.py",
    # harness.engines: the live engines are specified together, against a loopback provider
    "harness/engines/anthropic.py": "through the real SDK against a loopback server: tests/harness/engines/test_wire.py",
    "harness/engines/limiter.py": "the rate limiter of the live engines: tests/harness/engines/test_wire.py",
    "harness/engines/live.py": "what the live engines share: tests/harness/engines/test_wire.py, "
                               "tests/harness/engines/test_deadline.py",
    "harness/engines/openai.py": "through the real SDK against a loopback server: tests/harness/engines/test_wire.py",
    "harness/engines/replay.py": "replaying recorded transcripts: tests/harness/engines/test_sdk_cells.py, "
                                 "tests/harness/control/test_adversarial.py",
    "harness/engines/retry.py": "the live engines' retries: tests/harness/engines/test_wire.py, "
                                "tests/harness/engines/test_cut_reply_charging.py",
    "harness/engines/transcript.py": "transcripts read and written: tests/harness/core/test_input_loaders_fuzz.py, "
                                     "tests/harness/engines/test_wire.py",
    # harness.judge: the subject's side runs in another process, specified by the judged runs
    "harness/judge/probe_runtime.py": "the probe inside the subject: tests/harness/judge/test_identity.py, "
                                      "tests/harness/judge/test_probes.py",
    "harness/ledger/rundir.py": "a run's run.json, repaired after a kill: tests/harness/run/test_fault_recovery.py, "
                                "tests/harness/run/test_kill_campaign.py",
    "harness/loop/loop_workers.py": "a loop's workers: tests/harness/loop/test_loop.py, tests/harness/loop/test_loop_graph.py",
    "harness/run/bundle.py": "a run's exported bundle: tests/harness/run/test_tamper.py",
    "harness/run/cellrun.py": "one cell end to end: tests/harness/control/test_injections.py, "
                              "tests/harness/run/test_cellrun_faults.py, tests/architecture/test_cell_trace.py",
    "harness/run/pilot.py": "`harness run --pilot`: tests/harness/engines/test_cli_runs.py",
    "harness/run/records.py": "a run's records file, written and read: tests/harness/run/test_driver.py, "
                              "tests/harness/cli/test_command_faults_files.py",
    "harness/run/rejudge.py": "`harness rejudge`: tests/harness/run/test_tamper.py",
    "harness/sandbox/procs.py": "the processes a run leaves: tests/harness/run/test_fault_recovery.py",
    # analysis
    "analysis/cli.py": "the analysis commands, specified command by command: tests/analysis/test_pipeline.py, "
                       "tests/analysis/test_compare.py, tests/harness/cli/test_cli.py (lazy loading)",
    "analysis/compare_render.py": "compare's printed tables: tests/analysis/test_compare_statistics.py, "
                                  "tests/analysis/test_output_snapshot.py",
    "analysis/figures.py": "deterministic figures: tests/analysis/test_output_snapshot.py, tests/analysis/test_pipeline.py",
    "analysis/marginal.py": "marginal probabilities for the simulators: tests/analysis/test_coverage.py, "
                            "tests/analysis/test_power.py",
    "analysis/paired.py": "the paired statistics: tests/analysis/test_estimands.py, tests/analysis/test_stratified.py, "
                          "tests/analysis/test_compare_statistics.py",
    "analysis/paired_paper.py": "the paper's paired readout: tests/analysis/test_compare.py, tests/analysis/test_adjudicated.py",
    "analysis/pairs.py": "compare's matched pairs as columns: tests/analysis/test_fast_path_differential.py, "
                         "tests/analysis/test_compare_parallel.py",
    "analysis/report.py": "the analysis report: tests/analysis/test_estimands.py, tests/analysis/test_output_snapshot.py",
    "analysis/tables.py": "the per-arm tables: tests/analysis/test_records.py, tests/analysis/test_matching.py",
    # corpus
    "corpus/browse.py": "`harness corpus browse`: tests/corpus/test_developer_habits.py",
    "corpus/catalogue.py": "the catalogue of loops: tests/corpus/test_measure.py, tests/corpus/test_blindness.py",
    "corpus/code_change.py": "which function a mutant changes: tests/corpus/test_judgment_cache.py, "
                             "tests/corpus/test_fast_pytest_ordered_set.py",
    "corpus/config.py": "[tool.harness-corpus] and [tool.mutmut]: tests/corpus/test_developer_habits.py",
    "corpus/coverage_runner.py": "a script run by corpus/coverage_map.py: tests/corpus/test_coverage_map.py",
    "corpus/declarations.py": "the gate and hints loaders: tests/corpus/test_fuzz_declarations.py, "
                              "tests/corpus/test_input_errors.py",
    "corpus/forkserver.py": "the pre-imported pytest the fast path forks from: tests/corpus/test_fast_pytest.py",
    "corpus/freeze.py": "tier-2 authoring digests: tests/corpus/test_tier2_freeze.py",
    "corpus/junit.py": "JUnit XML output: tests/corpus/test_reports.py",
    "corpus/kill_history.py": "which test killed a mutant before: tests/corpus/test_fast_pytest_ordered_set.py",
    "corpus/model.py": "the corpus's data types: tests/corpus/test_operators.py, tests/corpus/test_equivalence.py",
    "corpus/operators/attestation.py": "an operator module: tests/corpus/test_operators.py, "
                                       "tests/corpus/test_operator_examples.py (every operator's declared examples)",
    "corpus/operators/commits.py": "an operator module: tests/corpus/test_operators.py, tests/corpus/test_operator_examples.py",
    "corpus/operators/common.py": "an operator module: tests/corpus/test_operators.py, tests/corpus/test_operator_examples.py",
    "corpus/operators/fine.py": "an operator module: tests/corpus/test_operators.py, tests/corpus/test_operator_examples.py",
    "corpus/operators/jsondoc.py": "an operator module: tests/corpus/test_operators.py, tests/corpus/test_operator_examples.py",
    "corpus/operators/lines.py": "helpers of the text operators: tests/corpus/test_operators.py",
    "corpus/operators/markdown.py": "an operator module: tests/corpus/test_operators.py, tests/corpus/test_operator_examples.py",
    "corpus/operators/pins.py": "an operator module: tests/corpus/test_operators.py, tests/corpus/test_operator_examples.py",
    "corpus/operators/python_src.py": "an operator module: tests/corpus/test_operators.py, "
                                      "tests/corpus/test_operator_examples.py",
    "corpus/operators/structured.py": "an operator module: tests/corpus/test_structured_kinds.py, "
                                      "tests/corpus/test_operator_examples.py",
    "corpus/operators/v2.py": "an operator family: tests/corpus/test_operators.py, tests/corpus/test_operator_examples.py",
    "corpus/report_html.py": "the per-gate HTML page: tests/corpus/test_reports.py, tests/corpus/test_cli.py",
    "corpus/survivors.py": "the survivor report: tests/corpus/test_reports.py",
    "corpus/screen_types.py": "the screen's closed-world kinds of a module's expressions, no rule of its own: reached by "
                              "tests/corpus/test_screen.py and tests/corpus/test_screen_semver.py (every rule fired, near misses kept)",
    "corpus/text.py": "text read from an artifact: tests/corpus/test_failure_handling.py",
    "corpus/tier2.py": "tier-2 metadata: tests/corpus/test_tier2_freeze.py, tests/corpus/test_measure.py",
    "corpus/workdir.py": "the measurement's scratch directory: tests/corpus/test_fast_pytest.py, "
                         "tests/corpus/test_scope_selection.py",
    # viewer: the pages are specified as files and in a browser
    "viewer/analysis_page.py": "a page of the site, built by `harness view`: tests/viewer/test_site.py, tests/viewer/test_browser.py",
    "viewer/celldata.py": "a cell's row and page data, read on the built pages: tests/viewer/test_site.py, "
                          "tests/viewer/test_browser.py",
    "viewer/cli.py": "`harness view`: tests/viewer/test_site.py, tests/harness/cli/test_cli.py (lazy loading)",
    "viewer/compare_page.py": "the comparison's HTML page, written by `harness compare`: tests/analysis/test_compare.py",
    "viewer/figures.py": "the overview's figures: tests/viewer/test_site.py",
    "viewer/overview.py": "the overview page: tests/viewer/test_site.py, tests/viewer/test_browser.py",
    "viewer/page.py": "the pages' shell and escaping: tests/viewer/test_site.py",
    "viewer/rundir.py": "a run directory read for the report: tests/viewer/test_site.py, tests/viewer/test_ledger_warning.py",
    # interop
    "interop/cli.py": "`harness export inspect`: tests/interop/test_inspect_logs.py, tests/harness/cli/test_cli.py",
}

# a name that says where a finding came from, not what it specifies: a review, a red team, an attack or
# review round (a28, r34b, s28, l22, m26), an issue
ORIGIN_NAME = re.compile(r"redteam|review(?!er)|round|issue\d|_[almrs]\d\d[a-z]?(?=_|$)")
TEST_PATH = re.compile(r"tests/[\w/]+\.py")


def modules() -> list[str]:
    """Every module of the packages (repository-relative paths), the corpus's data excepted."""
    found = []
    for pkg in PACKAGES:
        for path in sorted((REPO / pkg).rglob("*.py")):
            rel = path.relative_to(REPO).as_posix()
            if not rel.startswith(NOT_MODULES) and path.name not in NOT_SPECIFIED_ALONE:
                found.append(rel)
    return found


def specification_of(module: str) -> Path:
    """The test file of a module's name: tests/<package path>/test_<module>.py."""
    path = Path(module)
    return REPO / "tests" / path.parent / f"test_{path.stem}.py"




def test_every_module_has_a_test_file_of_its_name_or_says_why_not():
    missing = [m for m in modules() if not specification_of(m).is_file() and m not in WITHOUT_TEST_FILE]
    assert not missing, ("modules with no test file of their name (add tests/<package path>/test_<module>.py, or "
                         f"an entry in WITHOUT_TEST_FILE naming the tests that specify it): {missing}")


def test_the_table_only_names_modules_without_a_test_file_and_test_files_that_exist():
    known = set(modules())
    stale = [m for m in WITHOUT_TEST_FILE if m not in known or specification_of(m).is_file()]
    assert not stale, f"WITHOUT_TEST_FILE entries to remove (the module is gone or has its test file): {stale}"
    unnamed = [m for m, why in WITHOUT_TEST_FILE.items() if not TEST_PATH.search(why)]
    assert not unnamed, f"entries that name no test file specifying the module: {unnamed}"
    dangling = sorted({p for why in WITHOUT_TEST_FILE.values() for p in TEST_PATH.findall(why)
                       if not (REPO / p).is_file()})
    assert not dangling, f"WITHOUT_TEST_FILE names test files that do not exist: {dangling}"


def test_no_test_file_is_named_after_a_review_an_attack_round_or_an_issue():
    named = sorted(p.relative_to(REPO).as_posix() for p in (REPO / "tests").rglob("test_*.py")
                   if "data" not in p.relative_to(REPO).parts and ORIGIN_NAME.search(p.stem))
    assert not named, f"test files named after their origin (name the unit; put the origin in the docstring): {named}"


def test_the_origin_pattern_tells_origins_from_units():
    origins = ["test_redteam_a28", "test_review_issue11", "test_faults_r34b", "test_headline_r28", "test_speed_m26",
               "test_review_s28", "test_redteam_l22_audit", "test_faults_issue25", "test_round_two"]
    units = ["test_reviewer_discrimination", "test_treereading", "test_arms", "test_kill_campaign", "test_a4_rules",
             "test_rerun_accept_reuse", "test_s3_paths"]
    assert all(ORIGIN_NAME.search(n) for n in origins)
    assert not any(ORIGIN_NAME.search(n) for n in units)


def test_the_tests_of_a_package_sit_in_its_mirror():
    """A test directory under tests/ that is not support code mirrors a package directory."""
    extra = {"architecture", "support", "fixtures"}
    stray = sorted(d.relative_to(REPO / "tests").as_posix() for d in (REPO / "tests").rglob("*")
                   if d.is_dir() and "__pycache__" not in d.parts and "data" not in d.parts
                   and d.relative_to(REPO / "tests").parts[0] not in extra
                   and any(d.glob("test_*.py")) and not (REPO / d.relative_to(REPO / "tests")).is_dir())
    assert not stray, f"test directories that mirror no package directory: {stray}"
