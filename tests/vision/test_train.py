"""Training: a tiny run renders, trains, exports a loadable model; the seed makes it repeatable."""

from __future__ import annotations

import json

import numpy as np
import pytest

pytest.importorskip("torch")
pytest.importorskip("onnx")

import onnx  # noqa: E402

from companion.vision.classify import default_model_dir, load_model  # noqa: E402
from companion.vision.train import TrainConfig, train  # noqa: E402


def tiny(out, seed=3):
    return train(out, TrainConfig(scenes=4, val_scenes=2, epochs=1, batch=32, seed=seed,
                                  workers=1), log=lambda _: None)


def test_training_exports_model_and_metadata(tmp_path):
    (tmp_path / "reader.yaml").write_text("abstain_below: 0.5\n")
    meta = tiny(tmp_path)
    saved = json.loads((tmp_path / "cells.json").read_text())
    assert saved == meta
    assert meta["train_crops"] > 50 and meta["seed"] == 3
    assert 0.0 <= meta["validation_accuracy"] <= 1.0
    assert (tmp_path / "cells.onnx").stat().st_size < 2_000_000
    # the reader runs the 8-bit copy; the float network it was made from is kept beside it
    assert (tmp_path / "cells.onnx").stat().st_size < (tmp_path / "cells.fp32.onnx").stat().st_size
    assert meta["quantisation"].startswith("int8")
    assert_first_block_float_rest_8bit(tmp_path / "cells.onnx")
    assert 0.0 <= meta["validation_accuracy_fp32"] <= 1.0
    model = load_model(tmp_path)
    probs = model.probabilities(np.zeros((3, model.size, model.size, 3), np.uint8))
    assert probs.shape == (3, len(meta["labels"]))
    assert np.allclose(probs.sum(axis=1), 1, atol=1e-4)


def test_training_is_reproducible_from_its_seed(tmp_path):
    a, b = tmp_path / "a", tmp_path / "b"
    tiny(a)
    tiny(b)
    ma, mb = load_model(a), load_model(b)
    crops = np.random.default_rng(0).integers(0, 255, (4, ma.size, ma.size, 3), dtype=np.uint8)
    pa = ma.probabilities(crops)
    pb = mb.probabilities(crops)
    assert np.allclose(pa, pb, atol=1e-5)


def test_broad_recipe_trains_and_says_so(tmp_path):
    meta = train(tmp_path, TrainConfig(scenes=3, val_scenes=1, epochs=1, batch=32, seed=4,
                                       workers=1, broad=True), log=lambda _: None)
    assert meta["recipe"] == "broad"
    assert load_model(tmp_path).size == meta["input"]["size"]


def test_tone_option_maps_cells_by_the_board_colours_and_says_so(tmp_path):
    meta = train(tmp_path, TrainConfig(scenes=3, val_scenes=1, epochs=1, batch=32, seed=5,
                                       workers=1, tone=True), log=lambda _: None)
    assert meta["input"]["tone"] == "board+shade" and meta["recipe"] == "default + tone"
    assert load_model(tmp_path).tone == "board+shade"


def assert_first_block_float_rest_8bit(path):
    """The first convolution reads the float input with float weights (8-bit kernels gain
    little on 3 channels); every later convolution reads dequantised 8-bit values."""
    graph = onnx.load(str(path)).graph
    initialisers = {i.name for i in graph.initializer}
    made_by = {out: node.op_type for node in graph.node for out in node.output}
    convs = [n for n in graph.node if n.op_type == "Conv"]
    first, rest = convs[0], convs[1:]
    assert first.input[0] == graph.input[0].name
    assert first.input[1] in initialisers
    assert rest and all(made_by.get(c.input[0]) == "DequantizeLinear"
                        and made_by.get(c.input[1]) == "DequantizeLinear" for c in rest)


def test_shipped_model_keeps_the_first_convolution_float():
    assert_first_block_float_rest_8bit(default_model_dir() / "cells.onnx")
    meta = json.loads((default_model_dir() / "cells.json").read_text())
    assert "first convolution" in meta["quantisation"]


def test_a_cat_whose_badge_is_under_the_hand_is_trained_as_unknown():
    """A face-up cat with its number badge hidden shows its back's picture: training labels it
    unknown even when the hand covers little of its token (seed 39: a white cat's 4, 6 % of the
    disc, 46 % of the badge), as it does a token the hand covers."""
    from dataclasses import replace

    from companion.vision.assets import label_names
    from companion.vision.synth import render_scene
    from companion.vision.train import TRAIN_STYLE, _scene_crops

    scene = render_scene(np.random.default_rng(39), style=replace(TRAIN_STYLE,
                                                                  hand_probability=1.0))
    assert scene.cells[15] == "cat:white:4"
    assert scene.covered[15] < 0.08 and scene.hidden[15] > 0.3
    _, got = _scene_crops((39, 1.0, False, False, None, None))
    names = label_names()
    kept = [i for i, h in enumerate(scene.hidden) if h <= 0.08 or h > 0.3]
    assert [names[k] for k in got] == [
        "unknown" if scene.hidden[i] > 0.3 else scene.cells[i] for i in kept]
    assert names[got[kept.index(15)]] == "unknown"


def test_fine_tuning_keeps_the_first_convolution_as_bundled_and_trains_the_rest(tmp_path,
                                                                                monkeypatch):
    """An enrollment trains the bundled network further with its first convolution (colour
    edges, which any edition's print shows) kept as it was: a fifth of each pass's time."""
    import torch

    import companion.vision.train as train_module
    from companion.vision.assets import art_dir
    from companion.vision.train import (
        FLOAT_MODEL,
        FineTuneConfig,
        build_folded_model,
        fine_tune,
        load_onnx_weights,
    )

    trained = []

    def fit(model, *args, **kwargs):
        trained.append([m for m in model if isinstance(m, torch.nn.Conv2d)])
        return 0.5

    monkeypatch.setattr(train_module, "_fit", fit)
    base = default_model_dir()
    fine_tune(tmp_path, art_dir(), base, FineTuneConfig(scenes=2, val_scenes=1, epochs=1,
                                                        workers=1, tone=False),
              log=lambda _: None)
    bundled = build_folded_model(len(json.loads((base / "cells.json").read_text())["labels"]))
    load_onnx_weights(bundled, base / FLOAT_MODEL)
    first, *rest = trained[0]
    assert FineTuneConfig().frozen_layers == 1
    assert not any(p.requires_grad for p in first.parameters())
    assert torch.equal(first.weight, next(m for m in bundled
                                          if isinstance(m, torch.nn.Conv2d)).weight)
    assert all(p.requires_grad for layer in rest for p in layer.parameters())
