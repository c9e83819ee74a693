"""Is this camera rig good enough to referee on? One frame in, a verdict per check out.

The checks a café owner needs while setting up the stand (``companion calibrate``):

- the board is found, with every corner inside the frame and clear of its edge;
- the board fills 30-50 % of the frame's width (the reader's cells stay big enough, and a
  nudged board stays in view);
- focus: the reader's own blur measure, the width of the board's sharp printed edge;
- light: the board's light ground (known from the art) neither too dark nor clipped, no glare
  spots on the cells, no strong colour cast;
- a test read of the board, each cell with its confidence.

Pure functions of the frame and the reader, like the rest of ``vision/``; the limits come from
``data/rig-checks.yaml``.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field, fields
from functools import lru_cache
from pathlib import Path
from typing import Any

import cv2
import numpy as np
import yaml

from companion.vision.geometry import CORNER_NAMES, BoardGeometry, scale_mm
from companion.vision.reader import BoardReader, Reading
from companion.vision.tone import sample_colours, tone_reference

LIMITS_FILE = Path(__file__).with_name("data") / "rig-checks.yaml"
LIMITS_SCHEMA = 1
GOOD, SOFT, BAD = "good", "warn", "bad"
FOCUS_HOW = ("turn the lens's focus ring a little at a time, checking after each turn (a camera "
             "that focuses itself, like the Camera Module 3, needs the board still a moment)")
GLARE_PX_PER_MM = 2.0  # the board is looked at for glare at this resolution
TOKEN_OFFSET_MM = 3.0  # tokens lie up to this far off their cell's centre


class LimitsError(ValueError):
    """A malformed limits file."""


@dataclass(frozen=True)
class RigLimits:
    """What a good rig looks like; the numbers and why are in ``data/rig-checks.yaml``."""

    edge_margin: float = 0.03
    fill_min: float = 0.30
    fill_max: float = 0.50
    focus_good_mm: float = 1.4
    focus_soft_mm: float = 2.0
    dark_below: float = 90.0
    bright_above: float = 240.0
    clipped_share: float = 0.10
    glare_level: float = 248.0
    glare_ground_share: float = 0.05
    cast_ratio: float = 1.25
    test_read_unknown: int = 0

    @classmethod
    def load(cls, path: Path = LIMITS_FILE) -> RigLimits:
        try:
            raw = yaml.safe_load(path.read_text(encoding="utf-8"))
        except (OSError, yaml.YAMLError) as exc:
            raise LimitsError(f"{path}: cannot be read ({exc}); reinstall the package") from exc
        if not isinstance(raw, dict) or raw.get("schema_version") != LIMITS_SCHEMA:
            raise LimitsError(f"{path}: not a rig-checks file of schema version "
                              f"{LIMITS_SCHEMA}; reinstall the package")
        known = {f.name: f.type for f in fields(cls)}
        values = {k: v for k, v in raw.items() if k != "schema_version"}
        unknown = sorted(set(values) - set(known))
        if unknown:
            raise LimitsError(f"{path}: unknown settings {', '.join(unknown)}")
        for name, value in values.items():
            if isinstance(value, bool) or not isinstance(value, int | float):
                raise LimitsError(f"{path}: {name} must be a number, not {value!r}")
        return cls(**values)


@dataclass(frozen=True)
class Check:
    name: str  # board, corners, size, focus, light, glare, colour, read
    verdict: str  # good, warn or bad
    message: str
    value: float | None = None

    def to_json(self) -> dict[str, Any]:
        return {k: v for k, v in asdict(self).items() if v is not None}


@dataclass
class RigReport:
    """Every check on one frame, and the reading it was judged on."""

    frame_size: tuple[int, int]  # width, height
    checks: list[Check] = field(default_factory=list)
    reading: Reading | None = None
    fill: float | None = None

    @property
    def ok(self) -> bool:
        """Good enough to referee on: nothing bad (a soft focus or a warning is allowed)."""
        return all(c.verdict != BAD for c in self.checks)

    def check(self, name: str) -> Check | None:
        return next((c for c in self.checks if c.name == name), None)

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"ok": self.ok, "frame": list(self.frame_size),
                               "checks": [c.to_json() for c in self.checks]}
        if self.reading is not None:
            out["reading"] = self.reading.to_json()
        if self.fill is not None:
            out["fill"] = round(self.fill, 3)
        return out


def check_rig(frame: np.ndarray, reader: BoardReader, limits: RigLimits | None = None
              ) -> RigReport:
    """Every check on one BGR frame of the rig, the board searched for afresh."""
    lim = limits or default_limits()
    h, w = frame.shape[:2]
    report = RigReport((w, h))
    reading = reader.read(frame)
    report.reading = reading
    if not reading.found or reading.pose is None:
        report.checks.append(Check(
            "board", BAD, f"the board is not found ({reading.reason}). Put the whole board, all "
            "four corners, in view of the camera, on a plain table, and take any hand away"))
        return report
    report.checks.append(Check("board", GOOD, "the board is found"))
    geometry = reader.geometry
    corners = reading.pose.corners(geometry)
    report.checks.append(_corners(corners, w, h, lim))
    sides = np.linalg.norm(corners - np.roll(corners, -1, axis=0), axis=1)
    report.fill = float(sides.mean() / w)  # the board's own width, however it is turned
    report.checks.append(_size(report.fill, lim))
    report.checks.append(_focus(reading.pose.edge_blur_mm, lim))
    report.checks.extend(_light(frame, reading.pose.pose, geometry, lim))
    report.checks.append(_test_read(reading, lim))
    return report


@lru_cache(maxsize=1)
def default_limits() -> RigLimits:
    return RigLimits.load()


def _corners(corners: np.ndarray, w: int, h: int, lim: RigLimits) -> Check:
    margin = lim.edge_margin * min(w, h)
    problems = []
    for name, (x, y) in zip(CORNER_NAMES, corners, strict=True):
        gaps = {"left": x, "top": y, "right": w - 1 - x, "bottom": h - 1 - y}
        side, gap = min(gaps.items(), key=lambda kv: kv[1])
        if gap < 0:
            problems.append(f"{name} is outside the frame, past its {side} edge")
        elif gap < margin:
            problems.append(f"{name} is {gap:.0f} px from the frame's {side} edge, closer than "
                            f"{margin:.0f}")
    if problems:
        return Check("corners", BAD, "move the camera or the board: " + "; ".join(problems),
                     float(len(problems)))
    return Check("corners", GOOD, "all four corners are inside the frame, clear of its edges")


def _size(fill: float, lim: RigLimits) -> Check:
    share = f"the board fills {fill:.0%} of the frame's width"
    wanted = f"{lim.fill_min:.0%}-{lim.fill_max:.0%} wanted"
    if fill < lim.fill_min:
        return Check("size", BAD, f"{share} ({wanted}): lower the camera (or zoom in) so the "
                     "board looks bigger", fill)
    if fill > lim.fill_max:
        return Check("size", BAD, f"{share} ({wanted}): raise the camera so that the board, "
                     "even nudged, stays in view", fill)
    return Check("size", GOOD, f"{share} ({wanted})", fill)


def _focus(edge_mm: float, lim: RigLimits) -> Check:
    edge = f"the board's printed edge is {edge_mm:.1f} mm wide in the frame"
    if edge_mm <= lim.focus_good_mm:
        return Check("focus", GOOD, f"in focus: {edge}", edge_mm)
    if edge_mm <= lim.focus_soft_mm:
        return Check("focus", SOFT, f"soft: {edge} (sharp is {lim.focus_good_mm:.1f} or less). "
                     f"It reads, with little to spare: {FOCUS_HOW}", edge_mm)
    return Check("focus", BAD, f"too soft: {edge}, more than {lim.focus_soft_mm:.1f}. "
                 f"{FOCUS_HOW[0].upper()}{FOCUS_HOW[1:]}, and keep the camera and the table "
                 "still", edge_mm)


def _light(frame: np.ndarray, pose: np.ndarray, geometry: BoardGeometry, lim: RigLimits
           ) -> list[Check]:
    """Brightness and colour from the board's light ground, whose printed colour is known;
    glare from clipped white spots over the cells."""
    reference = tone_reference(geometry)
    _, seen = sample_colours(frame, pose, reference.light_mm)
    checks = []
    if len(seen) == 0:
        return [Check("light", BAD, "the board's light ground is not in view: the light "
                      "cannot be judged")]
    level = float(np.median(seen.mean(axis=1)))
    clipped = float((seen.max(axis=1) >= 250).mean())
    if level < lim.dark_below:
        checks.append(Check("light", BAD, f"too dark: the board's light ground reads {level:.0f} "
                            f"of 255, under {lim.dark_below:.0f}. Add light over the table",
                            level))
    elif level > lim.bright_above or clipped > lim.clipped_share:
        checks.append(Check("light", BAD, f"too bright: the board's light ground reads "
                            f"{level:.0f} of 255 and {clipped:.0%} of it is washed out. Dim or "
                            "move the light", level))
    else:
        checks.append(Check("light", GOOD, f"light: the board's light ground reads {level:.0f} "
                            "of 255", level))
    checks.append(_glare(frame, pose, geometry, lim))
    if clipped > lim.clipped_share:
        checks.append(Check("colour", SOFT, "colour: not judged while the board is washed out"))
    else:
        checks.append(_cast(np.median(seen, axis=0), reference.light * 255.0, lim))
    return checks


def _glare(frame: np.ndarray, pose: np.ndarray, geometry: BoardGeometry, lim: RigLimits
           ) -> Check:
    """Washed-out spots on the board between the tokens. The print there is the light ground,
    whose darkest channel never clips in a frame that is not too bright, so a spot where every
    channel clips is the lamp's reflection, not the art (a white token may clip: it is print)."""
    scale = GLARE_PX_PER_MM
    size = int(round(geometry.board * scale))
    to_board = scale_mm(scale) @ np.linalg.inv(pose)
    darkest = cv2.warpPerspective(frame.min(axis=2), to_board, (size, size),
                                  flags=cv2.INTER_NEAREST, borderValue=0)
    clipped = darkest >= lim.glare_level
    ground = _ground_mask(geometry.board, geometry.token, geometry.grid_outer,
                          geometry.centres.tobytes(), scale)
    hit = []
    half = geometry.pitch / 2
    for index, (cx, cy) in enumerate(geometry.centres.reshape(-1, 2)):
        x0, x1 = int((cx - half) * scale), int((cx + half) * scale)
        y0, y1 = int((cy - half) * scale), int((cy + half) * scale)
        cell = ground[y0:y1, x0:x1]
        if cell.any() and float(clipped[y0:y1, x0:x1][cell].mean()) > lim.glare_ground_share:
            hit.append(f"row {index // 5 + 1}, column {index % 5 + 1}")
    if hit:
        where = "; ".join(hit[:6]) + (f" and {len(hit) - 6} more" if len(hit) > 6 else "")
        return Check("glare", BAD, f"glare on {len(hit)} cell{'s' if len(hit) > 1 else ''} "
                     f"({where}): move or tilt the lamp so that its reflection leaves the board, "
                     "or use a diffuser", float(len(hit)))
    return Check("glare", GOOD, "no glare on the cells", 0.0)


@lru_cache(maxsize=2)
def _ground_mask(board: float, token: float, grid_outer: tuple[float, float], centres: bytes,
                 scale: float) -> np.ndarray:
    """The board between the tokens (inside the grid, clear of each token by a few mm)."""
    size = int(round(board * scale))
    ys, xs = (np.mgrid[0:size, 0:size] + 0.5) / scale
    lo, hi = grid_outer
    mask = (xs > lo) & (xs < hi) & (ys > lo) & (ys < hi)
    clear = token / 2 + TOKEN_OFFSET_MM
    for cx, cy in np.frombuffer(centres, np.float64).reshape(-1, 2):
        mask &= (xs - cx) ** 2 + (ys - cy) ** 2 > clear ** 2
    return mask


def _cast(seen_bgr: np.ndarray, printed_bgr: np.ndarray, lim: RigLimits) -> Check:
    """How far the light ground's colour is from its printed colour, as the ratio of the most
    to the least amplified channel."""
    gain = np.maximum(seen_bgr, 1.0) / np.maximum(printed_bgr, 1.0)
    ratio = float(gain.max() / gain.min())
    if ratio <= lim.cast_ratio:
        return Check("colour", GOOD, f"colour: no strong cast ({ratio:.2f}, at most "
                     f"{lim.cast_ratio:.2f})", ratio)
    relative = gain / gain.mean()
    strong = tuple(bool(v > 1.05) for v in relative)  # B, G, R
    hue = {(True, False, False): "blue", (False, True, False): "green",
           (False, False, True): "red", (False, True, True): "yellow",
           (True, True, False): "cyan", (True, False, True): "magenta"}.get(strong, "tinted")
    return Check("colour", BAD, f"the light is too {hue} ({ratio:.2f}, at most "
                 f"{lim.cast_ratio:.2f}): use a white light, or let the camera's white balance "
                 "settle before locking", ratio)


def _test_read(reading: Reading, lim: RigLimits) -> Check:
    cells = [c for row in reading.cells for c in row]
    unknown = [i for i, c in enumerate(cells) if c["kind"] == "unknown"]
    if reading.reason:
        return Check("read", BAD, f"the test read was refused: {reading.reason}",
                     float(len(unknown)))
    if len(unknown) > lim.test_read_unknown:
        where = "; ".join(f"row {i // 5 + 1}, column {i % 5 + 1}" for i in unknown[:6])
        return Check("read", BAD, f"the test read left {len(unknown)} cell"
                     f"{'s' if len(unknown) > 1 else ''} unknown ({where}"
                     f"{', ...' if len(unknown) > 6 else ''}): look at the light and focus "
                     "over them, and take any hand away", float(len(unknown)))
    lowest = min(float(c["confidence"]) for c in cells)
    return Check("read", GOOD, f"the test read is sure of every cell (the least sure at "
                 f"{lowest:.0%})", lowest)


def reading_grid(reading: Reading) -> list[str]:
    """The test read as five lines of text: each cell's label and confidence."""
    lines = []
    for row in reading.cells:
        parts = []
        for cell in row:
            parts.append(f"{cell_label(cell):<14} {float(cell['confidence']):4.0%}")
        lines.append(" | ".join(parts))
    return lines


def cell_label(cell: dict[str, Any]) -> str:
    """A short name for a read cell: ``tomato 3``, ``coin 4``, ``cat red``, ``empty``."""
    kind = cell["kind"]
    if kind in ("unknown", "empty"):
        return kind
    parts = [kind if cell.get("token") is None else str(cell["token"])]
    if cell.get("player"):
        parts.append(str(cell["player"]))
    if cell.get("value") is not None:
        parts.append(str(cell["value"]))
    return " ".join(parts)
