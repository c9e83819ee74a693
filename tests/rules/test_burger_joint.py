"""Burger Joint, every rule: setup, production, trading and abilities, building, scoring,
discarding, the data file, saving and views (readings: docs/rules/burger-joint.md)."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import pytest
import yaml

from companion.rules import CHANCE, TERMINAL, ChanceOutcomeError, IllegalMoveError
from companion.rules.burger_joint import (
    MAX_TURNS,
    REFEREE_TURN_LIMIT,
    BuildBistro,
    BuildDiner,
    BuildRestaurant,
    BurgerJointState,
    BuyPublicity,
    Discard,
    DrawCubes,
    EndBuilding,
    ExtraChosen,
    ExtraRandom,
    OneForOne,
    Redraw,
    TakeCube,
    Trade,
    TwoForOne,
    burger_joint,
    load_burger_joint,
    parse_burger_joint,
)
from companion.rules.components import ComponentError
from companion.rules.protocol import StateFormatError, UndoRefusedError
from companion.rules.simulate import steps

BURGER, PIZZA = 0, 1
DATA = Path(__file__).resolve().parents[2] / "companion" / "rules" / "data" / "burger_joint.yaml"


def position(storage: tuple[dict[str, int], dict[str, int]] = ({}, {}), *, active: int = BURGER,
             phase: str = "trade", basics: tuple[int, int] | None = None,
             diners: tuple[list[str], list[str]] | None = None,
             bistros: tuple[list[str], list[str]] = ([], []),
             publicity: tuple[int, int] = (0, 0)) -> BurgerJointState:
    """A position set up by hand: the cubes in storage, the buildings; every other cube is in
    the bag. Phase 'production' starts that turn's production."""
    s = BurgerJointState.new(2, 0)
    for area in s.areas.values():
        for c in area:
            area[c] = 0
    s.storage = [dict.fromkeys(s.colours, 0) for _ in range(2)]
    for p in range(2):
        s.storage[p].update(storage[p])
    s.bag = {c: 10 - s.storage[0][c] - s.storage[1][c] for c in s.colours}
    if basics is not None:
        s.basics = list(basics)
    if diners is not None:
        s.diners = [list(diners[0]), list(diners[1])]
    s.bistros = [list(bistros[0]), list(bistros[1])]
    s.publicity = list(publicity)
    s.active = s.picker = active
    s.used, s.publicity_bought = [], 0
    if phase == "production":
        s._start_production()
    else:
        s.phase = phase
        s.to_draw = 0
    s._legal = None
    s.check_conservation()
    s.mark_origin()
    return s


def cubes(**counts: int) -> dict[str, int]:
    return dict(counts)


# --- setup -----------------------------------------------------------------------------------


def test_setup_burger_joint_and_black_yellow_diners_pizza_pavilion_green_red():
    s = BurgerJointState.new(2, 5)
    assert s.basics == [1, 1]
    assert s.diners == [["black", "yellow"], ["green", "red"]]
    assert s.bistros == [[], []]
    assert [s.tokens_left(p) for p in (BURGER, PIZZA)] == [12, 12]  # three tokens placed
    assert s.bag_size() == 60


def test_scoring_markers_start_on_two_which_the_starting_buildings_are_worth():
    s = BurgerJointState.new(2, 5)
    assert s.marker == [2, 2]
    assert [s.vp(p) for p in (BURGER, PIZZA)] == [2, 2]


def test_burger_goes_first_with_a_production_draw():
    s = BurgerJointState.new(2, 5)
    assert s.active == BURGER
    assert s.current_player() == CHANCE
    assert s.to_draw == 4  # two diners each


def test_only_two_players():
    with pytest.raises(ValueError, match="exactly 2 players"):
        BurgerJointState.new(3, 0)


# --- production ------------------------------------------------------------------------------


def test_production_draws_one_cube_per_diner_and_bistro_up_to_four_each():
    s = position(phase="production",
                 diners=(["black", "yellow", "white"], ["green"]),
                 bistros=(["classic", "redraw"], []), basics=(0, 1))
    assert s.capacity(BURGER) == 4  # five buildings, limit of four
    assert s.capacity(PIZZA) == 1
    assert s.to_draw == 5


def test_cubes_of_a_diner_held_by_one_player_go_to_his_area():
    s = position(phase="production")
    s.apply_action(DrawCubes(("black", "yellow", "green", "red")))
    assert s.areas["burger"]["black"] == 1 and s.areas["burger"]["yellow"] == 1
    assert s.areas["pizza"]["green"] == 1 and s.areas["pizza"]["red"] == 1


def test_a_draw_is_written_area_by_area_in_the_order_the_cubes_are_listed():
    """A random draw lists its cubes in colour order; the table may list them in any order,
    and the log writes each area's cubes as listed."""
    s = position(phase="production")
    s.apply_action(DrawCubes(("white", "red", "brown", "white")))
    assert s.log[-1]["text"].startswith("drawn: white, brown, white to the general area; red "
                                        "to the pizza area")
    s = position(phase="production")
    s.apply_action(DrawCubes(("white", "white", "brown", "red")))
    assert s.log[-1]["text"].startswith("drawn: white, white, brown to the general area; red "
                                        "to the pizza area")


def test_cubes_of_a_diner_held_by_both_or_neither_go_to_the_general_area():
    s = position(phase="production", diners=(["black", "green"], ["green", "red"]))
    s.apply_action(DrawCubes(("white", "green", "green", "brown")))
    assert s.areas["general"] == {**dict.fromkeys(s.colours, 0), "white": 1, "green": 2,
                                  "brown": 1}


def test_first_choice_active_then_other_from_general_or_own_area():
    s = position(phase="production")
    s.apply_action(DrawCubes(("white", "black", "green", "red")))
    assert s.phase == "first-pick" and s.current_player() == BURGER
    assert set(s.legal_actions()) == {TakeCube("white", "general"), TakeCube("black", "burger")}
    s.apply_action(TakeCube("black", "burger"))
    assert s.current_player() == PIZZA
    assert set(s.legal_actions()) == {TakeCube("white", "general"), TakeCube("green", "pizza"),
                                      TakeCube("red", "pizza")}


def test_first_cube_may_not_come_from_the_opponents_area():
    s = position(phase="production")
    s.apply_action(DrawCubes(("white", "black", "green", "red")))
    with pytest.raises(IllegalMoveError, match="opponent's area") as err:
        s.apply_action(TakeCube("green", "pizza"))
    assert err.value.rule == "Production"


def test_first_choice_exception_a_player_with_no_legal_cube_takes_any():
    s = position(phase="production")
    s.apply_action(DrawCubes(("green", "green", "red", "red")))  # all in Pizza's area
    assert s.current_player() == BURGER
    assert set(s.legal_actions()) == {TakeCube("green", "pizza"), TakeCube("red", "pizza")}
    s.apply_action(TakeCube("red", "pizza"))
    assert s.fresh[BURGER]["red"] == 1


def test_remaining_cubes_move_to_general_and_alternate_from_the_active_player():
    s = position(phase="production")
    s.apply_action(DrawCubes(("white", "black", "yellow", "green")))
    s.apply_action(TakeCube("black", "burger"))
    s.apply_action(TakeCube("green", "pizza"))
    assert s.phase == "pick" and s.current_player() == BURGER
    assert sum(s.areas["burger"].values()) == 0
    assert s.areas["general"]["yellow"] == 1 and s.areas["general"]["white"] == 1
    s.apply_action(TakeCube("yellow", "general"))
    assert s.phase == "trade"  # Pizza's last cube was forced
    assert s.storage[PIZZA]["white"] == 1 and s.storage[PIZZA]["green"] == 1


def test_a_player_who_has_all_his_cubes_is_skipped():
    s = position(phase="production", diners=(["black", "yellow"], ["green", "red"]),
                 bistros=(["classic", "redraw"], []), basics=(1, 1))
    assert s.to_draw == 6
    s.apply_action(DrawCubes(("white", "white", "brown", "brown", "black", "green")))
    s.apply_action(TakeCube("black", "burger"))
    s.apply_action(TakeCube("green", "pizza"))
    s.apply_action(TakeCube("white", "general"))
    s.apply_action(TakeCube("brown", "general"))  # Pizza has his two
    assert s.phase == "trade"
    assert s.storage[BURGER] == {**dict.fromkeys(s.colours, 0), "black": 1, "white": 2,
                                 "brown": 1}
    assert "must take" in s.log[-1]["text"]


def test_new_cubes_go_to_main_storage_once_both_took_theirs():
    s = position(phase="production")
    s.apply_action(DrawCubes(("white", "white", "brown", "brown")))
    s.apply_action(TakeCube("white", "general"))
    assert s.fresh[BURGER]["white"] == 1 and s.storage[BURGER]["white"] == 0
    s.apply_action(TakeCube("brown", "general"))
    s.apply_action(TakeCube("white", "general"))
    assert s.phase == "trade"
    assert s.fresh == [dict.fromkeys(s.colours, 0)] * 2
    assert s.storage[BURGER]["white"] == 2 and s.storage[PIZZA]["brown"] == 2


def test_a_forced_take_is_made_for_the_player():
    s = position(phase="production")
    s.apply_action(DrawCubes(("red", "red", "red", "red")))
    # every take is forced: Burger's first from Pizza's area (his only choice), then the rest
    assert s.phase == "trade"
    assert s.storage[BURGER]["red"] == 2 and s.storage[PIZZA]["red"] == 2
    assert "Burger must take the red cube from the pizza area" in s.log[-1]["text"]
    s = position(phase="production")
    s.apply_action(DrawCubes(("white", "black", "red", "red")))
    assert s.current_player() == BURGER and s.phase == "first-pick"  # white or black: a choice
    s.apply_action(TakeCube("white", "general"))
    assert s.fresh[PIZZA]["red"] == 1  # Pizza's first choice could only be red
    assert "Pizza must take the red cube from the pizza area" in s.log[-1]["text"]
    assert s.phase == "pick" and s.current_player() == BURGER  # black or red: a choice


def test_draw_outcome_must_be_possible():
    s = position(({"red": 9}, {}), phase="production")
    with pytest.raises(ChanceOutcomeError, match="cannot come out of the bag"):
        s.apply_action(DrawCubes(("red", "red", "white", "white")))
    with pytest.raises(ChanceOutcomeError, match="4 cubes are drawn now"):
        s.apply_action(DrawCubes(("white",)))
    with pytest.raises(ChanceOutcomeError, match="DrawCubes"):
        s.apply_action(TakeCube("white", "general"))


def test_chance_outcomes_are_every_draw_with_its_probability():
    s = position(({c: 9 for c in ("white", "black", "yellow", "green")}, {}),
                 phase="production")  # the bag: 1 each of four colours, 10 brown, 10 red
    outcomes = s.chance_outcomes()
    assert sum(p for _, p in outcomes) == pytest.approx(1.0)
    odds = {a.colours: p for a, p in outcomes}
    assert ("white", "white") + ("red",) * 2 not in odds
    assert odds[("brown",) * 4] == pytest.approx(210 / 10626)  # C(10,4) / C(24,4)


# --- trading and special abilities -----------------------------------------------------------


def test_three_for_one_trade_returns_three_and_takes_the_colour_desired():
    s = position((cubes(white=3), {}))
    s.apply_action(Trade("white", "red"))
    assert s.storage[BURGER]["white"] == 0 and s.storage[BURGER]["red"] == 1
    assert s.bag["white"] == 10 and s.bag["red"] == 9


def test_a_trade_needs_three_cubes_of_the_same_colour():
    s = position((cubes(white=2, red=1), {}))
    assert not [a for a in s.legal_actions() if isinstance(a, Trade)]
    with pytest.raises(IllegalMoveError, match="three white") as err:
        s.apply_action(Trade("white", "red"))
    assert err.value.rule == "Trading & Special Abilities"


def test_only_the_active_player_trades():
    s = position(({}, cubes(white=3)))
    with pytest.raises(IllegalMoveError, match="not Pizza's turn"):
        s.apply_action(Trade("white", "red"), player=PIZZA)


def test_abilities_need_an_upscale_bistro_with_that_ability():
    s = position((cubes(white=2), {}), bistros=(["classic"], []))
    with pytest.raises(IllegalMoveError, match="no upscale bistro with the two-for-one"):
        s.apply_action(TwoForOne(("white", "white"), "red"))


def test_an_ability_is_used_exactly_once_per_turn():
    s = position((cubes(white=2), {}), bistros=(["one-for-one"], []))
    s.apply_action(OneForOne("white", "red"))
    assert s.storage[BURGER]["red"] == 1
    with pytest.raises(IllegalMoveError, match="exactly once per turn") as err:
        s.apply_action(OneForOne("white", "black"))
    assert err.value.rule == "Special Abilities"


def test_redraw_puts_any_number_back_and_draws_as_many():
    s = position((cubes(white=2, red=1), {}), bistros=(["redraw"], []))
    options = {a.give for a in s.legal_actions() if isinstance(a, Redraw)}
    assert options == {("white",), ("white", "white"), ("red",), ("white", "red"),
                       ("white", "white", "red")}
    s.apply_action(Redraw(("white", "red")))
    assert s.current_player() == CHANCE and s.to_draw == 2
    s.apply_action(DrawCubes(("black", "black")))
    assert s.phase == "trade"
    assert s.storage[BURGER] == {**dict.fromkeys(s.colours, 0), "white": 1, "black": 2}


def test_two_for_one_puts_any_two_back_and_takes_a_chosen_colour():
    s = position((cubes(white=1, red=1), {}), bistros=(["two-for-one"], []))
    s.apply_action(TwoForOne(("white", "red"), "yellow"))
    assert s.storage[BURGER] == {**dict.fromkeys(s.colours, 0), "yellow": 1}
    assert s.bag["white"] == 10 and s.bag["red"] == 10


def test_extra_random_cube_is_above_the_production_limit():
    s = position(bistros=(["extra-random"], []), diners=(["black", "yellow"], ["green"]))
    s.apply_action(ExtraRandom())
    assert s.to_draw == 1
    s.apply_action(DrawCubes(("brown",)))
    assert s.storage[BURGER]["brown"] == 1 and s.phase == "trade"


def test_extra_chosen_cube_comes_out_of_the_bag_only_if_it_is_there():
    s = position(({}, cubes(red=10)), bistros=(["extra-chosen"], []))
    assert ExtraChosen("red") not in s.legal_actions()
    s.apply_action(ExtraChosen("green"))
    assert s.storage[BURGER]["green"] == 1


def test_trading_is_over_once_building_has_begun():
    s = position((cubes(black=4, yellow=1, brown=1), {}))
    s.apply_action(BuildRestaurant())
    assert s.phase == "build"
    with pytest.raises(IllegalMoveError, match="building has begun"):
        s.apply_action(Trade("black", "red"))


# --- building --------------------------------------------------------------------------------


def test_building_pays_its_cubes_back_into_the_bag():
    s = position((cubes(black=1, yellow=1, brown=1), {}))
    s.apply_action(BuildRestaurant())
    assert sum(s.storage[BURGER].values()) == 0 and s.bag_size() == 60


def test_building_without_the_cubes_is_refused_naming_the_cost():
    s = position((cubes(black=1, yellow=1), {}))
    with pytest.raises(IllegalMoveError, match="costs 1 black, 1 yellow, 1 brown") as err:
        s.apply_action(BuildRestaurant())
    assert err.value.rule == "Basic Restaurants"


def test_first_publicity_places_the_marker_and_may_steal():
    s = position((cubes(green=1, white=1), cubes(red=2)))
    assert set(a for a in s.legal_actions() if isinstance(a, BuyPublicity)) == {
        BuyPublicity(None, True), BuyPublicity("red", True)}
    s.apply_action(BuyPublicity("red", True))
    assert s.publicity[BURGER] == 1
    assert s.storage[BURGER]["red"] == 1 and s.storage[PIZZA]["red"] == 1


def test_later_publicity_in_a_turn_steals_or_moves_but_not_both():
    s = position((cubes(green=2, white=2), cubes(red=2)))
    s.apply_action(BuyPublicity(None, True))
    later = {a for a in s.legal_actions() if isinstance(a, BuyPublicity)}
    assert later == {BuyPublicity(None, True), BuyPublicity("red", False)}
    with pytest.raises(IllegalMoveError, match="not both") as err:
        s.apply_action(BuyPublicity("red", True))
    assert err.value.rule == "Publicity"
    s.apply_action(BuyPublicity("red", False))
    assert s.publicity[BURGER] == 1 and s.storage[BURGER]["red"] == 1


def test_no_publicity_at_the_bottom_of_the_column():
    s = position((cubes(green=1, white=1), {}), publicity=(5, 0))
    with pytest.raises(IllegalMoveError, match="bottom of the publicity column"):
        s.apply_action(BuyPublicity(None, True))


def test_basic_restaurants_fill_from_the_top_and_score_the_third_fifth_and_sixth():
    s = BurgerJointState.new(2, 0)
    points = []
    for n in range(1, 7):
        s.basics = [n, 1]
        points.append(s.vp_breakdown(BURGER)["basic_restaurants"])
    assert points == [0, 0, 1, 1, 2, 3]


def test_no_basic_restaurant_beyond_the_column():
    s = position((cubes(black=1, yellow=1, brown=1), {}), basics=(6, 1))
    with pytest.raises(IllegalMoveError, match="no open space") as err:
        s.apply_action(BuildRestaurant())
    assert err.value.rule == "Basic Restaurants"


def test_a_diner_upgrades_the_lowest_basic_restaurant():
    s = position((cubes(black=1, yellow=1, white=1, red=1), {}), basics=(3, 1))
    s.apply_action(BuildDiner("brown"))
    assert s.basics[BURGER] == 2 and "brown" in s.diners[BURGER]
    assert "basic restaurant 3" in s.log[-1]["text"]
    assert s.vp(BURGER) == 3  # the third restaurant's point went with it; the diner's came


def test_a_diner_needs_a_basic_restaurant():
    s = position((cubes(black=1, yellow=1, white=1, red=1), {}), basics=(0, 1))
    with pytest.raises(IllegalMoveError, match="must build one before") as err:
        s.apply_action(BuildDiner("brown"))
    assert err.value.rule == "Specialty Diners"


def test_only_one_diner_of_each_specialty():
    s = position((cubes(black=1, yellow=1, white=1, red=1), {}))
    with pytest.raises(IllegalMoveError, match="only one specialty diner"):
        s.apply_action(BuildDiner("black"))


def test_a_bistro_upgrades_a_diner_of_the_players_choice():
    s = position((cubes(black=3, brown=3), {}))
    s.apply_action(BuildBistro("classic", "yellow"))
    assert s.diners[BURGER] == ["black"] and s.bistros[BURGER] == ["classic"]
    assert s.vp(BURGER) == 4  # one diner and the three-point bistro
    assert s.capacity(BURGER) == 2


def test_a_bistro_is_built_once_and_only_on_an_owned_diner():
    s = position((cubes(black=6, brown=6), {}), bistros=(["classic"], []))
    with pytest.raises(IllegalMoveError, match="already built the classic"):
        s.apply_action(BuildBistro("classic", "black"))
    with pytest.raises(IllegalMoveError, match="no green diner") as err:
        s.apply_action(BuildBistro("redraw", "green"))
    assert err.value.rule == "Upscale Bistros"
    with pytest.raises(IllegalMoveError, match="unknown upscale bistro"):
        s.apply_action(BuildBistro("drive-in", "black"))


def test_development_tokens_run_out_at_fifteen():
    s = position((cubes(black=1, yellow=1, brown=1), {}), basics=(4, 1),
                 diners=(["white", "black", "yellow", "green", "brown"], ["green"]),
                 bistros=(["classic", "redraw", "two-for-one", "extra-random", "one-for-one",
                           "extra-chosen"], []))
    assert s.tokens_left(BURGER) == 0
    assert BuildRestaurant() not in s.legal_actions()


# --- scoring, discarding, turns ------------------------------------------------------------


def test_the_score_is_calculated_after_building_and_marked():
    s = position((cubes(black=1, yellow=1, brown=1), {}), basics=(2, 1))
    s.apply_action(BuildRestaurant())
    assert s.marker[BURGER] == 2
    s.apply_action(EndBuilding())
    assert s.marker[BURGER] == 3


def test_twelve_points_wins_and_ends_the_game():
    s = position(basics=(6, 1), diners=(["black", "yellow", "white"], ["green"]),
                 bistros=(["classic", "redraw"], []), publicity=(2, 0))
    assert s.vp(BURGER) == 3 + 3 + 5 + 1
    s.apply_action(EndBuilding())
    assert s.current_player() == TERMINAL and s.winner == BURGER
    assert s.end_reason == "Burger has 12 victory points and wins"
    assert s.ranking()[0] == [BURGER]


def test_both_players_discard_down_to_seven_the_active_player_first():
    s = position((cubes(white=9), cubes(red=8)))
    s.apply_action(EndBuilding())
    assert s.phase == "discard" and s.current_player() == BURGER
    assert s.legal_actions() == [Discard(("white", "white"))]
    s.apply_action(Discard(("white", "white")))
    assert s.current_player() == PIZZA
    s.apply_action(Discard(("red",)))
    assert s.phase == "production" and s.active == PIZZA
    assert s.bag["white"] == 3 and s.bag["red"] == 3


def test_a_discard_is_exactly_the_cubes_over_seven():
    s = position((cubes(white=5, red=4), {}))
    s.apply_action(EndBuilding())
    with pytest.raises(IllegalMoveError, match="exactly 2") as err:
        s.apply_action(Discard(("white",)))
    assert err.value.rule == "Discard Excess Cubes"
    with pytest.raises(IllegalMoveError, match="does not hold"):
        s.apply_action(Discard(("green", "green")))


def test_players_alternate_turns_as_the_active_player():
    s = position()
    s.apply_action(EndBuilding())
    assert s.active == PIZZA and s.turn == 2 and s.to_draw == 4


def test_the_referee_ends_a_game_at_the_turn_limit():
    s = position()
    s.turn = MAX_TURNS
    s.apply_action(EndBuilding())
    assert s.is_terminal() and s.end_reason == REFEREE_TURN_LIMIT
    assert REFEREE_TURN_LIMIT in BurgerJointState.REFEREE_ENDINGS


# --- data ----------------------------------------------------------------------------------


def raw_data() -> dict:
    return yaml.safe_load(DATA.read_text(encoding="utf-8"))


def test_data_says_it_is_provisional_and_what_was_guessed():
    comps = burger_joint()
    assert "provisional" in comps.status and comps.guessed
    assert burger_joint() is comps  # loaded once


def test_data_holds_every_fact_the_rulebook_states():
    c = burger_joint()
    assert len(c.cube_ids()) == 60 and c.tokens_per_player * 2 == 30
    assert (c.start_score, c.win_score, c.storage_limit, c.production_limit,
            c.trade_rate) == (2, 12, 7, 4, 3)
    assert [i + 1 for i, v in enumerate(c.basic_vp) if v] == [3, 5, 6]
    assert all(0 <= b.vp <= 3 for b in c.bistros)
    assert [b.ability for b in c.bistros if b.vp == 3] == ["none"]
    assert {"black", "yellow", "green", "red"} <= set(c.colours)
    for side in c.sides:
        assert sum(side.costs["specialty_diner"].values()) == 4
        assert sum(side.costs["upscale_bistro"].values()) == 6


@pytest.mark.parametrize(("change", "message"), [
    (lambda d: d["cubes"].update(per_colour=9), "the box holds 60 cubes"),
    (lambda d: d["rules"].update(win_score=10), r"rules.win_score.*says 12"),
    (lambda d: d["basic_restaurants"].update(vp=[0, 1, 1, 0, 1, 1]), "third, fifth"),
    (lambda d: d["upscale_bistros"]["list"][1].update(vp=4), r"bistro 'redraw'.*0-3"),
    (lambda d: d["upscale_bistros"]["list"][1].update(ability="fly"), "unknown ability 'fly'"),
    (lambda d: d["players"][0]["costs"]["specialty_diner"].update(black=2), "four cubes"),
    (lambda d: d["players"][1]["costs"]["publicity"].update(purple=1), "'purple' is not a cube"),
    (lambda d: d["players"][0]["start"].update(diners=["white", "yellow"]), "black and yellow"),
    (lambda d: d.pop("guessed"), "missing field 'guessed'"),
    (lambda d: d.update(status="final"), "provisional"),
    (lambda d: d.update(schema=2), "schema 1"),
])
def test_a_malformed_data_file_names_the_entry_and_what_is_wrong(change, message):
    data = raw_data()
    change(data)
    with pytest.raises(ComponentError, match=message):
        parse_burger_joint(data)


def test_a_data_file_that_is_not_yaml_is_refused(tmp_path):
    bad = tmp_path / "bad.yaml"
    bad.write_text("cubes: [white, black\n", encoding="utf-8")
    with pytest.raises(ComponentError, match="not valid YAML"):
        load_burger_joint(bad)
    with pytest.raises(ComponentError, match="cannot read"):
        load_burger_joint(tmp_path / "missing.yaml")


# --- saving, undo, views ---------------------------------------------------------------------


def test_json_round_trip_and_conservation_on_load():
    s = position((cubes(white=3), cubes(red=2)))
    s.apply_action(Trade("white", "red"))
    saved = json.loads(json.dumps(s.to_json()))
    assert BurgerJointState.from_json(saved).to_json() == s.to_json()
    saved["state"]["bag"]["red"] += 1
    with pytest.raises(StateFormatError, match="exactly once"):
        BurgerJointState.from_json(saved)
    saved["state"]["bag"]["red"] = -1
    with pytest.raises(StateFormatError, match="zero or more"):
        BurgerJointState.from_json(saved)


def test_a_saved_position_lists_its_counts_in_any_colour_order():
    """The moves are looked up by each place's counts in colour order: a saved position whose
    counts are listed in another order loads in colour order and offers the same moves, at
    every kind of step of a random game."""
    state = BurgerJointState.new(2, 5)
    phases = set()
    for n, _ in enumerate(steps(state, 5)):
        if n % 7 or state.is_terminal():
            continue
        saved = json.loads(json.dumps(state.to_json()))
        place = saved["state"]
        place["bag"] = dict(reversed(place["bag"].items()))
        place["storage"] = [dict(reversed(s.items())) for s in place["storage"]]
        place["fresh"] = [dict(reversed(s.items())) for s in place["fresh"]]
        place["areas"] = {a: dict(reversed(c.items())) for a, c in place["areas"].items()}
        loaded = BurgerJointState.from_json(saved)
        assert list(loaded.bag) == list(state.colours)
        assert all(list(s) == list(state.colours) for s in (*loaded.storage, *loaded.fresh,
                                                             *loaded.areas.values()))
        assert loaded.to_json() == state.to_json()
        assert loaded.legal_actions() == state.legal_actions()
        phases.add(state.phase)
    assert {"first-pick", "pick", "trade", "discard"} <= phases


def test_undo_takes_back_a_build_but_not_a_draw():
    s = position((cubes(black=1, yellow=1, brown=1), {}))
    before = s.to_json()
    s.apply_action(BuildRestaurant())
    s.undo()
    assert s.to_json() == before
    s = BurgerJointState.new(2, 3)
    s.play_chance()
    with pytest.raises(UndoRefusedError):
        s.undo()


def test_views_show_everything_open_and_the_bag_as_a_count():
    s = position((cubes(white=2), cubes(red=1)))
    views = [s.view(BURGER), s.view(PIZZA), s.view(None)]
    for v in views:
        assert v["bag"] == 57
        assert v["players"][PIZZA]["storage"] == {"red": 1}
        assert v["players"][BURGER]["storage"] == {"white": 2}
    assert [{k: x for k, x in v.items() if k != "you"} for v in views[1:]] == [
        {k: x for k, x in views[0].items() if k != "you"}] * 2
    assert not any("private_to" in e for e in s.log)


def test_a_random_draw_is_the_seeded_rng_and_advances_it():
    a = BurgerJointState.new(2, 11)
    b = BurgerJointState.new(2, 11)
    assert a.sample_chance() == b.sample_chance()
    drawn = a.play_chance()
    assert isinstance(drawn, DrawCubes) and len(drawn.colours) == 4
    laid_out = Counter(c for group in (*a.areas.values(), *a.fresh)
                       for c, n in group.items() for _ in range(n))
    assert laid_out == Counter(drawn.colours)


def test_a_clone_is_independent_and_shares_the_component_list():
    s = position((cubes(white=3), {}))
    twin = s.clone()
    twin.apply_action(Trade("white", "red"))
    assert s.storage[BURGER]["white"] == 3 and twin.storage[BURGER]["white"] == 0
    assert twin.components is s.components and len(s.log) == 0
