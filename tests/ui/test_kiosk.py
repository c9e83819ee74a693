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
from companion.table.journal import Journal
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


MANUAL = r"""
import json, sys
from pathlib import Path
from companion.ui.cli import _prepare_kivy
_prepare_kivy((800, 480), False)
from kivy.clock import Clock
from companion.ui.app import KioskApp, KioskConfig
from companion.ui.autoplay import tap

app = KioskApp(KioskConfig(data_dir=Path(sys.argv[1]), source="none"))
seen = {"taps": 0, "screens": set()}

def act(dt):
    name = app.root.current
    screen = app.root.current_screen
    seen["screens"].add(name)
    if name == "start":
        app.start.pick_game("food-alley/shopper")
        tap(screen.ids.start)
    elif name == "question":
        tap(list(reversed(screen.ids.options.children))[0])
    elif name == "table" and app.table is not None and app.table.view.manual:
        buttons = list(reversed(screen.ids.steps.children))
        seen["taps"] += tap(buttons[0])
    if app.table is not None and app.table.view.n >= 12:
        print(json.dumps({"n": app.table.view.n, "taps": seen["taps"],
                          "screens": sorted(seen["screens"]),
                          "board": app.root.get_screen("table").ids.view_box.children[0]
                          .__class__.__name__}))
        app.stop()

Clock.schedule_interval(act, 0.15)
Clock.schedule_once(lambda *_: app.stop(), 120)
app.run()
"""


def test_without_a_camera_steps_are_tapped_in_and_journaled(tmp_path):
    env = dict(os.environ, SDL_VIDEODRIVER="offscreen", KIVY_NO_ARGS="1",
               KIVY_HOME=str(tmp_path / "kivy"), KIVY_NO_CONSOLELOG="1")
    out = subprocess.run([sys.executable, "-c", MANUAL, str(tmp_path / "data")], env=env,
                         capture_output=True, text=True, timeout=300)
    result = json.loads(out.stdout.strip().splitlines()[-1])
    assert result["n"] >= 12 and result["taps"] >= 5
    assert result["board"] == "BoardView"  # the game's board drawn, no camera view
    journal = Journal(tmp_path / "data")
    steps = journal.steps(journal.games()[-1].id)
    assert len(steps) >= 12 and {s["decided_by"] for s in steps} >= {"entry"}


OTHER_MODES = [("food-alley/shopper", 2, 4), ("food-alley/stray", 2, 4)]


@pytest.fixture(scope="module")
def runs(tmp_path_factory) -> dict[str, tuple[dict, Path]]:
    """Every kiosk run of this module, started together (most of a run is the demo's hands
    waiting as a player would), then collected."""
    base = tmp_path_factory.mktemp("kiosk")
    started = {
        "800": (kiosk(base / "800", "--size", "800x480"), base / "800"),
        "1280": (kiosk(base / "1280", "--size", "1280x720"), base / "1280"),
    }
    for game, players, seed in OTHER_MODES:
        folder = _rendered(game, players, seed)
        started[game] = (kiosk(base / game.split("/")[1], "--recording", str(folder)),
                         base / game.split("/")[1])
    return {key: (finished(proc, tmp), tmp) for key, (proc, tmp) in started.items()}


@pytest.mark.parametrize("key,size", [("800", (800, 480)), ("1280", (1280, 720))])
def test_the_demo_through_the_ui_at_both_sizes(runs, key, size):
    report, tmp = runs[key]
    _, recorded = load_record(DEMO_DIR / "answers.jsonl")
    assert report["window"] == list(size)
    assert not report["missing"] and sorted(report["screens"]) == sorted(SHOTS)
    assert not report["problems"], report["problems"]
    assert not report["leaks"] and report["private_checks"] >= 10
    assert report["final"]["scores"] == recorded["scores"]
    for name in SHOTS:
        assert (tmp / "shots" / f"{name}.png").stat().st_size > 5_000


@pytest.mark.parametrize("game,players,seed", OTHER_MODES)
def test_a_whole_game_of_each_other_mode_through_the_ui(runs, game, players, seed):
    report, _ = runs[game]
    _, recorded = load_record(_rendered(game, players, seed) / "answers.jsonl")
    assert report["final"] is not None, "the game did not reach the final scores"
    assert report["final"]["scores"] == recorded["scores"]
    assert report["final"]["winners"] == recorded["winners"]
    assert not report["problems"], report["problems"]
    assert not report["leaks"]
