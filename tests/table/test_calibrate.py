"""Calibrating the rig: the rig file, the camera lock, the guided check, the referee's start."""

from __future__ import annotations

import json
import re
import subprocess
import sys
import types
from contextlib import contextmanager
from pathlib import Path

import cv2
import numpy as np
import pytest

from companion.table.calibrate import calibrate, check_source, rig_controls, start_pose
from companion.table.rig import Rig, RigError, load_rig
from companion.table.settle import Settler
from companion.table.sources import Frame, FrameSource, PiCameraSource, open_source
from companion.vision.reader import BoardReader
from tests.vision.rig_scenes import OUT_OF_VIEW, rig_frame


@pytest.fixture(scope="module")
def reader():
    return BoardReader()


class StillSource(FrameSource):
    """One frame over and over, 10 a second (a camera over a still table)."""

    def __init__(self, image: np.ndarray, count: int = 30) -> None:
        self.image, self.count = image, count

    def frames(self):
        for i in range(self.count):
            yield Frame(self.image, i / 10, i)


def good_rig(reader, tmp_path: Path, spec: str = "frames:x") -> Rig:
    result = calibrate(StillSource(rig_frame("good")), spec, reader, tmp_path / "rig.yaml")
    assert result.rig is not None, [c.message for c in result.report.checks]
    return result.rig


# --- the rig file -------------------------------------------------------------------------------
def test_a_good_rig_is_written_and_reads_back(reader, tmp_path):
    rig = good_rig(reader, tmp_path)
    back = load_rig(tmp_path / "rig.yaml")
    assert back.source == "frames:x" and back.frame_size == (1920, 1080)
    assert np.allclose(back.corners, rig.corners, atol=0.06)
    assert back.checks["size"] == pytest.approx(700 / 1920, abs=0.01)
    assert back.created.startswith("20")
    assert "schema_version: 1" in (tmp_path / "rig.yaml").read_text()


@pytest.mark.parametrize("flaw,place", [("", "out"), ("", "small"), ("blurred", "good"),
                                        ("dark", "good"), ("glare", "good")])
def test_nothing_is_written_while_a_check_fails(reader, tmp_path, flaw, place):
    result = calibrate(StillSource(rig_frame(place, flaw)), "frames:x", reader,
                       tmp_path / "rig.yaml")
    assert not result.report.ok and result.rig is None
    assert not (tmp_path / "rig.yaml").exists()


# a rig file that is right up to the camera: each case below spoils one thing
GOOD_HEAD = ("schema_version: 1\nframe: {width: 1920, height: 1080}\nsource: camera\n"
             "created: '2026-11-30'\nboard: {corners: [[600, 100], [1300, 100], [1300, 800], "
             "[600, 800]], score: 0.9}\n")


def test_the_good_head_alone_is_a_rig(tmp_path):
    (tmp_path / "rig.yaml").write_text(GOOD_HEAD)
    rig = load_rig(tmp_path / "rig.yaml")
    assert rig.score == 0.9 and rig.controls == {} and rig.locked is False


@pytest.mark.parametrize("text,match", [
    ("{{{", "cannot be read"),
    ("schema_version: 7\n", "schema version 7"),
    ("- a list\n", "not a rig file"),
    ("schema_version: 1\nframe: {width: 1920}\n", "'frame' must give"),
    ("schema_version: 1\nframe: {width: 1920, height: 1080}\nboard: {corners: [[1, 2]]}\n",
     "four corners"),
    ("schema_version: 1\nframe: {width: 1920, height: 1080}\nsource: camera\n"
     "created: '2026-11-30'\nboard: {corners: [[0, 0], [3000, 0], [3000, 900], [0, 900]]}\n",
     "outside the frame"),
    (GOOD_HEAD + "camera: locked\n", "'camera' must hold"),
    (GOOD_HEAD + "camera: [1, 2]\n", "'camera' must hold"),
    (GOOD_HEAD + "camera: {locked: 'yes'}\n", "'camera.locked' must be true or false"),
    (GOOD_HEAD + "camera: {controls: {ExposureTime: .nan}}\n", "controls. must map"),
    (GOOD_HEAD + "camera: {controls: {ExposureTime: -5}}\n", "ExposureTime' must be"),
    (GOOD_HEAD + "camera: {controls: {ColourGains: [1.9, fast]}}\n", "lists of numbers"),
    (GOOD_HEAD + "camera: {controls: {ColourGains: []}}\n", "lists of numbers"),
    (GOOD_HEAD + "checks: {focus: .inf}\n", "'checks' must map"),
    (GOOD_HEAD.replace("score: 0.9", "score: .nan"), "'board.score' must be a number"),
    (GOOD_HEAD.replace("score: 0.9", "score: 3"), "'board.score' must be a number"),
])
def test_a_corrupt_rig_file_says_to_calibrate_again(tmp_path, text, match):
    path = tmp_path / "rig.yaml"
    path.write_text(text)
    with pytest.raises(RigError, match=match) as caught:
        load_rig(path)
    assert "companion calibrate" in str(caught.value)


def test_a_stale_rig_is_not_used_and_says_why(reader, tmp_path):
    good_rig(reader, tmp_path, "camera")
    said: list[str] = []
    assert start_pose(tmp_path / "rig.yaml", "camera", (1280, 720), said.append) is None
    assert "1920x1080 frames" in said[0] and "companion calibrate" in said[0]
    assert start_pose(tmp_path / "rig.yaml", "webcam:0", (1920, 1080), said.append) is None
    assert "'camera', not 'webcam:0'" in said[1]
    pose = start_pose(tmp_path / "rig.yaml", "camera", (1920, 1080), said.append)
    assert pose is not None and len(said) == 2
    (tmp_path / "rig.yaml").write_bytes(b"\xff\xfe garbage")
    assert start_pose(tmp_path / "rig.yaml", "camera", (1920, 1080), said.append) is None
    assert "cannot be read" in said[2]
    assert start_pose(tmp_path / "none.yaml", "camera", (1920, 1080), said.append) is None
    assert len(said) == 3  # no rig at all is no warning: the board is searched for


def test_a_rig_file_of_the_wrong_shape_is_a_message_not_a_crash(tmp_path):
    """What the kiosk asks of a rig at start (its pose, the controls to set back) answers a
    file whose camera is not a mapping with the reason, and starts without the rig."""
    (tmp_path / "rig.yaml").write_text(GOOD_HEAD + "camera: locked\n")
    said: list[str] = []
    assert start_pose(tmp_path / "rig.yaml", "camera", (1920, 1080), said.append) is None
    assert "'camera' must hold" in said[0] and "companion calibrate" in said[0]
    assert rig_controls(tmp_path / "rig.yaml", "camera") is None


# --- the referee starts from the rig's pose -----------------------------------------------------
def test_the_settler_reads_from_the_rig_pose_and_searches_once_the_board_moved(reader, tmp_path,
                                                                               monkeypatch):
    rig = good_rig(reader, tmp_path)
    searched = []
    original = reader.locator._small
    monkeypatch.setattr(reader.locator, "_small",
                        lambda image: searched.append(1) or original(image))
    settler = Settler(reader, ["red", "blue"], pose=rig.pose())
    frame = rig_frame("good")
    settled = None
    for i in range(12):
        settled = settler.push(Frame(frame, i / 10, i)) or settled
    assert settled is not None and not searched  # the rig's pose was kept: no search
    moved = rig_frame("out")
    for i in range(12, 16):
        settler.push(Frame(moved, i / 10, i))
    assert searched  # the board moved: searched for afresh


# --- the camera lock ----------------------------------------------------------------------------
class _Request:
    def __init__(self, camera, t_ns):
        self.camera, self.t_ns = camera, t_ns

    def make_array(self, stream):
        return (np.zeros((1080, 1920, 3), np.uint8) if stream == "main"
                else np.zeros((360, 320), np.uint8))

    def get_metadata(self):
        return {"SensorTimestamp": self.t_ns, **self.camera.reported()}

    def release(self):
        pass


class _LockingCamera:
    """picamera2 stand-in with automatic exposure and white balance that either honours
    the switch to manual values (``honours``) or, like some releases, ignores it."""

    honours = True
    modes = False  # the newer ExposureTimeMode / AnalogueGainMode controls

    def __init__(self):
        self.t = 0
        self.auto = True
        self.manual: dict = {}
        self.sent: list[dict] = []
        self.camera_controls = {"ExposureTime": (100, 66666, 10000), "AnalogueGain": (1, 16, 1),
                                "ColourGains": (0, 32, 1), "AwbEnable": (False, True, True),
                                "AeEnable": (False, True, True)}
        if self.modes:
            del self.camera_controls["AeEnable"]
            self.camera_controls.update(ExposureTimeMode=(0, 1, 0), AnalogueGainMode=(0, 1, 0))

    def create_video_configuration(self, main, lores):
        return {}

    def configure(self, config):
        pass

    def start(self):
        pass

    def set_controls(self, controls):
        self.sent.append(dict(controls))
        manual = controls.get("ExposureTimeMode") == 1 or controls.get("AeEnable") is False
        if self.honours and manual:
            self.auto = False
            self.manual.update({k: v for k, v in controls.items()
                                if k in ("ExposureTime", "AnalogueGain", "ColourGains")})
        if controls.get("AeEnable") is True or controls.get("ExposureTimeMode") == 0:
            self.auto = True

    def reported(self):
        auto = {"ExposureTime": 12000 + (self.t % 3), "AnalogueGain": 1.5,
                "ColourGains": (1.8, 1.6)}
        return auto if self.auto else {**auto, **self.manual}

    def capture_request(self):
        self.t += 1
        return _Request(self, self.t * 100_000_000)

    def stop(self):
        pass

    def close(self):
        pass


def _camera(monkeypatch, **kind) -> PiCameraSource:
    cls = type("Camera", (_LockingCamera,), kind)
    monkeypatch.setitem(sys.modules, "picamera2", types.SimpleNamespace(Picamera2=cls))
    return open_source("camera")


@pytest.mark.parametrize("modes", [False, True])
def test_the_lock_is_set_and_checked_through_the_metadata(monkeypatch, modes):
    source = _camera(monkeypatch, modes=modes)
    lock = source.lock_exposure(settle_s=0.0)
    assert lock.held, lock.message
    assert lock.controls["ExposureTime"] in (12000, 12001, 12002)
    assert lock.controls["ColourGains"] == [1.8, 1.6]
    last = source.camera.sent[-1]
    assert last["AwbEnable"] is False
    if modes:  # the newer libcamera: the modes, and no AeEnable it does not know
        assert last["ExposureTimeMode"] == 1 and "AeEnable" not in last
    else:
        assert last["AeEnable"] is False
    assert "holds them" in lock.message


def test_an_autofocus_camera_focuses_itself_until_the_lock(monkeypatch):
    source = _camera(monkeypatch, modes=True)
    assert source.camera.sent == []  # this stand-in lists no AfMode: nothing sent
    cls = type("Camera", (_LockingCamera,), {})
    cls.__init__ = lambda self: (_LockingCamera.__init__(self), self.camera_controls.update(
        AfMode=(0, 2, 0), LensPosition=(0.0, 15.0, 1.0)))[0]
    monkeypatch.setitem(sys.modules, "picamera2", types.SimpleNamespace(Picamera2=cls))
    assert open_source("camera").camera.sent == [{"AfMode": 2}]


def test_a_release_that_ignores_the_lock_is_caught(monkeypatch):
    source = _camera(monkeypatch, honours=False)
    lock = source.lock_exposure(settle_s=0.0)
    assert not lock.held
    assert "ignores the switch to manual exposure" in lock.message


def test_the_rig_controls_are_set_when_the_camera_opens(monkeypatch, tmp_path, reader):
    rig = good_rig(reader, tmp_path, "camera")
    rig.controls = {"ExposureTime": 9000, "AnalogueGain": 2.0, "ColourGains": [1.7, 1.5]}
    rig.save(tmp_path / "rig.yaml")
    assert rig_controls(tmp_path / "rig.yaml", "camera") is None  # not seen held: not forced
    rig.locked = True
    rig.save(tmp_path / "rig.yaml")
    controls = rig_controls(tmp_path / "rig.yaml", "camera")
    assert rig_controls(tmp_path / "rig.yaml", "webcam:0") is None
    cls = type("Camera", (_LockingCamera,), {})
    monkeypatch.setitem(sys.modules, "picamera2", types.SimpleNamespace(Picamera2=cls))
    source = open_source("camera", controls=controls)
    assert source.camera.sent[0]["ExposureTime"] == 9000
    assert source.camera.sent[0]["AeEnable"] is False
    assert next(iter(source.frames())) is not None
    assert source.metadata["ExposureTime"] == 9000


def test_a_locked_calibration_is_checked_again_and_recorded(reader, tmp_path):
    class LockingStill(StillSource):
        def lock_exposure(self, settle_s=1.0):
            from companion.table.sources import CameraLock
            return CameraLock({"ExposureTime": 8000}, True, "locked")

    result = calibrate(LockingStill(rig_frame("good"), 200), "camera", reader,
                       tmp_path / "rig.yaml")
    rig = load_rig(tmp_path / "rig.yaml")
    assert result.lock.held and rig.locked and rig.controls == {"ExposureTime": 8000}


def test_check_source_takes_the_frame_after_a_second():
    seen = []

    class Counting(StillSource):
        def frames(self):
            for frame in super().frames():
                seen.append(frame.t)
                yield frame

    class NoRead:
        def read(self, frame):
            from companion.vision.reader import Reading
            return Reading(False, None, [], 0.0, None, "nothing")

    result = check_source(Counting(rig_frame("good")), NoRead())
    assert seen[-1] == pytest.approx(1.0) and not result.report.ok


# --- the command line ---------------------------------------------------------------------------
def _cli(*args, cwd=None):
    return subprocess.run([sys.executable, "-m", "companion", *args], capture_output=True,
                          text=True, timeout=120, cwd=cwd)


def test_companion_calibrate_on_frames(tmp_path):
    good, out_of_frame = tmp_path / "good", tmp_path / "out"
    for folder, image in ((good, rig_frame("good")), (out_of_frame, rig_frame("out"))):
        folder.mkdir()
        cv2.imwrite(str(folder / "f.jpg"), image)
    run = _cli("calibrate", "--source", f"frames:{good}", "--data", str(tmp_path))
    assert run.returncode == 0, run.stderr
    assert "[ ok ] focus" in run.stdout and "Test read" in run.stdout
    assert "no exposure controls to lock" in run.stdout
    assert load_rig(tmp_path / "rig.yaml").source == f"frames:{good}"
    run = _cli("calibrate", "--source", f"frames:{out_of_frame}", "--out",
               str(tmp_path / "bad.yaml"), "--json")
    assert run.returncode == 1
    doc = json.loads(run.stdout)
    assert doc["ok"] is False and doc["written"] is None
    assert any(re.search(OUT_OF_VIEW, c["message"]) for c in doc["checks"])
    assert not (tmp_path / "bad.yaml").exists()
    run = _cli("calibrate", "--source", "frames:/no/such/folder")
    assert run.returncode == 2 and "no such folder" in run.stderr


def test_the_referee_starts_from_the_rig_or_says_why_not(tmp_path, reader):
    frames = tmp_path / "frames"
    frames.mkdir()
    for i in range(8):
        cv2.imwrite(str(frames / f"{i:03d}.jpg"), rig_frame("good"))
    good_rig(reader, tmp_path, "camera")  # made for another source
    run = _cli("referee", "food-alley/sambal", "--players", "2", "--source", f"frames:{frames}",
               "--data", str(tmp_path), "--json")
    assert "calibrated for the source 'camera'" in run.stderr
    assert "searched for in every frame" in run.stderr
    good_rig(reader, tmp_path, f"frames:{frames}")
    run = _cli("referee", "food-alley/sambal", "--players", "2", "--source", f"frames:{frames}",
               "--data", str(tmp_path), "--json", "--rig", str(tmp_path / "rig.yaml"))
    assert "calibrat" not in run.stderr


# --- the kiosk's side: the calibrator thread and its presenter ----------------------------------
def _drain(calibrator, until, timeout=60.0):
    import time as _time

    from companion.ui.presenters import CalibratePresenter

    presenter = CalibratePresenter()
    kinds = []
    end = _time.monotonic() + timeout
    while _time.monotonic() < end:
        try:
            event = calibrator.events.get(timeout=0.2)
        except Exception:
            continue
        kinds.append(event.kind)
        presenter.on_event(event.kind, event.data)
        if until(presenter, kinds):
            return presenter, kinds
    raise AssertionError(f"the calibrator did not get there: {kinds}")


@contextmanager
def calibrating(frame, count, out, reader):
    """The kiosk's calibrator on a still camera, started, and stopped on leaving."""
    from companion.table.calibrate import Calibrator

    calibrator = Calibrator(StillSource(frame, count), "frames:x", out,
                            reader_factory=lambda: reader, every_s=0.05)
    calibrator.start()
    try:
        yield calibrator
    finally:
        calibrator.stop()


def test_the_kiosk_calibrator_checks_until_saved(reader, tmp_path):
    with calibrating(rig_frame("good"), 10_000, tmp_path / "rig.yaml", reader) as calibrator:
        presenter, _ = _drain(calibrator, lambda p, k: p.state == "good")
        assert presenter.can_save and presenter.preview["image"] is not None
        assert len(presenter.preview["cells"]) == 25 and presenter.marks.count("ok") == 25
        assert all(r["verdict"] == "good" for r in presenter.rows)
        assert presenter.save() and not presenter.can_save  # one save at a time
        calibrator.save()
        presenter2, kinds = _drain(calibrator, lambda p, k: "saved" in k)
    assert load_rig(tmp_path / "rig.yaml").source == "frames:x"
    assert presenter2.state == "saved"


def test_the_kiosk_calibrator_will_not_save_a_bad_rig(reader, tmp_path):
    with calibrating(rig_frame("out"), 10_000, tmp_path / "rig.yaml", reader) as calibrator:
        presenter, _ = _drain(calibrator, lambda p, k: p.state == "fix")
        assert not presenter.save() and not presenter.can_save
        bad = [r for r in presenter.rows if r["verdict"] == "bad"]
        assert presenter.rows[0]["verdict"] == "bad"  # what to fix comes first
        assert any(re.search(OUT_OF_VIEW, r["text"]) for r in bad)
        calibrator.save()  # asked anyway: nothing is written while a check fails
        _drain(calibrator, lambda p, k: k.count("check") >= 3)
    assert not (tmp_path / "rig.yaml").exists()


def test_the_kiosk_calibrator_names_a_camera_that_stops(reader, tmp_path):
    with calibrating(rig_frame("good"), 0, tmp_path / "r.yaml", reader) as calibrator:
        presenter, _ = _drain(calibrator, lambda p, k: p.state == "failed")
    assert "no frame" in presenter.detail


def test_the_example_rig_in_the_repository_is_valid():
    example = Path(__file__).resolve().parents[2] / "calibration" / "example-rig.yaml"
    rig = load_rig(example)
    assert rig.source == "camera" and rig.locked and rig.controls["ExposureTime"] == 16666
    assert rig.fits("camera", (1920, 1080)) is None
