"""The random driver: its moves are drawn as ``legal[random.Random(seed).randrange(len(legal))]``
always drew them, and its two loops (``steps`` and ``random_playout``) play the same games as
moves applied one by one through ``apply_action``."""

from __future__ import annotations

import random

import pytest

from companion.rules import find_game, game_names, player_range
from companion.rules.protocol import CHANCE, SIMULTANEOUS
from companion.rules.simulate import random_playout, steps


def test_the_written_out_draw_is_randrange():
    """The drivers draw ``r < n`` with getrandbits as random.Random's _randbelow does: the
    same numbers as randrange(n), and the chooser left in the same state."""
    for seed in range(20):
        ours, theirs = random.Random(seed), random.Random(seed)
        for n in [1, 2, 3, 5, 7, 8, 9, 31, 32, 33, 216, 1000] * 20:
            k = n.bit_length()
            r = ours.getrandbits(k)
            while r >= n:
                r = ours.getrandbits(k)
            assert r == theirs.randrange(n)
        assert ours.getstate() == theirs.getstate()


@pytest.mark.parametrize("name", game_names())
def test_both_drivers_play_the_game_apply_action_plays(name):
    """Every game at its most players, two seeds: random_playout ends in the state that
    steps() reaches, and the moves steps() yields, applied one by one through apply_action
    (checked) to a new game with the RNG drawn as before, give the same log and state; the
    driver's list of moves (_listed) is legal_actions() at every step."""
    cls = find_game(name)
    players = player_range(cls)[1]
    for seed in (3, 11):
        stepped = cls.new(players, seed)
        checked = cls.new(players, seed)
        chooser = random.Random(seed)
        for actor, _ in steps(stepped, seed):
            if actor == SIMULTANEOUS:
                for player in checked.acting_players():
                    legal = checked.legal_actions(player)
                    checked.apply_action(legal[chooser.randrange(len(legal))], player=player)
            elif actor == CHANCE:
                checked.apply_action(checked.sample_chance())
            else:
                legal = checked.legal_actions()
                assert list(checked._listed()) == legal
                checked.apply_action(legal[chooser.randrange(len(legal))])
            assert checked.log == stepped.log
        assert checked.to_json() == stepped.to_json()
        assert random_playout(cls.new(players, seed), seed).to_json() == stepped.to_json()
