"""Games saved before the actions were declared from their fields still read back: the same
JSON for every action, so the same states (fixture written by the earlier code)."""

from __future__ import annotations

import gzip
import json
from pathlib import Path

import pytest

from companion.rules import find_game

SAVED = Path(__file__).parents[1] / "fixtures" / "logs" / "saved-before-action-vocabulary.json.gz"


def _saved() -> dict[str, dict]:
    with gzip.open(SAVED, "rt", encoding="utf-8") as f:
        return json.load(f)


@pytest.mark.parametrize("name", sorted(_saved()))
def test_a_game_saved_before_reads_back_and_replays_to_the_same_state(name):
    saved = _saved()[name]
    cls = find_game(saved["game"])
    state = cls.from_json(saved)
    assert state.to_json() == saved
    replayed = cls.replay(state.header(), saved["log"], saved["origin"])
    replayed.sealed = state.sealed
    assert replayed.to_json() == saved
    for entry in saved["log"]:  # every action reads back to the same JSON
        assert cls.codec.decode(entry["action"]).to_json() == entry["action"]
