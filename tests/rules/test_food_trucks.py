"""Food Trucks, every rule: setup, preparing and serving orders, new orders, the unhappy
customer, the end of the game, the component data and the saved state.

The shipped data is provisional (Mexican dishes); the rulebook's examples that use other dishes
are played with these: Alice's hamburgers are burritos here, Gloria's gyozas and prawns are tacos
and nachos.
"""

from __future__ import annotations

import itertools
import json
from collections import Counter
from pathlib import Path

import pytest
import yaml

from companion.rules import ChanceOutcomeError, IllegalMoveError, UndoRefusedError
from companion.rules.components import ComponentError
from companion.rules.food_trucks import (
    DATA_FILE,
    RULEBOOK_FACTS,
    DealTruck,
    Discard,
    DrawFood,
    DrawOrder,
    EndTurn,
    FoodTrucksState,
    ReturnCard,
    Serve,
    Steal,
    Take,
    food_trucks,
    load_food_trucks,
    parse_food_trucks,
)
from companion.rules.protocol import CHANCE, StateFormatError
from companion.rules.simulate import random_playout
from companion.rules.summary import final_summary

DATA = Path(__file__).parents[2] / "companion" / "rules" / "data" / DATA_FILE


def started(players: int = 4, seed: int = 1, **options) -> FoodTrucksState:
    """A new game with its setup played by the table's (seeded) draws."""
    s = FoodTrucksState.new(players, seed, **options)
    while s.phase != "turn":
        s.play_chance()
    return s


def arrange(s: FoodTrucksState, *, grid=None, hands=None, row=None, takeaways=(), served=None,
            trucks=None, discard=None, deck=None, box=(), unhappy=None, turn=None,
            phase="turn", round_no=1) -> FoodTrucksState:
    """Lay out a position by hand (the rest of the food cards in the deck, or in the discard
    pile when the deck is given), check it and start the log there."""
    n = s.players
    if grid is not None:
        s.grid = [None if d == "." else d for line in grid for d in line.split()]
    if hands is not None:
        s.hands = [dict(Counter(h)) for h in hands]
    if trucks is not None:
        s.trucks = list(trucks)
    if row is not None:
        s.row = list(row)
    s.takeaways = list(takeaways)
    s.served = [list(x) for x in served] if served is not None else [[] for _ in range(n)]
    s.box = list(box)
    placed = {o for o in s.row if o} | set(s.takeaways) | set(s.box) | {
        o for stack in s.served for o in stack}
    s.unseen = sorted(set(s.order_card.ids()) - placed)
    s.order_deck = len(s.unseen) - (24 - 6 * n)
    rest = Counter(s.components.food)
    rest.subtract(Counter(d for d in s.grid if d))
    for h in s.hands:
        rest.subtract(h)
    if deck is None:
        rest.subtract(discard or {})
        s.food_deck = {d: k for d, k in rest.items() if k}
        s.discard = dict(discard or {})
    else:
        rest.subtract(deck)
        s.food_deck = dict(deck)
        s.discard = {d: k for d, k in rest.items() if k}
    if unhappy is not None:
        s.unhappy = unhappy
    s.turn = s.first if turn is None else turn
    s.phase = phase
    s.round = round_no
    s.served_this_turn = False
    s.check_conservation()
    s._legal = None
    s.mark_origin()
    return s


FULL_GRID = ["taco taco taco taco", "nachos nachos nachos nachos",
             "taco taco taco taco", "nachos nachos nachos nachos"]


# --- setup -----------------------------------------------------------------------------------


@pytest.mark.parametrize("players", [2, 3, 4])
def test_setup_orders_grid_hands_and_trucks_by_player_count(players):
    s = started(players, seed=players)
    assert s.order_deck == 6 * players - players  # 6 order cards per player, a row of N
    assert all(s.row) and len(s.row) == players and s.takeaways == []
    assert None not in s.grid and len(s.grid) == 16  # 4 columns and 4 rows
    assert [s.hand_size(q) for q in range(players)] == [3] * players
    assert len(set(s.trucks)) == players and None not in s.trucks
    assert s.unhappy == players - 1  # the last player in turn order
    assert (s.turn, s.round, s.phase) == (0, 1, "turn")
    s.check_conservation()


def test_first_player_option_and_the_unhappy_customer_to_their_right():
    s = started(4, seed=3, first_player=2)
    assert s.turn == 2 and s.unhappy == 1
    assert s.view(None)["players"][2]["first_player"]


@pytest.mark.parametrize("players", [1, 5])
def test_player_counts_outside_two_to_four_are_refused(players):
    with pytest.raises(ValueError, match="2 to 4 players"):
        FoodTrucksState.new(players, 0)


def test_table_options_from_the_command_line_are_read():
    s = FoodTrucksState.new(3, 0, happy_hour="true", first_player="1")
    assert s.options == {"happy_hour": True, "first_player": 1} and s.delivery_persons == 1


def test_bad_options_are_refused():
    with pytest.raises(ValueError, match="first_player"):
        FoodTrucksState.new(3, 0, first_player=3)
    with pytest.raises(ValueError, match="unknown Food Trucks options"):
        FoodTrucksState.new(3, 0, happy=True)
    with pytest.raises(ValueError, match="happy_hour must be true or false"):
        FoodTrucksState.new(3, 0, happy_hour="maybe")


def test_grid_is_filled_left_to_right_and_top_to_bottom():
    s = FoodTrucksState.new(2, 0)
    s.play_chance()
    s.play_chance()
    assert s.phase == "setup-grid"
    s.apply_action(DrawFood("wild"))
    s.apply_action(DrawFood("enchilada"))
    s.apply_action(DrawFood("taco"))
    s.apply_action(DrawFood("taco"))
    s.apply_action(DrawFood("nachos"))
    assert s.grid[:5] == ["wild", "enchilada", "taco", "taco", "nachos"]
    assert s.log[-1]["text"] == "nachos fills a2"


def test_dealt_food_cards_are_private_to_their_receiver():
    s = started(3, seed=5)
    deals = [e for e in s.log if "private_to" in e]
    assert len(deals) == 9 and {e["private_to"] for e in deals} == {0, 1, 2}
    for e in deals:
        other = (e["private_to"] + 1) % 3
        entry = s.public_log(other)[s.log.index(e)]
        assert entry["action"] == {"type": "hidden"} and "food card" in entry["text"]
        assert e["action"]["dish"] not in entry["text"]


def test_chance_outcomes_must_be_possible():
    s = FoodTrucksState.new(2, 0)
    s.apply_action(DrawOrder("order-05"))
    with pytest.raises(ChanceOutcomeError, match="in the order row"):
        s.apply_action(DrawOrder("order-05"))
    with pytest.raises(ChanceOutcomeError, match="DrawOrder"):
        s.apply_action(DrawFood("taco"))
    s.play_chance()
    for _ in range(8):
        s.apply_action(DrawFood("enchilada"))
    with pytest.raises(ChanceOutcomeError, match="no enchilada is left"):
        s.apply_action(DrawFood("enchilada"))
    while s.phase != "setup-truck":
        s.play_chance()
    s.apply_action(DealTruck("kung-food"))
    with pytest.raises(ChanceOutcomeError, match="not a food truck left"):
        s.apply_action(DealTruck("kung-food"))
    assert sum(p for _, p in s.chance_outcomes()) == pytest.approx(1)


def test_food_draws_are_weighted_by_the_cards_left():
    s = FoodTrucksState.new(2, 0)
    s.play_chance()
    s.play_chance()
    odds = dict((a.dish, p) for a, p in s.chance_outcomes())
    assert odds["taco"] == pytest.approx(16 / 68) and odds["wild"] == pytest.approx(8 / 68)


# --- prepare orders --------------------------------------------------------------------------


def test_example_alice_takes_the_connected_dishes_and_wild_cards():
    """Rulebook example: a hamburger (here a burrito) with a wild card on top, a hamburger to
    the left and a wild card to the right, itself next to another hamburger: 5 cards."""
    s = arrange(started(2, 7), grid=["taco wild taco nachos",
                                     "burrito burrito wild burrito",
                                     "taco nachos taco nachos",
                                     "burrito quesadilla enchilada burrito"],
                hands=[[], []])
    s.apply_action(Take("b2"))
    assert s.hands[0] == {"burrito": 3, "wild": 2}
    assert [s.cell_names[c] for c, d in enumerate(s.grid) if d is None] == [
        "b1", "a2", "b2", "c2", "d2"]  # refilled next
    assert s.phase == "refill"


def test_prepare_takes_only_orthogonal_neighbours_of_the_chosen_dish_or_wild_cards():
    s = arrange(started(2, 7), grid=["burrito taco burrito taco",
                                     "taco burrito taco taco",
                                     "wild taco taco taco",
                                     "burrito taco taco taco"],
                hands=[[], []])
    assert s.group(s.cell_index["b2"]) == [s.cell_index["b2"]]  # diagonals do not count
    assert [s.cell_names[c] for c in s.group(s.cell_index["a4"])] == ["a3", "a4"]


def test_a_wild_card_or_an_empty_space_cannot_be_chosen():
    s = arrange(started(2, 7), grid=FULL_GRID[:1] + ["wild nachos nachos nachos"] + FULL_GRID[2:],
                hands=[[], []])
    with pytest.raises(IllegalMoveError, match="wild card") as err:
        s.apply_action(Take("a2"))
    assert err.value.rule == "Prepare Orders"
    with pytest.raises(IllegalMoveError, match="not a space of the grid"):
        s.apply_action(Take("e9"))
    s.grid[0] = None
    s._legal = None
    s.food_deck["taco"] += 1
    with pytest.raises(IllegalMoveError, match="a1 is empty"):
        s.apply_action(Take("a1"))


def test_refill_after_preparing_draws_into_the_empty_spaces_in_order():
    s = arrange(started(2, 7), grid=FULL_GRID, hands=[[], []])
    s.apply_action(Take("a2"))  # the whole nachos row
    assert s.hands[0] == {"nachos": 4} and s.current_player() == CHANCE
    for dish in ("wild", "taco", "burrito", "enchilada"):
        s.apply_action(DrawFood(dish))
    assert s.grid[4:8] == ["wild", "taco", "burrito", "enchilada"]
    assert (s.phase, s.turn) == ("turn", 1)


def test_over_twelve_cards_the_excess_goes_back_to_spaces_of_your_choice():
    s = arrange(started(2, 7), grid=FULL_GRID,
                hands=[["burrito"] * 5 + ["quesadilla"] * 5, []])
    s.apply_action(Take("a1"))  # 4 tacos: 14 cards
    assert s.phase == "return" and s.current_player() == 0
    with pytest.raises(IllegalMoveError, match="not an available space") as err:
        s.apply_action(ReturnCard("burrito", "a2"))
    assert "12-card limit" in err.value.rule
    with pytest.raises(IllegalMoveError, match="waits for a card returned"):
        s.apply_action(Take("a2"))
    with pytest.raises(IllegalMoveError, match="you hold no wild"):
        s.apply_action(ReturnCard("wild", "a1"))
    s.apply_action(ReturnCard("quesadilla", "c1"))  # any card, any empty space, any order
    assert s.phase == "return"
    s.apply_action(ReturnCard("burrito", "a1"))
    assert s.hand_size(0) == 12 and s.grid[:4] == ["burrito", None, "quesadilla", None]
    assert s.phase == "refill"
    s.apply_action(DrawFood("wild"))
    s.apply_action(DrawFood("nachos"))
    assert s.grid[:4] == ["burrito", "wild", "quesadilla", "nachos"]


def test_an_empty_food_deck_is_the_discard_pile_shuffled():
    s = arrange(started(2, 7), grid=FULL_GRID, hands=[[], []], deck={})
    assert sum(s.discard.values()) == 68 - 16
    s.apply_action(Take("a1"))
    assert s.phase == "refill" and s.discard == {} and sum(s.food_deck.values()) == 52
    assert "shuffled into a new food deck" in s.log[-1]["text"]


# --- serve orders ----------------------------------------------------------------------------


def arthur() -> FoodTrucksState:
    """Arthur (player 0) owns Bocata Zapata (extra: 1 burrito, 1 taco); orders 01 and 02."""
    return arrange(started(2, 11), grid=FULL_GRID,
                   hands=[["burrito", "burrito", "nachos", "nachos", "nachos", "taco", "wild",
                           "enchilada"], ["quesadilla"]],
                   trucks=["bocata-zapata", "kung-food"], row=["order-01", "order-02"])


def test_example_arthur_serves_two_orders_with_the_extra_dishes():
    """Rulebook example: 2 burritos and 2 nachos from the hand and 1 burrito and 1 taco from the
    truck serve 3 burritos, 2 nachos, 1 taco (A); the truck then shows 2 burritos and 1 taco (b),
    which with 1 nachos, 1 taco and 1 wild card serve another order (c)."""
    s = arthur()
    assert s.extras(0) == {"burrito": 1, "taco": 1}
    s.apply_action(Serve("order-01", ("burrito", "burrito", "nachos", "nachos")))
    assert s.served[0] == ["order-01"] and s.extras(0) == {"burrito": 2, "taco": 1}
    assert s.phase == "replace"  # no takeaway order: a new order fills the space
    s.apply_action(DrawOrder("order-07"))
    assert s.row == ["order-07", "order-02"]
    s.apply_action(Serve("order-02", ("nachos", "taco", "wild")))
    assert s.served[0] == ["order-01", "order-02"]
    assert s.hands[0] == {"enchilada": 1}
    assert s.discard == {"burrito": 2, "nachos": 3, "taco": 1, "wild": 1}


def test_serving_needs_six_dishes_from_hand_and_extras():
    s = arthur()
    with pytest.raises(IllegalMoveError, match="leave 1 burrito uncovered") as err:
        s.apply_action(Serve("order-01", ("burrito", "nachos", "nachos")))
    assert err.value.rule == "Serve Orders"
    assert s.hands[0]["burrito"] == 2 and s.served[0] == []  # nothing changed


def test_serving_spends_only_cards_the_order_needs():
    s = arthur()
    with pytest.raises(IllegalMoveError, match="asks for 0 enchilada"):
        s.apply_action(Serve("order-01", ("burrito", "burrito", "nachos", "nachos",
                                          "enchilada")))
    full = {"burrito": 3, "nachos": 2, "taco": 1, "wild": 1}
    assert "1 wild cards but only 0 dishes left" in s.payment_problem(
        s.order_card("order-01"), full, {}, ("burrito",) * 3 + ("nachos",) * 2 + ("taco", "wild"))
    with pytest.raises(IllegalMoveError, match="you hold 2 burrito, not 3"):
        s.apply_action(Serve("order-01", ("burrito", "burrito", "burrito", "nachos", "nachos")))


def test_cards_may_be_spent_instead_of_an_extra_dish_and_in_any_order():
    s = arthur()
    s.apply_action(Serve("order-01", ("taco", "nachos", "burrito", "burrito", "nachos")))
    assert s.hands[0] == {"nachos": 1, "wild": 1, "enchilada": 1}


def test_only_orders_in_the_row_or_takeaway_orders_can_be_served():
    s = arthur()
    with pytest.raises(IllegalMoveError, match="not in the order row"):
        s.apply_action(Serve("order-09", ("burrito",)))
    with pytest.raises(IllegalMoveError, match="not an order card"):
        s.apply_action(Serve("order-99", ()))


def test_serving_from_the_row_moves_the_rightmost_takeaway_order_into_the_space():
    s = arrange(started(2, 11), grid=FULL_GRID, hands=[["burrito"] * 3 + ["nachos"] * 2, []],
                trucks=["bocata-zapata", "kung-food"], row=["order-05", "order-01"],
                takeaways=["order-10", "order-11"])
    s.apply_action(Serve("order-01", ("burrito", "burrito", "nachos", "nachos")))
    assert s.row == ["order-05", "order-11"] and s.takeaways == ["order-10"]


def test_a_served_takeaway_order_is_not_replaced():
    s = arrange(started(2, 11), grid=FULL_GRID, hands=[["burrito"] * 3 + ["nachos"] * 2, []],
                trucks=["bocata-zapata", "kung-food"], row=["order-05", "order-10"],
                takeaways=["order-01"])
    s.apply_action(Serve("order-01", ("burrito", "burrito", "nachos", "nachos")))
    assert s.row == ["order-05", "order-10"] and s.takeaways == []
    assert len(s.row) == s.players  # the row keeps as many orders as players


def test_one_action_a_turn_no_preparing_after_serving():
    s = arthur()
    s.apply_action(Serve("order-01", ("burrito", "burrito", "nachos", "nachos")))
    s.apply_action(DrawOrder("order-04"))
    with pytest.raises(IllegalMoveError, match="cannot also prepare") as err:
        s.apply_action(Take("a1"))
    assert err.value.rule == "How to Play"
    assert not any(isinstance(a, Take) for a in s.legal_actions())
    s.apply_action(EndTurn())
    assert s.turn == 1


def test_stopping_to_serve_needs_a_served_order():
    s = arthur()
    with pytest.raises(IllegalMoveError, match="serve an order before"):
        s.apply_action(EndTurn())


def test_the_turn_ends_by_itself_when_no_other_order_can_be_served():
    s = arrange(started(2, 11), grid=FULL_GRID, hands=[["burrito"] * 2 + ["nachos"] * 2, []],
                trucks=["bocata-zapata", "kung-food"], row=["order-01", "order-22"])
    s.apply_action(Serve("order-01", ("burrito", "burrito", "nachos", "nachos")))
    s.apply_action(DrawOrder("order-09"))
    assert (s.turn, s.phase) == (1, "turn")
    assert "cannot serve another order" in s.log[-1]["text"]


def brute_force_payments(s, order, hand, extras):
    cards = [d for d, n in hand.items() for _ in range(n)]
    found = set()
    for k in range(0, 7):
        for combo in itertools.combinations(cards, k):
            spend = tuple(sorted(combo))
            if s.payment_problem(s.order_card(order), hand, extras, spend) is None:
                found.add(spend)
    return found


@pytest.mark.parametrize("order", ["order-01", "order-14", "order-19", "order-09"])
def test_the_legal_serves_are_exactly_the_valid_spends(order):
    s = started(2, 1)
    hand = {"burrito": 3, "taco": 3, "nachos": 2, "wild": 3, "enchilada": 1}
    extras = {"taco": 1, "burrito": 2}
    listed = s.payments(s.order_card(order).needs, hand, extras)
    assert len(listed) == len(set(listed))
    assert set(listed) == brute_force_payments(s, order, hand, extras)


# --- new orders ------------------------------------------------------------------------------


def test_no_new_order_in_the_first_round():
    s = started(3, 2)
    assert s.round == 1 and s.turn == 0 and s.phase == "turn"
    assert not any(e["action"]["type"] == "draw-order" for e in s.log[3:])


def test_a_new_round_starts_with_the_first_player_drawing_a_takeaway_order():
    s = arrange(started(2, 4), grid=FULL_GRID, hands=[[], []], row=["order-01", "order-02"],
                turn=1)
    s.apply_action(Take("a1"))
    for _ in range(4):
        s.play_chance()
    assert (s.phase, s.turn, s.round) == ("new-order", 0, 2)
    s.apply_action(DrawOrder("order-20"))
    assert s.takeaways == ["order-20"] and s.phase == "turn"


def test_example_the_new_order_goes_to_the_free_delivery_person():
    """Rulebook example: 1 delivery person has no takeaway order: the new one goes at the end."""
    s = arrange(started(3, 4), grid=FULL_GRID, hands=[[], [], []],
                row=["order-01", "order-02", "order-03"], takeaways=["order-04"],
                served=[["order-05"], [], []], phase="new-order", round_no=2)
    s.apply_action(DrawOrder("order-06"))
    assert s.takeaways == ["order-04", "order-06"] and s.served[0] == ["order-05"]


def test_example_service_too_slow_everyone_loses_their_last_order():
    """Rulebook example: no place for the new order: it goes back to the box and every player
    (the starting player too) removes the last order they served."""
    s = arrange(started(3, 4), grid=FULL_GRID, hands=[[], [], []],
                row=["order-01", "order-02", "order-03"], takeaways=["order-04", "order-07"],
                served=[["order-05", "order-08"], [], ["order-09"]], phase="new-order",
                round_no=2)
    s.apply_action(DrawOrder("order-06"))
    assert s.takeaways == ["order-04", "order-07"]
    assert s.served == [["order-05"], [], []]
    assert sorted(s.box) == ["order-06", "order-08", "order-09"]
    assert "SERVICE IS TOO SLOW" in s.log[-1]["text"]
    shown = Counter(s.truck_card(s.trucks[0]).extras) + Counter(["enchilada"])  # order-05's
    assert s.extras(0) == dict(shown)  # order-05 is on top again


def test_happy_hour_has_one_delivery_person_and_is_too_slow_at_one_takeaway():
    s = started(2, 6, happy_hour=True)
    assert s.delivery_persons == 1 and s.view(0)["delivery_persons"] == 1
    arrange(s, grid=FULL_GRID, hands=[[], []], row=["order-01", "order-02"],
            takeaways=["order-04"], served=[["order-05"], ["order-08"]], phase="new-order",
            round_no=2)
    s.apply_action(DrawOrder("order-06"))
    assert s.takeaways == ["order-04"] and s.served == [[], []]


# --- the unhappy customer --------------------------------------------------------------------


def gloria_and_arthur(gloria=("taco", "taco", "taco", "nachos", "burrito"),
                      arthur=("quesadilla", "quesadilla")) -> FoodTrucksState:
    """Gloria (player 0, Hot Shot Dogs: taco, nachos) holds the unhappy customer; Arthur
    (player 1) last served order-04 (2 nachos, 4 tacos; it shows a quesadilla)."""
    return arrange(started(2, 9), grid=FULL_GRID, hands=[list(gloria), list(arthur)],
                   trucks=["hot-shot-dogs", "kung-food"], row=["order-01", "order-02"],
                   served=[[], ["order-10", "order-04"]], unhappy=0)


def test_example_gloria_steals_an_order_with_the_unhappy_customer():
    """Rulebook example: she serves Arthur's last order with her truck's extra dishes and 4 food
    cards; Arthur gets the 4 food cards and the unhappy customer card."""
    s = gloria_and_arthur()
    s.apply_action(Steal("order-04", ("nachos", "taco", "taco", "taco")))
    assert s.served == [["order-04"], ["order-10"]]
    assert s.hands[1] == {"quesadilla": 2, "taco": 3, "nachos": 1}
    assert s.hands[0] == {"burrito": 1}
    assert s.unhappy == 1 and s.discard == {}
    assert s.extras(1) == {"quesadilla": 2, "enchilada": 1}  # order-10 shows a quesadilla


def test_only_the_holder_steals_and_only_a_last_served_order():
    s = gloria_and_arthur()
    with pytest.raises(IllegalMoveError, match="not the last order served") as err:
        s.apply_action(Steal("order-10", ("taco",)))
    assert err.value.rule == "Unhappy Customer"
    s.unhappy = 1
    s._legal = None
    with pytest.raises(IllegalMoveError, match="does not have the unhappy customer"):
        s.apply_action(Steal("order-04", ("nachos", "taco", "taco", "taco")))


def test_a_stolen_order_is_served_as_usual():
    s = gloria_and_arthur()
    with pytest.raises(IllegalMoveError, match="uncovered"):
        s.apply_action(Steal("order-04", ("taco", "taco", "taco")))


def test_over_twelve_after_a_steal_the_player_stolen_from_discards_down_to_twelve():
    s = gloria_and_arthur(arthur=["quesadilla"] * 10)
    s.apply_action(Steal("order-04", ("nachos", "taco", "taco", "taco")))
    assert s.phase == "discard" and s.current_player() == 1 and s.hand_size(1) == 14
    with pytest.raises(IllegalMoveError, match="holds no burrito") as err:
        s.apply_action(Discard("burrito"))
    assert "12-card limit" in err.value.rule
    with pytest.raises(IllegalMoveError, match="waits for a card discarded"):
        s.apply_action(EndTurn())
    s.apply_action(Discard("taco"))
    s.apply_action(Discard("quesadilla"))
    assert s.hand_size(1) == 12 and s.discard == {"taco": 1, "quesadilla": 1}
    # Gloria holds only a burrito: she cannot serve again, so her turn is over
    assert (s.phase, s.turn) == ("turn", 1)


def test_more_orders_can_be_served_after_a_steal():
    """Note: the stolen order's extra dish (a quesadilla) helps serve another order."""
    s = gloria_and_arthur(gloria=["taco"] * 4 + ["nachos", "burrito", "burrito"])
    assert not any(isinstance(a, Serve) for a in s.legal_actions())
    s.apply_action(Steal("order-04", ("nachos", "taco", "taco", "taco")))
    assert s.extras(0) == {"taco": 1, "nachos": 1, "quesadilla": 1}
    assert (s.phase, s.turn) == ("turn", 0)
    s.apply_action(Serve("order-02", ("burrito", "burrito", "taco")))
    assert s.served[0] == ["order-04", "order-02"]


# --- the end of the game and scores ----------------------------------------------------------


def test_the_game_ends_when_the_first_player_must_draw_from_an_empty_order_deck():
    s = arrange(started(2, 4), grid=FULL_GRID, hands=[[], []], row=["order-01", "order-02"],
                served=[["order-03", "order-04", "order-05"], ["order-06", "order-07"]],
                box=["order-08", "order-09", "order-10", "order-11", "order-12"], turn=1)
    assert s.order_deck == 0
    s.apply_action(Take("a1"))
    for _ in range(4):
        s.play_chance()
    assert s.is_terminal() and "order deck has run out" in s.end_reason


def test_the_game_ends_at_once_when_a_served_order_cannot_be_replaced():
    s = arrange(started(2, 4), grid=FULL_GRID, hands=[["burrito"] * 2 + ["nachos"] * 3, []],
                trucks=["bocata-zapata", "kung-food"], row=["order-01", "order-02"],
                box=[f"order-{k:02d}" for k in range(3, 13)])
    s.apply_action(Serve("order-01", ("burrito", "burrito", "nachos", "nachos")))
    assert s.is_terminal() and s.served[0] == ["order-01"]
    assert s.scores()[0].total == 3


def test_most_coins_wins_ties_by_served_orders_then_cards_in_hand():
    s = arrange(started(3, 4), grid=FULL_GRID, hands=[["taco"], ["taco", "taco"], ["taco"] * 3],
                served=[["order-19"], ["order-03", "order-15"], ["order-07"]])
    assert [x.total for x in s.scores()] == [5, 5, 4]
    assert s.ranking() == [[1], [0], [2]]  # 5 coins each: 2 served orders beat 1
    s.served = [["order-19"], ["order-20", "order-15"], ["order-07"]]
    assert [x.total for x in s.scores()] == [5, 5, 4]
    s.served = [["order-01", "order-09"], ["order-20", "order-15"], ["order-07"]]
    assert s.ranking() == [[1], [0], [2]]  # same coins and orders: more cards in hand
    assert FoodTrucksState.TIEBREAKS[0] == "more served orders in the food truck"


# --- views, undo and saved states ------------------------------------------------------------


def test_views_show_only_your_own_hand_and_the_sizes_of_the_decks():
    s = started(3, 8)
    for viewer in (0, 1, 2, None):
        v = s.view(viewer)
        assert isinstance(v["food_deck"], int) and isinstance(v["order_deck"], int)
        for q, seat in enumerate(v["players"]):
            if q == viewer:
                assert seat["hand"] == dict(sorted(s.hands[q].items()))
            else:
                assert seat["hand"] == s.hand_size(q)
        assert not any(o in json.dumps(v) for o in s.unseen)


def test_undo_takes_back_a_move_but_not_a_draw():
    s = arthur()
    s.apply_action(Serve("order-02", ("burrito", "nachos", "taco", "wild")))
    assert s.phase == "replace"
    s.undo()
    assert s.served[0] == [] and s.hands[0]["wild"] == 1
    s.apply_action(Serve("order-01", ("burrito", "burrito", "nachos", "nachos")))
    s.apply_action(DrawOrder("order-03"))
    with pytest.raises(UndoRefusedError):
        s.undo()


def test_state_json_round_trip_and_replay():
    s = started(4, 12)
    for _ in range(40):
        if s.is_terminal():
            break
        s.play_chance() if s.current_player() == CHANCE else s.apply_action(s.legal_actions()[0])
    saved = json.loads(json.dumps(s.to_json()))
    assert FoodTrucksState.from_json(saved).to_json() == s.to_json()
    assert FoodTrucksState.replay(s.header(), s.log).to_json() == s.to_json()


@pytest.mark.parametrize(("mutate", "message"), [
    (lambda d: d["hands"][0].update(taco=d["hands"][0].get("taco", 0) + 1), "food card"),
    (lambda d: d["row"].__setitem__(0, d["row"][1]), "order card"),
    (lambda d: d.update(order_deck=d["order_deck"] + 1), "should be unseen"),
    (lambda d: d["trucks"].__setitem__(0, d["trucks"][1]), "different truck"),
    (lambda d: d.update(phase="lunch"), "unknown phase"),
    (lambda d: d["hands"][1].update(burrito=20), "food card"),
])
def test_a_saved_state_that_breaks_conservation_is_refused(mutate, message):
    s = started(4, 12)
    saved = json.loads(json.dumps(s.to_json()))
    mutate(saved["state"])
    with pytest.raises(StateFormatError, match=message):
        FoodTrucksState.from_json(saved)


# --- the component data ----------------------------------------------------------------------


def test_shipped_data_holds_every_rulebook_fact():
    c = food_trucks()
    assert sum(c.food.values()) == 68 and c.wild in c.food
    assert len(c.orders) == 24 and len(c.trucks) == 4
    assert all(sum(n for _, n in o.needs) == 6 for o in c.orders)
    assert all(o.extra in c.dishes for o in c.orders)
    assert (c.min_players, c.max_players) == (2, 4)
    assert c.facts == RULEBOOK_FACTS
    assert "provisional" in c.status and c.guessed
    assert food_trucks() is c  # loaded once


def raw_data():
    return yaml.safe_load(DATA.read_text(encoding="utf-8"))


@pytest.mark.parametrize(("mutate", "message"), [
    (lambda r: r["box"].update(food_cards=60), "box food_cards: the rulebook says 68"),
    (lambda r: r["food_cards"][0].update(count=15), "counts add up to 67"),
    (lambda r: r["food_cards"][5].update(wild=False), "exactly one entry must be the wild"),
    (lambda r: r["orders"][2].update(needs={"taco": 5}), "order 'order-03': an order needs 6"),
    (lambda r: r["orders"][3].update(extra="pizza"), "order 'order-04': 'pizza' is not a dish"),
    (lambda r: r["orders"][3].update(extra="wild"), "a wild card is not a dish"),
    (lambda r: r["orders"][4].update(coins=0), "order 'order-05': coins must be"),
    (lambda r: r["orders"][5].update(id="order-01"), "'order-01': id used 2 times"),
    (lambda r: r["orders"].pop(), "the rulebook has 24 order cards, the list has 23"),
    (lambda r: r["trucks"][0].pop("extras"), "truck 'hot-shot-dogs': missing field 'extras'"),
    (lambda r: r["players"].update(max=5), "players"),
    (lambda r: r.update(schema=2), "reads schema 1, not 2"),
    (lambda r: r.pop("status"), "missing field 'status'"),
])
def test_malformed_data_is_refused_naming_the_entry(mutate, message):
    raw = raw_data()
    mutate(raw)
    with pytest.raises(ComponentError) as err:
        parse_food_trucks(raw)
    assert message in str(err.value)


def test_unreadable_or_missing_data_files_are_refused(tmp_path):
    bad = tmp_path / "bad.yaml"
    bad.write_text("orders: [unclosed\n", encoding="utf-8")
    with pytest.raises(ComponentError, match="not valid YAML"):
        load_food_trucks(bad)
    with pytest.raises(ComponentError, match="cannot read"):
        load_food_trucks(tmp_path / "missing.yaml")
    good = tmp_path / "good.yaml"
    good.write_text(DATA.read_text(encoding="utf-8"), encoding="utf-8")
    assert load_food_trucks(good).orders == food_trucks().orders


def test_preparing_with_a_full_hand_is_allowed():
    s = arrange(started(2, 7), grid=FULL_GRID, hands=[["burrito"] * 12, []])
    assert Take("a1") in s.legal_actions()
    s.apply_action(Take("a1"))
    assert s.phase == "return" and s.hand_size(0) == 16
    for cell in ("a1", "b1", "c1", "d1"):
        s.apply_action(ReturnCard("burrito", cell))
    assert s.hands[0] == {"burrito": 8, "taco": 4} and s.grid[:4] == ["burrito"] * 4
    assert (s.phase, s.turn) == ("turn", 1)  # no space left empty: nothing to draw


def test_order_draws_are_equally_likely_among_the_unseen_orders():
    s = FoodTrucksState.new(2, 3)
    odds = s.chance_outcomes()
    assert len(odds) == 24 and all(p == pytest.approx(1 / 24) for _, p in odds)
    s.play_chance()
    assert len(s.chance_outcomes()) == 23 and s.order_deck == 11


@pytest.mark.parametrize("players", [2, 3, 4])
def test_happy_hour_games_end_with_every_card_in_place(players):
    s = FoodTrucksState.new(players, 40 + players, happy_hour=True)
    random_playout(s, 40 + players, before=lambda st, _a, _b: st.check_conservation())
    assert s.is_terminal() and s.order_deck == 0 and len(s.takeaways) <= 1


def test_final_summary_has_scores_ranking_and_card_places():
    s = random_playout(FoodTrucksState.new(3, 17), 17)
    summary = final_summary(s)
    assert summary["game"] == "food-trucks" and summary["end_rule"] == "rulebook"
    assert sorted(summary["scores"]) == ["player 1", "player 2", "player 3"]
    assert all(v["total"] == v["breakdown"]["coins"] for v in summary["scores"].values())
    assert set(summary["tokens"]) == {*s.order_card.ids(), *s.truck_card.ids()}


def test_a_table_is_offered_order_cards_and_trucks_by_what_they_show():
    """The ids are the component list's, not printed on the cards: an offered order card says
    its dishes, extra dish and coins, a truck its name and extras."""
    s = FoodTrucksState.new(3, 0)
    box = food_trucks()
    order = next(o for o in box.orders if o.id == "order-01")
    words = s.describe(DrawOrder("order-01"))
    assert words == "order-01 (burrito 3, nachos 2, taco; extra burrito; 3 coins) is turned up"
    assert all(dish in words for dish, _ in order.needs)
    assert s.describe(DealTruck("hot-shot-dogs")) == \
        "Hot Shot Dogs (extra taco and nachos) is dealt"
    serve = Serve("order-01", ("burrito", "taco"))
    assert s.describe(serve).startswith("serve order-01 (burrito 3") and \
        s.describe(serve).endswith("with burrito, taco")
    assert s.describe(EndTurn()) == str(EndTurn())
