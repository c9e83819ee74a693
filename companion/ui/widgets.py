"""Kivy widgets drawn on the canvas: the board, the camera view with its grid, the score bars."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from kivy.clock import Clock
from kivy.core.image import Image as CoreImage
from kivy.graphics import Color, Ellipse, Line, Rectangle
from kivy.graphics.texture import Texture
from kivy.properties import ListProperty, NumericProperty, ObjectProperty, StringProperty
from kivy.uix.label import Label
from kivy.uix.scrollview import ScrollView
from kivy.uix.widget import Widget

from companion.ui.presenters import cell_picture

ART_DIR = Path(__file__).resolve().parents[1] / "vision" / "data" / "art"
_TEXTURES: dict[str, Any] = {}

MARK_COLOURS = {"ok": (0.3, 0.85, 0.4, 1), "differs": (1, 0.25, 0.2, 1),
                "unknown": (1, 0.8, 0.1, 1), "none": (0.6, 0.6, 0.6, 1)}
SEAT_COLOURS = {"black": (0.1, 0.1, 0.1, 1), "white": (0.95, 0.95, 0.95, 1),
                "orange": (0.95, 0.55, 0.1, 1), "blue": (0.2, 0.45, 0.9, 1)}


def art_texture(name: str | None) -> Any:
    """The texture of a piece of component art by name ('token-egg-4-coin'), or None."""
    if not name:
        return None
    if name not in _TEXTURES:
        path = ART_DIR / f"{name}.png"
        _TEXTURES[name] = CoreImage(str(path)).texture if path.is_file() else None
    return _TEXTURES[name]


class BoardView(Widget):
    """A 5x5 board in camera-board form, its art in each cell; ``marked`` cells outlined red."""

    board = ObjectProperty(None, allownone=True)
    marked = ListProperty([])  # cell indices 0-24

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.bind(pos=self.redraw, size=self.redraw, board=self.redraw, marked=self.redraw)

    def redraw(self, *_: Any) -> None:
        self.canvas.clear()
        side = min(self.width, self.height)
        x0 = self.x + (self.width - side) / 2
        y0 = self.y + (self.height - side) / 2
        cell = side / 5
        with self.canvas:
            Color(0.55, 0.42, 0.3, 1)
            Rectangle(pos=(x0, y0), size=(side, side))
            rows = self.board or [[{"kind": "empty"}] * 5] * 5
            for i in range(25):
                r, c = divmod(i, 5)
                cx, cy = x0 + c * cell, y0 + (4 - r) * cell
                Color(0.7, 0.58, 0.44, 1)
                Ellipse(pos=(cx + cell * 0.06, cy + cell * 0.06), size=(cell * 0.88, cell * 0.88))
                texture = art_texture(cell_picture(rows[r][c]))
                if texture is not None:
                    Color(1, 1, 1, 1)
                    Rectangle(texture=texture, pos=(cx + cell * 0.06, cy + cell * 0.06),
                              size=(cell * 0.88, cell * 0.88))
                if i in self.marked:
                    Color(1, 0.2, 0.15, 1)
                    Line(rectangle=(cx + 2, cy + 2, cell - 4, cell - 4), width=max(2, cell / 18))


class CameraView(Widget):
    """The camera's preview with the read grid drawn over it: a ring per cell, green where the
    reading is what the rules expect, red where it differs, yellow where the reader abstained."""

    # a frame is a dict holding an array, which == cannot compare: another dict is another
    # frame, drawn; the same one set again is not drawn twice
    preview = ObjectProperty(None, allownone=True, comparator=lambda old, new: old is new)
    marks = ListProperty([])
    status = StringProperty("")

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self._texture: Any = None
        self.bind(pos=self.redraw, size=self.redraw, preview=self.redraw, marks=self.redraw)

    def redraw(self, *_: Any) -> None:
        self.canvas.clear()
        preview = self.preview
        with self.canvas:
            Color(0.08, 0.08, 0.08, 1)
            Rectangle(pos=self.pos, size=self.size)
        if not preview or preview.get("image") is None:
            return
        image = preview["image"]
        h, w = image.shape[:2]
        if self._texture is None or self._texture.size != (w, h):
            self._texture = Texture.create(size=(w, h), colorfmt="rgb")
            self._texture.flip_vertical()
        self._texture.blit_buffer(image.tobytes(), colorfmt="bgr", bufferfmt="ubyte")
        scale = min(self.width / w, self.height / h)
        dw, dh = w * scale, h * scale
        x0 = self.x + (self.width - dw) / 2
        y0 = self.y + (self.height - dh) / 2
        with self.canvas:
            Color(1, 1, 1, 1)
            Rectangle(texture=self._texture, pos=(x0, y0), size=(dw, dh))
            cells = preview.get("cells") or []
            radius = max(6.0, dw / 40)
            if len(cells) == 25:  # just outside a token: half the distance between cells
                pitch = ((cells[0]["x"] - cells[1]["x"]) ** 2
                         + (cells[0]["y"] - cells[1]["y"]) ** 2) ** 0.5
                radius = max(6.0, 0.47 * pitch * scale)
            for i, cell in enumerate(cells):
                mark = self.marks[i] if i < len(self.marks) else "none"
                Color(*MARK_COLOURS.get(mark, MARK_COLOURS["none"]))
                px = x0 + cell["x"] * scale
                py = y0 + dh - cell["y"] * scale
                Line(circle=(px, py, radius), width=1.5 if mark == "ok" else 3)


class ScoreBars(Widget):
    """One player's breakdown as horizontal bars on a common scale (negative to the left)."""

    values = ListProperty([])  # [(category, value)]
    scale = NumericProperty(1)
    colour = ListProperty([0.9, 0.7, 0.2, 1])

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.bind(pos=self.redraw, size=self.redraw, values=self.redraw, scale=self.redraw)

    def redraw(self, *_: Any) -> None:
        self.canvas.clear()
        if not self.values:
            return
        n = len(self.values)
        bar_h = self.height / n
        has_negative = any(v < 0 for _, v in self.values)
        zero = self.x + (self.width * 0.25 if has_negative else 0)
        span = self.width - (zero - self.x)
        with self.canvas:
            for k, (_, value) in enumerate(self.values):
                y = self.top - (k + 1) * bar_h + bar_h * 0.15
                length = span * abs(value) / max(1, self.scale)
                if value < 0:
                    Color(0.85, 0.3, 0.25, 1)
                    Rectangle(pos=(zero - min(length, zero - self.x), y),
                              size=(min(length, zero - self.x), bar_h * 0.7))
                else:
                    Color(*self.colour)
                    Rectangle(pos=(zero, y), size=(length, bar_h * 0.7))
            Color(0.8, 0.8, 0.8, 1)
            Line(points=[zero, self.y, zero, self.top], width=1)


class FitLabel(Label):
    """A label whose text wraps to its width (kv sets text_size)."""


class SafeScroll(ScrollView):
    """A scroll view that stays within reach of its content. During a touch Kivy turns the
    finger's travel into a scroll by dividing by the content's height less the view's; while a
    grid of options is still being built that is a pixel or two, and one tap on a slow machine
    threw the view hundreds of screens away (seen on the private entry's 40 pictures)."""

    def on_scroll_y(self, _widget: Any, value: float) -> None:
        if not -0.5 <= value <= 1.5:  # a bounce past the ends is fine; this is not
            self.scroll_y = min(1.0, max(0.0, value))

    def on_scroll_x(self, _widget: Any, value: float) -> None:
        if not -0.5 <= value <= 1.5:
            self.scroll_x = min(1.0, max(0.0, value))

    def to_top(self) -> None:
        """Show the content's first rows, and keep them there once it is laid out. New
        content leaves the scroll effect's position out of its new bounds, and the effect
        eased the list back over a second or more, as if a finger had flicked it."""
        self.scroll_y = 1
        Clock.schedule_once(self._hold_top, 0)

    def _hold_top(self, *_: Any) -> None:
        if self.effect_y is not None:
            self.effect_y.velocity = 0
            self.effect_y.overscroll = 0
        self.scroll_y = 1
        self._update_effect_bounds()
