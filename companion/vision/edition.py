"""Another edition's art, drawn from a seed: what a real box may look like to the reader.

The bundled art stands in for scans of the game; a printed box has other drawings, palette
shades, fonts and board colours. ``draw_edition`` draws a whole set of art files (the same names
as the bundled art, so the renderer can use it in its place) in a style drawn from a seed: each
ingredient another picture, the baskets and players' colours other shades, the numbers in
another font and place, other coins, cats, shoppers and board colours. The game's facts stay:
sizes, the board's printed layout, each token's ingredient, basket colour, price and coin
value, each cat's colour and value. Used to measure how the reader meets art it was never
trained on, and to test enrollment.
"""

from __future__ import annotations

import colorsys
import math
from dataclasses import replace
from pathlib import Path

import cv2
import numpy as np

from companion.rules.components import Components, food_alley
from companion.vision.assets import ART_PX_PER_MM, Label, labels
from companion.vision.geometry import BoardGeometry

TOKEN_PX = 256  # as the bundled art: one token's diameter
# another camera than the renderer's default, taking the plan's photos of varnished tokens: its
# own tone curve and white balance, sharpening, colour fringes, and a highlight of the lamp on
# every token (SceneStyle's fields)
CAMERA_STYLE = {"gamma": (0.75, 1.35), "colour_gain": (0.8, 1.2), "sharpen_probability": 1.0,
                "fringe_probability": 1.0, "gloss_probability": 1.0}
RETAKES = 5  # a blurred plan photo is taken again at most this many times (plan_photos)
FONTS = (cv2.FONT_HERSHEY_SIMPLEX, cv2.FONT_HERSHEY_DUPLEX, cv2.FONT_HERSHEY_COMPLEX,
         cv2.FONT_HERSHEY_TRIPLEX)
# each basket colour's mark on the coin side (the component list's colour_symbols_on_coin_side)
COIN_SYMBOLS = {"yellow": "star", "green": "triangle", "blue": "square", "pink": "diamond",
                "grey": "hexagon", "black": "cross", "red": "wheel"}
# the colours the components name, as hue (0..1), saturation and value
BASE_COLOURS = {"yellow": (0.14, 0.8, 0.95), "green": (0.33, 0.7, 0.7), "blue": (0.6, 0.75, 0.8),
                "pink": (0.92, 0.45, 0.95), "grey": (0.0, 0.0, 0.6), "black": (0.0, 0.0, 0.15),
                "red": (0.0, 0.85, 0.85), "white": (0.0, 0.0, 0.95),
                "orange": (0.07, 0.85, 0.95)}


def _bgr(h: float, s: float, v: float) -> tuple[int, int, int]:
    r, g, b = colorsys.hsv_to_rgb(h % 1.0, min(max(s, 0.0), 1.0), min(max(v, 0.0), 1.0))
    return int(b * 255), int(g * 255), int(r * 255)


class _Style:
    """One edition's choices, drawn from its seed."""

    def __init__(self, rng: np.random.Generator, components: Components) -> None:
        self.rng = rng
        self.colours = {}
        for name, (h, s, v) in BASE_COLOURS.items():  # other shades of the same colours
            self.colours[name] = _bgr(h + rng.uniform(-0.03, 0.03), s * rng.uniform(0.8, 1.1),
                                      v * rng.uniform(0.85, 1.05))
        self.font = FONTS[int(rng.integers(len(FONTS)))]
        self.bold = int(rng.integers(6, 13))
        self.face_ground = _bgr(rng.uniform(0, 1), rng.uniform(0.05, 0.25), rng.uniform(0.85, 1))
        self.rim = _bgr(rng.uniform(0, 1), rng.uniform(0.2, 0.6), rng.uniform(0.25, 0.55))
        self.coin = _bgr(rng.uniform(0.05, 0.15), rng.uniform(0.0, 0.6), rng.uniform(0.6, 0.9))
        self.badge_angle = rng.uniform(0, 2 * math.pi)  # where the price sits on the face
        self.badge_square = bool(rng.integers(2))
        self.pictures = {ing: self._picture() for ing in components.ingredients}

    def _picture(self) -> list[tuple[str, tuple[int, int, int], np.ndarray]]:
        """An ingredient's drawing: a few shapes of its own colours."""
        rng = self.rng
        shapes = []
        for _ in range(int(rng.integers(2, 5))):
            kind = ["ellipse", "polygon", "line"][int(rng.integers(3))]
            colour = _bgr(rng.uniform(0, 1), rng.uniform(0.4, 1), rng.uniform(0.3, 0.95))
            shapes.append((kind, colour, rng.uniform(-1, 1, size=8)))
        return shapes


def _disc_canvas() -> tuple[np.ndarray, np.ndarray]:
    image = np.zeros((TOKEN_PX, TOKEN_PX, 3), np.uint8)
    alpha = np.zeros((TOKEN_PX, TOKEN_PX), np.uint8)
    c = TOKEN_PX // 2
    cv2.circle(alpha, (c, c), c - 2, 255, -1, cv2.LINE_AA)
    return image, alpha


def _text(image: np.ndarray, text: str, centre: tuple[float, float], height: float,
          style: _Style, colour: tuple[int, int, int]) -> None:
    """Text of about ``height`` px, centred, in the edition's font."""
    scale = height / 22.0
    (w, h), _ = cv2.getTextSize(text, style.font, scale, style.bold)
    org = (int(centre[0] - w / 2), int(centre[1] + h / 2))
    cv2.putText(image, text, org, style.font, scale, colour, style.bold, cv2.LINE_AA)


def _draw_picture(image: np.ndarray, picture: list, centre: tuple[float, float],
                  size: float) -> None:
    for kind, colour, p in picture:
        cx, cy = centre[0] + p[0] * size * 0.3, centre[1] + p[1] * size * 0.3
        if kind == "ellipse":
            axes = (int(size * (0.2 + 0.15 * abs(p[2]))), int(size * (0.12 + 0.15 * abs(p[3]))))
            cv2.ellipse(image, (int(cx), int(cy)), axes, float(p[4] * 180), 0, 360, colour, -1,
                        cv2.LINE_AA)
        elif kind == "polygon":
            n = 3 + int(abs(p[5]) * 3)
            pts = [(cx + size * 0.3 * math.cos(2 * math.pi * k / n + p[6]),
                    cy + size * 0.3 * math.sin(2 * math.pi * k / n + p[6])) for k in range(n)]
            cv2.fillPoly(image, [np.array(pts, np.int32)], colour, cv2.LINE_AA)
        else:
            a = (int(cx - size * 0.35 * p[6]), int(cy - size * 0.35 * p[7]))
            b = (int(cx + size * 0.35 * p[6]), int(cy + size * 0.35 * p[7]))
            cv2.line(image, a, b, colour, max(4, int(size * 0.08)), cv2.LINE_AA)


def _badge(image: np.ndarray, style: _Style, text: str, angle: float) -> None:
    c = TOKEN_PX / 2
    x, y = c + 0.58 * c * math.cos(angle), c + 0.58 * c * math.sin(angle)
    r = int(TOKEN_PX * 0.13)
    if style.badge_square:
        cv2.rectangle(image, (int(x - r), int(y - r)), (int(x + r), int(y + r)), (250, 250, 250),
                      -1)
        cv2.rectangle(image, (int(x - r), int(y - r)), (int(x + r), int(y + r)), (30, 30, 30), 4)
    else:
        cv2.circle(image, (int(x), int(y)), r, (250, 250, 250), -1, cv2.LINE_AA)
        cv2.circle(image, (int(x), int(y)), r, (30, 30, 30), 4, cv2.LINE_AA)
    _text(image, text, (x, y), r * 1.3, style, (20, 20, 20))


def _symbol(image: np.ndarray, kind: str, centre: tuple[float, float], size: float,
            colour: tuple[int, int, int]) -> None:
    cx, cy = centre
    corners = {"star": 10, "triangle": 3, "square": 4, "diamond": 4, "hexagon": 6}
    if kind in corners:
        n = corners[kind]
        turn = math.pi / 4 if kind == "square" else -math.pi / 2
        # a star's points alternate with inner corners
        radii = [size if kind != "star" or k % 2 == 0 else size * 0.45 for k in range(n)]
        pts = [(cx + radii[k] * math.cos(2 * math.pi * k / n + turn),
                cy + radii[k] * math.sin(2 * math.pi * k / n + turn)) for k in range(n)]
        cv2.fillPoly(image, [np.array(pts, np.int32)], colour, cv2.LINE_AA)
    elif kind == "cross":
        w = int(size * 0.35)
        cv2.line(image, (int(cx - size), int(cy - size)), (int(cx + size), int(cy + size)),
                 colour, w)
        cv2.line(image, (int(cx - size), int(cy + size)), (int(cx + size), int(cy - size)),
                 colour, w)
    else:  # a wheel of every colour
        for k in range(6):
            hue = k / 6
            cv2.ellipse(image, (int(cx), int(cy)), (int(size), int(size)), 0, k * 60,
                        (k + 1) * 60, _bgr(hue, 0.8, 0.9), -1, cv2.LINE_AA)


def _token_face(style: _Style, components: Components, label: Label) -> np.ndarray:
    token = components.token(label.token or "")
    image, alpha = _disc_canvas()
    c = TOKEN_PX // 2
    if label.kind == "ingredient":
        image[:] = style.face_ground
        _draw_picture(image, style.pictures[token.ingredient], (c, c * 0.85), TOKEN_PX * 0.5)
        basket = style.colours.get(token.colour, (60, 60, 200))
        cv2.ellipse(image, (c, int(c * 1.45)), (int(c * 0.55), int(c * 0.3)), 0, 0, 180,
                    basket, -1, cv2.LINE_AA)
        _badge(image, style, str(token.price), style.badge_angle)
        rim = style.rim
    else:
        image[:] = style.coin
        cv2.circle(image, (c, c), int(c * 0.78), tuple(int(v * 0.85) for v in style.coin), 6,
                   cv2.LINE_AA)
        _text(image, str(token.coin), (c, c), TOKEN_PX * 0.42, style, (40, 40, 40))
        _symbol(image, COIN_SYMBOLS.get(token.colour, "wheel"),
                (c + c * 0.55 * math.cos(style.badge_angle + math.pi),
                 c + c * 0.55 * math.sin(style.badge_angle + math.pi)), TOKEN_PX * 0.08,
                style.colours.get(token.colour, (60, 60, 200)))
        _draw_picture(image, style.pictures[token.ingredient],
                      (c + c * 0.55 * math.cos(style.badge_angle),
                       c + c * 0.55 * math.sin(style.badge_angle)), TOKEN_PX * 0.14)
        rim = tuple(int(v * 0.7) for v in style.coin)
    cv2.circle(image, (c, c), c - 6, rim, 10, cv2.LINE_AA)
    return np.dstack([image, alpha])


def _cat(style: _Style, label: Label) -> np.ndarray:
    image, alpha = _disc_canvas()
    c = TOKEN_PX // 2
    fur = style.colours.get(label.player or "", (128, 128, 128))
    image[:] = fur
    line = (235, 235, 235) if sum(fur) < 300 else (40, 40, 40)
    head = (c, int(c * 0.95))
    cv2.fillPoly(image, [np.array([(c - 70, c - 20), (c - 55, c - 95), (c - 20, c - 45)],
                                  np.int32)], line, cv2.LINE_AA)
    cv2.fillPoly(image, [np.array([(c + 70, c - 20), (c + 55, c - 95), (c + 20, c - 45)],
                                  np.int32)], line, cv2.LINE_AA)
    cv2.circle(image, head, 62, line, 6, cv2.LINE_AA)
    cv2.circle(image, (c - 22, c - 5), 9, line, -1, cv2.LINE_AA)
    cv2.circle(image, (c + 22, c - 5), 9, line, -1, cv2.LINE_AA)
    angle = style.badge_angle + math.pi / 2
    if label.kind == "cat":
        _badge(image, style, str(label.value), angle)
    else:  # face down: a paw where the number is
        x, y = c + 0.58 * c * math.cos(angle), c + 0.58 * c * math.sin(angle)
        cv2.circle(image, (int(x), int(y + 8)), 16, line, -1, cv2.LINE_AA)
        for k in range(3):
            cv2.circle(image, (int(x - 16 + 16 * k), int(y - 16)), 7, line, -1, cv2.LINE_AA)
    cv2.circle(image, (c, c), c - 6, tuple(int(v * 0.6) for v in fur), 10, cv2.LINE_AA)
    return np.dstack([image, alpha])


def _shopper(style: _Style, label: Label) -> np.ndarray:
    image = np.zeros((TOKEN_PX, TOKEN_PX, 3), np.uint8)
    alpha = np.zeros((TOKEN_PX, TOKEN_PX), np.uint8)
    colour = style.colours.get(label.player or "", (128, 128, 128))
    c = TOKEN_PX // 2
    body = np.array([(c - 45, c + 70), (c + 45, c + 70), (c + 22, c - 5), (c - 22, c - 5)],
                    np.int32)
    for target, value in ((image, colour), (alpha, 255)):
        cv2.fillPoly(target, [body], value, cv2.LINE_AA)
        cv2.circle(target, (c, c - 35), 32, value, -1, cv2.LINE_AA)
    edge = (200, 200, 200) if sum(colour) < 300 else (60, 60, 60)
    cv2.circle(image, (c, c - 35), 32, edge, 4, cv2.LINE_AA)
    cv2.polylines(image, [body], True, edge, 4, cv2.LINE_AA)
    return np.dstack([image, alpha])


def _board(style: _Style, geometry: BoardGeometry) -> np.ndarray:
    """The board's printed layout (frame, title corner, slots, grid, sockets) in the
    edition's colours and title font."""
    rng = style.rng
    ppm = ART_PX_PER_MM
    size = int(round(geometry.board * ppm))
    ground = _bgr(rng.uniform(0, 1), rng.uniform(0.1, 0.35), rng.uniform(0.75, 0.92))
    frame = _bgr(rng.uniform(0, 1), rng.uniform(0.2, 0.7), rng.uniform(0.12, 0.3))
    ink = _bgr(rng.uniform(0, 1), rng.uniform(0.3, 0.7), rng.uniform(0.25, 0.45))
    socket = tuple(int(v * 0.85) for v in ground)
    board = np.zeros((size, size, 3), np.uint8)
    board[:] = frame
    f = int(geometry.frame * ppm)
    board[f:size - f, f:size - f] = ground
    lo, hi = (int(v * ppm) for v in geometry.grid_outer)
    cv2.rectangle(board, (lo, lo), (hi, hi), ink, int(1.5 * ppm))
    for cx, cy in geometry.centres.reshape(-1, 2) * ppm:
        cv2.circle(board, (int(cx), int(cy)), int(16.25 * ppm), socket, -1, cv2.LINE_AA)
        cv2.circle(board, (int(cx), int(cy)), int(16.25 * ppm), ink, 4, cv2.LINE_AA)
    # the slots beside the grid, as the bundled board has them (in mm)
    for x0, y0, x1, y1 in ((100, 10, 170, 32), (100, 238, 170, 260), (10, 100, 32, 170),
                           (238, 100, 260, 170)):
        cv2.rectangle(board, (int(x0 * ppm), int(y0 * ppm)), (int(x1 * ppm), int(y1 * ppm)),
                      ink, 5)
    title_height = 8 * ppm  # left-aligned in the title corner, as the game prints it
    width = cv2.getTextSize("FOOD ALLEY", style.font, title_height / 22.0, style.bold)[0][0]
    _text(board, "FOOD ALLEY", (11 * ppm + width / 2, 20 * ppm), title_height, style, ink)
    return np.dstack([board, np.full((size, size), 255, np.uint8)])


def draw_edition(folder: Path, seed: int, components: Components | None = None) -> Path:
    """Draw every art file of an edition styled by ``seed`` into ``folder`` (made if missing);
    returns the folder, for ``render_scene(art=...)``."""
    c = components or food_alley()
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    style = _Style(np.random.default_rng([seed, 0xED17]), c)
    geometry = BoardGeometry.from_components(c)
    cv2.imwrite(str(folder / "board.png"), _board(style, geometry)[:, :, :3])
    for label in labels(c):
        name = label.art()
        if name is None:
            continue
        if label.kind in ("ingredient", "coin"):
            image = _token_face(style, c, label)
        elif label.kind in ("cat", "cat-back"):
            image = _cat(style, label)
        else:
            image = _shopper(style, label)
        cv2.imwrite(str(folder / name), image)
    return folder


def plan_photos(folder: Path, art: Path, seed: int, changed: dict | None = None,
                like: Path | None = None, camera: bool = False,
                retake_above: float | None = None) -> Path:
    """The enrollment plan's photos of an edition (``art``) as one rig takes them: one camera
    pose for all, drawn from ``seed``, the light drawn afresh for each, no hands; a shopper
    stands alone. ``changed``: {layout index: faces} laid instead of the plan's, the other
    photos copied from the folder ``like`` when given. ``camera``: through another camera
    (CAMERA_STYLE) and of varnished tokens. ``retake_above``: a photo whose board's edge is
    wider than this (mm, as the locator measures it) is taken again, the rig's pose kept and
    the light and focus drawn afresh, as a player does when enroll names it blurred
    (enroll.blurred_warnings); at most RETAKES times. Returns the folder."""
    import shutil

    from companion.vision.enroll import enrollment_plan
    from companion.vision.geometry import BoardGeometry
    from companion.vision.locate import BoardNotFoundError, Locator
    from companion.vision.synth import SceneStyle, render_scene

    plan = enrollment_plan()
    style = SceneStyle(hand_probability=0.0, shopper_on_coin=False)
    if camera:
        style = replace(style, **CAMERA_STYLE)
    folder.mkdir(parents=True, exist_ok=True)
    first = render_scene(np.random.default_rng([970000, seed]), list(plan[0].faces),
                         style=style, art=art)
    # what measures a photo's blur, as enroll does (once: it holds no photo's state)
    locator = (Locator(BoardGeometry.from_components(), empty_board=True)
               if retake_above is not None else None)
    for layout in plan:
        if like is not None and layout.index not in (changed or {}):
            shutil.copy(like / layout.file_name, folder / layout.file_name)
            continue
        faces = (changed or {}).get(layout.index, list(layout.faces))
        scene = first if layout.index == 0 else render_scene(
            np.random.default_rng([970000 + layout.index, seed]), faces, style=style,
            art=art, pose=first.pose)
        path = folder / layout.file_name
        cv2.imwrite(str(path), scene.frame)
        for again in range(1, RETAKES + 1 if locator is not None else 1):
            try:
                if locator.locate(cv2.imread(str(path))).edge_blur_mm <= retake_above:
                    break
            except BoardNotFoundError:  # kept: enroll names a photo without a board
                break
            scene = render_scene(np.random.default_rng([970000 + layout.index, seed, again]),
                                 faces, style=style, art=art, pose=first.pose)
            cv2.imwrite(str(path), scene.frame)
    return folder
