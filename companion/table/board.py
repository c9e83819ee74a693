"""Boards as the table compares them: 25 cell keys, row-major from the title side.

A key names what a cell shows (``ingredient:egg-2``, ``coin:egg-2``, ``cat:black:3``,
``cat-back:black``, ``shopper:black``, ``empty``); None is a cell the reader left unknown. Cats
of a colour no one plays (Stray's neutral cats) compare as ``neutral``: which of the unused
colours lies where is not recorded by the rules.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from companion.rules.food_alley.market import name

Keys = list[str | None]


def cell_key(cell: dict[str, Any], seated: Sequence[str]) -> str | None:
    """The comparable key of one cell in the reader's format (None: unknown)."""
    kind = cell.get("kind")
    if kind in (None, "unknown"):
        return None
    if kind in ("ingredient", "coin"):
        return f"{kind}:{cell['token']}"
    player = cell.get("player")
    if kind in ("cat", "cat-back") and player not in seated:
        player = "neutral"
    if kind == "cat":
        return f"cat:{player}:{cell['value']}"
    if kind in ("cat-back", "shopper"):
        return f"{kind}:{player}"
    return str(kind)


def board_keys(rows: list[list[dict[str, Any]]], seated: Sequence[str]) -> Keys:
    """The 25 keys of a board given as 5 rows of 5 cells."""
    return [cell_key(c, seated) for row in rows for c in row]


def describe(key: str | None) -> str:
    """A cell's content in words: 'egg-2', 'the coin egg-2', "black's cat 3", ..."""
    if key is None:
        return "unreadable"
    parts = key.split(":")
    kind = parts[0]
    if kind == "ingredient":
        return parts[1]
    if kind == "coin":
        return f"the coin {parts[1]}"
    if kind == "cat":
        owner = "a neutral" if parts[1] == "neutral" else f"{parts[1]}'s"
        return f"{owner} cat {parts[2]}"
    if kind == "cat-back":
        owner = "a neutral" if parts[1] == "neutral" else f"{parts[1]}'s"
        return f"{owner} cat face down"
    if kind == "shopper":
        return f"{parts[1]}'s shopper"
    return "nothing" if kind == "empty" else key


def differences(expected: Keys, seen: Keys) -> list[int]:
    """Cells where a known reading differs from the expected board."""
    return [i for i, (e, s) in enumerate(zip(expected, seen, strict=True))
            if s is not None and s != e]


def explain(expected: Keys, seen: Keys, cells: list[int]) -> list[str]:
    """One phrase per differing cell: 'c2 shows egg-2, the game has black's shopper there'."""
    return [f"{name(i)} shows {describe(seen[i])}, the game has {describe(expected[i])} there"
            for i in cells]
