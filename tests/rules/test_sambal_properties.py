"""Properties over random legal Sambal games with 2-4 players, sealed bids included."""

from __future__ import annotations

import json
import random

from hypothesis import given, settings
from hypothesis import strategies as st

from companion.rules import CHANCE, SIMULTANEOUS
from companion.rules.food_alley.sambal import SambalState

ALL_TOKENS = {t.id for t in SambalState.new(2, 0).components.tokens}


def assert_no_leak(s: SambalState) -> None:
    """No view or readable log shows another player's coins, sealed choice or private draw."""
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
        for entry in s.public_log(p):
            if entry["action"]["type"] != "hidden":
                assert entry.get("private_to") in (None, p)


@settings(max_examples=40, deadline=None)
@given(players=st.integers(2, 4), seed=st.integers(0, 2**31))
def test_random_games_keep_every_invariant(players, seed):
    s = SambalState.new(players, seed)
    chooser = random.Random(seed)
    steps = 0
    while not s.is_terminal():
        steps += 1
        assert steps < 20_000, "game did not end"
        actor = s.current_player()
        if actor == SIMULTANEOUS:
            log_length = len(s.log)
            acting = s.acting_players()
            for i, p in enumerate(acting):
                legal = s.legal_actions(p)
                s.apply_action(legal[chooser.randrange(len(legal))], player=p)
                if i < len(acting) - 1:
                    assert len(s.log) == log_length  # sealed: nothing logged yet
                    assert_no_leak(s)
            assert len(s.log) == log_length + 1 and s.log[-1]["actor"] == "all"
        elif actor == CHANCE:
            s.play_chance()
        else:
            legal = s.legal_actions()
            action = legal[chooser.randrange(len(legal))]
            if steps % 13 == 0:
                before = s.to_json()
                s.apply_action(action)
                after = SambalState.from_json(s.to_json())
                after.undo()
                assert after.to_json() == before
            else:
                s.apply_action(action)
        s.check_conservation()
        assert set(s.token_places()) == ALL_TOKENS
        if steps % 7 == 0:
            assert_no_leak(s)
    for score in s.scores():
        assert score.total == sum(score.breakdown.values())
    assert sorted(q for group in s.ranking() for q in group) == list(range(players))
    saved = json.loads(json.dumps(s.to_json()))
    assert SambalState.from_json(saved).to_json() == s.to_json()
    assert SambalState.replay(s.header(), s.log).to_json() == s.to_json()


def test_saved_mid_bargaining_keeps_sealed_choices():
    s = SambalState.new(3, 8)
    while s.phase != "bargain":
        s.play_chance()
    p = s.acting_players()[0]
    s.apply_action(s.legal_actions(p)[0], player=p)
    restored = SambalState.from_json(json.loads(json.dumps(s.to_json())))
    assert restored.sealed == s.sealed
    assert restored.acting_players() == s.acting_players()
