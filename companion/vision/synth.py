"""Camera-like scenes made from the component art, with their truth (for training and tests).

A scene is the board on a table under an overhead camera: any yaw, a tilt up to about 15 degrees,
the board 30-50 % of the frame width; tokens a few mm off-centre at any rotation; shoppers on coins;
cats face up and face down; empty cells; varied tables, light colour, gradients, vignetting, glare,
shadows, defocus, sensor noise and JPEG compression; sometimes a hand or arm over the board.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field, replace
from functools import lru_cache
from pathlib import Path

import cv2
import numpy as np

from companion.rules.components import Components, food_alley
from companion.vision.assets import ART_PX_PER_MM, Label, art_name, labels, load_art
from companion.vision.geometry import BoardGeometry, pose_from_corners, project

FRAME_SIZE = (1920, 1080)


@dataclass
class SceneStyle:
    """How much of each nuisance a scene gets; every range is sampled per scene."""

    board_fraction: tuple[float, float] = (0.30, 0.50)
    max_tilt_deg: float = 15.0
    offset_mm: float = 2.5
    hand_probability: float = 0.15
    glare_probability: float = 0.4
    shadow_probability: float = 0.5
    blur_sigma: tuple[float, float] = (0.0, 1.4)
    noise_sigma: tuple[float, float] = (0.0, 7.0)
    jpeg_quality: tuple[int, int] = (55, 95)
    colour_gain: tuple[float, float] = (0.85, 1.15)  # per channel: light colour, white balance
    # off unless asked for (training asks): the camera's tone curve, shake during exposure, the
    # camera's own sharpening (unsharp masking, as most camera pipelines do, the Pi's included),
    # glossy tokens (each shows a highlight of the lamp, in the same direction on all), and a
    # cheap lens's colour fringes (red and blue apart by up to twice fringe_px at the frame edge)
    gamma: tuple[float, float] = (1.0, 1.0)
    motion_probability: float = 0.0
    motion_px: tuple[float, float] = (3.0, 10.0)
    sharpen_probability: float = 0.0
    sharpen_amount: tuple[float, float] = (0.3, 1.8)
    sharpen_sigma_px: tuple[float, float] = (0.7, 2.0)
    gloss_probability: float = 0.0
    gloss: tuple[float, float] = (0.15, 0.6)
    sleeve_probability: float = 0.0  # a hand's arm in a sleeve of any colour, plain or striped
    fringe_probability: float = 0.0
    fringe_px: tuple[float, float] = (0.5, 2.5)
    shopper_on_coin: bool = True  # in play a shopper stands on a coin; alone in enrollment


@dataclass
class Scene:
    frame: np.ndarray  # (H, W, 3) uint8 BGR
    pose: np.ndarray  # board mm -> image px
    corners: np.ndarray  # (4, 2) image px, clockwise from the title corner
    cells: list[str]  # 25 label names, row-major from the title side
    covered: np.ndarray = field(default_factory=lambda: np.zeros(25))  # hand cover per cell
    # hand cover of each cat's number badge (0 where the cell holds no cat)
    badge_covered: np.ndarray = field(default_factory=lambda: np.zeros(25))

    @property
    def hidden(self) -> np.ndarray:
        """How much of what tells each cell apart the hand covers: its token's disc or, for a
        cat, its number badge if that is more (a face-up cat without its badge shows the same
        picture as its back)."""
        return np.maximum(self.covered, self.badge_covered)


def random_layout(rng: np.random.Generator, components: Components | None = None) -> list[Label]:
    """25 cell contents; each token, face-up cat and shopper at most once."""
    c = components or food_alley()
    all_labels = labels(c)
    by_kind: dict[str, list[Label]] = {}
    for lab in all_labels:
        by_kind.setdefault(lab.kind, []).append(lab)
    kinds = ["ingredient", "coin", "cat", "cat-back", "shopper", "empty"]
    weights = np.array([0.38, 0.24, 0.17, 0.06, 0.07, 0.08])
    used_tokens: set[str] = set()
    used: set[str] = set()
    backs: dict[str, int] = {}
    out: list[Label] = []
    for _ in range(25):
        while True:
            kind = kinds[rng.choice(len(kinds), p=weights / weights.sum())]
            if kind == "empty":
                out.append(Label("empty"))
                break
            lab = by_kind[kind][rng.integers(len(by_kind[kind]))]
            if lab.token and lab.token in used_tokens:
                continue
            if lab.kind in ("cat", "shopper") and lab.name in used:
                continue
            if lab.kind == "cat-back":
                if backs.get(lab.player or "", 0) >= len(c.cat_values) // 2:
                    continue
                backs[lab.player or ""] = backs.get(lab.player or "", 0) + 1
            if lab.token:
                used_tokens.add(lab.token)
            used.add(lab.name)
            out.append(lab)
            break
    return out


def _composite(canvas: np.ndarray, art: np.ndarray, centre_px: tuple[float, float],
               size_px: float, angle_deg: float, *, opacity: float = 1.0,
               shadow: tuple[float, float, float] | None = None) -> np.ndarray:
    """Alpha-blend art (BGRA 0..1) onto canvas (BGR 0..1) at a centre, size and rotation, and
    return where it went: the 2x3 map from art px to canvas px.

    ``shadow`` = (dx, dy, strength) in canvas px draws a soft shadow first.
    """
    h = art.shape[0]
    scale = size_px / h
    pad = int(size_px * 0.75) + 8
    cx, cy = centre_px
    x0, y0 = int(cx) - pad, int(cy) - pad
    local = (cx - x0, cy - y0)
    m = cv2.getRotationMatrix2D((h / 2, h / 2), angle_deg, scale)
    m[0, 2] += local[0] - h / 2
    m[1, 2] += local[1] - h / 2
    patch = cv2.warpAffine(art, m, (2 * pad, 2 * pad), flags=cv2.INTER_LINEAR,
                           borderMode=cv2.BORDER_CONSTANT, borderValue=(0, 0, 0, 0))
    to_canvas = m + [[0, 0, x0], [0, 0, y0]]
    H, W = canvas.shape[:2]
    xa, ya, xb, yb = max(x0, 0), max(y0, 0), min(x0 + 2 * pad, W), min(y0 + 2 * pad, H)
    if xa >= xb or ya >= yb:
        return to_canvas
    sub = canvas[ya:yb, xa:xb]
    p = patch[ya - y0:yb - y0, xa - x0:xb - x0]
    alpha = p[:, :, 3:4] * opacity
    if shadow is not None:
        dx, dy, strength = shadow
        sm = np.float32([[1, 0, dx], [0, 1, dy]])
        sa = cv2.warpAffine(np.ascontiguousarray(alpha[:, :, 0]), sm, (alpha.shape[1],
                            alpha.shape[0]))
        k = max(3, int(size_px * 0.08) | 1)
        sa = cv2.GaussianBlur(sa, (k, k), 0)[:, :, None]
        sub *= 1 - strength * sa
    sub[:] = sub * (1 - alpha) + p[:, :, :3] * alpha
    return to_canvas


@lru_cache(maxsize=64)
def cat_badge(player: str, art: Path | None = None) -> tuple[float, float, float]:
    """Where a cat's number badge lies on its art: (x, y, radius) in token diameters from the
    token's centre, x right and y down (in art px: (0.5 + x, 0.5 + y) times the art's size).
    It is the smallest circle round every pixel where any face-up cat of this colour differs
    from its back, the only part that tells them apart."""
    back = load_art(Label("cat-back", player=player).art(art) or "")
    differs = np.zeros(back.shape[:2], bool)
    for value in food_alley().cat_values:
        face = load_art(Label("cat", player=player, value=value).art(art) or "")
        differs |= np.abs(face[:, :, :3] - back[:, :, :3]).sum(axis=2) > 0.15
    ys, xs = np.nonzero(differs)
    (x, y), r = cv2.minEnclosingCircle(np.c_[xs, ys].astype(np.float32))
    h = back.shape[0]
    return (x - h / 2) / h, (y - h / 2) / h, r / h


def render_board(layout: list[Label], rng: np.random.Generator,
                 geometry: BoardGeometry | None = None, style: SceneStyle | None = None,
                 art: Path | None = None) -> tuple[np.ndarray, np.ndarray]:
    """The board seen from straight above at 4 px/mm (BGR float 0..1) with its tokens, and
    where each cell's cat has its number badge: (x, y, radius) in board mm, NaN for no cat.
    ``art``: another edition's art folder (the bundled art when None)."""
    g = geometry or BoardGeometry.from_components()
    st = style or SceneStyle()
    board = load_art(art_name("board.png", art))[:, :, :3].copy()
    # printed boards differ a little from the art
    board *= rng.uniform(0.92, 1.06, size=3).astype(np.float32)
    token_px = g.token * ART_PX_PER_MM
    light = rng.uniform(0, 2 * math.pi)
    shadow_dir = (math.cos(light), math.sin(light))
    badges = np.full((len(layout), 3), np.nan)
    for i, (lab, (cx, cy)) in enumerate(zip(layout, g.centres.reshape(-1, 2), strict=True)):
        if lab.kind == "empty":
            continue
        off = np.clip(rng.normal(0, st.offset_mm / 2, 2), -st.offset_mm, st.offset_mm)
        centre = ((cx + off[0]) * ART_PX_PER_MM, (cy + off[1]) * ART_PX_PER_MM)
        angle = float(rng.uniform(0, 360))
        shadow = (shadow_dir[0] * 3, shadow_dir[1] * 3, 0.35)
        if lab.kind == "shopper":
            coin = _random_coin(rng)  # drawn either way: the scene's other draws stay the same
            if st.shopper_on_coin:
                _composite(board, load_art(art_name(coin, art)), centre, token_px, angle,
                           shadow=shadow)
            pawn_off = rng.normal(0, 1.0, 2) * ART_PX_PER_MM
            pawn = (centre[0] + pawn_off[0], centre[1] + pawn_off[1])
            tall = (shadow_dir[0] * 14, shadow_dir[1] * 14, 0.45)
            _composite(board, load_art(lab.art(art) or ""), pawn,
                       token_px * rng.uniform(0.95, 1.1),
                       float(rng.uniform(0, 360)), shadow=tall)
        else:
            face = load_art(lab.art(art) or "")
            tint = face.copy()
            tint[:, :, :3] *= rng.uniform(0.93, 1.07, size=3).astype(np.float32)
            size_px = token_px * rng.uniform(0.97, 1.03)
            to_board = _composite(board, tint, centre, size_px, angle, shadow=shadow)
            if lab.kind in ("cat", "cat-back"):
                x, y, r = cat_badge(lab.player or "", art)
                at = to_board @ ((0.5 + x) * face.shape[1], (0.5 + y) * face.shape[0], 1.0)
                badges[i] = (*(at / ART_PX_PER_MM), r * size_px / ART_PX_PER_MM)
    if st.gloss_probability > 0 and rng.random() < st.gloss_probability:
        board += _gloss(layout, rng, g, shadow_dir, rng.uniform(*st.gloss), board.shape[:2])
    return np.minimum(board, 1.0), badges


def _gloss(layout: list[Label], rng: np.random.Generator, g: BoardGeometry,
           shadow_dir: tuple[float, float], strength: float, size: tuple[int, ...]
           ) -> np.ndarray:
    """Highlights of the lamp on glossy tokens (a board image of ``size`` at 4 px/mm, to add):
    on each token's lit side, opposite its shadow, a soft patch ``strength`` bright, within the
    token's cell-centred disc; none on the matte board."""
    spots = np.zeros(size, np.float32)
    discs = np.zeros(size, np.float32)
    radius = g.token / 2
    reach = rng.uniform(0.2, 0.6) * radius
    axes = tuple(int(v * ART_PX_PER_MM) for v in sorted(rng.uniform(1.5, 5.0, 2))[::-1])
    tilt = math.degrees(math.atan2(shadow_dir[1], shadow_dir[0])) + 90
    for lab, (cx, cy) in zip(layout, g.centres.reshape(-1, 2), strict=True):
        if lab.kind == "empty":
            continue
        centre = (int(cx * ART_PX_PER_MM), int(cy * ART_PX_PER_MM))
        cv2.circle(discs, centre, int(radius * ART_PX_PER_MM), 1.0, -1)
        jitter = rng.normal(0, 1.0, 2)
        spot = (int((cx - shadow_dir[0] * reach + jitter[0]) * ART_PX_PER_MM),
                int((cy - shadow_dir[1] * reach + jitter[1]) * ART_PX_PER_MM))
        cv2.ellipse(spots, spot, axes, tilt, 0, 360, 1.0, -1)
    spots = cv2.GaussianBlur(spots, (0, 0), rng.uniform(1.0, 2.5) * ART_PX_PER_MM)
    return (strength * spots * discs)[:, :, None]


def _random_coin(rng: np.random.Generator) -> str:
    tokens = food_alley().tokens
    return f"token-{tokens[rng.integers(len(tokens))].id}-coin.png"


@lru_cache(maxsize=4)
def _grids(size: tuple[int, int]) -> tuple[np.ndarray, np.ndarray]:
    w, h = size
    ys, xs = np.mgrid[0:h, 0:w].astype(np.float32)
    return xs, ys


def _smooth_noise(rng: np.random.Generator, size: tuple[int, int], cell: int) -> np.ndarray:
    """Low-frequency noise, made small and scaled up (fast)."""
    w, h = size
    small = rng.standard_normal((h // cell + 2, w // cell + 2), dtype=np.float32)
    return cv2.resize(small, (w, h), interpolation=cv2.INTER_CUBIC)


def _blur_large(image: np.ndarray, sigma: float) -> np.ndarray:
    """A wide Gaussian blur done at a quarter of the resolution."""
    h, w = image.shape[:2]
    small = cv2.resize(image, (w // 4, h // 4), interpolation=cv2.INTER_AREA)
    small = cv2.GaussianBlur(small, (0, 0), max(sigma / 4, 0.5))
    return cv2.resize(small, (w, h), interpolation=cv2.INTER_LINEAR)


def _table(rng: np.random.Generator, size: tuple[int, int]) -> np.ndarray:
    w, h = size
    hue = rng.uniform(0, 180)
    sat = rng.uniform(0, 160)
    val = rng.uniform(40, 235)
    base = cv2.cvtColor(np.uint8([[[hue, sat, val]]]), cv2.COLOR_HSV2BGR)[0, 0] / 255.0
    low = _smooth_noise(rng, size, 40)
    shade = 1 + 0.08 * low
    style = rng.integers(4)
    xs, ys = _grids(size)
    if style == 1:  # wood grain
        angle = rng.uniform(0, math.pi)
        t = xs * math.cos(angle) + ys * math.sin(angle)
        shade *= 1 + np.sin(t / rng.uniform(6, 30) + 3 * low) * rng.uniform(0.03, 0.12)
    table = shade[:, :, None] * base.astype(np.float32)
    if style == 2:  # cloth check
        period = float(rng.integers(30, 120))
        check = ((np.floor(xs / period) + np.floor(ys / period)) % 2)[:, :, None]
        other = rng.uniform(0.2, 1.0, 3).astype(np.float32)
        table = table * (1 - check * 0.5) + other * check * 0.5
    elif style == 3:  # fine texture
        table *= (1 + 0.05 * _smooth_noise(rng, size, 3))[:, :, None]
    return table


def _board_pose(rng: np.random.Generator, g: BoardGeometry, size: tuple[int, int],
                st: SceneStyle) -> np.ndarray:
    """A camera looking down at the board: yaw, tilt, distance and position in the frame."""
    w, h = size
    f = rng.uniform(1100, 2200)
    yaw = rng.uniform(0, 2 * math.pi)
    tilt = math.radians(rng.uniform(0, st.max_tilt_deg))
    axis = rng.uniform(0, 2 * math.pi)
    half = g.board / 2
    pts = g.corners() - half
    # rotate in the board plane (yaw), then tilt about an in-plane axis
    cz, sz = math.cos(yaw), math.sin(yaw)
    rz = np.array([[cz, -sz, 0], [sz, cz, 0], [0, 0, 1]])
    ax = np.array([math.cos(axis), math.sin(axis), 0.0])
    kx = np.array([[0, -ax[2], ax[1]], [ax[2], 0, -ax[0]], [-ax[1], ax[0], 0]])
    rt = np.eye(3) + math.sin(tilt) * kx + (1 - math.cos(tilt)) * kx @ kx
    target_w = rng.uniform(*st.board_fraction) * w
    z0 = f * g.board / target_w
    p3 = (rt @ rz @ np.c_[pts, np.zeros(4)].T).T + np.array([0, 0, z0])
    img = f * p3[:, :2] / p3[:, 2:3]
    lo, hi = img.min(axis=0), img.max(axis=0)
    margin = 20
    span = hi - lo
    if span[1] > h - 2 * margin:  # too tall for the frame: shrink
        img *= (h - 2 * margin) / span[1]
        lo, hi = img.min(axis=0), img.max(axis=0)
        span = hi - lo
    x = rng.uniform(margin, max(margin + 1, w - margin - span[0])) - lo[0]
    y = rng.uniform(margin, max(margin + 1, h - margin - span[1])) - lo[1]
    corners = img + np.array([x, y])
    return pose_from_corners(corners, g.corners())


def overflowing_pose(rng: np.random.Generator, size: tuple[int, int] = FRAME_SIZE,
                     max_tilt_deg: float = 20.0) -> np.ndarray:
    """A board at any yaw, tilted up to ``max_tilt_deg`` from facing the camera, 45-60 % of the
    frame's width, placed so that one corner of its printed border lies 5-80 px outside the
    frame while every cell (its token's whole disc) stays inside: what a camera close over a
    turned board sees."""
    g = BoardGeometry.from_components()  # the pose is the same for any component list
    w, h = size
    angles = np.linspace(0, 2 * math.pi, 16, endpoint=False)
    discs = np.stack([np.cos(angles), np.sin(angles)], axis=1) * g.token / 2
    rims = (g.centres.reshape(-1, 1, 2) + discs).reshape(-1, 2)
    while True:
        side = rng.uniform(0.45, 0.6) * w
        yaw = rng.uniform(0, 2 * math.pi)
        turn = np.array([[math.cos(yaw), -math.sin(yaw)], [math.sin(yaw), math.cos(yaw)]])
        square = _tilted((g.corners() / g.board - 0.5) * side @ turn.T,
                         math.radians(rng.uniform(0, max_tilt_deg)),
                         rng.uniform(0, 2 * math.pi), focal_px=1.2 * w)
        k = int(rng.integers(4))  # the corner that leaves the frame, and past which edge
        out = rng.uniform(5, 80)
        centre = np.array([w / 2, h / 2]) + rng.uniform(-0.2, 0.2, 2) * [w, h]
        corners = square + centre
        x, y = corners[k]
        gaps = {"x0": x, "y0": y, "x1": w - 1 - x, "y1": h - 1 - y}
        edge = min(gaps, key=gaps.get)
        shift = np.zeros(2)
        axis = 0 if edge[0] == "x" else 1
        sign = -1 if edge[1] == "0" else 1
        shift[axis] = sign * (gaps[edge] + out)
        corners = corners + shift
        pose = pose_from_corners(corners, g.corners())
        pts = project(pose, rims)
        if (pts.min(axis=0) >= 2).all() and (pts[:, 0] <= w - 3).all() and \
                (pts[:, 1] <= h - 3).all():
            return pose


def _tilted(square: np.ndarray, tilt: float, axis_angle: float, focal_px: float) -> np.ndarray:
    """A square (4, 2) centred on the optical axis, its plane turned by ``tilt`` (radians)
    about an axis in it at ``axis_angle``, seen by a pinhole camera at ``focal_px``."""
    ax = np.array([math.cos(axis_angle), math.sin(axis_angle), 0.0])
    k = np.array([[0, -ax[2], ax[1]], [ax[2], 0, -ax[0]], [-ax[1], ax[0], 0]])
    turn = np.eye(3) + math.sin(tilt) * k + (1 - math.cos(tilt)) * k @ k  # Rodrigues
    points = np.c_[square, np.zeros(len(square))] @ turn.T + [0.0, 0.0, focal_px]
    return points[:, :2] * focal_px / points[:, 2:3]


def _hand(rng: np.random.Generator, size: tuple[int, int], target: np.ndarray,
          sleeve_probability: float = 0.0) -> tuple[np.ndarray, np.ndarray]:
    """An arm reaching from a frame edge to a point: (colour image, mask 0..1); with
    ``sleeve_probability``, the arm up to the wrist in cloth of any colour, plain or striped
    (drawn after the arm and its skin, so the same seed gives the same arm bare or in a
    sleeve)."""
    w, h = size
    mask = np.zeros((h, w), np.float32)
    edge = rng.integers(4)
    start = [(rng.uniform(0, w), -50), (w + 50, rng.uniform(0, h)), (rng.uniform(0, w), h + 50),
             (-50, rng.uniform(0, h))][edge]
    tip = target + rng.normal(0, 40, 2)
    width = rng.uniform(70, 140)
    cv2.line(mask, (int(start[0]), int(start[1])), (int(tip[0]), int(tip[1])), 1.0,
             int(width))
    palm = (int(tip[0]), int(tip[1]))
    ang = math.degrees(math.atan2(tip[1] - start[1], tip[0] - start[0]))
    cv2.ellipse(mask, palm, (int(width * 0.9), int(width * 0.6)), ang, 0, 360, 1.0, -1)
    for k in range(4):  # fingers
        a = math.radians(ang + (k - 1.5) * 14)
        end = (int(palm[0] + math.cos(a) * width * 1.5), int(palm[1] + math.sin(a) * width * 1.5))
        cv2.line(mask, palm, end, 1.0, int(width * 0.22))
    mask = cv2.GaussianBlur(mask, (7, 7), 0)
    skin = np.array([rng.uniform(60, 190), rng.uniform(90, 200), rng.uniform(130, 240)],
                    np.float32) / 255
    shade = _blur_large(mask, width / 3)
    colour = np.ones((h, w, 3), np.float32) * skin * (0.75 + 0.35 * shade[:, :, None])
    if sleeve_probability > 0 and rng.random() < sleeve_probability:
        reach = tip - np.array(start)
        along = reach / max(float(np.linalg.norm(reach)), 1.0)
        wrist = tip - along * width * 1.2
        cuff = np.zeros((h, w), np.float32)
        cv2.line(cuff, (int(start[0]), int(start[1])), (int(wrist[0]), int(wrist[1])), 1.0,
                 int(width * 1.1))
        cuff = cv2.GaussianBlur(cuff, (7, 7), 0)[:, :, None] * mask[:, :, None]
        cloth = np.ones((h, w, 3), np.float32) * rng.uniform(0.05, 0.95, 3).astype(np.float32)
        if rng.random() < 0.5:  # stripes across the arm
            xs, ys = _grids(size)
            band = np.sin((xs * along[0] + ys * along[1]) / rng.uniform(4, 15)) > 0
            other = rng.uniform(0.05, 0.95, 3).astype(np.float32)
            cloth[band] = other
        cloth *= (0.75 + 0.35 * shade[:, :, None])
        colour = colour * (1 - cuff) + cloth * cuff
    return colour, mask


def render_scene(rng: np.random.Generator, layout: list[Label] | None = None, *,
                 size: tuple[int, int] = FRAME_SIZE, style: SceneStyle | None = None,
                 hand: bool | None = None, components: Components | None = None,
                 pose: np.ndarray | None = None, art: Path | None = None) -> Scene:
    """One camera frame of the board with its truth (``pose``: board mm -> px, else random;
    ``art``: another edition's art folder, else the bundled art)."""
    c = components or food_alley()
    g = BoardGeometry.from_components(c)
    st = style or SceneStyle()
    layout = layout or random_layout(rng, c)
    board, badges = render_board(layout, rng, g, st, art)
    pose = _board_pose(rng, g, size, st) if pose is None else pose
    w, h = size
    frame = _table(rng, size)
    to_img = pose @ np.diag([1 / ART_PX_PER_MM, 1 / ART_PX_PER_MM, 1.0])
    warped = cv2.warpPerspective(board, to_img, size, flags=cv2.INTER_LINEAR)
    inside = cv2.warpPerspective(np.ones(board.shape[:2], np.float32), to_img, size,
                                 flags=cv2.INTER_LINEAR)
    # the board's shadow on the table
    sh = _blur_large(np.roll(inside, (int(rng.integers(4, 14)), int(rng.integers(4, 14))),
                             (0, 1)), 8)
    frame *= (1 - 0.35 * sh)[:, :, None]
    frame = frame * (1 - inside[:, :, None]) + warped * inside[:, :, None]
    covered = badge_covered = np.zeros(25)
    if hand if hand is not None else rng.random() < st.hand_probability:
        target = project(pose, g.centres.reshape(-1, 2)[rng.integers(25)][None])[0]
        colour, mask = _hand(rng, size, target, st.sleeve_probability)
        hs = _blur_large(np.roll(mask, (18, 18), (0, 1)), 10)
        frame *= (1 - 0.3 * hs)[:, :, None]
        frame = frame * (1 - mask[:, :, None]) + colour * mask[:, :, None]
        tokens = np.c_[g.centres.reshape(-1, 2), np.full(25, g.token / 2)]
        covered = _coverage(mask, pose, tokens)
        badge_covered = _coverage(mask, pose, badges)
    frame = _light(frame, rng, st)
    frame = _camera(frame, rng, st)
    corners = project(pose, g.corners())
    return Scene(frame, pose, corners, [lab.name for lab in layout], covered, badge_covered)


def _coverage(mask: np.ndarray, pose: np.ndarray, discs: np.ndarray) -> np.ndarray:
    """How much of each disc, (x, y, radius) on the board in mm, the hand covers (0..1; 0 for a
    NaN disc)."""
    out = np.zeros(len(discs))
    angles = np.linspace(0, 2 * math.pi, 24, endpoint=False)
    ring = np.c_[np.cos(angles), np.sin(angles)]
    for i, (cx, cy, r) in enumerate(discs):
        if np.isnan(r):
            continue
        poly = project(pose, ring * r + (cx, cy)).astype(np.int32)
        x, y, bw, bh = cv2.boundingRect(poly)
        disc = np.zeros((bh, bw), np.uint8)
        cv2.fillPoly(disc, [poly - [x, y]], 1)
        sub = mask[max(y, 0):y + bh, max(x, 0):x + bw]
        d = disc[:sub.shape[0], :sub.shape[1]].astype(bool)
        out[i] = float((sub[d] > 0.5).mean()) if d.any() else 0.0
    return out


def _light(frame: np.ndarray, rng: np.random.Generator, st: SceneStyle) -> np.ndarray:
    h, w = frame.shape[:2]
    gains = rng.uniform(*st.colour_gain, 3).astype(np.float32) * rng.uniform(0.6, 1.25)
    xs, ys = _grids((w // 8, h // 8))
    sw, sh = w // 8, h // 8
    ang = rng.uniform(0, 2 * math.pi)
    grad = 1 + rng.uniform(0, 0.35) * ((xs / sw - 0.5) * math.cos(ang) + (ys / sh - 0.5)
                                       * math.sin(ang))
    r2 = ((xs - sw / 2) / (sw / 2)) ** 2 + ((ys - sh / 2) / (sh / 2)) ** 2
    vignette = 1 - rng.uniform(0, 0.35) * r2 / 2
    field_ = cv2.resize(grad * vignette, (w, h), interpolation=cv2.INTER_LINEAR)
    frame = frame * field_[:, :, None] * gains
    if rng.random() < st.shadow_probability:
        poly = (rng.uniform(0, 1, (int(rng.integers(3, 7)), 2)) * [w, h]).astype(np.int32)
        shade = np.zeros((h, w), np.float32)
        cv2.fillPoly(shade, [cv2.convexHull(poly)], 1.0)
        shade = _blur_large(shade, rng.uniform(5, 40))
        frame *= (1 - rng.uniform(0.2, 0.5) * shade)[:, :, None]
    if rng.random() < st.glare_probability:
        glare = np.zeros((h, w), np.float32)
        centre = (int(rng.uniform(0, w)), int(rng.uniform(0, h)))
        axes = (int(rng.uniform(20, 160)), int(rng.uniform(15, 90)))
        cv2.ellipse(glare, centre, axes, rng.uniform(0, 180), 0, 360, 1.0, -1)
        glare = _blur_large(glare, rng.uniform(8, 30))
        frame = frame + rng.uniform(0.2, 0.7) * glare[:, :, None]
    return frame


def _streak(length: float, angle_deg: float) -> np.ndarray:
    """A motion-blur kernel: a line of the given length (px) and direction."""
    size = int(math.ceil(length)) | 1
    kernel = np.zeros((size, size), np.float32)
    half = length / 2
    c = size // 2
    dx, dy = math.cos(math.radians(angle_deg)) * half, math.sin(math.radians(angle_deg)) * half
    cv2.line(kernel, (round(c - dx), round(c - dy)), (round(c + dx), round(c + dy)), 1.0, 1,
             cv2.LINE_AA)
    return kernel / kernel.sum()


def _camera(frame: np.ndarray, rng: np.random.Generator, st: SceneStyle) -> np.ndarray:
    if st.fringe_probability > 0 and rng.random() < st.fringe_probability:
        frame = fringes(frame, rng.uniform(*st.fringe_px))
    sigma = rng.uniform(*st.blur_sigma)
    if sigma > 0.3:
        frame = cv2.GaussianBlur(frame, (0, 0), sigma)
    if st.motion_probability > 0 and rng.random() < st.motion_probability:
        frame = cv2.filter2D(frame, -1, _streak(rng.uniform(*st.motion_px),
                                                rng.uniform(0, 180)))
    if st.gamma != (1.0, 1.0):
        frame = np.power(np.maximum(frame, 0), rng.uniform(*st.gamma)).astype(np.float32)
    noise = np.empty(frame.shape, np.float32)
    cv2.setRNGSeed(int(rng.integers(2**31)))
    cv2.randn(noise, 0.0, float(rng.uniform(*st.noise_sigma)))
    raw = cv2.scaleAdd(frame, 255.0, noise)
    if st.sharpen_probability > 0 and rng.random() < st.sharpen_probability:
        raw = unsharp(raw, rng.uniform(*st.sharpen_amount), rng.uniform(*st.sharpen_sigma_px))
    img = cv2.convertScaleAbs(cv2.max(raw, 0.0))  # a sensor clips below black: no |x|
    quality = int(rng.integers(st.jpeg_quality[0], st.jpeg_quality[1] + 1))
    ok, buf = cv2.imencode(".jpg", img, [cv2.IMWRITE_JPEG_QUALITY, quality])
    assert ok
    return cv2.imdecode(buf, cv2.IMREAD_COLOR)


def unsharp(image: np.ndarray, amount: float, sigma_px: float) -> np.ndarray:
    """A camera's sharpening: image + amount (image - its Gaussian blur), halos and all (float,
    not clipped)."""
    f = image.astype(np.float32)
    return cv2.addWeighted(f, 1 + amount, cv2.GaussianBlur(f, (0, 0), sigma_px), -amount, 0)


def fringes(image: np.ndarray, px: float) -> np.ndarray:
    """A lens's lateral chromatic aberration: red magnified and blue shrunk about the frame
    centre, each moved ``px`` at the frame's left and right edges (in proportion nearer in)."""
    h, w = image.shape[:2]
    k = px / (w / 2)
    out = image.copy()
    for channel, sign in ((0, -1), (2, 1)):  # BGR: blue in, red out
        s = 1 + sign * k
        scale = np.float32([[s, 0, (1 - s) * w / 2], [0, s, (1 - s) * h / 2]])
        out[:, :, channel] = cv2.warpAffine(image[:, :, channel], scale, (w, h),
                                            flags=cv2.INTER_LINEAR,
                                            borderMode=cv2.BORDER_REFLECT)
    return out


def lamp_falloff(scene: Scene, rng: np.random.Generator) -> Scene:
    """The scene under a lamp to one side, which the renderer never makes: the light falls off
    2-3x across the board in a random direction (the stress bench's "lamp")."""
    h, w = scene.frame.shape[:2]
    angle = rng.uniform(0, 2 * math.pi)
    direction = np.array([math.cos(angle), math.sin(angle)])
    span = np.ptp(scene.corners @ direction)  # the board's width along the fall-off
    centre = scene.corners.mean(axis=0)
    ys, xs = np.mgrid[0:h, 0:w].astype(np.float32)
    along = ((xs - centre[0]) * direction[0] + (ys - centre[1]) * direction[1]) / span
    light = np.exp(-np.log(rng.uniform(2.0, 3.0)) * along) / 1.2
    frame = np.clip(scene.frame * light[:, :, None], 0, 255).astype(np.uint8)
    return replace(scene, frame=frame)
