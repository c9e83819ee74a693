"""Frame sources: the Pi camera, a USB webcam, a folder of frames, a video file.

Every frame carries its timestamp (seconds). ``open_source("camera" | "webcam:N" |
"webcam:/dev/videoN" | "frames:DIR" | "video:FILE")`` picks one. picamera2 comes from the Pi's
apt (``python3-picamera2``), never from pip: it is imported only when the camera is opened.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import cv2
import numpy as np

IMAGE_SUFFIXES = (".jpg", ".jpeg", ".png")
LOCK_FRAMES = 8  # frames a control change is given to reach the sensor and its metadata


class SourceError(RuntimeError):
    """A frame source that cannot be opened or read."""


@dataclass
class Frame:
    image: np.ndarray  # BGR
    t: float  # seconds: sensor time, position in the video, or index / fps
    index: int
    small: np.ndarray | None = None  # a low-resolution grey copy, where the source has one


@dataclass
class CameraLock:
    """The exposure and white balance a camera was locked to, and whether it holds them."""

    controls: dict[str, Any]
    held: bool
    message: str


class FrameSource:
    """Frames in order; ``frame_after(t)`` for a frame taken after a moment (a settle)."""

    def lock_exposure(self, settle_s: float = 1.0) -> CameraLock | None:
        """Lock exposure and white balance where the source has them; None where it has none
        (a webcam through OpenCV, a recording)."""
        return None

    def frames(self) -> Iterator[Frame]:
        raise NotImplementedError

    def frame_after(self, t: float) -> Frame | None:
        for frame in self.frames():
            if frame.t > t:
                return frame
        return None

    def close(self) -> None:
        """Release the device or file."""

    def __enter__(self) -> FrameSource:
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()


class FolderSource(FrameSource):
    """Image files of a folder in name order, ``fps`` a second (``realtime``: paced so)."""

    def __init__(self, folder: Path, fps: float = 5.0, *, realtime: bool = False) -> None:
        if not folder.is_dir():
            raise SourceError(f"frames:{folder}: no such folder")
        self.files = sorted(p for p in folder.iterdir() if p.suffix.lower() in IMAGE_SUFFIXES)
        if not self.files:
            raise SourceError(f"frames:{folder}: no .jpg or .png frames in the folder")
        if fps <= 0:
            raise SourceError(f"--fps must be more than 0, not {fps}")
        self.fps, self.realtime = fps, realtime
        self.position = 0

    def frames(self) -> Iterator[Frame]:
        start = time.monotonic()
        while self.position < len(self.files):
            i = self.position
            self.position += 1
            image = cv2.imread(str(self.files[i]), cv2.IMREAD_COLOR)
            if image is None:
                raise SourceError(f"{self.files[i]}: not a readable image (corrupt?)")
            t = i / self.fps
            if self.realtime:
                time.sleep(max(0.0, start + t - time.monotonic()))
            yield Frame(image, t, i)


class VideoSource(FrameSource):
    """A video file, read frame by frame; the timestamp is the position in the video."""

    def __init__(self, path: Path) -> None:
        if not path.is_file():
            raise SourceError(f"video:{path}: no such file")
        self.capture = cv2.VideoCapture(str(path))
        if not self.capture.isOpened():
            raise SourceError(f"video:{path}: not a video OpenCV can read")
        self.fps = self.capture.get(cv2.CAP_PROP_FPS) or 25.0
        self.index = 0

    def frames(self) -> Iterator[Frame]:
        while True:
            ok, image = self.capture.read()
            if not ok:
                return
            i = self.index
            self.index += 1
            yield Frame(image, i / self.fps, i)

    def close(self) -> None:
        self.capture.release()


class WebcamSource(FrameSource):
    """A USB webcam through OpenCV (an index or a device path)."""

    def __init__(self, device: int | str, size: tuple[int, int] = (1920, 1080)) -> None:
        self.capture = cv2.VideoCapture(device)
        if not self.capture.isOpened():
            raise SourceError(f"webcam:{device}: cannot open the camera (is it plugged in, and "
                              "is the user in the video group?)")
        self.capture.set(cv2.CAP_PROP_FRAME_WIDTH, size[0])
        self.capture.set(cv2.CAP_PROP_FRAME_HEIGHT, size[1])
        self.index = 0

    def frames(self) -> Iterator[Frame]:
        while True:
            ok, image = self.capture.read()
            if not ok:
                raise SourceError("the webcam stopped sending frames (unplugged?)")
            self.index += 1
            yield Frame(image, time.monotonic(), self.index - 1)

    def close(self) -> None:
        self.capture.release()


class PiCameraSource(FrameSource):
    """The Pi camera through picamera2: the main stream for the reader, a low-resolution
    stream for motion. Timestamps are the sensor's, so a frame taken after a moment can be told
    from an older one that the camera's queue still held."""

    def __init__(self, size: tuple[int, int] = (1920, 1080), lores: tuple[int, int] = (320, 240),
                 module: Any = None, controls: dict[str, Any] | None = None) -> None:
        if module is None:
            try:
                import picamera2 as module  # type: ignore[import-not-found,no-redef]
            except ImportError as exc:
                raise SourceError("the Pi camera needs picamera2 from the Pi's apt: sudo apt "
                                  "install python3-picamera2 (not from pip); or use --source "
                                  "webcam:0") from exc
        try:
            self.camera = module.Picamera2()
            config = self.camera.create_video_configuration(
                main={"size": size, "format": "RGB888"},
                lores={"size": lores, "format": "YUV420"})
            self.camera.configure(config)
            self.camera.start()
            if controls:  # the rig's locked exposure and white balance
                self.camera.set_controls(self._manual(controls))
            elif "AfMode" in (getattr(self.camera, "camera_controls", None) or {}):
                self.camera.set_controls({"AfMode": 2})  # autofocus (Camera Module 3): on
        except Exception as exc:  # libcamera raises its own types
            raise SourceError(f"the Pi camera cannot be started ({exc}): is it connected and "
                              "enabled, and not held by another program (the kiosk's service: "
                              "sudo systemctl stop food-alley-kiosk)?") from exc
        self.lores_height = lores[1]
        self.index = 0
        self.metadata: dict[str, Any] = {}

    def _capture(self) -> Frame:
        request = self.camera.capture_request()
        try:
            image = request.make_array("main")
            yuv = request.make_array("lores")
            self.metadata = dict(request.get_metadata())
            t = float(self.metadata.get("SensorTimestamp", 0)) / 1e9
        finally:
            request.release()
        self.index += 1
        small = np.ascontiguousarray(yuv[:self.lores_height])
        return Frame(np.ascontiguousarray(image), t, self.index - 1, small)

    def frames(self) -> Iterator[Frame]:
        while True:
            yield self._capture()

    def _manual(self, controls: dict[str, Any]) -> dict[str, Any]:
        """Controls that switch the algorithms off: ``AeEnable``/``AwbEnable`` where the
        release has them, and the newer ``ExposureTimeMode``/``AnalogueGainMode`` (1: manual)
        where it has those instead or too."""
        known = getattr(self.camera, "camera_controls", None) or {}
        out = {k: v for k, v in controls.items() if not known or k in known}
        for mode in ("ExposureTimeMode", "AnalogueGainMode"):
            if mode in known:
                out[mode] = 1
        if "AeEnable" in known or not known:
            out["AeEnable"] = False
        if "AwbEnable" in known or not known:
            out["AwbEnable"] = False
        return out

    def _settle(self, frames: int) -> dict[str, Any]:
        for _ in range(frames):
            self._capture()
        return self.metadata

    def lock_exposure(self, settle_s: float = 1.0) -> CameraLock:
        """Let the automatic exposure and white balance settle for ``settle_s``, then set their
        values back by hand, and check through the frames' metadata that the camera holds them:
        first a probe at half the exposure (a release that ignores the switch keeps its own),
        then the locked values."""
        auto: dict[str, Any] = {"AeEnable": True, "AwbEnable": True}
        known = getattr(self.camera, "camera_controls", None) or {}
        if "AfMode" in known:  # an autofocus lens (Camera Module 3): focus continuously first
            auto["AfMode"] = 2
        for mode in ("ExposureTimeMode", "AnalogueGainMode"):
            if mode in known:
                auto[mode] = 0
        self.camera.set_controls({k: v for k, v in auto.items() if not known or k in known})
        start = time.monotonic()
        self._capture()
        while time.monotonic() - start < settle_s:
            self._capture()
        seen = self.metadata
        missing = [k for k in ("ExposureTime", "AnalogueGain", "ColourGains") if k not in seen]
        if missing:
            return CameraLock({}, False, "the camera reports no " + ", ".join(missing) +
                              ": exposure and white balance stay automatic")
        controls = {"ExposureTime": int(seen["ExposureTime"]),
                    "AnalogueGain": float(seen["AnalogueGain"]),
                    "ColourGains": [float(g) for g in seen["ColourGains"]]}
        if "AfMode" in known and "LensPosition" in seen:  # and keep the focus found
            controls.update(AfMode=0, LensPosition=float(seen["LensPosition"]))
        probe = dict(controls, ExposureTime=max(1, controls["ExposureTime"] // 2))
        self.camera.set_controls(self._manual(probe))
        probed = self._settle(LOCK_FRAMES)
        self.camera.set_controls(self._manual(controls))
        held = self._settle(LOCK_FRAMES)
        if not _near(probed.get("ExposureTime"), probe["ExposureTime"]):
            return CameraLock(controls, False, (
                f"the camera did not take a set exposure (asked {probe['ExposureTime']} us, it "
                f"kept {probed.get('ExposureTime')}): this release ignores the switch to manual "
                "exposure. The reader copes with changing light, but keep the room's light "
                "steady"))
        off = [k for k in ("ExposureTime", "AnalogueGain") if not _near(held.get(k), controls[k])]
        gains = held.get("ColourGains") or ()
        if len(gains) != 2 or not all(_near(a, b) for a, b in zip(gains, controls["ColourGains"],
                                                                   strict=False)):
            off.append("ColourGains")
        if off:
            return CameraLock(controls, False, "the camera did not hold " + ", ".join(off) +
                              " after the lock: light changes will not be held off")
        return CameraLock(controls, True, (
            f"exposure locked at {controls['ExposureTime']} us, gain "
            f"{controls['AnalogueGain']:.2f}, colour gains "
            f"{controls['ColourGains'][0]:.2f}/{controls['ColourGains'][1]:.2f}, and the camera "
            "holds them"))

    def frame_after(self, t: float) -> Frame | None:
        """A frame whose exposure began after ``t``: picamera2 may hand back an older one."""
        for _ in range(30):
            frame = self._capture()
            if frame.t > t:
                return frame
        return None

    def close(self) -> None:
        try:
            self.camera.stop()
            self.camera.close()
        except Exception:  # noqa: BLE001 - closing a camera that failed is best effort
            pass


def _near(seen: Any, wanted: float, share: float = 0.03) -> bool:
    """A control the camera reports within ``share`` of what was set (sensors round it)."""
    try:
        return abs(float(seen) - float(wanted)) <= share * abs(float(wanted)) + 1e-6
    except (TypeError, ValueError):
        return False


def open_source(spec: str, *, fps: float = 5.0, realtime: bool = False,
                controls: dict[str, Any] | None = None) -> FrameSource:
    """A source from its name on the command line (``controls``: the rig's locked camera
    controls, for the Pi camera).

    :raises SourceError: naming what is wrong and what to do.
    """
    kind, _, arg = spec.partition(":")
    if kind == "camera" and not arg:
        return PiCameraSource(controls=controls)
    if kind == "webcam":
        device: int | str = int(arg) if arg.isdigit() else arg
        if arg == "":
            device = 0
        return WebcamSource(device)
    if kind == "frames" and arg:
        return FolderSource(Path(arg), fps, realtime=realtime)
    if kind == "video" and arg:
        return VideoSource(Path(arg))
    raise SourceError(f"unknown source {spec!r}: use camera, webcam:N, webcam:/dev/videoN, "
                      "frames:DIR or video:FILE")


def jpeg(image: Any, quality: int = 80) -> bytes:
    """A frame as JPEG bytes (kept in the journal when it decides a disputed step)."""
    ok, buf = cv2.imencode(".jpg", image, [cv2.IMWRITE_JPEG_QUALITY, quality])
    return buf.tobytes() if ok else b""
