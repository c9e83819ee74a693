"""The rig checks of `companion calibrate`, on rendered frames good and bad in one way each."""

from __future__ import annotations

import re
from dataclasses import replace
from pathlib import Path

import pytest

from companion.vision.reader import BoardReader
from companion.vision.rigcheck import (
    LIMITS_FILE,
    LimitsError,
    RigLimits,
    check_rig,
    default_limits,
    reading_grid,
)
from tests.vision.rig_scenes import OUT_OF_VIEW, rig_frame


@pytest.fixture(scope="module")
def reader():
    return BoardReader()


def verdicts(report):
    return {c.name: c.verdict for c in report.checks}


@pytest.mark.parametrize("seed", [0, 3])
def test_a_good_rig_passes_every_check(reader, seed):
    report = check_rig(rig_frame("good", seed=seed), reader)
    assert report.ok
    assert set(verdicts(report).values()) == {"good"}, [c.message for c in report.checks]
    assert 0.3 <= report.fill <= 0.5
    assert len(reading_grid(report.reading)) == 5


def test_a_corner_outside_the_frame_is_named(reader):
    report = check_rig(rig_frame("out"), reader)
    assert not report.ok
    corners = report.check("corners")
    assert corners.verdict == "bad"
    # the fit puts that corner past the edge or on it (it cannot be seen), and names it either way
    assert re.search(OUT_OF_VIEW, corners.message), corners.message


def test_the_title_corner_outside_the_frame_is_named_as_the_title_corner(reader):
    report = check_rig(rig_frame("title-out"), reader)
    assert not report.ok
    assert report.check("corners").verdict == "bad"
    assert "the title corner (row 1, column 1) is outside the frame, past its top edge" in \
        report.check("corners").message


def test_a_corner_too_near_the_edge_is_named(reader):
    report = check_rig(rig_frame("big"), reader)  # 1000 px tall in a 1080 px frame
    assert report.check("corners").verdict == "bad"
    assert "from the frame's top edge" in report.check("corners").message
    assert report.check("size").verdict == "bad" and "raise the camera" in \
        report.check("size").message


def test_a_board_too_small_in_the_frame(reader):
    report = check_rig(rig_frame("small"), reader)
    size = report.check("size")
    assert size.verdict == "bad" and "fills 22%" in size.message
    assert "lower the camera" in size.message
    assert report.check("corners").verdict == "good"


def test_focus_is_judged_good_soft_or_too_soft(reader):
    soft = check_rig(rig_frame("good", "soft"), reader)
    assert soft.check("focus").verdict == "warn" and soft.ok  # it reads, with little to spare
    assert "focus ring" in soft.check("focus").message
    blurred = check_rig(rig_frame("good", "blurred"), reader)
    assert blurred.check("focus").verdict == "bad" and not blurred.ok
    assert "too soft" in blurred.check("focus").message


def test_too_dark_and_too_bright(reader):
    dark = check_rig(rig_frame("good", "dark"), reader)
    assert dark.check("light").verdict == "bad" and "too dark" in dark.check("light").message
    bright = check_rig(rig_frame("good", "bright"), reader)
    assert bright.check("light").verdict == "bad"
    assert "too bright" in bright.check("light").message
    # a washed-out board's colour cannot be judged, and is not called a cast
    assert bright.check("colour").verdict == "warn"


def test_glare_is_found_and_placed(reader):
    report = check_rig(rig_frame("good", "glare"), reader)
    glare = report.check("glare")
    assert glare.verdict == "bad" and not report.ok
    assert "row 3, column 3" in glare.message  # the spot lies near the board's centre
    assert "lamp" in glare.message
    assert report.check("light").verdict == "good"  # the rest of the board is well lit


def test_a_colour_cast_is_named(reader):
    report = check_rig(rig_frame("good", "blue"), reader)
    assert report.check("colour").verdict == "bad"
    assert "too blue" in report.check("colour").message


def test_no_board_is_a_clear_refusal(reader):
    blank = rig_frame("good")[:, :300].copy()  # a strip of table, no board
    report = check_rig(blank, reader)
    assert not report.ok and report.checks[0].name == "board"
    assert "all four corners" in report.checks[0].message
    assert report.to_json()["ok"] is False


def test_the_limits_file_is_validated(tmp_path: Path):
    assert default_limits() == RigLimits.load(LIMITS_FILE)
    bad = tmp_path / "limits.yaml"
    bad.write_text("schema_version: 1\nfill_min: lots\n")
    with pytest.raises(LimitsError, match="fill_min must be a number"):
        RigLimits.load(bad)
    bad.write_text("schema_version: 2\n")
    with pytest.raises(LimitsError, match="schema version 1"):
        RigLimits.load(bad)
    bad.write_text("schema_version: 1\nfill_minimum: 0.3\n")
    with pytest.raises(LimitsError, match="unknown settings fill_minimum"):
        RigLimits.load(bad)


def test_limits_come_from_the_file(reader):
    strict = replace(default_limits(), fill_min=0.45)
    report = check_rig(rig_frame("good"), reader, strict)
    assert report.check("size").verdict == "bad"
