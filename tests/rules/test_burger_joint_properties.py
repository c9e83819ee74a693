"""Properties over random legal Burger Joint games (two players, the only count it allows)."""

from __future__ import annotations

import json

from hypothesis import given, settings
from hypothesis import strategies as st

from companion.rules.burger_joint import PLAYERS, BurgerJointState
from companion.rules.protocol import check_each_once

from .random_games import check_random_game


def components_conserved(s: BurgerJointState) -> None:
    """Each of the 60 cubes lies in exactly one place; each player's 15 tokens are accounted."""
    check_each_once(list(s.cube_places()), s.components.cube_ids(), "cube")
    s.check_conservation()
    for q in range(PLAYERS):
        on_board = s.basics[q] + len(s.diners[q]) + len(s.bistros[q])
        assert on_board + s.tokens_left(q) == s.components.tokens_per_player
        assert s.capacity(q) <= s.components.production_limit
    if s.phase == "production":  # a turn starts once both kept no more than seven
        assert all(s.held(q) <= s.components.storage_limit for q in range(PLAYERS))


def no_leak(s: BurgerJointState) -> None:
    """Nothing in the game is hidden but the bag's order: every view is the same apart from
    'you', the bag shows only its size, and no view carries the seed or the chance counter
    (from which the next draw could be worked out)."""
    views = [s.view(q) for q in range(PLAYERS)] + [s.view(None)]
    open_part = [{k: v for k, v in view.items() if k != "you"} for view in views]
    assert all(part == open_part[0] for part in open_part)
    for view in views:
        assert isinstance(view["bag"], int)
        text = json.dumps(view)
        assert "seed" not in text and "rng" not in text and "counter" not in text
    assert not any("private_to" in entry for entry in s.log)


@settings(max_examples=12, deadline=None)
@given(seed=st.integers(0, 2**31))
def test_random_games_keep_every_invariant(seed):
    s = check_random_game(BurgerJointState, PLAYERS, seed, max_steps=20_000,
                          invariants=components_conserved, no_leak=no_leak, undo_every=37,
                          leak_every=5)
    assert s.is_terminal()
    if s.winner is not None:
        assert s.vp(s.winner) >= 12 > s.vp(1 - s.winner)
        assert s.ranking()[0] == [s.winner]
