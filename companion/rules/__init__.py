"""Rules engines: pure, deterministic Python (no I/O beyond the component list, no Kivy, no OpenCV).

Games and modes are looked up by name with :func:`find_game`.
"""

from __future__ import annotations

from companion.rules.protocol import (
    CHANCE,
    SIMULTANEOUS,
    TERMINAL,
    ChanceOutcomeError,
    GameState,
    IllegalMoveError,
    RulesError,
    UndoRefusedError,
)


def _registry() -> dict[str, type[GameState]]:
    from companion.rules.alley_cats import AlleyCatsState
    from companion.rules.burger_joint import BurgerJointState
    from companion.rules.critter_kitchen import CritterKitchenState
    from companion.rules.food_alley.sambal import SambalState
    from companion.rules.food_alley.shopper import ShopperState
    from companion.rules.food_alley.stray import StrayState
    from companion.rules.food_trucks import FoodTrucksState

    return {cls.GAME_ID: cls for cls in (ShopperState, SambalState, StrayState, AlleyCatsState,
                                         CritterKitchenState, FoodTrucksState,
                                         BurgerJointState)}


def game_names() -> list[str]:
    return sorted(_registry())


def player_range(cls: type[GameState]) -> tuple[int, int]:
    """How many may play a game: its ``player_counts()`` where its component list says, else
    its module's MIN_PLAYERS and MAX_PLAYERS (2 to 4 if unsaid)."""
    import sys

    counts = getattr(cls, "player_counts", None)
    if counts is not None:
        low, high = counts()
        return int(low), int(high)
    module = sys.modules[cls.__module__]
    return int(getattr(module, "MIN_PLAYERS", 2)), int(getattr(module, "MAX_PLAYERS", 4))


def find_game(name: str) -> type[GameState]:
    """The state class of a game or mode, by name such as ``food-alley/shopper``."""
    games = _registry()
    try:
        return games[name]
    except KeyError:
        raise ValueError(f"unknown game {name!r}; known: {', '.join(sorted(games))}") from None


__all__ = [
    "CHANCE",
    "SIMULTANEOUS",
    "TERMINAL",
    "ChanceOutcomeError",
    "GameState",
    "IllegalMoveError",
    "RulesError",
    "UndoRefusedError",
    "find_game",
    "game_names",
    "player_range",
]
