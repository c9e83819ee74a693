"""Grocery lists: when 4 stored tokens complete a list, and the best set of 4 to store.

Rulebook (Shopper, Store Groceries and Grocery List Types): a set of exactly 4 tokens; ingredient,
colour and price lists look at groups of equal values; exact-match lists need specific objects,
colours and prices, "no substitutions with sambal, tofu, or rice", one token may meet several
conditions. Sambal is any ingredient, tofu any colour, rice any number, and the active player may
let a wildcard match or not, separately for every list.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from functools import lru_cache
from itertools import combinations, product

from companion.rules.components import ANY_COLOUR, Components, GroceryList, Token, Trait

SET_SIZE = 4

Assignment = dict[str, str | int]  # wild token id -> the value it stands for


def _domain(components: Components, trait: Trait) -> tuple[str | int, ...]:
    if trait is Trait.PRICE:
        return tuple(components.prices)
    if trait is Trait.INGREDIENT:
        return tuple(components.ingredients)
    return tuple(c for c in components.colours)


def _shape_holds(glist: GroceryList, values: Sequence[str | int]) -> bool:
    if glist.groups is not None:
        return tuple(sorted(Counter(values).values(), reverse=True)) == glist.groups
    if glist.run is not None:
        prices = sorted(int(v) for v in values)
        return all(b == a + 1 for a, b in zip(prices, prices[1:], strict=False)) and len(
            prices
        ) == glist.run
    if glist.parity is not None:
        want = 0 if glist.parity == "even" else 1
        return all(int(v) % 2 == want for v in values)
    raise AssertionError("exact lists are checked by _exact_holds")


@lru_cache(maxsize=4096)
def _groups_reachable(counts: tuple[int, ...], wild: int, target: tuple[int, ...]) -> bool:
    """Can `wild` wildcards, each joining a group or starting a new one, turn the group sizes
    `counts` (sorted, largest first) into exactly `target`?"""
    if wild == 0:
        return counts == target
    if len(counts) > len(target) or sum(counts) + wild != sum(target):
        return False
    options = {tuple(sorted((*counts[:i], c + 1, *counts[i + 1:]), reverse=True))
               for i, c in enumerate(counts)}
    options.add(tuple(sorted((*counts, 1), reverse=True)))
    return any(_groups_reachable(o, wild - 1, target) for o in options)


def satisfiable(glist: GroceryList, tokens: Sequence[Token], components: Components) -> bool:
    """Whether the set completes the list (no witness: the fast path of :func:`completes`)."""
    if glist.groups is None:
        return completes(components, glist, tokens) is not None
    trait = glist.trait
    assert trait is not None
    fixed = Counter(
        t.value(trait) if t.value(trait) != ANY_COLOUR else t.id
        for t in tokens if not t.is_wild(trait)
    )
    wild = len(tokens) - sum(fixed.values())
    counts = tuple(sorted(fixed.values(), reverse=True))
    return _groups_reachable(counts, wild, glist.groups)


def _exact_holds(glist: GroceryList, tokens: Sequence[Token]) -> bool:
    """Exact match: every condition met by some token's printed value, no wildcard."""
    assert glist.needs is not None
    return all(any(t.value(trait) == want for t in tokens) for trait, want in glist.needs)


def completes(
    components: Components, glist: GroceryList, tokens: Sequence[Token]
) -> Assignment | None:
    """Return how the set completes the list (the wildcards' chosen values), or None.

    An empty assignment means the list is completed with every token at its printed value.
    """
    if len(tokens) != SET_SIZE:
        return None
    if glist.needs is not None:
        return {} if _exact_holds(glist, tokens) else None
    trait = glist.trait
    assert trait is not None
    wild = [i for i, t in enumerate(tokens) if t.is_wild(trait)]
    # A wildcard that does not match keeps its printed value; tofu has no printed colour, so
    # unmatched it equals nothing.
    base: list[str | int] = [
        t.value(trait) if t.value(trait) != ANY_COLOUR else f"unmatched:{t.id}" for t in tokens
    ]
    domain = _domain(components, trait)
    if glist.groups is not None:
        # Only equality matters: a wildcard either joins a value already in the set or takes a
        # value nobody has. Those are the only choices worth trying (same answers, far fewer).
        present = [v for v in dict.fromkeys(base) if v in domain]
        unused = [v for v in domain if v not in present]
        domain = tuple(present + unused[: len(wild)])
    # Fewest substitutions first, so a wildcard only "matches" when it has to.
    for k in range(len(wild) + 1):
        for chosen in combinations(wild, k):
            for choice in product(domain, repeat=k):
                values = list(base)
                for i, v in zip(chosen, choice, strict=True):
                    values[i] = v
                if _shape_holds(glist, values):
                    return {
                        tokens[i].id: v
                        for i, v in zip(chosen, choice, strict=True)
                        if v != base[i]
                    }
    return None


@dataclass(frozen=True)
class StorePlan:
    """The outcome of storing one set of 4 tokens against a player's open lists."""

    tokens: tuple[str, ...]
    lists: tuple[str, ...]
    smileys: int
    wildcards: dict[str, Assignment]

    @property
    def key(self) -> tuple[int, int]:
        """Best plan: most smileys, then most lists (issue #2)."""
        return (self.smileys, len(self.lists))


class StoreEvaluator:
    """Fast, cached evaluation of 4-token sets against open lists.

    The satisfiability of a list depends only on the multiset of its trait's values (with the
    wildcard flag), so results are cached per (list, multiset) for the whole process.
    """

    def __init__(self, components: Components) -> None:
        self.components = components
        self._codes: dict[Trait, dict[str, int]] = {}
        for trait in Trait:
            codes: dict[str, int] = {}
            seen: dict[tuple[str | int, bool], int] = {}
            for token in components.tokens:
                tag = (token.value(trait), token.is_wild(trait))
                codes[token.id] = seen.setdefault(tag, len(seen))
            self._codes[trait] = codes
        self._cache: dict[tuple[str, int], bool] = {}

    def _multiset_key(self, trait: Trait, ids: Iterable[str]) -> int:
        codes = self._codes[trait]
        return sum(1 << (3 * codes[i]) for i in ids)

    def satisfied(self, glist: GroceryList, tokens: Sequence[Token]) -> bool:
        if glist.needs is not None:
            return _exact_holds(glist, tokens)
        trait = glist.trait
        assert trait is not None
        key = (glist.id, self._multiset_key(trait, (t.id for t in tokens)))
        hit = self._cache.get(key)
        if hit is None:
            hit = satisfiable(glist, tokens, self.components)
            self._cache[key] = hit
        return hit

    def plan(self, tokens: Sequence[Token], open_lists: Sequence[GroceryList]) -> StorePlan:
        """Which of the open lists the set completes (every one it can: "as many as possible")."""
        done = [g for g in open_lists if self.satisfied(g, tokens)]
        return StorePlan(
            tokens=tuple(sorted(t.id for t in tokens)),
            lists=tuple(g.id for g in done),
            smileys=sum(g.smileys for g in done),
            wildcards={g.id: completes(self.components, g, tokens) or {} for g in done},
        )

    def completing_sets(
        self, tokens: Sequence[Token], open_lists: Sequence[GroceryList]
    ) -> list[tuple[str, ...]]:
        """Every 4-set of the tokens that completes at least one open list, sorted."""
        if len(tokens) < SET_SIZE or not open_lists:
            return []
        ordered = sorted(tokens, key=lambda t: t.id)
        checks = self._checkers(ordered, open_lists)
        out = []
        for combo in combinations(range(len(ordered)), SET_SIZE):
            if any(check(combo) for check, _ in checks):
                out.append(tuple(ordered[i].id for i in combo))
        return out

    def best(
        self, tokens: Sequence[Token], open_lists: Sequence[GroceryList]
    ) -> StorePlan | None:
        """The exact optimiser: the set of 4 with most smileys, then most lists.

        Returns None when fewer than 4 tokens are held or no set completes any list. Ties keep
        the first set in sorted token-id order, so the answer is deterministic.
        """
        if len(tokens) < SET_SIZE or not open_lists:
            return None
        ordered = sorted(tokens, key=lambda t: t.id)
        checks = self._checkers(ordered, open_lists)
        ceiling = (sum(s for _, s in checks), len(checks))
        best_key = (0, 0)
        best_combo: tuple[int, ...] | None = None
        for combo in combinations(range(len(ordered)), SET_SIZE):
            smileys = 0
            count = 0
            for check, value in checks:
                if check(combo):
                    smileys += value
                    count += 1
            if (smileys, count) > best_key:
                best_key = (smileys, count)
                best_combo = combo
                if best_key == ceiling:
                    break
        if best_combo is None:
            return None
        return self.plan([ordered[i] for i in best_combo], open_lists)

    def _checkers(self, ordered: Sequence[Token], open_lists: Sequence[GroceryList]):  # noqa: ANN202
        """Per list a fast predicate over index 4-tuples, and the list's smileys."""
        out = []
        for glist in open_lists:
            if glist.needs is not None:
                full = (1 << len(glist.needs)) - 1
                masks = [
                    sum(
                        1 << k
                        for k, (trait, want) in enumerate(glist.needs)
                        if token.value(trait) == want
                    )
                    for token in ordered
                ]

                def exact(
                    combo: tuple[int, ...], masks: list[int] = masks, full: int = full
                ) -> bool:
                    a, b, c, d = combo
                    return (masks[a] | masks[b] | masks[c] | masks[d]) == full

                out.append((exact, glist.smileys))
                continue
            trait = glist.trait
            assert trait is not None
            codes = self._codes[trait]
            keys = [1 << (3 * codes[t.id]) for t in ordered]
            cache = self._cache
            lid = glist.id

            def grouped(
                combo: tuple[int, ...],
                keys: list[int] = keys,
                lid: str = lid,
                glist: GroceryList = glist,
                cache: dict[tuple[str, int], bool] = cache,
            ) -> bool:
                key = keys[combo[0]] + keys[combo[1]] + keys[combo[2]] + keys[combo[3]]
                hit = cache.get((lid, key))
                if hit is None:
                    hit = satisfiable(glist, [ordered[i] for i in combo], self.components)
                    cache[(lid, key)] = hit
                return hit

            out.append((grouped, glist.smileys))
        return out
