"""Food Alley, Shopper mode (rulebook: "Shopper").

Readings of unclear sentences: docs/rules/shopper.md.

A turn is a chain of steps, each one action: the player moves (a whole path), then shops or
claims, then bids; or stores groceries instead. Bag draws, cat draws and the arrangement of the
grocery lists are chance steps whose outcome comes from the table (or the seeded RNG).
"""

from __future__ import annotations

from collections import Counter, deque
from itertools import combinations, permutations
from typing import Any, ClassVar

from companion.rules.components import Components, Token, Trait, food_alley
from companion.rules.food_alley.common import (
    Draw,
    RevealCat,
    board_tokens,
    camera_cell,
    camera_rows,
    cell_field,
    cells_field,
    player_colours,
    sorted_field,
)
from companion.rules.food_alley.groceries import SET_SIZE, StoreEvaluator
from companion.rules.food_alley.market import (
    ALL_SLOTS,
    CELLS,
    SIDES,
    Bag,
    Cell,
    Direction,
    Side,
    Slot,
    centre,
    corners,
    exit_slot,
    line_slots,
    name,
    neighbours,
    step,
)
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
    json_field,
    jsonable,
)

GAME_ID = "food-alley/shopper"
TRIGGER_SMILEYS = 20  # "If you have 20 or more smileys, the final round is triggered."
OFFER_SIZE = 3  # "draw three tokens ... coin side up next to the board"
LISTS_PER_SIDE = 5  # "place 5 of them around the board, one type per side"
SET_BONUS = 4  # "A set of all four types of grocery lists is worth 4 points."
MIN_PLAYERS, MAX_PLAYERS = 2, 4
# endings that are the referee's rules, where the rulebook is silent (docs/rules/shopper.md)
NO_LIST_LEFT = "no grocery list is left to claim or complete"
NOBODY_CAN_ACT = "no player could move or store for a whole round"

codec = ActionCodec()

# Cell contents: None, a token ("t", id, face) or a cat ("c", owner, value).
INGREDIENT, COIN = "ingredient", "coin"


def _flipped_at_setup(players: int) -> tuple[Cell, ...]:
    """Shopper Setup: 2p centre + 2 opposite corners; 3p the 4 corners; 4p corners + centre."""
    c = corners()
    if players == 2:
        return (c[0], centre(), c[2])
    if players == 3:
        return c
    return (*c, centre())


class _Geometry:
    """Integer tables of the market for the move search: directions 0-3 are N, E, S, W."""

    def __init__(self) -> None:
        dirs = list(Direction)
        self.left = [dirs.index(d.left) for d in dirs]
        self.right = [dirs.index(d.right) for d in dirs]
        self.next = [-1] * (len(CELLS) * 4)
        self.exit = [-1] * (len(CELLS) * 4)
        for c in CELLS:
            for i, d in enumerate(dirs):
                n = step(c, d)
                if n is None:
                    self.exit[c * 4 + i] = ALL_SLOTS.index(exit_slot(c, d))
                else:
                    self.next[c * 4 + i] = n
        self.slot_entry = [s.entry for s in ALL_SLOTS]
        self.slot_inward = [dirs.index(s.inward) for s in ALL_SLOTS]


_GEO = _Geometry()


# --- actions -------------------------------------------------------------------------------


codec.register(Draw)
codec.register(RevealCat)


@action(codec, "arrange")
class Arrange(Action):
    """Chance: the shuffled grocery lists laid along one side, slot 1 to 5."""

    lists: tuple[str, ...]

    def __str__(self) -> str:
        return "lay " + ", ".join(self.lists)


@action(codec, "place", "place on {cell}, take {list}")
class Place(Action):
    """Setup: put the shopper on a coin and take one of the spare grocery lists."""

    cell: Cell = cell_field()
    list_id: str = json_field(key="list")


@action(codec, "move")
class Move(Action):
    """Move: the cells passed, from the start cell to the end (chained shoppers included)."""

    path: tuple[Cell, ...] = cells_field()

    @property
    def end(self) -> Cell:
        return self.path[-1]

    def __str__(self) -> str:
        return "move " + "-".join(name(c) for c in self.path)


@action(codec, "shop")
class Shop(Action):
    """Shop: declare a trait and collect the matching adjacent tokens (cells, sorted)."""

    trait: Trait = json_field(key="declare")
    take: tuple[Cell, ...] = cells_field(sort=True)

    def __str__(self) -> str:
        extra = ", also " + " ".join(name(c) for c in self.take) if self.take else ""
        return f"shop: same {self.trait.value}{extra}"


@action(codec, "claim", "claim {list}")
class Claim(Action):
    """Claim: take a grocery list from the cat's row or column."""

    list_id: str = json_field(key="list")


@action(codec, "bid")
class Bid(Action):
    """Bidding: one of the offered coins, or None for a blind draw from the bag."""

    token: str | None

    def __str__(self) -> str:
        return f"bid {self.token}" if self.token else "bid blind from the bag"


@action(codec, "store")
class Store(Action):
    """Store groceries: exactly 4 tokens from behind the screen (ids, sorted)."""

    tokens: tuple[str, ...] = sorted_field()

    def __str__(self) -> str:
        return "store " + " ".join(self.tokens)


@action(codec, "pass", "pass")
class Pass(Action):
    """Pass the turn (final round, or when no move and no store is possible)."""


# --- the state -----------------------------------------------------------------------------

_CHANCE_PHASES = {"fill", "arrange", "start-draw", "offer", "cats", "blind", "restock",
                  "top-up"}
_PHASE_WAITS = {
    "fill": "the tokens that fill the market",
    "arrange": "the grocery lists laid along a side",
    "start-draw": "a start-player draw from the bag",
    "offer": "a coin drawn for the offer",
    "cats": "the value of the cat placed on an emptied spot",
    "blind": "the coin drawn blindly from the bag",
    "restock": "a coin drawn to restock the offer",
    "top-up": "a coin drawn to restock the offer before the turn",
    "place": "a shopper placed on a coin with a spare list taken (Place)",
    "turn": "a move, a store, or a pass",
    "shop": "a declaration: same price, ingredient or colour (Shop)",
    "claim": "a grocery list taken from the cat's row or column (Claim)",
    "bonus": "the same-value bonus list (Claim)",
    "bid": "a coin from the offer, or a blind draw (Bid)",
    "over": "nothing: the game is over",
}


class ShopperState(GameState):
    """One game of Food Alley in Shopper mode."""

    GAME_ID: ClassVar[str] = GAME_ID
    TIEBREAKS: ClassVar[tuple[str, ...]] = (  # the order scores() breaks ties in
        "more grocery lists completed",
        "more cats off the board",
        "fewer unused tokens",
    )
    codec: ClassVar[ActionCodec] = codec
    SEAT_COLOURS: ClassVar[tuple[str, ...]] = food_alley().player_colours
    REFEREE_ENDINGS: ClassVar[frozenset[str]] = frozenset({NO_LIST_LEFT, NOBODY_CAN_ACT})
    _SHARED: ClassVar[frozenset[str]] = GameState._SHARED | {"evaluator"}

    def __init__(self, players: int, seed: int, options: dict[str, Any],
                 components: Components) -> None:
        super().__init__(players, seed, options)
        self.components = components
        self.evaluator = _evaluator(components)
        self.token = ComponentIndex("token", "components", components.tokens)
        self.glist = ComponentIndex("grocery list", "components", components.grocery_lists)
        self.names: list[str] = list(options["colours"])
        self.side_types: dict[Side, str] = {
            Side(k): v for k, v in options["sides"].items()
        }
        self.cells: list[tuple[Any, ...] | None] = [None] * len(CELLS)
        self.shopper: list[Cell | None] = [None] * players
        self.bag = Bag([t.id for t in components.tokens])
        self.offer: list[str] = []
        self.slots: dict[Slot, str | None] = {s: None for s in ALL_SLOTS}
        self.spares: list[str] = []
        self.screens: list[list[str]] = [[] for _ in range(players)]
        self.open_lists: list[list[str]] = [[] for _ in range(players)]
        self.done_lists: list[list[str]] = [[] for _ in range(players)]
        self.cat_supply: list[list[int]] = [
            sorted(components.cat_values) for _ in range(players)
        ]
        self.start_player: int | None = None
        self.start_marker: str | None = None
        self.phase = "fill"
        self.turn = 0
        self.pending: dict[str, Any] = {"next": 0}
        self.final_round = False
        self.end_reason: str | None = None
        self.passes_in_row = 0

    # --- creation -----------------------------------------------------------------------
    @classmethod
    def new(cls, players: int, seed: int, **options: Any) -> ShopperState:
        """A new game before setup; setup runs as chance steps and placement moves.

        Options: ``colours`` (player colours in clockwise seat order) and ``sides`` (which list
        type lies on which side). Defaults come from the component list.
        """
        components: Components = options.pop("components", None) or food_alley()
        colours = player_colours(components, players, options.get("colours"), "Shopper",
                                 MIN_PLAYERS, MAX_PLAYERS)
        types = components.grocery_list_types
        sides = options.get("sides") or {s.value: t for s, t in zip(SIDES, types, strict=False)}
        if sorted(sides.values()) != sorted(types) or set(sides) != {s.value for s in SIDES}:
            raise ValueError(f"sides must give each side one of the list types {types}")
        return cls(players, seed, {"colours": colours, "sides": dict(sides)}, components)

    # --- helpers ------------------------------------------------------------------------
    def player_name(self, player: int) -> str:
        return self.names[player]

    def smileys(self, player: int) -> int:
        return sum(self.glist(g).smileys for g in self.done_lists[player])

    def coin_under(self, player: int) -> Token | None:
        pos = self.shopper[player]
        if pos is None:
            return None
        content = self.cells[pos]
        if content is not None and content[0] == "t" and content[2] == COIN:
            return self.token(content[1])
        return None

    def _pile(self, list_type: str) -> list[str]:
        return sorted(g.id for g in self.components.grocery_lists if g.type == list_type)

    def _order_from(self, first: int) -> list[int]:
        return [(first + k) % self.players for k in range(self.players)]

    # --- who acts -----------------------------------------------------------------------
    def current_player(self) -> int:
        if self.phase == "over":
            return TERMINAL
        if self.phase in _CHANCE_PHASES:
            return CHANCE
        if self.phase == "place":
            return int(self.pending["order"][self.pending["next"]])
        return self.turn

    def is_terminal(self) -> bool:
        return self.phase == "over"

    # --- chance -------------------------------------------------------------------------
    def _chance_kind(self) -> str:
        if self.phase == "arrange":
            return "arrange"
        if self.phase == "cats":
            return "cat"
        return "draw"

    def chance_outcomes(self) -> list[tuple[Action, float]]:
        if self.phase not in _CHANCE_PHASES:
            return []
        kind = self._chance_kind()
        if kind == "draw":
            ids = self.bag.contents()
            return [(Draw(t), 1 / len(ids)) for t in ids]
        if kind == "cat":
            supply = Counter(self.cat_supply[self.turn])
            total = sum(supply.values())
            return [(RevealCat(v), n / total) for v, n in sorted(supply.items())]
        pile = self._pile(self._arrange_type())
        outs = list(permutations(pile, LISTS_PER_SIDE))
        return [(Arrange(p), 1 / len(outs)) for p in outs]

    def sample_chance(self) -> Action:
        if self.phase not in _CHANCE_PHASES:
            raise IllegalMoveError("turn order", "no chance step is pending")
        rng = self.rng.next()
        kind = self._chance_kind()
        if kind == "draw":
            return Draw(rng.choice(self.bag.contents()))
        if kind == "cat":
            return RevealCat(rng.choice(self.cat_supply[self.turn]))
        return Arrange(tuple(rng.sample(self._pile(self._arrange_type()), LISTS_PER_SIDE)))

    def _arrange_type(self) -> str:
        return self.side_types[SIDES[self.pending["side"]]]

    # --- legal moves --------------------------------------------------------------------
    def _compute_legal(self) -> list[Action]:
        phase = self.phase
        if phase in _CHANCE_PHASES or phase == "over":
            return []
        p = self.current_player()
        if phase == "place":
            cells = self._free_coins()
            return [Place(c, g) for c in cells for g in sorted(self.spares)]
        if phase == "turn":
            stores: list[Action] = [Store(s) for s in self.store_options(p)]
            if self.final_round:
                return [*stores, Pass()]
            moves: list[Action] = [Move(path) for path in self.paths(p)]
            if self.coin_under(p) is None and self.shopper[p] is not None:
                # a shopper left without a coin takes one instead of moving (Bidding)
                moves = [Bid(t) for t in self.offer] + ([Bid(None)] if len(self.bag) else [])
            return moves + stores or [Pass()]
        if phase == "shop":
            return list(self._shop_options())
        if phase in ("claim", "bonus"):
            return [Claim(g) for g in self._claimable(p)]
        if phase == "bid":
            bids: list[Action] = [Bid(t) for t in self.offer]
            if len(self.bag):
                bids.append(Bid(None))
            return bids
        raise AssertionError(phase)

    def _free_coins(self) -> list[Cell]:
        taken = {pos for pos in self.shopper if pos is not None}
        return [
            c for c in CELLS
            if c not in taken and (x := self.cells[c]) is not None and x[0] == "t" and x[2] == COIN
        ]

    def paths(self, player: int) -> list[tuple[Cell, ...]]:
        """One route (the shortest) to each cell the player's shopper may end on this turn.

        Move rules: exactly the coin's value in a straight line; turn left or right at the edge
        where a list lies (at corners only along the border); change direction only when passing a
        cat or another shopper; an opening leads to any other opening; landing on another shopper
        continues with that shopper's coin. Every route to the same end gives the same position,
        so each end is listed once; :meth:`is_route` accepts any other legal route.
        Readings: docs/rules/shopper.md.
        """
        return sorted(self._routes(player, None).values())

    def is_route(self, player: int, path: tuple[Cell, ...]) -> bool:
        """Whether the path is a legal move of the player's shopper (start cell first)."""
        if len(path) < 2 or path[0] != self.shopper[player]:
            return False
        return path[-1] in self._routes(player, path)

    def _routes(self, player: int, guide: tuple[Cell, ...] | None) -> dict[Cell, tuple[Cell, ...]]:
        """Breadth-first search over (cell, heading, steps left, shoppers landed on).

        With a guide path, only that path's cells may be entered and only its full length
        counts as an end. Geometry comes from integer tables (see _GEO) for speed.
        """
        coin = self.coin_under(player)
        start = self.shopper[player]
        if coin is None or start is None:
            return {}
        nxt_of, exit_of, left, right = _GEO.next, _GEO.exit, _GEO.left, _GEO.right
        slot_entry, slot_inward = _GEO.slot_entry, _GEO.slot_inward
        others = {pos: q for q, pos in enumerate(self.shopper) if q != player and pos is not None}
        cells = self.cells
        slot_lists = [self.slots[s] for s in ALL_SLOTS]
        openings = [i for i, g in enumerate(slot_lists) if g is None]
        turnable = [c in others or (x is not None and x[0] == "c") for c, x in enumerate(cells)]
        endable = [
            x is not None and c not in others and (x[0] == "c" or x[2] == INGREDIENT)
            for c, x in enumerate(cells)
        ]
        found: dict[Cell, int] = {}  # end cell -> the search node that reached it first
        parent: dict[int, tuple[int, Cell]] = {}  # node -> (previous node, cell entered)
        queue: deque[tuple[int, int, int, int, int, int]] = deque()
        guided = guide is not None
        glen = len(guide) if guide is not None else 0
        entered: dict[tuple[int, int], set[int]] = {}
        root = -1

        for d in range(4):
            key = ((coin.coin * 25 + start) * 4 + d) * 64
            parent[key] = (root, start)
            queue.append((start, d, coin.coin, 0, 0, key))
        while queue:
            pos, d, steps, chained, depth, key = queue.popleft()
            nxt = nxt_of[pos * 4 + d]
            if nxt >= 0:
                entries: Any = ((nxt, d),)
            else:
                slot = exit_of[pos * 4 + d]
                if slot_lists[slot] is None and len(openings) > 1:
                    # Every exit with the same steps leads to the same openings: enter each once.
                    hub = entered.setdefault((steps, chained), set())
                    fresh = [o for o in openings if o != slot and (guided or o not in hub)]
                    hub.update(fresh)
                    entries = [(slot_entry[o], slot_inward[o]) for o in fresh]
                else:  # a list (or a lone opening): turn left or right along the edge
                    entries = [
                        (n, nd) for nd in (left[d], right[d]) if (n := nxt_of[pos * 4 + nd]) >= 0
                    ]
            ndepth = depth + 1
            for npos, nd in entries:
                if guided and (ndepth >= glen or guide[ndepth] != npos):  # type: ignore[index]
                    continue
                left_steps = steps - 1
                if left_steps == 0:
                    q = others.get(npos)
                    if q is not None:  # landed on another shopper: go on with its coin
                        under = cells[npos]
                        if chained & (1 << q) or under is None or under[2] != COIN:
                            continue
                        left_steps = self.token(under[1]).coin
                        nchained = chained | (1 << q)
                        turns: tuple[int, ...] = (nd, left[nd], right[nd])
                    else:
                        if endable[npos] and npos not in found and (
                                not guided or ndepth + 1 == glen):
                            node = -2 - len(parent)
                            parent[node] = (key, npos)
                            found[npos] = node
                        continue
                else:
                    nchained = chained
                    turns = (nd, left[nd], right[nd]) if turnable[npos] else (nd,)
                for td in turns:
                    nkey = ((((nchained * 8 + left_steps) * 25 + npos) * 4 + td) * 64
                            + (ndepth if guided else 0))
                    if nkey not in parent:
                        parent[nkey] = (key, npos)
                        queue.append((npos, td, left_steps, nchained, ndepth, nkey))
        ends: dict[Cell, tuple[Cell, ...]] = {}
        for cell_, node in found.items():
            path: list[Cell] = []
            while node != root:
                node, entered_cell = parent[node]
                path.append(entered_cell)
            ends[cell_] = tuple(reversed(path))
        return ends

    def _shop_options(self) -> list[Shop]:
        """Shop: declare price, ingredient or colour, then collect every adjacent token that
        matches it. A wildcard neighbour (rice any number, tofu any colour, sambal any
        ingredient) may match or not, as the active player decides. A wildcard landed on takes
        one value of the declared trait for the whole collection: every neighbour printed with
        that value is collected, none printed otherwise (docs/rules/shopper.md)."""
        here = self.pending["cell"]
        token = self.token(self.pending["token"])
        others = []
        for n in neighbours(here):
            x = self.cells[n]
            if x is not None and x[0] == "t" and x[2] == INGREDIENT:
                others.append((n, self.token(x[1])))
        options: dict[Shop, None] = {}
        for trait in Trait:
            may = [n for n, o in others if o.is_wild(trait)]
            printed = [(n, o.value(trait)) for n, o in others if not o.is_wild(trait)]
            if token.is_wild(trait):
                values = list(dict.fromkeys(v for _, v in printed))
                musts = [[n for n, v in printed if v == value] for value in values] + [[]]
            else:
                musts = [[n for n, v in printed if v == token.value(trait)]]
            for must in musts:
                for k in range(len(may) + 1):
                    for extra in combinations(may, k):
                        options[Shop(trait, tuple(sorted((*must, *extra))))] = None
        return list(options)

    def _claimable(self, player: int) -> list[str]:
        """Lists at the ends of the cat's row and column, at most 1 unfulfilled list per type."""
        held = {self.glist(g).type for g in self.open_lists[player]}
        out = []
        for slot in line_slots(self.pending["cell"]):
            g = self.slots[slot]
            if g is not None and self.glist(g).type not in held:
                out.append(g)
        return sorted(set(out))

    def store_options(self, player: int) -> list[tuple[str, ...]]:
        """Every set of exactly 4 of the player's tokens that completes at least one list."""
        tokens = [self.token(t) for t in self.screens[player]]
        lists = [self.glist(g) for g in self.open_lists[player]]
        return self.evaluator.completing_sets(tokens, lists)

    def best_store(self, player: int):  # noqa: ANN201 - StorePlan | None
        """The optimiser hint: best set of 4 for the player now (most smileys, then lists)."""
        tokens = [self.token(t) for t in self.screens[player]]
        lists = [self.glist(g) for g in self.open_lists[player]]
        return self.evaluator.best(tokens, lists)

    # --- checking -----------------------------------------------------------------------
    def _wrong_phase(self, action: Action) -> IllegalMoveError:
        return IllegalMoveError(
            "turn structure",
            f"the game now waits for {_PHASE_WAITS[self.phase]}, not a {action.kind}",
            move=action,
        )

    def _check(self, action: Action) -> None:
        phase = self.phase
        if phase in _CHANCE_PHASES:
            self._check_chance(action)
            return
        p = self.current_player()
        if isinstance(action, Place):
            if phase != "place":
                raise self._wrong_phase(action)
            if action.cell not in self._free_coins():
                raise IllegalMoveError(
                    "Shopper Setup", f"{name(action.cell)} is not a free coin: a shopper starts "
                    "on a coin no other shopper stands on", move=action)
            if action.list_id not in self.spares:
                raise IllegalMoveError(
                    "Shopper Setup", f"{action.list_id} is not one of the spare lists "
                    f"{sorted(self.spares)}", move=action)
            return
        if isinstance(action, Move):
            if phase != "turn":
                raise self._wrong_phase(action)
            if self.final_round:
                raise IllegalMoveError(
                    "End of the Game", "in the final round players may only pass or store "
                    "groceries", move=action)
            coin = self.coin_under(p)
            if coin is None:
                raise IllegalMoveError("Move", "the shopper stands on no coin", move=action)
            if self._legal is not None and action in self._legal:
                return  # one of the listed routes
            if not self.is_route(p, action.path):
                ends = {path[-1] for path in self.paths(p)}
                if action.path and action.path[-1] in ends:
                    detail = (f"that route to {name(action.end)} breaks the movement rules "
                              "(straight line; turns only at a list edge or when passing a cat "
                              "or shopper)")
                else:
                    target = name(action.end) if action.path else "nowhere"
                    detail = (f"no route of exactly {coin.coin} spaces (the coin's value) from "
                              f"{name(self.shopper[p])} ends on an ingredient or cat at {target}")
                raise IllegalMoveError("Move", detail, move=action)
            return
        if isinstance(action, Store):
            if phase != "turn":
                raise self._wrong_phase(action)
            if len(action.tokens) != SET_SIZE or len(set(action.tokens)) != SET_SIZE:
                raise IllegalMoveError(
                    "Store Groceries", "a set is exactly 4 different tokens", move=action)
            missing = [t for t in action.tokens if t not in self.screens[p]]
            if missing:
                raise IllegalMoveError(
                    "Store Groceries", f"{', '.join(missing)} not behind {self.names[p]}'s "
                    "screen", move=action)
            plan = self.evaluator.plan([self.token(t) for t in action.tokens],
                                       [self.glist(g) for g in self.open_lists[p]])
            if not plan.lists:
                raise IllegalMoveError(
                    "Store Groceries", "that set completes none of your grocery lists",
                    move=action)
            return
        if isinstance(action, Pass):
            if phase != "turn":
                raise self._wrong_phase(action)
            if Pass() not in self.legal_actions():
                raise IllegalMoveError(
                    "Turn Structure", "you must move or store groceries; passing is only for "
                    "the final round or when neither is possible", move=action)
            return
        if isinstance(action, Shop):
            if phase != "shop":
                raise self._wrong_phase(action)
            if action not in self.legal_actions():
                raise IllegalMoveError(
                    "Shop", "after declaring a trait you collect every adjacent token that "
                    "matches it (wildcards only if you choose), and nothing else", move=action)
            return
        if isinstance(action, Claim):
            if phase not in ("claim", "bonus"):
                raise self._wrong_phase(action)
            if action.list_id not in self._claimable(p):
                lines = [g for s in line_slots(self.pending["cell"]) if (g := self.slots[s])]
                if action.list_id in lines:
                    raise IllegalMoveError(
                        "Claim", "you can only have 1 unfulfilled grocery list of each type",
                        move=action)
                raise IllegalMoveError(
                    "Claim", f"{action.list_id} is not at an end of the cat's row or column "
                    f"(there: {', '.join(lines) or 'none'})", move=action)
            return
        if isinstance(action, Bid):
            coinless = phase == "turn" and action in self.legal_actions()
            if phase != "bid" and not coinless:
                raise self._wrong_phase(action)
            if action.token is None and not len(self.bag):
                raise IllegalMoveError("Bidding", "the bag is empty: no blind draw", move=action)
            if action.token is not None and action.token not in self.offer:
                raise IllegalMoveError(
                    "Bidding", f"{action.token} is not among the offered coins "
                    f"{self.offer}", move=action)
            return
        raise self._wrong_phase(action)

    def _check_chance(self, action: Action) -> None:
        kind = self._chance_kind()
        if action.kind != kind:
            raise ChanceOutcomeError(
                "chance", f"the table must supply {_PHASE_WAITS[self.phase]}, not a "
                f"{action.kind}", move=action)
        if isinstance(action, Draw):
            if action.token not in self.bag:
                try:
                    where = self.token_places()[action.token]
                except KeyError:
                    raise ChanceOutcomeError(
                        "chance", f"{action.token} is not a Food Alley token; check the "
                        "reading", move=action) from None
                raise ChanceOutcomeError(
                    "chance", f"{action.token} is not in the bag (it is at {where}); check "
                    "the reading", move=action)
        elif isinstance(action, RevealCat):
            if action.value not in self.cat_supply[self.turn]:
                raise ChanceOutcomeError(
                    "chance", f"{self.names[self.turn]} has no face-down cat of value "
                    f"{action.value} left (left: {self.cat_supply[self.turn]})", move=action)
        elif isinstance(action, Arrange):
            pile = self._pile(self._arrange_type())
            if len(action.lists) != LISTS_PER_SIDE or len(set(action.lists)) != LISTS_PER_SIDE \
                    or not set(action.lists) <= set(pile):
                raise ChanceOutcomeError(
                    "Shopper Setup", f"a side takes 5 different lists of type "
                    f"{self._arrange_type()!r} from {pile}", move=action)

    # --- applying -----------------------------------------------------------------------
    def _apply(self, action: Action) -> str:
        phase = self.phase
        p = self.current_player()
        who = self.names[p] if p >= 0 else "table"
        if isinstance(action, Draw):
            return self._apply_draw(action.token)
        if isinstance(action, Arrange):
            side = SIDES[self.pending["side"]]
            pile = self._pile(self.side_types[side])
            for i, g in enumerate(action.lists):
                self.slots[Slot(side, i)] = g
            self.spares.extend(g for g in pile if g not in action.lists)
            self.pending["side"] += 1
            if self.pending["side"] == len(SIDES):
                self.phase = "start-draw"
                self.pending = {"contenders": list(range(self.players)), "drawn": {}}
            return f"{side.value} side: {', '.join(action.lists)}"
        if isinstance(action, RevealCat):
            cell = self.pending["cells"].pop(0)
            self.cat_supply[self.turn].remove(action.value)
            self.cells[cell] = ("c", self.turn, action.value)
            text = f"{self.names[self.turn]} cat {action.value} placed on {name(cell)}"
            if not self.pending["cells"] or not self.cat_supply[self.turn]:
                self._enter_bid()
            return text
        if isinstance(action, Place):
            self.shopper[p] = action.cell
            self.spares.remove(action.list_id)
            self.open_lists[p].append(action.list_id)
            self.pending["next"] += 1
            if self.pending["next"] == self.players:
                self._enter_offer_phase("offer")
            return f"{who} places the shopper on {name(action.cell)} and takes {action.list_id}"
        if isinstance(action, Move):
            return self._apply_move(p, action)
        if isinstance(action, Shop):
            return self._apply_shop(p, action)
        if isinstance(action, Claim):
            return self._apply_claim(p, action)
        if isinstance(action, Bid):
            if action.token is None:
                self.phase = "blind"
                return f"{who} bids blind"
            self.offer.remove(action.token)
            self._put_coin_under(p, action.token)
            return f"{who} bids {action.token} ({self.token(action.token).coin})"
        if isinstance(action, Store):
            return self._apply_store(p, action)
        if isinstance(action, Pass):
            self._end_turn(p, passed=True)
            return f"{who} passes"
        raise AssertionError(f"{phase}: {action}")

    def _apply_draw(self, token_id: str) -> str:
        self.bag.remove(token_id)
        phase = self.phase
        if phase == "fill":
            cell = self.pending["next"]
            self.cells[cell] = ("t", token_id, INGREDIENT)
            self.pending["next"] += 1
            if self.pending["next"] == len(CELLS):
                for c in _flipped_at_setup(self.players):
                    x = self.cells[c]
                    assert x is not None
                    self.cells[c] = ("t", x[1], COIN)
                self.phase = "arrange"
                self.pending = {"side": 0}
            return f"{token_id} fills {name(cell)}"
        if phase == "start-draw":
            drawn: dict[str, str] = self.pending["drawn"]
            contenders: list[int] = self.pending["contenders"]
            player = next(q for q in contenders if str(q) not in drawn)
            drawn[str(player)] = token_id
            text = f"{self.names[player]} draws {token_id} (coin {self.token(token_id).coin})"
            if len(drawn) == len(contenders):
                best = max(self.token(t).coin for t in drawn.values())
                tied = [q for q in contenders if self.token(drawn[str(q)]).coin == best]
                if len(tied) == 1:
                    winner = tied[0]
                    for q, t in drawn.items():
                        if int(q) != winner:
                            self.bag.add(t)
                    self.start_player = winner
                    self.start_marker = drawn[str(winner)]
                    self.turn = winner
                    last = (winner - 1) % self.players
                    order = [(last - k) % self.players for k in range(self.players)]
                    self.phase = "place"
                    self.pending = {"order": order, "next": 0}
                    text += f"; {self.names[winner]} starts"
                else:
                    for t in drawn.values():
                        self.bag.add(t)
                    self.pending = {"contenders": tied, "drawn": {}}
                    text += "; tie, " + ", ".join(self.names[q] for q in tied) + " draw again"
            return text
        if phase in ("offer", "restock", "top-up"):
            self.offer.append(token_id)
            text = f"{token_id} offered (coin {self.token(token_id).coin})"
            if len(self.offer) >= OFFER_SIZE or not len(self.bag):
                if phase == "offer":
                    self.phase = "turn"
                    self.turn = self.start_player or 0
                elif phase == "top-up":
                    self.phase = "turn"
                else:
                    self._end_turn(self.turn, passed=False)
            return text
        if phase == "blind":
            self._put_coin_under(self.turn, token_id)
            coin = self.token(token_id).coin
            return f"{self.names[self.turn]} draws {token_id} blindly (coin {coin})"
        raise AssertionError(phase)

    def _enter_offer_phase(self, phase: str) -> None:
        if len(self.offer) < OFFER_SIZE and len(self.bag):
            self.phase = phase
        elif phase == "offer":
            self.phase = "turn"
            self.turn = self.start_player or 0
        else:
            self._end_turn(self.turn, passed=False)

    def _apply_move(self, p: int, action: Move) -> str:
        start, end = action.path[0], action.end
        self.shopper[p] = end
        x = self.cells[end]
        assert x is not None
        self.pending = {"cell": end, "from": start}
        text = f"{self.names[p]} {action}"
        if x[0] == "c":
            self.pending["cat"] = [x[1], x[2]]
            self.phase = "claim"
            if not self._claimable(p):
                self._return_cat()
                self._enter_bid()
                text += f" to {self.names[x[1]]}'s cat {x[2]}; no list can be taken there"
            else:
                text += f" to {self.names[x[1]]}'s cat {x[2]}"
        else:
            self.pending["token"] = x[1]
            self.phase = "shop"
            text += f" to {x[1]}"
        return text

    def _apply_shop(self, p: int, action: Shop) -> str:
        here = self.pending["cell"]
        taken = [self.pending["token"]]
        self.cells[here] = None
        for c in action.take:
            x = self.cells[c]
            assert x is not None
            taken.append(x[1])
            self.cells[c] = None
        self.screens[p].extend(taken)
        self.pending["cells"] = list(action.take)
        if action.take and self.cat_supply[p]:
            self.phase = "cats"
        else:
            self._enter_bid()
        return f"{self.names[p]} declares same {action.trait.value} and collects {', '.join(taken)}"

    def _apply_claim(self, p: int, action: Claim) -> str:
        for slot in line_slots(self.pending["cell"]):
            if self.slots[slot] == action.list_id:
                self.slots[slot] = None
                break
        self.open_lists[p].append(action.list_id)
        text = f"{self.names[p]} claims {action.list_id}"
        value = self.pending["cat"][1]
        if self.phase == "claim" and value == self.glist(action.list_id).smileys:
            self.phase = "bonus"
            text += f" (cat {value} = {value} smileys: bonus list)"
            if self._claimable(p):
                return text
            text += ", but no list can be taken"
        self._return_cat()
        self._enter_bid()
        return text

    def _return_cat(self) -> None:
        owner, value = self.pending["cat"]
        self.cells[self.pending["cell"]] = None
        self.cat_supply[owner].append(value)
        self.cat_supply[owner].sort()

    def _enter_bid(self) -> None:
        """Bidding: a coin goes under the shopper, the used coin is flipped."""
        self._flip_used_coin()
        if self.offer or len(self.bag):
            self.phase = "bid"
        else:  # nothing to bid with: the shopper stands without a coin (docs/rules/shopper.md)
            self._end_turn(self.turn, passed=False)

    def _flip_used_coin(self) -> None:
        start = self.pending["from"]
        x = self.cells[start]
        if x is not None and x[0] == "t":
            self.cells[start] = ("t", x[1], INGREDIENT)

    def _put_coin_under(self, p: int, token_id: str) -> None:
        pos = self.shopper[p]
        assert pos is not None
        self.cells[pos] = ("t", token_id, COIN)
        self._enter_offer_phase("restock")

    def _apply_store(self, p: int, action: Store) -> str:
        plan = self.evaluator.plan([self.token(t) for t in action.tokens],
                                   [self.glist(g) for g in self.open_lists[p]])
        for t in action.tokens:
            self.screens[p].remove(t)
            self.bag.add(t)
        for g in plan.lists:
            self.open_lists[p].remove(g)
            self.done_lists[p].append(g)
        wild = "; ".join(
            f"{g}: " + ", ".join(f"{t} as {v}" for t, v in a.items())
            for g, a in plan.wildcards.items() if a
        )
        text = (f"{self.names[p]} stores {', '.join(action.tokens)} and completes "
                f"{', '.join(plan.lists)} (+{plan.smileys})" + (f" [{wild}]" if wild else ""))
        self.pending = {}
        self._end_turn(p, passed=False)
        return text

    def _end_turn(self, p: int, *, passed: bool) -> None:
        """End of turn: check the end-game trigger, then the next player clockwise."""
        self.pending = {}
        self.passes_in_row = self.passes_in_row + 1 if passed else 0
        if not self.final_round:
            if self.smileys(p) >= TRIGGER_SMILEYS:
                self.final_round = True
                self.end_reason = f"{self.names[p]} reached {self.smileys(p)} smileys"
            elif self._no_smileys_left():
                self.final_round = True
                self.end_reason = NO_LIST_LEFT
        nxt = (p + 1) % self.players
        if self.final_round and nxt == self.start_player:
            self.phase = "over"
        elif self.passes_in_row >= self.players:
            self.phase = "over"
            self.end_reason = NOBODY_CAN_ACT
        else:
            self.turn = nxt
            # "Restock the coins if needed up to 3": whenever the bag has tokens again (a store
            # put them back), before the next turn (docs/rules/shopper.md)
            short = len(self.offer) < OFFER_SIZE and len(self.bag)
            self.phase = "top-up" if short and not self.final_round else "turn"

    def _no_smileys_left(self) -> bool:
        return all(g is None for g in self.slots.values()) and not any(self.open_lists)

    # --- views and scores ---------------------------------------------------------------
    def token_places(self) -> dict[str, str]:
        """Where each of the 54 tokens is: board:<cell>:<face>, bag, offer, screen:<colour>,
        start:<colour> (the start player's coin) or drawn:<colour> (during the start draw)."""
        places: dict[str, str] = {}
        for c, x in enumerate(self.cells):
            if x is not None and x[0] == "t":
                places[x[1]] = f"board:{name(c)}:{x[2]}"
        for t in self.bag.contents():
            places[t] = "bag"
        for t in self.offer:
            places[t] = "offer"
        for q, screen in enumerate(self.screens):
            for t in screen:
                places[t] = f"screen:{self.names[q]}"
        if self.start_marker is not None and self.start_player is not None:
            places[self.start_marker] = f"start:{self.names[self.start_player]}"
        if self.phase == "start-draw":
            for q, t in self.pending["drawn"].items():
                places[t] = f"drawn:{self.names[int(q)]}"
        return places

    def view(self, player: int | None) -> dict[str, Any]:
        """What a player sees: the table, and behind their own screen only."""
        board = []
        for c, x in enumerate(self.cells):
            entry: dict[str, Any] = {"cell": name(c)}
            if x is not None and x[0] == "t":
                entry.update(token=x[1], side=x[2])
            elif x is not None:
                entry.update(cat=self.names[x[1]], value=x[2])
            for q, pos in enumerate(self.shopper):
                if pos == c:
                    entry["shopper"] = self.names[q]
            board.append(entry)
        seats = []
        for q in range(self.players):
            own = player == q
            coin = self.coin_under(q)
            seats.append({
                "colour": self.names[q],
                "shopper": None if self.shopper[q] is None else name(self.shopper[q]),
                "coin": coin.coin if coin else None,
                "smileys": self.smileys(q),
                "completed": list(self.done_lists[q]),
                "open_lists": list(self.open_lists[q]) if own else len(self.open_lists[q]),
                "tokens": sorted(self.screens[q]) if own else len(self.screens[q]),
                "cats_in_supply": len(self.cat_supply[q]),
            })
        return {
            "game": GAME_ID,
            "you": None if player is None else self.names[player],
            "phase": self.phase,
            "to_act": (self.names[cp] if (cp := self.current_player()) >= 0
                       else ("table" if cp == CHANCE else None)),
            "start_player": None if self.start_player is None else self.names[self.start_player],
            "board": board,
            "lists": {str(s): g for s, g in self.slots.items()},
            "spares": sorted(self.spares),
            "offer": list(self.offer),
            "bag": len(self.bag),
            "players": seats,
            "final_round": self.final_round,
        }

    def camera_board(self) -> list[list[dict[str, Any]]]:
        """The 5x5 market as the camera should see it now. A shopper hides the coin under it;
        cats lie face up (their value decides the same-value bonus)."""
        out = []
        for c, x in enumerate(self.cells):
            if c in self.shopper:
                out.append(camera_cell("shopper", player=self.names[self.shopper.index(c)]))
            elif x is None:
                out.append(camera_cell("empty"))
            elif x[0] == "t":
                out.append(camera_cell(x[2], token=x[1]))
            else:
                out.append(camera_cell("cat", player=self.names[x[1]], value=x[2]))
        return camera_rows(out)

    def scores(self) -> list[Score]:
        """Final Scoring (Shopper) with the tie-breakers: more lists > more cats off the board >
        fewer minus points."""
        types = set(self.components.grocery_list_types)
        out = []
        for q in range(self.players):
            done = self.done_lists[q]
            smileys = self.smileys(q)
            cats = len(self.cat_supply[q])
            bonus = SET_BONUS if {self.glist(g).type for g in done} >= types else 0
            unused = -len(self.screens[q])
            out.append(Score(q, smileys + cats + bonus + unused, {
                "smileys": smileys, "cats_off_board": cats, "all_four_types": bonus,
                "unused_tokens": unused,
            }, (len(done), cats, unused)))
        return out

    # --- persistence --------------------------------------------------------------------
    def _state_json(self) -> dict[str, Any]:
        return {
            "cells": [None if x is None else list(x) for x in self.cells],
            "shopper": list(self.shopper),
            "bag": self.bag.contents(),
            "offer": list(self.offer),
            "slots": {str(s): g for s, g in self.slots.items()},
            "spares": list(self.spares),
            "screens": [list(s) for s in self.screens],
            "open_lists": [list(s) for s in self.open_lists],
            "done_lists": [list(s) for s in self.done_lists],
            "cat_supply": [list(s) for s in self.cat_supply],
            "start_player": self.start_player,
            "start_marker": self.start_marker,
            "phase": self.phase,
            "turn": self.turn,
            "pending": jsonable(self.pending),
            "final_round": self.final_round,
            "end_reason": self.end_reason,
            "passes_in_row": self.passes_in_row,
        }

    def _load_state_json(self, d: dict[str, Any]) -> None:
        self.cells = [None if x is None else tuple(x) for x in d["cells"]]
        self.shopper = list(d["shopper"])
        self.bag = Bag(list(d["bag"]))
        self.offer = list(d["offer"])
        by_name = {str(s): s for s in ALL_SLOTS}
        self.slots = {by_name[k]: v for k, v in d["slots"].items()}
        self.spares = list(d["spares"])
        self.screens = [list(s) for s in d["screens"]]
        self.open_lists = [list(s) for s in d["open_lists"]]
        self.done_lists = [list(s) for s in d["done_lists"]]
        self.cat_supply = [list(s) for s in d["cat_supply"]]
        self.start_player = d["start_player"]
        self.start_marker = d["start_marker"]
        self.phase = d["phase"]
        if self.phase not in _PHASE_WAITS:
            raise StateFormatError(f"unknown phase {self.phase!r}")
        self.turn = d["turn"]
        self.pending = dict(d["pending"])
        self.final_round = d["final_round"]
        self.end_reason = d["end_reason"]
        self.passes_in_row = d["passes_in_row"]
        self.check_conservation()

    def check_conservation(self) -> None:
        """A loaded state must hold each token exactly once."""
        seen = Counter(board_tokens(self.cells))
        seen.update(self.bag.contents())
        seen.update(self.offer)
        for s in self.screens:
            seen.update(s)
        if self.start_marker:
            seen[self.start_marker] += 1
        if self.phase == "start-draw":
            seen.update(self.pending["drawn"].values())
        check_each_once(seen.elements(), self.token.ids(), "token")




_EVALUATORS: dict[int, StoreEvaluator] = {}


def _evaluator(components: Components) -> StoreEvaluator:
    key = id(components)
    if key not in _EVALUATORS:
        _EVALUATORS[key] = StoreEvaluator(components)
    return _EVALUATORS[key]


def new_game(players: int, seed: int, **options: Any) -> ShopperState:
    return ShopperState.new(players, seed, **options)
