"""The Alley Cats Game (rulebook: shared/rules/alley-cats.txt).

Each player's cat leaves its home, crosses the wall by one of three alleyways, opens dustbins on the
far side and carries the fish skeletons home; one of each player's four dustbins hides a dog that
chases the cat who opens it. The first player with five fish at home wins.

The board is drawn only in the rulebook's graphics, so it is data (``data/alley_cats.yaml``, marked
provisional): a graph of squares on each side of the wall, the wall's squares, the homes and the
marked dustbin positions. Which dustbin hides a player's dog is that player's secret until a cat
opens it. Readings of unclear sentences: docs/rules/alley-cats.md.
"""

from __future__ import annotations

import functools
from collections import deque
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
    GameState,
    IllegalMoveError,
    Score,
    StateFormatError,
    action,
    check_each_once,
)

GAME_ID = "alley-cats"
DATA_FILE = "alley_cats.yaml"
WEST, EAST = "west", "east"
SUPPLY = "supply"  # a dustbin not yet on the board, a dog not yet hidden
CHASING = "chasing"  # a dog out of its dustbin, chasing a cat
GONE = "gone"  # a dog removed from the game

# referee's endings (docs/rules/alley-cats.md, "Endings")
ALL_FISH_HOME = "every fish skeleton is in a home and no one has five: nothing can change any more"
ROUND_LIMIT = 60
ROUNDS_PLAYED = (f"{ROUND_LIMIT} rounds played without a winner: the referee ends the game, most "
                 "fish at home first")

codec = ActionCodec()


# --- the components, from data ---------------------------------------------------------------


@dataclass(frozen=True)
class Home:
    id: str
    side: str
    entries: tuple[str, ...]


@dataclass(frozen=True)
class WallSquare:
    id: str
    alleyway: str
    ends: dict[str, str]  # side -> the alleyway's last square on that side


@dataclass(frozen=True, eq=False)  # compared (and cached) by identity
class AlleyCatsComponents:
    """Everything in the box (and the provisional board) that the rules need, validated."""

    game: str
    status: str
    guessed: tuple[str, ...]
    colours: tuple[str, ...]
    min_players: int
    max_players: int
    fish_per_player: int
    dustbins_per_player: int
    fish_to_win: int
    die: tuple[int, ...]
    homes: tuple[Home, ...]
    seating: dict[int, tuple[str, ...]]
    wall: tuple[WallSquare, ...]
    squares: dict[str, str]  # square -> side
    neighbours: dict[str, tuple[str, ...]]  # between squares of one side
    dustbin_positions: dict[str, tuple[str, ...]]  # side -> marked squares


_CHECKS = EntryChecks(DATA_FILE)
_fail, _get = _CHECKS.fail, _CHECKS.get


def _whole(value: Any, where: str, expected: int | None = None) -> int:
    if not isinstance(value, int) or isinstance(value, bool):
        raise _fail(where, f"must be a whole number, got {value!r}")
    if expected is not None and value != expected:
        raise _fail(where, f"the rulebook says {expected}, the file says {value}")
    return value


def _names(value: Any, where: str) -> tuple[str, ...]:
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise _fail(where, f"expected a list of names, got {value!r}")
    if len(set(value)) != len(value):
        raise _fail(where, f"names must be unique: {value!r}")
    return tuple(value)


def parse_alley_cats(raw: Any) -> AlleyCatsComponents:
    """Validate the raw YAML data: every fact the rulebook states must hold.

    :raises ComponentError: naming the entry and what is wrong.
    """
    if not isinstance(raw, dict):
        raise _fail("top level", "expected a mapping of sections")
    if _get(raw, "schema", "top level") != 1:
        raise _fail("schema", f"this engine reads schema 1, not {raw['schema']!r}")
    status = _get(raw, "status", "top level")
    if not isinstance(status, str) or "provisional" not in status:
        raise _fail("status", "must say the board is provisional (it is guessed)")
    guessed = _get(raw, "guessed", "top level")
    if not isinstance(guessed, list) or not guessed or not all(isinstance(g, str) for g in guessed):
        raise _fail("guessed", "expected a non-empty list of sentences saying what was guessed")
    # Preparation: "1 cat, 1 dog, 4 fish skeletons and 4 dustbins" each; "1 fish skeleton ...
    # in each of the dustbins"; "the 16 dustbins"; "(2 on each side of the wall)"; "five fish".
    _whole(_get(raw, "cats_per_player", "top level"), "cats_per_player", 1)
    _whole(_get(raw, "dogs_per_player", "top level"), "dogs_per_player", 1)
    fish = _whole(_get(raw, "fish_per_player", "top level"), "fish_per_player", 4)
    bins = _whole(_get(raw, "dustbins_per_player", "top level"), "dustbins_per_player", 4)
    if fish != bins:
        raise _fail("fish_per_player", "one fish skeleton goes in each dustbin: as many as bins")
    full = _whole(_get(raw, "dustbins_on_full_board", "top level"), "dustbins_on_full_board", 16)
    per_side = _whole(_get(raw, "homes_per_side", "top level"), "homes_per_side", 2)
    alleyways = _whole(_get(raw, "alleyways", "top level"), "alleyways", 3)
    to_win = _whole(_get(raw, "fish_to_win", "top level"), "fish_to_win", 5)
    die = _get(raw, "die", "top level")
    if die != [1, 2, 3, 4, 5, 6]:
        raise _fail("die", f"expected the faces [1, 2, 3, 4, 5, 6], got {die!r}")
    sides = _names(_get(raw, "sides", "top level"), "sides")
    if set(sides) != {WEST, EAST}:
        raise _fail("sides", f"the wall has two sides, {WEST} and {EAST}; got {list(sides)}")
    colours = _names(_get(raw, "colours", "top level"), "colours")

    squares: dict[str, str] = {}
    neighbours: dict[str, tuple[str, ...]] = {}
    raw_squares = _get(raw, "squares", "top level")
    if not isinstance(raw_squares, dict) or not raw_squares:
        raise _fail("squares", "expected a mapping square -> {side, next}")
    for sq, entry in raw_squares.items():
        where = f"square {sq!r}"
        side = _get(entry, "side", where)
        if side not in sides:
            raise _fail(where, f"side {side!r} is not one of {list(sides)}")
        squares[str(sq)] = side
        neighbours[str(sq)] = _names(_get(entry, "next", where), f"{where} next")
    for sq, nexts in neighbours.items():
        for other in nexts:
            if other not in squares:
                raise _fail(f"square {sq!r}", f"next square {other!r} is not on the board")
            if squares[other] != squares[sq]:
                raise _fail(f"square {sq!r}", f"next square {other!r} is across the wall: the "
                            "sides meet only at the wall")
            if sq not in neighbours[other]:
                raise _fail(f"square {sq!r}", f"{other!r} is next to it but it is not next to "
                            f"{other!r}: list the step both ways")

    homes: list[Home] = []
    raw_homes = _get(raw, "homes", "top level")
    if not isinstance(raw_homes, list):
        raise _fail("homes", "expected a list")
    for entry in raw_homes:
        ident = str(_get(entry, "id", "home"))
        where = f"home {ident!r}"
        side = _get(entry, "side", where)
        if side not in sides:
            raise _fail(where, f"side {side!r} is not one of {list(sides)}")
        entries = _names(_get(entry, "entries", where), f"{where} entries")
        for sq in entries:
            if squares.get(sq) != side:
                raise _fail(where, f"entry {sq!r} is not a square on the {side} side")
        if ident in squares or any(h.id == ident for h in homes):
            raise _fail(where, "id used twice")
        homes.append(Home(ident, side, entries))
    for side in sides:
        count = sum(h.side == side for h in homes)
        if count != per_side:
            raise _fail("homes", f"{count} homes on the {side} side; the rulebook has "
                        f"{per_side} on each side of the wall")
    if len(homes) * bins != full:
        raise _fail("homes", f"{len(homes)} homes of {bins} dustbins make {len(homes) * bins}, "
                    f"not the rulebook's {full} dustbins")
    if len(colours) != len(homes):
        raise _fail("colours", f"one colour a cat and home: {len(homes)} needed")

    wall: list[WallSquare] = []
    raw_wall = _get(raw, "wall", "top level")
    if not isinstance(raw_wall, list):
        raise _fail("wall", "expected a list")
    for entry in raw_wall:
        ident = str(_get(entry, "id", "wall square"))
        where = f"wall square {ident!r}"
        ends = {}
        for side in sides:
            sq = _get(entry, side, where)
            if squares.get(sq) != side:
                raise _fail(where, f"its {side} end {sq!r} is not a square on the {side} side")
            ends[side] = sq
        if ident in squares:
            raise _fail(where, "id used twice")
        wall.append(WallSquare(ident, str(_get(entry, "alleyway", where)), ends))
    if len(wall) != alleyways or len({w.alleyway for w in wall}) != alleyways:
        raise _fail("wall", f"the rulebook's cats may come off at any one of the {alleyways} "
                    f"alleyways: need {alleyways} wall squares, one an alleyway")

    raw_bins = _get(raw, "dustbin_positions", "top level")
    positions: dict[str, tuple[str, ...]] = {}
    for side in sides:
        marked = _names(_get(raw_bins, side, "dustbin_positions"), f"dustbin_positions {side}")
        for sq in marked:
            if squares.get(sq) != side:
                raise _fail(f"dustbin_positions {side}", f"{sq!r} is not a square on the "
                            f"{side} side: dustbins go on the player's own side of the wall")
        if len(marked) < per_side * bins:
            raise _fail(f"dustbin_positions {side}", f"{len(marked)} positions cannot take the "
                        f"{per_side * bins} dustbins of the {per_side} players of this side")
        positions[side] = marked

    players = _get(raw, "players", "top level")
    least = _whole(_get(players, "min", "players"), "players min")
    most = _whole(_get(players, "max", "players"), "players max")
    if not 2 <= least <= most <= len(homes):
        raise _fail("players", f"need 2 <= min <= max <= {len(homes)} (one home each)")
    by_id = {h.id: h for h in homes}
    seating: dict[int, tuple[str, ...]] = {}
    raw_seating = _get(raw, "seating", "top level")
    for n in range(least, most + 1):
        taken = _names(_get(raw_seating, n, "seating"), f"seating {n}")
        if len(taken) != n or any(h not in by_id for h in taken):
            raise _fail(f"seating {n}", f"expected {n} of the homes {sorted(by_id)}")
        if {by_id[h].side for h in taken} != set(sides):
            raise _fail(f"seating {n}", "players on only one side of the wall: no cat could "
                        "forage (a cat forages only across the wall)")
        seating[n] = taken

    parsed = AlleyCatsComponents(
        game=str(raw.get("game", "The Alley Cats Game")), status=status, guessed=tuple(guessed),
        colours=colours, min_players=least, max_players=most, fish_per_player=fish,
        dustbins_per_player=bins, fish_to_win=to_win, die=tuple(die), homes=tuple(homes),
        seating=seating, wall=tuple(wall), squares=squares, neighbours=neighbours,
        dustbin_positions=positions)
    board = Board(parsed)
    for home in homes:  # a cat must reach the far side's bins and come home again
        far = positions[EAST if home.side == WEST else WEST]
        reached = board.cat_distances(home.id)
        for sq in far:
            if reached.get((sq, None)) is None:
                raise _fail(f"home {home.id!r}", f"its cat cannot reach the dustbin position "
                            f"{sq!r} and come home")
    return parsed


def load_alley_cats(path: str | Path | None = None) -> AlleyCatsComponents:
    """Load and validate a component list; the shipped one by default.

    :raises ComponentError: if the file is unreadable or malformed.
    """
    raw = read_component_list(DATA_FILE, path)
    return parse_alley_cats(raw)


@functools.lru_cache(maxsize=1)
def alley_cats() -> AlleyCatsComponents:
    """The shipped component list, loaded and validated once."""
    return load_alley_cats()


# --- the board: steps and reachability ------------------------------------------------------

Place = tuple[str, str | None]  # (node, heading on the wall or None)
_ON_THE_WALL = "<the wall>"  # marks a path that has used the wall (no square has this id)


def other_side(side: str) -> str:
    return EAST if side == WEST else WEST


class Board:
    """The board's graph, and the places a cat or a dog reaches with a throw (cached: the
    same start, throw and home give the same places in every game)."""

    def __init__(self, components: AlleyCatsComponents) -> None:
        self.c = components
        self.side = dict(components.squares)
        self.homes = {h.id: h for h in components.homes}
        self.wall = {w.id: w for w in components.wall}
        self._cache: dict[tuple[Any, ...], Any] = {}
        # (square, heading, home, throw, dustbins the cat may open) -> (the cat's moves before
        # prowling, the squares they end on): the same in every game on this board
        self.moves: dict[tuple[Any, ...], Any] = {}
        # square -> the steps off it: squares, home entries, wall squares with the heading
        self._square_steps: dict[str, tuple[Place, ...]] = {}
        for sq, nexts in components.neighbours.items():
            steps: list[Place] = [(n, None) for n in nexts]
            steps += [(h.id, None) for h in components.homes if sq in h.entries]
            steps += [(w.id, other_side(self.side[sq])) for w in components.wall
                      if w.ends[self.side[sq]] == sq]
            self._square_steps[sq] = tuple(steps)
        self.bin_side = {sq: side for side, marked in components.dustbin_positions.items()
                         for sq in marked}

    def is_wall(self, node: str) -> bool:
        return node in self.wall

    def knows(self, node: str) -> bool:
        return node in self.side or node in self.homes or node in self.wall

    def steps(self, node: str, heading: str | None, *, dog: bool) -> tuple[Place, ...]:
        """One move on. The wall: "To get onto the wall is one move and to come off is one
        move. Cats may come off at any one of the three alleyways" ... "he must not turn
        back"; "A dog cannot move along the wall but must go straight across"."""
        if node in self.homes:
            return tuple((sq, None) for sq in self.homes[node].entries)
        if node in self.wall:
            assert heading is not None
            if dog:
                return ((self.wall[node].ends[heading], None),)
            return tuple((w.ends[heading], None) for w in self.c.wall)
        return self._square_steps[node]

    def reach(self, start: str, heading: str | None, home: str, *, dog: bool
              ) -> tuple[frozenset[Place], ...]:
        """Index k (1..6): the places at the end of a path of exactly k moves from ``start``
        that uses no square twice ("cannot retrace their steps and use the same square twice
        in any one throw"). ``home`` is the one home that may be entered (the cat's own, or
        the chased cat's for a dog); entering it ends the path. Index 0 is empty.

        The wall counts as one place: a cat "may move freely along the wall" and "must not
        turn back", so a path that has been on the wall never climbs onto it again (it would
        cross back the way it came)."""
        key = (start, heading, home, dog)
        found = self._cache.get(key)
        if found is not None:
            return found  # type: ignore[no-any-return]
        top = max(self.c.die)
        ends: list[set[Place]] = [set() for _ in range(top + 1)]
        homes = self.homes

        wall = self.wall

        def walk(node: str, head: str | None, used: set[str], k: int) -> None:
            for nxt, nhead in self.steps(node, head, dog=dog):
                if nxt in used or (nxt in wall and _ON_THE_WALL in used):
                    continue
                if nxt in homes:
                    if nxt == home:
                        ends[k + 1].add((nxt, None))
                    continue
                ends[k + 1].add((nxt, nhead))
                if k + 1 < top:
                    marks = (nxt, _ON_THE_WALL) if nxt in wall else (nxt,)
                    used.update(marks)
                    walk(nxt, nhead, used, k + 1)
                    used.difference_update(marks)

        walk(start, heading, {start, _ON_THE_WALL} if start in wall else {start}, 0)
        result = tuple(frozenset(e) for e in ends)
        self._cache[key] = result
        return result

    def cat_ends(self, start: str, heading: str | None, home: str, n: int
                 ) -> tuple[tuple[str, str | None, bool], ...]:
        """The places a throw of ``n`` may end a cat's move: (node, heading, exact) for the
        ends of paths of exactly ``n`` and the nearer ones (where only a dustbin or the home
        stops a move short), in a fixed order."""
        key = ("ends", start, heading, home, n)
        found = self._cache.get(key)
        if found is not None:
            return found  # type: ignore[no-any-return]
        reach = self.reach(start, heading, home, dog=False)
        exact = reach[n]
        nearer = {e for k in range(1, n) for e in reach[k]} - exact
        ends = sorted([(node, head, True) for node, head in exact]
                      + [(node, head, False) for node, head in nearer],
                      key=lambda e: (e[0], e[1] or ""))
        result = tuple(ends)
        self._cache[key] = result
        return result

    def cat_distances(self, home: str) -> dict[Place, int]:
        """Fewest moves from each place to ``home`` for its cat (None if it cannot)."""
        key = ("distances", home)
        found = self._cache.get(key)
        if found is not None:
            return found  # type: ignore[no-any-return]
        places: list[Place] = [(sq, None) for sq in self.side]
        places += [(w, h) for w in self.wall for h in (WEST, EAST)]
        places.append((home, None))
        # backwards breadth-first search from the home over the cat's steps
        into: dict[Place, list[Place]] = {p: [] for p in places}
        for p in places:
            if p[0] == home:
                continue
            for q in self.steps(p[0], p[1], dog=False):
                if q[0] in self.homes and q[0] != home:
                    continue
                into.setdefault(q, []).append(p)
        dist: dict[Place, int] = {(home, None): 0}
        queue = deque([(home, None)])
        while queue:
            p = queue.popleft()
            for q in into.get(p, ()):
                if q not in dist:
                    dist[q] = dist[p] + 1
                    queue.append(q)
        self._cache[key] = dist
        return dist


@functools.lru_cache(maxsize=4)
def _board(components: AlleyCatsComponents) -> Board:
    return Board(components)


# --- actions -------------------------------------------------------------------------------


@action(codec, "roll", "throw {value}")
class Roll(Action):
    """Chance: the number the die shows."""

    value: int


_ROLLS: dict[int, Roll] = {}  # each throw's action, made once
_THROWS = frozenset({"roll", "dog-roll", "start"})  # the steps where the die is thrown


@action(codec, "place-bin", "place a dustbin on {square}")
class PlaceBin(Action):
    """Preparation: one of your dustbins on a marked position on your side of the wall."""

    square: str


@action(codec, "hide-dog", "hide the dog in the dustbin on {square}")
class HideDog(Action):
    """Preparation, behind the screen: your dog hides in your dustbin on this square."""

    square: str


@action(codec, "move-cat")
class MoveCat(Action):
    """Move your cat with the throw to ``to`` (a wall square with the ``heading`` it keeps);
    ``open_bin``: open the dustbin there and take its fish; ``steal``: the colour of a cat
    on the square whose fish you steal (prowling)."""

    to: str
    heading: str | None = None
    open_bin: bool = False
    steal: str | None = None

    def __str__(self) -> str:
        text = f"cat to {self.to}" + (f" heading {self.heading}" if self.heading else "")
        if self.steal:
            text += f", steal a fish from {self.steal}"
        if self.open_bin:
            text += ", open the dustbin"
        return text


_MOVES: dict[tuple[str, str | None, bool, str | None], MoveCat] = {}


def _move(to: str, heading: str | None, open_bin: bool, steal: str | None) -> MoveCat:
    """A cat's move, made once (moves are listed at every turn of every game)."""
    key = (to, heading, open_bin, steal)
    move = _MOVES.get(key)
    if move is None:
        move = _MOVES[key] = MoveCat(to, heading, open_bin, steal)
    return move


@action(codec, "move-dog")
class MoveDog(Action):
    """Move the chasing dog with the throw to ``to``."""

    to: str
    heading: str | None = None

    def __str__(self) -> str:
        return f"dog to {self.to}" + (f" heading {self.heading}" if self.heading else "")


@action(codec, "stuck", "no path takes the throw in full: stay")
class Stuck(Action):
    """The piece has no path that takes the throw in full; it stays (referee's reading)."""


# --- the game ------------------------------------------------------------------------------


@dataclass
class Chase:
    """A dog out of its dustbin: whose it is, where it is, whose fish it guards."""

    cat: int  # the player whose cat opened the dustbin
    dog: int  # the dog's owner
    thrower: int  # "the player on the right throws the dice for the dog"
    at: str
    heading: str | None
    fish: str


class AlleyCatsState(GameState):
    """One game of The Alley Cats Game, 2 to 4 players."""

    GAME_ID: ClassVar[str] = GAME_ID
    TIEBREAKS: ClassVar[tuple[str, ...]] = ("more fish still carried",)
    REFEREE_ENDINGS: ClassVar[frozenset[str]] = frozenset({ALL_FISH_HOME, ROUNDS_PLAYED})
    codec: ClassVar[ActionCodec] = codec
    SEAT_COLOURS: ClassVar[tuple[str, ...]] = alley_cats().colours
    _SHARED: ClassVar[frozenset[str]] = GameState._SHARED | {"board"}

    def __init__(self, players: int, seed: int, options: dict[str, Any],
                 components: AlleyCatsComponents) -> None:
        super().__init__(players, seed, options)
        self.components = components
        self.board = _board(components)
        self.names: list[str] = list(options["colours"])
        self.home: list[str] = list(components.seating[players])
        self.home_side = [self.board.homes[h].side for h in self.home]
        per = components.dustbins_per_player
        self.bin_ids = [[f"{c}-bin-{k}" for k in range(1, per + 1)] for c in self.names]
        self.fish_ids = [[f"{c}-fish-{k}" for k in range(1, per + 1)] for c in self.names]
        self.bin_owner = {b: p for p in range(players) for b in self.bin_ids[p]}
        # what moves
        self.bin_square: dict[str, str | None] = {b: None for bs in self.bin_ids for b in bs}
        self.bin_fish: dict[str, str | None] = {
            b: f for p in range(players) for b, f in zip(self.bin_ids[p], self.fish_ids[p],
                                                         strict=True)}
        self.opened: list[str] = []  # dustbins opened so far (what they held is known)
        self.dog_found: dict[str, bool] = {}  # opened dustbin -> whether a dog was in it
        self.dog: list[str] = [SUPPLY] * players  # SUPPLY, a bin id, CHASING or GONE
        self.cat_at: list[str] = list(self.home)
        self.cat_heading: list[str | None] = [None] * players
        self.carried: list[list[str]] = [[] for _ in range(players)]
        self.at_home: list[list[str]] = [[] for _ in range(players)]
        self.foraged = [False] * players  # opened a dustbin on this journey
        self.step = "place"  # place, hide, start, roll, move, dog-roll, dog-move, over
        self.turn = 0  # whose turn (the cat's player)
        self.roll = 0
        self.start_rolls: dict[int, int | None] = {p: None for p in range(players)}
        self.chase: Chase | None = None
        self.turns = 0  # turns begun since the first player started
        self.end_reason: str | None = None
        self._bin_at_cache: dict[str, str] | None = None
        self._far_cache: dict[str, frozenset[str]] = {}

    @classmethod
    def new(cls, players: int, seed: int, **options: Any) -> AlleyCatsState:
        components: AlleyCatsComponents = options.pop("components", None) or alley_cats()
        if not components.min_players <= players <= components.max_players:
            raise ValueError(f"The Alley Cats Game is for {components.min_players} to "
                             f"{components.max_players} players, not {players}")
        colours = list(options.pop("colours", None) or components.colours[:players])
        if len(colours) != players or len(set(colours)) != players or any(
                c not in components.colours for c in colours):
            raise ValueError(f"need {players} different colours from "
                             f"{list(components.colours)}, got {colours}")
        if options:
            raise ValueError(f"The Alley Cats Game has no option {sorted(options)}")
        return cls(players, seed, {"colours": colours}, components)

    @classmethod
    def player_counts(cls) -> tuple[int, int]:
        """How many may play, as the component list says."""
        components = alley_cats()
        return components.min_players, components.max_players

    # --- helpers ------------------------------------------------------------------------
    def player_name(self, player: int) -> str:
        return self.names[player]

    def right_of(self, player: int) -> int:
        """The player on the immediate right: the dice go left, clockwise, so the right is the
        one before in seat order."""
        return (player - 1) % self.players

    @property
    def bin_at(self) -> dict[str, str]:
        """Square -> the dustbin on it."""
        if self._bin_at_cache is None:
            self._bin_at_cache = {sq: b for b, sq in self.bin_square.items() if sq is not None}
        return self._bin_at_cache

    def fish_at_home(self, player: int) -> int:
        return len(self.at_home[player])

    def cats_on(self, node: str, but: int) -> list[int]:
        """The other cats on a square (a home is not a square)."""
        if node in self.board.homes:
            return []
        return [q for q in range(self.players) if q != but and self.cat_at[q] == node]

    def may_forage(self, player: int, square: str) -> bool:
        """A dustbin this cat may open: across the wall ("a cat cannot forage in a dustbin on his
        own side"), and none opened yet on this journey ("Cats cannot take fish from more
        than one dustbin during the same journey")."""
        return (not self.foraged[player] and square in self.bin_at
                and self.board.side.get(square) != self.home_side[player])

    # --- who acts -----------------------------------------------------------------------
    def current_player(self) -> int:
        step = self.step
        if step in _THROWS:
            return CHANCE
        if step == "move":
            return self.turn
        if step == "dog-move":
            assert self.chase is not None
            return self.chase.thrower
        if step == "place":
            placed = sum(sq is not None for sq in self.bin_square.values())
            return placed % self.players
        if step == "hide":
            return self.dog.index(SUPPLY)
        return TERMINAL

    def is_terminal(self) -> bool:
        return self.step == "over"

    def thrower(self) -> int:
        """Who throws the die at a chance step."""
        if self.step == "start":
            return next(p for p, v in self.start_rolls.items() if v is None)
        if self.step == "dog-roll":
            assert self.chase is not None
            return self.chase.thrower
        return self.turn

    # --- chance -------------------------------------------------------------------------
    def chance_outcomes(self) -> list[tuple[Action, float]]:
        if self.current_player() != CHANCE:
            return []
        faces = self.components.die
        return [(Roll(v), 1 / len(faces)) for v in faces]

    def sample_chance(self) -> Action:
        if self.step not in _THROWS:
            raise IllegalMoveError("turn order", "no die throw is pending")
        value = self.rng.next().choice(self.components.die)
        roll = _ROLLS.get(value)
        if roll is None:
            roll = _ROLLS[value] = Roll(value)
        return roll

    # --- legal moves --------------------------------------------------------------------
    def _compute_legal(self) -> list[Action]:
        step = self.step
        if step == "move":
            return self._cat_moves(self.turn)
        if step == "dog-move":
            return self._dog_moves()
        if step == "place":
            p = self.current_player()
            taken = self.bin_at
            return [PlaceBin(sq) for sq in self.components.dustbin_positions[self.home_side[p]]
                    if sq not in taken]
        if step == "hide":
            p = self.current_player()
            return [HideDog(sq) for sq in sorted(self.bin_square[b] or "" for b in self.bin_ids[p])]
        return []

    def _cat_moves(self, p: int) -> list[Action]:
        """Paths of exactly the throw, or shorter to a dustbin the cat opens ("The number thrown
        must be taken in full, except when you reach a dustbin") or into its home; and on a
        square with a cat carrying fish, the same move stealing one ("GO ON THE PROWL")."""
        far = frozenset() if self.foraged[p] else self._far_bins(p)
        if self.chase is None:
            key = (self.cat_at[p], self.cat_heading[p], self.home[p], self.roll, far)
            found = self.board.moves.get(key)
            if found is None:
                found = self.board.moves[key] = self._base_moves(p, far, chasing=False)
        else:
            found = self._base_moves(p, far, chasing=True)
        base, ends = found
        if not base:
            return [Stuck()]
        victims: dict[str, list[str]] = {}
        for q in range(self.players):
            if q != p and self.carried[q] and self.cat_at[q] in ends:
                victims.setdefault(self.cat_at[q], []).append(self.names[q])
        if not victims:
            return list(base)
        moves: list[Action] = []
        for move in base:
            moves.append(move)
            for victim in victims.get(move.to, ()):
                moves.append(_move(move.to, move.heading, move.open_bin, victim))
        return moves

    def _base_moves(self, p: int, far: frozenset[str], *, chasing: bool
                    ) -> tuple[tuple[MoveCat, ...], frozenset[str]]:
        """The cat's moves with this throw before any prowling, and the squares they end on."""
        home = self.home[p]
        ends = self.board.cat_ends(self.cat_at[p], self.cat_heading[p], home, self.roll)
        if chasing:  # "the cat ... moves towards home"
            dist = self.board.cat_distances(home)
            start = dist[(self.cat_at[p], self.cat_heading[p])]
            ends = tuple(e for e in ends if dist.get((e[0], e[1]), start) < start)
        moves: list[MoveCat] = []
        for node, head, exact in ends:
            if node in far:
                if exact:
                    moves.append(_move(node, head, False, None))
                moves.append(_move(node, head, True, None))
            elif exact or node == home:
                moves.append(_move(node, head, False, None))
        return tuple(moves), frozenset(m.to for m in moves)

    def _far_bins(self, p: int) -> frozenset[str]:
        """The squares of the dustbins across the wall from this player's home."""
        side = self.home_side[p]
        cached = self._far_cache.get(side)
        if cached is None:
            cached = frozenset(sq for sq in self.bin_at if self.board.side[sq] != side)
            self._far_cache[side] = cached
        return cached

    def _dog_moves(self) -> list[Action]:
        chase = self.chase
        assert chase is not None
        target = self.home[chase.cat]
        reach = self.board.reach(chase.at, chase.heading, target, dog=True)
        ends = set(reach[self.roll])
        if any((target, None) in reach[k] for k in range(1, self.roll)):
            ends.add((target, None))  # "If the dog gets to the cat's home first"
        return [MoveDog(node, head) for node, head in sorted(ends, key=lambda e: (e[0], e[1] or ""))
                ] or [Stuck()]

    # --- checking -----------------------------------------------------------------------
    def _check(self, action: Action) -> None:
        actor = self.current_player()
        if type(action) is Roll:
            if actor != CHANCE:
                raise IllegalMoveError("turn order", f"no die throw is pending: waiting for "
                                       f"{self._waiting_for()}", move=action)
            if action.value not in self.components.die:
                raise ChanceOutcomeError("the die", f"a die shows 1 to 6, not {action.value}",
                                         move=action)
            return
        if actor == CHANCE:
            raise IllegalMoveError("turn order", f"{self.player_name(self.thrower())} must "
                                   "throw the die first", move=action)
        legal = self._legal if self._legal is not None else self.legal_actions()
        # most often the move is one of the listed objects itself: found by identity, without
        # a dataclass __eq__ for each move listed before it
        for listed in legal:
            if listed is action:
                return
        if action in legal:
            return
        raise self._why_illegal(action)

    def _waiting_for(self) -> str:
        step = self.step
        if step == "move":
            return f"{self.player_name(self.turn)} to move the cat"
        if step == "dog-move":
            assert self.chase is not None
            return f"{self.player_name(self.chase.thrower)} to move the dog"
        if step in ("place", "hide"):
            return f"{self.player_name(self.current_player())} to prepare"
        return "nobody: the game is over"

    def _why_illegal(self, action: Action) -> IllegalMoveError:
        step = self.step
        expected = {"place": PlaceBin, "hide": HideDog, "move": MoveCat, "dog-move": MoveDog}
        if not isinstance(action, expected.get(step, ())) and not isinstance(action, Stuck):
            return IllegalMoveError("turn order", f"not now: waiting for {self._waiting_for()}",
                                    move=action)
        if isinstance(action, Stuck):
            return IllegalMoveError("the number thrown must be taken in full", "a path takes "
                                    "the throw in full: the piece must move", move=action)
        if isinstance(action, PlaceBin):
            p = self.current_player()
            if action.square in self.bin_at:
                return IllegalMoveError("preparation", f"a dustbin already stands on "
                                        f"{action.square}", move=action)
            return IllegalMoveError(
                "preparation", f"{action.square} is not a marked dustbin position on "
                f"{self.player_name(p)}'s own side of the wall ({self.home_side[p]})", move=action)
        if isinstance(action, HideDog):
            return IllegalMoveError("preparation", f"{action.square} holds none of "
                                    f"{self.player_name(self.current_player())}'s dustbins: "
                                    "hide the dog in one of your four", move=action)
        if isinstance(action, MoveDog):
            return self._why_dog(action)
        assert isinstance(action, MoveCat)
        return self._why_cat(action)

    def _why_cat(self, move: MoveCat) -> IllegalMoveError:
        p = self.turn
        if not self.board.knows(move.to):
            return IllegalMoveError("the board", f"there is no square {move.to!r} on the board",
                                    move=move)
        if self.board.is_wall(move.to) != (move.heading in (WEST, EAST)):
            return IllegalMoveError("the wall", "a cat on the wall heads west or east (give the "
                                    "heading), and only a cat on the wall has a heading",
                                    move=move)
        if move.to in self.board.homes and move.to != self.home[p]:
            return IllegalMoveError("the board", f"{move.to} is another cat's home; a cat goes "
                                    "home only to its own", move=move)
        if move.open_bin:
            if move.to not in self.bin_at:
                return IllegalMoveError("dustbins", f"no dustbin stands on {move.to}", move=move)
            if self.board.side.get(move.to) == self.home_side[p]:
                return IllegalMoveError("a cat cannot forage in a dustbin on his own side of "
                                        "the wall", f"{move.to} is on the {self.home_side[p]} "
                                        "side, the cat's own", move=move)
            if self.foraged[p]:
                return IllegalMoveError("cats cannot take fish from more than one dustbin "
                                        "during the same journey", "this cat has opened a "
                                        "dustbin since it left home", move=move)
        if move.steal is not None:
            victims = [self.names[q] for q in self.cats_on(move.to, p) if self.carried[q]]
            if move.steal not in victims:
                return IllegalMoveError("go on the prowl", f"no cat carrying a fish is on "
                                        f"{move.to} as {move.steal}", move=move)
        plain = MoveCat(move.to, move.heading, move.open_bin)
        chasing = self.chase is not None
        if chasing:
            self.chase, saved = None, self.chase
            free = plain in self._cat_moves(p)
            self.chase = saved
            if free:
                return IllegalMoveError("dog chase: the cat moves towards home", f"{move.to} is "
                                        "no nearer the cat's home", move=move)
        reach = self.board.reach(self.cat_at[p], self.cat_heading[p], self.home[p], dog=False)
        shorter = any((move.to, move.heading) in reach[k] for k in range(1, self.roll))
        if shorter and not move.open_bin:
            return IllegalMoveError("the number thrown must be taken in full, except when you "
                                    "reach a dustbin", f"{move.to} is nearer than "
                                    f"{self.roll}: stop short only to open a dustbin there",
                                    move=move)
        if self.board.is_wall(self.cat_at[p]):
            return IllegalMoveError(
                "the wall: continue in the same direction, do not turn back",
                f"the cat on the wall heads {self.cat_heading[p]}: no path of {self.roll} "
                f"to {move.to} {move.heading or ''}".rstrip(), move=move)
        return IllegalMoveError("cats cannot retrace their steps and use the same square twice "
                                "in any one throw", f"no path of exactly {self.roll} squares "
                                f"from {self.cat_at[p]} to {move.to} "
                                f"{move.heading or ''}".rstrip(), move=move)

    def _why_dog(self, move: MoveDog) -> IllegalMoveError:
        chase = self.chase
        assert chase is not None
        if not self.board.knows(move.to):
            return IllegalMoveError("the board", f"there is no square {move.to!r} on the board",
                                    move=move)
        if self.board.is_wall(chase.at):
            return IllegalMoveError("a dog cannot move along the wall but must go straight "
                                    "across", f"from {chase.at} the dog comes off at its own "
                                    "alleyway", move=move)
        return IllegalMoveError("the number thrown must be taken in full", f"no path of exactly "
                                f"{self.roll} squares from {chase.at} to {move.to}", move=move)

    # --- applying -----------------------------------------------------------------------
    def _private_to(self, action: Action) -> int | None:
        if type(action) is HideDog:
            return self.current_player()
        return None

    def _public_text(self, action: Action) -> str:
        return f"{self.player_name(self.current_player())} hides a dog"

    def _apply(self, action: Action) -> str | tuple[str, str]:
        kind = type(action)
        if kind is Roll:
            return self._apply_roll(action.value)  # type: ignore[attr-defined]
        if kind is MoveCat:
            return self._apply_cat(action)  # type: ignore[arg-type]
        if isinstance(action, PlaceBin):
            p = self.current_player()
            b = next(b for b in self.bin_ids[p] if self.bin_square[b] is None)
            self.bin_square[b] = action.square
            self._bin_at_cache = None
            self._far_cache = {}
            if all(sq is not None for sq in self.bin_square.values()):
                self.step = "hide"
            return f"{self.names[p]} places a dustbin on {action.square}"
        if isinstance(action, HideDog):
            p = self.current_player()
            self.dog[p] = self.bin_at[action.square]
            if SUPPLY not in self.dog:
                self.step = "start"
            return (f"{self.names[p]} hides the dog in the dustbin on {action.square}",
                    f"{self.names[p]} hides a dog")
        if isinstance(action, MoveDog):
            return self._apply_dog(action)
        assert isinstance(action, Stuck)
        if self.step == "dog-move":
            self.step = "roll"
            return "the dog cannot take the throw in full and stays"
        text = f"{self.names[self.turn]}'s cat cannot take the throw in full and stays"
        if self.chase is not None:
            self.step = "dog-roll"
            return text
        return text + self._pass_turn()

    def _apply_roll(self, value: int) -> str:
        who = self.thrower()
        if self.step == "start":
            self.start_rolls[who] = value
            text = f"{self.names[who]} throws {value} to see who starts"
            if any(v is None for v in self.start_rolls.values()):
                return text
            top = max(v for v in self.start_rolls.values() if v is not None)
            tied = [p for p, v in self.start_rolls.items() if v == top]
            if len(tied) > 1:  # the tied players throw again
                self.start_rolls = {p: None for p in tied}
                return text + f"; {', '.join(self.names[p] for p in tied)} tie and throw again"
            self.turn = tied[0]
            self.step = "roll"
            return text + f"; {self.names[self.turn]} starts"
        self.roll = value
        if self.step == "dog-roll":
            self.step = "dog-move"
            return f"{self.names[who]} throws {value} for the dog"
        self.step = "move"
        return f"{self.names[who]} throws {value}"

    def _apply_cat(self, move: MoveCat) -> str:
        p = self.turn
        name = self.names[p]
        self.cat_at[p] = move.to
        self.cat_heading[p] = move.heading
        if move.to == self.home[p]:
            return self._cat_home(p)
        text = f"{name}'s cat goes to {move.to}"
        if move.heading:
            text += f" on the wall, heading {move.heading}"
        others = self.cats_on(move.to, p)
        if move.steal is not None:  # "he may steal it and then throw the dice again"
            victim = self.names.index(move.steal)
            self.carried[p].append(self.carried[victim].pop())
            text += f" and steals a fish from {move.steal}'s cat"
        chased_before = self.chase is not None
        if move.open_bin:
            text += self._open_bin(p, move.to)
            if self.chase is not None and not chased_before:
                self.step = "roll"  # "The dice is thrown and the cat ... moves towards home"
                return text
        if self.chase is not None:
            dog_here = self.chase.at == move.to
            if others or dog_here:  # "he gets an extra throw ... This rule does not apply to
                self.step = "roll"  # the dog"
                return text + "; an extra throw"
            self.step = "dog-roll"
            return text + f"; {self.names[self.chase.thrower]} throws for the dog"
        if others:  # "lands on a square already occupied by another cat ... an extra throw"
            self.step = "roll"
            return text + "; an extra throw"
        return text + self._pass_turn()

    def _open_bin(self, p: int, square: str) -> str:
        """The lid comes off: what it holds becomes known to all (a reveal)."""
        b = self.bin_at[square]
        self._reveals = True
        self.foraged[p] = True
        owner = self.bin_owner[b]
        if b not in self.opened:
            self.opened.append(b)
            self.dog_found[b] = self.dog[owner] == b
        fish = self.bin_fish[b]
        self.bin_fish[b] = None
        if fish is not None:
            self.carried[p].append(fish)
        if self.dog[owner] == b:
            self.dog[owner] = CHASING
            assert fish is not None
            self.chase = Chase(cat=p, dog=owner, thrower=self.right_of(p), at=square,
                               heading=None, fish=fish)
            return (f", opens {self.names[owner]}'s dustbin and takes the fish: "
                    f"{self.names[owner]}'s dog! {self.names[self.right_of(p)]} throws for "
                    "the dog")
        if fish is not None:
            return f", opens {self.names[owner]}'s dustbin and takes the fish"
        return f", opens {self.names[owner]}'s dustbin: empty"

    def _cat_home(self, p: int) -> str:
        """Home: the fish carried are brought home; a journey ends; a chase is over."""
        fish = self.carried[p]
        self.at_home[p] += fish
        self.carried[p] = []
        self.foraged[p] = False
        text = f"{self.names[p]}'s cat gets home with {len(fish)} fish"
        if self.chase is not None:  # "the dog gives up and is removed from the game"
            self.dog[self.chase.dog] = GONE
            self.chase = None
            text += "; the dog gives up and is removed from the game"
        return text + self._after_fish(p)

    def _apply_dog(self, move: MoveDog) -> str:
        chase = self.chase
        assert chase is not None
        chase.at, chase.heading = move.to, move.heading
        cat = chase.cat
        text = f"the dog goes to {move.to}"
        caught = move.to == self.home[cat] or (
            move.to == self.cat_at[cat] and not self.board.is_wall(move.to))
        if not caught:
            if move.to == self.cat_at[cat]:
                text += " (the cat is on the wall: the dog cannot catch it)"
            self.step = "roll"
            return text
        # "the fish goes to the player who moved the dog ... The dog is removed"
        self.carried[cat].remove(chase.fish)
        self.at_home[chase.thrower].append(chase.fish)
        self.dog[chase.dog] = GONE
        self.chase = None
        how = "gets to the cat's home first" if move.to == self.home[cat] else "catches the cat"
        text += (f" and {how}: the fish goes to {self.names[chase.thrower]}; the dog is "
                 "removed from the game")
        return text + self._after_fish(chase.thrower)

    def _after_fish(self, p: int) -> str:
        """A fish came home: five wins; otherwise play passes on."""
        if self.fish_at_home(p) >= self.components.fish_to_win:
            self.step = "over"
            self.end_reason = (f"{self.names[p]} has brought {self.components.fish_to_win} fish "
                               "skeletons home")
            return f"; {self.end_reason}"
        if all(not c for c in self.carried) and all(f is None for f in self.bin_fish.values()):
            self.step = "over"
            self.end_reason = ALL_FISH_HOME
            return f"; {self.end_reason}"
        return self._pass_turn()

    def _pass_turn(self) -> str:
        """"the dice is passed to the player on his immediate left", clockwise."""
        self.turn = (self.turn + 1) % self.players
        self.turns += 1
        if self.turns >= ROUND_LIMIT * self.players:
            self.step = "over"
            self.end_reason = ROUNDS_PLAYED
            return f"; {ROUNDS_PLAYED}"
        self.step = "roll"
        return ""

    # --- scores and views ---------------------------------------------------------------
    def scores(self) -> list[Score]:
        """"The first player to bring five fish skeletons back to his home wins": fish at home;
        the tie-breaker (referee's endings only): fish still carried."""
        return [Score(p, self.fish_at_home(p), {"fish_home": self.fish_at_home(p)},
                      (len(self.carried[p]),)) for p in range(self.players)]

    def _dog_seen(self, viewer: int | None, b: str) -> bool | None:
        """Whether this dustbin holds (or held) a dog, as the viewer may know it: everyone once
        a cat found the dog there; its owner once the dog is hidden; else None. An opened bin
        that held no dog reads like any other: its lid is back on ("you will have to remember
        which bins are empty")."""
        if b in self.opened and self.dog_found[b]:
            return True
        owner = self.bin_owner[b]
        if viewer != owner or self.dog[owner] == SUPPLY:
            return None
        return self.dog[owner] == b

    def view(self, player: int | None) -> dict[str, Any]:
        """What a player sees: the board, the cats and the dustbins with their lids on (which
        were emptied is for the players to remember); a dog's hiding place only if it is the
        viewer's own or a cat found it."""
        bins = []
        for b, sq in sorted(self.bin_square.items(), key=lambda i: (i[1] or "", i[0])):
            if sq is None:
                continue
            bins.append({"square": sq, "owner": self.names[self.bin_owner[b]],
                         "dog": self._dog_seen(player, b)})
        cats = {}
        for q in range(self.players):
            cats[self.names[q]] = {
                "at": self.cat_at[q], "heading": self.cat_heading[q],
                "carrying": len(self.carried[q]), "home": self.fish_at_home(q),
                "foraged": self.foraged[q],
                "dog": {SUPPLY: "not hidden", CHASING: "chasing", GONE: "gone"}.get(
                    self.dog[q], "hidden"),
            }
        chase = self.chase
        cp = self.current_player()
        return {
            "game": GAME_ID,
            "you": None if player is None else self.names[player],
            "step": self.step,
            "turn": self.names[self.turn],
            "to_act": (self.names[cp] if cp >= 0 else ("table" if cp == CHANCE else None)),
            "throw": self.roll if self.step in ("move", "dog-move") else None,
            "cats": cats,
            "dustbins": bins,
            "unplaced_dustbins": sum(sq is None for sq in self.bin_square.values()),
            "chase": None if chase is None else {
                "cat": self.names[chase.cat], "dog": self.names[chase.dog], "at": chase.at,
                "heading": chase.heading, "dog_thrower": self.names[chase.thrower]},
            "turns": self.turns,
        }

    def token_places(self) -> dict[str, str]:
        """Where each fish, dog and dustbin is (the final summary)."""
        places: dict[str, str] = {}
        for b, sq in self.bin_square.items():
            places[b] = f"board:{sq}" if sq else "supply"
            fish = self.bin_fish[b]
            if fish is not None:
                places[fish] = f"dustbin:{b}"
        for q in range(self.players):
            for fish in self.carried[q]:
                places[fish] = f"cat:{self.names[q]}"
            for fish in self.at_home[q]:
                places[fish] = f"home:{self.names[q]}"
            where = self.dog[q]
            if where in self.bin_square:
                where = f"dustbin:{where}"
            elif where == CHASING and self.chase is not None:
                where = f"board:{self.chase.at}"
            places[f"{self.names[q]}-dog"] = where
        return places

    # --- persistence --------------------------------------------------------------------
    def _state_json(self) -> dict[str, Any]:
        chase = self.chase
        return {
            "bin_square": dict(self.bin_square),
            "bin_fish": dict(self.bin_fish),
            "opened": list(self.opened),
            "dog_found": dict(self.dog_found),
            "dog": list(self.dog),
            "cat_at": list(self.cat_at),
            "cat_heading": list(self.cat_heading),
            "carried": [list(c) for c in self.carried],
            "at_home": [list(h) for h in self.at_home],
            "foraged": list(self.foraged),
            "step": self.step,
            "turn": self.turn,
            "roll": self.roll,
            "start_rolls": {str(p): v for p, v in self.start_rolls.items()},
            "chase": None if chase is None else {
                "cat": chase.cat, "dog": chase.dog, "thrower": chase.thrower, "at": chase.at,
                "heading": chase.heading, "fish": chase.fish},
            "turns": self.turns,
            "end_reason": self.end_reason,
        }

    def _load_state_json(self, d: dict[str, Any]) -> None:
        try:
            self.bin_square = {str(b): sq for b, sq in d["bin_square"].items()}
            self.bin_fish = {str(b): f for b, f in d["bin_fish"].items()}
            self.opened = [str(b) for b in d["opened"]]
            self.dog_found = {str(b): bool(v) for b, v in d["dog_found"].items()}
            self.dog = [str(x) for x in d["dog"]]
            self.cat_at = [str(x) for x in d["cat_at"]]
            self.cat_heading = list(d["cat_heading"])
            self.carried = [list(c) for c in d["carried"]]
            self.at_home = [list(h) for h in d["at_home"]]
            self.foraged = [bool(x) for x in d["foraged"]]
            self.step = str(d["step"])
            self.turn = int(d["turn"])
            self.roll = int(d["roll"])
            self.start_rolls = {int(p): v for p, v in d["start_rolls"].items()}
            c = d["chase"]
            self.chase = None if c is None else Chase(int(c["cat"]), int(c["dog"]),
                                                      int(c["thrower"]), str(c["at"]),
                                                      c["heading"], str(c["fish"]))
            self.turns = int(d["turns"])
            self.end_reason = d["end_reason"]
        except (KeyError, TypeError, ValueError, AttributeError) as exc:
            raise StateFormatError(f"saved Alley Cats state is malformed: {exc!r}") from exc
        self._bin_at_cache = None
        self._far_cache = {}
        self.check_conservation()

    def check_conservation(self) -> None:
        """Each fish is in one dustbin, on one cat or in one home; each dog hides, chases or is
        gone; each dustbin is on one square or in the supply; each cat is on the board.

        :raises StateFormatError: naming what is wrong.
        """
        fish = [f for f in self.bin_fish.values() if f is not None]
        for q in range(self.players):
            fish += self.carried[q] + self.at_home[q]
        check_each_once(fish, [f for fs in self.fish_ids for f in fs], "fish skeleton")
        check_each_once(list(self.bin_square), list(self.bin_owner), "dustbin")
        squares = [sq for sq in self.bin_square.values() if sq is not None]
        if len(set(squares)) != len(squares):
            raise StateFormatError("two dustbins stand on one square")
        for b, sq in self.bin_square.items():
            side = self.home_side[self.bin_owner[b]]
            if sq is not None and sq not in self.components.dustbin_positions[side]:
                raise StateFormatError(f"dustbin {b} on {sq}: not a marked position of its "
                                       f"owner's side ({side})")
        chasing = 0
        for q, where in enumerate(self.dog):
            if where == CHASING:
                chasing += 1
            elif where not in (SUPPLY, GONE) and (
                    where not in self.bin_owner or self.bin_owner[where] != q):
                raise StateFormatError(f"{self.names[q]}'s dog is in {where!r}: not one of "
                                       f"{self.names[q]}'s dustbins")
        if chasing != (self.chase is not None):
            raise StateFormatError("a dog is out chasing without a chase, or the other way")
        for q, where in enumerate(self.cat_at):
            if not self.board.knows(where) or (where in self.board.homes
                                               and where != self.home[q]):
                raise StateFormatError(f"{self.names[q]}'s cat is on {where!r}: not a square "
                                       "of the board or its own home")
            if self.board.is_wall(where) != (self.cat_heading[q] in (WEST, EAST)) or (
                    self.cat_heading[q] not in (None, WEST, EAST)):
                raise StateFormatError(f"{self.names[q]}'s cat: a heading goes with the wall")
        if self.step not in ("place", "hide", "start", "roll", "move", "dog-roll", "dog-move",
                             "over"):
            raise StateFormatError(f"unknown step {self.step!r}")
