"""Food Alley, Sambal mode (rulebook: "Sambal").

A round: players without coins sell a kitchen ingredient; everyone seals a coin (simultaneous,
secret); the coins are revealed together; players with a unique value gather in descending value
(buy, exact-price bonus, cat), each then cooking once and feeding cats; players who failed then
cook or feed in seat order. Readings of unclear sentences: docs/rules/sambal.md.
"""

from __future__ import annotations

from collections import Counter
from itertools import combinations, permutations
from typing import Any, ClassVar

from companion.rules.components import Components, Recipe, Token, Trait, food_alley
from companion.rules.food_alley.common import (
    Draw,
    RevealCat,
    board_tokens,
    camera_cell,
    camera_rows,
    cell_field,
    player_colours,
    sorted_field,
)
from companion.rules.food_alley.market import CELLS, Bag, Cell, name, neighbours
from companion.rules.protocol import (
    CHANCE,
    SIMULTANEOUS,
    TERMINAL,
    Action,
    ActionCodec,
    ChanceOutcomeError,
    ComponentIndex,
    GameState,
    IllegalMoveError,
    JointAction,
    Score,
    StateFormatError,
    action,
    check_each_once,
    json_field,
    jsonable,
)

GAME_ID = "food-alley/sambal"
CAPITAL = 5  # "Draw 5 ingredient tokens ... coin side up behind your shield"
DISH_SIZE = 3  # "a dish using exactly 3 ingredients"
MAX_SAMBAL = 1  # "Every dish may only contain 1 Sambal token!"
SET_BONUS = 4  # "+4 points for a complete set of all four recipe types"
MIN_MARKET = 6  # "less than 6 ingredients on the market" ends the game
STALL_ROUNDS = 10  # docs/rules/sambal.md: 10 rounds without a recipe or a cat placed or fed
MIN_PLAYERS, MAX_PLAYERS = 2, 4
BROWN = "brown"
# endings that are the referee's rules, where the rulebook is silent (docs/rules/sambal.md)
EVERYONE_OUT = "every player is out of coins and ingredients"
STALLED = f"{STALL_ROUNDS} rounds passed without a recipe claimed or a cat placed or fed"
RECIPE_PILES = ("top", "open")  # which cards of a pile may be claimed (docs/rules/sambal.md)
DEFAULT_RECIPES = "top"

codec = ActionCodec()
codec.register(Draw)
codec.register(RevealCat)


@action(codec, "pile")
class Pile(Action):
    """Chance: which recipes of one type make its pile (X + 2 for X players), laid out visibly."""

    recipes: tuple[str, ...] = sorted_field()

    def __str__(self) -> str:
        return "pile " + ", ".join(self.recipes)


@action(codec, "stack")
class Stack(Pile):
    """Chance: a shuffled pile of one type, top card first (the ``recipes: top`` option): a
    pile whose order counts."""

    recipes: tuple[str, ...]

    def __str__(self) -> str:
        return "stack " + ", ".join(self.recipes) + " (top first)"


@action(codec, "sell", "sell {token}")
class Sell(Action):
    """Out of coins at bargaining: flip one kitchen ingredient to a coin behind the screen."""

    token: str


@action(codec, "offer", "offer {token}")
class Offer(Action):
    """Bargaining: the coin a player secretly chooses."""

    token: str


@action(codec, "reveal")
class Reveal(JointAction):
    """All sealed coins, revealed together: player index -> coin token."""

    bids: tuple[tuple[int, str], ...] = json_field(
        encode=lambda bids: {str(p): t for p, t in bids},
        decode=lambda bids: tuple(sorted((int(p), str(t)) for p, t in bids.items())))

    @property
    def choices(self) -> dict[int, Action]:  # type: ignore[override]
        return {p: Offer(t) for p, t in self.bids}

    def __str__(self) -> str:
        return "reveal " + ", ".join(f"{p}:{t}" for p, t in self.bids)


@action(codec, "buy")
class Buy(Action):
    """Gathering: buy the ingredient on a cell; ``bonus`` is the adjacent cell taken on an
    exact price match (None: no bonus)."""

    cell: Cell = cell_field()
    bonus: Cell | None = cell_field(default=None)

    def __str__(self) -> str:
        extra = f" + bonus {name(self.bonus)}" if self.bonus is not None else ""
        return f"buy {name(self.cell)}{extra}"


@action(codec, "cook")
class Cook(Action):
    """Cooking: 3 kitchen ingredients (sorted), the recipe claimed, the ingredients flipped to
    coins, and for a brown recipe the ingredient kept as its VP."""

    dish: tuple[str, ...] = sorted_field()
    recipe: str
    flip: tuple[str, ...] = sorted_field(default=())
    keep: str | None = None

    def __str__(self) -> str:
        tail = f", keep {self.keep}" if self.keep else f", flip {' '.join(self.flip)}"
        return f"cook {' '.join(self.dish)} as {self.recipe}{tail}"


@action(codec, "feed", "feed the cat on {cell} with {token}")
class Feed(Action):
    """Feed the stray cat on a cell with one kitchen ingredient."""

    cell: Cell = cell_field()
    token: str


@action(codec, "end", "end turn")
class EndTurn(Action):
    """Done cooking and feeding (both optional)."""


_CHANCE_PHASES = {"fill", "capital", "piles", "cat"}
_WAITS = {
    "fill": "the tokens that fill the market",
    "capital": "a token drawn behind a screen (starting capital)",
    "piles": "the recipes that make a pile",
    "cat": "the value of the cat placed on the emptied space",
    "sell": "a kitchen ingredient sold for a coin (Sell)",
    "bargain": "every player's secret coin (Offer)",
    "buy": "an ingredient bought (Buy)",
    "cook": "cooking, feeding a cat, or the end of the turn (Cook, Feed, EndTurn)",
    "over": "nothing: the game is over",
}


class SambalState(GameState):
    """One game of Food Alley in Sambal mode."""

    GAME_ID: ClassVar[str] = GAME_ID
    TIEBREAKS: ClassVar[tuple[str, ...]] = (  # the order scores() breaks ties in
        "more value in unused cats",
        "more value in coins",
    )
    codec: ClassVar[ActionCodec] = codec
    SEAT_COLOURS: ClassVar[tuple[str, ...]] = food_alley().player_colours
    REFEREE_ENDINGS: ClassVar[frozenset[str]] = frozenset({EVERYONE_OUT, STALLED})
    TABLE_OPTIONS: ClassVar[dict[str, str]] = {
        "recipes": "top (only the top card of each pile may be claimed; the default) or open"}

    def __init__(self, players: int, seed: int, options: dict[str, Any],
                 components: Components) -> None:
        super().__init__(players, seed, options)
        self.components = components
        self.token = ComponentIndex("token", "components", components.tokens)
        self.recipe = ComponentIndex("recipe", "Claiming Recipes", components.recipes)
        self.names: list[str] = list(options["colours"])
        self.recipe_types: list[str] = list(dict.fromkeys(r.type for r in components.recipes))
        self.cells: list[tuple[Any, ...] | None] = [None] * len(CELLS)
        self.bag = Bag([t.id for t in components.tokens])
        self.screens: list[list[str]] = [[] for _ in range(players)]
        self.kitchens: list[list[str]] = [[] for _ in range(players)]
        self.cat_supply: list[list[int]] = [sorted(components.cat_values)
                                            for _ in range(players)]
        self.fed: list[list[tuple[int, int]]] = [[] for _ in range(players)]
        self.recipes: dict[str, list[str]] = {t: [] for t in self.recipe_types}
        self.claimed: list[list[str]] = [[] for _ in range(players)]
        self.kept: dict[str, str] = {}  # brown recipe id -> token kept on it
        self.eliminated: list[bool] = [False] * players
        self.phase = "fill"
        self.pending: dict[str, Any] = {"next": 0}
        self.round = 0
        self.stalled_rounds = 0
        self.progress = False
        self.end_reason: str | None = None

    @classmethod
    def new(cls, players: int, seed: int, **options: Any) -> SambalState:
        """Options: ``colours``, and ``recipes``: ``top`` (default: only the top card of each
        shuffled pile may be claimed) or ``open`` (every card of a pile lies open and any may
        be claimed); docs/rules/sambal.md says why."""
        components: Components = options.pop("components", None) or food_alley()
        colours = player_colours(components, players, options.get("colours"), "Sambal",
                                 MIN_PLAYERS, MAX_PLAYERS)
        recipes = options.get("recipes", DEFAULT_RECIPES)
        if recipes not in RECIPE_PILES:
            raise ValueError(f"recipes must be one of {', '.join(RECIPE_PILES)}, not {recipes!r}")
        return cls(players, seed, {"colours": colours, "recipes": recipes}, components)

    # --- helpers ------------------------------------------------------------------------
    def player_name(self, player: int) -> str:
        return self.names[player]

    def _pile_size(self) -> int:
        return self.players + 2  # "Each pile should contain X + 2 recipes"

    def market_ingredients(self) -> list[Cell]:
        return [c for c, x in enumerate(self.cells) if x is not None and x[0] == "t"]

    def _active(self) -> list[int]:
        return [p for p in range(self.players) if not self.eliminated[p]]

    # --- who acts -----------------------------------------------------------------------
    def current_player(self) -> int:
        if self.phase == "over":
            return TERMINAL
        if self.phase in _CHANCE_PHASES:
            return CHANCE
        if self.phase == "bargain":
            return SIMULTANEOUS
        if self.phase == "sell":
            return int(self.pending["sellers"][0])
        return int(self.pending["queue"][0][0])

    def acting_players(self) -> list[int]:
        if self.phase == "bargain":
            return [p for p in self._active() if p not in self.sealed]
        return super().acting_players()

    def all_choosers(self) -> list[int]:
        return self._active() if self.phase == "bargain" else []

    def is_terminal(self) -> bool:
        return self.phase == "over"

    # --- chance -------------------------------------------------------------------------
    def _pile_type(self) -> str:
        return self.recipe_types[self.pending["type"]]

    def _pile_choices(self) -> list[tuple[str, ...]]:
        """The X + 2 recipes of the pending type: any set of them (open piles), or any of them
        in any order, top card first (stacks)."""
        ids = sorted(r.id for r in self.components.recipes if r.type == self._pile_type())
        size = min(self._pile_size(), len(ids))
        if self.options.get("recipes") == "open":
            return list(combinations(ids, size))
        return list(permutations(ids, size))

    def _pile_action(self, recipes: tuple[str, ...]) -> Action:
        return Pile(recipes) if self.options.get("recipes") == "open" else Stack(recipes)

    def chance_outcomes(self) -> list[tuple[Action, float]]:
        if self.phase in ("fill", "capital"):
            ids = self.bag.contents()
            return [(Draw(t), 1 / len(ids)) for t in ids]
        if self.phase == "cat":
            supply = Counter(self.cat_supply[self.current_mover()])
            total = sum(supply.values())
            return [(RevealCat(v), n / total) for v, n in sorted(supply.items())]
        if self.phase == "piles":
            choices = self._pile_choices()
            return [(self._pile_action(c), 1 / len(choices)) for c in choices]
        return []

    def sample_chance(self) -> Action:
        rng = self.rng.next()
        if self.phase in ("fill", "capital"):
            return Draw(rng.choice(self.bag.contents()))
        if self.phase == "cat":
            return RevealCat(rng.choice(self.cat_supply[self.current_mover()]))
        if self.phase == "piles":
            return self._pile_action(rng.choice(self._pile_choices()))
        raise IllegalMoveError("turn order", "no chance step is pending")

    def current_mover(self) -> int:
        """The player whose turn it is (also during that turn's chance steps)."""
        return int(self.pending["queue"][0][0])

    def _private_to(self, action: Action) -> int | None:
        if self.phase == "capital":
            return int(self.pending["player"])
        return None

    def _public_text(self, action: Action) -> str:
        return f"{self.names[self.pending['player']]} draws a coin behind the screen"

    # --- legal moves --------------------------------------------------------------------
    def legal_actions(self, player: int | None = None) -> list[Action]:
        if self.phase == "bargain":
            if player is None or player not in self.acting_players():
                return []
            return [Offer(t) for t in sorted(set(self.screens[player]))]
        return super().legal_actions(player)

    def _compute_legal(self) -> list[Action]:
        if self.phase == "sell":
            p = self.current_player()
            return [Sell(t) for t in sorted(self.kitchens[p])]
        if self.phase == "buy":
            return list(self._buy_options())
        if self.phase == "cook":
            p = self.current_mover()
            actions: list[Action] = []
            if not self.pending.get("cooked"):
                actions += self._cook_options(p)
            actions += self._feed_options(p)
            actions.append(EndTurn())
            return actions
        return []

    def coin_value(self, token_id: str) -> int:
        return self.token(token_id).coin

    def _affordable(self, token: Token, coin: int) -> bool:
        """"any ingredient ... with a price tag equal to or less than your coin value"; rice is
        any number, so it is always affordable."""
        return token.price <= coin or token.is_wild(Trait.PRICE)

    def _exact(self, token: Token, coin: int) -> tuple[bool, bool]:
        """(exact match possible, exact match forced): rice may match or not, at its choice."""
        if token.is_wild(Trait.PRICE):
            return True, token.price == coin
        return token.price == coin, token.price == coin

    def _buy_options(self) -> list[Buy]:
        coin = self.coin_value(self.pending["bids"][str(self.current_mover())])
        cells = self.cells
        out: list[Buy] = []
        for c, x in enumerate(cells):
            if x is None or x[0] != "t":
                continue
            token = self.token(x[1])
            if not self._affordable(token, coin):
                continue
            can, must = self._exact(token, coin)
            adjacent = [n for n in neighbours(c)
                        if (y := cells[n]) is not None and y[0] == "t"] if can else []
            if adjacent:
                out += [Buy(c, n) for n in adjacent]
                if not must:
                    out.append(Buy(c, None))
            else:
                out.append(Buy(c, None))
        return out

    def dish_matches(self, dish: list[Token], recipe: Recipe) -> bool:
        """The dish shows every ingredient the recipe needs: each need met by a different token;
        sambal is any ingredient, 'any' takes any token."""
        assert recipe.needs is not None
        key = (tuple(sorted((t.ingredient, t.is_wild(Trait.INGREDIENT)) for t in dish)),
               recipe.needs)
        hit = _MATCHES.get(key)
        if hit is None:
            hit = _MATCHES[key] = self._dish_matches(dish, recipe)
        return hit

    @staticmethod
    def _dish_matches(dish: list[Token], recipe: Recipe) -> bool:
        assert recipe.needs is not None
        needs = list(recipe.needs)

        def assign(i: int, used: frozenset[int]) -> bool:
            if i == len(needs):
                return True
            need = needs[i]
            for k, t in enumerate(dish):
                if k in used:
                    continue
                if need == "any" or t.ingredient == need or t.is_wild(Trait.INGREDIENT):
                    if assign(i + 1, used | {k}):
                        return True
            return False

        return assign(0, frozenset())

    def _available_recipes(self) -> list[Recipe]:
        """The recipes that may be claimed: the top card of each pile, or with open piles every
        card."""
        if self.options.get("recipes") == "open":
            return [self.recipe(r) for t in self.recipe_types for r in self.recipes[t]]
        return [self.recipe(pile[0]) for t in self.recipe_types if (pile := self.recipes[t])]

    @staticmethod
    def brown_value(token: Token) -> int:
        """Brown recipe VP: the kept ingredient's price; "a rice token ... always worth 6 VP"."""
        return 6 if token.is_wild(Trait.PRICE) else token.price

    def _cook_options(self, p: int) -> list[Cook]:
        kitchen = sorted(self.kitchens[p])
        available = self._available_recipes()
        named = [r for r in available if r.needs is not None]
        browns = sorted(r.id for r in available if r.needs is None)
        out: list[Cook] = []
        for dish_ids in combinations(kitchen, DISH_SIZE):
            dish = [self.token(t) for t in dish_ids]
            if sum(t.is_wild(Trait.INGREDIENT) for t in dish) > MAX_SAMBAL:
                continue
            key = tuple(sorted((t.ingredient, t.is_wild(Trait.INGREDIENT)) for t in dish))
            matching = []
            for r in named:
                hit = _MATCHES.get((key, r.needs))
                if hit is None:
                    hit = _MATCHES[(key, r.needs)] = self._dish_matches(dish, r)
                if hit:
                    matching.append(r)
            for r in matching:
                for flip in combinations(dish_ids, r.flip):
                    out.append(Cook(dish_ids, r.id, flip))
            if not matching and browns:
                best = max(self.brown_value(t) for t in dish)
                for t in dish:
                    if self.brown_value(t) == best:
                        out.append(Cook(dish_ids, browns[0], (), t.id))
        return out

    def _feed_options(self, p: int) -> list[Feed]:
        kitchen = sorted(set(self.kitchens[p]))
        if not kitchen:
            return []
        out: list[Feed] = []
        for c, x in enumerate(self.cells):
            if x is not None and x[0] == "c":
                out += [Feed(c, t) for t in kitchen if self.can_feed(c, self.token(t))]
        return out

    def can_feed(self, cat_cell: Cell, token: Token) -> bool:
        """Feed a Stray Cat: the ingredient's number is the cat's (rice any number) and its colour
        that of an orthogonally adjacent token (tofu any colour; next to tofu any colour goes);
        no sambal."""
        x = self.cells[cat_cell]
        if x is None or x[0] != "c":
            return False
        if token.is_wild(Trait.INGREDIENT):
            return False
        if not (token.price == x[2] or token.is_wild(Trait.PRICE)):
            return False
        adjacent = [self.token(y[1]) for n in neighbours(cat_cell)
                    if (y := self.cells[n]) is not None and y[0] == "t"]
        if not adjacent:
            return False
        if token.is_wild(Trait.COLOUR) or any(a.is_wild(Trait.COLOUR) for a in adjacent):
            return True
        return token.colour in {a.colour for a in adjacent}

    # --- checking -----------------------------------------------------------------------
    def _wrong_phase(self, action: Action) -> IllegalMoveError:
        return IllegalMoveError(
            "turn structure", f"the game now waits for {_WAITS[self.phase]}, not a {action.kind}",
            move=action)

    def _check_sealed(self, action: Action, player: int) -> None:
        if not isinstance(action, Offer):
            raise self._wrong_phase(action)
        if action.token not in self.screens[player]:
            raise IllegalMoveError(
                "Bargaining", f"{action.token} is not a coin behind {self.names[player]}'s "
                "screen", move=action)

    def _check(self, action: Action) -> None:
        phase = self.phase
        if phase in _CHANCE_PHASES:
            self._check_chance(action)
            return
        if isinstance(action, Reveal):
            if phase != "bargain":
                raise self._wrong_phase(action)
            if sorted(p for p, _ in action.bids) != self._active():
                raise IllegalMoveError("Bargaining", "every player in the game reveals a coin",
                                       move=action)
            for p, t in action.bids:
                self._check_sealed(Offer(t), p)
            return
        if phase == "bargain":
            raise self._wrong_phase(action)
        legal = self.legal_actions()
        if action in legal:
            return
        if isinstance(action, Sell) and phase == "sell":
            raise IllegalMoveError("Running Out of Coins", f"{action.token} is not in your "
                                   "kitchen", move=action)
        if isinstance(action, Buy) and phase == "buy":
            raise IllegalMoveError("Gather Ingredients", self._explain_buy(action), move=action)
        if isinstance(action, Cook) and phase == "cook":
            raise IllegalMoveError("Cooking", self._explain_cook(action), move=action)
        if isinstance(action, Feed) and phase == "cook":
            raise IllegalMoveError(
                "Feed a Stray Cat", "feed a cat with a kitchen ingredient of the cat's number and "
                "the colour of an orthogonally adjacent token; sambal cannot be used",
                move=action)
        raise self._wrong_phase(action)

    def _explain_buy(self, action: Buy) -> str:
        coin = self.coin_value(self.pending["bids"][str(self.current_mover())])
        x = self.cells[action.cell]
        if x is None or x[0] != "t":
            return f"{name(action.cell)} holds no ingredient"
        token = self.token(x[1])
        if not self._affordable(token, coin):
            return f"{token.id} costs {token.price}, more than your coin ({coin})"
        can, must = self._exact(token, coin)
        if action.bonus is None and must:
            return ("the price matches your coin exactly: gain one orthogonally adjacent "
                    "ingredient (Bonus)")
        if action.bonus is not None and not can:
            return "a bonus ingredient is only for an exact price match"
        return f"{name(action.bonus or action.cell)} is not an orthogonally adjacent ingredient"

    def _explain_cook(self, action: Cook) -> str:
        p = self.current_mover()
        if self.pending.get("cooked"):
            return "you may cook only once per turn"
        if len(action.dish) != DISH_SIZE or any(t not in self.kitchens[p] for t in action.dish):
            return "a dish is exactly 3 ingredients from your kitchen"
        dish = [self.token(t) for t in action.dish]
        if sum(t.is_wild(Trait.INGREDIENT) for t in dish) > MAX_SAMBAL:
            return "every dish may only contain 1 sambal token"
        available = {r.id for r in self._available_recipes()}
        if action.recipe not in available:
            piled = any(action.recipe in pile for pile in self.recipes.values())
            if piled:
                return (f"recipe {action.recipe} is not the top card of its pile: only the top "
                        "card may be claimed")
            return f"recipe {action.recipe} is not on the table"
        recipe = self.recipe(action.recipe)
        if recipe.needs is None:
            return ("a brown recipe only when the dish matches no other recipe, keeping the "
                    "highest-priced ingredient")
        if not self.dish_matches(dish, recipe):
            return f"the dish does not show {', '.join(recipe.needs)}"
        return f"flip exactly {recipe.flip} of the dish's ingredients to coins"

    def _check_chance(self, action: Action) -> None:
        if self.phase in ("fill", "capital"):
            if not isinstance(action, Draw):
                raise ChanceOutcomeError("chance", f"the table must supply {_WAITS[self.phase]}",
                                         move=action)
            if action.token not in self.bag:
                raise ChanceOutcomeError(
                    "chance", f"{action.token} is not in the bag; check the reading",
                    move=action)
        elif self.phase == "cat":
            if not isinstance(action, RevealCat) or action.value not in self.cat_supply[
                    self.current_mover()]:
                raise ChanceOutcomeError(
                    "chance", f"{self.names[self.current_mover()]} has no face-down cat of that "
                    f"value left (left: {self.cat_supply[self.current_mover()]})", move=action)
        elif self.phase == "piles":
            if not isinstance(action, Pile) or action.kind != self._pile_action(
                    ()).kind or action.recipes not in self._pile_choices():
                raise ChanceOutcomeError(
                    "Sambal Setup", f"a {self._pile_type()} pile is {self._pile_size()} "
                    f"different {self._pile_type()} recipes", move=action)

    # --- applying -----------------------------------------------------------------------
    def _apply(self, action: Action) -> str:
        if isinstance(action, Draw):
            return self._apply_draw(action.token)
        if isinstance(action, Pile):
            kind = self._pile_type()
            self.recipes[kind] = list(action.recipes)
            self.pending["type"] += 1
            if self.pending["type"] == len(self.recipe_types):
                self._start_round()
            return f"{kind} recipes: {', '.join(action.recipes)}"
        if isinstance(action, RevealCat):
            p = self.current_mover()
            cell = self.pending["cat_cell"]
            self.cat_supply[p].remove(action.value)
            self.cells[cell] = ("c", p, action.value)
            self.progress = True
            self._after_gathering(p)
            return f"{self.names[p]}'s cat {action.value} revealed on {name(cell)}"
        if isinstance(action, Sell):
            p = self.current_player()
            self.kitchens[p].remove(action.token)
            self.screens[p].append(action.token)
            self.pending["sellers"].pop(0)
            if not self.pending["sellers"]:
                self._start_bargaining()
            value = self.coin_value(action.token)
            return f"{self.names[p]} sells {action.token} for a coin of {value}"
        if isinstance(action, Reveal):
            return self._apply_reveal(action)
        if isinstance(action, Buy):
            return self._apply_buy(action)
        if isinstance(action, Cook):
            return self._apply_cook(action)
        if isinstance(action, Feed):
            p = self.current_mover()
            owner, value = self.cells[action.cell][1:]  # type: ignore[index]
            self.cells[action.cell] = None
            self.kitchens[p].remove(action.token)
            self.bag.add(action.token)
            self.fed[p].append((owner, value))
            self.progress = True
            return (f"{self.names[p]} feeds {self.names[owner]}'s cat {value} on "
                    f"{name(action.cell)} with {action.token}")
        if isinstance(action, EndTurn):
            p = self.current_mover()
            self._next_in_queue()
            return f"{self.names[p]} ends the turn"
        raise AssertionError(action)

    def _apply_draw(self, token_id: str) -> str:
        self.bag.remove(token_id)
        if self.phase == "fill":
            cell = self.pending["next"]
            self.cells[cell] = ("t", token_id)
            self.pending["next"] += 1
            if self.pending["next"] == len(CELLS):
                self.phase = "capital"
                self.pending = {"player": 0, "count": 0}
            return f"{token_id} fills {name(cell)}"
        p = self.pending["player"]
        self.screens[p].append(token_id)
        self.pending["count"] += 1
        if self.pending["count"] == CAPITAL:
            self.pending = {"player": p + 1, "count": 0}
            if p + 1 == self.players:
                self.phase = "piles"
                self.pending = {"type": 0}
        return f"{self.names[p]} draws {token_id} behind the screen"

    def _start_round(self) -> None:
        """Running Out of Coins: sell a kitchen ingredient; nothing to sell: eliminated."""
        self.round += 1
        self.progress = False
        sellers = []
        for p in self._active():
            if not self.screens[p]:
                if self.kitchens[p]:
                    sellers.append(p)
                else:
                    self.eliminated[p] = True
        if not self._active():
            self._finish(EVERYONE_OUT)
            return
        if sellers:
            self.phase = "sell"
            self.pending = {"sellers": sellers}
        else:
            self._start_bargaining()

    def _start_bargaining(self) -> None:
        self.phase = "bargain"
        self.pending = {}
        self.sealed = {}

    def _joint(self, choices: dict[int, Action]) -> JointAction:
        return Reveal(tuple(sorted((p, a.token) for p, a in choices.items())))  # type: ignore[attr-defined]

    def _apply_reveal(self, action: Reveal) -> str:
        """Bargaining: equal values fail and flip into the kitchen; unique values gather in
        descending order; the failed cook or feed afterwards in seat order."""
        self.sealed = {}
        values = {p: self.coin_value(t) for p, t in action.bids}
        counts = Counter(values.values())
        unique = sorted((p for p in values if counts[values[p]] == 1),
                        key=lambda p: -values[p])
        failed = sorted(p for p in values if counts[values[p]] > 1)
        bids = {}
        for p, t in action.bids:
            self.screens[p].remove(t)
            if p in failed:
                self.kitchens[p].append(t)
            else:
                bids[str(p)] = t
        text = "reveal: " + ", ".join(
            f"{self.names[p]} {values[p]} ({t})" for p, t in action.bids)
        if failed:
            text += "; failed: " + ", ".join(self.names[p] for p in failed)
        if not unique and len(counts) == 1:
            text += "; all equal, bargain again"
            self._end_round()
            return text
        queue = [[p, "gather"] for p in unique] + [[p, "cook"] for p in failed]
        self.pending = {"bids": bids, "queue": queue}
        self._begin_turn()
        return text

    def _begin_turn(self) -> None:
        if not self.pending["queue"]:
            self._end_round()
            return
        p, mode = self.pending["queue"][0]
        self.pending["cooked"] = False
        if mode == "gather":
            self._legal = None
            self.phase = "buy"
            if not self.legal_actions():  # nothing affordable: the coin goes back
                self.screens[p].append(self.pending["bids"].pop(str(p)))
                self.phase = "cook"
                self._legal = None
        else:
            self.phase = "cook"

    def _apply_buy(self, action: Buy) -> str:
        p = self.current_mover()
        coin = self.pending["bids"].pop(str(p))
        bought = self.cells[action.cell][1]  # type: ignore[index]
        self.kitchens[p].append(bought)
        self.cells[action.cell] = ("t", coin)  # the coin, flipped to its ingredient side
        text = f"{self.names[p]} pays {coin} ({self.coin_value(coin)}) for {bought}"
        if action.bonus is not None:
            extra = self.cells[action.bonus][1]  # type: ignore[index]
            self.kitchens[p].append(extra)
            self.cells[action.bonus] = None
            text += f" and takes {extra} from {name(action.bonus)} (exact price)"
            if self.cat_supply[p]:
                self.phase = "cat"
                self.pending["cat_cell"] = action.bonus
                return text
        self._after_gathering(p)
        return text

    def _after_gathering(self, p: int) -> None:
        self.pending.pop("cat_cell", None)
        self.phase = "cook"

    def _apply_cook(self, action: Cook) -> str:
        p = self.current_mover()
        recipe = self.recipe(action.recipe)
        for t in action.dish:
            self.kitchens[p].remove(t)
        self.recipes[recipe.type].remove(recipe.id)
        self.claimed[p].append(recipe.id)
        self.pending["cooked"] = True
        self.progress = True
        if recipe.needs is None:
            assert action.keep is not None
            self.kept[recipe.id] = action.keep
            for t in action.dish:
                if t != action.keep:
                    self.bag.add(t)
            worth = self.brown_value(self.token(action.keep))
            return (f"{self.names[p]} cooks {', '.join(action.dish)}: no recipe matches, takes "
                    f"{recipe.id} keeping {action.keep} ({worth} VP)")
        for t in action.dish:
            if t in action.flip:
                self.screens[p].append(t)
            else:
                self.bag.add(t)
        return (f"{self.names[p]} cooks {', '.join(action.dish)} for {recipe.id} "
                f"({recipe.chilis} chilis), flipping {', '.join(action.flip) or 'nothing'}")

    def _next_in_queue(self) -> None:
        self.pending["queue"].pop(0)
        self._begin_turn()

    def _end_round(self) -> None:
        """Game End: a player placed their last cat, a recipe pile ran out, or fewer than 6
        ingredients are on the market; checked once the round is complete."""
        self.stalled_rounds = 0 if self.progress else self.stalled_rounds + 1
        if any(not supply for supply in self.cat_supply):
            who = next(self.names[p] for p in range(self.players) if not self.cat_supply[p])
            self._finish(f"{who} placed their last cat")
        elif any(not pile for pile in self.recipes.values()):
            kind = next(k for k, pile in self.recipes.items() if not pile)
            self._finish(f"the {kind} recipes ran out")
        elif len(self.market_ingredients()) < MIN_MARKET:
            self._finish(f"fewer than {MIN_MARKET} ingredients are left on the market")
        elif self.stalled_rounds >= STALL_ROUNDS:
            self._finish(STALLED)
        else:
            self._start_round()

    def _finish(self, reason: str) -> None:
        self.phase = "over"
        self.pending = {}
        self.end_reason = reason

    # --- views and scores ---------------------------------------------------------------
    def token_places(self) -> dict[str, str]:
        places: dict[str, str] = {}
        for c, x in enumerate(self.cells):
            if x is not None and x[0] == "t":
                places[x[1]] = f"board:{name(c)}"
        for t in self.bag.contents():
            places[t] = "bag"
        for q in range(self.players):
            for t in self.screens[q]:
                places[t] = f"screen:{self.names[q]}"
            for t in self.kitchens[q]:
                places[t] = f"kitchen:{self.names[q]}"
        for q, t in self.pending.get("bids", {}).items():
            places[t] = f"bid:{self.names[int(q)]}"
        for q in range(self.players):
            for r in self.claimed[q]:
                if r in self.kept:
                    places[self.kept[r]] = f"recipe:{self.names[q]}:{r}"
        return places

    def view(self, player: int | None) -> dict[str, Any]:
        """What a player sees: market, kitchens, recipes, fed cats; behind their own screen only;
        their own sealed coin, and of others only whether they have chosen."""
        board = []
        for c, x in enumerate(self.cells):
            entry: dict[str, Any] = {"cell": name(c)}
            if x is not None and x[0] == "t":
                entry["token"] = x[1]
            elif x is not None:
                entry.update(cat=self.names[x[1]], value=x[2])
            board.append(entry)
        seats = []
        for q in range(self.players):
            own = player == q
            sealed = self.sealed.get(q)
            seats.append({
                "colour": self.names[q],
                "coins": sorted(self.screens[q]) if own else len(self.screens[q]),
                "kitchen": sorted(self.kitchens[q]),
                "recipes": list(self.claimed[q]),
                "fed_cats": [[self.names[o], v] for o, v in self.fed[q]],
                "cats_face_down": len(self.cat_supply[q]),
                "eliminated": self.eliminated[q],
                "has_chosen": q in self.sealed,
                "chosen": sealed.to_json()["token"] if own and sealed is not None else None,
            })
        return {
            "game": GAME_ID,
            "you": None if player is None else self.names[player],
            "phase": self.phase,
            "round": self.round,
            "to_act": [self.names[p] for p in self.acting_players()],
            "board": board,
            "recipes": {k: list(v) for k, v in self.recipes.items()},
            "bids": {self.names[int(q)]: t for q, t in self.pending.get("bids", {}).items()},
            "bag": len(self.bag),
            "players": seats,
        }

    def camera_board(self) -> list[list[dict[str, Any]]]:
        """The 5x5 market as the camera should see it now: ingredients (a paid coin lies flipped
        to its ingredient side) and the cats revealed on emptied spaces."""
        out = []
        for x in self.cells:
            if x is None:
                out.append(camera_cell("empty"))
            elif x[0] == "t":
                out.append(camera_cell("ingredient", token=x[1]))
            else:
                out.append(camera_cell("cat", player=self.names[x[1]], value=x[2]))
        return camera_rows(out)

    def scores(self) -> list[Score]:
        """Scoring (Sambal); tie-breakers: unused cats' total value, then coins' total value."""
        out = []
        for q in range(self.players):
            chilis = sum(self.recipe(r).chilis or 0 for r in self.claimed[q]
                         if r not in self.kept)
            brown = sum(self.brown_value(self.token(self.kept[r])) for r in self.claimed[q]
                        if r in self.kept)
            types = {self.recipe(r).type for r in self.claimed[q]}
            bonus = SET_BONUS if types >= set(self.recipe_types) else 0
            cats = sum(v for o, v in self.fed[q] if o != q)
            coins = len(self.screens[q])
            out.append(Score(q, chilis + brown + bonus + cats + coins, {
                "recipe_chilis": chilis, "brown_recipes": brown, "all_four_types": bonus,
                "cats_fed": cats, "coins": coins,
            }, (sum(self.cat_supply[q]), sum(self.coin_value(t) for t in self.screens[q]))))
        return out

    # --- persistence --------------------------------------------------------------------
    def _state_json(self) -> dict[str, Any]:
        return {
            "cells": [None if x is None else list(x) for x in self.cells],
            "bag": self.bag.contents(),
            "screens": [list(s) for s in self.screens],
            "kitchens": [list(s) for s in self.kitchens],
            "cat_supply": [list(s) for s in self.cat_supply],
            "fed": [[list(f) for f in fs] for fs in self.fed],
            "recipes": {k: list(v) for k, v in self.recipes.items()},
            "claimed": [list(c) for c in self.claimed],
            "kept": dict(self.kept),
            "eliminated": list(self.eliminated),
            "phase": self.phase,
            "pending": jsonable(self.pending),
            "round": self.round,
            "stalled_rounds": self.stalled_rounds,
            "progress": self.progress,
            "end_reason": self.end_reason,
        }

    def _load_state_json(self, d: dict[str, Any]) -> None:
        self.cells = [None if x is None else tuple(x) for x in d["cells"]]
        self.bag = Bag(list(d["bag"]))
        self.screens = [list(s) for s in d["screens"]]
        self.kitchens = [list(s) for s in d["kitchens"]]
        self.cat_supply = [list(s) for s in d["cat_supply"]]
        self.fed = [[(int(o), int(v)) for o, v in fs] for fs in d["fed"]]
        self.recipes = {k: list(v) for k, v in d["recipes"].items()}
        self.claimed = [list(c) for c in d["claimed"]]
        self.kept = dict(d["kept"])
        self.eliminated = list(d["eliminated"])
        self.phase = d["phase"]
        if self.phase not in _WAITS:
            raise StateFormatError(f"unknown phase {self.phase!r}")
        self.pending = dict(d["pending"])
        self.round = d["round"]
        self.stalled_rounds = d["stalled_rounds"]
        self.progress = d["progress"]
        self.end_reason = d["end_reason"]
        self.check_conservation()

    def check_conservation(self) -> None:
        """Each of the 54 tokens is in exactly one place."""
        seen = Counter(board_tokens(self.cells))
        seen.update(self.bag.contents())
        for q in range(self.players):
            seen.update(self.screens[q])
            seen.update(self.kitchens[q])
        seen.update(self.pending.get("bids", {}).values())
        seen.update(self.kept.values())
        check_each_once(seen.elements(), self.token.ids(), "token")


_MATCHES: dict[tuple[Any, Any], bool] = {}
