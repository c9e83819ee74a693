"""The scene renderer: seeded, truthful, varied."""

from __future__ import annotations

import functools
from collections import Counter
from dataclasses import replace

import cv2
import numpy as np

from companion.rules.components import food_alley
from companion.vision.assets import ART_PX_PER_MM, Label, label_names
from companion.vision.geometry import BoardGeometry
from companion.vision.synth import (
    Scene,
    SceneStyle,
    _hand,
    fringes,
    random_layout,
    render_board,
    render_scene,
    unsharp,
)


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


def _detail(frame: np.ndarray) -> float:
    """Fine detail: the mean absolute Laplacian of the grey frame."""
    gray = cv2.cvtColor(frame, cv2.COLOR_BGR2GRAY).astype(np.float32)
    return float(np.abs(cv2.Laplacian(gray, cv2.CV_32F)).mean())


def test_shake_and_tone_curve_only_when_asked():
    """Motion blur and another tone curve are training's (off by default, so the scenes of a
    seed stay as they were); asked for, they change the frame but not the truth."""
    plain = render_scene(np.random.default_rng(9), hand=False)
    again = render_scene(np.random.default_rng(9), style=SceneStyle(gamma=(1.0, 1.0)), hand=False)
    assert np.array_equal(plain.frame, again.frame)
    clean = SceneStyle(noise_sigma=(0.0, 0.0), blur_sigma=(0.0, 0.0), jpeg_quality=(95, 95))
    sharp = render_scene(np.random.default_rng(9), hand=False, style=clean)
    shaken = render_scene(np.random.default_rng(9), hand=False,
                          style=replace(clean, motion_probability=1.0, motion_px=(9.0, 9.0),
                                        gamma=(1.4, 1.4)))
    assert shaken.cells == sharp.cells
    assert np.allclose(shaken.corners, sharp.corners)
    # a streak smooths the fine detail: less high-frequency energy than the sharp frame
    assert _detail(shaken.frame) < 0.8 * _detail(sharp.frame)


@functools.cache
def _plain_and_sharpened() -> tuple[Scene, Scene]:
    """One scene without noise or blur, as the usual camera and as one that sharpens hard."""
    clean = SceneStyle(noise_sigma=(0.0, 0.0), blur_sigma=(0.0, 0.0), jpeg_quality=(95, 95))
    plain = render_scene(np.random.default_rng(9), hand=False, style=clean)
    sharpened = render_scene(np.random.default_rng(9), hand=False,
                             style=replace(clean, sharpen_probability=1.0,
                                           sharpen_amount=(1.5, 1.5), sharpen_sigma_px=(1.5, 1.5)))
    return plain, sharpened


def test_camera_sharpening_only_when_asked_leaves_halos():
    """Training's camera sharpening: off by default; asked for, the same scene with its fine
    detail stronger, and an edge overshoots on both sides (the halos a camera leaves)."""
    plain, sharpened = _plain_and_sharpened()
    assert sharpened.cells == plain.cells
    assert np.allclose(sharpened.corners, plain.corners)
    assert _detail(sharpened.frame) > 1.3 * _detail(plain.frame)
    step = np.repeat(np.r_[np.full(20, 50.0), np.full(20, 200.0)][None], 5, axis=0)
    halo = unsharp(step.astype(np.float32), 1.0, 2.0)[2]
    assert halo.min() < 45 and halo.max() > 205
    assert np.allclose(halo[:3], 50, atol=0.5) and np.allclose(halo[-3:], 200, atol=0.5)


def test_camera_sharpening_clips_below_black_and_never_lightens_a_dark_stroke():
    """A sensor clips what the sharpening pushes below black: a dark stroke comes out as dark
    or darker, never hollow. (Folding it back up, as an absolute value would, lit the middle of
    the printed digits' strokes: 853 of 6,379 dark pixels here lighter by over 20 grey levels,
    up to 235.)"""
    plain, sharpened = _plain_and_sharpened()
    before = plain.frame.min(axis=2).astype(int)
    after = sharpened.frame.min(axis=2).astype(int)
    dark = before < 30
    assert dark.sum() > 1000  # the frame, the digits' strokes, the outlines
    assert (after[dark] - before[dark]).max() <= 20  # JPEG's own ringing, no more


def test_gloss_lights_the_tokens_not_the_board():
    """Glossy tokens (training's, off by default): each token shows a highlight; the matte board
    and the empty cells stay as they were."""
    g = BoardGeometry.from_components()
    layout = random_layout(np.random.default_rng(3))
    matte, _ = render_board(layout, np.random.default_rng(11), g, SceneStyle())
    glossy, _ = render_board(layout, np.random.default_rng(11), g,
                          SceneStyle(gloss_probability=1.0, gloss=(0.5, 0.5)))
    lighter = (glossy - matte).max(axis=2)
    assert lighter.min() >= 0
    on_token = np.zeros(lighter.shape, bool)
    for label, (cx, cy) in zip(layout, g.centres.reshape(-1, 2), strict=True):
        disc = np.zeros(lighter.shape, np.uint8)
        cv2.circle(disc, (int(cx * ART_PX_PER_MM), int(cy * ART_PX_PER_MM)),
                   int(g.token / 2 * ART_PX_PER_MM), 1, -1)
        brightest = lighter[disc.astype(bool)].max()
        if label.kind == "empty":
            assert brightest == 0
        else:
            assert brightest > 0.1, label.name
            on_token |= disc.astype(bool)
    assert lighter[~on_token].max() == 0


def test_sleeves_only_when_asked_and_only_on_the_arm():
    """Sleeves (off by default, so every seed's scene stays as it was): the same seed gives the
    same arm, bare or in a sleeve; the sleeve recolours the arm up to the wrist, not the hand
    and fingers."""
    assert np.array_equal(render_scene(np.random.default_rng(5), hand=True).frame,
                          render_scene(np.random.default_rng(5), hand=True,
                                       style=SceneStyle(sleeve_probability=0.0)).frame)
    size, target = (480, 270), np.array([300.0, 150.0])
    skin, mask = _hand(np.random.default_rng(8), size, target)
    cloth, same_mask = _hand(np.random.default_rng(8), size, target, sleeve_probability=1.0)
    assert np.array_equal(mask, same_mask)
    changed = np.abs(cloth - skin).max(axis=2) > 0.05
    assert changed[mask > 0.99].mean() > 0.2  # much of the arm
    assert not changed[mask == 0].any()  # nothing off the hand
    tip = (int(target[1]), int(target[0]))  # the palm: bare
    assert not changed[tip[0] - 5:tip[0] + 5, tip[1] - 5:tip[1] + 5].any()


def test_colour_fringes_move_red_out_and_blue_in_by_their_pixels_at_the_edge():
    """A cheap lens's fringes (training's, off by default): red spreads outward and blue inward
    from the frame centre, by the asked pixels at the left and right edges, half that halfway
    out; green stays; the scene's truth and corners are those of the sharp lens."""
    w, h = 400, 200
    lines = np.zeros((h, w, 3), np.uint8)
    lines[:, [300, 350]] = 255  # a quarter and three eighths of the width right of the centre
    fringed = fringes(lines, 4.0)  # 4 px at the edge (200 px out): 2 px at 300, 3 px at 350
    row = fringed[h // 2].astype(float)

    def peak(channel: int, near: int) -> float:
        profile = row[near - 6:near + 7, channel]
        return near - 6 + float((profile * np.arange(13)).sum() / profile.sum())

    assert np.array_equal(fringed[:, :, 1], lines[:, :, 1])
    assert abs(peak(2, 300) - 302) < 0.1 and abs(peak(0, 300) - 298) < 0.1
    assert abs(peak(2, 350) - 353) < 0.1 and abs(peak(0, 350) - 347) < 0.1
    plain = render_scene(np.random.default_rng(9), hand=False)
    assert np.array_equal(plain.frame, render_scene(np.random.default_rng(9), hand=False,
                                                    style=SceneStyle(fringe_probability=0)).frame)
    clean = SceneStyle(noise_sigma=(0.0, 0.0), blur_sigma=(0.0, 0.0), jpeg_quality=(95, 95))
    sharp = render_scene(np.random.default_rng(9), hand=False, style=clean)
    fringy = render_scene(np.random.default_rng(9), hand=False,
                          style=replace(clean, fringe_probability=1.0, fringe_px=(2.5, 2.5)))
    assert fringy.cells == sharp.cells and np.allclose(fringy.corners, sharp.corners)
    expected = fringes(sharp.frame, 2.5).astype(float)
    edges = np.abs(sharp.frame - expected) > 20  # where the fringes show
    assert edges.sum() > 10_000
    off = np.abs(fringy.frame - expected)[edges].mean()
    assert off < 0.5 * np.abs(sharp.frame - expected)[edges].mean()


def test_a_cats_badge_is_recorded_where_its_face_differs_from_its_back():
    """Training leaves a cat unknown when the hand hides its number badge, so the renderer must
    know where each badge landed: the same board with every cat face up and then face down
    differs only inside the recorded badges, and inside each of them."""
    g = BoardGeometry.from_components()
    c = food_alley()
    up = [Label("cat", player=p, value=v) for p in c.player_colours for v in c.cat_values]
    n = len(up)  # every face-up cat, and an empty cell to fill the board
    up += [Label("empty")] * (25 - n)
    down = [Label("cat-back", player=lab.player) if lab.kind == "cat" else lab for lab in up]
    face_up, badges = render_board(up, np.random.default_rng(4), g, SceneStyle())
    face_down, same = render_board(down, np.random.default_rng(4), g, SceneStyle())
    assert np.array_equal(badges, same, equal_nan=True) and np.isnan(badges[n:]).all()
    ys, xs = np.nonzero(np.abs(face_up - face_down).max(axis=2) > 0.1)
    at = np.c_[xs, ys] / ART_PX_PER_MM
    gaps = np.linalg.norm(at[:, None] - badges[None, :n, :2], axis=2) / badges[None, :n, 2]
    assert (gaps.min(axis=1) <= 1.1).all()  # every difference lies in a badge
    assert ((gaps <= 0.7).sum(axis=0) > 20).all()  # every badge holds a difference


def test_a_hand_over_a_cats_badge_hides_the_cat():
    """The truth says how much of each cat's badge the hand covers, and counts it as hiding the
    cell (``hidden``); cells without a cat have no badge."""
    seen = 0
    for seed in range(40):
        scene = render_scene(np.random.default_rng(seed), hand=True)
        cats = np.array([name.startswith("cat") for name in scene.cells])
        assert (scene.badge_covered[~cats] == 0).all()
        assert np.array_equal(scene.hidden, np.maximum(scene.covered, scene.badge_covered))
        seen += int((scene.badge_covered > scene.covered + 0.3).sum())
        if seen and seed >= 9:  # ten scenes at least, and one such badge seen
            break
    assert seen > 0  # a badge under the hand's edge while most of its disc is clear
