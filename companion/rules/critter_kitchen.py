"""Critter Kitchen (rulebook: shared/rules/critter-kitchen.txt).

Seven rounds over three days. Each round: restock (bisque, a challenge card, location items
from the bag, a zous-chef at the Chef Academy); every player secretly assigns each chef to a
different location (simultaneous, revealed together); locations resolve left to right, chefs
picking in queue order (mouse, lizard, boar; priority track breaks ties); after rounds 3 and 6
players present challenge meals and keep what the refrigerator holds; after round 7 the critic
meal and final scoring. Components: data/critter_kitchen.yaml (provisional). Readings of unclear
sentences: docs/rules/critter-kitchen.md.
"""

from __future__ import annotations

import functools
from collections import Counter
from dataclasses import dataclass, replace
from itertools import permutations
from pathlib import Path
from typing import Any, ClassVar

from companion.rules.components import EntryChecks, read_component_list
from companion.rules.protocol import (
    CHANCE,
    SIMULTANEOUS,
    TERMINAL,
    Action,
    ActionCodec,
    ChanceOutcomeError,
    ComponentIndex,
    GameState,
    IllegalMoveError,
    JointAction,
    Score,
    StateFormatError,
    action,
    check_each_once,
    json_field,
    jsonable,
)

GAME_ID = "critter-kitchen"
# no count is given; 9 Location Cards = up to 6 numbered boards + 3 (docs/rules/critter-kitchen.md)
MIN_PLAYERS, MAX_PLAYERS = 2, 6
ROUNDS = 7  # "compete over 7 rounds across 3 days"
CHALLENGE_ROUNDS = (3, 6)  # "On rounds 3, 6, and 7, prepare and score meals"
CRITIC_ROUND = 7
HOLD_ROUNDS = (3, 6)  # "The last challenge revealed each day gets a Hold Token"
TRUCK, MERCHANT, ACADEMY = "truck", "merchant", "academy"
SOUP = "soup"  # one soup from the Soup Truck's unlimited supply (not a token)
ALLSPICE_ROUND7 = "allspice-round7"  # "Allspice 7th-Round Token"
CONDITIONS = ("best_course", "course_min", "most_spiced", "best_total")


# --- components ---------------------------------------------------------------------------

@dataclass(frozen=True)
class Token:
    """A token of the bag (ingredient, spice, rumor), a bisque, or the allspice round token.
    ``kind`` is what makes two tokens alike; ``type`` the ingredient type (None: allspice) or,
    for a rumor, its rumor space 1-3 (0: wild)."""

    id: str
    cls: str  # ingredient, spice, rumor, bisque
    kind: str
    type: str | int | None
    value: int


@dataclass(frozen=True)
class Challenge:
    id: str
    needs: tuple[str, ...]  # required types, left to right


@dataclass(frozen=True)
class Condition:
    """A critic or rumor card's scoring rule (see the data file)."""

    id: str
    condition: str
    stars: int
    course: str | None = None
    min: int = 0

    def describe(self) -> str:
        if self.condition == "best_course":
            return f"best {self.course} course: {self.stars} star(s)"
        if self.condition == "course_min":
            return f"each {self.course} course of quality {self.min}+: {self.stars} star(s)"
        if self.condition == "most_spiced":
            return f"most spiced courses: {self.stars} star(s)"
        return f"best total critic meal quality: {self.stars} star(s)"


@dataclass(frozen=True)
class ZousChef:
    id: str
    capacity: int
    queue: int
    soup_bonus: int

    def describe(self) -> str:
        order = {0: "before the mice", 1: "with the mice", 2: "with the lizards",
                 3: "with the boars", 4: "after the boars"}[self.queue]
        soup = f", takes {self.soup_bonus} extra soup" if self.soup_bonus else ""
        return f"carries {self.capacity}, picks {order}{soup}"


@dataclass(frozen=True)
class Kitchen:
    """Everything in the box the rules need, validated."""

    colours: tuple[str, ...]
    types: tuple[str, ...]
    tokens: tuple[Token, ...]  # the bag's tokens, the bisque and the allspice round token
    chefs: tuple[tuple[str, int, int], ...]  # (id, capacity, queue)
    location_cards: int
    location_slots: int
    merchant_draws: int
    starting_soup: int
    soup_value: int
    bisque_at_truck: int
    challenge_stars: tuple[tuple[int, int], ...]
    refrigeration: dict[int, int]
    challenges: tuple[Challenge, ...]
    critics: tuple[Condition, ...]
    rumors: tuple[Condition, ...]
    zous_chefs: tuple[ZousChef, ...]


_CHECKS = EntryChecks("critter_kitchen.yaml")
_fail, _get = _CHECKS.fail, _CHECKS.get


def _count(value: Any, where: str, name: str, least: int = 0) -> int:
    if not isinstance(value, int) or isinstance(value, bool) or value < least:
        raise _fail(where, f"{name} must be a whole number of at least {least}, got {value!r}")
    return value


def _entries(raw: Any, key: str) -> list[dict[str, Any]]:
    entries = _get(raw, key, "top level")
    if not isinstance(entries, list) or not entries:
        raise _fail(key, "expected a non-empty list")
    seen: set[str] = set()
    for e in entries:
        ident = _get(e, "id", key)
        if ident in seen:
            raise _fail(f"{key} {ident!r}", "id used twice; ids must be unique")
        seen.add(ident)
    return entries


def _condition(e: dict[str, Any], where: str, types: tuple[str, ...]) -> Condition:
    kind = _get(e, "condition", where)
    if kind not in CONDITIONS:
        raise _fail(where, f"condition {kind!r} must be one of {list(CONDITIONS)}")
    stars = _count(_get(e, "stars", where), where, "stars", 1)
    course = e.get("course")
    if kind in ("best_course", "course_min") and course not in types:
        raise _fail(where, f"course {course!r} must be an ingredient type {list(types)}")
    low = _count(e.get("min", 0), where, "min")
    return Condition(e["id"], kind, stars, course, low)


def parse_kitchen(raw: Any) -> Kitchen:
    """Validate the raw data against the rulebook's facts and build :class:`Kitchen`.

    :raises ComponentError: naming the entry and what is wrong.
    """
    if not isinstance(raw, dict):
        raise _fail("top level", "expected a mapping of sections")
    if _get(raw, "schema", "top level") != 1:
        raise _fail("schema", f"this engine reads schema 1, not {raw['schema']!r}")
    colours = tuple(_get(raw, "colours", "top level"))
    if len(colours) < MAX_PLAYERS or len(set(colours)) != len(colours):
        raise _fail("colours", f"need {MAX_PLAYERS} different player colours")
    ing = _get(raw, "ingredients", "top level")
    types = tuple(_get(ing, "types", "ingredients"))
    values = tuple(_get(ing, "values", "ingredients"))
    if len(types) != 7 or len(set(types)) != 7:  # "Ingredient Tokens (7 types ...)"
        raise _fail("ingredients.types", f"the rulebook has 7 different types, got {types}")
    if sorted(set(values)) != list(range(2, 8)):  # "values 2-7"
        raise _fail("ingredients.values", f"the rulebook's values are 2-7, got {values}")
    copies = _count(_get(ing, "copies", "ingredients"), "ingredients", "copies", 1)
    tokens: list[Token] = []
    for t in types:
        for v in values:
            for n in range(copies):
                tokens.append(Token(f"{t}-{v}-{'abcdefgh'[n]}", "ingredient", f"{t}-{v}", t, v))
    sp = _get(raw, "spices", "top level")
    for t in types:  # "Spice Tokens (one per ingredient type plus allspice)"
        for n in range(_count(_get(sp, "copies", "spices"), "spices", "copies", 1)):
            tokens.append(Token(f"spice-{t}-{n + 1}", "spice", f"spice-{t}", t, 0))
    for n in range(_count(_get(sp, "allspice", "spices"), "spices", "allspice", 1)):
        tokens.append(Token(f"allspice-{n + 1}", "spice", "allspice", None, 0))
    if _get(raw, "soup_value", "top level") != 1:  # "Soup Tokens (value 1, unlimited)"
        raise _fail("soup_value", "the rulebook's soup is worth 1")
    bq = _get(raw, "bisque", "top level")
    if _get(bq, "value", "bisque") != 3:  # "Bisque Tokens (value 3)"
        raise _fail("bisque.value", "the rulebook's bisque is worth 3")
    for n in range(_count(_get(bq, "tokens", "bisque"), "bisque", "tokens", 1)):
        tokens.append(Token(f"bisque-{n + 1}", "bisque", "bisque", None, 3))
    rt = _get(raw, "rumor_tokens", "top level")
    if _get(rt, "types", "rumor_tokens") != 3:  # "Rumor Tokens (3 types + wilds)"
        raise _fail("rumor_tokens.types", "the rulebook has 3 rumor types")
    for k in (1, 2, 3):
        for n in range(_count(_get(rt, "copies", "rumor_tokens"), "rumor_tokens", "copies", 1)):
            tokens.append(Token(f"rumor{k}-{n + 1}", "rumor", f"rumor{k}", k, 0))
    for n in range(_count(_get(rt, "wilds", "rumor_tokens"), "rumor_tokens", "wilds", 1)):
        tokens.append(Token(f"wild-rumor-{n + 1}", "rumor", "wild-rumor", 0, 0))
    tokens.append(Token(ALLSPICE_ROUND7, "spice", "allspice", None, 0))
    chefs = []
    for e in _entries(raw, "chefs"):
        where = f"chef {e['id']!r}"
        chefs.append((e["id"], _count(_get(e, "capacity", where), where, "capacity", 1),
                      _count(_get(e, "queue", where), where, "queue")))
    if chefs != [("mouse", 1, 1), ("lizard", 2, 2), ("boar", 3, 3)]:  # Player Reference
        raise _fail("chefs", "the rulebook's chefs are mouse (carries 1, first), lizard (2, "
                    "second), boar (3, third)")
    stars = []
    for e in _get(raw, "challenge_stars", "top level"):
        stars.append((_count(_get(e, "from", "challenge_stars"), "challenge_stars", "from"),
                      _count(_get(e, "stars", "challenge_stars"), "challenge_stars", "stars")))
    if stars != [(6, 1), (12, 2), (21, 4)]:  # the quality table
        raise _fail("challenge_stars", "the rulebook's table is 6-11: 1, 12-20: 2, 21+: 4")
    fridge = _get(raw, "refrigeration", "top level")
    if fridge != {3: 5, 6: 10}:  # Refrigeration Limit
        raise _fail("refrigeration", "the rulebook keeps 5 after round 3 and 10 after round 6")
    challenges = []
    for e in _entries(raw, "challenges"):
        where = f"challenge {e['id']!r}"
        needs = _get(e, "needs", where)
        if (not isinstance(needs, list) or not 2 <= len(needs) <= 7
                or any(n not in types for n in needs) or len(set(needs)) != len(needs)):
            raise _fail(where, f"needs must list 2-7 different ingredient types, got {needs!r}")
        challenges.append(Challenge(e["id"], tuple(needs)))
    if len(challenges) < 6:  # "Challenge Cards (6 face down)"
        raise _fail("challenges", "the Waterfront Board takes 6 challenge cards")
    critics = tuple(_condition(e, f"critic {e['id']!r}", types) for e in _entries(raw, "critics"))
    rumors = tuple(_condition(e, f"rumor {e['id']!r}", types) for e in _entries(raw, "rumors"))
    if len(rumors) < 3:  # "3 Rumor Cards (face down)"
        raise _fail("rumors", "the Waterfront Board takes 3 rumor cards")
    zous = []
    for e in _entries(raw, "zous_chefs"):
        where = f"zous-chef {e['id']!r}"
        z = ZousChef(e["id"], _count(_get(e, "capacity", where), where, "capacity", 1),
                     _count(_get(e, "queue", where), where, "queue"),
                     _count(_get(e, "soup_bonus", where), where, "soup_bonus"))
        if z.queue > 4:
            raise _fail(where, "queue must be 0 (before mice) to 4 (after boars)")
        zous.append(z)
    if len({(z.capacity, z.queue, z.soup_bonus) for z in zous}) != len(zous):
        raise _fail("zous_chefs", "each zous-chef has a unique ability: no two alike")
    if len(zous) < ROUNDS - 1:  # one revealed in each of rounds 1-6
        raise _fail("zous_chefs", "the Chef Academy reveals one in each of rounds 1-6")
    cards = _count(_get(raw, "location_cards", "top level"), "location_cards", "count", 4)
    if MAX_PLAYERS + 3 > cards:  # boards 1 to player count, plus the three special locations
        raise _fail("location_cards", f"{MAX_PLAYERS} players need {MAX_PLAYERS + 3} location "
                    "cards each")
    ids = [t.id for t in tokens] + [c.id for c in challenges] + [c.id for c in critics] + [
        c.id for c in rumors] + [z.id for z in zous]
    dup = [i for i, n in Counter(ids).items() if n > 1]
    if dup:
        raise _fail("ids", f"{dup[0]!r} names two components")
    return Kitchen(
        colours, types, tuple(tokens), tuple(chefs), cards,
        _count(_get(raw, "location_slots", "top level"), "location_slots", "count", 1),
        _count(_get(raw, "merchant_draws", "top level"), "merchant_draws", "count", 1),
        _count(_get(raw, "starting_soup", "top level"), "starting_soup", "count"),
        1, _count(_get(bq, "at_soup_truck", "bisque"), "bisque", "at_soup_truck"),
        tuple(stars), {3: 5, 6: 10}, tuple(challenges), critics, rumors, tuple(zous))


@functools.lru_cache(maxsize=1)
def kitchen() -> Kitchen:
    """The shipped component list, loaded and validated once."""
    return load_kitchen()


def load_kitchen(path: str | Path | None = None) -> Kitchen:
    """Load and validate a component list; the shipped one by default.

    :raises ComponentError: if the file is unreadable or malformed.
    """
    raw = read_component_list("critter_kitchen.yaml", path)
    return parse_kitchen(raw)


# --- actions ------------------------------------------------------------------------------

codec = ActionCodec()


@action(codec, "draw", "draw {token}")
class Draw(Action):
    """Chance: the token that came out of the bag."""

    token: str


@action(codec, "card", "card {card}")
class RevealCard(Action):
    """Chance: the card revealed (challenge, critic, zous-chef) or peeked at (rumor)."""

    card: str


@action(codec, "priority")
class PriorityOrder(Action):
    """Chance: "Randomize Chef Hats on the priority track", front first."""

    order: tuple[int, ...]

    def __str__(self) -> str:
        return "priority track " + ", ".join(map(str, self.order))


@action(codec, "plan")
class Plan(Action):
    """Planning: the location of each chef (mouse, lizard, boar, then a zous-chef)."""

    places: tuple[str, ...]

    def __str__(self) -> str:
        return "plan " + ", ".join(self.places)


@action(codec, "reveal")
class RevealPlans(JointAction):
    """All Location Cards flipped together: player index -> the chefs' locations."""

    plans: tuple[tuple[int, tuple[str, ...]], ...] = json_field(
        encode=lambda plans: {str(p): list(ps) for p, ps in plans},
        decode=lambda plans: tuple(sorted((int(p), tuple(ps)) for p, ps in plans.items())))

    @property
    def choices(self) -> dict[int, Action]:  # type: ignore[override]
        return {p: Plan(ps) for p, ps in self.plans}

    def __str__(self) -> str:
        return "reveal " + "; ".join(f"{p}: {', '.join(ps)}" for p, ps in self.plans)


@action(codec, "pick")
class Pick(Action):
    """Shopping: take one item (a token, ``soup``, the zous-chef); a wild rumor names the
    empty rumor space it goes to."""

    item: str
    space: int | None = None

    def __str__(self) -> str:
        return f"pick {self.item}" + (f" into rumor space {self.space}" if self.space else "")


@action(codec, "leave", "leave early for consolation soup")
class Leave(Action):
    """"You may also choose to leave early before picking to claim consolation soup.\""""


@action(codec, "stop", "stop picking")
class Stop(Action):
    """Carry fewer items than the chef's capacity."""


@action(codec, "serve", "serve {token} on plate {plate}")
class Serve(Action):
    """Put an ingredient on a plate (a challenge plate, or the critic plate 0 as its course)."""

    plate: int
    token: str


@action(codec, "spice", "spice the {pair} on plate {plate} with {token}")
class AddSpice(Action):
    """Pair a spice with a served ingredient of type ``pair`` (allspice pairs with any)."""

    plate: int
    token: str
    pair: str


@action(codec, "soup")
class AddSoup(Action):
    """Put soup (``soup``) or a bisque token on a challenge plate, for a missing required type
    (``slot``) or to boost quality (slot None)."""

    plate: int
    token: str
    slot: str | None = None

    def __str__(self) -> str:
        what = f"for {self.slot}" if self.slot else "to boost quality"
        return f"add {self.token} to plate {self.plate} {what}"


@action(codec, "present", "present the meal(s)")
class Present(Action):
    """Done preparing: meals that qualify score."""


@action(codec, "discard", "return {token} to the bag")
class Discard(Action):
    """Refrigeration Limit: an excess ingredient or spice back to the bag."""

    token: str


# moves are immutable: the ones legal_actions() lists are made once and shared (speed)
_pick = functools.lru_cache(maxsize=None)(Pick)
_serve = functools.lru_cache(maxsize=None)(Serve)
_spice = functools.lru_cache(maxsize=None)(AddSpice)
_soup = functools.lru_cache(maxsize=None)(AddSoup)
_draw = functools.lru_cache(maxsize=None)(Draw)
_discard = functools.lru_cache(maxsize=None)(Discard)
_STOP, _LEAVE, _PRESENT = Stop(), Leave(), Present()


# --- the game -----------------------------------------------------------------------------

_CHANCE_PHASES = {"critic", "priority", "challenge", "restock", "zous", "final"}
_WAITS = {
    "critic": "the critic card turned face up",
    "priority": "the chef hats' order on the priority track",
    "challenge": "the next challenge card revealed",
    "restock": "a token drawn from the bag",
    "zous": "the new zous-chef revealed at the Chef Academy",
    "plan": "every player's face-down Location Cards (Plan)",
    "run": "a chef's pick (Pick, Leave, Stop)",
    "meals": "challenge meals prepared (Serve, AddSpice, AddSoup, Present)",
    "fridge": "excess ingredients returned to the bag (Discard)",
    "feast": "the critic meal prepared (Serve, AddSpice, Present)",
    "final": "the rumor cards revealed",
    "over": "nothing: the game is over",
}


def _lowest_of_each(kind: dict[str, str], ids: Any) -> list[str]:
    """Of ``ids`` (tokens), the lowest id of each kind (``kind``: id -> kind), in id order."""
    best: dict[str, str] = {}
    for t in sorted(ids):
        k = kind[t]
        if k not in best:
            best[k] = t
    return list(best.values())


@functools.lru_cache(maxsize=64)
def _plans(locations: tuple[str, ...], chefs: int) -> tuple[Plan, ...]:
    """Every way to send ``chefs`` chefs to different locations."""
    return tuple(Plan(p) for p in permutations(locations, chefs))


@functools.lru_cache(maxsize=64)
def _plan_set(locations: tuple[str, ...], chefs: int) -> frozenset[tuple[str, ...]]:
    """The places of every plan of _plans(locations, chefs), to look one up at once."""
    return frozenset(permutations(locations, chefs))


class CritterKitchenState(GameState):
    """One game of Critter Kitchen."""

    GAME_ID: ClassVar[str] = GAME_ID
    TIEBREAKS: ClassVar[tuple[str, ...]] = ()  # "All ties are friendly"
    codec: ClassVar[ActionCodec] = codec
    TABLE_OPTIONS: ClassVar[dict[str, str]] = {}
    SEAT_COLOURS: ClassVar[tuple[str, ...]] = kitchen().colours
    _SHARED: ClassVar[frozenset[str]] = frozenset({"components", "tok", "locs", "_kind",
                                                   "_type", "_wild", "_of_class", "_chilled"})

    def __init__(self, players: int, seed: int, options: dict[str, Any],
                 components: Kitchen) -> None:
        super().__init__(players, seed, options)
        self.components = components
        self.token = ComponentIndex("token", "Components", components.tokens)
        self.tok = self.token.by_id  # the same table, for the hot paths
        # read only, as tok: each token's kind, the wild rumors, the tokens of each class,
        # and those the refrigeration limit counts (ingredients and spices)
        self._kind = {t.id: t.kind for t in components.tokens}
        self._type = {t.id: t.type for t in components.tokens}
        self._wild = frozenset(t.id for t in components.tokens if t.cls == "rumor" and t.type == 0)
        self._of_class = {c: frozenset(t.id for t in components.tokens if t.cls == c)
                          for c in ("ingredient", "spice", "bisque", "rumor")}
        self._chilled = self._of_class["ingredient"] | self._of_class["spice"]
        self.challenge = ComponentIndex("challenge card", "Components", components.challenges)
        self.condition = ComponentIndex("critic or rumor card", "Components",
                                        components.critics + components.rumors)
        self.zous = ComponentIndex("zous-chef", "Components", components.zous_chefs)
        self.names: list[str] = list(options["colours"])
        # "use boards 1 through player count"; Soup Truck left, Merchant and Academy right
        self.locs: tuple[str, ...] = (TRUCK, *(str(n) for n in range(1, players + 1)),
                                      MERCHANT, ACADEMY)
        self.phase = "critic"
        self.round = 1
        bag = [t.id for t in components.tokens if t.cls != "bisque" and t.id != ALLSPICE_ROUND7]
        self.bag: list[str] = bag
        self.bisque_supply: list[str] = [t.id for t in components.tokens if t.cls == "bisque"]
        self.round7_token: list[str] = [ALLSPICE_ROUND7]  # on the Waterfront Board
        self.items: dict[str, list[str]] = {loc: [] for loc in self.locs}
        self.stock: list[list[str]] = [[] for _ in range(players)]  # behind the shield
        self.soup: list[int] = [components.starting_soup] * players
        self.spaces: list[dict[int, str]] = [{} for _ in range(players)]  # rumor spaces
        self.removed: list[str] = []  # out of the game
        self.challenge_deck = sorted(c.id for c in components.challenges)
        self.critic_deck = sorted(c.id for c in components.critics)
        self.rumor_deck = sorted(c.id for c in components.rumors)
        self.zous_deck = sorted(z.id for z in components.zous_chefs)
        self.challenges: list[str] = []  # this day's revealed challenges, in order
        self.held: list[str] = []  # challenges covered by the Hold Token
        self.used_cards: list[str] = []  # challenges of past days, used zous-chefs
        self.critic: str | None = None
        self.rumors: list[str | None] = [None, None, None]  # None: no one has looked yet
        self.rumor_up: list[bool] = [False, False, False]
        self.zous_next: list[str | None] = [None] * players  # acquired, for next round
        self.zous_now: list[str | None] = [None] * players  # working this round
        self.priority: list[int] = list(range(players))  # front first
        self.plans: dict[int, list[str]] = {}
        self.draws: list[str] = []  # locations waiting for a bag draw
        self.peek: list[int] | None = None  # [player, space] waiting for a rumor card
        self.run: dict[str, Any] = {}
        self.order: list[int] = []  # players still to act (meals, fridge, critic meal)
        self.plates: list[list[dict[str, Any]]] = [[] for _ in range(players)]
        self.stars: list[dict[str, int]] = [self._no_stars() for _ in range(players)]
        self.end_reason: str | None = None

    @staticmethod
    def _no_stars() -> dict[str, int]:
        return {"challenges_day_1": 0, "challenges_day_2": 0, "most_soup": 0,
                "all_7_courses": 0, "best_courses": 0, "rumors": 0, "critic": 0}

    @classmethod
    def new(cls, players: int, seed: int, **options: Any) -> CritterKitchenState:
        """Options: ``colours`` (one different colour per player)."""
        components: Kitchen = options.pop("components", None) or kitchen()
        if not MIN_PLAYERS <= players <= MAX_PLAYERS:
            raise ValueError(f"Critter Kitchen is for {MIN_PLAYERS} to {MAX_PLAYERS} players, "
                             f"not {players}")
        colours = list(options.get("colours") or components.colours[:players])
        if len(colours) != players or len(set(colours)) != players or any(
                c not in components.colours for c in colours):
            raise ValueError(f"need {players} different player colours from "
                             f"{list(components.colours)}, got {colours}")
        unknown = set(options) - {"colours"}
        if unknown:
            raise ValueError(f"unknown table option(s) {sorted(unknown)}; Critter Kitchen "
                             "has none besides colours")
        return cls(players, seed, {"colours": colours}, components)

    # --- look-ups -------------------------------------------------------------------------
    def player_name(self, player: int) -> str:
        return self.names[player]

    def needs(self, ident: str) -> tuple[str, ...]:
        """A challenge's required types; the Hold Token covers the rightmost one."""
        needs = self.challenge(ident).needs
        return needs[:-1] if ident in self.held else needs

    def chefs(self, p: int) -> list[tuple[str, int, int]]:
        """The player's chefs this round: (id, carrying capacity, queue)."""
        out = list(self.components.chefs)
        z = self.zous_now[p]
        if z is not None:
            zc = self.zous(z)
            out.append((z, zc.capacity, zc.queue))
        return out

    def knows(self, p: int | None, space: int) -> bool:
        """Whether a player knows the rumor card in a space (1-3)."""
        return self.rumor_up[space - 1] or (p is not None and space in self.spaces[p])

    # --- who acts -------------------------------------------------------------------------
    def current_player(self) -> int:
        if self.draws or self.peek is not None:
            return CHANCE
        phase = self.phase
        if phase == "run":
            return int(self.run["active"][0])
        if phase in _CHANCE_PHASES:
            return CHANCE
        if phase == "plan":
            return SIMULTANEOUS
        if phase == "over":
            return TERMINAL
        return self.order[0]

    def acting_players(self) -> list[int]:
        if self.current_player() == SIMULTANEOUS:
            return [p for p in range(self.players) if p not in self.sealed]
        return super().acting_players()

    def all_choosers(self) -> list[int]:
        return list(range(self.players)) if self.current_player() == SIMULTANEOUS else []

    def is_terminal(self) -> bool:
        return self.phase == "over"

    # --- chance ---------------------------------------------------------------------------
    def _chance_cards(self) -> list[str]:
        if self.peek is not None or self.phase == "final":
            return list(self.rumor_deck)
        return {"critic": self.critic_deck, "challenge": self.challenge_deck,
                "zous": self.zous_deck}[self.phase]

    def chance_outcomes(self) -> list[tuple[Action, float]]:
        if self.current_player() != CHANCE:
            return []
        if self.draws:
            counts = Counter(self.bag)
            return [(Draw(t), n / len(self.bag)) for t, n in sorted(counts.items())]
        if self.phase == "priority":
            orders = list(permutations(range(self.players)))
            return [(PriorityOrder(o), 1 / len(orders)) for o in orders]
        cards = self._chance_cards()
        return [(RevealCard(c), 1 / len(cards)) for c in cards]

    def sample_chance(self) -> Action:
        if self.current_player() != CHANCE:
            raise IllegalMoveError("turn order", "no chance step is pending")
        rng = self.rng.next()
        if self.draws:
            return _draw(rng.choice(self.bag))
        if self.phase == "priority":
            order = list(range(self.players))
            rng.shuffle(order)
            return PriorityOrder(tuple(order))
        return RevealCard(rng.choice(self._chance_cards()))

    def _private_to(self, action: Action) -> int | None:
        kind = type(action)
        if kind is RevealCard and self.peek is not None:
            return self.peek[0]
        if kind is Discard:
            return self.current_player()
        return None

    def hidden_choice(self) -> int | None:
        """Meals, the critic's meal and the fridge are made of what lies behind the chef's
        shield, which only that chef sees (docs/rules/critter-kitchen.md)."""
        if self.phase in ("meals", "fridge", "feast") and self.current_player() >= 0:
            return self.current_player()
        return None

    def describe(self, action: Action) -> str:
        """The priority track by the chefs' colours, front first (the order's indices are the
        engine's seats)."""
        if type(action) is PriorityOrder:
            return "priority track, front first: " + ", ".join(
                self.player_name(p) for p in action.order)
        if type(action) is Plan:
            chefs = ("mouse", "lizard", "boar", "zous-chef")
            return "plan: " + ", ".join(f"{chef} to {place}"
                                        for chef, place in zip(chefs, action.places, strict=False))
        return str(action)

    def _public_text(self, action: Action) -> str:
        if type(action) is Discard:
            return f"{self.names[self.current_player()]} returns a token to the bag"
        assert self.peek is not None
        return f"{self.names[self.peek[0]]} peeks at rumor card {self.peek[1]}"

    # --- legal moves ----------------------------------------------------------------------
    def legal_actions(self, player: int | None = None) -> list[Action]:
        """The legal actions of the player to act; at planning, of each chooser."""
        actor = self.current_player()
        if actor == SIMULTANEOUS:  # the players who have not sealed their plan yet
            if player is None or player not in range(self.players) or player in self.sealed:
                return []
            return list(_plans(self.locs, self._chef_count(player)))
        if player is not None and player != actor:
            return []
        if self._legal is None:
            self._legal = self._legal_of(actor)
        return list(self._legal)

    def _compute_legal(self) -> list[Action]:
        return self._legal_of(self.current_player())

    def _legal_of(self, actor: int) -> list[Action]:
        """_compute_legal() for ``actor``, the current player."""
        if actor == CHANCE:
            return [a for a, _ in self.chance_outcomes()]
        if actor < 0:
            return []
        if self.phase == "run":
            return self._pick_options(actor)
        if self.phase == "fridge":
            chilled = self._chilled  # ingredients and spices
            return [_discard(t) for t in self._firsts([t for t in self.stock[actor]
                                                       if t in chilled])]
        if self.phase == "meals":
            return self._meal_options(actor)
        return self._feast_options(actor)

    def _firsts(self, ids: Any) -> list[str]:
        """One token of each kind (alike tokens are the same choice), the lowest id."""
        return _lowest_of_each(self._kind, ids)

    def _by_class(self, p: int) -> dict[str, list[str]]:
        """One token of each kind behind the player's shield, by class (ingredient, spice,
        bisque)."""
        tok = self.tok
        out: dict[str, dict[str, str]] = {"ingredient": {}, "spice": {}, "bisque": {}}
        for t in sorted(self.stock[p]):
            info = tok[t]
            firsts = out[info.cls]
            if info.kind not in firsts:
                firsts[info.kind] = t
        return {k: list(v.values()) for k, v in out.items()}

    def _available(self, loc: str) -> list[str]:
        """The items a chef may take at a location; the Soup Truck's soup is unlimited."""
        return self.items[loc] + ([SOUP] if loc == TRUCK else [])

    def _empty_spaces(self, p: int) -> list[int]:
        return [k for k in (1, 2, 3) if k not in self.spaces[p]]

    def _pick_options(self, p: int) -> list[Action]:
        run = self.run
        loc = run["loc"]
        items = self.items[loc]
        kind = self._kind
        # one token of each kind, the lowest id (alike tokens are one choice), then any
        # zous-chef card, in the order they lie
        best: dict[str, str] = {}  # kind -> its lowest id
        singles: list[str] = []
        for t in sorted(items):
            k = kind.get(t)
            if k is None:
                singles.append(t)
            elif k not in best:
                best[k] = t
        out: list[Action] = []
        wild = self._wild
        for t in best.values():
            if t in wild:
                spaces = self._empty_spaces(p)
                out += [_pick(t, k) for k in spaces] if spaces else [_pick(t)]
            else:
                out.append(_pick(t))
        if singles:
            for t in items:  # in the order they lie
                if t not in kind:
                    out.append(_pick(t))
        if loc == TRUCK:
            out.append(_pick(SOUP))
        out.append(_STOP if run["taken"] else _LEAVE)
        return out

    def _meal_options(self, p: int) -> list[Action]:
        # loops rather than comprehensions: on Python 3.11 a comprehension is a function call
        # of its own, and most of these run over one or two items
        out: list[Action] = []
        type_of, served = self._type, self._of_class["ingredient"]
        held = self._by_class(p)
        ingredients = held["ingredient"]
        spices = [(s, type_of[s]) for s in held["spice"]]  # looked up once
        soups = ([SOUP] if self.soup[p] else []) + held["bisque"]
        for i, plate in enumerate(self.plates[p]):
            slots = plate["slots"]
            if None in slots.values():  # an ingredient of a required type still missing
                for t in ingredients:
                    if slots.get(type_of[t], "") is None:
                        out.append(_serve(i, t))
            for kind, filled in slots.items():
                if filled is None:
                    for s in soups:
                        out.append(_soup(i, s, kind))
                elif spices and filled in served and kind not in plate["spices"]:
                    for s, pairs in spices:
                        if pairs is None or pairs == kind:
                            out.append(_spice(i, s, kind))
            for s in soups:
                out.append(_soup(i, s))
        out.append(_PRESENT)
        return out

    def _feast_options(self, p: int) -> list[Action]:
        out: list[Action] = []
        held = self._by_class(p)
        slots = self.plates[p][0]["slots"]
        spiced = self.plates[p][0]["spices"]
        type_of = self._type
        for t in held["ingredient"]:
            if slots[type_of[t]] is None:
                out.append(_serve(0, t))
        spices = [(s, type_of[s]) for s in held["spice"]]  # looked up once
        if spices:
            for kind, filled in slots.items():
                if filled is not None and kind not in spiced:
                    for s, pairs in spices:
                        if pairs is None or pairs == kind:
                            out.append(_spice(0, s, kind))
        out.append(_PRESENT)
        return out

    # --- checking -------------------------------------------------------------------------
    def _wrong_phase(self, action: Action) -> IllegalMoveError:
        wait = "a chance outcome: " if self.current_player() == CHANCE else ""
        what = _WAITS["restock"] if self.draws else (
            "a rumor card peeked at" if self.peek is not None else _WAITS[self.phase])
        return IllegalMoveError("Turn Structure", f"the game now waits for {wait}{what}, not a "
                                f"{action.kind}", move=action)

    def _chef_count(self, p: int) -> int:
        """len(chefs(p)): the three chefs, and a zous-chef working this round."""
        return len(self.components.chefs) + (self.zous_now[p] is not None)

    def _plan_ok(self, places: Any, player: int) -> bool:
        """Quickly: ``places`` is one of the player's plans (as _check_sealed would find)."""
        return type(places) is tuple and places in _plan_set(self.locs,
                                                             self._chef_count(player))

    def _check_sealed(self, action: Action, player: int) -> None:
        if type(action) is Plan and self._plan_ok(action.places, player):
            return
        if not isinstance(action, Plan):
            raise self._wrong_phase(action)
        chefs = self.chefs(player)
        if len(action.places) != len(chefs):
            names = ", ".join(c[0] for c in chefs)
            raise IllegalMoveError("Assigning Chefs", f"{self.names[player]} assigns exactly "
                                   f"{len(chefs)} chefs ({names})", move=action)
        for place in action.places:
            if place not in self.locs:
                raise IllegalMoveError("Location Cards", f"{place!r} is not an active location "
                                       f"(active: {', '.join(self.locs)})", move=action)
        if len(set(action.places)) != len(action.places):
            raise IllegalMoveError("Assigning Chefs", "each chef must go to a different "
                                   "location", move=action)

    def _check(self, action: Action) -> None:
        actor = self.current_player()
        if actor == CHANCE:
            self._check_chance(action)
            return
        if type(action) is RevealPlans:
            if actor != SIMULTANEOUS:
                raise self._wrong_phase(action)
            if sorted(p for p, _ in action.plans) != list(range(self.players)):
                raise IllegalMoveError("Planning", "every player reveals their Location Cards",
                                       move=action)
            for p, places in action.plans:
                if not self._plan_ok(places, p):
                    self._check_sealed(Plan(places), p)
            return
        if actor == SIMULTANEOUS or actor == TERMINAL:
            raise self._wrong_phase(action)
        if self._legal is None:
            self._legal = self._legal_of(actor)
        legal = self._legal  # only looked in: legal_actions() would copy it
        # most often the move is one of the listed objects itself: found by identity, without
        # a dataclass __eq__ for each move listed before it
        for listed in legal:
            if listed is action:
                return
        if action in legal or self._canonical(action, actor) in legal:
            return
        rule, why = self._explain(action, actor)
        raise IllegalMoveError(rule, why, move=action)

    def _canonical(self, action: Action, p: int) -> Action:
        """The same move naming the lowest id of its token's kind in the same place (alike
        tokens are one choice)."""
        name = getattr(action, "item", None) or getattr(action, "token", None)
        info = self.tok.get(name) if isinstance(name, str) else None
        if info is None:
            return action
        place = self.items[self.run["loc"]] if self.phase == "run" else self.stock[p]
        if name not in place:
            return action
        first = min(t for t in place if t in self.tok and self.tok[t].kind == info.kind)
        key = "item" if isinstance(action, Pick) else "token"
        return replace(action, **{key: first})  # type: ignore[type-var]

    def _explain(self, action: Action, p: int) -> tuple[str, str]:
        """The rule a refused move breaks, and why."""
        if self.phase == "run" and isinstance(action, Pick | Leave | Stop):
            loc = self.run["loc"]
            if isinstance(action, Leave):
                return "Consolation Soup", "you may leave early only before picking"
            if isinstance(action, Stop):
                return "Shopping at Locations", "pick an item or leave early for soup"
            if action.item not in self._available(loc):
                return "Shopping at Locations", f"{action.item} is not at {loc}"
            info = self.tok.get(action.item)
            if action.space is not None and (info is None or info.kind != "wild-rumor"):
                return "Rumors", "only a wild rumor is placed in a rumor space of your choice"
            return "Wild Rumors", "a wild rumor must be placed immediately in an empty rumor " \
                                  "space (one you do not know yet)"
        if self.phase == "fridge" and isinstance(action, Discard):
            return "Refrigeration Limit", f"{action.token} is not an ingredient or spice " \
                                          "behind your shield"
        if self.phase in ("meals", "feast") and isinstance(action, Serve | AddSpice | AddSoup):
            return self._explain_meal(action, p)
        raise self._wrong_phase(action)

    def _explain_meal(self, action: Serve | AddSpice | AddSoup, p: int) -> tuple[str, str]:
        critic = self.phase == "feast"
        rule = "Critic Meal" if critic else "Challenge Meals"
        if not 0 <= action.plate < len(self.plates[p]):
            return rule, f"there is no plate {action.plate}"
        plate = self.plates[p][action.plate]
        if action.token != SOUP and action.token not in self.stock[p]:
            return rule, f"{action.token} is not behind your shield"
        if action.token == SOUP and self.soup[p] == 0:
            return rule, "you have no soup"
        info = self.tok.get(action.token)
        if isinstance(action, AddSoup):
            if critic:
                return rule, "no soup allowed in the critic meal"
            if info is not None and info.cls != "bisque":
                return rule, f"{action.token} is not soup or bisque"
            return rule, f"{action.slot} is not a missing required ingredient of that meal"
        if isinstance(action, Serve):
            if info is None or info.cls != "ingredient":
                return rule, f"{action.token} is not an ingredient"
            if critic:
                return rule, f"the {info.type} course already has its 1 ingredient"
            return rule, f"{info.type} is not a missing required ingredient of that challenge"
        if info is None or info.cls != "spice":
            return rule, f"{action.token} is not a spice"
        filled = plate["slots"].get(action.pair)
        if filled is None or filled not in self.tok:
            return "Item Types", f"no {action.pair} ingredient on that plate to pair with"
        if action.pair in plate["spices"]:
            return "Item Types", f"the {action.pair} already has its spice"
        return "Item Types", f"a {info.type} spice pairs only with {info.type} (allspice pairs " \
                             "with any)"

    def _check_chance(self, action: Action) -> None:
        if self.draws:
            if type(action) is not Draw or action.token not in self.bag:  # type: ignore[attr-defined]
                raise ChanceOutcomeError("Token Bag", f"{action} is not a token in the bag; "
                                         "check the reading", move=action)
            return
        if self.phase == "priority":
            if not isinstance(action, PriorityOrder) or sorted(action.order) != list(
                    range(self.players)):
                raise ChanceOutcomeError("Setup", "the priority track holds every player's "
                                         "Chef Hat once", move=action)
            return
        cards = self._chance_cards()
        if not isinstance(action, RevealCard) or action.card not in cards:
            raise ChanceOutcomeError("Setup", f"{action} is not a card that can be revealed "
                                     f"now (possible: {', '.join(cards)})", move=action)

    # --- applying -------------------------------------------------------------------------
    def _apply(self, action: Action) -> str | tuple[str, str]:
        kind = type(action)
        if kind is Draw:
            text = self._apply_draw(action.token)  # type: ignore[attr-defined]
        elif kind is RevealCard:
            text = self._apply_card(action.card)  # type: ignore[attr-defined]
        elif kind is PriorityOrder:
            self.priority = list(action.order)
            self._start_round()
            text = "priority track: " + ", ".join(self.names[p] for p in action.order)
        elif kind is RevealPlans:
            text = self._apply_plans(action)  # type: ignore[arg-type]
        elif kind is Pick or kind is Leave or kind is Stop:
            text = self._apply_pick(action)  # type: ignore[arg-type]
        elif kind is Serve or kind is AddSpice or kind is AddSoup:
            text = self._apply_plate(action)  # type: ignore[arg-type]
        elif kind is Present:
            text = self._apply_present()
        elif kind is Discard:
            p = self.order[0]  # current_player(): the chef over the refrigeration limit
            self.stock[p].remove(action.token)
            self.bag.append(action.token)
            self._after_discard()
            text = f"{self.names[p]} returns {action.token} to the bag"
        else:
            raise AssertionError(action)
        self._advance()
        return text

    def _apply_draw(self, token: str) -> str:
        self.bag.remove(token)
        loc = self.draws.pop(0)
        info = self.tok[token]
        if info.cls == "rumor" and info.type and self.rumor_up[int(info.type) - 1]:
            # "Any matching rumor tokens drawn later are removed from the game."
            self.removed.append(token)
            self.draws.insert(0, loc)  # the slot is still to fill, while the bag lasts
            del self.draws[len(self.bag):]
            return f"{token} drawn and removed from the game (that rumor is face up)"
        self.items[loc].append(token)
        return f"{token} drawn to {loc}"

    def _apply_card(self, card: str) -> str:
        if self.peek is not None:
            p, space = self.peek
            self.rumor_deck.remove(card)
            self.rumors[space - 1] = card
            self.peek = None
            self._reveals = True
            self._share_rumors()
            return f"{self.names[p]} peeks at rumor card {space}: {card}"
        if self.phase == "final":
            space = self.rumors.index(None) + 1
            self.rumor_deck.remove(card)
            self.rumors[space - 1] = card
            self._reveals = True
            return f"rumor card {space} revealed: {card}"
        if self.phase == "critic":
            self.critic_deck.remove(card)
            self.critic = card
            self.phase = "priority"
            return f"critic card: {card} ({self.condition(card).describe()})"
        if self.phase == "challenge":
            self.challenge_deck.remove(card)
            self.challenges.append(card)
            if self.round in HOLD_ROUNDS:
                self.held.append(card)
            self._restock_locations()
            held = " (Hold Token on its rightmost ingredient)" if card in self.held else ""
            return f"challenge: {card} needs {', '.join(self.needs(card))}{held}"
        self.zous_deck.remove(card)
        self.items[ACADEMY].append(card)
        self.phase = "plan"
        return f"zous-chef at the Chef Academy: {card} ({self.zous(card).describe()})"

    # round start: bisque, challenge, location items, zous-chef
    def _start_round(self) -> None:
        """Start of Round: restock bisque, reveal the next challenge card (rounds 1-6),
        restock location items from the bag, reveal a zous-chef (the Allspice token in 7)."""
        truck = self.items[TRUCK]
        while (sum(self.tok[i].cls == "bisque" for i in truck if i in self.tok)
               < self.components.bisque_at_truck and self.bisque_supply):
            truck.append(self.bisque_supply.pop(0))
        for p in range(self.players):  # "you must use them as an extra chef the following round"
            self.zous_now[p], self.zous_next[p] = self.zous_next[p], None
        if self.round < CRITIC_ROUND and self.challenge_deck:
            self.phase = "challenge"
        else:
            self._restock_locations()

    def _restock_locations(self) -> None:
        self.phase = "restock"
        for loc in self.locs[1:-2]:
            need = self.components.location_slots - len(self.items[loc])
            self.draws += [loc] * need
        self.draws = self.draws[:len(self.bag)]

    def _after_restock(self) -> None:
        if self.round == CRITIC_ROUND:
            # "In the 7th round, the Chef Academy offers the Allspice Token instead"
            self.items[ACADEMY] += self.round7_token
            self.round7_token = []
            self.phase = "plan"
        elif self.zous_deck:
            self.phase = "zous"
        else:
            self.phase = "plan"
        self.sealed = {}

    def _joint(self, choices: dict[int, Action]) -> JointAction:
        return RevealPlans(tuple(sorted((p, a.places) for p, a in choices.items())))  # type: ignore[attr-defined]

    def _apply_plans(self, action: RevealPlans) -> str:
        """Running: flip all Location Cards, then resolve locations left to right."""
        self.sealed = {}
        self.plans = {p: list(places) for p, places in action.plans}
        self.phase = "run"
        self.run = {"index": 0, "loc": self.locs[0], "waiting": None, "active": None,
                    "taken": 0, "ties": []}
        return "Location Cards: " + "; ".join(
            f"{self.names[p]} " + ", ".join(f"{c[0]} to {loc}" for c, loc in zip(
                self.chefs(p), places, strict=True)) for p, places in action.plans)

    def _advance(self) -> None:
        """Carry the game on through every step that needs no one's choice."""
        while True:
            if self.peek is not None or self.phase == "over":
                return
            if self.draws:
                return
            if self.phase == "restock":
                self._after_restock()
                continue
            if self.phase == "run":
                if self.run["active"] is not None:
                    return
                if not self._next_chef():
                    return
                continue
            if self.phase in ("meals", "fridge", "feast") and not self.order:
                self._after_meals()
                continue
            if self.phase == "fridge" and self._excess(self.order[0]) <= 0:
                self.order.pop(0)
                continue
            if self.phase == "final" and None not in self.rumors:
                self._final_scoring()
                continue
            return

    def _next_chef(self) -> bool:
        """The next chef at the current location, in queue order, or the next location.
        False when a chance step (the Midnight Merchant's draws) comes first."""
        run = self.run
        loc = run["loc"]
        if run["waiting"] is None:
            waiting = []
            for p, places in sorted(self.plans.items()):
                if loc in places:
                    chefs = self.chefs(p)
                    waiting += [[p, *chefs[i]] for i, place in enumerate(places) if place == loc]
            run["waiting"] = waiting
            run["ties"] = []
            if loc == MERCHANT and run["waiting"]:
                # "Items drawn from the bag when resolved"
                self.draws = [MERCHANT] * min(self.components.merchant_draws, len(self.bag))
                if self.draws:
                    return False
        if not run["waiting"]:
            self._clean_up(loc)
            run["index"] += 1
            if run["index"] == len(self.locs):
                self._after_running()
                return True
            run.update(loc=self.locs[run["index"]], waiting=None)
            return True
        waiting = run["waiting"]
        if len(waiting) > 1:
            track = self.priority
            waiting.sort(key=lambda w: (w[3], track.index(w[0])))
        p, chef, capacity, queue = waiting.pop(0)
        tied = False
        for w in waiting:
            if w[3] == queue:
                tied = True
                break
        if tied and queue not in run["ties"]:
            # "the first to pick from a location must move their Chef Hat to the back"
            run["ties"].append(queue)
            self.priority.remove(p)
            self.priority.append(p)
        run["active"] = [p, chef]
        run["taken"] = 0
        run["capacity"] = capacity
        if not self._available(loc):
            self._return_chef(p, chef)  # "If a chef returns with nothing, take 1 soup."
        return True

    def _return_chef(self, p: int, chef: str) -> None:
        if self.run["taken"] == 0:
            self.soup[p] += 1
        if chef == self.zous_now[p]:
            self.soup[p] += self.zous(chef).soup_bonus
        self.run["active"] = None

    def _apply_pick(self, action: Pick | Leave | Stop) -> str:
        p, chef = self.run["active"]
        loc = self.run["loc"]
        who = f"{self.names[p]}'s {chef}"
        if type(action) is Leave:
            self._return_chef(p, chef)
            return f"{who} leaves {loc} early for consolation soup"
        if type(action) is Stop:
            self._return_chef(p, chef)
            return f"{who} stops picking at {loc}"
        item = action.item  # type: ignore[union-attr]
        text = f"{who} picks {item} at {loc}"
        if item == SOUP:
            self.soup[p] += 1
        else:
            self.items[loc].remove(item)
            info = self.tok.get(item)
            if info is None:  # a zous-chef
                self.zous_next[p] = item
            elif info.cls == "rumor":
                text += self._take_rumor(p, item, action.space)
            else:
                self.stock[p].append(item)
        self.run["taken"] += 1
        if self.run["taken"] >= self.run["capacity"] or not self._available(loc):
            self._return_chef(p, chef)
        return text

    def _take_rumor(self, p: int, token: str, space: int | None) -> str:
        """Peek at a face-down Rumor Card; a wild rumor goes to an empty rumor space; a rumor
        the player already knows (or a wild with no empty space) leaves the game."""
        kind = self.tok[token].type
        target = space if kind == 0 else int(kind)  # type: ignore[arg-type]
        if target is None or target in self.spaces[p] or self.rumor_up[target - 1]:
            self.removed.append(token)
            return f" (already known: {token} leaves the game)"
        self.spaces[p][target] = token
        if self.rumors[target - 1] is None:
            self.peek = [p, target]
            return f" and will peek at rumor card {target}"
        self._reveals = True
        self._share_rumors()
        return f" and peeks at rumor card {target}"

    def _share_rumors(self) -> None:
        """"If every player knows the same rumor, flip it face up.\""""
        for k in (1, 2, 3):
            if not self.rumor_up[k - 1] and all(k in s for s in self.spaces):
                self.rumor_up[k - 1] = True

    def _clean_up(self, loc: str) -> None:
        """Leftover ingredients/spices move to the Chef Academy, rumors leave the game; after
        the Chef Academy resolves, its leftovers move to the Soup Truck."""
        keep: list[str] = []
        target = TRUCK if loc == ACADEMY else ACADEMY
        moved: list[str] = []
        for item in self.items[loc]:
            info = self.tok.get(item)
            if info is None:  # an unclaimed zous-chef leaves with the round
                self.used_cards.append(item)
            elif info.cls == "rumor":
                self.removed.append(item)
            elif info.cls == "bisque":
                keep.append(item)
            else:
                moved.append(item)
        self.items[loc] = keep
        self.items[target] += moved

    def _after_running(self) -> None:
        self.run = {}
        self.plans = {}
        if self.round in CHALLENGE_ROUNDS:
            self.phase = "meals"
            self.order = list(self.priority)
            for p in range(self.players):
                self.plates[p] = [{"card": c, "slots": dict.fromkeys(self.needs(c)),
                                   "spices": {}, "extra": []} for c in self.challenges]
        elif self.round == CRITIC_ROUND:
            self.phase = "feast"
            self.order = list(self.priority)
            for p in range(self.players):
                self.plates[p] = [{"card": "critic", "slots": dict.fromkeys(
                    self.components.types), "spices": {}, "extra": []}]
        else:
            self._end_round()

    def _end_round(self) -> None:
        """End of Round: return Location Cards, remove used zous-chefs, advance the tracker."""
        for p in range(self.players):
            if self.zous_now[p] is not None:
                self.used_cards.append(self.zous_now[p])  # type: ignore[arg-type]
                self.zous_now[p] = None
        self.round += 1
        self._start_round()

    # --- meals ----------------------------------------------------------------------------
    def _apply_plate(self, action: Serve | AddSpice | AddSoup) -> str:
        p = self.order[0]  # current_player(): the chef preparing meals
        plate = self.plates[p][action.plate]
        if action.token == SOUP:
            self.soup[p] -= 1
        else:
            self.stock[p].remove(action.token)
        if type(action) is Serve:
            plate["slots"][self.tok[action.token].type] = action.token
        elif type(action) is AddSpice:
            plate["spices"][action.pair] = action.token
        elif action.slot is not None:
            plate["slots"][action.slot] = action.token
        else:
            plate["extra"].append(action.token)
        return f"{self.names[p]}: {action}"

    def value(self, item: str) -> int:
        """Soup 1, bisque 3, an ingredient its value."""
        return 1 if item == SOUP else self.tok[item].value

    def quality(self, plate: dict[str, Any]) -> int:
        """"Quality = sum of all ingredient values (spiced ingredients count double)\""""
        total = 0
        for kind, item in plate["slots"].items():
            if item is not None:
                total += self.value(item) * (2 if kind in plate["spices"] else 1)
        return total + sum(self.value(i) for i in plate["extra"])

    def meal_stars(self, plate: dict[str, Any]) -> int:
        """Stars for a challenge meal; 0 when it cannot be presented: a required type missing,
        no real required ingredient ("cannot be all soup"), or quality 0-5."""
        slots = plate["slots"]
        if any(i is None for i in slots.values()):
            return 0
        if not any(i in self.tok and self.tok[i].cls == "ingredient" for i in slots.values()):
            return 0
        q = self.quality(plate)
        stars = 0
        for low, n in self.components.challenge_stars:
            if q >= low:
                stars = n
        return stars

    def _plate_items(self, plate: dict[str, Any]) -> list[str]:
        return [i for i in plate["slots"].values() if i is not None] + list(
            plate["spices"].values()) + list(plate["extra"])

    def _apply_present(self) -> str:
        p = self.order.pop(0)
        if self.phase == "feast":
            return f"{self.names[p]} presents the critic meal (quality " \
                   f"{self.quality(self.plates[p][0])})"
        day = "challenges_day_1" if self.round == 3 else "challenges_day_2"
        parts = []
        for plate in self.plates[p]:
            stars = self.meal_stars(plate)
            items = self._plate_items(plate)
            if stars:
                self.stars[p][day] += stars
                for i in items:  # eaten: tokens back to the bag, bisque to the supply
                    if i == SOUP:
                        continue
                    (self.bisque_supply if self.tok[i].cls == "bisque" else self.bag).append(i)
                parts.append(f"{plate['card']} quality {self.quality(plate)}: {stars} star(s)")
            else:
                for i in items:  # cannot present: back behind the shield
                    if i == SOUP:
                        self.soup[p] += 1
                    else:
                        self.stock[p].append(i)
        self.plates[p] = []
        return f"{self.names[p]} presents " + ("; ".join(parts) or "no meal")

    def _excess(self, p: int) -> int:
        limit = self.components.refrigeration[self.round]
        return sum(map(self._chilled.__contains__, self.stock[p])) - limit

    def _after_discard(self) -> None:
        if self._excess(self.order[0]) <= 0:
            self.order.pop(0)

    def _after_meals(self) -> None:
        if self.phase == "meals":
            # "Refrigeration Limit: After day 1 challenges (round 3), keep max 5 ..."
            self.phase = "fridge"
            self.order = list(self.priority)
            self.used_cards += self.challenges
            self.challenges = []
        elif self.phase == "fridge":
            self._end_round()
        else:
            self.phase = "final"  # "Reveal all rumors"

    # --- final scoring ----------------------------------------------------------------------
    def course_quality(self, p: int, kind: str) -> int:
        plate = self.plates[p][0]
        item = plate["slots"][kind]
        if item is None:
            return 0
        return self.tok[item].value * (2 if kind in plate["spices"] else 1)

    def _winners(self, values: list[int]) -> list[int]:
        """Everyone tied for the highest value above 0 ("Ties award full stars")."""
        best = max(values)
        return [p for p, v in enumerate(values) if v == best and v > 0]

    def condition_stars(self, cond: Condition) -> list[int]:
        """Stars each player earns from a critic or rumor card."""
        n = self.players
        out = [0] * n
        if cond.condition == "best_course":
            winners = self._winners([self.course_quality(p, cond.course or "") for p in range(n)])
        elif cond.condition == "course_min":
            winners = [p for p in range(n) if self.plates[p][0]["slots"][cond.course]
                       is not None and self.course_quality(p, cond.course or "") >= cond.min]
        elif cond.condition == "most_spiced":
            winners = self._winners([len(self.plates[p][0]["spices"]) for p in range(n)])
        else:
            winners = self._winners([self.quality(self.plates[p][0]) for p in range(n)])
        for p in winners:
            out[p] = cond.stars
        return out

    def soup_value(self, p: int) -> int:
        return self.soup[p] + sum(self.tok[t].value for t in self.stock[p]
                                  if self.tok[t].cls == "bisque")

    def _final_scoring(self) -> None:
        """Critic Meal scoring: most soup, all 7 courses, best of each course, rumors, critic."""
        n = self.players
        for p in self._winners([self.soup_value(p) for p in range(n)]):
            self.stars[p]["most_soup"] += 1
        for p in range(n):
            if all(v is not None for v in self.plates[p][0]["slots"].values()):
                self.stars[p]["all_7_courses"] += 1
        for kind in self.components.types:
            for p in self._winners([self.course_quality(p, kind) for p in range(n)]):
                self.stars[p]["best_courses"] += 1
        for card in self.rumors:
            for p, s in enumerate(self.condition_stars(self.condition(card or ""))):
                self.stars[p]["rumors"] += s
        assert self.critic is not None
        for p, s in enumerate(self.condition_stars(self.condition(self.critic))):
            self.stars[p]["critic"] += s
        self.rumor_up = [True, True, True]
        self.phase = "over"
        self.end_reason = "the critic meal of round 7 was scored"

    # --- views and scores -------------------------------------------------------------------
    def scores(self) -> list[Score]:
        """Stars so far; "All ties are friendly", so no tie-breakers."""
        return [Score(p, sum(self.stars[p].values()), dict(self.stars[p]))
                for p in range(self.players)]

    def view(self, player: int | None) -> dict[str, Any]:
        """What a player sees: behind their own shield only (of others counts), the rumor
        cards they know or that lie face up, their own sealed plan."""
        seats = []
        for q in range(self.players):
            own = player == q
            stock = self.stock[q]
            sealed = self.sealed.get(q)
            seats.append({
                "colour": self.names[q],
                "stars": sum(self.stars[q].values()),
                "shield": sorted(stock) if own else len(stock),
                "soup": self.soup[q],
                "rumor_spaces": sorted(self.spaces[q]),
                "zous_chef": self.zous_now[q],
                "zous_chef_next_round": self.zous_next[q],
                "has_planned": q in self.sealed,
                "plan": list(sealed.places) if own and sealed is not None else None,  # type: ignore[attr-defined]
                "revealed_plan": self.plans.get(q),
                "plates": jsonable(self.plates[q]),
            })
        return {
            "game": GAME_ID,
            "you": None if player is None else self.names[player],
            "round": self.round,
            "phase": self.phase,
            "to_act": [self.names[p] for p in self.acting_players()],
            "priority": [self.names[p] for p in self.priority],
            "locations": {loc: list(self.items[loc]) for loc in self.locs},
            "at_location": self.run.get("loc"),
            "challenges": [{"card": c, "needs": list(self.needs(c)), "held": c in self.held}
                           for c in self.challenges],
            "critic": self.critic,
            "rumors": [c if self.knows(player, k + 1) else None
                       for k, c in enumerate(self.rumors)],
            "rumors_face_up": list(self.rumor_up),
            "bag": len(self.bag),
            "players": seats,
        }

    # --- persistence ------------------------------------------------------------------------
    def _state_json(self) -> dict[str, Any]:
        return jsonable({
            "phase": self.phase, "round": self.round, "bag": self.bag,
            "bisque_supply": self.bisque_supply, "round7_token": self.round7_token,
            "items": self.items, "stock": self.stock, "soup": self.soup,
            "spaces": self.spaces, "removed": self.removed,
            "challenge_deck": self.challenge_deck, "critic_deck": self.critic_deck,
            "rumor_deck": self.rumor_deck, "zous_deck": self.zous_deck,
            "challenges": self.challenges, "held": self.held, "used_cards": self.used_cards,
            "critic": self.critic, "rumors": self.rumors, "rumor_up": self.rumor_up,
            "zous_next": self.zous_next, "zous_now": self.zous_now, "priority": self.priority,
            "plans": self.plans, "draws": self.draws, "peek": self.peek, "run": self.run,
            "order": self.order, "plates": self.plates, "stars": self.stars,
            "end_reason": self.end_reason,
        })

    def _load_state_json(self, d: dict[str, Any]) -> None:
        if d["phase"] not in _WAITS:
            raise StateFormatError(f"unknown phase {d['phase']!r}")
        self.phase = d["phase"]
        self.round = int(d["round"])
        self.bag = list(d["bag"])
        self.bisque_supply = list(d["bisque_supply"])
        self.round7_token = list(d["round7_token"])
        self.items = {loc: list(d["items"][loc]) for loc in self.locs}
        self.stock = [list(s) for s in d["stock"]]
        self.soup = [int(n) for n in d["soup"]]
        self.spaces = [{int(k): t for k, t in s.items()} for s in d["spaces"]]
        self.removed = list(d["removed"])
        self.challenge_deck = list(d["challenge_deck"])
        self.critic_deck = list(d["critic_deck"])
        self.rumor_deck = list(d["rumor_deck"])
        self.zous_deck = list(d["zous_deck"])
        self.challenges = list(d["challenges"])
        self.held = list(d["held"])
        self.used_cards = list(d["used_cards"])
        self.critic = d["critic"]
        self.rumors = list(d["rumors"])
        self.rumor_up = [bool(u) for u in d["rumor_up"]]
        self.zous_next = list(d["zous_next"])
        self.zous_now = list(d["zous_now"])
        self.priority = [int(p) for p in d["priority"]]
        self.plans = {int(p): list(ps) for p, ps in d["plans"].items()}
        self.draws = list(d["draws"])
        self.peek = None if d["peek"] is None else [int(x) for x in d["peek"]]
        self.run = dict(d["run"])
        self.order = [int(p) for p in d["order"]]
        self.plates = [[{"card": pl["card"], "slots": dict(pl["slots"]),
                         "spices": dict(pl["spices"]), "extra": list(pl["extra"])}
                        for pl in ps] for ps in d["plates"]]
        self.stars = [dict(s) for s in d["stars"]]
        self.end_reason = d["end_reason"]
        if (len(self.stock) != self.players or sorted(self.priority) != list(
                range(self.players)) or len(self.rumors) != 3):
            raise StateFormatError("saved state does not fit the number of players")
        self.check_conservation()

    def places(self) -> dict[str, list[str]]:
        """Where every token and card is (a place name -> ids there)."""
        out: dict[str, list[str]] = {
            "bag": self.bag, "bisque supply": self.bisque_supply,
            "waterfront": self.round7_token + self.challenges + self.rumor_deck
            + self.challenge_deck + self.critic_deck + self.zous_deck
            + [c for c in self.rumors if c is not None] + ([self.critic] if self.critic else []),
            "removed": self.removed + self.used_cards,
        }
        for loc in self.locs:
            out[f"location {loc}"] = self.items[loc]
        for q in range(self.players):
            out[f"shield {q}"] = self.stock[q]
            out[f"rumor spaces {q}"] = list(self.spaces[q].values())
            out[f"plates {q}"] = [i for pl in self.plates[q] for i in self._plate_items(pl)
                                  if i != SOUP]
            out[f"zous-chefs {q}"] = [z for z in (self.zous_now[q], self.zous_next[q]) if z]
        return out

    def token_places(self) -> dict[str, str]:
        """Each token's and card's place, for the end-of-game summary."""
        return {i: place for place, ids in self.places().items() for i in ids}

    def check_conservation(self) -> None:
        """Every token and card is in exactly one place."""
        k = self.components
        expected = [t.id for t in k.tokens] + [c.id for c in k.challenges] + [
            c.id for c in k.critics] + [c.id for c in k.rumors] + [z.id for z in k.zous_chefs]
        check_each_once((i for ids in self.places().values() for i in ids), expected,
                        "component")
        if any(n < 0 for n in self.soup):
            raise StateFormatError("a player holds less than no soup")
