"""Shopper turns: shop, claim, bidding, store, the end of the game and scoring."""

from __future__ import annotations

import pytest

from companion.rules import CHANCE, TERMINAL, IllegalMoveError, UndoRefusedError
from companion.rules.components import Trait
from companion.rules.food_alley.market import parse_cell
from companion.rules.food_alley.shopper import (
    COIN,
    INGREDIENT,
    Bid,
    Claim,
    Draw,
    Move,
    Pass,
    RevealCat,
    Shop,
    Store,
)

from .builder import position
from .test_shopper_move import board


def cells(*names):
    return tuple(parse_cell(n) for n in names)


def rulebook_shop_position():
    """Black (0) on a3 with a 2-coin; the grey peanut at 2 on c3, the grey rice above it, the
    blue chicken (2) right of it, an egg (5) below."""
    return position(
        cells=board(a3="coin:peanut-5", c3="peanut-2", c2="rice-1", d3="chicken-2", c4="egg-5",
                    b3="noodle-3"),
        shoppers={0: "a3"}, offer=["veggie-6", "shrimp-6", "egg-6"],
    )


def test_shop_same_price_rulebook_example():
    s = rulebook_shop_position()
    s.apply_action(Move(cells("a3", "b3", "c3")))
    assert s.phase == "shop"
    s.apply_action(Shop(Trait.PRICE, cells("c2", "d3")))
    assert set(s.screens[0]) == {"peanut-2", "rice-1", "chicken-2"}
    # black places two cats on the emptied spots of the rice and the chicken
    assert s.current_player() == CHANCE
    s.apply_action(RevealCat(3))
    s.apply_action(RevealCat(5))
    assert s.cells[parse_cell("c2")] == ("c", 0, 3)
    assert s.cells[parse_cell("d3")] == ("c", 0, 5)
    assert s.cells[parse_cell("c3")] is None  # the shopper stands there, the coin comes next
    assert s.phase == "bid"


def test_shop_wildcard_match_is_optional():
    s = rulebook_shop_position()
    s.apply_action(Move(cells("a3", "b3", "c3")))
    legal = set(s.legal_actions())
    assert Shop(Trait.PRICE, cells("d3")) in legal  # rice left: wildcard not matching
    assert Shop(Trait.PRICE, cells("c2", "d3")) in legal
    with pytest.raises(IllegalMoveError, match=r"collect every adjacent token.*\(rule: Shop\)"):
        s.apply_action(Shop(Trait.PRICE, cells("c2")))  # the chicken at 2 must be taken
    assert Shop(Trait.INGREDIENT, ()) in legal


def test_cats_fill_emptied_spots_from_supply():
    s = rulebook_shop_position()
    s.cat_supply[0] = [4]
    s.apply_action(Move(cells("a3", "b3", "c3")))
    s.apply_action(Shop(Trait.PRICE, cells("c2", "d3")))
    s.apply_action(RevealCat(4))
    # no cat left: the second spot stays empty and bidding begins
    assert s.cells[parse_cell("d3")] is None and s.phase == "bid"
    assert s.cat_supply[0] == []


def test_revealed_cat_must_be_in_supply():
    s = rulebook_shop_position()
    s.cat_supply[0] = [1, 2]
    s.apply_action(Move(cells("a3", "b3", "c3")))
    s.apply_action(Shop(Trait.PRICE, cells("c2", "d3")))
    with pytest.raises(IllegalMoveError, match="no face-down cat of value 6"):
        s.apply_action(RevealCat(6))


def test_bidding_flips_used_coin_and_restocks():
    s = rulebook_shop_position()
    s.apply_action(Move(cells("a3", "b3", "c3")))
    s.apply_action(Shop(Trait.INGREDIENT, ()))
    assert s.phase == "bid"
    assert s.cells[parse_cell("a3")] == ("t", "peanut-5", INGREDIENT)  # used coin flipped
    s.apply_action(Bid("shrimp-6"))
    assert s.cells[parse_cell("c3")] == ("t", "shrimp-6", COIN)
    assert s.current_player() == CHANCE  # restock to 3
    s.apply_action(Draw("tofu-1"))
    assert s.offer == ["veggie-6", "egg-6", "tofu-1"]
    assert s.phase == "turn" and s.turn == 1


def test_blind_bid_draws_from_bag():
    s = rulebook_shop_position()
    s.apply_action(Move(cells("a3", "b3", "c3")))
    s.apply_action(Shop(Trait.INGREDIENT, ()))
    s.apply_action(Bid(None))
    s.apply_action(Draw("tofu-2"))
    assert s.cells[parse_cell("c3")] == ("t", "tofu-2", COIN)
    assert s.phase == "turn" and len(s.offer) == 3


def test_bid_must_be_an_offered_coin():
    s = rulebook_shop_position()
    s.apply_action(Move(cells("a3", "b3", "c3")))
    s.apply_action(Shop(Trait.INGREDIENT, ()))
    with pytest.raises(IllegalMoveError, match="not among the offered coins"):
        s.apply_action(Bid("tofu-1"))


def cat_position(value=3, **kw):
    """Black on a3 with a 2-coin moves onto white's cat on c3."""
    return position(cells=board(a3="coin:peanut-5", c3=f"cat:1:{value}"), shoppers={0: "a3"},
                    offer=["veggie-6", "shrimp-6", "egg-6"], **kw)


def test_claim_takes_list_from_row_or_column():
    s = cat_position(slots={"top-3": "ingredient-1", "right-3": "colour-1",
                            "bottom-3": "price-1", "left-3": "exact-3"})
    s.apply_action(Move(cells("a3", "b3", "c3")))
    assert s.phase == "claim"
    expected = {s.slots[slot] for slot in s.slots
                if str(slot) in ("top-3", "right-3", "bottom-3", "left-3")}
    assert {a.list_id for a in s.legal_actions()} == expected
    with pytest.raises(IllegalMoveError, match="not at an end of the cat's row or column"):
        s.apply_action(Claim(s.slots[next(x for x in s.slots if str(x) == "top-1")]))
    choice = sorted(expected)[0]
    s.apply_action(Claim(choice))
    assert choice in s.open_lists[0]
    assert choice not in s.slots.values()
    assert s.cells[parse_cell("c3")] is None and 3 in s.cat_supply[1]  # cat back to its owner


def test_one_unfulfilled_list_per_type():
    s = cat_position(open_lists={0: ["ingredient-6"]})
    s.apply_action(Move(cells("a3", "b3", "c3")))
    top = s.slots[next(x for x in s.slots if str(x) == "top-3")]
    assert s.glist(top).type == "ingredient"
    assert Claim(top) not in s.legal_actions()
    with pytest.raises(IllegalMoveError, match="only have 1 unfulfilled grocery list of each type"):
        s.apply_action(Claim(top))


def test_same_value_bonus():
    # the cat is worth 3: a list of 3 smileys earns another from the same row or column
    s = cat_position(value=3, slots={"top-3": "ingredient-3", "right-3": "colour-3",
                                     "bottom-3": "price-1", "left-3": "exact-1"})
    s.apply_action(Move(cells("a3", "b3", "c3")))
    s.apply_action(Claim("ingredient-3"))
    assert s.phase == "bonus"
    assert {a.list_id for a in s.legal_actions()} == {"colour-3", "price-1", "exact-1"}
    s.apply_action(Claim("exact-1"))
    assert s.open_lists[0] == ["ingredient-3", "exact-1"]
    assert s.phase == "bid"


def test_no_bonus_when_values_differ():
    s = cat_position(value=5, slots={"top-3": "ingredient-3"})
    s.apply_action(Move(cells("a3", "b3", "c3")))
    s.apply_action(Claim("ingredient-3"))
    assert s.phase == "bid"


def test_claim_with_no_list_returns_cat():
    s = cat_position(empty_slots=True)
    s.apply_action(Move(cells("a3", "b3", "c3")))
    assert s.phase == "bid"
    assert 3 in s.cat_supply[1]
    assert "no list can be taken" in s.log[-1]["text"]


def store_position(**kw):
    return position(cells=board(a3="coin:peanut-5"), shoppers={0: "a3"},
                    screens={0: ["sambal-3", "veggie-1", "noodle-5", "noodle-1", "egg-2"]},
                    open_lists={0: ["ingredient-3", "exact-1", "colour-4", "price-4"]}, **kw)


def test_store_rulebook_example():
    s = store_position()
    s.apply_action(Store(("noodle-1", "noodle-5", "sambal-3", "veggie-1")))
    assert sorted(s.done_lists[0]) == ["colour-4", "exact-1", "ingredient-3"]
    assert s.open_lists[0] == ["price-4"]
    assert s.screens[0] == ["egg-2"]
    assert all(t in s.bag for t in ("noodle-1", "noodle-5", "sambal-3", "veggie-1"))
    assert s.smileys(0) == 9
    # the offer was empty and the bag has tokens again: it is restocked before white's turn
    assert s.phase == "top-up" and s.turn == 1 and s.current_player() == CHANCE
    while s.phase == "top-up":
        s.play_chance()
    assert s.phase == "turn" and s.turn == 1 and len(s.offer) == 3


def test_a_shopper_without_a_coin_takes_one_at_its_turn():
    s = position(cells=board(a3="empty"), shoppers={0: "a3"}, offer=["veggie-6", "shrimp-6"])
    assert s.coin_under(0) is None
    legal = s.legal_actions()
    assert Bid("veggie-6") in legal and Bid(None) in legal
    assert not any(isinstance(a, Move) for a in legal)
    s.apply_action(Bid("shrimp-6"))
    assert s.coin_under(0).id == "shrimp-6"  # it moves with it next turn
    while s.current_player() == CHANCE:  # the offer restocked
        s.play_chance()
    assert s.turn == 1 and s.phase == "turn"


def test_store_must_complete_a_list():
    s = store_position()
    s.screens[0] = ["egg-1", "egg-2", "chicken-1", "shrimp-3", "veggie-1", "noodle-5", "sambal-3"]
    s.open_lists[0] = ["price-4"]
    with pytest.raises(IllegalMoveError, match="completes none of your grocery lists"):
        s.apply_action(Store(("chicken-1", "egg-1", "egg-2", "shrimp-3")))
    with pytest.raises(IllegalMoveError, match="exactly 4 different tokens"):
        s.apply_action(Store(("noodle-1", "noodle-5", "sambal-3")))
    with pytest.raises(IllegalMoveError, match="chicken-6 not behind black's screen"):
        s.apply_action(Store(("chicken-6", "noodle-5", "sambal-3", "veggie-1")))


def test_store_hint_is_the_best_set():
    s = store_position()
    best = s.best_store(0)
    assert best is not None and best.smileys == 9 and len(best.lists) == 3


def test_pass_only_when_nothing_else_is_possible():
    s = store_position()
    with pytest.raises(IllegalMoveError, match="passing is only for the final round"):
        s.apply_action(Pass())


def three_player_end(smileys_done_by_1=("ingredient-6", "price-4", "exact-3")):
    """White (1) has 16 smileys and can store for 4 more (colour-5)."""
    return position(
        players=3,
        cells=board(a3="coin:peanut-5", c3="coin:veggie-5", e3="coin:egg-5"),
        shoppers={0: "a3", 1: "c3", 2: "e3"}, turn=1, start_player=0,
        screens={1: ["chicken-1", "noodle-6", "peanut-5", "egg-4"],
                 2: ["chicken-2", "noodle-2", "peanut-2", "egg-2"]},
        open_lists={1: ["colour-5"], 2: ["colour-4"]},
        done_lists={1: list(smileys_done_by_1)},
        offer=["veggie-6", "shrimp-6", "egg-6"],
    )


def test_end_game_trigger_at_twenty_smileys():
    s = three_player_end()
    assert s.smileys(1) == 16
    s.apply_action(Store(("chicken-1", "egg-4", "noodle-6", "peanut-5")))
    assert s.smileys(1) == 20
    assert s.final_round
    assert "white reached 20 smileys" in s.end_reason


def test_final_round_only_pass_or_store():
    s = three_player_end()
    s.apply_action(Store(("chicken-1", "egg-4", "noodle-6", "peanut-5")))
    assert s.turn == 2
    kinds = {a.kind for a in s.legal_actions()}
    assert kinds == {"store", "pass"}
    with pytest.raises(IllegalMoveError, match="only pass or store"):
        s.apply_action(Move(cells("e3", "d3", "c3")))


def test_final_round_until_start_player():
    s = three_player_end()
    s.apply_action(Store(("chicken-1", "egg-4", "noodle-6", "peanut-5")))
    s.apply_action(Pass())  # orange, the last before the start player (black)
    assert s.is_terminal() and s.current_player() == TERMINAL
    with pytest.raises(IllegalMoveError, match="the game is over"):
        s.apply_action(Pass())


def test_game_ends_when_nobody_can_act():
    s = position(cells={}, shoppers={}, turn=0)
    assert s.legal_actions() == [Pass()]
    s.apply_action(Pass())
    assert not s.is_terminal()
    while s.current_player() == CHANCE:  # the offer restocked from the full bag
        s.play_chance()
    s.apply_action(Pass())
    assert s.is_terminal()
    assert "no player could move or store" in s.end_reason


def test_final_round_when_no_list_is_left():
    s = position(cells=board(a3="coin:peanut-5"), shoppers={0: "a3"}, empty_slots=True,
                 screens={0: ["chicken-1", "noodle-6", "peanut-5", "egg-4"]},
                 open_lists={0: ["colour-5"]})
    s.apply_action(Store(("chicken-1", "egg-4", "noodle-6", "peanut-5")))
    assert s.final_round and "no grocery list is left" in s.end_reason


def test_final_scoring_breakdown():
    s = three_player_end(("ingredient-6", "price-4", "exact-3"))
    s.apply_action(Store(("chicken-1", "egg-4", "noodle-6", "peanut-5")))
    s.cells[parse_cell("b1")] = ("c", 1, 2)
    s.cat_supply[1].remove(2)
    s.apply_action(Pass())
    white = s.scores()[1]
    # 20 smileys + 5 cats off the board + 4 for all four types - 0 unused tokens
    assert white.breakdown == {"smileys": 20, "cats_off_board": 5, "all_four_types": 4,
                               "unused_tokens": 0}
    assert white.total == 29
    orange = s.scores()[2]
    assert orange.breakdown["unused_tokens"] == -4 and orange.total == 0 + 6 - 4
    for score in s.scores():
        assert score.total == sum(score.breakdown.values())
    assert s.ranking()[0] == [1]


def test_tie_breakers():
    # equal totals: more lists wins; then more cats off the board; then fewer minus points
    s = position(players=4, cells={}, shoppers={},
                 done_lists={0: ["ingredient-1"], 1: ["colour-1"], 2: ["price-1"], 3: ["exact-1"]},
                 screens={2: ["egg-1"], 3: ["egg-2"]})
    s.done_lists[3] = ["ingredient-2"]  # 2 smileys
    s.done_lists[1] = ["colour-1"]
    s.cat_supply[1] = [1, 2, 3, 4, 5]  # one cat on the board (not drawn here: supply only)
    s.screens[1] = []
    s.screens[0] = ["egg-3"]
    # black: 2+6-1 = 7, lists 1, cats 6, minus 1; white: 2+5 = 7, lists 1, cats 5
    s.screens[2] = ["egg-1"]
    s.screens[3] = ["egg-2"]
    totals = {sc.player: sc.total for sc in s.scores()}
    assert totals == {0: 7, 1: 7, 2: 7, 3: 7}
    assert s.ranking() == [[0, 2, 3], [1]]  # cats decide; black, orange, blue tie fully
    s.done_lists[0] = ["ingredient-1", "colour-2"]
    s.screens[0] = ["egg-3", "egg-4", "egg-5"]  # 4+6-3 = 7 with two lists
    assert s.ranking()[0] == [0]


def test_undo_last_decision_and_refuse_after_reveal():
    s = rulebook_shop_position()
    s.apply_action(Move(cells("a3", "b3", "c3")))
    undone = s.undo()
    assert undone["action"]["type"] == "move"
    assert s.phase == "turn" and s.shopper[0] == parse_cell("a3")


def test_undo_refused_after_chance_step():
    s = rulebook_shop_position()
    s.apply_action(Move(cells("a3", "b3", "c3")))
    s.apply_action(Shop(Trait.PRICE, cells("c2", "d3")))
    s.apply_action(RevealCat(2))
    with pytest.raises(UndoRefusedError, match="hidden thing was revealed"):
        s.undo()


def test_wrong_player_is_refused():
    s = rulebook_shop_position()
    with pytest.raises(IllegalMoveError, match="not white's turn; waiting for black"):
        s.apply_action(Move(cells("a3", "b3", "c3")), player=1)


def landed_wildcard_position(landed: str, **around: str):
    """Black on a3 with a 2-coin lands on c3 (two steps east), ``landed`` there."""
    return position(
        cells=board(a3="coin:peanut-5", b3=around.pop("b3", "noodle-3"), c3=landed, **around),
        shoppers={0: "a3"}, offer=["veggie-6", "shrimp-6", "egg-6"],
    )


def test_landed_rice_takes_one_price_for_the_whole_collection():
    s = landed_wildcard_position("rice-3", c2="egg-2", d3="noodle-5", c4="shrimp-2")
    s.apply_action(Move(cells("a3", "b3", "c3")))
    legal = {a for a in s.legal_actions() if a.trait is Trait.PRICE}
    assert Shop(Trait.PRICE, cells("c2", "c4")) in legal  # the rice is a 2: both 2s
    assert Shop(Trait.PRICE, cells("d3")) in legal  # the rice is a 5
    assert Shop(Trait.PRICE, cells("b3")) in legal  # a 3
    assert Shop(Trait.PRICE, ()) in legal  # a number no neighbour has
    assert Shop(Trait.PRICE, cells("c2", "d3")) not in legal  # a 2 and a 5 together
    assert Shop(Trait.PRICE, cells("c2")) not in legal  # one 2 taken, the other 2 left
    with pytest.raises(IllegalMoveError, match=r"\(rule: Shop\)"):
        s.apply_action(Shop(Trait.PRICE, cells("c2", "d3")))


def test_landed_tofu_takes_one_colour_for_the_whole_collection():
    s = landed_wildcard_position("tofu-2", c2="egg-4", d3="chicken-1")  # blue and green
    s.apply_action(Move(cells("a3", "b3", "c3")))
    legal = {a for a in s.legal_actions() if a.trait is Trait.COLOUR}
    assert Shop(Trait.COLOUR, cells("c2")) in legal
    assert Shop(Trait.COLOUR, cells("d3")) in legal
    assert Shop(Trait.COLOUR, cells("c2", "d3")) not in legal


def test_a_wildcard_neighbour_of_a_landed_wildcard_may_match_or_not():
    s = landed_wildcard_position("rice-3", c2="rice-5", d3="noodle-5")
    s.apply_action(Move(cells("a3", "b3", "c3")))
    legal = {a for a in s.legal_actions() if a.trait is Trait.PRICE}
    assert Shop(Trait.PRICE, cells("d3")) in legal and Shop(Trait.PRICE, cells("c2", "d3")) in legal
