"""A scenario hook: a hidden regression check a scenario in scenarios.toml may declare
(checks = [{ kind = "max_files", max = 20 }])."""
from harness.api import SCENARIOS


@SCENARIOS.register("max_files", stage="check")
def max_files(check: dict, final_tree, start_files: dict, final_files: dict) -> tuple[bool, str]:
    """The final tree holds at most `max` files."""
    n = len(final_files)
    return n <= int(check["max"]), f"{n} files (at most {check['max']})"
