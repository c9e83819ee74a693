"""Properties over random legal games of The Alley Cats Game with 2, 3 and 4 players."""

from __future__ import annotations

import json

from hypothesis import example, given, settings
from hypothesis import strategies as st

from companion.rules.alley_cats import AlleyCatsState
from companion.rules.protocol import check_each_once

from .random_games import check_random_game


def conserved(s: AlleyCatsState) -> None:
    """Each fish is in one dustbin, on one cat or in one home; each dustbin, dog and cat is in
    one place (check_each_once over every place the state keeps them)."""
    s.check_conservation()
    places = s.token_places()
    fish = [t for t in places if "-fish-" in t]
    check_each_once(fish, [f for fs in s.fish_ids for f in fs], "fish skeleton")
    check_each_once([t for t in places if "-bin-" in t], list(s.bin_owner), "dustbin")
    check_each_once([t for t in places if t.endswith("-dog")],
                    [f"{c}-dog" for c in s.names], "dog")
    assert sum(len(h) for h in s.at_home) + sum(len(c) for c in s.carried) + sum(
        f is not None for f in s.bin_fish.values()) == 4 * s.players
    # the game ends the moment a home holds five; a cat may carry any number of fish home, so
    # the last journey can bring the count past five (4 + 2 in seed 118362676, four players)
    assert s.is_terminal() or all(len(h) < s.components.fish_to_win for h in s.at_home)


def no_leak(s: AlleyCatsState) -> None:
    """No view shows where another player's dog hides before its dustbin is opened (its
    owner sees it; the onlooker sees no dog at all until then)."""
    hiding = {q: s.bin_square[b] for q, b in enumerate(s.dog) if b in s.bin_square}
    for viewer in [*range(s.players), None]:
        view = s.view(viewer)
        for entry in view["dustbins"]:
            owner = s.names.index(entry["owner"])
            found = s.dog_found.get(s.bin_at[entry["square"]], False)
            if owner != viewer:
                assert entry["dog"] is (True if found else None)  # lids back on: no "empty"
        for owner, square in hiding.items():
            if owner != viewer:
                text = json.dumps(view)
                assert s.bin_at[square] not in text
                assert all(c["dog"] in ("hidden", "not hidden", "chasing", "gone")
                           for c in view["cats"].values())


@settings(max_examples=15, deadline=None)
@given(players=st.sampled_from([2, 3, 4]), seed=st.integers(0, 2**31))
def test_random_games_keep_every_invariant(players, seed):
    s = check_random_game(AlleyCatsState, players, seed, max_steps=20_000, invariants=conserved,
                          no_leak=no_leak, undo_every=13)
    assert s.is_terminal() and s.end_reason
    assert (max(len(h) for h in s.at_home) >= s.components.fish_to_win
            or s.end_reason in AlleyCatsState.REFEREE_ENDINGS)


@settings(max_examples=6, deadline=None)
@given(seed=st.integers(0, 2**31))
@example(seed=118362676)  # four players: blue, with four fish at home, brings two more
def test_every_player_count_is_played(seed):
    for players in (2, 3, 4):
        s = check_random_game(AlleyCatsState, players, seed, max_steps=20_000,
                              invariants=conserved, no_leak=no_leak, undo_every=97,
                              leak_every=11)
        assert s.players == players and len(s.scores()) == players
