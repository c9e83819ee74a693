"""Properties over random legal Food Trucks games with 2-4 players: components conserved, hidden
cards never shown (the Happy Hour variant's random games: test_food_trucks.py)."""

from __future__ import annotations

import json

from hypothesis import given, settings
from hypothesis import strategies as st

from companion.rules.food_trucks import FoodTrucksState

from .random_games import check_random_game


def conserved(s: FoodTrucksState) -> None:
    """Every food card, order card and food truck is in exactly one place (check_conservation,
    through check_each_once) and has a place to show; hands keep the
    12-card limit outside the steps that bring them back under it; the grid is full whenever a
    player chooses an action."""
    s.check_conservation()
    assert set(s.token_places()) == {*s.order_card.ids(), *s.truck_card.ids()}
    food = sum(s.food_deck.values()) + sum(s.discard.values()) + sum(
        d is not None for d in s.grid) + sum(s.hand_size(q) for q in range(s.players))
    assert food == 68
    if s.phase == "turn":
        assert None not in s.grid
        assert all(s.hand_size(q) <= 12 for q in range(s.players))
    assert len(s.row) == s.players
    assert len(s.takeaways) <= s.delivery_persons


def no_leak(s: FoodTrucksState) -> None:
    """No view shows another player's hand (only its size), the food deck's cards, or an order
    no one has seen."""
    unseen = set(s.unseen)
    for viewer in [*range(s.players), None]:
        view = s.view(viewer)
        text = json.dumps(view)
        assert not any(o in text for o in unseen)
        assert isinstance(view["food_deck"], int) and isinstance(view["order_deck"], int)
        for q, seat in enumerate(view["players"]):
            if q == viewer:
                assert seat["hand"] == dict(sorted(s.hands[q].items()))
            else:
                assert seat["hand"] == s.hand_size(q)


@settings(max_examples=30, deadline=None)
@given(players=st.integers(2, 4), seed=st.integers(0, 2**31))
def test_random_games_keep_every_invariant(players, seed):
    s = check_random_game(FoodTrucksState, players, seed, max_steps=3000, invariants=conserved,
                          no_leak=no_leak, undo_every=13, leak_every=1)
    assert s.is_terminal() and "deck has run out" in s.end_reason
    assert s.order_deck == 0


@settings(max_examples=6, deadline=None)
@given(players=st.integers(2, 4), seed=st.integers(0, 2**31))
def test_every_player_count_is_played(players, seed):
    """Each count the rulebook allows plays to its end from the same new game the CLI makes."""
    for n in (2, 3, 4):
        s = check_random_game(FoodTrucksState, n, seed + n, max_steps=3000,
                              invariants=conserved, no_leak=no_leak, undo_every=97,
                              leak_every=11)
        assert s.is_terminal()
