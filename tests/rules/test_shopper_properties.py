"""Properties over random legal Shopper games with 2-4 players."""

from __future__ import annotations

import json
from itertools import islice

from hypothesis import given, settings
from hypothesis import strategies as st

from companion.rules import CHANCE
from companion.rules.food_alley.shopper import ShopperState
from companion.rules.simulate import random_playout, steps

from .random_games import check_random_game, tokens_conserved


def assert_no_leak(s: ShopperState) -> None:
    """No player's view shows another player's lists or tokens behind the screen."""
    for p in range(s.players):
        view = s.view(p)
        text = json.dumps(view)
        for q in range(s.players):
            seat = view["players"][q]
            if q == p:
                assert seat["tokens"] == sorted(s.screens[q])
                continue
            assert isinstance(seat["open_lists"], int) and isinstance(seat["tokens"], int)
            for secret in s.screens[q] + s.open_lists[q]:
                assert f'"{secret}"' not in text


@settings(max_examples=40, deadline=None)
@given(players=st.integers(2, 4), seed=st.integers(0, 2**31))
def test_random_games_keep_every_invariant(players, seed):
    check_random_game(ShopperState, players, seed, max_steps=5000, invariants=tokens_conserved,
                      no_leak=assert_no_leak, undo_every=37, leak_every=11)


def test_json_round_trip_mid_game_continues_identically():
    a = ShopperState.new(3, 11)
    for _ in islice(steps(a, 1), 150):
        pass
    b = ShopperState.from_json(json.loads(json.dumps(a.to_json())))
    for _ in range(60):
        if a.is_terminal():
            break
        if a.current_player() == CHANCE:
            out_a, out_b = a.sample_chance(), b.sample_chance()
            assert out_a == out_b  # the seeded RNG travels with the state
        else:
            out_a = out_b = a.legal_actions()[0]
            assert b.legal_actions() == a.legal_actions()
        a.apply_action(out_a)
        b.apply_action(out_b)
    assert a.to_json() == b.to_json()


def test_same_seed_same_game():
    def play(seed):
        return random_playout(ShopperState.new(4, seed), seed).to_json()

    assert play(5) == play(5)
    assert play(5) != play(6)
