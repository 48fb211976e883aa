# One venv in .venv; every target installs what it needs.
PY ?= python3
VENV := .venv
BIN := $(VENV)/bin

.PHONY: demo test install bench clean

$(BIN)/citebound: pyproject.toml
	$(PY) -m venv $(VENV)
	$(BIN)/pip install -q --upgrade pip
	$(BIN)/pip install -q -e '.[dev]'
	touch $(BIN)/citebound

install: $(BIN)/citebound

demo: install
	$(BIN)/citebound demo

test: install
	$(BIN)/python -m pytest

bench: install
	$(BIN)/python bench/verify_bench.py
	$(BIN)/python bench/retrieval_bench.py

clean:
	rm -rf $(VENV) build *.egg-info
