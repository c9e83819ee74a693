# Two commands a newcomer needs: `make run` and `make test`. Both bootstrap .venv.
# `make run` installs what playing needs; `make test` adds the tools and the training extra.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
RUN_STAMP := $(VENV)/.installed-run
TEST_STAMP := $(VENV)/.installed-test

.PHONY: run test lint bench screens clean pi-install pi-deps

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip

$(RUN_STAMP): pyproject.toml | $(BIN)/python
	$(BIN)/python -m pip install --quiet -e .
	touch $(RUN_STAMP)

$(TEST_STAMP): pyproject.toml | $(BIN)/python
	$(BIN)/python -m pip install --quiet -e '.[dev,train]'
	touch $(RUN_STAMP) $(TEST_STAMP)

# the kiosk on its bundled demo; without a display, the same demo headless in the terminal
run: $(RUN_STAMP)
	$(BIN)/companion kiosk --demo

test: $(TEST_STAMP)
	bash tests/ensure_gl.sh
	$(BIN)/ruff check companion tests bench
	$(BIN)/python -m pytest -n auto --dist worksteal

lint: $(TEST_STAMP)
	$(BIN)/ruff check companion tests bench

bench: $(TEST_STAMP)
	$(BIN)/python bench/bench_shopper.py
	$(BIN)/python bench/bench_sambal.py
	$(BIN)/python bench/bench_stray.py
	$(BIN)/python bench/bench_alley_cats.py
	$(BIN)/python bench/bench_critter_kitchen.py
	$(BIN)/python bench/bench_food_trucks.py
	$(BIN)/python bench/bench_burger_joint.py
	$(BIN)/python bench/bench_kiosk.py
	$(BIN)/python bench/bench_vision.py --scenes 500
	$(BIN)/python bench/bench_vision_stress.py --scenes 100

# the screenshots in docs/screens, from the demo played in an offscreen window
screens: $(RUN_STAMP)
	SDL_VIDEODRIVER=offscreen $(BIN)/companion kiosk --demo --screenshots docs/screens/800x480 --size 800x480
	SDL_VIDEODRIVER=offscreen $(BIN)/companion kiosk --demo --screenshots docs/screens/1280x720 --size 1280x720

# on the Pi (64-bit Raspberry Pi OS, Bookworm or Trixie): the kiosk as a systemd service
pi-install:
	sudo deploy/install-pi.sh

# anywhere with the network: the Pi's pinned packages still resolve for aarch64, both releases
pi-deps: | $(BIN)/python
	PYTHON=$(BIN)/python bash deploy/check-constraints.sh

clean:
	rm -rf $(VENV) .pytest_cache .ruff_cache .hypothesis
