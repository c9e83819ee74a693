"""The cell classifier (ONNX, loaded once) and the joint decoding of the 25 cells.

The model sits in ``models/cells.onnx`` with ``models/cells.json`` beside it (labels, input size,
normalisation, seed, data size, validation accuracy). A missing or corrupt model, or one whose
labels do not match the component list, is refused with a message that says what to do.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from companion.rules.components import Components, food_alley
from companion.vision.assets import Label, label_names
from companion.vision.locate import VisionError
from companion.vision.tone import PLAIN, SHADE


class ModelError(VisionError):
    """The classifier model cannot be used."""


def default_model_dir() -> Path:
    """``$COMPANION_MODEL_DIR``, else the checkout's ``models/``, else the installed package's
    copy of it (``companion/models``)."""
    env = os.environ.get("COMPANION_MODEL_DIR")
    if env:
        return Path(env)
    package = Path(__file__).resolve().parents[1]
    checkout = package.parent / "models"
    if (checkout / "cells.onnx").is_file():
        return checkout
    return package / "models"


@dataclass
class CellModel:
    session: Any
    labels: list[Label]
    size: int
    crop_mm: float
    mean: float
    std: float
    meta: dict[str, Any]
    tone: str | None = None  # PLAIN or SHADE: crops are mapped to the board's printed colours
    # first (tone.py)
    # an enrolled edition: its photos' median edge width (mm); frames sharper are softened to it
    learnt_edge_mm: float | None = None

    def probabilities(self, crops: np.ndarray) -> np.ndarray:
        """(N, size, size, 3) uint8 BGR crops -> (N, classes) probabilities."""
        x = crops.transpose(0, 3, 1, 2).astype(np.float32)  # (x / 255 - mean) / std, in place
        x *= 1.0 / (255.0 * self.std)
        x -= self.mean / self.std
        logits = self.session.run(None, {self.session.get_inputs()[0].name: x})[0]
        logits = logits - logits.max(axis=1, keepdims=True)
        e = np.exp(logits)
        return e / e.sum(axis=1, keepdims=True)


# onnxruntime moves an 8-bit model's quantisation across a max-pooling layer; after the first
# convolution, which the 8-bit models keep float (see train.quantise), that leaves the pooling
# on 8-bit values in the plain layout, 3 ms of a 5 ms batch on one core. Without the move the
# float convolution, its activation and the pooling run fused in the blocked layout (0.9 ms)
UNHELPFUL_OPTIMIZERS = ["QDQPropagationTransformer"]


def reader_threads() -> int:
    """onnxruntime's threads for the reader: the cores this process may use, less one for the
    screen (a Pi's 4 cores: 3), at least 1."""
    try:
        cores = len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        cores = os.cpu_count() or 1
    return max(1, cores - 1)


def open_session(path: Path, *, threads: int = 1) -> Any:
    """An onnxruntime session on the CPU, as the reader runs the classifier (``threads``
    intra-op threads)."""
    import onnxruntime as ort

    options = ort.SessionOptions()
    options.intra_op_num_threads = threads
    options.inter_op_num_threads = 1
    return ort.InferenceSession(str(path), options, providers=["CPUExecutionProvider"],
                                disabled_optimizers=UNHELPFUL_OPTIMIZERS)


def load_model(model_dir: Path | None = None, components: Components | None = None, *,
               threads: int = 1) -> CellModel:
    """Load ``cells.onnx`` and ``cells.json`` from model_dir and check them.

    :raises ModelError: naming the file, what is wrong and what to do.
    """
    folder = model_dir or default_model_dir()
    onnx_path = folder / "cells.onnx"
    meta_path = folder / "cells.json"
    retrain = "run `companion train` to make a new one, or restore it from the repository"
    if not onnx_path.is_file():
        raise ModelError(f"model {onnx_path} not found: {retrain}")
    if not meta_path.is_file():
        raise ModelError(f"model metadata {meta_path} not found: {retrain}")
    try:
        meta = json.loads(meta_path.read_text(encoding="utf-8"))
        names = list(meta["labels"])
        size = int(meta["input"]["size"])
        crop_mm = float(meta["input"]["crop_mm"])
        mean, std = float(meta["input"]["mean"]), float(meta["input"]["std"])
        tone = meta["input"].get("tone")
        if tone not in (None, PLAIN, SHADE):
            raise ValueError(f"unknown tone mapping {tone!r}")
        edge = (meta.get("edition") or {}).get("photo_edge_mm")
        if edge is not None and not (isinstance(edge, int | float) and 0.0 < edge < 10.0):
            raise ValueError(f"edition.photo_edge_mm {edge!r} is not an edge width in mm")
        learnt_edge_mm = None if edge is None else float(edge)
    except (OSError, ValueError, KeyError, TypeError, AttributeError) as exc:
        raise ModelError(f"model metadata {meta_path} is unreadable ({exc!r}): {retrain}") \
            from exc
    expected = label_names(components or food_alley())
    if names != expected:
        differ = sorted(set(names) ^ set(expected))
        detail = (f"{len(differ)} labels differ, e.g. {', '.join(differ[:3])}" if differ
                  else "the labels are in another order")
        raise ModelError(f"model {onnx_path} does not match the component list ({detail}): "
                         "retrain it with `companion train`")
    try:
        session = open_session(onnx_path, threads=threads)
    except Exception as exc:  # onnxruntime raises its own exception types
        raise ModelError(f"model {onnx_path} is corrupt or not an ONNX model ({exc}): "
                         f"{retrain}") from exc
    outputs = session.get_outputs()
    shape = outputs[0].shape if outputs else None
    if not shape or shape[-1] != len(names):
        raise ModelError(f"model {onnx_path} gives {shape} outputs but its metadata lists "
                         f"{len(names)} labels: {retrain}")
    return CellModel(session, [Label.parse(n) for n in names], size, crop_mm, mean, std, meta,
                     tone, learnt_edge_mm)


def capacities(components: Components | None = None) -> dict[str, int]:
    """How many cells may show each physical item: data, not rules of any game."""
    c = components or food_alley()
    caps: dict[str, int] = {}
    for t in c.tokens:
        caps[f"token:{t.id}"] = 1
    for p in c.player_colours:
        caps[f"shopper:{p}"] = 1
        caps[f"cat-back:{p}"] = len(c.cat_values)
        for v in c.cat_values:
            caps[f"cat:{p}:{v}"] = 1
    return caps


def item_of(label: Label) -> str | None:
    """The physical item a label shows (both sides of a token are one item)."""
    if label.kind in ("ingredient", "coin"):
        return f"token:{label.token}"
    if label.kind == "cat":
        return f"cat:{label.player}:{label.value}"
    if label.kind in ("cat-back", "shopper"):
        return f"{label.kind}:{label.player}"
    return None


def decode(probs: np.ndarray, labels: list[Label], caps: dict[str, int], *,
           abstain_below: float) -> list[dict[str, Any]]:
    """Jointly decode the cells: each item at most as often as it exists.

    Cells are assigned in order of confidence; a cell whose best label's item is used up takes
    its best remaining label. A cell below ``abstain_below``, or read as unknown, is 'unknown':
    the reader abstains rather than guess.
    """
    left = dict(caps)
    out: list[dict[str, Any] | None] = [None] * len(probs)
    order = np.argsort(-probs.max(axis=1))
    for i in order:
        ranked = np.argsort(-probs[i])
        choice = None
        for k in ranked[:8]:
            item = item_of(labels[k])
            if item is None or left.get(item, 0) > 0:
                choice = int(k)
                break
        conf = float(probs[i, choice]) if choice is not None else 0.0
        if choice is None or conf < abstain_below or labels[choice].kind == "unknown":
            out[i] = {"kind": "unknown", "token": None, "player": None, "value": None,
                      "confidence": round(conf, 4)}
            continue
        lab = labels[choice]
        item = item_of(lab)
        if item is not None:
            left[item] -= 1
        out[i] = {"kind": lab.kind, "token": lab.token, "player": lab.player,
                  "value": lab.value, "confidence": round(conf, 4)}
    return [o for o in out if o is not None]
