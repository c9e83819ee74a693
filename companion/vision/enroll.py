"""Teaching the reader an edition of the game: the layouts to photograph.

A real box's tokens, cats and board look different from the art the reader ships with. To learn
them, the player photographs a few layouts on the rig: first the empty board, then layouts that
together show every face once: both sides of each token, each cat of each colour face up, a cat
of each colour face down, and each shopper. The plan is derived from the component list, so a
corrected list changes the plan, never the code.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from companion.rules.components import Components, food_alley
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
