"""The journal: every step committed, a game resumed where it stopped, bad files refused."""

from __future__ import annotations

import sqlite3

import pytest

from companion.rules import SIMULTANEOUS
from companion.table.answers import ScriptedTable
from companion.table.board import board_keys
from companion.table.journal import Journal, JournalError
from companion.table.session import AnswerError, RefereeSession
from tests.table.helpers import answer_open, record


def _play_some(journal: Journal, game: str, players: int, seed: int, boards: int):
    steps, _ = record(game, players, seed)
    session = RefereeSession.start(game, players, journal=journal, names=["Ann", "Bo"][:players]
                                   if players == 2 else None)
    table = ScriptedTable(steps)
    session.begin()
    answer_open(session, table)
    shown = 0
    last = None
    for step in steps:
        keys = board_keys(step["board"], session.seated)
        if keys == last:
            continue
        last = keys
        session.observe(keys, t=float(step["n"]))
        answer_open(session, table)
        shown += 1
        if shown == boards:
            break
    return session, steps


def test_a_resumed_game_is_the_game_that_stopped(tmp_path):
    journal = Journal(tmp_path)
    session, _ = _play_some(journal, "food-alley/sambal", 2, 4, 12)
    resumed = RefereeSession.resume(Journal(tmp_path), session.game_id)
    assert resumed.state.to_json() == session.state.to_json()
    assert resumed.names == ["Ann", "Bo"]
    assert [h["text"] for h in resumed.history] == [h["text"] for h in session.history]
    assert resumed.frame_t is not None


def test_sealed_choices_survive_a_restart(tmp_path):
    journal = Journal(tmp_path)
    session = RefereeSession.start("food-alley/sambal", 2, journal=journal)
    steps, _ = record("food-alley/sambal", 2, 4)
    table = ScriptedTable(steps)
    session.begin()

    def answer_until_bargaining() -> bool:
        for _ in range(200):
            if session.state.current_player() == SIMULTANEOUS:
                return True
            open_ = list(session.questions.values())
            answers = [(q, table.answer(session.state, q)) for q in open_]
            answers = [(q, a) for q, a in answers if a is not None]
            if not answers:
                return False
            session.answer(answers[0][0].id, answers[0][1])
        return False

    reached = answer_until_bargaining()
    for step in steps:
        if reached:
            break
        session.observe(board_keys(step["board"], session.seated))
        reached = answer_until_bargaining()
    assert reached
    q = next(q for q in session.questions.values() if q.kind == "private")
    session.answer(q.id, table.answer(session.state, q))  # one player has sealed a coin
    assert session.state.sealed
    resumed = RefereeSession.resume(Journal(tmp_path), session.game_id)
    assert resumed.state.sealed == session.state.sealed
    assert resumed.state.current_player() == SIMULTANEOUS


def test_a_database_of_another_program_is_refused_and_left_alone(tmp_path):
    path = tmp_path / "journal.sqlite"
    db = sqlite3.connect(path)
    db.execute("CREATE TABLE recipes (name TEXT)")
    db.execute("INSERT INTO recipes VALUES ('soup')")
    db.commit()
    db.close()
    before = path.read_bytes()
    with pytest.raises(JournalError, match="another program"):
        Journal(tmp_path)
    assert path.read_bytes() == before


def test_a_corrupt_journal_is_refused_and_left_alone(tmp_path):
    path = tmp_path / "journal.sqlite"
    path.write_bytes(b"this is not a database, only some text " * 50)
    before = path.read_bytes()
    with pytest.raises(JournalError, match="not a readable journal|damaged"):
        Journal(tmp_path)
    assert path.read_bytes() == before


def test_a_newer_journal_is_refused(tmp_path):
    Journal(tmp_path).close()
    db = sqlite3.connect(tmp_path / "journal.sqlite")
    db.execute("PRAGMA user_version=99")
    db.close()
    with pytest.raises(JournalError, match="newer version"):
        Journal(tmp_path)


def test_the_journal_is_in_wal_mode_with_a_schema_version(tmp_path):
    journal = Journal(tmp_path)
    assert journal.db.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    assert journal.db.execute("PRAGMA user_version").fetchone()[0] == 1


def test_finished_games_are_kept_with_their_result(tmp_path):
    journal = Journal(tmp_path)
    session, steps = _play_some(journal, "food-alley/stray", 2, 4, 10_000)
    assert session.state.is_terminal()
    record_ = journal.game(session.game_id)
    assert record_.status == "over" and record_.final["scores"]
    assert journal.unfinished() is None


def test_correcting_the_record_checks_every_later_step(tmp_path):
    journal = Journal(tmp_path)
    session, steps = _play_some(journal, "food-alley/sambal", 2, 4, 20)
    n_before = len(session.state.log)
    # step 3 drew some token into d1; say the camera misread it: it was a token drawn later
    later = next(k for k in range(4, n_before) if steps[k]["move"]["type"] == "draw")
    swapped = steps[later]["move"]
    dropped = session.correct(3, swapped, seat="admin")
    assert dropped and dropped[0]["n"] == later  # that draw can no longer come from the bag
    assert "not in the bag" in dropped[0]["why"]
    assert len(session.state.log) == later
    assert session.history[3]["decided_by"] == "correction"
    kept = journal.steps(session.game_id)
    assert len(kept) == later and kept[3]["entry"]["action"] == swapped
    fixes = journal.corrections(session.game_id)
    assert fixes[0]["seat"] == "admin" and fixes[0]["old"]["action"] == steps[3]["move"]
    assert [d["n"] for d in fixes[0]["dropped"]] == list(range(later, n_before))
    resumed = RefereeSession.resume(Journal(tmp_path), session.game_id)
    assert resumed.state.to_json()["state"] == session.state.to_json()["state"]


def test_an_illegal_correction_is_refused_and_changes_nothing(tmp_path):
    journal = Journal(tmp_path)
    session, _ = _play_some(journal, "food-alley/sambal", 2, 4, 5)
    before = session.state.to_json()
    with pytest.raises(AnswerError, match="cannot be"):
        session.correct(1, {"type": "draw", "token": "not-a-token"}, seat="admin")
    with pytest.raises(AnswerError, match="no step 999"):
        session.correct(999, {"type": "draw", "token": "egg-1"}, seat="admin")
    assert session.state.to_json() == before
