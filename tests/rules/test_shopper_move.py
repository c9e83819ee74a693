"""Shopper, Move: every movement rule on hand-built boards."""

from __future__ import annotations

import pytest

from companion.rules import IllegalMoveError
from companion.rules.food_alley.market import name, parse_cell
from companion.rules.food_alley.shopper import Move

from .builder import position

# 25 ingredient tokens with no wildcard, to fill a board
FILL = [f"{i}-{p}" for i in ("chicken", "noodle", "peanut", "veggie", "egg") for p in range(1, 7)]


def board(**special: str) -> dict[str, str]:
    cells = {}
    free = [t for t in FILL if t not in special.values() and f"coin:{t}" not in special.values()]
    for r in range(1, 6):
        for col in "abcde":
            key = f"{col}{r}"
            cells[key] = special.get(key) or free.pop(0)
    return cells


def ends(state, player=0):
    return {name(p[-1]) for p in state.paths(player)}


def test_move_exactly_coin_value_in_a_straight_line():
    # peanut-4's coin is 3. From c3: c2,c1 then the edge; d3,e3 then the edge; and so on.
    s = position(cells=board(c3="coin:peanut-4"), shoppers={0: "c3"})
    assert ends(s) == {"b1", "d1", "b5", "d5", "e2", "e4", "a2", "a4"}


def test_edge_with_list_turns_left_or_right():
    s = position(cells=board(c3="coin:peanut-4"), shoppers={0: "c3"})
    routes = {tuple(name(c) for c in p) for p in s.paths(0)}
    assert ("c3", "c2", "c1", "b1") in routes and ("c3", "c2", "c1", "d1") in routes


def test_corner_turns_along_border():
    # peanut-5's coin is 2: a2 -> a1, then along the top border to b1 (never off the board)
    s = position(cells=board(a2="coin:peanut-5"), shoppers={0: "a2"})
    routes = {tuple(name(c) for c in p) for p in s.paths(0)}
    assert ("a2", "a1", "b1") in routes
    assert ends(s) == {"b1", "a4", "c2"}


def test_turn_only_when_passing_cat_or_shopper():
    plain = position(cells=board(a3="coin:peanut-5"), shoppers={0: "a3"})
    assert "b2" not in ends(plain) and "b4" not in ends(plain)
    with_cat = position(cells=board(a3="coin:peanut-5", b3="cat:1:4"), shoppers={0: "a3"})
    assert {"b2", "b4", "c3"} <= ends(with_cat)
    # the start is not "passed": a shopper on a3 itself gives no turn at a3
    assert ends(plain) == {"a1", "a5", "c3"}


def test_landing_on_shopper_continues_with_its_coin():
    # white stands on c3 with a coin of 1 (peanut-6); black moves 2 from a3 and lands on white
    s = position(cells=board(a3="coin:peanut-5", c3="coin:peanut-6"), shoppers={0: "a3", 1: "c3"})
    got = ends(s)
    assert {"d3", "c2", "c4"} <= got
    assert "c3" not in got


def test_shopper_used_once_per_move():
    # two shoppers with coin 2 facing each other: a loop must stop, not recurse forever
    s = position(cells=board(a3="coin:peanut-5", c3="coin:veggie-5", e3="coin:egg-5"),
                 shoppers={0: "a3", 1: "c3"}, )
    assert s.paths(0)


def test_opening_reenters_through_any_other():
    # lists claimed at top-3 and left-5: c2 -> c1 -> out at top-3 -> in at a5 -> b5
    s = position(cells=board(c2="coin:peanut-4"), shoppers={0: "c2"},
                 slots={"top-3": None, "left-5": None})
    routes = {tuple(name(c) for c in p) for p in s.paths(0)}
    assert ("c2", "c1", "a5", "b5") in routes


def test_lone_opening_acts_as_edge():
    s = position(cells=board(c2="coin:peanut-4"), shoppers={0: "c2"}, slots={"top-3": None})
    got = ends(s)
    assert {"a1", "e1"} <= got


def test_move_must_end_on_ingredient_or_cat():
    # c3 holds a bare coin, d1 is empty: neither can end a move
    cells = board(a3="coin:peanut-5", c3="coin:veggie-5")
    s = position(cells=cells, shoppers={0: "a3"})
    assert "c3" not in ends(s)
    cells = board(a3="coin:peanut-5")
    del cells["c3"]
    s = position(cells=cells, shoppers={0: "a3"})
    assert "c3" not in ends(s)
    with pytest.raises(IllegalMoveError, match=r"exactly 2 spaces.*c3 \(rule: Move\)"):
        s.apply_action(Move(tuple(parse_cell(c) for c in ("a3", "b3", "c3"))))


def test_cat_is_a_legal_end():
    s = position(cells=board(a3="coin:peanut-5", c3="cat:1:2"), shoppers={0: "a3"})
    assert "c3" in ends(s)


def test_any_legal_route_is_accepted():
    # cats on b2 and b3, white on a3: c3 is reached by a2-b2-b3-c3 and by a2-a3-b3-c3
    cells = board(a2="coin:peanut-4", a3="coin:veggie-4", b2="cat:0:1", b3="cat:0:2")
    s = position(cells=cells, shoppers={0: "a2", 1: "a3"})
    for route in (("a2", "b2", "b3", "c3"), ("a2", "a3", "b3", "c3")):
        t = position(cells=cells, shoppers={0: "a2", 1: "a3"})
        t.apply_action(Move(tuple(parse_cell(c) for c in route)))
        assert t.shopper[0] == parse_cell("c3")
    assert sum(1 for p in s.paths(0) if name(p[-1]) == "c3") == 1


def test_illegal_route_names_the_rule_and_leaves_state_unchanged():
    s = position(cells=board(c3="coin:peanut-4"), shoppers={0: "c3"})
    before = s.to_json()
    with pytest.raises(IllegalMoveError, match="breaks the movement rules"):
        # d1 is a legal end, but not by turning at c2 (nothing to pass there)
        s.apply_action(Move(tuple(parse_cell(c) for c in ("c3", "c2", "d2", "d1"))))
    assert s.to_json() == before
