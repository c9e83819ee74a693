"""Shopper benchmarks: legal moves per call, the store optimiser, random games per second.

Run: `make bench` (or `.venv/bin/python bench/bench_shopper.py`). Pinned to one core.
Goals (issue #2): legal moves <= 1 ms median, optimiser <= 10 ms on 16 tokens and 4 lists,
>= 200 random 4-player games per second.
"""

from __future__ import annotations

import argparse
import random
import statistics
import time

from games import games_per_second, pin_one_core

from companion.rules import CHANCE
from companion.rules.components import food_alley
from companion.rules.food_alley.groceries import StoreEvaluator
from companion.rules.food_alley.shopper import ShopperState
from companion.rules.simulate import random_playout


def random_game(players: int, seed: int, visit=None) -> ShopperState:
    """A seeded random game; ``visit(state)`` before each player's move."""
    def before(state, actor, _action) -> None:
        if actor != CHANCE and visit is not None:
            visit(state)

    return random_playout(ShopperState.new(players, seed), seed, before=before)


def bench_legal_moves(games: int) -> dict[str, tuple[float, float, int]]:
    """Median and p95 ms of legal_actions(), over every decision and over turn starts only
    (where the move search and the store sets are computed)."""
    times: dict[str, list[float]] = {"every decision": [], "turn start (move search)": []}

    def visit(s: ShopperState) -> None:
        s._legal = None
        t = time.perf_counter()
        s.legal_actions()
        dt = time.perf_counter() - t
        times["every decision"].append(dt)
        if s.phase == "turn":
            times["turn start (move search)"].append(dt)

    for seed in range(games):
        random_game(4, 1000 + seed, visit)
    out = {}
    for label, ts in times.items():
        ts.sort()
        out[label] = (statistics.median(ts) * 1e3, ts[int(len(ts) * 0.95)] * 1e3, len(ts))
    return out


def bench_optimiser(trials: int) -> tuple[float, float]:
    c = food_alley()
    rng = random.Random(5)
    by_type = {k: [g for g in c.grocery_lists if g.type == k] for k in c.grocery_list_types}
    cold, warm = [], []
    for _ in range(trials):
        tokens = rng.sample(list(c.tokens), 16)
        lists = [rng.choice(v) for v in by_type.values()]
        evaluator = StoreEvaluator(c)
        t = time.perf_counter()
        evaluator.best(tokens, lists)
        cold.append(time.perf_counter() - t)
        t = time.perf_counter()
        evaluator.best(tokens, lists)
        warm.append(time.perf_counter() - t)
    return statistics.median(cold) * 1e3, statistics.median(warm) * 1e3


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--games", type=int, default=20, help="games sampled for legal moves")
    parser.add_argument("--trials", type=int, default=50, help="optimiser trials")
    parser.add_argument("--seconds", type=float, default=10.0, help="time for games per second")
    args = parser.parse_args()
    pin_one_core()
    for label, (median, p95, calls) in bench_legal_moves(args.games).items():
        print(f"legal moves per call, {label}: median {median:.3f} ms, p95 {p95:.3f} ms "
              f"({calls} calls, 4 players)")
    cold, warm = bench_optimiser(args.trials)
    print(f"store optimiser, 16 tokens x 4 lists: median {cold:.2f} ms cold cache, "
          f"{warm:.2f} ms warm")
    rate, length, _ = games_per_second(ShopperState, args.seconds)
    print(f"random 4-player games: {rate:.1f} games/s ({length:.0f} steps per game)")


if __name__ == "__main__":
    main()
