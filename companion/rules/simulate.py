"""Seeded random play: chance steps from the state's RNG, moves picked by a separate seeded RNG."""

from __future__ import annotations

import random
from collections.abc import Callable, Iterator

from companion.rules.protocol import CHANCE, SIMULTANEOUS, Action, GameState


def random_playout(
    state: GameState,
    seed: int,
    *,
    max_steps: int = 100_000,
    on_step: Callable[[GameState, int, Action], None] | None = None,
) -> GameState:
    """Play the game to its end with uniformly random legal moves; returns the same state."""
    for _ in steps(state, seed, max_steps=max_steps, on_step=on_step):
        pass
    return state


def steps(
    state: GameState,
    seed: int,
    *,
    max_steps: int = 100_000,
    on_step: Callable[[GameState, int, Action], None] | None = None,
) -> Iterator[tuple[int, Action]]:
    """Yield (actor, action) after each applied step until the game is over."""
    chooser = random.Random(seed)
    for _ in range(max_steps):
        if state.is_terminal():
            return
        actor = state.current_player()
        if actor == SIMULTANEOUS:
            for player in state.acting_players():
                legal = state.legal_actions(player)
                action = legal[chooser.randrange(len(legal))]
                state.apply_action(action, player=player)
            if on_step is not None:
                on_step(state, actor, action)
            yield actor, action
            continue
        if actor == CHANCE:
            action = state.sample_chance()
        else:
            legal = state.legal_actions()
            action = legal[chooser.randrange(len(legal))]
        state.apply_action(action)
        if on_step is not None:
            on_step(state, actor, action)
        yield actor, action
    raise RuntimeError(f"game did not end within {max_steps} steps")
