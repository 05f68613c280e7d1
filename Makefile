# The two commands a researcher needs:
#   make demo   set up (system packages, venv, project) and run the main job on the embedded defaults
#   make test   set up and run the default test selection (no slow/gpu/llm tests)
SHELL := /bin/bash
PYTHON ?= python3
VENV ?= .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.veriphy-installed
PYTEST_ARGS ?=

.PHONY: setup system-packages demo test test-all bench clean

setup: system-packages $(STAMP)

# System packages: Tesseract for the OCR specialist. Installed only when missing and only as root.
system-packages:
	@if ! command -v tesseract >/dev/null 2>&1; then \
	  if [ "$$(id -u)" = "0" ] && command -v apt-get >/dev/null 2>&1; then \
	    echo "[setup] installing tesseract-ocr (apt-get)"; \
	    (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq tesseract-ocr tesseract-ocr-eng >/dev/null) \
	      || echo "[setup] warning: tesseract-ocr could not be installed; OCR claims will be 'unknown'"; \
	  else echo "[setup] warning: tesseract not found and not root; OCR claims will be 'unknown'"; fi; \
	fi

$(STAMP): pyproject.toml
	@echo "[setup] creating $(VENV)"
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install -q --upgrade pip
	# The CPU build of torch first, so that the project's range resolves to it and nothing larger is fetched.
	$(PY) -m pip install -q "torch==2.13.0"
	$(PY) -m pip install -q -e ".[dev]"
	# sam2's metadata pulls torchvision, which does not import beside the CPU torch: install it without deps.
	-$(PY) -m pip install -q --no-deps "sam2==1.1.0" "iopath>=0.1.10" "portalocker"
	touch $(STAMP)

demo: setup
	WANDB_MODE=offline $(PY) -m experiments.demo

test: setup
	WANDB_MODE=offline $(PY) -m pytest -q -m "not slow and not gpu and not llm" $(PYTEST_ARGS)

test-all: setup
	WANDB_MODE=offline $(PY) -m pytest -q $(PYTEST_ARGS)

bench: setup
	for b in benchmarks/*.py; do echo "== $$b"; $(PY) $$b; done

clean:
	rm -rf outputs multirun .pytest_cache
