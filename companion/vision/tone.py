"""The board as its own colour chart: undo the light, the camera's white balance and tone curve.

The printed board has two large plain areas whose colours are known from the art: the dark frame
round its edge and the light ground between the frame and the grid. Once the board is found, they
tell how this camera in this light renders a known dark and a known light. The camera is modelled
as ``seen = (gain_c(x, y) * printed) ** gamma``: one tone curve, and per channel c a gain (the
light's colour, white balance, exposure) that may fall off across the board (a lamp to one side:
one log-linear slope for all channels, fitted to the light ground all round the grid). A lookup
table per cell maps each seen level back to the printed one at that cell.

A shadow (a lamp's, a player's) is no slope: it is a patch of grey light with an edge. The mapping
``board+shade`` (SHADE) also measures the light next to each cell, on the ground printed between
the sockets and round the grid: a grey shade is a change of light, a change of colour (a hand, a
token off its cell, a glare) is not, and is left out. Its tone curve comes from the frame and the
ground side by side, where both lie in one light. ``board`` is the plain mapping, kept for models
trained on it.

A model trained with ``companion train --tone`` (or enrolled) learns on cells mapped the same
way, so it sees every board in one even light; the reader maps the cells only for such a model.

Nothing about the cells is used: a token on its cell never reaches these areas, so they are
covered only by a hand, a glare or a token well off its cell, and robust fits (medians, outliers
dropped, the shade's test of grey) shrug that off.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from functools import lru_cache
from pathlib import Path
from typing import NamedTuple

import cv2
import numpy as np

from companion.vision.assets import ART_PX_PER_MM, art_name, load_art
from companion.vision.geometry import BoardGeometry, project

POINTS = 512  # samples of each reference area
MARGIN_MM = 2.0  # kept from the edges of each area (blur, a slightly wrong pose)
GAMMA_RANGE = (0.5, 2.0)  # a tone curve outside this is taken as a bad measurement
GAIN_RANGE = (0.25, 4.0)
MAX_FALL_OFF = 4.0  # the light may fall off at most this much across the board's width
MIN_SEEN = 0.25  # least share of each area's samples that must fall inside the frame
PLAIN, SHADE = "board", "board+shade"  # the mappings a model may be trained on (cells.json)
GROUND_POINTS = 1536  # samples of the ground round and between the sockets
SOCKET_CLEAR_MM = 3.0  # the ground samples keep this far outside a token on its cell
PAIR_MM = 16.0  # a frame sample and the ground within this distance lie in one light
SHADE_MM = 30.0  # the light at a point: the shade of the ground within this distance
SHADE_LEAST = 8  # fewer ground samples than this near a point: no shade there
GREY_SHADE = 0.12  # log units: a sample whose colour moved more than this is not the ground
SHADE_RANGE = (np.log(0.2), np.log(3.0))  # a shade outside this is no light of a table


@dataclass(frozen=True)
class ToneReference:
    """Where on the board the dark and light references lie (mm) and their printed colours."""

    dark_mm: np.ndarray  # (POINTS, 2)
    light_mm: np.ndarray
    board: float  # mm
    dark: np.ndarray  # (3,) BGR 0..1, as printed (the art)
    light: np.ndarray
    ground_mm: np.ndarray  # (GROUND_POINTS, 2): the light ground round and between the sockets
    pairs: np.ndarray  # (POINTS, K): for each dark sample, the light ones within PAIR_MM (-1: no)


@dataclass(frozen=True)
class Tone:
    """How the camera rendered the board in one frame."""

    gamma: float
    gains: np.ndarray  # (3,) BGR, at the board's centre
    slope: np.ndarray  # (2,) d log(gain) / d mm in x and y: the light's fall-off across the board
    centre: np.ndarray  # (2,) mm
    shade_mm: np.ndarray | None = None  # (K, 2): ground samples seen in grey light (SHADE)
    shade: np.ndarray | None = None  # (K,): their log light against ``gains``

    def gains_at(self, points_mm: np.ndarray) -> np.ndarray:
        """(N, 3) gains at board points (mm): with a shade measured near a point, its median
        there (a step or a slope alike); else the slope's."""
        points = np.asarray(points_mm, np.float64)
        fall = (points - self.centre) @ self.slope
        if self.shade is not None and len(self.shade):
            near = np.linalg.norm(points[:, None] - self.shade_mm[None], axis=2) <= SHADE_MM
            for i in np.nonzero(near.sum(axis=1) >= SHADE_LEAST)[0]:
                fall[i] = np.median(self.shade[near[i]])
        return np.exp(fall)[:, None] * self.gains[None, :]

    def luts(self, points_mm: np.ndarray) -> np.ndarray:
        """(N, 1, 256, 3) uint8 tables from seen levels to printed ones, at each point."""
        levels = np.power(np.arange(256, dtype=np.float64) / 255.0, 1.0 / self.gamma)
        printed = levels[None, :, None] / self.gains_at(points_mm)[:, None, :]
        return np.clip(np.round(printed * 255.0), 0, 255).astype(np.uint8)[:, None]


def tone_reference(geometry: BoardGeometry | None = None, art: Path | None = None
                   ) -> ToneReference:
    """The reference areas, found in the board art: the dark frame, the light ground outside
    the grid's border away from any printing (title, boxes), and that ground wherever no token
    on its cell reaches (round and between the sockets), each shrunk by MARGIN_MM."""
    g = geometry or BoardGeometry.from_components()
    return _reference(g.board, g.frame, g.grid_outer, g.token,
                      tuple(map(tuple, g.centres.reshape(-1, 2))), art_name("board.png", art))


def board_tone_reference(board: np.ndarray, geometry: BoardGeometry) -> ToneReference:
    """:func:`tone_reference` of a board's art held in memory (BGR uint8 at ART_PX_PER_MM),
    such as one being cut from photos."""
    g = geometry
    return _reference_in(board[:, :, :3].astype(np.float32) / 255.0, g.board, g.frame,
                         g.grid_outer, g.token, tuple(map(tuple, g.centres.reshape(-1, 2))))


@lru_cache(maxsize=4)
def _reference(board: float, frame: float, grid_outer: tuple[float, float], token: float,
               centres: tuple[tuple[float, float], ...], art_file: str) -> ToneReference:
    return _reference_in(load_art(art_file)[:, :, :3], board, frame, grid_outer, token, centres)


def _reference_in(art: np.ndarray, board: float, frame: float, grid_outer: tuple[float, float],
                  token: float, centres: tuple[tuple[float, float], ...]) -> ToneReference:
    grey = art.mean(axis=2)
    ink = grey < 0.5 * (np.percentile(grey, 5) + np.percentile(grey, 60))
    margin = int(round(MARGIN_MM * ART_PX_PER_MM)) * 2 + 1
    kernel = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (margin, margin))
    size = art.shape[0]
    ys, xs = np.mgrid[0:size, 0:size] / ART_PX_PER_MM
    frame_band = np.minimum.reduce([xs, ys, board - xs, board - ys]) < frame
    dark = _shrink(frame_band & ink, kernel)
    lo, hi = grid_outer
    outside_grid = (xs < lo) | (ys < lo) | (xs > hi) | (ys > hi)
    plain = np.abs(art - _mode_colour(art, ~ink & outside_grid)).max(axis=2) < 0.06
    light = _shrink(~frame_band & outside_grid & plain, kernel)
    clear = np.full(art.shape[:2], True)
    for x, y in centres:  # no token on its cell reaches there
        clear &= np.hypot(xs - x, ys - y) > token / 2 + SOCKET_CLEAR_MM
    ground = _shrink(~frame_band & plain & clear, kernel)
    dark_mm, light_mm = _spread(dark), _spread(light)
    return ToneReference(dark_mm, light_mm, board, np.median(art[dark], axis=0),
                         np.median(art[light], axis=0), _spread(ground, GROUND_POINTS),
                         _pairs(dark_mm, light_mm))


def _pairs(dark_mm: np.ndarray, light_mm: np.ndarray) -> np.ndarray:
    """For each dark sample, the indices of the light samples within PAIR_MM, padded with -1."""
    near = np.linalg.norm(dark_mm[:, None] - light_mm[None], axis=2) <= PAIR_MM
    pairs = np.full((len(dark_mm), max(1, int(near.sum(axis=1).max()))), -1, np.int64)
    for i, row in enumerate(near):
        found = np.nonzero(row)[0]
        pairs[i, :len(found)] = found
    return pairs


def _shrink(mask: np.ndarray, kernel: np.ndarray) -> np.ndarray:
    """The mask eroded, the art's outer edge (the board's cut edge) counting as outside."""
    return cv2.erode(mask.astype(np.uint8), kernel, borderType=cv2.BORDER_CONSTANT,
                     borderValue=0) > 0


def _mode_colour(art: np.ndarray, mask: np.ndarray) -> np.ndarray:
    """The most common colour in the masked art (the board's ground)."""
    q = np.round(art[mask] * 32).astype(np.int32)
    keys, counts = np.unique(q[:, 0] * 4096 + q[:, 1] * 64 + q[:, 2], return_counts=True)
    k = int(keys[counts.argmax()])
    return np.array([k // 4096, (k // 64) % 64, k % 64], np.float64) / 32


def _spread(mask: np.ndarray, points: int = POINTS) -> np.ndarray:
    """``points`` evenly spread positions (mm) over a mask of the art: deterministic, no RNG."""
    ys, xs = np.nonzero(mask)
    pick = np.linspace(0, len(xs) - 1, points).round().astype(int)
    return (np.c_[xs[pick], ys[pick]] + 0.5) / ART_PX_PER_MM


def measure_tone(frame: np.ndarray, pose: np.ndarray, reference: ToneReference,
                 mapping: str = PLAIN) -> Tone | None:
    """The camera's tone curve, gains and the light's fall-off in this frame (and with SHADE,
    the shade next to each cell), or None when the references cannot be seen (mostly outside
    the frame) or give an implausible answer."""
    dark = _sample(frame, pose, reference.dark_mm)
    light = _sample(frame, pose, reference.light_mm)
    if dark is None or light is None:
        return None
    centre = np.full(2, reference.board / 2)
    # the fall-off: a plane through the log brightness of the light ground, outliers dropped
    # round the median of what is kept, not round the plane: where a shadow covers most of
    # the ground, the first plane lies between its two lights, near none of the samples
    at = light[0] - centre
    level = light[1].mean(axis=1)
    design = np.c_[np.ones(len(at)), at]
    ground = _ground_coloured(light.logs)
    keep = ground.copy()
    for _ in range(3):
        coef = np.linalg.lstsq(design[keep], level[keep], rcond=None)[0]
        res = level - design @ coef
        middle = np.median(res[keep])
        spread = 1.4826 * np.median(np.abs(res[keep] - middle))
        keep = ground & (np.abs(res - middle) <= 3 * spread + 0.02)
        if keep.sum() < 3 * MIN_SEEN * len(reference.light_mm) / 4:
            return None
    most = np.log(MAX_FALL_OFF) / reference.board
    seen_slope = np.clip(coef[1:], -most, most)
    flat_light = np.median(light[1][keep] - (at[keep] @ seen_slope)[:, None], axis=0)
    if mapping == SHADE:
        contrast = _side_by_side_contrast(dark, light, reference.pairs)
    else:
        flat_dark = np.median(dark[1] - ((dark[0] - centre) @ seen_slope)[:, None], axis=0)
        contrast = float(np.mean(flat_light - flat_dark))
    printed = float(np.mean(np.log(reference.light) - np.log(reference.dark)))
    if contrast <= 0 or printed <= 0:
        return None
    gamma = contrast / printed
    if not GAMMA_RANGE[0] <= gamma <= GAMMA_RANGE[1]:
        return None
    gains = np.exp(flat_light / gamma) / reference.light
    if np.any(gains < GAIN_RANGE[0]) or np.any(gains > GAIN_RANGE[1]):
        return None
    tone = Tone(gamma, gains, seen_slope / gamma, centre)
    if mapping == SHADE:
        return _with_shade(tone, frame, pose, reference)
    return tone


def _ground_coloured(logs: np.ndarray) -> np.ndarray:
    """Which samples (log colours, N x 3) have the colour most of them have: a shadow, a
    lamp's fall-off or the exposure changes the light, not its colour, and what changes the
    colour is not the ground (a hand or an arm across the band, which a brightness alone would
    not tell when it is about as light)."""
    return _of_colour(logs, np.median(_colour(logs), axis=0))


def _colour(logs: np.ndarray) -> np.ndarray:
    """Log colours (N x 3) less their light: each channel less the mean of the three."""
    return logs - logs.mean(axis=1, keepdims=True)


def _of_colour(logs: np.ndarray, colour: np.ndarray) -> np.ndarray:
    """Which log colours (N x 3) have ``colour`` (as :func:`_colour` gives it), to within
    GREY_SHADE in every channel, whatever their light."""
    return np.abs(_colour(logs) - colour).max(axis=1) <= GREY_SHADE


def _side_by_side_contrast(dark: Sampled, light: Sampled, pairs: np.ndarray) -> float:
    """The seen log contrast of ground and frame, where each frame sample seen is matched with
    the ground seen within PAIR_MM of it (``pairs``; one light, whatever shade lies elsewhere):
    the median over the frame, or NaN where no frame sample has 3 such."""
    ground = np.full((len(light.inside) + 1, 3), np.nan)  # the last row: no sample
    ground[:-1][light.inside] = light.logs
    near = ground[pairs[dark.inside]]  # (dark seen, K, 3); -1 picks the last row
    enough = np.isfinite(near[:, :, 0]).sum(axis=1) >= 3
    if not enough.any():
        return float("nan")
    seen = np.nanmedian(near[enough], axis=1) - dark.logs[enough]
    return float(np.median(seen.mean(axis=1)))


def _with_shade(tone: Tone, frame: np.ndarray, pose: np.ndarray, reference: ToneReference
                ) -> Tone:
    """The tone with the shade of each ground sample seen: its log light against the gains,
    alike in all channels (a colour that moved more than GREY_SHADE is not the ground)."""
    seen = _sample(frame, pose, reference.ground_mm)
    if seen is None:
        return tone
    points, logs, _ = seen
    off = logs / tone.gamma - np.log(tone.gains) - np.log(reference.light)
    shade = off.mean(axis=1)
    grey = _of_colour(off, np.zeros(3))  # moved alike in every channel
    grey &= (shade >= SHADE_RANGE[0]) & (shade <= SHADE_RANGE[1])
    return replace(tone, shade_mm=points[grey], shade=shade[grey])


def sample_colours(frame: np.ndarray, pose: np.ndarray, points_mm: np.ndarray
                   ) -> tuple[np.ndarray, np.ndarray]:
    """The board points (mm) that fall inside the frame, and the frame's colours there (BGR,
    0..255)."""
    inside, colours = _seen(frame, pose, points_mm)
    return points_mm[inside], colours


def _seen(frame: np.ndarray, pose: np.ndarray, points_mm: np.ndarray
          ) -> tuple[np.ndarray, np.ndarray]:
    """Which board points (mm) fall inside the frame, and the frame's colours at those."""
    px = np.round(project(pose, points_mm)).astype(np.int64)
    h, w = frame.shape[:2]
    inside = (px[:, 0] >= 0) & (px[:, 0] < w) & (px[:, 1] >= 0) & (px[:, 1] < h)
    return inside, frame[px[inside, 1], px[inside, 0]].astype(np.float64)


class Sampled(NamedTuple):
    """Reference samples seen in a frame: their points (mm), the log of their colours (0..1),
    and which of the reference's samples they are."""

    points: np.ndarray
    logs: np.ndarray
    inside: np.ndarray  # (N,) bool over the reference's samples


def _sample(frame: np.ndarray, pose: np.ndarray, points_mm: np.ndarray) -> Sampled | None:
    """The points (mm) that fall inside the frame and the log of their colours, or None if too
    few do."""
    inside, colours = _seen(frame, pose, points_mm)
    if inside.sum() < MIN_SEEN * len(points_mm):
        return None
    return Sampled(points_mm[inside], np.log(np.maximum(colours, 1.0) / 255.0), inside)


def apply_luts(crops: np.ndarray, luts: np.ndarray) -> np.ndarray:
    """Crops (N, h, w, 3) uint8, each through its own (1, 256, 3) table of luts (N, 1, 256, 3)."""
    out = np.empty_like(crops)
    for i in range(len(crops)):
        out[i] = cv2.LUT(crops[i], luts[i])
    return out
