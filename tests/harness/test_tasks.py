"""Every task in the corpus validates (the test suite runs `harness tasks validate`)."""
from __future__ import annotations

import pytest

from harness.errors import InputError
from harness.tasks import load_task, load_tasks
from harness.validate import cheating_candidates, validate_task
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
