"""The end of a game in words: which tie-breaker decided first place."""

from __future__ import annotations

from companion.rules.protocol import Score
from companion.rules.summary import tie_break


class Ended:
    TIEBREAKS = ("more lists", "more cats")

    def __init__(self, scores: list[Score]) -> None:
        self._scores = scores

    def scores(self) -> list[Score]:
        return self._scores

    def player_name(self, p: int) -> str:
        return ["black", "white", "orange"][p]


def test_no_tie_needs_no_tie_breaker():
    assert tie_break(Ended([Score(0, 9, {}, (1, 1)), Score(1, 7, {}, (5, 5))])) is None


def test_the_first_tie_breaker_that_separates_the_leaders_is_named():
    state = Ended([Score(0, 9, {}, (2, 0)), Score(1, 9, {}, (2, 3)), Score(2, 9, {}, (1, 9))])
    assert tie_break(state) == ("black and white and orange tied on 9; white won on more cats")


def test_a_tie_on_every_tie_breaker_is_a_shared_win():
    state = Ended([Score(0, 9, {}, (2, 3)), Score(1, 9, {}, (2, 3))])
    assert tie_break(state).endswith("on every tie-breaker: they share the win")
