"""The enrollment bench (bench/bench_enroll.py): the other camera's scenes with one of its
effects taken off are the same scenes, but for that effect (--scenes-without); that camera's
photos teach one part of enrollment and the usual camera's the other (--camera-for)."""

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


def test_camera_for_takes_one_part_through_the_other_camera(bench, monkeypatch, tmp_path):
    """--camera-for art cuts the art from the other camera's photos and takes the network's
    photo crops from the usual camera's photos of the same plan; --camera-for crops the other
    way round."""
    def photos(folder, art, light, camera=False, retake_above=None):
        folder.mkdir(parents=True)
        (folder / "camera").write_text("other" if camera else "usual")
        return folder

    class Enrolled(Exception):
        pass

    def enroll(photos_dir, out, **kwargs):
        raise Enrolled((photos_dir / "camera").read_text(),
                       (kwargs["crops_from"] / "camera").read_text())

    monkeypatch.setattr(bench, "plan_photos", photos)
    monkeypatch.setattr(bench, "draw_edition", lambda folder, seed: folder)
    monkeypatch.setattr(bench, "enroll", enroll)
    for part, taken in (("art", ("other", "usual")), ("crops", ("usual", "other"))):
        monkeypatch.setattr(sys, "argv", ["bench_enroll.py", "--editions", "704", "--camera",
                                          "--camera-for", part, "--keep", str(tmp_path / part)])
        with pytest.raises(Enrolled) as enrolled:
            bench.main()
        assert enrolled.value.args == taken, part
    monkeypatch.setattr(sys, "argv", ["bench_enroll.py", "--camera-for", "art"])
    with pytest.raises(SystemExit):  # the usual camera's photos for both parts: nothing to say
        bench.main()
