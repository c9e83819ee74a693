"""Board geometry in millimetres, homographies, and cutting the 25 cells out of a frame.

Board coordinates are millimetres on the board, x to the right and y down, with the origin at the
title corner (row 0 is the title side). A pose is the 3x3 homography from board millimetres to image
pixels.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

import cv2
import numpy as np

from companion.rules.components import Components, food_alley

EDGE_WIDTH_PER_SIGMA = float(np.sqrt(2 * np.pi))  # a Gaussian blur's edge: rise / steepest slope
# the board's corners as BoardGeometry.corners() orders them, for messages
CORNER_NAMES = ("the title corner (row 1, column 1)", "the corner at row 1, column 5",
                "the corner at row 5, column 5", "the corner at row 5, column 1")


@dataclass(frozen=True)
class BoardGeometry:
    """Sizes from the component list (board, pitch, token, cell centres) and the printed art."""

    board: float  # mm, the whole board
    pitch: float
    token: float
    centres: np.ndarray  # (5, 5, 2) mm
    frame: float = 8.0  # the dark printed frame's width (art: 32 px at 4 px/mm)
    grid_outer: tuple[float, float] = (38.5, 231.75)  # the grid's printed border (art)

    @classmethod
    def from_components(cls, components: Components | None = None) -> BoardGeometry:
        g = (components or food_alley()).geometry_mm
        centres = np.asarray(g["cell_centres"], dtype=np.float64)
        return cls(float(g["board"]), float(g["cell_pitch"]), float(g["token_diameter"]), centres)

    def corners(self, inset: float = 0.0) -> np.ndarray:
        """The four corners of the board (or of a square inset into it), clockwise from the
        title corner, in mm."""
        a, b = inset, self.board - inset
        return np.array([[a, a], [b, a], [b, b], [a, b]], dtype=np.float64)


def project(pose: np.ndarray, points_mm: np.ndarray) -> np.ndarray:
    """Board millimetres -> image pixels."""
    pts = np.asarray(points_mm, dtype=np.float64).reshape(-1, 1, 2)
    return cv2.perspectiveTransform(pts, pose).reshape(-1, 2)


def cell_pitch_px(pose: np.ndarray, geometry: BoardGeometry) -> float:
    """The shortest distance between neighbouring cell centres in the frame (px)."""
    centres = project(pose, geometry.centres.reshape(-1, 2)).reshape(5, 5, 2)
    across = np.linalg.norm(np.diff(centres, axis=1), axis=2).min()
    down = np.linalg.norm(np.diff(centres, axis=0), axis=2).min()
    return float(min(across, down))


def pose_from_corners(corners_px: np.ndarray, corners_mm: np.ndarray) -> np.ndarray:
    return cv2.getPerspectiveTransform(corners_mm.astype(np.float32),
                                       np.asarray(corners_px, dtype=np.float32)).astype(np.float64)


def scale_mm(px_per_mm: float, origin_mm: tuple[float, float] = (0.0, 0.0)) -> np.ndarray:
    """The homography from board millimetres to a rectified image at px_per_mm."""
    s = px_per_mm
    ox, oy = origin_mm
    return np.array([[s, 0, -ox * s], [0, s, -oy * s], [0, 0, 1]], dtype=np.float64)


def rectify(frame: np.ndarray, pose: np.ndarray, px_per_mm: float, size_mm: tuple[float, float],
            origin_mm: tuple[float, float] = (0.0, 0.0), *, supersample: int = 2,
            interpolation: int = cv2.INTER_LINEAR) -> np.ndarray:
    """The board region [origin, origin + size] mm seen from above at px_per_mm.

    Warps at ``supersample`` times the resolution and averages down, to limit aliasing.
    """
    s = px_per_mm * supersample
    out_w = int(round(size_mm[0] * s))
    out_h = int(round(size_mm[1] * s))
    to_rect = scale_mm(s, origin_mm) @ np.linalg.inv(pose)
    warped = cv2.warpPerspective(frame, to_rect, (out_w, out_h), flags=interpolation,
                                 borderMode=cv2.BORDER_REPLICATE)
    if supersample > 1:
        warped = cv2.resize(warped, (out_w // supersample, out_h // supersample),
                            interpolation=cv2.INTER_AREA)
    return warped


def cut_cells(frame: np.ndarray, pose: np.ndarray, geometry: BoardGeometry, *, crop_px: int,
              crop_mm: float, supersample: int = 2,
              interpolation: int = cv2.INTER_LINEAR) -> np.ndarray:
    """The 25 cells as (25, crop_px, crop_px, 3) crops, row-major from the title side (training
    varies the sampling; the reader uses the defaults)."""
    ppm = crop_px / crop_mm
    centres = geometry.centres.reshape(-1, 2)
    lo = centres.min(axis=0) - crop_mm / 2
    hi = centres.max(axis=0) + crop_mm / 2
    board = rectify(frame, pose, ppm, (hi[0] - lo[0], hi[1] - lo[1]), (lo[0], lo[1]),
                    supersample=supersample, interpolation=interpolation)
    return _slice_cells(board, geometry, lo, ppm, crop_px, crop_mm)


def _slice_cells(board: np.ndarray, geometry: BoardGeometry, lo: np.ndarray, ppm: float,
                 crop_px: int, crop_mm: float) -> np.ndarray:
    """The 25 crops out of the rectified grid region whose top-left is lo (mm)."""
    centres = geometry.centres.reshape(-1, 2)
    crops = np.empty((len(centres), crop_px, crop_px, 3), dtype=board.dtype)
    for i, (cx, cy) in enumerate(centres):
        x0 = int(round((cx - lo[0] - crop_mm / 2) * ppm))
        y0 = int(round((cy - lo[1] - crop_mm / 2) * ppm))
        patch = board[y0:y0 + crop_px, x0:x0 + crop_px]
        if patch.shape[:2] != (crop_px, crop_px):
            patch = cv2.resize(patch, (crop_px, crop_px))
        crops[i] = patch
    return crops


class CellCutter:
    """Cuts the 25 cells like :func:`cut_cells`, remembering the sampling maps of a pose that
    stays put (a fixed rig): the same board pose seen again, to within ``tolerance_px`` at
    every grid corner, is cut with the maps already built, about 1.5x faster than warping."""

    def __init__(self, geometry: BoardGeometry, *, crop_px: int, crop_mm: float,
                 supersample: int = 2, tolerance_px: float = 0.25) -> None:
        self.geometry = geometry
        self.crop_px = crop_px
        self.crop_mm = crop_mm
        self.supersample = supersample
        self.tolerance_px = tolerance_px
        self.ppm = crop_px / crop_mm
        centres = geometry.centres.reshape(-1, 2)
        self.lo = centres.min(axis=0) - crop_mm / 2
        self.hi = centres.max(axis=0) + crop_mm / 2
        self._span = np.array([self.lo, [self.hi[0], self.lo[1]], self.hi,
                               [self.lo[0], self.hi[1]]])
        self._last: np.ndarray | None = None  # grid corners (px) of the last pose cut
        self._maps: tuple[np.ndarray, np.ndarray, np.ndarray] | None = None  # corners, maps

    def __call__(self, frame: np.ndarray, pose: np.ndarray) -> np.ndarray:
        corners = project(pose, self._span)
        if self._maps is not None and self._near(self._maps[0], corners):
            board = self._remap(frame, self._maps[1], self._maps[2])
        elif self._last is not None and self._near(self._last, corners):
            map1, map2 = self._build_maps(pose)
            self._maps = (corners, map1, map2)
            board = self._remap(frame, map1, map2)
        else:
            self._last = corners
            return cut_cells(frame, pose, self.geometry, crop_px=self.crop_px,
                             crop_mm=self.crop_mm)
        self._last = corners
        return self._crops(board)

    def _near(self, a: np.ndarray, b: np.ndarray) -> bool:
        return bool(np.abs(a - b).max() <= self.tolerance_px)

    def _build_maps(self, pose: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        s = self.ppm * self.supersample
        w = int(round((self.hi[0] - self.lo[0]) * s))
        h = int(round((self.hi[1] - self.lo[1]) * s))
        to_image = pose @ np.linalg.inv(scale_mm(s, (self.lo[0], self.lo[1])))
        ys, xs = np.mgrid[0:h, 0:w].astype(np.float64)
        q = to_image @ np.stack([xs.ravel(), ys.ravel(), np.ones(xs.size)])
        mx = (q[0] / q[2]).reshape(h, w).astype(np.float32)
        my = (q[1] / q[2]).reshape(h, w).astype(np.float32)
        return cv2.convertMaps(mx, my, cv2.CV_16SC2)

    def _remap(self, frame: np.ndarray, map1: np.ndarray, map2: np.ndarray) -> np.ndarray:
        warped = cv2.remap(frame, map1, map2, cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
        h, w = warped.shape[:2]
        return cv2.resize(warped, (w // self.supersample, h // self.supersample),
                          interpolation=cv2.INTER_AREA)

    def _crops(self, board: np.ndarray) -> np.ndarray:
        return _slice_cells(board, self.geometry, self.lo, self.ppm, self.crop_px, self.crop_mm)


@lru_cache(maxsize=64)
def disc_mask(size: int, radius: float) -> np.ndarray:
    """Pixels of a size x size square within radius of its centre (the same few, every cell)."""
    r = np.arange(size) - (size - 1) / 2
    mask = (r[None, :] ** 2 + r[:, None] ** 2) <= radius ** 2
    mask.setflags(write=False)
    return mask
