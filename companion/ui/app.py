"""The kiosk: a Kivy touchscreen front end of the referee session.

Screens are thin: each draws its presenter (``companion.ui.presenters``) and sends taps on. The
referee runs on its own thread (``companion.table.runner``); this module polls its events.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from kivy.app import App
from kivy.clock import Clock
from kivy.core.window import Window
from kivy.lang import Builder
from kivy.properties import NumericProperty
from kivy.uix.behaviors import ButtonBehavior
from kivy.uix.boxlayout import BoxLayout
from kivy.uix.button import Button
from kivy.uix.image import Image
from kivy.uix.label import Label
from kivy.uix.modalview import ModalView
from kivy.uix.screenmanager import NoTransition, Screen, ScreenManager
from kivy.uix.textinput import TextInput

from companion.rules import game_names
from companion.table import history as games_history
from companion.table.calibrate import Calibrator, rig_controls, start_pose
from companion.table.journal import Journal
from companion.table.rig import RigError, load_rig, rig_path
from companion.table.runner import SessionRunner
from companion.table.session import RefereeSession
from companion.table.watchdog import Heartbeats, Notifier, WatchdogPinger, watchdog_interval
from companion.ui.presenters import (
    CalibratePresenter,
    EnrollPlanPresenter,
    FinalPresenter,
    SequencePicker,
    StartPresenter,
    TablePresenter,
    category_words,
    game_title,
    option_pictures,
)
from companion.ui.settings import KioskSettings, SettingsError
from companion.ui.strings import Strings
from companion.ui.widgets import (  # CameraView: registered for screens.kv
    ART_DIR,
    SEAT_COLOURS,
    BoardView,
    CameraView,  # noqa: F401
    SafeScroll,
    ScoreBars,
)

log = logging.getLogger(__name__)
KV_FILE = Path(__file__).with_name("screens.kv")  # not kiosk.kv: Kivy would load it twice
POLL_S = 0.05
SCREEN_STUCK_S = 10.0  # s without a tick of the screen's clock that counts as frozen
GAME_SCREENS = ("table", "question", "private", "reveal", "mismatch", "final")
# the options a game may be given from the settings screen
GAME_OPTIONS = {"food-alley/sambal": {"recipes": ("top", "open")},
                "food-trucks": {"happy_hour": ("false", "true")}}


@dataclass
class KioskConfig:
    data_dir: Path
    source: str | None = None  # None: the settings' source
    demo: bool = False
    size: tuple[int, int] = (800, 480)
    fullscreen: bool = False
    screenshots: Path | None = None
    pace: float = 1.0
    recording: Path | None = None  # a recorded game to play instead of the bundled demo
    tap_delay: float | None = None  # s the demo's hands wait before each tap
    model: Path | None = None  # the reader's model folder (None: the bundled model)


def sentence(text: str) -> str:
    """The referee's words start in lower case (they name players by colour): a screen line
    starts with a capital."""
    return text[:1].upper() + text[1:]


# --- small widgets built in Python ------------------------------------------------------------
class PictureButton(ButtonBehavior, BoxLayout):
    """A touch target with pictures of tokens or cats and a line of text."""

    def __init__(self, text: str, pictures: list[str], app: KioskApp, **kwargs: Any) -> None:
        super().__init__(orientation="vertical", padding=4 * app.u, spacing=2 * app.u,
                         size_hint_y=None, **kwargs)
        self.text = text
        with self.canvas.before:
            from kivy.graphics import Color, Rectangle
            Color(0.22, 0.32, 0.48, 1)
            self._bg = Rectangle(pos=self.pos, size=self.size)
        self.bind(pos=lambda *_: setattr(self._bg, "pos", self.pos),
                  size=lambda *_: setattr(self._bg, "size", self.size))
        pics = [p for p in pictures if (ART_DIR / f"{p}.png").is_file()]
        if pics:
            row = BoxLayout(spacing=2 * app.u)
            for p in pics:
                row.add_widget(Image(source=str(ART_DIR / f"{p}.png"), fit_mode="contain"))
            self.add_widget(row)
        label = Label(text=text, font_size=18 * app.u, halign="center", valign="middle")
        if pics:  # the pictures take the room; the text its own height below them
            label.bind(width=lambda w, v: setattr(w, "text_size", (v - 8 * app.u, None)))
            label.bind(texture_size=lambda w, v: setattr(w, "height", v[1] + 4 * app.u))
            label.size_hint_y = None
        else:  # the text alone, centred
            label.bind(size=lambda w, v: setattr(w, "text_size", (v[0] - 8 * app.u, v[1])))
        self.add_widget(label)
        self.height = (120 if pics else 64) * app.u


def wrapped(label: Label, *, pad: float = 0.0, least: float = 0.0, grow: Any = None) -> Label:
    """A label that wraps its text at its own width, and whose height (or ``grow``'s, the box
    that holds it) follows the text: the text's height plus ``pad``, at least ``least``."""
    target = label if grow is None else grow
    label.bind(width=lambda w, v: setattr(w, "text_size", (v, None)),
               texture_size=lambda w, v: setattr(target, "height", max(least, v[1] + pad)))
    return label


def _modal(app: KioskApp, title: str, buttons: list[tuple[str, Any]], *,
           body: str = "") -> ModalView:
    view = ModalView(size_hint=(0.9, 0.9), auto_dismiss=False)
    box = BoxLayout(orientation="vertical", padding=10 * app.u, spacing=6 * app.u)
    box.add_widget(wrapped(Label(text=title, font_size=24 * app.u, bold=True,
                                 size_hint_y=None), pad=6 * app.u))
    if body:
        box.add_widget(wrapped(Label(text=body, size_hint_y=None, font_size=18 * app.u),
                               pad=6 * app.u))
    scroll = SafeScroll(do_scroll_x=False)
    inner = BoxLayout(orientation="vertical", size_hint_y=None, spacing=6 * app.u)
    inner.bind(minimum_height=inner.setter("height"))
    for text_, action in buttons:
        b = Button(text=text_, size_hint_y=None, height=56 * app.u, font_size=20 * app.u,
                   halign="center", valign="middle", background_normal="",
                   background_color=(0.22, 0.32, 0.48, 1))
        b.bind(width=lambda w, v: setattr(w, "text_size", (v - 12 * app.u, None)))
        b.bind(on_release=lambda _b, a=action: (view.dismiss(), a() if a else None))
        inner.add_widget(b)
    scroll.add_widget(inner)
    box.add_widget(scroll)
    view.add_widget(box)
    view.open()
    return view


# --- screens ----------------------------------------------------------------------------------
class KioskScreen(Screen):
    @property
    def app(self) -> KioskApp:
        return App.get_running_app()  # type: ignore[return-value]

    def update(self) -> None:
        """Redraw from the presenter (called after events)."""

    def update_preview(self) -> None:
        """Redraw the camera view alone (a new preview, nothing else changed)."""
        camera = self.ids.get("camera")
        app = self.app
        if camera is None:
            return
        if self.name == "start":
            camera.preview = app.check_preview
        elif app.table is not None and camera.parent is not None:
            camera.preview = app.table.preview
            camera.marks = app.table.cell_marks()


class StartScreen(KioskScreen):
    def on_pre_enter(self, *_: Any) -> None:
        self.build_lists()

    def build_lists(self) -> None:
        app = self.app
        p = app.start
        games = self.ids.games
        games.clear_widgets()
        for game in p.games:
            b = Button(text=game_title(game), font_size=17 * app.u,
                       background_normal="", halign="center", valign="middle",
                       background_color=(0.2, 0.55, 0.3, 1) if game == p.game
                       else (0.28, 0.28, 0.3, 1))
            b.bind(on_release=lambda _b, g=game: self.pick(g),  # a long title wraps
                   size=lambda w, v: setattr(w, "text_size", (v[0] - 6 * app.u, v[1])))
            games.add_widget(b)
        low, high = p.player_range
        self.ids.players.text = app.t("start.players", count=len(p.seats), low=low, high=high)
        seats = self.ids.seats
        seats.clear_widgets()
        for i, seat in enumerate(p.seats):
            colour = Button(text=seat.colour, font_size=18 * app.u, background_normal="",
                            background_color=SEAT_COLOURS.get(seat.colour, (0.5, 0.5, 0.5, 1)),
                            color=(0, 0, 0, 1) if seat.colour == "white" else (1, 1, 1, 1),
                            size_hint_x=0.35)
            colour.bind(on_release=lambda _b, k=i: self.next_colour(k))
            name = Button(text=seat.name, font_size=20 * app.u, background_normal="",
                          background_color=(0.28, 0.28, 0.3, 1))
            name.bind(on_release=lambda _b, k=i: self.pick_name(k))
            seats.add_widget(colour)
            seats.add_widget(name)
        resume = self.ids.resume
        resume.clear_widgets()
        for record in p.resumable[:1]:
            b = Button(text=app.t("start.resume", game=game_title(record["game"]),
                                  names=", ".join(record["names"]), n=record["steps"]),
                       size_hint_y=None, height=56 * app.u, font_size=17 * app.u,
                       halign="center", valign="middle", background_normal="",
                       background_color=(0.45, 0.35, 0.2, 1))
            b.bind(width=lambda w, v: setattr(w, "text_size", (v - 10 * app.u, None)))
            b.bind(on_release=lambda _b, gid=record["id"]: app.resume_game(gid))
            resume.add_widget(b)
        self.update()

    def update(self) -> None:
        app = self.app
        camera = app.start.camera
        words = {"live": app.t("camera.live"), "none": app.t("camera.none"),
                 "board not found": app.t("camera.not_found"),
                 "not read": app.t("camera.not_read"), "starting": app.t(
                     "camera.starting"), "failed": app.t("camera.failed"),
                 "ended": app.t("camera.live")}
        text = words.get(camera["state"], camera["state"])
        if camera["state"] in ("board not found", "not read", "failed") and \
                camera.get("text"):
            text += f": {camera['text']}"
        if app.rig_notice:
            text += f"\n{app.rig_notice}"
        self.ids.camera_state.text = text
        self.ids.camera.preview = app.check_preview
        self.ids.camera.marks = ["none"] * 25

    def pick(self, game: str) -> None:
        self.app.start.pick_game(game)
        self.build_lists()

    def change_players(self, delta: int) -> None:
        p = self.app.start
        p.set_players(len(p.seats) + delta)
        self.build_lists()

    def next_colour(self, seat: int) -> None:
        self.app.start.next_colour(seat)
        self.build_lists()

    def pick_name(self, seat: int) -> None:
        app = self.app
        p = app.start
        view = ModalView(size_hint=(0.95, 0.95), auto_dismiss=False)
        box = BoxLayout(orientation="vertical", padding=8 * app.u, spacing=6 * app.u)
        box.add_widget(Label(text=app.t("start.name_for", colour=p.seats[seat].colour),
                             size_hint_y=None, height=40 * app.u, bold=True))
        from kivy.uix.gridlayout import GridLayout
        grid = GridLayout(cols=3, spacing=6 * app.u, row_default_height=52 * app.u,
                          row_force_default=True)
        for name in p.name_choices(seat)[:9]:
            b = Button(text=name, font_size=20 * app.u)
            b.bind(on_release=lambda _b, n=name: (p.set_name(seat, n), view.dismiss(),
                                                  self.build_lists()))
            grid.add_widget(b)
        box.add_widget(grid)
        row = BoxLayout(size_hint_y=None, height=56 * app.u, spacing=6 * app.u)
        typed = TextInput(hint_text=app.t("start.new_name"), multiline=False,
                          font_size=22 * app.u)
        ok = Button(text=app.t("ok"), size_hint_x=0.25, font_size=20 * app.u)
        note = Label(size_hint_y=None, height=30 * app.u, color=(1, 0.75, 0.3, 1),
                     font_size=16 * app.u)

        def take(*_: Any) -> None:
            why = p.set_name(seat, typed.text)
            if why:
                note.text = why
                return
            view.dismiss()
            self.build_lists()

        ok.bind(on_release=take)
        typed.bind(on_text_validate=take)
        row.add_widget(typed)
        row.add_widget(ok)
        box.add_widget(row)
        box.add_widget(note)
        cancel = Button(text=app.t("back"), size_hint_y=None, height=56 * app.u,
                        font_size=20 * app.u)
        cancel.bind(on_release=lambda *_: view.dismiss())
        box.add_widget(cancel)
        view.add_widget(box)
        view.open()

    def start_game(self) -> None:
        self.app.begin_game(self.app.start.setup())


class TableScreen(KioskScreen):
    _shown: tuple[Any, ...] = ()
    option_buttons: list[Any] = []

    def update(self) -> None:
        app = self.app
        p = app.table
        if p is None:
            return
        v = p.view
        self.ids.waiting.text = sentence(v.waiting)
        self.ids.turn.text = app.t("table.turn", player=v.turn) if v.turn else ""
        self.ids.steps_title.text = app.t("table.last_steps") if v.history else ""
        self.ids.notice.text = p.notice or ("; ".join(v.unsure) if v.unsure else "")
        if p.view.camera in ("failed", "ended", "not read") and v.camera_text and \
                not v.manual:
            self.ids.notice.text = v.camera_text
        self.ids.scores.text = "   ".join(f"{n}: {s}" for n, s in v.scores.items()) if \
            v.scores else ""
        self.ids.pause.text = app.t("table.resume") if p.paused else app.t("table.pause")
        box = self.ids.view_box
        if p.manual_entry:
            if not isinstance(box.children[0], BoardView):
                box.clear_widgets()
                box.add_widget(BoardView())
            box.children[0].board = v.board
        else:
            camera = box.children[0]
            camera.preview = p.preview
            camera.marks = p.cell_marks()
        optional = p.optional_question
        shown = (tuple(v.history), tuple(v.manual), optional["id"] if optional else None)
        if shown != self._shown:
            self._shown = shown
            steps = self.ids.steps
            steps.clear_widgets()
            self.option_buttons = []
            if optional is not None:
                ordered = sorted(optional["options"],
                                 key=lambda o: len(option_pictures(o["action"])))
                for o in ordered:
                    b = PictureButton(o["text"], option_pictures(o["action"]), app)
                    b.bind(on_release=lambda _b, k=o["index"], qid=optional["id"]:
                           app.answer(qid, k))
                    b.index = o["index"]
                    self.option_buttons.append(b)
                    steps.add_widget(b)
            if v.manual:
                for i, text in enumerate(v.manual[:60]):
                    b = Button(text=text, size_hint_y=None, height=56 * app.u,
                               font_size=18 * app.u, halign="center", valign="middle",
                               background_normal="", background_color=(0.22, 0.32, 0.48, 1))
                    b.bind(width=lambda w, val: setattr(w, "text_size", (val - 10 * app.u,
                                                                          None)))
                    b.bind(on_release=lambda _b, k=i: app.runner.send("enter", k))
                    steps.add_widget(b)
            for text in reversed(v.history):
                line = Label(text=text, font_size=17 * app.u, size_hint_y=None,
                             halign="left", color=(0.85, 0.85, 0.85, 1))
                line.bind(width=lambda w, val: setattr(w, "text_size", (val, None)),
                          texture_size=lambda w, val: setattr(w, "height", val[1] + 2))
                steps.add_widget(line)

    def confirm_undo(self) -> None:
        app = self.app
        if app.table is None or not app.table.view.history:
            return
        last = app.table.view.history[-1]
        _modal(app, app.t("undo.title"), [
            (app.t("undo.yes"), lambda: app.runner.send("undo", "kiosk")),
            (app.t("undo.no"), None)], body=last)

    def toggle_pause(self) -> None:
        app = self.app
        if app.table is not None and app.runner is not None:
            app.runner.send("pause", not app.table.paused)

    def open_corrections(self) -> None:
        app = self.app
        p = app.table
        if p is None or app.runner is None:
            return
        n0 = p.view.n - len(p.view.history)
        buttons = []
        for k, text in reversed(list(enumerate(p.view.history))):
            if text.startswith("reveal") or "behind the screen" in text:
                continue
            buttons.append((f"{n0 + k}: {text}", lambda n=n0 + k: app.ask_correction(n)))
        _modal(app, app.t("correct.which"), buttons + [(app.t("back"), None)])


class QuestionScreen(KioskScreen):
    _shown: Any = None
    picker: SequencePicker | None = None
    element_buttons: dict[Any, Any] = {}

    def update(self) -> None:
        app = self.app
        p = app.table
        q = p.public_question if p is not None else None
        if q is None:
            return
        self.ids.prompt.text = sentence(q["prompt"])
        self.ids.status.text = "\n".join(p.view.status)
        if self._shown == q["id"]:
            if p.notice:
                self.ids.notice.text = p.notice
            return
        self.ids.notice.text = p.notice
        self._shown = q["id"]
        self.ids.scroller.to_top()  # a new question starts at its first options
        self.picker = SequencePicker.fits(q.get("options") or [])
        if self.picker is not None:
            self.build_picker()
            return
        grid = self.ids.options
        grid.clear_widgets()
        if q["kind"] == "choose":
            grid.cols = min(3, max(1, len(q["candidates"])))
            from companion.rules.food_alley.market import CELLS, name
            for i, c in enumerate(q["candidates"]):
                card = PictureButton(" then ".join(c["steps"]), [], app)
                board = BoardView(size_hint_y=None, height=150 * app.u)
                board.board = c["board"]
                board.marked = [k for k in CELLS if name(k) in c["differ"]]
                card.add_widget(board, index=1)
                card.height = 230 * app.u
                card.bind(on_release=lambda _b, k=i, qid=q["id"]: app.answer(qid, k))
                grid.add_widget(card)
        else:
            grid.cols = 2
            for o in q["options"]:
                b = PictureButton(o["text"], option_pictures(o["action"]), app)
                b.bind(on_release=lambda _b, k=o["index"], qid=q["id"]: app.answer(qid, k))
                grid.add_widget(b)

    def build_picker(self) -> None:
        """One button per thing that can come next, and the order so far."""
        app = self.app
        picker = self.picker
        assert picker is not None
        grid = self.ids.options
        grid.clear_widgets()
        grid.cols = 3
        chosen = ", ".join(map(str, picker.chosen)) or "-"
        self.ids.notice.text = app.t("question.in_order", chosen=chosen)
        self.element_buttons = {}
        for element in picker.next_choices():
            b = PictureButton(str(element), option_pictures({"x": element}), app)
            b.bind(on_release=lambda _b, e=element: self.pick(e))
            self.element_buttons[element] = b
            grid.add_widget(b)
        if picker.chosen:
            again = PictureButton(app.t("question.again"), [], app)
            again.bind(on_release=lambda _b: (picker.reset(), self.build_picker()))
            grid.add_widget(again)

    def pick(self, element: Any) -> None:
        app = self.app
        picker = self.picker
        q = app.table.public_question if app.table is not None else None
        if picker is None or q is None or element not in picker.next_choices():
            return  # a second tap on a button already spent, before the screen caught up
        index = picker.pick(element)
        if index is not None:
            app.answer(q["id"], index)
            picker.reset()  # the next question rebuilds; a refused answer is picked again
        self.build_picker()


class PrivateScreen(KioskScreen):
    _shown: Any = None

    def update(self) -> None:
        app = self.app
        p = app.table
        entry = p.private if p is not None else None
        if entry is None:
            self._clear()
            return
        player = entry.player
        if not entry.is_open:
            self._clear()
            self.ids.title.text = app.t("private.pass_to", player=player)
            self.ids.hint.text = app.t("private.cover_hint", player=player, seconds=30)
            self.ids.action.text = app.t("private.open", player=player)
            return
        self.ids.title.text = app.t("private.choose", player=player)
        self.ids.action.text = app.t("private.cover")
        if entry.options is None:
            self.ids.hint.text = app.t("private.loading")
            return
        self.ids.hint.text = app.t("private.entry_hint")
        if self._shown == entry.question:
            return
        self._shown = entry.question
        grid = self.ids.options
        grid.clear_widgets()
        for o in entry.options:
            b = PictureButton(o["text"], option_pictures(o["action"]), app)
            b.bind(on_release=lambda _b, k=o["index"]: app.choose_private(k))
            grid.add_widget(b)
        self.ids.scroller.to_top()  # a new entry starts at its first options

    def _clear(self) -> None:
        self._shown = None
        self.ids.options.clear_widgets()

    def main_button(self) -> None:
        app = self.app
        p = app.table
        if p is None or p.private is None:
            return
        if p.private.is_open:
            p.cover()
        else:
            qid = p.open_private()
            if qid is not None and app.runner is not None:
                app.runner.send("private", qid)
        app.refresh()

    def on_touch_down(self, touch: Any) -> bool:
        app = self.app
        if app.table is not None:
            app.table.touch()
        return super().on_touch_down(touch)


class RevealScreen(KioskScreen):
    def update(self) -> None:
        p = self.app.table
        if p is not None and p.reveal is not None:
            text = p.reveal
            self.ids.text.text = sentence(text.split(": ", 1)[1] if text.startswith(
                "reveal: ") else text)

    def done(self) -> None:
        app = self.app
        if app.table is not None:
            app.table.dismiss_reveal()
        app.refresh()


class MismatchScreen(KioskScreen):
    def update(self) -> None:
        app = self.app
        p = app.table
        if p is None or p.warning is None:
            return
        w = p.warning
        self.ids.sentence.text = "; ".join(w.get("differences") or [w.get("text", "")])
        allowed = w.get("allowed", "")
        if len(allowed) > 140:  # the first few; the rest is what the players know
            allowed = allowed[:allowed.rfind(";", 0, 140)] + "; ..."
        self.ids.allowed.text = app.t("mismatch.allowed", allowed=allowed)
        self.ids.camera.preview = p.preview
        self.ids.camera.marks = p.cell_marks()


class FinalScreen(KioskScreen):
    _shown: Any = None

    def update(self) -> None:
        app = self.app
        p = app.table
        if p is None or p.final is None or self._shown is p.final:
            return
        self._shown = p.final
        names = dict(zip(p.colours, p.names, strict=True))
        final = FinalPresenter(p.final, names)
        self.ids.headline.text = sentence(final.headline)
        self.ids.end.text = sentence(final.end_text)
        self.ids.tiebreak.text = app.t("final.tiebreak", text=final.tiebreak) if \
            final.tiebreak else ""
        rows = self.ids.rows
        rows.clear_widgets()
        scale = final.bar_scale()
        for row in final.rows:
            # a line a category, and never less than the name over the total (two lines)
            line = BoxLayout(size_hint_y=None, spacing=6 * app.u,
                             height=max(26 * len(final.categories) + 8, 60) * app.u)
            who = Label(text=f"{row.place}. {row.name}\n{row.total}", font_size=22 * app.u,
                        bold=row.winner, size_hint_x=0.25, halign="center")
            who.bind(width=lambda w, v: setattr(w, "text_size", (v, None)))
            labels = BoxLayout(orientation="vertical", size_hint_x=0.35)
            for cat, value in row.breakdown.items():
                lab = Label(text=f"{category_words(cat)} {value:+d}" if value < 0 else
                            f"{category_words(cat)} {value}", font_size=16 * app.u,
                            halign="right")
                lab.bind(size=lambda w, v: setattr(w, "text_size", v))
                labels.add_widget(lab)
            bars = ScoreBars(size_hint_x=0.4)
            bars.values = list(row.breakdown.items())
            bars.scale = scale
            colour = dict(zip(p.names, p.colours, strict=True)).get(row.name, "")
            bars.colour = list(SEAT_COLOURS.get(colour, (0.9, 0.7, 0.2, 1)))
            if colour == "black":
                bars.colour = [0.45, 0.45, 0.5, 1]
            line.add_widget(who)
            line.add_widget(labels)
            line.add_widget(bars)
            rows.add_widget(line)


class HistoryScreen(KioskScreen):
    selected: int | None = None  # a game chosen for export; None: all of them

    def on_pre_enter(self, *_: Any) -> None:
        self.selected = None
        self.build()

    def build(self) -> None:
        app = self.app
        table = self.ids.table
        table.clear_widgets()
        plays = games_history.finished(app.journal)
        for head in ("history.player", "history.games", "history.wins", "history.average"):
            table.add_widget(Label(text=app.t(head), bold=True, font_size=18 * app.u))
        for row in games_history.figures(plays):
            for text in (row.name, str(row.games), str(row.wins), f"{row.average:.1f}"):
                table.add_widget(Label(text=text, font_size=18 * app.u))
        games = self.ids.games
        games.clear_widgets()
        for play in reversed(plays[-30:]):
            when = time.strftime("%d %b %H:%M", time.localtime(play.started))
            scores = ", ".join(f"{n} {s}" for n, s in play.scores.items())
            b = Button(text=f"{when}  {game_title(play.game)}  {scores}", size_hint_y=None,
                       height=52 * app.u, font_size=17 * app.u, halign="left",
                       valign="middle", background_normal="",
                       background_color=(0.2, 0.55, 0.3, 1) if play.id == self.selected
                       else (0.22, 0.24, 0.28, 1))
            b.bind(size=lambda w, v: setattr(w, "text_size", (v[0] - 16 * app.u, None)))
            b.bind(on_release=lambda _b, gid=play.id: self.select(gid))
            games.add_widget(b)
        if not plays:
            self.ids.exported.text = app.t("history.none")
        elif self.selected is None:
            self.ids.exported.text = app.t("history.count", count=len(plays))
        else:
            self.ids.exported.text = app.t("history.one")

    def select(self, gid: int) -> None:
        self.selected = None if self.selected == gid else gid
        self.build()

    def export(self, kind: str) -> None:
        app = self.app
        plays = [p for p in games_history.finished(app.journal)
                 if self.selected is None or p.id == self.selected]
        writer = {"json": games_history.to_json, "csv": games_history.to_csv,
                  "bgstats": games_history.to_bgstats}[kind]
        folder = app.config_.data_dir / "exports"
        folder.mkdir(parents=True, exist_ok=True)
        suffix = {"json": ".json", "csv": ".csv", "bgstats": ".bgsplay"}[kind]
        which = f"game-{self.selected}" if self.selected is not None else "games"
        path = folder / f"{which}-{time.strftime('%Y%m%d-%H%M%S')}{suffix}"
        path.write_text(writer(plays), encoding="utf-8")
        self.ids.exported.text = app.t("history.exported", path=str(path))


class PinScreen(KioskScreen):
    digits = ""
    first = ""

    def on_pre_enter(self, *_: Any) -> None:
        app = self.app
        self.digits = self.first = ""
        self.ids.notice.text = ""
        pad = self.ids.pad
        if not pad.children:
            for key in ("1", "2", "3", "4", "5", "6", "7", "8", "9", "del", "0", "ok"):
                label = {"del": app.t("pin.delete"), "ok": app.t("ok")}.get(key, key)
                b = Button(text=label, font_size=26 * app.u, background_normal="",
                           background_color=(0.28, 0.28, 0.3, 1))
                b.bind(on_release=lambda _b, k=key: self.press(k))
                pad.add_widget(b)
        self.show()

    def show(self) -> None:
        app = self.app
        if app.settings.has_pin:
            self.ids.title.text = app.t("pin.enter")
        else:
            self.ids.title.text = app.t("pin.confirm") if self.first else app.t("pin.choose")
        self.ids.dots.text = "* " * len(self.digits) or "-"

    def press(self, key: str) -> None:
        if key == "del":
            self.digits = self.digits[:-1]
        elif key == "ok":
            self.submit()
            return
        elif len(self.digits) < 8:
            self.digits += key
        self.show()

    def submit(self) -> None:
        app = self.app
        settings = app.settings
        if settings.has_pin:
            if settings.check_pin(self.digits):
                app.show("settings")
            else:
                self.ids.notice.text = app.t("pin.wrong")
                self.digits = ""
                self.show()
            return
        if not self.first:
            if not 4 <= len(self.digits) <= 8:
                self.ids.notice.text = app.t("pin.length")
                self.digits = ""
            else:
                self.first, self.digits = self.digits, ""
                self.ids.notice.text = ""
            self.show()
            return
        if self.digits != self.first:
            self.ids.notice.text = app.t("pin.differ")
            self.first = self.digits = ""
            self.show()
            return
        settings.set_pin(self.digits)
        app.show("settings")


class SettingsScreen(KioskScreen):
    def on_pre_enter(self, *_: Any) -> None:
        self.build()

    def _row(self, title: str, choices: list[tuple[str, Any, bool]]) -> BoxLayout:
        app = self.app
        row = BoxLayout(size_hint_y=None, height=56 * app.u, spacing=6 * app.u)
        label = Label(text=title, size_hint_x=None, width=190 * app.u, font_size=18 * app.u,
                      halign="left")  # one width on every row: the buttons line up
        label.bind(size=lambda w, v: setattr(w, "text_size", v))
        label.valign = "middle"
        row.add_widget(label)
        for text, action, chosen in choices:
            b = Button(text=text, font_size=18 * app.u, background_normal="",
                       background_color=(0.2, 0.55, 0.3, 1) if chosen else (0.28, 0.28, 0.3, 1))
            b.bind(on_release=lambda _b, a=action: (a(), self.build()))
            row.add_widget(b)
        return row

    def build(self) -> None:
        app = self.app
        s = app.settings
        rows = self.ids.rows
        rows.clear_widgets()
        sources = [("camera", "camera"), ("webcam:0", "webcam"), ("none", "none")]
        rows.add_widget(self._row(app.t("settings.source"), [
            (app.t(f"settings.source_{key}"), lambda v=value: app.set_source(v), s.source == value)
            for value, key in sources]))
        for game, options in GAME_OPTIONS.items():
            for key, values in options.items():
                current = s.options.get(game, {}).get(key, values[0])
                rows.add_widget(self._row(app.t(f"settings.option.{key}"), [
                    (app.t(f"settings.option.{key}.{v}"),
                     lambda g=game, k=key, val=v: app.set_option(g, k, val), current == v)
                    for v in values]))
        rows.add_widget(self._row(app.t("settings.language"), [
            (name, lambda code=code: app.set_language(code), s.language == code)
            for code, name in app.strings.languages.items()]))
        rows.add_widget(self._row(app.t("settings.rig_title"), [
            (app.rig_status(), app.open_calibration, False)]))
        rows.add_widget(self._row(app.t("settings.enroll_title"), [
            (app.t("settings.enroll_show"), app.open_enroll_plan, False)]))
        rows.add_widget(self._row(app.t("settings.reset_title"), [
            (app.t("settings.reset"), app.reset_kiosk, False)]))
        rows.add_widget(self._row(app.t("settings.pin_title"), [
            (app.t("settings.pin_change"), app.change_pin, False)]))
        self.ids.notice.text = app.notice


class CalibrateScreen(KioskScreen):
    """Settings > Camera rig: the checks live, once a second, and "Lock and save"."""

    MARK_COLOURS = {"good": (0.3, 0.85, 0.4, 1), "warn": (1, 0.8, 0.1, 1),
                    "bad": (1, 0.35, 0.3, 1)}

    def update(self) -> None:
        app = self.app
        p = app.calibration
        if p is None:
            return
        rows = self.ids.rows
        rows.clear_widgets()
        for row in p.rows:
            box = BoxLayout(size_hint_y=None, spacing=8 * app.u)
            mark = Label(text=app.t(f"calibrate.{row['verdict']}"), size_hint_x=None,
                         width=70 * app.u, font_size=16 * app.u, bold=True,
                         color=self.MARK_COLOURS[row["verdict"]])
            text = wrapped(Label(text=sentence(row["text"]), font_size=15 * app.u,
                                 halign="left", valign="middle"),
                           pad=6 * app.u, least=34 * app.u, grow=box)
            box.add_widget(mark)
            box.add_widget(text)
            rows.add_widget(box)
        self.ids.status.text = app.t(f"calibrate.state_{p.state}", detail=p.detail)
        self.ids.save.disabled = not p.can_save
        self.update_preview()

    def update_preview(self) -> None:
        p = self.app.calibration
        if p is not None:
            self.ids.camera.preview = p.preview
            self.ids.camera.marks = p.marks


class EnrollPlanScreen(KioskScreen):
    """Settings > Your box's art: the photos to take, one layout at a time, as pictures."""

    def update(self) -> None:
        app = self.app
        p = app.enroll_plan
        if p is None:
            return
        grid = self.ids.grid
        grid.clear_widgets()
        for cell in p.cells():
            box = BoxLayout(orientation="vertical", spacing=1 * app.u)
            if cell["picture"]:
                box.add_widget(Image(source=str(ART_DIR / cell["picture"]), fit_mode="contain"))
                box.add_widget(wrapped(Label(text=cell["caption"] or "", font_size=9 * app.u,
                                             size_hint_y=None, halign="center")))
            else:  # an empty cell: its place on the board, faintly
                box.add_widget(Label(text="o", font_size=22 * app.u, color=(1, 1, 1, 0.25)))
            grid.add_widget(box)
        layout = p.layout
        self.ids.title.text = app.t("enroll.title", n=p.index + 1, total=len(p.layouts),
                                    file=layout.file_name)
        self.ids.hint.text = app.t("enroll.empty" if p.first else "enroll.lay") + (
            " " + app.t("enroll.again") if p.shown_again else "")
        self.ids.previous.disabled = p.first
        self.ids.next.disabled = p.last


# --- the app ----------------------------------------------------------------------------------
class KioskApp(App):
    u = NumericProperty(1.0)
    title = "Food Alley Companion"

    def __init__(self, config: KioskConfig, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.config_ = config
        self.journal = Journal(config.data_dir)
        try:
            self.settings = KioskSettings.load(config.data_dir)
            self.notice = ""
        except SettingsError as exc:
            self.settings = KioskSettings(Path(config.data_dir) / "kiosk.json")
            self.notice = str(exc)
        self.strings = Strings(self.settings.language if self.settings.language in
                               Strings().languages else "en")
        self.demo = None
        if config.demo:
            from companion.table.demo import DEMO_DIR, bundled_demo
            self.demo = bundled_demo(config.recording or DEMO_DIR)
        self.start = self._start_presenter()
        self.table: TablePresenter | None = None
        self.runner: SessionRunner | None = None
        self.checker: SessionRunner | None = None
        self.calibrator: Calibrator | None = None
        self.calibration: CalibratePresenter | None = None
        self.enroll_plan: EnrollPlanPresenter | None = None
        self.rig_notice = ""  # why the camera rig file cannot be used, shown on the start screen
        self.check_preview: dict[str, Any] | None = None
        self.history_stack: list[str] = []
        self.auto: Any = None
        self.on_reply: list[Any] = []  # callbacks for replies that screens wait for
        # systemd: ready once the start screen is up; the watchdog pinged while the screen
        # and the camera both beat (companion/table/watchdog.py)
        self.notifier = Notifier()
        self.beats = Heartbeats()
        self.pinger: WatchdogPinger | None = None

    # --- words and sizes ----------------------------------------------------------------------
    def t(self, key: str, **values: Any) -> str:
        return self.strings.t(key, **values)

    def _resize(self, *_: Any) -> None:
        self.u = max(1.0, min(Window.width / 800, Window.height / 480))

    # --- building -----------------------------------------------------------------------------
    def build(self) -> ScreenManager:
        Window.bind(size=self._resize)
        self._resize()
        Builder.load_file(str(KV_FILE))
        manager = ScreenManager(transition=NoTransition())
        self._add_screens(manager)
        Clock.schedule_interval(self.poll, POLL_S)
        Clock.schedule_once(lambda *_: self._check_camera(), 0)
        self.beats.register("screen", SCREEN_STUCK_S)
        Clock.schedule_interval(lambda *_: self.beats.beat("screen"), 1.0)
        interval = watchdog_interval()
        if interval is not None and self.notifier.active:
            self.pinger = WatchdogPinger(self.notifier, self.beats, interval)
            self.pinger.start()
        Clock.schedule_once(lambda *_: self.notifier.ready("the start screen is up"), 0.5)
        return manager

    def _add_screens(self, manager: ScreenManager) -> None:
        for name, cls in (("start", StartScreen), ("table", TableScreen),
                          ("question", QuestionScreen), ("private", PrivateScreen),
                          ("reveal", RevealScreen), ("mismatch", MismatchScreen),
                          ("final", FinalScreen), ("history", HistoryScreen),
                          ("pin", PinScreen), ("settings", SettingsScreen),
                          ("calibrate", CalibrateScreen), ("enroll", EnrollPlanScreen)):
            manager.add_widget(cls(name=name))

    def screen(self, name: str) -> Any:
        return self.root.get_screen(name)

    def show(self, name: str) -> None:
        if self.root.current != name:
            if name in ("history", "pin", "settings", "calibrate"):
                self.history_stack.append(self.root.current)
            self.root.current = name
        self.root.current_screen.update()

    def back(self) -> None:
        target = self.history_stack.pop() if self.history_stack else "start"
        if target in ("pin", "settings"):
            target = "start"
        self.root.current = target
        self.refresh()

    def open_settings(self) -> None:
        self.show("pin")

    def on_stop(self) -> None:
        self.notifier.stopping()
        if self.pinger is not None:
            self.pinger.stop()
        for runner in (self.runner, self.checker, self.calibrator):
            if runner is not None:
                runner.stop()
        self.journal.close()

    # --- the start screen ---------------------------------------------------------------------
    def _start_presenter(self) -> StartPresenter:
        resumable = []
        record = self.journal.unfinished()
        if record is not None and self.demo is None:
            resumable.append({"id": record.id, "game": record.game, "names": record.names,
                              "steps": len(self.journal.steps(record.id))})
        demo = self.demo
        p = StartPresenter(game_names(), recent_names=games_history.recent_names(self.journal),
                           resumable=resumable, game=demo.game if demo else None,
                           players=demo.players if demo else 2)
        if self.source_spec is not None:
            p.set_camera("starting")
        return p

    @property
    def source_spec(self) -> str | None:
        """The frame source of the next game (None: manual entry)."""
        if self.demo is not None:
            return self.demo.source
        spec = self.config_.source or self.settings.source
        return None if spec in ("none", "") else spec

    def _check_camera(self) -> None:
        """Show the camera's state on the start screen (a preview, no game)."""
        spec = self.source_spec
        if spec is None:
            self.start.set_camera("none")
            self.refresh()
            return
        source = self._open_source(spec)
        if source is None:
            return
        self.start.set_camera("starting")
        self.refresh()
        self.checker = SessionRunner(None, source, pace=self.config_.pace or 1.0,
                                     reader_factory=self._reader_factory(),
                                     heartbeats=self.beats, start_pose=self._rig_start(spec))
        self.checker.start()

    def _open_source(self, spec: str) -> Any:
        """The frame source, with the rig's locked camera controls, or None with why on the
        start screen."""
        from companion.table.sources import SourceError, open_source
        try:
            return open_source(spec, controls=rig_controls(self.rig_file, spec))
        except SourceError as exc:
            self.start.set_camera("failed", str(exc))
            self.refresh()
            return None

    def _stop_checker(self) -> None:
        if self.checker is not None:
            self.checker.stop()
            self.checker = None

    # --- the camera rig --------------------------------------------------------------------------
    @property
    def rig_file(self) -> Path:
        return rig_path(self.config_.data_dir)

    def _reader_factory(self) -> Callable[[], Any] | None:
        """The board reader with the model chosen at start (None: the runner's default, the
        bundled model); made on the session's thread."""
        model = self.config_.model
        if model is None:
            return None

        def make() -> Any:
            from companion.vision.reader import BoardReader
            return BoardReader(model)
        return make

    def _rig_start(self, spec: str | None) -> Any:
        """The pose a runner starts from on ``spec``'s first frame (the rig's, where it fits).
        A live camera without a rig file gets a hint to calibrate once."""
        if spec is None:
            return None
        self.rig_notice = ""
        if not self.rig_file.is_file() and spec.split(":")[0] in ("camera", "webcam"):
            self.rig_notice = self.t("start.rig_missing")
        return lambda size, warn: start_pose(self.rig_file, spec, size, warn)

    def rig_status(self) -> str:
        """The settings button's words: calibrate, recalibrate (since when), or broken."""
        if not self.rig_file.is_file():
            return self.t("settings.rig_calibrate")
        try:
            rig = load_rig(self.rig_file)
        except RigError:
            return self.t("settings.rig_broken")
        return self.t("settings.rig_recalibrate", date=rig.created[:10])

    def open_enroll_plan(self) -> None:
        """Settings > Your box's art: the photos that will teach the reader this box."""
        from companion.vision.enroll import enrollment_plan
        self.enroll_plan = EnrollPlanPresenter(enrollment_plan())
        self.show("enroll")
        self.screen("enroll").update()

    def step_enroll_plan(self, by: int) -> None:
        if self.enroll_plan is not None:
            self.enroll_plan.step(by)
            self.screen("enroll").update()

    def open_calibration(self) -> None:
        """Settings > Camera rig: the guided check on the camera of the next game."""
        spec = self.source_spec
        self.calibration = CalibratePresenter()
        if spec is None:
            self.calibration.on_event("failed", {"text": self.t("calibrate.no_camera")})
            self.show("calibrate")
            return
        self._stop_checker()
        from companion.table.sources import SourceError, open_source
        try:
            source = open_source(spec)  # automatic exposure: the lock is set afresh
        except SourceError as exc:
            self.calibration.on_event("failed", {"text": str(exc)})
            self.show("calibrate")
            return
        self.calibrator = Calibrator(source, spec, self.rig_file,
                                     reader_factory=self._reader_factory())
        self.calibrator.start()
        self.show("calibrate")

    def save_calibration(self) -> None:
        if self.calibration is not None and self.calibrator is not None \
                and self.calibration.save():
            self.calibrator.save()
            self.refresh()

    def leave_calibration(self) -> None:
        if self.calibrator is not None:
            self.calibrator.stop()
        self.calibrator = None
        self.calibration = None
        if self.history_stack and self.history_stack[-1] == "settings":
            self.history_stack.pop()
        self.root.current = "settings"
        self.root.current_screen.update()
        self._check_camera()  # the start screen's preview, with the new rig

    # --- games --------------------------------------------------------------------------------
    def begin_game(self, setup: dict[str, Any]) -> None:
        self._stop_checker()
        game = setup["game"]
        options = dict(self.settings.options.get(game, {}))
        if setup["colours"] is not None:
            options["colours"] = setup["colours"]
        spec = self.source_spec
        unfinished = self.journal.unfinished()
        if unfinished is not None:
            self.journal.abandon(unfinished.id)
        try:
            session = RefereeSession.start(game, setup["players"], names=setup["names"],
                                           journal=self.journal, source=spec or "manual",
                                           **options)
        except (ValueError, TypeError) as exc:
            self.start.set_camera("failed", str(exc))
            self.refresh()
            return
        self._run(session, spec)

    def resume_game(self, gid: int) -> None:
        self._stop_checker()
        session = RefereeSession.resume(self.journal, gid)
        record = self.journal.game(gid)
        spec = record.source if record.source not in (None, "manual") else None
        self._run(session, spec)

    def _run(self, session: RefereeSession, spec: str | None) -> None:
        source = self._open_source(spec) if spec is not None else None
        if spec is not None and source is None:
            return
        colours = list(session.seated)
        self.table = TablePresenter(session.state.GAME_ID, list(session.names), colours,
                                    manual=source is None)
        # the demo lets a warning be seen: the recording stops on it a while
        hold = (60.0 if self.config_.screenshots else 4.0) if self.demo is not None else 0.0
        self.runner = SessionRunner(session, source, pace=self.config_.pace,
                                    reader_factory=self._reader_factory(),
                                    hold_warning_s=hold, heartbeats=self.beats,
                                    start_pose=self._rig_start(spec))
        if self.demo is not None:
            from companion.table.answers import ScriptedTable, load_record
            steps, _ = load_record(self.demo.answers)
            self.runner.oracle = ScriptedTable(steps)
        self.runner.start()
        self.show("table")

    def new_game(self) -> None:
        if self.runner is not None:
            self.runner.stop()
        self.runner = None
        self.table = None
        self.start = self._start_presenter()
        self.history_stack = []
        self.show("start")
        self._check_camera()

    def reset_kiosk(self) -> None:
        """Between café customers: the game in progress is set aside (kept in the journal),
        the seats go back to their colours, the start screen comes up."""
        record = self.journal.unfinished()
        if record is not None:
            self.journal.abandon(record.id)
        self._stop_checker()
        self.new_game()

    # --- taps ---------------------------------------------------------------------------------
    def answer(self, qid: int, index: int) -> None:
        if self.runner is not None:
            self.runner.send("answer", qid, index)

    def choose_private(self, index: int) -> None:
        if self.table is None or self.runner is None:
            return
        qid, option = self.table.choose_private(index)
        self.runner.send("answer", qid, option, tag="private")
        self.refresh()

    def ask_correction(self, n: int) -> None:
        if self.runner is None:
            return

        def got(reply: dict[str, Any]) -> None:
            if not reply.get("ok"):
                return
            options = reply.get("result") or []
            _modal(self, self.t("correct.what", n=n), [
                (text, lambda k=k: self.runner.send("correct", n, k, "kiosk"))
                for k, text in enumerate(options)] + [(self.t("back"), None)])

        self.on_reply.append(("correction-options", got))
        self.runner.send("correction-options", n)

    def set_source(self, spec: str) -> None:
        self.settings.source = spec
        self.settings.save()

    def set_option(self, game: str, key: str, value: str) -> None:
        self.settings.options.setdefault(game, {})[key] = value
        self.settings.save()

    def set_language(self, code: str) -> None:
        self.settings.language = code
        self.settings.save()
        self.strings = Strings(code)
        manager = self.root
        current = manager.current
        for name in list(manager.screen_names):
            manager.remove_widget(manager.get_screen(name))
        self._add_screens(manager)
        manager.current = current
        self.refresh()

    def change_pin(self) -> None:
        self.settings.pin_hash = self.settings.pin_salt = None
        self.root.current = "pin"
        self.screen("pin").on_pre_enter()

    # --- events -------------------------------------------------------------------------------
    def poll(self, _dt: float = 0.0) -> None:
        changed = False
        previews = False  # only a new camera preview: redraw the camera view alone
        if self.calibrator is not None and self.calibration is not None:
            while True:
                try:
                    event = self.calibrator.events.get_nowait()
                except Exception:  # queue.Empty
                    break
                self.calibration.on_event(event.kind, event.data)
                changed = True
        for runner, to_table in ((self.checker, False), (self.runner, True)):
            if runner is None:
                continue
            while True:
                try:
                    event = runner.events.get_nowait()
                except Exception:  # queue.Empty
                    break
                if event.kind == "frame":
                    previews = True
                else:
                    changed = True
                if event.kind == "rig":  # the rig file cannot be used: searched for instead
                    log.warning("%s", event.data["text"])
                    self.rig_notice = self.t("start.rig_stale")
                    continue
                if not to_table:
                    if event.kind == "frame":
                        self.check_preview = event.data
                        if event.data["state"] != self.start.camera["state"]:
                            changed = True
                        self.start.set_camera(event.data["state"], event.data.get("reason")
                                              or "")
                    elif event.kind == "camera":
                        self.start.set_camera(event.data["state"], event.data["text"])
                    continue
                if event.kind == "reply":
                    for i, (name, callback) in enumerate(list(self.on_reply)):
                        if name == event.data.get("name"):
                            del self.on_reply[i]
                            callback(event.data)
                            break
                    if event.data.get("name") == "suggest":
                        if self.auto is not None:
                            self.auto.suggested(event.data)
                        continue
                if self.table is not None:
                    self.table.on_event(event.kind, event.data)
        if self.table is not None and self.table.tick():
            changed = True
        if changed:
            self.refresh()
        elif previews and self.root is not None:
            self.root.current_screen.update_preview()

    def refresh(self) -> None:
        if self.root is None:
            return
        current = self.root.current
        if self.table is not None and current in GAME_SCREENS:
            target = self.table.screen
            if target != current:
                self.root.current = target
                if self.auto is not None:
                    self.auto.screen_changed(target)
        self.root.current_screen.update()


def run_kiosk(config: KioskConfig) -> int:
    """Open the kiosk window and run until it is closed."""
    from kivy.config import Config

    width, height = config.size
    Window.size = (width, height)
    if config.fullscreen:
        Window.fullscreen = "auto"
    Config.set("kivy", "exit_on_escape", "0" if config.fullscreen else "1")
    app = KioskApp(config)
    if config.screenshots is not None:
        from companion.ui.autoplay import AutoPlayer
        app.auto = AutoPlayer(app, config.screenshots, delay_s=config.tap_delay,
                              require_all=config.recording is None)
    elif config.demo:
        from companion.ui.autoplay import AutoPlayer
        app.auto = AutoPlayer(app, None, delay_s=config.tap_delay)
    app.run()
    if app.auto is not None and app.auto.failure:
        print(f"companion kiosk: {app.auto.failure}")
        return 1
    return 0
