"""Build Shopper positions cell by cell for rule tests."""

from __future__ import annotations

from companion.rules.food_alley.market import ALL_SLOTS, SIDES, Bag, Slot, parse_cell
from companion.rules.food_alley.shopper import COIN, INGREDIENT, ShopperState


def position(
    players: int = 2,
    cells: dict[str, str] | None = None,
    *,
    shoppers: dict[int, str] | None = None,
    turn: int = 0,
    start_player: int = 0,
    screens: dict[int, list[str]] | None = None,
    open_lists: dict[int, list[str]] | None = None,
    done_lists: dict[int, list[str]] | None = None,
    slots: dict[str, str | None] | None = None,
    offer: list[str] | None = None,
    empty_slots: bool = False,
) -> ShopperState:
    """A state in the 'turn' phase. Cells: 'peanut-2' (ingredient side), 'coin:rice-3',
    'cat:<player>:<value>'. Every token not placed is in the bag. By default every slot holds a
    list (the first five of the side's type); ``slots`` overrides single slots ('top-3': id)."""
    s = ShopperState.new(players, 0)
    placed: set[str] = set()
    s.cells = [None] * 25
    s.cat_supply = [[1, 2, 3, 4, 5, 6] for _ in range(players)]
    for where, spec in (cells or {}).items():
        c = parse_cell(where)
        if spec.startswith("cat:"):
            _, owner, value = spec.split(":")
            s.cells[c] = ("c", int(owner), int(value))
            s.cat_supply[int(owner)].remove(int(value))
        elif spec.startswith("coin:"):
            s.cells[c] = ("t", spec[5:], COIN)
            placed.add(spec[5:])
        else:
            s.cells[c] = ("t", spec, INGREDIENT)
            placed.add(spec)
    s.shopper = [None] * players
    for q, where in (shoppers or {}).items():
        s.shopper[q] = parse_cell(where)
    s.screens = [list((screens or {}).get(q, [])) for q in range(players)]
    s.open_lists = [list((open_lists or {}).get(q, [])) for q in range(players)]
    s.done_lists = [list((done_lists or {}).get(q, [])) for q in range(players)]
    for screen in s.screens:
        placed.update(screen)
    s.offer = list(offer or [])
    placed.update(s.offer)
    held = {g for lists in (s.open_lists + s.done_lists) for g in lists}
    held |= {g for g in (slots or {}).values() if g}
    s.slots = {slot: None for slot in ALL_SLOTS}
    if not empty_slots:
        for side in SIDES:
            pile = [g for g in s._pile(s.side_types[side]) if g not in held]
            for i in range(5):
                s.slots[Slot(side, i)] = pile[i] if i < len(pile) else None
    by_name = {str(slot): slot for slot in ALL_SLOTS}
    for key, g in (slots or {}).items():
        s.slots[by_name[key]] = g
    s.spares = []
    s.bag = Bag([t.id for t in s.components.tokens if t.id not in placed])
    s.start_player = start_player
    s.start_marker = None
    s.phase = "turn"
    s.turn = turn
    s.pending = {}
    s._legal = None
    s.mark_origin()
    return s


def sambal(
    players: int = 2,
    cells: dict[str, str] | None = None,
    *,
    screens: dict[int, list[str]] | None = None,
    kitchens: dict[int, list[str]] | None = None,
    recipes: dict[str, list[str]] | None = None,
    fill: bool = True,
    piles: str = "open",
):
    """A Sambal state at the start of bargaining. Cells: 'veggie-5' or 'cat:<player>:<value>';
    with ``fill`` the other cells get the first unused tokens of a fixed list. ``piles``: the
    recipe piles option (open by default here, so that a rule test may claim any recipe)."""
    from companion.rules.food_alley.sambal import SambalState

    s = SambalState.new(players, 0, recipes=piles)
    s.cells = [None] * 25
    s.cat_supply = [[1, 2, 3, 4, 5, 6] for _ in range(players)]
    placed: set[str] = set()
    reserved: set[int] = set()
    for where, spec in (cells or {}).items():
        c = parse_cell(where)
        reserved.add(c)
        if spec == "empty":
            continue
        if spec.startswith("cat:"):
            _, owner, value = spec.split(":")
            s.cells[c] = ("c", int(owner), int(value))
            s.cat_supply[int(owner)].remove(int(value))
        else:
            s.cells[c] = ("t", spec)
            placed.add(spec)
    s.screens = [list((screens or {}).get(q, [])) for q in range(players)]
    s.kitchens = [list((kitchens or {}).get(q, [])) for q in range(players)]
    for group in s.screens + s.kitchens:
        placed.update(group)
    if fill:
        spare = [t.id for t in s.components.tokens
                 if t.id not in placed and t.ingredient in ("chicken", "shrimp", "egg")]
        for c in range(25):
            if c not in reserved and spare:
                s.cells[c] = ("t", spare.pop(0))
                placed.add(s.cells[c][1])
    s.bag = Bag([t.id for t in s.components.tokens if t.id not in placed])
    s.recipes = {t: [] for t in s.recipe_types}
    default = recipes or {t: [r.id for r in s.components.recipes if r.type == t][:players + 2]
                          for t in s.recipe_types}
    for t, ids in default.items():
        s.recipes[t] = list(ids)
    s.phase = "bargain"
    s.pending = {}
    s.round = 1
    s._legal = None
    s.mark_origin()
    return s


def stray(players: int = 4, seed: int = 0, *, column: int = 0, tokens: dict[str, str] | None = None,
          order: list[int] | None = None, set_no: int = 1):
    """A Stray state waiting for the first cat of ``column``; ``tokens`` puts given tokens on given
    cells (swapping with wherever they were, so every token stays in one place)."""
    from companion.rules.food_alley.stray import StrayState

    s = StrayState.new(players, seed)
    while s.phase != "place":
        s.play_chance()
    for where, token in (tokens or {}).items():
        put_token(s, parse_cell(where), token)
    if set_no == 2:
        s.set_no = 2
        s.col_order = [4, 3, 2, 1, 0]
    s.col_pos = s.col_order.index(column)
    s.tasks = [{"t": "place", "col": column, "order": list(order or range(players)), "look": []}]
    s._legal = None
    s.mark_origin()
    return s


def put_token(s, c: int, token: str) -> None:
    """Move a token onto a Stray board cell; what lay there goes where the token came from."""
    old = s.cells[c]
    if token in s.cells:
        s.cells[s.cells.index(token)] = old
    elif token in s.reference:
        s.reference[s.reference.index(token)] = old
    else:
        s.bag.remove(token)
        if old is not None:
            s.bag.add(old)
    s.cells[c] = token
