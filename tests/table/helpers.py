"""Recorded games and perfect readings for the referee's tests."""

from __future__ import annotations

import fcntl
import os
import random
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from companion.table.answers import ScriptedTable
from companion.table.board import board_keys
from companion.table.cli import answer_scripted as answer_open
from companion.table.recording import played
from companion.table.session import Event, RefereeSession


def made_once(lock: Path, done: Path, make: Callable[[], None]) -> None:
    """``make()`` unless ``done`` is there, under an exclusive lock on the file ``lock``: of
    the test processes that want it at once (pytest-xdist's), the first makes it and the rest
    wait for it. ``make`` puts ``done`` in place whole (written aside, then renamed), so that
    one stopped halfway leaves nothing that looks done."""
    if done.exists():
        return
    lock.parent.mkdir(parents=True, exist_ok=True)
    with open(lock, "w") as held:
        fcntl.flock(held, fcntl.LOCK_EX)
        if not done.exists():
            make()


def shared_folder(tmp_path_factory: pytest.TempPathFactory, name: str) -> Path:
    """A folder that every process of this test run shares: pytest-xdist's workers each have
    a temporary folder of their own, all in one folder of the run's. Without xdist, this
    process's own."""
    run = os.environ.get("PYTEST_XDIST_TESTRUNUID")
    base = tmp_path_factory.getbasetemp()
    # short: the kiosk runs' notify socket lies in it, and a Unix socket's path may not be long
    folder = base.parent / f"{name}-{run[:8]}" if run else base / name
    folder.mkdir(parents=True, exist_ok=True)
    return folder


def record(game: str, players: int, seed: int) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    """A seeded random game as `companion play ... --auto --json` prints it."""
    _, steps, final = played(game, players, seed)
    return steps, final


def referee_perfect(game: str, players: int, seed: int, *, together: int = 2,
                    tamper: int | None = None) -> tuple[RefereeSession, list[Event], list[dict],
                                                         dict]:
    """Referee a recorded game from perfect readings of its boards; up to ``together`` steps
    are shown at once (players who do not wait). ``tamper``: after that many readings, show the
    board with a token moved illegally, then put it back."""
    steps, final = record(game, players, seed)
    session = RefereeSession.start(game, players, seed=seed)
    table = ScriptedTable(steps)
    seated = [session.state.player_name(p) for p in range(players)]
    events: list[Event] = []
    session.subscribe(events.append)
    session.begin()
    answer_open(session, table)
    rng = random.Random(seed)
    last = None
    i = shown = 0
    last_shown = None
    while i < len(steps) and not session.state.is_terminal():
        i = min(len(steps), i + rng.randint(1, together))
        keys = board_keys(steps[i - 1]["board"], seated)
        if keys == last:
            continue
        last = keys
        shown += 1
        if tamper is not None and shown == tamper and last_shown is not None:
            moved = list(last_shown)  # while the table waits: a token moved, then put back
            full = [k for k in range(25) if moved[k] and moved[k] != "empty"]
            a, b = full[0], full[-1]
            moved[a], moved[b] = moved[b], moved[a]
            session.observe(moved)
            answer_open(session, table)
            session.observe(last_shown)
            answer_open(session, table)
        last_shown = keys
        session.observe(keys)
        answer_open(session, table)
    return session, events, steps, final


def camera_share(events: list[Event]) -> tuple[int, int]:
    """(steps that changed the board decided by the camera alone, steps that changed it)."""
    changed = by_camera = 0
    before = None
    for e in events:
        if e.kind != "step":
            continue
        board = e.data["board"]
        if before is not None and board != before:
            changed += 1
            by_camera += e.data["decided_by"] == "camera"
        before = board
    return by_camera, changed
