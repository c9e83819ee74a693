"""Food Alley's box contents, loaded from data and validated.

The list ships as ``companion/rules/data/food_alley.yaml`` (a copy of the project's reference list).
Nothing in the rules hard-codes a token, list or recipe: a corrected list is a data change only.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from enum import StrEnum
from importlib import resources
from pathlib import Path
from typing import Any

import yaml


class ComponentError(ValueError):
    """The component list is malformed; the message names the entry and what is wrong."""


class Trait(StrEnum):
    """The three traits a token can be matched on (rulebook: price, ingredient, colour)."""

    PRICE = "price"
    INGREDIENT = "ingredient"
    COLOUR = "colour"


ANY_COLOUR = "any"

_WILDCARD_PHRASES = {
    "any colour": Trait.COLOUR,
    "any number": Trait.PRICE,
    "any ingredient": Trait.INGREDIENT,
}


@dataclass(frozen=True, order=True)
class Token:
    """One double-sided token: ingredient side (ingredient, colour, price) and coin (7 - price)."""

    id: str
    ingredient: str
    colour: str
    price: int
    coin: int
    wild: frozenset[Trait] = field(default=frozenset(), compare=False)

    def is_wild(self, trait: Trait) -> bool:
        """Tofu is any colour, rice any number, sambal any ingredient (rulebook, Material)."""
        return trait in self.wild

    def value(self, trait: Trait) -> str | int:
        """The printed value of a trait on the ingredient side."""
        if trait is Trait.PRICE:
            return self.price
        if trait is Trait.INGREDIENT:
            return self.ingredient
        return self.colour


@dataclass(frozen=True)
class GroceryList:
    """A Shopper grocery list. Exactly one of groups, run, parity or needs is set."""

    id: str
    type: str
    smileys: int
    groups: tuple[int, ...] | None = None
    run: int | None = None
    parity: str | None = None
    needs: tuple[tuple[Trait, str | int], ...] | None = None

    @property
    def trait(self) -> Trait | None:
        """The trait a group/run/parity list looks at (None for exact-match lists)."""
        if self.needs is not None:
            return None
        if self.run is not None or self.parity is not None:
            return Trait.PRICE
        return Trait(self.type)


@dataclass(frozen=True)
class Recipe:
    """A Sambal recipe card."""

    id: str
    type: str
    chilis: int | None
    flip: int
    needs: tuple[str, ...] | None  # None: brown recipe, taking a dish that matches no other


@dataclass(frozen=True)
class Components:
    """Everything in the box that the rules need, validated."""

    game: str
    colours: tuple[str, ...]
    ingredients: tuple[str, ...]
    tokens: tuple[Token, ...]
    player_colours: tuple[str, ...]
    cat_values: tuple[int, ...]
    grocery_lists: tuple[GroceryList, ...]
    recipes: tuple[Recipe, ...]
    geometry_mm: dict[str, Any]
    stray_city_quarters: dict[str, Any]
    wildcards: dict[str, Trait]

    def token(self, token_id: str) -> Token:
        try:
            return self._token_index[token_id]
        except KeyError:
            raise ComponentError(
                f"unknown token {token_id!r}: the component list has no such token"
            ) from None

    def grocery_list(self, list_id: str) -> GroceryList:
        try:
            return self._list_index[list_id]
        except KeyError:
            raise ComponentError(
                f"unknown grocery list {list_id!r}: the component list has no such list"
            ) from None

    @property
    def _token_index(self) -> dict[str, Token]:
        index: dict[str, Token] | None = self.__dict__.get("_tokens_by_id")
        if index is None:
            index = {t.id: t for t in self.tokens}
            object.__setattr__(self, "_tokens_by_id", index)
        return index

    @property
    def _list_index(self) -> dict[str, GroceryList]:
        index: dict[str, GroceryList] | None = self.__dict__.get("_lists_by_id")
        if index is None:
            index = {g.id: g for g in self.grocery_lists}
            object.__setattr__(self, "_lists_by_id", index)
        return index

    @property
    def grocery_list_types(self) -> tuple[str, ...]:
        """List types in the order the data first names them."""
        return tuple(dict.fromkeys(g.type for g in self.grocery_lists))

    @property
    def prices(self) -> tuple[int, ...]:
        return tuple(sorted({t.price for t in self.tokens}))


class EntryChecks:
    """The checks every game's component list makes of its entries: each failure is a
    ComponentError naming the file, the entry and what is wrong."""

    def __init__(self, file_name: str) -> None:
        self.file_name = file_name

    def fail(self, where: str, what: str) -> ComponentError:
        return ComponentError(f"component list {self.file_name}, {where}: {what}")

    def get(self, mapping: Any, key: str, where: str) -> Any:
        """``mapping[key]``, refused when the entry is not a mapping or lacks the field."""
        if not isinstance(mapping, dict):
            raise self.fail(where, f"expected a mapping, got {type(mapping).__name__}")
        if key not in mapping:
            raise self.fail(where, f"missing field {key!r}")
        return mapping[key]


def read_component_list(file_name: str, path: str | Path | None = None) -> Any:
    """A component list's YAML: the one shipped as companion/rules/data/``file_name``, or the
    file at ``path``.

    :raises ComponentError: if it cannot be read or is not YAML, naming it and what to do.
    """
    where = str(path) if path is not None else f"the shipped {file_name}"
    try:
        if path is None:
            text = (resources.files("companion.rules") / "data" / file_name).read_text(
                encoding="utf-8")
        else:
            text = Path(path).read_text(encoding="utf-8")
        return yaml.safe_load(text)
    except OSError as exc:
        raise ComponentError(f"cannot read component list {where}: {exc}") from exc
    except yaml.YAMLError as exc:
        raise ComponentError(f"component list {where} is not valid YAML ({exc}); fix the file "
                             "or restore it") from exc


def _fail(where: str, what: str) -> ComponentError:
    return ComponentError(f"component list, {where}: {what}")


def _require(mapping: Any, key: str, where: str) -> Any:
    if not isinstance(mapping, dict):
        raise _fail(where, f"expected a mapping, got {type(mapping).__name__}")
    if key not in mapping:
        raise _fail(where, f"missing field {key!r}")
    return mapping[key]


def _int(value: Any, where: str, name: str) -> int:
    if not isinstance(value, int) or isinstance(value, bool):
        raise _fail(where, f"{name} must be a whole number, got {value!r}")
    return value


def _unique_ids(entries: list[Any], where: str) -> None:
    counts = Counter(e.get("id") if isinstance(e, dict) else None for e in entries)
    for entry_id, n in counts.items():
        if entry_id is None:
            raise _fail(where, "an entry has no id")
        if n > 1:
            raise _fail(f"{where} {entry_id!r}", f"id used {n} times; ids must be unique")


def parse_components(raw: Any, *, expected_tokens: int = 54) -> Components:
    """Validate the raw YAML data and build :class:`Components`.

    :raises ComponentError: naming the entry and what is wrong.
    """
    if not isinstance(raw, dict):
        raise _fail("top level", "expected a mapping of sections")
    colours = tuple(_require(raw, "colours", "top level"))
    ingredients = tuple(_require(raw, "ingredients", "top level"))
    if len(set(colours)) != len(colours) or len(set(ingredients)) != len(ingredients):
        raise _fail("colours/ingredients", "names must be unique")

    wild_raw = _require(raw, "wildcards", "top level")
    wildcards: dict[str, Trait] = {}
    if not isinstance(wild_raw, dict):
        raise _fail("wildcards", "expected a mapping ingredient -> rule")
    for ingredient, rule in wild_raw.items():
        if ingredient not in ingredients:
            raise _fail(f"wildcard {ingredient!r}", "not one of the ingredients")
        found = [t for phrase, t in _WILDCARD_PHRASES.items() if phrase in str(rule)]
        if len(found) != 1:
            raise _fail(
                f"wildcard {ingredient!r}",
                f"rule {rule!r} must say exactly one of {sorted(_WILDCARD_PHRASES)}",
            )
        wildcards[ingredient] = found[0]

    token_entries = _require(raw, "tokens", "top level")
    if not isinstance(token_entries, list):
        raise _fail("tokens", "expected a list")
    _unique_ids(token_entries, "token")
    tokens: list[Token] = []
    for entry in token_entries:
        where = f"token {entry.get('id')!r}" if isinstance(entry, dict) else "token"
        ingredient = _require(entry, "ingredient", where)
        colour = _require(entry, "colour", where)
        price = _int(_require(entry, "price", where), where, "price")
        coin = _int(_require(entry, "coin", where), where, "coin")
        if ingredient not in ingredients:
            raise _fail(where, f"ingredient {ingredient!r} is not in the ingredient list")
        wild = frozenset({wildcards[ingredient]} if ingredient in wildcards else set())
        if colour == ANY_COLOUR:
            if Trait.COLOUR not in wild:
                raise _fail(where, "only the any-colour wildcard may have colour 'any'")
        elif colour not in colours:
            raise _fail(where, f"colour {colour!r} is not one of {list(colours)}")
        elif Trait.COLOUR in wild:
            raise _fail(where, f"an any-colour token must have colour 'any', not {colour!r}")
        if not 1 <= price <= 6:
            raise _fail(where, f"price {price} is outside 1-6")
        if coin != 7 - price:
            raise _fail(where, f"coin {coin} must be 7 - price = {7 - price}")
        tokens.append(Token(entry["id"], ingredient, colour, price, coin, wild))
    if len(tokens) != expected_tokens:
        raise _fail("tokens", f"expected {expected_tokens} tokens, found {len(tokens)}")
    # "Sambal ... only appears in the colour red": the any-ingredient wildcard has one colour.
    for ingredient, trait in wildcards.items():
        if trait is Trait.INGREDIENT:
            shades = {t.colour for t in tokens if t.ingredient == ingredient}
            if len(shades) != 1:
                raise _fail(
                    f"wildcard {ingredient!r}",
                    f"appears in colours {sorted(shades)}; it must have exactly one",
                )

    players = tuple(_require(raw, "player_colours", "top level"))
    cats = _require(raw, "cats", "top level")
    cat_values = tuple(_int(v, "cats", "value") for v in _require(cats, "values", "cats"))
    per_player = _int(_require(cats, "per_player", "cats"), "cats", "per_player")
    if len(cat_values) != per_player:
        raise _fail("cats", f"{per_player} cats per player but {len(cat_values)} values")

    lists = _parse_lists(_require(raw, "grocery_lists", "top level"), colours, ingredients)
    recipes = _parse_recipes(_require(raw, "recipes", "top level"), ingredients)
    geometry = _require(raw, "geometry_mm", "top level")
    centres = _require(geometry, "cell_centres", "geometry_mm")
    if len(centres) != 5 or any(len(row) != 5 for row in centres):
        raise _fail("geometry_mm.cell_centres", "expected 5 rows of 5 [x, y] centres")
    return Components(
        game=str(raw.get("game", "Food Alley")),
        colours=colours,
        ingredients=ingredients,
        tokens=tuple(tokens),
        player_colours=players,
        cat_values=cat_values,
        grocery_lists=lists,
        recipes=recipes,
        geometry_mm=dict(geometry),
        stray_city_quarters=dict(raw.get("stray_city_quarters") or {}),
        wildcards=wildcards,
    )


def _parse_lists(
    entries: Any, colours: tuple[str, ...], ingredients: tuple[str, ...]
) -> tuple[GroceryList, ...]:
    if not isinstance(entries, list):
        raise _fail("grocery_lists", "expected a list")
    _unique_ids(entries, "grocery list")
    out: list[GroceryList] = []
    for entry in entries:
        where = f"grocery list {entry.get('id')!r}" if isinstance(entry, dict) else "grocery list"
        kind = _require(entry, "type", where)
        smileys = _int(_require(entry, "smileys", where), where, "smileys")
        shapes = [k for k in ("groups", "run", "parity", "needs") if k in entry]
        if len(shapes) != 1:
            raise _fail(where, "needs exactly one of groups, run, parity or needs")
        shape = shapes[0]
        if shape == "needs":
            if kind != "exact":
                raise _fail(where, "only exact-match lists have 'needs'")
            needs: list[tuple[Trait, str | int]] = []
            for need in entry["needs"]:
                if not isinstance(need, dict) or len(need) != 1:
                    raise _fail(where, f"need {need!r} must name one trait and its value")
                (key, val), = need.items()
                try:
                    trait = Trait(key)
                except ValueError:
                    raise _fail(where, f"need {need!r}: unknown trait {key!r}") from None
                allowed: tuple[Any, ...] = {
                    Trait.COLOUR: colours,
                    Trait.INGREDIENT: ingredients,
                    Trait.PRICE: tuple(range(1, 7)),
                }[trait]
                if val not in allowed:
                    raise _fail(where, f"need {need!r}: {val!r} is not a valid {key}")
                needs.append((trait, val))
            if not 1 <= len(needs) <= 8:
                raise _fail(where, "an exact-match list needs 1 to 8 conditions")
            out.append(GroceryList(entry["id"], kind, smileys, needs=tuple(needs)))
            continue
        if kind not in ("ingredient", "colour", "price"):
            raise _fail(where, f"type {kind!r} must be ingredient, colour, price or exact")
        if shape == "groups":
            groups = entry["groups"]
            if (
                not isinstance(groups, list)
                or sum(groups) != 4
                or any(not isinstance(g, int) or g < 1 for g in groups)
            ):
                raise _fail(where, f"groups {groups!r} must be positive sizes adding up to 4")
            out.append(
                GroceryList(entry["id"], kind, smileys, groups=tuple(sorted(groups, reverse=True)))
            )
        elif shape == "run":
            if kind != "price" or entry["run"] != 4:
                raise _fail(where, "a run list must be a price list of run 4")
            out.append(GroceryList(entry["id"], kind, smileys, run=4))
        else:
            if kind != "price" or entry["parity"] not in ("even", "odd"):
                raise _fail(where, "a parity list must be a price list, parity even or odd")
            out.append(GroceryList(entry["id"], kind, smileys, parity=entry["parity"]))
    return tuple(out)


def _parse_recipes(entries: Any, ingredients: tuple[str, ...]) -> tuple[Recipe, ...]:
    if not isinstance(entries, list):
        raise _fail("recipes", "expected a list")
    _unique_ids(entries, "recipe")
    out: list[Recipe] = []
    for entry in entries:
        where = f"recipe {entry.get('id')!r}" if isinstance(entry, dict) else "recipe"
        kind = _require(entry, "type", where)
        flip = _int(_require(entry, "flip", where), where, "flip")
        needs = _require(entry, "needs", where)
        chilis = entry.get("chilis")
        if needs == "no-match":
            out.append(Recipe(entry["id"], kind, None, flip, None))
            continue
        if not isinstance(needs, list) or not 1 <= len(needs) <= 3:
            raise _fail(where, "needs must list 1 to 3 ingredients or say no-match")
        for need in needs:
            if need != "any" and need not in ingredients:
                raise _fail(where, f"need {need!r} is not an ingredient or 'any'")
        if not 0 <= flip <= 3:
            raise _fail(where, f"flip {flip} must be 0-3")
        out.append(Recipe(entry["id"], kind, _int(chilis, where, "chilis"), flip, tuple(needs)))
    return tuple(out)


def load_components(path: str | Path | None = None) -> Components:
    """Load and validate a component list; the shipped Food Alley list by default.

    :raises ComponentError: if the file is unreadable or malformed.
    """
    raw = read_component_list("food_alley.yaml", path)
    return parse_components(raw)


_DEFAULT: Components | None = None


def food_alley() -> Components:
    """The shipped Food Alley list, loaded once."""
    global _DEFAULT
    if _DEFAULT is None:
        _DEFAULT = load_components()
    return _DEFAULT
