"""The bundled demo: a short recorded game of Sambal for two, its video and its answers.

It ships inside the package (``companion/table/demo/``) so that ``companion kiosk --demo`` works
from any install. Its video is rendered by :func:`record_game`: a hand over the board before each
change, the light dimming for a while, the camera nudged once, and one token moved illegally and
put back, so that the demo passes every screen a table meets. Re-render it with
``python -m companion.table.demo`` when the rules change what a seeded game plays.
"""

from __future__ import annotations

import argparse
import json
from dataclasses import dataclass
from pathlib import Path

DEMO_DIR = Path(__file__).parent / "demo"
DEMO_GAME = "food-alley/sambal"
DEMO_PLAYERS = 2
DEMO_SEED = 4
DEMO_SIZE = (960, 540)  # px: small to ship, and still a board the reader finds
DEMO_TAMPER_AT = 8  # after this many settled boards a token is moved illegally


@dataclass(frozen=True)
class Demo:
    game: str
    players: int
    source: str  # video:FILE or frames:DIR
    answers: Path


def bundled_demo(folder: Path = DEMO_DIR) -> Demo:
    """The demo shipped with the package, or another recorded game in the same form (a
    ``recording.json``, ``answers.jsonl``, and ``recording.mp4`` or a ``frames/`` folder).

    :raises FileNotFoundError: naming what is missing (an install without package data).
    """
    meta_path = folder / "recording.json"
    video = folder / "recording.mp4"
    frames = folder / "frames"
    answers = folder / "answers.jsonl"
    for path in (meta_path, answers):
        if not path.is_file():
            raise FileNotFoundError(f"the recorded game in {folder} lacks {path.name}: "
                                    "reinstall the package or render it with "
                                    "python -m companion.table.demo")
    meta = json.loads(meta_path.read_text(encoding="utf-8"))
    if video.is_file():
        source = f"video:{video}"
    elif frames.is_dir():
        source = f"frames:{frames}"
    else:
        raise FileNotFoundError(f"the recorded game in {folder} has neither recording.mp4 "
                                "nor a frames folder")
    return Demo(meta["game"], int(meta["players"]), source, answers)


def render_demo(out: Path = DEMO_DIR) -> None:
    """Render the demo anew into ``out`` (needs only the runtime dependencies)."""
    from companion.table.recording import record_game

    record_game(DEMO_GAME, DEMO_PLAYERS, DEMO_SEED, out, size=DEMO_SIZE,
                tamper_at=DEMO_TAMPER_AT, video=True)


def main() -> None:
    parser = argparse.ArgumentParser(description="Render the bundled demo recording.")
    parser.add_argument("--out", type=Path, default=DEMO_DIR,
                        help=f"folder to write it to (default {DEMO_DIR})")
    args = parser.parse_args()
    render_demo(args.out)
    print(f"demo rendered into {args.out}")


if __name__ == "__main__":
    main()
