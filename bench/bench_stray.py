"""Stray benchmark: random 4-player games per second on one core (goal >= 200 games/s).

Run: `.venv/bin/python bench/bench_stray.py` (or `make bench`).
"""

from __future__ import annotations

import argparse
import os
import time

from companion.rules.food_alley.stray import StrayState
from companion.rules.simulate import random_playout


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--seconds", type=float, default=10.0)
    args = parser.parse_args()
    if hasattr(os, "sched_setaffinity"):
        os.sched_setaffinity(0, {min(os.sched_getaffinity(0))})
    random_playout(StrayState.new(4, 0), 0)  # warm up
    n, steps = 0, 0
    start = time.perf_counter()
    while time.perf_counter() - start < args.seconds:
        s = random_playout(StrayState.new(4, 10_000 + n), 10_000 + n)
        steps += len(s.log)
        n += 1
    elapsed = time.perf_counter() - start
    print(f"random 4-player Stray games: {n / elapsed:.1f} games/s ({steps / n:.0f} steps a game)")


if __name__ == "__main__":
    main()
