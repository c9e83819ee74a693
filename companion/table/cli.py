"""``companion referee``: the session on a frame source, in the terminal (or scripted)."""

from __future__ import annotations

import argparse
import getpass
import json
import sys
import time
from pathlib import Path
from typing import Any, TextIO

from companion.cli import CLEAR
from companion.rules import CHANCE, SIMULTANEOUS
from companion.rules.protocol import RulesError
from companion.table.answers import RecordingError, ScriptedTable, load_record
from companion.table.journal import Journal, JournalError, default_data_dir
from companion.table.session import AnswerError, Event, RefereeSession

RESUME_LEAD_S = 1.0  # s before the reading of the last committed step that a recording resumes


def _printer(as_json: bool, out: TextIO) -> Any:
    def show(event: Event) -> None:
        d = event.data
        if event.kind == "step":
            if as_json:
                out.write(json.dumps({k: d[k] for k in ("n", "player", "move", "text", "board",
                                                         "decided_by", "asked")}) + "\n")
            else:
                out.write(f"{d['n']:4d} [{d['decided_by']}] {d['text']}\n")
        elif event.kind == "warning" and not d.get("cleared"):
            if as_json:
                out.write(json.dumps({"warning": d["text"], "cells": d["cells"],
                                      "differences": d["differences"],
                                      "allowed": d["allowed"]}) + "\n")
            else:
                out.write(f"  ! {d['text']}: " + "; ".join(d["differences"])
                          + f"\n    the rules allow: {d['allowed']}\n"
                          "    put the board back, or correct the record\n")
        elif event.kind == "game_over":
            if as_json:
                out.write(json.dumps(d) + "\n")
            else:
                out.write(f"\nGame over: {d.get('end')}\n")
                for place, group in enumerate(d["ranking"], start=1):
                    for who in group:
                        score = d["scores"][who]
                        parts = ", ".join(f"{k.replace('_', ' ')} {v}"
                                          for k, v in score["breakdown"].items())
                        out.write(f"  {place}. {who} {score['total']} ({parts})\n")
                if d.get("tiebreak"):
                    out.write(f"Tie-breaker: {d['tiebreak']}\n")
                out.write(f"Winners: {', '.join(d['winners'])}\n")
        out.flush()
    return show


def _ask_terminal(session: RefereeSession, inp: TextIO, out: TextIO) -> None:
    """Put each open question on the terminal; a private one behind a cleared screen, its
    input hidden."""
    for q in list(session.questions.values()):
        if q.optional:
            continue
        public = session.public_question(q)
        if q.kind == "private":
            out.write(CLEAR + public["prompt"] + "\n")
            options = session.private_options(q.id)
            for o in options:
                out.write(f"  {o['index']:3d}  {o['text']}\n")
            try:
                answer = getpass.getpass("choice (hidden): ")
            except EOFError:
                raise KeyboardInterrupt from None
            out.write(CLEAR)
        else:
            out.write(public["prompt"] + "\n")
            shown = public.get("options") or [
                {"index": i, "text": " then ".join(c["steps"])}
                for i, c in enumerate(public.get("candidates", []))]
            for o in shown:
                out.write(f"  {o['index']:3d}  {o['text']}\n")
            out.write("choice: ")
            out.flush()
            answer = inp.readline()
            if not answer:
                raise KeyboardInterrupt
        typed = answer.strip()
        if not (typed.isascii() and typed.isdigit()):
            out.write("not taken: type the number of one of the options\n")
            continue
        try:
            session.answer(q.id, int(typed))
        except AnswerError as exc:
            out.write(f"not taken ({exc}); type the number of one of the options\n")


def offer_correction(session: RefereeSession, inp: TextIO, out: TextIO) -> None:
    """After a board that matches no legal step: wait for it to be put back (Enter), or
    correct the record (c): pick a past step and what it really was."""
    out.write("Enter: wait for the board to be put back; c: correct the record\n> ")
    out.flush()
    if inp.readline().strip() != "c":
        return
    state = session.state
    for h in session.history[-10:]:
        out.write(f"  {h['n']:4d}  {h['text']}\n")
    out.write("step to correct (its number): ")
    out.flush()
    typed = inp.readline().strip()
    if not (typed.isascii() and typed.isdigit()) or not 0 <= int(typed) < len(state.log):
        out.write(f"not corrected: type a step number from 0 to {len(state.log) - 1}\n")
        return
    n = int(typed)
    before = type(state).replay(state.header(), state.log[:n], state.origin)
    actor = before.current_player()
    if actor == SIMULTANEOUS:
        out.write("not corrected: sealed choices are taken back by their players, not here\n")
        return
    options = ([a for a, _ in before.chance_outcomes()] if actor == CHANCE
               else before.legal_actions())
    private = "private_to" in state.log[n]
    if private:  # an admin's look at a secret: behind a cleared screen
        out.write(CLEAR + "the step is a secret: only its player looks now\n")
    for i, action in enumerate(options):
        out.write(f"  {i:4d}  {action}\n")
    prompt = f"what it really was (0-{len(options) - 1}): "
    if private:
        choice = getpass.getpass(prompt).strip()
        out.write(CLEAR)
    else:
        out.write(prompt)
        out.flush()
        choice = inp.readline().strip()
    if not (choice.isascii() and choice.isdigit()) or not 0 <= int(choice) < len(options):
        out.write("not corrected: type the number of one of the options\n")
        return
    try:
        dropped = session.correct(n, options[int(choice)], seat="terminal")
    except AnswerError as exc:
        out.write(f"not corrected: {exc}\n")
        return
    out.write(f"step {n} corrected: {session.history[n]['text']}\n")
    for d in dropped:
        out.write(f"  step {d['n']} no longer holds ({d['why']}): {d['text']}\n")


def answer_scripted(session: RefereeSession, table: ScriptedTable) -> None:
    for _ in range(1000):
        for q in list(session.questions.values()):
            choice = table.answer(session.state, q)
            if choice is not None:
                session.answer(q.id, choice)
                break
        else:
            return


def run_referee(args: argparse.Namespace) -> int:
    # the camera and reader stack (OpenCV, onnxruntime) loads only when a game is refereed,
    # not for every command the parser serves
    from companion.cli import parse_options
    from companion.rules import find_game
    from companion.table.calibrate import rig_controls, start_pose
    from companion.table.rig import rig_path
    from companion.table.settle import Settler
    from companion.table.sources import SourceError, jpeg, open_source
    from companion.vision.locate import VisionError
    from companion.vision.reader import BoardReader

    out = sys.stdout
    data = Path(args.data) if args.data else default_data_dir()
    rig_file = Path(args.rig) if args.rig else rig_path(data)
    try:
        source = open_source(args.source, fps=args.fps,
                             controls=rig_controls(rig_file, args.source))
        reader = BoardReader(Path(args.model) if args.model else None)
    except (SourceError, VisionError) as exc:
        print(f"companion referee: {exc}", file=sys.stderr)
        return 2
    try:
        journal = Journal(data)
    except JournalError as exc:
        print(f"companion referee: {exc}", file=sys.stderr)
        return 2
    table = None
    recorded_final = None
    if args.answers:
        try:
            steps, recorded_final = load_record(Path(args.answers))
        except RecordingError as exc:
            print(f"companion referee: {exc}", file=sys.stderr)
            return 2
        table = ScriptedTable(steps)
    try:
        record = journal.unfinished(args.game)
        players = record.players if args.resume and record is not None else args.players
        mismatch = _answers_mismatch(recorded_final, args.game, players, args.answers)
        if mismatch:
            print(f"companion referee: {mismatch}", file=sys.stderr)
            return 2
        if args.resume:
            if record is None:
                print(f"companion referee: no unfinished {args.game} game in {journal.path}; "
                      "start one without --resume", file=sys.stderr)
                return 2
            session = RefereeSession.resume(journal, record.id)
        else:
            if record is not None:
                journal.abandon(record.id)
                print(f"companion referee: the unfinished {args.game} game {record.id} is set "
                      "aside (kept in the journal); a new game starts", file=sys.stderr)
            names = [n.strip() for n in args.names.split(",")] if args.names else None
            if names is not None and (len(names) != args.players or len(set(names)) != len(
                    names) or not all(names)):
                print(f"companion referee: --names needs {args.players} different names, one "
                      f"for each player, comma-separated (got {','.join(names)})",
                      file=sys.stderr)
                return 2
            options = parse_options(args.option, find_game(args.game))
            session = RefereeSession.start(args.game, args.players, names=names,
                                           journal=journal, source=args.source, **options)
    except (ValueError, TypeError, RulesError) as exc:
        print(f"companion referee: {exc}", file=sys.stderr)
        return 2
    session.subscribe(_printer(args.json, out))
    settler = Settler(reader, session.seated)

    def answer() -> None:
        if table is not None:
            answer_scripted(session, table)
        else:
            _ask_terminal(session, sys.stdin, out)

    session.begin()
    answer()
    # a recording resumed: go on from the reading that decided the last committed step (its
    # frames are still settling there); a live camera shows the table as it is now
    same_recording = (args.resume and session.game_id is not None
                      and journal.game(session.game_id).source == args.source
                      and not args.source.startswith(("camera", "webcam")))
    resume_from = (session.frame_t - RESUME_LEAD_S if same_recording
                   and session.frame_t is not None else None)
    start = first_t = None
    offered = None  # the warning a correction was last offered for
    first_frame = True

    def warn(text: str) -> None:
        print(f"companion referee: {text}; the board is searched for in every frame",
              file=sys.stderr)

    try:
        with source:
            for frame in source.frames():
                if session.state.is_terminal():
                    break
                if resume_from is not None and frame.t < resume_from:
                    continue
                if args.pace > 0:  # a recording played at its own pace (times --pace)
                    if start is None:
                        start, first_t = time.monotonic(), frame.t
                    time.sleep(max(0.0, start + (frame.t - first_t) / args.pace
                                   - time.monotonic()))
                if first_frame:  # a calibrated rig: start from where it sees the board
                    first_frame = False
                    h, w = frame.image.shape[:2]
                    settler.start_from(start_pose(rig_file, args.source, (w, h), warn))
                settled = settler.push(frame)
                if settled is None:
                    continue
                session.observe(settled.keys, jpeg(settled.frame.image), settled.frame.t,
                                settled.confidence)
                if table is None and session.warning is not None and \
                        session.warning is not offered:
                    offered = session.warning
                    offer_correction(session, sys.stdin, out)
                answer()
    except (SourceError, KeyboardInterrupt) as exc:
        print(f"companion referee: stopped ({str(exc) or 'interrupted'}); the game is kept in "
              f"{journal.path}: go on with --resume", file=sys.stderr)
        return 1
    if session.state.is_terminal():
        return 0
    print(f"companion referee: the frames ran out at step {len(session.state.log)} "
          f"({session.waiting}); the game is kept in {journal.path}: go on with --resume",
          file=sys.stderr)
    return 1


def _answers_mismatch(final: dict[str, Any] | None, game: str, players: int,
                      path: str | None) -> str | None:
    """Why a recorded game cannot answer this one (another game, other players), or None."""
    if final is None:
        return None
    if final.get("game") != game:
        return f"{path} is a recording of {final.get('game')}, not {game}"
    seats = len(final.get("scores") or {})
    if seats and seats != players:
        return (f"{path} is a recording of a {seats}-player game, not {players}: pass "
                f"--players {seats}")
    return None


def add_parser(sub: Any, game_names: list[str]) -> None:
    ref = sub.add_parser("referee", help="referee a game at the table from a camera")
    ref.add_argument("game", help=f"one of: {', '.join(game_names)}")
    ref.add_argument("--players", type=int, default=4, help="2 to 4 (default 4)")
    ref.add_argument("--names", help="player names, comma-separated, in seat order (default: "
                     "their colours)")
    ref.add_argument("--source", default="camera", help="camera, webcam:N, frames:DIR or "
                     "video:FILE (default camera)")
    ref.add_argument("--fps", type=float, default=5.0, help="frames a second of a frames:DIR "
                     "folder (default 5)")
    ref.add_argument("--pace", type=float, default=0.0, help="play a recorded source at this "
                     "many times its own speed (default 0: as fast as it can be read)")
    ref.add_argument("--answers", help="a recorded game (companion play ... --json) that "
                     "answers the referee's questions")
    ref.add_argument("--data", help="the data directory holding the journal (default "
                     "$XDG_DATA_HOME/food-alley-companion)")
    ref.add_argument("--rig", help="the rig file from companion calibrate (default rig.yaml "
                     "in the data directory, where there is one)")
    ref.add_argument("--resume", action="store_true", help="go on with the last unfinished game")
    ref.add_argument("--model", help=MODEL_HELP)
    ref.add_argument("--json", action="store_true", help="one JSON object per applied step")
    ref.add_argument("--option", action="append", metavar="KEY=VALUE",
                     help="a table option, e.g. recipes=open for Sambal's open recipe piles")
    ref.set_defaults(func=run_referee)
    cal = sub.add_parser("calibrate", help="check the camera rig (board in view, size, focus, "
                         "light), lock the camera's exposure and write the rig file")
    cal.add_argument("--source", default="camera", help="camera, webcam:N, frames:DIR or "
                     "video:FILE (default camera)")
    cal.add_argument("--out", help="the rig file to write (default rig.yaml in the data "
                     "directory, where the referee and the kiosk look for it)")
    cal.add_argument("--data", help="the data directory (default "
                     "$XDG_DATA_HOME/food-alley-companion)")
    cal.add_argument("--watch", action="store_true", help="check again every second until "
                     "every check passes (while you adjust the stand), then lock and write")
    cal.add_argument("--json", action="store_true", help="the checks as one JSON object")
    cal.add_argument("--model", help=MODEL_HELP)
    cal.set_defaults(func=run_calibrate)


MODEL_HELP = ("the reader's model folder (cells.onnx, cells.json, reader.yaml; default the "
              "bundled model)")
MARKS = {"good": "[ ok ]", "warn": "[soft]", "bad": "[FIX ]"}


def run_calibrate(args: argparse.Namespace) -> int:
    from companion.table.calibrate import calibrate, check_source
    from companion.table.rig import rig_path
    from companion.table.sources import SourceError, open_source
    from companion.vision.locate import VisionError
    from companion.vision.reader import BoardReader
    from companion.vision.rigcheck import reading_grid

    out_path = Path(args.out) if args.out else rig_path(
        Path(args.data) if args.data else default_data_dir())
    try:
        source = open_source(args.source)
        reader = BoardReader(Path(args.model) if args.model else None)
    except (SourceError, VisionError) as exc:
        print(f"companion calibrate: {exc}", file=sys.stderr)
        return 2
    shown = None
    try:
        with source:
            checked = check_source(source, reader)
            passes = int(checked.report.ok)
            while args.watch and passes < 2:  # two good rounds in a row: not mid-adjustment
                verdicts = [(c.name, c.verdict, c.message) for c in checked.report.checks]
                if verdicts != shown and not args.json:
                    shown = verdicts
                    _print_checks(checked.report, sys.stdout)
                    print("  ... every check passes: once more before locking\n" if passes
                          else "  ... checking again every second (Ctrl-C to stop)\n")
                time.sleep(1.0)
                checked = check_source(source, reader, settle_s=0.2)
                passes = passes + 1 if checked.report.ok else 0
            result = calibrate(source, args.source, reader, out_path, checked=checked)
    except (SourceError, OSError) as exc:
        print(f"companion calibrate: {exc}; nothing written", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("\ncompanion calibrate: stopped; nothing written", file=sys.stderr)
        return 1
    report = result.report
    if args.json:
        doc = report.to_json()
        doc["lock"] = None if result.lock is None else {
            "held": result.lock.held, "message": result.lock.message,
            "controls": result.lock.controls}
        doc["written"] = str(result.path) if result.path else None
        print(json.dumps(doc))
        return 0 if result.rig is not None else 1
    w, h = report.frame_size
    print(f"Calibrating the rig on {args.source} ({w}x{h} frames)")
    _print_checks(report, sys.stdout)
    if report.reading is not None and report.reading.found:
        print("\nTest read, each cell with the reader's confidence (row 1 on the title side):")
        for i, line in enumerate(reading_grid(report.reading), 1):
            print(f"  {i}  {line}")
    if result.lock is not None:
        print(f"\nCamera: {result.lock.message}")
    elif result.rig is not None:
        print("\nCamera: this source has no exposure controls to lock")
    if result.rig is None:
        print("\nNothing written: fix what is marked FIX and run companion calibrate again "
              "(--watch checks every second while you adjust)")
        return 1
    print(f"\nRig written to {result.path}: the referee and the kiosk start from it")
    return 0


def _print_checks(report: Any, out: TextIO) -> None:
    for check in report.checks:
        out.write(f"  {MARKS[check.verdict]} {check.name:<8} {check.message}\n")
