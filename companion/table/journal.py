"""The journal: every game, player and step, in SQLite, so that nothing committed is ever lost.

WAL mode and one transaction per step: after ``kill -9`` at any moment a restart finds every
step that was committed, and replays the game to it. Sealed choices that are not revealed yet
(a coin chosen behind a screen) are kept too, apart from the steps. The frames that decided a
disputed or corrected step are kept as JPEG, the oldest dropped past a total size.

A database that is corrupt, or that is not this project's, is refused with a message and never
written to. The schema carries a version; :data:`MIGRATIONS` takes an older one forward.
"""

from __future__ import annotations

import json
import os
import sqlite3
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

APP_ID = 0x46414331  # "FAC1": PRAGMA application_id of a Food Alley Companion journal
SCHEMA_VERSION = 1
FRAME_BUDGET_BYTES = 64 * 1024 * 1024  # frames kept for disputed steps, all games together


class JournalError(RuntimeError):
    """The journal cannot be used: corrupt, someone else's, or newer than this program."""


def default_data_dir() -> Path:
    """``$XDG_DATA_HOME/food-alley-companion`` (``~/.local/share/...`` by default)."""
    base = os.environ.get("XDG_DATA_HOME") or str(Path.home() / ".local" / "share")
    return Path(base) / "food-alley-companion"


_SCHEMA_1 = """
CREATE TABLE games (
    id INTEGER PRIMARY KEY,
    game TEXT NOT NULL,
    players INTEGER NOT NULL,
    seed INTEGER NOT NULL,
    options TEXT NOT NULL,
    started REAL NOT NULL,
    ended REAL,
    status TEXT NOT NULL DEFAULT 'playing',
    final TEXT,
    source TEXT
);
CREATE TABLE seats (
    game_id INTEGER NOT NULL REFERENCES games(id),
    seat INTEGER NOT NULL,
    name TEXT NOT NULL,
    colour TEXT NOT NULL,
    PRIMARY KEY (game_id, seat)
);
CREATE TABLE steps (
    game_id INTEGER NOT NULL REFERENCES games(id),
    n INTEGER NOT NULL,
    time REAL NOT NULL,
    entry TEXT NOT NULL,
    decided_by TEXT NOT NULL,
    asked TEXT NOT NULL,
    frame_t REAL,
    PRIMARY KEY (game_id, n)
);
CREATE TABLE sealed (
    game_id INTEGER NOT NULL REFERENCES games(id),
    n INTEGER NOT NULL,
    seat INTEGER NOT NULL,
    action TEXT NOT NULL,
    PRIMARY KEY (game_id, n, seat)
);
CREATE TABLE corrections (
    id INTEGER PRIMARY KEY,
    game_id INTEGER NOT NULL REFERENCES games(id),
    n INTEGER NOT NULL,
    time REAL NOT NULL,
    seat TEXT NOT NULL,
    old TEXT NOT NULL,
    new TEXT NOT NULL,
    dropped TEXT NOT NULL
);
CREATE TABLE frames (
    id INTEGER PRIMARY KEY,
    game_id INTEGER NOT NULL REFERENCES games(id),
    n INTEGER NOT NULL,
    time REAL NOT NULL,
    why TEXT NOT NULL,
    jpeg BLOB NOT NULL
);
"""

# version -> the SQL that takes a journal from version - 1 to it
MIGRATIONS: dict[int, str] = {1: _SCHEMA_1}


@dataclass
class GameRecord:
    id: int
    game: str
    players: int
    seed: int
    options: dict[str, Any]
    names: list[str]
    colours: list[str]
    status: str
    started: float
    ended: float | None
    final: dict[str, Any] | None
    source: str | None = None  # the frame source it was refereed from


class Journal:
    """One SQLite file in the data directory."""

    def __init__(self, data_dir: Path) -> None:
        self.path = Path(data_dir) / "journal.sqlite"
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise JournalError(f"cannot create the data directory {self.path.parent}: {exc}; "
                               "choose another with --data") from exc
        fresh = not self.path.exists() or self.path.stat().st_size == 0
        try:
            # one connection shared by the kiosk's screen and the referee's thread: every
            # statement and every transaction holds the lock (see _LockedDb)
            self.db = _LockedDb(sqlite3.connect(str(self.path), isolation_level=None,
                                                timeout=10, check_same_thread=False))
            self._check(fresh)
        except sqlite3.DatabaseError as exc:
            raise JournalError(f"{self.path} is not a readable journal ({exc}): it is left "
                               "as it is; move it away or choose another --data") from exc

    def _check(self, fresh: bool) -> None:
        db = self.db
        app = db.execute("PRAGMA application_id").fetchone()[0]
        version = db.execute("PRAGMA user_version").fetchone()[0]
        if not fresh and app != APP_ID:
            tables = db.execute("SELECT count(*) FROM sqlite_master").fetchone()[0]
            if tables or app:
                raise JournalError(f"{self.path} is a database of another program, not a "
                                   "Food Alley Companion journal: it is left as it is; choose "
                                   "another --data")
        if version > SCHEMA_VERSION:
            raise JournalError(f"{self.path} was written by a newer version (schema {version}, "
                               f"this one knows {SCHEMA_VERSION}): update the program")
        integrity = db.execute("PRAGMA quick_check").fetchone()[0]
        if integrity != "ok":
            raise JournalError(f"{self.path} is damaged ({integrity}): it is left as it is; "
                               "move it away or choose another --data")
        db.execute("PRAGMA journal_mode=WAL")
        db.execute("PRAGMA synchronous=FULL")
        db.execute("PRAGMA foreign_keys=ON")
        for target in range(version + 1, SCHEMA_VERSION + 1):
            with self._tx():
                for statement in MIGRATIONS[target].split(";"):
                    if statement.strip():
                        db.execute(statement)
                db.execute(f"PRAGMA application_id={APP_ID}")
                db.execute(f"PRAGMA user_version={target}")

    def _tx(self) -> _Transaction:
        return _Transaction(self.db)

    def close(self) -> None:
        self.db.close()

    # --- games ------------------------------------------------------------------------------
    def new_game(self, game: str, players: int, seed: int, options: dict[str, Any],
                 names: list[str], colours: list[str], source: str | None = None) -> int:
        with self._tx():
            cur = self.db.execute(
                "INSERT INTO games (game, players, seed, options, started, source) "
                "VALUES (?,?,?,?,?,?)",
                (game, players, seed, json.dumps(options), time.time(), source))
            gid = int(cur.lastrowid or 0)
            for seat, (name, colour) in enumerate(zip(names, colours, strict=True)):
                self.db.execute("INSERT INTO seats VALUES (?,?,?,?)", (gid, seat, name, colour))
        return gid

    def game(self, gid: int) -> GameRecord:
        row = self.db.execute(
            "SELECT id, game, players, seed, options, status, started, ended, final, source "
            "FROM games WHERE id=?", (gid,)).fetchone()
        if row is None:
            raise JournalError(f"no game {gid} in {self.path}")
        seats = self.db.execute("SELECT name, colour FROM seats WHERE game_id=? ORDER BY seat",
                                (gid,)).fetchall()
        return GameRecord(row[0], row[1], row[2], row[3], json.loads(row[4]),
                          [s[0] for s in seats], [s[1] for s in seats], row[5], row[6], row[7],
                          json.loads(row[8]) if row[8] else None, row[9])

    def games(self, status: str | None = None) -> list[GameRecord]:
        query = "SELECT id FROM games" + (" WHERE status=?" if status else "") + " ORDER BY id"
        rows = self.db.execute(query, (status,) if status else ()).fetchall()
        return [self.game(r[0]) for r in rows]

    def unfinished(self, game: str | None = None) -> GameRecord | None:
        """The latest game still being played (of that game, if given)."""
        for record in reversed(self.games("playing")):
            if game is None or record.game == game:
                return record
        return None

    def abandon(self, gid: int) -> None:
        """Set an unfinished game aside (a new one was started instead); it stays kept."""
        with self._tx():
            self.db.execute("UPDATE games SET status='abandoned' WHERE id=? AND "
                            "status='playing'", (gid,))

    def finish(self, gid: int, final: dict[str, Any]) -> None:
        with self._tx():
            self.db.execute("UPDATE games SET status='over', ended=?, final=? WHERE id=?",
                            (time.time(), json.dumps(final), gid))

    # --- steps ------------------------------------------------------------------------------
    def add_step(self, gid: int, n: int, entry: dict[str, Any], decided_by: str,
                 asked: list[str], frame: bytes | None = None, why: str = "",
                 frame_t: float | None = None) -> None:
        """One step, in one transaction (with the frame that decided it, if kept, and the
        source's time of the reading it was decided on)."""
        with self._tx():
            self.db.execute("INSERT INTO steps VALUES (?,?,?,?,?,?,?)",
                            (gid, n, time.time(), json.dumps(entry), decided_by,
                             json.dumps(asked), frame_t))
            self.db.execute("DELETE FROM sealed WHERE game_id=? AND n<=?", (gid, n))
            if frame is not None:
                self._keep_frame(gid, n, why or decided_by, frame)

    def steps(self, gid: int) -> list[dict[str, Any]]:
        rows = self.db.execute(
            "SELECT n, entry, decided_by, asked, time, frame_t FROM steps WHERE game_id=? "
            "ORDER BY n", (gid,)).fetchall()
        out = []
        for expected, (n, entry, decided_by, asked, t, frame_t) in enumerate(rows):
            if n != expected:
                raise JournalError(f"{self.path}: game {gid} misses step {expected}")
            out.append({"n": n, "entry": json.loads(entry), "decided_by": decided_by,
                        "asked": json.loads(asked), "time": t, "frame_t": frame_t})
        return out

    def seal(self, gid: int, n: int, seat: int, action: dict[str, Any]) -> None:
        with self._tx():
            self.db.execute("INSERT OR REPLACE INTO sealed VALUES (?,?,?,?)",
                            (gid, n, seat, json.dumps(action)))

    def sealed(self, gid: int, n: int) -> dict[int, dict[str, Any]]:
        rows = self.db.execute("SELECT seat, action FROM sealed WHERE game_id=? AND n=?",
                               (gid, n)).fetchall()
        return {int(s): json.loads(a) for s, a in rows}

    def correct(self, gid: int, n: int, seat: str, old: dict[str, Any],
                new_entries: list[dict[str, Any]], dropped: list[dict[str, Any]],
                decided: list[tuple[str, list[str]]], frame: bytes | None = None) -> None:
        """Replace steps n.. with ``new_entries`` (the corrected one, then those that still
        hold), remembering what was corrected, from which seat, and what no longer holds."""
        with self._tx():
            self.db.execute("DELETE FROM steps WHERE game_id=? AND n>=?", (gid, n))
            now = time.time()
            for k, (entry, (by, asked)) in enumerate(zip(new_entries, decided, strict=True)):
                self.db.execute("INSERT INTO steps VALUES (?,?,?,?,?,?,?)",
                                (gid, n + k, now, json.dumps(entry), by, json.dumps(asked),
                                 None))
            self.db.execute(
                "INSERT INTO corrections (game_id, n, time, seat, old, new, dropped) "
                "VALUES (?,?,?,?,?,?,?)",
                (gid, n, now, seat, json.dumps(old), json.dumps(new_entries[0]),
                 json.dumps(dropped)))
            if frame is not None:
                self._keep_frame(gid, n, "correction", frame)

    def undo(self, gid: int, n: int, seat: str, old: dict[str, Any]) -> None:
        """Take back step n (the last one), remembering it as a correction from that seat."""
        with self._tx():
            self.db.execute("DELETE FROM steps WHERE game_id=? AND n>=?", (gid, n))
            self.db.execute(
                "INSERT INTO corrections (game_id, n, time, seat, old, new, dropped) "
                "VALUES (?,?,?,?,?,?,?)",
                (gid, n, time.time(), seat, json.dumps(old), json.dumps({"type": "undone"}),
                 "[]"))

    def corrections(self, gid: int) -> list[dict[str, Any]]:
        rows = self.db.execute("SELECT n, time, seat, old, new, dropped FROM corrections "
                               "WHERE game_id=? ORDER BY id", (gid,)).fetchall()
        return [{"n": r[0], "time": r[1], "seat": r[2], "old": json.loads(r[3]),
                 "new": json.loads(r[4]), "dropped": json.loads(r[5])} for r in rows]

    # --- frames -----------------------------------------------------------------------------
    def _keep_frame(self, gid: int, n: int, why: str, jpeg: bytes) -> None:
        self.db.execute("INSERT INTO frames (game_id, n, time, why, jpeg) VALUES (?,?,?,?,?)",
                        (gid, n, time.time(), why, jpeg))
        total = self.db.execute("SELECT coalesce(sum(length(jpeg)), 0) FROM frames").fetchone()[0]
        while total > FRAME_BUDGET_BYTES:
            oldest = self.db.execute("SELECT id, length(jpeg) FROM frames ORDER BY id "
                                     "LIMIT 1").fetchone()
            self.db.execute("DELETE FROM frames WHERE id=?", (oldest[0],))
            total -= oldest[1]

    def frames(self, gid: int) -> list[dict[str, Any]]:
        rows = self.db.execute("SELECT n, why, jpeg FROM frames WHERE game_id=? ORDER BY id",
                               (gid,)).fetchall()
        return [{"n": r[0], "why": r[1], "jpeg": bytes(r[2])} for r in rows]


class _Result:
    """A statement's rows, read while the lock was held."""

    def __init__(self, rows: list[Any], lastrowid: int | None) -> None:
        self.rows = rows
        self.lastrowid = lastrowid

    def fetchone(self) -> Any:
        return self.rows[0] if self.rows else None

    def fetchall(self) -> list[Any]:
        return self.rows


class _LockedDb:
    """A connection used from more than one thread, one statement or transaction at a time."""

    def __init__(self, db: sqlite3.Connection) -> None:
        self._db = db
        self.lock = threading.RLock()

    def execute(self, sql: str, params: Any = ()) -> _Result:
        with self.lock:
            cur = self._db.execute(sql, params)
            return _Result(cur.fetchall(), cur.lastrowid)

    def close(self) -> None:
        with self.lock:
            self._db.close()


class _Transaction:
    def __init__(self, db: _LockedDb) -> None:
        self.db = db

    def __enter__(self) -> None:
        self.db.lock.acquire()
        try:
            self.db.execute("BEGIN IMMEDIATE")
        except BaseException:
            self.db.lock.release()
            raise

    def __exit__(self, kind: Any, value: Any, tb: Any) -> None:
        try:
            self.db.execute("COMMIT" if kind is None else "ROLLBACK")
        finally:
            self.db.lock.release()

