"""Finished games from the journal: per-player figures and the exports."""

from __future__ import annotations

import csv
import io
import json

from companion.rules.simulate import random_playout
from companion.table import history
from companion.table.journal import Journal
from companion.table.session import RefereeSession


def finished_game(journal: Journal, names: list[str], seed: int) -> dict:
    session = RefereeSession.start("food-alley/stray", len(names), names=names, seed=seed,
                                   journal=journal, source="manual")
    state = session.state
    random_playout(state, seed)
    for n, entry in enumerate(state.log):
        journal.add_step(session.game_id, n, entry, "entry", [])
    session._finish()
    return journal.game(session.game_id).final


def test_figures_count_games_wins_and_average_per_name(tmp_path):
    journal = Journal(tmp_path)
    finals = [finished_game(journal, ["Ann", "Bo"], 1), finished_game(journal, ["Bo", "Cy"], 2)]
    plays = history.finished(journal)
    assert len(plays) == 2
    rows = {r.name: r for r in history.figures(plays)}
    assert rows["Bo"].games == 2 and rows["Ann"].games == 1 and rows["Cy"].games == 1
    assert sum(r.wins for r in rows.values()) >= 2
    first = finals[0]["scores"]
    assert rows["Ann"].average == first["black"]["total"]
    assert history.recent_names(journal) == ["Bo", "Cy", "Ann"]


def test_exports_hold_every_player_of_every_game(tmp_path):
    journal = Journal(tmp_path)
    finished_game(journal, ["Ann", "Bo"], 3)
    plays = history.finished(journal)
    as_json = json.loads(history.to_json(plays))
    assert [p["name"] for p in as_json[0]["players"]] == ["Ann", "Bo"]
    rows = list(csv.DictReader(io.StringIO(history.to_csv(plays))))
    assert [r["player"] for r in rows] == ["Ann", "Bo"]
    assert sum(int(r["winner"]) for r in rows) >= 1
    assert sum(int(r["start_player"]) for r in rows) == 1


def test_the_bg_stats_play_file_has_the_fields_it_imports(tmp_path):
    journal = Journal(tmp_path)
    finished_game(journal, ["Ann", "Bo", "Cy"], 4)
    play = json.loads(history.to_bgstats(history.finished(journal)))["plays"][0]
    assert set(play) == {"playDate", "durationMin", "game", "players"}
    assert play["game"] == {"name": "Food Alley (Stray)", "highestWins": True}
    assert play["durationMin"] >= 1
    assert [set(p) for p in play["players"]] == [{"name", "score", "winner", "startPlayer"}] * 3
    assert sum(p["startPlayer"] for p in play["players"]) == 1
