"""The table screen's lines for a game the camera does not follow: from the public view only,
each player by the name entered at the start."""

from __future__ import annotations

import pytest

from companion.rules import find_game
from companion.rules.simulate import steps
from companion.ui.presenters import TablePresenter
from companion.ui.status import status_lines

GAMES = [("alley-cats", 4), ("critter-kitchen", 5), ("food-trucks", 3), ("burger-joint", 2)]


def mid_game(game: str, players: int, seed: int, at: int):
    state = find_game(game).new(players, seed)
    for i, _ in enumerate(steps(state, seed)):
        if i == at:
            break
    return state


@pytest.mark.parametrize("game,players", GAMES)
def test_every_player_is_shown_by_the_name_entered(game, players):
    state = mid_game(game, players, 3, 80)
    names = {state.player_name(i): f"Guest{i}" for i in range(players)}
    lines = status_lines(state.view(None), names)
    assert len(lines) > players
    text = "\n".join(lines)
    assert all(f"Guest{i}" in text for i in range(players))
    assert status_lines(state.view(None), {}) != lines  # without names: the engine's own


def test_a_hidden_dog_is_in_no_line_until_a_cat_finds_it():
    state = mid_game("alley-cats", 4, 5, 30)
    assert not state.dog_found  # no dustbin opened yet, every dog hidden
    lines = status_lines(state.view(None), {})
    assert not any("dogs found" in line for line in lines)
    assert all(line.endswith("dog hidden") for line in lines[:4])
    bins = set(state.bin_at)  # squares holding a dustbin: none is named in a line
    assert not any(square in line for line in lines[4:] for square in bins)


def test_a_game_the_camera_follows_has_no_lines():
    assert status_lines(None, {}) == []
    assert status_lines({"game": "food-alley/sambal"}, {}) == []


def test_the_presenter_takes_the_lines_from_the_sync():
    state = mid_game("burger-joint", 2, 1, 10)
    presenter = TablePresenter("burger-joint", ["Ann", "Bo"], ["Burger", "Pizza"], manual=True)
    presenter.on_event("sync", {"waiting": "", "history": [], "board": None, "expected": [],
                                "n": 10, "questions": [], "table": state.view(None),
                                "seats": {"Burger": "Ann", "Pizza": "Bo"}})
    assert presenter.view.status[1].startswith("Ann: ")
    assert presenter.view.status[2].startswith("Bo: ")


@pytest.mark.parametrize("game,players", GAMES)
def test_every_position_of_a_whole_game_has_its_lines(game, players):
    """An empty slot, an empty hand, a player without a building: no position breaks them."""
    state = find_game(game).new(players, 11)
    for _ in steps(state, 11):
        assert status_lines(state.view(None), {})
    assert state.is_terminal()


def test_counts_of_one_are_said_in_the_singular():
    state = mid_game("burger-joint", 2, 3, 120)
    view = state.view(None)
    view["players"][0]["basic_restaurants"] = 1
    assert "; 1 restaurant, diners" in status_lines(view, {})[1]
