"""Shared by the rules benchmarks: pin to one core, and random games per second."""

from __future__ import annotations

import os
import time

from companion.rules.protocol import GameState
from companion.rules.simulate import random_playout


def pin_one_core() -> None:
    if hasattr(os, "sched_setaffinity"):
        os.sched_setaffinity(0, {min(os.sched_getaffinity(0))})


def games_per_second(cls: type[GameState], seconds: float, players: int = 4
                     ) -> tuple[float, float, float]:
    """(games/s, steps a game, rounds a game or 0) of seeded random games for ``seconds``."""
    random_playout(cls.new(players, 0), 0)  # warm up
    n = steps = rounds = 0
    start = time.perf_counter()
    while time.perf_counter() - start < seconds:
        seed = 10_000 + n
        state = random_playout(cls.new(players, seed), seed)
        steps += state.log_length()  # the entries are not written out: nothing reads them
        rounds += getattr(state, "round", 0)
        n += 1
    return n / (time.perf_counter() - start), steps / n, rounds / n
