"""Seeded random play, the one driver of tests, benchmarks and ``companion play --auto``:
chance steps from the state's own RNG, moves picked by a separate RNG seeded alike."""

from __future__ import annotations

import random
from collections.abc import Callable, Iterator

from companion.rules.protocol import CHANCE, SIMULTANEOUS, Action, GameState

# called before each action is applied: the state, who acts (a player, or CHANCE), the action
BeforeStep = Callable[[GameState, int, Action], None]

# A move is legal[chooser.randrange(len(legal))], each equally likely. randrange(n) of a
# positive n is _randbelow(n), for random.Random the getrandbits loop that the drivers below
# write out (a Python-level call less at every step; the same draws: tests/rules/
# test_simulate.py). Every move is taken from what this very position lists (a chance
# outcome from sample_chance()), so it is applied by _play(), without apply_action()'s check,
# which would find it legal: the same log entry.
assert random.Random._randbelow is random.Random._randbelow_with_getrandbits  # type: ignore[attr-defined]


class GameDidNotEnd(RuntimeError):
    """A random game ran past its step limit: a rule that never lets the game end."""


def steps(state: GameState, seed: int, *, max_steps: int = 100_000,
          before: BeforeStep | None = None) -> Iterator[tuple[int, Action]]:
    """Play on with uniformly random legal moves, yielding (actor, action) after each step
    until the game is over. At a simultaneous step every acting player seals a random
    choice, in turn, and the step is the last choice (which reveals them all).

    :raises GameDidNotEnd: after ``max_steps`` steps.
    """
    chooser = random.Random(seed)
    getrandbits = chooser.getrandbits
    play = state._play
    for _ in range(max_steps):
        if state.is_terminal():
            return
        actor = state.current_player()
        if actor == SIMULTANEOUS:
            for player in state.acting_players():
                legal = state.legal_actions(player)
                action = legal[chooser.randrange(len(legal))]
                if before is not None:
                    before(state, player, action)
                state.apply_action(action, player=player)
        else:
            if actor == CHANCE:
                action = state.sample_chance()
            else:
                legal = state._listed()
                n = len(legal)
                if not n:
                    chooser.randrange(0)  # raises: no legal move
                k = n.bit_length()
                r = getrandbits(k)
                while r >= n:
                    r = getrandbits(k)
                action = legal[r]
            if before is not None:
                before(state, actor, action)
            play(action, actor)
        yield actor, action
    raise GameDidNotEnd(f"{state.GAME_ID}: the game did not end within {max_steps} steps "
                        f"(seed {seed})")


def random_playout(state: GameState, seed: int, *, max_steps: int = 100_000,
                   before: BeforeStep | None = None) -> GameState:
    """Play the game to its end with uniformly random legal moves; returns the same state.
    The same steps as :func:`steps`, in a plain loop (the benches' driver: no generator to
    resume at each step)."""
    if before is not None:
        for _ in steps(state, seed, max_steps=max_steps, before=before):
            pass
        return state
    chooser = random.Random(seed)
    getrandbits = chooser.getrandbits
    play = state._play
    for _ in range(max_steps):
        if state.is_terminal():
            return state
        actor = state.current_player()
        if actor == SIMULTANEOUS:
            for player in state.acting_players():
                legal = state.legal_actions(player)
                state.apply_action(legal[chooser.randrange(len(legal))], player=player)
        elif actor == CHANCE:
            play(state.sample_chance(), actor)
        else:
            legal = state._listed()
            n = len(legal)
            if not n:
                chooser.randrange(0)  # raises: no legal move
            k = n.bit_length()
            r = getrandbits(k)
            while r >= n:
                r = getrandbits(k)
            play(legal[r], actor)
    raise GameDidNotEnd(f"{state.GAME_ID}: the game did not end within {max_steps} steps "
                        f"(seed {seed})")
