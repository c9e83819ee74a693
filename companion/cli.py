"""Command line: ``companion play GAME --players N --seed S [--auto] [--json]``."""

from __future__ import annotations

import argparse
import getpass
import json
import os
import signal
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any, TextIO

from companion.rules import (
    CHANCE,
    SIMULTANEOUS,
    GameState,
    RulesError,
    find_game,
    game_names,
    player_range,
)
from companion.rules.simulate import steps
from companion.rules.summary import end_line, final_summary, score_table, smileys


def play_auto(state: GameState, seed: int, *, as_json: bool, out: TextIO) -> GameState:
    """Play to the end with seeded random legal moves, printing each step."""
    for actor, _ in steps(state, seed):
        entry = state.log[-1]
        if as_json:
            who = {CHANCE: "table", SIMULTANEOUS: "all"}.get(actor)
            out.write(json.dumps({
                "n": len(state.log) - 1,
                "player": who or state.player_name(actor),
                "move": entry["action"],
                "text": entry["text"],
                "smileys": smileys(state),
                "board": state.camera_board(),
            }) + "\n")
        else:
            marker = "> " if actor >= 0 else "  "
            out.write(f"{len(state.log) - 1:4d} {marker}{entry['text']}\n")
    if as_json:
        out.write(json.dumps(final_summary(state)) + "\n")
    else:
        out.write(f"\n{end_line(state)}\n\n{score_table(state)}\n")
    return state


CLEAR = "\033[3J\033[2J\033[H"  # the scrollback too: a secret cannot be scrolled back to
COMMANDS = "u=undo, h=hint, b=board, s=scores, q=save and quit"


class Stopped(Exception):
    """The players stopped the game (q, end of input, Ctrl-C)."""


def _private_turn(state: GameState, actor: int) -> bool:
    """Whether this decision is one player's secret (a sealed coin, a face-down cat)."""
    if state.current_player() == SIMULTANEOUS:
        return True
    legal = state.legal_actions(actor)
    return bool(legal) and state._private_to(legal[0]) is not None


def _public_text(entry: dict[str, Any]) -> str:
    return entry["public_text"] if "private_to" in entry else entry["text"]


def _read(inp: TextIO, out: TextIO, prompt: str) -> str:
    out.write(prompt)
    out.flush()
    try:
        line = inp.readline()
    except KeyboardInterrupt:
        raise Stopped from None
    if not line:
        raise Stopped
    return line.strip()


def play_interactive(state: GameState, *, inp: TextIO, out: TextIO,
                     save: Path | None = None) -> GameState:
    """Type the number of a legal move; u undoes, h gives the mode's hint, b shows the board,
    s the scores so far, q saves the game and quits (so do the end of input and Ctrl-C).

    Chance steps (draws, cats) come from the seeded RNG, as if the table had drawn them. A
    player's secret (a sealed coin, a face-down cat) is chosen behind a "pass the screen"
    prompt, on a cleared screen, and the shared screen shows only its public text.
    """
    try:
        _play_interactive(state, inp, out)
    except (Stopped, KeyboardInterrupt):
        out.write("\n")
        if save is not None:
            save.parent.mkdir(parents=True, exist_ok=True)
            save.write_text(json.dumps(state.to_json()), encoding="utf-8")
            out.write(f"stopped; the game is saved in {save}: go on with "
                      f"companion play {state.GAME_ID} --resume\n")
        else:
            out.write("stopped; this game is not saved\n")
        return state
    out.write(f"\n{end_line(state)}\n\n{score_table(state)}\n")
    return state


def _play_interactive(state: GameState, inp: TextIO, out: TextIO) -> None:
    while not state.is_terminal():
        actor = state.current_player()
        if actor == CHANCE:
            state.play_chance()
            out.write(f"     {_public_text(state.log[-1])}\n")
            continue
        if actor == SIMULTANEOUS:  # secret choices: each player in turn, at the same screen
            actor = state.acting_players()[0]
        name = state.player_name(actor)
        secret = _private_turn(state, actor)
        if secret:
            if _read(inp, out, f"\nPass the screen to {name}, then press Enter ") == "q":
                raise Stopped
            out.write(CLEAR)
        legal = state.legal_actions(actor)
        out.write(f"\n{name} to act:\n")
        for i, action in enumerate(legal):
            out.write(f"  {i:3d}  {action}\n")
        prompt = f"choice (0-{len(legal) - 1}; {COMMANDS}): "
        if secret and inp is sys.stdin and sys.stdin.isatty():
            try:  # typed unseen: the screen may be turned before it is cleared
                answer = getpass.getpass(prompt).strip()
            except EOFError:
                raise Stopped from None
        else:
            answer = _read(inp, out, prompt)
        if secret:
            out.write(CLEAR)
        if answer == "q":
            raise Stopped
        try:
            if answer == "u":
                undone = state.undo(player=actor if state.sealed else None)
                out.write(f"undid: {undone['text']}\n")
            elif answer == "h":
                out.write(f"hint: {_hint(state, actor)}\n")
            elif answer == "b":
                board = state.camera_board()
                out.write((grid_table(board) if board else "no board in this game") + "\n")
            elif answer == "s":
                for sc in state.scores():
                    parts = ", ".join(f"{k} {v}" for k, v in sc.breakdown.items())
                    out.write(f"  {state.player_name(sc.player)}: {sc.total} ({parts})\n")
            elif answer.isascii() and answer.isdigit() and int(answer) < len(legal):
                before = len(state.log)
                state.apply_action(legal[int(answer)], player=actor)
                text = _public_text(state.log[-1]) if len(state.log) > before else (
                    f"{name} has chosen")
                out.write(f"  > {text}\n")
            else:
                out.write(f"not a choice: type a number from 0 to {len(legal) - 1}, or one of "
                          f"{COMMANDS}\n")
        except RulesError as exc:
            out.write(f"not possible: {exc}\n")


def parse_options(pairs: list[str] | None, game: type[GameState]) -> dict[str, str]:
    """Table options from ``--option KEY=VALUE`` (Sambal: ``recipes=top`` or ``recipes=open``).

    :raises ValueError: naming the option that is not KEY=VALUE or not the game's.
    """
    options = {}
    known = game.TABLE_OPTIONS
    for pair in pairs or []:
        key, sep, value = pair.partition("=")
        if not sep or not key or not value:
            raise ValueError(f"--option {pair!r}: write KEY=VALUE, like recipes=open")
        if key not in known:
            offered = "; ".join(f"{k}: {v}" for k, v in known.items()) or "none"
            raise ValueError(f"{game.GAME_ID} has no option {key!r} (its options: {offered})")
        options[key] = value
    return options


def _hint(state: GameState, actor: int) -> str:
    """The mode's hint: in Shopper the best set of 4 to store; the other modes have none."""
    best_store = getattr(state, "best_store", None)
    if best_store is None:
        return "this mode has no hint"
    best = best_store(actor)
    return str(best) if best else "no set of 4 completes one of your lists"


def _cmd_play(args: argparse.Namespace) -> int:
    from companion.table.journal import default_data_dir

    if args.json and not args.auto:
        print("companion play: --json prints a seeded game played with --auto; add --auto, or "
              "play interactively without --json", file=sys.stderr)
        return 2
    try:
        cls = find_game(args.game)
    except ValueError as exc:
        print(f"companion play: {exc}", file=sys.stderr)
        return 2
    save = (Path(args.data) if args.data else default_data_dir()) / (
        "play-" + cls.GAME_ID.replace("/", "-") + ".json")
    if args.resume:
        try:
            state = cls.from_json(json.loads(save.read_text(encoding="utf-8")))
        except FileNotFoundError:
            print(f"companion play: no saved {args.game} game in {save.parent}; start one "
                  "without --resume", file=sys.stderr)
            return 2
        except (ValueError, RulesError) as exc:
            print(f"companion play: the saved game {save} cannot be read ({exc}); start a "
                  "new one without --resume", file=sys.stderr)
            return 2
    else:
        try:
            players = args.players or player_range(cls)[1]
            state = cls.new(players, args.seed, **parse_options(args.option, cls))
        except (ValueError, TypeError) as exc:
            print(f"companion play: {exc}", file=sys.stderr)
            return 2
    if args.resume and not args.auto:  # where the game stands, as the table may see it
        for entry in state.log[-5:]:
            print(f"     {_public_text(entry)}")
        board = state.camera_board()
        if board:
            print(grid_table(board))
    if args.auto:
        play_auto(state, args.seed, as_json=args.json, out=sys.stdout)
    else:
        def stop(signum: int, frame: Any) -> None:  # the terminal closed: save, as on Ctrl-C
            raise KeyboardInterrupt

        for sig in (signal.SIGHUP, signal.SIGTERM):
            signal.signal(sig, stop)
        play_interactive(state, inp=sys.stdin, out=sys.stdout, save=save)
        if state.is_terminal() and save.exists():
            save.unlink()
    return 0


def _cell_text(cell: dict[str, Any]) -> str:
    kind = cell["kind"]
    if kind in ("ingredient", "coin"):
        return f"{cell['token']}{'' if kind == 'ingredient' else ' (coin)'}"
    if kind == "cat":
        return f"cat {cell['player']} {cell['value']}"
    if kind == "cat-back":
        return f"cat {cell['player']} ?"
    if kind == "shopper":
        return f"shopper {cell['player']}"
    return "." if kind == "empty" else "??"


def grid_table(cells: list[list[dict[str, Any]]]) -> str:
    """The 5x5 grid as a readable table, row 1 on the title side."""
    texts = [[_cell_text(c) for c in row] for row in cells]
    width = max(len(t) for row in texts for t in row)
    header = "    " + " ".join(f"{col:<{width}}" for col in "abcde")
    lines = [header]
    for r, row in enumerate(texts):
        lines.append(f"{r + 1:>2}  " + " ".join(f"{t:<{width}}" for t in row))
    return "\n".join(lines)


def _cmd_scan(args: argparse.Namespace) -> int:
    from pathlib import Path

    from companion.vision.locate import VisionError
    from companion.vision.reader import BoardReader, read_image

    try:
        reader = BoardReader(Path(args.model) if args.model else None)
    except VisionError as exc:
        print(f"companion scan: {exc}", file=sys.stderr)
        return 2
    failed = 0
    for name in args.images:
        path = Path(name)
        try:
            frame = read_image(path)
        except VisionError as exc:
            failed += 1
            if args.json:
                print(json.dumps({"image": name, "board": {"found": False, "corners": None},
                                  "cells": None, "ms": 0.0, "error": str(exc)}))
            else:
                print(f"{exc}\n")  # the message names the file
            continue
        reading = reader.read(frame)
        if not reading.found:
            failed += 1
        if args.json:
            print(json.dumps({"image": name, **reading.to_json()}))
        elif reading.found:
            note = f"\n{reading.reason}" if reading.reason else ""
            print(f"{name} ({reading.ms:.0f} ms):\n{grid_table(reading.cells)}{note}\n")
        else:
            print(f"{name}: no board found ({reading.reason})\n")
    return 1 if failed else 0


def _cmd_enroll(args: argparse.Namespace) -> int:
    from companion.vision.enroll import EnrollError, PlanError, enroll, enrollment_plan, plan_json

    if args.action != "plan":
        if args.photos is None or args.out is None:
            print("companion enroll: give --photos DIR (the plan's photos, layout-00.jpg ...) "
                  "and --out MODEL_DIR (a new folder), or `plan` to see what to photograph",
                  file=sys.stderr)
            return 2
        try:
            meta = enroll(args.photos, args.out, log=lambda line: print(line, flush=True),
                          learn_anyway=args.learn_anyway)
        except EnrollError as exc:
            print("companion enroll: nothing was written:", file=sys.stderr)
            for problem in exc.problems:
                print(f"  {problem}", file=sys.stderr)
            return 1
        what = ("holds the bundled model, which reads your edition" if "kept" in meta["edition"]
                else "reads your edition")
        print(f"done: {args.out} {what} ({meta['edition']['photo_cells_read_right']} cells of "
              f"your photos read as the plan has them). Use it with --model {args.out} (scan, "
              "referee, calibrate, kiosk).")
        return 0
    try:
        layouts = enrollment_plan()
    except PlanError as exc:
        print(f"companion enroll: {exc}", file=sys.stderr)
        return 2
    if args.json:
        print(json.dumps(plan_json(layouts)))
        return 0
    print(f"Teach the reader your edition: photograph these {len(layouts)} layouts with the "
          "camera on its rig, one photo each, named as shown. Row 1 is on the title side; a "
          "token by its name lies ingredient side up, with (coin) coin side up; 'cat blue ?' "
          "is any blue cat lying face down. The coins are shown twice, each in two photos: "
          "their marks are small, and a second look in another place sees them better.\n")
    for layout in layouts:
        if layout.index == 0:
            print(f"{layout.file_name}: the empty board, nothing on it.\n")
            continue
        print(f"{layout.file_name}:\n{grid_table(layout.rows())}\n")
    return 0


def _cmd_train(args: argparse.Namespace) -> int:
    from pathlib import Path

    checks = (("--scenes", args.scenes, 1), ("--val-scenes", args.val_scenes, 1),
              ("--epochs", args.epochs, 1), ("--workers", args.workers, 0))
    for option, value, least in checks:
        if value < least:
            print(f"companion train: {option} is {least} or more (got {value})",
                  file=sys.stderr)
            return 2
    out = Path(args.out)
    if out.exists() and not out.is_dir():
        print(f"companion train: {out} is a file; --out names a folder", file=sys.stderr)
        return 2
    try:
        from companion.vision.train import TrainConfig, train
    except ImportError as exc:
        print(f"companion train: {exc}; install the train extra: pip install -e '.[train]'",
              file=sys.stderr)
        return 2
    config = TrainConfig(scenes=args.scenes, val_scenes=args.val_scenes, epochs=args.epochs,
                         seed=args.seed, workers=args.workers, broad=args.broad, tone=args.tone)
    train(out, config)
    return 0


def _cmd_render(args: argparse.Namespace) -> int:
    from pathlib import Path

    from companion.vision.fixtures import write_fixtures

    out = Path(args.out)
    if out.exists() and not out.is_dir():
        print(f"companion render: {out} is a file; --out names a folder (new or existing)",
              file=sys.stderr)
        return 2
    if args.count < 1:
        print(f"companion render: --count is how many scenes to render, 1 or more (got "
              f"{args.count})", file=sys.stderr)
        return 2
    if args.hand_every < 0:
        print("companion render: --hand-every is 0 (no hands) or more", file=sys.stderr)
        return 2
    write_fixtures(out, args.count, args.seed, hand_every=args.hand_every)
    print(f"{args.count} scenes with their truth written to {out}")
    return 0


def _version() -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("food-alley-companion")
    except PackageNotFoundError:
        return "unknown (not installed)"


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="companion", description="Food Alley Companion")
    parser.add_argument("--version", action="version",
                        version=f"%(prog)s {_version()}")
    sub = parser.add_subparsers(dest="command", required=True)
    play = sub.add_parser("play", help="play a game from the command line")
    play.add_argument("game", help=f"one of: {', '.join(game_names())}")
    play.add_argument("--players", type=int, help="how many play (default: the most the game "
                      "allows)")
    play.add_argument("--seed", type=int, default=0, help="seed of the draws (default 0)")
    play.add_argument("--auto", action="store_true", help="seeded random legal moves")
    play.add_argument("--json", action="store_true", help="with --auto: one JSON object per "
                      "line")
    play.add_argument("--resume", action="store_true", help="go on with the game saved when "
                      "the last one was stopped")
    play.add_argument("--option", action="append", metavar="KEY=VALUE",
                      help="a table option, e.g. recipes=open for Sambal's open recipe piles "
                      "(default top: only the top card of each pile)")
    play.add_argument("--data", help="where a stopped game is saved (default "
                      "$XDG_DATA_HOME/food-alley-companion)")
    play.set_defaults(func=_cmd_play)
    scan = sub.add_parser("scan", help="read the board in camera images")
    scan.add_argument("images", nargs="+")
    scan.add_argument("--json", action="store_true", help="one JSON object per image")
    scan.add_argument("--model", help="folder with cells.onnx, cells.json, reader.yaml")
    scan.set_defaults(func=_cmd_scan)
    enroll = sub.add_parser("enroll", help="teach the reader your edition's art from photos")
    enroll.add_argument("action", nargs="?", choices=["plan"],
                        help="plan: the layouts to photograph (without it: learn from them)")
    enroll.add_argument("--photos", type=Path,
                        help="the folder of the plan's photos: layout-00.jpg, layout-01.jpg, ... "
                             "(.jpeg or .png as well)")
    enroll.add_argument("--out", type=Path, help="the new model folder to write")
    enroll.add_argument("--json", action="store_true", help="the plan as one JSON object")
    enroll.add_argument("--learn-anyway", action="store_true",
                        help="learn the photos even where the bundled model reads them all")
    enroll.set_defaults(func=_cmd_enroll)
    train = sub.add_parser("train", help="train the cell classifier (needs the train extra)")
    train.add_argument("--out", default="models", help="folder for cells.onnx, cells.json and "
                       "reader.yaml (default models)")
    train.add_argument("--scenes", type=int, default=3500, help="rendered training scenes "
                       "(default 3500)")
    train.add_argument("--val-scenes", type=int, default=200, help="rendered scenes held out "
                       "to measure accuracy (default 200)")
    train.add_argument("--epochs", type=int, default=14, help="passes over the training crops "
                       "(default 14)")
    train.add_argument("--seed", type=int, default=1, help="seed of the scenes and of the "
                       "training (default 1)")
    train.add_argument("--broad", action="store_true",
                       help="the broad recipe: wider scenes, other cameras and sampling "
                            "(see companion/vision/train.py; default off)")
    train.add_argument("--tone", action="store_true",
                       help="map each cell by the board's own colours (light, white balance, "
                            "tone curve), in training and then in reading (see "
                            "companion/vision/tone.py; default off)")
    train.add_argument("--workers", type=int, default=2, help="processes rendering scenes "
                       "(default 2)")
    train.set_defaults(func=_cmd_train)
    from companion.table.cli import add_parser as add_referee

    add_referee(sub, game_names())
    from companion.ui.cli import add_parser as add_kiosk

    add_kiosk(sub)
    render = sub.add_parser("render", help="render camera-like scenes with their truth")
    render.add_argument("--out", required=True, help="folder for the JPEG scenes and their "
                        "JSON truth (made if missing)")
    render.add_argument("--count", type=int, default=30, help="scenes to render (default 30)")
    render.add_argument("--seed", type=int, default=2026, help="seed of the scenes (default "
                        "2026)")
    render.add_argument("--hand-every", type=int, default=5, help="a hand over the board in "
                        "every Nth scene, 0 for none (default 5)")
    render.set_defaults(func=_cmd_render)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        return int(args.func(args))
    except KeyboardInterrupt:
        print("\ninterrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:  # output piped into a reader that stopped early (head, less)
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0


if __name__ == "__main__":
    sys.exit(main())
