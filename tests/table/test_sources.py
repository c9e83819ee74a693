"""Frame sources: folders and videos read for real, the Pi camera through a stand-in module."""

from __future__ import annotations

import sys
import types

import cv2
import numpy as np
import pytest

from companion.table.sources import (
    FolderSource,
    PiCameraSource,
    SourceError,
    VideoSource,
    open_source,
)


def _frames(n: int) -> list[np.ndarray]:
    return [np.full((48, 64, 3), 20 * i, np.uint8) for i in range(n)]


def test_folder_is_read_in_name_order_with_timestamps(tmp_path):
    for i, image in enumerate(_frames(4)):
        cv2.imwrite(str(tmp_path / f"f{3 - i:02d}.png"), image)  # names in reverse
    source = open_source(f"frames:{tmp_path}", fps=4)
    got = list(source.frames())
    assert [f.t for f in got] == [0.0, 0.25, 0.5, 0.75]
    assert [int(f.image[0, 0, 0]) for f in got] == [60, 40, 20, 0]  # f00 was written last
    assert isinstance(source, FolderSource)


def test_video_file_is_read_frame_by_frame(tmp_path):
    path = tmp_path / "game.avi"
    writer = cv2.VideoWriter(str(path), cv2.VideoWriter_fourcc(*"MJPG"), 10.0, (64, 48))
    for image in _frames(5):
        writer.write(image)
    writer.release()
    source = open_source(f"video:{path}")
    assert isinstance(source, VideoSource)
    got = list(source.frames())
    source.close()
    assert len(got) == 5
    assert [round(f.t, 2) for f in got] == [0.0, 0.1, 0.2, 0.3, 0.4]
    assert abs(int(got[3].image.mean()) - 60) <= 3


def test_frame_after_skips_frames_older_than_the_settle(tmp_path):
    for i, image in enumerate(_frames(6)):
        cv2.imwrite(str(tmp_path / f"{i:03d}.png"), image)
    source = FolderSource(tmp_path, fps=10)
    frame = source.frame_after(0.25)
    assert frame is not None and frame.index == 3


@pytest.mark.parametrize("spec,message", [
    ("frames:/no/such/dir", "no such folder"),
    ("video:/no/such.mp4", "no such file"),
    ("projector:1", "unknown source"),
])
def test_bad_sources_are_named(spec, message):
    with pytest.raises(SourceError, match=message):
        open_source(spec)


def test_a_folder_without_frames_says_so(tmp_path):
    with pytest.raises(SourceError, match="no .jpg or .png"):
        open_source(f"frames:{tmp_path}")


class _Request:
    def __init__(self, t_ns: int, value: int) -> None:
        self.t_ns, self.value, self.released = t_ns, value, False

    def make_array(self, stream: str) -> np.ndarray:
        if stream == "main":
            return np.full((1080, 1920, 3), self.value, np.uint8)
        return np.full((360, 320), self.value, np.uint8)  # YUV420: luma rows first

    def get_metadata(self) -> dict[str, int]:
        return {"SensorTimestamp": self.t_ns}

    def release(self) -> None:
        self.released = True


class _Picamera2:
    """A stand-in for picamera2.Picamera2: two streams, sensor timestamps, and a queue that
    first hands back frames exposed before the call (as the real one can)."""

    def __init__(self) -> None:
        self.queue = [_Request(t * 100_000_000, t) for t in range(10)]
        self.config = None
        self.started = self.closed = False

    def create_video_configuration(self, main: dict, lores: dict) -> dict:
        return {"main": main, "lores": lores}

    def configure(self, config: dict) -> None:
        self.config = config

    def start(self) -> None:
        self.started = True

    def capture_request(self) -> _Request:
        return self.queue.pop(0)

    def stop(self) -> None:
        self.started = False

    def close(self) -> None:
        self.closed = True


def test_pi_camera_through_a_stand_in_module(monkeypatch):
    module = types.SimpleNamespace(Picamera2=_Picamera2)
    monkeypatch.setitem(sys.modules, "picamera2", module)
    source = open_source("camera")
    assert isinstance(source, PiCameraSource)
    camera = source.camera
    assert camera.started and camera.config["lores"]["size"] == (320, 240)
    first = next(iter(source.frames()))
    assert first.image.shape == (1080, 1920, 3) and first.small.shape == (240, 320)
    assert first.t == 0.0
    later = source.frame_after(0.55)  # a settle at 0.55 s: older queued frames are skipped
    assert later is not None and later.t == pytest.approx(0.6)
    source.close()
    assert camera.closed


def test_pi_camera_without_picamera2_says_to_use_apt(monkeypatch):
    monkeypatch.setitem(sys.modules, "picamera2", None)
    with pytest.raises(SourceError, match="apt install python3-picamera2"):
        open_source("camera")


class _Capture:
    """A stand-in for cv2.VideoCapture on a webcam: frames until it is unplugged."""

    def __init__(self, device: int | str) -> None:
        self.device, self.left, self.props = device, 3, {}

    def isOpened(self) -> bool:  # noqa: N802 - OpenCV's name
        return self.device != 9

    def set(self, prop: int, value: float) -> bool:
        self.props[prop] = value
        return True

    def read(self) -> tuple[bool, np.ndarray | None]:
        if not self.left:
            return False, None
        self.left -= 1
        return True, np.zeros((48, 64, 3), np.uint8)

    def release(self) -> None:
        pass


def test_webcam_through_a_stand_in_capture(monkeypatch):
    monkeypatch.setattr("companion.table.sources.cv2.VideoCapture", _Capture)
    source = open_source("webcam:0")
    assert source.capture.props[cv2.CAP_PROP_FRAME_WIDTH] == 1920
    frames = source.frames()
    first, second = next(frames), next(frames)
    assert second.t >= first.t and second.index == 1
    next(frames)
    with pytest.raises(SourceError, match="stopped sending frames"):
        next(frames)
    with pytest.raises(SourceError, match="video group"):
        open_source("webcam:9")
