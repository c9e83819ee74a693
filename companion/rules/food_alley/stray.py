"""Food Alley, Stray mode (rulebook: "Stray").

Two sets of five rounds, one per column: players place cats face down on the active column's
ingredients, then the column resolves (reveal, exact matches, collect, conflicts, territories,
immediate areas). After each set, conflicts resolve from the top. The city quarters' layout comes
from the component list (``stray_city_quarters``); no area is placed by code.

The flow is a queue of tasks: automatic ones run at once, the others wait for a player's decision
or for a chance outcome from the table. Readings of unclear sentences: docs/rules/stray.md.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from typing import Any, ClassVar

from companion.rules.components import ComponentError, Components, Token, Trait, food_alley
from companion.rules.food_alley.common import (
    Draw,
    RevealCat,
    camera_cell,
    camera_rows,
    cell_field,
    neutral_colours,
    player_colours,
)
from companion.rules.food_alley.market import CELLS, SIZE, Bag, Cell, cell, name, parse_cell
from companion.rules.protocol import (
    CHANCE,
    TERMINAL,
    Action,
    ActionCodec,
    ChanceOutcomeError,
    ComponentIndex,
    GameState,
    IllegalMoveError,
    Score,
    StateFormatError,
    action,
    check_each_once,
    jsonable,
)

GAME_ID = "food-alley/stray"
MIN_PLAYERS, MAX_PLAYERS = 2, 4
COLUMNS = "abcde"
NEUTRAL = -1

UPPER_EFFECTS = {"same-ingredient", "same-colour", "trash"}
IMMEDIATE = {"trash-with-rats", "roof", "upper-backyard", "lower-backyard"}
SELLERS = {"seller-4-same", "seller-6-different", "seller-odd", "seller-even"}
WINNER_EFFECTS = {"vp_end", "replace_paw", "gain_ingredient"}
LOSER_EFFECTS = {"strength", "vp_end", "swap_ingredient", "discard_ingredient"}

codec = ActionCodec()
codec.register(Draw)
codec.register(RevealCat)


# --- the city quarters, from data ------------------------------------------------------------


@dataclass(frozen=True)
class ConflictArea:
    slot: int
    winner: dict[str, Any]
    loser: dict[str, Any]


@dataclass(frozen=True)
class Quarters:
    """The layout of the city quarters and conflict areas (component list)."""

    upper: tuple[tuple[str, int], ...]  # (area id, VP per match), top to bottom
    lower: tuple[tuple[str, ...], ...]  # per column, top to bottom
    conflicts: tuple[ConflictArea, ...]

    @classmethod
    def load(cls, components: Components) -> Quarters:
        raw = components.stray_city_quarters
        try:
            upper = tuple((str(a["id"]), int(a["per_match"])) for a in raw["upper_areas"])
            lower = tuple(tuple(str(a) for a in col) for col in raw["lower_areas_by_column"])
            conflicts = tuple(ConflictArea(int(c["slot"]), dict(c["winner"]), dict(c["loser"]))
                              for c in raw["conflict_areas"])
        except (KeyError, TypeError, ValueError) as exc:
            raise ComponentError(f"component list, stray_city_quarters: malformed ({exc!r})") \
                from exc
        if len(lower) != SIZE:
            raise ComponentError("component list, stray_city_quarters: need lower areas for 5 "
                                 f"columns, found {len(lower)}")
        for area, _ in upper:
            if area not in UPPER_EFFECTS:
                raise ComponentError(f"component list, stray upper area {area!r}: unknown; "
                                     f"known: {sorted(UPPER_EFFECTS)}")
        for col in lower:
            for area in col:
                if area not in IMMEDIATE | SELLERS:
                    raise ComponentError(f"component list, stray lower area {area!r}: unknown; "
                                         f"known: {sorted(IMMEDIATE | SELLERS)}")
        for c in conflicts:
            bad = (set(c.winner) - WINNER_EFFECTS) | (set(c.loser) - LOSER_EFFECTS)
            if bad:
                raise ComponentError(f"component list, stray conflict area {c.slot}: unknown "
                                     f"effects {sorted(bad)}")
        if sorted(c.slot for c in conflicts) != list(range(1, len(conflicts) + 1)):
            raise ComponentError("component list, stray conflict areas: slots must be 1..N")
        return cls(upper, lower, conflicts)

    def areas(self, col: int) -> list[str]:
        """Every area key of a column, top to bottom: 'c:roof', 'c:same-colour', ..."""
        return [f"{COLUMNS[col]}:{a}" for a, _ in self.upper] + [
            f"{COLUMNS[col]}:{a}" for a in self.lower[col]]

    def conflict(self, slot: int) -> ConflictArea:
        return next(c for c in self.conflicts if c.slot == slot)


def area_column(key: str) -> int:
    return COLUMNS.index(key.split(":", 1)[0])


def area_kind(key: str) -> str:
    return key.split(":", 1)[1]


# --- actions -------------------------------------------------------------------------------


@action(codec, "place-cat", "cat {value} on {cell}")
class PlaceCat(Action):
    """Place one of your cats face down on an ingredient of the active column."""

    cell: Cell = cell_field()
    value: int


@action(codec, "conflict", "conflict area {slot}")
class ChooseConflict(Action):
    """The involved player with the topmost cat chooses an empty conflict area."""

    slot: int


@action(codec, "claim-area", "claim {area}")
class ClaimArea(Action):
    """Claim a territory above or below the column with a paw."""

    area: str


@action(codec, "swap-cat", "swap the cat on {cell} for cat {value}")
class SwapCat(Action):
    """Upper backyard: swap your cat on a cell with a cat of this value from your supply."""

    cell: Cell = cell_field()
    value: int


@action(codec, "swap-ingredient", "swap {token} with {cell}")
class SwapIngredient(Action):
    """Swap one of your ingredients with the ingredient on a board cell."""

    token: str
    cell: Cell = cell_field()


@action(codec, "take-ingredient", "take the ingredient on {cell}")
class TakeIngredient(Action):
    """Gain the ingredient on a board cell."""

    cell: Cell = cell_field()


@action(codec, "discard", "discard {token}")
class Discard(Action):
    """Discard one of your ingredients to the bag."""

    token: str


@action(codec, "move-paw")
class MovePaw(Action):
    """Replace one of your paws: move it from a territory to a free one (None, None: keep)."""

    source: str | None
    target: str | None

    def __str__(self) -> str:
        return f"move the paw from {self.source} to {self.target}" if self.source else "keep paws"


_CHANCE_TASKS = {"fill", "reference", "start-draw", "neutral", "refill"}
_DECISIONS = {
    "place": "a cat placed face down on the active column (PlaceCat)",
    "conflict": "an empty conflict area chosen (ChooseConflict)",
    "claim": "a territory claimed (ClaimArea)",
    "immediate": "the immediate area's swap (SwapCat or SwapIngredient)",
    "effect": "a conflict effect (TakeIngredient, SwapIngredient, Discard or MovePaw)",
}


class StrayState(GameState):
    """One game of Food Alley in Stray mode."""

    GAME_ID: ClassVar[str] = GAME_ID
    TIEBREAKS: ClassVar[tuple[str, ...]] = (  # the order scores() breaks ties in
        "fewer lost conflicts",
        "more chicken tokens",
    )
    codec: ClassVar[ActionCodec] = codec
    SEAT_COLOURS: ClassVar[tuple[str, ...]] = food_alley().player_colours
    _SHARED: ClassVar[frozenset[str]] = GameState._SHARED | {"quarters"}

    def __init__(self, players: int, seed: int, options: dict[str, Any],
                 components: Components) -> None:
        super().__init__(players, seed, options)
        self.components = components
        self.quarters = Quarters.load(components)
        self.token = ComponentIndex("token", "components", components.tokens)
        self.names: list[str] = list(options["colours"])
        self.variant = bool(options["neutral_fights"])
        self.rows = players + 1  # 2p: upper 3 rows, 3p: 4, 4p: all 5
        self.cells: list[str | None] = [None] * len(CELLS)
        self.cats: dict[Cell, list[Any]] = {}  # cell -> [owner, value or None, face up]
        self.bag = Bag([t.id for t in components.tokens])
        self.reference: list[str | None] = [None] * SIZE
        self.supply: list[list[int]] = [sorted(components.cat_values) for _ in range(players)]
        self.collection: list[list[str]] = [[] for _ in range(players)]
        self.vp_exact = [0] * players
        self.vp_uncontested = [0] * players
        self.territory: dict[str, int] = {}
        self.fights: dict[str, list[int]] = {}  # conflict slot -> participants this set
        self.neutral_fighter: dict[str, int] = {}  # conflict slot -> the neutral cat's value
        self.results: list[dict[str, Any]] = []  # resolved conflicts, for scoring
        neutral_cats = len(components.cat_values) * (len(components.player_colours) - players)
        on_board = SIZE * (SIZE - self.rows)
        last = max(0, neutral_cats - on_board)
        slots = sorted((c.slot for c in self.quarters.conflicts), reverse=True)
        self.blocked: list[int] = slots[:last]  # "the last of these ... in the 4th and 3rd spot"
        self.neutral_pool: list[int] = sorted(
            list(components.cat_values) * (len(components.player_colours) - players))
        self.roof: dict[str, list[int]] = {}  # column letter -> roof holders playing last there
        self.set_no = 1
        self.col_order = list(range(SIZE))
        self.col_pos = 0
        self.start_player: int | None = None
        self.last_order: list[int] = []
        self.conflict_cats: dict[str, int] = {}
        self.strength: dict[str, int] = {}
        self.tasks: list[dict[str, Any]] = []
        self.end_reason: str | None = None
        self._narrative: list[str] = []

    @classmethod
    def new(cls, players: int, seed: int, **options: Any) -> StrayState:
        components: Components = options.pop("components", None) or food_alley()
        colours = player_colours(components, players, options.get("colours"), "Stray",
                                 MIN_PLAYERS, MAX_PLAYERS)
        variant = options.get("neutral_fights", players == 2)
        state = cls(players, seed, {"colours": colours, "neutral_fights": variant}, components)
        state._setup()
        return state

    # --- helpers ------------------------------------------------------------------------
    def player_name(self, player: int) -> str:
        return self.names[player] if player >= 0 else "neutral"

    def column_cells(self, col: int, *, player_rows: bool = True) -> list[Cell]:
        rows = range(self.rows) if player_rows else range(SIZE)
        return [cell(r, col) for r in rows]

    def uncovered(self) -> list[Cell]:
        """Board cells with an ingredient and no cat on it."""
        return [c for c in CELLS if self.cells[c] is not None and c not in self.cats]

    def vp(self, player: int) -> int:
        """The VP track: points gained during play (exact matches, uncontested cats)."""
        return self.vp_exact[player] + self.vp_uncontested[player]

    def _say(self, text: str) -> None:
        self._narrative.append(text)

    # --- setup --------------------------------------------------------------------------
    def _setup(self) -> None:
        for r in range(self.rows, SIZE):
            for col in range(SIZE):
                self.cats[cell(r, col)] = [NEUTRAL, None, False]
        fill = [c for r in range(self.rows) for c in (cell(r, col) for col in range(SIZE))]
        self.tasks = [
            {"t": "fill", "cells": fill},
            {"t": "reference", "col": 0},
            {"t": "start-draw", "contenders": list(range(self.players)), "drawn": {}},
        ]

    # --- who acts -----------------------------------------------------------------------
    @property
    def task(self) -> dict[str, Any] | None:
        return self.tasks[0] if self.tasks else None

    @property
    def phase(self) -> str:
        return self.tasks[0]["t"] if self.tasks else "over"

    def current_player(self) -> int:
        task = self.task
        if task is None:
            return TERMINAL
        if task["t"] in _CHANCE_TASKS:
            return CHANCE
        if task["t"] == "place":
            return int(task["order"][0])
        return int(task["player"])

    def is_terminal(self) -> bool:
        return not self.tasks

    # --- chance -------------------------------------------------------------------------
    def _draw_pool(self) -> list[str]:
        ids = self.bag.contents()
        if self.phase == "reference":  # "If you draw a Sambal or Tofu, ... draw again"
            ids = [t for t in ids if not self._sambal_or_tofu(self.token(t))]
        return ids

    @staticmethod
    def _sambal_or_tofu(token: Token) -> bool:
        return token.is_wild(Trait.INGREDIENT) or token.is_wild(Trait.COLOUR)

    def chance_outcomes(self) -> list[tuple[Action, float]]:
        if self.phase == "neutral":
            pool = Counter(self.neutral_pool)
            total = sum(pool.values())
            return [(RevealCat(v), n / total) for v, n in sorted(pool.items())]
        if self.phase in _CHANCE_TASKS:
            ids = self._draw_pool()
            return [(Draw(t), 1 / len(ids)) for t in ids]
        return []

    def sample_chance(self) -> Action:
        rng = self.rng.next()
        if self.phase == "neutral":
            return RevealCat(rng.choice(self.neutral_pool))
        if self.phase in _CHANCE_TASKS:
            return Draw(rng.choice(self._draw_pool()))
        raise IllegalMoveError("turn order", "no chance step is pending")

    # --- legal moves --------------------------------------------------------------------
    def _compute_legal(self) -> list[Action]:
        task = self.task
        if task is None or task["t"] in _CHANCE_TASKS:
            return []
        p = self.current_player()
        kind = task["t"]
        if kind == "place":
            cells = [c for c in self.column_cells(task["col"]) if c not in self.cats]
            return [PlaceCat(c, v) for c in cells for v in sorted(set(self.supply[p]))]
        if kind == "conflict":
            return [ChooseConflict(s) for s in self.empty_conflicts()]
        if kind == "claim":
            return [ClaimArea(a) for a in self.free_areas(task["col"])]
        if kind == "immediate":
            return self._swap_options(p, task["area"])
        if kind == "effect":
            return self._effect_options(p, task["effect"])
        raise AssertionError(kind)

    def empty_conflicts(self) -> list[int]:
        return [c.slot for c in self.quarters.conflicts
                if c.slot not in self.blocked and str(c.slot) not in self.fights]

    def free_areas(self, col: int) -> list[str]:
        return [a for a in self.quarters.areas(col) if a not in self.territory]

    def _board_cats(self, p: int) -> list[Cell]:
        return sorted(c for c, (owner, _, _) in self.cats.items() if owner == p)

    def _swap_options(self, p: int, area: str) -> list[Action]:
        if area_kind(area) == "upper-backyard":
            return [SwapCat(c, v) for c in self._board_cats(p) for v in sorted(set(self.supply[p]))
                    if v != self.cats[c][1]]
        return [SwapIngredient(t, c) for t in sorted(set(self.collection[p]))
                for c in self.uncovered()]

    def _effect_options(self, p: int, effect: str) -> list[Action]:
        if effect == "gain_ingredient":
            return [TakeIngredient(c) for c in self.uncovered()]
        if effect == "swap_ingredient":
            return [SwapIngredient(t, c) for t in sorted(set(self.collection[p]))
                    for c in self.uncovered()]
        if effect == "discard_ingredient":
            return [Discard(t) for t in sorted(set(self.collection[p]))]
        if effect == "replace_paw":
            mine = sorted(a for a, q in self.territory.items() if q == p)
            free = [a for col in range(SIZE) for a in self.free_areas(col)]
            return [MovePaw(None, None)] + [MovePaw(s, t) for s in mine for t in free]
        raise AssertionError(effect)

    # --- checking -----------------------------------------------------------------------
    def _check(self, action: Action) -> None:
        task = self.task
        assert task is not None
        if task["t"] in _CHANCE_TASKS:
            self._check_chance(action)
            return
        if action in self.legal_actions():
            return
        p = self.current_player()
        wants = _DECISIONS.get(task["t"], task["t"])
        if isinstance(action, PlaceCat) and task["t"] == "place":
            if action.value not in self.supply[p]:
                raise IllegalMoveError("Placing Cats", f"{self.names[p]} has no cat of value "
                                       f"{action.value} behind the screen", move=action)
            raise IllegalMoveError(
                "Placing Cats", f"a cat goes on an uncovered ingredient of column "
                f"{COLUMNS[task['col']].upper()}, not on {name(action.cell)}", move=action)
        if isinstance(action, ChooseConflict) and task["t"] == "conflict":
            raise IllegalMoveError("Resolve Conflicts", f"conflict area {action.slot} is not "
                                   f"empty; empty: {self.empty_conflicts()}", move=action)
        if isinstance(action, ClaimArea) and task["t"] == "claim":
            raise IllegalMoveError("Claim Territory", f"{action.area} is not a free area above "
                                   f"or below column {COLUMNS[task['col']].upper()}", move=action)
        raise IllegalMoveError("turn structure", f"the game now waits for {wants}", move=action)

    def _check_chance(self, action: Action) -> None:
        if self.phase == "neutral":
            if not isinstance(action, RevealCat) or action.value not in self.neutral_pool:
                raise ChanceOutcomeError("chance", "no face-down neutral cat of that value is "
                                         f"left (left: {self.neutral_pool})", move=action)
            return
        if not isinstance(action, Draw):
            raise ChanceOutcomeError("chance", "the table must supply a token drawn from the bag",
                                     move=action)
        if action.token not in self.bag:
            raise ChanceOutcomeError("chance", f"{action.token} is not in the bag; check the "
                                     "reading", move=action)
        if self.phase == "reference" and self._sambal_or_tofu(self.token(action.token)):
            raise ChanceOutcomeError("Stray Setup", f"{action.token}: a sambal or tofu goes back "
                                     "to the bag and another token is drawn", move=action)

    # --- hidden information ------------------------------------------------------------
    def _private_to(self, action: Action) -> int | None:
        return self.current_player() if isinstance(action, PlaceCat) else None

    def _public_text(self, action: Action) -> str:
        assert isinstance(action, PlaceCat)
        who = self.names[self.current_player()]
        return f"{who} places a cat face down on {name(action.cell)}"

    # --- applying -----------------------------------------------------------------------
    def _apply(self, action: Action) -> str | tuple[str, str]:
        self._narrative = []
        task = self.task
        assert task is not None
        private: tuple[str, str] | None = None
        if isinstance(action, Draw):
            text = self._apply_draw(task, action.token)
        elif isinstance(action, RevealCat):
            text = self._apply_neutral(task, action.value)
        elif isinstance(action, PlaceCat):
            p = self.current_player()
            self.supply[p].remove(action.value)
            self.cats[action.cell] = [p, action.value, False]
            task["order"].pop(0)
            if not task["order"]:
                self.tasks.pop(0)
                self._queue_resolution(task["col"])
            private = (f"{self.names[p]} places cat {action.value} face down on "
                       f"{name(action.cell)}",
                       f"{self.names[p]} places a cat face down on {name(action.cell)}")
            text = ""
        elif isinstance(action, ChooseConflict):
            self.tasks.pop(0)
            text = self._enter_conflict(task, action.slot)
        elif isinstance(action, ClaimArea):
            self.tasks.pop(0)
            self.territory[action.area] = task["player"]
            text = f"{self.names[task['player']]} claims {action.area}"
        elif isinstance(action, SwapCat):
            self.tasks.pop(0)
            p = task["player"]
            old = self.cats[action.cell][1]
            self.supply[p].remove(action.value)
            self.supply[p].append(old)
            self.supply[p].sort()
            self.cats[action.cell] = [p, action.value, True]
            text = (f"{self.names[p]} (upper backyard) swaps cat {old} on {name(action.cell)} "
                    f"for cat {action.value}")
        elif isinstance(action, SwapIngredient):
            self.tasks.pop(0)
            p = task["player"]
            board = self.cells[action.cell]
            assert board is not None
            self.collection[p].remove(action.token)
            self.collection[p].append(board)
            self.cells[action.cell] = action.token
            text = f"{self.names[p]} swaps {action.token} for {board} on {name(action.cell)}"
        elif isinstance(action, TakeIngredient):
            self.tasks.pop(0)
            p = task["player"]
            got = self.cells[action.cell]
            assert got is not None
            self.cells[action.cell] = None
            self.collection[p].append(got)
            text = f"{self.names[p]} gains {got} from {name(action.cell)}"
        elif isinstance(action, Discard):
            self.tasks.pop(0)
            p = task["player"]
            self.collection[p].remove(action.token)
            self.bag.add(action.token)
            text = f"{self.names[p]} discards {action.token}"
        elif isinstance(action, MovePaw):
            self.tasks.pop(0)
            p = task["player"]
            if action.source is None:
                text = f"{self.names[p]} keeps their paws where they are"
            else:
                del self.territory[action.source]
                self.territory[action.target] = p  # type: ignore[index]
                text = f"{self.names[p]} moves a paw from {action.source} to {action.target}"
        else:
            raise AssertionError(action)
        self._run()
        tail = "; ".join(self._narrative)
        if private is not None:
            return tuple(f"{part}{'; ' + tail if tail else ''}" for part in private)  # type: ignore[return-value]
        return f"{text}{'; ' + tail if tail else ''}"

    def _apply_draw(self, task: dict[str, Any], token_id: str) -> str:
        self.bag.remove(token_id)
        kind = task["t"]
        if kind in ("fill", "refill"):
            c = task["cells"].pop(0)
            self.cells[c] = token_id
            if not task["cells"] or not len(self.bag):
                self.tasks.pop(0)
            return f"{token_id} fills {name(c)}"
        if kind == "reference":
            col = task["col"]
            self.reference[col] = token_id
            task["col"] += 1
            if task["col"] == SIZE:
                self.tasks.pop(0)
            return f"{token_id} is the reference token of column {COLUMNS[col].upper()}"
        assert kind == "start-draw"
        drawn: dict[str, str] = task["drawn"]
        player = next(q for q in task["contenders"] if str(q) not in drawn)
        drawn[str(player)] = token_id
        text = f"{self.names[player]} draws {token_id} (value {self.token(token_id).coin})"
        if len(drawn) == len(task["contenders"]):
            for t in drawn.values():
                self.bag.add(t)
            best = max(self.token(t).coin for t in drawn.values())
            tied = [q for q in task["contenders"] if self.token(drawn[str(q)]).coin == best]
            if len(tied) == 1:
                self.tasks.pop(0)
                self.start_player = tied[0]
                text += f"; {self.names[tied[0]]} starts"
                self._start_column(self._clockwise(tied[0]))
            else:
                task["contenders"], task["drawn"] = tied, {}
                text += "; tie, " + ", ".join(self.names[q] for q in tied) + " draw again"
        return text

    def _clockwise(self, first: int) -> list[int]:
        return [(first + k) % self.players for k in range(self.players)]

    def _start_column(self, order: list[int]) -> None:
        """Turn order for the active column: the roof holders play last."""
        col = self.col_order[self.col_pos]
        roof = [p for p in order if p in self.roof.get(COLUMNS[col], [])]
        order = [p for p in order if p not in roof] + roof
        self.tasks.append({"t": "place", "col": col, "order": order, "look": roof})

    def _queue_resolution(self, col: int) -> None:
        top_neutral = self._neutral_in(col)
        at = 0
        if top_neutral is not None and self.cats[top_neutral][1] is None:
            self.tasks.insert(at, {"t": "neutral", "col": col})
            at += 1
        self.tasks.insert(at, {"t": "resolve", "col": col})

    def _neutral_in(self, col: int) -> Cell | None:
        """2-player variant: the topmost neutral cat of the column fights (never scores)."""
        if not self.variant:
            return None
        for r in range(self.rows, SIZE):
            c = cell(r, col)
            if c in self.cats and self.cats[c][0] == NEUTRAL:
                return c
        return None

    def _apply_neutral(self, task: dict[str, Any], value: int) -> str:
        c = self._neutral_in(task["col"])
        assert c is not None
        self.neutral_pool.remove(value)
        self.cats[c] = [NEUTRAL, value, True]
        self.tasks.pop(0)
        return f"the neutral cat on {name(c)} is revealed: {value}"

    # --- the automatic steps ------------------------------------------------------------
    def _run(self) -> None:
        """Run automatic tasks until a decision or a chance step is due (or the game ends)."""
        while self.tasks:
            task = self.tasks[0]
            kind = task["t"]
            if kind in _CHANCE_TASKS:
                if kind in ("fill", "refill") and (not task["cells"] or not len(self.bag)):
                    self.tasks.pop(0)
                    continue
                return
            if kind in ("place", "claim", "conflict", "immediate", "effect"):
                if kind == "conflict" and task["player"] == NEUTRAL:
                    self.tasks.pop(0)
                    empty = self.empty_conflicts()
                    self._enter_conflict(task, empty[0]) if empty else None
                    continue
                if not self._compute_legal():
                    if kind == "place":  # no cat or no space left for this player: skip them
                        self._say(f"{self.names[task['order'].pop(0)]} cannot place a cat")
                        if task["order"]:
                            continue
                        self.tasks.pop(0)
                        self._queue_resolution(task["col"])
                        continue
                    self.tasks.pop(0)
                    if kind == "conflict":
                        self._say("no empty conflict area: no conflict")
                    continue
                return
            self.tasks.pop(0)
            getattr(self, "_task_" + kind.replace("-", "_"))(task)

    def _task_resolve(self, task: dict[str, Any]) -> None:
        """Reveal, exact matches, collect, then conflicts, territories and immediate areas."""
        col = task["col"]
        self._reveals = True
        placed = [(r, self.cats[cell(r, col)]) for r in range(SIZE)
                  if cell(r, col) in self.cats and self.cats[cell(r, col)][0] >= 0]
        fighters: list[tuple[int, int, int]] = []  # (value, row, owner)
        reveal = []
        for r, cat in placed:
            owner, value = cat[0], cat[1]
            cat[2] = True
            c = cell(r, col)
            reveal.append(f"{self.names[owner]} {value}")
            token_id = self.cells[c]
            if token_id is not None:
                token = self.token(token_id)
                if token.price == value or token.is_wild(Trait.PRICE):
                    self.vp_exact[owner] += 1
                    reveal[-1] += " (exact +1)"
                self.collection[owner].append(token_id)
                self.cells[c] = None
            fighters.append((value, r, owner))
        n = self._neutral_in(col)
        if n is not None and self.cats[n][1] is not None:
            fighters.append((self.cats[n][1], n // SIZE, NEUTRAL))
        self._say(f"column {COLUMNS[col].upper()} reveals " + ", ".join(reveal))
        counts = Counter(v for v, _, _ in fighters)
        follow: list[dict[str, Any]] = []
        for value in sorted((v for v, k in counts.items() if k > 1), reverse=True):
            group = sorted((r, o) for v, r, o in fighters if v == value)
            follow.append({"t": "conflict", "col": col, "value": value,
                           "group": [o for _, o in group], "player": group[0][1]})
        for value, _, owner in sorted(fighters, reverse=True):
            if counts[value] == 1 and owner != NEUTRAL:
                follow.append({"t": "claim", "col": col, "player": owner})
        follow.append({"t": "immediates", "col": col})
        follow.append({"t": "next"})
        self.last_order = [o for _, _, o in sorted(fighters, key=lambda f: f[1]) if o >= 0]
        self.tasks[0:0] = follow

    def _enter_conflict(self, task: dict[str, Any], slot: int) -> str:
        """Paws into the chosen conflict area; the neutral cat fights with its value."""
        group = task["group"]
        self.fights[str(slot)] = list(group)
        if NEUTRAL in group:
            self.neutral_fighter[str(slot)] = task["value"]
        who = ", ".join(self.player_name(o) for o in group)
        text = f"{who} ({task['value']}) go into conflict area {slot}"
        if task["player"] == NEUTRAL:
            self._say(text + " (the neutral cat chose)")
        return text

    def _task_immediates(self, task: dict[str, Any]) -> None:
        """Immediate areas of the column resolve top to bottom (paws of both sets)."""
        col = task["col"]
        follow = []
        for area in self.quarters.areas(col):
            holder = self.territory.get(area)
            if holder is None or area_kind(area) not in IMMEDIATE:
                continue
            kind = area_kind(area)
            if kind == "trash-with-rats":
                left = [c for c in self.column_cells(col) if self.cells[c] and c not in self.cats]
                for c in left:
                    self.collection[holder].append(self.cells[c])  # type: ignore[arg-type]
                    self._say(f"{self.names[holder]} (trash with rats) takes {self.cells[c]}")
                    self.cells[c] = None
            elif kind == "roof":
                later = self.col_order[self.col_pos + 1:]
                for adj in (col - 1, col + 1):
                    if adj in later:
                        holders = self.roof.setdefault(COLUMNS[adj], [])
                        if holder not in holders:
                            holders.append(holder)
                            self._say(f"{self.names[holder]} (roof) plays last in column "
                                      f"{COLUMNS[adj].upper()}")
            else:
                follow.append({"t": "immediate", "col": col, "area": area, "player": holder})
        self.tasks[0:0] = follow

    def _task_next(self, task: dict[str, Any]) -> None:
        self.col_pos += 1
        if self.col_pos < SIZE:
            self._start_column(list(self.last_order))
        else:
            self.tasks.insert(0, {"t": "set-end"})

    def _task_set_end(self, task: dict[str, Any]) -> None:
        """The last cats go into the conflict area in the fifth column's turn order; conflicts
        resolve from the top; players in none score their cat."""
        self._reveals = True
        order = list(self.last_order)
        self.conflict_cats = {str(p): self.supply[p][0] for p in order if self.supply[p]}
        self.strength = {str(p): 0 for p in order}
        self.tasks[0:0] = [{"t": "fight", "slot": c.slot, "order": order}
                           for c in self.quarters.conflicts if str(c.slot) in self.fights]
        self.tasks.insert(len(self.tasks), {"t": "uncontested", "order": order})
        self.tasks.append({"t": "new-set"} if self.set_no == 1 else {"t": "final"})
        self._say("conflict cats: " + ", ".join(
            f"{self.names[int(p)]} {v}" for p, v in self.conflict_cats.items()))

    def _task_fight(self, task: dict[str, Any]) -> None:
        slot = task["slot"]
        area = self.quarters.conflict(slot)
        order: list[int] = task["order"]
        parts = self.fights[str(slot)]

        def power(o: int) -> tuple[int, int]:
            if o == NEUTRAL:
                return (self.neutral_fighter[str(slot)], -len(order))  # loses ties
            strength = self.conflict_cats.get(str(o), 0) + self.strength[str(o)]
            return (strength, -order.index(o))

        winner = max(parts, key=power)
        losers = [o for o in order if o in parts and o != winner]
        self.results.append({"set": self.set_no, "slot": slot, "winner": winner,
                             "losers": losers})
        self._say(f"conflict {slot}: " + ", ".join(
            f"{self.player_name(o)} {power(o)[0]}" for o in parts) +
            f"; {self.player_name(winner)} wins")
        follow = []
        if winner != NEUTRAL:
            for effect in ("replace_paw", "gain_ingredient"):
                if area.winner.get(effect):
                    follow.append({"t": "effect", "player": winner, "effect": effect})
        for o in losers:
            if o == NEUTRAL:
                continue
            self.strength[str(o)] += int(area.loser.get("strength", 0))
            for effect in ("swap_ingredient", "discard_ingredient"):
                if area.loser.get(effect):
                    follow.append({"t": "effect", "player": o, "effect": effect})
        self.tasks[0:0] = follow

    def _task_uncontested(self, task: dict[str, Any]) -> None:
        fighting = {o for parts in self.fights.values() for o in parts}
        for p in task["order"]:
            if p not in fighting and str(p) in self.conflict_cats:
                gain = self.conflict_cats[str(p)] + self.strength[str(p)]
                self.vp_uncontested[p] += gain
                self._say(f"{self.names[p]} is in no conflict: +{gain} VP")

    def _task_new_set(self, task: dict[str, Any]) -> None:
        """New Round: cats back, the board refilled, the last on the VP track starts, columns
        right to left."""
        self.set_no = 2
        for c in [c for c, cat in self.cats.items() if cat[0] >= 0]:
            del self.cats[c]
        self.supply = [sorted(self.components.cat_values) for _ in range(self.players)]
        self.fights, self.neutral_fighter, self.roof = {}, {}, {}
        self.conflict_cats, self.strength = {}, {}
        self.col_order = list(reversed(range(SIZE)))
        self.col_pos = 0
        previous = self.start_player or 0
        lowest = min(self.vp(p) for p in range(self.players))
        self.start_player = next(p for p in self._clockwise(previous) if self.vp(p) == lowest)
        self._say(f"second set: {self.names[self.start_player]} starts (last on the VP track)")
        empty = [c for r in range(self.rows) for c in (cell(r, col) for col in range(SIZE))
                 if self.cells[c] is None]
        if empty:
            self.tasks.insert(0, {"t": "refill", "cells": empty})
        self._start_column(self._clockwise(self.start_player))

    def _task_final(self, task: dict[str, Any]) -> None:
        self.end_reason = "both sets are played"
        self.tasks.clear()

    # --- scoring ------------------------------------------------------------------------
    def _upper_score(self, p: int, key: str, per_match: int) -> int:
        ref = self.token(self.reference[area_column(key)])  # type: ignore[arg-type]
        kind = area_kind(key)
        count = 0
        for t in map(self.token, self.collection[p]):
            same_ingredient = t.ingredient == ref.ingredient or t.is_wild(Trait.INGREDIENT)
            same_colour = t.colour == ref.colour or t.is_wild(Trait.COLOUR)
            if kind == "same-ingredient":
                count += same_ingredient
            elif kind == "same-colour":
                count += same_colour
            else:  # trash: ingredient and/or colour; tofu and sambal always count
                count += same_ingredient or same_colour
        return count * per_match

    def _seller_score(self, p: int, kind: str) -> int:
        tokens = [self.token(t) for t in self.collection[p]]
        rice = sum(t.is_wild(Trait.PRICE) for t in tokens)
        prices = Counter(t.price for t in tokens if not t.is_wild(Trait.PRICE))
        if kind == "seller-4-same":
            return 7 if max(prices.values(), default=0) + rice >= 4 else 0
        if kind == "seller-6-different":
            return 6 if len(prices) + rice >= 6 else 0
        want = 1 if kind == "seller-odd" else 0
        return rice + sum(n for price, n in prices.items() if price % 2 == want)

    def lost_conflicts(self, p: int) -> int:
        return sum(p in r["losers"] for r in self.results)

    def scores(self) -> list[Score]:
        """Final Scoring (Stray); tie-breakers: fewest lost conflicts, then most chicken tokens
        (sambal not counting)."""
        per_match = dict(self.quarters.upper)
        out = []
        for p in range(self.players):
            upper = sellers = 0
            for key, holder in self.territory.items():
                if holder != p:
                    continue
                kind = area_kind(key)
                if kind in per_match:
                    upper += self._upper_score(p, key, per_match[kind])
                elif kind in SELLERS:
                    sellers += self._seller_score(p, kind)
            conflicts = 0
            for r in self.results:
                area = self.quarters.conflict(r["slot"])
                if r["winner"] == p:
                    conflicts += int(area.winner.get("vp_end", 0))
                if p in r["losers"]:
                    conflicts += int(area.loser.get("vp_end", 0))
            chicken = sum(self.token(t).ingredient == "chicken" for t in self.collection[p])
            breakdown = {"exact_matches": self.vp_exact[p],
                         "uncontested_cats": self.vp_uncontested[p],
                         "upper_areas": upper, "sellers": sellers, "conflicts": conflicts}
            out.append(Score(p, sum(breakdown.values()), breakdown,
                             (-self.lost_conflicts(p), chicken)))
        return out

    # --- views --------------------------------------------------------------------------
    def _can_see(self, player: int | None, c: Cell) -> bool:
        owner, value, up = self.cats[c]
        if value is None:
            return False
        if up or (player is not None and owner == player):
            return True
        task = self.task
        return (player is not None and task is not None and task["t"] == "place"
                and player in task["look"] and c % SIZE == task["col"]
                and (player == task["order"][0] or player not in task["order"]))

    def view(self, player: int | None) -> dict[str, Any]:
        """What a player sees: face-down cats only if their own, or with the roof's look."""
        board = []
        for c in CELLS:
            entry: dict[str, Any] = {"cell": name(c), "token": self.cells[c]}
            if c in self.cats:
                owner, value, up = self.cats[c]
                entry["cat"] = self.player_name(owner)
                entry["face"] = "up" if up else "down"
                entry["value"] = value if self._can_see(player, c) else None
            board.append(entry)
        seats = []
        for q in range(self.players):
            own = player == q
            seats.append({
                "colour": self.names[q],
                "vp": self.vp(q),
                "cats": sorted(self.supply[q]) if own else len(self.supply[q]),
                "collection": sorted(self.collection[q]),
                "lost_conflicts": self.lost_conflicts(q),
            })
        task = self.task
        return {
            "game": GAME_ID,
            "you": None if player is None else self.names[player],
            "phase": self.phase,
            "set": self.set_no,
            "column": None if task is None or "col" not in task else COLUMNS[task["col"]],
            "to_act": (self.player_name(cp) if (cp := self.current_player()) >= 0 or cp == NEUTRAL
                       else ("table" if cp == CHANCE else None)),
            "board": board,
            "reference": list(self.reference),
            "territory": {k: self.names[v] for k, v in sorted(self.territory.items())},
            "conflicts": {k: [self.player_name(o) for o in v] for k, v in self.fights.items()},
            "blocked_conflicts": list(self.blocked),
            "conflict_cats": ({self.names[int(p)]: v for p, v in self.conflict_cats.items()}
                              if self.conflict_cats else {}),
            "bag": len(self.bag),
            "players": seats,
        }

    def camera_board(self) -> list[list[dict[str, Any]]]:
        """The 5x5 market as the camera should see it now: a cat hides the ingredient under it;
        a face-down cat is its owner's back. Neutral cats (fewer than 4 players) are of the
        colours no one plays, one colour a row in the component list's order
        (docs/rules/stray.md)."""
        neutral = neutral_colours(self.components, self.names) or ["neutral"]
        out = []
        for c in CELLS:
            token = self.cells[c]
            if c in self.cats:
                owner, value, up = self.cats[c]
                colour = (self.names[owner] if owner >= 0
                          else neutral[(c // SIZE - self.rows) % len(neutral)])
                out.append(camera_cell("cat", player=colour, value=value) if up
                           else camera_cell("cat-back", player=colour))
            elif token is None:
                out.append(camera_cell("empty"))
            else:
                out.append(camera_cell("ingredient", token=token))
        return camera_rows(out)

    def token_places(self) -> dict[str, str]:
        places: dict[str, str] = {}
        for c in CELLS:
            if self.cells[c] is not None:
                places[self.cells[c]] = f"board:{name(c)}"  # type: ignore[index]
        for t in self.bag.contents():
            places[t] = "bag"
        for col, t in enumerate(self.reference):
            if t is not None:
                places[t] = f"reference:{COLUMNS[col]}"
        for q in range(self.players):
            for t in self.collection[q]:
                places[t] = f"collection:{self.names[q]}"
        task = self.task
        if task is not None and task["t"] == "start-draw":
            for q, t in task["drawn"].items():
                places[t] = f"drawn:{self.names[int(q)]}"
        return places

    # --- persistence --------------------------------------------------------------------
    def _state_json(self) -> dict[str, Any]:
        return {
            "cells": list(self.cells),
            "cats": {name(c): list(v) for c, v in sorted(self.cats.items())},
            "bag": self.bag.contents(),
            "reference": list(self.reference),
            "supply": [list(s) for s in self.supply],
            "collection": [list(c) for c in self.collection],
            "vp_exact": list(self.vp_exact),
            "vp_uncontested": list(self.vp_uncontested),
            "territory": dict(sorted(self.territory.items())),
            "fights": {k: list(v) for k, v in self.fights.items()},
            "neutral_fighter": dict(self.neutral_fighter),
            "results": [dict(r) for r in self.results],
            "blocked": list(self.blocked),
            "neutral_pool": list(self.neutral_pool),
            "roof": {k: list(v) for k, v in self.roof.items()},
            "set_no": self.set_no,
            "col_order": list(self.col_order),
            "col_pos": self.col_pos,
            "start_player": self.start_player,
            "last_order": list(self.last_order),
            "conflict_cats": dict(self.conflict_cats),
            "strength": dict(self.strength),
            "tasks": [jsonable(t) for t in self.tasks],
            "end_reason": self.end_reason,
        }

    def _load_state_json(self, d: dict[str, Any]) -> None:
        self.cells = list(d["cells"])
        self.cats = {parse_cell(k): list(v) for k, v in d["cats"].items()}
        self.bag = Bag(list(d["bag"]))
        self.reference = list(d["reference"])
        self.supply = [list(s) for s in d["supply"]]
        self.collection = [list(c) for c in d["collection"]]
        self.vp_exact = list(d["vp_exact"])
        self.vp_uncontested = list(d["vp_uncontested"])
        self.territory = dict(d["territory"])
        self.fights = {k: list(v) for k, v in d["fights"].items()}
        self.neutral_fighter = dict(d["neutral_fighter"])
        self.results = [dict(r) for r in d["results"]]
        self.blocked = list(d["blocked"])
        self.neutral_pool = list(d["neutral_pool"])
        self.roof = {k: list(v) for k, v in d["roof"].items()}
        self.set_no = d["set_no"]
        self.col_order = list(d["col_order"])
        self.col_pos = d["col_pos"]
        self.start_player = d["start_player"]
        self.last_order = list(d["last_order"])
        self.conflict_cats = dict(d["conflict_cats"])
        self.strength = dict(d["strength"])
        self.tasks = [dict(t) for t in d["tasks"]]
        self.end_reason = d["end_reason"]
        self.check_conservation()

    def check_conservation(self) -> None:
        """Each of the 54 tokens is in exactly one place; each player has 6 cats."""
        seen: Counter[str] = Counter(t for t in self.cells if t is not None)
        seen.update(self.bag.contents())
        seen.update(t for t in self.reference if t is not None)
        for c in self.collection:
            seen.update(c)
        task = self.task
        if task is not None and task["t"] == "start-draw":
            seen.update(task["drawn"].values())
        check_each_once(seen.elements(), self.token.ids(), "token")
        for p in range(self.players):
            on_board = sum(1 for cat in self.cats.values() if cat[0] == p)
            if on_board + len(self.supply[p]) != len(self.components.cat_values):
                raise StateFormatError(f"{self.names[p]} does not have exactly 6 cats")
