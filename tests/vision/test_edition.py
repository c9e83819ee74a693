"""Another edition's art: drawn from a seed, refused by a reader that does not know it."""

from __future__ import annotations

import numpy as np
import pytest

from companion.vision.assets import art_dir, load_art
from companion.vision.edition import draw_edition
from companion.vision.reader import BoardReader
from companion.vision.synth import SceneStyle, render_scene


@pytest.fixture(scope="module")
def other_edition(tmp_path_factory):
    return draw_edition(tmp_path_factory.mktemp("edition"), 500)


def test_an_edition_has_every_art_file_the_bundled_art_has(other_edition, tmp_path):
    bundled = sorted(p.name for p in art_dir().glob("*.png"))
    assert sorted(p.name for p in other_edition.glob("*.png")) == bundled
    again = draw_edition(tmp_path / "again", 500)  # the same seed draws the same edition
    for name in ("board.png", "token-egg-3-coin.png", "cat-white-back.png"):
        assert np.array_equal(load_art(str(again / name)), load_art(str(other_edition / name)))
        assert not np.array_equal(load_art(name)[:, :, :3], load_art(str(again / name))[:, :, :3])


def test_a_board_of_an_edition_not_enrolled_is_refused_not_read(other_edition):
    """The network, never trained on this art, reads some cells wrong and sure of them: the
    tokens it is surest of are compared with the art of what they were read as, and they do
    not match it, so nothing is read and enrollment is asked for."""
    reader = BoardReader(threads=1)
    scene = render_scene(np.random.default_rng([901000, 0]),
                         style=SceneStyle(hand_probability=0.0), art=other_edition)
    reading = reader.read(scene.frame)
    assert reading.found
    assert "this edition's art is not enrolled" in reading.reason
    assert "companion enroll" in reading.reason
    assert all(c["kind"] == "unknown" for row in reading.cells for c in row)
    assert not reader.edition_known and reader.edition_match < 0.72


def test_the_readers_own_edition_is_checked_once_then_trusted(monkeypatch):
    reader = BoardReader(threads=1)
    looked = []
    original = reader.art_check.agreement

    def counted(*args, **kwargs):  # noqa: ANN002, ANN003, ANN202
        looked.append(1)
        return original(*args, **kwargs)

    monkeypatch.setattr(reader.art_check, "agreement", counted)
    for index in range(2):
        scene = render_scene(np.random.default_rng([902000, index]),
                             style=SceneStyle(hand_probability=0.0))
        reading = reader.read(scene.frame)
        assert reading.reason is None
        assert sum(c["kind"] != "unknown" for row in reading.cells for c in row) >= 20
    assert reader.edition_known and reader.edition_match >= 0.8
    assert len(looked) == 5  # the first board only, its five surest tokens and cats


def test_a_plan_photo_blurred_past_the_bound_is_taken_again_from_the_same_rig(other_edition,
                                                                              tmp_path,
                                                                              monkeypatch):
    """As a player retakes a photo that enroll names blurred: the rig's pose kept, the light
    and focus drawn afresh; a photo within the bound is kept as first taken."""
    import cv2

    from companion.vision import enroll
    from companion.vision.edition import RETAKES, plan_photos
    from companion.vision.geometry import BoardGeometry
    from companion.vision.locate import Locator

    two = enroll.enrollment_plan()[:2]
    monkeypatch.setattr(enroll, "enrollment_plan", lambda: two)
    first = plan_photos(tmp_path / "first", other_edition, 3)
    kept = plan_photos(tmp_path / "kept", other_edition, 3, retake_above=10.0)
    again = plan_photos(tmp_path / "again", other_edition, 3, retake_above=0.01)
    g = BoardGeometry.from_components()

    def seen(folder, layout):
        frame = cv2.imread(str(folder / layout.file_name))
        return frame, Locator(g, empty_board=True).locate(frame)

    for layout in two:
        (as_taken, pose), (within, _), (retaken, pose_again) = (
            seen(folder, layout) for folder in (first, kept, again))
        assert np.array_equal(within, as_taken)
        assert not np.array_equal(retaken, as_taken)  # RETAKES times over 0.01 mm: the last
        assert np.abs(pose_again.corners(g) - pose.corners(g)).max() < 1.5
    assert RETAKES >= 1


def test_a_board_with_no_token_or_cat_to_check_leaves_its_shoppers_unknown(monkeypatch):
    """Until a board has shown the reader's art, a board with nothing the check can compare
    (every token and cat left unknown, here by a network unsure of all of them) vouches for
    nothing: its pawns are left unknown too, as a cat of another edition can be read as a
    pawn. Once the art is known, the same board's pawns are read."""
    reader = BoardReader(threads=1)
    scene = next(s for s in (render_scene(np.random.default_rng([903000, i]),
                                          style=SceneStyle(hand_probability=0.0))
                             for i in range(20))
                 if sum(c.startswith("shopper") for c in s.cells) >= 1)
    look = reader._look
    tokens = [k for k, c in enumerate(scene.cells) if not c.startswith(("shopper", "empty"))]

    def unsure(crops: np.ndarray) -> np.ndarray:
        probs = look(crops)
        probs[tokens] = 1.0 / probs.shape[1]
        return probs

    monkeypatch.setattr(reader, "_look", unsure)
    pawns = [k for k, c in enumerate(scene.cells) if c.startswith("shopper")]
    reading = reader.read(scene.frame)
    flat = [c for row in reading.cells for c in row]
    assert reading.reason is None and not reader.edition_known
    assert all(flat[k]["kind"] == "unknown" for k in pawns + tokens)
    reader.forget()
    reader.edition_known = True
    flat = [c for row in reader.read(scene.frame).cells for c in row]
    assert [f"shopper:{flat[k]['player']}" for k in pawns] == [scene.cells[k] for k in pawns]
