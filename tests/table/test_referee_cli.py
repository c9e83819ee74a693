"""`companion referee` on bad input, and on the terminal without a scripted table."""

from __future__ import annotations

import io
import json
from pathlib import Path

import cv2
import numpy as np
import pytest

from companion.cli import CLEAR, main
from companion.rules import find_game
from companion.table.board import board_keys
from companion.table.cli import _ask_terminal
from companion.table.session import RefereeSession

FIXTURE = Path(__file__).parents[1] / "fixtures" / "recordings" / "stray-2p-seed4"


def one_frame(tmp_path: Path) -> Path:
    """A folder holding one (black) frame."""
    frames = tmp_path / "frames"
    frames.mkdir()
    cv2.imwrite(str(frames / "000.jpg"), np.zeros((120, 160, 3), np.uint8))
    return frames


@pytest.mark.parametrize("args,message", [
    (["--source", "projector:2"], "unknown source"),
    (["--source", "frames:/no/such/folder"], "no such folder"),
    (["--names", "Ann", "--source", "frames:/tmp"], "--names needs 2 different names"),
    (["--names", "Ann,Ann", "--source", "frames:/tmp"], "--names needs 2 different names"),
    (["--resume", "--source", "frames:/tmp"], "no unfinished"),
    (["--model", "/no/such/model", "--source", "frames:/tmp"], "cells.onnx not found"),
])
def test_bad_arguments_are_named(capsys, tmp_path, args, message):
    frames = one_frame(tmp_path)  # "frames:/tmp" stands for a folder that holds a frame
    args = [f"frames:{frames}" if a == "frames:/tmp" else a for a in args]
    code = main(["referee", "food-alley/stray", "--players", "2", "--data", str(tmp_path),
                 *args])
    assert code == 2
    assert message in capsys.readouterr().err


def test_a_malformed_answers_file_is_named_with_its_line(capsys, tmp_path):
    bad = tmp_path / "answers.jsonl"
    bad.write_text('{"n": 0, "move": {"type": "draw", "token": "egg-1"}}\nnot json\n')
    code = main(["referee", "food-alley/stray", "--players", "2", "--data", str(tmp_path),
                 "--source", f"video:{FIXTURE / 'recording.mp4'}", "--answers", str(bad)])
    assert code == 2
    err = capsys.readouterr().err
    assert "answers.jsonl:2" in err and "companion play" in err


def test_a_journal_of_another_program_is_refused(capsys, tmp_path):
    (tmp_path / "journal.sqlite").write_bytes(b"SQLite format 3\x00" + b"\x00" * 200)
    frames = one_frame(tmp_path)
    code = main(["referee", "food-alley/stray", "--players", "2", "--data", str(tmp_path),
                 "--source", f"frames:{frames}"])
    assert code == 2
    assert "journal" in capsys.readouterr().err


def test_a_private_entry_clears_the_screen_and_hides_the_input(monkeypatch):
    session = RefereeSession.start("food-alley/sambal", 2)
    state = session.state
    for _ in range(25):  # the market filled: the next draws are behind a screen
        state.apply_action(state.sample_chance())
    session.begin()
    private = [q for q in session.questions.values() if q.kind == "private"]
    assert private
    typed = []

    def getpass(prompt: str) -> str:
        typed.append(prompt)
        return "0"

    monkeypatch.setattr("companion.table.cli.getpass.getpass", getpass)
    out = io.StringIO()
    _ask_terminal(session, io.StringIO(), out)
    screen = out.getvalue()
    assert typed == ["choice (hidden): "]
    assert screen.startswith(CLEAR)  # cleared before, scrollback too
    assert screen.endswith(CLEAR)  # and after
    assert len(state.log) == 26 and "private_to" in state.log[-1]


def test_step_events_carry_no_private_value():
    session = RefereeSession.start("food-alley/sambal", 2)
    events = []
    session.subscribe(events.append)
    state = session.state
    for _ in range(25):
        state.apply_action(state.sample_chance())
    session.begin()
    q = next(q for q in session.questions.values() if q.kind == "private")
    drawn = q.options[0]
    session.answer(q.id, drawn)
    shown = json.dumps([e.data for e in events])
    assert drawn.token not in shown  # type: ignore[attr-defined]
    assert "draws a coin behind the screen" in shown
    for e in events:
        if e.kind == "question":
            assert "options" not in e.data  # a private question names only its player


@pytest.mark.parametrize("typed", ["9999\n", "-1\n", "abc\n", "\n"])
def test_a_terminal_answer_that_is_no_option_is_refused_politely(typed):
    session = RefereeSession.start("food-alley/shopper", 2)
    state = session.state
    while state.phase == "fill":
        state.apply_action(state.sample_chance())
    session.begin()  # the lists along the first side: a public entry
    assert [q.kind for q in session.questions.values()] == ["enter"]
    out = io.StringIO()
    _ask_terminal(session, io.StringIO(typed), out)
    assert "not taken" in out.getvalue() and "type the number of one of the options" in \
        out.getvalue()
    assert "invalid literal" not in out.getvalue()
    assert len(state.log) == 25 and session.questions  # nothing applied, still asked


def test_the_end_of_input_at_a_question_stops_cleanly():
    session = RefereeSession.start("food-alley/shopper", 2)
    state = session.state
    while state.phase == "fill":
        state.apply_action(state.sample_chance())
    session.begin()
    with pytest.raises(KeyboardInterrupt):  # the CLI saves and says how to resume
        _ask_terminal(session, io.StringIO(""), io.StringIO())


@pytest.mark.parametrize("args,message", [
    (["food-alley/stray", "--players", "4"], "a 2-player game, not 4: pass --players 2"),
    (["food-alley/sambal", "--players", "2"], "a recording of food-alley/stray, not "
                                              "food-alley/sambal"),
])
def test_answers_of_another_game_are_refused(capsys, tmp_path, args, message):
    code = main(["referee", *args, "--data", str(tmp_path), "--source",
                 f"video:{FIXTURE / 'recording.mp4'}", "--answers",
                 str(FIXTURE / "answers.jsonl")])
    assert code == 2
    assert message in capsys.readouterr().err


def test_a_new_game_sets_the_unfinished_one_aside(capsys, tmp_path):
    from companion.table.journal import Journal

    journal = Journal(tmp_path)
    RefereeSession.start("food-alley/stray", 2, journal=journal)
    journal.close()
    main(["referee", "food-alley/stray", "--players", "2", "--data", str(tmp_path),
          "--source", f"video:{FIXTURE / 'recording.mp4'}", "--answers",
          str(FIXTURE / "answers.jsonl")])
    assert "is set aside (kept in the journal)" in capsys.readouterr().err
    assert [g.status for g in Journal(tmp_path).games()] == ["abandoned", "over"]


def test_a_source_that_cannot_be_opened_starts_no_game(tmp_path):
    assert main(["referee", "food-alley/stray", "--players", "2", "--data", str(tmp_path),
                 "--source", "frames:/no/such/folder"]) == 2
    assert not (tmp_path / "journal.sqlite").exists()


def test_the_terminal_offers_to_correct_the_record():
    from companion.table.cli import offer_correction
    from tests.table.helpers import record

    steps, _ = record("food-alley/sambal", 2, 4)
    session = RefereeSession.start("food-alley/sambal", 2)
    wrong = dict(steps[3]["board"][0][3])  # d1 misread as another token: a wrong fill
    board = [[dict(c) for c in row] for row in steps[3]["board"]]
    board[0][3] = {**wrong, "token": "veggie-6" if wrong["token"] != "veggie-6" else "egg-6"}
    session.begin()
    session.observe(board_keys(board, session.seated))
    assert session.state.log[3]["action"]["token"] != steps[3]["move"]["token"]
    before = find_game("food-alley/sambal").new(2, 0)
    for step in steps[:3]:  # the options the terminal lists: the draws possible at step 3
        before.apply_action(before.codec.decode(step["move"]))
    options = [a for a, _ in before.chance_outcomes()]
    pick = next(i for i, a in enumerate(options) if a.to_json() == steps[3]["move"])
    out = io.StringIO()
    offer_correction(session, io.StringIO(f"c\n3\n{pick}\n"), out)
    assert "step 3 corrected" in out.getvalue()
    assert session.state.log[3]["action"] == steps[3]["move"]
    assert session.history[3]["decided_by"] == "correction"
    out = io.StringIO()
    offer_correction(session, io.StringIO("\n"), out)  # Enter: wait, nothing changes
    assert "corrected" not in out.getvalue()
