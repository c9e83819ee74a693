"""The Pi bench's live camera (bench/bench_referee.py --slowdown): frames arrive on a virtual
clock, the referee takes the newest that has arrived and the older waiting ones are dropped."""

from __future__ import annotations

import importlib.util
import json
import sys
from pathlib import Path

import numpy as np
import pytest

from companion.table.sources import Frame

BENCH = Path(__file__).resolve().parents[1] / "bench" / "bench_referee.py"


@pytest.fixture(scope="module")
def bench():
    spec = importlib.util.spec_from_file_location("bench_referee", BENCH)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["bench_referee"] = module  # dataclasses look their module up
    try:
        spec.loader.exec_module(module)
        yield module
    finally:
        sys.modules.pop("bench_referee", None)


def drive(camera, costs: dict[int, float], default: float) -> list[int]:
    taken = []
    while (i := camera.take()) is not None:
        taken.append(i)
        camera.spend(costs.get(i, default))
    return taken


def test_a_fast_referee_takes_every_frame_and_waits_for_the_next(bench) -> None:
    camera = bench.LiveCamera([0.0, 0.2, 0.4, 0.6])
    assert drive(camera, {}, 0.01) == [0, 1, 2, 3]
    assert (camera.taken, camera.dropped) == (4, 0)
    assert camera.clock == pytest.approx(0.61)  # idle between frames: the clock waited


def test_a_busy_referee_takes_the_newest_frame_and_the_others_are_dropped(bench) -> None:
    times = [k / 10 for k in range(10)]  # 10 a second
    camera = bench.LiveCamera(times)
    # frame 0 takes 0.25 s: 1 and 2 arrive meanwhile, 2 is taken and 1 dropped; frame 2 takes
    # 0.4 s (until 0.65): 3..6 arrived, 6 is taken; then each takes 0.01 s
    assert drive(camera, {0: 0.25, 2: 0.4}, 0.01) == [0, 2, 6, 7, 8, 9]
    assert (camera.taken, camera.dropped) == (6, 4)


def test_a_frame_arriving_as_the_work_ends_is_taken(bench) -> None:
    camera = bench.LiveCamera([0.0, 0.5, 1.0])
    assert drive(camera, {}, 0.5) == [0, 1, 2]
    assert camera.dropped == 0


def test_the_recording_as_a_faster_camera_repeats_each_frame_with_fresh_noise(bench) -> None:
    rng = np.random.default_rng(1)
    recorded = [Frame(rng.integers(0, 256, (6, 8, 3), dtype=np.uint8), i / 5, i)
                for i in range(4)]
    camera = bench.Camera(recorded, 5.0, 30.0)
    assert len(camera.times) == 24
    assert camera.frame(6) is recorded[1]  # a recorded frame comes as it was recorded
    repeat = camera.frame(7)
    assert repeat.t == pytest.approx(7 / 30) and repeat.index == 7
    diff = np.abs(repeat.image.astype(int) - recorded[1].image.astype(int))
    assert 0 < diff.mean() < 4  # the same picture, new noise
    assert bench.Camera(recorded, 5.0, 5.0).frame(3) is recorded[3]


def test_a_board_is_still_from_the_frame_after_the_hand(bench, tmp_path: Path) -> None:
    groups = [{"after_step": 24, "last_frame": 5}, {"after_step": 40, "last_frame": 11}]
    (tmp_path / "recording.json").write_text(json.dumps({"groups": groups}), encoding="utf-8")
    # hands at frames 0 and 6: still from frames 1 and 7
    assert bench.still_moments(tmp_path, 5.0) == ([24, 40], [pytest.approx(0.2),
                                                             pytest.approx(1.4)])


def test_the_bench_says_whether_the_slowed_referee_kept_up(bench, capsys) -> None:
    final = {"scores": {"red": 3}, "ranking": [["red"]], "winners": ["red"], "tokens": {},
             "end": "both sets are played"}
    base = bench.LiveRun(1.0, 5.0, 10, steps=[(1, {"type": "a"}), (2, {"type": "b"})],
                         final=final)
    assert bench.report_live(base, base, final)
    assert not bench.report_live(base, base, {**final, "winners": ["blue"]})
    same = bench.LiveRun(4.0, 5.0, 10, steps=list(base.steps), final=final)
    assert bench.report_live(same, base, final)
    behind = bench.LiveRun(4.0, 5.0, 10, steps=base.steps[:1], final=None)
    assert not bench.report_live(behind, base, final)
    assert "did NOT keep up" in capsys.readouterr().out
