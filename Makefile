# Two commands a newcomer needs: `make run` and `make test`. Both bootstrap .venv.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: run test lint bench clean

$(STAMP): pyproject.toml
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[dev,train]'
	touch $(STAMP)

run: $(STAMP)
	$(BIN)/companion play food-alley/shopper --players 4 --seed 1 --auto

test: $(STAMP)
	$(BIN)/ruff check companion tests bench
	$(BIN)/python -m pytest

bench: $(STAMP)
	$(BIN)/python bench/bench_shopper.py
	$(BIN)/python bench/bench_sambal.py
	$(BIN)/python bench/bench_stray.py
	$(BIN)/python bench/bench_vision.py --scenes 500
	$(BIN)/python bench/bench_vision_stress.py --scenes 100

clean:
	rm -rf $(VENV) .pytest_cache .ruff_cache .hypothesis
