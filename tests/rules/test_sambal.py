"""Sambal, every rule, on hand-built positions and with the table supplying chance outcomes."""

from __future__ import annotations

import pytest

from companion.rules import CHANCE, SIMULTANEOUS, IllegalMoveError, UndoRefusedError
from companion.rules.food_alley.common import Draw, RevealCat
from companion.rules.food_alley.market import parse_cell
from companion.rules.food_alley.sambal import (
    Buy,
    Cook,
    EndTurn,
    Feed,
    Offer,
    Pile,
    SambalState,
    Sell,
)

from .builder import sambal


def c(n: str) -> int:
    return parse_cell(n)


def bid(s, **coins):
    """Every player seals a coin: bid(s, black='egg-2', white='shrimp-3')."""
    for p, token in ((s.names.index(k), v) for k, v in coins.items()):
        s.apply_action(Offer(token), player=p)


# --- setup ------------------------------------------------------------------------------------


def test_setup_market_capital_and_piles():
    s = SambalState.new(3, 4)
    while s.phase in ("fill", "capital", "piles"):
        s.play_chance()
    assert len(s.market_ingredients()) == 25
    assert all(len(screen) == 5 for screen in s.screens)
    assert all(len(pile) == 3 + 2 for pile in s.recipes.values())
    assert set(s.recipes) == {"pan", "grill", "pot", "brown"}
    assert all(len(k) == 0 for k in s.kitchens)
    assert all(len(cats) == 6 for cats in s.cat_supply)
    assert s.current_player() == SIMULTANEOUS and s.phase == "bargain"
    s.check_conservation()


def test_four_players_use_every_recipe():
    s = SambalState.new(4, 1)
    while s.phase != "bargain":
        s.play_chance()
    assert all(len(pile) == 6 for pile in s.recipes.values())


def test_capital_draws_are_private_in_the_log():
    s = SambalState.new(2, 3)
    for _ in range(25):
        s.play_chance()
    s.apply_action(Draw(s.bag.contents()[0]))
    secret = s.screens[0][0]
    entry = s.log[-1]
    assert entry["private_to"] == 0
    assert secret in str(s.public_log(0)[-1])
    assert secret not in str(s.public_log(1)[-1])
    assert "draws a coin behind the screen" in s.public_log(1)[-1]["text"]


def test_pile_outcome_is_checked():
    s = SambalState.new(2, 3)
    while s.phase != "piles":
        s.play_chance()
    with pytest.raises(IllegalMoveError, match="a pan pile is 4 different pan recipes"):
        s.apply_action(Pile(("pan-1", "pan-2", "grill-1", "pan-3")))


# --- bargaining -------------------------------------------------------------------------------


def test_sealed_coins_are_revealed_only_when_all_have_chosen():
    s = sambal(3, screens={0: ["egg-2", "egg-3"], 1: ["shrimp-3"], 2: ["chicken-4"]})
    log_before = len(s.log)
    s.apply_action(Offer("egg-2"), player=0)
    assert len(s.log) == log_before  # sealed: no log entry
    assert s.acting_players() == [1, 2]
    assert "egg-2" not in str(s.view(1)) and "egg-2" not in str(s.public_log(1))
    assert s.view(1)["players"][0]["has_chosen"] is True
    assert s.view(0)["players"][0]["chosen"] == "egg-2"
    with pytest.raises(IllegalMoveError, match="has no choice to make now"):
        s.apply_action(Offer("egg-3"), player=0)
    with pytest.raises(IllegalMoveError, match="say whose choice"):
        s.apply_action(Offer("shrimp-3"))
    with pytest.raises(IllegalMoveError, match="not a coin behind white's screen"):
        s.apply_action(Offer("egg-3"), player=1)
    s.apply_action(Offer("shrimp-3"), player=1)
    assert len(s.log) == log_before
    s.apply_action(Offer("chicken-4"), player=2)
    assert len(s.log) == log_before + 1
    assert s.log[-1]["actor"] == "all" and s.log[-1]["action"]["type"] == "reveal"


def test_no_undo_across_a_reveal():
    s = sambal(2, screens={0: ["egg-2"], 1: ["shrimp-3"]})
    bid(s, black="egg-2", white="shrimp-3")
    with pytest.raises(UndoRefusedError, match="hidden thing was revealed"):
        s.undo()


def test_gathering_in_descending_coin_value():
    s = sambal(3, screens={0: ["shrimp-4"], 1: ["egg-1"], 2: ["chicken-2"]})
    bid(s, black="shrimp-4", white="egg-1", orange="chicken-2")  # 3, 6, 5
    assert [p for p, _ in s.pending["queue"]] == [1, 2, 0]
    assert s.current_player() == 1 and s.phase == "buy"


def test_equal_values_fail_and_flip_into_kitchen():
    s = sambal(3, screens={0: ["egg-2"], 1: ["shrimp-2"], 2: ["chicken-1"]})
    bid(s, black="egg-2", white="shrimp-2", orange="chicken-1")  # 5, 5, 6
    assert s.kitchens[0] == ["egg-2"] and s.kitchens[1] == ["shrimp-2"]
    assert s.pending["queue"] == [[2, "gather"], [0, "cook"], [1, "cook"]]
    assert "failed: black, white" in s.log[-1]["text"]


def test_all_equal_bargain_again():
    s = sambal(2, screens={0: ["egg-2", "egg-3"], 1: ["shrimp-2", "shrimp-3"]})
    bid(s, black="egg-2", white="shrimp-2")
    assert s.phase == "bargain" and s.round == 2
    assert s.kitchens == [["egg-2"], ["shrimp-2"]]
    assert "all equal, bargain again" in s.log[-1]["text"]


def test_failed_players_act_after_others_and_only_cook_or_feed():
    s = sambal(3, screens={0: ["egg-2"], 1: ["shrimp-2"], 2: ["chicken-1"]})
    bid(s, black="egg-2", white="shrimp-2", orange="chicken-1")
    s.apply_action(s.legal_actions()[0])  # orange buys
    s.apply_action(EndTurn())
    assert s.current_player() == 0 and s.phase == "cook"
    assert not any(isinstance(a, Buy) for a in s.legal_actions())
    with pytest.raises(IllegalMoveError, match="not a buy"):
        s.apply_action(Buy(c("a1")))


# --- gathering --------------------------------------------------------------------------------


def test_buy_price_at_most_coin():
    s = sambal(2, {"a1": "veggie-6", "e5": "veggie-2"},
               screens={0: ["peanut-4"], 1: ["noodle-6"]}, fill=False)
    bid(s, black="peanut-4", white="noodle-6")  # black 3, white 1
    assert s.legal_actions() == [Buy(c("e5"))]
    with pytest.raises(IllegalMoveError, match="veggie-6 costs 6, more than your coin"):
        s.apply_action(Buy(c("a1")))


def test_exact_match_bonus_rulebook_example():
    """Black bids 5, buys the veggie at 5, takes the adjacent rice, a black cat is revealed on the
    rice's space, and the coin lies flipped on the veggie's space."""
    s = sambal(2, {"c3": "veggie-5", "c2": "rice-3"}, screens={0: ["egg-2"], 1: ["shrimp-3"]})
    bid(s, black="egg-2", white="shrimp-3")
    assert s.current_player() == 0
    with pytest.raises(IllegalMoveError, match="gain one orthogonally adjacent ingredient"):
        s.apply_action(Buy(c("c3")))
    s.apply_action(Buy(c("c3"), c("c2")))
    assert s.current_player() == CHANCE
    s.apply_action(RevealCat(4))
    assert s.cells[c("c2")] == ("c", 0, 4)
    assert s.cells[c("c3")] == ("t", "egg-2")
    assert sorted(s.kitchens[0]) == ["rice-3", "veggie-5"]
    assert s.phase == "cook" and s.current_player() == 0


def test_rice_is_always_affordable_and_exact_is_optional():
    s = sambal(2, {"c3": "rice-6", "c2": "veggie-1"}, screens={0: ["egg-6"], 1: ["shrimp-3"]})
    bid(s, black="egg-6", white="shrimp-3")  # black 1, white 4: white first
    s.apply_action(s.legal_actions()[0])
    s.apply_action(EndTurn())
    legal = s.legal_actions()
    assert Buy(c("c3")) in legal and Buy(c("c3"), c("c2")) in legal


def test_nothing_affordable_returns_the_coin():
    cells = {f"{col}{row}": "empty" for col in "abcde" for row in range(1, 6)}
    cells["a1"] = "veggie-6"
    s = sambal(2, cells, screens={0: ["egg-6"], 1: ["shrimp-5"]})
    bid(s, black="egg-6", white="shrimp-5")  # 1 and 2: nothing costs 2 or less
    assert s.phase == "cook" and s.current_player() == 1
    assert "shrimp-5" in s.screens[1]


# --- cooking ----------------------------------------------------------------------------------


def cook_position(kitchen, recipes=None, piles="open"):
    s = sambal(2, {"c3": "veggie-1"}, screens={0: ["egg-1"], 1: ["shrimp-4"]},
               kitchens={0: kitchen}, recipes=recipes, piles=piles)
    bid(s, black="egg-1", white="shrimp-4")  # black 6 first
    s.apply_action(Buy(c("c3")))
    assert s.phase == "cook" and s.current_player() == 0
    return s


def test_cooking_once_per_turn_three_ingredients_one_sambal():
    s = cook_position(["noodle-1", "egg-2", "sambal-1", "sambal-2", "noodle-3"])
    cooks = [a for a in s.legal_actions() if isinstance(a, Cook)]
    assert cooks and all(len(a.dish) == 3 for a in cooks)
    assert not any({"sambal-1", "sambal-2"} <= set(a.dish) for a in cooks)
    with pytest.raises(IllegalMoveError, match="only contain 1 sambal"):
        s.apply_action(Cook(("noodle-1", "sambal-1", "sambal-2"), "pan-1", ("noodle-1",
                                                                            "sambal-1")))
    s.apply_action(Cook(("egg-2", "noodle-1", "noodle-3"), "pan-2", ("egg-2", "noodle-1")))
    assert not any(isinstance(a, Cook) for a in s.legal_actions())
    with pytest.raises(IllegalMoveError, match="only once per turn"):
        s.apply_action(Cook(("sambal-1", "sambal-2", "veggie-1"), "pot-1", ("veggie-1",
                                                                            "sambal-1")))


def test_sambal_shows_a_needed_ingredient():
    s = cook_position(["sambal-1", "egg-2", "chicken-3"])
    assert Cook(("chicken-3", "egg-2", "sambal-1"), "pan-2", ("chicken-3", "egg-2")) in \
        s.legal_actions()  # sambal as the noodle


def test_claim_recipe_flips_and_discards():
    s = cook_position(["noodle-1", "egg-2", "veggie-3"])
    s.apply_action(Cook(("egg-2", "noodle-1", "veggie-3"), "pan-3", ("veggie-3",)))
    assert s.claimed[0] == ["pan-3"] and "pan-3" not in s.recipes["pan"]
    assert "veggie-3" in s.screens[0]  # flipped to a coin behind the screen
    assert "noodle-1" in s.bag and "egg-2" in s.bag
    assert s.kitchens[0] == ["veggie-1"]
    with pytest.raises(IllegalMoveError):
        s.apply_action(Cook(("egg-2", "noodle-1", "veggie-3"), "pan-3", ()))


def test_brown_recipe_only_when_no_other_matches():
    # chicken, shrimp, rice: grill-4 (shrimp + any) matches, so no brown
    s = cook_position(["chicken-1", "shrimp-2", "rice-1"])
    assert not any(a.recipe.startswith("brown") for a in s.legal_actions()
                   if isinstance(a, Cook))
    with pytest.raises(IllegalMoveError, match="brown recipe only when the dish matches no"):
        s.apply_action(Cook(("chicken-1", "rice-1", "shrimp-2"), "brown-1", (), "rice-1"))
    # with the grill and pot recipes gone, brown it is; rice is worth 6, the highest
    recipes = {"pan": ["pan-1"], "grill": ["grill-6"], "pot": ["pot-6"],
               "brown": ["brown-1", "brown-2"]}
    s = cook_position(["chicken-1", "shrimp-2", "rice-1"], recipes)
    browns = [a for a in s.legal_actions()
              if isinstance(a, Cook) and a.dish == ("chicken-1", "rice-1", "shrimp-2")]
    assert browns == [Cook(("chicken-1", "rice-1", "shrimp-2"), "brown-1", (), "rice-1")]
    s.apply_action(browns[0])
    assert s.kept == {"brown-1": "rice-1"}
    assert s.scores()[0].breakdown["brown_recipes"] == 6


# --- feeding ----------------------------------------------------------------------------------


def test_feed_rulebook_example():
    """The black cat of value 4, next to pink, green and black tokens, is fed with a 4 in one of
    those colours, with a rice of such a colour, or with the tofu of value 4."""
    kitchen = ["egg-4", "chicken-4", "tofu-4", "rice-6", "sambal-4", "peanut-2",
               "noodle-4", "veggie-4", "shrimp-4"]
    cells = {"c3": "cat:0:4", "c2": "egg-5", "d3": "peanut-5", "c4": "chicken-5", "b3": "empty",
             "a1": "veggie-1"}  # around the cat: pink, green, black
    s = sambal(2, cells, screens={0: ["egg-1"], 1: ["shrimp-6"]}, kitchens={0: kitchen})
    bid(s, black="egg-1", white="shrimp-6")
    s.apply_action(Buy(c("a1")))
    feedable = {a.token for a in s.legal_actions() if isinstance(a, Feed)}
    # a 4 in pink, green or black; a rice of such a colour (rice-6 is pink); tofu-4
    assert feedable == {"shrimp-4", "veggie-4", "noodle-4", "rice-6", "tofu-4"}
    with pytest.raises(IllegalMoveError, match="sambal cannot be used"):
        s.apply_action(Feed(c("c3"), "sambal-4"))
    s.apply_action(Feed(c("c3"), "tofu-4"))
    assert s.cells[c("c3")] is None and s.fed[0] == [(0, 4)] and "tofu-4" in s.bag


def test_cat_next_to_tofu_takes_any_colour():
    cells = {"c3": "cat:1:4", "c2": "tofu-2", "d3": "empty", "c4": "empty", "b3": "empty",
             "a1": "veggie-1"}
    s = sambal(2, cells, screens={0: ["egg-1"], 1: ["shrimp-6"]}, kitchens={0: ["egg-4"]})
    bid(s, black="egg-1", white="shrimp-6")
    s.apply_action(Buy(c("a1")))
    assert Feed(c("c3"), "egg-4") in s.legal_actions()


def test_feeding_own_cat_scores_nothing():
    cells = {"c3": "cat:0:4", "c2": "egg-5", "d3": "cat:1:4", "d2": "egg-6", "a1": "veggie-1"}
    s = sambal(2, cells, screens={0: ["egg-1"], 1: ["shrimp-6"]},
               kitchens={0: ["shrimp-4", "tofu-4"]})
    bid(s, black="egg-1", white="shrimp-6")
    s.apply_action(Buy(c("a1")))
    s.apply_action(Feed(c("c3"), "shrimp-4"))  # own cat: pink, next to the pink egg-5
    s.apply_action(Feed(c("d3"), "tofu-4"))  # white's cat: tofu is any colour
    assert s.scores()[0].breakdown["cats_fed"] == 4


# --- coins, elimination, end --------------------------------------------------------------------


def test_sell_when_out_of_coins():
    s = sambal(2, screens={0: [], 1: ["shrimp-3"]}, kitchens={0: ["egg-2", "noodle-4"]})
    s.phase = "over"
    s._start_round()
    assert s.phase == "sell" and s.current_player() == 0
    assert set(s.legal_actions()) == {Sell("egg-2"), Sell("noodle-4")}
    s.apply_action(Sell("egg-2"))
    assert s.screens[0] == ["egg-2"] and s.phase == "bargain"


def test_eliminated_without_coins_or_ingredients():
    s = sambal(3, screens={0: [], 1: ["shrimp-3"], 2: ["egg-4"]})
    s.phase = "over"
    s._start_round()
    assert s.eliminated == [True, False, False]
    assert s.acting_players() == [1, 2]


def test_game_ends_after_the_round_when_last_cat_placed():
    s = sambal(2, {"c3": "veggie-5", "c2": "rice-3"}, screens={0: ["egg-2"], 1: ["shrimp-3"]})
    s.cat_supply[0] = [2]
    bid(s, black="egg-2", white="shrimp-3")
    s.apply_action(Buy(c("c3"), c("c2")))
    s.apply_action(RevealCat(2))
    assert not s.is_terminal()  # the round is completed first
    s.apply_action(EndTurn())
    s.apply_action(s.legal_actions()[0])
    s.apply_action(EndTurn())
    assert s.is_terminal() and "black placed their last cat" in s.end_reason


def test_game_ends_after_the_round_when_a_pile_runs_out():
    recipes = {"pan": ["pan-3"], "grill": ["grill-6"], "pot": ["pot-6"], "brown": ["brown-1"]}
    s = cook_position(["noodle-1", "egg-2", "veggie-3"], recipes)
    s.apply_action(Cook(("egg-2", "noodle-1", "veggie-3"), "pan-3", ("veggie-3",)))
    s.apply_action(EndTurn())
    s.apply_action(s.legal_actions()[0])
    s.apply_action(EndTurn())
    assert s.is_terminal() and "pan recipes ran out" in s.end_reason


def test_game_ends_after_the_round_with_fewer_than_six_ingredients():
    cells = {f"{col}{row}": "empty" for col in "abcde" for row in range(1, 6)}
    cells.update({"a1": "veggie-1", "a2": "veggie-2", "a3": "veggie-4", "a4": "noodle-1",
                  "a5": "noodle-2", "b1": "noodle-3"})
    s = sambal(2, cells, screens={0: ["egg-6"], 1: ["shrimp-3"]})
    bid(s, black="egg-6", white="shrimp-3")  # white 4 buys veggie-4 exact, takes veggie-2
    s.apply_action(Buy(c("a3"), c("a2")))
    s.apply_action(RevealCat(1))
    s.apply_action(EndTurn())
    assert len(s.market_ingredients()) == 5 and not s.is_terminal()
    s.apply_action(Buy(c("a1"), c("b1")))  # black 1 buys veggie-1 exact, takes noodle-3
    s.apply_action(RevealCat(2))
    s.apply_action(EndTurn())
    assert s.is_terminal() and "fewer than 6 ingredients" in s.end_reason


def test_game_ends_when_nothing_happens_for_ten_rounds():
    s = sambal(2, screens={0: ["egg-2"], 1: ["shrimp-2"]})
    # both hold one coin of the same value: every round fails, they sell, and fail again
    for _ in range(9):
        if s.phase == "sell":
            s.apply_action(Sell(s.kitchens[0][0]))
            s.apply_action(Sell(s.kitchens[1][0]))
        bid(s, black=s.screens[0][0], white=s.screens[1][0])
    assert not s.is_terminal()
    s.apply_action(Sell(s.kitchens[0][0]))
    s.apply_action(Sell(s.kitchens[1][0]))
    bid(s, black=s.screens[0][0], white=s.screens[1][0])
    assert s.is_terminal() and "10 rounds" in s.end_reason


def test_scoring_breakdown_and_tie_breakers():
    s = sambal(2, screens={0: ["egg-1", "egg-2"], 1: ["shrimp-1", "shrimp-6"]})
    s.claimed = [["pan-6", "grill-3", "pot-2", "brown-1"], ["pan-1"]]
    s.kept = {"brown-1": "noodle-4"}
    s.bag.remove("noodle-4")
    s.fed = [[(1, 5), (0, 3)], [(0, 6)]]
    black, white = s.scores()
    assert black.breakdown == {"recipe_chilis": 4 + 3 + 2, "brown_recipes": 4,
                               "all_four_types": 4, "cats_fed": 5, "coins": 2}
    assert black.total == 24
    assert white.total == 1 + 6 + 2
    # equal totals: higher total value of unused cats, then of coins
    s.claimed = [[], []]
    s.kept = {}
    s.bag.add("noodle-4")
    s.fed = [[], []]
    s.cat_supply = [[1, 2, 3], [1, 2, 4]]
    assert s.ranking() == [[1], [0]]
    s.cat_supply = [[1, 2, 4], [1, 2, 4]]
    assert s.ranking() == [[0], [1]]  # coins 6+5 beat 6+1


def test_undo_during_bargaining_takes_back_only_ones_own_sealed_coin():
    from companion.rules import UndoRefusedError
    from companion.rules.food_alley.sambal import SambalState

    s = SambalState.new(3, 8)
    while s.phase != "bargain":
        s.play_chance()
    log_before = list(s.log)
    first, second = s.acting_players()[:2]
    s.apply_action(s.legal_actions(first)[0], player=first)
    with pytest.raises(UndoRefusedError, match="only their own sealed choice"):
        s.undo()  # the table's undo: it must not drop a coin or the turn before
    with pytest.raises(UndoRefusedError, match="has none"):
        s.undo(player=second)
    undone = s.undo(player=first)
    assert undone["action"] == {"type": "hidden"} and "takes back" in undone["text"]
    assert not s.sealed and s.log == log_before  # nothing else taken back
    assert first in s.acting_players()


def test_a_non_action_is_refused_naming_it():
    from companion.rules import IllegalMoveError
    from companion.rules.food_alley.sambal import SambalState

    s = SambalState.new(2, 1)
    with pytest.raises(IllegalMoveError, match=r"'draw egg-1' is not an action .*a str"):
        s.apply_action("draw egg-1")  # type: ignore[arg-type]


def test_recipe_piles_default_to_stacks_whose_top_card_alone_is_claimed():
    from companion.rules.food_alley.sambal import SambalState, Stack

    s = SambalState.new(4, 3)
    assert s.options["recipes"] == "top"
    while s.phase != "piles":
        s.play_chance()
    outcomes = [a for a, _ in s.chance_outcomes()]
    assert all(isinstance(a, Stack) for a in outcomes)
    assert len(outcomes) == 720  # 4 players use all 6 cards of a type: every order
    with pytest.raises(ValueError, match="recipes must be one of top, open"):
        SambalState.new(2, 1, recipes="fanned")


def test_only_the_top_recipe_of_a_stack_may_be_claimed():
    piles = {"pan": ["pan-3", "pan-2"], "grill": ["grill-1"], "pot": ["pot-1"],
             "brown": ["brown-1"]}
    s = cook_position(["noodle-1", "egg-2", "veggie-3"], recipes=piles, piles="top")
    recipes = {a.recipe for a in s.legal_actions() if isinstance(a, Cook)}
    assert "pan-3" in recipes and "pan-2" not in recipes
    with pytest.raises(IllegalMoveError, match="not the top card"):
        s.apply_action(Cook(("egg-2", "noodle-1", "veggie-3"), "pan-2", ("egg-2", "noodle-1")))
    s.apply_action(Cook(("egg-2", "noodle-1", "veggie-3"), "pan-3", ("veggie-3",)))
    assert s.recipes["pan"] == ["pan-2"]  # the next card is on top now
