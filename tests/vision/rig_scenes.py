"""Rendered frames of a camera rig, good and bad in one way each (calibration tests)."""

from __future__ import annotations

from functools import lru_cache

import cv2
import numpy as np

from companion.vision.geometry import BoardGeometry, pose_from_corners
from companion.vision.synth import SceneStyle, render_scene

# a steady rig: no glare, shadow, blur or colour in the light, a little sensor noise
STEADY = SceneStyle(glare_probability=0, shadow_probability=0, blur_sigma=(0, 0),
                    noise_sigma=(2, 2), jpeg_quality=(90, 90), colour_gain=(1, 1),
                    hand_probability=0)


def placed(cx: float, cy: float, width_px: float, yaw_deg: float) -> np.ndarray:
    """The pose of a board seen straight down, its side ``width_px`` long, turned ``yaw_deg``,
    centred at (cx, cy)."""
    g = BoardGeometry.from_components()
    a = np.radians(yaw_deg)
    turn = np.array([[np.cos(a), -np.sin(a)], [np.sin(a), np.cos(a)]])
    square = np.array([[-1, -1], [1, -1], [1, 1], [-1, 1]]) * width_px / 2
    return pose_from_corners(square @ turn.T + [cx, cy], g.corners())


# how the "out" place's hidden corner is named: past the edge, or on it where the fit (which
# cannot see it) put it there; OpenCV releases differ
OUT_OF_VIEW = (r"row 5, column 1 is (outside the frame, past its left edge|\d+ px from the "
               r"frame's left edge)")

PLACES = {  # (cx, cy, side px, yaw): in a 1920x1080 frame
    "good": (960, 540, 700, 10),
    "small": (960, 540, 420, 10),
    "big": (960, 540, 1000, 3),
    "out": (300, 540, 700, 10),  # its row 5, column 1 corner past the left edge
    "title-out": (500, 330, 700, 10),  # its title corner past the top edge
}


@lru_cache(maxsize=8)
def _scene(place: str, seed: int) -> np.ndarray:
    scene = render_scene(np.random.default_rng(seed), style=STEADY,
                         pose=placed(*PLACES[place]), hand=False)
    return scene.frame


def rig_frame(place: str = "good", flaw: str = "", seed: int = 0) -> np.ndarray:
    """A frame of the rig with one flaw: soft, blurred, dark, bright, glare, blue."""
    f = _scene(place, seed).astype(np.float32)
    if flaw == "soft":
        f = cv2.GaussianBlur(f, (0, 0), 1.6)
    elif flaw == "blurred":
        f = cv2.GaussianBlur(f, (0, 0), 4.0)
    elif flaw == "dark":
        f = f * 0.3
    elif flaw == "bright":
        f = f * 1.6
    elif flaw == "blue":
        f = f * np.array([1.3, 1.0, 0.8], np.float32)
    elif flaw == "glare":  # a lamp's reflection near the board's centre
        spot = np.zeros(f.shape[:2], np.float32)
        cv2.ellipse(spot, (900, 500), (80, 50), 0, 0, 360, 1.0, -1)
        f = f + 400 * cv2.GaussianBlur(spot, (0, 0), 10)[:, :, None]
    elif flaw:
        raise ValueError(flaw)
    return np.clip(f, 0, 255).astype(np.uint8)
