"""The referee's speed, on one core.

1. From a settled frame to the applied step (settling excluded): the session's inference, the
   rules and the journal's commit, per settled reading that applied steps, over recorded games
   of every mode with 2 and 4 players (their boards as read, two steps at a time at most).
2. Frames a second the session keeps up with from a 1920x1080 source: a rendered recording
   (hands, settled boards, a nudged camera) through motion detection, the reader on still
   frames and the session, as ``companion referee`` runs them.

Usage: python bench/bench_referee.py [--games 2] [--frames-game food-alley/sambal]
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from companion.table.answers import ScriptedTable, load_record  # noqa: E402
from companion.table.board import board_keys  # noqa: E402
from companion.table.cli import answer_scripted as answer_open  # noqa: E402
from companion.table.journal import Journal  # noqa: E402
from companion.table.recording import played, record_game, rules_fingerprint  # noqa: E402
from companion.table.session import RefereeSession  # noqa: E402
from companion.table.settle import Settler  # noqa: E402
from companion.table.sources import FolderSource  # noqa: E402
from companion.vision.reader import BoardReader  # noqa: E402


def record(game: str, players: int, seed: int) -> tuple[list[dict], dict]:
    _, steps, final = played(game, players, seed)
    return steps, final


def settled_to_applied(games: int) -> list[float]:
    times: list[float] = []
    with tempfile.TemporaryDirectory() as tmp:
        journal = Journal(Path(tmp))
        for game in ("food-alley/shopper", "food-alley/sambal", "food-alley/stray"):
            for players in (2, 4):
                for seed in range(1, games + 1):
                    steps, _ = record(game, players, seed)
                    session = RefereeSession.start(game, players, journal=journal)
                    table = ScriptedTable(steps)
                    session.begin()
                    answer_open(session, table)
                    last = None
                    i = 0
                    while i < len(steps) and not session.state.is_terminal():
                        i = min(len(steps), i + 1 + (i % 3 == 0))
                        keys = board_keys(steps[i - 1]["board"], session.seated)
                        if keys == last:
                            continue
                        last = keys
                        before = len(session.state.log)
                        start = time.perf_counter()
                        session.observe(keys)
                        spent = time.perf_counter() - start
                        if len(session.state.log) > before:
                            times.append(spent * 1000)
                        answer_open(session, table)
    return times


def frames_per_second(game: str, players: int, seed: int) -> tuple[float, int, float]:
    cache = Path.home() / ".cache" / "food-alley-companion" / "recordings"
    folder = cache / f"{game.split('/')[1]}-{players}p-{seed}-{rules_fingerprint()}"
    if not (folder / "recording.json").is_file():
        record_game(game, players, seed, folder)
    steps, _ = load_record(folder / "answers.jsonl")
    reader = BoardReader(threads=1)
    session = RefereeSession.start(game, players)
    table = ScriptedTable(steps)
    settler = Settler(reader, session.seated)
    session.begin()
    answer_open(session, table)
    source = FolderSource(folder / "frames")
    frames = list(source.frames())  # decoding the files is the camera's work, not timed
    start = time.perf_counter()
    for frame in frames:
        settled = settler.push(frame)
        if settled is not None:
            session.observe(settled.keys, None, frame.t)
            answer_open(session, table)
    spent = time.perf_counter() - start
    return len(frames) / spent, len(frames), settler.readings / len(frames)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=2, help="games per mode and player count "
                        "(default 2)")
    parser.add_argument("--frames-game", default="food-alley/sambal",
                        help="the recording for frames a second (default food-alley/sambal)")
    args = parser.parse_args()
    if hasattr(os, "sched_setaffinity"):
        os.sched_setaffinity(0, {sorted(os.sched_getaffinity(0))[0]})
    times = settled_to_applied(args.games)
    times.sort()
    print(f"settled frame -> applied step: median {statistics.median(times):.1f} ms, "
          f"90th percentile {times[int(len(times) * 0.9)]:.1f} ms, max {times[-1]:.0f} ms "
          f"({len(times)} readings, {6 * args.games} games)")
    fps, count, share = frames_per_second(args.frames_game, 2, 4)
    print(f"1920x1080 recording: {fps:.1f} frames a second kept up with ({count} frames, "
          f"{share:.0%} of them read)")


if __name__ == "__main__":
    main()
