"""Cutting the cells: a fixed rig's pose reuses its sampling maps and cuts the same crops."""

from __future__ import annotations

import numpy as np

from companion.vision.geometry import BoardGeometry, CellCutter, cut_cells, pose_from_corners
from companion.vision.synth import render_scene

G = BoardGeometry.from_components()


def test_cutter_reuses_the_maps_of_a_pose_that_stays_and_cuts_the_same_crops():
    scene = render_scene(np.random.default_rng(5), hand=False)
    cutter = CellCutter(G, crop_px=56, crop_mm=40.0)
    reference = cut_cells(scene.frame, scene.pose, G, crop_px=56, crop_mm=40.0)
    first = cutter(scene.frame, scene.pose)  # a new pose: warped
    assert cutter._maps is None and np.array_equal(first, reference)
    second = cutter(scene.frame, scene.pose)  # seen again: the maps are built and used
    assert cutter._maps is not None
    assert second.shape == reference.shape
    assert np.abs(second.astype(int) - reference).mean() < 0.3
    nudged = pose_from_corners(scene.corners + 0.1, G.corners())  # within the tolerance
    maps = cutter._maps
    assert np.array_equal(cutter(scene.frame, nudged), second)
    assert cutter._maps is maps


def test_cutter_warps_again_when_the_board_moves():
    scene = render_scene(np.random.default_rng(5), hand=False)
    cutter = CellCutter(G, crop_px=56, crop_mm=40.0)
    cutter(scene.frame, scene.pose)
    cutter(scene.frame, scene.pose)
    moved = pose_from_corners(scene.corners + np.array([6.0, -4.0]), G.corners())
    crops = cutter(scene.frame, moved)
    expected = cut_cells(scene.frame, moved, G, crop_px=56, crop_mm=40.0)
    assert np.array_equal(crops, expected)
