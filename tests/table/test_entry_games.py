"""Games the camera does not follow, refereed by entry on the touchscreen: every step entered
or answered (hidden ones behind the cover), to the final scores."""

from __future__ import annotations

import random

import pytest

from companion.rules import find_game, game_names, player_range
from companion.table.journal import Journal
from companion.table.session import RefereeSession

ENTRY_GAMES = [g for g in game_names() if not g.startswith("food-alley/")]


def play_by_entry(session: RefereeSession, seed: int, max_steps: int = 20_000) -> None:
    """Enter a random offered step, or answer the first open question, until the game ends."""
    chooser = random.Random(seed)
    for _ in range(max_steps):
        if session.state.is_terminal():
            return
        if session.questions:
            qid = min(session.questions)
            question = session.questions[qid]
            if question.kind == "private":  # behind the cover: only its player sees these
                options = session.private_options(qid)
                assert options and all("text" in o for o in options)
            session.answer(qid, chooser.randrange(len(question.options)))
            continue
        offered = session.manual_options()
        assert offered, f"nothing to enter or answer: the game waits for {session.waiting}"
        session.enter(offered[chooser.randrange(len(offered))])
    raise AssertionError("the game did not end")


@pytest.mark.parametrize("game", ENTRY_GAMES)
def test_a_game_without_camera_is_refereed_by_entry_to_its_final_scores(game, tmp_path):
    journal = Journal(tmp_path)
    low, _ = player_range(find_game(game))
    session = RefereeSession.start(game, low, journal=journal, source="manual", seed=4)
    events = []
    session.subscribe(events.append)
    session.begin()
    play_by_entry(session, 4)
    assert [e.kind for e in events].count("game_over") == 1
    # every question and what the screen waits for name the step in the game's own words
    # ("Table: what did the die show?"), never the fallback "what happened?"
    said = {e.data.get(k) or "" for e in events for k in ("prompt", "waiting")} - {""}
    assert len(said) > 3
    assert not [t for t in said if "what happened" in t or "fill the board" in t
                or "['" in t], sorted(said)[:10]
    record = journal.game(session.game_id)
    assert record.final is not None and record.final["game"] == game
    steps = {e.data["n"]: e.data for e in events if e.kind == "step"}
    private = [n for n, entry in enumerate(session.state.log) if "private_to" in entry]
    for n in private:  # the shared screen shows a hidden step only as its public text
        entry = session.state.log[n]
        assert steps[n]["text"] == entry["public_text"] != entry["text"]
        assert steps[n]["move"] == {"type": "hidden"}


@pytest.mark.parametrize("game", ["food-trucks", "critter-kitchen"])
def test_a_choice_made_from_a_hand_is_asked_behind_the_cover(game, tmp_path):
    """Serving from a hand, or cooking from behind a shield, is public once done, but its list
    of options would show the hand: the shared screen never gets that list."""
    _, high = player_range(find_game(game))
    session = RefereeSession.start(game, high, journal=Journal(tmp_path), source="manual",
                                   seed=7)
    shown = []
    session.subscribe(lambda e: shown.append(e.data) if e.kind == "question" else None)
    session.begin()
    chooser, covered = random.Random(7), 0
    while not session.state.is_terminal():
        secret = session.state.hidden_choice()
        if secret is not None:
            assert session.manual_options() == []
            assert [q.kind for q in session.questions.values()] == ["private"]
            assert next(iter(session.questions.values())).player == secret
            covered += 1
        if session.questions:
            qid = min(session.questions)
            session.answer(qid, chooser.randrange(len(session.questions[qid].options)))
        else:
            offered = session.manual_options()
            session.enter(offered[chooser.randrange(len(offered))])
    assert covered > 10
    kinds = {"serve", "steal", "return-card", "discard", "spice", "soup", "present"}
    listed = [o["action"]["type"] for q in shown for o in q.get("options", [])]
    assert listed and not kinds & set(listed)  # the shared screen listed other steps only

