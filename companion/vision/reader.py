"""The board reader: one camera frame in, the 5x5 grid out (cells with confidence).

Pure functions of the frame and the model; no game rules inside. Constraints on what may appear
(each token once, ...) come in as data from the component list.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import cv2
import numpy as np
import yaml

from companion.rules.components import Components, food_alley
from companion.vision.classify import (
    CellModel,
    ModelError,
    capacities,
    decode,
    default_model_dir,
    load_model,
)
from companion.vision.geometry import BoardGeometry, CellCutter
from companion.vision.locate import BoardNotFoundError, BoardPose, LocateConfig, Locator

UNKNOWN = {"kind": "unknown", "token": None, "player": None, "value": None, "confidence": 0.0}


@dataclass(frozen=True)
class ReaderConfig:
    """Thresholds, from ``reader.yaml`` beside the model."""

    abstain_below: float = 0.7
    second_look_below: float = 0.9
    max_edge_blur_mm: float = 2.0  # a blurrier frame (shaken) is not read: every cell unknown
    unchanged_below: float = 8.0  # a cell whose crop changed less than this is not classified
    locate: LocateConfig = field(default_factory=LocateConfig)

    @classmethod
    def load(cls, path: Path) -> ReaderConfig:
        if not path.is_file():
            return cls()
        try:
            raw = yaml.safe_load(path.read_text(encoding="utf-8")) or {}
            locate = LocateConfig(**(raw.get("locate") or {}))
            return cls(abstain_below=float(raw.get("abstain_below", cls.abstain_below)),
                       second_look_below=float(raw.get("second_look_below",
                                                       cls.second_look_below)),
                       max_edge_blur_mm=float(raw.get("max_edge_blur_mm",
                                                      cls.max_edge_blur_mm)),
                       unchanged_below=float(raw.get("unchanged_below", cls.unchanged_below)),
                       locate=locate)
        except (OSError, yaml.YAMLError, TypeError, ValueError) as exc:
            raise ModelError(f"reader settings {path} are malformed ({exc}); fix or delete "
                             "the file to use the defaults") from exc


@dataclass
class Reading:
    """What the reader saw in one frame."""

    found: bool
    corners: np.ndarray | None  # (4, 2) image px, clockwise from the title corner
    cells: list[list[dict[str, Any]]]  # 5 x 5, row 0 on the title side
    ms: float
    pose: BoardPose | None = None
    reason: str | None = None

    def to_json(self) -> dict[str, Any]:
        return {
            "board": {"found": self.found,
                      "corners": None if self.corners is None else
                      [[round(float(x), 1), round(float(y), 1)] for x, y in self.corners]},
            "cells": self.cells,
            "ms": round(self.ms, 2),
            **({"error": self.reason} if self.reason else {}),
        }


class BoardReader:
    """Loads the model once; ``read(frame)`` for every frame."""

    def __init__(self, model_dir: Path | None = None, components: Components | None = None,
                 *, threads: int = 1) -> None:
        self.components = components or food_alley()
        folder = model_dir or default_model_dir()
        self.config = ReaderConfig.load(folder / "reader.yaml")
        self.model: CellModel = load_model(folder, self.components, threads=threads)
        self.geometry = BoardGeometry.from_components(self.components)
        self.locator = Locator(self.geometry, self.config.locate)
        self.caps = capacities(self.components)
        self.cut = CellCutter(self.geometry, crop_px=self.model.size, crop_mm=self.model.crop_mm)
        self._seen: tuple[np.ndarray, np.ndarray] | None = None  # crops classified, answers
        # the first run of a session pays for its set-up: pay it now, not on the first frame
        size = self.model.size
        self.model.probabilities(np.zeros((25, size, size, 3), np.uint8))

    def read(self, frame: np.ndarray, pose: BoardPose | None = None) -> Reading:
        """Read one BGR frame; pass the last pose of a fixed rig to skip the search."""
        start = time.perf_counter()
        try:
            found = self.locator.locate(frame, previous=pose)
        except BoardNotFoundError as exc:
            return Reading(False, None, _unknown_grid(), (time.perf_counter() - start) * 1000,
                           None, exc.reason)
        if found.edge_blur_mm > self.config.max_edge_blur_mm:  # too blurred to read digits
            return Reading(True, found.corners(self.geometry), _unknown_grid(),
                           (time.perf_counter() - start) * 1000, found,
                           f"the frame is blurred (edges {found.edge_blur_mm:.1f} mm wide, at "
                           f"most {self.config.max_edge_blur_mm:.1f}): did the camera or the "
                           "table move? Every cell is left unknown")
        crops = self.cut(frame, found.pose)
        probs = self._classify(crops)
        cells = decode(probs, self.model.labels, self.caps,
                       abstain_below=self.config.abstain_below)
        grid = [cells[r * 5:(r + 1) * 5] for r in range(5)]
        return Reading(True, found.corners(self.geometry), grid,
                       (time.perf_counter() - start) * 1000, found)


    def _classify(self, crops: np.ndarray) -> np.ndarray:
        """Probabilities for the 25 crops. Cells whose crop has not changed since it was last
        classified (no 8x8 block brighter or darker by ``unchanged_below`` on average: sensor
        noise, not a token moved, turned or covered) keep their answer; the rest go through the
        model in one batch."""
        if self._seen is None or self.config.unchanged_below <= 0:
            self._seen = (crops.copy(), np.empty((len(crops), len(self.model.labels)),
                                                 np.float32))
            todo = np.arange(len(crops))
        else:
            changed = _block_change(crops, self._seen[0]) >= self.config.unchanged_below
            todo = np.nonzero(changed)[0]
        seen_crops, seen_probs = self._seen
        if len(todo):
            seen_probs[todo] = self._look(crops[todo])
            seen_crops[todo] = crops[todo]
        return seen_probs.copy()

    def _look(self, crops: np.ndarray) -> np.ndarray:
        """The model's answers, with a second look at those it is not sure of: the same crop
        turned three quarter turns, the four answers averaged."""
        probs = self.model.probabilities(crops)
        doubtful = np.nonzero(probs.max(axis=1) < self.config.second_look_below)[0]
        if len(doubtful):
            turned = np.concatenate([np.rot90(crops[doubtful], k, axes=(1, 2))
                                     for k in (1, 2, 3)])
            more = self.model.probabilities(np.ascontiguousarray(turned))
            more = more.reshape(3, len(doubtful), -1)
            probs[doubtful] = (probs[doubtful] + more.sum(axis=0)) / 4
        return probs

    def forget(self) -> None:
        """Classify every cell of the next frame afresh."""
        self._seen = None


def _unknown_grid() -> list[list[dict[str, Any]]]:
    return [[dict(UNKNOWN) for _ in range(5)] for _ in range(5)]


def _block_change(crops: np.ndarray, before: np.ndarray, block: int = 8) -> np.ndarray:
    """Per crop, the largest mean absolute change (grey levels) over its blocks."""
    n, h, w, _ = crops.shape
    diff = np.abs(crops.astype(np.int16) - before).sum(axis=3, dtype=np.int32)
    hb, wb = h // block, w // block
    blocks = diff[:, :hb * block, :wb * block].reshape(n, hb, block, wb, block)
    return blocks.mean(axis=(2, 4)).max(axis=(1, 2)) / 3


def read_image(path: Path) -> np.ndarray:
    """A frame from an image file.

    :raises VisionError: if the file is missing or not an image.
    """
    from companion.vision.locate import VisionError

    data = np.fromfile(str(path), dtype=np.uint8) if path.is_file() else None
    if data is None:
        raise VisionError(f"{path}: no such file")
    frame = cv2.imdecode(data, cv2.IMREAD_COLOR) if data.size else None
    if frame is None:
        raise VisionError(f"{path}: not a readable image (corrupt or not JPEG/PNG)")
    return frame
