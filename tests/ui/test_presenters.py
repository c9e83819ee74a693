"""The kiosk's presenters, without Kivy: what each screen shows, and which screen is up."""

from __future__ import annotations

import pytest

from companion.ui.presenters import (
    PRIVATE_IDLE_S,
    FinalPresenter,
    StartPresenter,
    TablePresenter,
    option_pictures,
)

GAMES = ["food-alley/sambal", "food-alley/shopper", "food-alley/stray"]


class FakeClock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def sync(**over):
    data = {"n": 5, "waiting": "black: move your shopper", "questions": [], "warning": None,
            "board": None, "expected": [None] * 25, "history": ["a", "b"], "scores": {},
            "manual": [], "over": False}
    data.update(over)
    return data


def private_q(qid: int, player: str = "black") -> dict:
    return {"id": qid, "kind": "private", "player": player, "n": 5, "optional": False,
            "prompt": f"Pass the screen to {player}: {player} enters a hidden choice"}


# --- start ------------------------------------------------------------------------------------
def test_start_seats_players_in_the_range_of_the_game_with_different_colours():
    p = StartPresenter(GAMES, players=3)
    assert len(p.seats) == 3 and len({s.colour for s in p.seats}) == 3
    p.set_players(9)
    assert len(p.seats) == 4
    p.set_players(1)
    assert len(p.seats) == 2
    assert p.player_range == (2, 4)


def test_start_offers_recent_names_first_and_refuses_a_name_already_seated():
    p = StartPresenter(GAMES, recent_names=["Ann", "Bo"])
    assert p.name_choices(0)[:2] == ["Ann", "Bo"]
    assert p.set_name(0, "Ann") is None
    assert "Ann" not in p.name_choices(1)
    assert "already sits" in p.set_name(1, "Ann")
    assert p.set_name(1, "   ") == "a name cannot be empty"
    assert "at most 16" in p.set_name(1, "x" * 17)


def test_start_colour_taps_skip_colours_other_seats_hold():
    p = StartPresenter(GAMES, players=2)
    first, second = p.seats[0].colour, p.seats[1].colour
    p.next_colour(0)
    assert p.seats[0].colour not in (first, second)
    setup = p.setup()
    assert setup["players"] == 2 and len(set(setup["colours"])) == 2


# --- the table ----------------------------------------------------------------------------------
def test_the_screen_follows_the_events():
    t = TablePresenter("food-alley/sambal", ["Ann", "Bo"], ["black", "white"], manual=False)
    t.on_event("sync", sync())
    assert t.screen == "table"
    t.on_event("warning", {"text": "the board matches no legal step", "cells": ["a1"],
                           "differences": ["a1 shows egg-2"], "allowed": "x"})
    assert t.screen == "mismatch"
    question = {"id": 3, "kind": "enter", "player": "Ann", "n": 5, "optional": False,
                "prompt": "Ann: which coin?", "options": []}
    t.on_event("sync", sync(questions=[question], warning=t.warning))
    assert t.screen == "question"
    t.on_event("sync", sync(questions=[private_q(4)]))
    assert t.screen == "private"
    t.on_event("step", {"player": "all", "text": "reveal: black 3, white 2"})
    assert t.screen == "reveal"
    t.dismiss_reveal()
    t.on_event("sync", sync())
    t.on_event("game_over", {"final": True, "ranking": [["black"]], "scores": {}})
    assert t.screen == "final"


def test_an_optional_question_stays_on_the_table_screen():
    t = TablePresenter("food-alley/sambal", ["Ann", "Bo"], ["black", "white"], manual=False)
    optional = {"id": 7, "kind": "enter", "player": "Ann", "n": 5, "optional": True,
                "prompt": "Ann: cook, or end your turn?", "options": [{"index": 0}]}
    t.on_event("sync", sync(questions=[optional]))
    assert t.screen == "table" and t.optional_question["id"] == 7


def test_a_private_entry_is_covered_until_opened_and_forgets_its_options():
    clock = FakeClock()
    t = TablePresenter("food-alley/sambal", ["Ann", "Bo"], ["black", "white"], manual=False,
                       clock=clock)
    t.on_event("sync", sync(questions=[private_q(4)]))
    assert not t.private.is_open and t.private.options is None
    t.on_event("private", {"question": 4, "options": [{"index": 0, "text": "bid egg-4"}]})
    assert t.private.options is None  # options for a covered entry are not taken
    assert t.open_private() == 4
    t.on_event("private", {"question": 4, "options": [{"index": 0, "text": "bid egg-4"},
                                                       {"index": 1, "text": "bid rice-1"}]})
    assert t.choose_private(1) == (4, 1)
    assert not t.private.is_open and t.private.options is None
    with pytest.raises(ValueError):
        t.choose_private(0)


def test_an_open_private_entry_covers_itself_after_30_idle_seconds():
    clock = FakeClock()
    t = TablePresenter("food-alley/sambal", ["Ann", "Bo"], ["black", "white"], manual=False,
                       clock=clock)
    t.on_event("sync", sync(questions=[private_q(4)]))
    t.open_private()
    t.on_event("private", {"question": 4, "options": [{"index": 0, "text": "bid egg-4"}]})
    clock.now += PRIVATE_IDLE_S - 1
    t.touch()
    clock.now += PRIVATE_IDLE_S - 1
    assert not t.tick() and t.private.is_open
    clock.now += 2
    assert t.tick()
    assert not t.private.is_open and t.private.options is None


def test_the_next_players_private_question_starts_covered():
    t = TablePresenter("food-alley/sambal", ["Ann", "Bo"], ["black", "white"], manual=False)
    t.on_event("sync", sync(questions=[private_q(4), private_q(5, "white")]))
    t.open_private()
    t.on_event("sync", sync(questions=[private_q(5, "white")]))
    assert t.private.question == 5 and not t.private.is_open


def test_cell_marks_compare_the_reading_with_what_the_rules_expect():
    t = TablePresenter("food-alley/shopper", ["Ann", "Bo"], ["black", "white"], manual=False)
    expected = ["ingredient:egg-2"] * 25
    t.on_event("sync", sync(expected=expected))
    cells = [{"x": 0, "y": 0, "key": "ingredient:egg-2", "confidence": 1.0}] * 25
    cells = list(cells)
    cells[1] = {"x": 0, "y": 0, "key": "ingredient:rice-3", "confidence": 0.99}
    cells[2] = {"x": 0, "y": 0, "key": None, "confidence": 0.4}
    t.on_event("frame", {"image": None, "cells": cells, "t": 1.0, "state": "live"})
    marks = t.cell_marks()
    assert marks[0] == "ok" and marks[1] == "differs" and marks[2] == "unknown"
    assert t.differing_cells() == ["b1"]


def test_a_refused_tap_is_named_on_screen():
    t = TablePresenter("food-alley/stray", ["Ann", "Bo"], ["black", "white"], manual=True)
    t.on_event("reply", {"name": "undo", "ok": False, "error": "cannot undo: a hidden thing "
                         "was revealed since the last move"})
    assert t.notice.startswith("cannot undo")


# --- pictures and the end -------------------------------------------------------------------
def test_option_pictures_name_the_tokens_of_an_option():
    assert option_pictures({"type": "bid", "token": "egg-4"}) == ["token-egg-4-coin"]
    assert option_pictures({"type": "draw", "token": "rice-1"}) == ["token-rice-1-ingredient"]
    assert option_pictures({"type": "shop", "take": ["egg-2", "tofu-3"], "trait": "price"}) \
        == ["token-egg-2-ingredient", "token-tofu-3-ingredient"]
    assert option_pictures({"type": "end"}) == []


def test_final_ranks_ties_together_and_names_the_tie_breaker():
    summary = {"final": True, "ranking": [["black", "white"], ["orange"]],
               "winners": ["black", "white"], "end": "both sets are played",
               "end_rule": "rulebook", "tiebreak": None,
               "scores": {c: {"total": t, "breakdown": {"smileys": t, "unused_tokens": -1}}
                          for c, t in (("black", 9), ("white", 9), ("orange", 4))}}
    final = FinalPresenter(summary, {"black": "Ann", "white": "Bo", "orange": "Cy"})
    assert [(r.place, r.name, r.winner) for r in final.rows] == [
        (1, "Ann", True), (1, "Bo", True), (2, "Cy", False)]
    assert final.headline == "shared win: Ann and Bo"
    assert final.end_text == "ended: both sets are played"
    assert final.bar_scale() == 9
    summary["end_rule"] = "referee"
    assert FinalPresenter(summary).end_text.startswith("ended by the referee's rule")


def test_the_tie_breaker_sentence_calls_players_by_their_entered_names():
    summary = {"final": True, "ranking": [["red"], ["blue"]], "winners": ["red"],
               "end": "five fish", "end_rule": "rulebook",
               "tiebreak": "red and blue tied on 4; red won on fish carried",
               "tiebreak_detail": {"tied": ["red", "blue"], "score": 4, "winner": "red",
                                   "on": "fish carried"},
               "scores": {c: {"total": 4, "breakdown": {"fish": 4}} for c in ("red", "blue")}}
    final = FinalPresenter(summary, {"red": "Ann", "blue": "Bo"})
    assert final.tiebreak == "Ann and Bo tied on 4; Ann won on fish carried"
    summary["tiebreak_detail"].update(winner=None, on=None)
    assert FinalPresenter(summary, {"red": "Ann"}).tiebreak == (
        "Ann and blue tied on 4 and on every tie-breaker: they share the win")
    del summary["tiebreak_detail"]  # a summary saved before the detail existed
    assert FinalPresenter(summary, {"red": "Ann"}).tiebreak == summary["tiebreak"]


def test_an_order_among_hundreds_is_picked_one_thing_at_a_time():
    from itertools import permutations

    from companion.ui.presenters import SequencePicker

    cards = [f"pan-{i}" for i in range(1, 7)]
    options = [{"index": i, "text": "", "action": {"type": "stack", "recipes": list(p)}}
               for i, p in enumerate(permutations(cards, 4))]
    assert len(options) == 360
    picker = SequencePicker.fits(options)
    assert picker is not None and picker.field == "recipes"
    assert picker.next_choices() == cards
    assert picker.pick("pan-2") is None and picker.pick("pan-4") is None
    assert "pan-2" not in picker.next_choices() and len(picker.next_choices()) == 4
    assert picker.pick("pan-6") is None
    index = picker.pick("pan-1")
    assert options[index]["action"]["recipes"] == ["pan-2", "pan-4", "pan-6", "pan-1"]
    with pytest.raises(ValueError):
        picker.pick("pan-2")
    picker.reset()
    assert picker.chosen == [] and len(picker.remaining()) == 360
    assert SequencePicker.fits(options[:10]) is None  # a short list stays a list


def test_the_enrollment_plan_shows_each_photo_as_pictures_of_what_to_lay():
    from companion.ui.presenters import EnrollPlanPresenter
    from companion.ui.widgets import ART_DIR
    from companion.vision.enroll import enrollment_plan

    plan = EnrollPlanPresenter(enrollment_plan())
    assert plan.first and all(c["picture"] is None for c in plan.cells())  # the empty board
    plan.step(-1)
    assert plan.index == 0
    plan.step(1)
    cells = plan.cells()
    assert cells[0] == {"picture": "token-chicken-1-ingredient.png", "caption": "chicken-1"}
    plan.step(2)
    assert plan.cells()[4]["picture"] == "token-chicken-1-coin.png"  # the other side shown
    plan.step(99)
    assert plan.last and plan.index == len(plan.layouts) - 1
    assert plan.cells()[-1]["picture"] is None  # the last photo's cells left empty
    assert plan.shown_again  # the coins' second look
    plan.step(-2)
    assert {"picture": "cat-blue-back.png", "caption": "blue ?"} in plan.cells()
    plan.index = 3
    assert not plan.shown_again  # the coins' first look
    for layout_index in range(len(plan.layouts)):
        plan.index = layout_index
        for cell in plan.cells():
            assert cell["picture"] is None or (ART_DIR / cell["picture"]).is_file()


def test_the_picker_offers_every_game_with_its_own_seats():
    """Each game seats its own range of players in its own colours; a game whose seats are
    fixed roles (Burger Joint's Burger and Pizza) shows them, and no colour is picked."""
    from companion.rules import game_names

    p = StartPresenter(game_names(), players=4)
    assert {"alley-cats", "critter-kitchen", "food-trucks", "burger-joint"} <= set(p.games)
    p.pick_game("critter-kitchen")
    p.set_players(6)
    assert len(p.seats) == 6 and len({s.colour for s in p.seats}) == 6
    assert p.setup()["colours"] == [s.colour for s in p.seats]
    p.pick_game("burger-joint")
    assert [s.colour for s in p.seats] == ["Burger", "Pizza"]
    p.next_colour(0)
    assert [s.colour for s in p.seats] == ["Burger", "Pizza"]
    assert p.setup()["colours"] is None and p.setup()["players"] == 2
    p.pick_game("alley-cats")
    assert p.player_range == (2, 4) and all(s.colour in p.colours for s in p.seats)
    p.pick_game("food-trucks")
    assert [s.colour for s in p.seats] == ["player 1", "player 2"]
