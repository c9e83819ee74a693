"""What the referee asks, in a player's words, for each kind of step it cannot see: the game's
own phrase for the kind of its first option, else "what happened?"; and what it waits for when
the camera will show the step. The question names who
answers ("Ann: ..."); a chance step is the table's ("Table: ...")."""

from __future__ import annotations

# Food Alley's three modes
FOOD_ALLEY = {
    "bid": "which coin did you take: one from the offer, or a blind draw?",
    "claim": "which grocery list did you take?", "store": "which 4 tokens do you store?",
    "pass": "do you pass?", "draw": "which token came out of the bag?",
    "arrange": "which grocery lists lie along this side, in order?",
    "pile": "which recipes make this pile?", "cook": "cook, or end your turn?",
    "end": "cook, or end your turn?", "claim-area": "which territory do you claim?",
    "conflict": "which conflict area do you choose?",
    "discard": "which ingredient do you discard?", "move-paw": "which paw do you move?",
    "place": "which spare grocery list do you take?", "sell": "which ingredient do you sell?",
    "cat": "which cat was it (its value)?", "place-cat": "which cat did you place?",
    "buy": "which ingredient did you buy?", "feed": "which cat did you feed, and with what?",
    "move": "where did your shopper go?", "shop": "which tokens did you collect?",
    "take-ingredient": "which ingredient did you take?",
    "swap-ingredient": "which ingredients did you swap?", "swap-cat": "which cat did you swap?",
    "stack": "which recipes make this pile, top card first?",
}

# what the referee waits for in Food Alley, by the kind of the step the camera will show
CAMERA_WAITS = {
    "move": "move your shopper", "shop": "collect the matching tokens",
    "place": "place your shopper on a coin", "buy": "buy an ingredient from the market",
    "feed": "feed a cat, cook, or end your turn", "place-cat": "place a cat face down",
    "swap-cat": "swap your cat", "swap-ingredient": "swap an ingredient with the board",
    "take-ingredient": "take an ingredient from the board", "draw": "fill the board from the bag",
    "cat": "put the cat on the emptied space",
}

_BUILDING = "build, trade, buy publicity, or end your building?"

BY_GAME: dict[str, dict[str, str]] = {
    "food-alley": FOOD_ALLEY,
    "alley-cats": {
        "place-bin": "where does the next dustbin go?",
        "roll": "what did the die show?",
        "move-cat": "where does your cat go?",
        "move-dog": "where does the dog go?",
    },
    "critter-kitchen": {
        "card": "which card was turned over?",
        "priority": "in which order do the chefs stand on the priority track, first to last?",
        "draw": "which token came out of the bag?",
        "pick": "what do you pick here, or do you stop?",
        "leave": "what do you pick here, or do you stop?",
        "stop": "what do you pick here, or do you stop?",
        "discard": "which token goes back to the bag?",
    },
    "food-trucks": {
        "draw-order": "which order card was turned up?",
        "draw-food": "which food card was drawn?",
        "deal-truck": "which food truck was dealt?",
        "take": "which dish do you take?",
    },
    "burger-joint": {
        "draw": "which cubes came out of the bag?",
        "take-cube": "which cube do you take?",
        "end-building": _BUILDING, "trade": _BUILDING, "restaurant": _BUILDING,
        "diner": _BUILDING, "bistro": _BUILDING, "publicity": _BUILDING,
        "one-for-one": _BUILDING, "two-for-one": _BUILDING,
        "discard": "which cubes do you discard?",
        "extra-random": "which extra cube do you take?",
        "extra-chosen": "which extra cube do you take?",
    },
}


def step_prompt(game_id: str, kind: str) -> str:
    """The question for a step of this kind in this game (``game_id`` as the engine names it,
    ``food-alley/sambal`` or ``alley-cats``)."""
    return BY_GAME.get(game_id.split("/", 1)[0], {}).get(kind) or "what happened?"
