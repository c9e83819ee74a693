"""Teaching the reader an edition of the game: the layouts to photograph.

A real box's tokens, cats and board look different from the art the reader ships with. To learn
them, the player photographs a few layouts on the rig: first the empty board, then layouts that
together show every face once: both sides of each token, each cat of each colour face up, a cat
of each colour face down, and each shopper. The plan is derived from the component list, so a
corrected list changes the plan, never the code.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any

import cv2
import numpy as np

from companion.rules.components import Components, food_alley
from companion.rules.food_alley.market import name as cell_name
from companion.vision.assets import Label

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
    """The layouts to photograph, the empty board first; every face in exactly one layout.

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
CENTRE_SEARCH_MM = 5.0  # how far from its cell's centre a token may lie
# a cell differs from the empty board where some colour channel differs by this much (grey
# levels, both blurred a little, matched on the ground between RING_MM from the cell's centre,
# outside the socket); occupied when the disc holds OCCUPIED_SHARE of such pixels, empty under
# EMPTY_SHARE (in between: unclear, named). On two drawn editions' photos (their light drawn
# afresh for each, glare and shadows included: harsher than a rig's), empty cells showed at
# most 0.16 (under a glare), tokens and pawns at least 0.26
DIFFERENT_BY = 25.0
RING_MM = (18.0, 19.5)
OCCUPIED_SHARE = 0.22
EMPTY_SHARE = 0.2
# a token face this many times nearer the other side's average colours, ring by ring, than its
# own side's (photos of three drawn editions: right faces 0.6 and more, one turned over 0.42)
OTHER_SIDE = 0.5


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
    from companion.vision.geometry import BoardGeometry, rectify
    from companion.vision.locate import BoardNotFoundError, Locator

    g = geometry or BoardGeometry.from_components()
    locator = locator or Locator(g)
    problems: list[str] = []
    poses: dict[int, np.ndarray] = {}
    for layout in layouts:
        frame = photos.get(layout.index)
        if frame is None:
            problems.append(f"{layout.file_name} is missing: take it as `companion enroll plan` "
                            "shows")
            continue
        try:
            poses[layout.index] = locator.locate(frame).pose
        except BoardNotFoundError as exc:
            problems.append(f"{layout.file_name}: no board found ({exc.reason})")
    if problems:
        raise EnrollError(problems)
    empty_frame, empty_pose = photos[0], poses[0]
    board = rectify(empty_frame, empty_pose, BOARD_PPM, (g.board, g.board))
    ppm = FACE_PX / g.token
    half = g.token / 2 + CENTRE_SEARCH_MM
    centres = g.centres.reshape(-1, 2)
    faces: dict[str, np.ndarray] = {}
    where: dict[str, str] = {}
    profiles: dict[str, np.ndarray] = {}
    bare_cells: dict[int, np.ndarray] = {}
    for layout in layouts[1:]:
        frame, pose = photos[layout.index], poses[layout.index]
        for index, face in enumerate(layout.faces):
            cx, cy = centres[index]
            origin = (cx - half, cy - half)
            seen = rectify(frame, pose, ppm, (2 * half, 2 * half), origin).astype(np.float32)
            if index not in bare_cells:  # the empty board's cell, cut once for every layout
                bare_cells[index] = rectify(empty_frame, empty_pose, ppm, (2 * half, 2 * half),
                                            origin).astype(np.float32)
            bare = bare_cells[index]
            size = seen.shape[0]
            ring = _disc_mask(size, RING_MM[1] * ppm) & ~_disc_mask(size, RING_MM[0] * ppm)
            differs = _differs(seen, bare, ring)
            share = float(differs[_disc_mask(size, g.token / 2 * 0.9 * ppm)].mean())
            place = f"{layout.file_name}, cell {cell_name(index)}"
            if face.kind == "empty":
                if share >= EMPTY_SHARE:
                    problems.append(f"{place}: should be empty, but something lies there")
                continue
            if share < OCCUPIED_SHARE:
                problems.append(f"{place}: {describe(face)} should lie here, but the cell "
                                f"looks {'empty' if share < EMPTY_SHARE else 'nearly empty'}")
                continue
            if face.kind == "shopper":
                cut = _cut_pawn(seen, differs, ppm, g.token)
            else:
                x, y = _token_centre(seen, g.token / 2 * ppm)
                at = (origin[0] + x / ppm - g.token / 2, origin[1] + y / ppm - g.token / 2)
                disc = rectify(frame, pose, ppm, (g.token, g.token), at)
                # short of the rim's outer edge, where the token's own shadow begins
                cut = np.dstack([disc, (_disc_mask(FACE_PX, FACE_PX / 2 * 0.97) * 255)
                                 .astype(np.uint8)])
                if face.kind in ("ingredient", "coin"):
                    profiles[face.name] = _profile(disc.astype(np.float32),
                                                   np.median(seen[ring], axis=0))
            faces[face.name] = cut
            where[face.name] = place
    problems += _sides_misplaced(profiles, where)
    if problems:
        raise EnrollError(problems)
    return CutFaces(board, faces, where)


def _differs(seen: np.ndarray, bare: np.ndarray, ring: np.ndarray) -> np.ndarray:
    """Where a cell's photo differs from the empty board's (both float BGR), once each colour
    channel is matched on the plain ground round the socket (``ring``): the light may differ a
    little between photos, in level and across the board."""
    a = cv2.GaussianBlur(seen, (0, 0), 2)
    b = cv2.GaussianBlur(bare, (0, 0), 2)
    a = a * (np.median(b[ring], axis=0) / np.maximum(np.median(a[ring], axis=0), 1.0))
    return np.abs(a - b).max(axis=2) > DIFFERENT_BY


@lru_cache(maxsize=16)
def _disc_mask(size: int, radius: float) -> np.ndarray:
    """Pixels of a size x size square within radius of its centre (the same few, every cell)."""
    r = np.arange(size) - (size - 1) / 2
    mask = (r[None, :] ** 2 + r[:, None] ** 2) <= radius ** 2
    mask.setflags(write=False)
    return mask


def _token_centre(crop: np.ndarray, radius_px: float) -> tuple[float, float]:
    """Where a token's rim lies in a cell's crop (px): the centre whose circle of the token's
    radius runs along the strongest edges, searched near the crop's centre (every 4 px, then
    every pixel near the best)."""
    grey = cv2.cvtColor(crop.astype(np.uint8), cv2.COLOR_BGR2GRAY).astype(np.float32)
    grey = cv2.GaussianBlur(grey, (0, 0), 1.5)
    edges = np.hypot(cv2.Sobel(grey, cv2.CV_32F, 1, 0), cv2.Sobel(grey, cv2.CV_32F, 0, 1))
    size = crop.shape[0]
    angles = np.linspace(0, 2 * np.pi, 90, endpoint=False)
    ring = (np.stack([np.cos(angles), np.sin(angles)], axis=1) * radius_px).astype(np.float32)
    at = np.array([(size - 1) / 2, (size - 1) / 2], np.float32)
    for step, span in ((4.0, size / 2 - radius_px - 2), (1.0, 4.0)):
        offsets = np.arange(-span, span + 0.1, step, dtype=np.float32)
        grid = np.stack(np.meshgrid(offsets, offsets), axis=-1).reshape(-1, 2) + at
        points = grid[:, None, :] + ring[None]  # (centres, 90, 2)
        inside = (points.min(axis=(1, 2)) >= 0) & (points.max(axis=(1, 2)) <= size - 1)
        if not inside.any():
            break
        grid, points = grid[inside], points[inside]
        scores = cv2.remap(edges, points[..., 0], points[..., 1], cv2.INTER_LINEAR).mean(axis=1)
        at = grid[int(np.argmax(scores))]
    return float(at[0]), float(at[1])


def _cut_pawn(seen: np.ndarray, differs: np.ndarray, ppm: float, token_mm: float
              ) -> np.ndarray:
    """A shopper standing on the board: a token-sized square around what differs from the
    empty board, transparent elsewhere."""
    mask = cv2.morphologyEx(differs.astype(np.uint8), cv2.MORPH_OPEN, np.ones((5, 5), np.uint8))
    count, parts, stats, _ = cv2.connectedComponentsWithStats(mask)
    if count > 1:
        largest = 1 + int(np.argmax(stats[1:, cv2.CC_STAT_AREA]))
        mask = (parts == largest).astype(np.uint8)
    ys, xs = np.nonzero(mask)
    cx, cy = (xs.mean(), ys.mean()) if len(xs) else ((seen.shape[1] - 1) / 2,) * 2
    half = FACE_PX / 2
    shift = np.float32([[1, 0, half - cx], [0, 1, half - cy]])
    image = cv2.warpAffine(seen.astype(np.uint8), shift, (FACE_PX, FACE_PX),
                           borderMode=cv2.BORDER_REPLICATE)
    alpha = cv2.warpAffine(mask * 255, shift, (FACE_PX, FACE_PX))
    alpha = cv2.GaussianBlur(cv2.dilate(alpha, np.ones((5, 5), np.uint8)), (0, 0), 1.5)
    return np.dstack([image, alpha])


def _profile(face: np.ndarray, ground: np.ndarray) -> np.ndarray:
    """A token face's colours ring by ring from its centre (turning it changes nothing),
    relative to the board's plain ground beside it (the light changes nothing either)."""
    size = face.shape[0]
    r = np.hypot(*(np.mgrid[0:size, 0:size] - (size - 1) / 2)) / (size / 2)
    rings = [face[(r >= lo) & (r < lo + 0.1), :3].mean(axis=0) for lo in np.arange(0, 0.9, 0.1)]
    return (np.array(rings) / np.maximum(ground, 1.0)).ravel()


def _sides_misplaced(profiles: dict[str, np.ndarray], where: dict[str, str]) -> list[str]:
    """Tokens whose face looks like the other side's kind: the coin sides of an edition share
    one design (a rim, the value), and so do the ingredient sides; a face OTHER_SIDE times
    nearer the other kind's average than its own (each average without the face itself) lies
    the wrong way up. A weak test, made before the long part: the model learnt is checked on
    the photos themselves afterwards."""
    kinds = {kind: {n: v for n, v in profiles.items() if n.startswith(kind + ":")}
             for kind in ("ingredient", "coin")}
    if any(len(group) < 3 for group in kinds.values()):
        return []
    totals = {kind: sum(group.values()) for kind, group in kinds.items()}
    problems = []
    for kind, other in (("ingredient", "coin"), ("coin", "ingredient")):
        for name, value in kinds[kind].items():
            own = (totals[kind] - value) / (len(kinds[kind]) - 1)
            theirs = totals[other] / len(kinds[other])
            if np.linalg.norm(value - theirs) < OTHER_SIDE * np.linalg.norm(value - own):
                token = name.split(":", 1)[1]
                problems.append(f"{where[name]}: {token} should lie {kind} side up, but the "
                                f"face looks like a {other} side: turn it over")
    return problems


def write_art(cut: CutFaces, folder: Path) -> None:
    """The edition's art folder: board.png and every face, with the bundled art's names."""
    folder.mkdir(parents=True, exist_ok=True)
    cv2.imwrite(str(folder / "board.png"), cut.board)
    for name, image in cut.faces.items():
        cv2.imwrite(str(folder / (Label.parse(name).art() or "")), image)


def load_photos(folder: Path, layouts: list[Layout]) -> dict[int, np.ndarray]:
    """The plan's photos from a folder (layout-00.jpg, ...).

    :raises EnrollError: naming each photo missing or unreadable.
    """
    from companion.vision.locate import VisionError
    from companion.vision.reader import read_image

    if not folder.is_dir():
        raise EnrollError([f"{folder} is not a folder: put the photos of the plan in one"])
    photos: dict[int, np.ndarray] = {}
    problems = []
    for layout in layouts:
        path = folder / layout.file_name
        if not path.is_file():
            problems.append(f"{layout.file_name} is missing from {folder}: take it as "
                            "`companion enroll plan` shows")
            continue
        try:
            photos[layout.index] = read_image(path)
        except VisionError as exc:
            problems.append(str(exc))
    if problems:
        raise EnrollError(problems)
    return photos


def enroll(photos_dir: Path, out: Path, log: Any = print, config: Any = None) -> dict[str, Any]:
    """Teach the reader an edition from the plan's photos: cut every face and the board, train
    the network further on scenes drawn with them, and write a model folder for ``--model``
    (cells.onnx, cells.json, reader.yaml, art/). Nothing is written unless all of it works.

    :raises EnrollError: naming what is wrong (a photo, its cells, the training extra missing,
        the folder already there).
    """
    import importlib.util
    import shutil
    import tempfile
    from datetime import UTC, datetime

    from companion.vision.classify import default_model_dir

    if out.is_dir() and any(out.iterdir()) or out.is_file():
        raise EnrollError([f"{out} already exists: choose a new folder for the model (or "
                           "delete that one)"])
    layouts = enrollment_plan()
    photos = load_photos(photos_dir, layouts)
    faces = sum(1 for lay in layouts for f in lay.faces if f.kind != "empty")
    log(f"finding the board and cutting {faces} faces from {len(layouts)} photos ...")
    cut = cut_faces(photos, layouts)
    if importlib.util.find_spec("torch") is None or importlib.util.find_spec("onnx") is None:
        raise EnrollError(["the photos are good, but learning from them needs the training "
                           "extra (torch and onnx): pip install -e '.[train]', or enroll on a "
                           "PC that has it and copy the model folder to the kiosk; nothing "
                           "was written"])
    from companion.vision.train import FineTuneConfig, fine_tune

    base = default_model_dir()
    out.parent.mkdir(parents=True, exist_ok=True)
    work = Path(tempfile.mkdtemp(prefix=f".{out.name}.", dir=out.parent))
    try:
        write_art(cut, work / "art")
        meta = fine_tune(work, work / "art", base, config or FineTuneConfig(), log=log)
        shutil.copy(base / "reader.yaml", work / "reader.yaml")
        log("reading your photos with what it learnt ...")
        read_right, wrong = check_on_photos(work, photos, layouts)
        if wrong:
            raise EnrollError(wrong)
        meta["edition"] = {"photos": str(photos_dir.resolve()), "faces": len(cut.faces),
                           "enrolled": datetime.now(UTC).isoformat(timespec="seconds"),
                           "photo_cells_read_right": read_right}
        (work / "cells.json").write_text(json.dumps(meta, indent=1) + "\n", encoding="utf-8")
        if out.is_dir():
            out.rmdir()  # empty, checked above
        work.rename(out)
    except BaseException:
        shutil.rmtree(work, ignore_errors=True)
        raise
    return meta


WRONG_NAMED = 3  # more cells of the photos read wrong than this: the learning, not the tokens


def check_on_photos(model: Path, photos: dict[int, np.ndarray], layouts: list[Layout]
                    ) -> tuple[str, list[str]]:
    """Read the plan's photos with a model just learnt: how many cells it reads as the plan
    has them, and the problems (a cell read as another face: a token on the wrong cell, or
    the wrong way up; or many: the photos could not teach it)."""
    from companion.vision.assets import cell_label
    from companion.vision.reader import BoardReader

    reader = BoardReader(model, threads=1)
    right = total = 0
    wrong: list[str] = []
    for layout in layouts[1:]:
        reader.edition_known = False
        reading = reader.read(photos[layout.index])
        if reading.reason:
            return "0", [f"{layout.file_name}: the model learnt does not read it "
                         f"({reading.reason}); take the photos again, in even light"]
        flat = [c for row in reading.cells for c in row]
        for index, (face, cell) in enumerate(zip(layout.faces, flat, strict=True)):
            total += 1
            name = cell_label(cell)
            if name == face.name:
                right += 1
            elif name != "unknown":
                wrong.append(f"{layout.file_name}, cell {cell_name(index)}: read as "
                             f"{describe(Label.parse(name))} where the plan has "
                             f"{describe(face)}: is that token on the right cell, the right "
                             "side up?")
    if len(wrong) > WRONG_NAMED:
        return f"{right}/{total}", [f"the model learnt reads {len(wrong)} cells of your photos "
                                   "wrong: take the photos again, in even light, each layout "
                                   "as the plan shows"]
    return f"{right}/{total}", wrong
