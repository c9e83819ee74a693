"""Seeded random play, the one driver of tests, benchmarks and ``companion play --auto``:
chance steps from the state's own RNG, moves picked by a separate RNG seeded alike."""

from __future__ import annotations

import random
from collections.abc import Callable, Iterator

from companion.rules.protocol import CHANCE, SIMULTANEOUS, Action, GameState

# called before each action is applied: the state, who acts (a player, or CHANCE), the action
BeforeStep = Callable[[GameState, int, Action], None]


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
    # a move is legal[chooser.randrange(len(legal))]; randrange(n) of a positive n is
    # _randbelow(n), called here directly (a Python-level call less at every step)
    randbelow = chooser._randbelow
    for _ in range(max_steps):
        if state.is_terminal():
            return
        actor = state.current_player()
        if actor == SIMULTANEOUS:
            for player in state.acting_players():
                legal = state.legal_actions(player)
                action = legal[randbelow(len(legal)) if legal else chooser.randrange(0)]
                if before is not None:
                    before(state, player, action)
                state.apply_action(action, player=player)
        else:
            if actor == CHANCE:
                action = state.sample_chance()
            else:
                legal = state.legal_actions()
                action = legal[randbelow(len(legal)) if legal else chooser.randrange(0)]
            if before is not None:
                before(state, actor, action)
            state.apply_action(action)
        yield actor, action
    raise GameDidNotEnd(f"{state.GAME_ID}: the game did not end within {max_steps} steps "
                        f"(seed {seed})")


def random_playout(state: GameState, seed: int, *, max_steps: int = 100_000,
                   before: BeforeStep | None = None) -> GameState:
    """Play the game to its end with uniformly random legal moves; returns the same state."""
    for _ in steps(state, seed, max_steps=max_steps, before=before):
        pass
    return state
