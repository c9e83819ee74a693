"""Finished games from the journal: per-player figures, and exports (JSON, CSV, BG Stats)."""

from __future__ import annotations

import csv
import io
import json
import time
from dataclasses import dataclass
from typing import Any

from companion.table.journal import GameRecord, Journal

GAME_NAMES = {"food-alley/shopper": "Food Alley (Shopper)",
              "food-alley/sambal": "Food Alley (Sambal)", "food-alley/stray": "Food Alley (Stray)"}


@dataclass(frozen=True)
class PlayerFigures:
    name: str
    games: int
    wins: int
    average: float


@dataclass(frozen=True)
class Play:
    """One finished game, as the exports write it."""

    id: int
    game: str
    started: float
    ended: float
    names: list[str]
    colours: list[str]
    scores: dict[str, int]  # by name
    winners: list[str]  # names
    start_player: str | None
    end: str | None


def finished(journal: Journal, game: str | None = None) -> list[Play]:
    """Every game played to its end (of one game, if given), oldest first."""
    out = []
    for record in journal.games("over"):
        if game is not None and record.game != game or not record.final:
            continue
        out.append(_play(journal, record))
    return out


def _play(journal: Journal, record: GameRecord) -> Play:
    final = record.final or {}
    by_colour = dict(zip(record.colours, record.names, strict=True))
    scores = {by_colour.get(c, c): int(s["total"]) for c, s in final.get("scores", {}).items()}
    winners = [by_colour.get(c, c) for c in final.get("winners", [])]
    start = None
    for step in journal.steps(record.id):
        actor = step["entry"].get("actor")
        if isinstance(actor, int):
            start = record.names[actor]
            break
    return Play(record.id, record.game, record.started, record.ended or record.started,
                record.names, record.colours, scores, winners, start, final.get("end"))


def figures(plays: list[Play]) -> list[PlayerFigures]:
    """Per player name: games, wins, average score; most games first."""
    table: dict[str, list[int]] = {}
    wins: dict[str, int] = {}
    for play in plays:
        for name, score in play.scores.items():
            table.setdefault(name, []).append(score)
            wins[name] = wins.get(name, 0) + (name in play.winners)
    rows = [PlayerFigures(n, len(s), wins[n], sum(s) / len(s)) for n, s in table.items()]
    return sorted(rows, key=lambda r: (-r.games, -r.wins, r.name))


def to_json(plays: list[Play]) -> str:
    return json.dumps([{
        "id": p.id, "game": p.game, "started": _iso(p.started), "ended": _iso(p.ended),
        "players": [{"name": n, "colour": c, "score": p.scores.get(n),
                     "winner": n in p.winners} for n, c in zip(p.names, p.colours, strict=True)],
        "start_player": p.start_player, "end": p.end} for p in plays], indent=1) + "\n"


def to_csv(plays: list[Play]) -> str:
    """One row per player per game."""
    buffer = io.StringIO()
    writer = csv.writer(buffer)
    writer.writerow(["game_id", "game", "started", "ended", "player", "colour", "score",
                     "winner", "start_player"])
    for p in plays:
        for n, c in zip(p.names, p.colours, strict=True):
            writer.writerow([p.id, p.game, _iso(p.started), _iso(p.ended), n, c,
                             p.scores.get(n, ""), int(n in p.winners),
                             int(n == p.start_player)])
    return buffer.getvalue()


def to_bgstats(plays: list[Play]) -> str:
    """Plays in the fields BG Stats imports: playDate, durationMin, game{name, highestWins},
    players[{name, score, winner, startPlayer}]."""
    out: list[dict[str, Any]] = []
    for p in plays:
        out.append({
            "playDate": time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(p.started)),
            "durationMin": max(1, round((p.ended - p.started) / 60)),
            "game": {"name": GAME_NAMES.get(p.game, p.game), "highestWins": True},
            "players": [{"name": n, "score": p.scores.get(n), "winner": n in p.winners,
                         "startPlayer": n == p.start_player} for n in p.names],
        })
    return json.dumps({"plays": out}, indent=1) + "\n"


def recent_names(journal: Journal, limit: int = 12) -> list[str]:
    """Names seated lately, most recent first, each once."""
    out: list[str] = []
    for record in reversed(journal.games()):
        for name in record.names:
            if name not in out:
                out.append(name)
    return out[:limit]


def _iso(t: float) -> str:
    return time.strftime("%Y-%m-%dT%H:%M:%S", time.localtime(t))
