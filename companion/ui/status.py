"""What the table screen shows of a game the camera does not follow: a few lines drawn from the
game's public view (``state.view(None)``, what an onlooker may see), each player called by the
name entered at the start. Plain Python, tested without Kivy."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

Names = dict[str, str]  # the engine's name of a seat -> the name entered for it
View = dict[str, Any]


def _counts(cubes: dict[str, int]) -> str:
    shown = [f"{n} {colour}" for colour, n in cubes.items() if n]
    return ", ".join(shown) if shown else "none"


def _fish(n: int) -> str:
    return f"{n} fish"


def _many(n: int, thing: str) -> str:
    return f"{n} {thing}" + ("" if n == 1 else "s")


def alley_cats(view: View, names: Names) -> list[str]:
    """Each cat's square and fish, whose dog is where; the chase. No bin says whether it was
    emptied: the players remember that (docs/rules/alley-cats.md)."""
    lines = []
    for colour, cat in view["cats"].items():
        where = cat["at"] or "not on the board yet"
        if cat["heading"]:
            where += f" (on the wall, heading {cat['heading']})"
        lines.append(f"{names.get(colour, colour)} ({colour}): cat at {where}, carrying "
                     f"{_fish(cat['carrying'])}, {_fish(cat['home'])} home; dog {cat['dog']}")
    chase = view.get("chase")
    if chase:
        lines.append(f"chase: {names.get(chase['dog'], chase['dog'])}'s dog at {chase['at']} "
                     f"after {names.get(chase['cat'], chase['cat'])}'s cat; "
                     f"{names.get(chase['dog_thrower'], chase['dog_thrower'])} throws for it")
    if view.get("throw"):
        lines.append(f"thrown: {view['throw']}")
    found = [b["square"] for b in view["dustbins"] if b["dog"] is True]
    if found:
        lines.append("dogs found in the dustbins at " + ", ".join(found))
    return lines


def critter_kitchen(view: View, names: Names) -> list[str]:
    """Round and phase, the challenges and critic, then each chef's stars and what is open."""
    lines = [f"round {view['round']}, {view['phase']}; bag: {view['bag']} tokens",
             "challenges: " + "; ".join(f"{c['card']} ({', '.join(c['needs'])})"
                                        for c in view["challenges"]) if view["challenges"]
             else "no challenge yet",
             f"critic: {view['critic'] or 'not yet'}"]
    for p in view["players"]:
        colour = p["colour"]
        extra = f", zous-chef {p['zous_chef']}" if p["zous_chef"] else ""
        lines.append(f"{names.get(colour, colour)} ({colour}): {_many(p['stars'], 'star')}, "
                     f"shield {p['shield']}, soup {p['soup']}{extra}")
    return lines


def food_trucks(view: View, names: Names) -> list[str]:
    """Round, the order row and decks, then each truck's coins, orders served and hand size."""
    row = [order for order in view["order_row"] if order]  # an empty slot is None
    lines = [f"round {view['round']}; orders open: {', '.join(row) or 'none'}; "
             f"{view['order_deck']} orders and {view['food_deck']} food cards left"]
    for p in view["players"]:
        who = p["player"]
        first = ", first player" if p["first_player"] else ""
        lines.append(f"{names.get(who, who)}: {p['truck']}, {p['coins']} coins, "
                     f"{_many(len(p['served']), 'order')} served, "
                     f"{_many(p['hand'], 'card')} in hand{first}")
    return lines


def burger_joint(view: View, names: Names) -> list[str]:
    """The turn, the cubes out, then each player's storage, buildings and points."""
    areas = "; ".join(f"{area}: {_counts(cubes)}" for area, cubes in view["areas"].items())
    lines = [f"turn {view['turn']}, {view['phase']}; bag: {view['bag']} cubes; {areas}"]
    for p in view["players"]:
        who = p["name"]
        bistros = f", bistros {', '.join(p['upscale_bistros'])}" if p["upscale_bistros"] else ""
        basics = _many(p["basic_restaurants"], "restaurant")
        lines.append(f"{names.get(who, who)}: {p['victory_points']} points, storage "
                     f"{_counts(p['storage'])}; {basics}, diners "
                     f"{', '.join(p['specialty_diners']) or 'none'}{bistros}")
    return lines


LINES: dict[str, Callable[[View, Names], list[str]]] = {
    "alley-cats": alley_cats, "critter-kitchen": critter_kitchen,
    "food-trucks": food_trucks, "burger-joint": burger_joint,
}


def status_lines(view: View | None, names: Names) -> list[str]:
    """The lines for this public view; none for a game without a formatter (or no view)."""
    if not view:
        return []
    lines = LINES.get(str(view.get("game")))
    return lines(view, names) if lines else []
