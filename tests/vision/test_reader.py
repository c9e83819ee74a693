"""The reader: accuracy on the fixtures, abstention under a hand, every error path."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from dataclasses import replace
from pathlib import Path

import cv2
import numpy as np
import pytest

from companion.vision.assets import Label, cell_label, label_names
from companion.vision.classify import ModelError, capacities, decode, default_model_dir, load_model
from companion.vision.geometry import EDGE_WIDTH_PER_SIGMA, cut_cells, project
from companion.vision.locate import VisionError
from companion.vision.reader import BoardReader, read_image, soften, streak_of
from companion.vision.synth import SceneStyle, fringes, render_scene, unsharp
from companion.vision.tone import apply_luts, measure_tone, tone_reference
from companion.vision.train import CLEAR_BELOW

ROOT = Path(__file__).resolve().parents[2]
MIN_RIGHT = 0.99  # share of cells no hand covers that the shipped model reads right


@pytest.fixture(scope="module")
def reader():
    return BoardReader()


@pytest.fixture(scope="module")
def readings(reader, fixtures):
    return [(truth, reader.read(read_image(image))) for image, truth in fixtures]


def test_every_fixture_board_is_found(readings):
    assert all(r.found for _, r in readings)


def test_cells_are_read_right_and_nothing_confidently_wrong(readings):
    clear = right = confident_wrong = 0
    for truth, reading in readings:
        cells = [c for row in reading.cells for c in row]
        for got, want, hidden in zip(cells, truth["cells"], truth["hidden"], strict=True):
            name = cell_label(got)
            if name not in ("unknown", want):
                confident_wrong += 1
            if hidden < 0.08:
                clear += 1
                right += name == want
    # the goals (0.1 % cell error) are measured by bench/bench_vision.py on 500 scenes;
    # this guards the shipped model against regressions
    assert confident_wrong <= 1, f"{confident_wrong} cells read wrong with confidence"
    assert right / clear >= MIN_RIGHT, f"{clear - right} of {clear} uncovered cells not read"


def test_abstains_under_a_hand(readings):
    covered_cells = 0
    for truth, reading in readings:
        cells = [c for row in reading.cells for c in row]
        for got, hidden in zip(cells, truth["hidden"], strict=True):
            if hidden > 0.5:
                covered_cells += 1
                assert got["kind"] == "unknown"
    assert covered_cells > 0


def test_reading_json_shape(readings):
    data = readings[0][1].to_json()
    assert data["board"]["found"] is True and len(data["board"]["corners"]) == 4
    assert len(data["cells"]) == 5 and all(len(row) == 5 for row in data["cells"])
    assert set(data["cells"][0][0]) == {"kind", "token", "player", "value", "confidence"}
    assert data["ms"] > 0


def test_no_board_is_found_false(reader):
    table = np.full((1080, 1920, 3), 128, np.uint8)
    reading = reader.read(table)
    assert reading.found is False and reading.corners is None
    assert "no board" in reading.to_json()["error"] or reading.reason


def test_corrupt_image_is_a_clear_error(tmp_path):
    bad = tmp_path / "broken.jpg"
    bad.write_bytes(b"\xff\xd8not really a jpeg")
    with pytest.raises(VisionError, match="not a readable image"):
        read_image(bad)
    with pytest.raises(VisionError, match="no such file"):
        read_image(tmp_path / "missing.jpg")


@pytest.fixture()
def model_copy(tmp_path):
    for name in ("cells.onnx", "cells.json", "reader.yaml"):
        shutil.copy(default_model_dir() / name, tmp_path / name)
    return tmp_path


def test_missing_model_is_refused(tmp_path):
    with pytest.raises(ModelError, match="not found: run `companion train`"):
        load_model(tmp_path)


def test_corrupt_model_is_refused(model_copy):
    (model_copy / "cells.onnx").write_bytes(b"garbage" * 100)
    with pytest.raises(ModelError, match="corrupt or not an ONNX model"):
        load_model(model_copy)


def test_model_whose_labels_do_not_match_the_components_is_refused(model_copy):
    meta = json.loads((model_copy / "cells.json").read_text())
    meta["labels"][5] = "ingredient:pizza-1"
    (model_copy / "cells.json").write_text(json.dumps(meta))
    with pytest.raises(ModelError, match="does not match the component list"):
        load_model(model_copy)


def test_malformed_reader_settings_are_refused(model_copy):
    (model_copy / "reader.yaml").write_text("locate: {nonsense: 3}\n")
    with pytest.raises(ModelError, match="reader settings .* are malformed"):
        BoardReader(model_copy)


def test_an_enrolled_model_is_found_by_a_relative_path_and_its_damaged_art_refused(
        model_copy, fixtures, monkeypatch):
    """An enrolled model folder (here the bundled art, as enrollment writes it) read from
    the folder above it, as `companion scan --model NAME` does: its art is looked for in it,
    not among the bundled files. A damaged face in it is refused when the reader opens, naming
    the file, not in the middle of a game."""
    from companion.vision.assets import art_dir, load_art

    shutil.copytree(art_dir(), model_copy / "art")
    monkeypatch.chdir(model_copy.parent)
    image, truth = fixtures[0]
    reader = BoardReader(Path(model_copy.name))
    assert reader.read(read_image(image)).found
    (model_copy / "art" / "token-rice-3-coin.png").write_bytes(b"not a picture")
    load_art.cache_clear()
    with pytest.raises(ModelError, match="token-rice-3-coin.png: restore that model folder's "
                                         "art, or enroll the edition again"):
        BoardReader(Path(model_copy.name))
    load_art.cache_clear()


def test_model_with_an_unknown_tone_mapping_is_refused(model_copy):
    meta = json.loads((model_copy / "cells.json").read_text())
    meta["input"]["tone"] = "sepia"
    (model_copy / "cells.json").write_text(json.dumps(meta))
    with pytest.raises(ModelError, match="unreadable .*unknown tone mapping 'sepia'"):
        load_model(model_copy)


def test_cells_are_mapped_by_the_board_colours_only_when_the_model_was_trained_so(model_copy,
                                                                              fixtures):
    """A model trained with ``--tone`` sees every cell mapped by the board's own colours (light,
    white balance, tone curve: companion/vision/tone.py); the shipped model sees them as cut."""
    curve = np.clip(255 * (np.arange(256)[:, None] / 255) ** 1.4 * [1.2, 1.0, 0.8], 0, 255)
    frame = cv2.LUT(read_image(fixtures[2][0]), curve.astype(np.uint8)[None])
    for tone in (None, "board", "board+shade"):
        meta = json.loads((model_copy / "cells.json").read_text())
        meta["input"].pop("tone", None)
        meta["input"].update({"tone": tone} if tone else {})
        (model_copy / "cells.json").write_text(json.dumps(meta))
        reader = BoardReader(model_copy)
        assert reader.model.tone == tone
        given = []
        classify = reader.model.probabilities

        def spy(crops, given=given, classify=classify):
            given.append(crops)
            return classify(crops)

        reader.model.probabilities = spy
        pose = reader.read(frame).pose.pose
        expected = cut_cells(frame, pose, reader.geometry, crop_px=reader.model.size,
                             crop_mm=reader.model.crop_mm)
        if tone:
            measured = measure_tone(frame, pose, tone_reference(reader.geometry), tone)
            assert measured.gamma == pytest.approx(1.4, rel=0.1)
            expected = apply_luts(expected, measured.luts(reader.geometry.centres.reshape(-1, 2)))
        assert np.array_equal(given[0], expected)


def test_a_cell_the_mapping_washes_out_is_left_unknown(model_copy, fixtures):
    """A dim frame with a glare over one token: the mapping to the print's colours lifts the
    frame by the light measured on the board's ground, which leaves the glare out, so the
    glare goes white. That cell is left unknown, no label likely (an enrolled model read such
    cells as empty, 98 % sure); every other cell is read as it is without the check."""
    meta = json.loads((model_copy / "cells.json").read_text())
    meta["input"]["tone"] = "board"
    (model_copy / "cells.json").write_text(json.dumps(meta))
    reader = BoardReader(model_copy)
    frame, truth = fixtures[2][0], fixtures[2][1]
    frame = read_image(frame).astype(np.float32) * 0.4
    pose = reader.read(frame.astype(np.uint8)).pose.pose
    token = next(k for k, t in enumerate(truth["cells"])
                 if t.startswith("ingredient") or t.startswith("coin"))
    centres = reader.geometry.centres.reshape(-1, 2)
    x, y = project(pose, centres[token:token + 1])[0]
    rim = centres[token:token + 1] + [[reader.geometry.token / 2, 0.0]]
    radius = np.linalg.norm(project(pose, rim)[0] - (x, y))  # the token's, in frame px
    yy, xx = np.mgrid[:frame.shape[0], :frame.shape[1]]
    glare = np.exp(-((xx - x) ** 2 + (yy - y) ** 2) / (2 * (0.8 * radius) ** 2))[:, :, None]
    frame = np.clip(frame + 200 * glare, 0, 255).astype(np.uint8)
    crops = reader.cut(frame, pose)
    mapped = reader._in_print_colours(crops, np.arange(25), frame, pose)
    assert np.nonzero(reader._washed_out(mapped))[0].tolist() == [token]
    assert reader._washed_out(crops).sum() == 0  # as the camera saw it: not washed out
    reader.forget()
    checked = [c for row in reader.read(frame).cells for c in row]
    reader.config = replace(reader.config, washed_out_above=1.0)
    reader.forget()
    unchecked = [c for row in reader.read(frame).cells for c in row]
    assert checked[token] == {"kind": "unknown", "token": None, "player": None, "value": None,
                              "confidence": 0.0}
    assert unchecked[token]["confidence"] > 0  # unchecked, the network's own guess
    assert [c for k, c in enumerate(checked) if k != token] == \
        [c for k, c in enumerate(unchecked) if k != token]


def test_decode_reads_each_token_once():
    labels = [Label.parse(n) for n in label_names()]
    index = {lab.name: i for i, lab in enumerate(labels)}
    probs = np.full((2, len(labels)), 1e-4)
    probs[0, index["ingredient:peanut-2"]] = 0.99
    probs[1, index["coin:peanut-2"]] = 0.97  # the same token cannot also show its coin
    probs[1, index["coin:peanut-3"]] = 0.95
    probs /= probs.sum(axis=1, keepdims=True)
    cells = decode(probs, labels, capacities(), abstain_below=0.3)
    assert cells[0]["token"] == "peanut-2" and cells[0]["kind"] == "ingredient"
    assert cells[1]["token"] == "peanut-3"
    strict = decode(probs, labels, capacities(), abstain_below=0.6)
    assert strict[1]["kind"] == "unknown"


def test_scan_command_json_lines_and_exit_status(fixtures, tmp_path):
    bad = tmp_path / "broken.jpg"
    bad.write_bytes(b"nope")
    images = [str(fixtures[0][0]), str(bad), str(fixtures[1][0])]
    proc = subprocess.run([sys.executable, "-m", "companion", "scan", "--json", *images],
                          capture_output=True, text=True, timeout=120, cwd=ROOT)
    assert proc.returncode == 1
    lines = [json.loads(line) for line in proc.stdout.splitlines()]
    assert [line["image"] for line in lines] == images
    assert lines[0]["board"]["found"] and not lines[1]["board"]["found"]
    assert "not a readable image" in lines[1]["error"]
    assert lines[2]["board"]["found"]


def test_scan_command_prints_a_table(fixtures):
    proc = subprocess.run([sys.executable, "-m", "companion", "scan", str(fixtures[0][0])],
                          capture_output=True, text=True, timeout=120, cwd=ROOT)
    assert proc.returncode == 0
    assert proc.stdout.splitlines()[1].split() == ["a", "b", "c", "d", "e"]


def test_shaken_frame_is_not_read(reader, fixtures):
    """Camera shake smears the digits: the reader finds the board but leaves every cell unknown
    and says why, rather than guess."""
    frame = read_image(fixtures[0][0])
    streak = np.zeros((15, 15), np.float32)
    streak[7, :] = 1 / 15
    shaken = reader.read(cv2.filter2D(frame, -1, streak))
    assert shaken.found and shaken.pose.edge_blur_mm > reader.config.max_edge_blur_mm
    assert all(c["kind"] == "unknown" for row in shaken.cells for c in row)
    assert "blurred" in shaken.reason and "blurred" in shaken.to_json()["error"]
    steady = reader.read(frame)
    assert steady.reason is None and steady.pose.edge_blur_mm < reader.config.max_edge_blur_mm


def test_an_edition_learnt_from_soft_photos_reads_a_sharper_frame_as_soft(model_copy,
                                                                          fixtures):
    """An enrolled model records how soft its photos were (their median edge width); a frame
    sharper than that is cut and then softened by the difference (in quadrature), so the
    network sees the faces as it learnt them; a frame as soft or softer, and the bundled
    model, see the cells as cut."""
    frame = read_image(fixtures[2][0])
    meta = json.loads((model_copy / "cells.json").read_text())
    given = {}  # the crops first classified, by the edge learnt
    for learnt in (None, 1.8, 0.1):
        meta.pop("edition", None)
        meta.update({"edition": {"photo_edge_mm": learnt}} if learnt else {})
        (model_copy / "cells.json").write_text(json.dumps(meta))
        reader = BoardReader(model_copy)
        assert reader.model.learnt_edge_mm == learnt
        classify = reader.model.probabilities

        def spy(crops, classify=classify, learnt=learnt):
            given.setdefault(learnt, crops)
            return classify(crops)

        reader.model.probabilities = spy
        found = reader.read(frame).pose
    as_cut = cut_cells(frame, found.pose, reader.geometry, crop_px=reader.model.size,
                       crop_mm=reader.model.crop_mm)
    assert found.edge_blur_mm < 1.5
    spread = np.sqrt(1.8 ** 2 - found.edge_blur_mm ** 2) / EDGE_WIDTH_PER_SIGMA
    softened = soften(as_cut, spread * reader.model.size / reader.model.crop_mm)
    assert np.array_equal(given[None], as_cut) and np.array_equal(given[0.1], as_cut)
    assert np.array_equal(given[1.8], softened) and not np.array_equal(softened, as_cut)


@pytest.mark.parametrize("edge", ["soft", -1.0, 40])
def test_an_enrolled_model_with_a_malformed_photo_edge_is_refused(model_copy, edge):
    meta = json.loads((model_copy / "cells.json").read_text())
    meta["edition"] = {"photo_edge_mm": edge}
    (model_copy / "cells.json").write_text(json.dumps(meta))
    with pytest.raises(ModelError, match="unreadable .*photo_edge_mm"):
        load_model(model_copy)


def test_out_of_focus_frame_is_sharpened_and_read_with_care(reader, fixtures):
    """An evenly blurred frame (the lens out of focus, not a shake) is not refused: the crops are
    sharpened by the blur the board's edge shows, and a cell is read only when the model is
    sure; far out of focus, every cell is left unknown."""
    clear = right = confident_wrong = 0
    for image, truth in fixtures[:6]:
        blurred = cv2.GaussianBlur(read_image(image), (0, 0), 2.6)
        reading = reader.read(blurred)
        assert reading.reason is None
        assert reading.pose.edge_blur_mm > reader.config.max_edge_blur_mm
        cells = [c for row in reading.cells for c in row]
        for got, want, hidden in zip(cells, truth["cells"], truth["hidden"], strict=True):
            name = cell_label(got)
            confident_wrong += name not in ("unknown", want)
            if hidden < 0.08:
                clear += 1
                right += name == want
            assert name == "unknown" or got["confidence"] >= reader.config.blurred_abstain_below
    assert confident_wrong <= 1 and right / clear >= 0.65, (confident_wrong, right, clear)
    far = reader.read(cv2.GaussianBlur(read_image(fixtures[0][0]), (0, 0), 6.0))
    assert far.found and "out of focus" in far.reason
    assert all(c["kind"] == "unknown" for row in far.cells for c in row)


def test_out_of_focus_frame_has_every_number_looked_at_closer():
    """Out of focus, the network is sure of numbers it cannot see: a stress-bench scene (seed
    778000, scene 96, a 2.6 mm edge) where it reads a black cat's 3 as a 2, 99.9 % sure. Every
    cell gets the closer look in a blurred frame: the art does not bear the 2 out, and the cell
    is left unknown; looked at only below 99 %, it was read wrong. (The network's answer is
    the one of the model the case was found with; later ones are less sure of the 2.)"""
    rng = np.random.default_rng([778_000, 96])
    scene = render_scene(rng, style=SceneStyle(hand_probability=0.0))
    frame = cv2.GaussianBlur(scene.frame, (0, 0), rng.uniform(1.6, 2.6))  # the bench's defocus
    assert scene.cells[8] == "cat:black:3"
    reader = BoardReader()
    look = reader._look
    names = [label.name for label in reader.model.labels]

    def sure_of_the_two(crops: np.ndarray) -> np.ndarray:
        probs = look(crops)
        probs[8] = [0.999 if name == "cat:black:2" else 0.001 / (len(names) - 1)
                    for name in names]
        return probs

    reader._look = sure_of_the_two
    reading = reader.read(frame)
    assert reading.pose.edge_blur_mm > reader.config.max_edge_blur_mm
    assert cell_label(reading.cells[1][3]) in ("unknown", "cat:black:3")
    reader.config = replace(reader.config, blurred_closer_look_below=0.99,
                            blurred_closer_look_cells=4)
    reader.forget()
    assert cell_label(reader.read(frame).cells[1][3]) == "cat:black:2"


def test_a_sharpening_camera_does_not_turn_a_cats_number(reader):
    """A camera that sharpens (as most do, the Pi's included) leaves halos at every edge: a
    stress-bench scene (seed 778000, scene 18, sharpened as the bench does) where a network
    trained without such frames read a black cat's 6 as a 5, 100 % sure. Trained with them,
    every cell is read right."""
    rng = np.random.default_rng([778_000, 18])
    scene = render_scene(rng, style=SceneStyle(hand_probability=0.0))
    sharpened = unsharp(scene.frame, rng.uniform(0.5, 2.0), rng.uniform(0.8, 2.0))
    frame = np.clip(sharpened, 0, 255).astype(np.uint8)
    assert scene.cells[0] == "cat:black:6"
    reader.forget()
    reading = reader.read(frame)
    assert reading.reason is None
    assert [cell_label(c) for row in reading.cells for c in row] == scene.cells


def test_a_cheap_lenss_colour_fringes_do_not_turn_a_cats_number(reader):
    """A cheap lens puts red and blue a few pixels apart: a stress-bench scene (seed 778000,
    scene 22, fringed as the bench does) where a network trained without fringes read a white
    cat's 1 as a 2, 99.4 % sure. Trained with them, every cell is read right."""
    rng = np.random.default_rng([778_000, 22])
    scene = render_scene(rng, style=SceneStyle(hand_probability=0.0))
    frame = fringes(scene.frame, rng.uniform(1.5, 3.0))
    assert scene.cells[4] == "cat:white:1"
    reader.forget()
    reading = reader.read(frame)
    assert reading.reason is None
    assert [cell_label(c) for row in reading.cells for c in row] == scene.cells


def _assert_right_or_unknown_under_the_arm(got: list[str], scene) -> None:  # noqa: ANN001
    """Every cell of a read scene is right or, where the arm hides some of it, unknown."""
    for name, right, hidden in zip(got, scene.cells, scene.hidden, strict=True):
        assert name == right or (name == "unknown" and hidden >= CLEAR_BELOW)


@pytest.mark.parametrize(("scene_no", "cell", "truth"), [(60, 12, "empty"),
                                                         (61, 18, "shopper:black")])
def test_a_cell_under_a_sleeve_is_left_unknown_not_read_as_the_sleeves_colour(
        reader, scene_no, cell, truth):
    """An arm in a sleeve: stress-bench scenes (seed 778000, a sleeved arm over every board)
    where a network that had only seen bare arms read the sleeve's colour, surely: an empty cell
    under a blue sleeve as a blue shopper (99.7 %), a black shopper under one as a blue shopper
    (100 %). Trained with sleeves, those cells are unknown, and every cell is right or, under
    the arm, unknown."""
    rng = np.random.default_rng([778_000, scene_no])
    scene = render_scene(rng, style=SceneStyle(hand_probability=1.0, sleeve_probability=1.0))
    assert scene.cells[cell] == truth and scene.covered[cell] > 0.8
    reader.forget()
    reading = reader.read(scene.frame)
    assert reading.reason is None
    got = [cell_label(c) for row in reading.cells for c in row]
    assert got[cell] == "unknown"
    _assert_right_or_unknown_under_the_arm(got, scene)


@pytest.mark.parametrize(("scene_no", "cell", "truth"), [(37, 24, "cat:blue:1"),
                                                         (86, 22, "cat:blue:5"),
                                                         (88, 1, "cat:orange:3")])
def test_a_cat_whose_number_badge_is_under_a_sleeve_is_not_read_face_down(reader, scene_no, cell,
                                                                         truth):
    """A face-up cat whose number badge is under the edge of a sleeve shows the same picture as
    the cat face down: stress-bench scenes (seed 778000, sleeves) where a network trained to
    read a cat by how much of its disc is covered read it face down, 90-98 % sure. Trained to
    leave a cat unknown once its badge is hidden, the cell is unknown or, where what shows of
    the number is enough (the third: a cuff over 63 % of the badge), read right; and every cell
    is right or, under the arm, unknown."""
    rng = np.random.default_rng([778_000, scene_no])
    scene = render_scene(rng, style=SceneStyle(hand_probability=1.0, sleeve_probability=1.0))
    assert scene.cells[cell] == truth and scene.badge_covered[cell] > 0.3
    reader.forget()
    got = [cell_label(c) for row in reader.read(scene.frame).cells for c in row]
    assert got[cell] in ("unknown", truth)
    _assert_right_or_unknown_under_the_arm(got, scene)


def test_streaks_tell_a_shake_from_a_lens_out_of_focus(reader, fixtures):
    frame = read_image(fixtures[1][0])
    pose = reader.locator.locate(frame).pose
    line = np.zeros((11, 11), np.float32)
    line[5, :] = 1 / 11
    diagonal = np.eye(11, dtype=np.float32) / 11  # shaken at 45 degrees: both axes smeared alike
    sharp = streak_of(reader.cut(frame, pose))
    defocused = streak_of(reader.cut(cv2.GaussianBlur(frame, (0, 0), 2.5), pose))
    shaken = [streak_of(reader.cut(cv2.filter2D(frame, -1, k), pose)) for k in (line, diagonal)]
    assert sharp < reader.config.max_streak and defocused < reader.config.max_streak
    assert min(shaken) > 2 * reader.config.max_streak


def batch_sizes(reader: BoardReader) -> list[int]:
    """The size of every batch the reader's model is given from now on, as a list that grows."""
    batches: list[int] = []
    probabilities = reader.model.probabilities

    def spy(crops):
        batches.append(len(crops))
        return probabilities(crops)

    reader.model.probabilities = spy
    return batches


def test_fixed_rig_reads_again_only_the_cells_that_changed(fixtures):
    """Frame after frame on a fixed rig, a cell whose crop is unchanged (sensor noise only)
    keeps its answer; a cell that changed (here a hand-sized patch over one cell) goes through
    the model again; forget() reads every cell afresh."""
    from companion.vision.geometry import project

    reader = BoardReader(threads=1)
    batches = batch_sizes(reader)
    image, _ = fixtures[0]
    frame = read_image(image)
    first = reader.read(frame)
    assert batches[0] == 25
    noise = np.random.default_rng(3).normal(0, 3, frame.shape)
    batches.clear()
    steady = reader.read(np.clip(frame + noise, 0, 255).astype(np.uint8), pose=first.pose)
    assert batches == [] and steady.cells == first.cells
    covered = frame.copy()
    centre = project(first.pose.pose, reader.geometry.centres[2, 2][None])[0]
    cv2.circle(covered, (int(centre[0]), int(centre[1])), 40, (90, 140, 200), -1)
    changed = reader.read(covered, pose=steady.pose)
    assert batches and batches[0] == 1
    assert changed.cells[2][2] != first.cells[2][2]
    assert [c for r in changed.cells for c in r][:12] == [c for r in first.cells for c in r][:12]
    batches.clear()
    reader.forget()
    reader.read(frame, pose=changed.pose)
    assert batches[0] == 25


def test_the_reader_takes_every_core_but_one_for_the_screen(monkeypatch):
    import os

    from companion.vision import classify

    for cores, threads in ((4, 3), (2, 1), (1, 1)):  # a Pi 4; this machine; a pinned core
        monkeypatch.setattr(os, "sched_getaffinity", lambda pid, n=cores: set(range(n)),
                            raising=False)
        assert classify.reader_threads() == threads


def test_second_look_below_one_turns_every_cell(fixtures):
    """second_look_below 1 (an enrolled model's): each of the 25 crops is also read turned
    three quarter turns, however sure the first look was."""
    reader = BoardReader(threads=1)
    frame = read_image(fixtures[0][0])
    batches = batch_sizes(reader)
    sure = reader.read(frame)
    assert batches[0] == 25 and sum(batches[1:2]) < 75  # the stock: only the doubtful
    reader.config = replace(reader.config, second_look_below=1.0)
    reader.forget()
    batches.clear()
    turned = reader.read(frame, pose=sure.pose)
    assert batches[:2] == [25, 75]
    assert [c["kind"] for r in turned.cells for c in r] == [c["kind"] for r in sure.cells
                                                            for c in r]


def test_a_cell_that_shows_some_hand_beside_a_hand_is_left_unknown(fixtures, monkeypatch):
    """beside_hand_above (an enrolled model's): a cell the network finds a little likely to be
    a hand, next to a cell it finds a hand, is left unknown, however sure it is of a token; a
    cell as likely a hand with no hand beside it, or beside a hand but seeing less of it, is
    read. Off (0, the stock), every one is read."""
    from companion.rules.components import food_alley

    reader = BoardReader(threads=1)
    reader.edition_known = True  # the network's answers below are not the frame's tokens
    labels = reader.model.labels
    index = {lab.name: k for k, lab in enumerate(labels)}
    hand = reader.hand_label
    probs = np.full((25, len(labels)), 1e-4, np.float32)
    for cell, token in enumerate(food_alley().tokens[:25]):  # sure coins, each token once
        probs[cell, index[Label("coin", token=token.id).name]] = 0.97
    probs[12] = 1e-4
    probs[12, hand] = 0.99  # a hand over the middle cell
    probs[13, hand] = 0.03  # beside it (across), a little of it seen: left unknown
    probs[18, hand] = 0.05  # diagonal: left unknown
    probs[7, hand] = 0.01  # beside it, less of it seen: read
    probs[0, hand] = 0.2  # more, but no hand beside it: read
    monkeypatch.setattr(reader, "_classify", lambda *a, **k: probs.copy())
    frame = read_image(fixtures[0][0])

    def unknown_cells() -> list[int]:
        cells = [c for row in reader.read(frame).cells for c in row]
        return [k for k, c in enumerate(cells) if c["kind"] == "unknown"]

    assert unknown_cells() == [12]
    reader.config = replace(reader.config, beside_hand_above=0.03)
    assert unknown_cells() == [12, 13, 18]
