"""The chance steps' seeded RNG (protocol.ChanceRng): the draws of a chance step come from a
splitmix64 stream keyed by the game's seed and the step's counter, so they are the same on
every machine, each draw is uniform, and an outcome supplied from outside (the camera, a tap)
advances the RNG as a drawn one does."""

from __future__ import annotations

from collections import Counter
from itertools import permutations

import pytest

from companion.rules.alley_cats import AlleyCatsState, Roll
from companion.rules.protocol import CHANCE, ChanceRng


def chi_square(counts: Counter, expected: dict) -> float:
    return sum((counts[k] - e) ** 2 / e for k, e in expected.items())


# the 0.1 % points of the chi-square distribution: a fair generator exceeds them once in 1000
CHI2_999 = {2: 13.82, 5: 20.52, 19: 43.82}


def test_the_draws_of_a_step_depend_only_on_the_seed_and_the_counter():
    a, b = ChanceRng(7), ChanceRng(7, counter=3)
    for _ in range(3):
        a.advance()
    assert a.next().randrange(2**64) == b.next().randrange(2**64)
    draws = a.next()
    assert [draws.randrange(10**9) for _ in range(3)] != [draws.randrange(10**9)] * 3
    others = {ChanceRng(seed, counter).next().randrange(2**64)
              for seed in (-1, 0, 1, 7, 2**64, 2**64 + 7) for counter in range(200)}
    assert len(others) == 6 * 200  # another seed or step, other draws


def test_the_draws_are_the_same_on_every_machine():
    """Pure 64-bit integer arithmetic (no platform hash, no float): pinned here, so a change of
    the generator, which changes every seeded game, is seen."""
    # seed 0's first draw is splitmix64's own first output from 0 (0xE220A8397B1DCDAF)
    assert [ChanceRng(0, n).next().randrange(2**64) for n in range(3)] == [
        0xE220A8397B1DCDAF, 12035550249420947055, 5095610196844313600]
    draws = ChanceRng(2026, 5).next()
    assert [draws.randrange(6) for _ in range(8)] == [3, 3, 3, 2, 3, 0, 2, 4]


def test_each_number_below_n_is_equally_likely():
    for n, draws in ((3, 30_000), (6, 60_000)):
        counts = Counter(ChanceRng(1, c).next().randrange(n) for c in range(draws))
        assert set(counts) == set(range(n))
        assert chi_square(counts, dict.fromkeys(range(n), draws / n)) < CHI2_999[n - 1]
    big = 2**63 + 1  # where most of 2**64 must be turned away to stay uniform
    draws = ChanceRng(3).next()
    values = [draws.randrange(big) for _ in range(2000)]
    assert all(0 <= v < big for v in values)
    assert 0.45 < sum(v < big // 2 for v in values) / len(values) < 0.55


def test_shuffle_sample_and_choice_give_every_outcome_alike():
    orders = Counter()
    for c in range(6000):
        cards = [0, 1, 2]
        ChanceRng(5, c).next().shuffle(cards)
        orders[tuple(cards)] += 1
    assert set(orders) == set(permutations(range(3)))
    assert chi_square(orders, dict.fromkeys(orders, 1000)) < CHI2_999[5]
    pairs = Counter(tuple(ChanceRng(9, c).next().sample("abcde", 2)) for c in range(10_000))
    assert set(pairs) == set(permutations("abcde", 2))
    assert chi_square(pairs, dict.fromkeys(pairs, 500)) < CHI2_999[19]
    picked = Counter(ChanceRng(4, c).next().choice("xyz") for c in range(3000))
    assert chi_square(picked, dict.fromkeys("xyz", 1000)) < CHI2_999[2]


def test_impossible_draws_are_refused_as_random_refuses_them():
    draws = ChanceRng(1).next()
    with pytest.raises(ValueError):
        draws.randrange(0)
    with pytest.raises(IndexError):
        draws.choice([])
    with pytest.raises(ValueError):
        draws.sample([1, 2], 3)
    assert draws.sample([1, 2], 0) == []


def test_a_supplied_outcome_advances_the_rng_as_a_drawn_one():
    drawn, told = AlleyCatsState.new(2, 12), AlleyCatsState.new(2, 12)
    while drawn.current_player() != CHANCE:  # the dustbins placed alike, up to a throw
        move = drawn.legal_actions()[0]
        drawn.apply_action(move)
        told.apply_action(move)
    value = drawn.play_chance().value  # type: ignore[attr-defined]
    told.apply_action(Roll(7 - value))  # the die, read by the camera, showed another face
    assert drawn.rng.counter == told.rng.counter == 1
    assert drawn.rng.next().randrange(2**64) == told.rng.next().randrange(2**64)
