"""Teaching the reader an edition of the game: the layouts to photograph.

A real box's tokens, cats and board look different from the art the reader ships with. To learn
them, the player photographs a few layouts on the rig: first the empty board, then layouts that
together show every face: both sides of each token, each cat of each colour face up, a cat of
each colour face down, and each shopper; the photos left over show the coin sides a second time.
The plan is derived from the component list, so a corrected list changes the plan, never the
code.
"""

from __future__ import annotations

import hashlib
import json
import warnings
from collections.abc import Callable, Iterator
from contextlib import contextmanager, suppress
from contextvars import ContextVar
from dataclasses import dataclass, field
from functools import cached_property, lru_cache
from pathlib import Path
from typing import Any

import cv2
import numpy as np

from companion.rules.components import Components, food_alley
from companion.rules.food_alley.market import name as cell_name
from companion.vision.assets import Label
from companion.vision.geometry import EDGE_WIDTH_PER_SIGMA, disc_mask

MAX_PHOTOS = 9  # the empty board included
CELLS = 25


class PlanError(ValueError):
    """The component list has more faces than the photos can show."""


@dataclass(frozen=True)
class Layout:
    """One photo to take: 25 faces (or empty cells), row-major from the title corner."""

    index: int
    faces: tuple[Label, ...]

    @property
    def file_name(self) -> str:
        return f"layout-{self.index:02d}.jpg"

    def rows(self) -> list[list[dict[str, Any]]]:
        """The layout as 5 rows of 5 cells, in ``scan --json``'s cell format."""
        cells = [cell_of(face) for face in self.faces]
        return [cells[r * 5:(r + 1) * 5] for r in range(5)]


def cell_of(face: Label) -> dict[str, Any]:
    """A face as ``scan --json`` prints a cell (without the confidence)."""
    return {"kind": face.kind, "token": face.token, "player": face.player, "value": face.value}


def faces_to_show(components: Components) -> list[Label]:
    """Every face of the box once: each token's ingredient side, then its coin side, each cat
    face up (value by value, so each layout holds few cats of one colour), a cat of each colour
    face down, and each shopper."""
    c = components
    faces = [Label("ingredient", token=t.id) for t in c.tokens]
    faces += [Label("coin", token=t.id) for t in c.tokens]
    faces += [Label("cat", player=p, value=v) for v in c.cat_values for p in c.player_colours]
    faces += [Label("cat-back", player=p) for p in c.player_colours]
    faces += [Label("shopper", player=p) for p in c.player_colours]
    return faces


def faces_seen_twice(components: Components) -> list[Label]:
    """The faces the plan shows again where photos are left: the coin sides, one price's coins
    being told apart only by their ingredient's mark, the smallest printed difference in the
    box; a second photo of each, in its own light and place, halves what one glare or one
    clipped highlight can take from them."""
    return [Label("coin", token=t.id) for t in components.tokens]


def _fits(face: Label, placed: list[Label], cats_per_colour: int) -> bool:
    """A face can join a layout: each physical thing lies once (a token shows one side), and
    a cat lies face down only if its colour has a cat not face up in the layout."""
    if face.kind in ("ingredient", "coin"):
        return all(other.token != face.token for other in placed
                   if other.kind in ("ingredient", "coin"))
    if face.kind == "cat-back":
        used = sum(1 for other in placed
                   if other.player == face.player and other.kind in ("cat", "cat-back"))
        return used < cats_per_colour
    if face.kind == "cat":
        backs = sum(1 for other in placed
                    if other.player == face.player and other.kind in ("cat", "cat-back"))
        return face not in placed and backs < cats_per_colour
    return face not in placed


def enrollment_plan(components: Components | None = None) -> list[Layout]:
    """The layouts to photograph, the empty board first; every face in one layout, and as many
    of :func:`faces_seen_twice` as the photos left fit in another.

    :raises PlanError: if the faces need more than MAX_PHOTOS photos.
    """
    c = components or food_alley()
    cats_per_colour = len(c.cat_values)
    filled: list[list[Label]] = []
    for face in faces_to_show(c):
        for placed in filled:
            if len(placed) < CELLS and _fits(face, placed, cats_per_colour):
                placed.append(face)
                break
        else:
            filled.append([face])
    if len(filled) + 1 > MAX_PHOTOS:
        raise PlanError(f"the component list has {len(faces_to_show(c))} faces: they need "
                        f"{len(filled) + 1} photos, more than {MAX_PHOTOS}")
    # the photos left over show the faces told apart by the least a second time
    for face in faces_seen_twice(c):
        for placed in filled:
            if len(placed) < CELLS and _fits(face, placed, cats_per_colour):
                placed.append(face)
                break
        else:
            if len(filled) + 1 >= MAX_PHOTOS:
                break
            filled.append([face])
    empty = Label("empty")
    layouts = [Layout(0, (empty,) * CELLS)]
    for n, placed in enumerate(filled, start=1):
        layouts.append(Layout(n, tuple(placed + [empty] * (CELLS - len(placed)))))
    return layouts


def plan_json(layouts: list[Layout]) -> dict[str, Any]:
    """The plan as ``enroll plan --json`` prints it."""
    return {"photos": [{"index": lay.index, "file": lay.file_name, "cells": lay.rows()}
                       for lay in layouts]}


# --- learning an edition from the photos of the plan ----------------------------------------
FACE_PX = 256  # a face's art: one token's diameter, as the bundled art
BOARD_PPM = 4.0  # the board's art (ART_PX_PER_MM)
BOARD_ROWS = 64  # the board's art is made this many rows at a time (memory, on a Pi)
CENTRE_SEARCH_MM = 5.0  # how far from its cell's centre a token may lie
PAWN_REACH = 1.15  # a shopper stands within this many token radii of its cell's centre
PAWN_PART = 0.1  # parts of a pawn's cut at least this share of its largest part are kept
PAWN_LEAST = 0.02  # a pawn's cut covering less of its square than this shows almost nothing
PAWN_ROUNDS = 3  # the shoppers' outlines laid onto their median this many times (_pawns_alike)
# a shadow: ground only darker (each channel this share of the empty board's, to within
# SHADOW_HUE of each other)
SHADOW_RATIO = (0.3, 0.9)
SHADOW_HUE = 0.12
LIGHT_ROUNDS = 2
ART_TOP = 250.0  # the art's faces are lit, and matched to the renderer, to at most this level
# empty boards the renderer draws to match its light to the photos' (the light drawn afresh
# for each: the median of 24 is within about 4 % of the renderer's; full frames, as the
# training's: at a quarter of the pixels the ground came out 6 % off)
LIGHT_SCENES = 24
LIGHT_SEED = 975_000
GROUND_PPM = 2.0  # the ground round the sockets is measured at this resolution
UNSHARP = 1.0  # how much of a face's blur the cut takes back (see _sharpened)
DISC_SIZES = (0.94, 0.97, 1.0, 1.03, 1.06)  # a token's size as seen, times the list's
# a cell differs from the empty board where some colour channel differs by this much (grey
# levels, both blurred a little, each lit as the median ground by the ground between RING_MM
# from the cell's centre, outside the socket)
DIFFERENT_BY = 25.0
# a token is found by its outline: what differs fills the ring from this share of its radius
# to the edge and stops in the ring out to the second. Not the whole disc: a face printed
# close to its socket's colour differs only at its rim and its marks, and the marks pulled a
# whole-disc filter off centre by up to 7.5 mm (docs/bench.md, "Editions learnt from photos")
OUTLINE = (0.93, 1.07)
WASHED_OUT = 0.05  # a face with this share of its disc clipped by the camera is named
CLIPPED = 245.0  # a channel this bright (blurred a little) may have been clipped by the camera
RING_MM = (18.0, 19.5)
# A cell's print is checked against the plan by two kinds of evidence (see _occupancy): new
# structure (detail the empty board's photo does not show there: the log of the light, high
# passed between STRUCTURE_SIGMAS px, off by STRUCTURE_OFF or more) and colour (a difference
# that holds whatever the camera clipped), each as a share of the socket. Measured on the
# plan's photos of 45 drawn editions (the light drawn afresh for each photo, glare, shadows and
# overexposure included; 6,300 faces, 450 empty cells): empty cells showed new structure on at
# most 0.142 of the socket and colour on at most 0.38 (under a glare, where the structure stays
# the empty board's); tokens and cats new structure on at least 0.106 (a washed-out photo),
# mostly 0.3 and more; shoppers 0.114 and more, with colour 0.26 and more. Only a clear
# contradiction of the plan is named; in between, the model learnt is checked on the photos.
STRUCTURE_SIGMAS = (2.0, 8.0)
STRUCTURE_OFF = 0.04
LOOKS_EMPTY = (0.08, 0.1)  # a face laid here: less new structure, and less colour, than these
LOOKS_LAID = 0.2  # an empty cell: this much new structure,
LOOKS_LAID_WITH_COLOUR = (0.1, 0.2)  # or this much and this much colour
LIGHT_CHANGED = 0.5  # this share of a photo's empty cells differing: the light, not tokens
# the two sides of one token whose cuts, turned alike, correlate this well (colour channel by
# channel, so a photo's cast changes nothing) are one face seen twice: it lay the wrong way up
# in one photo. Plan photos of 45 drawn editions: the two sides of a token at most 0.51; one
# token laid the wrong way up, 0.63-0.97 in 9 of 10 tries (0.46 once, left to the check of
# the model learnt on the photos)
SIDES_ALIKE = 0.6


class EnrollError(ValueError):
    """The photos cannot teach the reader: each problem names the photo and the cells."""

    def __init__(self, problems: list[str]) -> None:
        self.problems = problems
        super().__init__("; ".join(problems))


@dataclass
class CutFaces:
    """What the photos gave: the board's art and each face's (BGRA), by label name."""

    board: np.ndarray
    faces: dict[str, np.ndarray]
    where: dict[str, str]  # label name -> "layout-03.jpg, cell b2", for messages
    ground: np.ndarray  # the board's plain ground in the photos (BGR), all of them together
    poses: dict[int, np.ndarray]  # each photo's board pose (board mm -> px), by layout index
    found: dict[int, Any] = field(default_factory=dict)  # and the locator's BoardPose
    # photo file -> its cells whose face the camera clipped over WASHED_OUT of its disc (the
    # empty board's photo: its sockets so clipped)
    washed_out: dict[str, list[str]] = field(default_factory=dict)


def washed_out_warnings(cut: CutFaces) -> list[str]:
    """What to tell of the photos whose faces the camera partly washed out (clipped): they
    are learnt, from less than the photo could have shown; each to take again in softer light
    if one can."""
    out = []
    for photo, cells in cut.washed_out.items():
        if photo == Layout(0, ()).file_name:  # the empty board
            s = "s" if len(cells) > 1 else ""
            out.append(f"{photo}: the empty board washed out by the light on cell{s} "
                       f"{', '.join(cells)}: the faces laid there in the other photos are "
                       "cut less well. If you can, take this photo again in softer light or "
                       "with a shorter exposure, and enroll again")
            continue
        laid = sum(1 for place in cut.where.values() if place.startswith(f"{photo},"))
        which = (f"all {laid} faces" if len(cells) == laid > 1 else
                 f"{len(cells)} face{'s' if len(cells) > 1 else ''} (cell"
                 f"{'s' if len(cells) > 1 else ''} {', '.join(cells)})")
        them = "them" if len(cells) > 1 else "it"
        out.append(f"{photo}: {which} partly washed out by the light: the reader learns {them} "
                   "less well. If you can, take this photo again in softer light or with a "
                   "shorter exposure, and enroll again")
    return out


def blurred_photos(cut: CutFaces, sharp_mm: float) -> dict[str, float]:
    """The photos whose board's edge is wider than ``sharp_mm`` (the reader's
    ``sharp_edge_mm``, the edge it sharpens a blurred frame towards), with that width (mm):
    out of focus or shaken, their faces are learnt as soft as they show them, and the reader
    softens every sharper frame to the photos' median edge (:func:`photo_edge_mm`)."""
    return {Layout(index, ()).file_name: round(float(found.edge_blur_mm), 2)
            for index, found in sorted(cut.found.items()) if found.edge_blur_mm > sharp_mm}


def blurred_warnings(cut: CutFaces, sharp_mm: float) -> list[str]:
    """What to tell of the blurred photos (:func:`blurred_photos`), each to take again if one
    can. 705's plan had four (1.41-1.59 mm); taken again in focus, its model read about a third
    fewer cells wrong or unknown, through either camera (docs/bench.md)."""
    return [f"{photo}: blurred (the board's edge {mm:.2f} mm wide, where the reader takes "
            f"{sharp_mm:.1f} mm or less as sharp): its faces are learnt as soft as it shows "
            "them, and numbers are read less surely. If you can, take this photo again in "
            "focus, with the camera still, and enroll again"
            for photo, mm in blurred_photos(cut, sharp_mm).items()]


def describe(face: Label) -> str:
    """A face in words, for messages."""
    if face.kind in ("ingredient", "coin"):
        return f"{face.token} ({face.kind} side up)"
    if face.kind == "cat":
        return f"the {face.player} cat {face.value}, face up"
    if face.kind == "cat-back":
        return f"a {face.player} cat, face down"
    if face.kind == "shopper":
        return f"the {face.player} shopper"
    return "nothing"


def cut_faces(photos: dict[int, np.ndarray], layouts: list[Layout],
              geometry: Any = None, locator: Any = None) -> CutFaces:
    """Find the board in each photo and cut every face the plan put there, checking each cell
    against the plan: an empty cell where a face should lie, something where none should, a
    token whose face looks like the other side's kind (the wrong way up). Two tokens of one
    kind swapped, or a cat face down for face up, cannot be told without knowing the art.

    :raises EnrollError: naming every photo and cell in question; nothing is cut then.
    """
    from companion.vision.classify import default_model_dir
    from companion.vision.geometry import BoardGeometry, cell_pitch_px, rectify
    from companion.vision.locate import BoardNotFoundError, Locator
    from companion.vision.reader import ReaderConfig

    g = geometry or BoardGeometry.from_components()
    locator = locator or Locator(g, empty_board=True)  # the first photo: the empty board
    # the photos show the faces no larger than the reader will see them in play, where it
    # refuses cells closer than this: cut any smaller, the art would be too coarse to learn
    least_pitch = ReaderConfig.load(default_model_dir() / "reader.yaml").min_cell_px
    problems: list[str] = []
    poses: dict[int, np.ndarray] = {}
    blur_mm: dict[int, float] = {}
    located: dict[int, Any] = {}
    empty_board = None  # the empty board's photo, rectified at BOARD_PPM
    for layout in layouts:
        frame = photos.get(layout.index)
        if frame is None:
            problems.append(f"{layout.file_name} is missing: take it as `companion enroll plan` "
                            "shows")
            continue
        try:
            found = _locate_on_rig(locator, frame, located.get(0))
        except BoardNotFoundError as exc:
            problems.append(f"{layout.file_name}: no board found ({exc.reason})")
            continue
        pitch = cell_pitch_px(found.pose, g)
        if pitch < least_pitch:
            problems.append(f"{layout.file_name}: the board's cells are {pitch:.0f} px apart, "
                            f"fewer than the {least_pitch:.0f} px the reader needs: take the "
                            "photos with the camera closer or at a higher resolution")
        located[layout.index] = found
        poses[layout.index], blur_mm[layout.index] = found.pose, found.edge_blur_mm
        if layout.index == 0:
            # the other photos show this very board: looked for as the empty board's photo
            # shows it (its title in this edition's print), not as the reader's art
            empty_board = rectify(frame, found.pose, BOARD_PPM, (g.board, g.board))
            locator = Locator(g, locator.config, board=empty_board)
    if problems:
        raise EnrollError(problems)
    centres = g.centres.reshape(-1, 2)
    # the board's plain ground round each socket, in every photo; their median is the colour
    # every face and the board are lit to: the light of one photo, or of one corner, comes off
    grounds = {k: _ground_colours(photos[k], poses[k], centres) for k in poses}
    ground = np.median(np.concatenate(list(grounds.values())), axis=0)
    empty_frame, empty_pose = photos[0], poses[0]
    clipped_in = {k: _clipped(photos[k]) for k in poses}
    gammas = _photo_gammas(photos, poses, _lit_board(empty_board, centres, grounds[0], ground),
                           g)
    art_light = ground * _art_light_share(photos, poses, clipped_in, layouts, grounds, ground,
                                          gammas, g)
    board = _board_outvoted(photos, poses, clipped_in, layouts, grounds, art_light, g, gammas)
    ppm = FACE_PX / g.token
    half = g.token / 2 + CENTRE_SEARCH_MM
    faces: dict[str, np.ndarray] = {}
    where: dict[str, str] = {}
    profiles: dict[str, np.ndarray] = {}
    washed_out: dict[str, list[str]] = {}
    face_disc = disc_mask(FACE_PX, FACE_PX / 2 * 0.97)
    # each token's or cat's cuts, with where the camera clipped them, and the place of each
    views: dict[str, list[tuple[np.ndarray, np.ndarray, str]]] = {}
    size = int(round(2 * half * ppm))
    ring = disc_mask(size, RING_MM[1] * ppm) & ~disc_mask(size, RING_MM[0] * ppm)
    bare_cells = [rectify(empty_frame, empty_pose, ppm, (2 * half, 2 * half),
                          (cx - half, cy - half)).astype(np.float32) for cx, cy in centres]
    # a socket the empty board's photo washed out: what is laid there later is judged and cut
    # against the other sockets, where they are all printed alike; else against a blank
    socket = disc_mask(size, g.token / 2 * ppm)
    washed = [i for i, bare in enumerate(bare_cells)
              if (bare.max(axis=2)[socket] >= CLIPPED).mean() >= WASHED_OUT]
    if washed:
        washed_out[layouts[0].file_name] = [cell_name(i) for i in washed]
        stand_in = _socket_stand_in(bare_cells, washed, ring, ground, ppm, g.token)
        if stand_in is not None:
            for i in washed:
                bare_cells[i] = stand_in
    bare_views = [_CellView(bare, ring, ground) for bare in bare_cells]
    for layout in layouts[1:]:
        frame, pose, clipped = photos[layout.index], poses[layout.index], clipped_in[layout.index]
        gamma = gammas[layout.index]
        not_empty: list[str] = []  # empty cells of this photo that differ from the empty board
        for index, face in enumerate(layout.faces):
            cx, cy = centres[index]
            origin = (cx - half, cy - half)
            seen = rectify(frame, pose, ppm, (2 * half, 2 * half), origin).astype(np.float32)
            bare = bare_views[index]
            view = _CellView(seen, ring, ground)
            structure, colour = _occupancy(view, bare, ppm, g.token)
            place = f"{layout.file_name}, cell {cell_name(index)}"
            if face.kind == "empty":
                if _looks_laid(structure, colour):
                    not_empty.append(cell_name(index))
                continue
            if structure < LOOKS_EMPTY[0] and colour < LOOKS_EMPTY[1]:
                problems.append(f"{place}: {describe(face)} should lie here, but the cell "
                                "looks empty")
                continue
            if face.kind == "shopper":
                cut = _cut_pawn(view, bare, _differs(view, bare, certain=True), ppm, g.token)
                cut[:, :, :3] = _lit_evenly(cut[:, :, :3], np.median(seen[ring], axis=0),
                                            art_light, gamma)
            else:
                differs = _differs(view, bare)
                x, y, r = _token_disc(differs, g.token / 2 * ppm, CENTRE_SEARCH_MM * ppm)
                seen_mm = 2 * r / ppm  # the token's diameter as seen, cut to FACE_PX
                at = (origin[0] + x / ppm - seen_mm / 2, origin[1] + y / ppm - seen_mm / 2)
                disc = rectify(frame, pose, FACE_PX / seen_mm, (seen_mm, seen_mm), at)
                disc = _sharpened(disc, blur_mm[layout.index] * FACE_PX / seen_mm)
                disc = _lit_evenly(disc, np.median(seen[ring], axis=0), art_light, gamma)
                lost = rectify(clipped, pose, FACE_PX / seen_mm, (seen_mm, seen_mm), at)
                if (lost[face_disc] > 127).mean() >= WASHED_OUT:
                    washed_out.setdefault(layout.file_name, []).append(cell_name(index))
                # short of the rim's outer edge, where the token's own shadow begins
                cut = np.dstack([disc, (face_disc * 255).astype(np.uint8)])
                if face.kind in ("ingredient", "coin") and face.name not in profiles:
                    profiles[face.name] = _profile(disc.astype(np.float32), art_light)
                views.setdefault(face.name, []).append(
                    (cut, (lost > 127).astype(np.float32), place))
                continue
            faces[face.name] = cut
            where[face.name] = place
        problems += _empty_cells_differ(layout, not_empty)
    # a token's two sides compared as first cut, before a second photo's cut is merged in
    firsts: dict[str, np.ndarray] = {}
    for name, ((first, _, place), *_) in views.items():
        firsts[name], where[name] = first, place
    with _poses_kept():  # the checks, the highlights and the tidying lay many faces alike
        turned_over = _sides_alike(firsts, profiles, where)
        problems += turned_over + _second_views_differ(views, firsts, turned_over)
        if problems:
            raise EnrollError(problems)
        for name, seen_in in _highlights_taken_off(views, food_alley()).items():
            faces[name] = _merged_views(seen_in)
        return CutFaces(board, tidy_faces(faces, food_alley()), where, ground, poses, located,
                        washed_out)


def _locate_on_rig(locator: Any, frame: np.ndarray, empty: Any) -> Any:
    """The board in a photo of the plan: searched for, or, if the search fails, verified
    where the empty board's photo showed it (``empty``: its BoardPose), as the camera on its
    rig takes every photo (its edges fitted again there and the print checked).

    :raises BoardNotFoundError: the search's reason, if the board is not there either.
    """
    from companion.vision.locate import BoardNotFoundError

    try:
        return locator.locate(frame)
    except BoardNotFoundError:
        if empty is not None:
            with suppress(BoardNotFoundError):
                return locator.locate(frame, previous=empty)
        raise


# --- one design, many faces: turned alike, and each photo's accidents outvoted --------------
TURN_PX = 64  # faces are turned onto each other at this size
MARKS_PX = 128  # and the coins' marks, which are small, at this
COARSE_TURN_DEG = 3.0
MAX_SHIFT_PX = 24.0  # two cuts of a face lie at most this far apart (FACE_PX), once turned
DETAIL_PER_FACE = 32  # a face's detail: less its blur over this share of its width
MERGE_ALIKE = 0.6  # a second photo's cut laid onto the first this alike (_detail_alike) or less
#                    is left out of the face: laid wrong, it would print the face twice over
# a coin's or a cat's pixel is its own where it differs from its family's median by this much
# (grey levels, after a slight blur), the median's where it differs by less than SAME_BELOW
OWN_ABOVE = 30.0
SAME_BELOW = 12.0


def design_families(components: Components) -> list[list[str]]:
    """Faces printed to one design up to a number or a colour (label names): the ingredient
    sides of one ingredient (the price and the basket differ), the coin sides of one price
    (the ingredient's marks differ), a player's cats face up and face down (the number, or a
    paw). Each list's first face is the one the others are turned onto."""
    c = components
    groups: dict[str, list[str]] = {}
    for t in c.tokens:
        groups.setdefault(f"ingredient {t.ingredient}", []).append(
            Label("ingredient", token=t.id).name)
        groups.setdefault(f"coin {t.price}", []).append(Label("coin", token=t.id).name)
    for p in c.player_colours:
        groups[f"cat {p}"] = _cat_names(c, p)
    return [names for names in groups.values() if len(names) > 1]


def _cat_names(components: Components, player: str) -> list[str]:
    """A player's cats (label names): face up, value by value, then face down."""
    return ([Label("cat", player=player, value=v).name for v in components.cat_values]
            + [Label("cat-back", player=player).name])


def tidy_faces(faces: dict[str, np.ndarray], components: Components) -> dict[str, np.ndarray]:
    """Each family of one design (:func:`design_families`) turned onto its first face, and
    again onto the median of them all; each face's light evened onto theirs
    (:func:`_light_evened`), then every pixel where a face looks like that median taken from
    it: a glare, a shadow, a speck of one photo is outvoted by the others, and only what
    differs by design (a number, a basket, a mark) stays each face's own; an ingredient's
    sides keep all of their own where at least half of them differ (:func:`_design_zone`),
    and none elsewhere. The coin
    sides' families (one per price) are then turned onto each other by their marks
    (:func:`_turn_prices_alike`), so that every coin lies alike, as the closer look compares
    them. A cat is then its family's median but for its number (:func:`_number_zones`),
    of which it keeps the light (the shape), not the colours.
    Faces not cut are left out."""
    tidy = dict(faces)
    marks: dict[str, np.ndarray] = {}  # each face less its family's median: what is its own
    medians: dict[str, np.ndarray] = {}  # each face's family's median, as the face lies
    for names in design_families(components):
        present = [n for n in names if n in faces]
        if len(present) < 3:
            continue
        first = faces[present[0]]
        turned = [first] + [_turned_onto(faces[n], first) for n in present[1:]]
        # then each onto the family's median, a steadier reference than any one photo's face
        median = np.median(np.stack([f[:, :, :3] for f in turned]), axis=0).astype(np.uint8)
        reference = np.dstack([median, first[:, :, 3]])
        turned = [_moved_onto(_turned_onto(f, reference), reference) for f in turned]
        colours = np.stack([f[:, :, :3].astype(np.float32) for f in turned])
        median = np.median(colours, axis=0)
        colours = np.stack([_light_evened(colour, median) for colour in colours])
        median = np.median(colours, axis=0)
        smooth_median = cv2.GaussianBlur(median, (0, 0), 2)
        aparts = np.stack([np.abs(cv2.GaussianBlur(colour, (0, 0), 2) - smooth_median).max(axis=2)
                           for colour in colours])
        zone = _design_zone(aparts) if Label.parse(present[0]).kind == "ingredient" else None
        for name, face, colour, apart in zip(present, turned, colours, aparts, strict=True):
            # an ingredient's side keeps all of its design zone: a price blurred in its photo
            # differs from the median less than OWN_ABOVE, and would be faded towards it
            own = zone if zone is not None else np.clip(
                (apart - SAME_BELOW) / (OWN_ABOVE - SAME_BELOW), 0, 1)
            own = cv2.GaussianBlur(own, (0, 0), 1.5)[:, :, None]
            mixed = own * colour + (1 - own) * median
            tidy[name] = np.dstack([np.clip(mixed, 0, 255).astype(np.uint8), face[:, :, 3]])
            marks[name] = colour - median
            medians[name] = median
    for name, zone in _number_zones(marks, components).items():
        # the number's shape is the cat's own, its colours the family's: a photo's tint (a
        # channel the camera clipped) stays out of the number's box
        median = medians[name]
        shade = _brighter_by(median + marks[name], median)
        colour = median * (1 + zone * (shade - 1))[:, :, None]
        tidy[name] = np.dstack([np.clip(colour, 0, 255).astype(np.uint8), faces[name][:, :, 3]])
    return _pawns_alike(_turn_prices_alike(tidy, marks, components), components)


def _pawns_alike(faces: dict[str, np.ndarray], components: Components) -> dict[str, np.ndarray]:
    """The shoppers, one token in each player's colour, share one outline: each pawn's cut
    outlines what differs from the empty board's photo, and with it a part of its shadow that
    only looks like the pawn's edge, or ground the light of its photo changed (704's orange
    pawn came out 1.4 times its art's area, 707's white one 1.44). The outlines, laid onto
    each other, are outvoted by their median; each pawn then takes
    that outline, turned back as it lay, and its own colours inside it (where its own cut
    left a part out, those of its nearest own pixel). With fewer than three shoppers cut, or
    one cut showing almost nothing, they are left as cut."""
    names = [n for n in (Label("shopper", player=p).name for p in components.player_colours)
             if n in faces]
    masks = [(faces[n][:, :, 3] > 127).astype(np.float32) for n in names]
    if len(masks) < 3 or min(m.mean() for m in masks) < PAWN_LEAST:
        return faces
    centres = [_centroid(m) for m in masks]
    centred = [_moved_by(m, FACE_PX / 2 - c) for m, c in zip(masks, centres, strict=True)]
    agreement = [sum(_mask_onto(a, b)[0] for j, b in enumerate(centred) if j != i)
                 for i, a in enumerate(centred)]  # each with the others
    outline = centred[int(np.argmax(agreement))]
    for _ in range(PAWN_ROUNDS):
        lays = [_mask_onto(m, outline)[1:] for m in centred]
        voted = (np.median([_mask_laid(m, *lay) for m, lay in zip(centred, lays, strict=True)],
                           axis=0) > 0.5).astype(np.float32)  # more than half of them
        outline = _moved_by(voted, FACE_PX / 2 - _centroid(voted))
    lays = [_mask_onto(m, outline)[1:] for m in centred]
    alike = dict(faces)
    for name, mask, centre, (turn, shift) in zip(names, masks, centres, lays, strict=True):
        own = _moved_by(_turned_mask(_moved_by(outline, -shift), -turn),
                        centre - FACE_PX / 2) > 0.5
        alpha = cv2.GaussianBlur(own.astype(np.float32) * 255, (0, 0), 1.0)
        alike[name] = np.dstack([_filled_from(faces[name][:, :, :3], mask > 0.5, own),
                                 np.clip(alpha, 0, 255).astype(np.uint8)])
    return alike


def _centroid(mask: np.ndarray) -> np.ndarray:
    ys, xs = np.nonzero(mask > 0.5)
    return np.array([xs.mean(), ys.mean()])


def _moved_by(mask: np.ndarray, shift: np.ndarray) -> np.ndarray:
    return cv2.warpAffine(mask, np.float32([[1, 0, shift[0]], [0, 1, shift[1]]]),
                          mask.shape[::-1])


def _turned_mask(mask: np.ndarray, angle: float) -> np.ndarray:
    return cv2.warpAffine(mask, cv2.getRotationMatrix2D((FACE_PX / 2, FACE_PX / 2), angle, 1.0),
                          mask.shape[::-1])


def _mask_onto(mask: np.ndarray, reference: np.ndarray) -> tuple[float, float, np.ndarray]:
    """How ``mask`` lies best on ``reference`` (both FACE_PX, about centred): their overlap
    (intersection over union) once laid, the turn about the centre (degrees, in
    COARSE_TURN_DEG steps) and the move (dx, dy) after it, found for each turn by phase
    correlation: a part too many or too few draws a centroid aside."""
    ref = reference.astype(np.float32)
    inside = ref > 0.5
    best = (-1.0, 0.0, np.zeros(2))
    for angle in np.arange(0.0, 360.0, COARSE_TURN_DEG):
        turned = _turned_mask(mask, angle)
        shift = np.array(cv2.phaseCorrelate(turned, ref)[0])
        overlap = _mask_overlap(_moved_by(turned, shift), inside)
        if overlap > best[0]:
            best = (overlap, float(angle), shift)
    return best


def _mask_laid(mask: np.ndarray, angle: float, shift: np.ndarray) -> np.ndarray:
    return _moved_by(_turned_mask(mask, angle), shift)


def _mask_overlap(mask: np.ndarray, reference: np.ndarray) -> float:
    laid = mask > 0.5
    return float((laid & reference).sum() / max(1, (laid | reference).sum()))


def _filled_from(colour: np.ndarray, own: np.ndarray, outline: np.ndarray) -> np.ndarray:
    """``colour`` with each pixel inside ``outline`` but outside ``own`` (the pawn as its
    own cut found it) taken from its nearest pixel of ``own``."""
    missing = outline & ~own
    if not missing.any() or not own.any():
        return colour
    _, nearest = cv2.distanceTransformWithLabels((~own).astype(np.uint8), cv2.DIST_L2, 5,
                                                 labelType=cv2.DIST_LABEL_PIXEL)
    ys, xs = np.nonzero(own)  # label k is the k-th pixel of own, in scan order
    filled = colour.copy()
    at = nearest[missing] - 1
    filled[missing] = colour[ys[at], xs[at]]
    return filled


# a face's light is evened onto its family's over windows this share of a face wide (FACE_PX)
EVEN_LIGHT_WINDOW = 0.37


def _brighter_by(colour: np.ndarray, median: np.ndarray) -> np.ndarray:
    """How many times brighter a face (float BGR) is than its family's median, pixel by pixel
    (their grey levels, each 8 more, so that the ratio stays tame where both are near black)."""
    return (colour.mean(axis=2) + 8.0) / (median.mean(axis=2) + 8.0)


def _light_evened(colour: np.ndarray, median: np.ndarray) -> np.ndarray:
    """A face (float BGR, FACE_PX) lit as its family's median: divided by how much brighter
    it is, as a median over windows EVEN_LIGHT_WINDOW of a face wide, smoothed. A glare or a
    shadow over part of one photo changes slowly and comes off; a number, a basket or a mark
    covers less than half of a window and stays. A basket printed over a whole face would
    not: its brightness (not its hue) would be evened too. Evening only the light's change
    across a face (the gain over its median) kept that, but left a glare over most of a face
    (704's noodle 6) as it was."""
    ratio = np.clip(_brighter_by(colour, median), 0.25, 3.9)
    window = int(round(EVEN_LIGHT_WINDOW * FACE_PX)) | 1
    # the median filter takes any window on 8 bits: the ratio in 64ths
    gain = cv2.medianBlur(np.round(ratio * 64).astype(np.uint8), window).astype(np.float32) / 64
    gain = cv2.GaussianBlur(gain, (0, 0), window / 12)
    return colour / gain[:, :, None]


# where an ingredient's sides differ by design (the price, the basket): at least half of them
# differ from their median by OWN_ABOVE, widened by DESIGN_MARGIN of a face (FACE_PX)
DESIGN_MARGIN = 0.03


def _design_zone(aparts: np.ndarray) -> np.ndarray:
    """Where one ingredient's sides differ by design (weights, FACE_PX), from how far each
    differs from their median (faces, FACE_PX, FACE_PX): where at least half of them differ.
    The price and the basket lie in one place on every side, so a glare or a shadow on one
    or two photos, which differs as much, lies outside and is outvoted there."""
    # the least of the farther half: as far as at least half of them are
    half = np.sort(aparts, axis=0)[len(aparts) // 2]
    zone = _widened((half >= OWN_ABOVE).astype(np.uint8), DESIGN_MARGIN).astype(np.float32)
    return cv2.GaussianBlur(zone, (0, 0), 3.0)


def _widened(mask: np.ndarray, share: float) -> np.ndarray:
    """A mask (uint8, FACE_PX) widened by ``share`` of a face on every side."""
    margin = 2 * int(round(share * FACE_PX)) + 1
    return cv2.dilate(mask, np.ones((margin, margin), np.uint8))


# a cat's number: where its family varies across the numbers at least this share of the most it
# varies anywhere, in every colour but one, and this share of a face round that (FACE_PX)
NUMBER_VARIES = 0.5
NUMBER_MARGIN = 0.03


def _number_zones(marks: dict[str, np.ndarray], components: Components
                  ) -> dict[str, np.ndarray]:
    """Where each cat's number lies (weights, FACE_PX, as its cut lies after tidying): a
    player's cats differ only by their number (face down, by a paw), so all else of a cat is
    taken from its family's median, and no cat keeps a blur or a tint of the photo it was cut
    from for the network to learn in place of its number. The colours' families are turned
    onto each other by their marks (:func:`_turn_by_marks`), and the numbers' place is where
    the families vary in every colour but one: a colour whose cuts fit each other badly, and
    so vary everywhere, does not widen it. Empty (the cats tidied as the other families) with
    fewer than three colours cut."""
    cats = {p: _cat_names(components, p) for p in components.player_colours}
    colours = [p for p, names in cats.items() if all(n in marks for n in names)]
    if len(colours) < 3:
        return {}
    first = [_marks_small(marks[n]) for n in cats[colours[0]]]
    angles = {p: _turn_by_marks(list(zip(first, (_marks_small(marks[n]) for n in cats[p]),
                                         strict=True)))
              for p in colours[1:]}
    angles[colours[0]] = 0.0
    varies = np.stack([np.stack([
        _warped(cv2.GaussianBlur(marks[n], (0, 0), 2), _turning(FACE_PX, angles[p]))
        for n in cats[p]]).std(axis=0).max(axis=2) for p in colours])
    varies = np.sort(varies, axis=0)[1] * disc_mask(FACE_PX, FACE_PX / 2 * 0.9)
    number = (varies >= NUMBER_VARIES * np.percentile(varies, 99.5)).astype(np.uint8)
    count, parts, stats, _ = cv2.connectedComponentsWithStats(_widened(number, NUMBER_MARGIN))
    if count < 2:
        return {}
    zone = (parts == 1 + np.argmax(stats[1:, cv2.CC_STAT_AREA])).astype(np.float32)
    zone = cv2.GaussianBlur(zone, (0, 0), 1.5)
    return {n: np.clip(_warped(zone, _turning(FACE_PX, -angles[p])), 0, 1)
            for p in colours for n in cats[p]}


def _turn_prices_alike(faces: dict[str, np.ndarray], marks: dict[str, np.ndarray],
                       components: Components) -> dict[str, np.ndarray]:
    """The coin sides of each price turned onto the first price's: one ingredient's coins
    bear the same marks whatever their value, so the turn is the one under which, summed over
    the ingredients, each coin's own marks (its face less its price's median: the value
    taken out), where they lie whatever their colours, best meet those of the same
    ingredient's coin of the first price."""
    by_price: dict[int, dict[str, str]] = {}
    for t in components.tokens:
        name = Label("coin", token=t.id).name
        if name in marks:
            by_price.setdefault(t.price, {})[t.ingredient] = name
    if len(by_price) < 2:
        return faces
    prices = sorted(by_price)
    first = by_price[prices[0]]
    out = dict(faces)
    for price in prices[1:]:
        pairs = [(_marks_small(marks[first[i]]), _marks_small(marks[n]))
                 for i, n in by_price[price].items() if i in first]
        if len(pairs) < 2:
            continue
        best = _turn_by_marks(pairs)
        for name in by_price[price].values():
            out[name] = _turned(faces[name], best)
    return out


def _turn_by_marks(pairs: list[tuple[np.ndarray, np.ndarray]]) -> float:
    """The turn (degrees) under which each pair's second image of marks (MARKS_PX, where a
    face differs from its family) best meets its first, summed over the pairs
    (:func:`_best_turn`)."""
    mask = disc_mask(MARKS_PX, MARKS_PX / 2 * 0.9)
    centre = ((MARKS_PX - 1) / 2, (MARKS_PX - 1) / 2)

    def score(angle: float) -> float:
        m = cv2.getRotationMatrix2D(centre, angle, 1.0)
        total = 0.0
        for target, image in pairs:
            turned = cv2.warpAffine(image, m, (MARKS_PX, MARKS_PX))
            a, b = turned[mask], target[mask]
            total += float(np.mean((a - a.mean()) * (b - b.mean()))
                           / (a.std() * b.std() + 1e-6))
        return total

    return _best_turn(score)


def _marks_small(mark: np.ndarray) -> np.ndarray:
    """A face's marks (its colours less its family's median) at MARKS_PX: where it differs,
    whatever the colours."""
    return np.abs(cv2.resize(mark, (MARKS_PX, MARKS_PX), interpolation=cv2.INTER_AREA)).max(axis=2)


# A varnished token shows the lamp's highlight, at about one place beside every token of a
# photo. Each cut less its family's median (turned alike) is its own design and its photo's
# light; the median of a photo's cuts, laid back as they lay on the board, is its light alone.
# Where that rises above its own median by HIGHLIGHT_SURE standard errors (of the median), and
# round that wherever it rises by one, a bump at least HIGHLIGHT_LEAST grey levels high at its
# top, is the photo's highlight (smoothed by HIGHLIGHT_SMOOTH px, FACE_PX); photos of at least
# HIGHLIGHT_CUTS cuts. Each cut's own is that highlight moved up to HIGHLIGHT_REACH px to where
# it matches the cut's residue best (blurred by HIGHLIGHT_MATCH_BLUR px). Plan photos of 707
# with the lamp's highlight on each token: 22-56 grey levels at the top (the channels' mean).
# Without varnish, what stands out is thin: a printed ring a little larger in one photo, a
# camera's sharpening, a design's centre; 5-7.4 grey levels in 704-707's photos, 2.2-5.5 in
# 704's through another camera (docs/bench.md).
HIGHLIGHT_SURE = 3.0
HIGHLIGHT_SMOOTH = 2.0
HIGHLIGHT_LEAST = 12.0
HIGHLIGHT_CUTS = 5
HIGHLIGHT_REACH = 24
HIGHLIGHT_MATCH_BLUR = 4.0


def _highlights_taken_off(views: dict[str, list[tuple[np.ndarray, np.ndarray, str]]],
                          components: Components
                          ) -> dict[str, list[tuple[np.ndarray, np.ndarray, str]]]:
    """The cuts of each face (BGRA, as they lay on the board) with the lamp's highlight taken
    off, where their photo shows one (:func:`_photo_highlights`), each as it fits the cut
    (:func:`_fitted_highlight`); the rest as they were."""
    residues = _residues(views, components)
    highlights = _photo_highlights(residues, views)
    if not highlights:
        return views
    out = {}
    for name, seen_in in views.items():
        out[name] = []
        for n, (cut, lost, place) in enumerate(seen_in):
            bump = highlights.get(_photo_of(place))
            residue = residues.get((name, n))
            if bump is not None and residue is not None:
                colour = cut[:, :, :3].astype(np.float32) - _fitted_highlight(bump, residue)
                cut = np.dstack([np.clip(colour, 0, 255).astype(np.uint8), cut[:, :, 3]])
            out[name].append((cut, lost, place))
    return out


def _photo_of(place: str) -> str:
    """The photo a cut came from, of its place ("layout-03.jpg, cell b2")."""
    return place.split(",")[0]


def _residues(views: dict[str, list[tuple[np.ndarray, np.ndarray, str]]],
              components: Components) -> dict[tuple[str, int], np.ndarray]:
    """What each cut (face name, view) of a design family (at least three cuts) shows beyond
    the family's median (float BGR, FACE_PX, as the cut lay on the board): each cut laid onto
    the family's first, less their median, laid back."""
    residues = {}
    for names in design_families(components):
        cuts = [((n, k), cut) for n in names for k, (cut, _, _) in enumerate(views.get(n, []))]
        if len(cuts) < 3:
            continue
        first = cuts[0][1]
        turns = [_laying(cut, first) for _, cut in cuts]
        laid = np.stack([_warped(cut[:, :, :3], m, cv2.INTER_CUBIC).astype(np.float32)
                         for (_, cut), m in zip(cuts, turns, strict=True)])
        median = np.median(laid, axis=0)
        for (key, _), m, colour in zip(cuts, turns, laid, strict=True):
            residues[key] = _warped(colour - median, cv2.invertAffineTransform(m))
    return residues


def _photo_highlights(residues: dict[tuple[str, int], np.ndarray],
                      views: dict[str, list[tuple[np.ndarray, np.ndarray, str]]]
                      ) -> dict[str, np.ndarray]:
    """Each photo's highlight (float BGR, FACE_PX, as its cuts lay on the board), for photos
    that show one surely: the median of its cuts' residues (:func:`_residues`), where it
    rises above its own median by HIGHLIGHT_SURE standard errors (of a median: 1.25 sigma
    over the root of the count), and the parts round that rising by one (a hysteresis, as
    an edge detector's), when its top is HIGHLIGHT_LEAST."""
    by_photo: dict[str, list[np.ndarray]] = {}
    for (name, n), residue in residues.items():
        by_photo.setdefault(_photo_of(views[name][n][2]), []).append(residue)
    # short of the rim, where a photo's cuts a little larger or smaller than the rest differ
    disc = disc_mask(FACE_PX, FACE_PX / 2 * 0.9)
    highlights = {}
    for photo, seen in by_photo.items():
        if len(seen) < HIGHLIGHT_CUTS:
            continue
        stack = np.stack(seen)
        light = np.median(stack, axis=0)
        error = 1.25 * 1.4826 * np.median(np.abs(stack - light), axis=0) / np.sqrt(len(seen))
        bump = light - np.median(light[disc], axis=0)
        rise = bump.mean(axis=2) / np.maximum(error.mean(axis=2), 1e-3)
        _, parts = cv2.connectedComponents(((rise >= 1) & disc).astype(np.uint8))
        kept = np.isin(parts, np.unique(parts[(rise >= HIGHLIGHT_SURE) & disc])) & (parts > 0)
        bump = cv2.GaussianBlur(np.maximum(bump, 0) * kept[:, :, None], (0, 0),
                                HIGHLIGHT_SMOOTH)
        if bump.mean(axis=2).max() >= HIGHLIGHT_LEAST:
            highlights[photo] = bump
    return highlights


def _fitted_highlight(bump: np.ndarray, residue: np.ndarray) -> np.ndarray:
    """A photo's highlight (float BGR, FACE_PX) as it lies on one cut: moved (up to
    HIGHLIGHT_REACH px) to where it best matches what the cut shows beyond its family's
    median (a token lies a few mm off its cell's centre, and the lamp's highlight with it),
    that blurred and clipped to the highlight's own range: a rise beyond its top, or a fall,
    is the cut's design."""
    grey = bump.mean(axis=2)
    ys, xs = np.nonzero(grey > 0.05 * grey.max())
    y0, y1, x0, x1 = ys.min(), ys.max() + 1, xs.min(), xs.max() + 1
    template = np.ascontiguousarray(grey[y0:y1, x0:x1])
    r = HIGHLIGHT_REACH
    shown = cv2.GaussianBlur(np.clip(residue.mean(axis=2), 0, grey.max()), (0, 0),
                             HIGHLIGHT_MATCH_BLUR)
    padded = cv2.copyMakeBorder(shown, r, r, r, r, cv2.BORDER_CONSTANT)
    window = np.ascontiguousarray(padded[y0:y1 + 2 * r, x0:x1 + 2 * r])
    _, _, _, (bx, by) = cv2.minMaxLoc(cv2.matchTemplate(window, template, cv2.TM_CCORR))
    return _warped(bump, np.float32([[1, 0, bx - r], [0, 1, by - r]]))


def _merged_views(views: list[tuple[np.ndarray, np.ndarray, str]]) -> np.ndarray:
    """One face from its cuts in several photos: each turned and moved onto the first, and
    averaged where the camera saw it (a pixel one photo clipped is the others'). A cut that
    will not lie on the first (MERGE_ALIKE) is left out rather than printed across it."""
    first = views[0][0]
    if len(views) == 1:
        return first
    total = np.zeros(first.shape[:2] + (3,), np.float64)
    weight = np.zeros(first.shape[:2] + (1,), np.float64)
    for n, (cut, lost, _) in enumerate(views):
        if n:
            colour, lost, alike = _laid_onto(cut, lost, first)
            if alike <= MERGE_ALIKE:
                continue
        else:
            colour = first[:, :, :3].astype(np.float32)
        seen = (1.0 - 0.99 * np.clip(lost, 0, 1))[:, :, None]
        total += seen * colour
        weight += seen
    merged = np.clip(total / weight, 0, 255).astype(np.uint8)
    return np.dstack([merged, first[:, :, 3]])


def _laid_onto(cut: np.ndarray, lost: np.ndarray, first: np.ndarray
               ) -> tuple[np.ndarray, np.ndarray, float]:
    """Another photo's cut of a face (BGRA) and its clipped share, turned and moved onto the
    first cut (:func:`_laying`): (colour float32, lost, how alike the two then are)."""
    m = _laying(cut, first)
    colour = _warped(cut[:, :, :3], m, cv2.INTER_CUBIC).astype(np.float32)
    return colour, _warped(lost, m), _detail_alike(colour, first[:, :, :3])


def _laying(face: np.ndarray, reference: np.ndarray) -> np.ndarray:
    """The 2x3 map laying ``face`` as ``reference`` lies (:func:`_pose_onto`): the turn about
    its centre, then the move."""
    angle, dx, dy = _pose_onto(face, reference)
    m = _turning(face.shape[0], angle)
    m[:, 2] += (dx, dy)
    return m


def _turning(size: int, angle: float) -> np.ndarray:
    """The 2x3 map turning a size x size face about its centre by angle degrees."""
    c = (size - 1) / 2
    return cv2.getRotationMatrix2D((c, c), angle, 1.0)


def _warped(image: np.ndarray, m: np.ndarray, flags: int = cv2.INTER_LINEAR) -> np.ndarray:
    """A face (or a mask over it) under a 2x3 map, its edge carried outward."""
    return cv2.warpAffine(image, m, image.shape[1::-1], flags=flags,
                          borderMode=cv2.BORDER_REPLICATE)


def _offset(image: np.ndarray, reference: np.ndarray, reach: float = MAX_SHIFT_PX
            ) -> tuple[float, float]:
    """How far (px) one grey image lies from another of the same design: their phase
    correlation; (0, 0) when further than ``reach``, which no cut is off."""
    (dx, dy), _ = cv2.phaseCorrelate(image, reference, _hanning(image.shape[::-1]))
    return (dx, dy) if np.hypot(dx, dy) <= reach else (0.0, 0.0)


@lru_cache(maxsize=4)
def _hanning(size: tuple[int, int]) -> np.ndarray:
    """The window :func:`_offset` correlates through (the same few sizes, every face)."""
    return cv2.createHanningWindow(size, cv2.CV_32F)


def _second_views_differ(views: dict[str, list[tuple[np.ndarray, np.ndarray, str]]],
                         firsts: dict[str, np.ndarray], named: list[str]) -> list[str]:
    """A face the plan shows twice whose later cut looks less like its first than like its
    token's other side: that token lay the wrong way up in the later photo. A token already
    ``named`` the wrong way up in its first photos is left to that message."""
    problems = []
    for name, seen_in in views.items():
        kind, token = name.split(":", 1)
        other = f"{'coin' if kind == 'ingredient' else 'ingredient'}:{token}"
        if kind not in ("ingredient", "coin") or other not in firsts or any(
                f": {token} should lie" in problem for problem in named):
            continue
        for cut, _, place in seen_in[1:]:
            if _alike(cut, firsts[other]) >= max(SIDES_ALIKE, _alike(cut, seen_in[0][0])):
                problems.append(f"{place}: {token} should lie {kind} side up, but the face "
                                f"looks like its other side: turn it over")
    return problems


def _turned_onto(face: np.ndarray, reference: np.ndarray) -> np.ndarray:
    """``face`` (BGRA) turned about its centre to lie as ``reference`` does."""
    return _turned(face, _pose_onto(face, reference)[0])


# the poses found within one cut (this thread's or task's): see _poses_kept
_KEPT_POSES: ContextVar[dict[tuple[bytes, bytes], tuple[float, float, float]] | None] = \
    ContextVar("kept_poses", default=None)


@contextmanager
def _poses_kept() -> Iterator[None]:
    """Within it, a face laid onto the same reference again takes the pose found the first
    time (by the two faces' digests): one cut's stages lay a fifth of their pairs twice."""
    token = _KEPT_POSES.set({})
    try:
        yield
    finally:
        _KEPT_POSES.reset(token)


def _pose_onto(face: np.ndarray, reference: np.ndarray) -> tuple[float, float, float]:
    """:func:`_searched_pose`, or the pose found before for the same two faces."""
    kept = _KEPT_POSES.get()
    if kept is None:
        return _searched_pose(face, reference)
    key = (_digest(face), _digest(reference))
    if key not in kept:
        kept[key] = _searched_pose(face, reference)
    return kept[key]


def _digest(image: np.ndarray) -> bytes:
    """A digest of an image's pixels, its shape and its type."""
    digest = hashlib.blake2b(repr((image.shape, image.dtype.str)).encode(), digest_size=16)
    digest.update(np.ascontiguousarray(image).data)
    return digest.digest()


def _searched_pose(face: np.ndarray, reference: np.ndarray) -> tuple[float, float, float]:
    """How to lay ``face`` as ``reference`` lies, both BGR(A) faces of one design: the turn
    about the face's centre (degrees), then the move (dx, dy, FACE_PX). Found together, as
    the turn whose detail (grey levels less their blur: the light across a face left out),
    once moved onto the reference's by their phase correlation, correlates best inside the
    disc (:func:`_best_turn`); then the move refined at full size. A cut lies a pixel or
    two off its token's centre, so a turn alone, or a face's light, would draw the turn
    astray on a design as round as a coin's."""
    mask = disc_mask(TURN_PX, TURN_PX / 2 * 0.9)
    scale = face.shape[0] / TURN_PX

    def detail(image: np.ndarray) -> np.ndarray:
        return _print_detail(cv2.resize(np.ascontiguousarray(image[:, :, :3]).astype(np.uint8),
                                        (TURN_PX, TURN_PX), interpolation=cv2.INTER_AREA))

    def standard(values: np.ndarray) -> np.ndarray:
        v = values[mask]
        return (v - v.mean()) / (v.std() + 1e-6)

    target, small = detail(reference), detail(face)
    standard_target = standard(target)
    centre = ((TURN_PX - 1) / 2, (TURN_PX - 1) / 2)
    moves: dict[float, tuple[float, float]] = {}

    def score(angle: float) -> float:
        m = cv2.getRotationMatrix2D(centre, angle, 1.0)
        turned = cv2.warpAffine(small, m, (TURN_PX, TURN_PX), borderMode=cv2.BORDER_REPLICATE)
        dx, dy = _offset(turned, target, MAX_SHIFT_PX / scale)
        moves[angle] = (dx, dy)
        moved = cv2.warpAffine(turned, np.float32([[1, 0, dx], [0, 1, dy]]), (TURN_PX, TURN_PX),
                               borderMode=cv2.BORDER_REPLICATE)
        return float(np.mean(standard(moved) * standard_target))

    angle = _best_turn(score)
    dx, dy = (v * scale for v in moves[angle])
    m = _turning(face.shape[0], angle)
    m[:, 2] += (dx, dy)
    rx, ry = _shift_onto(_warped(np.ascontiguousarray(face[:, :, :3]), m), reference)
    if np.hypot(rx, ry) <= scale:  # the coarse move stands to within a pixel of TURN_PX
        dx, dy = dx + rx, dy + ry
    return angle, dx, dy


def _detail_alike(colour: np.ndarray, reference: np.ndarray) -> float:
    """How alike two faces (BGR) laid alike are: the correlation of their detail (grey levels
    less their blur) inside the disc; about 0.85 for two photos of one face, under 0.6 for a
    face laid wrong."""
    mask = disc_mask(colour.shape[0], colour.shape[0] / 2 * 0.85)

    def standard(image: np.ndarray) -> np.ndarray:
        values = _print_detail(image)[mask]
        return (values - values.mean()) / (values.std() + 1e-6)

    return float(np.mean(standard(colour) * standard(reference)))


def _print_detail(image: np.ndarray) -> np.ndarray:
    """A face's printed detail (BGR(A), any size): its grey levels less their blur over
    1/DETAIL_PER_FACE of its width, so the light across it is left out."""
    grey = cv2.cvtColor(np.clip(image[:, :, :3], 0, 255).astype(np.uint8),
                        cv2.COLOR_BGR2GRAY).astype(np.float32)
    return grey - cv2.GaussianBlur(grey, (0, 0), image.shape[0] / DETAIL_PER_FACE)


def _best_turn(score: Callable[[float], float]) -> float:
    """The turn (degrees) that scores best: every COARSE_TURN_DEG, then to a quarter degree
    near the best."""
    best = max(np.arange(0.0, 360.0, COARSE_TURN_DEG), key=score)
    return float(max(np.arange(best - COARSE_TURN_DEG, best + COARSE_TURN_DEG + 0.1, 0.25),
                     key=score))


def _shift_onto(face: np.ndarray, reference: np.ndarray) -> tuple[float, float]:
    """How far (px) ``face`` lies from ``reference``, both BGR(A) and turned alike: the phase
    correlation of their grey levels' detail (:func:`_offset`; the light across a face left
    out)."""
    return _offset(_print_detail(face), _print_detail(reference))


def _moved_onto(face: np.ndarray, reference: np.ndarray) -> np.ndarray:
    """``face`` (BGRA) moved to lie where ``reference`` does (:func:`_shift_onto`)."""
    dx, dy = _shift_onto(face, reference)
    colour = _warped(face[:, :, :3], np.float32([[1, 0, dx], [0, 1, dy]]), cv2.INTER_CUBIC)
    return np.dstack([colour, face[:, :, 3]])


def _turned(face: np.ndarray, angle: float) -> np.ndarray:
    """A face (BGRA, its disc centred) turned about its centre by angle degrees."""
    colour = _warped(face[:, :, :3], _turning(face.shape[1], angle), cv2.INTER_CUBIC)
    return np.dstack([colour, face[:, :, 3]])


def _empty_cells_differ(layout: Layout, cells: list[str]) -> list[str]:
    """What to say of a photo's empty cells that differ from the empty board's photo: a few
    are something laid where the plan has nothing; many at once (LIGHT_CHANGED of its empty
    cells) are the light or the camera changed between the photos, not tokens."""
    empty = sum(1 for face in layout.faces if face.kind == "empty")
    if cells and len(cells) >= max(2, LIGHT_CHANGED * empty):
        return [f"{layout.file_name}: {len(cells)} of its {empty} empty cells "
                f"({', '.join(cells)}) do not look like the empty board's photo: the light or "
                "the camera changed between the photos (a lamp, a shadow, the exposure). Take "
                "all the photos again, one after the other, in the same steady light, with "
                "the camera locked (companion calibrate)"]
    return [f"{layout.file_name}, cell {cell}: should be empty, but something lies there"
            for cell in cells]


class _CellView:
    """A cell's crop (float BGR), with what :func:`_differs` and :func:`_occupancy` compare
    worked out once: the same crop is compared more than once, and the empty board's cell
    with every photo's. ``ring`` and ``ground`` as :func:`_lit_by_ring` takes them."""

    def __init__(self, image: np.ndarray, ring: np.ndarray, ground: np.ndarray) -> None:
        self.image, self.ring, self.ground = image, ring, ground

    @cached_property
    def blurred(self) -> np.ndarray:
        return cv2.GaussianBlur(self.image, (0, 0), 2)

    @cached_property
    def lit(self) -> tuple[np.ndarray, np.ndarray]:
        """The blurred crop lit as the ground, and which channels' light is a lower bound."""
        return _lit_by_ring(self.blurred, self.ring, self.ground)

    @cached_property
    def detail(self) -> np.ndarray:
        return _detail(self.image)


def _occupancy(seen: _CellView, bare: _CellView, ppm: float, token_mm: float
               ) -> tuple[float, float]:
    """How much of a cell's socket shows something the empty board's photo does not there
    (both views of the same cell): (new structure, colour), each a share of the
    socket. New structure is detail (the log of the light, high passed) that the empty
    board's, scaled to fit, does not explain: a smooth light, a shadow, a glare or a camera's
    exposure change the level of the light, not its detail, and a washed-out ground keeps its
    printed lines. Colour is where the colours differ whatever the camera clipped
    (:func:`_differs`, certain): a shopper hides little of the socket's lines but is
    coloured."""
    size = seen.image.shape[0]
    socket = disc_mask(size, token_mm / 2 * ppm)
    near = disc_mask(size, RING_MM[0] * ppm)  # the socket and its printed ring
    seen_detail, bare_detail = seen.detail, bare.detail
    x, y = seen_detail[near], bare_detail[near]
    scale = float((x * y).sum() / max(float((y * y).sum()), 1e-9))
    new = np.abs(seen_detail - scale * bare_detail) > STRUCTURE_OFF
    colour = _differs(seen, bare, certain=True)
    return (float(new[socket].mean()),
            float(colour[disc_mask(size, token_mm / 2 * 0.9 * ppm)].mean()))


def _socket_stand_in(bare_cells: list[np.ndarray], washed: list[int], ring: np.ndarray,
                     ground: np.ndarray, ppm: float, token_mm: float) -> np.ndarray | None:
    """What a washed-out socket of the empty board's photo would have shown: the median of
    the sockets the light left alone, each lit evenly as ``ground`` by the plain ground round
    it. Only if the sockets are printed alike, as the photo shows: every one left alone looks
    empty against it, by the test an empty cell of a later photo passes (:func:`_occupancy`).
    None otherwise, or with too few sockets seen plain."""
    seen = [i for i in range(len(bare_cells)) if i not in washed]
    if len(seen) < len(bare_cells) // 2:
        return None
    lit = [_lit_by_ring(bare_cells[i], ring, ground)[0] for i in seen]
    stand_in = np.median(np.stack(lit), axis=0).astype(np.float32)
    against = _CellView(stand_in, ring, ground)
    if any(_looks_laid(*_occupancy(_CellView(cell, ring, ground), against, ppm, token_mm))
           for cell in lit):
        return None
    return stand_in


def _looks_laid(structure: float, colour: float) -> bool:
    """Whether a cell that should be empty shows something laid, by :func:`_occupancy`'s
    new structure and colour."""
    return structure >= LOOKS_LAID or (structure >= LOOKS_LAID_WITH_COLOUR[0]
                                       and colour >= LOOKS_LAID_WITH_COLOUR[1])


def _detail(image: np.ndarray) -> np.ndarray:
    """The fine detail of a crop (float BGR): the log of its light, high passed."""
    light = np.log(image.mean(axis=2) + 8.0)
    low, high = STRUCTURE_SIGMAS
    return cv2.GaussianBlur(light, (0, 0), low) - cv2.GaussianBlur(light, (0, 0), high)


def _differs(seen: _CellView, bare: _CellView, certain: bool = False) -> np.ndarray:
    """Where a cell's photo differs from the empty board's, once each is lit as ``ground``
    (every photo's median ground colour) by the light measured on the plain ground round the
    socket (``ring``; :class:`_CellView`): the light differs between photos, in level and across
    the board (a shadow's soft edge across a cell), and a difference is judged at one level
    of light, not at a shadowed photo's, where everything is a few grey levels apart.

    ``certain``: only differences that hold whatever the camera clipped (CLIPPED and brighter).
    A clipped pixel is at least as bright as it shows, and a ground clipped round the socket
    makes the light measured there too dim, so every pixel lit by it is at most as bright as
    it shows: an overexposed photo's washed-out ground makes its empty sockets look tinted,
    which is no difference at all."""
    a_img, b_img = seen.blurred, bare.blurred
    (a, a_dim), (b, b_dim) = seen.lit, bare.lit
    if not certain:
        return np.abs(a - b).max(axis=2) > DIFFERENT_BY
    a_clip, b_clip = a_img >= CLIPPED, b_img >= CLIPPED
    # a lit value is a lower bound of the true one unless its light was measured too dim, an
    # upper bound unless its pixel clipped (exact if neither)
    brighter = (a - b > DIFFERENT_BY) & ~a_dim & ~b_clip
    darker = (b - a > DIFFERENT_BY) & ~b_dim & ~a_clip
    return (brighter | darker).any(axis=2)


def _lit_by_ring(image: np.ndarray, ring: np.ndarray, ground: np.ndarray
                 ) -> tuple[np.ndarray, np.ndarray]:
    """A cell's crop (float BGR) lit evenly as ``ground``: the light across it, a plane in x
    and y fitted channel by channel to the plain ground of ``ring`` (robustly: ring pixels a
    neighbour or a speck covers are dropped and the plane fitted again), divided out. Also
    which channels' light is only a lower bound (3 bools): the ground there clipped
    (CLIPPED or brighter in a tenth of the ring or more)."""
    terms = _plane_terms(*image.shape[:2])
    a, values = terms[ring], image[ring]
    dim = (values >= CLIPPED).mean(axis=0) >= 0.1
    keep = np.ones(len(values), bool)
    for _ in range(2):
        coef, *_ = np.linalg.lstsq(a[keep], values[keep], rcond=None)
        residual = np.abs(values - a @ coef).max(axis=1)
        keep = residual <= max(3.0 * float(np.median(residual[keep])), 4.0)
    light = np.maximum(terms @ coef, 1.0)
    return image * (ground / light), dim


@lru_cache(maxsize=4)
def _plane_terms(h: int, w: int) -> np.ndarray:
    """(h, w, 3): 1, x and y of each pixel of a crop, centred (the same crop size, every cell)."""
    ys, xs = np.mgrid[0:h, 0:w].astype(np.float32)
    terms = np.stack([np.ones_like(xs), xs / w - 0.5, ys / h - 0.5], axis=-1)
    terms.setflags(write=False)
    return terms


def _token_disc(differs: np.ndarray, radius_px: float, reach_px: float
                ) -> tuple[float, float, float]:
    """Where a token lies in a cell's crop and how large it looks (x, y, radius in px), its
    centre within reach_px of the crop's: the circle just inside which the most differs from
    the empty board, and just outside the least (a matched filter over the difference,
    at sizes a few percent either side of the component list's: a box's tokens may be printed
    a little larger or smaller). The socket's printed rings cannot pull it: they are in both
    photos."""
    mask = differs.astype(np.float32)
    near = disc_mask(mask.shape[0], reach_px)  # a token lies in its socket, a few mm off
    best = (-2.0, 0.0, 0.0, radius_px)
    for factor in DISC_SIZES:
        r = radius_px * factor
        response = cv2.filter2D(mask, -1, _disc_filter(r), borderType=cv2.BORDER_CONSTANT)
        response[~near] = -2.0
        y, x = np.unravel_index(int(np.argmax(response)), response.shape)
        if response[y, x] > best[0]:
            best = (float(response[y, x]), float(x), float(y), r)
    return best[1], best[2], best[3]


@lru_cache(maxsize=16)
def _disc_filter(radius: float) -> np.ndarray:
    """The matched filter of :func:`_token_disc`: the mean in a thin ring just inside the
    disc's edge less the mean in one just outside (OUTLINE; the same few sizes, every cell)."""
    inside, outside = OUTLINE[0] * radius, OUTLINE[1] * radius
    k = int(np.ceil(outside)) * 2 + 1
    edge = disc_mask(k, radius)
    inner = (edge & ~disc_mask(k, inside)).astype(np.float32)
    outer = (disc_mask(k, outside) & ~edge).astype(np.float32)
    kernel = inner / inner.sum() - outer / outer.sum()
    kernel.setflags(write=False)
    return kernel


def _ground_colours(frame: np.ndarray, pose: np.ndarray, centres: np.ndarray) -> np.ndarray:
    """The median colour (BGR) of the plain ground round each socket (between RING_MM from
    its centre), cut at GROUND_PPM: (cells, 3)."""
    from companion.vision.geometry import rectify

    half = RING_MM[1] + 0.5
    size = int(round(2 * half * GROUND_PPM))
    ring = (disc_mask(size, RING_MM[1] * GROUND_PPM)
            & ~disc_mask(size, RING_MM[0] * GROUND_PPM))
    return np.array([np.median(rectify(frame, pose, GROUND_PPM, (2 * half, 2 * half),
                                       (cx - half, cy - half))[ring], axis=0)
                     for cx, cy in centres], np.float32)


def _photo_gammas(photos: dict[int, np.ndarray], poses: dict[int, np.ndarray],
                  board: np.ndarray, g: Any) -> dict[int, float]:
    """Each photo's tone curve (the gamma of :mod:`companion.vision.tone`) as a share of the
    median photo's, measured against the empty board's photo lit evenly (``board``, at
    BOARD_PPM): the board's dark frame against the light ground beside it, as the reader's
    shade mapping measures it (each taken over the whole board, as the plain mapping does,
    one photo through the usual camera, whose gamma is 1, gave 0.82). A camera that sets
    its tone curve by the scene renders one print with more contrast in one photo than in
    another: lit evenly by a ratio alone, a face keeps its photo's contrast, and the faces
    seen once (a cat's value, the ingredient sides) differ by the photo they were in, which
    a network learns as if it were their print (edition 704 through another camera,
    docs/bench.md). A photo whose tone cannot be measured counts as the median one."""
    from companion.vision.tone import SHADE, board_tone_reference, measure_tone

    reference = board_tone_reference(board, g)
    seen = {}
    for k in poses:
        tone = measure_tone(photos[k], poses[k], reference, SHADE)
        if tone is not None:
            seen[k] = tone.gamma
    middle = float(np.median(list(seen.values()))) if seen else 1.0
    return {k: seen.get(k, middle) / middle for k in poses}


def _art_light_share(photos: dict[int, np.ndarray], poses: dict[int, np.ndarray],
                     clipped_in: dict[int, np.ndarray], layouts: list[Layout],
                     grounds: dict[int, np.ndarray], ground: np.ndarray,
                     gammas: dict[int, float], g: Any) -> float:
    """How bright the art is lit, as a share (at most 1) of the photos' median ground
    (``ground``): so that no face, lit evenly as that (:func:`_lit_evenly`, with its photo's
    tone curve in ``gammas``), clips where its photo did not (its
    disc's 99th percentile, in its brightest channel, at most ART_TOP). Lit as the median, a
    face cut from a darker photo is brightened, and the light side of a token the camera had
    kept clipped in the art, its colour washed to white and a thin digit with it (edition
    704's photos through another camera, docs/bench.md)."""
    from companion.vision.geometry import rectify

    r = g.token / 2
    size = int(round(g.token * GROUND_PPM))
    within = disc_mask(size, r * GROUND_PPM)
    need = 1.0
    for layout in layouts[1:]:
        frame, pose = photos[layout.index], poses[layout.index]
        for (cx, cy), face, local in zip(g.centres.reshape(-1, 2), layout.faces,
                                         grounds[layout.index], strict=True):
            if face.kind == "empty":
                continue
            at = (cx - r, cy - r)
            seen = rectify(frame, pose, GROUND_PPM, (g.token, g.token), at)
            kept = within & (rectify(clipped_in[layout.index], pose, GROUND_PPM,
                                     (g.token, g.token), at) <= 127)
            if kept.sum() < within.sum() / 4:
                continue
            lit = _lit_evenly(seen[kept][:, None], local, ground, gammas[layout.index],
                              clip=False)[:, 0]
            need = max(need, float(np.percentile(lit.max(axis=1), 99)))
    return min(1.0, ART_TOP / need)


def _lit_board(board: np.ndarray, centres: np.ndarray, seen: np.ndarray, ground: np.ndarray,
               gamma: float = 1.0) -> np.ndarray:
    """The empty board's photo (rectified at BOARD_PPM) lit evenly: the light across it, a
    smooth surface (a quadratic in x and y, channel by channel) through the ground's colour
    round each socket, divided out and ``ground`` put in its place, as :func:`_lit_evenly`
    does (with the photo's tone curve, ``gamma``)."""
    x, y = centres[:, 0], centres[:, 1]
    terms = np.stack([np.ones_like(x), x, y, x * x, x * y, y * y], axis=1)
    coef, *_ = np.linalg.lstsq(terms, seen, rcond=None)
    h, w = board.shape[:2]
    ys, xs = np.mgrid[0:h, 0:w].astype(np.float32) / BOARD_PPM
    grid = np.stack([np.ones_like(xs), xs, ys, xs * xs, xs * ys, ys * ys], axis=-1)
    light = np.clip(grid @ coef, ground / 2.0, ground * 2.0)
    return _lit_evenly(board, light, ground, gamma)


def _clipped(frame: np.ndarray) -> np.ndarray:
    """Where the camera clipped some channel of a photo (255; a pixel more, as the lens
    spreads it), else 0."""
    return cv2.dilate((frame.max(axis=2) >= CLIPPED).astype(np.uint8) * 255, np.ones((3, 3)))


def _board_outvoted(photos: dict[int, np.ndarray], poses: dict[int, np.ndarray],
                    clipped_in: dict[int, np.ndarray], layouts: list[Layout],
                    grounds: dict[int, np.ndarray], ground: np.ndarray, g: Any,
                    gammas: dict[int, float]) -> np.ndarray:
    """The board's art (at BOARD_PPM): each photo's board lit evenly (:func:`_lit_board`,
    with the photo's tone curve in ``gammas``),
    every pixel the median of the photos that show it plain: inside the frame, not clipped by
    the camera (``clipped_in``: :func:`_clipped`, by layout index), and not within RING_MM[0]
    of a cell's centre where the plan laid something (the token and its shadow). Every photo
    shows the board's print; a glare, a shadow or a clipped highlight lies where one photo's
    light put it, and the others outvote it. A socket is seen plain only where it is empty
    (the empty board's photo, and the last layout's free cells)."""
    from companion.vision.geometry import rectify

    centres = g.centres.reshape(-1, 2)
    size = int(round(g.board * BOARD_PPM))
    ys, xs = np.mgrid[0:size, 0:size].astype(np.float32) / BOARD_PPM
    views, shown_plain = [], []
    for layout in layouts:
        frame, pose = photos[layout.index], poses[layout.index]
        # the frame's outermost pixels 0: rectify repeats them beyond the frame's edge
        inside = np.full(frame.shape[:2], 255, np.uint8)
        inside[[0, -1], :] = 0
        inside[:, [0, -1]] = 0
        unclipped = np.where(clipped_in[layout.index] > 0, 0, inside).astype(np.uint8)
        shown = rectify(unclipped, pose, BOARD_PPM, (g.board, g.board)) > 250
        for (cx, cy), face in zip(centres, layout.faces, strict=True):
            if face.kind != "empty":
                shown &= (xs - cx) ** 2 + (ys - cy) ** 2 > RING_MM[0] ** 2
        views.append(_lit_board(rectify(frame, pose, BOARD_PPM, (g.board, g.board)),
                                centres, grounds[layout.index], ground, gammas[layout.index]))
        shown_plain.append(shown)
    stack = np.stack(views).astype(np.float32)
    plain = np.stack(shown_plain)
    stack[~np.broadcast_to(plain[..., None], stack.shape)] = np.nan
    board = np.empty(stack.shape[1:], np.float32)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # a pixel no photo shows plain
        for top in range(0, size, BOARD_ROWS):  # a band at a time: the median copies its input
            board[top:top + BOARD_ROWS] = np.nanmedian(stack[:, top:top + BOARD_ROWS], axis=0)
    # nowhere shown plain (a socket the empty board's photo clipped): that photo as it is
    unseen = ~plain.any(axis=0)
    board[unseen] = views[0][unseen]
    return np.clip(board, 0, 255).astype(np.uint8)


def _sharpened(image: np.ndarray, blur_px: float) -> np.ndarray:
    """A face cut from a photo whose edges are ``blur_px`` wide (as the locator measured the
    board's), sharpened by as much (an unsharp mask of the same width): the renderer and the
    camera of play blur it again."""
    sigma = blur_px / EDGE_WIDTH_PER_SIGMA
    if sigma < 0.5:
        return image
    soft = cv2.GaussianBlur(image.astype(np.float32), (0, 0), sigma)
    return np.clip(image + UNSHARP * (image - soft), 0, 255).astype(np.uint8)


def _lit_evenly(image: np.ndarray, local: np.ndarray, ground: np.ndarray, gamma: float = 1.0,
                clip: bool = True) -> np.ndarray:
    """A face cut from a photo, its colours taken relative to the board's ground beside it
    (``local``, a colour or one per pixel) and put relative to the whole board's
    (``ground``): a shade, a warm lamp on one side, are taken off, so each face's art holds
    its print, not the light it lay in. The camera renders a colour as (gain * printed) **
    gamma (:mod:`companion.vision.tone`), so relative to the ground beside it as (printed /
    ground's print) ** gamma: the ratio is taken to 1 / ``gamma``, the photo's tone curve
    against the others' (:func:`_photo_gammas`). Left as float unless ``clip``."""
    ratio = image.astype(np.float32) / np.maximum(np.asarray(local, np.float32), 1.0)
    lit = ground * (ratio if gamma == 1.0 else np.power(ratio, np.float32(1.0 / gamma)))
    return np.clip(lit, 0, 255).astype(np.uint8) if clip else lit


def _cut_pawn(view: _CellView, bare: _CellView, differs: np.ndarray, ppm: float,
              token_mm: float) -> np.ndarray:
    """A shopper standing on the board (its cell's view, and the empty board's): a
    token-sized square around what differs from the empty board within its socket
    (``differs``: differences that hold whatever the camera clipped), transparent elsewhere.
    Its shadow is left out (the renderer and the light of play cast their own): ground that
    is only darker, its hue kept, than the rest of the socket is against the empty board's
    photo (so an overall change of light is no shadow), judged in the channels the camera did
    not clip on the ground there. So is a shadow's edge beside it that
    the empty board's photo did not have, and any speck far smaller than the pawn's largest
    part."""
    seen = view.image
    within = disc_mask(differs.shape[0], token_mm / 2 * PAWN_REACH * ppm)
    ratio = view.blurred / np.maximum(bare.blurred, 1.0)
    unchanged = within & ~differs
    if unchanged.any():
        ratio /= np.maximum(np.median(ratio[unchanged], axis=0), 1e-3)
        # a channel the camera clipped on the ground here tells nothing of how much darker a
        # shadow is: the others judge it
        clipped = np.median(seen[unchanged], axis=0) >= CLIPPED
        if not clipped.all():
            ratio = ratio[:, :, ~clipped]
    shade = ((ratio.max(axis=2) < SHADOW_RATIO[1]) & (ratio.min(axis=2) > SHADOW_RATIO[0])
             & (ratio.max(axis=2) - ratio.min(axis=2) < SHADOW_HUE))
    mask = (differs & within & ~shade).astype(np.uint8)
    mask = cv2.morphologyEx(mask, cv2.MORPH_CLOSE, np.ones((5, 5), np.uint8))
    mask = cv2.morphologyEx(mask, cv2.MORPH_OPEN, np.ones((3, 3), np.uint8))
    count, parts, stats, _ = cv2.connectedComponentsWithStats(mask)
    if count > 1:
        areas = stats[1:, cv2.CC_STAT_AREA]
        keep = 1 + np.nonzero(areas >= PAWN_PART * areas.max())[0]
        mask = np.isin(parts, keep).astype(np.uint8)
    ys, xs = np.nonzero(mask)
    cx, cy = (xs.mean(), ys.mean()) if len(xs) else ((seen.shape[1] - 1) / 2,) * 2
    half = FACE_PX / 2
    shift = np.float32([[1, 0, half - cx], [0, 1, half - cy]])
    image = cv2.warpAffine(np.clip(seen, 0, 255).astype(np.uint8), shift, (FACE_PX, FACE_PX),
                           borderMode=cv2.BORDER_REPLICATE)
    alpha = cv2.warpAffine(mask * 255, shift, (FACE_PX, FACE_PX))
    alpha = cv2.GaussianBlur(alpha, (0, 0), 1.0)
    return np.dstack([image, alpha])


def _profile(face: np.ndarray, ground: np.ndarray) -> np.ndarray:
    """A token face's colours ring by ring from its centre (turning it changes nothing),
    relative to the board's plain ground beside it (the light changes nothing either)."""
    size = face.shape[0]
    r = np.hypot(*(np.mgrid[0:size, 0:size] - (size - 1) / 2)) / (size / 2)
    rings = [face[(r >= lo) & (r < lo + 0.1), :3].mean(axis=0) for lo in np.arange(0, 0.9, 0.1)]
    return (np.array(rings) / np.maximum(ground, 1.0)).ravel()


def _sides_alike(faces: dict[str, np.ndarray], profiles: dict[str, np.ndarray],
                 where: dict[str, str]) -> list[str]:
    """Tokens whose two cuts show one face: each token's ingredient side and coin side,
    turned alike, correlate SIDES_ALIKE or better, so it lay the wrong way up in one of the
    photos. The one named is the cut nearer the other kind's average colours, ring by ring
    (:func:`_profile`: the coin sides of an edition share a design, and so, less, do the
    ingredient sides). A weak test, made before the long part: the model learnt is checked
    on the photos themselves afterwards."""
    sides: dict[str, dict[str, str]] = {}
    for name in profiles:
        kind, token = name.split(":", 1)
        sides.setdefault(token, {})[kind] = name
    means = {kind: np.mean([v for n, v in profiles.items() if n.startswith(kind + ":")], axis=0)
             for kind in ("ingredient", "coin")}
    problems = []
    for token, pair in sides.items():
        if len(pair) < 2 or _alike(faces[pair["ingredient"]], faces[pair["coin"]]) < SIDES_ALIKE:
            continue

        def nearer_other(kind: str, pair: dict[str, str] = pair) -> float:
            other = "coin" if kind == "ingredient" else "ingredient"
            value = profiles[pair[kind]]
            return float(np.linalg.norm(value - means[other])
                         / max(float(np.linalg.norm(value - means[kind])), 1e-6))

        kind = min(pair, key=nearer_other)
        other = "coin" if kind == "ingredient" else "ingredient"
        problems.append(f"{where[pair[kind]]}: {token} should lie {kind} side up, but the face "
                        f"looks like its {other} side, laid too at {where[pair[other]]}: turn "
                        "it over")
    return problems


def _alike(face: np.ndarray, other: np.ndarray) -> float:
    """How alike two cut faces (BGRA) are once turned alike: their correlation inside the
    disc, each colour channel standardised on its own."""
    mask = disc_mask(TURN_PX, TURN_PX / 2 * 0.9)

    def standard(image: np.ndarray) -> np.ndarray:
        small = cv2.resize(image[:, :, :3], (TURN_PX, TURN_PX), interpolation=cv2.INTER_AREA)
        values = small.astype(np.float32)[mask]
        return (values - values.mean(axis=0)) / (values.std(axis=0) + 1e-6)

    return float(np.mean(standard(_turned_onto(face, other)) * standard(other)))


def photo_crops(photos: dict[int, np.ndarray], layouts: list[Layout],
                poses: dict[int, np.ndarray], per_face: int, seed: int = 0,
                tone_art: Path | None = None) -> tuple[np.ndarray, np.ndarray]:
    """The reader's own crops of every cell of the photos, as the network sees cells in play
    (the camera, its light and blur as they are), each face ``per_face`` times (an empty cell
    a tenth as often): turned any way about the cell's centre, a few mm off it, a few percent
    larger or smaller, as tokens lie; with ``tone_art`` (the edition's art folder), mapped by
    the board's colours against its board, as the reader maps cells for a model that asks
    (tone.py). Returns (crops uint8 NHWC, label indices)."""
    from companion.vision.assets import label_names
    from companion.vision.geometry import BoardGeometry, rectify
    from companion.vision.tone import SHADE, measure_tone, tone_reference
    from companion.vision.train import CROP_MM, CROP_PX

    g = BoardGeometry.from_components()
    centres = g.centres.reshape(-1, 2)
    index = {n: i for i, n in enumerate(label_names())}
    rng = np.random.default_rng(seed)
    half = CROP_MM / 2
    crops, labels = [], []
    reference = tone_reference(g, tone_art) if tone_art is not None else None
    for layout in layouts:
        frame, pose = photos[layout.index], poses[layout.index]
        tone = measure_tone(frame, pose, reference, SHADE) if reference is not None else None
        luts = tone.luts(centres) if tone is not None else None
        for cell, face in enumerate(layout.faces):
            x0, y0 = centres[cell]
            for _ in range(per_face if face.kind != "empty" else max(1, per_face // 10)):
                turn = rng.uniform(0, 2 * np.pi)
                size = rng.uniform(0.96, 1.04)
                x, y = centres[cell] + rng.normal(0, 1.2, 2)
                c, s = np.cos(turn) * size, np.sin(turn) * size
                # the cell's square turned and scaled about its centre, moved to (x, y)
                about = np.array([[c, -s, x - c * x0 + s * y0],
                                  [s, c, y - s * x0 - c * y0], [0, 0, 1]])
                crop = rectify(frame, pose @ about, CROP_PX / CROP_MM, (CROP_MM, CROP_MM),
                               (x0 - half, y0 - half))
                crops.append(crop if luts is None else cv2.LUT(crop, luts[cell]))
                labels.append(index[face.name])
    return np.array(crops), np.array(labels)


def match_renderer(folder: Path, cut: CutFaces, rounds: int = LIGHT_ROUNDS) -> np.ndarray:
    """Scale an art folder's colours (channel by channel, in place) until the renderer,
    drawing the empty board with it, shows the ground as the photos did: the renderer lays
    its own light over the art, as the room did over the print, and art cut from photos
    already carries the room's (about two thirds as bright as the print, on this project's
    own renderer). The renderer's light is not a plain gain, so a few rounds. Never so far
    that faces the camera kept would clip (:func:`_headroom`): the renderer then shows the
    ground darker than the photos, which the tone mapping takes off. Returns the gains
    applied, all rounds together."""
    from companion.vision.assets import load_art
    from companion.vision.geometry import BoardGeometry
    from companion.vision.synth import SceneStyle, render_scene

    g = BoardGeometry.from_components()
    centres = g.centres.reshape(-1, 2)
    empty = [Label("empty")] * CELLS
    style = SceneStyle(hand_probability=0.0)
    total = np.ones(3, np.float32)
    for _ in range(rounds):
        load_art.cache_clear()  # the art is changed in place
        seen = [_ground_colours(s.frame, s.pose, centres) for s in (
            render_scene(np.random.default_rng([LIGHT_SEED, k]), empty, style=style,
                         art=folder) for k in range(LIGHT_SCENES))]
        gain = cut.ground / np.median(np.concatenate(seen), axis=0)
        art = {path: cv2.imread(str(path), cv2.IMREAD_UNCHANGED)
               for path in folder.glob("*.png")}
        faces = [image for path, image in art.items() if path.name != "board.png"]
        gain *= min(1.0, _headroom(faces) / float(gain.max()))
        total *= gain
        for path, image in art.items():
            image[:, :, :3] = np.clip(image[:, :, :3] * gain, 0, 255).astype(np.uint8)
            cv2.imwrite(str(path), image)
    load_art.cache_clear()
    return total


def _headroom(faces: list[np.ndarray]) -> float:
    """How much brighter faces (BGRA) may be made before those the camera kept clip:
    ART_TOP over the 99th percentile of their brightest channel, where they are opaque and
    below ART_TOP (at or above it, the camera or the cut had clipped them already)."""
    levels = []
    for image in faces:
        top = image[:, :, :3].max(axis=2)[image[:, :, 3] > 200]
        levels.append(top[top < ART_TOP])
    kept = np.concatenate(levels) if levels else np.zeros(0)
    return ART_TOP / max(float(np.percentile(kept, 99)), 1.0) if len(kept) else 1.0


def write_art(cut: CutFaces, folder: Path) -> None:
    """The edition's art folder: board.png and every face, with the bundled art's names."""
    folder.mkdir(parents=True, exist_ok=True)
    cv2.imwrite(str(folder / "board.png"), cut.board)
    for name, image in cut.faces.items():
        cv2.imwrite(str(folder / (Label.parse(name).art() or "")), image)


PHOTO_SUFFIXES = (".jpg", ".jpeg", ".png")  # in any case: cameras write .JPG, renderers .png


def load_photos(folder: Path, layouts: list[Layout]) -> dict[int, np.ndarray]:
    """The plan's photos from a folder (layout-00.jpg, ...; .jpeg or .png as well, the
    extension in any case).

    :raises EnrollError: naming each photo missing, unreadable or given twice.
    """
    from companion.vision.locate import VisionError
    from companion.vision.reader import read_image

    if not folder.is_dir():
        raise EnrollError([f"{folder} is not a folder: put the photos of the plan in one"])
    given: dict[str, list[Path]] = {}
    for path in sorted(folder.iterdir()):
        if path.is_file() and path.suffix.lower() in PHOTO_SUFFIXES:
            given.setdefault(path.stem.lower(), []).append(path)
    photos: dict[int, np.ndarray] = {}
    problems = []
    for layout in layouts:
        found = given.get(Path(layout.file_name).stem, [])
        if not found:
            problems.append(f"{layout.file_name} is missing from {folder}: take it as "
                            "`companion enroll plan` shows")
            continue
        if len(found) > 1:
            problems.append(f"{layout.file_name} is given {len(found)} times in {folder} "
                            f"({', '.join(p.name for p in found)}): keep only one")
            continue
        path = found[0]
        try:
            photos[layout.index] = read_image(path)
        except VisionError as exc:
            problems.append(str(exc))
    if problems:
        raise EnrollError(problems)
    return photos


def enroll(photos_dir: Path, out: Path, log: Any = print, config: Any = None, *,
           learn_anyway: bool = False, crops_from: Path | None = None) -> dict[str, Any]:
    """Teach the reader an edition from the plan's photos: cut every face and the board, train
    the network further on scenes drawn with them, and write a model folder for ``--model``
    (cells.onnx, cells.json, reader.yaml, art/). Nothing is written unless all of it works.
    Where the bundled model already reads the photos (:func:`knows_the_box`), the folder
    holds it and nothing is learnt, unless ``learn_anyway``. ``crops_from``: another set of
    photos of the same plan that the photos' own crops are taken from, the art still cut from
    ``photos_dir`` (to measure which of the two carries a camera's harm: bench_enroll.py
    ``--camera-for``).

    :raises EnrollError: naming what is wrong (a photo, its cells, the training extra missing,
        the folder already there).
    """
    import importlib.util

    from companion.vision.classify import default_model_dir
    from companion.vision.reader import ReaderConfig

    if out.is_dir() and any(out.iterdir()) or out.is_file():
        raise EnrollError([f"{out} already exists: choose a new folder for the model (or "
                           "delete that one)"])
    layouts = enrollment_plan()
    photos = load_photos(photos_dir, layouts)
    faces = sum(1 for lay in layouts for f in lay.faces if f.kind != "empty")
    log(f"finding the board and cutting {faces} faces from {len(layouts)} photos ...")
    cut = cut_faces(photos, layouts)
    base = default_model_dir()
    if not learn_anyway:
        log("reading your photos with the bundled model ...")
        bundled = read_photos(base, photos, layouts, cut.found)
        if knows_the_box(bundled):
            log(f"the bundled model reads {bundled.right} of the {bundled.total} cells of your "
                "photos as the plan has them, and none otherwise: your box is the edition it "
                "knows, and there is nothing to learn (--learn-anyway learns it all the same)")
            return keep_bundled(base, out, photos_dir, cut, bundled)
    sharp_mm = ReaderConfig.load(base / "reader.yaml").sharp_edge_mm
    # what the learning will make less of
    for warning in washed_out_warnings(cut) + blurred_warnings(cut, sharp_mm):
        log(f"note: {warning}")
    if importlib.util.find_spec("torch") is None or importlib.util.find_spec("onnx") is None:
        raise EnrollError(["the photos are good, but learning from them needs the training "
                           "extra (torch and onnx): pip install -e '.[train]' (on the kiosk: "
                           "sudo deploy/install-pi.sh --with-training), or enroll on a PC that "
                           "has it and copy the model folder to the kiosk; nothing was "
                           "written"])
    from companion.vision.train import FineTuneConfig, fine_tune

    with _model_folder(out) as work:
        write_art(cut, work / "art")
        log("matching the renderer's light to your photos' ...")
        match_renderer(work / "art", cut)
        cfg = config or FineTuneConfig()
        crop_photos, crop_poses = photos, cut.poses
        if crops_from is not None:
            crop_photos = load_photos(crops_from, layouts)
            crop_poses = cut_faces(crop_photos, layouts).poses
        extra = photo_crops(crop_photos, layouts, crop_poses, cfg.photo_crops_per_face,
                            tone_art=work / "art" if cfg.tone else None)
        meta = fine_tune(work, work / "art", base, cfg, log=log, extra=extra)
        (work / "reader.yaml").write_text(enrolled_reader_settings(
            (base / "reader.yaml").read_text(encoding="utf-8")), encoding="utf-8")
        log("reading your photos with what it learnt ...")
        read_right, wrong = check_on_photos(work, photos, layouts, cut.found)
        if wrong:
            raise EnrollError(wrong)
        meta["edition"] = {**_edition_meta(photos_dir, cut, read_right),
                           "photo_edge_mm": photo_edge_mm(cut),
                           "blurred": blurred_photos(cut, sharp_mm)}
        (work / "cells.json").write_text(json.dumps(meta, indent=1) + "\n", encoding="utf-8")
    return meta


@contextmanager
def _model_folder(out: Path) -> Iterator[Path]:
    """A work folder beside ``out`` to write a model folder in, renamed to ``out`` (empty or
    absent, checked by enroll) once all of it is written, and removed if anything fails."""
    import shutil
    import tempfile

    out.parent.mkdir(parents=True, exist_ok=True)
    work = Path(tempfile.mkdtemp(prefix=f".{out.name}.", dir=out.parent))
    try:
        yield work
        if out.is_dir():
            out.rmdir()
        work.rename(out)
    except BaseException:
        shutil.rmtree(work, ignore_errors=True)
        raise


def _edition_meta(photos_dir: Path, cut: CutFaces, read_right: str) -> dict[str, Any]:
    """What cells.json records of the photos an edition was enrolled from."""
    from datetime import UTC, datetime

    return {"photos": str(photos_dir.resolve()), "faces": len(cut.faces),
            "enrolled": datetime.now(UTC).isoformat(timespec="seconds"),
            "photo_cells_read_right": read_right, "washed_out": cut.washed_out}


# What an enrolled model's reader.yaml says in place of the stock lines of these settings.
ENROLLED_SETTINGS = {
    "second_look_below": """\
# Enrolled: every cell gets the second look. A network that learnt an edition from its photos
# alone is at times sure of a number that the crop, turned, does not show it; on five editions
# (two sets of 100 scenes each) the four turns averaged left 19 cells read wrong with
# confidence where the first look alone left 39, for 5 % more cells left unknown (docs/bench.md).
second_look_below: 1
""",
    "closer_look_within": """\
# Enrolled: the closer look compares the members within 0.8 of a face's radius. Each face is
# cut from a photo, and out there each cut holds its own photo's rim, light and blur: on two
# drawn editions, 95 % of where the cut faces differed past 0.8 was not where the print
# differs, and 2.5 % of the print's differences lie there. Compared out to the rim, the look
# overturned prices the network was sure of (docs/bench.md).
closer_look_within: 0.8
""",
    "closer_look_explains": """\
# Enrolled: the closer look settles a number only where the member it scores best agrees with
# the crop 0.85 or more where the members differ. Cut from photos, a face's art can match the
# face around a number that a hand, a glare or a look a little off hides: on five editions
# (three sets of 100 scenes each) 15 cells read wrong with confidence became 11, for 2 more
# cells left unknown (docs/bench.md).
closer_look_explains: 0.85
""",
    "beside_hand_above": """\
# Enrolled: a cell the network finds 0.03 or more likely to be a hand, beside a cell it finds a
# hand, is left unknown. Coins partly under a hand were read as another ingredient's, 82-96 %
# sure: on four drawn editions (five sets of 100 scenes each), 11 cells read wrong with
# confidence became 6, and no set kept more than one, for 20 clear cells more left unknown
# (docs/bench.md).
beside_hand_above: 0.03
""",
}


def enrolled_reader_settings(stock: str) -> str:
    """The stock reader.yaml as an enrolled model reads with it: every cell's second look,
    the closer look short of the faces' rims, settling only what its art explains, and a cell
    that shows some of a hand beside one left unknown (ENROLLED_SETTINGS)."""
    lines = stock.splitlines(keepends=True)
    for key, block in ENROLLED_SETTINGS.items():
        at = [i for i, line in enumerate(lines) if line.startswith(f"{key}:")]
        if len(at) != 1:
            raise EnrollError([f"the stock reader settings name {key} {len(at)} times, not "
                               "once: restore models/reader.yaml from the repository"])
        lines[at[0]] = block
    return "".join(lines)


def photo_edge_mm(cut: CutFaces) -> float:
    """How soft the photos were: the median width of the board's edge in them (mm), as the
    locator measures it in play. The reader softens a sharper frame to it (reader.soften)."""
    return round(float(np.median([found.edge_blur_mm for found in cut.found.values()])), 2)


WRONG_NAMED = 3  # more cells of the photos read wrong than this: the learning, not the tokens
# The bundled model reads at least this share of the photos' cells as the plan has them, and
# none otherwise: the box is the edition it knows. The plan shows every face, each in its own
# place and light, so this is every face of the box read right. On the bundled art's photos
# (bench_enroll.py's harsh light) it reads 199 of 200, the last left unknown; a drawn
# edition's it refuses as not enrolled.
KNOWN_BOX_READ_RIGHT = 0.99


@dataclass
class PhotosRead:
    """A model's reading of the plan's photos (the empty board's left out)."""

    right: int = 0  # cells read as the plan has them
    total: int = 0
    wrong: list[str] = field(default_factory=list)  # cells read as another face, each named
    refused: str = ""  # a photo the model does not read at all (its file name) ...
    why: str = ""  # ... and the reader's reason


def read_photos(model: Path | None, photos: dict[int, np.ndarray], layouts: list[Layout],
                found: dict[int, Any] | None = None) -> PhotosRead:
    """Read the plan's photos with a model (None: the bundled one), each as the first board
    it sees (its edition checked afresh)."""
    from companion.vision.assets import cell_label
    from companion.vision.reader import BoardReader

    reader = BoardReader(model, threads=1)
    read = PhotosRead()
    for layout in layouts[1:]:
        reader.edition_known = False
        reading = reader.read(photos[layout.index], (found or {}).get(layout.index))
        if reading.reason:
            read.refused, read.why = layout.file_name, reading.reason
            return read
        flat = [c for row in reading.cells for c in row]
        for index, (face, cell) in enumerate(zip(layout.faces, flat, strict=True)):
            read.total += 1
            name = cell_label(cell)
            if name == face.name:
                read.right += 1
            elif name != "unknown":
                read.wrong.append(f"{layout.file_name}, cell {cell_name(index)}: read as "
                                  f"{describe(Label.parse(name))} where the plan has "
                                  f"{describe(face)}: is that token on the right cell, the "
                                  "right side up?")
    return read


def knows_the_box(read: PhotosRead) -> bool:
    """Whether a model reads the plan's photos as the edition it knows: no photo refused, no
    cell read as another face, and KNOWN_BOX_READ_RIGHT of them read right."""
    return (not read.refused and not read.wrong and read.total > 0
            and read.right >= KNOWN_BOX_READ_RIGHT * read.total)


def keep_bundled(base: Path, out: Path, photos_dir: Path, cut: CutFaces,
                 read: PhotosRead) -> dict[str, Any]:
    """Write a model folder that holds the bundled network, settings and art (no art/ of its
    own) for a box the bundled model already reads; returns its metadata."""
    import shutil

    with _model_folder(out) as work:
        for name in ("cells.onnx", "reader.yaml"):
            shutil.copyfile(base / name, work / name)
        meta = json.loads((base / "cells.json").read_text(encoding="utf-8"))
        # no photo_edge_mm: the bundled network did not learn from the photos' softness
        meta["edition"] = {**_edition_meta(photos_dir, cut, f"{read.right}/{read.total}"),
                           "kept": "the bundled model: it reads every face of the photos"}
        (work / "cells.json").write_text(json.dumps(meta, indent=1) + "\n", encoding="utf-8")
    return meta


def check_on_photos(model: Path, photos: dict[int, np.ndarray], layouts: list[Layout],
                    found: dict[int, Any] | None = None) -> tuple[str, list[str]]:
    """Read the plan's photos with a model just learnt: how many cells it reads as the plan
    has them, and the problems (a cell read as another face: a token on the wrong cell, or
    the wrong way up; or many: the photos could not teach it)."""
    read = read_photos(model, photos, layouts, found)
    if read.refused:
        return "0", [f"{read.refused}: the model learnt does not read it ({read.why}); take "
                     "the photos again, in even light"]
    if len(read.wrong) > WRONG_NAMED:
        return f"{read.right}/{read.total}", [
            f"the model learnt reads {len(read.wrong)} cells of your photos wrong: take the "
            "photos again, in even light, each layout as the plan shows"]
    return f"{read.right}/{read.total}", read.wrong
