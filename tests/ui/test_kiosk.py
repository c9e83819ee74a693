"""The kiosk in a real offscreen window (SDL2 offscreen): whole games through simulated
touches, screenshots at 800x480 and 1280x720 with their layout checks, and the private-entry
leak check over every widget. Each run is a subprocess: Kivy opens one window per process."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from companion.table.answers import load_record
from companion.table.demo import DEMO_DIR
from companion.ui.autoplay import SHOTS
from tests.table.test_recordings import _rendered


def kiosk(tmp: Path, *args: str) -> subprocess.Popen:
    env = dict(os.environ, SDL_VIDEODRIVER="offscreen", KIVY_NO_ARGS="1",
               KIVY_HOME=str(tmp / "kivy"), KIVY_NO_CONSOLELOG="1")
    return subprocess.Popen([sys.executable, "-m", "companion", "kiosk", "--demo",
                             "--screenshots", str(tmp / "shots"), "--data", str(tmp / "data"),
                             "--tap-delay", "0.05", "--pace", "0", *args],
                            env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                            text=True)


def finished(proc: subprocess.Popen, tmp: Path) -> dict:
    out, _ = proc.communicate(timeout=400)
    report_path = tmp / "shots" / "report.json"
    assert report_path.is_file(), out[-3000:]
    report = json.loads(report_path.read_text())
    assert proc.returncode == 0, (out[-2000:], report)
    return report


def test_the_demo_through_the_ui_at_both_sizes(tmp_path):
    small, large = tmp_path / "800", tmp_path / "1280"
    runs = [(kiosk(small, "--size", "800x480"), small, (800, 480)),
            (kiosk(large, "--size", "1280x720"), large, (1280, 720))]
    _, recorded = load_record(DEMO_DIR / "answers.jsonl")
    for proc, tmp, size in runs:
        report = finished(proc, tmp)
        assert report["window"] == list(size)
        assert not report["missing"] and sorted(report["screens"]) == sorted(SHOTS)
        assert not report["problems"], report["problems"]
        assert not report["leaks"] and report["private_checks"] >= 10
        assert report["final"]["scores"] == recorded["scores"]
        for name in SHOTS:
            assert (tmp / "shots" / f"{name}.png").stat().st_size > 5_000


@pytest.mark.parametrize("game,players,seed", [("food-alley/shopper", 2, 4),
                                               ("food-alley/stray", 2, 4)])
def test_a_whole_game_of_each_other_mode_through_the_ui(tmp_path, game, players, seed):
    folder = _rendered(game, players, seed)
    report = finished(kiosk(tmp_path, "--recording", str(folder)), tmp_path)
    _, recorded = load_record(folder / "answers.jsonl")
    assert report["final"] is not None, "the game did not reach the final scores"
    assert report["final"]["scores"] == recorded["scores"]
    assert report["final"]["winners"] == recorded["winners"]
    assert not report["problems"], report["problems"]
    assert not report["leaks"]
