"""Recorded games rendered frame by frame, for testing the referee as ScrabScrap tests itself.

A seeded game (``companion play ... --auto --json``) is played out on a fixed camera rig drawn
with the project's renderer: the same table, pose and light from frame to frame, each token where
it was put. The recording shows hands over the board while a player acts and the settled board
after; sometimes two steps with no pause between them; the light changing within the game; the
camera nudged once mid-game, so that the pose must be found again. It is written as numbered JPEG
frames (``frames/``), the recorded game (``answers.jsonl``, the scripted table's answers) and
``recording.json`` (what was rendered).
"""

from __future__ import annotations

import io
import json
import math
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import cv2
import numpy as np

from companion.cli import play_auto
from companion.rules import find_game
from companion.vision.assets import ART_PX_PER_MM, Label, load_art
from companion.vision.geometry import BoardGeometry, pose_from_corners, project
from companion.vision.synth import SceneStyle, _board_pose, _camera, _composite, _hand, _table

RIG_SIZE = (1920, 1080)


def rules_fingerprint() -> str:
    """A short hash of the rules engines and the component list: a recording made under other
    rules is made again, not replayed against these."""
    import hashlib

    root = Path(__file__).resolve().parents[1] / "rules"
    digest = hashlib.sha1()
    for path in sorted(root.rglob("*")):
        if path.suffix in (".py", ".yaml"):
            digest.update(path.read_bytes())
    return digest.hexdigest()[:8]


def cell_label(cell: dict[str, Any]) -> Label:
    return Label(cell["kind"], cell.get("token"), cell.get("player"), cell.get("value"))


class Rig:
    """A camera fixed over a table, for one whole game."""

    def __init__(self, seed: int, size: tuple[int, int] = RIG_SIZE) -> None:
        self.seed = seed
        self.size = size
        self.geometry = BoardGeometry.from_components()
        rng = np.random.default_rng([seed, 7001])
        self.pose = _board_pose(rng, self.geometry, size, SceneStyle(board_fraction=(0.42, 0.5),
                                                                      max_tilt_deg=8.0))
        self.table = _table(rng, size).astype(np.float32)
        self.tint = rng.uniform(0.94, 1.05, 3).astype(np.float32)
        self.light = 1.0
        angle = rng.uniform(0, 2 * math.pi)
        self.shadow_dir = (math.cos(angle), math.sin(angle))
        self.style = SceneStyle(blur_sigma=(0.0, 0.6), noise_sigma=(1.0, 4.0),
                                jpeg_quality=(82, 92))
        self._boards: dict[tuple[str, ...], np.ndarray] = {}
        self._laid: tuple[Any, np.ndarray] | None = None  # the last board laid on the table

    def nudge(self, rng: np.random.Generator) -> None:
        """Someone bumps the camera: the board moves 12-25 px and turns 1-2 degrees."""
        corners = project(self.pose, self.geometry.corners())
        centre = corners.mean(axis=0)
        turn = math.radians(rng.uniform(1, 2) * rng.choice([-1, 1]))
        rot = np.array([[math.cos(turn), -math.sin(turn)], [math.sin(turn), math.cos(turn)]])
        shift = rng.uniform(12, 25) * np.array([math.cos(a := rng.uniform(0, 6.3)), math.sin(a)])
        moved = (corners - centre) @ rot.T + centre + shift
        self.pose = pose_from_corners(moved, self.geometry.corners())

    def _board(self, labels: list[Label]) -> np.ndarray:
        key = tuple(lab.name for lab in labels)
        if key in self._boards:
            return self._boards[key]
        g = self.geometry
        board = load_art("board.png")[:, :, :3] * self.tint
        token_px = g.token * ART_PX_PER_MM
        shadow = (self.shadow_dir[0] * 3, self.shadow_dir[1] * 3, 0.35)
        for i, (lab, (cx, cy)) in enumerate(zip(labels, g.centres.reshape(-1, 2), strict=True)):
            if lab.kind in ("empty", "unknown"):
                continue
            # the same thing in the same cell lies the same way from frame to frame
            rng = np.random.default_rng([self.seed, i, *lab.name.encode()])
            off = np.clip(rng.normal(0, 0.8, 2), -2.0, 2.0)
            centre = ((cx + off[0]) * ART_PX_PER_MM, (cy + off[1]) * ART_PX_PER_MM)
            angle = float(rng.uniform(0, 360))
            if lab.kind == "shopper":
                coin = f"token-{'egg-1'}-coin.png"
                _composite(board, load_art(coin), centre, token_px, angle, shadow=shadow)
                tall = (self.shadow_dir[0] * 14, self.shadow_dir[1] * 14, 0.45)
                _composite(board, load_art(lab.art() or ""), centre, token_px, angle + 40,
                           shadow=tall)
            else:
                _composite(board, load_art(lab.art() or ""), centre, token_px, angle,
                           shadow=shadow)
        board = np.minimum(board, 1.0)
        if len(self._boards) > 64:
            self._boards.clear()
        self._boards[key] = board
        return board

    def frame(self, labels: list[Label], rng: np.random.Generator, *,
              hand_cell: int | None = None) -> np.ndarray:
        """One camera frame of the board with these 25 cells (BGR, as a JPEG decodes)."""
        frame = self._on_table(labels)
        if hand_cell is not None:
            target = project(self.pose, self.geometry.centres.reshape(-1, 2)[hand_cell][None])[0]
            colour, mask = _hand(rng, self.size, target, 0.3)
            frame = frame * (1 - mask[:, :, None]) + colour * mask[:, :, None]
        frame = frame * self.light
        return _camera(frame.astype(np.float32), rng, self.style)

    def _on_table(self, labels: list[Label]) -> np.ndarray:
        """The board with these cells, seen on the table from the camera's pose (float32 BGR,
        0-1; not to be changed in place). A settled board is seen in several frames that differ
        only by the camera's noise, so the last one is kept."""
        key = (tuple(lab.name for lab in labels), self.pose.tobytes())
        if self._laid is not None and self._laid[0] == key:
            return self._laid[1]
        board = self._board(labels)
        to_img = self.pose @ np.diag([1 / ART_PX_PER_MM, 1 / ART_PX_PER_MM, 1.0])
        warped = cv2.warpPerspective(board, to_img, self.size, flags=cv2.INTER_LINEAR)
        inside = cv2.warpPerspective(np.ones(board.shape[:2], np.float32), to_img, self.size)
        laid = self.table * (1 - inside[:, :, None]) + warped * inside[:, :, None]
        self._laid = (key, laid)
        return laid


@dataclass
class Recording:
    folder: Path
    frames: int
    steps: int
    fps: float


def played(game: str, players: int, seed: int
           ) -> tuple[str, list[dict[str, Any]], dict[str, Any]]:
    """A seeded random game as ``companion play ... --auto --json`` prints it: the text, its
    step objects and its final object."""
    buffer = io.StringIO()
    play_auto(find_game(game).new(players, seed), seed, as_json=True, out=buffer)
    text = buffer.getvalue()
    lines = [json.loads(line) for line in text.splitlines()]
    return text, lines[:-1], lines[-1]


def physical_labels(board: list[list[dict[str, Any]]]) -> list[Label]:
    """The labels to draw: cats of colours no one plays (Stray's neutral cats) take either
    unused colour, so that no two drawn cats are the same token."""
    labels = [cell_label(c) for row in board for c in row]
    used: set[str] = set()
    out = []
    for lab in labels:
        if lab.kind == "cat" and lab.name in used:
            for colour in ("orange", "blue", "white", "black"):
                other = Label("cat", player=colour, value=lab.value)
                if other.name not in used and colour != lab.player:
                    lab = other
                    break
        used.add(lab.name)
        out.append(lab)
    return out


def record_game(game: str, players: int, seed: int, out: Path, *, fps: float = 5.0,
                settled_frames: int = 5, size: tuple[int, int] = RIG_SIZE,
                tamper_at: int | None = None, video: bool = False) -> Recording:
    """Play a seeded game and render it frame by frame into ``out`` (``frames/``, or with
    ``video`` one ``recording.mp4`` whose settled frames repeat one image, to ship small).
    ``tamper_at``: after that many settled boards, a token is moved illegally to an empty
    cell, left there for a settled while, then put back."""
    text, steps, _ = played(game, players, seed)
    folder = out / "frames"
    folder.mkdir(parents=True, exist_ok=True)
    (out / "answers.jsonl").write_text(text, encoding="utf-8")
    rng = np.random.default_rng([seed, 4242])
    rig = Rig(seed, size)
    # the boards the players make, grouped: the setup's draws at once, then one or two steps
    groups: list[int] = []  # index of the last step of each group
    board_before = None
    pending: list[int] = []
    for i, step in enumerate(steps):
        if step["board"] == board_before:
            if pending and step["player"] != "all":  # the table waits for the referee's
                groups.append(pending[-1])  # question before it goes on
                pending = []
            continue
        board_before = step["board"]
        pending.append(i)
        setup = step["player"] == "table" and i + 1 < len(steps) \
            and steps[i + 1]["player"] == "table" and "fills" in step["text"]
        if setup:
            continue
        if len(pending) == 1 and rng.random() < 0.2:  # no pause before the next step
            continue
        groups.append(i)
        pending = []
    if pending:
        groups.append(pending[-1])
    count = 0
    writer = None
    if video:
        writer = cv2.VideoWriter(str(out / "recording.mp4"), cv2.VideoWriter_fourcc(*"mp4v"),
                                 fps, size)

    def emit(image: np.ndarray, repeat: int = 1) -> None:
        nonlocal count
        for _ in range(repeat):
            if writer is not None:
                writer.write(image)
            else:
                cv2.imwrite(str(folder / f"frame-{count:05d}.jpg"), image,
                            [cv2.IMWRITE_JPEG_QUALITY, 88])
            count += 1

    shown: list[dict[str, Any]] = []
    tampered: dict[str, Any] | None = None
    last_board = steps[0]["board"]
    nudge_at = len(groups) * 3 // 5
    for k, end in enumerate(groups):
        if k == nudge_at:
            rig.nudge(rng)
        if len(groups) // 3 <= k < len(groups) // 3 + 6:  # the light changes for a while
            rig.light = 1.0 - 0.05 * (k - len(groups) // 3)
        board = steps[end]["board"]
        labels = physical_labels(board)
        changed = [i for i in range(25)
                   if board[i // 5][i % 5] != last_board[i // 5][i % 5]] or [12]
        emit(rig.frame(labels, rng, hand_cell=int(rng.choice(changed))))  # a hand, acting
        if video:
            emit(rig.frame(labels, rng), settled_frames)
        else:
            for _ in range(settled_frames):
                emit(rig.frame(labels, rng))
        shown.append({"after_step": end, "last_frame": count - 1})
        last_board = board
        if tamper_at is not None and k == tamper_at:
            tampered, moved = _tamper(labels)
            tampered["after_step"] = end
            emit(rig.frame(moved, rng, hand_cell=tampered["to"]))
            emit(rig.frame(moved, rng), settled_frames)
            emit(rig.frame(labels, rng, hand_cell=tampered["to"]))  # put back
            emit(rig.frame(labels, rng), settled_frames)
    if writer is not None:
        writer.release()
        folder.rmdir()
    (out / "recording.json").write_text(json.dumps(
        {"game": game, "players": players, "seed": seed, "fps": fps, "frames": count,
         "size": list(size), "groups": shown, "nudged_at_group": nudge_at,
         "tampered": tampered}, indent=1) + "\n", encoding="utf-8")
    return Recording(out, count, len(steps), fps)


def _tamper(labels: list[Label]) -> tuple[dict[str, Any], list[Label]]:
    """A token moved from its cell to an empty one (or, on a full board, two swapped)."""
    tokens = [i for i, lab in enumerate(labels) if lab.kind in ("ingredient", "coin")]
    empty = [i for i, lab in enumerate(labels) if lab.kind == "empty"]
    moved = list(labels)
    source = tokens[len(tokens) // 2]
    if empty:
        target = empty[0]
        moved[target], moved[source] = labels[source], Label("empty")
    else:
        target = tokens[0] if tokens[0] != source else tokens[-1]
        moved[target], moved[source] = labels[source], labels[target]
    return {"from": source, "to": target}, moved


def judge(lines: list[dict[str, Any]], recorded: list[dict[str, Any]]) -> dict[str, Any]:
    """How a referee's ``--json`` output compares with the recorded game it refereed: whether
    it ended with the recorded result, the steps applied that are not the recorded ones (a shop
    declared by another trait that takes the same tokens is the same step), the board changes
    decided by the camera alone, and the warnings."""
    final = recorded[-1]
    applied = [x for x in lines if "decided_by" in x]
    ended = [x for x in lines if x.get("final")]
    same = bool(ended) and all(ended[0].get(k) == final.get(k)
                               for k in ("scores", "ranking", "winners", "tokens", "end"))
    wrong = []
    for x in applied:
        move = recorded[x["n"]]["move"]
        if x["move"] not in ({"type": "hidden"}, move) and not (
                x["move"]["type"] == move["type"] == "shop" and x["move"]["take"] == move["take"]):
            wrong.append(x)
    changed = by_camera = 0
    before = None
    for x in applied:
        if before is not None and x["board"] != before:
            changed += 1
            by_camera += x["decided_by"] == "camera"
        before = x["board"]
    return {"ended": same, "steps": len(applied), "wrong": wrong, "changed": changed,
            "by_camera": by_camera, "warnings": [x for x in lines if "warning" in x]}
