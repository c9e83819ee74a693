"""The enrollment bench's --scenes-without (bench/bench_enroll.py): the other camera's scenes
with one of its effects taken off are the same scenes, but for that effect."""

from __future__ import annotations

import sys
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest

from companion.vision.edition import CAMERA_STYLE
from companion.vision.synth import render_scene

BENCH = Path(__file__).resolve().parents[1] / "bench"


@pytest.fixture(scope="module")
def bench():
    sys.path.insert(0, str(BENCH))
    try:
        import bench_enroll

        yield bench_enroll
    finally:
        sys.path.remove(str(BENCH))
        for name in ("bench_enroll", "bench_edition", "bench_vision", "games"):
            sys.modules.pop(name, None)


def test_an_effect_taken_off_leaves_the_same_scene(bench):
    """Every draw is made as before: the same boards, poses and hands; the varnish taken off
    changes the tokens' highlights and nothing else, and each effect changes the frame."""
    camera = replace(bench.SCENES, **CAMERA_STYLE)
    full = render_scene(np.random.default_rng([4, 2]), style=camera)
    for effect, change in bench.WITHOUT.items():
        less = render_scene(np.random.default_rng([4, 2]), style=replace(camera, **change))
        assert less.cells == full.cells and np.array_equal(less.corners, full.corners)
        apart = np.abs(less.frame.astype(int) - full.frame).max(axis=2)
        assert apart.max() > 20, effect
        if effect == "varnish":  # only on the tokens, and near them (the JPEG's blocks)
            assert np.mean(apart > 3) < 0.05, np.mean(apart > 3)
