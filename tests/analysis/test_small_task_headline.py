"""Review s28 of the small-task headline rule (issue 24) and the unreported token sub-fields (issue 23).

Formerly ``tests/analysis/test_review_s28.py``, named after its origin."""
from analysis.estimands import STRAT_MAX_TASKS_PER_CELL, conditional_block, small_task_bias, stratified_headline_refusal
from analysis.paired import PairedCounts
from harness.core.engine import Usage
from harness.run.cellrun import _sub_field


def _tasks(k: int, n: int, b: int) -> list[PairedCounts]:
    return [PairedCounts(n=n, b=b, c=0, k_a=b, k_b=0) for _ in range(k)]


def test_small_task_bias_hand_worked():
    """24 tasks x 5 cells, one discordant each: sum(1/5 * 1)/24 = 0.2 = tasks/cells. 20 tasks of 2 cells with
    one discordant cell each beside 1,000 concordant: tasks/cells = 21/1040, the discordant cells' mean 1/n_k
    is 1/2. Discordance all in a 100-cell task beside a 1-cell task: max(2/101, 1/100) = 2/101."""
    assert abs(small_task_bias(_tasks(24, 5, 1)) - 0.2) < 1e-12
    assert small_task_bias(_tasks(20, 2, 1) + [PairedCounts(1000, 0, 0, 0, 0)]) == 0.5
    assert small_task_bias([PairedCounts(100, 3, 0, 3, 0), PairedCounts(1, 0, 0, 0, 0)]) == 2 / 101


def test_exactly_twenty_cells_per_task_heads_stratified_as_power_simulates():
    """Equal tasks of 1/STRAT_MAX_TASKS_PER_CELL = 20 cells are at the threshold (bias = 1/20, not above it):
    harness power (tasks/cells = 0.05 exactly) simulates the stratified interval there, so analyze must head
    with it too. Floating-point summation gave 0.05000000000000001 for 3 tasks of 20 with 1 discordant cell
    each, and pooled Tango headed."""
    per_task = round(1 / STRAT_MAX_TASKS_PER_CELL)
    for k, b in [(3, 1), (3, 2), (3, 4), (10, 7), (11, 7)]:
        strata = _tasks(k, per_task, b)
        assert stratified_headline_refusal(k, k * per_task) is None  # power's decision
        assert stratified_headline_refusal(k, k * per_task, small_task_bias(strata)) is None, (k, b)
        pc = PairedCounts(n=k * per_task, b=k * b, c=0, k_a=k * b, k_b=0)
        assert conditional_block(pc, 0.05, strata)["interval"] == "stratified"


def test_sub_field_of_a_call_without_usage_is_null():
    """A call that reported no usage (Usage(missing=1)) has unknown cached and reasoning counts too: the
    cell's sub-field sum over the other calls is partial, so null like tokens_in, never a count."""
    u = Usage(input_tokens=10, output_tokens=5, cache_read_tokens=7, reasoning_tokens=3)
    u.add(Usage(missing=1))
    for name in ("cache_read", "cache_write", "reasoning"):
        assert _sub_field(u, name) is None, name
    assert _sub_field(Usage(input_tokens=1, cache_read_tokens=7), "cache_read") == 7
