"""The referee's speed, on one core.

1. From a settled frame to the applied step (settling excluded): the session's inference, the
   rules and the journal's commit, per settled reading that applied steps, over recorded games
   of every mode with 2 and 4 players (their boards as read, two steps at a time at most).
2. Frames a second the session keeps up with from a 1920x1080 source: a rendered recording
   (hands, settled boards, a nudged camera) through motion detection, the reader on still
   frames and the session, as ``companion referee`` runs them.

On the Pi (``--cores 1 --slowdown 4``, instead of the two): the recording against a live camera
on a CPU ``--slowdown`` times slower (a Pi 4's Cortex-A72 is 3-5x slower a core than the
development machine). Frames arrive at their own timestamps (``--camera-fps 30``: each recorded
frame repeated, with fresh noise, as the Pi camera's 30 a second); the referee's work on each
frame it takes (motion, settling, the reader, inference, the session) is timed, and that time
times the slowdown moves a virtual clock on (nothing sleeps). Frames that arrived while it was
busy are dropped as a live camera's queue drops them: it always takes the newest that has
arrived. Run at slowdown 1 and at the one asked, it prints frames taken and dropped, the cost of
a motion-only frame and of a frame read, the lag from a board going still to its steps applied,
whether the same steps were applied and the game ended the same, and the cost against the
camera's frame budget. ``--cores N`` pins to N cores and gives onnxruntime and OpenCV N threads.

Usage: python bench/bench_referee.py [--games 2] [--frames-game food-alley/sambal] [--cores N]
       python bench/bench_referee.py --cores 1 --slowdown 4 [--camera-fps 30]
"""

from __future__ import annotations

import argparse
import bisect
import json
import os
import statistics
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import cv2  # noqa: E402
import numpy as np  # noqa: E402

from companion.rules.summary import final_summary  # noqa: E402
from companion.table.answers import ScriptedTable, load_record  # noqa: E402
from companion.table.board import board_keys  # noqa: E402
from companion.table.cli import answer_scripted as answer_open  # noqa: E402
from companion.table.journal import Journal  # noqa: E402
from companion.table.recording import played, record_game, rules_fingerprint  # noqa: E402
from companion.table.session import RefereeSession  # noqa: E402
from companion.table.settle import SettleConfig, Settler  # noqa: E402
from companion.table.sources import FolderSource, Frame, jpeg  # noqa: E402
from companion.vision.reader import BoardReader  # noqa: E402

PI_CAMERA_FPS = 30.0  # picamera2's video configuration (FrameDurationLimits 33333 us)
FINAL_KEYS = ("scores", "ranking", "winners", "tokens", "end")


def record(game: str, players: int, seed: int) -> tuple[list[dict], dict]:
    _, steps, final = played(game, players, seed)
    return steps, final


def settled_to_applied(games: int) -> list[float]:
    times: list[float] = []
    with tempfile.TemporaryDirectory() as tmp:
        journal = Journal(Path(tmp))
        for game in ("food-alley/shopper", "food-alley/sambal", "food-alley/stray"):
            for players in (2, 4):
                for seed in range(1, games + 1):
                    steps, _ = record(game, players, seed)
                    session = RefereeSession.start(game, players, journal=journal)
                    table = ScriptedTable(steps)
                    session.begin()
                    answer_open(session, table)
                    last = None
                    i = 0
                    while i < len(steps) and not session.state.is_terminal():
                        i = min(len(steps), i + 1 + (i % 3 == 0))
                        keys = board_keys(steps[i - 1]["board"], session.seated)
                        if keys == last:
                            continue
                        last = keys
                        before = len(session.state.log)
                        start = time.perf_counter()
                        session.observe(keys)
                        spent = time.perf_counter() - start
                        if len(session.state.log) > before:
                            times.append(spent * 1000)
                        answer_open(session, table)
    return times


def recording(game: str, players: int, seed: int) -> Path:
    """The rendered recording's folder (rendered once into the cache, 30-60 s)."""
    cache = Path.home() / ".cache" / "food-alley-companion" / "recordings"
    folder = cache / f"{game.split('/')[1]}-{players}p-{seed}-{rules_fingerprint()}"
    if not (folder / "recording.json").is_file():
        record_game(game, players, seed, folder)
    return folder


def referee(folder: Path, game: str, players: int, threads: int
            ) -> tuple[RefereeSession, ScriptedTable, Settler]:
    """A session begun on a recording, its recorded table answering, and a settler to feed."""
    steps, _ = load_record(folder / "answers.jsonl")
    session = RefereeSession.start(game, players)
    table = ScriptedTable(steps)
    settler = Settler(BoardReader(threads=threads), session.seated)
    session.begin()
    answer_open(session, table)
    return session, table, settler


def frames_per_second(game: str, players: int, seed: int,
                      threads: int = 1) -> tuple[float, int, float]:
    folder = recording(game, players, seed)
    session, table, settler = referee(folder, game, players, threads)
    source = FolderSource(folder / "frames")
    frames = list(source.frames())  # decoding the files is the camera's work, not timed
    start = time.perf_counter()
    for frame in frames:
        settled = settler.push(frame)
        if settled is not None:
            session.observe(settled.keys, None, frame.t)
            answer_open(session, table)
    spent = time.perf_counter() - start
    return len(frames) / spent, len(frames), settler.readings / len(frames)


class LiveCamera:
    """A live camera against a virtual clock. Frame ``i`` arrives at ``times[i]``; :meth:`take`
    hands over the newest frame that has arrived (waiting, on the clock, for the next one when
    none has) and drops the older ones still waiting, as a camera queue one frame deep does;
    :meth:`spend` moves the clock on by the referee's work."""

    def __init__(self, times: list[float]) -> None:
        self.times = times
        self.clock = times[0] if times else 0.0
        self.next = 0  # the first frame neither taken nor dropped
        self.taken = 0
        self.dropped = 0

    def take(self) -> int | None:
        """The index of the frame the referee takes now, or None when the frames have ended."""
        if self.next >= len(self.times):
            return None
        self.clock = max(self.clock, self.times[self.next])  # idle until a frame arrives
        newest = bisect.bisect_right(self.times, self.clock, lo=self.next) - 1
        self.dropped += newest - self.next
        self.taken += 1
        self.next = newest + 1
        return newest

    def spend(self, seconds: float) -> None:
        self.clock += seconds


@dataclass
class LiveRun:
    slowdown: float
    fps: float
    frames: int
    taken: int = 0
    dropped: int = 0
    motion_ms: list[float] = field(default_factory=list)  # frames only checked for motion
    read_ms: list[float] = field(default_factory=list)  # frames the reader read
    # of those, the frames that settled a board: the read and the session inferring its steps
    settle_ms: list[float] = field(default_factory=list)
    lag_s: list[float] = field(default_factory=list)  # board still -> its steps applied
    steps: list[tuple[int, Any]] = field(default_factory=list)  # (n, move) applied
    final: dict[str, Any] | None = None  # the final summary's result, None if not ended

    def outcome(self) -> tuple[list[tuple[int, str]], dict[str, Any] | None]:
        return [(n, json.dumps(m, sort_keys=True)) for n, m in self.steps], self.final


def still_moments(folder: Path, fps: float) -> tuple[list[int], list[float]]:
    """From recording.json: for each shown board (a group of steps), the last step it shows and
    the moment it became still (the frame after the hand's)."""
    meta = json.loads((folder / "recording.json").read_text(encoding="utf-8"))
    last_steps, still = [], []
    hand = 0
    for group in meta["groups"]:
        last_steps.append(int(group["after_step"]))
        still.append((hand + 1) / fps)
        hand = int(group["last_frame"]) + 1
    return last_steps, still


class Camera:
    """The recording as a camera delivering ``rate`` frames a second: each recorded frame is
    shown until the next one is due; a repeat gets fresh sensor noise (the camera's work, not
    timed), so the reader does not see the very same pixels twice."""

    def __init__(self, recorded: list[Any], fps: float, rate: float) -> None:
        self.recorded, self.fps, self.rate = recorded, fps, rate
        count = int(len(recorded) * rate / fps + 1e-9)
        self.times = [j / rate for j in range(count)]
        rng = np.random.default_rng(5)
        shape = recorded[0].image.shape
        noise = [rng.normal(0, 2.0, shape) for _ in range(3)]
        self.noise = [(np.clip(n, 0, 255).astype(np.uint8), np.clip(-n, 0, 255).astype(np.uint8))
                      for n in noise]

    def frame(self, j: int) -> Any:
        r = min(int(j * self.fps / self.rate + 1e-9), len(self.recorded) - 1)
        source = self.recorded[r]
        if source.t == self.times[j]:  # a recorded frame, as it was recorded
            return source
        up, down = self.noise[j % len(self.noise)]
        image = cv2.subtract(cv2.add(source.image, up), down)
        return Frame(image, self.times[j], j)


def live(folder: Path, game: str, players: int, source: Camera, slowdown: float,
         threads: int) -> LiveRun:
    """The recording against a live camera on a CPU ``slowdown`` times slower (see the top)."""
    times = source.times
    last_steps, still = still_moments(folder, source.fps)
    session, table, settler = referee(folder, game, players, threads)
    # one thread: its CPU time, which another process on the core does not inflate; more: the
    # wall clock (their CPU times would add up)
    clock = time.process_time if threads == 1 else time.perf_counter
    camera = LiveCamera(times)
    run = LiveRun(slowdown, source.rate, len(times))
    while not session.state.is_terminal():
        i = camera.take()
        if i is None:
            break
        frame = source.frame(i)
        readings, applied = settler.readings, len(session.history)
        start = clock()
        settled = settler.push(frame)  # motion, settling, the reader
        if settled is not None:  # as the kiosk's thread and `companion referee` do
            session.observe(settled.keys, jpeg(settled.frame.image), settled.frame.t,
                            settled.confidence)
            answer_open(session, table)
        spent = (clock() - start) * slowdown
        camera.spend(spent)
        (run.read_ms if settler.readings > readings else run.motion_ms).append(spent * 1000)
        if settled is not None:
            run.settle_ms.append(spent * 1000)
        if len(session.history) > applied:  # steps applied: since when was the board still?
            n = session.history[applied]["n"]
            k = min(bisect.bisect_left(last_steps, n), len(still) - 1)
            since = still[k] if still[k] <= frame.t else \
                still[max(0, bisect.bisect_right(still, frame.t) - 1)]
            run.lag_s.append(camera.clock - since)
    run.taken, run.dropped = camera.taken, camera.dropped + len(times) - camera.next
    run.steps = [(h["n"], h["move"]) for h in session.history]
    if session.state.is_terminal():
        summary = final_summary(session.state)
        run.final = {k: summary.get(k) for k in FINAL_KEYS}
    return run


def pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(len(ordered) * q))] if ordered else float("nan")


def report_live(run: LiveRun, base: LiveRun, recorded: dict[str, Any]) -> bool:
    """Print what the run cost and did; True when it kept up (the base run: ended as recorded)."""
    def ms(values: list[float]) -> str:
        if not values:
            return "none"
        return (f"median {statistics.median(values):.1f} ms, 90th percentile "
                f"{pct(values, 0.9):.1f} ms, max {max(values):.0f} ms ({len(values)} frames)")

    label = f"slowdown {run.slowdown:g}"
    print(f"{label}: {run.taken} frames taken, {run.dropped} dropped (of {run.frames}, "
          f"{run.fps:g} a second)")
    print(f"  motion-only frame: {ms(run.motion_ms)}")
    print(f"  frame read:        {ms(run.read_ms)}")
    print(f"    of which settled a board (the read and inferring its steps): "
          f"{ms(run.settle_ms)}")
    others = sorted(run.read_ms)
    for t in run.settle_ms:
        others.remove(t)
    print(f"    the other reads: {ms(others)}")
    if run.lag_s:
        print(f"  board still -> its steps applied: median {statistics.median(run.lag_s):.2f} s, "
              f"max {max(run.lag_s):.2f} s ({len(run.lag_s)} readings applied steps)")
    ended = "ended" if run.final is not None else "did NOT end"
    same_rec = run.final is not None and all(run.final.get(k) == recorded.get(k)
                                             for k in FINAL_KEYS)
    if run is base:
        print(f"  {len(run.steps)} steps applied, the game {ended}"
              f"{', as recorded' if same_rec else ', NOT as recorded'}")
        return same_rec
    steps, final = run.outcome()
    base_steps, base_final = base.outcome()
    same = steps == base_steps and final == base_final
    if same:
        print(f"  kept up: the same {len(steps)} steps as at slowdown 1, the game {ended} the same")
        if len(run.lag_s) < len(base.lag_s):
            print(f"  but {len(base.lag_s) - len(run.lag_s)} board(s) not settled on their own: "
                  "their steps were inferred from the next board")
        return True
    first = next((j for j, (a, b) in enumerate(zip(steps, base_steps, strict=False)) if a != b),
                 min(len(steps), len(base_steps)))
    print(f"  did NOT keep up: {len(steps)} steps applied (slowdown 1: {len(base_steps)}), "
          f"the first different at step {first}; the game {ended}"
          f"{'' if final == base_final else ', not as at slowdown 1'}")
    return False


def on_the_pi(game: str, players: int, seed: int, slowdown: float, threads: int,
              rate: float | None) -> bool:
    """Replay at full speed and at ``slowdown``; True when both refereed the game alike."""
    folder = recording(game, players, seed)
    fps = float(json.loads((folder / "recording.json").read_text(encoding="utf-8"))["fps"])
    recorded = list(FolderSource(folder / "frames", fps).frames())  # the camera's work
    source = Camera(recorded, fps, rate or fps)
    _, final = load_record(folder / "answers.jsonl")
    base = live(folder, game, players, source, 1.0, threads)
    kept_up = report_live(base, base, final)
    run = base
    if slowdown != 1:
        run = live(folder, game, players, source, slowdown, threads)
        kept_up = report_live(run, base, final) and kept_up
    motion, read = pct(run.motion_ms, 0.9), pct(run.read_ms, 0.9)
    rates = {source.rate: "this run's camera", PI_CAMERA_FPS: "the Pi camera"}
    for fps_, what in sorted(rates.items()):
        budget = 1000 / fps_
        print(f"budget at {fps_:g} frames a second ({what}): {budget:.0f} ms a frame; at "
              f"slowdown {slowdown:g} a motion-only frame takes {motion:.1f} ms (90th percentile, "
              f"{motion / budget:.0%} of it), a frame read {read:.1f} ms ({read / budget:.0%}; "
              f"reads come at most every {SettleConfig().gap_s * 1000:.0f} ms)")
    return kept_up


def main() -> int:
    """Exit status 1 when the slowed-down referee did not keep up."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=2, help="games per mode and player count "
                        "(default 2)")
    parser.add_argument("--frames-game", default="food-alley/sambal",
                        help="the recording for frames a second (default food-alley/sambal)")
    parser.add_argument("--cores", type=int, default=None,
                        help="pin to this many cores and give onnxruntime and OpenCV as many "
                        "threads (default: one core, the threads as they come)")
    parser.add_argument("--slowdown", type=float, default=None,
                        help="replay the recording against a live camera on a CPU this many "
                        "times slower (4: a Pi 4), and at 1, instead of the two measurements")
    parser.add_argument("--camera-fps", type=float, default=None,
                        help="with --slowdown: the live camera's frames a second, each recorded "
                        "frame repeated with fresh noise until the next (default: the "
                        "recording's 5; the Pi camera gives 30)")
    args = parser.parse_args()
    cores = args.cores or 1
    if hasattr(os, "sched_setaffinity"):
        os.sched_setaffinity(0, set(sorted(os.sched_getaffinity(0))[:cores]))
    if args.cores is not None or args.slowdown is not None:
        cv2.setNumThreads(cores)
    if args.slowdown is not None:
        print(f"{cores} core(s), {cores} reader and OpenCV thread(s), work timed by "
              f"{'CPU time' if cores == 1 else 'the wall clock'}; {args.frames_game}, "
              "2 players, seed 4")
        return 0 if on_the_pi(args.frames_game, 2, 4, args.slowdown, cores,
                              args.camera_fps) else 1
    times = settled_to_applied(args.games)
    times.sort()
    print(f"settled frame -> applied step: median {statistics.median(times):.1f} ms, "
          f"90th percentile {times[int(len(times) * 0.9)]:.1f} ms, max {times[-1]:.0f} ms "
          f"({len(times)} readings, {6 * args.games} games)")
    fps, count, share = frames_per_second(args.frames_game, 2, 4, cores)
    print(f"1920x1080 recording: {fps:.1f} frames a second kept up with ({count} frames, "
          f"{share:.0%} of them read)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
