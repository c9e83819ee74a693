"""Burger Joint benchmark: random 2-player games per second on one core (goal >= 200 games/s).

Run: `.venv/bin/python bench/bench_burger_joint.py`.
"""

from __future__ import annotations

import argparse

from games import games_per_second, pin_one_core

from companion.rules.burger_joint import PLAYERS, BurgerJointState


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--seconds", type=float, default=10.0)
    args = parser.parse_args()
    pin_one_core()
    rate, steps, _ = games_per_second(BurgerJointState, args.seconds, players=PLAYERS)
    print(f"random {PLAYERS}-player Burger Joint games: {rate:.1f} games/s "
          f"({steps:.0f} steps a game)")


if __name__ == "__main__":
    main()
