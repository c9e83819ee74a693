"""The enrollment plan: the layouts a player photographs to teach the reader an edition."""

from __future__ import annotations

import json
from collections import Counter

import pytest

from companion.cli import main
from companion.rules.components import food_alley
from companion.vision import enroll
from companion.vision.assets import Label
from companion.vision.enroll import PlanError, enrollment_plan, faces_to_show


def test_the_plan_starts_with_the_empty_board_and_shows_every_face_once():
    layouts = enrollment_plan()
    assert len(layouts) <= enroll.MAX_PHOTOS
    assert all(face.kind == "empty" for face in layouts[0].faces)
    shown = Counter(face for lay in layouts[1:] for face in lay.faces if face.kind != "empty")
    c = food_alley()
    wanted = faces_to_show(c)
    assert set(shown) == set(wanted) and set(shown.values()) == {1}
    # both sides of all 54 tokens, 6 faces and a back of each colour's cats, each shopper
    assert len(wanted) == 2 * len(c.tokens) + len(c.player_colours) * (len(c.cat_values) + 2)
    assert [lay.file_name for lay in layouts][:2] == ["layout-00.jpg", "layout-01.jpg"]


def test_each_layout_can_be_laid_with_one_box():
    """A token lies once (one side up) in a layout; a colour's face-up cats and face-down
    cats together are at most the cats of that colour."""
    c = food_alley()
    for layout in enrollment_plan():
        assert len(layout.faces) == 25
        tokens = Counter(f.token for f in layout.faces if f.kind in ("ingredient", "coin"))
        assert not tokens or max(tokens.values()) == 1
        cats = Counter(f.player for f in layout.faces if f.kind in ("cat", "cat-back"))
        assert not cats or max(cats.values()) <= len(c.cat_values)
        faces = [f for f in layout.faces if f.kind in ("cat", "shopper")]
        assert len(faces) == len(set(faces))


def test_a_box_with_too_many_faces_for_nine_photos_is_refused(monkeypatch):
    monkeypatch.setattr(enroll, "MAX_PHOTOS", 4)
    with pytest.raises(PlanError, match="need 7 photos, more than 4"):
        enrollment_plan()


def test_enroll_plan_prints_each_layout_in_scans_cell_format(capsys):
    assert main(["enroll", "plan", "--json"]) == 0
    plan = json.loads(capsys.readouterr().out)
    photos = plan["photos"]
    assert [p["file"] for p in photos] == [f"layout-{i:02d}.jpg" for i in range(len(photos))]
    for photo in photos:
        assert len(photo["cells"]) == 5 and all(len(row) == 5 for row in photo["cells"])
        for cell in (c for row in photo["cells"] for c in row):
            assert set(cell) == {"kind", "token", "player", "value"}
            name = Label(cell["kind"], cell["token"], cell["player"], cell["value"]).name
            assert Label.parse(name).kind == cell["kind"]
    first = photos[1]["cells"][0][0]
    assert first == {"kind": "ingredient", "token": "chicken-1", "player": None, "value": None}
    assert main(["enroll", "plan"]) == 0
    text = capsys.readouterr().out
    assert "layout-00.jpg: the empty board" in text and "chicken-1 (coin)" in text
