"""Recorded games as tests, after ScrabScrap: the referee run on whole games from frames.

One small recording ships as a fixture (a video of a 2-player Stray game); others are rendered
from a seed with the project's renderer and cached by seed
(``$COMPANION_RECORDINGS``, default ``~/.cache/food-alley-companion/recordings``).
"""

from __future__ import annotations

import json
import os
import random
import shutil
import signal
import sqlite3
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pytest

from companion.cli import main
from companion.table.answers import load_record
from companion.table.journal import Journal
from companion.table.recording import judge, record_game, rules_fingerprint
from tests.table.helpers import made_once

FIXTURE = Path(__file__).parents[1] / "fixtures" / "recordings" / "stray-2p-seed4"


def _cache() -> Path:
    base = os.environ.get("COMPANION_RECORDINGS")
    return Path(base) if base else Path.home() / ".cache" / "food-alley-companion" / "recordings"


def _rendered(game: str, players: int, seed: int, **options) -> Path:
    """The recording of a seeded game, rendered once into the cache. Two test processes may
    want the same recording at once (on a cold cache, as on CI): the second waits for the
    first's, under a lock, rather than render it too; and it is rendered in a folder of its
    own and moved into place whole, so that a run stopped halfway leaves no half-written
    recording that a later run would take as done."""
    extra = "".join(f"-{k}{v}" for k, v in sorted(options.items()))
    name = f"{game.split('/')[1]}-{players}p-{seed}-{rules_fingerprint()}{extra}"
    folder = _cache() / name

    def render() -> None:
        work = Path(tempfile.mkdtemp(prefix=f".{name}.", dir=folder.parent))
        record_game(game, players, seed, work, **options)
        shutil.rmtree(folder, ignore_errors=True)  # a half-written one of an older run
        work.rename(folder)

    made_once(folder.parent / f".{name}.lock", folder / "recording.json", render)
    return folder


def _referee(capsys, game: str, players: int, source: str, answers: Path, data: Path,
             *extra: str) -> tuple[int, list[dict]]:
    code = main(["referee", game, "--players", str(players), "--source", source,
                 "--answers", str(answers), "--data", str(data), "--json", *extra])
    lines = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    return code, lines


def _check_game(lines: list[dict], answers: Path) -> dict:
    """The recorded final result, no wrong step; returns figures."""
    recorded = [json.loads(x) for x in answers.read_text().splitlines()]
    figures = judge(lines, recorded)
    assert figures["ended"], "the game did not end with the recorded result"
    assert not figures["wrong"], figures["wrong"][:2]
    return figures


def test_the_shipped_recording_ends_with_its_recorded_result(capsys, tmp_path):
    code, lines = _referee(capsys, "food-alley/stray", 2,
                           f"video:{FIXTURE / 'recording.mp4'}", FIXTURE / "answers.jsonl",
                           tmp_path)
    assert code == 0
    figures = _check_game(lines, FIXTURE / "answers.jsonl")
    assert not figures["warnings"]
    # face-down cats are read when the column is turned up, not asked
    assert figures["by_camera"] >= 0.9 * figures["changed"], figures


def test_the_referee_reads_with_the_model_it_is_given(capsys, tmp_path, monkeypatch):
    """--model: the reader is built from that folder (here a copy of the bundled model), and
    the game ends as recorded."""
    import shutil

    from companion.vision.classify import default_model_dir
    from companion.vision.reader import BoardReader

    model = tmp_path / "model"
    shutil.copytree(default_model_dir(), model)
    built = []
    original = BoardReader.__init__

    def recorded(self, model_dir=None, *args, **kwargs):  # noqa: ANN001, ANN002, ANN003
        built.append(model_dir)
        original(self, model_dir, *args, **kwargs)

    monkeypatch.setattr(BoardReader, "__init__", recorded)
    code, lines = _referee(capsys, "food-alley/stray", 2,
                           f"video:{FIXTURE / 'recording.mp4'}", FIXTURE / "answers.jsonl",
                           tmp_path / "data", "--model", str(model))
    assert code == 0 and built == [model]
    _check_game(lines, FIXTURE / "answers.jsonl")


@pytest.mark.parametrize("game,players,seed", [("food-alley/sambal", 2, 4)])
def test_a_rendered_game_from_frames(capsys, tmp_path, game, players, seed):
    folder = _rendered(game, players, seed)
    code, lines = _referee(capsys, game, players, f"frames:{folder / 'frames'}",
                           folder / "answers.jsonl", tmp_path)
    assert code == 0
    figures = _check_game(lines, folder / "answers.jsonl")
    assert figures["by_camera"] >= 0.9 * figures["changed"], figures
    assert not figures["warnings"]


def test_a_tampered_recording_warns_and_still_ends_right(capsys, tmp_path):
    folder = _rendered("food-alley/sambal", 2, 4, tamper_at=12)
    code, lines = _referee(capsys, "food-alley/sambal", 2, f"frames:{folder / 'frames'}",
                           folder / "answers.jsonl", tmp_path)
    assert code == 0
    figures = _check_game(lines, folder / "answers.jsonl")
    tampered = json.loads((folder / "recording.json").read_text())["tampered"]
    cells = {"abcde"[c % 5] + str(c // 5 + 1) for c in (tampered["from"], tampered["to"])}
    assert len(figures["warnings"]) == 1
    assert set(figures["warnings"][0]["cells"]) == cells
    assert figures["warnings"][0]["warning"] == "the board matches no legal step"


def test_frames_running_out_keep_the_game_for_resume(capsys, tmp_path):
    frames = tmp_path / "frames"
    frames.mkdir()
    folder = _rendered("food-alley/sambal", 2, 4)
    everything = sorted((folder / "frames").iterdir())
    for f in everything[:60]:
        (frames / f.name).symlink_to(f)
    code, lines = _referee(capsys, "food-alley/sambal", 2, f"frames:{frames}",
                           folder / "answers.jsonl", tmp_path / "data")
    assert code == 1
    assert not any(x.get("final") for x in lines)
    for f in everything[60:]:
        (frames / f.name).symlink_to(f)
    code, lines = _referee(capsys, "food-alley/sambal", 2, f"frames:{frames}",
                           folder / "answers.jsonl", tmp_path / "data", "--resume")
    assert code == 0
    assert [x for x in lines if x.get("final")]


def test_kill_9_at_twenty_random_points_loses_nothing_committed(tmp_path):
    """A referee process killed at random moments, 20 times; after each kill the journal holds
    only steps the game made, and a restart with --resume goes on from the last committed step
    (killed again, or to the end, with the recorded result)."""
    answers = FIXTURE / "answers.jsonl"
    steps, final = load_record(answers)
    rng = random.Random(2026)
    env = {**os.environ, "PYTHONUNBUFFERED": "1"}

    def command(data: Path, resume: bool, pace: str = "6") -> list[str]:
        """The referee on the shipped recording, played at 6 times its speed (a whole game
        takes about 5 s, so that kills land all through it)."""
        return [sys.executable, "-m", "companion.cli", "referee", "food-alley/stray",
                "--players", "2", "--source", f"video:{FIXTURE / 'recording.mp4'}",
                "--answers", str(answers), "--data", str(data), "--json", "--pace", pace,
                *(["--resume"] if resume else [])]

    def held(data: Path) -> tuple[str, list[dict]]:
        journal = Journal(data)
        record_ = journal.games()[0]
        out = (record_.status, journal.steps(record_.id))
        journal.close()
        return out

    def held_any(data: Path) -> bool:
        if not (data / "journal.sqlite").exists():
            return False
        journal = Journal(data)
        games = journal.games()
        journal.close()
        return bool(games)

    def committed(data: Path) -> int:
        """Steps committed so far, read without writing (the referee may be writing)."""
        path = data / "journal.sqlite"
        if not path.exists():
            return -1
        try:
            db = sqlite3.connect(f"file:{path}?mode=ro", uri=True, timeout=1)
            try:
                return db.execute("SELECT COUNT(*) FROM steps").fetchone()[0]
            finally:
                db.close()
        except sqlite3.Error:  # created but not yet set up
            return -1

    def finish(data: Path) -> None:
        status, _ = held(data)
        if status != "over":
            result = subprocess.run(command(data, True, pace="0"), capture_output=True,
                                    text=True, env=env, timeout=120)
            assert result.returncode == 0, result.stderr
        journal = Journal(data)
        record_ = journal.games()[0]
        assert record_.status == "over"
        for key in ("scores", "ranking", "tokens"):
            assert record_.final[key] == final[key]
        journal.close()

    points: list[int] = []
    chain = 0
    data = tmp_path / "chain-0"
    resume = False
    attempts = 0
    while len(points) < 20:
        attempts += 1
        assert attempts <= 80, f"the referee made no progress between kills: {points}"
        before = committed(data)
        proc = subprocess.Popen(command(data, resume), stdout=subprocess.DEVNULL,
                                stderr=subprocess.DEVNULL, env=env)
        if rng.random() < 0.2:  # now and then while it starts up
            time.sleep(rng.uniform(0.05, 1.0))
        else:  # otherwise a random moment once it commits again, however slow its start
            deadline = time.monotonic() + 60
            while committed(data) <= before and proc.poll() is None \
                    and time.monotonic() < deadline:
                time.sleep(0.02)
            time.sleep(rng.uniform(0.0, 0.8))
        proc.send_signal(signal.SIGKILL)
        proc.wait()
        if not held_any(data):
            continue  # killed before the game was created: nothing to check
        status, kept = held(data)
        for s in kept:  # what is committed is what the game did, in order
            assert s["entry"]["action"] == steps[s["n"]]["move"]
        points.append(len(kept))
        resume = True
        if status == "over" or len(points) % 7 == 0:  # start another game now and then
            finish(data)
            chain += 1
            data = tmp_path / f"chain-{chain}"
            resume = False
    if (data / "journal.sqlite").exists() and held_any(data):
        finish(data)
    assert len(set(points)) >= 5, points  # killed at many different points


def test_a_board_far_ahead_of_the_game_is_caught_up_with_questions(capsys, tmp_path):
    """The camera misses a whole column (placed, turned up, taken back): the cats' values can
    no longer be read, so they are asked, and the game goes on to its recorded end."""
    import cv2

    first, later = tmp_path / "first", tmp_path / "later"
    first.mkdir()
    later.mkdir()
    capture = cv2.VideoCapture(str(FIXTURE / "recording.mp4"))
    index = 0
    while True:
        ok, image = capture.read()
        if not ok:
            break
        if index < 70:
            cv2.imwrite(str(first / f"f{index:04d}.jpg"), image)
        elif index >= 77:  # frames 70-76, the column played out, are never seen
            cv2.imwrite(str(later / f"f{index:04d}.jpg"), image)
        index += 1
    answers = FIXTURE / "answers.jsonl"
    code, _ = _referee(capsys, "food-alley/stray", 2, f"frames:{first}", answers,
                       tmp_path / "data")
    assert code == 1
    code, lines = _referee(capsys, "food-alley/stray", 2, f"frames:{later}", answers,
                           tmp_path / "data", "--resume")
    assert code == 0
    assert any(x.get("final") for x in lines)
