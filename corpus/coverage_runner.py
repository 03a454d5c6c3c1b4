"""Run as a script by corpus/coverage_map.py: the gate's pytest suite under coverage.py, one
coverage context per test (its node id; "" while no test runs, i.e. at import and collection).

    python coverage_runner.py OUT.json ARTIFACT.py PYTEST-ARGS...

Writes {"order": [node ids], "contexts": {line: [node ids]}, "statements": [lines],
"modules": [[name, file]]} and exits with pytest's exit code. Imports only coverage, pytest and
the standard library.
"""
import json
import sys

import coverage
import pytest


class PerTestContext:
    def __init__(self, cov):
        self.cov = cov
        self.order = []

    @pytest.hookimpl(hookwrapper=True)
    def pytest_runtest_protocol(self, item, nextitem):
        node = f"{item.path}::{item.nodeid.split('::', 1)[1]}" if "::" in item.nodeid else str(item.path)
        self.order.append(node)
        self.cov.switch_context(node)
        yield
        self.cov.switch_context("")


def main(out_path: str, artifact: str, args: list[str]) -> int:
    cov = coverage.Coverage(data_file=None, include=[artifact], config_file=False)
    ctx = PerTestContext(cov)
    cov.start()
    try:
        code = int(pytest.main(args, plugins=[ctx]))
    finally:
        cov.stop()
    data = cov.get_data()
    measured = next((f for f in data.measured_files() if f == artifact), None)
    contexts = data.contexts_by_lineno(measured) if measured else {}
    statements = cov.analysis2(artifact)[1] if measured else []
    modules = [[name, getattr(m, "__file__", None) or ""] for name, m in list(sys.modules.items())]
    with open(out_path, "w") as f:
        json.dump({"order": ctx.order, "contexts": {str(k): sorted(v) for k, v in contexts.items()},
                   "statements": sorted(statements), "modules": modules}, f)
    return code


if __name__ == "__main__":
    sys.exit(main(sys.argv[1], sys.argv[2], sys.argv[3:]))
