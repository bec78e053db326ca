# Two entry points for a fresh machine: `make demo` and `make test`. Both create .venv on first use.
#   make demo   installs only the core (pydantic, tiktoken, tqdm; no torch) into .venv, or reuses a .venv that
#               already has the package, then runs the offline demo.
#   make test   installs torch and everything (-e '.[dev]', and the benchmark package beside the library, -e ./bench)
#               into .venv, then runs the tests (the strict docs build among them) and the cookbooks.
PYTHON ?= python3
VENV   ?= .venv
BIN    := $(VENV)/bin
# The index torch==2.13.0 comes from. Empty (the default): pip's configured indexes. Where those hold a CPU wheel
# (a local wheelhouse or mirror), that is what installs; on a stock PyPI setup Linux gets the CUDA build (several GB
# of nvidia-* wheels). For the CPU build there: make test TORCH_INDEX=https://download.pytorch.org/whl/cpu
TORCH_INDEX ?=

.PHONY: demo test test-slow lint docs install install-core mutants mutants-ci

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)

$(VENV)/.core-installed: pyproject.toml | $(BIN)/python
	$(BIN)/python -m pip install --quiet -e .
	touch $@

$(VENV)/.dev-installed: pyproject.toml bench/pyproject.toml | $(BIN)/python
	$(BIN)/python -m pip install --quiet --upgrade pip
	@echo "installing torch==2.13.0 from $(if $(TORCH_INDEX),$(TORCH_INDEX),pip's configured indexes (set TORCH_INDEX for another))"
	$(BIN)/python -m pip install --quiet torch==2.13.0 $(if $(TORCH_INDEX),--index-url $(TORCH_INDEX))
	$(BIN)/python -m pip install --quiet -e '.[dev]' -e ./bench  # the library, and its benchmark (chop-bench)
	touch $@ $(VENV)/.core-installed

install-core: $(VENV)/.core-installed

install: $(VENV)/.dev-installed

demo: install-core
	$(BIN)/chop-integrations demo

# The fast tests, the code blocks of README.md and docs/*.md (tests/test_readme.py), the strict docs build
# (tests/test_docs.py) and every cookbook notebook (nbmake); tests marked slow (a real embedding model, the whole
# corpus, the golden outputs of the 30 manuals) are left to test-slow. CI (.ci/run) runs both.
test: install
	-$(PYTHON) scripts/fetch_docs.py  # real documents some tests read (Debian packages); without them those tests skip
	HF_HUB_OFFLINE=1 CI=$${CI:-} $(BIN)/python -m pytest -m "not slow" --nbmake --nbmake-timeout=300 tests cookbooks

test-slow: install
	HF_HUB_OFFLINE=1 CI=$${CI:-} $(BIN)/python -m pytest -m slow tests

# mypy's packages (pyproject.toml): the library and the benchmark package (bench/chop_bench).
lint: install
	$(BIN)/ruff check chop_integrations bench tests cookbooks scripts
	$(BIN)/mypy

# The documentation site (mkdocs.yml, docs/) into site/, failing on any warning as the test does.
docs: install
	$(BIN)/mkdocs build --strict

# Mutation testing (scripts/mutants.py, mutmut): one module, MODULE=chop_integrations/_text/token_sums.py, or every
# listed module (the default), each against only its own test files; a few minutes a module on two cores. Writes
# benchmarks/mutants/report.md and report.json and fails when a module kills under 90% of its non-equivalent mutants.
MODULE ?=
mutants: install
	HF_HUB_OFFLINE=1 $(BIN)/python scripts/mutants.py $(if $(MODULE),$(MODULE),--all)

# CI's share (.ci/run): the listed modules changed since the last release tag (or since MUTANTS_SINCE), else a
# small rotating sample, so that the score cannot fall unseen; a few minutes in all.
mutants-ci: install
	HF_HUB_OFFLINE=1 $(BIN)/python scripts/mutants.py --ci
