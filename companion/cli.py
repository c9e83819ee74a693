"""Command line: ``companion play GAME --players N --seed S [--auto] [--json]``."""

from __future__ import annotations

import argparse
import json
import os
import random
import sys
from collections.abc import Sequence
from typing import Any, TextIO

from companion.rules import CHANCE, SIMULTANEOUS, GameState, RulesError, find_game, game_names
from companion.rules.summary import end_line, final_summary, score_table, smileys


def play_auto(state: GameState, seed: int, *, as_json: bool, out: TextIO) -> GameState:
    """Play to the end with seeded random legal moves, printing each step."""
    chooser = random.Random(seed)
    while not state.is_terminal():
        actor = state.current_player()
        if actor == SIMULTANEOUS:  # each player seals a choice; the last one reveals them all
            for player in state.acting_players():
                legal = state.legal_actions(player)
                state.apply_action(legal[chooser.randrange(len(legal))], player=player)
        elif actor == CHANCE:
            state.apply_action(state.sample_chance())
        else:
            legal = state.legal_actions()
            state.apply_action(legal[chooser.randrange(len(legal))])
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


def play_interactive(state: GameState, *, inp: TextIO, out: TextIO) -> GameState:
    """Type the number of a legal move; 'u' undoes, 'h' asks for the store hint, 'q' quits.

    Chance steps (draws, cats) come from the seeded RNG, as if the table had drawn them.
    """
    while not state.is_terminal():
        actor = state.current_player()
        if actor == CHANCE:
            state.play_chance()
            out.write(f"     {state.log[-1]['text']}\n")
            continue
        if actor == SIMULTANEOUS:  # secret choices: each player in turn, at the same screen
            actor = state.acting_players()[0]
        legal = state.legal_actions(actor)
        out.write(f"\n{state.player_name(actor)} to act:\n")
        for i, action in enumerate(legal):
            out.write(f"  {i:3d}  {action}\n")
        out.write("choice (number, u=undo, h=hint, q=quit): ")
        out.flush()
        line = inp.readline()
        if not line or line.strip() == "q":
            out.write("\nstopped; nothing is lost: the log holds every move so far\n")
            return state
        answer = line.strip()
        try:
            if answer == "u":
                undone = state.undo()
                out.write(f"undid: {undone['text']}\n")
            elif answer == "h":
                best = getattr(state, "best_store", lambda q: None)(actor)
                out.write(f"hint: {best if best else 'no set of 4 completes a list'}\n")
            else:
                before = len(state.log)
                state.apply_action(legal[int(answer)], player=actor)
                text = state.log[-1]["text"] if len(state.log) > before else "(sealed)"
                out.write(f"  > {text}\n")
        except (ValueError, IndexError, RulesError) as exc:
            out.write(f"not possible: {exc}\n")
    out.write(f"\n{end_line(state)}\n\n{score_table(state)}\n")
    return state


def _cmd_play(args: argparse.Namespace) -> int:
    try:
        cls = find_game(args.game)
        state = cls.new(args.players, args.seed)
    except ValueError as exc:
        print(f"companion play: {exc}", file=sys.stderr)
        return 2
    if args.auto:
        play_auto(state, args.seed, as_json=args.json, out=sys.stdout)
    else:
        play_interactive(state, inp=sys.stdin, out=sys.stdout)
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
                print(f"{name}: {exc}\n")
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


def _cmd_train(args: argparse.Namespace) -> int:
    from pathlib import Path

    try:
        from companion.vision.train import TrainConfig, train
    except ImportError as exc:
        print(f"companion train: {exc}; install the train extra: pip install -e '.[train]'",
              file=sys.stderr)
        return 2
    config = TrainConfig(scenes=args.scenes, val_scenes=args.val_scenes, epochs=args.epochs,
                         seed=args.seed, workers=args.workers, broad=args.broad, tone=args.tone)
    train(Path(args.out), config)
    return 0


def _cmd_render(args: argparse.Namespace) -> int:
    from pathlib import Path

    from companion.vision.fixtures import write_fixtures

    write_fixtures(Path(args.out), args.count, args.seed, hand_every=args.hand_every)
    return 0


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="companion", description="Food Alley Companion")
    sub = parser.add_subparsers(dest="command", required=True)
    play = sub.add_parser("play", help="play a game from the command line")
    play.add_argument("game", help=f"one of: {', '.join(game_names())}")
    play.add_argument("--players", type=int, default=4)
    play.add_argument("--seed", type=int, default=0)
    play.add_argument("--auto", action="store_true", help="seeded random legal moves")
    play.add_argument("--json", action="store_true", help="one JSON object per line")
    play.set_defaults(func=_cmd_play)
    scan = sub.add_parser("scan", help="read the board in camera images")
    scan.add_argument("images", nargs="+")
    scan.add_argument("--json", action="store_true", help="one JSON object per image")
    scan.add_argument("--model", help="folder with cells.onnx, cells.json, reader.yaml")
    scan.set_defaults(func=_cmd_scan)
    train = sub.add_parser("train", help="train the cell classifier (needs the train extra)")
    train.add_argument("--out", default="models")
    train.add_argument("--scenes", type=int, default=3500)
    train.add_argument("--val-scenes", type=int, default=200)
    train.add_argument("--epochs", type=int, default=14)
    train.add_argument("--seed", type=int, default=1)
    train.add_argument("--broad", action="store_true",
                       help="the broad recipe: wider scenes, other cameras and sampling "
                            "(see companion/vision/train.py)")
    train.add_argument("--tone", action="store_true",
                       help="map each cell by the board's own colours (light, white balance, "
                            "tone curve), in training and then in reading (see "
                            "companion/vision/tone.py)")
    train.add_argument("--workers", type=int, default=2)
    train.set_defaults(func=_cmd_train)
    from companion.table.cli import add_parser as add_referee

    add_referee(sub, game_names())
    render = sub.add_parser("render", help="render camera-like scenes with their truth")
    render.add_argument("--out", required=True)
    render.add_argument("--count", type=int, default=30)
    render.add_argument("--seed", type=int, default=2026)
    render.add_argument("--hand-every", type=int, default=5)
    render.set_defaults(func=_cmd_render)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        return int(args.func(args))
    except BrokenPipeError:  # output piped into a reader that stopped early (head, less)
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0


if __name__ == "__main__":
    sys.exit(main())
