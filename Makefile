# satdoku: `make run` runs the whole pipeline on the embedded data, `make test` runs the tests.
# Both create .venv if missing and install the pinned requirements first.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
KERNEL := $(VENV)/.kernel
CORES ?= 8
# torch is installed first, pinned, so that requirements.txt never pulls another build. Where
# PyPI's Linux wheel would be the large CUDA build, point TORCH_INDEX at PyTorch's CPU wheel
# index (make TORCH_INDEX=URL); by default pip's configured indexes are used (CI's machine
# has the CPU wheel locally).
TORCH_INDEX ?=

.PHONY: run test test-cluster lint report clean install

install: $(STAMP) $(KERNEL)

# `pip install -e .` also builds the compiled CDCL kernel and DIMACS pass in place (setup.py:
# satdoku/solvers/cdcl/kernel.c with its binding _cdcl.c, satdoku/cnf/_dimacs.c; optional:
# without a C compiler and Python headers the install still succeeds and satdoku runs their
# Python forms, slower but the same search)
$(STAMP): requirements.txt pyproject.toml setup.py scripts/satdoku
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet $(if $(TORCH_INDEX),--extra-index-url $(TORCH_INDEX)) torch==2.13.0
	$(BIN)/pip install --quiet -r requirements.txt
	$(BIN)/pip install --quiet --no-deps -e .
	touch $(STAMP) $(KERNEL)

# rebuild them when their sources change
$(KERNEL): $(STAMP) satdoku/solvers/cdcl/_cdcl.c satdoku/solvers/cdcl/kernel.c \
		satdoku/solvers/cdcl/kernel.h satdoku/cnf/_dimacs.c satdoku/cnf/_drat.c \
		satdoku/cnf/decimal.h satdoku/cnf/_lrat.c satdoku/pipeline/_batch.c
	$(BIN)/pip install --quiet --no-deps -e .
	touch $(KERNEL)

run: install
	$(BIN)/snakemake --cores $(CORES)

# The suite in TEST_WORKERS processes (pytest-xdist), each taking whole test files (--dist
# loadfile): a module's workflow run (module-scoped fixture) is made once, by the one process that
# runs its tests. Most of the suite is one process's CPU at a time (Snakemake jobs are short
# processes started one after another), so on CI's 2 cores two processes take about half the time.
# TEST_WORKERS=0 runs it in this process, as `python -m pytest` does.
TEST_WORKERS ?= 2

test: install
	$(BIN)/python -m pytest -q $(if $(filter-out 0,$(TEST_WORKERS)),-n $(TEST_WORKERS) --dist loadfile)

# Real single-node SLURM (root; installs the Debian packages if missing): the tiny config through
# profiles/slurm must give the local run's SatSols. The test starts and stops the daemons itself.
test-cluster: install
	SATDOKU_TEST_CLUSTER=1 $(BIN)/python -m pytest -q -s -m cluster tests/cluster

# the HTML report needs the workflow's outputs: run (or finish) the workflow first, then report
report: run
	$(BIN)/snakemake --report reports/report.html

# the explorer's JS: prettier as package.json pins it (node_modules/ from package-lock.json);
# skipped with a message where npm is missing (tests/test_lint.py still checks its line width)
JS := satdoku/report/explorer/static/*.js

lint: install
	$(BIN)/ruff check satdoku tests benchmarks scripts
	$(BIN)/snakefmt --check Snakefile workflow/rules
	$(BIN)/snakemake --lint
	@if command -v npm >/dev/null 2>&1; then \
		test -x node_modules/.bin/prettier || npm ci --no-audit --no-fund --silent; \
		echo "npx prettier --check $(JS)"; npx --no-install prettier --check $(JS); \
	else \
		echo "npm not found: the prettier check of the explorer's JS is skipped"; \
	fi

clean:
	rm -rf results reports .snakemake
