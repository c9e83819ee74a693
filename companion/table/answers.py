"""A scripted table: a recorded game (``companion play ... --json``) answers the referee's
questions, and only those.

It is asked a question and answers it with what the recording did at that step: a choice with
the candidate that leads where the recorded steps lead, an entry with the recorded value, a
sealed choice with the recorded player's part of the reveal. It never tells the session anything
it was not asked; a question whose answer the recording does not hold among its options (an
optional question while the recorded step was one the camera shows) stays unanswered.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from companion.rules.protocol import Action, GameState, JointAction, RulesError
from companion.table.infer import Question, state_key


class RecordingError(ValueError):
    """A recorded game that cannot be read."""


def load_record(path: Path) -> tuple[list[dict[str, Any]], dict[str, Any] | None]:
    """The step objects of a recorded game, and its final object (None if it has none).

    :raises RecordingError: naming the file and line.
    """
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except (OSError, UnicodeDecodeError) as exc:
        raise RecordingError(f"{path}: cannot read the recorded game ({exc})") from exc
    steps: list[dict[str, Any]] = []
    final = None
    for k, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        try:
            obj = json.loads(line)
        except json.JSONDecodeError as exc:
            raise RecordingError(f"{path}:{k}: not a JSON object ({exc.msg}); expected the "
                                 "output of `companion play ... --json`") from exc
        if not isinstance(obj, dict):
            raise RecordingError(f"{path}:{k}: expected a JSON object")
        if obj.get("final"):
            final = obj
        elif "move" in obj and "n" in obj:
            if obj["n"] != len(steps):
                raise RecordingError(f"{path}:{k}: step {obj['n']} where step {len(steps)} "
                                     "was expected")
            steps.append(obj)
        else:
            raise RecordingError(f"{path}:{k}: neither a step (n, move) nor the final object")
    if not steps:
        raise RecordingError(f"{path}: no steps; expected the output of `companion play ... "
                             "--json`")
    return steps, final


class ScriptedTable:
    """Answers questions from a recorded game."""

    def __init__(self, steps: list[dict[str, Any]]) -> None:
        self.steps = steps

    def _recorded(self, state: GameState, n: int) -> Action | None:
        if n >= len(self.steps):
            return None
        try:
            return state.codec.decode(self.steps[n]["move"])
        except RulesError:
            return None

    def answer(self, state: GameState, q: Question) -> int | Action | None:
        """The answer the recording gives, or None."""
        if q.kind == "choose":
            return self._choose(state, q)
        recorded = self._recorded(state, q.n)
        if recorded is None:
            return None
        if isinstance(recorded, JointAction):  # a sealed choice: this player's part
            recorded = recorded.choices.get(q.player) if q.player is not None else None
        return recorded if recorded is not None and recorded in q.options else None

    def _choose(self, state: GameState, q: Question) -> int | None:
        """The candidate that leads where the recorded steps lead (the same steps in another
        order count: two cats fed one after the other)."""
        for exact in (True, False):
            found = self._leading(state, q, exact)
            if found is not None:
                return found
        return None

    def _leading(self, state: GameState, q: Question, exact: bool) -> int | None:
        key = state_key if exact else _unordered_key
        for i, c in enumerate(q.candidates):
            start = len(state.log)
            probe = state.clone()
            try:
                for k in range(len(c.steps)):
                    recorded = self._recorded(probe, start + k)
                    if recorded is None:
                        break
                    probe.apply_action(recorded)
                else:
                    if key(probe) == key(c.state):
                        return i
            except RulesError:
                continue
        return None


def _unordered_key(state: GameState) -> str:
    """A state's saved form with every list sorted."""
    def sort(value: Any) -> Any:
        if isinstance(value, dict):
            return {k: sort(v) for k, v in value.items()}
        if isinstance(value, list):
            items = [sort(v) for v in value]
            return sorted(items, key=lambda v: json.dumps(v, sort_keys=True))
        return value
    return json.dumps(sort(state._state_json()), sort_keys=True, default=str)
