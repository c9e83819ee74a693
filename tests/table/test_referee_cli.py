"""`companion referee` on bad input, and on the terminal without a scripted table."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest

from companion.cli import main
from companion.table.cli import _ask_terminal
from companion.table.session import RefereeSession

FIXTURE = Path(__file__).parents[1] / "fixtures" / "recordings" / "stray-2p-seed4"


@pytest.mark.parametrize("args,message", [
    (["--source", "projector:2"], "unknown source"),
    (["--source", "frames:/no/such/folder"], "no such folder"),
    (["--names", "Ann", "--source", "frames:/tmp"], "--names gives 1 names for 2 players"),
    (["--resume", "--source", "frames:/tmp"], "no unfinished"),
])
def test_bad_arguments_are_named(capsys, tmp_path, args, message):
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
    code = main(["referee", "food-alley/stray", "--players", "2", "--data", str(tmp_path),
                 "--source", "frames:/tmp"])
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
    assert screen.startswith("\033[2J\033[H")  # cleared before
    assert screen.endswith("\033[2J\033[H")  # and after
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
