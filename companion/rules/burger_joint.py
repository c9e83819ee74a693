"""Burger Joint (rulebook: ../shared/rules/burger-joint.txt), for two players.

Players alternate turns as the active player; a turn is Production (cubes drawn from the bag and
divided), Trading & Special Abilities, Building, Calculating Current Score (twelve or more wins)
and Discard Excess Cubes. Every cube drawn at random is a chance step whose outcome (its colour)
comes from the table. Nothing is hidden: drawn cubes lie open on the resource board, so no log
entry is private and every view is the same. The boards' pictures are lost from the rulebook:
costs, the publicity column and the bistros are data (``data/burger_joint.yaml``, provisional).
Readings of unclear sentences: docs/rules/burger-joint.md.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache
from itertools import chain, combinations_with_replacement
from math import comb, prod
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

GAME_ID = "burger-joint"
PLAYERS = 2
MIN_PLAYERS = MAX_PLAYERS = PLAYERS  # how many may play (rules.player_range)
SCHEMA = 1
ABILITIES = ("none", "redraw", "two-for-one", "extra-random", "one-for-one", "extra-chosen")
COSTS = ("publicity", "basic_restaurant", "specialty_diner", "upscale_bistro")
GENERAL = "general"
REFEREE_TURN_LIMIT = "the referee's turn limit was reached with no one at twelve points"
MAX_TURNS = 200  # turns in all (both players); see docs/rules/burger-joint.md


# --- components, from data -----------------------------------------------------------------


@dataclass(frozen=True)
class Bistro:
    """One upscale bistro space: its victory points and its special ability ('none')."""

    id: str
    vp: int
    ability: str


@dataclass(frozen=True)
class Side:
    """One player's development board: who, what they start with, what each column costs."""

    id: str
    name: str
    goes_first: bool
    start_basics: int
    start_diners: tuple[str, ...]
    costs: dict[str, dict[str, int]]


@dataclass(frozen=True)
class BurgerComponents:
    """Everything in the box the rules need, validated."""

    status: str
    guessed: tuple[str, ...]
    colours: tuple[str, ...]
    per_colour: int
    tokens_per_player: int
    start_score: int
    win_score: int
    storage_limit: int
    production_limit: int
    trade_rate: int
    publicity_vp: tuple[int, ...]
    basic_vp: tuple[int, ...]
    diner_vp: int
    bistros: tuple[Bistro, ...]
    sides: tuple[Side, ...]

    def cube_ids(self) -> list[str]:
        """A name for each of the 60 cubes (cubes of a colour are alike): 'black-1' ..."""
        return [f"{c}-{n}" for c in self.colours for n in range(1, self.per_colour + 1)]


_CHECKS = EntryChecks("burger_joint.yaml")
_fail, _get = _CHECKS.fail, _CHECKS.get


def _whole(value: Any, where: str, least: int = 0) -> int:
    if not isinstance(value, int) or isinstance(value, bool) or value < least:
        raise _fail(where, f"must be a whole number of at least {least}, got {value!r}")
    return value


def _cost(raw: Any, colours: tuple[str, ...], where: str) -> dict[str, int]:
    if not isinstance(raw, dict) or not raw:
        raise _fail(where, "expected a mapping colour -> number of cubes")
    for colour, n in raw.items():
        if colour not in colours:
            raise _fail(where, f"{colour!r} is not a cube colour {list(colours)}")
        _whole(n, f"{where} {colour}", 1)
    return {c: int(raw[c]) for c in colours if c in raw}


def parse_burger_joint(raw: Any) -> BurgerComponents:
    """Validate the raw data and build the components; every fact the rulebook states is checked.

    :raises ComponentError: naming the entry and what is wrong.
    """
    if not isinstance(raw, dict):
        raise _fail("top level", "expected a mapping of sections")
    if _get(raw, "schema", "top level") != SCHEMA:
        raise _fail("schema", f"this engine reads schema {SCHEMA}, got {raw['schema']!r}")
    status = _get(raw, "status", "top level")
    if not isinstance(status, str) or "provisional" not in status:
        raise _fail("status", "must say whether the list is provisional")
    guessed = _get(raw, "guessed", "top level")
    if not isinstance(guessed, list) or not all(isinstance(g, str) for g in guessed):
        raise _fail("guessed", "expected a list of sentences")
    cubes = _get(raw, "cubes", "top level")
    colours = tuple(_get(cubes, "colours", "cubes"))
    if len(set(colours)) != len(colours) or not all(isinstance(c, str) for c in colours):
        raise _fail("cubes.colours", "colour names must be unique words")
    per_colour = _whole(_get(cubes, "per_colour", "cubes"), "cubes.per_colour", 1)
    total = _whole(_get(cubes, "total", "cubes"), "cubes.total", 1)
    if total != 60 or per_colour * len(colours) != total:
        raise _fail("cubes", f"the box holds 60 cubes; {len(colours)} colours of {per_colour} "
                    f"make {per_colour * len(colours)} (total says {total})")
    for named in ("black", "yellow", "green", "red"):
        if named not in colours:
            raise _fail("cubes.colours", f"the rulebook names {named} diners; {named} is missing")
    tokens = _whole(_get(raw, "development_tokens", "top level"), "development_tokens", 1)
    if tokens != 30:
        raise _fail("development_tokens", f"the box holds 30 development tokens, not {tokens}")
    rules = _get(raw, "rules", "top level")
    fixed = {"start_score": 2, "win_score": 12, "storage_limit": 7, "production_limit": 4,
             "trade_rate": 3}
    for key, value in fixed.items():
        got = _whole(_get(rules, key, "rules"), f"rules.{key}")
        if got != value:
            raise _fail(f"rules.{key}", f"the rulebook says {value}, not {got}")
    publicity = tuple(_whole(v, "publicity.vp", 0)
                      for v in _get(_get(raw, "publicity", "top level"), "vp", "publicity"))
    if not publicity:
        raise _fail("publicity.vp", "the publicity column needs at least one space")
    basic = tuple(_whole(v, "basic_restaurants.vp", 0) for v in
                  _get(_get(raw, "basic_restaurants", "top level"), "vp", "basic_restaurants"))
    if len(basic) < 6 or [i + 1 for i, v in enumerate(basic) if v] != [3, 5, 6]:
        raise _fail("basic_restaurants.vp", "victory points are earned for the third, fifth and "
                    f"sixth basic restaurant only (six spaces or more); got {list(basic)}")
    diners = _get(raw, "specialty_diners", "top level")
    diner_vp = _whole(_get(diners, "vp", "specialty_diners"), "specialty_diners.vp")
    if diner_vp != 1:
        raise _fail("specialty_diners.vp", f"each diner is worth one victory point, not {diner_vp}")
    if _get(diners, "cost_cubes", "specialty_diners") != 4:
        raise _fail("specialty_diners.cost_cubes", "a diner costs four cubes")
    upscale = _get(raw, "upscale_bistros", "top level")
    if _get(upscale, "cost_cubes", "upscale_bistros") != 6:
        raise _fail("upscale_bistros.cost_cubes", "a bistro costs six cubes")
    bistros = _bistros(_get(upscale, "list", "upscale_bistros"))
    sides = _sides(_get(raw, "players", "top level"), colours, len(basic), tokens // PLAYERS)
    comps = BurgerComponents(
        status=status, guessed=tuple(guessed), colours=colours, per_colour=per_colour,
        tokens_per_player=tokens // PLAYERS, start_score=2, win_score=12, storage_limit=7,
        production_limit=4, trade_rate=3, publicity_vp=publicity, basic_vp=basic,
        diner_vp=diner_vp, bistros=bistros, sides=sides)
    for side in sides:
        start = sum(basic[:side.start_basics]) + diner_vp * len(side.start_diners)
        if start != 2:
            raise _fail(f"player {side.id!r}", f"the starting buildings are worth {start} VP; "
                        "the scoring marker starts on 2")
    return comps


def _bistros(raw: Any) -> tuple[Bistro, ...]:
    if not isinstance(raw, list) or not raw:
        raise _fail("upscale_bistros.list", "expected a list of bistros")
    out: list[Bistro] = []
    for entry in raw:
        where = f"bistro {entry.get('id')!r}" if isinstance(entry, dict) else "bistro"
        ident = _get(entry, "id", where)
        vp = _whole(_get(entry, "vp", where), f"{where} vp")
        ability = _get(entry, "ability", where)
        if vp > 3:
            raise _fail(where, f"a bistro is worth 0-3 victory points, not {vp}")
        if ability not in ABILITIES:
            raise _fail(where, f"unknown ability {ability!r}; known: {list(ABILITIES)}")
        if (vp == 3) != (ability == "none"):
            raise _fail(where, "every bistro except the one worth three has a special ability")
        out.append(Bistro(str(ident), vp, str(ability)))
    ids = [b.id for b in out]
    if len(set(ids)) != len(ids):
        raise _fail("upscale_bistros.list", "bistro ids must be unique")
    used = [b.ability for b in out if b.ability != "none"]
    if len(set(used)) != len(used) or sum(b.ability == "none" for b in out) != 1:
        raise _fail("upscale_bistros.list", "one bistro (worth three) has no ability; each other "
                    "bistro has a different one")
    return tuple(out)


def _sides(raw: Any, colours: tuple[str, ...], basics: int, tokens: int) -> tuple[Side, ...]:
    if not isinstance(raw, list) or len(raw) != PLAYERS:
        raise _fail("players", "expected the two development boards, Burger and Pizza")
    out: list[Side] = []
    for entry in raw:
        where = f"player {entry.get('id')!r}" if isinstance(entry, dict) else "player"
        start = _get(entry, "start", where)
        diners = tuple(_get(start, "diners", f"{where} start"))
        if any(d not in colours for d in diners) or len(set(diners)) != len(diners):
            raise _fail(f"{where} start", f"diners {list(diners)} must be different cube colours")
        n = _whole(_get(start, "basic_restaurants", f"{where} start"), f"{where} start", 0)
        if n + len(diners) != 3 or n > basics:
            raise _fail(f"{where} start", "each player places three tokens at the start")
        raw_costs = _get(entry, "costs", where)
        costs = {k: _cost(_get(raw_costs, k, f"{where} costs"), colours, f"{where} costs.{k}")
                 for k in COSTS}
        diner = costs["specialty_diner"]
        if sum(diner.values()) != 4 or len(diner) != 4:
            raise _fail(f"{where} costs.specialty_diner", "four cubes (of four colours)")
        if sum(costs["upscale_bistro"].values()) != 6:
            raise _fail(f"{where} costs.upscale_bistro", "six cubes")
        out.append(Side(str(_get(entry, "id", where)), str(_get(entry, "name", where)),
                        bool(_get(entry, "goes_first", where)), n, diners, costs))
    if [s.id for s in out] != ["burger", "pizza"] or not out[0].goes_first or out[1].goes_first:
        raise _fail("players", "Burger then Pizza, and the player choosing Burgers goes first")
    if out[0].start_diners != ("black", "yellow") or out[1].start_diners != ("green", "red"):
        raise _fail("players", "Burger starts with the black and yellow diners, Pizza with the "
                    "green and red")
    return tuple(out)


def load_burger_joint(path: str | Path | None = None) -> BurgerComponents:
    """Load and validate a component list; the shipped one by default.

    :raises ComponentError: if the file is unreadable or malformed.
    """
    raw = read_component_list("burger_joint.yaml", path)
    return parse_burger_joint(raw)


@lru_cache(maxsize=1)
def burger_joint() -> BurgerComponents:
    """The shipped Burger Joint list, loaded and validated once."""
    return load_burger_joint()


# --- actions -------------------------------------------------------------------------------

codec = ActionCodec()


@action(codec, "draw", "{colours} come out of the bag")
class DrawCubes(Action):
    """Chance: the colours of the cubes drawn at random from the bag, all the cubes of one draw
    at once (production's cubes, a redraw's, an extra cube), as the table lays them out."""

    colours: tuple[str, ...]


@action(codec, "take-cube", "take a {colour} cube from the {area} area")
class TakeCube(Action):
    """Production: take one cube from the general area or a player's area."""

    colour: str
    area: str


@action(codec, "trade", "trade three {give} cubes for a {take} cube")
class Trade(Action):
    """3-for-1: three cubes of one colour back into the bag, a cube of the colour desired out."""

    give: str
    take: str


@action(codec, "redraw", "put {give} back into the bag and draw as many at random")
class Redraw(Action):
    """Bistro ability: any number of your cubes into the bag, the same number drawn back out."""

    give: tuple[str, ...]


@action(codec, "two-for-one", "put {give} into the bag and take a {take} cube")
class TwoForOne(Action):
    """Bistro ability: any two cubes into the bag, a cube of any colour desired out."""

    give: tuple[str, ...]
    take: str


@action(codec, "one-for-one", "put a {give} cube into the bag and take a {take} cube")
class OneForOne(Action):
    """Bistro ability: one cube into the bag, a cube of any colour desired out."""

    give: str
    take: str


@action(codec, "extra-random", "draw one extra cube at random")
class ExtraRandom(Action):
    """Bistro ability: one extra cube drawn at random, above the production limit."""


@action(codec, "extra-chosen", "take one extra {take} cube out of the bag")
class ExtraChosen(Action):
    """Bistro ability: one cube of any colour desired out of the bag, above the limit."""

    take: str


@action(codec, "publicity", None)
class BuyPublicity(Action):
    """Buy publicity: steal a cube (``steal``, or None) and/or move the marker down."""

    steal: str | None
    advance: bool

    def __str__(self) -> str:
        parts = ([f"steal a {self.steal} cube"] if self.steal else []) + (
            ["move the publicity marker down"] if self.advance else [])
        return "buy publicity: " + (" and ".join(parts) or "nothing more")


@action(codec, "restaurant", "build a basic restaurant")
class BuildRestaurant(Action):
    """Build a basic restaurant in the highest open space of its column."""


@action(codec, "diner", "upgrade a basic restaurant to the {colour} specialty diner")
class BuildDiner(Action):
    """Upgrade the lowest basic restaurant to the specialty diner of a colour."""

    colour: str


@action(codec, "bistro", "upgrade the {diner} diner to the {bistro} upscale bistro")
class BuildBistro(Action):
    """Upgrade a specialty diner of your choice to an upscale bistro not built before."""

    bistro: str
    diner: str


@action(codec, "end-building", "end the turn's building (score and discard)")
class EndBuilding(Action):
    """Stop trading and building: the score is calculated, then excess cubes discarded."""


@action(codec, "discard", "discard {colours}")
class Discard(Action):
    """Discard Excess Cubes: the cubes over seven, chosen by their holder, back into the bag."""

    colours: tuple[str, ...]


# Actions are immutable values, and the legal moves are listed anew at every step: each distinct
# move is built once (a frozen dataclass costs far more to build than to look up).
_take_cube = lru_cache(maxsize=None)(TakeCube)
_trade = lru_cache(maxsize=None)(Trade)
_two_for_one = lru_cache(maxsize=None)(TwoForOne)
_one_for_one = lru_cache(maxsize=None)(OneForOne)
_extra_chosen = lru_cache(maxsize=None)(ExtraChosen)
_buy_publicity = lru_cache(maxsize=None)(BuyPublicity)
_build_diner = lru_cache(maxsize=None)(BuildDiner)
_build_bistro = lru_cache(maxsize=None)(BuildBistro)
_discard = lru_cache(maxsize=None)(Discard)
_redraw = lru_cache(maxsize=1 << 14)(Redraw)  # any multiset of the cubes one may hold
_draw_cubes = lru_cache(maxsize=None)(DrawCubes)  # a production draws at most eight cubes
_EXTRA_RANDOM = ExtraRandom()
_PUBLICITY = _buy_publicity(None, True)
_BUILD_RESTAURANT = BuildRestaurant()
_END_BUILDING = EndBuilding()


@lru_cache(maxsize=1024)
def _areas_by_colour(colours: tuple[str, ...], first: str, first_diners: tuple[str, ...],
                     second: str, second_diners: tuple[str, ...]) -> dict[str, str]:
    """The area each colour's drawn cubes go to: a diner colour held by one player but not
    the other to that player's area (``first``, ``second``), the rest to the general area.
    Read only."""
    out = {}
    for c in colours:
        mine, theirs = c in first_diners, c in second_diners
        out[c] = first if mine and not theirs else second if theirs and not mine else GENERAL
    return out


@lru_cache(maxsize=4096)
def _counts(colours: tuple[str, ...]) -> tuple[tuple[str, int], ...]:
    """(colour, cubes) for each colour of a draw, in the order first drawn."""
    return tuple((c, colours.count(c)) for c in dict.fromkeys(colours))


@lru_cache(maxsize=4096)
def _together(colours: tuple[str, ...]) -> bool:
    """Whether the cubes of each colour of a draw are listed together (as a random draw lists
    them: in colour order)."""
    return len(_counts(colours)) == len([c for n, c in enumerate(colours)
                                         if not n or c != colours[n - 1]])


def _discard_choices(held: tuple[tuple[str, int], ...], size: int) -> tuple[Discard, ...]:
    """Every Discard of ``size`` cubes from ``held`` (colour, count)."""
    return tuple(map(_discard, _bounded_picks(held, size)))


@lru_cache(maxsize=1024)
def _redraw_choices(held: tuple[tuple[str, int], ...]) -> tuple[Redraw, ...]:
    """Every Redraw of some of the cubes ``held`` (colour, count), giving nothing excepted."""
    return tuple(map(_redraw, _sub_multisets(held)[1:]))


@lru_cache(maxsize=1024)
def _sub_multisets(held: tuple[tuple[str, int], ...]) -> tuple[tuple[str, ...], ...]:
    """Every multiset of the cubes ``held`` (colour, count), the empty one first: the fewest
    of the first colour first, then of the next. Cached: the last few colours recur."""
    if not held:
        return ((),)
    (colour, count), rest = held[0], held[1:]
    tails = _sub_multisets(rest)
    return tuple(chain.from_iterable(
        [(colour,) * k + tail for tail in tails] for k in range(count + 1)))


@lru_cache(maxsize=1 << 15)
def _bounded_picks(held: tuple[tuple[str, int], ...], size: int) -> tuple[tuple[str, ...], ...]:
    """Every multiset of ``size`` cubes from ``held`` (colour, count), in colour order (the
    fewest of the first colour first, then of the next). Cached: a storage's last few colours
    recur all game, so most of the work is looked up."""
    if not held:
        return ((),) if size == 0 else ()
    (colour, count), rest = held[0], held[1:]
    room = sum(n for _, n in rest)
    return tuple(chain.from_iterable(
        [(colour,) * k + tail for tail in _bounded_picks(rest, size - k)]
        for k in range(max(0, size - room), min(count, size) + 1)))


def _affords(store: dict[str, int], cost: dict[str, int]) -> bool:
    """Whether the cubes in ``store`` pay ``cost`` (colour -> cubes)."""
    for c, n in cost.items():
        if store[c] < n:
            return False
    return True


class _Table(dict):  # type: ignore[type-arg]
    """A read-only table filled as it is read: ``table[key]`` is ``make(key)``, worked out the
    first time and looked up after (a dict look-up, no Python call). For keys that are the
    contents of a place (cube counts in colour order), of which games meet few; emptied
    when it reaches ``size`` keys, so that it never grows without end."""

    __slots__ = ("make", "size")

    def __init__(self, make: Any, size: int = 1 << 14) -> None:
        super().__init__()
        self.make = make
        self.size = size

    def __missing__(self, key: Any) -> Any:
        if len(self) >= self.size:
            self.clear()
        value = self[key] = self.make(key)
        return value


def _each_held(moves: dict[str, Any], colours: tuple[str, ...]) -> _Table:
    """Cube counts (in colour order) -> the moves of ``moves`` (colour -> move) for each colour
    held, in colour order: an area's takes, the steals from a storage."""
    return _Table(lambda counts: tuple(moves[c] for c, n in zip(colours, counts, strict=True)
                                       if n))


def _trades_of(trade: dict[str, dict[str, Trade]], colours: tuple[str, ...], rate: int
               ) -> _Table:
    """A storage's cube counts (in colour order) -> its 3-for-1 trades while the bag holds a
    cube of every colour: each colour given (``rate`` cubes of it held), in colour order, for
    each other colour."""
    def make(counts: tuple[int, ...]) -> tuple[Trade, ...]:
        return tuple(trade[g][t] for g, n in zip(colours, counts, strict=True) if n >= rate
                     for t in colours if t != g)
    return _Table(make)


def _pays(costs: dict[str, dict[str, int]], colours: tuple[str, ...]) -> _Table:
    """A storage's cube counts (in colour order) -> whether they pay each cost of COSTS (its
    side's publicity, basic restaurant, specialty diner, upscale bistro)."""
    def make(counts: tuple[int, ...]) -> tuple[bool, ...]:
        store = dict(zip(colours, counts, strict=True))
        return tuple(_affords(store, costs[what]) for what in COSTS)
    return _Table(make)


def _discards_of(colours: tuple[str, ...], limit: int) -> _Table:
    """A storage's cube counts (in colour order) -> every Discard of the cubes over
    ``limit``."""
    def make(counts: tuple[int, ...]) -> tuple[Discard, ...]:
        held = tuple((c, n) for c, n in zip(colours, counts, strict=True) if n)
        return _discard_choices(held, sum(counts) - limit)
    return _Table(make)


def _diners_left(diner: dict[str, BuildDiner], colours: tuple[str, ...]) -> _Table:
    """The diners a player has -> the diners he may build: one of each colour he has none of,
    in colour order."""
    return _Table(lambda have: tuple(diner[c] for c in colours if c not in have))


@dataclass(frozen=True)
class _MoveTables:
    """The moves the legal lists are made of, looked up by colour (a dict look-up costs less
    than a cached constructor's): shared by every state of one component list, read only."""

    take: dict[str, dict[str, TakeCube]]  # area -> colour -> taking a cube of it there
    offer: dict[str, _Table]  # area -> its cube counts -> the takes there (_each_held)
    trade: dict[str, dict[str, Trade]]  # colour given -> colour taken
    trades: _Table  # a storage's counts -> its trades while the bag has every colour
    steal: dict[bool, dict[str, BuyPublicity]]  # first publicity this turn -> stolen colour
    steals: dict[bool, _Table]  # first publicity this turn -> the victim's counts -> steals
    diner: dict[str, BuildDiner]
    diners_left: _Table  # the diners a player has -> those he may build
    areas_of: _Table  # both players' diners -> the area each colour's drawn cubes go to
    discards: _Table  # a storage's counts -> every Discard of the cubes over the limit
    pays: tuple[_Table, ...]  # player -> his storage's counts -> which COSTS they pay
    # ability -> a storage's counts -> its moves while the bag holds every colour
    abilities: dict[str, _Table]
    two_for_one: dict[tuple[str, str], dict[str, TwoForOne]]  # the two given -> colour taken
    one_for_one: dict[str, dict[str, OneForOne]]  # colour given -> colour taken
    extra_chosen: dict[str, ExtraChosen]


_TABLES: dict[int, tuple[BurgerComponents, _MoveTables]] = {}  # by id of the component list


def _move_tables(components: BurgerComponents) -> _MoveTables:
    """The tables of one component list, made once (kept with it for a few lists)."""
    kept = _TABLES.get(id(components))
    if kept is not None and kept[0] is components:
        return kept[1]
    if len(_TABLES) >= 8:
        _TABLES.clear()
    tables = _make_move_tables(components)
    _TABLES[id(components)] = (components, tables)
    return tables


def _make_move_tables(components: BurgerComponents) -> _MoveTables:
    colours = components.colours
    areas = (GENERAL, *(s.id for s in components.sides))
    take = {a: {c: _take_cube(c, a) for c in colours} for a in areas}
    trade = {g: {t: _trade(g, t) for t in colours} for g in colours}
    steal = {first: {c: _buy_publicity(c, first) for c in colours} for first in (True, False)}
    diner = {c: _build_diner(c) for c in colours}
    tables = _MoveTables(
        take=take,
        offer={a: _each_held(take[a], colours) for a in areas},
        trade=trade,
        trades=_trades_of(trade, colours, components.trade_rate),
        steal=steal,
        steals={first: _each_held(steal[first], colours) for first in (True, False)},
        diner=diner,
        diners_left=_diners_left(diner, colours),
        areas_of=_Table(lambda diners: _areas_by_colour(colours, areas[1], diners[0],
                                                        areas[2], diners[1])),
        discards=_discards_of(colours, components.storage_limit),
        pays=tuple(_pays(side.costs, colours) for side in components.sides),
        abilities={},
        two_for_one={pair: {t: _two_for_one(pair, t) for t in colours}
                     for pair in combinations_with_replacement(colours, 2)},
        one_for_one={g: {t: _one_for_one(g, t) for t in colours} for g in colours},
        extra_chosen={t: _extra_chosen(t) for t in colours})
    for ability in ABILITIES[1:]:  # while the bag holds every colour
        tables.abilities[ability] = _Table(
            lambda held, ability=ability: tuple(_ability_moves(
                tables, colours, ability, dict(zip(colours, held, strict=True)), colours)))
    return tables


def _ability_moves(moves: _MoveTables, colours: tuple[str, ...], ability: str,
                   store: dict[str, int], in_bag: Sequence[str]) -> list[Action]:
    """The moves of one special ability for the cubes in ``store`` (colour -> count, in
    colour order) while the bag holds a cube of the colours ``in_bag``."""
    held = [c for c, n in store.items() if n]
    out: list[Action] = []
    if ability == "redraw":
        out += _redraw_choices(tuple([(c, store[c]) for c in held]))
    elif ability == "two-for-one":
        for pair in combinations_with_replacement(held, 2):
            if pair[0] == pair[1] and store[pair[0]] < 2:
                continue
            take = moves.two_for_one[pair]
            for t in _in_bag_with(colours, in_bag, pair):
                out.append(take[t])
    elif ability == "one-for-one":
        for g in held:
            take = moves.one_for_one[g]
            for t in _in_bag_with(colours, in_bag, (g,)):
                out.append(take[t])
    elif ability == "extra-random":
        if in_bag:  # bag_size()
            out.append(_EXTRA_RANDOM)
    elif ability == "extra-chosen":
        out += [moves.extra_chosen[t] for t in in_bag]
    return out


def _in_bag_with(colours: tuple[str, ...], in_bag: Sequence[str], given: tuple[str, ...]
                 ) -> Sequence[str]:
    """The colours the bag holds a cube of once ``given`` is put in (``in_bag``: those it
    holds now), in colour order (counts are never negative)."""
    if given[0] in in_bag and given[-1] in in_bag:
        return in_bag
    return [c for c in colours if c in in_bag or c in given]


_CHANCE_PHASES = frozenset({"production", "redraw", "extra"})
_PICKER_PHASES = frozenset({"first-pick", "pick", "discard"})  # the picker acts (else: active)
_BUILDINGS = (BuyPublicity, BuildRestaurant, BuildDiner, BuildBistro)
_WANTS = {
    "first-pick": "a cube taken for the first choice (TakeCube)",
    "pick": "a cube taken from the general area (TakeCube)",
    "trade": "a trade, a special ability, a building or the end of building",
    "build": "a building or the end of building (trading is over once building starts)",
    "discard": "the cubes over seven discarded (Discard)",
}


class BurgerJointState(GameState):
    """One game of Burger Joint: player 0 is Burger (goes first), player 1 is Pizza."""

    GAME_ID: ClassVar[str] = GAME_ID
    TIEBREAKS: ClassVar[tuple[str, ...]] = ("more upscale bistros", "more specialty diners")
    REFEREE_ENDINGS: ClassVar[frozenset[str]] = frozenset({REFEREE_TURN_LIMIT})
    codec: ClassVar[ActionCodec] = codec
    _SHARED: ClassVar[frozenset[str]] = GameState._SHARED | {"sides", "colours", "names",
                                                             "_moves"}

    def __init__(self, players: int, seed: int, options: dict[str, Any],
                 components: BurgerComponents) -> None:
        super().__init__(players, seed, options)
        self.components = components
        self.bistro = ComponentIndex("upscale bistro", "Upscale Bistros", components.bistros)
        self.colours = components.colours
        self.sides = components.sides
        self.names = [s.name for s in self.sides]
        self.bag: dict[str, int] = {c: components.per_colour for c in self.colours}
        self.storage: list[dict[str, int]] = [self._empty() for _ in range(PLAYERS)]
        self.fresh: list[dict[str, int]] = [self._empty() for _ in range(PLAYERS)]
        self.areas: dict[str, dict[str, int]] = {
            a: self._empty() for a in (GENERAL, *(s.id for s in self.sides))}
        self._moves = _move_tables(components)  # read only, shared
        self.basics = [s.start_basics for s in self.sides]
        self.diners: list[list[str]] = [list(s.start_diners) for s in self.sides]
        self.bistros: list[list[str]] = [[] for _ in range(PLAYERS)]
        self.publicity = [0, 0]  # 0: not yet on the column; k: on its k-th space
        self.marker = [components.start_score] * PLAYERS
        self.active = next(i for i, s in enumerate(self.sides) if s.goes_first)
        self.turn = 1
        self.phase = "production"
        self.to_draw = 0  # cubes still to draw in a chance phase
        self.taken = [0, 0]  # cubes taken this production
        self.picker = self.active
        self.used: list[str] = []  # abilities used this turn
        self.publicity_bought = 0  # this turn
        self.winner: int | None = None
        self.end_reason: str | None = None

    def _empty(self) -> dict[str, int]:
        return dict.fromkeys(self.colours, 0)

    @classmethod
    def new(cls, players: int, seed: int, **options: Any) -> BurgerJointState:
        """A new game: Burger's and Pizza's starting buildings, markers on 2, Burger first."""
        if players != PLAYERS:
            raise ValueError(f"Burger Joint is for exactly 2 players, not {players}")
        components: BurgerComponents = options.pop("components", None) or burger_joint()
        if options:
            raise ValueError(f"Burger Joint takes no options; got {sorted(options)}")
        state = cls(players, seed, {}, components)
        state._start_production()
        return state

    # --- helpers ------------------------------------------------------------------------
    def player_name(self, player: int) -> str:
        return self.names[player]

    def other(self, player: int) -> int:
        return 1 - player

    def capacity(self, player: int) -> int:
        """Cubes a player chooses each turn: one per specialty diner and bistro, at most four."""
        return min(self.components.production_limit,
                   len(self.diners[player]) + len(self.bistros[player]))

    def tokens_left(self, player: int) -> int:
        """Development tokens not on the board."""
        return (self.components.tokens_per_player - self.basics[player]
                - len(self.diners[player]) - len(self.bistros[player]))

    def vp_breakdown(self, player: int) -> dict[str, int]:
        """Calculating Current Score: buildings with development tokens plus publicity."""
        c = self.components
        pos = self.publicity[player]
        return {
            "basic_restaurants": sum(c.basic_vp[:self.basics[player]]),
            "specialty_diners": c.diner_vp * len(self.diners[player]),
            "upscale_bistros": sum([self.bistro(b).vp for b in self.bistros[player]]),
            "publicity": c.publicity_vp[pos - 1] if pos else 0,
        }

    def vp(self, player: int) -> int:
        return sum(self.vp_breakdown(player).values())

    def held(self, player: int) -> int:
        return sum(self.storage[player].values())

    def _cost(self, player: int, what: str) -> dict[str, int]:
        return self.sides[player].costs[what]

    def can_pay(self, player: int, what: str) -> bool:
        return _affords(self.storage[player], self.sides[player].costs[what])

    def _pay(self, player: int, what: str) -> None:
        """Each item built has a cost in cubes; these cubes are returned to the draw bag."""
        for c, n in self._cost(player, what).items():
            self.storage[player][c] -= n
            self.bag[c] += n

    def bag_size(self) -> int:
        return sum(self.bag.values())

    def _areas(self) -> dict[str, str]:
        """The area each colour's drawn cubes go to (read only): cubes of a diner colour held
        by one player but not the other go to that player's area; the rest to the general
        area."""
        diners = self.diners
        return self._moves.areas_of[tuple(diners[0]), tuple(diners[1])]

    # --- who acts -----------------------------------------------------------------------
    def current_player(self) -> int:
        phase = self.phase
        if phase in _PICKER_PHASES:
            return self.picker
        if phase == "trade" or phase == "build":
            return self.active
        return TERMINAL if phase == "over" else CHANCE

    def is_terminal(self) -> bool:
        return self.phase == "over"

    # --- chance -------------------------------------------------------------------------
    def chance_outcomes(self) -> list[tuple[Action, float]]:
        """Every multiset of ``to_draw`` cubes the bag can give, with its probability."""
        if self.phase not in _CHANCE_PHASES:
            return []
        total, k = self.bag_size(), self.to_draw
        out: list[tuple[Action, float]] = []
        held = [c for c in self.colours if self.bag[c]]
        for pick in combinations_with_replacement(held, k):
            counts = Counter(pick)
            if all(self.bag[c] >= n for c, n in counts.items()):
                ways = prod(comb(self.bag[c], n) for c, n in counts.items())
                out.append((DrawCubes(pick), ways / comb(total, k)))
        return out

    def sample_chance(self) -> Action:
        if self.phase not in _CHANCE_PHASES:
            raise IllegalMoveError("turn order", "no cube is to be drawn now")
        pool: list[str] = []
        for c, n in self.bag.items():  # in colour order
            pool += [c] * n
        drawn = self.rng.next().sample(pool, self.to_draw)
        return _draw_cubes(tuple(sorted(drawn, key=self.colours.index)))

    # --- legal moves --------------------------------------------------------------------
    def _compute_legal(self) -> Sequence[Action]:
        phase = self.phase
        if phase == "trade" or phase == "build":
            return self._trading(self.active)
        if phase == "discard":  # every choice of exactly the cubes over seven
            return self._moves.discards[tuple(self.storage[self.picker].values())]
        if phase == "first-pick" or phase == "pick":
            return self._takes(self.picker)
        return []  # chance outcomes: chance_outcomes(); none once over

    def _trading(self, p: int) -> list[Action]:
        """Trading and building: the trades, the special abilities (while trading), the
        buildings, the end of building. Looked up by the cubes in storage (their counts in
        colour order): the trades while the bag holds every colour, and what they pay for."""
        moves = self._moves
        held = tuple(self.storage[p].values())
        out: list[Action] = []
        if self.phase == "trade":
            trades = moves.trades[held]
            if trades:
                bag = self.bag
                if 0 in bag.values():  # the colours the bag lacks cannot be taken
                    for trade in trades:
                        if bag[trade.take] > 0:
                            out.append(trade)
                else:
                    out += trades
            if self.bistros[p]:  # abilities come with bistros
                out += self._abilities(p, held)
        pays_publicity, pays_restaurant, pays_diner, pays_bistro = moves.pays[p][held]
        comps = self.components
        if pays_publicity and self.publicity[p] < len(comps.publicity_vp):
            # the first publicity of a turn moves the marker down and may steal too; a later
            # one does either (the marker alone, or a steal alone)
            out.append(_PUBLICITY)
            out += moves.steals[self.publicity_bought == 0][tuple(self.storage[1 - p].values())]
        basics, diners, bistros = self.basics[p], self.diners[p], self.bistros[p]
        if pays_restaurant and basics < len(comps.basic_vp) and (
                comps.tokens_per_player - basics - len(diners) - len(bistros)):
            out.append(_BUILD_RESTAURANT)
        if pays_diner and basics:  # a colour he has no diner of
            out += moves.diners_left[tuple(diners)]
        if pays_bistro and diners:
            out += [_build_bistro(b.id, d) for b in comps.bistros
                    if b.id not in bistros for d in diners]
        out.append(_END_BUILDING)
        return out

    def _takes(self, p: int) -> tuple[TakeCube, ...]:
        """The cubes the picker may take now (TakeCube): at his first choice from the general
        area or his own (from the other's if neither has a cube), after it from the general
        area; area by area, a cube of each colour there in colour order."""
        areas, offer = self.areas, self._moves.offer
        general = offer[GENERAL][tuple(areas[GENERAL].values())]
        if self.phase == "pick":
            return general
        own = self.sides[p].id
        mine = offer[own][tuple(areas[own].values())]
        if general or mine:
            return general + mine
        other = self.sides[1 - p].id
        return offer[other][tuple(areas[other].values())]

    def _pickable_areas(self, player: int) -> list[str]:
        """First choice: the general area or the player's own; if neither has a cube, any."""
        if self.phase == "pick":
            return [GENERAL]
        own = [GENERAL, self.sides[player].id]
        areas = self.areas
        if any(areas[GENERAL].values()) or any(areas[own[1]].values()):
            return own
        return [GENERAL, self.sides[self.other(player)].id]

    def _in_bag(self) -> list[str]:
        """The colours the bag holds a cube of, in colour order."""
        bag, out = self.bag, []
        for c in self.colours:
            if bag[c] > 0:
                out.append(c)
        return out

    def _owned_abilities(self, p: int) -> list[str]:
        bistro = self.bistro.by_id
        owned = [bistro[b].ability for b in self.bistros[p]]
        return [a for a in owned if a != "none" and a not in self.used]

    def _abilities(self, p: int, held: tuple[int, ...]) -> list[Action]:
        """The moves of the abilities the player's bistros give and he has not used this turn;
        ``held``: his storage's counts in colour order. Looked up by them while the bag holds
        every colour."""
        owned = self._owned_abilities(p)
        if not owned:
            return []
        bag = self.bag
        full = 0 not in bag.values()
        in_bag = self.colours if full else self._in_bag()
        table = self._moves.abilities
        out: list[Action] = []
        for ability in owned:
            if full:
                out += table[ability][held]
            else:
                out += _ability_moves(self._moves, self.colours, ability, self.storage[p],
                                      in_bag)
        return out

    # --- checking -----------------------------------------------------------------------
    def _check(self, action: Action) -> None:
        if self.phase in _CHANCE_PHASES:
            self._check_draw(action)
            return
        legal = self._legal
        if legal is None:
            legal = self._legal = self._compute_legal()
        # the move is most often one of the listed objects themselves: found by identity
        # without calling a dataclass __eq__ per move listed before it (the end of building,
        # listed last after every redraw there may be, first)
        if legal and legal[-1] is action:
            return
        for listed in legal:
            if listed is action:
                return
        if action in legal:
            return
        p = self.current_player()
        self._explain(p, action)
        raise IllegalMoveError("turn order", f"the game now waits for {self.names[p]}: "
                               f"{_WANTS[self.phase]}", move=action)

    def _check_draw(self, action: Action) -> None:
        """A draw's outcome: exactly the cubes due, each colour no more than the bag holds."""
        if type(action) is not DrawCubes and not isinstance(action, DrawCubes):
            raise ChanceOutcomeError("chance", "the table must say the colours of the cubes "
                                     "drawn from the bag (DrawCubes)", move=action)
        if len(action.colours) != self.to_draw:
            raise ChanceOutcomeError("chance", f"{self.to_draw} cubes are drawn now, not "
                                     f"{len(action.colours)}; check the reading", move=action)
        bag = self.bag
        for c, n in _counts(action.colours):  # each colour once, in the order drawn
            if bag.get(c, 0) < n:
                left = {c: n for c, n in self.bag.items() if n}
                raise ChanceOutcomeError("chance", f"{n} {c} cubes cannot come out of the bag "
                                         f"(it holds {left}); check the reading", move=action)

    def _explain(self, p: int, action: Action) -> None:
        """Raise the most telling IllegalMoveError for an action that is not legal now."""
        phase = self.phase
        name = self.names[p]
        if isinstance(action, TakeCube) and phase in ("first-pick", "pick"):
            if phase == "first-pick" and action.area in self.areas and action.area not in (
                    self._pickable_areas(p)):
                raise IllegalMoveError("Production", f"{name} may not take his first cube from "
                                       "the opponent's area while the general area or his own "
                                       "has one", move=action)
            if phase == "pick" and action.area != GENERAL:
                raise IllegalMoveError("Production", "the remaining cubes are all in the general "
                                       "area now", move=action)
            raise IllegalMoveError("Production", f"no {action.colour} cube lies in the "
                                   f"{action.area} area", move=action)
        if isinstance(action, Discard) and phase == "discard":
            excess = self.held(p) - self.components.storage_limit
            if len(action.colours) != excess:
                raise IllegalMoveError("Discard Excess Cubes", f"{name} holds {self.held(p)} "
                                       f"cubes and must discard exactly {excess} to keep seven",
                                       move=action)
            raise IllegalMoveError("Discard Excess Cubes", f"{name} does not hold the cubes "
                                   f"{list(action.colours)}", move=action)
        if phase not in ("trade", "build"):
            return
        trading = (Trade, Redraw, TwoForOne, OneForOne, ExtraRandom, ExtraChosen)
        if isinstance(action, trading) and phase == "build":
            raise IllegalMoveError("Trading & Special Abilities", "trading and special abilities "
                                   "come before building; building has begun", move=action)
        if isinstance(action, Trade):
            raise IllegalMoveError("Trading & Special Abilities", f"a 3-for-1 trade needs three "
                                   f"{action.give} cubes and a different colour still in the "
                                   "bag", move=action)
        ability = {Redraw: "redraw", TwoForOne: "two-for-one", OneForOne: "one-for-one",
                   ExtraRandom: "extra-random", ExtraChosen: "extra-chosen"}.get(type(action))
        if ability is not None:
            if ability in self.used:
                raise IllegalMoveError("Special Abilities", f"the {ability} ability may be used "
                                       "exactly once per turn", move=action)
            if ability not in [self.bistro(b).ability for b in self.bistros[p]]:
                raise IllegalMoveError("Special Abilities", f"{name} owns no upscale bistro "
                                       f"with the {ability} ability", move=action)
            raise IllegalMoveError("Special Abilities", f"{name} lacks the cubes, or the bag "
                                   "the colour, that this ability needs", move=action)
        if isinstance(action, BuyPublicity):
            if self.publicity[p] >= len(self.components.publicity_vp):
                raise IllegalMoveError("Publicity", f"{name} has reached the bottom of the "
                                       "publicity column", move=action)
            self._need(p, "publicity", "Publicity", action)
            if action.steal and not self.storage[self.other(p)].get(action.steal):
                raise IllegalMoveError("Publicity", f"the other player holds no {action.steal} "
                                       "cube to steal", move=action)
            raise IllegalMoveError("Publicity", "each publicity after the first this turn "
                                   "either steals a cube or moves the marker, not both; the "
                                   "first moves the marker", move=action)
        if isinstance(action, BuildRestaurant):
            if self.basics[p] >= len(self.components.basic_vp) or not self.tokens_left(p):
                raise IllegalMoveError("Basic Restaurants", f"{name} has no open space or no "
                                       "development token left", move=action)
            self._need(p, "basic_restaurant", "Basic Restaurants", action)
        if isinstance(action, BuildDiner):
            if action.colour in self.diners[p]:
                raise IllegalMoveError("Specialty Diners", "only one specialty diner may be "
                                       f"owned for each specialty; {name} owns the "
                                       f"{action.colour} diner", move=action)
            if not self.basics[p]:
                raise IllegalMoveError("Specialty Diners", "a player with no basic restaurants "
                                       "must build one before building a specialty diner",
                                       move=action)
            self._need(p, "specialty_diner", "Specialty Diners", action)
        if isinstance(action, BuildBistro):
            if action.bistro in self.bistros[p]:
                raise IllegalMoveError("Upscale Bistros", f"{name} has already built the "
                                       f"{action.bistro} bistro", move=action)
            self.bistro(action.bistro)  # an unknown id is named
            if action.diner not in self.diners[p]:
                raise IllegalMoveError("Upscale Bistros", "a bistro upgrades a specialty diner "
                                       f"{name} owns; he has no {action.diner} diner",
                                       move=action)
            self._need(p, "upscale_bistro", "Upscale Bistros", action)

    def _need(self, p: int, what: str, rule: str, action: Action) -> None:
        if not self.can_pay(p, what):
            cost = ", ".join(f"{n} {c}" for c, n in self._cost(p, what).items())
            raise IllegalMoveError(rule, f"{self.names[p]} lacks the cubes: it costs {cost}",
                                   move=action)

    # --- applying -----------------------------------------------------------------------
    def _apply(self, action: Action) -> str:
        # dispatched on the exact class (_check let through only listed moves, and a DrawCubes
        # at a draw): an isinstance test of an Action class costs a Python-level ABC check
        kind = type(action)
        if kind is TakeCube:  # listed only while cubes are picked: the picker takes it
            p = self.picker
            colour, area = action.colour, action.area
            self.areas[area][colour] -= 1
            self.fresh[p][colour] += 1
            self.taken[p] += 1
            self._advance_picker()  # then his take if he has no choice
            return f"{self.names[p]} takes a {colour} cube from the {area} area" + (
                self._settle_pick())
        if self.phase in _CHANCE_PHASES:
            assert isinstance(action, DrawCubes)
            return self._apply_draw(action.colours)
        # current_player(): the picker discards; the active player trades and builds
        p = self.picker if self.phase == "discard" else self.active
        name = self.names[p]
        store = self.storage[p]
        if kind is Discard:
            bag = self.bag
            for c in action.colours:
                store[c] -= 1
                bag[c] += 1
            return f"{name} discards {', '.join(action.colours)}" + self._next_discard()
        if kind is EndBuilding:
            return self._end_building(p)
        if kind not in _BUILDINGS:
            return self._apply_trade(p, action)
        self.phase = "build"
        if kind is BuyPublicity:
            self._pay(p, "publicity")
            self.publicity_bought += 1
            parts = []
            if action.steal:
                victim = self.storage[self.other(p)]
                victim[action.steal] -= 1
                store[action.steal] += 1
                parts.append(f"steals a {action.steal} cube")
            if action.advance:
                self.publicity[p] += 1
                parts.append(f"moves the publicity marker to space {self.publicity[p]}")
            return f"{name} buys publicity" + (": " + " and ".join(parts) if parts else "")
        if kind is BuildRestaurant:
            self._pay(p, "basic_restaurant")
            self.basics[p] += 1
            return f"{name} builds basic restaurant {self.basics[p]}"
        if kind is BuildDiner:
            self._pay(p, "specialty_diner")
            self.basics[p] -= 1
            self.diners[p].append(action.colour)
            self.diners[p].sort(key=self.colours.index)
            return (f"{name} upgrades basic restaurant {self.basics[p] + 1} to the "
                    f"{action.colour} specialty diner")
        assert kind is BuildBistro
        self._pay(p, "upscale_bistro")
        self.diners[p].remove(action.diner)
        self.bistros[p].append(action.bistro)
        return f"{name} upgrades the {action.diner} diner to the {action.bistro} upscale bistro"

    def _apply_trade(self, p: int, action: Action) -> str:
        kind = type(action)
        name = self.names[p]
        store = self.storage[p]
        if kind is Trade:
            store[action.give] -= 3
            self.bag[action.give] += 3
            self._take_from_bag(p, action.take)
            return f"{name} trades three {action.give} cubes for a {action.take} cube"
        if kind is Redraw:
            self.used.append("redraw")
            for c in action.give:
                store[c] -= 1
                self.bag[c] += 1
            self.phase, self.to_draw = "redraw", min(len(action.give), self.bag_size())
            return f"{name} puts {', '.join(action.give)} into the bag to draw as many again"
        if kind is TwoForOne or kind is OneForOne:
            ability = "two-for-one" if kind is TwoForOne else "one-for-one"
            self.used.append(ability)
            give = action.give if isinstance(action, TwoForOne) else (action.give,)
            for c in give:
                store[c] -= 1
                self.bag[c] += 1
            self._take_from_bag(p, action.take)
            return f"{name} ({ability}) puts {' and '.join(give)} into the bag, takes {action.take}"
        if kind is ExtraRandom:
            self.used.append("extra-random")
            self.phase, self.to_draw = "extra", 1
            return f"{name} draws one extra cube"
        assert kind is ExtraChosen
        self.used.append("extra-chosen")
        self._take_from_bag(p, action.take)
        return f"{name} takes one extra {action.take} cube out of the bag"

    def _take_from_bag(self, p: int, colour: str) -> None:
        self.bag[colour] -= 1
        self.storage[p][colour] += 1

    def _apply_draw(self, colours: tuple[str, ...]) -> str:
        bag = self.bag
        self.to_draw = 0
        if self.phase == "production":
            area_of, areas = self._areas(), self.areas
            placed: dict[str, tuple[str, ...]] = {}  # area -> its cubes, in the order drawn
            for c, n in _counts(colours):
                bag[c] -= n
                a = area_of[c]
                areas[a][c] += n
                placed[a] = placed.get(a, ()) + (c,) * n
            if not _together(colours):  # listed cube by cube, as drawn
                placed = {}
                for c in colours:
                    a = area_of[c]
                    placed[a] = placed.get(a, ()) + (c,)
            text = "drawn: " + "; ".join([f"{', '.join(cs)} to the {a} area"
                                          for a, cs in placed.items()])
            self.phase, self.picker = "first-pick", self.active
            return text + self._settle_pick()
        store = self.storage[self.active]
        for c in colours:
            bag[c] -= 1
            store[c] += 1
        self.phase = "trade"
        return f"{self.names[self.active]} draws {', '.join(colours)}"

    def _start_production(self) -> None:
        """Production: one cube per diner and bistro of each player, at most four each."""
        self.phase = "production"
        self.taken = [0, 0]
        limit, diners, bistros = self.components.production_limit, self.diners, self.bistros
        self.to_draw = min(sum(self.bag.values()),  # capacity(0) + capacity(1)
                           min(limit, len(diners[0]) + len(bistros[0]))
                           + min(limit, len(diners[1]) + len(bistros[1])))
        if not self.to_draw:
            self.phase, self.picker = "first-pick", self.active
            self._settle_pick()

    def _advance_picker(self) -> None:
        """After a take: the other player's first choice, then the rest alternately from the
        general area, the active player first."""
        if self.phase != "first-pick":
            self.picker = 1 - self.picker  # the other player
        elif self.picker == self.active:
            self.picker = 1 - self.active
        else:
            self._to_general()

    def _to_general(self) -> None:
        """The remaining cubes are now moved into the general area; the active player picks."""
        self.phase, self.picker = "pick", self.active
        general = self.areas[GENERAL]
        for side in self.sides:
            area = self.areas[side.id]
            for c, n in area.items():
                if n:
                    general[c] += n
                    area[c] = 0

    def _settle_pick(self) -> str:
        """Skip a player who has taken all his cubes; take a cube for a player who has no choice
        (docs: forced takes); when both have all (or none is left), the new cubes go into main
        storage and trading begins."""
        said = ""
        out = 0  # cubes left to take; only a take lessens it
        for cubes in self.areas.values():
            out += sum(cubes.values())
        taken, limit = self.taken, self.components.production_limit
        diners, bistros = self.diners, self.bistros  # capacity(q), written out below
        while out:
            p = self.picker
            need = min(limit, len(diners[p]) + len(bistros[p])) - taken[p]
            if need <= 0:
                if self.phase == "first-pick":
                    self._advance_picker()
                    continue
                q = 1 - p
                if taken[q] >= min(limit, len(diners[q]) + len(bistros[q])):
                    break
                self.picker = q
                continue
            options = self._takes(p)
            # the cube the picker must take, when he has no choice: one colour in one area he
            # may take from, or every cube left is his (the other player has all of his)
            if len(options) != 1 and (self.phase != "pick" or out > need or taken[1 - p] < min(
                    limit, len(diners[1 - p]) + len(bistros[1 - p]))):
                # the picker chooses among these: they are this position's legal actions
                self._legal = options
                return said
            forced = options[0]
            colour, area = forced.colour, forced.area
            self.areas[area][colour] -= 1
            out -= 1
            self.fresh[p][colour] += 1
            taken[p] += 1
            said += f"; {self.names[p]} must take the {colour} cube from the {area} area"
            self._advance_picker()
        return said + self._end_production(out)

    def _end_production(self, out: int) -> str:
        """Both took their cubes (or none is left): what is left (``out`` cubes) goes back
        into the bag, the new cubes into main storage, and trading begins."""
        if out:
            bag = self.bag
            for area_cubes in self.areas.values():
                for c, n in area_cubes.items():
                    if n:
                        bag[c] += n
                        area_cubes[c] = 0
        for p in range(PLAYERS):
            fresh, store = self.fresh[p], self.storage[p]
            for c, n in fresh.items():
                if n:
                    store[c] += n
                    fresh[c] = 0
        self.phase = "trade"
        self.used, self.publicity_bought = [], 0
        return "; the new cubes go into main storage"

    def _end_building(self, p: int) -> str:
        """Calculating Current Score (twelve or more wins), then Discard Excess Cubes."""
        score = self.vp(p)
        self.marker[p] = score
        text = f"{self.names[p]} ends building and scores {score}"
        if score >= self.components.win_score:
            self.phase, self.winner = "over", p
            self.end_reason = f"{self.names[p]} has {score} victory points and wins"
            return text + f"; {self.end_reason}"
        self.phase, self.picker = "discard", p
        return text + self._next_discard()

    def _next_discard(self) -> str:
        """The active player, then the other, discards down to seven; then the next turn."""
        limit, storage = self.components.storage_limit, self.storage
        if sum(storage[self.picker].values()) > limit:  # held()
            return ""
        if self.picker == self.active and sum(storage[1 - self.active].values()) > limit:
            self.picker = 1 - self.active
            return ""
        if self.turn >= MAX_TURNS:
            self.phase = "over"
            self.end_reason = REFEREE_TURN_LIMIT
            return f"; {self.end_reason}"
        self.turn += 1
        self.active = 1 - self.active  # the other player
        self._start_production()
        return f"; {self.names[self.active]}'s turn"

    # --- scores and views ---------------------------------------------------------------
    def scores(self) -> list[Score]:
        """Victory points now: buildings with development tokens plus publicity. The winner
        reached twelve first (the other cannot have); ties only at the referee's limit."""
        out = []
        for p in range(PLAYERS):
            breakdown = self.vp_breakdown(p)
            out.append(Score(p, sum(breakdown.values()), breakdown,
                             (len(self.bistros[p]), len(self.diners[p]))))
        return out

    def view(self, player: int | None) -> dict[str, Any]:
        """Everything lies open (cubes on the resource board, tokens on the development boards);
        the bag shows only how many cubes it holds."""
        cp = self.current_player()
        return {
            "game": GAME_ID,
            "you": None if player is None else self.names[player],
            "turn": self.turn,
            "active": self.names[self.active],
            "phase": self.phase,
            "to_act": self.names[cp] if cp >= 0 else ("table" if cp == CHANCE else None),
            "to_draw": self.to_draw,
            "bag": self.bag_size(),
            "areas": {a: {c: n for c, n in cubes.items() if n} for a, cubes in self.areas.items()},
            "abilities_used": list(self.used),
            "publicity_bought_this_turn": self.publicity_bought,
            "winner": None if self.winner is None else self.names[self.winner],
            "players": [{
                "name": self.names[q],
                "storage": {c: n for c, n in self.storage[q].items() if n},
                "new_cubes": {c: n for c, n in self.fresh[q].items() if n},
                "basic_restaurants": self.basics[q],
                "specialty_diners": list(self.diners[q]),
                "upscale_bistros": list(self.bistros[q]),
                "publicity": self.publicity[q],
                "scoring_marker": self.marker[q],
                "victory_points": self.vp(q),
                "capacity": self.capacity(q),
                "tokens_left": self.tokens_left(q),
            } for q in range(PLAYERS)],
        }

    def cube_places(self) -> dict[str, str]:
        """Where each cube lies (cubes of a colour are alike: numbered in place order)."""
        places: list[tuple[str, dict[str, int]]] = [("bag", self.bag)]
        places += [(f"area:{a}", cubes) for a, cubes in self.areas.items()]
        for q in range(PLAYERS):
            places += [(f"storage:{self.names[q]}", self.storage[q]),
                       (f"new:{self.names[q]}", self.fresh[q])]
        out: dict[str, str] = {}
        label = dict.fromkeys(self.colours, 0)
        for where, cubes in places:
            for c, n in cubes.items():
                for _ in range(n):
                    label[c] += 1
                    out[f"{c}-{label[c]}"] = where
        return out

    def token_places(self) -> dict[str, str]:
        return self.cube_places()

    def check_conservation(self) -> None:
        """The 60 cubes are each in one place; each player's 15 tokens are on or off his board.

        :raises StateFormatError: naming what is wrong.
        """
        seen: list[str] = []
        counts = dict.fromkeys(self.colours, 0)
        groups = [self.bag, *self.areas.values(), *self.storage, *self.fresh]
        for cubes in groups:
            if set(cubes) != set(self.colours) or any(
                    not isinstance(n, int) or n < 0 for n in cubes.values()):
                raise StateFormatError(f"cube counts {cubes} must give each colour "
                                       f"{list(self.colours)} a count of zero or more")
            for c, n in cubes.items():
                for _ in range(n):
                    counts[c] += 1
                    seen.append(f"{c}-{counts[c]}")
        check_each_once(seen, self.components.cube_ids(), "cube")
        for q in range(PLAYERS):
            if self.tokens_left(q) < 0:
                raise StateFormatError(f"{self.names[q]} has more development tokens on the "
                                       "board than the 15 he owns")
            if not 0 <= self.basics[q] <= len(self.components.basic_vp):
                raise StateFormatError(f"{self.names[q]}: {self.basics[q]} basic restaurants")
            if not 0 <= self.publicity[q] <= len(self.components.publicity_vp):
                raise StateFormatError(f"{self.names[q]}: publicity space {self.publicity[q]}")
            if len(set(self.diners[q])) != len(self.diners[q]) or any(
                    d not in self.colours for d in self.diners[q]):
                raise StateFormatError(f"{self.names[q]}: diners {self.diners[q]}")
            if len(set(self.bistros[q])) != len(self.bistros[q]) or any(
                    b not in self.bistro for b in self.bistros[q]):
                raise StateFormatError(f"{self.names[q]}: bistros {self.bistros[q]}")

    # --- persistence --------------------------------------------------------------------
    def _state_json(self) -> dict[str, Any]:
        return {
            "bag": dict(self.bag),
            "storage": [dict(s) for s in self.storage],
            "fresh": [dict(s) for s in self.fresh],
            "areas": {a: dict(c) for a, c in self.areas.items()},
            "basics": list(self.basics),
            "diners": [list(d) for d in self.diners],
            "bistros": [list(b) for b in self.bistros],
            "publicity": list(self.publicity),
            "marker": list(self.marker),
            "active": self.active,
            "turn": self.turn,
            "phase": self.phase,
            "to_draw": self.to_draw,
            "taken": list(self.taken),
            "picker": self.picker,
            "used": list(self.used),
            "publicity_bought": self.publicity_bought,
            "winner": self.winner,
            "end_reason": self.end_reason,
        }

    def _load_state_json(self, d: dict[str, Any]) -> None:
        try:
            self.bag = dict(d["bag"])
            self.storage = [dict(s) for s in d["storage"]]
            self.fresh = [dict(s) for s in d["fresh"]]
            self.areas = {a: dict(c) for a, c in d["areas"].items()}
            self.basics = [int(n) for n in d["basics"]]
            self.diners = [list(x) for x in d["diners"]]
            self.bistros = [list(x) for x in d["bistros"]]
            self.publicity = [int(n) for n in d["publicity"]]
            self.marker = [int(n) for n in d["marker"]]
            self.active = int(d["active"])
            self.turn = int(d["turn"])
            self.phase = str(d["phase"])
            self.to_draw = int(d["to_draw"])
            self.taken = [int(n) for n in d["taken"]]
            self.picker = int(d["picker"])
            self.used = list(d["used"])
            self.publicity_bought = int(d["publicity_bought"])
            self.winner = d["winner"]
            self.end_reason = d["end_reason"]
        except (KeyError, TypeError, ValueError, AttributeError) as exc:
            raise StateFormatError(f"saved Burger Joint position is malformed: {exc!r}") from exc
        if len(self.storage) != PLAYERS or len(self.fresh) != PLAYERS or set(self.areas) != {
                GENERAL, *(s.id for s in self.sides)}:
            raise StateFormatError("saved position needs two storages and the general, burger "
                                   "and pizza areas")
        if self.phase not in (*_CHANCE_PHASES, *_WANTS, "over"):
            raise StateFormatError(f"unknown phase {self.phase!r}")
        self.check_conservation()
        # the counts in colour order, whatever order the file lists them in: the tables of
        # moves are looked up by the counts of a place in colour order
        colours = self.colours
        self.bag = {c: self.bag[c] for c in colours}
        self.storage = [{c: s[c] for c in colours} for s in self.storage]
        self.fresh = [{c: s[c] for c in colours} for s in self.fresh]
        self.areas = {a: {c: cubes[c] for c in colours} for a, cubes in self.areas.items()}
