"""The component list ships as data and is validated when loaded."""

from __future__ import annotations

import copy
from pathlib import Path

import pytest
import yaml

from companion.rules.components import (
    ComponentError,
    Trait,
    food_alley,
    load_components,
    parse_components,
)

SHIPPED = Path(__file__).resolve().parents[2] / "companion" / "rules" / "data" / "food_alley.yaml"


@pytest.fixture()
def raw():
    return yaml.safe_load(SHIPPED.read_text(encoding="utf-8"))


def test_shipped_list_loads_with_54_tokens():
    c = food_alley()
    assert len(c.tokens) == 54
    assert len({t.id for t in c.tokens}) == 54
    assert all(t.coin == 7 - t.price for t in c.tokens)
    assert len(c.grocery_lists) == 24 and len(c.recipes) == 24
    assert c.grocery_list_types == ("ingredient", "colour", "price", "exact")


def test_rulebook_facts_hold_in_the_list():
    c = food_alley()
    assert c.token("peanut-2").colour == "grey"
    assert c.token("chicken-2").colour == "blue"
    assert c.token("noodle-5").colour == "yellow"
    assert {t.colour for t in c.tokens if t.ingredient == "sambal"} == {"red"}


def test_wildcards_written_once():
    c = food_alley()
    assert c.token("tofu-3").is_wild(Trait.COLOUR)
    assert c.token("rice-3").is_wild(Trait.PRICE)
    assert c.token("sambal-3").is_wild(Trait.INGREDIENT)
    assert not c.token("sambal-3").is_wild(Trait.COLOUR)
    assert not c.token("peanut-2").wild


def test_loads_from_a_file(tmp_path, raw):
    path = tmp_path / "list.yaml"
    path.write_text(yaml.safe_dump(raw), encoding="utf-8")
    assert len(load_components(path).tokens) == 54


@pytest.mark.parametrize(
    ("mutate", "message"),
    [
        (lambda r: r["tokens"].append(dict(r["tokens"][0])), "'chicken-1': id used 2 times"),
        (lambda r: r["tokens"].pop(), "expected 54 tokens, found 53"),
        (lambda r: r["tokens"][0].update(price=7, coin=0), "'chicken-1': price 7 is outside 1-6"),
        (lambda r: r["tokens"][0].update(coin=5), "'chicken-1': coin 5 must be 7 - price = 6"),
        (lambda r: r["tokens"][48].update(colour="blue"), "sambal"),
        (lambda r: r["tokens"][0].update(colour="purple"), "colour 'purple' is not one of"),
        (lambda r: r["tokens"][0].update(ingredient="cheese"), "ingredient 'cheese'"),
        (lambda r: r["tokens"][0].pop("price"), "'chicken-1': missing field 'price'"),
        (lambda r: r["grocery_lists"][0].update(groups=[2, 1]), "adding up to 4"),
        (lambda r: r["grocery_lists"][18]["needs"].append({"flavour": "x"}), "unknown trait"),
        (lambda r: r["grocery_lists"][18]["needs"].append({"colour": "mauve"}), "not a valid"),
        (lambda r: r["recipes"][0].update(needs=["pizza"]), "'pan-1': need 'pizza'"),
        (lambda r: r["wildcards"].update(tofu="counts as anything"), "wildcard 'tofu'"),
    ],
)
def test_malformed_list_is_refused_naming_the_entry(raw, mutate, message):
    bad = copy.deepcopy(raw)
    mutate(bad)
    with pytest.raises(ComponentError) as err:
        parse_components(bad)
    assert message in str(err.value)


def test_unreadable_yaml_is_refused(tmp_path):
    path = tmp_path / "broken.yaml"
    path.write_text("tokens: [unclosed\n", encoding="utf-8")
    with pytest.raises(ComponentError, match="not valid YAML"):
        load_components(path)


def test_missing_file_is_refused(tmp_path):
    with pytest.raises(ComponentError, match="cannot read"):
        load_components(tmp_path / "nope.yaml")


def test_unknown_token_is_named():
    with pytest.raises(ComponentError, match="unknown token 'cheese-9'"):
        food_alley().token("cheese-9")
