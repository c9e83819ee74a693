"""Properties over random legal Stray games with 2-4 players."""

from __future__ import annotations

import json
import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from companion.rules import CHANCE, UndoRefusedError
from companion.rules.food_alley.stray import StrayState

ALL_TOKENS = {t.id for t in StrayState.new(2, 0).components.tokens}


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
        for entry in s.public_log(q):
            if entry["action"]["type"] != "hidden":
                assert entry.get("private_to") in (None, q)


@settings(max_examples=40, deadline=None)
@given(players=st.integers(2, 4), seed=st.integers(0, 2**31))
def test_random_games_keep_every_invariant(players, seed):
    s = StrayState.new(players, seed)
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
            if steps % 9 == 0:
                before = s.to_json()
                s.apply_action(action)
                after = StrayState.from_json(s.to_json())
                if after.log[-1].get("reveal"):  # no undo across a reveal
                    with pytest.raises(UndoRefusedError):
                        after.undo()
                else:
                    after.undo()
                    assert after.to_json() == before
            else:
                s.apply_action(action)
        s.check_conservation()
        assert set(s.token_places()) == ALL_TOKENS
        assert_no_leak(s)
    assert s.set_no == 2
    for score in s.scores():
        assert score.total == sum(score.breakdown.values())
    assert sorted(q for group in s.ranking() for q in group) == list(range(players))
    saved = json.loads(json.dumps(s.to_json()))
    assert StrayState.from_json(saved).to_json() == s.to_json()
    assert StrayState.replay(s.header(), s.log).to_json() == s.to_json()
