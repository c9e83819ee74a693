"""The protocol's shared pieces: actions declared from their fields, the legal-move cache, the
component index and the conservation check, on a small game of its own (take 1 or 2 stones)."""

from __future__ import annotations

from dataclasses import FrozenInstanceError, dataclass
from enum import Enum
from typing import Any, ClassVar

import pytest

from companion.rules.protocol import (
    TERMINAL,
    Action,
    ActionCodec,
    ComponentIndex,
    GameState,
    IllegalMoveError,
    Score,
    StateFormatError,
    action,
    check_each_once,
    json_field,
)

codec = ActionCodec()


class Colour(Enum):
    RED = "red"
    BLUE = "blue"


@action(codec, "take", "take {stones}")
class Take(Action):
    """Take stones from the heap."""

    stones: int


@action(codec, "paint")
class Paint(Action):
    """Every conversion the fields' types give, and a key and a conversion of one's own."""

    colour: Colour
    cells: tuple[int, ...] = json_field(key="at", encode=lambda c: [f"c{x}" for x in c],
                                        decode=lambda c: tuple(sorted(int(x[1:]) for x in c)))
    note: str | None = None
    tags: tuple[str, ...] = ()

    def __str__(self) -> str:
        return f"paint {self.colour.value}"


@dataclass(frozen=True)
class Stone:
    id: str


class Heap(GameState):
    GAME_ID: ClassVar[str] = "test/heap"
    codec: ClassVar[ActionCodec] = codec

    def __init__(self, players: int, seed: int, options: dict[str, Any]) -> None:
        super().__init__(players, seed, options)
        self.heap = 5
        self.turn = 0
        self.computed = 0
        self.stone = ComponentIndex("stone", "the heap", [Stone("s1"), Stone("s2")])

    @classmethod
    def new(cls, players: int, seed: int, **options: Any) -> Heap:
        return cls(players, seed, options)

    def current_player(self) -> int:
        return TERMINAL if self.heap == 0 else self.turn

    def is_terminal(self) -> bool:
        return self.heap == 0

    def _compute_legal(self) -> list[Action]:
        self.computed += 1
        return [Take(n) for n in (1, 2) if n <= self.heap]

    def chance_outcomes(self) -> list[tuple[Action, float]]:
        return []

    def sample_chance(self) -> Action:
        raise NotImplementedError

    def _check(self, move: Action) -> None:
        if move not in self.legal_actions():
            raise IllegalMoveError("taking", f"cannot {move} from {self.heap}", move=move)

    def _apply(self, move: Action) -> str:
        self.heap -= move.stones  # type: ignore[attr-defined]
        self.turn = 1 - self.turn
        return str(move)

    def view(self, player: int | None) -> dict[str, Any]:
        return {"heap": self.heap}

    def scores(self) -> list[Score]:
        return [Score(p, int(p != self.turn), {"last stone": int(p != self.turn)})
                for p in range(self.players)]

    def _state_json(self) -> dict[str, Any]:
        return {"heap": self.heap, "turn": self.turn}

    def _load_state_json(self, data: dict[str, Any]) -> None:
        self.heap, self.turn = data["heap"], data["turn"]


def test_an_action_is_a_frozen_dataclass_written_type_first_then_each_field():
    move = Paint(Colour.BLUE, (3, 1), None, ("x",))
    assert move.to_json() == {"type": "paint", "colour": "blue", "at": ["c3", "c1"],
                              "note": None, "tags": ["x"]}
    assert list(move.to_json()) == ["type", "colour", "at", "note", "tags"]
    assert codec.decode(move.to_json()) == Paint(Colour.BLUE, (1, 3), None, ("x",))
    assert codec.decode({"type": "paint", "colour": "red", "at": []}) == Paint(Colour.RED, ())
    assert Take(2).to_json() == {"type": "take", "stones": 2} and str(Take(2)) == "take 2"
    assert str(move) == "paint blue"  # its own text kept

    @action(None, "own", "take {stones}")
    class Own(Action):
        stones: int

        def __str__(self) -> str:
            return f"its own words, {self.stones}"

    assert str(Own(3)) == "its own words, 3"  # a text of its own wins over the template
    with pytest.raises(FrozenInstanceError):
        move.note = "y"  # type: ignore[misc]


def test_a_malformed_action_is_named():
    with pytest.raises(StateFormatError, match="malformed action"):
        codec.decode({"type": "take"})
    with pytest.raises(StateFormatError, match="malformed action"):
        codec.decode({"type": "paint", "colour": "green", "at": []})
    with pytest.raises(StateFormatError, match="unknown action"):
        codec.decode({"type": "juggle"})


def test_an_action_whose_form_cannot_be_told_is_refused_when_declared():
    with pytest.raises(TypeError, match="needs its JSON form"):
        @action(None, "odd")
        class Odd(Action):
            where: dict[str, int]
    with pytest.raises(TypeError, match="not among its JSON keys"):
        @action(None, "wrong-text", "take {count}")
        class WrongText(Action):
            stones: int


def test_legal_moves_are_worked_out_once_a_position_and_again_after_each_step():
    game = Heap.new(2, 0)
    assert game.legal_actions() == [Take(1), Take(2)] == game.legal_actions()
    assert game.computed == 1
    assert game.legal_actions(player=1) == []  # not their turn
    game.apply_action(Take(2))
    game.apply_action(Take(2))
    assert game.legal_actions() == [Take(1)]  # the heap holds one: the cache was not kept
    again = Heap.from_json(game.to_json())
    assert again.legal_actions() == [Take(1)]
    with pytest.raises(IllegalMoveError, match="cannot take 2 from 1"):
        game.apply_action(Take(2))


def test_the_component_index_names_an_unknown_id_and_is_shared_by_clones():
    game = Heap.new(2, 0)
    assert game.stone("s2") == Stone("s2") and "s1" in game.stone
    assert game.stone.ids() == ["s1", "s2"]
    with pytest.raises(IllegalMoveError, match="unknown stone 's9'.*rule: the heap"):
        game.stone("s9")
    twin = game.clone()
    assert twin.stone is game.stone and twin.heap == game.heap


def test_conservation_names_what_is_missing_or_held_twice():
    check_each_once(["s1", "s2"], ["s1", "s2"], "stone")
    with pytest.raises(StateFormatError, match="each stone exactly once: s1, s2"):
        check_each_once(["s1", "s1"], ["s1", "s2"], "stone")
    with pytest.raises(StateFormatError, match="exactly once: s3"):
        check_each_once(["s1", "s2", "s3"], ["s1", "s2"], "stone")
