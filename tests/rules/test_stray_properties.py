"""Properties over random legal Stray games with 2-4 players."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from companion.rules.food_alley.stray import StrayState

from .random_games import check_random_game, tokens_conserved


def assert_no_leak(s: StrayState) -> None:
    """A face-down cat's value shows only to its owner, or to the roof holder at their look."""
    task = s.task
    for q in range(s.players):
        view = s.view(q)
        for c, (owner, _value, up) in s.cats.items():
            shown = view["board"][c]["value"]
            if up or owner == q:
                continue
            if shown is not None:
                assert owner >= 0
                assert task is not None and task["t"] == "place" and q in task["look"]
                assert c % 5 == task["col"]
        for other in range(s.players):
            if other != q:
                assert isinstance(view["players"][other]["cats"], int)


@settings(max_examples=40, deadline=None)
@given(players=st.integers(2, 4), seed=st.integers(0, 2**31))
def test_random_games_keep_every_invariant(players, seed):
    s = check_random_game(StrayState, players, seed, max_steps=5000, invariants=tokens_conserved,
                          no_leak=assert_no_leak, undo_every=9)
    assert s.set_no == 2
