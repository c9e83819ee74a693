"""Train the cell classifier on rendered scenes and export it to ONNX with its metadata.

Needs the ``train`` extra (torch, CPU is enough). The runtime reader needs onnxruntime only.
Reproducible from its seed: scenes are rendered with per-scene seeds, torch is seeded, and the
data is shuffled with a seeded generator.

The float network is kept as ``cells.fp32.onnx``; the reader runs ``cells.onnx``, the same
network with 8-bit weights and activations (static quantisation calibrated on validation crops),
which is about 1.4x faster on one core. Both are checked on the validation crops.
"""

from __future__ import annotations

import json
import time
import warnings
from collections.abc import Callable
from dataclasses import dataclass, replace
from multiprocessing import get_context
from pathlib import Path

import cv2
import numpy as np

from companion.vision.assets import label_names
from companion.vision.classify import open_session
from companion.vision.geometry import BoardGeometry, cut_cells, pose_from_corners
from companion.vision.synth import SceneStyle, render_scene
from companion.vision.tone import SHADE, apply_luts, measure_tone, tone_reference

CROP_PX = 56
FLOAT_MODEL = "cells.fp32.onnx"
CALIBRATION_CROPS = 2048
QUANTISATION = (f"int8 static: per-channel int8 weights, uint8 activations (QDQ), min-max "
                f"calibrated on the first {CALIBRATION_CROPS} validation crops; the first "
                f"convolution, its activation and pooling kept float")
CROP_MM = 40.0
MEAN, STD = 0.5, 0.25
# a cell whose token (or, for a cat, number badge) is more covered than this is "unknown"; less
# than CLEAR_BELOW keeps its label; in between it is left out of training
UNKNOWN_ABOVE = 0.3
CLEAR_BELOW = 0.08

# The default recipe's scenes: the renderer's, and on some of them things real cameras, lenses,
# tokens and players do that the network otherwise never sees and is then sure of the wrong
# answer: the camera's own sharpening and glossy tokens' highlights (a cat's 6 read as a 5, 100 %
# sure), arms in sleeves (an empty cell under a blue sleeve read as a blue shopper: the
# "unknown" cells had all been bare skin), and a cheap lens's colour fringes.
TRAIN_STYLE = SceneStyle(sharpen_probability=0.4, gloss_probability=0.25, sleeve_probability=0.3,
                         fringe_probability=0.3)

# The tone option (``--tone``): each crop is mapped by the board's own colours (light, white
# balance, tone curve: companion/vision/tone.py), as the reader then does, and the scenes are
# seen through other cameras' tone curves and white balance, which the mapping mostly undoes.
# Tried on the art with the default budget: fewer errors under colour casts and tone curves
# (0.9 % and 0.8 % of the cells of the boards found, instead of 1.5 % and 2.4 %), more on the
# renderer's own scenes (0.47 % instead of 0.37 %), so the shipped model does without. Worth
# trying on photographs of real tokens under café light. (Training on more defocus and shake
# as well made the network doubt sharp digits too: four times the abstentions on the renderer's
# own scenes.)
TONE_STYLE = SceneStyle(colour_gain=(0.75, 1.25), gamma=(0.7, 1.45))


# The broad recipe (``--broad``): scenes wider than those the reader is judged on (boards a little
# smaller and larger, stronger colour casts, other tone curves, shake), other cameras and
# sampling, white balance, blur and sharpening. Tried on the art with the default 14 epochs' budget
# cut to 12: a little more robust to casts and tone curves, but three times the abstentions near
# hands, so the shipped model uses the default recipe. Worth trying on photographs of real tokens.
BROAD_STYLE = SceneStyle(board_fraction=(0.24, 0.55), colour_gain=(0.75, 1.25), gamma=(0.7, 1.45),
                         motion_probability=0.2, motion_px=(2.0, 12.0))


# Enrollment's scenes: the default recipe's, under wider casts and tone curves. Art cut from
# photos carries their light, known only to within a fifth or so (enroll.match_renderer); the
# crops are mapped by the board's colours (FineTuneConfig.tone), which takes most of it off,
# and the network learns the faces under light that reaches past the rest on either side.
ENROLL_STYLE = replace(TRAIN_STYLE, colour_gain=(0.7, 1.3), gamma=(0.8, 1.25))


@dataclass
class TrainConfig:
    scenes: int = 3500
    val_scenes: int = 200
    epochs: int = 14
    batch: int = 128
    lr: float = 3e-3
    seed: int = 1
    workers: int = 2
    hand_probability: float = 0.3
    broad: bool = False  # the broad recipe (see BROAD_STYLE)
    tone: bool = False  # crops mapped by the board's colours (see TONE_STYLE)


def _scene_crops(args: tuple[int, float, bool, bool, Path | None, SceneStyle | None]
                 ) -> tuple[np.ndarray, np.ndarray]:
    """Render one scene and cut its cells from a slightly wrong pose, as the reader would. The
    broad recipe widens the scenes and sees a quarter of them through a coarser camera (scaled
    down and up again) and cuts 40 % with other sampling; the tone option maps the crops by the
    board's colours."""
    seed, hand_probability, broad, tone, art, style = args
    rng = np.random.default_rng(seed)
    g = BoardGeometry.from_components()
    style = style or (BROAD_STYLE if broad else TONE_STYLE if tone else TRAIN_STYLE)
    style = replace(style, hand_probability=hand_probability)
    scene = render_scene(rng, style=style, art=art)
    frame = scene.frame
    if broad and rng.random() < 0.25:  # a coarser sensor, scaled up to the frame size
        h, w = frame.shape[:2]
        f = rng.uniform(0.55, 0.85)
        small = cv2.resize(frame, (int(w * f), int(h * f)), interpolation=cv2.INTER_AREA)
        frame = cv2.resize(small, (w, h), interpolation=int(rng.choice(
            [cv2.INTER_LINEAR, cv2.INTER_CUBIC])))
    jitter = scene.corners + rng.normal(0, 1.0 if broad else 0.8, scene.corners.shape)
    pose = pose_from_corners(jitter, g.corners())
    sampling = {}
    if broad and rng.random() < 0.4:
        sampling = {"supersample": int(rng.integers(1, 4)),
                    "interpolation": int(rng.choice([cv2.INTER_NEAREST, cv2.INTER_LINEAR,
                                                     cv2.INTER_CUBIC]))}
    crops = cut_cells(frame, pose, g, crop_px=CROP_PX, crop_mm=CROP_MM, **sampling)
    if tone:
        measured = measure_tone(frame, pose, tone_reference(g, art), SHADE)
        if measured is not None:  # as the reader does: an unmeasurable frame is left as it is
            crops = apply_luts(crops, measured.luts(g.centres.reshape(-1, 2)))
    names = label_names()
    index = {n: i for i, n in enumerate(names)}
    labels = np.array([index[n] for n in scene.cells])
    # a cat whose number badge is hidden shows the same picture face up and face down
    hidden = scene.hidden
    labels = np.where(hidden > UNKNOWN_ABOVE, index["unknown"], labels)
    keep = (hidden <= CLEAR_BELOW) | (hidden > UNKNOWN_ABOVE)
    return crops[keep], labels[keep]


def render_dataset(first_seed: int, scenes: int, *, hand_probability: float, workers: int,
                   progress: Callable[[int, int], None] | None = None, broad: bool = False,
                   tone: bool = False, art: Path | None = None,
                   style: SceneStyle | None = None) -> tuple[np.ndarray, np.ndarray]:
    """Crops and label indices from ``scenes`` rendered scenes (seeds first_seed, ...), drawn
    with the bundled art or an edition's ``art`` folder, in ``style`` (else the recipe's)."""
    jobs = [(first_seed + i, hand_probability, broad, tone, art, style) for i in range(scenes)]
    xs, ys = [], []
    if workers > 1:
        with get_context("fork").Pool(workers) as pool:
            for n, (x, y) in enumerate(pool.imap(_scene_crops, jobs, chunksize=4), start=1):
                xs.append(x)
                ys.append(y)
                if progress:
                    progress(n, scenes)
    else:
        for n, job in enumerate(jobs, start=1):
            x, y = _scene_crops(job)
            xs.append(x)
            ys.append(y)
            if progress:
                progress(n, scenes)
    return np.concatenate(xs), np.concatenate(ys)


def build_model(classes: int):  # noqa: ANN201 - torch.nn.Module
    """A small CNN for 56x56 crops: about 20 M multiply-adds and 0.6 MB."""
    import torch.nn as nn

    def block(cin: int, cout: int) -> list[nn.Module]:
        return [nn.Conv2d(cin, cout, 3, padding=1, bias=False), nn.BatchNorm2d(cout),
                nn.ReLU(inplace=True)]

    return nn.Sequential(
        *block(3, 16), nn.MaxPool2d(2),
        *block(16, 32), nn.MaxPool2d(2),
        *block(32, 64), *block(64, 64), nn.MaxPool2d(2),
        *block(64, 128),
        nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Dropout(0.2), nn.Linear(128, classes),
    )


def _to_tensor(x: np.ndarray):  # noqa: ANN202
    """uint8 NHWC BGR crops -> the network's input as a torch tensor (see :func:`_normalise`;
    the same numbers, checked bit for bit)."""
    import torch

    return torch.from_numpy(_normalise(x))


def _augment(x, generator, broad: bool = False):  # noqa: ANN001, ANN202
    """Crop-level jitter on top of the rendered variety: shift, gain and offset; the broad
    recipe adds white balance (a gain per colour channel) and, on a third of the crops, a little
    blur or sharpening."""
    import torch
    import torch.nn.functional as F

    n = x.shape[0]
    gain = 1 + 0.15 * (torch.rand(n, 1, 1, 1, generator=generator) - 0.5)
    if broad:
        gain = gain * (1 + 0.12 * (torch.rand(n, 3, 1, 1, generator=generator) - 0.5))
    bias = 0.2 * (torch.rand(n, 1, 1, 1, generator=generator) - 0.5)
    x = x * gain + bias
    if broad:  # x + a (blurred - x): a > 0 blurs, a < 0 sharpens; a separable 1-2-1 blur
        amount = torch.rand(n, 1, 1, 1, generator=generator) * 1.6 - 0.6
        chosen = torch.nonzero(torch.rand(n, generator=generator) < 0.33).ravel()
        if len(chosen):
            some = x[chosen]
            p = F.pad(some, (1, 1, 1, 1), mode="replicate")
            p = (p[:, :, :, :-2] + 2 * p[:, :, :, 1:-1] + p[:, :, :, 2:]) / 4
            blurred = (p[:, :, :-2] + 2 * p[:, :, 1:-1] + p[:, :, 2:]) / 4
            x[chosen] = some + amount[chosen] * (blurred - some)
    dx, dy = (int(v) for v in torch.randint(-2, 3, (2,), generator=generator))
    return torch.roll(x, shifts=(dy, dx), dims=(2, 3))


def _progress(label: str, started: float, log: Callable[[str], None], bar: bool = True
              ) -> Callable[[int, int], None]:
    """A render progress callback: a bar every twentieth of the scenes, or a plain count every
    tenth."""
    def show(n: int, total: int) -> None:
        if bar and (n == total or n % max(1, total // 20) == 0):
            width = 30
            done = int(width * n / total)
            log(f"{label} [{'#' * done}{'.' * (width - done)}] {n}/{total} scenes "
                f"({time.time() - started:.0f} s)")
        elif not bar and (n == total or n % max(1, total // 10) == 0):
            log(f"{label}: {n}/{total} scenes ({time.time() - started:.0f} s)")
    return show


def _fit(model, x_train: np.ndarray, y_train: np.ndarray, x_val: np.ndarray,  # noqa: ANN001
         y_val: np.ndarray, *, epochs: int, batch: int, lr: float, seed: int, broad: bool,
         after_epoch: Callable[[int, float, float], None]) -> float:
    """Train with AdamW and a one-cycle rate, crops augmented and turned a random quarter;
    ``after_epoch(epoch, mean loss, validation accuracy)``; returns the last accuracy."""
    import torch

    opt = torch.optim.AdamW([p for p in model.parameters() if p.requires_grad], lr=lr,
                            weight_decay=1e-4)
    steps = epochs * ((len(x_train) + batch - 1) // batch)
    sched = torch.optim.lr_scheduler.OneCycleLR(opt, max_lr=lr, total_steps=steps)
    loss_fn = torch.nn.CrossEntropyLoss()
    gen = torch.Generator().manual_seed(seed)
    xt = torch.from_numpy(x_train)  # uint8 NHWC: a quarter of the memory; batches are converted
    yt = torch.from_numpy(y_train).long()
    xv = _to_tensor(x_val)
    yv = torch.from_numpy(y_val).long()
    accuracy = 0.0
    for epoch in range(epochs):
        model.train()
        order = torch.randperm(len(xt), generator=gen)
        total = 0.0
        for i in range(0, len(order), batch):
            idx = order[i:i + batch]
            xb = _augment(_to_tensor(xt[idx].numpy()), gen, broad)
            # quarter turns are free data: tokens lie at any rotation
            k = int(torch.randint(0, 4, (1,), generator=gen))
            xb = torch.rot90(xb, k, dims=(2, 3))
            loss = loss_fn(model(xb), yt[idx])
            opt.zero_grad()
            loss.backward()
            opt.step()
            sched.step()
            total += loss.item() * len(idx)
        model.eval()
        with torch.no_grad():
            pred = torch.cat([model(xv[i:i + 512]).argmax(1) for i in range(0, len(xv), 512)])
        accuracy = float((pred == yv).float().mean())
        after_epoch(epoch, total / len(xt), accuracy)
    return accuracy


def _export(model, float_path: Path) -> None:  # noqa: ANN001
    """The float network as ONNX (input ``crops``, output ``logits``, any batch)."""
    import torch

    model.eval()
    with warnings.catch_warnings():  # the TorchScript exporter needs no onnxscript
        warnings.simplefilter("ignore", DeprecationWarning)
        torch.onnx.export(model, torch.zeros(1, 3, CROP_PX, CROP_PX), str(float_path),
                          input_names=["crops"], output_names=["logits"],
                          dynamic_axes={"crops": {0: "batch"}, "logits": {0: "batch"}},
                          opset_version=17, dynamo=False)


def train(out_dir: Path, config: TrainConfig | None = None,
          log: Callable[[str], None] = print) -> dict:
    """Render, train, export ``cells.onnx`` and ``cells.json`` into out_dir; returns metadata."""
    import torch

    cfg = config or TrainConfig()
    torch.manual_seed(cfg.seed)
    torch.set_num_threads(max(1, cfg.workers))
    names = label_names()
    started = time.time()

    def bar(label: str) -> Callable[[int, int], None]:
        return _progress(label, started, log)

    x_train, y_train = render_dataset(cfg.seed * 1_000_000, cfg.scenes,
                                      hand_probability=cfg.hand_probability,
                                      workers=cfg.workers, progress=bar("render train"),
                                      broad=cfg.broad, tone=cfg.tone)
    x_val, y_val = render_dataset(cfg.seed * 1_000_000 + 500_000, cfg.val_scenes,
                                  hand_probability=cfg.hand_probability, workers=cfg.workers,
                                  progress=bar("render val"), broad=cfg.broad, tone=cfg.tone)
    log(f"data: {len(x_train)} training crops, {len(x_val)} validation crops")
    model = build_model(len(names))

    def report(epoch: int, loss: float, accuracy: float) -> None:
        log(f"epoch {epoch + 1}/{cfg.epochs}: loss {loss:.4f}, validation accuracy "
            f"{accuracy:.4f} ({time.time() - started:.0f} s)")

    accuracy = _fit(model, x_train, y_train, x_val, y_val, epochs=cfg.epochs, batch=cfg.batch,
                    lr=cfg.lr, seed=cfg.seed, broad=cfg.broad, after_epoch=report)
    out_dir.mkdir(parents=True, exist_ok=True)
    float_path = out_dir / FLOAT_MODEL
    _export(model, float_path)
    onnx_path = out_dir / "cells.onnx"
    quantised_accuracy = quantise(float_path, onnx_path, x_val, y_val)
    log(f"8-bit model: validation accuracy {quantised_accuracy:.4f} (float {accuracy:.4f})")
    meta = _write_metadata(out_dir, names, cfg, len(x_train), len(x_val), accuracy,
                           quantised_accuracy, started, tone=cfg.tone,
                           recipe=("broad" if cfg.broad else "default")
                           + (" + tone" if cfg.tone else ""))
    log(f"wrote {onnx_path} ({onnx_path.stat().st_size / 1e6:.2f} MB) and cells.json")
    return meta


def _write_metadata(out_dir: Path, names: list[str], cfg: TrainConfig | FineTuneConfig,
                    train_crops: int, validation_crops: int, accuracy: float,
                    quantised_accuracy: float, started: float, *, tone: bool, recipe: str
                    ) -> dict:
    """cells.json beside a model just trained: its labels, input and how it was made."""
    import torch

    meta = {
        "labels": names,
        "input": {"size": CROP_PX, "crop_mm": CROP_MM, "layout": "NCHW", "channels": "BGR",
                  "mean": MEAN, "std": STD, **({"tone": SHADE} if tone else {})},
        "seed": cfg.seed,
        "train_scenes": cfg.scenes,
        "train_crops": int(train_crops),
        "validation_crops": int(validation_crops),
        "validation_accuracy": round(quantised_accuracy, 5),
        "validation_accuracy_fp32": round(accuracy, 5),
        "quantisation": QUANTISATION,
        "epochs": cfg.epochs,
        "recipe": recipe,
        "torch": torch.__version__,
        "seconds": round(time.time() - started),
    }
    (out_dir / "cells.json").write_text(json.dumps(meta, indent=1) + "\n", encoding="utf-8")
    return meta


def _normalise(x: np.ndarray) -> np.ndarray:
    """uint8 NHWC BGR crops -> the network's float NCHW input."""
    return ((x.astype(np.float32).transpose(0, 3, 1, 2) / 255.0 - MEAN) / STD).astype(np.float32)


def first_block(model_path: Path) -> list[str]:
    """The names of the first convolution of an ONNX model and of the nodes after it up to the
    next convolution (its activation, pooling). With 3 input channels the 8-bit kernel is
    slower there than the float one (on one x86 core 2.0 ms for 25 crops against 0.7 ms), so
    the 8-bit model keeps them float, and the pooling runs at full resolution on floats in the fast
    layout (see classify.UNHELPFUL_OPTIMIZERS)."""
    import onnx

    graph = onnx.load(str(model_path)).graph
    consumers: dict[str, list] = {}
    for node in graph.node:
        for name in node.input:
            consumers.setdefault(name, []).append(node)
    block = [n for n in consumers.get(graph.input[0].name, []) if n.op_type == "Conv"][:1]
    while block and len(consumers.get(block[-1].output[0], [])) == 1:
        nxt = consumers[block[-1].output[0]][0]
        if nxt.op_type in ("Conv", "Gemm"):
            break
        block.append(nxt)
    return [n.name for n in block]


def quantise(float_path: Path, out_path: Path, x_val: np.ndarray, y_val: np.ndarray) -> float:
    """Write the 8-bit copy of a float ONNX model, calibrated on validation crops; return its
    accuracy on all of them (onnxruntime, as the reader runs it)."""
    import tempfile

    from onnxruntime.quantization import (
        CalibrationDataReader,
        QuantFormat,
        QuantType,
        quantize_static,
    )
    from onnxruntime.quantization.shape_inference import quant_pre_process

    calibration = x_val[:CALIBRATION_CROPS]

    class Crops(CalibrationDataReader):
        def __init__(self) -> None:
            self.batches = iter(range(0, len(calibration), 256))

        def get_next(self) -> dict[str, np.ndarray] | None:
            i = next(self.batches, None)
            return None if i is None else {"crops": _normalise(calibration[i:i + 256])}

    with tempfile.TemporaryDirectory() as tmp:
        prepared = Path(tmp) / "prepared.onnx"
        quant_pre_process(str(float_path), str(prepared))
        quantize_static(str(prepared), str(out_path), Crops(), quant_format=QuantFormat.QDQ,
                        per_channel=True, activation_type=QuantType.QUInt8,
                        weight_type=QuantType.QInt8, nodes_to_exclude=first_block(prepared))
    session = open_session(out_path)
    right = 0
    for i in range(0, len(x_val), 512):
        logits = session.run(None, {"crops": _normalise(x_val[i:i + 512])})[0]
        right += int((logits.argmax(axis=1) == y_val[i:i + 512]).sum())
    return right / max(1, len(x_val))


# --- enrollment: the network fine-tuned on an edition's art ---------------------------------
@dataclass(frozen=True)
class FineTuneConfig:
    """How an enrolled edition is learnt (``companion enroll``): the bundled network, trained
    further on scenes drawn with the edition's art. Sized to end within 15 minutes on 2 cores
    (see docs/vision.md, Editions and enrollment)."""

    scenes: int = 900  # 600 left a third more cells wrong on drawn editions (docs/bench.md)
    val_scenes: int = 40
    epochs: int = 14  # 10 stopped short of settling (docs/vision.md, step 6)
    batch: int = 128
    # the one-cycle schedule's peak: 2e-3 left 704, 705 and 707 a fifth to a quarter more cells
    # wrong or unknown, 5e-4 several times more (docs/bench.md)
    lr: float = 4e-3
    seed: int = 7
    workers: int = 2
    hand_probability: float = 0.3
    # crops of the photos themselves (enroll.photo_crops): 60 made the network surer of the
    # photos' look, 24 cells wrong with confidence in the four drawn editions' 40,000
    # against 13, for a few fewer left unknown (docs/bench.md)
    photo_crops_per_face: int = 30
    # the first convolutions kept as the bundled network learnt them (colour edges, which
    # any edition's print shows): the first alone is a fifth of each pass's time
    frozen_layers: int = 1
    # crops mapped by the board's colours, as the reader then maps them: the cut art's cast,
    # the photos' median light, comes off alike in training and in play (docs/vision.md)
    tone: bool = True


def build_folded_model(classes: int):  # noqa: ANN201 - torch.nn.Module
    """:func:`build_model` as its ONNX export holds it: each batch norm folded into its
    convolution's weights and bias, and no dropout (the exported network, to train further)."""
    import torch.nn as nn

    def block(cin: int, cout: int) -> list[nn.Module]:
        return [nn.Conv2d(cin, cout, 3, padding=1), nn.ReLU(inplace=True)]

    return nn.Sequential(
        *block(3, 16), nn.MaxPool2d(2),
        *block(16, 32), nn.MaxPool2d(2),
        *block(32, 64), *block(64, 64), nn.MaxPool2d(2),
        *block(64, 128),
        nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(128, classes),
    )


def load_onnx_weights(model, path: Path) -> None:  # noqa: ANN001
    """Set a folded network's weights from a float ONNX export of it (its Conv and Gemm
    nodes, in order).

    :raises ValueError: if the export has another shape of network.
    """
    import onnx
    import torch
    import torch.nn as nn
    from onnx import numpy_helper

    graph = onnx.load(str(path)).graph
    weights = {i.name: numpy_helper.to_array(i) for i in graph.initializer}
    found = [[weights[name] for name in node.input[1:3]]
             for node in graph.node if node.op_type in ("Conv", "Gemm")]
    layers = [m for m in model if isinstance(m, (nn.Conv2d, nn.Linear))]
    if len(found) != len(layers):
        raise ValueError(f"{path} has {len(found)} weighted layers, the network "
                         f"{len(layers)}")
    for layer, (w, b) in zip(layers, found, strict=True):
        if tuple(layer.weight.shape) != w.shape or tuple(layer.bias.shape) != b.shape:
            raise ValueError(f"{path}: a layer of shape {w.shape}, the network's "
                             f"{tuple(layer.weight.shape)}")
        layer.weight.data = torch.from_numpy(w.copy())
        layer.bias.data = torch.from_numpy(b.copy())


def fine_tune(out_dir: Path, art: Path, base: Path, config: FineTuneConfig | None = None,
              log: Callable[[str], None] = print,
              extra: tuple[np.ndarray, np.ndarray] | None = None) -> dict:
    """Train the bundled float network (``base``/cells.fp32.onnx) further on scenes drawn
    with an edition's ``art``, and on ``extra`` crops (uint8 NHWC, label indices) if given;
    write cells.fp32.onnx, cells.onnx and cells.json to out_dir; returns the metadata."""
    import torch

    cfg = config or FineTuneConfig()
    torch.manual_seed(cfg.seed)
    torch.set_num_threads(max(1, cfg.workers))
    names = label_names()
    started = time.time()

    def bar(label: str) -> Callable[[int, int], None]:
        return _progress(label, started, log, bar=False)

    x_train, y_train = render_dataset(cfg.seed * 1_000_000, cfg.scenes,
                                      hand_probability=cfg.hand_probability,
                                      workers=cfg.workers, progress=bar("drawing scenes"),
                                      art=art, style=ENROLL_STYLE, tone=cfg.tone)
    x_val, y_val = render_dataset(cfg.seed * 1_000_000 + 500_000, cfg.val_scenes,
                                  hand_probability=cfg.hand_probability, workers=cfg.workers,
                                  progress=bar("drawing scenes to check on"), art=art,
                                  style=ENROLL_STYLE, tone=cfg.tone)
    if extra is not None and len(extra[0]):
        x_train = np.concatenate([x_train, extra[0]])
        y_train = np.concatenate([y_train, extra[1]])
    model = build_folded_model(len(names))
    load_onnx_weights(model, base / FLOAT_MODEL)
    for layer in [m for m in model if isinstance(m, torch.nn.Conv2d)][:cfg.frozen_layers]:
        layer.requires_grad_(False)

    def report(epoch: int, _loss: float, accuracy: float) -> None:
        log(f"learning: pass {epoch + 1}/{cfg.epochs}, {100 * accuracy:.1f} % of the check "
            f"crops right ({time.time() - started:.0f} s)")

    accuracy = _fit(model, x_train, y_train, x_val, y_val, epochs=cfg.epochs, batch=cfg.batch,
                    lr=cfg.lr, seed=cfg.seed, broad=True, after_epoch=report)
    out_dir.mkdir(parents=True, exist_ok=True)
    float_path = out_dir / FLOAT_MODEL
    _export(model, float_path)
    quantised_accuracy = quantise(float_path, out_dir / "cells.onnx", x_val, y_val)
    return _write_metadata(out_dir, names, cfg, len(x_train), len(x_val), accuracy,
                           quantised_accuracy, started, tone=cfg.tone,
                           recipe="enrolled: the bundled network trained further on the "
                                  "edition's art")
