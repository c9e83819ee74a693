"""The referee session: settled readings and answers in, checked steps and events out.

UI-neutral: it knows nothing of Kivy or the terminal. A front end calls :meth:`observe` with
each settled reading and :meth:`answer` with each answer, and reads the events the session
emits: ``step`` (a step applied), ``state`` (what the referee waits for now), ``question``
(something the camera cannot see), ``warning`` (the board matches no legal step) and
``game_over``. Hidden information never leaves it: a private step's event carries only its
public text, and a private question's options are for the one player it names.

Every applied step is written to the journal first (one transaction), so a restart resumes at
the last committed step (:meth:`resume`).
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from companion.rules import find_game
from companion.rules.food_alley.market import name as cell_name
from companion.rules.protocol import (
    CHANCE,
    SIMULTANEOUS,
    TERMINAL,
    Action,
    GameState,
    IllegalMoveError,
    RulesError,
    StateFormatError,
    UndoRefusedError,
)
from companion.rules.summary import final_summary
from companion.table.board import Keys, board_keys, describe
from companion.table.board import explain as explain_cells
from companion.table.infer import (
    Explainer,
    Inference,
    Path,
    Question,
    Step,
    cell_fits,
    explain,
    state_key,
)
from companion.table.journal import Journal
from companion.table.prompts import CAMERA_WAITS, step_prompt


@dataclass
class Event:
    kind: str  # step, state, question, warning, game_over
    data: dict[str, Any] = field(default_factory=dict)


WEAK_BELOW = 0.9  # a cell read less sure than this yields to the rules (see observe)


class AnswerError(ValueError):
    """An answer that does not fit its question."""


def public_step(state: GameState, entry: dict[str, Any]) -> tuple[dict[str, Any], str]:
    """A log entry's move and text as everyone may see them (a private one: hidden)."""
    if "private_to" in entry:
        return {"type": "hidden"}, entry["public_text"]
    return entry["action"], entry["text"]


class RefereeSession:
    """One game refereed at the table."""

    def __init__(self, state: GameState, *, journal: Journal | None = None,
                 game_id: int | None = None, names: list[str] | None = None) -> None:
        self.state = state
        self.journal = journal
        self.game_id = game_id
        self.names = names or [state.player_name(p) for p in range(state.players)]
        self.seated = [state.player_name(p) for p in range(state.players)]
        self.confirmed: Keys = self.expected()
        self.listeners: list[Callable[[Event], None]] = []
        self.questions: dict[int, Question] = {}
        self._next_id = 1
        self._asked: dict[int, set[str]] = {}
        self._shown: set[int] = set()  # step numbers the camera showed, a hidden part asked
        self.last_seen: Keys | None = None
        self._last_frame: bytes | None = None
        self.frame_t: float | None = None  # the source's time of the reading being explained
        self._explained = True
        self.warning: dict[str, Any] | None = None
        self.weak: list[str] = []  # cells of the last reading not taken (read unsure)
        self.waiting = ""
        self.history: list[dict[str, Any]] = []  # public step records, for front ends

    # --- creation and resuming -------------------------------------------------------------
    @classmethod
    def start(cls, game: str, players: int, *, names: list[str] | None = None,
              seed: int = 0, journal: Journal | None = None, source: str | None = None,
              **options: Any) -> RefereeSession:
        state = find_game(game).new(players, seed, **options)
        colours = [state.player_name(p) for p in range(players)]
        names = names or colours
        gid = None
        if journal is not None:
            gid = journal.new_game(game, players, seed, dict(state.options), names, colours,
                                   source)
        session = cls(state, journal=journal, game_id=gid, names=names)
        return session

    @classmethod
    def resume(cls, journal: Journal, game_id: int) -> RefereeSession:
        """The game as the journal holds it: every committed step replayed, sealed choices
        restored."""
        record = journal.game(game_id)
        cls_ = find_game(record.game)
        header = {"players": record.players, "seed": record.seed, "options": record.options}
        steps = journal.steps(game_id)
        try:
            state = cls_.replay(header, [s["entry"] for s in steps])
            for seat, action in sorted(journal.sealed(game_id, len(steps)).items()):
                state.apply_action(cls_.codec.decode(action), player=seat)
        except RulesError as exc:
            raise StateFormatError(f"game {game_id} in the journal cannot be replayed: {exc}") \
                from exc
        session = cls(state, journal=journal, game_id=game_id, names=record.names)
        times = [s["frame_t"] for s in steps if s.get("frame_t") is not None]
        session.frame_t = times[-1] if times else None
        for s in steps:
            move, text = public_step(state, s["entry"])
            session.history.append({"n": s["n"], "move": move, "text": text,
                                    "decided_by": s["decided_by"], "asked": s["asked"]})
        return session

    # --- events ------------------------------------------------------------------------------
    def subscribe(self, listener: Callable[[Event], None]) -> None:
        self.listeners.append(listener)

    def _emit(self, event_kind: str, **data: Any) -> None:
        event = Event(event_kind, data)
        for listener in list(self.listeners):
            listener(event)

    def expected(self) -> Keys:
        """The board the camera should see now, as keys."""
        rows = self.state.camera_board()
        return board_keys(rows, self.seated) if rows is not None else [None] * 25

    # --- the loop --------------------------------------------------------------------------
    def begin(self) -> None:
        """Announce the state and put the first questions (call once, after subscribing)."""
        self._advance()

    def observe(self, seen: Keys, frame: bytes | None = None, t: float | None = None,
                confidence: list[float] | None = None) -> Inference | None:
        """A settled reading: 25 keys (None where the reader abstains), the frame as JPEG
        (kept in the journal if it decides a disputed step), its time at the source, and how
        sure the reader was of each cell.

        Cells are weighed by their confidence: a cell read less than ``WEAK_BELOW`` sure that no
        legal step explains is taken as unreadable rather than as the board contradicting the
        rules (the screen says so); a surer one makes the board a mismatch."""
        if self.state.is_terminal():
            return None
        seen = list(seen)
        self.weak = []
        if confidence is not None:
            strict = explain(self.state, seen, self._lag())
            if strict.outcome == "mismatch":
                weak = [i for i in strict.cells if seen[i] is not None
                        and confidence[i] < WEAK_BELOW]
                if weak:
                    relaxed = [None if i in weak else k for i, k in enumerate(seen)]
                    if explain(self.state, relaxed, self._lag()).outcome != "mismatch":
                        self.weak = [f"{cell_name(i)} read as {describe(seen[i])} only "
                                     f"{confidence[i]:.0%} sure: not taken" for i in weak]
                        seen = relaxed
        self.last_seen = seen
        self._last_frame = frame
        self.frame_t = t
        return self._explain()

    def _lag(self) -> dict[int, str]:
        expected = self.expected()
        return {i: c for i, (c, e) in enumerate(zip(self.confirmed, expected, strict=True))
                if c is not None and c != e}

    def _explain(self) -> Inference | None:
        seen = self.last_seen
        if seen is None or self.state.is_terminal():
            return None
        inference = explain(self.state, seen, self._lag())
        outcome = inference.outcome
        if outcome == "same":
            self._explained = True
            self._confirm(seen)
            if self.warning is not None:
                self.warning = None
                self._emit("warning", cleared=True)
            self._announce()
            return inference
        if outcome == "mismatch":
            self._explained = True
            self._warn(inference.cells)
            return inference
        if outcome == "unclear":
            self._explained = False
            where = ", ".join(cell_name(i) for i in inference.cells) or "the board"
            self._set_waiting(f"the camera cannot tell what happened: clear the view of {where}")
            return inference
        if self.warning is not None:
            self.warning = None
            self._emit("warning", cleared=True)
        if outcome in ("apply", "ask"):
            self._apply_steps(inference.steps, "camera", frame=None)
        if outcome == "apply":
            self._explained = True
            self._confirm(seen)
            self._advance()
            # more may be shown than one explanation covered (a hidden step in between)
            if not self.state.is_terminal() and not self.questions:
                return self._explain_again(inference)
            return inference
        self._explained = False
        self._confirm(seen)
        question = inference.question
        assert question is not None
        question.from_reading = True
        self.questions = {qid: q for qid, q in self.questions.items() if not q.from_reading}
        self._advance()  # puts the sealed choices' questions, one per player
        sealed = question.kind == "private" and question.player is None
        if not sealed and not self.state.is_terminal() and not any(
                q.n == question.n and set(map(str, q.options)) >= set(map(str, question.options))
                for q in self.questions.values() if q.kind != "choose"):
            self._open(question)
        return inference

    def _explain_again(self, first: Inference) -> Inference:
        again = explain(self.state, self.last_seen or [], self._lag())
        if again.outcome == "same":
            return first
        return self._explain() or first

    def _confirm(self, seen: Keys) -> None:
        """Cells the reading shows as the game expects are confirmed; the others keep what the
        players last showed (the rules did something their hands have not done yet)."""
        expected = self.expected()
        for i, (e, s) in enumerate(zip(expected, seen, strict=True)):
            if s is not None and cell_fits(e, s):
                self.confirmed[i] = e

    # --- applying ------------------------------------------------------------------------------
    def _apply_steps(self, steps: list[Step], decided_by: str, *, frame: bytes | None) -> None:
        for step in steps:
            self._apply(step.action, step.player, decided_by, frame=frame)

    def _apply(self, action: Action, player: int | None, decided_by: str, *,
               frame: bytes | None = None) -> None:
        state = self.state
        n = len(state.log)
        actor = state.current_player()
        state.apply_action(action, player=player)
        if len(state.log) == n:  # a sealed choice, held until every player has chosen
            if self.journal is not None and self.game_id is not None and player is not None:
                self.journal.seal(self.game_id, n, player, action.to_json())
            return
        entry = state.log[-1]
        asked = sorted(self._asked.pop(n, set()))
        if n in self._shown:
            self._shown.discard(n)
            decided_by = "camera+answer"
        elif "choose" in asked and decided_by == "answer":
            decided_by = "camera+answer"
        if self.journal is not None and self.game_id is not None:
            self.journal.add_step(self.game_id, n, entry, decided_by, asked,
                                  frame if decided_by != "camera" else None,
                                  frame_t=self.frame_t)
        move, text = public_step(state, entry)
        who = {CHANCE: "table", SIMULTANEOUS: "all"}.get(actor)
        record = {"n": n, "player": who or self.names[actor], "move": move, "text": text,
                  "board": state.camera_board(), "decided_by": decided_by, "asked": asked}
        self.history.append(record)
        self._emit("step", **record)

    def _advance(self) -> None:
        """Apply what the rules leave no choice in, then put the questions the camera cannot
        answer, and say what the referee waits for."""
        self.questions = {qid: q for qid, q in self.questions.items()
                          if q.n >= len(self.state.log) and self._still_open(q)}
        for _ in range(1000):
            state = self.state
            if state.is_terminal():
                self._finish()
                return
            pending = self._pending()
            if pending == "forced":
                continue
            break
        self._announce()

    def _still_open(self, q: Question) -> bool:
        if q.n != len(self.state.log):
            return False
        if q.kind == "choose":
            return True
        if self.state.current_player() == SIMULTANEOUS:
            return q.player in self.state.acting_players()
        return all(self._legal(a) for a in q.options[:1])

    def _legal(self, action: Action) -> bool:
        try:
            probe = self.state.clone()
            probe.apply_action(action, player=None if probe.current_player() != SIMULTANEOUS
                               else probe.acting_players()[0])
            return True
        except RulesError:
            return False

    def _pending(self) -> str:
        """Look at the pending step: 'forced' (applied: one outcome only), 'asked' (a question
        is open), or 'camera' (the board will show it)."""
        state = self.state
        n = len(state.log)
        actor = state.current_player()
        if actor == SIMULTANEOUS:
            for p in state.acting_players():
                self._open(Question("private", p, n, state.legal_actions(p)))
            return "asked"
        finder = Explainer(state, [None] * 25, {})
        kind, tried = finder.options(state)
        if kind == "hidden-chance":
            options = [a for a, _ in state.chance_outcomes()]
            if len(options) == 1:
                self._apply(options[0], None, "answer")
                return "forced"
            private = state._private_to(options[0]) is not None
            self._open(Question("private" if private else "enter",
                                state._private_to(options[0]) if private else None, n, options))
            return "asked"
        groups, shown = finder.split(finder.root_board, tried)
        hidden = [group[0][0] for group in groups.values()]
        if len(hidden) == 1 and not shown:
            self._apply(hidden[0], None, "answer")
            return "forced"
        if hidden:
            options = hidden
            # a hidden step, or one chosen from a hand whose options would show what it holds
            private = (state._private_to(options[0]) is not None
                       or state.hidden_choice() is not None)
            who = actor if actor >= 0 else None
            self._open(Question("private" if private else "enter", who, n, options,
                                optional=bool(shown)))
            return "asked"
        return "camera"

    def _open(self, question: Question) -> None:
        key = self._question_key(question)
        for q in self.questions.values():
            if self._question_key(q) == key:
                return
        question.id = self._next_id
        self._next_id += 1
        if question.shown:
            self._shown.add(question.n)
        self._asked.setdefault(question.n, set()).add(question.kind)
        self.questions[question.id] = question
        self._emit("question", **self.public_question(question))

    def _question_key(self, q: Question) -> str:
        return json.dumps([q.kind, q.player, q.n, [a.to_json() for a in q.options],
                           [state_key(c.state) for c in q.candidates]], sort_keys=True)

    def public_question(self, q: Question) -> dict[str, Any]:
        """A question as the shared screen may show it: a private one names only its player."""
        who = self.names[q.player] if q.player is not None else None
        out: dict[str, Any] = {"id": q.id, "kind": q.kind, "player": who, "n": q.n,
                               "optional": q.optional, "prompt": self.prompt(q)}
        if q.kind == "choose":
            out["candidates"] = [
                {"steps": [public_step_text(c.state, s) for s in c.steps],
                 "board": c.state.camera_board(),
                 "differ": [cell_name(i) for i in range(25)
                            if c.board[i] != self.expected()[i]]}
                for c in q.candidates]
        elif q.kind == "enter":
            out["options"] = [{"index": i, "text": self.state.describe(a), "action": a.to_json()}
                              for i, a in enumerate(q.options)]
        return out

    def private_options(self, question_id: int) -> list[dict[str, Any]]:
        """The options of a private question, for its player's eyes only (behind the cover)."""
        q = self.questions[question_id]
        return [{"index": i, "text": self.state.describe(a), "action": a.to_json()}
                for i, a in enumerate(q.options)]

    def prompt(self, q: Question) -> str:
        who = self.names[q.player] if q.player is not None else "Table"
        if q.kind == "choose":
            return "The board fits more than one step: which happened?"
        if q.kind == "private":
            return f"Pass the screen to {who}: {who} enters a hidden choice"
        first = q.options[0] if q.options else None
        kind = first.kind if first is not None else ""
        what = step_prompt(self.state.GAME_ID, kind)
        if kind == "draw" and self.state.GAME_ID.startswith("food-alley/"):
            what = f"which token came out of the bag ({self._drawn_for()})?"
        return f"{who}: {what}"

    def _drawn_for(self) -> str:
        """What the pending draw is for, in a few words (the engine's own phrase)."""
        state = self.state
        phase = getattr(state, "phase", "")
        return {"fill": "to fill the market", "capital": "behind a screen",
                "start-draw": "to choose the start player", "offer": "for the offer",
                "restock": "to restock the offer", "top-up": "to restock the offer",
                "blind": "drawn blindly under the shopper", "reference":
                "the reference token of the next column", "refill": "to refill the market",
                }.get(phase, "a draw")

    # --- answers ---------------------------------------------------------------------------
    def answer(self, question_id: int, choice: int | Action, *, seat: str | None = None) -> None:
        """Answer a question: an option's index (or the action itself), or for ``choose`` the
        index of the candidate.

        :raises AnswerError: if there is no such open question or option.
        """
        q = self.questions.get(question_id)
        if q is None:
            raise AnswerError(f"question {question_id} is not open (answered, or the game "
                              "moved on)")
        if q.kind == "choose":
            candidate = self._candidate(q, choice)
            del self.questions[question_id]
            self._asked.setdefault(q.n, set()).add("choose")
            self._apply_steps(candidate.steps, "answer", frame=self._last_frame)
            self._after_answer()
            return
        if isinstance(choice, int) and not 0 <= choice < len(q.options):
            raise AnswerError(f"question {question_id} has options 0-{len(q.options) - 1}")
        action = q.options[choice] if isinstance(choice, int) else choice
        if action not in q.options:
            raise AnswerError(f"{action} is not one of the options of question {question_id}")
        del self.questions[question_id]
        try:
            sealed = self.state.current_player() == SIMULTANEOUS
            self._apply(action, q.player if sealed else None, "answer", frame=self._last_frame)
        except IllegalMoveError as exc:
            raise AnswerError(str(exc)) from exc
        self._after_answer()

    def _candidate(self, q: Question, choice: int | Action) -> Path:
        if isinstance(choice, int):
            if not 0 <= choice < len(q.candidates):
                raise AnswerError(f"question {q.id} has candidates 0-{len(q.candidates) - 1}")
            return q.candidates[choice]
        for c in q.candidates:
            if choice in [s.action for s in c.steps]:
                return c
        raise AnswerError(f"{choice} is not one of the candidates of question {q.id}")

    def _after_answer(self) -> None:
        self.questions = {}
        self._advance()
        if not self._explained and not self.questions:
            self._explain()
        elif not self._explained and all(q.optional for q in self.questions.values()):
            self._explain()

    # --- manual entry (no camera) ---------------------------------------------------------------
    def manual_options(self) -> list[Action]:
        """The steps a front end without a camera offers now: the pending public step's legal
        actions (a chance step's outcomes), none while a question is open. Hidden steps are
        asked as private questions instead."""
        state = self.state
        if state.is_terminal() or self.questions:
            return []
        actor = state.current_player()
        if actor == SIMULTANEOUS or state.hidden_choice() is not None:
            return []
        if actor == CHANCE:
            options = [a for a, _ in state.chance_outcomes()]
        else:
            options = state.legal_actions()
        return [a for a in options if state._private_to(a) is None]

    def enter(self, action: Action) -> None:
        """A step entered by hand where no camera watches (checked like any other).

        :raises AnswerError: if it is not one of :meth:`manual_options`.
        """
        if action not in self.manual_options():
            raise AnswerError(f"{action} cannot be entered now: the game waits for "
                              f"{self.waiting or 'another step'}")
        try:
            self._apply(action, None, "entry")
        except IllegalMoveError as exc:
            raise AnswerError(str(exc)) from exc
        self.confirmed = self.expected()
        self._advance()

    # --- undo ----------------------------------------------------------------------------------
    def undo(self, *, seat: str) -> str:
        """Take back the last step (a player's own move; never a draw or a reveal, and never a
        sealed choice from the shared screen). Returns its public text.

        :raises AnswerError: naming why it is refused.
        """
        state = self.state
        if state.sealed:
            raise AnswerError("cannot undo while players choose in secret: each player takes "
                              "back only their own sealed choice, behind the cover")
        probe = state.clone()
        try:
            undone = probe.undo()
        except UndoRefusedError as exc:
            raise AnswerError(str(exc)) from exc
        n = len(probe.log)
        if self.journal is not None and self.game_id is not None:
            self.journal.undo(self.game_id, n, seat, state.log[n])
        self.state = probe
        self.history = self.history[:n]
        self.questions = {}
        self._emit("correction", n=n, seat=seat, text=f"undone: {undone['text']}", dropped=[])
        self._advance()
        return str(undone["text"])

    # --- corrections ---------------------------------------------------------------------------
    def correction_options(self, n: int) -> list[Action]:
        """What step ``n`` may have been instead, for a shared screen: a public step's
        alternatives (a hidden one is corrected by its own player, not here).

        :raises AnswerError: if there is no such step, or it is hidden or sealed.
        """
        state = self.state
        if not 0 <= n < len(state.log):
            raise AnswerError(f"there is no step {n} to correct (steps 0-{len(state.log) - 1})")
        if "private_to" in state.log[n] or state.log[n].get("actor") == "all":
            raise AnswerError(f"step {n} holds a hidden choice: it cannot be corrected on the "
                              "shared screen")
        before = type(state).replay(state.header(), state.log[:n], state.origin)
        actor = before.current_player()
        options = ([a for a, _ in before.chance_outcomes()] if actor == CHANCE
                   else before.legal_actions())
        return [a for a in options if before._private_to(a) is None]

    def correct(self, n: int, action: Action | dict[str, Any], *, seat: str) -> list[dict[str,
                                                                                      Any]]:
        """Correct the record: step ``n`` becomes ``action`` (a misread draw, a wrong tap).

        Every later step is checked again in order; from the first that no longer holds, the
        steps are dropped (the table is asked again). The journal keeps what was corrected,
        from which seat, and what was dropped. Returns the dropped steps as everyone may read
        them.

        :raises AnswerError: if there is no step ``n`` or the correction is not legal there.
        """
        state = self.state
        if not 0 <= n < len(state.log):
            raise AnswerError(f"there is no step {n} to correct (steps 0-{len(state.log) - 1})")
        cls = type(state)
        if isinstance(action, dict):
            try:
                action = cls.codec.decode(action)
            except RulesError as exc:
                raise AnswerError(str(exc)) from exc
        header = state.header()
        rebuilt = cls.replay(header, state.log[:n], state.origin)
        try:
            rebuilt.apply_action(action)
        except RulesError as exc:
            raise AnswerError(f"step {n} cannot be {action}: {exc}") from exc
        old = state.log[n]
        kept = [self.history[k] if k < len(self.history) else {} for k in range(n + 1,
                                                                                 len(state.log))]
        dropped: list[dict[str, Any]] = []
        decided = [("correction", [])]
        for k in range(n + 1, len(state.log)):
            entry = state.log[k]
            try:
                rebuilt.apply_action(cls.codec.decode(entry["action"]))
            except RulesError as exc:
                move, text = public_step(state, entry)
                dropped = [{"n": k, "text": text, "why": str(exc)}]
                dropped += [{"n": j, "text": public_step(state, state.log[j])[1],
                             "why": "dropped after it"} for j in range(k + 1, len(state.log))]
                break
            record = kept[k - n - 1]
            decided.append((record.get("decided_by", "camera"), record.get("asked", [])))
        for p, sealed in sorted(state.sealed.items()) if not dropped else []:
            try:
                rebuilt.apply_action(sealed, player=p)
            except RulesError:
                pass
        if self.journal is not None and self.game_id is not None:
            self.journal.correct(self.game_id, n, seat, old, rebuilt.log[n:], dropped, decided,
                                 self._last_frame)
        self.state = rebuilt
        self.history = self.history[:n]
        for k in range(n, len(rebuilt.log)):
            move, text = public_step(rebuilt, rebuilt.log[k])
            by, asked = decided[k - n]
            self.history.append({"n": k, "move": move, "text": text, "decided_by": by,
                                 "asked": asked})
        self.confirmed = self.expected()
        self.questions = {}
        self._emit("correction", n=n, seat=seat, text=self.history[n]["text"],
                   dropped=dropped)
        self._advance()
        if self.last_seen is not None and not self.state.is_terminal():
            self._explain()
        return dropped

    # --- state and warnings ------------------------------------------------------------------
    def _warn(self, cells: list[int]) -> None:
        expected = self.expected()
        seen = self.last_seen or [None] * 25
        detail = explain_cells(expected, seen, cells)
        warning = {"text": "the board matches no legal step", "cells": [cell_name(i)
                                                                          for i in cells],
                   "differences": detail, "allowed": self.allowed()}
        if warning != self.warning:
            self.warning = warning
            if self.journal is not None and self.game_id is not None and self._last_frame:
                self.journal._keep_frame(self.game_id, len(self.state.log), "mismatch",
                                         self._last_frame)
            self._emit("warning", **warning)

    def allowed(self) -> str:
        """What the rules allow now, in a sentence."""
        state = self.state
        actor = state.current_player()
        if actor == TERMINAL:
            return "nothing: the game is over"
        if actor == SIMULTANEOUS:
            return "every player chooses a coin behind the screen"
        if actor == CHANCE:
            return "a draw from the bag"
        options = state.legal_actions()
        texts = [state.describe(a) for a in options[:8]]
        more = f" (and {len(options) - 8} more)" if len(options) > 8 else ""
        return f"{self.names[actor]} may: " + "; ".join(texts) + more

    def _set_waiting(self, text: str) -> None:
        if text != self.waiting:
            self.waiting = text
            self._emit("state", **self.status())

    def _announce(self) -> None:
        self._set_waiting(self.waiting_text())

    def waiting_text(self) -> str:
        """What the referee waits for, in a sentence ('black: move your shopper')."""
        state = self.state
        if state.is_terminal():
            return "the game is over"
        if self.questions:
            q = next(iter(self.questions.values()))
            return self.prompt(q)
        lag = self._lag()
        if lag:
            expected = self.expected()
            cells = sorted(lag)[:4]
            fixes = "; ".join(f"{cell_name(i)} to show {describe(expected[i])}" for i in cells)
            return f"put the board as the game has it: {fixes}"
        actor = state.current_player()
        if state.camera_board() is None:  # a game entered by taps: its own question
            options = ([a for a, _ in state.chance_outcomes()] if actor == CHANCE
                       else state.legal_actions())
            who = "Table" if actor == CHANCE else self.names[actor]
            kind = options[0].kind if options else ""
            return f"{who}: {step_prompt(state.GAME_ID, kind)}"
        if actor == CHANCE:
            return "fill the board from the bag"
        kinds = {a.kind for a in state.legal_actions()}
        verb = next((CAMERA_WAITS[k] for k in ("move", "place", "buy", "place-cat", "shop",
                                          "take-ingredient", "swap-ingredient", "swap-cat",
                                          "feed") if k in kinds), "play")
        return f"{self.names[actor]}: {verb}"

    def status(self) -> dict[str, Any]:
        state = self.state
        return {"n": len(state.log), "waiting": self.waiting, "unsure": list(self.weak),
                "board": state.camera_board(), "warning": self.warning,
                "questions": [self.public_question(q) for q in self.questions.values()]}

    def _finish(self) -> None:
        summary = final_summary(self.state)
        if self.journal is not None and self.game_id is not None:
            self.journal.finish(self.game_id, summary)
        self.questions = {}
        self.waiting = "the game is over"
        self._emit("game_over", **summary)


def public_step_text(state: GameState, step: Step) -> str:
    """A step as everyone may read it."""
    if step.player is not None:
        return "a hidden choice"
    return str(step.action)
