"""A closer look at a cell whose number the network cannot read: the art compared, up close.

The network tells a token's family apart well (a black cat, a sambal coin, a tofu ingredient)
but its 56-pixel crops (1.4 px/mm) leave a cat's value or a token's price badge a few pixels
high. When it is sure of the family and not of the member, the cell is cut again at 3 px/mm
and compared with the art of every member of the family: the token is aligned on the art
(rotation, position and size), then each member is scored only where the members' art differs
(the number, a basket's colour), so nothing they share can drown the difference, at its own
best fit a pixel or two, a degree or two from there. A cat lying face down shows its face with
a paw for the number: it is scored against the best face apart. Coin families, whose art
shares one layout, can be scored together. Pure functions of the frame; which labels form a
family comes from the component list (data), which kinds share a layout from the art.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from functools import lru_cache
from itertools import combinations
from pathlib import Path

import cv2
import numpy as np

from companion.rules.components import Components, food_alley
from companion.vision.assets import Label, load_art
from companion.vision.geometry import EDGE_WIDTH_PER_SIGMA, BoardGeometry, disc_mask, rectify

SHARPEST_EDGE_MM = 0.8  # the art is blurred at least as a sharp frame's printed edges look
SHARED_LAYOUT = 0.75  # families whose art correlates this well share a layout (see shared_layouts)
COARSE_STEP = 6.0  # degrees between the coarse search's turns of the art
ALIGN_ON = 3  # the token is aligned on the art of the best fitting of this many likeliest members
REFINE_PX = 2  # how far (px at 3 px/mm) the refinement moves the token's alignment,
REFINE_DEG = 2.0  # turns it (degrees, in steps of 1)
FACE_WITHIN = 0.92  # a token's face, short of its printed rim (a share of its radius)


@dataclass(frozen=True)
class CloserLook:
    """What one closer look found: the family's members (label indices) and their scores
    (correlation with each member's art where the members differ), and how well the token
    matched the art overall (0..1)."""

    members: tuple[int, ...]
    scores: np.ndarray
    match: float
    near: float = 0.0  # the same, around where the members differ
    angle: float = 0.0  # how the token lies: the art turned by angle (degrees)
    at: tuple[int, int] = (0, 0)  # with its top-left corner here in the crop (px)
    scale: float = 1.0  # and this much larger than the component list's size


def families(labels: list[Label], components: Components | None = None
             ) -> dict[str, tuple[int, ...]]:
    """Label indices grouped by what only a printed number or colour tells apart: a player's
    face-up cats; the ingredient (or coin) sides of one ingredient's tokens. (A cat's back
    shows a paw where its face shows the number: scored together, the paw's difference would
    drown the digits' one; :func:`face_down` pairs it with the family, scored apart.) Each
    family in order of price, or of a cat's value."""
    c = components or food_alley()
    tokens = {t.id: t for t in c.tokens}
    out: dict[str, list[tuple[int, int]]] = {}
    for k, lab in enumerate(labels):
        if lab.kind in ("ingredient", "coin") and lab.token in tokens:
            token = tokens[lab.token]
            out.setdefault(f"{lab.kind}:{token.ingredient}", []).append((token.price, k))
        elif lab.kind == "cat":
            out.setdefault(f"cat:{lab.player}", []).append((lab.value or 0, k))
    return {key: tuple(k for _, k in sorted(ks)) for key, ks in out.items() if len(ks) > 1}


def shared_layouts(labels: list[Label], groups: dict[str, tuple[int, ...]],
                   art: Path | None = None) -> set[str]:
    """The kinds whose families' art shares one layout, so that a token aligned on one
    family's art is aligned for the others: the coin sides (a rim, the value, two marks), not
    the ingredient sides (each ingredient its own picture) nor cats (each player its colour).
    Measured on the art of the families' first (cheapest, lowest) faces: their correlation
    inside the face, at least SHARED_LAYOUT on average."""
    size = 45
    firsts: dict[str, list[np.ndarray]] = {}
    for members in groups.values():
        first = labels[members[0]]
        face = _art(first.art(art) or "", size, 0.0, 0.0)[_disc(size)]
        firsts.setdefault(first.kind, []).append(_standard(face))
    return {kind for kind, faces in firsts.items() if len(faces) > 1 and np.mean(
        [np.mean(a * b) for a, b in combinations(faces, 2)]) >= SHARED_LAYOUT}


def face_down(labels: list[Label]) -> dict[str, int]:
    """For each family of face-up cats, the label of the same player's cat face down: the same
    face, a paw print where the number is."""
    backs = {lab.player: k for k, lab in enumerate(labels) if lab.kind == "cat-back"}
    return {f"cat:{player}": k for player, k in backs.items()}


class ArtCheck:
    """Aligns a cell's token on the art and scores the members of its family."""

    def __init__(self, geometry: BoardGeometry, labels: list[Label], *,
                 px_per_mm: float = 3.0, crop_mm: float = 40.0, art: Path | None = None,
                 within: float = FACE_WITHIN) -> None:
        """``art``: an enrolled edition's art folder (the bundled art when None);
        ``within``: how far out from the face's centre, as a share of its radius, members are
        compared where they differ (see :func:`_where_differ`)."""
        self.geometry = geometry
        self.labels = labels
        self.art = art
        self.ppm = px_per_mm
        self.crop_mm = crop_mm
        self.token_mm = geometry.token
        self.within = within

    def cut(self, frame: np.ndarray, pose: np.ndarray, cell: int) -> np.ndarray:
        """One cell, cut from the frame at the closer look's resolution (float32 BGR)."""
        cx, cy = self.geometry.centres.reshape(-1, 2)[cell]
        half = self.crop_mm / 2
        crop = rectify(frame, pose, self.ppm, (self.crop_mm, self.crop_mm), (cx - half, cy - half))
        return crop.astype(np.float32)

    def look(self, crop: np.ndarray, members: tuple[int, ...], blur_mm: float) -> CloserLook:
        """Score each member (in order of the network's likelihood) against a crop from
        :meth:`cut`; the art is blurred as the frame's edges are. The token is aligned on the
        art of whichever of the first ALIGN_ON members fits it best: a coin's value is its
        largest shape, and aligned on another value's art (a network torn between a 5 and a
        3) it is turned wrong."""
        sigma_mm = _sigma_mm(blur_mm)
        candidates = [self.labels[k].art(self.art) or "" for k in members[:ALIGN_ON]]
        # every 6 degrees at 1 px/mm over the whole crop; then near there, finer, and at sizes
        # a few percent off (a token printed or seen a little larger or smaller than the list
        # says would put the number a pixel or two off the art's)
        angle, scale, x, y = 0.0, 1.0, 0.0, 0.0
        best = -2.0
        first = candidates[0]
        for ppm, angles, scales, reach in (
                (1.0, np.arange(0.0, 360.0, COARSE_STEP), (0.0,), None),
                (2.0, np.arange(-4.0, 4.5, 2.0), (-0.06, -0.03, 0.0, 0.03, 0.06), 2),
                (self.ppm, np.arange(-1.0, 1.5, 1.0), (-0.015, 0.0, 0.015), 2)):
            image = _scaled(crop, ppm / self.ppm)
            size = self._size(ppm)
            turns = [(float(angle + a), round(scale + ds, 3)) for ds in scales for a in angles]
            arts = candidates if reach is None else [first]
            if reach is None:  # the same few faces every frame: remembered, standardised
                templates = np.concatenate([_coarse_face(art, size, round(sigma_mm * ppm, 1))
                                            for art in arts])
                window = (0, 0, image.shape[1] - size + 1, image.shape[0] - size + 1)
            else:  # near the last stage's position, scaled to this stage's pixels
                templates = _standardised(np.stack([_art(art, size, a, sigma_mm * ppm, scale=z)
                                                    for art in arts for a, z in turns]),
                                          _disc(size))
                cx = int(round(x * ppm)) - reach
                cy = int(round(y * ppm)) - reach
                window = (cx, cy, 2 * reach + 1, 2 * reach + 1)
            best, k, px, py = _best_match(image, templates, _disc(size), window)
            first = arts[k // len(turns)]
            angle, scale = turns[k % len(turns)]
            x, y = px / ppm, py / ppm
        aligned = CloserLook(members, np.zeros(len(members)), float(best), 0.0, angle,
                             (int(round(x * self.ppm)), int(round(y * self.ppm))), scale)
        return self.settle(crop, aligned, members, blur_mm)

    def settle(self, crop: np.ndarray, aligned: CloserLook, members: tuple[int, ...],
               blur_mm: float) -> CloserLook:
        """Score members near an alignment: each where it fits best where the members
        differ, a pixel or two, a degree or two, a few percent in size (or at the listed
        size) away. The whole face fits best where its large shapes lie (a basket, a glare),
        which can leave the number a pixel off and a 4 read as a 1; each member at its own
        best, a simpler digit that fits better a little off (a 1 inside a 3) does not win on
        the others' worse fit there. The rest of the look (how well the art matches around)
        is taken where the best member fits."""
        pick, fits = self.refine(crop, aligned, members, blur_mm)
        look = self.compare(crop, pick, members, blur_mm)
        return look if fits is None else replace(look, scores=fits)

    def refine(self, crop: np.ndarray, aligned: CloserLook, members: tuple[int, ...],
               blur_mm: float) -> tuple[CloserLook, np.ndarray | None]:
        """Near an alignment, where some member fits best where the members differ, and
        each member's best fit there (None if the members hardly differ)."""
        sigma_px = _sigma_mm(blur_mm) * self.ppm
        size = self._size(self.ppm)
        region = _where_differ(self._aligned_art(aligned, members, sigma_px), self.within)
        if region.sum() < 10:
            return aligned, None
        ix, iy = aligned.at
        reach = range(-REFINE_PX, REFINE_PX + 1)
        shifts = [(dx, dy) for dy in reach for dx in reach
                  if 0 <= ix + dx <= crop.shape[1] - size and 0 <= iy + dy <= crop.shape[0] - size]
        if not shifts:
            return aligned, None
        ys, xs = np.nonzero(region)
        moves = np.array(shifts)
        seen = crop[iy + moves[:, 1:] + ys, ix + moves[:, :1] + xs]  # (shifts, pixels, 3)
        seen = _standard_rows(np.ascontiguousarray(seen.transpose(0, 2, 1)))
        seen = seen.reshape(len(shifts), -1)
        points = np.stack([xs, ys, np.ones(len(xs))]).astype(np.float64)
        centre = ((size - 1) / 2, (size - 1) / 2)
        scales = {aligned.scale, 1.0} | {round(aligned.scale + d, 3) for d in (-0.02, 0.02)}
        angles = aligned.angle + np.arange(-REFINE_DEG, REFINE_DEG + 0.5, 1.0)
        turns = [(float(a), z) for a in angles for z in sorted(scales)]
        # where each pixel of the region comes from in the art, turned and scaled as _art does
        maps = np.stack([cv2.invertAffineTransform(cv2.getRotationMatrix2D(centre, a, z))
                         @ points for a, z in turns]).astype(np.float32)  # (turns, 2, pixels)
        bases = [_art_base(self.labels[k].art(self.art) or "", size, round(sigma_px, 1))
                 for k in members]
        arts = np.stack([cv2.remap(b, maps[:, 0], maps[:, 1], cv2.INTER_LINEAR,
                                   borderMode=cv2.BORDER_REPLICATE)
                         for b in bases])  # (members, turns, pixels, 3)
        arts = _standard_rows(np.ascontiguousarray(arts.transpose(1, 0, 3, 2)))
        # (turns, members, 3, pixels)
        fits = seen @ arts.reshape(len(turns) * len(members), -1).T / seen.shape[1]
        fits = fits.reshape(len(shifts), len(turns), len(members))
        s, t, _ = np.unravel_index(int(np.argmax(fits)), fits.shape)
        dx, dy = shifts[s]
        pick = replace(aligned, angle=turns[t][0], scale=turns[t][1], at=(ix + dx, iy + dy))
        member_best = fits.max(axis=(0, 1))
        return pick, member_best

    def _aligned_art(self, aligned: CloserLook, members: tuple[int, ...], sigma_px: float
                     ) -> np.ndarray:
        """The members' art as aligned (members, size, size, 3)."""
        size = self._size(self.ppm)
        return np.stack([_art(self.labels[k].art(self.art) or "", size, aligned.angle, sigma_px,
                              scale=aligned.scale) for k in members])

    def agreement(self, crop: np.ndarray, aligned: CloserLook, label: int, blur_mm: float
                  ) -> float:
        """How well one face's art agrees with the token where a look aligned it: the
        correlation inside the disc, channel by channel, averaged, once the light across the
        face is taken off (:func:`_unlit`): a colour cast, a dimmer light, the edge of a
        shadow or the lamp's fall-off across the token changes little."""
        size = self._size(self.ppm)
        ix, iy = aligned.at
        patch = crop[iy:iy + size, ix:ix + size]
        if patch.shape[:2] != (size, size):
            return aligned.match
        art = self._aligned_art(aligned, (label,), _sigma_mm(blur_mm) * self.ppm)[0]
        disc = _disc(size)
        seen = _unlit(patch[disc].astype(np.float32), art[disc], _face_xy(size))
        return float(np.mean(_standard(seen) * _standard(art[disc])))

    def compare(self, crop: np.ndarray, aligned: CloserLook, members: tuple[int, ...],
                blur_mm: float) -> CloserLook:
        """Score members against the crop where a look has aligned the token, only where
        their art differs."""
        sigma_px = _sigma_mm(blur_mm) * self.ppm
        size = self._size(self.ppm)
        ix, iy = aligned.at
        patch = crop[iy:iy + size, ix:ix + size]
        arts = self._aligned_art(aligned, members, sigma_px)
        region = _where_differ(arts, self.within)
        unscored = replace(aligned, members=members, scores=np.zeros(len(members)), near=0.0)
        if patch.shape[:2] != (size, size) or region.sum() < 10:
            return unscored
        seen = _standard(patch[region])
        scores = np.array([float(np.mean(seen * _standard(a[region]))) for a in arts])
        # how well the art matches around where the members differ, for the best member: a
        # hand or a card over that part of the token leaves the scores meaningless
        around = cv2.dilate(region.astype(np.uint8), _ring(int(round(4 * self.ppm))))
        around = around.astype(bool) & _disc(size)
        near = float(np.mean(_standard(patch[around])
                             * _standard(arts[int(np.argmax(scores))][around])))
        return replace(unscored, scores=scores, near=near)

    def _size(self, ppm: float) -> int:
        """The side (px, odd) of a token's art at ppm px/mm."""
        return int(round(self.token_mm * ppm)) | 1


def _sigma_mm(blur_mm: float) -> float:
    """The Gaussian blur (mm) that gives the art edges as wide as the frame's."""
    return max(blur_mm, SHARPEST_EDGE_MM) / EDGE_WIDTH_PER_SIGMA


def _where_differ(arts: np.ndarray, within: float) -> np.ndarray:
    """Where aligned art (members, size, size, 3) differs between members, a pixel wider,
    within ``within`` of the face's radius from its centre."""
    differ = (arts.max(axis=0) - arts.min(axis=0)).max(axis=2) > 20
    region = cv2.dilate(differ.astype(np.uint8), np.ones((3, 3), np.uint8)).astype(bool)
    return region & _disc(arts.shape[1], within)


def _standard(values: np.ndarray) -> np.ndarray:
    """Values (N, 3) scaled to mean 0 and spread 1 per colour channel (a colour cast or a
    dimmer light changes nothing)."""
    v = values - values.mean(axis=0)
    return v / (v.std(axis=0) + 1e-3)


def _unlit(seen: np.ndarray, art: np.ndarray, xy: np.ndarray) -> np.ndarray:
    """A face's pixels (N, 3) as the art (N, 3) would show them under even light: per colour
    channel, seen = art * (a + b x + c y) + d is fitted (a light that changes linearly across
    the face, as the edge of a shadow or a lamp's fall-off does over 30 mm, and a glare's
    haze), and its gain divided out. ``xy``: the pixels' places (N, 2), in the face's widths
    from its centre. On boards not looked at before, the edition check's median match rose
    from at least 0.93 to at least 0.95 on 40 of the bundled art, and fell from at most 0.70
    to at most 0.68 on 48 of ten other editions (docs/vision.md)."""
    ones = np.ones(len(seen), np.float32)
    unlit = np.empty_like(seen)
    for c in range(seen.shape[1]):
        a = art[:, c]
        terms = np.stack([a, a * xy[:, 0], a * xy[:, 1], ones], axis=1)
        (gain, gain_x, gain_y, haze), *_ = np.linalg.lstsq(terms, seen[:, c], rcond=None)
        light = gain + gain_x * xy[:, 0] + gain_y * xy[:, 1]
        # where a poor fit's light goes dark or negative, it is held at a tenth of its gain,
        # so that nothing is blown up past what it shows
        floor = 0.1 * abs(gain) + 1e-3
        unlit[:, c] = (seen[:, c] - haze) / np.maximum(light, floor)
    return unlit


@lru_cache(maxsize=8)
def _face_xy(size: int) -> np.ndarray:
    """The places (N, 2: x, y) of :func:`_disc`'s pixels in a square of side size, in its
    widths from the centre, in the disc's order."""
    ys, xs = np.nonzero(_disc(size))
    return np.stack([xs, ys], axis=-1).astype(np.float32) / size - (size - 1) / (2 * size)


def _standard_rows(values: np.ndarray) -> np.ndarray:
    """:func:`_standard` along the last axis of a stack (..., 3, N) (faster there)."""
    v = values - values.mean(axis=-1, keepdims=True)
    spread = np.sqrt(np.einsum("...i,...i->...", v, v) / v.shape[-1])
    return v / (spread[..., None] + 1e-3)


def _scaled(crop: np.ndarray, factor: float) -> np.ndarray:
    if abs(factor - 1) < 1e-6:
        return crop
    size = int(round(crop.shape[0] * factor))
    return cv2.resize(crop, (size, size), interpolation=cv2.INTER_AREA)


def _ring(radius: int) -> np.ndarray:
    return cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (2 * radius + 1, 2 * radius + 1))


def _disc(size: int, within: float = FACE_WITHIN) -> np.ndarray:
    """The token's face inside a square of side size, out to ``within`` of its radius (by
    default short of its printed rim)."""
    return disc_mask(size, within * size / 2)


@lru_cache(maxsize=256)
def _art_base(name: str, size: int, sigma_px: float) -> np.ndarray:
    art = load_art(name)
    small = cv2.resize(art[:, :, :3], (size, size), interpolation=cv2.INTER_AREA) * 255
    if sigma_px > 0.3:
        small = cv2.GaussianBlur(small, (0, 0), sigma_px)
    return small.astype(np.float32)


@lru_cache(maxsize=48)
def _coarse_face(name: str, size: int, sigma_px: float) -> np.ndarray:
    """The coarse search's templates of one face, every COARSE_STEP degrees, standardised
    inside the disc (turns, pixels): remembered, the same few faces come back every frame."""
    return _standardised(np.stack([_art(name, size, float(a), sigma_px)
                                   for a in np.arange(0.0, 360.0, COARSE_STEP)]), _disc(size))


def _art(name: str, size: int, angle: float, sigma_px: float, *, scale: float = 1.0
         ) -> np.ndarray:
    """A face's art in a square of side size px, turned by angle (degrees), scaled about its
    centre, blurred by sigma_px."""
    return _turn(_art_base(name, size, round(sigma_px, 1)), angle, scale)


def _turn(base: np.ndarray, angle: float, scale: float = 1.0) -> np.ndarray:
    size = base.shape[0]
    m = cv2.getRotationMatrix2D(((size - 1) / 2, (size - 1) / 2), angle, scale)
    return cv2.warpAffine(base, m, (size, size), flags=cv2.INTER_LINEAR,
                          borderMode=cv2.BORDER_REPLICATE)


def _standardised(templates: np.ndarray, mask: np.ndarray) -> np.ndarray:
    """Templates (n, size, size, 3) inside the mask, as rows (see :func:`_unit_rows`)."""
    return _unit_rows(templates[:, mask].reshape(len(templates), -1))


def _unit_rows(rows: np.ndarray) -> np.ndarray:
    """Each row centred and of unit length: a dot product of two is their correlation."""
    rows = rows - rows.mean(axis=1, keepdims=True)
    rows /= np.linalg.norm(rows, axis=1, keepdims=True) + 1e-6
    return rows


def _best_match(image: np.ndarray, templates: np.ndarray, mask: np.ndarray,
                window: tuple[int, int, int, int]) -> tuple[float, int, int, int]:
    """The best normalised correlation of any template (rows from :func:`_standardised`) with
    the image inside the mask (size x size), over the top-left positions in window (x, y, w,
    h): (score, template, x, y)."""
    x0, y0, w, h = window
    size = mask.shape[0]
    x0, y0 = max(x0, 0), max(y0, 0)
    w = min(w, image.shape[1] - size + 1 - x0)
    h = min(h, image.shape[0] - size + 1 - y0)
    if w <= 0 or h <= 0:
        return -1.0, 0, x0, y0
    region = image[y0:y0 + h + size - 1, x0:x0 + w + size - 1]
    views = np.lib.stride_tricks.sliding_window_view(region, (size, size), axis=(0, 1))
    patches = _unit_rows(views.transpose(0, 1, 3, 4, 2)[:, :, mask].reshape(h * w, -1))
    scores = templates @ patches.T  # (templates, positions)
    k, p = np.unravel_index(int(np.argmax(scores)), scores.shape)
    return float(scores[k, p]), int(k), x0 + int(p % w), y0 + int(p // w)
