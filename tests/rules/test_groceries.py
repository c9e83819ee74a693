"""Grocery lists, the store rules and the store optimiser."""

from __future__ import annotations

from collections import Counter
from itertools import combinations, product

from hypothesis import given, settings
from hypothesis import strategies as st

from companion.rules.components import Trait, food_alley
from companion.rules.food_alley.groceries import StoreEvaluator, completes

C = food_alley()
EVAL = StoreEvaluator(C)


def toks(*ids):
    return [C.token(i) for i in ids]


def lst(list_id):
    return C.grocery_list(list_id)


def test_ingredient_pair_and_two_others():
    # [2, 1, 1]: a pair and two more that differ from the pair and from each other
    pair = lst("ingredient-1")
    assert completes(C, pair, toks("noodle-1", "noodle-2", "egg-1", "veggie-1")) == {}
    assert completes(C, pair, toks("noodle-1", "noodle-2", "egg-1", "egg-2")) is None
    assert completes(C, pair, toks("noodle-1", "noodle-2", "noodle-3", "egg-1")) is None


def test_two_pairs_and_four_of_a_kind():
    assert completes(C, lst("ingredient-3"), toks("noodle-1", "noodle-2", "egg-1", "egg-2")) == {}
    assert completes(C, lst("ingredient-6"), toks("egg-1", "egg-2", "egg-3", "egg-4")) == {}
    assert completes(C, lst("colour-5"), toks("chicken-1", "noodle-6", "peanut-5", "egg-4")) == {}


def test_sambal_is_any_ingredient():
    got = completes(C, lst("ingredient-6"), toks("egg-1", "egg-2", "egg-3", "sambal-4"))
    assert got == {"sambal-4": "egg"}


def test_tofu_is_any_colour():
    # colour-6: four of one colour; green chicken-1, noodle-6, peanut-5 + tofu
    got = completes(C, lst("colour-6"), toks("chicken-1", "noodle-6", "peanut-5", "tofu-2"))
    assert got == {"tofu-2": "green"}


def test_rice_is_any_number():
    # price-5: a run of four prices; 1, 2, 4 + rice as 3
    got = completes(C, lst("price-5"), toks("chicken-1", "noodle-2", "egg-4", "rice-6"))
    assert got == {"rice-6": 3}
    # price-6: four even prices; rice-1 counts as even
    even = lst("price-6")
    assert completes(C, even, toks("chicken-2", "noodle-4", "egg-6", "rice-1")) is not None


def test_wildcard_may_choose_not_to_match():
    # all four prices different: rice keeps its printed 5 (or any unused number)
    assert completes(C, lst("price-1"), toks("chicken-1", "noodle-2", "egg-4", "rice-5")) == {}
    # tofu unmatched counts as no colour: four different colours
    assert completes(C, lst("colour-4"), toks("chicken-1", "noodle-1", "peanut-1", "tofu-1")) == {}


def test_exact_match_no_substitutions():
    # exact-1: yellow, price 5, veggie
    assert completes(C, lst("exact-1"), toks("noodle-5", "veggie-1", "egg-1", "egg-2")) == {}
    # sambal is not a veggie here, tofu not yellow, rice not a 5
    assert completes(C, lst("exact-1"), toks("noodle-5", "sambal-1", "egg-1", "egg-2")) is None
    assert completes(C, lst("exact-1"), toks("peanut-5", "tofu-5", "veggie-1", "egg-1")) is None
    assert completes(C, lst("exact-1"), toks("noodle-3", "rice-4", "veggie-3", "egg-1")) is None
    # ...but rice's own printed price and sambal's own red count exactly
    assert completes(C, lst("exact-5"), toks("peanut-2", "sambal-3", "rice-4", "egg-6")) == {}


def test_exact_one_token_may_meet_several_conditions():
    # the yellow noodle at 5 fulfils both yellow and 5
    assert completes(C, lst("exact-1"), toks("noodle-5", "veggie-4", "chicken-1", "egg-1")) == {}


def test_store_rulebook_example():
    """Sambal is a veggie for the 2-pairs list but not for the exact list; the yellow noodle at 5
    checks yellow and 5, the veggie checks veggie: three lists complete."""
    tokens = toks("sambal-3", "veggie-1", "noodle-5", "noodle-1")
    plan = EVAL.plan(tokens, [lst("ingredient-3"), lst("exact-1"), lst("colour-4"), lst("price-4")])
    assert set(plan.lists) == {"ingredient-3", "exact-1", "colour-4"}
    assert plan.smileys == 3 + 3 + 3
    assert plan.wildcards["ingredient-3"] == {"sambal-3": "veggie"}
    assert plan.wildcards["exact-1"] == {}


def test_optimiser_finds_best_set():
    tokens = toks("sambal-3", "veggie-1", "noodle-5", "noodle-1", "egg-1", "egg-2", "chicken-6")
    lists = [lst("ingredient-3"), lst("exact-1"), lst("colour-4"), lst("price-4")]
    best = EVAL.best(tokens, lists)
    assert best is not None
    assert best.key == (9, 3)
    assert EVAL.best(toks("egg-1", "egg-2", "egg-3"), lists) is None


# --- property: the optimiser agrees with brute force -----------------------------------------

_DOMAIN = {
    Trait.PRICE: list(range(1, 7)),
    Trait.COLOUR: list(C.colours),
    Trait.INGREDIENT: list(C.ingredients),
}


def _brute_completes(glist, tokens) -> bool:
    """Independent check: try every value each wildcard may take (or keep)."""
    if glist.needs is not None:
        return all(any(t.value(tr) == want for t in tokens) for tr, want in glist.needs)
    trait = Trait.PRICE if glist.type == "price" else Trait(glist.type)
    options = []
    for t in tokens:
        own = t.value(trait)
        opts = [own if own != "any" else ("none", t.id)]
        if t.is_wild(trait):
            opts += _DOMAIN[trait]
        options.append(opts)
    for values in product(*options):
        if glist.groups is not None:
            if sorted(Counter(values).values(), reverse=True) == list(glist.groups):
                return True
        elif glist.run is not None:
            s = sorted(values)
            if s == list(range(s[0], s[0] + 4)):
                return True
        elif all(v % 2 == 0 for v in values):
            return True
    return False


def _brute_best(tokens, lists):
    best = (0, 0)
    for combo in combinations(tokens, 4):
        done = [g for g in lists if _brute_completes(g, combo)]
        best = max(best, (sum(g.smileys for g in done), len(done)))
    return best


@settings(max_examples=40, deadline=None)
@given(
    token_ids=st.lists(st.sampled_from([t.id for t in C.tokens]), min_size=4, max_size=9,
                       unique=True),
    picks=st.lists(st.integers(0, 5), min_size=4, max_size=4),
)
def test_optimiser_agrees_with_brute_force(token_ids, picks):
    by_type = {k: [g for g in C.grocery_lists if g.type == k] for k in C.grocery_list_types}
    lists = [by_type[k][i] for k, i in zip(C.grocery_list_types, picks, strict=True)]
    tokens = toks(*token_ids)
    best = EVAL.best(tokens, lists)
    expected = _brute_best(tokens, lists)
    assert (best.key if best else (0, 0)) == expected
    if best is not None:
        chosen = toks(*best.tokens)
        assert all(_brute_completes(lst(g), chosen) for g in best.lists)
