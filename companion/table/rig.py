"""The rig file: where this camera sees the board, and the camera controls locked for it.

``companion calibrate`` writes it (``rig.yaml`` in the data directory); the referee and the kiosk
start from its pose (a fixed rig: no search while the board stays put) and the Pi camera is set
to its locked exposure and white balance. A file that is corrupt, of another schema, or made for
another source or frame size is refused with a message saying to calibrate again; the referee
then searches for the board in every settled frame, as without a rig.
"""

from __future__ import annotations

import math
import os
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import numpy as np
import yaml

from companion.vision.geometry import BoardGeometry, pose_from_corners
from companion.vision.locate import BoardPose

SCHEMA = 1
FILE_NAME = "rig.yaml"
AGAIN = "run `companion calibrate` (or, on the kiosk, Settings > Camera rig) to make a new one"
# camera controls set back as they were locked: zero or less would be no exposure at all
POSITIVE_CONTROLS = ("ExposureTime", "AnalogueGain")


class RigError(ValueError):
    """A rig file that cannot be used."""


@dataclass
class Rig:
    source: str
    frame_size: tuple[int, int]  # width, height
    corners: np.ndarray  # (4, 2) px, clockwise from the title corner
    score: float  # the board's agreement with the art when calibrated, 0..1
    controls: dict[str, Any] = field(default_factory=dict)  # the camera's locked controls
    locked: bool = False  # whether the camera was seen holding them
    created: str = ""
    checks: dict[str, float] = field(default_factory=dict)  # measured values, for the record

    def pose(self, geometry: BoardGeometry | None = None) -> BoardPose:
        """The board's pose to start from (the reader checks it against each frame)."""
        g = geometry or BoardGeometry.from_components()
        return BoardPose(pose_from_corners(self.corners, g.corners()), self.score)

    def fits(self, source: str, frame_size: tuple[int, int]) -> str | None:
        """Why this rig does not fit a source's frames, or None if it does."""
        if source != self.source:
            return (f"the rig was calibrated for the source {self.source!r}, not {source!r}: "
                    f"{AGAIN}")
        if tuple(frame_size) != tuple(self.frame_size):
            w, h = self.frame_size
            return (f"the rig was calibrated on {w}x{h} frames, and the camera now gives "
                    f"{frame_size[0]}x{frame_size[1]}: {AGAIN}")
        return None

    def to_yaml(self) -> str:
        data = {
            "schema_version": SCHEMA,
            "created": self.created,
            "source": self.source,
            "frame": {"width": int(self.frame_size[0]), "height": int(self.frame_size[1])},
            "board": {"corners": [[round(float(x), 1), round(float(y), 1)]
                                  for x, y in self.corners],
                      "score": round(float(self.score), 3)},
            "camera": {"locked": bool(self.locked), "controls": _plain(self.controls)},
            "checks": {k: round(float(v), 3) for k, v in self.checks.items()},
        }
        head = ("# The camera rig, as `companion calibrate` measured it. Board corners in\n"
                "# frame px, clockwise from the title corner. Calibrate again, do not edit.\n")
        return head + yaml.safe_dump(data, sort_keys=False)

    def save(self, path: Path) -> None:
        """Write atomically: a crash leaves the old file or the new one, never half of one."""
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_name(path.name + ".tmp")
        tmp.write_text(self.to_yaml(), encoding="utf-8")
        os.replace(tmp, path)


def now() -> str:
    return datetime.now(UTC).replace(microsecond=0).isoformat()


def load_rig(path: Path) -> Rig:
    """The rig in ``path``, validated.

    :raises RigError: naming what is wrong and saying to calibrate again.
    """
    try:
        raw = yaml.safe_load(Path(path).read_text(encoding="utf-8"))
    except FileNotFoundError as exc:
        raise RigError(f"{path}: no rig file; {AGAIN}") from exc
    except (OSError, UnicodeDecodeError, yaml.YAMLError) as exc:
        raise RigError(f"{path} cannot be read ({_first_line(exc)}); {AGAIN}") from exc

    def bad(what: str) -> RigError:
        return RigError(f"{path}: {what}; {AGAIN}")

    if not isinstance(raw, dict):
        raise bad("not a rig file")
    if raw.get("schema_version") != SCHEMA:
        raise bad(f"schema version {raw.get('schema_version')!r}, this version reads {SCHEMA}")
    frame = raw.get("frame")
    try:
        width, height = int(frame["width"]), int(frame["height"])
    except (TypeError, KeyError, ValueError) as exc:
        raise bad("'frame' must give a width and a height in px") from exc
    if width < 64 or height < 64:
        raise bad(f"a {width}x{height} frame is too small")
    board = raw.get("board")
    try:
        corners = np.asarray(board["corners"], dtype=np.float64)
        score = board.get("score", 0.0)
    except (TypeError, KeyError, ValueError, AttributeError) as exc:
        raise bad("'board' must give four corners as [x, y] px") from exc
    if corners.shape != (4, 2) or not np.all(np.isfinite(corners)):
        raise bad("'board' must give four corners as [x, y] px")
    if (corners < 0).any() or (corners[:, 0] >= width).any() or (corners[:, 1] >= height).any():
        raise bad("a board corner lies outside the frame")
    (ax, ay), (bx, by) = corners[2] - corners[0], corners[3] - corners[1]
    area = 0.5 * abs(float(ax * by - ay * bx))
    if area < 0.01 * width * height:
        raise bad("the board's corners enclose almost nothing")
    if not _number(score) or not 0.0 <= score <= 1.0:
        raise bad(f"'board.score' must be a number from 0 to 1, not {score!r}")
    source = raw.get("source")
    if not isinstance(source, str) or not source:
        raise bad("'source' must name the camera (camera, webcam:N, ...)")
    camera = raw.get("camera")
    if camera is None:
        camera = {}
    if not isinstance(camera, dict):
        raise bad("'camera' must hold 'locked' and 'controls'")
    locked = camera.get("locked", False)
    if not isinstance(locked, bool):
        raise bad(f"'camera.locked' must be true or false, not {locked!r}")
    controls = camera.get("controls")
    if controls is None:
        controls = {}
    if not isinstance(controls, dict) or not all(
            isinstance(k, str) and _control(v) for k, v in controls.items()):
        raise bad("'camera.controls' must map control names to numbers, switches or lists "
                  "of numbers")
    for name in POSITIVE_CONTROLS:
        if name in controls and not (_number(controls[name]) and controls[name] > 0):
            raise bad(f"'camera.controls.{name}' must be a number above 0")
    created = raw.get("created", "")
    try:
        datetime.fromisoformat(str(created))
    except ValueError as exc:
        raise bad(f"'created' is not a date ({created!r})") from exc
    checks = raw.get("checks") or {}
    if not isinstance(checks, dict) or not all(
            isinstance(k, str) and _number(v) for k, v in checks.items()):
        raise bad("'checks' must map names to numbers")
    return Rig(source, (width, height), corners, float(score), controls, locked,
               str(created), dict(checks))


def _number(value: Any) -> bool:
    """A finite int or float (YAML's .nan and .inf are floats too; a switch is not a number)."""
    return isinstance(value, int | float) and not isinstance(value, bool) \
        and math.isfinite(value)


def _control(value: Any) -> bool:
    """What a camera control may be set to: a switch, a finite number, or a list of numbers
    (colour gains, a crop)."""
    if isinstance(value, bool):
        return True
    if isinstance(value, list):
        return bool(value) and all(_number(v) for v in value)
    return _number(value)


def rig_path(data_dir: Path) -> Path:
    return Path(data_dir) / FILE_NAME


def _plain(value: Any) -> Any:
    """Camera metadata as plain YAML types (libcamera hands back tuples and numpy numbers)."""
    if isinstance(value, dict):
        return {str(k): _plain(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_plain(v) for v in value]
    if isinstance(value, bool):
        return value
    if isinstance(value, int | np.integer):
        return int(value)
    if isinstance(value, float | np.floating):
        return round(float(value), 4)
    return value


def _first_line(exc: BaseException) -> str:
    return str(exc).splitlines()[0] if str(exc) else type(exc).__name__
