"""Critter Kitchen benchmark: random 6-player games (the largest count) per second on one core
(goal >= 200 games/s).

Run: `.venv/bin/python bench/bench_critter_kitchen.py`.
"""

from __future__ import annotations

import argparse

from games import games_per_second, pin_one_core

from companion.rules.critter_kitchen import MAX_PLAYERS, CritterKitchenState


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--seconds", type=float, default=10.0)
    args = parser.parse_args()
    pin_one_core()
    players = MAX_PLAYERS
    rate, steps, rounds = games_per_second(CritterKitchenState, args.seconds, players)
    print(f"random {players}-player Critter Kitchen games: {rate:.1f} games/s "
          f"({steps:.0f} steps, {rounds:.1f} rounds per game)")


if __name__ == "__main__":
    main()
