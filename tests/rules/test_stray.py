"""Stray, every rule: columns, face-down cats, conflicts, territories, two sets, scoring."""

from __future__ import annotations

import pytest

from companion.rules import CHANCE, ChanceOutcomeError, IllegalMoveError, UndoRefusedError
from companion.rules.food_alley.common import Draw, RevealCat
from companion.rules.food_alley.market import parse_cell
from companion.rules.food_alley.stray import (
    ChooseConflict,
    ClaimArea,
    MovePaw,
    PlaceCat,
    StrayState,
    SwapCat,
    SwapIngredient,
)

from .builder import stray

BLACK, WHITE, ORANGE, BLUE = range(4)


def c(n: str) -> int:
    return parse_cell(n)


def place_all(s, placements):
    for cell_name, value in placements:
        s.apply_action(PlaceCat(c(cell_name), value))


# --- setup -----------------------------------------------------------------------------------


@pytest.mark.parametrize(("players", "rows", "blocked"), [(2, 3, [4, 3]), (3, 4, [4]), (4, 5, [])])
def test_setup_rows_by_player_count(players, rows, blocked):
    s = StrayState.new(players, 1)
    while s.phase != "place":
        s.play_chance()
    for r in range(5):
        for col in range(5):
            cell = r * 5 + col
            if r < rows:
                assert s.cells[cell] is not None and cell not in s.cats
            else:
                assert s.cells[cell] is None and s.cats[cell] == [-1, None, False]
    assert s.blocked == blocked
    assert all(t is not None for t in s.reference)
    s.check_conservation()


def test_reference_tokens_are_never_sambal_or_tofu():
    s = StrayState.new(4, 2)
    while s.phase == "fill":
        s.play_chance()
    assert s.phase == "reference"
    wild = next(t for t in s.bag.contents() if t.startswith(("tofu", "sambal")))
    with pytest.raises(ChanceOutcomeError, match="goes back to the bag"):
        s.apply_action(Draw(wild))
    assert all(not a.token.startswith(("tofu", "sambal")) for a, _ in s.chance_outcomes())


def test_start_player_by_drawn_values_redraw_on_tie():
    s = StrayState.new(3, 2)
    while s.phase != "start-draw":
        s.play_chance()
    pool = s.bag.contents()
    sixes = [t for t in pool if s.token(t).coin == 6][:2]
    low = next(t for t in pool if s.token(t).coin == 2)
    for t in (sixes[0], sixes[1], low):  # black 6, white 6, orange 2
        s.apply_action(Draw(t))
    assert s.tasks[0]["contenders"] == [0, 1]
    s.apply_action(Draw(low))  # black 2
    s.apply_action(Draw(sixes[0]))  # white 6
    assert s.start_player == 1
    assert s.tasks[0] == {"t": "place", "col": 0, "order": [1, 2, 0], "look": []}


# --- a column ----------------------------------------------------------------------------------


def rulebook_column():
    """Column b: white on b1 (3 on a 3), blue on b2 (4), orange on b3 (3 on a 3), black on b4."""
    tokens = {"b1": "noodle-3", "b2": "egg-1", "b3": "peanut-3", "b4": "chicken-1",
              "b5": "veggie-5"}
    s = stray(4, column=1, tokens=tokens, order=[WHITE, BLUE, ORANGE, BLACK])
    place_all(s, [("b1", 3), ("b2", 4), ("b3", 3), ("b4", 6)])
    return s


def test_rulebook_resolution_example():
    s = rulebook_column()
    # orange and white match their prices: +1 VP each
    assert s.vp_exact == [0, 1, 1, 0]
    assert s.collection[WHITE] == ["noodle-3"] and s.collection[BLACK] == ["chicken-1"]
    # orange and white tie: white (topmost) chooses the conflict area
    assert s.current_player() == WHITE and s.phase == "conflict"
    s.apply_action(ChooseConflict(2))
    assert s.fights == {"2": [WHITE, ORANGE]}
    # black (6) claims first, then blue (4)
    assert s.current_player() == BLACK and s.phase == "claim"
    s.apply_action(ClaimArea("b:same-ingredient"))
    assert s.current_player() == BLUE
    s.apply_action(ClaimArea("b:roof"))
    # next column: white, blue, orange, black by position; blue, on the roof, moves last
    assert s.tasks[0]["t"] == "place" and s.tasks[0]["col"] == 2
    assert s.tasks[0]["order"] == [WHITE, ORANGE, BLACK, BLUE]
    assert s.last_order == [WHITE, BLUE, ORANGE, BLACK]


def test_exact_match_gives_one_vp():
    tokens = {"a1": "rice-2", "a2": "egg-5", "a3": "peanut-3", "a4": "chicken-1"}
    s = stray(4, column=0, tokens=tokens)
    place_all(s, [("a1", 6), ("a2", 5), ("a3", 1), ("a4", 2)])
    assert s.vp_exact == [1, 1, 0, 0]  # rice is any number; egg-5 under a 5


def test_claim_territory_highest_first_and_mandatory():
    s = stray(4, column=0)
    place_all(s, [("a1", 6), ("a2", 5), ("a3", 4), ("a4", 3)])
    assert [t["player"] for t in s.tasks if t["t"] == "claim"] == [0, 1, 2, 3]
    assert {a.area for a in s.legal_actions()} == {
        "a:same-ingredient", "a:same-colour", "a:trash", "a:trash-with-rats", "a:seller-4-same"}
    with pytest.raises(IllegalMoveError, match="not a free area above or below column A"):
        s.apply_action(ClaimArea("b:roof"))
    for area in ("a:same-ingredient", "a:same-colour", "a:seller-4-same"):
        s.apply_action(ClaimArea(area))
    assert {a.area for a in s.legal_actions()} == {"a:trash", "a:trash-with-rats"}


def test_no_conflict_when_every_area_is_taken():
    s = stray(4, column=0)
    s.fights = {"1": [0, 1], "2": [0, 2], "3": [1, 2], "4": [1, 3]}
    place_all(s, [("a1", 2), ("a2", 2), ("a3", 5), ("a4", 4)])
    assert not any(t["t"] == "conflict" for t in s.tasks)
    assert [t["player"] for t in s.tasks if t["t"] == "claim"] == [2, 3]
    assert "no empty conflict area" in s.log[-1]["text"]


def test_trash_with_rats_takes_the_leftover():
    s = stray(4, column=0, tokens={"a5": "veggie-6"})
    place_all(s, [("a1", 6), ("a2", 5), ("a3", 4), ("a4", 3)])
    s.apply_action(ClaimArea("a:trash-with-rats"))
    for area in ("a:same-ingredient", "a:same-colour", "a:seller-4-same"):
        s.apply_action(ClaimArea(area))
    assert "veggie-6" in s.collection[0]
    assert s.cells[c("a5")] is None


def test_roof_plays_last_and_looks_first():
    s = stray(4, column=1)
    place_all(s, [("b1", 6), ("b2", 5), ("b3", 4), ("b4", 3)])
    s.apply_action(ClaimArea("b:roof"))  # black
    for area in ("b:same-ingredient", "b:same-colour", "b:trash"):
        s.apply_action(ClaimArea(area))
    task = s.tasks[0]
    assert task["col"] == 2 and task["order"] == [1, 2, 3, 0] and task["look"] == [0]
    place_all(s, [("c1", 1), ("c2", 2)])
    # white and orange have placed: white sees only their own, black does not see yet
    assert s.view(1)["board"][c("c2")]["value"] is None
    assert s.view(0)["board"][c("c1")]["value"] is None
    s.apply_action(PlaceCat(c("c3"), 1))
    # black's turn: the roof's look shows every opponent's cat in column c, to black alone
    seen = {e["cell"]: e["value"] for e in s.view(0)["board"] if e.get("cat")}
    assert seen["c1"] == 1 and seen["c2"] == 2 and seen["c3"] == 1
    assert s.view(1)["board"][c("c3")]["value"] is None


def test_upper_backyard_swaps_a_cat():
    s = stray(4, column=2)
    place_all(s, [("c1", 6), ("c2", 5), ("c3", 4), ("c4", 3)])
    s.apply_action(ClaimArea("c:upper-backyard"))  # black, cat 6 on c1
    for area in ("c:same-ingredient", "c:same-colour", "c:trash"):
        s.apply_action(ClaimArea(area))
    assert s.phase == "immediate" and s.current_player() == 0
    s.apply_action(SwapCat(c("c1"), 1))
    assert s.cats[c("c1")] == [0, 1, True] and 6 in s.supply[0] and 1 not in s.supply[0]


def test_lower_backyard_swaps_an_ingredient():
    s = stray(4, column=2, tokens={"c5": "veggie-6"})
    place_all(s, [("c1", 6), ("c2", 5), ("c3", 4), ("c4", 3)])
    s.apply_action(ClaimArea("c:lower-backyard"))
    for area in ("c:same-ingredient", "c:same-colour", "c:trash"):
        s.apply_action(ClaimArea(area))
    mine = s.collection[0][0]
    s.apply_action(SwapIngredient(mine, c("c5")))
    assert s.collection[0] == ["veggie-6"] and s.cells[c("c5")] == mine


def test_face_down_cat_is_hidden_until_the_column_is_revealed():
    s = stray(4, column=0)
    s.apply_action(PlaceCat(c("a1"), 6))
    assert s.view(0)["board"][0]["value"] == 6
    for other in (1, 2, 3):
        assert s.view(other)["board"][0]["value"] is None
        assert "6" not in s.public_log(other)[-1]["text"]
    assert s.undo()["text"] == "black places a cat face down on a1"  # undo shows no value
    s.apply_action(PlaceCat(c("a1"), 6))
    place_all(s, [("a2", 5), ("a3", 4), ("a4", 3)])
    assert s.view(1)["board"][0]["value"] == 6  # revealed with the column
    assert "black 6" in s.public_log(1)[-1]["text"]


def test_no_undo_across_a_column_reveal():
    s = stray(4, column=0)
    place_all(s, [("a1", 6), ("a2", 5), ("a3", 4), ("a4", 3)])
    with pytest.raises(UndoRefusedError, match="hidden thing was revealed"):
        s.undo()


def test_placing_needs_own_cat_and_free_cell_of_the_column():
    s = stray(4, column=0)
    s.apply_action(PlaceCat(c("a1"), 6))
    with pytest.raises(IllegalMoveError, match="not on a1"):
        s.apply_action(PlaceCat(c("a1"), 5))
    with pytest.raises(IllegalMoveError, match="not on b2"):
        s.apply_action(PlaceCat(c("b2"), 5))
    s.apply_action(PlaceCat(c("a2"), 5))
    s.apply_action(PlaceCat(c("a3"), 5))
    with pytest.raises(IllegalMoveError, match="no cat of value 9"):
        s.apply_action(PlaceCat(c("a4"), 9))


# --- the end of a set ----------------------------------------------------------------------


def test_rulebook_conflict_chain():
    """Orange loses to black on the tie at 4 and gains +2, beats white at 6; white gains +1 and
    beats black and orange in the third conflict; blue, in none, scores its cat (+3)."""
    s = stray(4, column=4)
    s.col_pos = 4
    s.supply = [[4], [5], [4], [3]]
    s.cats = {k: v for k, v in s.cats.items() if v[0] < 0}
    for p, (cell_name, value) in enumerate([("e1", 1), ("e2", 2), ("e3", 6), ("e4", 5)]):
        s.cats[c(cell_name)] = [p, value, True]
    s.fights = {"1": [BLACK, ORANGE], "2": [ORANGE, WHITE], "3": [BLACK, ORANGE, WHITE]}
    s.last_order = [BLACK, WHITE, ORANGE, BLUE]
    s.tasks = [{"t": "set-end"}]
    s._run()
    first = " ".join(s._narrative)
    # area 2's winner (orange) may replace a paw
    assert s.current_player() == ORANGE and s.phase == "effect"
    s.apply_action(MovePaw(None, None))
    while s.phase == "effect":  # losers of area 3 swap an ingredient with the board
        s.apply_action(s.legal_actions()[0])
    winners = {r["slot"]: r["winner"] for r in s.results}
    assert winners == {1: BLACK, 2: ORANGE, 3: WHITE}
    told = first + " ".join(e["text"] for e in s.log)
    assert "conflict 1: black 4, orange 4; black wins" in told
    assert "conflict 2: orange 6, white 5; orange wins" in told
    assert "conflict 3: black 4, orange 6, white 6; white wins" in told
    assert s.vp_uncontested == [0, 0, 0, 3]
    assert s.lost_conflicts(ORANGE) == 2 and s.lost_conflicts(BLACK) == 1


def test_second_set_runs_right_to_left_from_the_last_on_the_track():
    s = StrayState.new(3, 4)
    while s.set_no == 1:
        if s.current_player() == CHANCE:
            s.play_chance()
        else:
            s.apply_action(s.legal_actions()[0])
    lowest = min(s.vp(p) for p in range(3))
    assert s.vp(s.start_player) == lowest
    while s.phase != "place":
        s.play_chance()
    assert s.tasks[0]["col"] == 4
    assert s.tasks[0]["order"][0] == s.start_player or s.tasks[0]["look"]
    assert all(len(sup) == 6 for sup in s.supply)
    assert all(s.cells[r * 5 + col] is not None for r in range(4) for col in range(5))


def test_immediate_paws_trigger_again_in_the_second_set():
    s = stray(4, column=0, set_no=2, tokens={"a5": "veggie-6"})
    s.territory["a:trash-with-rats"] = BLUE  # claimed in the first set
    place_all(s, [("a1", 6), ("a2", 5), ("a3", 4), ("a4", 3)])
    for area in ("a:same-ingredient", "a:same-colour", "a:seller-4-same", "a:trash"):
        s.apply_action(ClaimArea(area))
    assert "veggie-6" in s.collection[BLUE]


def test_two_player_neutral_cat_fights_but_never_scores():
    s = stray(2, column=0)
    place_all(s, [("a1", 4), ("a2", 2)])
    assert s.current_player() == CHANCE  # the topmost neutral cat (a4) is revealed
    s.apply_action(RevealCat(4))
    assert s.cats[c("a4")] == [-1, 4, True]
    # black (a1) ties with the neutral 4 and, topmost, chooses; 3 and 4 hold neutral cats
    assert s.current_player() == 0 and s.phase == "conflict"
    assert {a.slot for a in s.legal_actions()} == {1, 2}
    s.apply_action(ChooseConflict(1))
    assert s.fights == {"1": [0, -1]} and s.neutral_fighter == {"1": 4}
    assert s.scores()[0].total >= 0 and len(s.scores()) == 2


def test_final_scoring():
    s = stray(4, column=0)
    s.reference[0] = "chicken-2"  # blue chicken
    s.collection[0] = ["chicken-5", "peanut-6", "sambal-1", "tofu-3", "egg-4", "rice-1"]
    s.territory = {"a:same-ingredient": 0, "a:same-colour": 0, "a:trash": 1,
                   "a:seller-4-same": 0, "b:seller-6-different": 0, "d:seller-odd": 0,
                   "e:seller-even": 0}
    s.collection[1] = ["chicken-6", "veggie-5", "tofu-1", "sambal-2", "noodle-3"]
    s.results = [{"set": 1, "slot": 1, "winner": 0, "losers": [1]},
                 {"set": 1, "slot": 3, "winner": 0, "losers": [1, 2]}]
    s.vp_exact = [2, 1, 0, 0]
    s.vp_uncontested = [3, 0, 0, 0]
    black, white = s.scores()[0], s.scores()[1]
    # same ingredient: chicken-5, sambal-1 -> 2 x 2; same colour (blue): peanut-6, tofu-3,
    # egg-4 -> 3 x 2; prices 5, 6, 1, 3, 4 + rice: no 4 of a kind; 6 different with rice: 6;
    # odd: 5, 1, 3 + rice = 4; even: 6, 4 + rice = 3
    assert black.breakdown == {"exact_matches": 2, "uncontested_cats": 3,
                               "upper_areas": 4 + 6, "sellers": 0 + 6 + 4 + 3,
                               "conflicts": 3 + 2}
    # trash: chicken-6, veggie-5 (blue), tofu-1, sambal-2 count; noodle-3 (grey) does not
    assert white.breakdown["upper_areas"] == -4
    assert white.breakdown["conflicts"] == -1 + 0
    assert black.total == sum(black.breakdown.values())


def test_tie_breakers():
    s = stray(4, column=0)
    s.results = [{"set": 1, "slot": 1, "winner": 2, "losers": [0]}]
    s.collection = [["chicken-1"], ["chicken-2", "chicken-3"], [], ["sambal-1"]]
    s.territory = {}
    # all totals 0 except orange's +3; black lost a conflict
    assert s.ranking() == [[2], [1], [3], [0]]
