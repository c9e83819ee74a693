"""The protocol every game and mode fills, after OpenSpiel's verbs.

A state is created with players and a seed; ``current_player()`` says who acts (a player index,
:data:`CHANCE` for a chance step, :data:`SIMULTANEOUS` when several players choose in secret at
once, :data:`TERMINAL` when over); ``acting_players()`` lists who may act now;
``legal_actions(player)`` lists the choices; ``apply_action()`` applies one after checking it
(an illegal one raises :class:`IllegalMoveError` naming the broken rule and leaves the state
unchanged).

Randomness comes from the table: a bag draw, shuffle or reveal is a chance step. In real play its
outcome arrives from outside (camera or tap) and is checked against ``chance_outcomes()``; in
simulation ``sample_chance()`` picks it with the state's one seeded RNG. The engine never assumes
it drew the token itself.

Every applied action is appended to ``log``; ``replay()`` rebuilds the same state from the log,
and ``undo()`` rebuilds it without the last action, refused when that action was a chance step or a
reveal (a hidden thing became known). A sealed choice at a simultaneous step is held apart from the
log and written there only as part of the joint reveal, once every acting player has chosen. A
log entry that only one player may see (a draw behind a screen) carries ``private_to``, and
``public_log(player)`` shows others only its public text.
"""

from __future__ import annotations

import pickle
from abc import ABC, abstractmethod, update_abstractmethods
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from dataclasses import MISSING, Field, dataclass, field, fields
from enum import Enum
from functools import lru_cache
from operator import attrgetter
from string import Formatter
from types import UnionType
from typing import (
    Any,
    ClassVar,
    Generic,
    TypeVar,
    Union,
    dataclass_transform,
    get_args,
    get_origin,
    get_type_hints,
)

CHANCE = -1
SIMULTANEOUS = -2
TERMINAL = -4
_ACTOR_NAMES = {CHANCE: "chance", SIMULTANEOUS: "all"}  # a log entry's actor; a player: his index


class RulesError(ValueError):
    """Base class of every rules error."""


class IllegalMoveError(RulesError):
    """A move that the rules forbid. Names the rule and what is wrong."""

    def __init__(self, rule: str, detail: str, *, move: object | None = None) -> None:
        self.rule = rule
        self.detail = detail
        self.move = move
        prefix = f"illegal move {move}: " if move is not None else "illegal move: "
        super().__init__(f"{prefix}{detail} (rule: {rule})")


class ChanceOutcomeError(IllegalMoveError):
    """A chance outcome (a draw, a reveal) that is not possible from the current state."""


class UndoRefusedError(RulesError):
    """Undo is refused: nothing to undo, or a hidden thing was revealed since."""


class StateFormatError(RulesError):
    """A saved state or log that cannot be read back."""


class Action(ABC):
    """A move or a chance outcome; frozen dataclasses with a JSON form (see :func:`action`)."""

    kind: ClassVar[str]

    @abstractmethod
    def to_json(self) -> dict[str, Any]: ...


A = TypeVar("A", bound=type)
_ACTION_CLASSES: set[type] = set()  # every class made by @action (apply_action's quick check)
_JSON = "json"  # a field's metadata key: its JSON key and conversions (json_field)


def json_field(*, key: str | None = None, encode: Callable[[Any], Any] | None = None,
               decode: Callable[[Any], Any] | None = None, default: Any = MISSING) -> Any:
    """A field of an action whose JSON form is not what its type gives (:func:`action`):
    written under ``key``, or through ``encode``, read back through ``decode`` (a value
    that is None stays None either way)."""
    meta = {_JSON: (key, encode, decode)}
    if default is MISSING:
        return field(metadata=meta)
    return field(default=default, metadata=meta)


def _conversions(hint: Any
                 ) -> tuple[Callable[[Any], Any] | None, Callable[[Any], Any]] | None:
    """How a field of this type goes to JSON (None: as it is) and back: a string, a number,
    an enum's value, a tuple of those as a list. None for a type that needs its own
    (json_field)."""
    if hint in (str, int, bool):
        return None, hint  # written as it is
    if isinstance(hint, type) and issubclass(hint, Enum):
        return (lambda v: v.value), hint
    if get_origin(hint) is tuple:
        args = get_args(hint)
        inner = _conversions(args[0]) if len(args) == 2 and args[1] is Ellipsis else None
        if inner is not None:
            put, get = inner
            if put is None:
                return list, (lambda v: tuple(get(x) for x in v))
            return (lambda v: [put(x) for x in v]), (lambda v: tuple(get(x) for x in v))
    return None


def _optional(hint: Any) -> Any:
    """The type inside ``X | None`` (None itself is written and read as it is)."""
    if get_origin(hint) in (Union, UnionType):
        args = [a for a in get_args(hint) if a is not type(None)]
        if len(args) == 1 and len(get_args(hint)) == 2:
            return args[0]
    return hint


def _field_codec(cls: type, f: Field[Any], hint: Any) -> tuple[str, str, Any, Any, Any]:
    key, encode, decode = f.metadata.get(_JSON, (None, None, None))
    inner = _optional(hint)
    if encode is None or decode is None:
        made = _conversions(inner)
        if made is None:
            raise TypeError(f"action {cls.__name__}: field {f.name} ({hint}) needs its JSON "
                            "form: declare it with json_field(encode=..., decode=...)")
        encode, decode = encode or made[0], decode or made[1]  # encode None: as it is
    default = f.default if f.default is not MISSING else MISSING
    return f.name, key or f.name, encode, decode, default


def _writer(kind: str, spec: list[tuple[str, str, Any, Any, Any]]
            ) -> Callable[[Action], dict[str, Any]]:
    """An action's to_json, written out for its fields as a hand would write it (it runs at
    every step of every game): {"type": kind, key: self.field or its encoding, ...}."""
    encoders: dict[str, Any] = {}
    items = [f'"type": {kind!r}']
    for n, (attr, key, encode, _, _) in enumerate(spec):
        if encode is None:
            items.append(f"{key!r}: self.{attr}")
        else:
            encoders[f"_encode{n}"] = encode
            items.append(f"{key!r}: None if self.{attr} is None else _encode{n}(self.{attr})")
    source = f"def to_json(self):\n    return {{{', '.join(items)}}}\n"
    exec(source, encoders)  # noqa: S102 (names and keys are the class's own fields)
    return encoders["to_json"]  # type: ignore[no-any-return]


@dataclass_transform(frozen_default=True, field_specifiers=(field, json_field))
def action(codec: ActionCodec | None, kind: str, text: str | None = None
           ) -> Callable[[A], A]:
    """Make a class an action: a frozen dataclass of kind ``kind`` whose JSON form is
    ``{"type": kind, field: value, ...}`` in the order of its fields (json_field for a key
    or a conversion of its own), read back by ``codec`` (registered there unless None).
    ``text``: how it reads, its JSON keys in braces ("take the ingredient on {cell}"). A
    class that writes its own ``to_json``, ``from_json`` or ``__str__`` keeps it."""

    def make(cls: A) -> A:
        cls = dataclass(frozen=True)(cls)  # type: ignore[assignment]
        cls.kind = kind  # type: ignore[attr-defined]
        hints = get_type_hints(cls)
        spec = [_field_codec(cls, f, hints[f.name]) for f in fields(cls)]

        to_json = _writer(kind, spec)

        def from_json(klass: type[Action], data: dict[str, Any]) -> Action:
            values = {}
            for attr, key, _, decode, default in spec:
                if key not in data and default is not MISSING:
                    continue
                value = data[key]
                values[attr] = None if value is None else decode(value)
            return klass(**values)

        if "to_json" not in cls.__dict__:
            cls.to_json = to_json  # type: ignore[attr-defined]
        if "from_json" not in cls.__dict__:
            cls.from_json = classmethod(from_json)  # type: ignore[attr-defined]
        if text is not None:
            unknown = {n for _, n, _, _ in Formatter().parse(text) if n} - {
                key for _, key, _, _, _ in spec}
            if unknown:
                raise TypeError(f"action {cls.__name__}: its text names {sorted(unknown)}, "
                                f"which are not among its JSON keys")
            if "__str__" not in cls.__dict__:
                cls.__str__ = (  # type: ignore[method-assign]
                    lambda self: text.format(**{k: _prose(v)
                                                for k, v in self.to_json().items()}))
        update_abstractmethods(cls)
        _ACTION_CLASSES.add(cls)
        if codec is not None:
            codec.register(cls)
        return cls

    return make


def _prose(value: Any) -> Any:
    """A JSON value as an action's text reads it: a list as words ("red, red and white"),
    anything else as it is."""
    if not isinstance(value, list):
        return value
    words = [str(v) for v in value]
    if not words:
        return "nothing"
    return words[0] if len(words) == 1 else f"{', '.join(words[:-1])} and {words[-1]}"


class JointAction(Action):
    """The choices of all acting players at a simultaneous step, revealed together."""

    choices: dict[int, Action]


class ActionCodec:
    """Maps action kinds to classes, for reading actions back from JSON."""

    def __init__(self) -> None:
        self._classes: dict[str, Callable[[dict[str, Any]], Action]] = {}

    def register(self, cls: A) -> A:
        self._classes[cls.kind] = cls.from_json  # type: ignore[attr-defined]
        return cls

    def decode(self, data: dict[str, Any]) -> Action:
        try:
            reader = self._classes[data["type"]]
        except (KeyError, TypeError):
            raise StateFormatError(
                f"unknown action {data!r}: expected one of {sorted(self._classes)}"
            ) from None
        try:
            return reader(data)
        except (KeyError, TypeError, ValueError) as exc:
            raise StateFormatError(f"malformed action {data!r}: {exc}") from exc


T = TypeVar("T")


class ComponentIndex(Generic[T]):
    """A game's components of one kind (tokens, cards, tiles) by id, read-only and shared by
    a state's clones: ``index(id)`` is the component, and an id the component list lacks is
    an illegal move under ``rule``, named. ``by_id`` is the plain table, for hot paths that
    look up ids already checked (never to be changed)."""

    def __init__(self, what: str, rule: str, items: Iterable[T],
                 key: Callable[[T], str] = attrgetter("id")) -> None:
        self.what = what
        self.rule = rule
        self.by_id: dict[str, T] = {key(item): item for item in items}

    def __call__(self, ident: str) -> T:
        try:
            return self.by_id[ident]
        except KeyError:
            raise IllegalMoveError(self.rule, f"unknown {self.what} {ident!r}: the component "
                                   f"list has no such {self.what}") from None

    def __contains__(self, ident: object) -> bool:
        return ident in self.by_id

    def ids(self) -> list[str]:
        """Every component's id, in the component list's order."""
        return list(self.by_id)


_M64 = (1 << 64) - 1
_GAMMA = 0x9E3779B97F4A7C15  # splitmix64's step: 2**64 over the golden ratio, odd


def _mix64(z: int) -> int:
    """splitmix64's finaliser (Steele, Lea and Flood, 2014): a bijection of 64-bit integers
    whose every output bit depends on every input bit."""
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & _M64
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & _M64
    return z ^ (z >> 31)


class ChanceDraws:
    """The random choices of one chance step (``ChanceRng.next()``): the splitmix64 stream
    that starts from the seed and the step's counter. Nothing to seed (a Mersenne Twister
    seeded anew took 5 µs at each chance step), pure integer arithmetic, so the same draws on
    every machine. Each number below n is exactly uniform (Lemire's multiply-and-shift, with
    rejection): ``randrange(n)``, ``choice``, ``shuffle`` and ``sample``, as ``random.Random``
    has them, but not their draws."""

    __slots__ = ("_x",)

    def __init__(self, start: int) -> None:
        self._x = start & _M64

    def _below(self, n: int) -> int:
        """A number in range(n), each equally likely (0 < n <= 2**64)."""
        if not 0 < n <= _M64 + 1:
            raise ValueError(f"cannot draw below {n}")
        while True:
            x = self._x = (self._x + _GAMMA) & _M64
            z = ((x ^ (x >> 30)) * 0xBF58476D1CE4E5B9) & _M64
            z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & _M64
            m = (z ^ (z >> 31)) * n
            low = m & _M64
            # m >> 64 is uniform once the 2**64 % n lowest values of low are turned away
            if low >= n or low >= (_M64 + 1) % n:
                return m >> 64

    def randrange(self, n: int) -> int:
        """A number in range(n), each equally likely."""
        if n <= 0:
            raise ValueError(f"empty range for randrange({n})")
        return self._below(n)

    def choice(self, seq: Any) -> Any:
        """An element of a non-empty sequence, each equally likely."""
        if not seq:
            raise IndexError("cannot choose from an empty sequence")
        return seq[self._below(len(seq))]

    def shuffle(self, x: list[Any]) -> None:
        """Put the list in a random order, each order equally likely (Fisher and Yates)."""
        for i in range(len(x) - 1, 0, -1):
            j = self._below(i + 1)
            x[i], x[j] = x[j], x[i]

    def sample(self, population: Any, k: int) -> list[Any]:
        """``k`` different elements of the population, in random order, each choice of them
        (and each order) equally likely."""
        pool = list(population)
        n = len(pool)
        if not 0 <= k <= n:
            raise ValueError("sample larger than population or is negative")
        x = self._x
        for i in range(k):  # Fisher and Yates, stopped after k; _below(n - i) written out
            m = n - i
            while True:
                x = (x + _GAMMA) & _M64
                z = ((x ^ (x >> 30)) * 0xBF58476D1CE4E5B9) & _M64
                z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & _M64
                r = (z ^ (z >> 31)) * m
                low = r & _M64
                if low >= m or low >= (_M64 + 1) % m:
                    break
            j = i + (r >> 64)
            pool[i], pool[j] = pool[j], pool[i]
        self._x = x
        return pool[:k]


@lru_cache(maxsize=64)
def _seed_key(seed: int) -> int:
    """A seed's 64-bit key: its lowest 64 bits mixed with the next 64 (and its sign)."""
    return _mix64((seed & _M64) ^ _mix64((seed >> 64) & _M64))


@dataclass
class ChanceRng:
    """The state's one seeded RNG: counter-based (the draws of the n-th chance step depend
    only on the seed and n), so a supplied outcome advances it too."""

    seed: int
    counter: int = 0

    def next(self) -> ChanceDraws:
        """The draws of the pending chance step."""
        return ChanceDraws(_mix64((_seed_key(self.seed) + self.counter * _GAMMA) & _M64))

    def advance(self) -> None:
        self.counter += 1


@dataclass(frozen=True)
class Score:
    """A player's final score with its breakdown; ``tiebreak`` sorts higher-is-better."""

    player: int
    total: int
    breakdown: dict[str, int]
    tiebreak: tuple[int, ...] = field(default=())

    def to_json(self) -> dict[str, Any]:
        return {"total": self.total, "breakdown": dict(self.breakdown)}


def check_each_once(seen: Iterable[str], expected: Iterable[str], what: str) -> None:
    """Components are conserved: each of ``expected`` (ids of one kind) is ``seen`` exactly
    once over all the places a state keeps them, and nothing else is.

    :raises StateFormatError: naming the first few missing, held twice or unknown.
    """
    counts = Counter(seen)
    known = set(expected)
    wrong = sorted(t for t in known | set(counts) if counts.get(t, 0) != (t in known))
    if wrong:
        raise StateFormatError(
            f"state does not hold each {what} exactly once: {', '.join(wrong[:5])}")


def jsonable(value: Any) -> Any:
    """Dicts with string keys and lists all the way down, for a state's JSON form."""
    if isinstance(value, dict):
        return {str(k): jsonable(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [jsonable(v) for v in value]
    return value


def rank(scores: list[Score]) -> list[list[int]]:
    """Players from first to last; those tied on score and every tie-breaker share a group."""
    order = sorted(scores, key=lambda s: (s.total, *s.tiebreak), reverse=True)
    groups: list[list[int]] = []
    last: tuple[int, ...] | None = None
    for s in order:
        key = (s.total, *s.tiebreak)
        if key == last:
            groups[-1].append(s.player)
        else:
            groups.append([s.player])
            last = key
    return groups


class GameState(ABC):
    """The state of one game; subclasses fill the rules of one game mode."""

    GAME_ID: ClassVar[str]
    codec: ClassVar[ActionCodec]
    # end reasons that are the referee's rules, not the rulebook's (a game that would not end)
    REFEREE_ENDINGS: ClassVar[frozenset[str]] = frozenset()
    # options a table may set (name -> its values, in words), beyond the seat colours
    TABLE_OPTIONS: ClassVar[dict[str, str]] = {}
    # the colours players pick their seats by, given to new() as the "colours" option; none
    # for a game whose seats are fixed roles (each named by player_name)
    SEAT_COLOURS: ClassVar[tuple[str, ...]] = ()

    def __init__(self, players: int, seed: int, options: dict[str, Any]) -> None:
        self.players = players
        self.seed = seed
        self.options = dict(options)
        self.rng = ChanceRng(seed)
        self.log = []  # every applied action's entry (the property below)
        self.origin: dict[str, Any] | None = None  # where the log starts, if not at a new game
        self.sealed: dict[int, Action] = {}  # sealed choices at a simultaneous step
        self._reveals = False
        self._legal: Sequence[Action] | None = None  # legal_actions(), until the next change

    # --- the log ----------------------------------------------------------------------------
    @property
    def log(self) -> list[dict[str, Any]]:
        """Every applied action's entry: ``{"actor", "action" (its JSON), "text"}``, with
        ``private_to`` and ``public_text`` when only one player may read it and ``reveal``
        when it revealed a hidden thing. An entry's action is written out as JSON when the
        log is next read after its step (the action is immutable, so the entry is the one
        its step would have written): random play that never reads the log builds none. The
        same list throughout; an entry is never changed once written."""
        unread = self._unread
        if unread:
            log = self._log
            for entry in unread:
                if type(entry) is tuple:  # (actor, action, text), see _play
                    entry = {"actor": entry[0], "action": entry[1].to_json(), "text": entry[2]}
                log.append(entry)
            unread.clear()
        return self._log

    @log.setter
    def log(self, entries: list[dict[str, Any]]) -> None:
        self._log = entries
        self._unread: list[Any] = []  # entries not read yet, in order: see _play

    def log_length(self) -> int:
        """``len(log)``, without writing out the entries no one has read yet."""
        return len(self._log) + len(self._unread)

    # --- creation -------------------------------------------------------------------------
    @classmethod
    @abstractmethod
    def new(cls, players: int, seed: int, **options: Any) -> GameState: ...

    # --- who acts ---------------------------------------------------------------------------
    @abstractmethod
    def current_player(self) -> int: ...

    def is_chance_node(self) -> bool:
        return self.current_player() == CHANCE

    def acting_players(self) -> list[int]:
        """Who may act now: one player, or at a simultaneous step those still to choose."""
        actor = self.current_player()
        return [actor] if actor >= 0 else []

    @abstractmethod
    def is_terminal(self) -> bool: ...

    # --- moves ------------------------------------------------------------------------------
    def legal_actions(self, player: int | None = None) -> list[Action]:
        """The legal actions of the player to act (none for another ``player``), worked out
        once per position. A mode with a simultaneous step answers for each chooser there."""
        if player is not None and player != self.current_player():
            return []
        if self._legal is None:
            self._legal = self._compute_legal()
        return list(self._legal)

    def _listed(self) -> Sequence[Action]:
        """legal_actions() of the player to act, as kept for this position (not a copy: only to
        be read), for the random driver. Not at a simultaneous step."""
        legal = self._legal
        if legal is None:
            legal = self._legal = self._compute_legal()
        return legal

    @abstractmethod
    def _compute_legal(self) -> list[Action]:
        """The legal actions of the player to act, or the chance outcomes' actions."""

    @abstractmethod
    def chance_outcomes(self) -> list[tuple[Action, float]]: ...

    @abstractmethod
    def sample_chance(self) -> Action:
        """The outcome of the pending chance step, picked by the state's seeded RNG."""

    @abstractmethod
    def _check(self, action: Action) -> None:
        """Raise IllegalMoveError if the action is not legal now. Must not change the state."""

    @abstractmethod
    def _apply(self, action: Action) -> str | tuple[str, str]:
        """Apply a checked action; return a readable description for the log (or, for a private
        entry, its text and what others may read). Set ``self._reveals`` when it reveals a hidden
        thing (then undo cannot cross it)."""

    def _private_to(self, action: Action) -> int | None:
        """The one player who may see this log entry (None: everyone). Modes override."""
        return None

    def hidden_choice(self) -> int | None:
        """The player whose choices now are read from what only they may see (a hand, what lies
        behind a shield): their step is public once taken, but a list of its options would show
        others what they hold, so a table asks it behind the cover. None: the options are
        public. Modes with hands override."""
        return None

    def describe(self, action: Action) -> str:
        """How a table reads an action it is offered: its text, and what the components it
        names show where an id alone would not tell the player which one (an order card's
        dishes). Modes with such components override."""
        return str(action)

    def _public_text(self, action: Action) -> str:
        """What others read of a private log entry. Modes override."""
        return "a hidden step"

    def _joint(self, choices: dict[int, Action]) -> JointAction:
        """The joint action that reveals the sealed choices. Simultaneous modes override."""
        raise NotImplementedError

    def apply_action(self, action: Action, *, player: int | None = None) -> None:
        """Check and apply one action (a move, a sealed choice, or a chance outcome).

        At a simultaneous step, ``player`` says whose sealed choice this is; it is held apart,
        unlogged, until every acting player has chosen, then all are revealed in one entry.

        :raises IllegalMoveError: naming the broken rule; the state is left unchanged.
        """
        # an action class made by @action is known at once; any other is asked of the ABC
        if type(action) not in _ACTION_CLASSES and not isinstance(action, Action):
            raise IllegalMoveError("actions", f"{action!r} is not an action of this game (a "
                                   f"{type(action).__name__}); pick one from legal_actions()")
        actor = self.current_player()
        if actor < 0:
            if actor == TERMINAL:
                raise IllegalMoveError("end of the game", "the game is over", move=action)
            if actor == SIMULTANEOUS and not isinstance(action, JointAction):
                self._seal(action, player)
                return
        if player is not None and player != actor:
            who = "the table (a chance step)" if actor == CHANCE else self.player_name(actor)
            raise IllegalMoveError(
                "turn order",
                f"it is not {self.player_name(player)}'s turn; waiting for {who}",
                move=action,
            )
        self._check(action)
        self._play(action, actor)

    def _play(self, action: Action, actor: int) -> None:
        """Apply and log an action that is legal now, for ``actor``, the current player (not
        at a simultaneous step): apply_action() once it has checked, and the random driver,
        whose every move is one that legal_actions() or sample_chance() gave for this very
        position (checking it again would find it legal; a replay of the log checks every
        step)."""
        private = self._private_to(action)
        public = self._public_text(action) if private is not None else None
        if actor == CHANCE:
            self.rng.counter += 1  # rng.advance(), at every chance step
        self._reveals = False
        self._legal = None
        result = self._apply(action)
        if type(result) is str:
            text = result
        elif isinstance(result, tuple):
            text, public = result
        else:
            text = result
        who = actor if actor >= 0 else _ACTOR_NAMES.get(actor, actor)
        if private is None and not self._reveals:
            # the entry, to be written out when the log is read (the log property)
            self._unread.append((who, action, text))
            return
        entry: dict[str, Any] = {"actor": who, "action": action.to_json(), "text": text}
        if private is not None:
            entry["private_to"] = private
            entry["public_text"] = public
        if self._reveals:
            entry["reveal"] = True
        self._unread.append(entry)

    def _seal(self, action: Action, player: int | None) -> None:
        acting = self.acting_players()
        if player is None:
            raise IllegalMoveError(
                "simultaneous choice", "players choose at the same time here: say whose "
                "choice this is", move=action)
        if player not in acting:
            raise IllegalMoveError(
                "simultaneous choice", f"{self.player_name(player)} has no choice to make now "
                "(or has already chosen)", move=action)
        self._check_sealed(action, player)
        self.sealed[player] = action
        if all(p in self.sealed for p in self.all_choosers()):
            joint = self._joint(dict(self.sealed))
            self.apply_action(joint)

    def _check_sealed(self, action: Action, player: int) -> None:
        """Raise IllegalMoveError if the sealed choice is not legal for the player."""
        if action not in self.legal_actions(player):
            raise IllegalMoveError("simultaneous choice", "not a legal choice", move=action)

    def all_choosers(self) -> list[int]:
        """At a simultaneous step, every player who must choose (sealed or not)."""
        return []

    def play_chance(self) -> Action:
        """Simulation: sample and apply the pending chance step."""
        outcome = self.sample_chance()
        self.apply_action(outcome)
        return outcome

    # --- views and scores -------------------------------------------------------------------
    def player_name(self, player: int) -> str:
        return f"player {player}"

    @abstractmethod
    def view(self, player: int | None) -> dict[str, Any]:
        """What one player may see (None: what an onlooker may see)."""

    @abstractmethod
    def scores(self) -> list[Score]: ...

    def camera_board(self) -> list[list[dict[str, Any]]] | None:
        """The board as a camera above it should see it now: 5 rows of 5 cells in the reader's
        format (``kind``, ``token``, ``player``, ``value``), hidden things as they lie (a cat
        face down is its back, a coin under a pawn is the pawn). None for a game the camera
        does not follow."""
        return None

    def clone(self) -> GameState:
        """An independent copy, cheap enough to try many steps ahead: the component list and
        other read-only tables are shared, and so are the log's entries (never changed once
        written)."""
        shared = {k: v for k, v in self.__dict__.items()
                  if k in self._SHARED or isinstance(v, ComponentIndex)}
        own = {k: v for k, v in self.__dict__.items()
               if k not in shared and k != "_log" and k != "_unread"}
        twin = object.__new__(type(self))
        twin.__dict__.update(pickle.loads(pickle.dumps(own, protocol=pickle.HIGHEST_PROTOCOL)))
        twin.__dict__.update(shared)
        twin.log = list(self._log)
        twin._unread = list(self._unread)
        return twin

    # read-only attributes a clone shares (a mode adds its own tables; indexes always are)
    _SHARED: ClassVar[frozenset[str]] = frozenset({"components"})

    def ranking(self) -> list[list[int]]:
        """Players from first to last after tie-breakers; all tied winners share the first group."""
        return rank(self.scores())

    def public_log(self, player: int | None = None) -> list[dict[str, Any]]:
        """The log as a player may read it: others' private entries show only their public text."""
        out = []
        for entry in self.log:
            private = entry.get("private_to")
            if private is None or private == player:
                out.append(dict(entry))
            else:
                out.append({"actor": entry["actor"], "action": {"type": "hidden"},
                            "text": entry["public_text"]})
        return out

    # --- persistence ------------------------------------------------------------------------
    @abstractmethod
    def _state_json(self) -> dict[str, Any]: ...

    @abstractmethod
    def _load_state_json(self, data: dict[str, Any]) -> None: ...

    def _load(self, data: dict[str, Any]) -> None:
        """Take the position of a saved mode state; what was worked out for another goes."""
        self._load_state_json(data)
        self._legal = None

    def mark_origin(self) -> None:
        """Start the log here: replay and undo rebuild from this position, not from a new game.

        For positions set up by hand (a game taken over mid-way, a rules test).
        """
        self.origin = {"rng": self.rng.counter, "state": self._state_json()}
        self.log = []

    def header(self) -> dict[str, Any]:
        return {"game": self.GAME_ID, "players": self.players, "seed": self.seed,
                "options": dict(self.options)}

    def to_json(self) -> dict[str, Any]:
        """The whole state, JSON-ready: header, rng counter, mode state and log."""
        return {**self.header(), "rng": self.rng.counter, "state": self._state_json(),
                "sealed": {str(p): a.to_json() for p, a in self.sealed.items()},
                "origin": self.origin, "log": [dict(e) for e in self.log]}

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> GameState:
        """Read a state written by :meth:`to_json`.

        :raises StateFormatError: if it is not a saved state of this game.
        """
        try:
            if data["game"] != cls.GAME_ID:
                raise StateFormatError(f"saved state is of {data['game']!r}, not {cls.GAME_ID!r}")
            state = cls.new(data["players"], data["seed"], **data["options"])
            state.rng.counter = int(data["rng"])
            state._load(data["state"])
            state.origin = data.get("origin")
            state.sealed = {int(p): cls.codec.decode(a)
                            for p, a in (data.get("sealed") or {}).items()}
            state.log = [dict(e) for e in data["log"]]
        except (KeyError, TypeError, ValueError) as exc:
            if isinstance(exc, StateFormatError):
                raise
            raise StateFormatError(f"saved state is malformed: {exc!r}") from exc
        return state

    @classmethod
    def replay(cls, header: dict[str, Any], log: list[dict[str, Any]],
               origin: dict[str, Any] | None = None) -> GameState:
        """Rebuild a state by applying a log to a new game with the same header (or to the
        position the log started from)."""
        state = cls.new(header["players"], header["seed"], **header.get("options", {}))
        if origin is not None:
            state.rng.counter = int(origin["rng"])
            state._load(origin["state"])
            state.origin = origin
        for n, entry in enumerate(log):
            action = cls.codec.decode(entry["action"])
            try:
                state.apply_action(action)
            except IllegalMoveError as exc:
                raise StateFormatError(f"log entry {n} cannot be replayed: {exc}") from exc
        return state

    def undo(self, player: int | None = None) -> dict[str, Any]:
        """Take back the last move and return its log entry.

        Refused when the last entry is a chance step: a hidden thing (a draw, a reveal) has been
        revealed since, and taking it back would let a player draw again. Once a player has
        chosen in secret, sealed choices are not the log's to undo: only ``player`` may take
        back their own sealed choice, and nothing else is taken back with it.

        :raises UndoRefusedError: naming why.
        """
        if self.sealed:
            if player is not None and player in self.sealed:
                del self.sealed[player]
                return {"actor": player, "action": {"type": "hidden"},
                        "text": f"{self.player_name(player)} takes back their sealed choice"}
            raise UndoRefusedError(
                "cannot undo while players choose in secret: a player may take back only "
                "their own sealed choice" + (f" ({self.player_name(player)} has none)"
                                             if player is not None else ""))
        if not self.log:
            raise UndoRefusedError("nothing to undo: no move has been made")
        last = self.log[-1]
        public = last["public_text"] if "private_to" in last else last["text"]
        if last["actor"] in ("chance", "all") or last.get("reveal"):
            raise UndoRefusedError(
                f"cannot undo: a hidden thing was revealed since the last move ({public})"
            )
        before = self.replay(self.header(), self.log[:-1], self.origin)
        self.__dict__.update(before.__dict__)
        if "private_to" in last:
            return {"actor": last["actor"], "action": {"type": "hidden"}, "text": public}
        return last
