# Two-command quickstart: `make run` and `make test`. Both create .venv on first use.
PY ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
BENCH_STAMP := $(VENV)/.installed-bench

.PHONY: run test bench clean

$(STAMP): pyproject.toml
	test -x $(BIN)/python || $(PY) -m venv $(VENV)
	$(BIN)/python -m pip install -q --upgrade pip
	$(BIN)/python -m pip install -q -e '.[test,ray]'
	touch $(STAMP)

run: $(STAMP)
	rm -rf results/quickstart
	$(BIN)/harness run protocols/quickstart.toml --out results/quickstart --workers 2

test: $(STAMP)
	$(BIN)/python -m pytest -q

# mutmut is a bench-only extra: benchmarks/bench_mutmut.py measures the corpus against it
$(BENCH_STAMP): $(STAMP)
	$(BIN)/python -m pip install -q -e '.[test,ray,bench]'
	touch $(BENCH_STAMP)

bench: $(BENCH_STAMP)
	$(BIN)/python -m benchmarks

clean:
	rm -rf $(VENV) results/quickstart
