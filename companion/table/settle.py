"""Settling: a step is judged only on a settled board.

Settled means no hand over it and several readings in a row that agree, after igoki's debounce
(3 identical reads 100 ms apart) and Raspberry Turk's two matching candidates:

- motion: the frame's low-resolution grey copy, over the board's area once it is known, is
  compared with the frame before; more than ``motion_share`` of its pixels changing by more than
  ``motion_level`` grey levels is motion (a hand, a token being placed);
- still: no motion for ``still_s`` seconds;
- then the board is read (from the last pose, as on a fixed rig), at most every ``gap_s``;
- settled when ``agree`` readings in a row give the same 25 cells. A reading with cells the
  reader leaves unknown (a hand held still over the board) must agree ``agree_unknown`` times.

The numbers are in :class:`SettleConfig` (docs/referee.md says how they were chosen).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

import cv2
import numpy as np

from companion.table.board import Keys, board_keys
from companion.table.sources import Frame

if TYPE_CHECKING:  # the reader (onnxruntime) is loaded by whoever makes one
    from companion.vision.locate import BoardPose
    from companion.vision.reader import BoardReader, Reading

MOTION_WIDTH = 160  # px, the grey copy compared for motion
TIME_EPS = 1e-6  # s: frame times a whole frame apart count as such


@dataclass(frozen=True)
class SettleConfig:
    motion_level: float = 25.0
    motion_share: float = 0.004
    still_s: float = 0.2
    gap_s: float = 0.1
    agree: int = 3
    agree_unknown: int = 6


@dataclass
class Settled:
    keys: Keys
    reading: Reading
    frame: Frame

    @property
    def confidence(self) -> list[float]:
        return [float(c["confidence"]) for row in self.reading.cells for c in row]


class Settler:
    """Feed every frame; it returns a settled reading when the board has settled anew."""

    def __init__(self, reader: BoardReader, seated: list[str],
                 config: SettleConfig | None = None, pose: BoardPose | None = None) -> None:
        """``pose``: where a calibrated rig sees the board (checked on every read, and searched
        for afresh once the board moved)."""
        self.reader = reader
        self.seated = seated
        self.config = config or SettleConfig()
        self.pose = None
        self.corners: np.ndarray | None = None
        self.start_from(pose)
        self._small: np.ndarray | None = None
        self._moved_at = -1e9
        self._read_at = -1e9
        self._keys: Keys | None = None
        self._count = 0
        self.last_settled: Keys | None = None
        self.readings = 0
        self.last_reading: Reading | None = None  # the latest reading, settled or not

    def start_from(self, pose: BoardPose | None) -> None:
        """Read from this pose (a calibrated rig's) until the board moves."""
        if pose is not None:
            self.pose = pose
            self.corners = pose.corners(self.reader.geometry)

    def motion(self, frame: Frame) -> bool:
        """Whether the board area changed since the last frame."""
        small = frame.small
        if small is None:
            grey = cv2.cvtColor(frame.image, cv2.COLOR_BGR2GRAY)
            h, w = grey.shape
            small = cv2.resize(grey, (MOTION_WIDTH, max(1, h * MOTION_WIDTH // w)),
                               interpolation=cv2.INTER_AREA)
        before, self._small = self._small, small
        if before is None or before.shape != small.shape:
            return True
        diff = cv2.absdiff(small, before)
        if self.corners is not None:
            h, w = frame.image.shape[:2]
            scale = np.array([small.shape[1] / w, small.shape[0] / h])
            x0, y0 = np.maximum((self.corners * scale).min(axis=0).astype(int) - 2, 0)
            x1, y1 = (self.corners * scale).max(axis=0).astype(int) + 2
            diff = diff[y0:y1, x0:x1]
        if diff.size == 0:
            return False
        return float((diff > self.config.motion_level).mean()) > self.config.motion_share

    def push(self, frame: Frame) -> Settled | None:
        cfg = self.config
        if self.motion(frame):
            self._moved_at = frame.t
            self._count = 0
            return None
        # (less a microsecond: 0.8 - 0.6 is 0.19999999999999996 in floating point)
        if frame.t - self._moved_at < cfg.still_s - TIME_EPS or \
                frame.t - self._read_at < cfg.gap_s - TIME_EPS:
            return None
        self._read_at = frame.t
        reading = self.reader.read(frame.image, pose=self.pose)
        self.readings += 1
        self.last_reading = reading
        if not reading.found:
            self.pose = None
            self._count = 0
            return None
        self.pose = reading.pose
        self.corners = reading.corners
        keys = board_keys(reading.cells, self.seated)
        if keys == self._keys:
            self._count += 1
        else:
            self._keys, self._count = keys, 1
        need = cfg.agree_unknown if any(k is None for k in keys) else cfg.agree
        if self._count >= need and keys != self.last_settled:
            self.last_settled = keys
            return Settled(keys, reading, frame)
        return None
