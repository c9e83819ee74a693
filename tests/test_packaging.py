"""The wheel holds what an installed product needs: the model, the art, the kiosk's layout and
words, and the demo. Built offline, installed apart from the checkout, and used from elsewhere."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from companion.table.board import cell_key

ROOT = Path(__file__).parents[1]
FIXTURE = ROOT / "tests" / "fixtures" / "images" / "scene-2026-000.jpg"


@pytest.fixture(scope="module")
def installed(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("wheel")
    subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation",
                    "-q", "-w", str(out), str(ROOT)], check=True, capture_output=True)
    wheel = next(out.glob("*.whl"))
    target = out / "site"
    subprocess.run([sys.executable, "-m", "pip", "install", "--no-deps", "-q", "--target",
                    str(target), str(wheel)], check=True, capture_output=True)
    return target


def test_the_wheel_carries_model_art_kiosk_and_demo(installed):
    package = installed / "companion"
    for part in ("models/cells.onnx", "models/cells.json", "models/reader.yaml",
                 "vision/data/art/board.png", "vision/data/art/token-egg-2-coin.png",
                 "ui/screens.kv", "ui/strings.yaml", "table/demo/recording.mp4",
                 "table/demo/answers.jsonl", "rules/data/food_alley.yaml"):
        assert (package / part).is_file(), part


def test_scan_from_the_installed_wheel_outside_the_checkout(installed, tmp_path):
    env = dict(os.environ, PYTHONPATH=str(installed))
    env.pop("COMPANION_MODEL_DIR", None)
    code = ("import companion, sys; from companion.cli import main; "
            "assert companion.__file__.startswith(sys.argv[1]), companion.__file__; "
            "sys.exit(main(['scan', '--json', sys.argv[2]]))")
    out = subprocess.run([sys.executable, "-c", code, str(installed), str(FIXTURE)],
                         cwd=tmp_path, env=env, capture_output=True, text=True)
    assert out.returncode == 0, out.stderr[-2000:]
    reading = json.loads(out.stdout)
    truth = json.loads(FIXTURE.with_suffix(".json").read_text())
    assert reading["board"]["found"]
    seen = [cell_key(c, ["black", "white", "orange", "blue"]) for row in reading["cells"]
            for c in row]
    wrong = [(i, s, t) for i, (s, t) in enumerate(zip(seen, truth["cells"], strict=True))
             if s is not None and s != t]
    assert not wrong and sum(s is not None for s in seen) >= 24
