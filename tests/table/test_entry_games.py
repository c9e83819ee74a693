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
    record = journal.game(session.game_id)
    assert record.final is not None and record.final["game"] == game
    steps = {e.data["n"]: e.data for e in events if e.kind == "step"}
    private = [n for n, entry in enumerate(session.state.log) if "private_to" in entry]
    for n in private:  # the shared screen shows a hidden step only as its public text
        entry = session.state.log[n]
        assert steps[n]["text"] == entry["public_text"] != entry["text"]
        assert steps[n]["move"] == {"type": "hidden"}
