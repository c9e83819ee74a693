"""The Alley Cats Game, a test per rule: preparation, the throw, the wall, dustbins, prowling,
the dog chase, winning, the referee's endings, hidden dogs, bad input and a bad data file."""

from __future__ import annotations

import copy
import json
from importlib import resources

import pytest
import yaml

from companion.rules import CHANCE, TERMINAL, ChanceOutcomeError, IllegalMoveError
from companion.rules.alley_cats import (
    ALL_FISH_HOME,
    GAME_ID,
    ROUND_LIMIT,
    ROUNDS_PLAYED,
    AlleyCatsState,
    HideDog,
    MoveCat,
    MoveDog,
    PlaceBin,
    Roll,
    Stuck,
    alley_cats,
    load_alley_cats,
    parse_alley_cats,
)
from companion.rules.components import ComponentError
from companion.rules.protocol import StateFormatError, UndoRefusedError

RED, BLUE, YELLOW, GREEN = range(4)


def default_bins(s: AlleyCatsState) -> dict[int, list[str]]:
    """Each player's four dustbins: the side's marked positions in order, four a player."""
    out: dict[int, list[str]] = {}
    used = {"west": 0, "east": 0}
    for p in range(s.players):
        side = s.home_side[p]
        marked = s.components.dustbin_positions[side]
        out[p] = list(marked[used[side]:used[side] + 4])
        used[side] += 4
    return out


def ready(players: int = 4, *, dogs: dict[int, str] | None = None, starter: int = 0,
          bins: dict[int, list[str]] | None = None) -> AlleyCatsState:
    """A game through its preparation by legal moves: dustbins placed, dogs hidden (by default
    in each player's first dustbin), ``starter`` winning the start throw."""
    s = AlleyCatsState.new(players, 0)
    bins = bins or default_bins(s)
    for k in range(4):
        for p in range(players):
            assert s.current_player() == p
            s.apply_action(PlaceBin(bins[p][k]))
    for p in range(players):
        s.apply_action(HideDog((dogs or {}).get(p, bins[p][0])))
    for p in range(players):
        s.apply_action(Roll(6 if p == starter else 1))
    assert s.step == "roll" and s.turn == starter
    return s


def put(s: AlleyCatsState, p: int, node: str, heading: str | None = None) -> None:
    s.cat_at[p] = node
    s.cat_heading[p] = heading
    s._legal = None


def take_fish(s: AlleyCatsState, square: str) -> str:
    """Empty the dustbin on a square as an earlier opening would have (no dog in it)."""
    b = s.bin_at[square]
    fish = s.bin_fish[b]
    assert fish is not None and s.dog[s.bin_owner[b]] != b
    s.bin_fish[b] = None
    s.opened.append(b)
    s.dog_found[b] = False
    return fish


def turn_to(s: AlleyCatsState, p: int, throw: int) -> None:
    """Give the turn to player p and throw."""
    s.turn = p
    s.step = "roll"
    s._legal = None
    s.mark_origin()
    s.apply_action(Roll(throw))


def ends(s: AlleyCatsState) -> set[tuple[str, str | None, bool]]:
    return {(m.to, m.heading, m.open_bin) for m in s.legal_actions() if isinstance(m, MoveCat)}


# --- preparation ---------------------------------------------------------------------------


@pytest.mark.parametrize("players", [2, 3, 4])
def test_preparation_each_player_has_a_cat_a_dog_four_fish_four_dustbins(players):
    s = ready(players)
    for p in range(players):
        assert s.cat_at[p] == s.home[p]
        assert len(s.bin_ids[p]) == 4 and all(s.bin_square[b] for b in s.bin_ids[p])
        assert sorted(s.bin_fish[b] for b in s.bin_ids[p]) == sorted(s.fish_ids[p])
        assert s.dog[p] in s.bin_ids[p]
    s.check_conservation()


def test_preparation_two_homes_each_side_and_sixteen_dustbins_with_four_players():
    s = ready(4)
    assert [s.home_side[p] for p in range(4)] == ["west", "east", "east", "west"]
    assert sum(sq is not None for sq in s.bin_square.values()) == 16


@pytest.mark.parametrize(("players", "sides"), [
    (2, ["west", "east"]), (3, ["west", "east", "east"])])
def test_fewer_players_sit_on_both_sides_of_the_wall(players, sides):
    s = AlleyCatsState.new(players, 0)
    assert s.home_side == sides


def test_player_count_outside_two_to_four_is_refused():
    with pytest.raises(ValueError, match="2 to 4 players, not 5"):
        AlleyCatsState.new(5, 0)
    with pytest.raises(ValueError, match="2 to 4 players, not 1"):
        AlleyCatsState.new(1, 0)
    with pytest.raises(ValueError, match="different colours"):
        AlleyCatsState.new(2, 0, colours=["red", "red"])
    with pytest.raises(ValueError, match="no option"):
        AlleyCatsState.new(2, 0, dogs="none")


def test_dustbins_go_on_marked_positions_on_the_players_own_side():
    s = AlleyCatsState.new(4, 0)
    assert all(a.square.startswith("w") for a in s.legal_actions())  # red: west
    with pytest.raises(IllegalMoveError, match="own side of the wall") as err:
        s.apply_action(PlaceBin("e21"))
    assert err.value.rule == "preparation"
    with pytest.raises(IllegalMoveError, match="not a marked dustbin position"):
        s.apply_action(PlaceBin("w11"))  # by red's home: not marked
    s.apply_action(PlaceBin("w21"))
    s.apply_action(PlaceBin("e21"))  # blue
    s.apply_action(PlaceBin("e31"))  # yellow
    with pytest.raises(IllegalMoveError, match="already stands on w21"):
        s.apply_action(PlaceBin("w21"))  # green, same side as red


def test_hiding_the_dog_is_private_to_its_player():
    s = ready(4, dogs={RED: "w31"})
    hide = next(e for e in s.log if e["action"]["type"] == "hide-dog")
    assert hide["private_to"] == RED and hide["public_text"] == "red hides a dog"
    for q in (BLUE, YELLOW, GREEN, None):
        seen = s.public_log(q)[s.log.index(hide)]
        assert seen == {"actor": RED, "action": {"type": "hidden"}, "text": "red hides a dog"}
        assert "w31" not in json.dumps(seen)
    own = {b["square"]: b["dog"] for b in s.view(RED)["dustbins"] if b["owner"] == "red"}
    assert own == {"w21": False, "w31": True, "w12": False, "w32": False}
    for q in (BLUE, YELLOW, GREEN, None):
        theirs = [b["dog"] for b in s.view(q)["dustbins"] if b["owner"] == "red"]
        assert theirs == [None] * 4


def test_the_dog_hides_in_one_of_the_players_own_dustbins():
    s = AlleyCatsState.new(2, 0)
    bins = default_bins(s)
    for k in range(4):
        for p in range(2):
            s.apply_action(PlaceBin(bins[p][k]))
    with pytest.raises(IllegalMoveError, match="hide the dog in one of your four") as err:
        s.apply_action(HideDog(bins[BLUE][0]))
    assert err.value.rule == "preparation"


def test_highest_start_throw_starts_and_a_tie_throws_again():
    s = AlleyCatsState.new(3, 0)
    bins = default_bins(s)
    for k in range(4):
        for p in range(3):
            s.apply_action(PlaceBin(bins[p][k]))
    for p in range(3):
        s.apply_action(HideDog(bins[p][0]))
    assert s.current_player() == CHANCE and s.step == "start"
    for value in (5, 2, 5):
        s.apply_action(Roll(value))
    assert s.start_rolls == {RED: None, YELLOW: None}  # red and yellow tie and throw again
    s.apply_action(Roll(3))
    s.apply_action(Roll(4))
    assert s.turn == YELLOW and s.step == "roll"


# --- the throw -----------------------------------------------------------------------------


def test_every_throw_is_a_chance_step_of_one_to_six():
    s = ready(2)
    assert s.current_player() == CHANCE
    outcomes = s.chance_outcomes()
    assert [a.value for a, _ in outcomes] == [1, 2, 3, 4, 5, 6]
    assert sum(pr for _, pr in outcomes) == pytest.approx(1)
    with pytest.raises(ChanceOutcomeError, match="not 7"):
        s.apply_action(Roll(7))
    with pytest.raises(IllegalMoveError, match="must throw the die first"):
        s.apply_action(MoveCat("w11"))


def test_the_dice_pass_to_the_left_clockwise():
    s = ready(4, starter=BLUE)
    order = []
    for _ in range(5):
        order.append(s.turn)
        s.apply_action(Roll(1))
        s.apply_action(s.legal_actions()[0])
        while s.step != "roll" or s.chase is not None:  # an extra throw: same player
            if s.current_player() == CHANCE:
                s.apply_action(Roll(1))
            else:
                s.apply_action(s.legal_actions()[0])
    assert order == [BLUE, YELLOW, GREEN, RED, BLUE]


def test_the_number_thrown_must_be_taken_in_full():
    s = ready(4)
    put(s, RED, "w21")
    turn_to(s, RED, 3)
    assert ends(s) == {("w13", None, False), ("w33", None, False), ("wall-a", "east", False),
                       ("home-nw", None, False)}  # home, two away, ends a move too
    with pytest.raises(IllegalMoveError) as err:
        s.apply_action(MoveCat("w31"))  # two squares of a three
    assert "taken in full" in err.value.rule


def test_a_cat_cannot_use_the_same_square_twice_in_one_throw():
    s = ready(4)
    put(s, RED, "w31")
    turn_to(s, RED, 2)
    assert ("w31", None, False) not in ends(s)
    with pytest.raises(IllegalMoveError) as err:
        s.apply_action(MoveCat("w31"))  # out and back
    assert err.value.rule == ("cats cannot retrace their steps and use the same square twice "
                              "in any one throw")


def test_a_cat_may_stop_short_only_to_open_a_dustbin_across_the_wall():
    s = ready(4)
    put(s, RED, "e41")
    turn_to(s, RED, 3)  # e41 - e31 (blue's dustbin) - ...
    assert ("e31", None, True) in ends(s)
    assert ("e31", None, False) not in ends(s)
    with pytest.raises(IllegalMoveError) as err:
        s.apply_action(MoveCat("e31"))
    assert err.value.rule == ("the number thrown must be taken in full, except when you reach "
                              "a dustbin")


def test_a_cat_cannot_forage_in_a_dustbin_on_his_own_side():
    s = ready(4)
    put(s, RED, "w11")
    turn_to(s, RED, 1)
    assert ("w21", None, False) in ends(s) and ("w21", None, True) not in ends(s)
    with pytest.raises(IllegalMoveError) as err:
        s.apply_action(MoveCat("w21", open_bin=True))
    assert err.value.rule == "a cat cannot forage in a dustbin on his own side of the wall"


def test_opening_a_dustbin_takes_its_fish_and_ends_the_move():
    s = ready(4, dogs={BLUE: "e12"})
    put(s, RED, "e41")
    turn_to(s, RED, 1)
    s.apply_action(MoveCat("e31", open_bin=True))
    assert s.carried[RED] == ["blue-fish-2"] and s.foraged[RED]
    assert s.bin_fish[s.bin_at["e31"]] is None
    assert s.log[-1]["reveal"] is True
    assert s.turn == BLUE and s.step == "roll"  # the turn passed on


def test_a_cat_may_end_on_a_dustbin_without_opening_it():
    s = ready(4)
    put(s, RED, "e41")
    turn_to(s, RED, 1)
    s.apply_action(MoveCat("e31"))
    assert s.carried[RED] == [] and not s.foraged[RED] and s.opened == []


def test_cats_cannot_take_fish_from_more_than_one_dustbin_a_journey():
    s = ready(4, dogs={BLUE: "e12"})
    put(s, RED, "e31")
    s.foraged[RED] = True
    turn_to(s, RED, 1)
    assert ("e21", None, True) not in ends(s)
    with pytest.raises(IllegalMoveError) as err:
        s.apply_action(MoveCat("e21", open_bin=True))
    assert err.value.rule == ("cats cannot take fish from more than one dustbin during the same "
                              "journey")


def test_an_empty_dustbin_wastes_the_journey():
    s = ready(4, dogs={BLUE: "e12"})
    take_fish(s, "e31")
    put(s, RED, "e41")
    turn_to(s, RED, 1)
    assert ("e31", None, True) in ends(s)  # the player may have forgotten it is empty
    s.apply_action(MoveCat("e31", open_bin=True))
    assert "empty" in s.log[-1]["text"] and s.log[-1]["reveal"]
    assert s.carried[RED] == [] and s.foraged[RED]  # no second dustbin before home


def test_an_emptied_dustbin_gets_its_lid_back_so_no_view_shows_it_empty():
    s = ready(4, dogs={BLUE: "e12"})
    before = {q: s.view(q)["dustbins"] for q in (RED, GREEN, BLUE, YELLOW, None)}
    put(s, RED, "e41")
    turn_to(s, RED, 1)
    s.apply_action(MoveCat("e31", open_bin=True))
    assert s.carried[RED]  # the fish came out, the lid went back on
    for q, bins in before.items():
        assert s.view(q)["dustbins"] == bins


def test_home_ends_the_move_and_the_journey_and_brings_the_fish_home():
    s = ready(4, dogs={BLUE: "e12"})
    fish = take_fish(s, "e31")
    s.carried[RED] = [fish]
    s.foraged[RED] = True
    put(s, RED, "w21")
    turn_to(s, RED, 4)  # home is two away: the move ends there
    assert ("home-nw", None, False) in ends(s)
    s.apply_action(MoveCat("home-nw"))
    assert s.at_home[RED] == [fish] and s.carried[RED] == [] and not s.foraged[RED]
    assert s.turn == BLUE


def test_a_cat_goes_home_only_to_its_own():
    s = ready(4)
    put(s, RED, "w14")
    turn_to(s, RED, 1)
    with pytest.raises(IllegalMoveError, match="another cat's home"):
        s.apply_action(MoveCat("home-sw"))


# --- landing on a cat, prowling --------------------------------------------------------------


def test_landing_on_another_cat_gives_an_extra_throw():
    s = ready(4)
    put(s, RED, "w11")
    put(s, GREEN, "w21")
    turn_to(s, RED, 1)
    s.apply_action(MoveCat("w21"))
    assert s.turn == RED and s.step == "roll" and "extra throw" in s.log[-1]["text"]


def test_going_on_the_prowl_steals_one_fish_and_throws_again():
    s = ready(4, dogs={RED: "w12", GREEN: "w14"})
    fish = [take_fish(s, "w21"), take_fish(s, "w31")]
    s.carried[GREEN] = list(fish)
    put(s, GREEN, "e21")
    put(s, RED, "e41")
    turn_to(s, RED, 2)
    assert MoveCat("e21", steal="green") in s.legal_actions()
    s.apply_action(MoveCat("e21", steal="green"))
    assert s.carried[RED] == [fish[1]] and s.carried[GREEN] == [fish[0]]
    assert s.turn == RED and s.step == "roll"  # "throw the dice again to get away"


def test_prowling_needs_a_cat_carrying_a_fish_on_the_square():
    s = ready(4)
    put(s, GREEN, "e21")
    put(s, RED, "e41")
    turn_to(s, RED, 2)
    with pytest.raises(IllegalMoveError) as err:
        s.apply_action(MoveCat("e21", steal="green"))
    assert err.value.rule == "go on the prowl"


def test_cats_can_carry_any_number_of_fish():
    s = ready(4, dogs={RED: "w12", GREEN: "w14", BLUE: "e12"})
    stolen = [take_fish(s, "w21"), take_fish(s, "w31")]
    s.carried[GREEN] = [stolen[0]]
    s.carried[YELLOW] = [stolen[1]]
    put(s, GREEN, "e21")
    put(s, YELLOW, "e11")
    put(s, RED, "e41")
    turn_to(s, RED, 2)
    s.apply_action(MoveCat("e21", steal="green"))
    s.apply_action(Roll(1))
    s.apply_action(MoveCat("e11", steal="yellow"))
    s.apply_action(Roll(2))
    s.apply_action(MoveCat("e31", open_bin=True))  # stopping short at blue's dustbin
    assert len(s.carried[RED]) == 3


# --- the wall ------------------------------------------------------------------------------


def test_getting_onto_the_wall_is_one_move_and_coming_off_is_one_move():
    s = ready(4)
    put(s, RED, "w41")
    turn_to(s, RED, 1)
    assert ("wall-a", "east", False) in ends(s)
    put(s, RED, "w41")
    turn_to(s, RED, 2)
    assert {("e41", None, False), ("e43", None, False), ("e45", None, False)} <= ends(s)


def test_cats_may_come_off_the_wall_at_any_of_the_three_alleyways():
    s = ready(4)
    put(s, RED, "wall-a", "east")
    turn_to(s, RED, 1)
    assert ends(s) == {("e41", None, False), ("e43", None, False), ("e45", None, False)}


def test_a_cat_on_the_wall_must_not_turn_back():
    s = ready(4)
    put(s, RED, "wall-b", "east")
    turn_to(s, RED, 1)
    with pytest.raises(IllegalMoveError) as err:
        s.apply_action(MoveCat("w43"))
    assert err.value.rule == "the wall: continue in the same direction, do not turn back"


def test_a_cat_does_not_cross_back_over_the_wall_within_one_throw():
    # off the wall eastward, then up by another alleyway and back west: that turns back
    s = ready(4)
    put(s, RED, "wall-b", "east")
    turn_to(s, RED, 3)
    assert all(s.board.side.get(node) != "west" for node, _, _ in ends(s))
    with pytest.raises(IllegalMoveError):
        s.apply_action(MoveCat("w41"))
    # nor from the ground: onto the wall, off east, and onto it again heading west
    put(s, RED, "w41")
    turn_to(s, RED, 3)
    assert {heading for node, heading, _ in ends(s) if node in s.board.wall} <= {"east"}


def test_a_cat_may_stay_on_the_wall_when_the_throw_ends_there():
    s = ready(4)
    put(s, RED, "w31")
    turn_to(s, RED, 2)
    s.apply_action(MoveCat("wall-a", "east"))
    assert s.cat_at[RED] == "wall-a" and s.cat_heading[RED] == "east"


# --- the dog chase -------------------------------------------------------------------------


def chase_ready(players: int = 4) -> AlleyCatsState:
    """Red's cat by blue's dustbin on e31, blue's dog hidden in it."""
    s = ready(players, dogs={BLUE: "e31"})
    put(s, RED, "e41")
    turn_to(s, RED, 1)
    s.apply_action(MoveCat("e31", open_bin=True))
    return s


def test_opening_the_dogs_dustbin_starts_a_chase_the_cat_having_taken_the_fish():
    s = chase_ready()
    assert s.chase is not None and s.chase.dog == BLUE and s.chase.at == "e31"
    assert s.carried[RED] == ["blue-fish-2"]
    assert s.log[-1]["reveal"] and "dog!" in s.log[-1]["text"]
    assert s.step == "roll" and s.turn == RED  # the cat throws first
    assert [b["dog"] for b in s.view(YELLOW)["dustbins"] if b["square"] == "e31"] == [True]


def test_the_player_on_the_right_throws_for_the_dog():
    s = chase_ready(4)
    assert s.chase.thrower == GREEN  # red's right: the one before, clockwise
    s.apply_action(Roll(2))
    s.apply_action(MoveCat("wall-a", "west"))
    assert s.step == "dog-roll" and s.thrower() == GREEN
    s.apply_action(Roll(3))
    assert s.current_player() == GREEN
    s2 = chase_ready(2)
    assert s2.chase.thrower == BLUE


def test_the_chased_cat_moves_towards_home():
    s = chase_ready()
    s.apply_action(Roll(2))
    assert ends(s) == {("wall-a", "west", False)}  # the only end of two nearer home
    with pytest.raises(IllegalMoveError) as err:
        s.apply_action(MoveCat("e11"))  # two squares, but away from home
    assert err.value.rule == "dog chase: the cat moves towards home"


def test_the_cat_home_before_the_dog_the_dog_gives_up_and_is_removed():
    s = chase_ready()
    put(s, RED, "w21")
    s.apply_action(Roll(5))
    s.apply_action(MoveCat("home-nw"))
    assert s.chase is None and s.dog[BLUE] == "gone"
    assert s.at_home[RED] == ["blue-fish-2"] and s.turn == BLUE and s.step == "roll"


def test_the_dog_landing_on_the_cat_takes_the_fish_for_the_player_who_moved_it():
    s = chase_ready()
    s.apply_action(Roll(2))
    s.apply_action(MoveCat("wall-a", "west"))
    s.apply_action(Roll(2))
    s.apply_action(MoveDog("wall-a", "west"))  # on the cat, but on the wall: no catch
    assert s.chase is not None and "cannot catch" in s.log[-1]["text"]
    s.apply_action(Roll(1))
    s.apply_action(MoveCat("w41"))
    s.apply_action(Roll(1))
    assert s.legal_actions() == [MoveDog("w41")]
    s.apply_action(MoveDog("w41"))
    assert s.at_home[GREEN] == ["blue-fish-2"] and s.carried[RED] == []
    assert s.dog[BLUE] == "gone" and s.chase is None
    assert s.cat_at[RED] == "w41"  # the cat continues from where the chase ended
    assert s.turn == BLUE and s.step == "roll"  # only now play passes on


def test_the_dog_getting_to_the_cats_home_first_takes_the_fish():
    s = chase_ready()
    s.chase.at = "w21"  # the dog close to red's home, the cat far away
    s.step = "dog-roll"
    s.mark_origin()
    s.apply_action(Roll(4))
    assert MoveDog("home-nw") in s.legal_actions()  # two away: the move ends there
    s.apply_action(MoveDog("home-nw"))
    assert s.at_home[GREEN] == ["blue-fish-2"] and s.dog[BLUE] == "gone"
    assert "home first" in s.log[-1]["text"]


def test_the_dog_takes_only_the_fish_of_its_dustbin():
    s = ready(4, dogs={BLUE: "e31", GREEN: "w14"})
    stolen = take_fish(s, "w23")
    s.carried[RED] = [stolen]
    put(s, RED, "e41")
    turn_to(s, RED, 1)
    s.apply_action(MoveCat("e31", open_bin=True))
    s.chase.at = "wall-a"
    s.chase.heading = "west"
    put(s, RED, "w41")
    s.step = "dog-roll"
    s.mark_origin()
    s.apply_action(Roll(1))
    s.apply_action(MoveDog("w41"))
    assert s.carried[RED] == [stolen] and s.at_home[GREEN] == ["blue-fish-2"]


def test_in_the_chase_landing_on_the_dog_or_a_cat_gives_the_cat_an_extra_throw():
    s = chase_ready()
    put(s, YELLOW, "wall-a", "east")
    s.apply_action(Roll(2))
    s.apply_action(MoveCat("wall-a", "west"))  # yellow's cat is on wall-a
    assert s.step == "roll" and s.turn == RED and "extra throw" in s.log[-1]["text"]
    s = chase_ready()
    s.chase.at = "w41"  # the dog ahead of the cat
    s.mark_origin()
    s.apply_action(Roll(3))
    s.apply_action(MoveCat("w41"))
    assert s.step == "roll" and "extra throw" in s.log[-1]["text"]


def test_the_extra_throw_rule_does_not_apply_to_the_dog():
    s = chase_ready()
    put(s, YELLOW, "e21")
    s.apply_action(Roll(2))
    s.apply_action(MoveCat("wall-a", "west"))
    s.apply_action(Roll(1))
    s.apply_action(MoveDog("e21"))  # onto yellow's cat: no extra throw for the dog
    assert s.step == "roll" and s.thrower() == RED


def test_a_dog_cannot_move_along_the_wall_but_goes_straight_across():
    s = chase_ready()
    s.chase.at, s.chase.heading = "wall-a", "west"
    put(s, RED, "w21")
    s.step = "dog-roll"
    s.mark_origin()
    s.apply_action(Roll(1))
    assert s.legal_actions() == [MoveDog("w41")]
    with pytest.raises(IllegalMoveError) as err:
        s.apply_action(MoveDog("w43"))
    assert err.value.rule == "a dog cannot move along the wall but must go straight across"


def test_a_cat_with_no_path_for_its_throw_stays_and_play_passes_on(monkeypatch):
    s = ready(4)
    monkeypatch.setattr(s.board, "moves", {})  # a board where no path takes the throw
    monkeypatch.setattr(s, "_base_moves", lambda p, far, chasing: ((), frozenset()))
    put(s, RED, "w11")
    turn_to(s, RED, 6)
    assert s.legal_actions() == [Stuck()]
    s.apply_action(Stuck())
    assert s.cat_at[RED] == "w11" and s.turn == BLUE and s.step == "roll"


# --- winning and the referee's endings --------------------------------------------------------


def test_the_first_to_bring_five_fish_home_wins():
    s = ready(4, dogs={GREEN: "w34", BLUE: "e12", YELLOW: "e23"})
    s.at_home[RED] = [take_fish(s, sq) for sq in ("w23", "w33", "w14", "e21")]
    s.carried[RED] = [take_fish(s, "e31")]
    put(s, RED, "w11")
    turn_to(s, RED, 1)
    s.apply_action(MoveCat("home-nw"))
    assert s.is_terminal() and s.current_player() == TERMINAL
    assert s.end_reason == "red has brought 5 fish skeletons home"
    assert s.ranking()[0] == [RED] and s.scores()[RED].breakdown == {"fish_home": 5}
    with pytest.raises(IllegalMoveError, match="the game is over"):
        s.apply_action(Roll(3))


def test_a_fish_won_by_the_dog_counts_towards_five():
    s = chase_ready()
    s.at_home[GREEN] = [take_fish(s, sq) for sq in ("w31", "w12", "w32", "e21")]
    s.chase.at, s.chase.heading = "wall-a", "west"
    put(s, RED, "w41")
    s.step = "dog-roll"
    s.mark_origin()
    s.apply_action(Roll(1))
    s.apply_action(MoveDog("w41"))
    assert s.is_terminal() and s.end_reason == "green has brought 5 fish skeletons home"


def test_referee_ends_the_game_when_every_fish_is_home_without_five():
    s = ready(2, dogs={RED: "w21", BLUE: "e21"})
    s.at_home[RED] = [take_fish(s, sq) for sq in ("w31", "w12", "w32", "e31")]
    s.at_home[BLUE] = [take_fish(s, sq) for sq in ("e12", "e32")]
    for p in (RED, BLUE):
        s.dog[p] = "gone"
        b = s.bin_at[f"{'w' if p == RED else 'e'}21"]
        s.opened.append(b)
        s.dog_found[b] = True
    s.at_home[BLUE].append(s.bin_fish[s.bin_at["w21"]])
    s.bin_fish[s.bin_at["w21"]] = None
    s.carried[BLUE] = [s.bin_fish[s.bin_at["e21"]]]
    s.bin_fish[s.bin_at["e21"]] = None
    put(s, BLUE, "e11")
    turn_to(s, BLUE, 1)
    s.apply_action(MoveCat("home-ne"))
    assert s.is_terminal() and s.end_reason == ALL_FISH_HOME
    assert ALL_FISH_HOME in AlleyCatsState.REFEREE_ENDINGS
    assert s.ranking() == [[RED, BLUE]]


def test_referee_ends_the_game_after_the_round_limit():
    s = ready(4)
    s.turns = ROUND_LIMIT * 4 - 1
    put(s, RED, "w11")
    turn_to(s, RED, 1)
    s.apply_action(MoveCat("w21"))
    assert s.is_terminal() and s.end_reason == ROUNDS_PLAYED
    assert ROUNDS_PLAYED in AlleyCatsState.REFEREE_ENDINGS


def test_ties_are_broken_by_fish_still_carried():
    s = ready(2, dogs={RED: "w21", BLUE: "e21"})
    s.at_home[RED] = [take_fish(s, "e31")]
    s.at_home[BLUE] = [take_fish(s, "w31")]
    s.carried[BLUE] = [take_fish(s, "w12")]
    assert s.ranking() == [[BLUE], [RED]]
    assert AlleyCatsState.TIEBREAKS == ("more fish still carried",)


# --- hidden information, undo, saving -------------------------------------------------------


def test_opening_a_dustbin_is_a_reveal_that_undo_cannot_cross():
    s = chase_ready()
    with pytest.raises(UndoRefusedError):
        s.undo()


def test_a_plain_move_can_be_undone():
    s = ready(4)
    put(s, RED, "w11")
    turn_to(s, RED, 2)
    before = s.to_json()
    s.apply_action(MoveCat("w31"))
    s.undo()
    assert s.to_json() == before


def test_no_view_shows_another_players_dog_until_its_dustbin_is_opened():
    s = ready(4, dogs={BLUE: "e31", YELLOW: "e33"})
    for q in (RED, GREEN, YELLOW, None):
        assert all(b["dog"] is None for b in s.view(q)["dustbins"] if b["owner"] == "blue")
    s2 = chase_ready()
    for q in (RED, GREEN, YELLOW, None):
        seen = {b["square"]: b["dog"] for b in s2.view(q)["dustbins"] if b["owner"] == "blue"}
        assert seen["e31"] is True and [v for k, v in seen.items() if k != "e31"] == [None] * 3


def test_the_whole_state_round_trips_through_json():
    s = chase_ready()
    s.apply_action(Roll(2))
    back = AlleyCatsState.from_json(json.loads(json.dumps(s.to_json())))
    assert back.to_json() == s.to_json() and back.legal_actions() == s.legal_actions()
    assert AlleyCatsState.replay(s.header(), s.log, s.origin).to_json() == s.to_json()


@pytest.mark.parametrize(("change", "message"), [
    (lambda d: d["carried"][0].append("red-fish-1"), "fish skeleton exactly once"),
    (lambda d: d["bin_square"].update({"red-bin-1": "e25"}), "not a marked position"),
    (lambda d: d["cat_at"].__setitem__(0, "home-ne"), "not a square of the board"),
    (lambda d: d["dog"].__setitem__(0, "blue-bin-1"), "not one of red's dustbins"),
    (lambda d: d.pop("turns"), "malformed"),
])
def test_a_bad_saved_state_is_refused(change, message):
    saved = ready(4).to_json()
    bad = copy.deepcopy(saved)
    change(bad["state"])
    with pytest.raises(StateFormatError, match=message):
        AlleyCatsState.from_json(bad)


def test_an_illegal_move_changes_nothing_and_names_the_rule():
    s = ready(4)
    put(s, RED, "w11")
    turn_to(s, RED, 2)
    before = s.to_json()
    with pytest.raises(IllegalMoveError, match="no square 'x99'") as err:
        s.apply_action(MoveCat("x99"))
    assert err.value.rule == "the board"
    with pytest.raises(IllegalMoveError) as err:
        s.apply_action(Stuck())
    assert err.value.rule == "the number thrown must be taken in full"
    with pytest.raises(IllegalMoveError, match="not now") as err:
        s.apply_action(MoveDog("w21"))
    assert err.value.rule == "turn order"
    with pytest.raises(IllegalMoveError, match="give the heading") as err:
        s.apply_action(MoveCat("wall-a"))
    assert err.value.rule == "the wall"
    with pytest.raises(IllegalMoveError, match="turn order"):
        s.apply_action(MoveCat("w31"), player=BLUE)
    assert s.to_json() == before


def test_game_id_and_play_json_ends_with_a_summary():
    from companion.rules.simulate import random_playout
    from companion.rules.summary import final_summary

    assert GAME_ID == "alley-cats" == AlleyCatsState.GAME_ID
    s = random_playout(AlleyCatsState.new(3, 5), 5)
    summary = final_summary(s)
    assert summary["game"] == "alley-cats" and summary["end"] == s.end_reason
    assert len([t for t in summary["tokens"] if "-fish-" in t]) == 12


# --- the component list --------------------------------------------------------------------


def raw_data() -> dict:
    text = (resources.files("companion.rules") / "data" / "alley_cats.yaml").read_text("utf-8")
    return yaml.safe_load(text)


def test_the_data_file_is_provisional_and_says_what_was_guessed():
    c = alley_cats()
    assert c is alley_cats()  # loaded once
    assert "provisional" in c.status and len(c.guessed) >= 3
    assert (c.fish_per_player, c.dustbins_per_player, c.fish_to_win) == (4, 4, 5)
    assert len(c.wall) == 3 and len(c.homes) == 4


def test_every_home_reaches_every_dustbin_position_across_the_wall():
    s = AlleyCatsState.new(4, 0)
    for p in range(4):
        dist = s.board.cat_distances(s.home[p])
        far = s.components.dustbin_positions["east" if s.home_side[p] == "west" else "west"]
        assert all((sq, None) in dist for sq in far)


def _two_homes_west(d):
    d["homes"][1]["side"] = "west"
    d["homes"][1]["entries"] = ["w13"]


def _one_way_step(d):
    d["squares"]["w11"]["next"].append("w31")


@pytest.mark.parametrize(("mutate", "message"), [
    (lambda d: d.pop("status"), "missing field 'status'"),
    (lambda d: d.update(status="final"), "must say the board is provisional"),
    (lambda d: d.update(guessed=[]), "guessed: expected a non-empty list"),
    (lambda d: d.update(fish_per_player=5), "fish_per_player: the rulebook says 4"),
    (lambda d: d.update(fish_to_win=4), "fish_to_win: the rulebook says 5"),
    (_two_homes_west, "3 homes on the west side"),
    (lambda d: d["wall"].pop(), "3 alleyways"),
    (lambda d: d["dustbin_positions"]["west"].append("e11"), "'e11' is not a square on the west"),
    (lambda d: d["dustbin_positions"]["east"].__delitem__(slice(0, 4)), "cannot take the 8"),
    (lambda d: d["squares"]["w11"]["next"].append("e11"), "across the wall"),
    (_one_way_step, "list the step both ways"),
    (lambda d: d["squares"]["w11"]["next"].append("w99"), "'w99' is not on the board"),
    (lambda d: d["seating"].update({2: ["home-nw", "home-sw"]}), "only one side of the wall"),
    (lambda d: d.update(schema=2), "reads schema 1"),
])
def test_a_malformed_data_file_is_refused_naming_the_entry(mutate, message):
    raw = raw_data()
    mutate(raw)
    with pytest.raises(ComponentError, match=message):
        parse_alley_cats(raw)


def test_a_data_file_where_a_cat_cannot_reach_the_far_side_is_refused():
    raw = raw_data()
    for w in raw["wall"]:  # the wall's ends on the east side lead nowhere
        raw["squares"][w["east"]]["next"] = []
    for sq in ("e31", "e33", "e35"):
        raw["squares"][sq]["next"] = [n for n in raw["squares"][sq]["next"]
                                      if n not in ("e41", "e43", "e45")]
    with pytest.raises(ComponentError, match="cannot reach the dustbin position"):
        parse_alley_cats(raw)


def test_an_unreadable_or_invalid_data_file_is_refused(tmp_path):
    bad = tmp_path / "bad.yaml"
    bad.write_text("schema: [1\n", encoding="utf-8")
    with pytest.raises(ComponentError, match="not valid YAML"):
        load_alley_cats(bad)
    with pytest.raises(ComponentError, match="cannot read"):
        load_alley_cats(tmp_path / "missing.yaml")
