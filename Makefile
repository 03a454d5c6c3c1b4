# Two-command quickstart: `make run` and `make test`. Both create .venv on first use.
# `make test` is the fast tier; `make test-all` (what CI runs, .ci/run) adds the slow end-to-end tier.
PY ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
QS := results/quickstart
BENCH_STAMP := $(VENV)/.installed-bench

.PHONY: run test test-all test-campaign bench clean browser tracer lint

$(STAMP): pyproject.toml
	test -x $(BIN)/python || $(PY) -m venv $(VENV)
	$(BIN)/python -m pip install -q --upgrade pip
	$(BIN)/python -m pip install -q -e '.[test,ray,inspect]'
	touch $(STAMP)

# The browser tests (tests/viewer/test_browser.py) drive Debian's Chromium and its driver; never a
# browser a tool downloads. Installed here when missing (root + apt, as on CI); elsewhere they skip
# with the reason, except under CI=true where a missing browser fails them.
browser:
	@if command -v chromium >/dev/null && command -v chromedriver >/dev/null; then :; \
	elif command -v apt-get >/dev/null && [ "$$(id -u)" = 0 ]; then \
	  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends \
	    chromium chromium-driver >/dev/null; \
	else echo "note: chromium/chromedriver missing and cannot be installed here: browser tests will skip"; fi

# The act recorder (harness.sandbox.syscalls, docs/kernel-record.md) runs Debian's strace around every
# sandboxed agent command and test run. Installed here when missing (root + apt, as on CI); elsewhere
# every run's record says it was not traced (the tool_log checks then fail closed).
tracer:
	@if command -v strace >/dev/null; then :; \
	elif command -v apt-get >/dev/null && [ "$$(id -u)" = 0 ]; then \
	  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends strace >/dev/null; \
	else echo "note: strace missing and cannot be installed here: the agent's acts will not be recorded"; fi

run: $(STAMP) tracer
	rm -rf $(QS)
	$(BIN)/harness run protocols/quickstart.toml --out $(QS) --workers 2; status=$$?; \
	$(BIN)/harness analyze $(QS)/records.jsonl --protocol protocols/quickstart.toml --out $(QS)/analysis && \
	$(BIN)/harness view $(QS) --out $(QS)/report && exit $$status

# Tiers: the `slow` marker is assigned in tests/conftest.py (one table, by node id). Both print the
# 15 slowest tests, and run on one xdist worker per core and one more (groups: tests/conftest.py's xdist_group):
# many tests wait (a deadline, a child's sleep, a lock), and with a worker per core the cores sat idle
# through them. A fresh clone's test-all on 2 cores: 1,280 s with 2 workers (CPU idle 10%), 1,023 s with 3 (2%).
WORKERS := $(shell echo $$(( $$(nproc) + 1 )))
test: $(STAMP) browser tracer lint
	$(BIN)/python -m pytest -q -m "not slow" -n $(WORKERS) --dist loadgroup --durations=15

test-all: $(STAMP) browser tracer lint
	$(BIN)/python -m pytest -q -m "not campaign" -n $(WORKERS) --dist loadgroup --durations=15

# the points of each sweep that test-all leaves out (tests/conftest.py SWEEPS: kill moments local and
# Ray, fault mixes, revoked-credential stages, the judge agreement study's and the task validation's other tasks,
# the nested-reply attack warm, ordered-set's mutants, the differential suite's other tasks; tests/conftest.py CAMPAIGN_TESTS;
# and the open red-team cases of CAMPAIGN_WHILE_OPEN)
test-campaign: $(STAMP)
	$(BIN)/python -m pytest -q -m campaign -n $(WORKERS) --dist loadgroup --durations=15

# habits (issue 12): ruff (pyflakes, statement errors, import order) and mypy, configured in pyproject.toml
lint: $(STAMP)
	$(BIN)/ruff check harness analysis corpus viewer interop benchmarks tests examples
	$(BIN)/mypy

# mutmut is a bench-only extra: benchmarks/bench_mutmut.py measures the corpus against it
$(BENCH_STAMP): $(STAMP)
	$(BIN)/python -m pip install -q -e '.[test,ray,inspect,bench]'
	touch $(BENCH_STAMP)

bench: $(BENCH_STAMP)
	$(BIN)/python -m benchmarks

clean:
	rm -rf $(VENV) $(QS)
