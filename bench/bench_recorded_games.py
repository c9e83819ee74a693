"""Recorded games: each mode with 2 and 4 players rendered from a seed, then refereed from
their frames with the recorded game answering the questions. Prints, per game: whether it
ended with the recorded result, the steps applied that differ from the recorded ones (a shop
declared by another trait that takes the same tokens is the same step), the board changes
decided by the camera alone, the warnings, and the time.

Rendering takes about a second per 5 frames; recordings are cached by seed in
``~/.cache/food-alley-companion/recordings`` (``$COMPANION_RECORDINGS``).

Usage: python bench/bench_recorded_games.py [--seeds 4] [--games shopper,sambal,stray]
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from companion.table.recording import judge, record_game, rules_fingerprint  # noqa: E402


def cache() -> Path:
    base = os.environ.get("COMPANION_RECORDINGS")
    return Path(base) if base else Path.home() / ".cache" / "food-alley-companion" / "recordings"


def referee(game: str, players: int, seed: int) -> dict:
    folder = cache() / f"{game.split('/')[1]}-{players}p-{seed}-{rules_fingerprint()}"
    start = time.perf_counter()
    if not (folder / "recording.json").is_file():
        record_game(game, players, seed, folder)
    rendered = time.perf_counter() - start
    data = folder / "bench-data"
    if data.exists():
        for f in data.iterdir():
            f.unlink()
    start = time.perf_counter()
    result = subprocess.run(
        [sys.executable, "-m", "companion.cli", "referee", game, "--players", str(players),
         "--source", f"frames:{folder / 'frames'}", "--answers", str(folder / "answers.jsonl"),
         "--data", str(data), "--json"], capture_output=True, text=True)
    spent = time.perf_counter() - start
    lines = [json.loads(x) for x in result.stdout.splitlines()]
    recorded = [json.loads(x) for x in (folder / "answers.jsonl").read_text().splitlines()]
    figures = judge(lines, recorded)
    return {"game": f"{game} {players}p seed {seed}", "ended": figures["ended"],
            "steps": figures["steps"], "recorded": len(recorded) - 1,
            "wrong": len(figures["wrong"]), "camera": figures["by_camera"],
            "changed": figures["changed"], "warnings": len(figures["warnings"]),
            "rendered_s": rendered, "referee_s": spent, "exit": result.returncode}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, default=1, help="seeds per game (default 1)")
    parser.add_argument("--first-seed", type=int, default=4)
    parser.add_argument("--games", default="shopper,sambal,stray")
    args = parser.parse_args()
    total = [0, 0]
    for mode in args.games.split(","):
        for players in (2, 4):
            for seed in range(args.first_seed, args.first_seed + args.seeds):
                r = referee(f"food-alley/{mode}", players, seed)
                total[0] += r["camera"]
                total[1] += r["changed"]
                print(f"{r['game']:<32} {'ended right' if r['ended'] else 'NOT RIGHT':<11} "
                      f"steps {r['steps']}/{r['recorded']}, wrong {r['wrong']}, camera alone "
                      f"{r['camera']}/{r['changed']} ({r['camera'] / max(r['changed'], 1):.0%})"
                      f", warnings {r['warnings']}, exit {r['exit']}; rendered in "
                      f"{r['rendered_s']:.0f} s, refereed in {r['referee_s']:.1f} s", flush=True)
    print(f"board changes decided by the camera alone: {total[0]}/{total[1]} "
          f"({total[0] / max(total[1], 1):.1%})")


if __name__ == "__main__":
    main()
