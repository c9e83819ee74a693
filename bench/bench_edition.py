"""The reader on boxes of other editions: art it was never trained on.

Run: `.venv/bin/python bench/bench_edition.py --editions 10 --scenes 20`. Each edition is drawn
from its own seed (companion/vision/edition.py: other pictures, palette shades, fonts, coins,
cats, shoppers and board colours), none of them used in tuning; its scenes (15 % with a hand)
are read each as a session starting with that box would (nothing seen before, the edition not
yet checked). Prints, over all
cells: read right, read wrong with confidence, left unknown; and the boards refused as an
edition not enrolled. With --unchecked the same scenes are read with the edition check turned
off, to show what it prevents. --model reads with an enrolled model folder instead of the
bundled one (with --first-edition, the seed of the edition it learnt).
"""

from __future__ import annotations

import argparse
import tempfile
from pathlib import Path

import numpy as np
from bench_vision import verdict
from games import pin_one_core

from companion.vision.assets import cell_label
from companion.vision.edition import draw_edition
from companion.vision.reader import BoardReader
from companion.vision.synth import SceneStyle, render_scene

# the scenes read: the renderer's usual camera, 15 % with a hand
SCENES = SceneStyle(hand_probability=0.15)
EDITION_SEED = 600  # editions 500-509 were looked at while the check was made
SCENE_SEED = 920_000


def read_scenes(reader: BoardReader, art: Path | None, scenes: int, seed: int, *,
                edition_known: bool = False, style: SceneStyle | None = None
                ) -> dict[str, int]:
    """Read fresh scenes of an edition (15 % with a hand; the renderer's camera unless
    ``style`` says otherwise), each as a session starting with that box would (nothing seen
    before; the edition checked unless ``edition_known``). Counts of cells right, wrong, left
    unknown, left unknown with no hand over them (abstained), and of boards, boards all
    correct and boards refused as an edition not enrolled."""
    counts = dict.fromkeys(("right", "wrong", "unknown", "abstained", "boards", "all_correct",
                            "refused"), 0)
    for i in range(scenes):
        scene = render_scene(np.random.default_rng([seed, i]),
                             style=style or SCENES, art=art)
        reader._seen = None
        reader.edition_known = edition_known
        reading = reader.read(scene.frame)
        counts["boards"] += 1
        counts["refused"] += bool(reading.reason and "not enrolled" in reading.reason)
        flat = [c for row in reading.cells for c in row]
        ok = True
        for got, truth, hidden in zip(flat, scene.cells, scene.hidden, strict=True):
            seen = verdict(cell_label(got), truth, hidden)
            name = cell_label(got)
            counts["wrong" if seen == "wrong" else
                   "unknown" if name == "unknown" else "right"] += 1
            counts["abstained"] += seen == "abstained"
            ok = ok and seen is None
        counts["all_correct"] += ok
    return counts


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--editions", type=int, default=10)
    parser.add_argument("--scenes", type=int, default=20, help="scenes per edition")
    parser.add_argument("--model", type=Path, help="an enrolled model folder")
    parser.add_argument("--first-edition", type=int, default=EDITION_SEED,
                        help="the first edition's seed (an enrolled model: its edition's)")
    parser.add_argument("--unchecked", action="store_true",
                        help="turn the edition check off (to see what it prevents)")
    args = parser.parse_args()
    pin_one_core()
    counts: dict[str, int] = {}
    reader = BoardReader(args.model, threads=1)
    with tempfile.TemporaryDirectory() as tmp:
        for e in range(args.editions):
            art = draw_edition(Path(tmp) / f"edition-{e}", args.first_edition + e)
            for key, n in read_scenes(reader, art, args.scenes, SCENE_SEED + e,
                                      edition_known=args.unchecked).items():
                counts[key] = counts.get(key, 0) + n
    boards, refused = counts["boards"], counts["refused"]
    cells = boards * 25
    print(f"{args.editions} editions x {args.scenes} scenes"
          f"{' (edition check off)' if args.unchecked else ''}: cells read right "
          f"{100 * counts['right'] / cells:.1f} %, wrong with confidence "
          f"{100 * counts['wrong'] / cells:.1f} %, left unknown "
          f"{100 * counts['unknown'] / cells:.1f} %; boards refused as not enrolled "
          f"{refused} of {boards}")
    print(f"cell error (wrong, or left unknown with no hand over it) "
          f"{100 * (counts['wrong'] + counts['abstained']) / cells:.2f} %, confident-wrong "
          f"{100 * counts['wrong'] / cells:.2f} %")


if __name__ == "__main__":
    main()
