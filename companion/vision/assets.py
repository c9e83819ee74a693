"""The component art (flat top-down scans of every face) and the label set derived from data.

The art ships in ``companion/vision/data/art``: 256 px = one 30 mm token, the board at 4 px/mm.
Labels come from the component list, so a corrected list changes the labels, never the code.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from importlib import resources
from pathlib import Path

import cv2
import numpy as np

from companion.rules.components import Components, food_alley

ART_PX_PER_MM = 4.0  # the board art's resolution
KINDS = ("empty", "ingredient", "coin", "cat", "cat-back", "shopper", "unknown")


class AssetError(RuntimeError):
    """Art missing or unreadable."""


def art_dir() -> Path:
    return Path(str(resources.files("companion.vision") / "data" / "art"))


def art_name(name: str, folder: Path | None = None) -> str:
    """The name :func:`load_art` takes for an art file of another edition's ``folder`` (the
    bundled art when None)."""
    return name if folder is None else str(Path(folder).resolve() / name)


@lru_cache(maxsize=512)
def load_art(name: str) -> np.ndarray:
    """An art file as float32 BGRA in 0..1 (the board as BGRA with full alpha); ``name`` is a
    bundled file's name, or a path (:func:`art_name`)."""
    path = art_dir() / name
    image = cv2.imread(str(path), cv2.IMREAD_UNCHANGED)
    if image is None:
        bundled = path.parent == art_dir()
        raise AssetError(f"cannot read art {path}: " + (
            "reinstall the package or restore the file" if bundled else
            "restore that model folder's art, or enroll the edition again"))
    if image.shape[2] == 3:
        image = np.dstack([image, np.full(image.shape[:2], 255, np.uint8)])
    return image.astype(np.float32) / 255.0


@dataclass(frozen=True)
class Label:
    """One class of the cell classifier."""

    kind: str
    token: str | None = None
    player: str | None = None
    value: int | None = None

    @property
    def name(self) -> str:
        if self.kind in ("ingredient", "coin"):
            return f"{self.kind}:{self.token}"
        if self.kind == "cat":
            return f"cat:{self.player}:{self.value}"
        if self.kind in ("cat-back", "shopper"):
            return f"{self.kind}:{self.player}"
        return self.kind

    @classmethod
    def parse(cls, name: str) -> Label:
        parts = name.split(":")
        kind = parts[0]
        if kind in ("ingredient", "coin") and len(parts) == 2:
            return cls(kind, token=parts[1])
        if kind == "cat" and len(parts) == 3:
            return cls(kind, player=parts[1], value=int(parts[2]))
        if kind in ("cat-back", "shopper") and len(parts) == 2:
            return cls(kind, player=parts[1])
        if kind in ("empty", "unknown") and len(parts) == 1:
            return cls(kind)
        raise ValueError(f"unknown label {name!r}")

    def art(self, folder: Path | None = None) -> str | None:
        """The art file that shows this face (None for empty and unknown), in ``folder``'s
        edition (:func:`art_name`; the bundled art when None)."""
        if self.kind in ("ingredient", "coin"):
            name = f"token-{self.token}-{self.kind}.png"
        elif self.kind == "cat":
            name = f"cat-{self.player}-{self.value}.png"
        elif self.kind == "cat-back":
            name = f"cat-{self.player}-back.png"
        elif self.kind == "shopper":
            name = f"shopper-{self.player}.png"
        else:
            return None
        return art_name(name, folder)


def cell_label(cell: dict) -> str:
    """The label name of a cell as the reader reports it ({"kind", "token", "player", ...})."""
    return Label(cell["kind"], cell.get("token"), cell.get("player"), cell.get("value")).name


def labels(components: Components | None = None) -> list[Label]:
    """Every class, in a fixed order derived from the component list."""
    c = components or food_alley()
    out = [Label("empty")]
    out += [Label("ingredient", token=t.id) for t in c.tokens]
    out += [Label("coin", token=t.id) for t in c.tokens]
    out += [Label("cat", player=p, value=v) for p in c.player_colours for v in c.cat_values]
    out += [Label("cat-back", player=p) for p in c.player_colours]
    out += [Label("shopper", player=p) for p in c.player_colours]
    out.append(Label("unknown"))
    return out


def label_names(components: Components | None = None) -> list[str]:
    return [lab.name for lab in labels(components)]
