"""The demo's hands: taps what the players of the recorded game tapped, through real touches.

With a screenshot folder it also takes a PNG of every kind of screen it passes, checks each for
text that is cut or overlaps and for touch targets under the minimum size, checks after each
private entry that no widget shows what was entered, and closes the kiosk at the end.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from kivy.base import EventLoop
from kivy.clock import Clock
from kivy.core.window import Window
from kivy.input.motionevent import MotionEvent
from kivy.uix.behaviors import ButtonBehavior
from kivy.uix.label import Label
from kivy.uix.textinput import TextInput
from kivy.uix.widget import Widget

MIN_TARGET_PX = 48  # 9 mm on the official 7" display
TIMEOUT_S = 300.0  # s the unattended demo may take before it gives up, saying where it stood
MISSED_FOR_S = 15.0  # s of taps not reaching their button before it counts as a failure
SHOTS = ("start", "table", "question", "private-cover", "private-entry", "reveal", "mismatch",
         "final", "history", "settings", "calibrate")
OPTIONAL_SHOTS = ("calibrate-saved",)  # where the demo's camera passes every check


class _Touch(MotionEvent):
    def __init__(self, x: float, y: float) -> None:
        win = EventLoop.window
        super().__init__("autoplay", 1, {"x": x / max(1, win.width - 1),
                                         "y": y / max(1, win.height - 1)},
                         is_touch=True, type_id="touch")
        self.profile = ["pos"]

    def depack(self, args: dict[str, float]) -> None:
        self.sx, self.sy = args["x"], args["y"]
        super().depack(args)


def tap(widget: Widget) -> bool:
    """A touch down and up at the widget's centre, through the window, as a finger would.
    Returns False when something else is on top there (the tap did not reach it)."""
    x, y = widget.to_window(*widget.center)
    hit: list[bool] = []

    def mark(*_: Any) -> None:
        hit.append(True)

    button = isinstance(widget, ButtonBehavior)
    if button:
        widget.fbind("on_release", mark)
    touch = _Touch(x, y)
    EventLoop.post_dispatch_input("begin", touch)
    EventLoop.post_dispatch_input("end", touch)
    if button:
        widget.funbind("on_release", mark)
    return bool(hit) or not button


def walk(widget: Widget) -> list[Widget]:
    out = [widget]
    for child in widget.children:
        out.extend(walk(child))
    return out


def texts(widget: Widget) -> list[str]:
    return [w.text for w in walk(widget) if isinstance(w, Label | TextInput) and w.text]


def _visible(w: Widget) -> bool:
    return w.width > 1 and w.height > 1 and getattr(w, "opacity", 1) > 0


def audit(root: Widget, window: tuple[int, int]) -> list[str]:
    """Text cut or out of the window, overlapping touch targets, targets under the minimum."""
    problems = []
    ww, wh = window
    widgets = [w for w in walk(root) if _visible(w)]
    buttons = [w for w in widgets if isinstance(w, ButtonBehavior)]
    for w in widgets:
        if isinstance(w, Label) and w.text.strip():
            tw, th = w.texture_size
            name = w.text.strip().splitlines()[0][:40]
            if tw > w.width + 2 or th > w.height + 2:
                problems.append(f"text cut: '{name}' needs {tw:.0f}x{th:.0f}, has "
                                f"{w.width:.0f}x{w.height:.0f}")
            x, y = w.to_window(w.x, w.y)
            if _in_scroll(w):
                continue
            if x < -1 or y < -1 or x + w.width > ww + 1 or y + w.height > wh + 1:
                problems.append(f"text outside the window: '{name}'")
    for b in buttons:
        if min(b.width, b.height) < MIN_TARGET_PX - 0.5:
            label = getattr(b, "text", "") or type(b).__name__
            problems.append(f"touch target too small: '{label[:40]}' "
                            f"{b.width:.0f}x{b.height:.0f}")
    boxes = [(b, *b.to_window(b.x, b.y)) for b in buttons if not _in_scroll(b)]
    for i, (a, ax, ay) in enumerate(boxes):
        for b, bx, by in boxes[i + 1:]:
            if _is_inside(a, b) or _is_inside(b, a):
                continue
            dx = min(ax + a.width, bx + b.width) - max(ax, bx)
            dy = min(ay + a.height, by + b.height) - max(ay, by)
            if dx > 1 and dy > 1:
                problems.append(f"touch targets overlap: '{getattr(a, 'text', '')[:30]}' and "
                                f"'{getattr(b, 'text', '')[:30]}'")
    return problems


def _scroller(w: Widget) -> Any:
    from kivy.uix.scrollview import ScrollView
    p = w.parent
    while p is not None and p is not p.parent:
        if isinstance(p, ScrollView):
            return p
        p = p.parent
    return None


def _shown_in(scroll: Widget, w: Widget) -> bool:
    """Whether the widget's centre lies inside the scroll view's visible area."""
    cx, cy = w.to_window(*w.center)
    sx, sy = scroll.to_window(scroll.x, scroll.y)
    return sx <= cx <= sx + scroll.width and sy <= cy <= sy + scroll.height


def _where(w: Widget, scroll: Widget | None) -> dict[str, Any]:
    """Where a tapped widget is, for a report that says why a tap keeps missing."""
    out: dict[str, Any] = {"text": str(getattr(w, "text", ""))[:40],
                           "attached": w.get_root_window() is not None,
                           "centre": [round(v) for v in w.to_window(*w.center)],
                           "size": [round(v) for v in w.size]}
    if scroll is not None:
        out["scroll"] = [round(v) for v in (*scroll.to_window(scroll.x, scroll.y), *scroll.size)]
        out["scroll_y"] = round(float(scroll.scroll_y), 3)
        child = scroll.children[0] if scroll.children else None
        if child is not None:
            out["content"] = [round(v) for v in child.size]
    return out


def _in_scroll(w: Widget) -> bool:
    return _scroller(w) is not None


def _is_inside(a: Widget, b: Widget) -> bool:
    p = a.parent
    while p is not None and p is not p.parent:
        if p is b:
            return True
        p = p.parent
    return False


class AutoPlayer:
    """Plays the demo; with ``folder``, takes the screenshots and closes the kiosk at the end."""

    def __init__(self, app: Any, folder: Path | None, *, delay_s: float | None = None,
                 require_all: bool = True) -> None:
        self.app = app
        self.require_all = require_all
        self.final: dict[str, Any] | None = None
        self.folder = folder
        self.delay = delay_s if delay_s is not None else (0.25 if folder else 2.0)
        self.taken: dict[str, str] = {}
        self.problems: dict[str, list[str]] = {}
        self.leaks: list[str] = []
        self.private_checks = 0
        self.failure: str | None = None
        self.asked: set[int] = set()
        self.opened: set[int] = set()  # questions checked to open at their first options
        self.answers: dict[int, int | None] = {}
        self._wait_until = 0.0
        self._stage = "play"
        self.settle = max(0.1, min(0.3, 2 * self.delay))  # s a new screen is looked at
        self._event = Clock.schedule_interval(self.tick, 0.05)
        self._clock = 0.0
        self.taps = 0
        self.missed = 0
        self._missing_since: float | None = None
        self._hold = False  # the recording is held for a screenshot
        self._seen, self._seen_at = "", 0.0
        self._keys: list[str] = []
        self._chosen: str | None = None  # a private choice being tapped
        self._pending: Widget | None = None  # a tap waiting for its scroll
        self._scrolls = 0
        self._last_tap: dict[str, Any] = {}
        if folder is not None:
            folder.mkdir(parents=True, exist_ok=True)
            Clock.schedule_once(self._timeout, TIMEOUT_S)

    # --- the tick -----------------------------------------------------------------------------
    def suggested(self, reply: dict[str, Any]) -> None:
        qid = reply.get("tag")
        if qid is not None:
            self.answers[int(qid)] = reply.get("result")

    def _ready(self, dt: float) -> bool:
        self._clock += dt
        return self._clock >= self._wait_until

    def _wait(self, seconds: float | None = None) -> None:
        self._wait_until = self._clock + (self.delay if seconds is None else seconds)

    def tick(self, dt: float) -> None:
        app = self.app
        if app.root is None or not self._ready(dt):
            return
        if self._pending is not None:
            widget, self._pending = self._pending, None
            self._tap(widget)
            return
        name = self.shot_name()
        if app.table is not None and app.runner is not None:  # what the recorded hands
            for q in app.table.questions:  # will answer, asked ahead of the screen
                if q["id"] not in self.asked:
                    self.asked.add(q["id"])
                    app.runner.send("suggest", q["id"], tag=str(q["id"]))
        if name != self._seen:  # let a new screen be laid out and drawn first, as a player
            self._seen, self._seen_at = name, self._clock  # looks before tapping
        shot = (self.folder is not None and (name in SHOTS or name in OPTIONAL_SHOTS)
                and name not in self.taken)
        if self._clock - self._seen_at < (0.3 if shot else self.settle):
            return
        if shot:
            self.shoot(name)
            self._wait(0.2)
            if self._hold:
                self._hold = False
                app.runner.send("pause", False)
            return
        self.act(name)

    def screen_changed(self, name: str) -> None:
        """The recording stops on a warning (see the runner's hold): release it once the
        warning is photographed."""
        if self.folder is not None and name == "mismatch":
            self._hold = True

    def shot_name(self) -> str:
        app = self.app
        current = app.root.current
        if current == "private":
            entry = app.table.private if app.table is not None else None
            if entry is not None and entry.is_open and entry.options:
                return "private-entry"
            return "private-cover"
        if current == "table" and app.table is not None and app.table.preview is None:
            return "table-waiting"
        if current == "calibrate" and app.calibration is not None:
            state = app.calibration.state
            if state in ("starting", "saving"):
                return f"calibrate-{state}"
            if state == "saved":
                return "calibrate-saved"
        return current

    def shoot(self, name: str) -> None:
        app = self.app
        assert self.folder is not None
        path = self.folder / f"{name}.png"
        written = Window.screenshot(name=str(self.folder / "shot.png"))
        Path(written).replace(path)
        self.taken[name] = str(path)
        problems = audit(app.root, (Window.width, Window.height))
        if problems:
            self.problems[name] = problems

    # --- what a player would tap --------------------------------------------------------------
    def act(self, name: str) -> None:
        app = self.app
        ids = app.root.current_screen.ids
        if self._stage == "play":
            if name == "start":
                self._tap(ids.start)
            elif name == "table":
                q = app.table.optional_question
                buttons = app.root.current_screen.option_buttons
                if q is not None and buttons:  # shown in their own order: by option index
                    by_index = sorted(buttons, key=lambda b: b.index)
                    self._answer(q["id"], by_index, optional=True)
            elif name == "question":
                q = app.table.public_question
                screen = app.root.current_screen
                if q is not None:
                    self._check_at_top(q["id"], ids.scroller, name)
                if q is not None and screen.picker is not None:
                    self._pick_in_order(q, screen)
                elif q is not None:
                    self._answer(q["id"], list(reversed(ids.options.children)))
            elif name == "private-cover":
                entry = app.table.private
                if entry is not None and not entry.is_open:
                    self._tap(ids.action)
            elif name == "private-entry":
                entry = app.table.private
                self._check_at_top(entry.question, ids.scroller, name)
                self._answer(entry.question, list(reversed(ids.options.children)),
                             private=[o["text"] for o in entry.options or []])
            elif name == "reveal":
                self._tap(self._button(app.root.current_screen, app.t("reveal.continue")))
            elif name == "final":
                self.final = app.table.final
                if self.folder is None:
                    self._event.cancel()  # the demo rests on the final scores
                    return
                self._stage = "history"
                self._tap(self._button(app.root.current_screen, app.t("history.button")))
            return
        if self._stage == "history" and name == "history":
            self._stage = "new"
            self._tap(self._button(app.root.current_screen, app.t("back")))
        elif self._stage == "new" and name == "final":
            self._stage = "settings"
            self._tap(self._button(app.root.current_screen, app.t("final.new_game")))
        elif self._stage == "settings" and name == "start":
            self._tap(self._button(app.root.current_screen, app.t("settings.button")))
        elif self._stage == "settings" and name == "pin":
            if not self._keys:  # a PIN, then the same again to confirm: a key a tick
                self._keys = [*"2468", app.t("ok")] * 2
            self._tap(self._button(app.root.current_screen, self._keys.pop(0)))
        elif self._stage == "settings" and name == "settings":
            self._stage = "calibrate"
            self._tap(self._button(app.root.current_screen, app.rig_status()))
        elif self._stage == "calibrate" and name in ("calibrate", "calibrate-saved"):
            # the checks on the demo's camera, then "Lock and save" if they pass
            if app.calibration.can_save:
                self._tap(ids.save)
                return
            self._stage = "done"
            self._tap(self._button(app.root.current_screen, app.t("back")))
        elif self._stage == "done" and name == "settings":
            self.finish()

    def _answer(self, qid: int, buttons: list[Widget], private: list[str] | None = None,
                optional: bool = False) -> None:
        app = self.app
        if qid not in self.asked:
            self.asked.add(qid)
            app.runner.send("suggest", qid, tag=str(qid))
            return
        if qid not in self.answers:
            return
        index = self.answers[qid]
        if index is None or index >= len(buttons):
            if not optional:  # the camera answers an optional one
                self.failure = f"the recorded game has no answer to question {qid}"
            return
        if private is not None and self._pending is None:
            self._chosen = private[index] if index < len(private) else ""
        self._tap(buttons[index])

    def _check_at_top(self, qid: int, scroller: Widget, screen: str) -> None:
        """A question or a private entry, once it has settled on the screen, shows its first
        options: the last one's scrolling, or the list's new length, does not carry it
        elsewhere."""
        if qid in self.opened:
            return
        self.opened.add(qid)
        if scroller.scroll_y < 0.99:
            self.problems.setdefault(screen, []).append(
                f"question {qid} opened scrolled to {scroller.scroll_y:.2f}, not at its "
                "first options")

    def _pick_in_order(self, q: dict[str, Any], screen: Any) -> None:
        """Tap the recorded order one thing at a time."""
        if q["id"] not in self.answers:
            return
        index = self.answers[q["id"]]
        picker = screen.picker
        if index is None:
            self.failure = f"the recorded game has no answer to question {q['id']}"
            return
        order = next(o["action"][picker.field] for o in q["options"] if o["index"] == index)
        done = len(picker.chosen)
        if done >= len(order):  # whole: the answer is on its way
            return
        if picker.chosen != order[:done]:
            self._tap(self._button(screen, self.app.t("question.again")))
            return
        self._tap(screen.element_buttons[order[done]])

    def check_leak(self, chosen: str) -> None:
        """Right after a private entry, before anything is revealed: the chosen option's text
        is on no widget of any screen."""
        self.private_checks += 1
        for screen in self.app.root.screens:
            for text in texts(screen):
                if chosen and chosen in text:
                    self.leaks.append(f"'{chosen}' on the {screen.name} screen: {text[:60]}")

    def _button(self, screen: Widget, text: str) -> Widget:
        for w in walk(screen):
            if isinstance(w, ButtonBehavior) and getattr(w, "text", None) == text:
                return w
        raise LookupError(f"no button '{text}' on the {screen.name} screen")

    def _tap(self, widget: Widget) -> None:
        scroll = _scroller(widget)
        self._last_tap = _where(widget, scroll)
        if scroll is not None and not _shown_in(scroll, widget) and self._scrolls < 10:
            scroll.scroll_to(widget, padding=8, animate=False)  # as a finger scrolls first
            self._scrolls += 1
            self._pending = widget
            self._wait(0.15)
            return
        self._scrolls = 0
        self.taps += 1
        if tap(widget):
            self.missed = 0
            self._missing_since = None
            if self._chosen is not None:
                self.check_leak(self._chosen)
                self._chosen = None
        else:  # the screen changed under the finger, or is still being laid out: look again
            self.missed += 1
            if self._missing_since is None:
                self._missing_since = self._clock
            if self._clock - self._missing_since > MISSED_FOR_S:
                self.failure = (f"a tap on '{getattr(widget, 'text', widget)}' did not reach "
                                f"it for {MISSED_FOR_S:.0f} s")
        self._wait()

    # --- the end ------------------------------------------------------------------------------
    def finish(self) -> None:
        self._event.cancel()
        missing = [s for s in SHOTS if s not in self.taken]
        if not self.require_all:  # another recorded game: its mode may lack a screen
            missing = []
        if missing or self.problems or self.leaks:
            self.failure = self.failure or (
                f"screens not reached: {missing}" if missing else
                f"layout problems on {sorted(self.problems)}" if self.problems else
                f"private entries leaked: {self.leaks[:2]}")
        report = {"screens": self.taken, "missing": missing, "problems": self.problems,
                  "leaks": self.leaks, "private_checks": self.private_checks,
                  "taps": self.taps, "window": [Window.width, Window.height],
                  "final": self.final, "failure": self.failure}
        assert self.folder is not None
        (self.folder / "report.json").write_text(json.dumps(report, indent=1) + "\n",
                                                 encoding="utf-8")
        self.app.stop()

    def _timeout(self, *_: Any) -> None:
        if self._event.is_triggered:
            app = self.app
            table = app.table
            private = table.private if table is not None else None
            where = {"screen": self.shot_name(), "asked": sorted(self.asked),
                     "answers": {str(k): v for k, v in self.answers.items()},
                     "questions": [q["id"] for q in table.questions] if table else None,
                     "private": None if private is None else
                     {"question": private.question, "open": private.is_open,
                      "options": private.options is not None},
                     "pending": self._pending is not None, "missed": self.missed,
                     "last_tap": self._last_tap,
                     "runner_alive": app.runner.alive if app.runner else None}
            self.failure = (f"the demo did not end in time (stage {self._stage}): "
                            f"{json.dumps(where)}")
            self.finish()
