"""Sambal benchmark: random 4-player games per second on one core (goal >= 200 games/s).

Run: `.venv/bin/python bench/bench_sambal.py` (or `make bench`).
"""

from __future__ import annotations

import argparse

from games import games_per_second, pin_one_core

from companion.rules.food_alley.sambal import SambalState


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--seconds", type=float, default=10.0)
    args = parser.parse_args()
    pin_one_core()
    rate, steps, rounds = games_per_second(SambalState, args.seconds)
    print(f"random 4-player Sambal games: {rate:.1f} games/s "
          f"({steps:.0f} steps, {rounds:.1f} rounds per game)")


if __name__ == "__main__":
    main()
