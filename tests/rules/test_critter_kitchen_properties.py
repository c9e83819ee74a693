"""Properties over random legal Critter Kitchen games at every player count (2-6)."""

from __future__ import annotations

import json

from hypothesis import given, settings
from hypothesis import strategies as st

from companion.rules.critter_kitchen import CritterKitchenState
from companion.rules.protocol import check_each_once

from .random_games import check_random_game


def conserved(s: CritterKitchenState) -> None:
    """Every token and card is in exactly one place; soup is never negative."""
    k = s.components
    expected = [t.id for t in k.tokens] + [c.id for c in k.challenges] + [
        c.id for c in k.critics] + [c.id for c in k.rumors] + [z.id for z in k.zous_chefs]
    check_each_once((i for ids in s.places().values() for i in ids), expected, "component")
    assert min(s.soup) >= 0


def no_leak(s: CritterKitchenState) -> None:
    """No view shows another player's shield, sealed plan, or a rumor card its viewer does
    not know."""
    for viewer in [*range(s.players), None]:
        view = s.view(viewer)
        text = json.dumps(view)
        for q in range(s.players):
            if q == viewer:
                continue
            seat = view["players"][q]
            assert isinstance(seat["shield"], int)
            for token in s.stock[q]:
                assert f'"{token}"' not in text
            if q in s.sealed:
                assert seat["plan"] is None
        for k, card in enumerate(s.rumors, 1):
            if card is not None and not s.knows(viewer, k):
                assert f'"{card}"' not in text


@settings(max_examples=15, deadline=None)
@given(players=st.integers(2, 6), seed=st.integers(0, 2**31))
def test_random_games_keep_every_invariant(players, seed):
    s = check_random_game(CritterKitchenState, players, seed, max_steps=5000,
                          invariants=conserved, no_leak=no_leak, undo_every=11, leak_every=5)
    assert s.round == 7 and s.is_terminal()
    assert all(c is not None for c in s.rumors)


def test_every_player_count_plays_to_the_end():
    for players in range(2, 7):
        s = check_random_game(CritterKitchenState, players, 100 + players, max_steps=5000,
                              invariants=conserved, no_leak=no_leak, undo_every=7)
        assert s.end_reason == "the critic meal of round 7 was scored"
