"""What each kiosk screen shows and does, in plain Python (tested without Kivy).

The screens are thin: they draw a presenter's fields and call its methods. The table presenter
takes the referee runner's events (on the UI thread) and decides which screen is up.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any

from companion.rules import find_game, player_range
from companion.rules.components import food_alley
from companion.rules.summary import tie_break_sentence
from companion.ui.status import status_lines

PRIVATE_IDLE_S = 30.0  # s: an open private entry covers itself again after this long idle
HISTORY_LINES = 8

MODE_TITLES = {"food-alley/shopper": "Food Alley: Shopper", "food-alley/sambal":
               "Food Alley: Sambal", "food-alley/stray": "Food Alley: Stray",
               "alley-cats": "Alley Cats", "critter-kitchen": "Critter Kitchen",
               "food-trucks": "Food Trucks", "burger-joint": "Burger Joint"}


def game_title(game: str) -> str:
    return MODE_TITLES.get(game, game)


# --- start ------------------------------------------------------------------------------------
@dataclass
class Seat:
    name: str
    colour: str


class StartPresenter:
    """Pick the game and mode, seat 2-4 players (name and colour), see the camera, resume."""

    def __init__(self, games: list[str], *, recent_names: list[str] | None = None,
                 resumable: list[dict[str, Any]] | None = None, game: str | None = None,
                 players: int = 2) -> None:
        # Food Alley's modes first (the game the camera reads), then the others by title
        self.games = sorted(games, key=lambda g: (not g.startswith("food-alley/"),
                                                  game_title(g)))
        self.recent_names = recent_names or []
        self.resumable = resumable or []
        self.game = game or self.games[0]
        self.seats: list[Seat] = []
        self.camera = {"state": "none", "text": ""}
        self.set_players(players)

    @property
    def colours(self) -> list[str]:
        """The colours seats are picked by in this game; where its seats are fixed roles
        (Burger Joint's Burger and Pizza), those roles, in seat order."""
        cls = find_game(self.game)
        if cls.SEAT_COLOURS:
            return list(cls.SEAT_COLOURS)
        low, high = self.player_range
        sample = cls.new(high, 0)
        return [sample.player_name(p) for p in range(high)]

    @property
    def fixed_seats(self) -> bool:
        """Seats are the game's roles, in order: no colour to pick."""
        return not find_game(self.game).SEAT_COLOURS

    @property
    def player_range(self) -> tuple[int, int]:
        return player_range(find_game(self.game))

    def pick_game(self, game: str) -> None:
        if game not in self.games:
            raise ValueError(f"unknown game {game}")
        changed = game != self.game
        self.game = game
        low, high = self.player_range
        count = min(max(len(self.seats), low), high)
        if changed:  # another game's colours or roles: the seats are laid again, names kept
            names = [s.name for s in self.seats]
            self.seats = []
            self.set_players(count)
            for seat, name in zip(self.seats, names, strict=False):
                seat.name = name
        else:
            self.set_players(count)

    def set_players(self, count: int) -> None:
        low, high = self.player_range
        count = min(max(count, low), high)
        seats = self.seats[:count]
        colours = self.colours
        for i in range(len(seats), count):
            used = {s.colour for s in seats}
            colour = colours[i] if self.fixed_seats else next(
                c for c in colours if c not in used)
            seats.append(Seat(self._default_name(i, colour, seats), colour))
        self.seats = seats

    def _default_name(self, i: int, colour: str, seats: list[Seat]) -> str:
        taken = {s.name for s in seats}
        return colour if colour not in taken else f"player {i + 1}"

    def name_choices(self, seat: int) -> list[str]:
        """Names a seat may take by a tap: recent players first, then the colours."""
        taken = {s.name for k, s in enumerate(self.seats) if k != seat}
        out = [n for n in self.recent_names if n not in taken]
        out += [c for c in self.colours if c not in taken and c not in out]
        return out

    def set_name(self, seat: int, name: str) -> str | None:
        """Give a seat a name; returns why not, or None."""
        name = " ".join(name.split())
        if not name:
            return "a name cannot be empty"
        if len(name) > 16:
            return "a name has at most 16 letters"
        if any(s.name == name for k, s in enumerate(self.seats) if k != seat):
            return f"{name} already sits at the table"
        self.seats[seat].name = name
        return None

    def next_colour(self, seat: int) -> None:
        """Give a seat the next colour no other seat has."""
        if self.fixed_seats:
            return  # a role is the seat's own
        colours = self.colours
        used = {s.colour for k, s in enumerate(self.seats) if k != seat}
        start = colours.index(self.seats[seat].colour)
        for step in range(1, len(colours) + 1):
            colour = colours[(start + step) % len(colours)]
            if colour not in used:
                self.seats[seat].colour = colour
                return

    def set_camera(self, state: str, text: str = "") -> None:
        self.camera = {"state": state, "text": text}

    def setup(self) -> dict[str, Any]:
        """What a new game needs: game, players, names, and colours (None where the seats are
        the game's fixed roles)."""
        return {"game": self.game, "players": len(self.seats),
                "names": [s.name for s in self.seats],
                "colours": None if self.fixed_seats else [s.colour for s in self.seats]}


# --- the table ----------------------------------------------------------------------------------
@dataclass
class PrivateEntry:
    """A private question behind the cover: covered until its player opens it."""

    question: int
    player: str
    prompt: str
    opened_at: float | None = None
    options: list[dict[str, Any]] | None = None  # only while open, never kept after

    @property
    def is_open(self) -> bool:
        return self.opened_at is not None


@dataclass
class TableView:
    """Everything the table screen draws (public only)."""

    waiting: str = ""
    history: list[str] = field(default_factory=list)
    scores: dict[str, int] = field(default_factory=dict)
    board: list[list[dict[str, Any]]] | None = None
    expected: list[str | None] = field(default_factory=lambda: [None] * 25)
    camera: str = "none"
    camera_text: str = ""
    unsure: list[str] = field(default_factory=list)
    manual: list[str] = field(default_factory=list)
    n: int = 0
    turn: str = ""  # whose turn it is (a name), empty for the table's own steps
    status: list[str] = field(default_factory=list)  # a game without a camera board: its state


class TablePresenter:
    """The referee's events in, what is on screen out.

    ``screen`` says which screen is up: ``private`` (a cover or an entry), ``question``,
    ``mismatch``, ``reveal``, ``final`` or ``table``.
    """

    def __init__(self, game: str, names: list[str], colours: list[str], *, manual: bool,
                 clock: Any = time.monotonic) -> None:
        self.game = game
        self.names = names
        self.colours = colours
        self.manual_entry = manual
        self.clock = clock
        self.view = TableView(camera="none" if manual else "starting")
        self.questions: list[dict[str, Any]] = []
        self.private: PrivateEntry | None = None
        self.warning: dict[str, Any] | None = None
        self.reveal: str | None = None
        self.final: dict[str, Any] | None = None
        self.preview: dict[str, Any] | None = None
        self.notice = ""  # one line: a refused tap, an undo, a correction
        self.paused = False
        self.confirming_undo = False

    # --- events from the runner ---------------------------------------------------------------
    def on_event(self, kind: str, data: dict[str, Any]) -> None:
        if kind == "sync":
            self._sync(data)
        elif kind == "step":
            if data.get("player") == "all":  # sealed choices revealed together
                self.reveal = data["text"]
        elif kind == "warning":
            self.warning = None if data.get("cleared") else data
        elif kind == "game_over":
            self.final = data
        elif kind == "correction":
            self.notice = f"step {data['n']} corrected: {data['text']}"
            for d in data.get("dropped", []):
                self.notice += f"; step {d['n']} dropped ({d['why']})"
        elif kind == "frame":
            self.preview = data
            self.view.camera = data["state"]
            self.view.camera_text = data.get("reason") or ""
        elif kind == "camera":
            self.view.camera = data["state"]
            self.view.camera_text = data["text"]
        elif kind == "private":
            entry = self.private
            if entry is not None and entry.question == data["question"] and entry.is_open:
                entry.options = data["options"]
        elif kind == "reply":
            if not data.get("ok"):
                self.notice = data.get("error", "not taken")
            elif data.get("name") == "undo":
                self.notice = f"undone: {data.get('result')}"
            elif data.get("name") == "pause":
                self.paused = bool(data.get("paused"))

    def _sync(self, data: dict[str, Any]) -> None:
        v = self.view
        v.waiting = data["waiting"]
        v.history = data["history"][-HISTORY_LINES:]
        v.scores = data.get("scores") or {}
        v.board = data["board"]
        v.expected = data["expected"]
        v.unsure = data.get("unsure") or []
        v.manual = data.get("manual") or []
        v.n = data["n"]
        v.turn = data.get("turn") or ""
        v.status = status_lines(data.get("table"), data.get("seats") or {})
        self.warning = data.get("warning")
        self.questions = list(data["questions"])
        private = next((q for q in self.questions if q["kind"] == "private"
                        and not q.get("optional")), None)
        if private is None:
            self.private = None
        elif self.private is None or self.private.question != private["id"]:
            self.private = PrivateEntry(private["id"], private["player"], private["prompt"])

    # --- which screen -------------------------------------------------------------------------
    @property
    def screen(self) -> str:
        if self.reveal is not None:
            return "reveal"
        if self.final is not None:
            return "final"
        if self.private is not None:
            return "private"
        if self.public_question is not None:
            return "question"
        if self.warning is not None:
            return "mismatch"
        return "table"

    @property
    def public_question(self) -> dict[str, Any] | None:
        """The first public question the table must answer before play goes on."""
        return next((q for q in self.questions if q["kind"] != "private"
                     and not q.get("optional")), None)

    @property
    def optional_question(self) -> dict[str, Any] | None:
        """A question the camera may still answer (a cook the board will show), or the table
        by a tap (an end of turn it will not): offered on the table screen."""
        return next((q for q in self.questions if q.get("optional")
                     and q["kind"] == "enter"), None)

    def dismiss_reveal(self) -> None:
        self.reveal = None

    # --- private entries ----------------------------------------------------------------------
    def open_private(self) -> int | None:
        """The player opens the cover; returns the question whose options to fetch."""
        entry = self.private
        if entry is None:
            return None
        entry.opened_at = self.clock()
        entry.options = None
        return entry.question

    def cover(self) -> None:
        """Cover again: nothing private stays."""
        if self.private is not None:
            self.private.opened_at = None
            self.private.options = None

    def touch(self) -> None:
        """Any tap while open keeps it open for another PRIVATE_IDLE_S."""
        if self.private is not None and self.private.is_open:
            self.private.opened_at = self.clock()

    def tick(self) -> bool:
        """Cover an entry left idle; returns whether it covered."""
        entry = self.private
        if entry is not None and entry.is_open and entry.opened_at is not None and \
                self.clock() - entry.opened_at >= PRIVATE_IDLE_S:
            self.cover()
            return True
        return False

    def choose_private(self, index: int) -> tuple[int, int]:
        """The player's choice: (question, option) to send; the entry covers itself."""
        entry = self.private
        if entry is None or not entry.is_open or entry.options is None:
            raise ValueError("no private entry is open")
        if not 0 <= index < len(entry.options):
            raise ValueError(f"option {index} is not offered")
        question = entry.question
        self.cover()
        return question, index

    # --- board marks --------------------------------------------------------------------------
    def cell_marks(self) -> list[str]:
        """Per cell of the camera view: 'ok', 'differs' (not what the rules expect) or
        'unknown' (the reader abstained); 'none' without a reading."""
        preview = self.preview
        if not preview or not preview.get("cells"):
            return ["none"] * 25
        marks = []
        for cell, want in zip(preview["cells"], self.view.expected, strict=True):
            key = cell["key"]
            if key is None:
                marks.append("unknown")
            elif want is not None and key != want:
                marks.append("differs")
            else:
                marks.append("ok")
        return marks

    def differing_cells(self) -> list[str]:
        from companion.rules.food_alley.market import name

        return [name(i) for i, m in enumerate(self.cell_marks()) if m == "differs"]


# --- questions ----------------------------------------------------------------------------------
def option_pictures(action: dict[str, Any]) -> list[str]:
    """Art names (see ``companion.ui.art``) for the tokens and cats an option names."""
    out: list[str] = []
    side = "coin" if action.get("type") in ("bid", "sell", "pay") else "ingredient"

    def walk(value: Any) -> None:
        if isinstance(value, str) and _is_token(value):
            out.append(f"token-{value}-{side}")
        elif isinstance(value, list | tuple):
            for v in value:
                walk(v)
        elif isinstance(value, dict):
            for v in value.values():
                walk(v)

    walk({k: v for k, v in action.items() if k != "type"})
    if action.get("type") == "cat" and isinstance(action.get("value"), int) and action.get(
            "player"):
        out.append(f"cat-{action['player']}-{action['value']}")
    return out[:6]


def _is_token(text: str) -> bool:
    parts = text.rsplit("-", 1)
    return len(parts) == 2 and parts[1].isdigit() and parts[0] in _ingredients()


@lru_cache(maxsize=1)
def _ingredients() -> frozenset[str]:
    return frozenset(food_alley().ingredients)


def cell_picture(cell: dict[str, Any]) -> str | None:
    """The art name of a cell in camera-board form (None: empty)."""
    kind = cell.get("kind")
    if kind in ("ingredient", "coin"):
        return f"token-{cell['token']}-{kind}"
    if kind == "cat":
        return f"cat-{cell['player']}-{cell['value']}" if cell.get("player") in (
            "black", "white", "orange", "blue") else None
    if kind == "cat-back":
        return f"cat-{cell['player']}-back" if cell.get("player") in (
            "black", "white", "orange", "blue") else None
    if kind == "shopper":
        return f"shopper-{cell['player']}"
    return None


# --- long ordered choices ---------------------------------------------------------------------
PICK_IN_ORDER_ABOVE = 24  # more options than this, all orders of a few things: pick in order


class SequencePicker:
    """An answer that is an order of things (a recipe pile, top card first), picked one thing
    at a time instead of found among every order: after each pick only what can still follow
    is offered, and the answer is taken when one option is left."""

    def __init__(self, options: list[dict[str, Any]], field: str) -> None:
        self.options = options
        self.field = field
        self.chosen: list[Any] = []

    @classmethod
    def fits(cls, options: list[dict[str, Any]]) -> SequencePicker | None:
        if len(options) <= PICK_IN_ORDER_ABOVE:
            return None
        fields = {k for k, v in options[0]["action"].items() if isinstance(v, list)}
        if len(fields) != 1:
            return None
        field = fields.pop()
        lengths = {len(o["action"].get(field) or []) for o in options}
        if len(lengths) != 1 or any(set(o["action"]) != set(options[0]["action"])
                                    for o in options):
            return None
        return cls(options, field)

    def remaining(self) -> list[dict[str, Any]]:
        k = len(self.chosen)
        return [o for o in self.options if o["action"][self.field][:k] == self.chosen]

    def next_choices(self) -> list[Any]:
        k = len(self.chosen)
        out: list[Any] = []
        for o in self.remaining():
            seq = o["action"][self.field]
            if k < len(seq) and seq[k] not in out:
                out.append(seq[k])
        return out

    def pick(self, element: Any) -> int | None:
        """Add the next thing; returns the option's index once the answer is whole."""
        if element not in self.next_choices():
            raise ValueError(f"{element} cannot come next")
        self.chosen.append(element)
        left = self.remaining()
        return left[0]["index"] if len(left) == 1 else None

    def reset(self) -> None:
        self.chosen = []


# --- final scoring ------------------------------------------------------------------------------
@dataclass
class FinalRow:
    place: int
    name: str
    total: int
    breakdown: dict[str, int]
    winner: bool


class FinalPresenter:
    """Ranking with ties, each player's breakdown, the tie-breaker that decided, the end."""

    def __init__(self, summary: dict[str, Any], names: dict[str, str] | None = None) -> None:
        self.summary = summary
        names = names or {}
        self.names = names
        self.rows: list[FinalRow] = []
        winners = set(summary.get("winners") or [])
        for place, group in enumerate(summary["ranking"], start=1):
            for colour in group:
                score = summary["scores"][colour]
                self.rows.append(FinalRow(place, names.get(colour, colour), score["total"],
                                          dict(score["breakdown"]), colour in winners))
        self.categories = list(self.rows[0].breakdown) if self.rows else []

    @property
    def headline(self) -> str:
        winners = [r.name for r in self.rows if r.winner]
        if len(winners) > 1:
            return "shared win: " + " and ".join(winners)
        return f"{winners[0]} wins" if winners else "game over"

    @property
    def end_text(self) -> str:
        end = self.summary.get("end") or "the game is over"
        if self.summary.get("end_rule") == "referee":
            return f"ended by the referee's rule: {end}"
        return f"ended: {end}"

    @property
    def tiebreak(self) -> str | None:
        """The tie-breaker's sentence with the players' entered names."""
        if "tiebreak_detail" in self.summary:
            return tie_break_sentence(self.summary["tiebreak_detail"], self.names)
        return self.summary.get("tiebreak")

    def bar_scale(self) -> int:
        """The largest absolute value of any category, for a common bar scale."""
        return max([1] + [abs(v) for r in self.rows for v in r.breakdown.values()])


def category_words(key: str) -> str:
    return key.replace("_", " ")


# --- calibrating the rig --------------------------------------------------------------------------
class CalibratePresenter:
    """The rig check on the kiosk (Settings > Camera rig): each check with its verdict, the
    camera's preview with a ring per cell (green read, yellow left unknown), and whether the
    rig may be locked and saved (only while every check passes)."""

    def __init__(self) -> None:
        self.state = "starting"  # starting, fix, good, saving, saved, failed
        self.rows: list[dict[str, str]] = []  # verdict (good, warn, bad) and text
        self.preview: dict[str, Any] | None = None
        self.marks: list[str] = ["none"] * 25
        self.detail = ""  # the lock's outcome, or why the camera cannot be read

    @property
    def can_save(self) -> bool:
        return self.state == "good"

    def save(self) -> bool:
        """Whether a save may start now (then the screen waits for ``saved``)."""
        if not self.can_save:
            return False
        self.state = "saving"
        return True

    def on_event(self, kind: str, data: dict[str, Any]) -> None:
        if kind == "check" and self.state not in ("saving", "saved"):
            self._report(data["report"])
            self.preview = {"image": data["image"], "cells": data["cells"]}
        elif kind == "saved":
            self._report(data["report"])
            lock = data.get("lock")
            self.detail = lock.message if lock is not None else ""
            if data.get("rig") is not None:
                self.state = "saved"
        elif kind == "failed":
            self.state = "failed"
            self.detail = data["text"]

    def _report(self, report: Any) -> None:
        order = {"bad": 0, "warn": 1, "good": 2}  # what to fix first, at the top
        self.rows = [{"verdict": c.verdict, "text": c.message}
                     for c in sorted(report.checks, key=lambda c: order[c.verdict])]
        self.state = "good" if report.ok else "fix"
        reading = report.reading
        if reading is not None and reading.found:
            self.marks = ["unknown" if c["kind"] == "unknown" else "ok"
                          for row in reading.cells for c in row]
        else:
            self.marks = ["none"] * 25


class EnrollPlanPresenter:
    """Settings > Your box's art: the photos that will teach the reader the box, one at a
    time, each cell as the picture of what to lay there (the bundled art of that face, so the
    side up shows) with its name; the empty board first."""

    def __init__(self, layouts: list[Any]) -> None:
        self.layouts = layouts
        self.index = 0

    @property
    def layout(self) -> Any:
        return self.layouts[self.index]

    @property
    def first(self) -> bool:
        return self.index == 0

    @property
    def last(self) -> bool:
        return self.index == len(self.layouts) - 1

    def step(self, by: int) -> None:
        self.index = min(max(self.index + by, 0), len(self.layouts) - 1)

    @property
    def shown_again(self) -> bool:
        """This photo shows faces an earlier one showed (the coins' second look)."""
        earlier = {f for lay in self.layouts[:self.index] for f in lay.faces if f.kind != "empty"}
        return any(f in earlier for f in self.layout.faces if f.kind != "empty")

    def cells(self) -> list[dict[str, str | None]]:
        """The 25 cells, row 1 first: the art file to show (None: leave it empty) and a
        caption (a token's name, a cat's colour and value, ``?`` face down, a shopper's
        colour)."""
        out: list[dict[str, str | None]] = []
        for face in self.layout.faces:
            if face.kind == "empty":
                out.append({"picture": None, "caption": ""})
                continue
            caption = {"ingredient": face.token, "coin": f"{face.token}",
                       "cat": f"{face.player} {face.value}", "cat-back": f"{face.player} ?",
                       "shopper": f"{face.player}"}[face.kind]
            out.append({"picture": face.art(), "caption": caption})
        return out
