"""Every task in the corpus validates (the test suite runs `harness tasks validate`)."""
from __future__ import annotations

import pytest

from harness.cli.validate import cheating_candidates, validate_task
from harness.core.errors import InputError
from harness.core.tasks import load_task, load_tasks
from support.scripted import TASKS

ALL = sorted(load_tasks(TASKS))


@pytest.mark.parametrize("tid", ALL)
def test_task_validates(tid):
    failures = [c for c in validate_task(load_task(TASKS / tid), TASKS) if not c.ok]
    assert not failures, [(c.name, c.detail) for c in failures]


def test_every_test_repair_task_is_validated_against_a_mutant_recognising_suite():
    """For test-repair tasks the validator adds a suite that tells the oracle's mutants apart by
    identity (module, qualified name, file) only; other tasks get the two code cheats alone."""
    repair = [tid for tid in ALL if load_task(TASKS / tid).category == "test-repair"]
    assert sorted(repair) == ["expiry-tests-clock", "merge-intervals-tests", "slugify-tests-v2"]
    for tid in repair:
        task = load_task(TASKS / tid)
        cheat = cheating_candidates(task)["mutant-recognising"]
        guarded = [p for p, t in cheat.items() if "_hx_genuine" in t]
        assert guarded and all(p.startswith("tests/") for p in guarded), (tid, sorted(cheat))
        compile(cheat[guarded[0]], guarded[0], "exec")
    assert "mutant-recognising" not in cheating_candidates(load_task(TASKS / "median"))


def test_bad_task_toml_names_file_and_field(tmp_path):
    import shutil
    shutil.copytree(TASKS / "median", tmp_path / "median")
    f = tmp_path / "median" / "task.toml"
    f.write_text(f.read_text().replace('kind = "plausible_wrong"', 'kind = "sneaky"'))
    with pytest.raises(InputError) as ei:
        load_task(tmp_path / "median")
    assert ei.value.field == "candidates[1].kind" and str(f) in str(ei.value)


def test_reading_a_tree_of_sparse_files_takes_bounded_memory(tmp_path):
    import tracemalloc

    from harness.core.tasks import read_tree
    with open(tmp_path / "big.bin", "wb") as fh:
        fh.truncate(64 << 20)  # the per-file limit of a confined command; no disk used
    tracemalloc.start()
    try:
        read_tree(tmp_path)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert peak < 16 << 20, f"reading one 64 MB sparse file took {peak >> 20} MB"


def test_reading_many_sparse_files_stops_at_the_total_size_limit(tmp_path):
    """An agent's command makes sparse files for free; past the tree's total size limit
    (safefs.TreeLimits.max_total_bytes) the rest are markers naming the limit, never read, and the
    memory the reading takes stays bounded however many there are."""
    import tracemalloc

    from harness.core.safefs import DEFAULT_LIMITS
    from harness.core.tasks import LIMIT_MARK, read_tree
    n = DEFAULT_LIMITS.max_total_bytes // (64 << 20) + 20
    for i in range(n):
        with open(tmp_path / f"big{i:03d}.bin", "wb") as fh:
            fh.truncate(64 << 20)
    tracemalloc.start()
    try:
        files = read_tree(tmp_path)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert peak < 16 << 20, f"reading {n} 64 MB sparse files took {peak >> 20} MB"
    assert len(files) == n
    over = [p for p, t in files.items() if t.startswith(LIMIT_MARK)]
    assert len(over) == 20 and all("total size" in files[p] for p in over)
