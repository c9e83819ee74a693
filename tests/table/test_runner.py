"""The referee on its own thread: commands in, events out (what the kiosk relies on)."""

from __future__ import annotations

import queue
import time
from pathlib import Path

from companion.rules.food_alley.market import name as cell_name
from companion.table.answers import ScriptedTable, load_record
from companion.table.demo import DEMO_DIR, bundled_demo
from companion.table.journal import Journal
from companion.table.runner import SessionRunner
from companion.table.session import Event, RefereeSession
from companion.table.sources import open_source


def wait_for(runner: SessionRunner, kind: str, timeout: float = 20.0, **match) -> Event:
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        try:
            event = runner.events.get(timeout=0.1)
        except queue.Empty:
            continue
        if event.kind == kind and all(event.data.get(k) == v for k, v in match.items()):
            return event
    raise AssertionError(f"no {kind} event {match} within {timeout} s")


def manual(tmp_path: Path, game: str = "food-alley/stray", players: int = 2):
    journal = Journal(tmp_path)
    session = RefereeSession.start(game, players, journal=journal, source="manual")
    runner = SessionRunner(session, None)
    runner.start()
    return runner, session, journal


def test_manual_entry_plays_steps_by_index_and_syncs_what_the_screen_shows(tmp_path):
    runner, session, journal = manual(tmp_path)
    try:
        first = wait_for(runner, "sync")
        assert first.data["manual"], "a draw to enter by hand"
        runner.send("enter", 0)
        step = wait_for(runner, "step")
        assert step.data["decided_by"] == "entry"
        after = wait_for(runner, "sync")
        assert after.data["n"] == 1 and after.data["history"][-1] == step.data["text"]
        runner.send("enter", 999)
        refused = wait_for(runner, "reply", name="enter")
        assert not refused.data["ok"] and "no longer offered" in refused.data["error"]
    finally:
        runner.stop()
    assert len(journal.steps(session.game_id)) == 1


def test_undo_takes_back_a_players_move_and_the_journal_remembers_it(tmp_path):
    runner, session, journal = manual(tmp_path, "food-alley/shopper")
    try:
        wait_for(runner, "sync")
        runner.send("undo", "kiosk")
        assert "no move" in wait_for(runner, "reply", name="undo").data["error"]
        moved = None
        for _ in range(300):  # the setup: arrangements and draws, then a player's placing
            event = runner.events.get(timeout=10)
            if event.kind == "step" and event.data["player"] not in ("table", "all"):
                moved = event.data
                break
            if event.kind == "step":
                runner.send("undo", "kiosk")  # a draw or an arrangement: never taken back
                assert not wait_for(runner, "reply", name="undo").data["ok"]
            if event.kind == "sync":
                if event.data["questions"]:
                    runner.send("answer", event.data["questions"][0]["id"], 0)
                elif event.data["manual"]:
                    runner.send("enter", 0)
        assert moved is not None
        runner.send("undo", "kiosk")
        done = wait_for(runner, "reply", name="undo")
        assert done.data["ok"] and done.data["result"] == moved["text"]
        wait_for(runner, "sync", n=moved["n"])
    finally:
        runner.stop()
    corrections = journal.corrections(session.game_id)
    assert corrections[-1]["new"] == {"type": "undone"} and corrections[-1]["seat"] == "kiosk"
    assert len(journal.steps(session.game_id)) == moved["n"]


def test_a_correction_offers_the_steps_it_could_have_been_and_applies_one(tmp_path):
    runner, session, journal = manual(tmp_path)
    try:
        wait_for(runner, "sync")
        runner.send("enter", 0)
        wait_for(runner, "step")
        wait_for(runner, "sync")
        runner.send("correction-options", 0)
        options = wait_for(runner, "reply", name="correction-options").data["result"]
        assert len(options) > 1
        runner.send("correct", 0, 1, "kiosk")
        assert wait_for(runner, "reply", name="correct").data["ok"]
        runner.send("correct", 0, 1, "kiosk")  # a second time without asking again
        assert "pick the step" in wait_for(runner, "reply", name="correct").data["error"]
    finally:
        runner.stop()
    text = journal.corrections(session.game_id)[0]["new"]["text"]
    assert text == session.history[0]["text"] and options[1].split()[-1] in text


def test_private_options_go_only_to_the_private_event_and_the_answer_reply_is_bare(tmp_path):
    journal = Journal(tmp_path)
    session = RefereeSession.start("food-alley/sambal", 2, journal=journal, source="manual")
    runner = SessionRunner(session, None)
    runner.start()
    seen: list[Event] = []
    try:
        private = None
        for _ in range(200):
            event = runner.events.get(timeout=10)
            seen.append(event)
            if event.kind == "sync":
                qs = [q for q in event.data["questions"] if q["kind"] == "private"]
                if qs:
                    private = qs[0]
                    break
                if event.data["manual"]:
                    runner.send("enter", 0)
        assert private is not None, "Sambal's setup asks each player's draw in private"
        runner.send("private", private["id"])
        options = wait_for(runner, "private").data["options"]
        runner.send("answer", private["id"], len(options) - 1)
        after: list[Event] = []
        end = time.monotonic() + 3
        while time.monotonic() < end:
            try:
                after.append(runner.events.get(timeout=0.2))
            except queue.Empty:
                pass
    finally:
        runner.stop()
    reply = next(e for e in after if e.kind == "reply")
    assert reply.data["ok"] and reply.data["result"] is None
    chosen = options[-1]["text"].split()[-1]  # the token drawn
    assert any(e.kind == "sync" for e in after)
    assert not any(chosen in str(e.data) for e in after), "the private draw leaked"
    assert not any(e.kind == "private" for e in seen)


def test_the_bundled_demo_plays_to_its_recorded_end_on_the_runner(tmp_path):
    demo = bundled_demo(DEMO_DIR)
    steps, final = load_record(demo.answers)
    journal = Journal(tmp_path)
    session = RefereeSession.start(demo.game, demo.players, journal=journal, source=demo.source)
    runner = SessionRunner(session, open_source(demo.source), pace=0)
    runner.oracle = ScriptedTable(steps)
    runner.start()
    frames = 0
    asked: set[int] = set()
    try:
        end = time.monotonic() + 240
        over = None
        while over is None and time.monotonic() < end:
            event = runner.events.get(timeout=30)
            if event.kind == "frame":
                frames += 1
                assert len(event.data["cells"]) in (0, 25)
            elif event.kind == "sync":
                for q in event.data["questions"]:
                    if q["id"] not in asked:
                        asked.add(q["id"])
                        runner.send("suggest", q["id"], tag=str(q["id"]))
            elif event.kind == "reply" and event.data["name"] == "suggest":
                if event.data["result"] is not None:
                    runner.send("answer", int(event.data["tag"]), event.data["result"])
            elif event.kind == "game_over":
                over = event.data
    finally:
        runner.stop()
    assert over is not None, "the demo did not end"
    assert over["scores"] == final["scores"] and over["winners"] == final["winners"]
    assert frames > 10
    assert any(s["decided_by"] == "camera" for s in journal.steps(session.game_id))
    assert cell_name(0) == "a1"


def test_a_board_found_but_not_read_says_why_on_the_camera_check(tmp_path):
    """A box of an edition the reader does not know: the board is found, nothing is read, and
    the screen is told why (the kiosk's start screen shows it)."""
    import cv2
    import numpy as np

    from companion.vision.edition import draw_edition
    from companion.vision.synth import SceneStyle, render_scene

    art = draw_edition(tmp_path / "edition", 501)
    scene = render_scene(np.random.default_rng([901000, 1]),
                         style=SceneStyle(hand_probability=0.0), art=art)
    frames = tmp_path / "frames"
    frames.mkdir()
    for k in range(3):
        cv2.imwrite(str(frames / f"{k:03d}.jpg"), scene.frame)
    runner = SessionRunner(None, open_source(f"frames:{frames}"), pace=0)
    runner.start()
    try:
        event = wait_for(runner, "frame", timeout=60, state="not read")
        assert "this edition's art is not enrolled" in event.data["reason"]
    finally:
        runner.stop()


def test_a_rig_file_that_cannot_be_used_is_told_to_the_screen_and_the_board_searched_for(
        tmp_path):
    """The kiosk's start screen asks for a calibration on this event (start.rig_stale)."""
    import cv2
    import numpy as np

    from companion.table.calibrate import start_pose

    (tmp_path / "rig.yaml").write_text("schema: 1\nsource: [not, a, rig\n", encoding="utf-8")
    frames = tmp_path / "frames"
    frames.mkdir()
    for k in range(3):
        cv2.imwrite(str(frames / f"{k:03d}.jpg"), np.full((480, 640, 3), 90, np.uint8))
    asked = []

    def rig_pose(size, warn):
        asked.append(size)
        return start_pose(tmp_path / "rig.yaml", f"frames:{frames}", size, warn)

    runner = SessionRunner(None, open_source(f"frames:{frames}"), pace=0, start_pose=rig_pose)
    runner.start()
    try:
        event = wait_for(runner, "rig", timeout=30)
        assert "calibrat" in event.data["text"]
    finally:
        runner.stop()
    assert asked == [(640, 480)]  # asked once, for the first frame's size
