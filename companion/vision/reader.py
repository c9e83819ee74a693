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
from companion.vision.artcheck import ArtCheck, face_down, families, shared_layouts
from companion.vision.assets import AssetError, cell_label, load_art
from companion.vision.classify import (
    CellModel,
    ModelError,
    capacities,
    decode,
    default_model_dir,
    load_model,
    reader_threads,
)
from companion.vision.geometry import (
    EDGE_WIDTH_PER_SIGMA,
    BoardGeometry,
    CellCutter,
    cell_pitch_px,
    disc_mask,
)
from companion.vision.locate import (
    BoardNotFoundError,
    BoardPose,
    LocateConfig,
    Locator,
    VisionError,
)
from companion.vision.tone import apply_luts, measure_tone, tone_reference

UNKNOWN = {"kind": "unknown", "token": None, "player": None, "value": None, "confidence": 0.0}


@dataclass(frozen=True)
class ReaderConfig:
    """Thresholds, from ``reader.yaml`` beside the model."""

    abstain_below: float = 0.7
    second_look_below: float = 0.9  # 1: every cell
    # a frame whose board edge looks blurrier than this (mm) is not read as it is: shaken (its
    # detail streaked, weaker along one direction by max_streak or more) it is not read at all;
    # evenly blurred (out of focus) it is sharpened towards sharp_edge_mm and read with care:
    # the closer look for every cell less sure than blurred_closer_look_below (1: all), at most
    # blurred_closer_look_cells of them, and a cell read only when blurred_abstain_below sure;
    # unless blurrier than max_defocus_mm
    max_edge_blur_mm: float = 2.0
    max_streak: float = 0.12
    max_defocus_mm: float = 3.5
    sharp_edge_mm: float = 1.4
    blurred_abstain_below: float = 0.99
    blurred_closer_look_below: float = 1.0
    blurred_closer_look_cells: float = 25
    unchanged_below: float = 8.0  # a cell whose crop changed less than this is not classified
    # a cell whose crop, mapped to the board's print colours (a model learnt with the mapping),
    # is washed out (every channel 250 or more) over more than this share of its token's
    # disc is left unknown: the light left nothing of its print there to read
    washed_out_above: float = 0.8
    # a cell the network finds at least this likely to be a hand, beside a cell it finds a
    # hand more likely than not, is left unknown: a token partly under the hand, read from
    # the part left uncovered, which the network never learnt (0 turns it off)
    beside_hand_above: float = 0.0
    # the closer look (artcheck.py): a cell less sure than closer_look_below (or than the
    # frame's abstain threshold, if higher) whose family (a player's cats, one ingredient's
    # tokens) is at least closer_look_family likely is compared with the family's art at
    # 3 px/mm; if no family is that likely alone, the likeliest and up to closer_look_rivals
    # more of its kind, each at least closer_look_rival likely, are scored together (a kind
    # whose art shares one layout: the coin sides). If the art matches at least
    # closer_look_match around where the members differ (not under a hand), each member's
    # score weighs its likelihood by exp(score / closer_look_temperature). At most
    # closer_look_cells cells a frame (the surest families first); 0 turns it off
    closer_look_below: float = 0.97
    closer_look_family: float = 0.7
    closer_look_rival: float = 0.02
    closer_look_rivals: float = 2
    closer_look_match: float = 0.55
    closer_look_temperature: float = 0.02
    closer_look_cells: float = 8
    # ... and only if the member it scores best agrees with the crop at least this well where
    # the members differ: art that does not explain what the camera sees there (a hand or a
    # glare over the number, a misaligned look) settles nothing; 0 trusts every score
    closer_look_explains: float = 0.0
    # how far out from a face's centre (a share of its radius) the closer look compares the
    # members where they differ: an enrolled edition's faces are cut from photos, and out
    # there each cut holds its own photo's rim, light and blur, not a difference of print
    closer_look_within: float = 0.92
    # cells closer together than this (px, centre to centre) are too small to read: refused
    min_cell_px: float = 36.0
    # the edition check: until a board has shown the reader's art, up to edition_cells of its
    # surest tokens and cats (no shoppers: a pawn hides its coin) are each aligned on the art
    # of what they were read as; their median match under edition_match_below means the box's
    # art is not the reader's: every cell is left unknown, and enrollment is asked for
    edition_cells: float = 5
    edition_match_below: float = 0.72
    locate: LocateConfig = field(default_factory=LocateConfig)

    @classmethod
    def load(cls, path: Path) -> ReaderConfig:
        if not path.is_file():
            return cls()
        try:
            raw = yaml.safe_load(path.read_text(encoding="utf-8")) or {}
            raw = dict(raw)
            locate = LocateConfig(**(raw.pop("locate", None) or {}))
            return cls(**{name: float(value) for name, value in raw.items()}, locate=locate)
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
                 *, threads: int | None = None) -> None:
        """``threads``: onnxruntime's (default: the cores less one for the screen)."""
        self.components = components or food_alley()
        folder = model_dir or default_model_dir()
        self.config = ReaderConfig.load(folder / "reader.yaml")
        self.model: CellModel = load_model(folder, self.components,
                                           threads=threads or reader_threads())
        self.geometry = BoardGeometry.from_components(self.components)
        # an enrolled edition's model folder holds its art (its board, each face)
        self.art = folder / "art" if (folder / "art" / "board.png").is_file() else None
        self.caps = capacities(self.components)
        self.cut = CellCutter(self.geometry, crop_px=self.model.size, crop_mm=self.model.crop_mm)
        # the label the network learnt a hand (or anything over a cell) by
        self.hand_label = next(k for k, lab in enumerate(self.model.labels)
                               if lab.kind == "unknown")
        backs = face_down(self.model.labels)
        groups = families(self.model.labels, self.components)
        self.families = [(members, backs.get(key), self.model.labels[members[0]].kind)
                         for key, members in groups.items()]
        try:
            self.locator = Locator(self.geometry, self.config.locate, self.art)
            self.tone_reference = (tone_reference(self.geometry, self.art)
                                   if self.model.tone is not None else None)
            self.art_check = ArtCheck(self.geometry, self.model.labels, art=self.art,
                                      within=self.config.closer_look_within)
            self.shared_layouts = shared_layouts(self.model.labels, groups, self.art)
            for name in (lab.art(self.art) for lab in self.model.labels) if self.art else ():
                if name:
                    load_art(name)  # read now, not mid-game
        except AssetError as exc:  # an enrolled model folder's art, missing or damaged
            raise ModelError(str(exc)) from exc
        self._seen: tuple[np.ndarray, np.ndarray] | None = None  # crops classified, answers
        self.edition_known = False  # a board has shown the reader's art (see _check_edition)
        self.edition_match: float | None = None  # how well the last board checked matched it
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
        except VisionError as exc:  # not a frame a board can be found in (too small, grey)
            return Reading(False, None, _unknown_grid(), (time.perf_counter() - start) * 1000,
                           None, str(exc))
        cfg = self.config
        pitch = cell_pitch_px(found.pose, self.geometry)
        if pitch < cfg.min_cell_px:  # under the resolution the reader can vouch for
            return Reading(True, found.corners(self.geometry), _unknown_grid(),
                           (time.perf_counter() - start) * 1000, found,
                           f"the board's cells are {pitch:.0f} px apart in this frame, fewer "
                           f"than the {cfg.min_cell_px:.0f} px the reader needs: move the "
                           "camera closer or give it a higher resolution. Every cell is left "
                           "unknown")
        crops = self.cut(frame, found.pose)
        abstain_below = cfg.abstain_below
        blur = found.edge_blur_mm
        if blur > cfg.max_edge_blur_mm:  # too blurred to read the digits as they are
            refused = self._refuse_blurred(crops, blur)
            if refused:
                return Reading(True, found.corners(self.geometry), _unknown_grid(),
                               (time.perf_counter() - start) * 1000, found, refused)
            # out of focus: undo part of the blur, and read only what stays clear
            crops = sharpen(crops, self._spread_px(blur, cfg.sharp_edge_mm))
            abstain_below = max(abstain_below, cfg.blurred_abstain_below)
        elif self.model.learnt_edge_mm and blur < self.model.learnt_edge_mm:
            # an edition learnt from softer photos than this frame: the faces are read as soft
            # as they were learnt, not sharper than the network has ever seen them
            crops = soften(crops, self._spread_px(self.model.learnt_edge_mm, blur))
        probs = self._classify(crops, frame, found.pose, blur, abstain_below)
        probs[self._beside_hand(probs)] = 0.0  # no label likely: unknown
        cells = decode(probs, self.model.labels, self.caps, abstain_below=abstain_below)
        if not self.edition_known:
            refused = self._check_edition(cells, frame, found.pose, blur)
            if refused:
                return Reading(True, found.corners(self.geometry), _unknown_grid(),
                               (time.perf_counter() - start) * 1000, found, refused)
        grid = [cells[r * 5:(r + 1) * 5] for r in range(5)]
        return Reading(True, found.corners(self.geometry), grid,
                       (time.perf_counter() - start) * 1000, found)

    def _check_edition(self, cells: list[dict[str, Any]], frame: np.ndarray, pose: np.ndarray,
                       blur: float) -> str | None:
        """Why the board's art is not the reader's (an edition not enrolled), else None.

        The surest tokens and cats read (``edition_cells`` of them) are each aligned on the
        art of what they were read as (the bundled art, or an enrolled edition's), colour
        channel by channel. Another edition's faces, read by a network that never saw them,
        match it poorly: boards of ten other editions (edition.py) at most 0.66, median 0.48;
        the reader's own art, under eleven of the stress bench's conditions, at least 0.80
        (glossy tokens), mostly above 0.93. Once a board with at least three such cells
        matches, the edition is known for the reader's life (one box for a session), and no
        more checks are made: they cost about 30 ms a cell. A board that shows no token or cat
        sure enough to compare proves nothing: its shoppers (a pawn is not compared: it hides
        its coin) are left unknown, in place, since a box of another edition can show a cat
        read as a pawn on such a board (bench_edition.py, 1 board of 200)."""
        cfg = self.config
        names = {lab.name: k for k, lab in enumerate(self.model.labels)}
        # by position: a colour's face-down cats read alike
        sure = sorted((k for k, c in enumerate(cells)
                       if c["kind"] not in ("empty", "unknown", "shopper")),
                      key=lambda k: -cells[k]["confidence"])[:int(cfg.edition_cells)]
        if not sure:
            for index, cell in enumerate(cells):
                if cell["kind"] == "shopper":
                    cells[index] = dict(UNKNOWN)
            return None
        matches = []
        for index in sure:
            label = names[cell_label(cells[index])]
            crop = self.art_check.cut(frame, pose, index)
            look = self.art_check.look(crop, (label,), blur)
            matches.append(self.art_check.agreement(crop, look, label, blur))
        match = float(np.median(matches))
        self.edition_match = match
        if match < cfg.edition_match_below:
            return (f"this edition's art is not enrolled: the tokens do not look like the "
                    f"reader's art (they match it {match:.2f}, {cfg.edition_match_below:.2f} "
                    "wanted). Run companion enroll plan to teach the reader your box. Every "
                    "cell is left unknown")
        if len(sure) >= 3:
            self.edition_known = True
        return None

    def _spread_px(self, wide_mm: float, narrow_mm: float) -> float:
        """The Gaussian (sigma, in crop pixels) that widens an edge narrow_mm wide to
        wide_mm: what a blur beyond a sharp edge's spreads, or a softening adds."""
        spread_mm = np.sqrt(wide_mm ** 2 - narrow_mm ** 2) / EDGE_WIDTH_PER_SIGMA
        return float(spread_mm * self.model.size / self.model.crop_mm)

    def _refuse_blurred(self, crops: np.ndarray, blur: float) -> str | None:
        """Why a blurred frame is not read (shaken, or too far out of focus), else None."""
        cfg = self.config
        if streak_of(crops) >= cfg.max_streak:
            return (f"the frame is blurred along one direction (edges {blur:.1f} mm wide, at most "
                    f"{cfg.max_edge_blur_mm:.1f}): did the camera or the table move? Every cell "
                    "is left unknown")
        if blur > cfg.max_defocus_mm:
            return (f"the frame is blurred, out of focus (edges {blur:.1f} mm wide, at most "
                    f"{cfg.max_defocus_mm:.1f}): focus the camera. Every cell is left unknown")
        return None

    def _in_print_colours(self, crops: np.ndarray, cells: np.ndarray, frame: np.ndarray,
                          pose: np.ndarray) -> np.ndarray:
        """The crops mapped by the board's own colours (light and its fall-off, white balance,
        tone curve), as the model was trained; left as they are when the model was not, or when
        the board's reference areas cannot be measured (as in training)."""
        if self.tone_reference is None:
            return crops
        tone = measure_tone(frame, pose, self.tone_reference, self.model.tone)
        if tone is None:
            return crops
        return apply_luts(crops, tone.luts(self.geometry.centres.reshape(-1, 2)[cells]))

    def _classify(self, crops: np.ndarray, frame: np.ndarray, pose: np.ndarray, blur: float,
                  abstain_below: float) -> np.ndarray:
        """Probabilities for the 25 crops. Cells whose crop has not changed since it was last
        classified (no 8x8 block brighter or darker by ``unchanged_below`` on average: sensor
        noise, not a token moved, turned or covered) keep their answer; the rest go through the
        model in one batch, and those it is unsure of get a closer look; a cell the mapping to
        the print's colours washes out is left unknown (:meth:`_washed_out`)."""
        if self._seen is None or self.config.unchanged_below <= 0:
            self._seen = (crops.copy(), np.empty((len(crops), len(self.model.labels)),
                                                 np.float32))
            todo = np.arange(len(crops))
        else:
            changed = _block_change(crops, self._seen[0]) >= self.config.unchanged_below
            todo = np.nonzero(changed)[0]
        seen_crops, seen_probs = self._seen
        if len(todo):
            picked = crops[todo]
            mapped = self._in_print_colours(picked, todo, frame, pose)
            probs = self._look(mapped)
            probs = self._closer_look(probs, todo, frame, pose, blur, abstain_below)
            if mapped is not picked:  # mapped to the print: a washed-out crop shows none
                probs[self._washed_out(mapped)] = 0.0  # no label likely: unknown
            seen_probs[todo] = probs
            seen_crops[todo] = picked
        return seen_probs.copy()

    def _washed_out(self, mapped: np.ndarray) -> np.ndarray:
        """Which crops, mapped to the board's print colours, are washed out over more than
        ``washed_out_above`` of their token's disc (its inner nine tenths). A glare under a
        dim light is the case: the mapping lifts the frame by the light it measured on the
        board's ground, where the glare is left out as an outlier, and the glare goes white.
        An enrolled model read such cells as empty, 98 % sure (docs/vision.md)."""
        size = mapped.shape[1]
        disc = disc_mask(size, 0.9 * self.geometry.token / 2 * size / self.model.crop_mm)
        white = mapped.min(axis=3) >= 250
        return white[:, disc].mean(axis=1) > self.config.washed_out_above

    def _beside_hand(self, probs: np.ndarray) -> np.ndarray:
        """Which of the 25 cells the network finds at least ``beside_hand_above`` likely to
        be a hand (its "unknown" label), with a neighbour (across, down or diagonal) that it
        finds more likely a hand than not. The network learns a token 8-30 % covered by
        neither its label nor a hand's, so it has no answer for one: on enrolled editions,
        such coins were read as another ingredient's, 82-96 % sure, a little of the hand
        still seen in them and a hand beside them (docs/vision.md)."""
        share = self.config.beside_hand_above
        if share <= 0:
            return np.zeros(len(probs), bool)
        hand = probs[:, self.hand_label].reshape(5, 5)
        # (a cell that is itself a hand counts too: it is left unknown either way)
        beside = cv2.dilate((hand > 0.5).astype(np.uint8), np.ones((3, 3), np.uint8))
        return ((hand >= share) & beside.astype(bool)).ravel()

    def _look(self, crops: np.ndarray) -> np.ndarray:
        """The model's answers, with a second look at those it is not sure of (every one, when
        second_look_below is 1): the same crop turned three quarter turns, the four answers
        averaged."""
        probs = self.model.probabilities(crops)
        below = self.config.second_look_below
        doubtful = np.arange(len(probs)) if below >= 1 else np.nonzero(probs.max(axis=1) < below)[0]
        if len(doubtful):
            turned = np.concatenate([np.rot90(crops[doubtful], k, axes=(1, 2))
                                     for k in (1, 2, 3)])
            more = self.model.probabilities(np.ascontiguousarray(turned))
            more = more.reshape(3, len(doubtful), -1)
            probs[doubtful] = (probs[doubtful] + more.sum(axis=0)) / 4
        return probs

    def _closer_look(self, probs: np.ndarray, cells: np.ndarray, frame: np.ndarray,
                     pose: np.ndarray, blur: float, abstain_below: float) -> np.ndarray:
        """Probabilities of the given cells, those the network is sure of the family of but
        not of the member (a cat's value, a token's price, or whether a cat lies face down)
        settled by the art, up close (see :mod:`companion.vision.artcheck`). When the network
        hesitates between coin families (a tofu or an egg coin), their members are scored
        together (see :meth:`_rivals`). In a blurred frame the network is sure of numbers it
        cannot see (a black cat's 3 read as a 2, 99.9 % sure): every cell less sure than
        ``blurred_closer_look_below`` (1: all) gets the look."""
        cfg = self.config
        below, most = max(cfg.closer_look_below, abstain_below), cfg.closer_look_cells
        if blur > cfg.max_edge_blur_mm:
            below, most = cfg.blurred_closer_look_below, cfg.blurred_closer_look_cells
        wanted = []
        for row in np.nonzero(probs.max(axis=1) < below)[0] if below < 1 else range(len(probs)):
            mass, members, backs = self._rivals(probs[row])
            if mass >= cfg.closer_look_family:
                wanted.append((mass, int(row), members, backs))
        wanted.sort(key=lambda w: -w[0])
        for _, row, members, backs in wanted[:int(most)]:
            p = probs[row]
            ranked = tuple(sorted(members, key=lambda k: -p[k]))
            crop = self.art_check.cut(frame, pose, int(cells[row]))
            look = self.art_check.look(crop, ranked, blur)
            index = list(look.members)
            up_mass = float(p[index].sum())  # the families' (for cats: face up)
            number_seen = (look.near >= cfg.closer_look_match
                           and float(np.max(look.scores)) >= cfg.closer_look_explains)
            # which number; if it is hidden, or not a number at all (a paw: the cat lies face
            # down), the network's own shares
            share = (self._weigh(p[index], look.scores) if number_seen
                     else p[index] / max(up_mass, 1e-9))
            best = index[int(np.argmax(share))]
            back = backs[best]  # the best face's own back (a cat's: its player's)
            pair = None
            if back is not None and p[back] >= 0.01:  # face up or down: the number or a paw
                pair = self.art_check.settle(crop, look, (best, back), blur)
            if pair is not None and pair.near >= cfg.closer_look_match:
                up, down = self._weigh(np.array([up_mass, p[back]]), pair.scores)
                total = up_mass + float(p[back])
                p[index], p[back] = total * up * share, total * down
            elif number_seen:
                p[index] = up_mass * share
        return probs

    def _rivals(self, p: np.ndarray) -> tuple[float, tuple[int, ...], dict[int, int | None]]:
        """The family the network finds likeliest for a cell (with its cats' back); unless it
        is ``closer_look_family`` likely alone, joined by up to ``closer_look_rivals`` more of
        its kind, each at least ``closer_look_rival`` likely, if the kind's art shares one
        layout (the coin sides: aligned on one, the token is aligned for all). Their
        likelihood together, their members, and each member's back (None for tokens)."""
        cfg = self.config
        ranked = sorted(((float(p[list(f)].sum() + (0.0 if b is None else p[b])), f, b, kind)
                         for f, b, kind in self.families), key=lambda r: -r[0])
        first = ranked[0]
        rivals = [first]
        if first[0] < cfg.closer_look_family and first[3] in self.shared_layouts:
            rivals += [r for r in ranked[1:]
                       if r[3] == first[3] and r[0] >= cfg.closer_look_rival
                       ][:int(cfg.closer_look_rivals)]
        members = tuple(k for r in rivals for k in r[1])
        return (sum(r[0] for r in rivals), members, {k: r[2] for r in rivals for k in r[1]})

    def _weigh(self, prior: np.ndarray, scores: np.ndarray) -> np.ndarray:
        """Shares (summing to 1) of the prior weighed by the art's scores."""
        weight = (prior + 1e-3) * np.exp((scores - scores.max())
                                         / self.config.closer_look_temperature)
        return weight / weight.sum()

    def forget(self) -> None:
        """Classify every cell of the next frame afresh."""
        self._seen = None


def streak_of(crops: np.ndarray) -> float:
    """How streaked the cells look, 0..1: 1 - the ratio of the weakest to the strongest direction
    of their brightness gradients (summed structure tensor). Tokens lie at every rotation, so in
    focus or evenly blurred it is near 0 (at most 0.08 on the renderer's scenes); shaken, the
    detail along the motion is smeared away (0.2 and more)."""
    grey = crops.astype(np.float32).mean(axis=3)
    gx = grey[:, 1:-1, 2:] - grey[:, 1:-1, :-2]
    gy = grey[:, 2:, 1:-1] - grey[:, :-2, 1:-1]
    xx, xy, yy = float((gx * gx).sum()), float((gx * gy).sum()), float((gy * gy).sum())
    half = (xx + yy) / 2
    spread = float(np.sqrt(max(half * half - (xx * yy - xy * xy), 0.0)))
    return 1.0 - (half - spread) / (half + spread) if half > 0 else 0.0


def sharpen(crops: np.ndarray, sigma_px: float) -> np.ndarray:
    """Unsharp masking of each crop: crop + (crop - blurred), the blur a Gaussian of sigma_px,
    as wide as the blur to undo."""
    out = np.empty_like(crops)
    for i, crop in enumerate(crops):
        f = crop.astype(np.float32)
        out[i] = np.clip(2 * f - cv2.GaussianBlur(f, (0, 0), sigma_px) + 0.5, 0, 255)
    return out


def soften(crops: np.ndarray, sigma_px: float) -> np.ndarray:
    """Each crop blurred by a Gaussian of sigma_px."""
    return np.stack([cv2.GaussianBlur(crop, (0, 0), sigma_px) for crop in crops])


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

    if path.is_dir():
        raise VisionError(f"{path}: a folder, not an image (name the image files in it)")
    data = np.fromfile(str(path), dtype=np.uint8) if path.is_file() else None
    if data is None:
        raise VisionError(f"{path}: no such file")
    frame = cv2.imdecode(data, cv2.IMREAD_COLOR) if data.size else None
    if frame is None:
        raise VisionError(f"{path}: not a readable image (corrupt or not JPEG/PNG)")
    return frame
