"""Seeded rendered scenes with their truth, written as JPEG + JSON (test fixtures, demos)."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import cv2
import numpy as np

from companion.vision.synth import SceneStyle, render_scene


def write_fixtures(out: Path, count: int, seed: int, *, hand_every: int = 5,
                   quality: int = 80) -> list[Path]:
    """``count`` scenes from ``seed``; every ``hand_every``-th has a hand over the board."""
    out.mkdir(parents=True, exist_ok=True)
    written = []
    for i in range(count):
        rng = np.random.default_rng([seed, i])
        hand = hand_every > 0 and i % hand_every == hand_every - 1
        scene = render_scene(rng, style=SceneStyle(hand_probability=0.0), hand=hand)
        stem = out / f"scene-{seed}-{i:03d}"
        cv2.imwrite(str(stem.with_suffix(".jpg")), scene.frame,
                    [cv2.IMWRITE_JPEG_QUALITY, quality])
        truth = {"seed": [seed, i], "cells": scene.cells,
                 "corners": [[round(float(x), 2), round(float(y), 2)] for x, y in scene.corners],
                 "covered": [round(float(v), 3) for v in scene.covered],
                 "hidden": [round(float(v), 3) for v in scene.hidden], "hand": hand}
        stem.with_suffix(".json").write_text(json.dumps(truth, indent=1) + "\n",
                                             encoding="utf-8")
        written.append(stem.with_suffix(".jpg"))
        width = 30
        done = int(width * (i + 1) / count)
        print(f"\rrender [{'#' * done}{'.' * (width - done)}] {i + 1}/{count}", end="",
              file=sys.stderr, flush=True)
    print(file=sys.stderr)
    return written
