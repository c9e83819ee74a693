"""Calibrating the rig: the guided check behind ``companion calibrate`` and the kiosk's
Settings > Camera rig.

1. About a second of frames in automatic exposure; the last one is checked (board in view and
   clear of the frame's edge, its size, focus, light, glare, colour, a test read).
2. Only once every check passes: exposure and white balance are locked (the Pi camera; other
   sources have nothing to lock), a fresh frame is checked again, and its test read shown.
3. The rig file is written (``rig.yaml``); nothing is written while a check fails.
"""

from __future__ import annotations

import logging
import queue
import threading
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from companion.table.rig import Rig, RigError, load_rig, now
from companion.table.session import Event
from companion.table.sources import CameraLock, FrameSource, SourceError
from companion.vision.locate import BoardPose
from companion.vision.reader import BoardReader
from companion.vision.rigcheck import RigLimits, RigReport, check_rig

log = logging.getLogger(__name__)

SETTLE_S = 1.0  # automatic exposure and white balance are given this long before a check


@dataclass
class Calibration:
    report: RigReport
    frame: np.ndarray
    lock: CameraLock | None = None
    rig: Rig | None = None  # written only when every check passed
    path: Path | None = None


def settled_frame(source: FrameSource, settle_s: float = SETTLE_S) -> np.ndarray:
    """The frame about ``settle_s`` after the first (or the last the source has)."""
    first = last = None
    for frame in source.frames():
        first = frame if first is None else first
        last = frame
        if frame.t - first.t >= settle_s:
            break
    if last is None:
        raise SourceError("the source gave no frame to calibrate on")
    return last.image


def check_source(source: FrameSource, reader: BoardReader, *, settle_s: float = SETTLE_S,
                 limits: RigLimits | None = None) -> Calibration:
    """One round of checks on a settled frame, nothing locked or written."""
    frame = settled_frame(source, settle_s)
    return Calibration(check_rig(frame, reader, limits), frame)


def calibrate(source: FrameSource, spec: str, reader: BoardReader, out: Path, *,
              settle_s: float = SETTLE_S, limits: RigLimits | None = None,
              checked: Calibration | None = None) -> Calibration:
    """The whole calibration: check, lock, check again, write ``out`` if all is well.

    ``checked``: a round already judged good (the kiosk's live view), to lock from.
    """
    result = checked or check_source(source, reader, settle_s=settle_s, limits=limits)
    if not result.report.ok:
        return result
    lock = source.lock_exposure(settle_s)
    if lock is not None:  # the scene under the locked controls: judged and read again
        frame = settled_frame(source, 0.3)
        result = Calibration(check_rig(frame, reader, limits), frame, lock)
        if not result.report.ok:
            return result
    report = result.report
    reading = report.reading
    assert reading is not None and reading.pose is not None
    checks = {c.name: c.value for c in report.checks if c.value is not None}
    rig = Rig(spec, report.frame_size, reading.pose.corners(reader.geometry), reading.pose.score,
              lock.controls if lock is not None else {},
              bool(lock is not None and lock.held), now(), checks)
    rig.save(out)
    result.rig, result.path = rig, out
    return result


def start_pose(rig_file: Path, spec: str, frame_size: tuple[int, int],
               warn: Callable[[str], Any]) -> BoardPose | None:
    """The pose the referee starts from: the rig's, where its file is good and made for this
    source and frame size; else None (the board is searched for), with ``warn`` told why."""
    if not rig_file.is_file():
        return None
    try:
        rig = load_rig(rig_file)
    except RigError as exc:
        warn(str(exc))
        return None
    unfit = rig.fits(spec, frame_size)
    if unfit:
        warn(unfit)
        return None
    return rig.pose()


def rig_controls(rig_file: Path, spec: str) -> dict[str, Any] | None:
    """The camera controls the rig locked, for opening ``spec`` (None where there are none,
    or the file cannot be used: the warning comes with the pose)."""
    try:
        rig = load_rig(rig_file) if rig_file.is_file() else None
    except RigError:
        return None
    if rig is None or rig.source != spec or not rig.controls or not rig.locked:
        return None  # controls the camera was not seen holding are not forced on it
    return rig.controls


class Calibrator:
    """The guided check on its own thread, for the kiosk: checks the source about once a
    second and posts each round; ``save()`` locks and writes once a round is good.

    Events (:class:`~companion.table.session.Event` on :attr:`events`): ``check`` (a round:
    ``report``, ``image`` and ``cells`` for the preview), ``saved`` (``report``, ``lock``,
    ``path``, or ``rig`` None when the scene changed and a check failed again) and ``failed``
    (``text``: the source cannot be read).
    """

    def __init__(self, source: FrameSource, spec: str, out: Path, *,
                 reader_factory: Callable[[], Any] | None = None, every_s: float = 1.0) -> None:
        self.source, self.spec, self.out = source, spec, out
        self.reader_factory = reader_factory
        self.every_s = every_s
        self.events: queue.Queue[Event] = queue.Queue()
        self._save = threading.Event()
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self.last: Calibration | None = None

    def start(self) -> None:
        self._thread = threading.Thread(target=self._run, name="calibrate", daemon=True)
        self._thread.start()

    def save(self) -> None:
        self._save.set()

    def stop(self, timeout: float = 5.0) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout)

    def _post(self, kind: str, **data: Any) -> None:
        self.events.put(Event(kind, data))

    def _run(self) -> None:
        from companion.table.runner import board_preview

        try:
            reader = self.reader_factory() if self.reader_factory else BoardReader()
            centres = reader.geometry.centres.reshape(-1, 2)
            with self.source as source:
                settle = SETTLE_S
                while not self._stop.is_set():
                    if self._save.is_set() and self.last is not None and self.last.report.ok:
                        self._save.clear()
                        done = calibrate(source, self.spec, reader, self.out,
                                         checked=self.last)
                        self._post("saved", report=done.report, lock=done.lock,
                                   path=done.path, rig=done.rig)
                        if done.rig is not None:
                            return
                    self.last = check_source(source, reader, settle_s=settle)
                    settle = 0.2
                    image, cells = board_preview(self.last.frame, self.last.report.reading,
                                                 centres, [])
                    self._post("check", report=self.last.report, image=image, cells=cells)
                    self._stop.wait(self.every_s)
        except (SourceError, OSError) as exc:
            self._post("failed", text=str(exc))
        except Exception as exc:  # the screen must learn of it
            log.exception("calibration stopped")
            self._post("failed", text=f"the calibration stopped: {exc}")
