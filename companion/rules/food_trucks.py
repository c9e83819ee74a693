"""Food Trucks (rulebook: shared/rules/food-trucks.txt).

Each turn a player either prepares orders (takes a group of matching dishes and wild cards from
the 4x4 grid of dishes) or serves orders (spends 6 dishes per order, from the hand and the extra
dishes shown on their food truck and on the last order served). At the start of each round after
the first, the first player draws a takeaway order; with no delivery person free the service is
too slow and everyone loses their last served order. The game ends when an order must be drawn
from an empty order deck; the most coins wins.

The dishes, order cards and food trucks are data (data/food_trucks.yaml, provisional). Readings
of unclear sentences: docs/rules/food-trucks.md.
"""

from __future__ import annotations

import functools
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import Any, ClassVar

from companion.rules.components import EntryChecks, read_component_list
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
)

GAME_ID = "food-trucks"
DATA_FILE = "food_trucks.yaml"

# What the rulebook states about the box and the table; the data file must say the same.
RULEBOOK_FACTS: dict[str, int] = {
    "food_cards": 68,  # "68 food cards"
    "order_cards": 24,  # "24 order cards"
    "truck_cards": 4,  # "4 food truck cards"
    "delivery_persons": 2,  # "2 delivery person cards"
    "happy_hour_delivery_persons": 1,  # "place only 1 delivery person card"
    "unhappy_customer_cards": 1,  # "1 unhappy customer card"
    "first_player_cards": 1,  # "1 first player card"
    "orders_per_player": 6,  # "Take 6 order cards per player"
    "grid_rows": 4,  # "a grid of dishes with 4 columns and 4 rows"
    "grid_columns": 4,
    "deal": 3,  # "Deal 3 food cards ... to each player"
    "hand_limit": 12,  # "never have more than 12 cards in your hand"
    "dishes_per_order": 6,  # "you need 6 dishes to serve 1 order"
}


# --- the components, from data -----------------------------------------------------------------


@dataclass(frozen=True)
class OrderCard:
    """An order card: the extra dish available, the order requirements and the coins."""

    id: str
    extra: str
    needs: tuple[tuple[str, int], ...]  # (dish, how many), by dish name
    coins: int


@dataclass(frozen=True)
class TruckCard:
    """A food truck card and the extra dishes it shows."""

    id: str
    name: str
    extras: tuple[str, ...]


@dataclass(frozen=True)
class TruckComponents:
    """Everything in the Food Trucks box that the rules need, validated."""

    status: str
    guessed: tuple[str, ...]
    facts: dict[str, int]
    min_players: int
    max_players: int
    food: dict[str, int]  # dish (the wild card too) -> cards of it in the food deck
    wild: str
    dishes: tuple[str, ...]  # the dishes that are not the wild card, in the data's order
    trucks: tuple[TruckCard, ...]
    orders: tuple[OrderCard, ...]


_fail = EntryChecks(DATA_FILE).fail


def _mapping(value: Any, where: str) -> dict[str, Any]:
    if not isinstance(value, dict):
        raise _fail(where, f"expected a mapping, got {type(value).__name__}")
    return value


def _field(entry: Any, key: str, where: str) -> Any:
    entry = _mapping(entry, where)
    if key not in entry:
        raise _fail(where, f"missing field {key!r}")
    return entry[key]


def _count(value: Any, where: str, name: str, least: int = 1) -> int:
    if not isinstance(value, int) or isinstance(value, bool) or value < least:
        raise _fail(where, f"{name} must be a whole number of at least {least}, got {value!r}")
    return value


def _entries(raw: dict[str, Any], key: str, expected: int, what: str) -> list[Any]:
    entries = _field(raw, key, "top level")
    if not isinstance(entries, list):
        raise _fail(key, "expected a list")
    if len(entries) != expected:
        raise _fail(key, f"the rulebook has {expected} {what}, the list has {len(entries)}")
    ids = Counter(e.get("id") if isinstance(e, dict) else None for e in entries)
    for ident, n in ids.items():
        if ident is None:
            raise _fail(key, "an entry has no id")
        if n > 1:
            raise _fail(f"{key} {ident!r}", f"id used {n} times; ids must be unique")
    return entries


def parse_food_trucks(raw: Any) -> TruckComponents:
    """Validate the raw data and build :class:`TruckComponents`.

    :raises ComponentError: naming the entry and what is wrong.
    """
    raw = _mapping(raw, "top level")
    if _field(raw, "schema", "top level") != 1:
        raise _fail("schema", f"this engine reads schema 1, not {raw['schema']!r}")
    status = _field(raw, "status", "top level")
    if not isinstance(status, str) or not status.strip():
        raise _fail("status", "must say in words whether the list is provisional")
    guessed = _field(raw, "guessed", "top level")
    if not isinstance(guessed, list) or not all(isinstance(g, str) for g in guessed):
        raise _fail("guessed", "must be a list of sentences saying what was guessed")
    box = _mapping(_field(raw, "box", "top level"), "box")
    for fact, value in RULEBOOK_FACTS.items():
        if _field(box, fact, "box") != value:
            raise _fail(f"box {fact}", f"the rulebook says {value}, the list says {box[fact]!r}")
    facts = dict(RULEBOOK_FACTS)

    players = _field(raw, "players", "top level")
    least = _count(_field(players, "min", "players"), "players", "min")
    most = _count(_field(players, "max", "players"), "players", "max")
    if least > most or most > facts["truck_cards"] or (
            most * facts["orders_per_player"] > facts["order_cards"]):
        raise _fail("players", f"{least}-{most} players: need min <= max, one food truck each "
                    f"and {facts['orders_per_player']} order cards each")

    food_entries = _field(raw, "food_cards", "top level")
    if not isinstance(food_entries, list):
        raise _fail("food_cards", "expected a list")
    food: dict[str, int] = {}
    wilds = []
    for entry in food_entries:
        dish = _field(entry, "dish", "food card")
        where = f"food card {dish!r}"
        if not isinstance(dish, str) or not dish:
            raise _fail("food card", f"dish must be a name, got {dish!r}")
        if dish in food:
            raise _fail(where, "dish listed twice; list each dish once with its count")
        food[dish] = _count(_field(entry, "count", where), where, "count")
        wild = entry.get("wild", False)
        if not isinstance(wild, bool):
            raise _fail(where, f"wild must be true or false, got {wild!r}")
        if wild:
            wilds.append(dish)
    if len(wilds) != 1:
        raise _fail("food_cards", f"exactly one entry must be the wild card, found {wilds}")
    if sum(food.values()) != facts["food_cards"]:
        raise _fail("food_cards", f"the rulebook has {facts['food_cards']} food cards, the "
                    f"counts add up to {sum(food.values())}")
    wild_dish = wilds[0]
    dishes = tuple(d for d in food if d != wild_dish)

    def dish_name(value: Any, where: str) -> str:
        if value not in dishes:
            raise _fail(where, f"{value!r} is not a dish of the food cards {list(dishes)} "
                        "(a wild card is not a dish)")
        return str(value)

    trucks = []
    for entry in _entries(raw, "trucks", facts["truck_cards"], "food truck cards"):
        where = f"truck {entry['id']!r}"
        name = _field(entry, "name", where)
        extras = _field(entry, "extras", where)
        if not isinstance(extras, list) or not extras:
            raise _fail(where, "extras must list the extra dishes the truck shows")
        trucks.append(TruckCard(str(entry["id"]), str(name),
                                tuple(dish_name(d, where) for d in extras)))

    orders = []
    for entry in _entries(raw, "orders", facts["order_cards"], "order cards"):
        where = f"order {entry['id']!r}"
        extra = dish_name(_field(entry, "extra", where), where)
        needs = _mapping(_field(entry, "needs", where), f"{where} needs")
        pairs = tuple(sorted((dish_name(d, where), _count(n, where, f"needs {d}"))
                             for d, n in needs.items()))
        if sum(n for _, n in pairs) != facts["dishes_per_order"]:
            raise _fail(where, f"an order needs {facts['dishes_per_order']} dishes, this one "
                        f"needs {sum(n for _, n in pairs)}")
        coins = _count(_field(entry, "coins", where), where, "coins")
        orders.append(OrderCard(str(entry["id"]), extra, pairs, coins))

    return TruckComponents(status=status.strip(), guessed=tuple(guessed), facts=facts,
                           min_players=least, max_players=most, food=food, wild=wild_dish,
                           dishes=dishes, trucks=tuple(trucks), orders=tuple(orders))


def load_food_trucks(path: str | Path | None = None) -> TruckComponents:
    """Load and validate a component list; the shipped data/food_trucks.yaml by default.

    :raises ComponentError: if the file is unreadable or malformed.
    """
    raw = read_component_list(DATA_FILE, path)
    return parse_food_trucks(raw)


@functools.lru_cache(maxsize=1)
def food_trucks() -> TruckComponents:
    """The shipped Food Trucks list, loaded and validated once."""
    return load_food_trucks()


# --- actions -----------------------------------------------------------------------------------

codec = ActionCodec()


@action(codec, "draw-order", "order {order} is drawn from the order deck")
class DrawOrder(Action):
    """Chance: the order card turned face up from the order deck."""

    order: str


@action(codec, "draw-food", "{dish} is drawn from the food deck")
class DrawFood(Action):
    """Chance: the food card drawn from the food deck (onto the grid, or dealt to a hand)."""

    dish: str


@action(codec, "deal-truck", "food truck {truck} is dealt")
class DealTruck(Action):
    """Chance: the food truck card dealt to the next player."""

    truck: str


@action(codec, "take", "prepare orders: take the dish on {cell} and its group")
class Take(Action):
    """Prepare Orders: choose a dish on the grid; take it with its connected group."""

    cell: str


@action(codec, "return-card", "return {dish} to {cell}")
class ReturnCard(Action):
    """Over the 12-card limit after preparing: return a card to an empty space of the grid."""

    dish: str
    cell: str


@action(codec, "serve", "serve order {order} with {cards}")
class Serve(Action):
    """Serve Orders: serve an order of the row (or a takeaway order) with these hand cards; the
    rest of its 6 dishes come from the extra dishes in the food truck."""

    order: str
    cards: tuple[str, ...]


@action(codec, "steal", "play the unhappy customer: serve and steal order {order} with {cards}")
class Steal(Action):
    """Unhappy Customer: serve another player's last served order with these hand cards."""

    order: str
    cards: tuple[str, ...]


@action(codec, "discard", "discard {dish}")
class Discard(Action):
    """Over the 12-card limit after a steal: discard a card to the discard pile."""

    dish: str


@action(codec, "end-turn", "stop serving")
class EndTurn(Action):
    """End a Serve Orders turn after serving at least one order."""


# moves made once and shared (actions are frozen)
class _ReturnTable(dict[str, list[ReturnCard]]):
    """dish -> its ReturnCard move for each grid space, made when first asked for."""

    def __init__(self, cells: tuple[str, ...]) -> None:
        super().__init__()
        self.cells = cells

    def __missing__(self, dish: str) -> list[ReturnCard]:
        made = self[dish] = [ReturnCard(dish, c) for c in self.cells]
        return made


@functools.lru_cache(maxsize=4)
def _return_cards(cells: tuple[str, ...]) -> _ReturnTable:
    """Every ReturnCard move, made once: dish -> one per grid space."""
    return _ReturnTable(cells)


@functools.cache
def _draw_food(dish: str) -> DrawFood:
    return DrawFood(dish)


# the serve moves of an order for what of a hand and of the extra dishes it can use (a memo)
_SERVE_MOVES: dict[tuple[Any, ...], tuple[Action, ...]] = {}

_CHANCE_PHASES = frozenset({"setup-row", "setup-grid", "setup-truck", "setup-deal",
                            "new-order", "replace", "refill"})
_WAITS_FOR = {
    "turn": "the player's action: Take (prepare orders), Serve, Steal or, after serving, EndTurn",
    "return": "a card returned to the grid (ReturnCard), down to the 12-card limit",
    "discard": "a card discarded by the player stolen from (Discard), down to 12",
}


class FoodTrucksState(GameState):
    """One game of Food Trucks."""

    GAME_ID: ClassVar[str] = GAME_ID
    TIEBREAKS: ClassVar[tuple[str, ...]] = (
        "more served orders in the food truck",
        "more food cards in hand",
    )
    TABLE_OPTIONS: ClassVar[dict[str, str]] = {
        "happy_hour": "true for \"The Happy Hour\" variant (1 delivery person); default false",
        "first_player": "the seat (0 to players-1) of whoever most recently ordered food at a "
                        "food truck; default 0",
    }
    codec: ClassVar[ActionCodec] = codec
    _SHARED: ClassVar[frozenset[str]] = GameState._SHARED | {
        "cell_names", "cell_index", "_neighbours", "_dish_order", "_needs", "_takes",
        "_return_table"}

    def __init__(self, players: int, seed: int, options: dict[str, Any],
                 components: TruckComponents) -> None:
        super().__init__(players, seed, options)
        self.components = components
        self.order_card = ComponentIndex("order card", "Components", components.orders)
        self.truck_card = ComponentIndex("food truck card", "Components", components.trucks)
        self._needs = {o.id: o.needs for o in components.orders}
        facts = components.facts
        self.columns = facts["grid_columns"]
        self.cell_names = [f"{'abcdefghij'[i % self.columns]}{i // self.columns + 1}"
                           for i in range(facts["grid_rows"] * self.columns)]
        self.cell_index = {n: i for i, n in enumerate(self.cell_names)}
        self._takes = [Take(n) for n in self.cell_names]
        self._return_table = _return_cards(tuple(self.cell_names))
        size, cols = len(self.cell_names), self.columns
        self._neighbours = [[n for n, ok in ((c - cols, c >= cols), (c + cols, c + cols < size),
                                             (c - 1, c % cols > 0), (c + 1, c % cols < cols - 1))
                             if ok] for c in range(size)]
        self.hand_limit = facts["hand_limit"]
        self.happy_hour = bool(options["happy_hour"])
        self.delivery_persons = facts["happy_hour_delivery_persons" if self.happy_hour
                                      else "delivery_persons"]
        self.first = int(options["first_player"])
        self.wild = components.wild
        self._dish_order = sorted(components.food)
        self.phase = "setup-row"
        self.round = 1
        self.turn = self.first
        self.served_this_turn = False
        self.grid: list[str | None] = [None] * len(self.cell_names)
        self.food_deck: dict[str, int] = dict(components.food)
        self.discard: dict[str, int] = {}
        self.hands: list[dict[str, int]] = [{} for _ in range(players)]
        self.row: list[str | None] = [None] * players
        self.takeaways: list[str] = []  # left to right on the delivery person spaces
        self.order_deck = facts["orders_per_player"] * players
        # orders no one has seen: the order deck and the cards returned unseen to the box
        self.unseen: list[str] = sorted(o.id for o in components.orders)
        self.box: list[str] = []  # orders returned to the box after being seen (too slow)
        self.trucks: list[str | None] = [None] * players
        self.served: list[list[str]] = [[] for _ in range(players)]  # bottom to top
        self.unhappy = (self.first - 1) % players  # "The last player in turn order"
        self.dealt = 0
        self.slot: int | None = None  # the row space waiting for an order from the deck
        self.victim: int | None = None  # who discards down to 12 after a steal
        self.end_reason: str | None = None
        self._notes: list[str] = []

    @classmethod
    def new(cls, players: int, seed: int, **options: Any) -> FoodTrucksState:
        components = food_trucks()
        if not components.min_players <= players <= components.max_players:
            raise ValueError(f"Food Trucks is for {components.min_players} to "
                             f"{components.max_players} players, not {players}")
        unknown = set(options) - set(cls.TABLE_OPTIONS)
        if unknown:
            raise ValueError(f"unknown Food Trucks options {sorted(unknown)}; known: "
                             f"{sorted(cls.TABLE_OPTIONS)}")
        happy = options.get("happy_hour", False)
        if isinstance(happy, str):  # from the command line: --option happy_hour=true
            happy = {"true": True, "yes": True, "on": True, "1": True, "false": False,
                     "no": False, "off": False, "0": False}.get(happy.lower(), happy)
        if not isinstance(happy, bool):
            raise ValueError(f"happy_hour must be true or false, not {happy!r}")
        first = options.get("first_player", 0)
        if isinstance(first, str) and first.isdigit():
            first = int(first)
        if not isinstance(first, int) or isinstance(first, bool) or not 0 <= first < players:
            raise ValueError(f"first_player must be a seat from 0 to {players - 1}, not {first!r}")
        return cls(players, seed, {"happy_hour": happy, "first_player": first}, components)

    @classmethod
    def player_counts(cls) -> tuple[int, int]:
        """How many may play, as the component list says."""
        components = food_trucks()
        return components.min_players, components.max_players

    def player_name(self, player: int) -> str:
        """Seats are counted from 1 (the game has no colours)."""
        return f"player {player + 1}"

    # --- small helpers ----------------------------------------------------------------------
    def hand_size(self, player: int) -> int:
        return sum(self.hands[player].values())

    def extras(self, player: int) -> dict[str, int]:
        """The extra dishes a player may use: those on the food truck and on the last order
        served (the top of the stack); they stay available for every order ("always
        AVAILABLE")."""
        out: dict[str, int] = {}
        truck = self.trucks[player]
        if truck is not None:
            for dish in self.truck_card(truck).extras:
                out[dish] = out.get(dish, 0) + 1
        if self.served[player]:
            dish = self.order_card(self.served[player][-1]).extra
            out[dish] = out.get(dish, 0) + 1
        return out

    def coins(self, player: int) -> int:
        return sum(self.order_card(o).coins for o in self.served[player])

    @staticmethod
    def _add(pile: dict[str, int], dish: str, n: int = 1) -> None:
        pile[dish] = pile.get(dish, 0) + n

    @staticmethod
    def _remove(pile: dict[str, int], dish: str, n: int = 1) -> None:
        left = pile[dish] - n
        if left:
            pile[dish] = left
        else:
            del pile[dish]

    def _note(self, text: str) -> None:
        self._notes.append(text)

    # --- who acts ---------------------------------------------------------------------------
    def current_player(self) -> int:
        phase = self.phase
        if phase in ("turn", "return"):
            return self.turn
        if phase in _CHANCE_PHASES:
            return CHANCE
        if phase == "discard":
            return self.victim  # type: ignore[return-value]
        return TERMINAL

    def is_terminal(self) -> bool:
        return self.phase == "over"

    # --- chance -----------------------------------------------------------------------------
    def _draws_order(self) -> bool:
        return self.phase in ("setup-row", "new-order", "replace")

    def _free_trucks(self) -> list[str]:
        taken = set(self.trucks)
        return [t for t in self.truck_card.ids() if t not in taken]

    def chance_outcomes(self) -> list[tuple[Action, float]]:
        phase = self.phase
        if phase not in _CHANCE_PHASES:
            return []
        if self._draws_order():
            # the order deck is the unseen orders, shuffled: each unseen order is equally likely
            return [(DrawOrder(o), 1 / len(self.unseen)) for o in sorted(self.unseen)]
        if phase == "setup-truck":
            free = self._free_trucks()
            return [(DealTruck(t), 1 / len(free)) for t in free]
        total = sum(self.food_deck.values())
        return [(DrawFood(d), n / total) for d, n in sorted(self.food_deck.items())]

    def sample_chance(self) -> Action:
        rng = self.rng.next()
        phase = self.phase
        if phase not in _CHANCE_PHASES:
            raise IllegalMoveError("turn order", "no chance step is pending")
        if self._draws_order():
            return DrawOrder(rng.choice(self.unseen))  # kept sorted
        if phase == "setup-truck":
            return DealTruck(rng.choice(self._free_trucks()))
        deck = self.food_deck
        pick = rng.randrange(sum(deck.values()))
        for dish in self._dish_order:
            n = deck.get(dish, 0)
            if pick < n:
                return _draw_food(dish)
            pick -= n
        raise AssertionError("the food deck is empty")

    # --- legal moves ------------------------------------------------------------------------
    def _compute_legal(self) -> list[Action]:
        phase = self.phase
        if phase in _CHANCE_PHASES:
            return [a for a, _ in self.chance_outcomes()]
        if phase == "turn":
            p = self.turn
            moves: list[Action] = []
            if not self.served_this_turn:
                wild = self.wild
                moves += [t for t, d in zip(self._takes, self.grid, strict=True)
                          if d is not None and d != wild]
            moves += self._serve_moves(p)
            if self.served_this_turn:
                moves.append(EndTurn())
            return moves
        if phase == "return":
            empty = [c for c, d in enumerate(self.grid) if d is None]
            table = self._return_table
            return [table[d][c] for d in sorted(self.hands[self.turn]) for c in empty]
        if phase == "discard":
            return [Discard(d) for d in sorted(self.hands[self.victim])]  # type: ignore[index]
        return []

    def _servable_orders(self, player: int) -> list[tuple[str, bool]]:
        """(order, stolen): the orders of the row and the takeaway orders, then, for the holder
        of the unhappy customer, the last order served by each other player."""
        out: list[tuple[str, bool]] = []
        for o in self.row:
            if o is not None:
                out.append((o, False))
        for o in self.takeaways:
            out.append((o, False))
        if self.unhappy == player:
            out += [(self.served[q][-1], True) for q in range(self.players)
                    if q != player and self.served[q]]
        return out

    def _serve_moves(self, player: int) -> list[Action]:
        hand = self.hands[player]
        extras = self.extras(player)
        have = dict(hand)
        for dish, k in extras.items():
            have[dish] = have.get(dish, 0) + k
        wilds = hand.get(self.wild, 0)
        moves: list[Action] = []
        for order, stolen in self._servable_orders(player):
            needs = self._needs[order]
            short = 0
            for dish, n in needs:
                k = n - have.get(dish, 0)
                if k > 0:
                    short += k
            if short > wilds:
                continue
            # the moves depend only on what of the hand and the extras the order can use (a
            # loop, not comprehensions: on Python 3.11 each is a function call of its own)
            parts: list[Any] = [order, stolen, wilds if wilds < 6 else 6]
            for d, n in needs:
                k = hand.get(d, 0)
                parts.append(k if k < n else n)
            for d, _ in needs:
                parts.append(extras.get(d, 0))
            key = tuple(parts)
            found = _SERVE_MOVES.get(key)
            if found is None:
                make = Steal if stolen else Serve
                found = tuple(make(order, c) for c in self.payments(needs, hand, extras))
                if len(_SERVE_MOVES) > 100_000:
                    _SERVE_MOVES.clear()
                _SERVE_MOVES[key] = found
            moves += found
        return moves

    def can_serve(self, needs: tuple[tuple[str, int], ...], hand: dict[str, int],
                  extras: dict[str, int]) -> bool:
        """Whether the hand's cards and the extra dishes can cover an order's 6 dishes."""
        short = sum(max(0, n - extras.get(d, 0) - hand.get(d, 0)) for d, n in needs)
        return short <= hand.get(self.wild, 0)

    def payments(self, needs: tuple[tuple[str, int], ...], hand: dict[str, int],
                 extras: dict[str, int]) -> list[tuple[str, ...]]:
        """Every set of hand cards that serves the order with the extra dishes, sorted: each card
        covers one dish the order asks for (a wild card covers any), and the extra dishes cover
        the rest."""
        wild = self.wild
        wilds = hand.get(wild, 0)
        # per dish: (cards spent, dishes left to cover, of those not covered by an extra dish)
        choices = []
        least_short = []
        for dish, n in needs:
            extra = extras.get(dish, 0)
            most = min(hand.get(dish, 0), n)
            choices.append((dish, [(c, n - c, max(0, n - c - extra)) for c in range(most + 1)]))
            least_short.append(max(0, n - most - extra))
        if sum(least_short) > wilds:
            return []
        after = [sum(least_short[i:]) for i in range(1, len(needs) + 1)]
        wild_last = all(dish < wild for dish, _ in needs)
        out: list[tuple[str, ...]] = []

        def spend(i: int, cards: tuple[str, ...], left: int, short: int) -> None:
            if i == len(choices):
                for w in range(short, min(wilds, left) + 1):
                    paid = cards + (wild,) * w
                    out.append(paid if wild_last else tuple(sorted(paid)))
                return
            dish, options = choices[i]
            for c, k, s in options:
                if short + s + after[i] <= wilds:
                    spend(i + 1, cards + (dish,) * c, left + k, short + s)

        spend(0, (), 0, 0)
        return out

    # --- checking ---------------------------------------------------------------------------
    def _check(self, action: Action) -> None:
        phase = self.phase
        if phase in _CHANCE_PHASES:
            self._check_chance(action)
            return
        if phase == "turn":
            self._check_turn(action)
        elif phase == "return":
            self._check_return(action)
        elif phase == "discard":
            self._check_discard(action)

    def _wrong(self, action: Action) -> IllegalMoveError:
        return IllegalMoveError("turn structure", "the game now waits for "
                                f"{_WAITS_FOR.get(self.phase, self.phase)}", move=action)

    def _check_chance(self, action: Action) -> None:
        if self._draws_order():
            if not isinstance(action, DrawOrder):
                raise ChanceOutcomeError("chance", "the table must turn up an order card from "
                                         "the order deck (DrawOrder)", move=action)
            if action.order not in self.unseen:
                where = self._order_place(action.order)
                raise ChanceOutcomeError("chance", f"{action.order} cannot come from the order "
                                         f"deck: it is {where}; check the reading", move=action)
            return
        if self.phase == "setup-truck":
            if not isinstance(action, DealTruck):
                raise ChanceOutcomeError("Game Setup", "the table must deal a food truck card "
                                         "(DealTruck)", move=action)
            if action.truck not in self._free_trucks():
                raise ChanceOutcomeError("Game Setup", f"{action.truck} is not a food truck "
                                         f"left to deal (left: {self._free_trucks()})",
                                         move=action)
            return
        if not isinstance(action, DrawFood):
            raise ChanceOutcomeError("chance", "the table must draw a food card from the food "
                                     "deck (DrawFood)", move=action)
        if self.food_deck.get(action.dish, 0) == 0:
            raise ChanceOutcomeError("chance", f"no {action.dish} is left in the food deck "
                                     f"(left: {dict(sorted(self.food_deck.items()))}); check "
                                     "the reading", move=action)

    def _order_place(self, order: str) -> str:
        if order not in self.order_card:
            return "not an order card of this box"
        if order in self.row:
            return "in the order row"
        if order in self.takeaways:
            return "a takeaway order"
        if order in self.box:
            return "back in the game box"
        for q in range(self.players):
            if order in self.served[q]:
                return f"in {self.player_name(q)}'s food truck"
        return "face down"

    def _cell(self, name: str, action: Action, rule: str) -> int:
        try:
            return self.cell_index[name]
        except KeyError:
            raise IllegalMoveError(rule, f"{name!r} is not a space of the grid (a1 to "
                                   f"{self.cell_names[-1]}: column letter, row number from the "
                                   "top)", move=action) from None

    def _check_turn(self, action: Action) -> None:
        p = self.turn
        if isinstance(action, Take):
            if self.served_this_turn:
                raise IllegalMoveError("How to Play", "each turn is 1 of the 2 actions: you "
                                       "served orders this turn, so you cannot also prepare "
                                       "orders", move=action)
            dish = self.grid[self._cell(action.cell, action, "Prepare Orders")]
            if dish is None:
                raise IllegalMoveError("Prepare Orders", f"{action.cell} is empty: choose a "
                                       "dish on the grid", move=action)
            if dish == self.wild:
                raise IllegalMoveError("Prepare Orders", f"{action.cell} holds a wild card: "
                                       "choose a dish; wild cards come along with it",
                                       move=action)
            return
        if isinstance(action, Serve | Steal):
            self._check_serve(p, action)
            return
        if isinstance(action, EndTurn):
            if not self.served_this_turn:
                raise IllegalMoveError("How to Play", "a turn is preparing orders or serving "
                                       "orders: serve an order before you stop serving, or "
                                       "prepare orders", move=action)
            return
        raise self._wrong(action)

    def _check_serve(self, p: int, action: Serve | Steal) -> None:
        rule = "Unhappy Customer" if isinstance(action, Steal) else "Serve Orders"
        order = action.order
        if order not in self.order_card:
            raise IllegalMoveError(rule, f"{order!r} is not an order card of this box",
                                   move=action)
        if isinstance(action, Serve):
            if order not in self.row and order not in self.takeaways:
                raise IllegalMoveError(rule, f"{order} is not in the order row (it is "
                                       f"{self._order_place(order)}); serve an order of the "
                                       "row or a takeaway order", move=action)
        else:
            if self.unhappy != p:
                raise IllegalMoveError(rule, f"{self.player_name(p)} does not have the unhappy "
                                       "customer card", move=action)
            tops = {self.served[q][-1]: q for q in range(self.players)
                    if q != p and self.served[q]}
            if order not in tops:
                raise IllegalMoveError(rule, f"{order} is not the last order served by another "
                                       f"player (it is {self._order_place(order)}); steal one "
                                       f"of {sorted(tops)}", move=action)
        problem = self.payment_problem(self.order_card(order), self.hands[p], self.extras(p),
                                       action.cards)
        if problem:
            raise IllegalMoveError(rule, problem, move=action)

    def payment_problem(self, order: OrderCard, hand: dict[str, int], extras: dict[str, int],
                        cards: tuple[str, ...]) -> str | None:
        """Why these hand cards (with the extra dishes) do not serve the order; None if they do.
        "you need 6 dishes to serve 1 order. Additionally, you may use the extra dishes"."""
        spent = Counter(cards)
        for dish, n in spent.items():
            if hand.get(dish, 0) < n:
                return f"you hold {hand.get(dish, 0)} {dish}, not {n}"
        needs = dict(order.needs)
        left = dict(needs)
        for dish, n in spent.items():
            if dish == self.wild:
                continue
            if n > needs.get(dish, 0):
                return (f"{order.id} asks for {needs.get(dish, 0)} {dish}, you spend {n}; "
                        "spend only cards the order needs")
            left[dish] -= n
        wilds = spent.get(self.wild, 0)
        if wilds > sum(left.values()):
            return (f"{wilds} wild cards but only {sum(left.values())} dishes left to cover; "
                    "spend only cards the order needs")
        short = {d: k - extras.get(d, 0) for d, k in left.items() if k > extras.get(d, 0)}
        if sum(short.values()) > wilds:
            missing = ", ".join(f"{n} {d}" for d, n in sorted(short.items()))
            return (f"{order.id} needs {_dishes(order.needs)}: your cards and the extra dishes "
                    f"in your food truck ({_dishes(tuple(sorted(extras.items())))}) leave "
                    f"{missing} uncovered")
        return None

    def _check_return(self, action: Action) -> None:
        if not isinstance(action, ReturnCard):
            raise self._wrong(action)
        rule = "Prepare Orders (12-card limit)"
        if self.hands[self.turn].get(action.dish, 0) == 0:
            raise IllegalMoveError(rule, f"you hold no {action.dish}", move=action)
        if self.grid[self._cell(action.cell, action, rule)] is not None:
            raise IllegalMoveError(rule, f"{action.cell} is not an available space: return the "
                                   "card to an empty space of the grid", move=action)

    def _check_discard(self, action: Action) -> None:
        if not isinstance(action, Discard):
            raise self._wrong(action)
        if self.hands[self.victim].get(action.dish, 0) == 0:  # type: ignore[index]
            raise IllegalMoveError("Unhappy Customer (12-card limit)",
                                   f"{self.player_name(self.victim)} holds no "  # type: ignore[arg-type]
                                   f"{action.dish}", move=action)

    # --- hidden information -----------------------------------------------------------------
    def _private_to(self, action: Action) -> int | None:
        """A food card dealt at setup goes into a hand: only its receiver reads it."""
        if self.phase == "setup-deal":
            return (self.first + self.dealt) % self.players
        return None

    def hidden_choice(self) -> int | None:
        """Serving, returning cards over the limit and the unhappy customer's discard are chosen
        from a hand that only its owner sees (docs/rules/food-trucks.md)."""
        if self.phase in ("turn", "return"):
            return self.turn
        if self.phase == "discard":
            return self.victim
        return None

    def describe(self, action: Action) -> str:
        """An order card or a food truck by what it shows (its ids are this list's own, not
        printed on the cards): 'order-02 (burrito 2, nachos, quesadilla, taco 2; extra taco;
        4 coins) is turned up'."""
        kind = type(action)
        if kind is DrawOrder:
            return f"{self._order_words(action.order)} is turned up"
        if kind is Serve or kind is Steal:
            cards = ", ".join(action.cards)
            verb = "serve" if kind is Serve else "play the unhappy customer: steal and serve"
            return f"{verb} {self._order_words(action.order)} with {cards}"
        if kind is DealTruck:
            truck = self.truck_card(action.truck)
            return f"{truck.name} (extra {' and '.join(truck.extras)}) is dealt"
        return str(action)

    def _order_words(self, order_id: str) -> str:
        order = self.order_card(order_id)
        needs = ", ".join(dish if n == 1 else f"{dish} {n}" for dish, n in order.needs)
        return f"{order.id} ({needs}; extra {order.extra}; {order.coins} coins)"

    def _public_text(self, action: Action) -> str:
        return f"{self.player_name((self.first + self.dealt) % self.players)} is dealt a food card"

    # --- applying ---------------------------------------------------------------------------
    def _apply(self, action: Action) -> str | tuple[str, str]:
        self._notes = []
        result: str | tuple[str, str]
        kind = type(action)  # (exact classes: faster than isinstance on an ABC)
        if kind is DrawOrder:
            result = self._apply_order(action.order)
        elif kind is DrawFood:
            result = self._apply_food(action.dish)
        elif kind is DealTruck:
            p = self.trucks.index(None)
            self.trucks[p] = action.truck
            name = self.truck_card(action.truck).name
            result = f"{self.player_name(p)} gets the food truck {name}"
            if None not in self.trucks:
                self.phase = "setup-deal"
        elif kind is Take:
            result = self._apply_take(action)
        elif kind is ReturnCard:
            p = self.turn
            self._remove(self.hands[p], action.dish)
            self.grid[self.cell_index[action.cell]] = action.dish
            result = f"{self.player_name(p)} returns {action.dish} to {action.cell}"
            if self.hand_size(p) <= self.hand_limit:
                self._begin_refill()
        elif kind is Serve or kind is Steal:
            result = self._apply_serve(action)
        elif kind is Discard:
            v = self.victim
            assert v is not None
            self._remove(self.hands[v], action.dish)
            self._add(self.discard, action.dish)
            result = f"{self.player_name(v)} discards {action.dish}"
            if self.hand_size(v) <= self.hand_limit:
                self.victim = None
                self._after_serve()
        elif kind is EndTurn:
            result = f"{self.player_name(self.turn)} stops serving"
            self._end_turn()
        else:
            raise AssertionError(action)
        if self._notes:
            tail = "; " + "; ".join(self._notes)
            if isinstance(result, tuple):
                return result[0] + tail, result[1] + tail
            return result + tail
        return result

    def _apply_order(self, order: str) -> str:
        self.unseen.remove(order)
        self.order_deck -= 1
        phase = self.phase
        if phase == "setup-row":
            self.row[self.row.index(None)] = order
            if None not in self.row:
                self.phase = "setup-grid"
            return f"{order} is dealt to the order row"
        if phase == "replace":
            assert self.slot is not None
            self.row[self.slot] = order
            self.slot = None
            text = f"{order} fills the empty space of the order row"
            self._after_serve()
            return text
        # New Orders: the first player's draw at the start of a round
        self.phase = "turn"
        if len(self.takeaways) < self.delivery_persons:
            self.takeaways.append(order)
            return f"{order} is a new takeaway order"
        self.box.append(order)
        lost = []
        for q in range(self.players):
            if self.served[q]:
                top = self.served[q].pop()
                self.box.append(top)
                lost.append(f"{self.player_name(q)} loses {top}")
        return (f"{order} is drawn but every delivery person has a takeaway order: the SERVICE "
                f"IS TOO SLOW, {order} goes back to the box"
                + ("; " + ", ".join(lost) if lost else ""))

    def _apply_food(self, dish: str) -> str | tuple[str, str]:
        self._remove(self.food_deck, dish)
        if self.phase == "setup-deal":
            p = (self.first + self.dealt) % self.players
            self.dealt += 1
            self._add(self.hands[p], dish)
            private = (f"{self.player_name(p)} is dealt {dish}",
                       f"{self.player_name(p)} is dealt a food card")
            if self.dealt == self.components.facts["deal"] * self.players:
                self._start_turn(self.first, new_round=False)
            return private
        cell = self.grid.index(None)
        self.grid[cell] = dish
        text = f"{dish} fills {self.cell_names[cell]}"
        if self.phase == "setup-grid":
            if None not in self.grid:
                self.phase = "setup-truck"
        else:
            self._begin_refill()
        return text

    def group(self, cell: int) -> list[int]:
        """The chosen dish and every matching dish or wild card connected to it horizontally or
        vertically, through matching dishes and wild cards (Prepare Orders)."""
        dish = self.grid[cell]
        grid = self.grid
        wild = self.wild
        neighbours = self._neighbours
        found = {cell}
        todo = [cell]
        while todo:
            for n in neighbours[todo.pop()]:
                if n not in found and (grid[n] == dish or grid[n] == wild):
                    found.add(n)
                    todo.append(n)
        return sorted(found)

    def _apply_take(self, action: Take) -> str:
        p = self.turn
        taken = self.group(self.cell_index[action.cell])
        cards = []
        for c in taken:
            dish = self.grid[c]
            assert dish is not None
            self._add(self.hands[p], dish)
            cards.append(dish)
            self.grid[c] = None
        text = (f"{self.player_name(p)} prepares orders: takes {', '.join(cards)} from "
                f"{', '.join(self.cell_names[c] for c in taken)}")
        excess = self.hand_size(p) - self.hand_limit
        if excess > 0:
            self.phase = "return"
            self._note(f"{self.player_name(p)} is over the 12-card limit and returns {excess} "
                       "card(s) to the grid")
        else:
            self._begin_refill()
        return text

    def _apply_serve(self, action: Serve | Steal) -> str:
        p = self.turn
        order = action.order
        for dish in action.cards:
            self._remove(self.hands[p], dish)
        paid = ", ".join(action.cards) if action.cards else "no cards"
        if isinstance(action, Steal):
            victim = next(q for q in range(self.players) if self.served[q][-1:] == [order])
            self.served[victim].pop()
            self.served[p].append(order)
            for dish in action.cards:
                self._add(self.hands[victim], dish)
            self.unhappy = victim
            text = (f"{self.player_name(p)} plays the unhappy customer and steals {order} from "
                    f"{self.player_name(victim)}, paying {paid} to them; "
                    f"{self.player_name(victim)} takes the unhappy customer card")
            if self.hand_size(victim) > self.hand_limit:
                self.phase = "discard"
                self.victim = victim
                self._note(f"{self.player_name(victim)} is over the 12-card limit and discards "
                           "down to 12")
                return text
            self._after_serve()
            return text
        for dish in action.cards:
            self._add(self.discard, dish)
        self.served[p].append(order)
        text = f"{self.player_name(p)} serves {order} with {paid}"
        if order in self.takeaways:
            self.takeaways.remove(order)
            self._after_serve()
            return text + " (a takeaway order: not replaced)"
        space = self.row.index(order)
        if self.takeaways:
            moved = self.takeaways.pop()
            self.row[space] = moved
            self._after_serve()
            return text + f"; the takeaway order {moved} takes its space"
        self.row[space] = None
        if self.order_deck == 0:
            self._finish("an order had to be drawn from the order deck and the deck has run out")
            return text
        self.slot = space
        self.phase = "replace"
        return text

    # --- the flow ---------------------------------------------------------------------------
    def _after_serve(self) -> None:
        """Back to the serving player; the turn ends by itself when no order can be served."""
        self.phase = "turn"
        self.served_this_turn = True
        p = self.turn
        hand = self.hands[p]
        extras = self.extras(p)
        if not any(self.can_serve(self.order_card(o).needs, hand, extras)
                   for o, _ in self._servable_orders(p)):
            self._note(f"{self.player_name(p)} cannot serve another order")
            self._end_turn()

    def _begin_refill(self) -> None:
        """"complete the remaining empty spaces of the grid by drawing cards from the deck (one at
        a time) ... from left to right and top to bottom"; an empty deck is the discard pile,
        shuffled. Cards always suffice: with k spaces empty and at most 12 cards a hand, the
        deck and the discard pile hold at least 68 - (16 - k) - 4 * 12 = k + 4 cards."""
        if None not in self.grid:
            self._end_turn()
            return
        if not self.food_deck:
            self.food_deck, self.discard = self.discard, {}
            self._note("the food deck has run out: the discard pile is shuffled into a new "
                       "food deck")
        self.phase = "refill"

    def _end_turn(self) -> None:
        nxt = (self.turn + 1) % self.players
        self._start_turn(nxt, new_round=nxt == self.first)

    def _start_turn(self, player: int, *, new_round: bool) -> None:
        self.turn = player
        self.served_this_turn = False
        self.phase = "turn"
        if new_round:
            self.round += 1
            if self.order_deck == 0:
                self._finish("the first player had to draw an order and the order deck has "
                             "run out")
                return
            self.phase = "new-order"

    def _finish(self, reason: str) -> None:
        self.phase = "over"
        self.end_reason = reason
        self.slot = None
        self._note(f"the game ends: {reason}")

    # --- scores and views -------------------------------------------------------------------
    def scores(self) -> list[Score]:
        """"The winner is the player with the most coins"; ties: most served orders in the food
        truck, then most food cards in hand."""
        return [Score(q, self.coins(q), {"coins": self.coins(q)},
                      (len(self.served[q]), self.hand_size(q))) for q in range(self.players)]

    def view(self, player: int | None) -> dict[str, Any]:
        """What a player sees: the grid, the orders and the trucks; of the hands only their own,
        of the others only how many cards each holds; of the decks only how many cards."""
        seats = []
        for q in range(self.players):
            truck = self.trucks[q]
            seats.append({
                "player": self.player_name(q),
                "truck": truck,
                "served": list(self.served[q]),
                "coins": self.coins(q),
                "extras": dict(sorted(self.extras(q).items())),
                "hand": (dict(sorted(self.hands[q].items())) if q == player
                         else self.hand_size(q)),
                "hand_size": self.hand_size(q),
                "unhappy_customer": q == self.unhappy,
                "first_player": q == self.first,
            })
        actor = self.current_player()
        rows = len(self.grid) // self.columns
        return {
            "game": GAME_ID,
            "you": None if player is None else self.player_name(player),
            "phase": self.phase,
            "round": self.round,
            "to_act": (self.player_name(actor) if actor >= 0
                       else "table" if actor == CHANCE else None),
            "grid": [[self.grid[r * self.columns + k] for k in range(self.columns)]
                     for r in range(rows)],
            "order_row": list(self.row),
            "takeaways": list(self.takeaways),
            "delivery_persons": self.delivery_persons,
            "order_deck": self.order_deck,
            "food_deck": sum(self.food_deck.values()),
            "discard": dict(sorted(self.discard.items())),
            "box": sorted(self.box),
            "players": seats,
            "end": self.end_reason,
        }

    def token_places(self) -> dict[str, str]:
        """Where each order card and food truck card is (food cards are alike by dish)."""
        places = {o: "order deck or box (face down)" for o in self.unseen}
        places.update({o: f"order row:{i + 1}" for i, o in enumerate(self.row) if o})
        places.update({o: f"takeaway:{i + 1}" for i, o in enumerate(self.takeaways)})
        places.update({o: "box" for o in self.box})
        for q in range(self.players):
            places.update({o: f"food truck:{self.player_name(q)}" for o in self.served[q]})
        places.update({t: f"truck:{self.player_name(q)}" for q, t in enumerate(self.trucks)
                       if t})
        left = "box" if None not in self.trucks else "food trucks to deal"
        places.update({t: left for t in self._free_trucks()})
        return places

    # --- persistence ------------------------------------------------------------------------
    def _state_json(self) -> dict[str, Any]:
        return {
            "phase": self.phase,
            "round": self.round,
            "turn": self.turn,
            "served_this_turn": self.served_this_turn,
            "grid": list(self.grid),
            "food_deck": dict(sorted(self.food_deck.items())),
            "discard": dict(sorted(self.discard.items())),
            "hands": [dict(sorted(h.items())) for h in self.hands],
            "row": list(self.row),
            "takeaways": list(self.takeaways),
            "order_deck": self.order_deck,
            "unseen": sorted(self.unseen),
            "box": list(self.box),
            "trucks": list(self.trucks),
            "served": [list(s) for s in self.served],
            "unhappy": self.unhappy,
            "dealt": self.dealt,
            "slot": self.slot,
            "victim": self.victim,
            "end_reason": self.end_reason,
        }

    def _load_state_json(self, d: dict[str, Any]) -> None:
        phases = _CHANCE_PHASES | {"turn", "return", "discard", "over"}
        if d["phase"] not in phases:
            raise StateFormatError(f"unknown phase {d['phase']!r}; known: {sorted(phases)}")
        self.phase = d["phase"]
        self.round = int(d["round"])
        self.turn = int(d["turn"])
        self.served_this_turn = bool(d["served_this_turn"])
        self.grid = list(d["grid"])
        self.food_deck = {str(k): int(v) for k, v in d["food_deck"].items()}
        self.discard = {str(k): int(v) for k, v in d["discard"].items()}
        self.hands = [{str(k): int(v) for k, v in h.items()} for h in d["hands"]]
        self.row = list(d["row"])
        self.takeaways = list(d["takeaways"])
        self.order_deck = int(d["order_deck"])
        self.unseen = sorted(d["unseen"])
        self.box = list(d["box"])
        self.trucks = list(d["trucks"])
        self.served = [list(s) for s in d["served"]]
        self.unhappy = int(d["unhappy"])
        self.dealt = int(d["dealt"])
        self.slot = d["slot"]
        self.victim = d["victim"]
        self.end_reason = d["end_reason"]
        self.check_conservation()

    def check_conservation(self) -> None:
        """Each of the 68 food cards, 24 order cards and 4 trucks is in exactly one place.

        :raises StateFormatError: naming what is missing, twice or out of place.
        """
        n = self.players
        if (len(self.grid) != len(self.cell_names) or len(self.hands) != n
                or len(self.row) != n or len(self.trucks) != n or len(self.served) != n):
            raise StateFormatError(f"the grid needs {len(self.cell_names)} spaces and the hands, "
                                   f"order row, trucks and served orders {n} entries each")
        piles = [Counter(d for d in self.grid if d is not None), Counter(self.food_deck),
                 Counter(self.discard), *(Counter(h) for h in self.hands)]
        if any(v < 0 for pile in piles for v in pile.values()):
            raise StateFormatError("a pile holds a negative number of cards")
        total: Counter[str] = Counter()
        for pile in piles:
            total.update(pile)
        seen = [f"{d}#{k}" for d, count in total.items() for k in range(1, count + 1)]
        expected = [f"{d}#{k}" for d, count in self.components.food.items()
                    for k in range(1, count + 1)]
        check_each_once(seen, expected, "food card")
        orders = [o for o in self.row if o is not None] + self.takeaways + self.box + self.unseen
        for stack in self.served:
            orders += stack
        check_each_once(orders, self.order_card.ids(), "order card")
        unused = len(self.components.orders) - self.components.facts["orders_per_player"] * n
        if len(self.unseen) != self.order_deck + unused or self.order_deck < 0:
            raise StateFormatError(f"the order deck holds {self.order_deck} cards, so "
                                   f"{self.order_deck + unused} orders should be unseen, not "
                                   f"{len(self.unseen)}")
        trucks = [t for t in self.trucks if t is not None]
        if len(set(trucks)) != len(trucks) or any(t not in self.truck_card for t in trucks):
            raise StateFormatError(f"food trucks {trucks}: each must be a different truck of "
                                   "the box")
        if len(self.takeaways) > self.delivery_persons:
            raise StateFormatError(f"{len(self.takeaways)} takeaway orders but only "
                                   f"{self.delivery_persons} delivery person(s)")
        over = [q for q in range(n) if self.hand_size(q) > self.hand_limit
                and not ((self.phase == "return" and q == self.turn)
                         or (self.phase == "discard" and q == self.victim))]
        if over:
            raise StateFormatError(f"players {over} hold more than {self.hand_limit} cards")
        if not 0 <= self.unhappy < n or not 0 <= self.turn < n:
            raise StateFormatError("the unhappy customer holder and the player to act must be "
                                   f"seats 0 to {n - 1}")


def _dishes(pairs: tuple[tuple[str, int], ...]) -> str:
    return ", ".join(f"{n} {d}" for d, n in pairs) or "none"
