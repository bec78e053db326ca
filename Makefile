# Two entry points for a fresh machine: `make demo` and `make test`. Both create .venv on first use.
PYTHON ?= python3
VENV   ?= .venv
BIN    := $(VENV)/bin

.PHONY: demo test lint install

$(BIN)/chop-integrations: pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	# torch first, pinned to the CPU wheel: a bare `torch` requirement pulls a multi-GB CUDA build.
	$(BIN)/python -m pip install --quiet torch==2.13.0
	$(BIN)/python -m pip install --quiet -e '.[dev]'
	touch $@

install: $(BIN)/chop-integrations

demo: install
	$(BIN)/chop-integrations demo

# One pytest run: the tests, the README's code blocks (tests/test_readme.py) and every cookbook notebook (nbmake).
test: install
	HF_HUB_OFFLINE=1 CI=$${CI:-} $(BIN)/python -m pytest --nbmake --nbmake-timeout=300 tests cookbooks

lint: install
	$(BIN)/ruff check chop_integrations tests cookbooks
	$(BIN)/mypy chop_integrations
