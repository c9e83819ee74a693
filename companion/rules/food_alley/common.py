"""Actions shared by the Food Alley modes: chance outcomes that the table supplies."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar

from companion.rules.components import Components
from companion.rules.protocol import Action


def player_colours(components: Components, players: int, colours: Any, mode: str,
                   least: int = 2, most: int = 4) -> list[str]:
    """The seat colours of a new game, checked: one different colour per player.

    :raises ValueError: naming what is wrong.
    """
    if not least <= players <= most:
        raise ValueError(f"{mode} is for {least} to {most} players, not {players}")
    chosen = list(colours or components.player_colours[:players])
    if len(chosen) != players or len(set(chosen)) != players or any(
            c not in components.player_colours for c in chosen):
        raise ValueError(f"need {players} different player colours from "
                         f"{list(components.player_colours)}, got {chosen}")
    return chosen


@dataclass(frozen=True)
class Draw(Action):
    """Chance: the token that came out of the bag."""

    token: str
    kind: ClassVar[str] = "draw"

    def to_json(self) -> dict[str, Any]:
        return {"type": self.kind, "token": self.token}

    @classmethod
    def from_json(cls, d: dict[str, Any]) -> Draw:
        return cls(str(d["token"]))

    def __str__(self) -> str:
        return f"draw {self.token}"


@dataclass(frozen=True)
class RevealCat(Action):
    """Chance: the value of the cat taken from the player's face-down, shuffled supply."""

    value: int
    kind: ClassVar[str] = "cat"

    def to_json(self) -> dict[str, Any]:
        return {"type": self.kind, "value": self.value}

    @classmethod
    def from_json(cls, d: dict[str, Any]) -> RevealCat:
        return cls(int(d["value"]))

    def __str__(self) -> str:
        return f"cat {self.value}"


def camera_cell(kind: str, token: str | None = None, player: str | None = None,
                value: int | None = None) -> dict[str, Any]:
    """One cell of the board as the camera should see it, in the reader's cell format
    (``companion scan --json``): ``kind`` is empty, ingredient, coin, cat, cat-back or shopper."""
    return {"kind": kind, "token": token, "player": player, "value": value}


def camera_rows(cells: list[dict[str, Any]]) -> list[list[dict[str, Any]]]:
    """25 cells, row-major from the title side, as 5 rows of 5."""
    return [cells[r * 5:(r + 1) * 5] for r in range(5)]


def neutral_colours(components: Components, seated: list[str]) -> list[str]:
    """The player colours no one plays, in the component list's order (Stray's neutral cats)."""
    return [c for c in components.player_colours if c not in seated]
