"""The scene renderer: seeded, truthful, varied."""

from __future__ import annotations

from collections import Counter

import numpy as np

from companion.vision.assets import Label, label_names
from companion.vision.synth import random_layout, render_scene


def test_same_seed_same_scene():
    a = render_scene(np.random.default_rng(7))
    b = render_scene(np.random.default_rng(7))
    assert np.array_equal(a.frame, b.frame) and a.cells == b.cells


def test_scene_is_1920_by_1080_with_the_board_inside():
    scene = render_scene(np.random.default_rng(3))
    assert scene.frame.shape == (1080, 1920, 3)
    assert (scene.corners >= -20).all()
    assert (scene.corners[:, 0] <= 1940).all() and (scene.corners[:, 1] <= 1100).all()
    width = np.ptp(scene.corners[:, 0])
    assert 0.25 * 1920 <= width <= 0.75 * 1920


def test_layout_uses_each_token_at_most_once():
    for seed in range(20):
        layout = random_layout(np.random.default_rng(seed))
        tokens = Counter(lab.token for lab in layout if lab.token)
        assert all(n == 1 for n in tokens.values())
        shoppers = Counter(lab.name for lab in layout if lab.kind == "shopper")
        assert all(n == 1 for n in shoppers.values())
        assert all(lab.name in label_names() for lab in layout)


def test_hand_covers_cells_and_truth_says_so():
    scene = render_scene(np.random.default_rng(5), hand=True)
    assert scene.covered.max() > 0.2


def test_labels_round_trip():
    for name in label_names():
        assert Label.parse(name).name == name
