"""Enrollment measured: editions learnt from photos of the plan, read on fresh scenes.

Run: `.venv/bin/python bench/bench_enroll.py` (about 12 minutes an edition on 2 cores; needs the
train extra). For each edition (drawn from its seed, never used in tuning: 700 and 701 by
default; `--stock` adds the bundled art), the plan's photos are rendered as one rig takes them
(companion/vision/edition.py plan_photos), `companion enroll` learns from them, and the model
learnt reads `--scenes` fresh scenes of that edition (15 % with a hand). Prints, per edition:
the enrollment's time, cell error (a cell read wrong or, with no hand over it, left unknown),
confident-wrong cells, boards all correct; for the stock art, the bundled model's figures on
the same scenes beside them. Goals: cell error 0.3 % or less, confident-wrong 0.05 % or less.
One enrollment's figures vary with its training (the scenes drawn, their order): `--seeds 7 8`
learns each edition once per seed, so a change is judged against that spread. `--sets N` reads
each model on N sets of scenes (set k's seeds 1000 (k - 1) further on), each printed alone,
then all together; `--first-set K` starts at set K (sets 11 and 12: `--first-set 11 --sets 2`).
`--camera` takes the photos through another camera than the renderer's usual one (its own tone
curve and white balance, sharpening, colour fringes) and of varnished tokens (a highlight of the
lamp on each), as a box photographed elsewhere would be; `--scenes-camera` takes the scenes so
(with both, a rig with that camera, photographing and then watching play); `--scenes-without
varnish sharpening ...` takes some of its effects off those scenes, every draw kept, so the
scenes are the same but for those effects (what each costs, measured on the same boards).
`--camera-for art` (or `crops`) takes through that camera only the photos the art is cut from
(or only those the network's photo crops are taken from), the other part from the usual
camera's photos of the same plan: which of the two carries the camera's harm.
`--only 705` learns and reads only the editions named, each at its place in `--editions`, so
that one README row can be measured again on its own scenes.
`--retake-blurred` takes a plan photo again, as a player would, where enroll names it blurred
(its board's edge wider than the reader's `sharp_edge_mm`). `--reuse` reads with the models a
run with the same `--keep` folder learnt, instead of learning them again.
Where the bundled model reads an edition's photos (the bundled art's), enrollment keeps it and
learns nothing; `--learn-anyway` measures what learning them would give.

The README's figures: `--editions 704 705 stock 706 707 --first-set 11 --sets 2
--retake-blurred` (each edition's scenes are drawn from its place in that list).
"""

from __future__ import annotations

import argparse
import json
import tempfile
import time
from dataclasses import replace
from pathlib import Path

from bench_edition import SCENES, read_scenes

from companion.vision.classify import default_model_dir
from companion.vision.edition import CAMERA_STYLE, draw_edition, plan_photos
from companion.vision.enroll import enroll
from companion.vision.reader import BoardReader, ReaderConfig
from companion.vision.train import FineTuneConfig

EDITIONS = (700, 701)
SCENE_SEED = 990_000
# the other camera's effects, each as --scenes-without takes it off: its range narrowed to
# nothing (or to the usual camera's white balance), so that every draw is made as before and the
# scenes stay the same but for the effect
WITHOUT = {"varnish": {"gloss": (0.0, 1e-9)},
           "tone-curve": {"gamma": (1.0, 1.0 + 1e-9)},
           "white-balance": {"colour_gain": SCENES.colour_gain},
           "sharpening": {"sharpen_amount": (0.0, 1e-9)},
           "fringes": {"fringe_px": (0.0, 1e-9)}}


def _line(name: str, counts: dict[str, int], extra: str = "") -> str:
    cells = 25 * counts["boards"]
    error = 100 * (counts["wrong"] + counts["abstained"]) / cells
    return (f"{name}: cell error {error:.2f} %, confident-wrong "
            f"{100 * counts['wrong'] / cells:.2f} %, boards all correct "
            f"{100 * counts['all_correct'] / counts['boards']:.1f} %{extra}")


def _edition(text: str) -> str:
    """An --editions entry: an edition's seed, or stock."""
    if text != "stock" and not text.isdigit():
        raise argparse.ArgumentTypeError(f"{text!r}: give an edition's seed (a number) or stock")
    return text


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--editions", type=_edition, nargs="*",
                        default=[str(e) for e in EDITIONS],
                        help="edition seeds to draw, or stock for the bundled art")
    parser.add_argument("--stock", action="store_true", help="enroll the bundled art too, last")
    parser.add_argument("--only", type=_edition, nargs="+",
                        help="learn and read only these of --editions, each at its place there")
    parser.add_argument("--scenes", type=int, default=100, help="fresh scenes per set")
    parser.add_argument("--sets", type=int, default=1, help="sets of fresh scenes per edition")
    parser.add_argument("--first-set", type=int, default=1,
                        help="the first set read (each set's scenes are its own)")
    parser.add_argument("--keep", type=Path, help="keep the models learnt in this folder")
    parser.add_argument("--seeds", type=int, nargs="+", default=[FineTuneConfig().seed],
                        help="training seeds: each edition is learnt once per seed")
    parser.add_argument("--learn-anyway", action="store_true",
                        help="learn every edition, even one the bundled model reads")
    parser.add_argument("--camera", action="store_true",
                        help="the photos through another camera, of varnished tokens")
    parser.add_argument("--scenes-camera", action="store_true",
                        help="the scenes through that camera, of varnished tokens")
    parser.add_argument("--scenes-without", nargs="+", choices=sorted(WITHOUT), default=[],
                        help="with --scenes-camera: the same scenes, these effects taken off")
    parser.add_argument("--camera-for", choices=("both", "art", "crops"), default="both",
                        help="with --camera: the part of enrollment whose photos it takes")
    parser.add_argument("--retake-blurred", action="store_true",
                        help="take again each plan photo that enroll names blurred")
    parser.add_argument("--reuse", action="store_true",
                        help="read with the models kept in --keep by an earlier run")
    args = parser.parse_args()
    if args.first_set < 1:
        parser.error("--first-set counts from 1")
    if args.reuse and args.keep is None:
        parser.error("--reuse reads the models kept in a folder: give it with --keep")
    if args.camera_for != "both" and not args.camera:
        parser.error("--camera-for chooses what the other camera's photos teach: give --camera")
    if args.only and not set(args.only) <= set(args.editions):
        parser.error(f"--only names editions that are not in --editions: "
                     f"{', '.join(sorted(set(args.only) - set(args.editions)))}")
    if args.scenes_without and not args.scenes_camera:
        parser.error("--scenes-without takes effects off the other camera: give --scenes-camera")
    style = replace(SCENES, **CAMERA_STYLE) if args.scenes_camera else None
    for effect in args.scenes_without:
        style = replace(style, **WITHOUT[effect])
    set_indices = range(args.first_set - 1, args.first_set - 1 + args.sets)  # set k + 1
    # as enroll names a blurred photo (enroll.blurred_warnings): the reader's sharp edge
    sharp_mm = (ReaderConfig.load(default_model_dir() / "reader.yaml").sharp_edge_mm
                if args.retake_blurred else None)
    with tempfile.TemporaryDirectory() as tmp:
        work = args.keep or Path(tmp)
        # each edition photographed from its own camera pose, in its own light (drawn from its
        # seed): a light and an edition are not measured together twice
        names = list(args.editions) + (["stock"] if args.stock else [])
        # each edition's place in the list picks its scenes, kept by --only
        cases: list[tuple[int, str, Path | None, int]] = [
            (n, "the bundled art", None, 50) if name == "stock" else
            (n, f"edition {name}", draw_edition(work / f"art-{name}", int(name)), int(name))
            for n, name in enumerate(names) if not args.only or name in args.only]
        for n, name, art, light in cases:
            photos = work / f"photos-{n}"
            crops_from = None
            if not args.reuse:  # a run that reuses its models needs no photos to learn from
                plan_photos(photos, art, light, camera=args.camera, retake_above=sharp_mm)
                if args.camera_for != "both":  # the usual camera's photos for the other part
                    usual = plan_photos(work / f"photos-{n}-usual", art, light,
                                        retake_above=sharp_mm)
                    photos, crops_from = ((photos, usual) if args.camera_for == "art" else
                                          (usual, photos))
            for seed in args.seeds:
                model = work / f"model-{n}-seed{seed}"
                started = time.time()
                if args.reuse:
                    if not (model / "cells.json").is_file():
                        parser.error(f"no model kept in {model}: run once without --reuse")
                    meta = json.loads((model / "cells.json").read_text())
                else:
                    meta = enroll(photos, model, log=lambda _: None,
                                  config=FineTuneConfig(seed=seed),
                                  learn_anyway=args.learn_anyway, crops_from=crops_from)
                how = ("the bundled model kept" if "kept" in meta["edition"] else
                       f"training seed {seed}")
                if not args.reuse:
                    how += f", enrolled in {(time.time() - started) / 60:.1f} min"
                reader = BoardReader(model, threads=1)
                total: dict[str, int] = {}
                for k in set_indices:
                    counts = read_scenes(reader, art, args.scenes, SCENE_SEED + 1000 * k + n,
                                         style=style)
                    print(_line(name, counts, f"; set {k + 1}, {how}"), flush=True)
                    total = {key: total.get(key, 0) + value for key, value in counts.items()}
                if args.sets > 1:  # a set of 100 is too few to judge the goals by
                    print(_line(name, total, f"; all {args.sets} sets"), flush=True)
            if art is None:
                bundled = BoardReader(threads=1)
                for k in set_indices:
                    stock = read_scenes(bundled, art, args.scenes, SCENE_SEED + 1000 * k + n,
                                        style=style)
                    print(_line(f"  the bundled model, set {k + 1}", stock), flush=True)


if __name__ == "__main__":
    main()
