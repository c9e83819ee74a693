"""Food Trucks benchmark: random 4-player games per second on one core (goal >= 200 games/s).

Run: `.venv/bin/python bench/bench_food_trucks.py`.
"""

from __future__ import annotations

import argparse

from games import games_per_second, pin_one_core

from companion.rules.food_trucks import FoodTrucksState


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--seconds", type=float, default=10.0)
    args = parser.parse_args()
    pin_one_core()
    rate, steps, rounds = games_per_second(FoodTrucksState, args.seconds, players=4)
    print(f"random 4-player Food Trucks games: {rate:.1f} games/s ({steps:.0f} steps, "
          f"{rounds:.0f} rounds a game)")


if __name__ == "__main__":
    main()
