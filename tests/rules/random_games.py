"""What every game keeps over random legal play, checked once for all of them. Each game's
property test plays its games through :func:`check_random_game` and states only its own
invariants (where each component is, what each view may show)."""

from __future__ import annotations

import json
from collections.abc import Callable

import pytest

from companion.rules import CHANCE, SIMULTANEOUS, GameState, UndoRefusedError
from companion.rules.simulate import steps

Check = Callable[[GameState], None]


def check_random_game(cls: type[GameState], players: int, seed: int, *, max_steps: int,
                      invariants: Check, no_leak: Check, undo_every: int,
                      leak_every: int = 1) -> GameState:
    """Play one seeded random game of ``cls`` to its end, checking after every step the
    game's ``invariants``, every ``leak_every`` steps (and between sealed choices) that no
    view shows a secret (``no_leak``) and no player reads another's private log entry, and
    every ``undo_every`` steps that a move taken back (through the state's JSON) gives the
    position before it, or is refused after a reveal, and that the state read back from its
    JSON and a clone list the same legal actions as the state (what a game works out once
    and keeps, or looks up by content, stays true to the position). At the end: scores equal
    their
    breakdown, the ranking holds every player once, and the JSON round trip and the replay
    of the log give the same state. Returns the finished state."""
    state = cls.new(players, seed)
    count = 0
    before_json: dict | None = None
    log_length = len(state.log)

    def before(s: GameState, actor: int, _action: object) -> None:
        nonlocal before_json, log_length
        if s.current_player() == SIMULTANEOUS:
            if not s.sealed:
                log_length = len(s.log)
            else:  # sealed choices are held apart, unlogged, and shown to no one
                assert len(s.log) == log_length
                no_leak(s)
                _no_private_entry_leaks(s)
        elif actor != CHANCE and (count + 1) % undo_every == 0:
            before_json = s.to_json()

    for actor, _ in steps(state, seed, max_steps=max_steps, before=before):
        count += 1
        if actor == SIMULTANEOUS:  # revealed together, in one entry
            assert len(state.log) == log_length + 1 and state.log[-1]["actor"] == "all"
        if before_json is not None:
            taken_back = cls.from_json(state.to_json())
            if taken_back.log[-1].get("reveal"):  # no undo across a reveal
                with pytest.raises(UndoRefusedError):
                    taken_back.undo()
            else:
                taken_back.undo()
                assert taken_back.to_json() == before_json
            before_json = None
        if count % undo_every == 0 and not state.is_terminal():
            _same_legal_actions(state, cls.from_json(state.to_json()))
            _same_legal_actions(state, state.clone())
        invariants(state)
        if count % leak_every == 0:
            no_leak(state)
            _no_private_entry_leaks(state)
    for score in state.scores():
        assert score.total == sum(score.breakdown.values())
    assert sorted(q for group in state.ranking() for q in group) == list(range(players))
    saved = json.loads(json.dumps(state.to_json()))
    assert cls.from_json(saved).to_json() == state.to_json()
    assert cls.replay(state.header(), state.log).to_json() == state.to_json()
    return state


def tokens_conserved(state: GameState) -> None:
    """Food Alley's modes: each of the box's tokens is in exactly one place after every step."""
    state.check_conservation()  # type: ignore[attr-defined]
    assert set(state.token_places()) == {  # type: ignore[attr-defined]
        t.id for t in state.components.tokens}  # type: ignore[attr-defined]


def _same_legal_actions(state: GameState, other: GameState) -> None:
    """``other`` (the state read back, or a clone) offers every acting player the same moves."""
    assert other.acting_players() == state.acting_players()
    for player in state.acting_players() or [None]:
        assert other.legal_actions(player) == state.legal_actions(player)


def _no_private_entry_leaks(state: GameState) -> None:
    """A player reads others' private log entries only as their public text."""
    for player in range(state.players):
        for entry in state.public_log(player):
            if entry["action"]["type"] != "hidden":
                assert entry.get("private_to") in (None, player)
