"""Actions shared by the Food Alley modes: chance outcomes that the table supplies."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from companion.rules.components import Components
from companion.rules.food_alley.market import Cell, name, parse_cell
from companion.rules.protocol import Action, action, json_field


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


@action(None, "draw", "draw {token}")
class Draw(Action):
    """Chance: the token that came out of the bag."""

    token: str


@action(None, "cat", "cat {value}")
class RevealCat(Action):
    """Chance: the value of the cat taken from the player's face-down, shuffled supply."""

    value: int


def cell_field(**kw: Any) -> Any:
    """An action's field that holds a cell, written as its name (a1 ... e5)."""
    return json_field(encode=name, decode=parse_cell, **kw)


def cells_field(*, sort: bool = False) -> Any:
    """An action's field that holds cells, written as their names; ``sort``: read back in
    order (a set of cells, not a path)."""
    def read(names: list[str]) -> tuple[Cell, ...]:
        cells = tuple(parse_cell(n) for n in names)
        return tuple(sorted(cells)) if sort else cells

    return json_field(encode=lambda cells: [name(c) for c in cells], decode=read)


def sorted_field(**kw: Any) -> Any:
    """An action's field that holds a set of names (tokens, recipes), read back sorted."""
    return json_field(decode=lambda names: tuple(sorted(str(n) for n in names)), **kw)


def board_tokens(cells: list[Any]) -> Iterator[str]:
    """The ids of the tokens lying on the market (cells holding ``("t", id, face)``)."""
    return (x[1] for x in cells if x is not None and x[0] == "t")


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
