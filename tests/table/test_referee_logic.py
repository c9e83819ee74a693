"""The referee's inference on perfect readings: whole recorded games, every mode."""

from __future__ import annotations

import pytest

from companion.rules import find_game
from companion.table.board import board_keys
from companion.table.infer import explain
from companion.table.session import RefereeSession
from tests.table.helpers import camera_share, record, referee_perfect

GAMES = [(g, p, s) for g in ("food-alley/shopper", "food-alley/sambal", "food-alley/stray")
         for p, s in ((2, 4), (4, 2))]


@pytest.mark.parametrize("game,players,seed", GAMES)
def test_recorded_game_ends_with_the_recorded_result(game, players, seed):
    session, events, steps, final = referee_perfect(game, players, seed)
    over = [e for e in events if e.kind == "game_over"]
    assert over, f"stuck at step {len(session.state.log)}: {session.waiting}"
    assert over[0].data["scores"] == final["scores"]
    assert over[0].data["ranking"] == final["ranking"]
    assert over[0].data.get("tokens") == final.get("tokens")
    assert not [e for e in events if e.kind == "warning" and not e.data.get("cleared")]


@pytest.mark.parametrize("game,players,seed", GAMES)
def test_camera_decides_nine_in_ten_board_changes(game, players, seed):
    _, events, _, _ = referee_perfect(game, players, seed)
    by_camera, changed = camera_share(events)
    assert by_camera >= 0.9 * changed, (by_camera, changed)


def test_every_applied_step_is_a_recorded_one_or_leads_to_the_same_position():
    session, events, steps, _ = referee_perfect("food-alley/shopper", 2, 6)
    replay = find_game("food-alley/shopper").new(2, 6)
    for entry, recorded in zip(session.state.log, steps, strict=False):
        if entry["action"] != recorded["move"]:  # a shop declared by another trait
            assert entry["action"]["type"] == recorded["move"]["type"] == "shop"
            assert entry["action"]["take"] == recorded["move"]["take"]
        replay.apply_action(replay.codec.decode(recorded["move"]))


def test_tampered_board_warns_and_the_game_still_ends_right():
    session, events, _, final = referee_perfect("food-alley/sambal", 2, 4, tamper=30)
    warnings = [e for e in events if e.kind == "warning" and not e.data.get("cleared")]
    assert len(warnings) == 1
    assert warnings[0].data["text"] == "the board matches no legal step"
    # the two swapped cells are named (with any legal change shown in the same frame)
    assert {"a1", "e5"} <= set(warnings[0].data["cells"])
    assert "the game has" in warnings[0].data["differences"][0]
    over = [e for e in events if e.kind == "game_over"]
    assert over and over[0].data["scores"] == final["scores"]


def test_a_move_under_a_hand_is_applied_only_when_the_board_shows_it():
    steps, _ = record("food-alley/shopper", 2, 6)
    move = next(k for k, s in enumerate(steps) if s["move"]["type"] == "move")
    state = find_game("food-alley/shopper").new(2, 6)
    for s in steps[:move]:
        state.apply_action(state.codec.decode(s["move"]))
    seated = [state.player_name(p) for p in range(2)]
    seen = board_keys(steps[move]["board"], seated)
    assert explain(state, seen).outcome == "apply"
    path = state.codec.decode(steps[move]["move"]).path  # type: ignore[attr-defined]
    seen[path[-1]] = None  # a hand over the cell the shopper went to: told by elimination
    assert explain(state, seen).outcome == "apply"
    seen[path[0]] = None  # and over the cell it left: the board shows nothing of the move
    assert explain(state, seen).outcome == "same"


def test_private_steps_never_show_in_step_events():
    _, events, steps, _ = referee_perfect("food-alley/stray", 2, 4)
    placed = [e for e in events if e.kind == "step" and e.data["move"].get("type") == "hidden"]
    assert placed, "cats placed face down are private steps"
    for e in placed:
        assert "cat " not in e.data["text"] or "face down" in e.data["text"]
        assert not any(ch.isdigit() for ch in e.data["text"].split("on")[0])
    for e in events:
        if e.kind == "question" and e.data["kind"] == "private":
            assert "options" not in e.data


def _at_a_move(seed: int = 6):
    steps, _ = record("food-alley/shopper", 2, seed)
    move = next(k for k, s in enumerate(steps) if s["move"]["type"] == "move")
    session = RefereeSession.start("food-alley/shopper", 2)
    for s in steps[:move]:
        session.state.apply_action(session.state.codec.decode(s["move"]))
    seen = board_keys(steps[move]["board"], session.seated)
    return session, seen, steps[move]


@pytest.mark.parametrize("sure,applied", [(0.75, True), (0.99, False)])
def test_cells_are_weighed_by_their_confidence(sure, applied):
    session, seen, step = _at_a_move()
    path = session.state.codec.decode(step["move"]).path
    untouched = next(i for i in range(25) if i not in path and seen[i] != "empty")
    seen[untouched] = "ingredient:veggie-6" if seen[untouched] != "ingredient:veggie-6" \
        else "ingredient:egg-1"  # a misread where nothing happened
    confidence = [1.0] * 25
    confidence[untouched] = sure
    events = []
    session.subscribe(events.append)
    session.observe(seen, confidence=confidence)
    warned = [e for e in events if e.kind == "warning" and not e.data.get("cleared")]
    if applied:  # unsure: the cell yields, the move shown by the others is applied
        assert not warned and session.state.log[-1]["action"]["type"] == "move"
        assert session.weak and "not taken" in session.weak[0]
    else:  # sure: the board contradicts the rules
        assert warned and warned[0].data["cells"]
