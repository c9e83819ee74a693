"""Shopper Setup for 2, 3 and 4 players, driven by chance outcomes as the table supplies them."""

from __future__ import annotations

import pytest

from companion.rules import CHANCE, ChanceOutcomeError, IllegalMoveError
from companion.rules.food_alley.market import SIDES, Slot, name
from companion.rules.food_alley.shopper import COIN, Draw, Place, ShopperState

FILL = [t.id for t in ShopperState.new(2, 0).components.tokens if not t.id.startswith("rice")][:25]


def fill_and_arrange(state: ShopperState, tokens=FILL) -> None:
    for t in tokens:
        state.apply_action(Draw(t))
    while state.phase == "arrange":
        state.play_chance()


def coins_on_board(state):
    return {name(c) for c, x in enumerate(state.cells) if x and x[0] == "t" and x[2] == COIN}


@pytest.mark.parametrize(
    ("players", "coins"),
    [(2, {"a1", "c3", "e5"}), (3, {"a1", "e1", "a5", "e5"}), (4, {"a1", "e1", "a5", "e5", "c3"})],
)
def test_setup_flips_by_player_count(players, coins):
    s = ShopperState.new(players, 1)
    fill_and_arrange(s)
    assert [s.cells[i][1] for i in range(25)] == FILL
    assert coins_on_board(s) == coins


def test_grocery_lists_sorted_by_type_five_per_side_and_four_spares():
    s = ShopperState.new(3, 5)
    fill_and_arrange(s)
    for side in SIDES:
        lists = [s.slots[Slot(side, i)] for i in range(5)]
        assert {s.glist(g).type for g in lists} == {s.side_types[side]}
        assert len(set(lists)) == 5
    assert sorted(s.glist(g).type for g in s.spares) == sorted(s.components.grocery_list_types)


def test_start_player_by_drawn_coins():
    s = ShopperState.new(3, 2)
    fill_and_arrange(s)
    assert s.phase == "start-draw" and s.current_player() == CHANCE
    # the highest coin starts and keeps its token
    s.apply_action(Draw("rice-1"))  # black: coin 6
    s.apply_action(Draw("rice-2"))  # white: coin 5
    s.apply_action(Draw("rice-3"))  # orange: coin 4
    assert s.start_player == 0
    assert s.start_marker == "rice-1"
    assert "rice-2" in s.bag and "rice-3" in s.bag and "rice-1" not in s.bag


def test_start_player_by_drawn_coins_redraw_on_tie():
    s = ShopperState.new(3, 2)
    fill_and_arrange(s)
    s.apply_action(Draw("rice-1"))  # black 6
    s.apply_action(Draw("sambal-1"))  # white 6
    s.apply_action(Draw("rice-3"))  # orange 4
    assert s.phase == "start-draw"
    assert s.pending["contenders"] == [0, 1]
    assert "rice-1" in s.bag and "sambal-1" in s.bag  # all drawn tokens went back
    s.apply_action(Draw("rice-6"))  # black 1
    s.apply_action(Draw("rice-5"))  # white 2
    assert s.start_player == 1 and s.start_marker == "rice-5"


def test_placement_from_last_player_counter_clockwise():
    s = ShopperState.new(3, 2)
    fill_and_arrange(s)
    for t in ("rice-2", "rice-1", "rice-3"):  # white starts (coin 6)
        s.apply_action(Draw(t))
    assert s.start_player == 1
    order = []
    while s.phase == "place":
        order.append(s.current_player())
        s.apply_action(s.legal_actions()[0])
    assert order == [0, 2, 1]  # black (right of white, plays last), then orange, then white
    assert all(len(lists) == 1 for lists in s.open_lists)
    assert len(s.spares) == 1
    assert len({pos for pos in s.shopper}) == 3
    assert all(s.coin_under(q) is not None for q in range(3))


def test_placement_must_be_on_a_free_coin_with_a_spare_list():
    s = ShopperState.new(2, 2)
    fill_and_arrange(s)
    s.apply_action(Draw("rice-1"))
    s.apply_action(Draw("rice-2"))
    with pytest.raises(IllegalMoveError, match="b2 is not a free coin"):
        s.apply_action(Place(6, s.spares[0]))
    with pytest.raises(IllegalMoveError, match="not one of the spare lists"):
        s.apply_action(Place(0, "exact-9"))


def test_three_coins_on_offer_after_setup():
    s = ShopperState.new(4, 9)
    while s.phase != "turn":
        if s.current_player() == CHANCE:
            s.play_chance()
        else:
            s.apply_action(s.legal_actions()[0])
    assert len(s.offer) == 3
    assert s.turn == s.start_player
    assert len(s.bag) == 54 - 25 - 3 - 1


def test_draw_of_token_not_in_bag_is_refused_naming_where_it_is():
    s = ShopperState.new(2, 0)
    s.apply_action(Draw("egg-1"))
    with pytest.raises(ChanceOutcomeError, match="egg-1 is not in the bag .*board:a1"):
        s.apply_action(Draw("egg-1"))
    with pytest.raises(ChanceOutcomeError, match="not a Food Alley token"):
        s.apply_action(Draw("pizza-1"))


def test_player_count_is_checked():
    with pytest.raises(ValueError, match="2 to 4 players"):
        ShopperState.new(5, 0)
