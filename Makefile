# bk monorepo. `make demo` and `make test` set everything up on a fresh machine.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
PY := $(BIN)/python
PIP := $(PY) -m pip --disable-pip-version-check
STAMP := $(VENV)/.installed
CONSTRAINTS := constraints.txt

# Every distribution of the repository (a folder with a pyproject.toml).
DISTS := $(patsubst %/pyproject.toml,%,$(wildcard core/pyproject.toml plugins/*/pyproject.toml testkit/pyproject.toml))
DIST_SOURCES := $(foreach d,$(DISTS),$(d)/pyproject.toml)
TEST_DIRS := tests $(wildcard $(foreach d,$(DISTS),$(d)/tests))
# Backends whose conformance `make test` certifies with the testkit (each must exit 0).
CERTIFY := numpy torch jax tf strict lazy dask
# Array-API namespaces that bk-arrayapi serves as backends while certifying and building the docs
# (name=module pairs, see docs/arrayapi.md): `strict` is array-api-strict.
ARRAYAPI := strict=array_api_strict
REPORTS := .reports
# pytest workers for `make test` (pytest-xdist): the machines CI runs on have 2 cores
PYTEST_JOBS ?= 2

.PHONY: all demo docs test test-pure-python test-core test-numpy test-torch test-jax test-tf test-arrayapi test-testkit certify bench lint signatures dist clean venv arrayapi-suite arrayapi-extra-suite

all: test

venv: $(STAMP)

$(STAMP): $(CONSTRAINTS) requirements-dev.txt $(DIST_SOURCES) $(wildcard plugins/*/src/*/*.c)
	@test -x $(PY) || $(PYTHON) -m venv $(VENV)
	@echo "Installing frameworks and tools into $(VENV) (first time: a few minutes)..."
	$(PIP) install -q -c $(CONSTRAINTS) -r requirements-dev.txt
	$(PIP) install -q -c $(CONSTRAINTS) --no-build-isolation --no-deps $(foreach d,$(DISTS),-e ./$(d))
	@touch $@

demo: $(STAMP)
	$(PY) -m bk info
	$(PY) examples/demo.py

test: $(STAMP)
	$(PY) -m pytest -n $(PYTEST_JOBS) $(TEST_DIRS)
	$(MAKE) --no-print-directory test-pure-python
	@mkdir -p $(REPORTS)
	BK_ARRAYAPI=$(ARRAYAPI) $(BIN)/testkit certify $(CERTIFY) --jobs 2 --json $(REPORTS)/certify.json --markdown $(REPORTS)/certify.md
	BK_CERTIFY_JSON=$(REPORTS)/certify.json $(MAKE) --no-print-directory docs

docs: $(STAMP)
	@echo "docs: building HTML into docs/_build/html (about a minute; without BK_CERTIFY_JSON it certifies every backend first)"
	BK_ARRAYAPI=$(ARRAYAPI) $(BIN)/sphinx-build -E -W --keep-going -q -b html docs docs/_build/html
	$(PY) docs/_ext/check_matrix.py docs/_build/html $${BK_CERTIFY_JSON:-docs/generated/certify.json}
	@echo "docs: docs/_build/html/index.html"

certify: $(STAMP)
	@mkdir -p $(REPORTS)
	BK_ARRAYAPI=$(ARRAYAPI) $(BIN)/testkit certify --all --json $(REPORTS)/certify-all.json --markdown $(REPORTS)/certify-all.md

# The pure-Python road, the reference that the C front (bk-core's `_fastplan*.c`, bk-numpy's `_fastops.c`) only
# accelerates: the core's and bk-numpy's tests and bk-numpy's certification with both turned off at run time
# (tests/test_c_and_python_roads.py compares the two roads call by call).
PURE_PYTHON := BK_PURE_PYTHON=1 BK_NUMPY_PURE_PYTHON=1
test-pure-python: $(STAMP)
	$(PURE_PYTHON) $(PY) -m pytest -n $(PYTEST_JOBS) -q core/tests plugins/bk-numpy/tests
	@mkdir -p $(REPORTS)
	$(PURE_PYTHON) $(BIN)/testkit certify numpy --json $(REPORTS)/certify-pure-python.json

test-core: $(STAMP)
	$(PY) -m pytest core/tests

test-numpy: $(STAMP)
	$(PY) -m pytest plugins/bk-numpy/tests

test-torch: $(STAMP)
	$(PY) -m pytest plugins/bk-torch/tests

test-jax: $(STAMP)
	$(PY) -m pytest plugins/bk-jax/tests

test-tf: $(STAMP)
	$(PY) -m pytest plugins/bk-tf/tests

test-arrayapi: $(STAMP)
	$(PY) -m pytest plugins/bk-arrayapi/tests

test-testkit: $(STAMP)
	$(PY) -m pytest testkit/tests

bench: $(STAMP)
	@test -d .bench/phiml || $(PIP) install -q -c $(CONSTRAINTS) --no-deps --target .bench/phiml phiml
	PYTHONPATH=.bench/phiml $(PY) bench/run.py

# the official Array API tests against every bk.array_namespace, each beside its peer of the same run
# (array_api_compat.numpy, ...), with the expected failures of bench/arrayapi_xfails/; the table goes to
# $(REPORTS)/arrayapi-suite.md and .json. SUITE_BACKENDS="numpy tf" narrows it.
SUITE_BACKENDS ?= numpy torch jax tf dask lazy strict
arrayapi-suite: $(STAMP)
	$(PY) bench/arrayapi_suite.py --compare $(SUITE_BACKENDS) --no-deadline --report $(REPORTS)

# array-api-extra's own tests of its Dask backend on bk.array_namespace("dask") beside
# array_api_compat.dask.array (the sdist is fetched from PyPI into .bench/ once); to $(REPORTS)/arrayapi-extra-suite.md
arrayapi-extra-suite: $(STAMP)
	$(PY) bench/arrayapi_extra_suite.py --report $(REPORTS)

lint: $(STAMP)
	$(BIN)/ruff check .
	$(BIN)/mypy core/src

# writes core/src/bk/_operation_signatures.pyi, the type checkers' view of Backend's operations, from their
# definitions (after changing an operation's signature or docstring; a core test fails while it is out of step)
signatures: $(STAMP)
	$(PY) -m bk._stub

dist: $(STAMP)
	rm -rf dist && mkdir -p dist
	@for d in $(DISTS); do $(PY) -m build --no-isolation --outdir dist $$d >/dev/null || exit 1; echo "built $$d"; done
	@ls dist

clean:
	rm -rf $(VENV) dist .bench $(REPORTS) .pytest_cache .mypy_cache .ruff_cache docs/_build docs/generated
	find . -name __pycache__ -type d -prune -exec rm -rf {} +
