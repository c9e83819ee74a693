"""Properties over random legal Sambal games with 2-4 players, sealed bids included."""

from __future__ import annotations

import json

from hypothesis import given, settings
from hypothesis import strategies as st

from companion.rules.food_alley.sambal import SambalState

from .random_games import check_random_game, tokens_conserved


def assert_no_leak(s: SambalState) -> None:
    """No view shows another player's coins, sealed choice or private draw."""
    for p in range(s.players):
        text = json.dumps(s.view(p))
        for q in range(s.players):
            if q == p:
                continue
            for secret in s.screens[q]:
                assert f'"{secret}"' not in text
            sealed = s.sealed.get(q)
            if sealed is not None:
                assert f'"{sealed.token}"' not in text  # type: ignore[attr-defined]


@settings(max_examples=40, deadline=None)
@given(players=st.integers(2, 4), seed=st.integers(0, 2**31))
def test_random_games_keep_every_invariant(players, seed):
    check_random_game(SambalState, players, seed, max_steps=20_000, invariants=tokens_conserved,
                      no_leak=assert_no_leak, undo_every=13, leak_every=7)


def test_saved_mid_bargaining_keeps_sealed_choices():
    s = SambalState.new(3, 8)
    while s.phase != "bargain":
        s.play_chance()
    p = s.acting_players()[0]
    s.apply_action(s.legal_actions(p)[0], player=p)
    restored = SambalState.from_json(json.loads(json.dumps(s.to_json())))
    assert restored.sealed == s.sealed
    assert restored.acting_players() == s.acting_players()
