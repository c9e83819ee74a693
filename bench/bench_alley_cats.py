"""The Alley Cats Game benchmark: random 4-player games per second on one core (goal >= 200
games/s).

Run: `.venv/bin/python bench/bench_alley_cats.py`.
"""

from __future__ import annotations

import argparse

from games import games_per_second, pin_one_core

from companion.rules.alley_cats import AlleyCatsState


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--seconds", type=float, default=10.0)
    args = parser.parse_args()
    pin_one_core()
    rate, steps, _ = games_per_second(AlleyCatsState, args.seconds, players=4)
    print(f"random 4-player Alley Cats games: {rate:.1f} games/s ({steps:.0f} steps a game)")


if __name__ == "__main__":
    main()
