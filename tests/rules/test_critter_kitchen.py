"""Critter Kitchen, every rule, on positions set up by hand with the table supplying chance
outcomes; the readings of docs/rules/critter-kitchen.md; bad moves and bad data."""

from __future__ import annotations

import json

import pytest
import yaml

from companion.rules import CHANCE, SIMULTANEOUS, TERMINAL, UndoRefusedError, player_range
from companion.rules.components import ComponentError
from companion.rules.critter_kitchen import (
    ACADEMY,
    ALLSPICE_ROUND7,
    MERCHANT,
    SOUP,
    TRUCK,
    AddSoup,
    AddSpice,
    CritterKitchenState,
    Discard,
    Draw,
    Leave,
    Pick,
    Plan,
    Present,
    PriorityOrder,
    RevealCard,
    Serve,
    Stop,
    kitchen,
    load_kitchen,
    parse_kitchen,
)
from companion.rules.protocol import ChanceOutcomeError, IllegalMoveError, StateFormatError

S = CritterKitchenState


# --- helpers ----------------------------------------------------------------------------------


def to_planning(players: int = 3, seed: int = 1, order: tuple[int, ...] | None = None,
                critic: str = "critic-gourmand") -> S:
    """A new game through setup and the first round's start, chance from the seeded RNG."""
    s = S.new(players, seed)
    s.apply_action(RevealCard(critic))
    s.apply_action(PriorityOrder(order or tuple(range(players))))
    while s.phase != "plan":
        s.play_chance()
    return s


def clear_locations(s: S) -> None:
    """Every location's tokens back to the bag, bisque to the supply (a hand-built position)."""
    for loc in s.locs:
        for item in list(s.items[loc]):
            info = s.tok.get(item)
            if info is None:
                continue  # the zous-chef stays at the Academy
            s.items[loc].remove(item)
            (s.bisque_supply if info.cls == "bisque" else s.bag).append(item)


def put(s: S, loc: str, *tokens: str) -> None:
    """Move tokens from the bag to a location."""
    for t in tokens:
        s.bag.remove(t)
        s.items[loc].append(t)


def give(s: S, p: int, *tokens: str) -> None:
    """Move tokens from the bag (or bisque supply) behind a player's shield."""
    for t in tokens:
        (s.bisque_supply if t.startswith("bisque") else s.bag).remove(t)
        s.stock[p].append(t)


def plan_all(s: S, *plans: tuple[str, ...]) -> None:
    for p, places in enumerate(plans):
        s.apply_action(Plan(places), player=p)


def to_meals(players: int = 2, challenges: tuple[str, ...] = ("harbour-brunch",),
             held: tuple[str, ...] = (), round_no: int = 3) -> S:
    """A position at step 4 of round 3 (challenge meals) or 7 (critic meal)."""
    s = to_planning(players)
    clear_locations(s)
    for c in s.challenges:
        s.challenge_deck.append(c)
    s.challenges = []
    for c in challenges:
        s.challenge_deck.remove(c)
        s.challenges.append(c)
    s.held = list(held)
    s.round = round_no
    s.sealed = {}
    s._after_running()
    s._legal = None
    s.check_conservation()
    s.mark_origin()
    return s


# --- setup ------------------------------------------------------------------------------------


def test_player_counts_two_to_six():
    assert player_range(S) == (2, 6)
    for n in range(2, 7):
        assert S.new(n, 0).players == n
    for n in (1, 7):
        with pytest.raises(ValueError, match="2 to 6 players"):
            S.new(n, 0)


def test_setup_boards_one_to_player_count_soup_truck_left_merchant_academy_right():
    assert S.new(4, 0).locs == (TRUCK, "1", "2", "3", "4", MERCHANT, ACADEMY)
    assert S.new(2, 0).locs == (TRUCK, "1", "2", MERCHANT, ACADEMY)


def test_setup_critic_face_up_priority_random_one_starting_soup():
    s = S.new(3, 0)
    assert s.current_player() == CHANCE and s.phase == "critic"
    s.apply_action(RevealCard("critic-wine-buff"))
    assert s.critic == "critic-wine-buff" and s.view(None)["critic"] == "critic-wine-buff"
    outcomes = s.chance_outcomes()
    assert len(outcomes) == 6 and sum(p for _, p in outcomes) == pytest.approx(1)
    s.apply_action(PriorityOrder((2, 0, 1)))
    assert s.priority == [2, 0, 1]
    assert s.soup == [1, 1, 1]
    assert all(t in s.bag for t in ("fish-5-a", "spice-wine-1", "allspice-1", "rumor2-1",
                                    "wild-rumor-1"))
    assert ALLSPICE_ROUND7 not in s.bag and not any(t.startswith("bisque") for t in s.bag)


def test_priority_order_must_hold_every_hat_once():
    s = S.new(3, 0)
    s.apply_action(RevealCard("critic-wine-buff"))
    with pytest.raises(ChanceOutcomeError, match="every player's Chef Hat"):
        s.apply_action(PriorityOrder((0, 0, 1)))


def test_round_start_restocks_bisque_challenge_locations_and_zous_chef():
    s = S.new(3, 4)
    s.apply_action(RevealCard("critic-gourmand"))
    s.apply_action(PriorityOrder((0, 1, 2)))
    assert s.items[TRUCK] == ["bisque-1"]  # "Restock bisque"
    assert s.phase == "challenge"
    s.apply_action(RevealCard("fondue-night"))
    assert s.challenges == ["fondue-night"]
    assert s.draws == ["1"] * 4 + ["2"] * 4 + ["3"] * 4
    while s.draws:
        s.play_chance()
    assert all(len(s.items[str(n)]) == 4 for n in (1, 2, 3))
    assert s.phase == "zous"
    s.apply_action(RevealCard("otter"))
    assert s.items[ACADEMY] == ["otter"]
    assert s.current_player() == SIMULTANEOUS and s.all_choosers() == [0, 1, 2]


def test_a_draw_not_in_the_bag_is_refused():
    s = S.new(2, 4)
    s.apply_action(RevealCard("critic-gourmand"))
    s.apply_action(PriorityOrder((0, 1)))
    s.apply_action(RevealCard("fondue-night"))
    s.apply_action(Draw("fish-5-a"))
    with pytest.raises(ChanceOutcomeError, match="not a token in the bag"):
        s.apply_action(Draw("fish-5-a"))
    with pytest.raises(ChanceOutcomeError):
        s.apply_action(RevealCard("otter"))


# --- planning ---------------------------------------------------------------------------------


def test_planning_is_simultaneous_sealed_and_revealed_together():
    s = to_planning(3)
    log = len(s.log)
    s.apply_action(Plan((TRUCK, "1", "2")), player=1)
    assert len(s.log) == log and s.acting_players() == [0, 2]
    assert s.view(1)["players"][1]["plan"] == [TRUCK, "1", "2"]
    for viewer in (0, 2, None):
        seat = s.view(viewer)["players"][1]
        assert seat["plan"] is None and seat["has_planned"] is True
    s.apply_action(Plan(("1", "2", "3")), player=0)
    s.apply_action(Plan((MERCHANT, ACADEMY, TRUCK)), player=2)
    assert len(s.log) == log + 1 and s.log[-1]["actor"] == "all"
    assert s.phase == "run" and s.view(0)["players"][1]["revealed_plan"] == [TRUCK, "1", "2"]
    with pytest.raises(UndoRefusedError):
        s.undo()


def test_each_chef_must_go_to_a_different_location():
    s = to_planning(2)
    with pytest.raises(IllegalMoveError, match="different location") as err:
        s.apply_action(Plan(("1", "1", TRUCK)), player=0)
    assert err.value.rule == "Assigning Chefs"
    with pytest.raises(IllegalMoveError, match="exactly 3 chefs"):
        s.apply_action(Plan(("1", TRUCK)), player=0)


def test_location_cards_match_active_locations_only():
    s = to_planning(2)
    with pytest.raises(IllegalMoveError, match="'3' is not an active location"):
        s.apply_action(Plan(("1", "3", TRUCK)), player=0)
    assert len(s.legal_actions(0)) == 5 * 4 * 3


def test_a_move_at_the_wrong_step_names_what_the_game_waits_for():
    s = to_planning(2)
    with pytest.raises(IllegalMoveError, match="Location Cards"):
        s.apply_action(Leave(), player=0)
    with pytest.raises(IllegalMoveError, match="not an action of this game"):
        s.apply_action("plan", player=0)  # type: ignore[arg-type]


# --- shopping ---------------------------------------------------------------------------------


def shop(players: int = 3, order: tuple[int, ...] | None = None) -> S:
    s = to_planning(players, order=order)
    clear_locations(s)
    s.mark_origin()
    return s


def test_mouse_picks_first_then_lizard_then_boar():
    s = shop(3)
    put(s, "1", "fish-7-a", "meat-7-a", "wine-7-a", "bread-2-a", "bread-3-a", "bread-4-a")
    # player 0's boar, player 1's lizard, player 2's mouse all at location 1
    plan_all(s, (TRUCK, "2", "1"), (TRUCK, "1", "2"), ("1", TRUCK, "2"))
    assert s.current_player() == 0 and s.run["loc"] == TRUCK  # truck resolves first
    for _ in range(3):
        s.apply_action(Leave())  # the truck's chefs: mice 0, 1 then lizard 2
    assert s.run["loc"] == "1" and s.run["active"] == [2, "mouse"]
    s.apply_action(Pick("fish-7-a"))
    assert s.run["active"] == [1, "lizard"]
    s.apply_action(Pick("meat-7-a"))
    s.apply_action(Pick("wine-7-a"))
    assert s.run["active"] == [0, "boar"]
    assert "fish-7-a" in s.stock[2] and {"meat-7-a", "wine-7-a"} <= set(s.stock[1])


def test_carrying_capacity_ends_the_turn_and_fewer_may_be_carried():
    s = shop(2)
    put(s, "1", "fish-2-a", "fish-3-a", "fish-4-a", "fish-5-a", "fish-6-a")
    plan_all(s, (TRUCK, "2", "1"), (TRUCK, "2", MERCHANT))
    s.apply_action(Leave())
    s.apply_action(Leave())
    assert s.run["loc"] == "1" and s.run["active"] == [0, "boar"]
    with pytest.raises(IllegalMoveError, match="pick an item or leave early"):
        s.apply_action(Stop())
    for t in ("fish-2-a", "fish-3-a", "fish-4-a"):
        s.apply_action(Pick(t))
    assert sorted(s.stock[0]) == ["fish-2-a", "fish-3-a", "fish-4-a"]  # boar carries 3
    assert s.run["loc"] != "1" or s.run["active"] != [0, "boar"]


def test_alike_tokens_are_one_choice_and_either_may_be_named():
    s = shop(2)
    put(s, "1", "fish-5-a", "fish-5-b")
    plan_all(s, ("1", TRUCK, "2"), (TRUCK, "2", MERCHANT))
    assert s.run["active"] == [1, "mouse"] and s.run["loc"] == TRUCK
    s.apply_action(Leave())
    s.apply_action(Leave())
    assert s.run["loc"] == "1" and s.run["active"] == [0, "mouse"]
    picks = [a for a in s.legal_actions() if isinstance(a, Pick)]
    assert picks == [Pick("fish-5-a")]
    s.apply_action(Pick("fish-5-b"))
    assert s.stock[0] == ["fish-5-b"]


def test_priority_track_breaks_ties_and_the_first_moves_to_the_back():
    s = shop(3, order=(1, 2, 0))
    put(s, "1", "fish-7-a", "meat-7-a", "wine-7-a")
    plan_all(s, ("1", TRUCK, "2"), ("1", "2", TRUCK), ("1", "2", "3"))
    while s.run["loc"] != "1":
        s.apply_action(Leave() if s.run["taken"] == 0 else Stop())
    # three mice tied at location 1: player 1 is ahead on the track
    assert s.run["active"] == [1, "mouse"]
    assert s.priority == [2, 0, 1]  # "must move their Chef Hat to the back"
    s.apply_action(Pick("fish-7-a"))
    assert s.run["active"] == [2, "mouse"]  # only the first moves; the order holds
    s.apply_action(Pick("meat-7-a"))
    assert s.run["active"] == [0, "mouse"] and s.priority == [2, 0, 1]


def test_consolation_soup_when_a_chef_returns_with_nothing():
    s = shop(2)
    put(s, "1", "fish-7-a")
    plan_all(s, (TRUCK, "1", "2"), (TRUCK, "2", "1"))
    s.apply_action(Pick(SOUP))  # player 0's mouse at the truck: soup
    s.apply_action(Leave())  # player 1's mouse leaves early: consolation soup
    assert s.soup == [2, 2]
    assert s.run["active"] == [0, "lizard"] and s.run["loc"] == "1"
    s.apply_action(Pick("fish-7-a"))
    # player 1's boar at location 1 finds nothing: takes 1 soup with no choice; so do both
    # chefs at the empty location 2
    assert s.soup == [3, 4]
    assert [e["text"] for e in s.log[-2:]] == [
        "blue's mouse leaves truck early for consolation soup", "red's lizard picks fish-7-a at 1"]


def test_leave_early_only_before_picking():
    s = shop(2)
    put(s, "1", "fish-7-a", "fish-6-a")
    plan_all(s, ("1", TRUCK, "2"), (TRUCK, "2", MERCHANT))
    s.apply_action(Leave())
    assert s.run["active"] == [0, "lizard"] and s.run["loc"] == TRUCK
    s.apply_action(Pick(SOUP))
    with pytest.raises(IllegalMoveError, match="only before picking") as err:
        s.apply_action(Leave())
    assert err.value.rule == "Consolation Soup"


def test_soup_truck_has_unlimited_soup():
    s = shop(2)
    plan_all(s, ("1", "2", TRUCK), ("1", "2", MERCHANT))
    while s.run["loc"] != TRUCK or s.run["active"] != [0, "boar"]:
        s.apply_action(s.legal_actions()[-1])
    before = s.soup[0]
    for n in (1, 2):
        s.apply_action(Pick(SOUP))
        assert s.soup[0] == before + n and Pick(SOUP) in s.legal_actions()


def test_midnight_merchant_draws_from_the_bag_when_resolved():
    s = shop(2)
    plan_all(s, (MERCHANT, "1", "2"), (TRUCK, "1", "2"))
    assert s.items[MERCHANT] == []
    s.apply_action(Leave())  # player 1's mouse at the truck
    while s.run.get("loc") != MERCHANT:
        s.apply_action(s.legal_actions()[-1])
    assert s.current_player() == CHANCE and s.draws == [MERCHANT] * 4
    for t in ("cheese-7-a", "cheese-6-a", "cheese-5-a", "cheese-4-a"):
        s.apply_action(Draw(t))
    assert s.run["active"] == [0, "mouse"]
    assert sorted(s.items[MERCHANT]) == ["cheese-4-a", "cheese-5-a", "cheese-6-a", "cheese-7-a"]


def test_merchant_without_chefs_draws_nothing():
    s = shop(2)
    plan_all(s, (TRUCK, "1", "2"), (TRUCK, "1", "2"))
    while s.run.get("loc") in (TRUCK, "1", "2"):
        s.apply_action(s.legal_actions()[-1])
    assert not s.draws and s.items[MERCHANT] == []


def test_leftovers_move_to_the_academy_then_to_the_soup_truck_rumors_leave():
    s = shop(2)
    put(s, "1", "fish-7-a", "rumor1-1")
    put(s, TRUCK, "bread-2-a")
    plan_all(s, ("2", MERCHANT, TRUCK), ("2", MERCHANT, TRUCK))
    while s.run.get("loc") == TRUCK:
        s.apply_action(Stop() if s.run["taken"] else Leave())
    assert "bread-2-a" in s.items[ACADEMY]  # the truck's leftovers too
    while s.phase == "run":
        s.play_chance() if s.current_player() == CHANCE else s.apply_action(
            s.legal_actions()[-1])
    assert "rumor1-1" in s.removed
    # no one at location 1 or the Academy: their leftovers pass on to the truck
    assert {"fish-7-a", "bread-2-a"} <= set(s.items[TRUCK])
    zous = next(z.id for z in s.components.zous_chefs if z.id in s.used_cards)
    assert zous not in s.items[TRUCK]


def test_zous_chef_must_work_the_next_round_then_leaves():
    s = shop(2)
    zous = s.items[ACADEMY][0]
    plan_all(s, (TRUCK, "1", ACADEMY), (TRUCK, "1", "2"))
    while s.run.get("loc") != ACADEMY:
        s.apply_action(Stop() if s.run["taken"] else Leave())
    s.apply_action(Pick(zous))
    assert s.round == 2 and s.zous_now[0] == zous  # the Academy was the last location
    while s.phase != "plan":
        s.play_chance() if s.current_player() == CHANCE else s.apply_action(
            s.legal_actions()[-1])
    assert s.zous_now[0] == zous and len(s.chefs(0)) == 4
    with pytest.raises(IllegalMoveError, match="exactly 4 chefs"):
        s.apply_action(Plan((TRUCK, "1", "2")), player=0)
    assert all(len(a.places) == 4 for a in s.legal_actions(0))
    s.apply_action(Plan((TRUCK, "1", "2", MERCHANT)), player=0)
    s.apply_action(Plan((TRUCK, "1", "2")), player=1)
    while s.round == 2:
        s.play_chance() if s.current_player() == CHANCE else s.apply_action(
            s.legal_actions()[-1])
    assert s.zous_now[0] is None and zous in s.used_cards  # "remove used zous-chefs"


def test_zous_chef_queue_and_soup_bonus():
    s = shop(2)
    s.zous_now[0] = "hedgehog"  # carries 1, picks with the mice, 2 extra soup
    # taken from the deck, or from the Chef Academy if the seeded game revealed it there
    (s.zous_deck if "hedgehog" in s.zous_deck else s.items[ACADEMY]).remove("hedgehog")
    s.mark_origin()
    put(s, "1", "fish-7-a")
    put(s, "2", "bread-7-a")
    plan_all(s, (TRUCK, "2", MERCHANT, "1"), (TRUCK, "2", "1"))
    while s.run.get("loc") != "1":
        s.apply_action(Stop() if s.run["taken"] else Leave())
    assert s.run["active"] == [0, "hedgehog"]  # before player 1's boar
    soup = s.soup[0]
    s.apply_action(Pick("fish-7-a"))
    assert s.soup[0] == soup + 2


# --- rumors -----------------------------------------------------------------------------------


def rumor_shop(players: int = 2) -> S:
    s = shop(players)
    put(s, "1", "rumor2-1", "wild-rumor-1", "rumor2-2")
    return s


def test_a_rumor_token_peeks_privately_and_undo_cannot_cross_it():
    s = rumor_shop()
    plan_all(s, (TRUCK, "1", "2"), ("1", TRUCK, "2"))
    s.apply_action(Leave())
    s.apply_action(Leave())
    assert s.run["active"] == [1, "mouse"]
    s.apply_action(Pick("rumor2-1"))
    assert s.current_player() == CHANCE and s.peek == [1, 2]
    s.apply_action(RevealCard("rumor-hot-kitchen"))
    entry = s.log[-1]
    assert entry["private_to"] == 1 and "rumor-hot-kitchen" not in entry["public_text"]
    assert s.view(1)["rumors"] == [None, "rumor-hot-kitchen", None]
    assert s.view(0)["rumors"] == [None, None, None] and s.view(None)["rumors"][1] is None
    assert "rumor-hot-kitchen" not in json.dumps(s.public_log(0))
    with pytest.raises(UndoRefusedError):
        s.undo()


def test_wild_rumor_must_go_to_an_empty_rumor_space():
    s = rumor_shop()
    s.spaces[0][1] = "rumor1-1"
    s.bag.remove("rumor1-1")
    s.rumors[0] = "rumor-prime-cut"
    s.rumor_deck.remove("rumor-prime-cut")
    s.mark_origin()
    plan_all(s, ("1", TRUCK, "2"), (TRUCK, "1", "2"))
    s.apply_action(Leave())
    s.apply_action(Leave())
    assert s.run["active"] == [0, "mouse"] and s.run["loc"] == "1"
    wild = [a for a in s.legal_actions() if isinstance(a, Pick) and a.item == "wild-rumor-1"]
    assert wild == [Pick("wild-rumor-1", 2), Pick("wild-rumor-1", 3)]
    with pytest.raises(IllegalMoveError) as err:
        s.apply_action(Pick("wild-rumor-1", 1))
    assert err.value.rule == "Wild Rumors"
    with pytest.raises(IllegalMoveError, match="only a wild rumor"):
        s.apply_action(Pick("rumor2-1", 3))
    with pytest.raises(IllegalMoveError, match="fish-2-a is not at 1"):
        s.apply_action(Pick("fish-2-a"))
    s.apply_action(Pick("wild-rumor-1", 3))
    assert s.spaces[0][3] == "wild-rumor-1" and s.peek == [0, 3]


def test_rumor_known_by_everyone_flips_face_up_and_later_tokens_leave():
    s = rumor_shop()
    s.spaces[0][2] = "rumor2-3"
    s.bag.remove("rumor2-3")
    s.mark_origin()
    plan_all(s, (TRUCK, "2", MERCHANT), ("1", TRUCK, "2"))
    s.apply_action(Leave())
    s.apply_action(Leave())
    s.apply_action(Pick("rumor2-1"))  # player 1 now knows rumor 2 too
    s.apply_action(RevealCard("rumor-fresh-bread"))
    assert s.rumor_up == [False, True, False]
    assert s.view(None)["rumors"][1] == "rumor-fresh-bread"
    # a matching token drawn later is removed from the game and the slot drawn again
    s.draws = [MERCHANT]
    s.apply_action(Draw("rumor2-4"))
    assert "rumor2-4" in s.removed and s.draws == [MERCHANT]


# --- challenge meals --------------------------------------------------------------------------


def test_hold_token_covers_the_rightmost_ingredient_of_each_days_last_challenge():
    s = to_planning(2)
    assert s.held == []
    s.held = ["harbour-brunch"]
    assert s.needs("harbour-brunch") == ("bread", "fish")
    s2 = S.new(2, 3)
    s2.apply_action(RevealCard("critic-gourmand"))
    s2.apply_action(PriorityOrder((0, 1)))
    for round_no in (1, 2, 3):
        s2.round = round_no
        s2.phase = "challenge"
        card = s2.challenge_deck[0]
        s2.draws = []
        s2.apply_action(RevealCard(card))
        assert (card in s2.held) == (round_no == 3)


@pytest.mark.parametrize(("quality", "stars"), [(5, 0), (6, 1), (11, 1), (12, 2), (20, 2),
                                                (21, 4), (30, 4)])
def test_quality_table_worked(quality, stars):
    s = to_meals()
    plate = {"card": "x", "slots": {"fish": "fish-2-a"}, "spices": {}, "extra": [SOUP] * (
        quality - 2)}
    assert s.quality(plate) == quality
    assert s.meal_stars(plate) == stars


def test_challenge_meal_scored_with_spice_doubling_and_soup_substitute():
    s = to_meals(challenges=("harbour-brunch",))  # bread, fish, cheese
    give(s, s.order[0], "fish-7-a", "spice-fish-1", "bread-2-a")
    p = s.order[0]
    s.apply_action(Serve(0, "fish-7-a"))
    s.apply_action(AddSpice(0, "spice-fish-1", "fish"))
    s.apply_action(Serve(0, "bread-2-a"))
    s.apply_action(AddSoup(0, SOUP, "cheese"))
    assert s.quality(s.plates[p][0]) == 14 + 2 + 1
    s.apply_action(Present())
    assert s.stars[p]["challenges_day_1"] == 2
    assert {"fish-7-a", "spice-fish-1", "bread-2-a"} <= set(s.bag) and s.soup[p] == 0


def test_meal_must_fill_every_required_ingredient_and_cannot_be_all_soup():
    s = to_meals(challenges=("harbour-brunch",), held=("harbour-brunch",))  # bread, fish
    p = s.order[0]
    give(s, p, "bisque-1", "bisque-2")
    s.soup[p] = 5
    s.apply_action(AddSoup(0, "bisque-1", "bread"))
    s.apply_action(AddSoup(0, "bisque-2", "fish"))
    s.apply_action(AddSoup(0, SOUP))
    assert s.quality(s.plates[p][0]) == 7 and s.meal_stars(s.plates[p][0]) == 0
    s.apply_action(Present())
    assert s.stars[p]["challenges_day_1"] == 0
    assert sorted(s.stock[p]) == ["bisque-1", "bisque-2"] and s.soup[p] == 5  # returned


def test_spice_pairs_with_its_type_allspice_with_any():
    s = to_meals(challenges=("harbour-brunch",))
    p = s.order[0]
    give(s, p, "fish-7-a", "spice-wine-1", "allspice-1")
    s.apply_action(Serve(0, "fish-7-a"))
    with pytest.raises(IllegalMoveError, match="pairs only with wine") as err:
        s.apply_action(AddSpice(0, "spice-wine-1", "fish"))
    assert err.value.rule == "Item Types"
    s.apply_action(AddSpice(0, "allspice-1", "fish"))
    assert s.quality(s.plates[p][0]) == 14


def test_only_required_ingredients_go_on_a_challenge_plate():
    s = to_meals(challenges=("harbour-brunch",))
    give(s, s.order[0], "wine-7-a")
    with pytest.raises(IllegalMoveError, match="not a missing required") as err:
        s.apply_action(Serve(0, "wine-7-a"))
    assert err.value.rule == "Challenge Meals"
    with pytest.raises(IllegalMoveError, match="not behind your shield"):
        s.apply_action(Serve(0, "fish-7-b"))


def test_refrigeration_limit_after_round_3_keeps_five_discards_are_private():
    s = to_meals(challenges=("harbour-brunch",))
    first = s.order[0]
    give(s, first, "wine-2-a", "wine-3-a", "wine-4-a", "wine-5-a", "wine-6-a", "wine-7-a",
         "spice-wine-1", "bisque-1")
    s.soup[first] = 4
    s.apply_action(Present())
    s.apply_action(Present())
    assert s.phase == "fridge" and s.current_player() == first
    assert len(s.legal_actions()) == 7  # six wines and the spice; bisque and soup not counted
    s.apply_action(Discard("wine-2-a"))
    entry = s.log[-1]
    assert entry["private_to"] == first and "wine-2-a" not in entry["public_text"]
    assert s.current_player() == first
    s.apply_action(Discard("spice-wine-1"))
    assert s.phase == "challenge" and s.round == 4  # next round
    assert len(s.stock[first]) == 6 and "bisque-1" in s.stock[first]


def test_refrigeration_limit_after_round_6_keeps_ten():
    s = to_meals(challenges=("harbour-brunch",), round_no=6)
    first = s.order[0]
    give(s, first, *[f"wine-{v}-{c}" for v in range(2, 8) for c in "ab"])
    s.apply_action(Present())
    s.apply_action(Present())
    for _ in range(2):
        s.apply_action(s.legal_actions()[0])
    assert s.round == 7 and len(s.stock[first]) == 10


# --- critic meal and final scoring ------------------------------------------------------------


def test_round_7_academy_offers_the_allspice_token():
    s = to_planning(2)
    clear_locations(s)
    s.used_cards += s.items[ACADEMY]
    s.items[ACADEMY] = []
    s.round = 7
    s._start_round()
    s._advance()
    while s.current_player() == CHANCE:
        s.play_chance()
    assert ALLSPICE_ROUND7 in s.items[ACADEMY] and s.phase == "plan"


def critic_position() -> S:
    s = to_meals(players=3, challenges=(), round_no=7)
    assert s.phase == "feast"
    return s


def serve_all(s: S, p: int, tokens: list[str], spices: dict[str, str] | None = None) -> None:
    give(s, p, *tokens, *(spices or {}).values())
    for t in tokens:
        s.apply_action(Serve(0, t))
    for kind, sp in (spices or {}).items():
        s.apply_action(AddSpice(0, sp, kind))
    s.apply_action(Present())


def test_critic_meal_one_ingredient_per_course_and_no_soup():
    s = critic_position()
    p = s.order[0]
    give(s, p, "fish-7-a", "fish-6-a")
    s.apply_action(Serve(0, "fish-7-a"))
    with pytest.raises(IllegalMoveError, match="already has its 1 ingredient") as err:
        s.apply_action(Serve(0, "fish-6-a"))
    assert err.value.rule == "Critic Meal"
    with pytest.raises(IllegalMoveError, match="no soup allowed"):
        s.apply_action(AddSoup(0, SOUP))


def test_critic_scoring_soup_all_courses_best_course_rumors_critic_ties_full():
    s = critic_position()
    a, b, c = s.order
    s.soup = [0, 0, 0]
    s.soup[a] = 3
    give(s, b, "bisque-1")  # b: 3 from a bisque; a and b tie on most soup
    types = ["bread", "carrot", "cheese", "fish", "meat", "mushroom", "wine"]
    serve_all(s, a, [f"{t}-7-a" for t in types], {"fish": "spice-fish-1"})
    serve_all(s, b, [f"{t}-7-b" for t in types[:6]])  # no wine course
    serve_all(s, c, ["wine-2-a"])
    assert s.phase == "final" and s.current_player() == CHANCE
    for card in ("rumor-catch-of-the-day", "rumor-fresh-bread", "rumor-prime-cut"):
        s.apply_action(RevealCard(card))
    assert s.current_player() == TERMINAL and s.end_reason
    stars = s.stars
    assert stars[a]["most_soup"] == stars[b]["most_soup"] == 1 and stars[c]["most_soup"] == 0
    assert stars[a]["all_7_courses"] == 1 and stars[b]["all_7_courses"] == 0
    # a and b tie on six courses (7 each), a alone has the spiced fish (14) and the wine
    assert stars[a]["best_courses"] == 7 and stars[b]["best_courses"] == 5
    assert stars[c]["best_courses"] == 0
    # catch of the day: best fish (a); fresh bread: bread 6+ (a and b); prime cut: best meat
    assert stars[a]["rumors"] == 3 and stars[b]["rumors"] == 2
    assert stars[a]["critic"] == 2 and stars[b]["critic"] == 0  # gourmand: best total
    scores = s.scores()
    assert scores[a].total == sum(stars[a].values())
    assert s.ranking()[0] == [a]
    assert s.view(None)["rumors"] == ["rumor-catch-of-the-day", "rumor-fresh-bread",
                                      "rumor-prime-cut"]


def test_most_soup_needs_some_soup():
    s = critic_position()
    s.soup = [0, 0, 0]
    for _ in range(3):
        s.apply_action(Present())
    for card in s.rumor_deck[:3]:
        s.apply_action(RevealCard(card))
    assert all(st["most_soup"] == 0 for st in s.stars)


# --- persistence and data ---------------------------------------------------------------------


def test_saved_state_round_trips_and_a_duplicated_token_is_refused():
    s = to_planning(3)
    s.apply_action(Plan((TRUCK, "1", "2")), player=1)
    saved = json.loads(json.dumps(s.to_json()))
    back = S.from_json(saved)
    assert back.to_json() == s.to_json() and back.sealed == s.sealed
    saved["state"]["stock"][0].append(saved["state"]["bag"][0])
    with pytest.raises(StateFormatError, match="exactly once"):
        S.from_json(saved)


def test_shipped_data_is_provisional_and_holds_the_rulebooks_facts():
    k = kitchen()
    assert kitchen() is k  # cached
    assert k.types == ("bread", "carrot", "cheese", "fish", "meat", "mushroom", "wine")
    assert {t.value for t in k.tokens if t.cls == "ingredient"} == set(range(2, 8))
    assert {t.type for t in k.tokens if t.cls == "spice"} == set(k.types) | {None}
    assert {t.type for t in k.tokens if t.cls == "rumor"} == {0, 1, 2, 3}
    assert k.chefs == (("mouse", 1, 1), ("lizard", 2, 2), ("boar", 3, 3))
    assert all(t.value == 3 for t in k.tokens if t.cls == "bisque")
    raw = yaml.safe_load(_data_text())
    assert raw["status"].startswith("provisional") and raw["guessed"]


def _data_text() -> str:
    from importlib import resources
    return (resources.files("companion.rules") / "data" / "critter_kitchen.yaml").read_text(
        encoding="utf-8")


@pytest.mark.parametrize(("change", "message"), [
    (lambda r: r["ingredients"].update(values=[1, 2, 3]), "values are 2-7"),
    (lambda r: r["ingredients"]["types"].pop(), "7 different types"),
    (lambda r: r["chefs"][0].update(capacity=2), "mouse \\(carries 1"),
    (lambda r: r["challenges"][0].update(needs=["fish", "tofu"]), "challenge 'harbour-brunch'"),
    (lambda r: r["critics"][0].update(condition="loudest"), "critic 'critic-gourmand'"),
    (lambda r: r["zous_chefs"][1].update(capacity=2, queue=0, soup_bonus=0), "unique ability"),
    (lambda r: r["rumors"].append(dict(r["rumors"][0])), "id used twice"),
    (lambda r: r.pop("bisque"), "missing field 'bisque'"),
    (lambda r: r["challenge_stars"][2].update(stars=3), "21\\+: 4"),
    (lambda r: r.update(schema=2), "schema 1"),
    (lambda r: r.update(location_cards=8), "6 players need 9 location cards"),
])
def test_malformed_data_is_refused_naming_the_entry(change, message):
    raw = yaml.safe_load(_data_text())
    change(raw)
    with pytest.raises(ComponentError, match=message):
        parse_kitchen(raw)


def test_data_that_is_not_yaml_is_refused_clearly(tmp_path):
    bad = tmp_path / "critter_kitchen.yaml"
    bad.write_text("schema: [1\n", encoding="utf-8")
    with pytest.raises(ComponentError, match="not valid YAML"):
        load_kitchen(bad)
    with pytest.raises(ComponentError, match="cannot read"):
        load_kitchen(tmp_path / "missing.yaml")


# --- readings (docs/rules/critter-kitchen.md) -------------------------------------------------


def test_a_rumor_already_known_leaves_the_game():
    s = rumor_shop()
    s.spaces[1][2] = "rumor2-3"
    s.bag.remove("rumor2-3")
    s.rumors[1] = "rumor-prime-cut"
    s.rumor_deck.remove("rumor-prime-cut")
    s.mark_origin()
    plan_all(s, (TRUCK, "2", MERCHANT), ("1", TRUCK, "2"))
    s.apply_action(Leave())
    s.apply_action(Leave())
    s.apply_action(Pick("rumor2-1"))
    assert "rumor2-1" in s.removed and s.spaces[1] == {2: "rumor2-3"}


def test_a_tie_winner_who_leaves_early_still_moves_to_the_back():
    s = shop(2, order=(1, 0))
    plan_all(s, (TRUCK, "1", "2"), (TRUCK, "2", "1"))
    assert s.run["active"] == [1, "mouse"] and s.priority == [0, 1]
    s.apply_action(Leave())
    assert s.priority == [0, 1]


def test_restock_stops_when_the_bag_runs_out():
    s = S.new(2, 0)
    s.apply_action(RevealCard("critic-gourmand"))
    s.apply_action(PriorityOrder((0, 1)))
    keep = s.bag[:3]
    for t in s.bag[3:]:
        s.removed.append(t)
    s.bag = keep
    s.apply_action(RevealCard("fondue-night"))
    assert s.draws == ["1", "1", "1"]


def test_a_rumor_token_leaving_the_game_as_the_bag_runs_out_leaves_no_slot_to_fill():
    # the drawn token leaves the game, so its slot waits for another; with one token fewer in
    # the bag, one slot fewer is filled and the restock ends when the bag is empty
    s = S.new(2, 0)
    s.apply_action(RevealCard("critic-gourmand"))
    s.apply_action(PriorityOrder((0, 1)))
    keep = ["rumor1-1", *[t for t in s.bag if not t.startswith("rumor")][:2]]
    s.removed += [t for t in s.bag if t not in keep]
    s.bag = list(keep)
    s.rumor_up[0] = True
    s.apply_action(RevealCard("fondue-night"))
    assert s.draws == ["1", "1", "1"]
    s.apply_action(Draw("rumor1-1"))
    assert "rumor1-1" in s.removed and s.draws == ["1", "1"]
    for token in keep[1:]:
        assert s.phase == "restock"
        s.apply_action(Draw(token))
    assert s.bag == [] and s.draws == [] and s.phase != "restock"
    assert s.legal_actions()


def test_challenge_meals_are_prepared_in_priority_order_in_the_open():
    s = to_meals(players=3, challenges=("harbour-brunch", "garden-plate"))
    assert s.order == s.priority and s.current_player() == s.priority[0]
    p = s.order[0]
    give(s, p, "fish-7-a")
    s.apply_action(Serve(0, "fish-7-a"))
    for viewer in (None, *range(3)):
        assert s.view(viewer)["players"][p]["plates"][0]["slots"]["fish"] == "fish-7-a"


def test_restaurateurs_are_left_out_no_table_options():
    assert S.TABLE_OPTIONS == {}
    with pytest.raises(ValueError, match="unknown table option"):
        S.new(2, 0, restaurateurs=True)


def test_unclaimed_zous_chef_leaves_with_the_round():
    s = shop(2)
    zous = s.items[ACADEMY][0]
    plan_all(s, (TRUCK, "1", "2"), (TRUCK, "1", "2"))
    while s.round == 1:
        s.apply_action(s.legal_actions()[-1])
    assert zous in s.used_cards and all(z is None for z in s.zous_now)


def test_round_table_day_1_scores_after_round_3_day_2_after_6_critic_after_7():
    from companion.rules.simulate import random_playout

    seen: set[tuple[int, str]] = set()
    random_playout(S.new(3, 21), 21,
                   before=lambda st, _a, _x: seen.add((st.round, st.phase)))  # type: ignore[attr-defined]
    meals = sorted(r for r, ph in seen if ph in ("meals", "fridge"))
    assert set(meals) == {3, 6}
    assert {r for r, ph in seen if ph in ("feast", "final")} == {7}
    assert {r for r, ph in seen if ph == "challenge"} == {1, 2, 3, 4, 5, 6}
    assert {r for r, ph in seen if ph == "plan"} == set(range(1, 8))


def test_a_table_reads_the_priority_track_by_colour_and_a_plan_chef_by_chef():
    s = CritterKitchenState.new(4, 1)
    order = PriorityOrder((2, 0, 1, 3))
    assert s.describe(order) == "priority track, front first: " + ", ".join(
        s.player_name(p) for p in (2, 0, 1, 3))
    assert "0" not in s.describe(order)
    assert s.describe(Plan(("truck", "academy", "market"))) == \
        "plan: mouse to truck, lizard to academy, boar to market"
