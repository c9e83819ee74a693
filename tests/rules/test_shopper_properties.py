"""Properties over random legal Shopper games with 2-4 players."""

from __future__ import annotations

import json
import random

from hypothesis import given, settings
from hypothesis import strategies as st

from companion.rules import CHANCE
from companion.rules.food_alley.shopper import ShopperState

ALL_TOKENS = {t.id for t in ShopperState.new(2, 0).components.tokens}


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
    s = ShopperState.new(players, seed)
    chooser = random.Random(seed)
    steps = 0
    while not s.is_terminal():
        steps += 1
        assert steps < 5000, "game did not end"
        if s.current_player() == CHANCE:
            s.play_chance()
        else:
            legal = s.legal_actions()
            action = legal[chooser.randrange(len(legal))]
            if steps % 37 == 0:
                before = s.to_json()
                s.apply_action(action)
                after = ShopperState.from_json(s.to_json())
                after.undo()
                assert after.to_json() == before
            else:
                s.apply_action(action)
        # each of the 54 tokens is in exactly one place after every move
        s.check_conservation()
        assert set(s.token_places()) == ALL_TOKENS
        if steps % 11 == 0:
            assert_no_leak(s)
    for score in s.scores():
        assert score.total == sum(score.breakdown.values())
    ranking = s.ranking()
    assert sorted(q for group in ranking for q in group) == list(range(players))
    saved = json.loads(json.dumps(s.to_json()))
    assert ShopperState.from_json(saved).to_json() == s.to_json()
    assert ShopperState.replay(s.header(), s.log).to_json() == s.to_json()


def test_json_round_trip_mid_game_continues_identically():
    a = ShopperState.new(3, 11)
    chooser = random.Random(1)
    for _ in range(150):
        if a.current_player() == CHANCE:
            a.play_chance()
        else:
            legal = a.legal_actions()
            a.apply_action(legal[chooser.randrange(len(legal))])
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
        s = ShopperState.new(4, seed)
        chooser = random.Random(seed)
        while not s.is_terminal():
            if s.current_player() == CHANCE:
                s.play_chance()
            else:
                legal = s.legal_actions()
                s.apply_action(legal[chooser.randrange(len(legal))])
        return s.to_json()

    assert play(5) == play(5)
    assert play(5) != play(6)
