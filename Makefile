# ccsim: the two commands a newcomer needs are `make demo` and `make test`.
# Needs only python3 (>= 3.11), pip and cargo; everything else installs from the package
# registries into .venv, pinned by requirements.lock and Cargo.lock.

PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.ccsim-installed
RUST_SOURCES := $(shell find crates -name '*.rs' -o -name Cargo.toml) Cargo.toml Cargo.lock

.PHONY: demo test test-full fuzz install lint test-rust test-python bench clean

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)

$(VENV)/.deps: requirements.lock | $(BIN)/python
	$(BIN)/python -m pip install --quiet --disable-pip-version-check -r requirements.lock
	touch $@

$(STAMP): $(VENV)/.deps pyproject.toml $(RUST_SOURCES) $(shell find python -name '*.py')
	VIRTUAL_ENV=$(abspath $(VENV)) $(BIN)/maturin develop --release --quiet --locked
	touch $@

install: $(STAMP)

demo: install
	$(BIN)/ccsim run scenarios/examples/keshav-s1-jk-fcfs.toml --out results/demo/keshav-s1
	$(BIN)/ccsim reproduce keshav91 --quick --out results/keshav91
	@echo
	@echo "Outputs: results/demo/keshav-s1/ (one scenario: summary.json, *.parquet, cwnd.png, queues.png)"
	@echo "         results/keshav91/report.html and report.md (Keshav 1991 chapter 6, simulated beside the thesis)"

# Formatting (rustfmt.toml) and clippy, warnings as errors: seconds, and they keep the tree uniform.
lint:
	cargo fmt --all --check
	cargo clippy --locked --workspace --all-targets --quiet -- -D warnings

test-rust:
	cargo test --locked -p ccsim --quiet

test-python: install
	$(BIN)/python -m pytest -q

test: install lint test-rust test-python

# The full reproductions (pytest marker `slow`, left out of `make test`), the longest Cui
# chapter 3 (about 24 min on 2 cores), then Hua 2002 (about 7.5) and Cui chapter 4 (about 1).
test-full: install
	$(BIN)/python -m pytest -q -m slow

# The long fuzzing pass over the scenario input (the default suite runs 45 s of it):
# 100 000 mutated scenarios, about half an hour on 2 cores.
fuzz: install
	$(BIN)/python tests/fuzz_scenarios.py --count 100000

bench: install
	$(BIN)/ccsim bench dumbbell --flows 100 --duration 30
	$(BIN)/ccsim bench dumbbell --flows 1000 --duration 30

clean:
	rm -rf $(VENV) target results
