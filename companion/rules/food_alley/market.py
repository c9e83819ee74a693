"""The 5x5 market: cells, orthogonal neighbours, rows, columns and the four sides.

Cells are numbered row-major, 0..24; row 0 is the side whose top-left corner carries the title.
Each side has five slots, one beside each row or column end, where a grocery list (Shopper) lies.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from enum import Enum, StrEnum

SIZE = 5
CELLS = tuple(range(SIZE * SIZE))

Cell = int


def cell(row: int, col: int) -> Cell:
    return row * SIZE + col


def row_col(c: Cell) -> tuple[int, int]:
    return divmod(c, SIZE)


def name(c: Cell) -> str:
    """Cell name as players say it: column letter a-e, row number 1-5 from the title side."""
    r, col = row_col(c)
    return f"{'abcde'[col]}{r + 1}"


def parse_cell(text: str) -> Cell:
    text = text.strip().lower()
    if len(text) != 2 or text[0] not in "abcde" or text[1] not in "12345":
        raise ValueError(f"cell {text!r} must be a column a-e and a row 1-5, like 'c3'")
    return cell(int(text[1]) - 1, "abcde".index(text[0]))


class Direction(Enum):
    NORTH = (-1, 0)
    EAST = (0, 1)
    SOUTH = (1, 0)
    WEST = (0, -1)

    @property
    def left(self) -> Direction:
        return _LEFT[self]

    @property
    def right(self) -> Direction:
        return _RIGHT[self]


_ORDER = [Direction.NORTH, Direction.EAST, Direction.SOUTH, Direction.WEST]
_RIGHT = {d: _ORDER[(i + 1) % 4] for i, d in enumerate(_ORDER)}
_LEFT = {d: _ORDER[(i - 1) % 4] for i, d in enumerate(_ORDER)}


class Side(StrEnum):
    """The four sides, clockwise from the title side."""

    TOP = "top"
    RIGHT = "right"
    BOTTOM = "bottom"
    LEFT = "left"


SIDES = (Side.TOP, Side.RIGHT, Side.BOTTOM, Side.LEFT)
_EXIT = {Direction.NORTH: Side.TOP, Direction.EAST: Side.RIGHT, Direction.SOUTH: Side.BOTTOM,
         Direction.WEST: Side.LEFT}
_INWARD = {Side.TOP: Direction.SOUTH, Side.RIGHT: Direction.WEST, Side.BOTTOM: Direction.NORTH,
           Side.LEFT: Direction.EAST}


@dataclass(frozen=True)
class Slot:
    """A place beside the board: a side and the row or column it lies at (0-4)."""

    side: Side
    index: int

    def __str__(self) -> str:
        return f"{self.side.value}-{self.index + 1}"

    @property
    def entry(self) -> Cell:
        """The board cell next to this slot."""
        i = self.index
        return {Side.TOP: cell(0, i), Side.RIGHT: cell(i, SIZE - 1),
                Side.BOTTOM: cell(SIZE - 1, i), Side.LEFT: cell(i, 0)}[self.side]

    @property
    def inward(self) -> Direction:
        return _INWARD[self.side]


ALL_SLOTS = tuple(Slot(side, i) for side in SIDES for i in range(SIZE))


def step(c: Cell, d: Direction) -> Cell | None:
    """The neighbouring cell in a direction, or None off the board."""
    r, col = row_col(c)
    dr, dc = d.value
    r, col = r + dr, col + dc
    if 0 <= r < SIZE and 0 <= col < SIZE:
        return cell(r, col)
    return None


def exit_slot(c: Cell, d: Direction) -> Slot:
    """The slot a shopper passes when leaving the board from c in direction d."""
    r, col = row_col(c)
    side = _EXIT[d]
    return Slot(side, col if side in (Side.TOP, Side.BOTTOM) else r)


def _neighbours(c: Cell) -> tuple[Cell, ...]:
    return tuple(n for d in _ORDER if (n := step(c, d)) is not None)


_NEIGHBOURS = tuple(_neighbours(c) for c in CELLS)


def neighbours(c: Cell) -> tuple[Cell, ...]:
    """Orthogonally adjacent cells."""
    return _NEIGHBOURS[c]


def line_slots(c: Cell) -> tuple[Slot, ...]:
    """The four slots at the ends of the cell's row and column (rulebook: Claim)."""
    r, col = row_col(c)
    return (Slot(Side.TOP, col), Slot(Side.RIGHT, r), Slot(Side.BOTTOM, col), Slot(Side.LEFT, r))


def corners() -> tuple[Cell, ...]:
    last = SIZE - 1
    return (cell(0, 0), cell(0, last), cell(last, last), cell(last, 0))


def centre() -> Cell:
    return cell(SIZE // 2, SIZE // 2)


class Bag:
    """The bag: a multiset of token ids. Draws are chance steps, so it only adds and removes."""

    def __init__(self, ids: list[str] | None = None) -> None:
        self._ids: Counter[str] = Counter(ids or [])

    def __contains__(self, token_id: object) -> bool:
        return self._ids.get(token_id, 0) > 0  # type: ignore[call-overload]

    def __len__(self) -> int:
        return sum(self._ids.values())

    def add(self, token_id: str) -> None:
        self._ids[token_id] += 1

    def remove(self, token_id: str) -> None:
        if self._ids.get(token_id, 0) <= 0:
            raise KeyError(token_id)
        self._ids[token_id] -= 1
        if not self._ids[token_id]:
            del self._ids[token_id]

    def contents(self) -> list[str]:
        """Sorted ids (the bag has no order: a draw is a chance step)."""
        return sorted(self._ids.elements())
