"""What did the players do? From the game state and a settled reading, the steps whose board fits.

After Raspberry Turk's ``possible_moves_for_board`` (keep the legal moves whose resulting board
is the one seen), widened to sequences, because players do not wait for the screen: one settled
frame may show a move, its shopping and the cats placed, or several players' gathering.

The search tries every option of each pending step on a copy of the state and compares the
board it leaves (the mode's ``camera_board``) with the reading:

- a step that changes no cell (a bid, a claimed list, a sealed coin, a draw beside the board)
  cannot be seen: the search stops there and the table is asked (a question), unless the rules
  leave one outcome only;
- a chance step whose outcome lands on the board (a token drawn into a cell, a cat placed) is
  read from the board: only outcomes that put there what the reading shows are followed;
- a move that turns a cell the reading still shows as it was into something else is not what
  happened (the board does not show it), so it is dropped;
- a path stops at the first state whose board fits the reading: a step whose cells are all
  under a hand (unknown) is left for a later frame.

A cell fits when the reading leaves it unknown, shows what the state expects, shows a face-down
cat of the owner of an expected face-up cat (not turned yet), or still shows what it showed
before the latest steps when the players have not yet done by hand what the rules did at once
(``lag``: a coin to flip, a cat to take back).
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from companion.rules.protocol import CHANCE, SIMULTANEOUS, TERMINAL, Action, GameState
from companion.table.board import Keys, board_keys

MAX_EXPANSIONS = 800
LAZY_ABOVE = 64  # options of a step past which a kind of action is sampled (see options)
KIND_SAMPLES = 6  # states whose options are tried, per reading
MAX_DECISIONS = 8  # player decisions in one explained sequence
MAX_STEPS = 60  # steps in one explained sequence (setup fills 25 cells by chance steps)
MAX_RESULTS = 40  # explanations kept; past that the reading is too unclear to act on
SHOWN_PROBES = 12  # options followed of a step the board shows, not all of it (a cat's value)
MAX_GUESSES = 12  # guessed outcomes along one probe (the setup draws beside the board)
MAX_HIDDEN_DECISIONS = 1  # players' hidden decisions guessed along one probe (turns ended)
PROBES = 2  # hidden options followed, where a step mixes them with options the board shows
DEBT_STEPS = 6  # a cell a step turned into something the reading contradicts must be put
# right within this many further steps (a shop empties cells the cats then fill)


@dataclass(frozen=True)
class Step:
    """One step to apply: an action, whose sealed choice it is (simultaneous steps), and
    whether the board shows it."""

    action: Action
    player: int | None = None
    visible: bool = True
    chance: bool = False


@dataclass
class Question:
    """Something the camera cannot see. ``kind``: ``choose`` (which of several explanations of
    the board), ``enter`` (a public entry) or ``private`` (one player's entry, behind the
    screen). ``n`` is the step number it decides."""

    kind: str
    player: int | None
    n: int
    options: list[Action] = field(default_factory=list)
    candidates: list[Path] = field(default_factory=list)  # choose: the explanations
    shown: bool = False  # the board shows the step, only a hidden part of it is asked
    optional: bool = False  # the camera may settle it instead (a move it can also see)
    from_reading: bool = False  # put because of a reading (dropped when a newer one comes)
    deferred: bool = False  # a face-down value the board will show when it is turned up
    id: int = 0


@dataclass
class Path:
    """A sequence of steps from the state the search began at."""

    steps: list[Step]
    state: GameState
    board: Keys
    debts: dict[int, int] = field(default_factory=dict)
    question: Question | None = None
    mismatch: frozenset[int] = frozenset()
    guessed_at: int | None = None  # a probe: the step where a hidden option was guessed
    guess_shown: bool = False  # ... of a step the board shows, only not all of it
    guesses: int = 0  # hidden outcomes guessed along the path (draws beside the board, ...)
    guessed_decisions: int = 0  # of them, players' hidden decisions (a bid, a store)


@dataclass
class Inference:
    """What a reading says. ``outcome``: ``same`` (nothing new), ``apply`` (``steps``),
    ``ask`` (apply ``steps``, then ``question``), ``choose`` (``question`` lists the
    candidates), ``unclear`` (wait for a clearer view) or ``mismatch`` (no legal step fits;
    ``cells`` differ)."""

    outcome: str
    steps: list[Step] = field(default_factory=list)
    question: Question | None = None
    cells: list[int] = field(default_factory=list)


def state_key(state: GameState) -> str:
    """Two states are the same position when their saved forms are equal."""
    return json.dumps(state._state_json(), sort_keys=True, default=str) + json.dumps(
        {str(p): a.to_json() for p, a in state.sealed.items()}, sort_keys=True)


def same_item(expected: str | None, seen: str) -> bool:
    """Whether a reading shows the same physical thing, whatever its face: a token on either
    side, a cat face up or down."""
    if expected is None:
        return False
    if expected == seen:
        return True
    e, s = expected.split(":"), seen.split(":")
    if e[0] in ("ingredient", "coin") and s[0] in ("ingredient", "coin"):
        return e[1] == s[1]
    if e[0] == "cat" and s[0] == "cat-back":
        return e[1] == s[1]
    return False


def cell_fits(expected: str | None, seen: str | None, *, lagging: str | None = None) -> bool:
    """One cell: unknown, as expected, a face-up cat not turned yet, or still as it was."""
    if seen is None or seen == expected:
        return True
    if seen.startswith("cat-back:") and expected is not None and expected.startswith("cat:"):
        return seen.split(":")[1] == expected.split(":")[1]
    return lagging is not None and seen == lagging


class Explainer:
    """Searches the steps that explain a reading, from one state."""

    def __init__(self, state: GameState, seen: Keys, lag: dict[int, str]) -> None:
        self._pending_blocks: list[Path] = []
        self._probes: list[Path] = []
        self.root = state
        self.seated = [state.player_name(p) for p in range(state.players)]
        self.seen = seen
        self.lag = lag
        self.root_board = self.board(state)
        self.expansions = 0
        self.overflow = False

    def board(self, state: GameState) -> Keys:
        rows = state.camera_board()
        return board_keys(rows, self.seated) if rows is not None else [None] * 25

    def mismatch(self, board: Keys) -> frozenset[int]:
        out = set()
        for i, (e, s) in enumerate(zip(board, self.seen, strict=True)):
            lag = self.lag.get(i) if e == self.root_board[i] else None
            if not cell_fits(e, s, lagging=lag):
                out.add(i)
        return frozenset(out)

    # --- the options of a pending step ------------------------------------------------------
    def options(self, state: GameState) -> tuple[str, list[tuple[Action, GameState]]]:
        """('over' | 'sealed' | 'hidden-chance' | 'steps', tried options). A chance step
        whose sampled outcome changes nothing on the board is not tried outcome by outcome."""
        actor = state.current_player()
        if actor == TERMINAL:
            return "over", []
        if actor == SIMULTANEOUS:
            return "sealed", []
        board = self.board(state)
        if actor == CHANCE:
            outcomes = [a for a, _ in state.chance_outcomes()]
            probe = state.clone()
            probe.apply_action(outcomes[0])
            self.expansions += 1
            if self.board(probe) == board:
                return "hidden-chance", []
            tried = [(outcomes[0], probe)]
            for a in outcomes[1:]:
                child = state.clone()
                child.apply_action(a)
                tried.append((a, child))
            return "steps", tried
        legal = state.legal_actions()
        if len(legal) <= LAZY_ABOVE:
            return "steps", [(a, self.child(state, a)) for a in legal]
        # many options (a player with many tokens has hundreds of sets to store): a kind of
        # action whose samples all leave the board as it is is taken as hidden without trying
        # each (its children are made when they are needed)
        by_kind: dict[str, list[Action]] = {}
        for a in legal:
            by_kind.setdefault(a.kind, []).append(a)
        tried: list[tuple[Action, GameState | None]] = []
        for actions in by_kind.values():
            step = max(1, len(actions) // KIND_SAMPLES)
            samples = [(a, self.child(state, a)) for a in actions[::step][:KIND_SAMPLES]]
            if all(self.board(c) == board for _, c in samples):
                done = {id(a) for a, _ in samples}
                tried += samples + [(a, None) for a in actions if id(a) not in done]
            else:
                tried += [(a, self.child(state, a)) for a in actions]
        return "steps", tried  # type: ignore[return-value]

    def split(self, board: Keys, tried: list[tuple[Action, GameState | None]]
              ) -> tuple[dict[str, list[Any]], dict[tuple[Any, ...], list[Any]]]:
        """The tried options of a step: those that leave the board as it is, by the position
        they lead to, and those the board shows, by the board they leave."""
        hidden: dict[str, list[Any]] = {}
        shown: dict[tuple[Any, ...], list[Any]] = {}
        for action, child in tried:
            if child is None:  # taken as hidden, not tried (see options)
                key = "untried:" + json.dumps(action.to_json(), sort_keys=True)
                hidden.setdefault(key, []).append((action, child))
                continue
            after = self.board(child)
            if after == board:
                hidden.setdefault(state_key(child), []).append((action, child))
            else:
                shown.setdefault(tuple(after), []).append((action, child))
        return hidden, shown

    def child(self, state: GameState, action: Action) -> GameState:
        child = state.clone()
        child.apply_action(action)
        return child

    # --- the search ----------------------------------------------------------------------------
    def search(self) -> tuple[list[Path], list[Path]]:
        fits: list[Path] = []
        blocks: list[Path] = []
        stack = [Path([], self.root, self.root_board)]
        while stack:
            path = stack.pop()
            wrong = self.mismatch(path.board)
            if not wrong:
                fits.append(path)
                if len(fits) + len(blocks) > MAX_RESULTS:
                    self.overflow = True
                    break
                continue
            if fits and len(path.steps) > min(len(f.steps) for f in fits):
                continue  # longer than an explanation found: it could only add steps unseen
            decisions = sum(1 for s in path.steps if s.visible and not s.chance)
            if len(path.steps) >= MAX_STEPS or decisions > MAX_DECISIONS:
                continue
            if self.expansions >= MAX_EXPANSIONS:
                self.overflow = True
                break
            self.expansions += 1
            state = path.state
            kind, tried = self.options(state)
            n = len(state.log)
            if kind == "over":
                continue
            actor = state.current_player()
            if kind in ("sealed", "hidden-chance"):
                if path.guessed_at is None:
                    blocks.append(self._blocked(path, wrong, _hidden_question(state, n)))
                if kind == "hidden-chance" and path.guesses < MAX_GUESSES:
                    # probe with one outcome: could what follows show this board?
                    child = state.clone()
                    outcome = child.sample_chance()
                    child.apply_action(outcome)
                    stack.append(self._guess(path, Step(outcome, None, False, True), child,
                                             path.board, path.debts))
                continue
            is_chance = actor == CHANCE
            hidden, shown = self.split(path.board, tried)
            if hidden:
                if len(hidden) == 1 and not shown:  # the rules leave one outcome: go on
                    action, child = next(iter(hidden.values()))[0]
                    child = child or self.child(state, action)
                    stack.append(Path([*path.steps, Step(action, None, False)], child,
                                      path.board, dict(path.debts), guessed_at=path.guessed_at,
                                      guess_shown=path.guess_shown, guesses=path.guesses,
                                      guessed_decisions=path.guessed_decisions))
                else:
                    options = [group[0][0] for group in hidden.values()]
                    if path.guessed_at is None:
                        blocks.append(self._blocked(path, wrong, Question(
                            _entry_kind(state, options[0]), _who(state), n, options,
                            optional=bool(shown))))
                    if not is_chance and path.guessed_decisions < MAX_HIDDEN_DECISIONS:
                        # probe: could a hidden option, and what follows, show this board too?
                        reps = PROBES if not path.guessed_decisions else 1
                        for group in list(hidden.values())[:reps]:
                            action, child = group[0]
                            child = child or self.child(state, action)
                            stack.append(self._guess(path, Step(action, None, False), child,
                                                     path.board, path.debts, decision=True))
            if is_chance:
                shown = self._read_outcomes(path.board, shown, path, wrong, n)
                stack += self._probes
                self._probes = []
            # the likeliest last, so that it is looked at first (the stack is last in, first
            # out): boards that leave fewer cells unexplained
            ordered = sorted(shown.items(), key=lambda item: -len(self.mismatch(list(item[0]))))
            for board_t, group in ordered:
                board = list(board_t)
                if not is_chance and self._turns_away(path.board, board):
                    continue
                debts = self._debts(path, board)
                if debts is None:
                    continue
                states = {state_key(child): (a, child) for a, child in group}
                if len(states) > 1:  # the board shows the step, not all of it: ask the rest
                    options = [a for a, _ in states.values()]
                    entry = _entry_kind(state, options[0])
                    hinted = self._revealed(path.board, board, states)
                    # wait for the reveal only while the board still shows the thing as the
                    # step left it (a cat's back): gone already, the reveal was missed
                    changed = [i for i in range(25) if board[i] != path.board[i]]
                    waiting = all(self.seen[i] is None or self.seen[i] == board[i]
                                  for i in changed)
                    if any(_covers(self.seen[i]) and not _same_piece(board[i], self.seen[i])
                           for i in changed):
                        continue  # another piece lies there (another player's cat): not this
                    if path.guessed_at is None:
                        blocks.append(self._blocked(path, wrong, Question(
                            entry, _who(state), n, options, shown=True,
                            deferred=entry == "private" and not hinted and waiting)))
                    # probe: a later reveal on the board may tell them apart. A private one
                    # (a cat face down) is followed only where the board already shows it
                    # turned up: its value is then read, not asked
                    follow = hinted if hinted or entry == "private" else list(states.values())
                    if path.guesses < MAX_GUESSES:
                        for action, child in follow[:SHOWN_PROBES]:
                            stack.append(self._guess(path, Step(action, None, True), child,
                                                     board, debts, shown=True))
                    continue
                action, child = group[0]
                stack.append(Path([*path.steps, Step(action, None, True, is_chance)], child,
                                  board, debts, guessed_at=path.guessed_at,
                                  guess_shown=path.guess_shown, guesses=path.guesses,
                                  guessed_decisions=path.guessed_decisions))
        return fits, blocks

    def _read_outcomes(self, before: Keys, shown: dict[tuple[Any, ...], list[Any]], path: Path,
                       wrong: frozenset[int], n: int) -> dict[tuple[Any, ...], list[Any]]:
        """A chance outcome on the board is read from it: keep the outcomes that put in every
        changed cell the thing the reading shows there (either face). If the reading leaves
        those cells unknown, the outcome is asked."""
        kept: dict[tuple[Any, ...], list[Any]] = {}
        unseen = []
        for board_t, group in shown.items():
            changed = [i for i, (b, a) in enumerate(zip(before, board_t, strict=True)) if b != a]
            # a cell still showing what it showed before says nothing of the outcome (not put
            # there yet, or already taken again: a cat placed and fed at once)
            known = [i for i in changed if self.seen[i] is not None
                     and self.seen[i] != before[i]
                     and not (i in self.lag and self.seen[i] == self.lag[i])]
            if not known:
                unseen += group
            elif all(same_item(board_t[i], self.seen[i]) for i in known):  # type: ignore[arg-type]
                kept[board_t] = group
        if not kept and not unseen:  # something covers the outcome (a cat put on the token)
            unseen = [item for group in shown.values() for item in group]
        if not kept and unseen and len(unseen) > 1 and path.guessed_at is None:
            state = path.state
            self._pending_blocks.append(self._blocked(path, wrong, Question(
                _entry_kind(state, unseen[0][0]), _who(state), n, [a for a, _ in unseen])))
            action, child = unseen[0]  # probe: one outcome, and what follows
            self._probes.append(self._guess(path, Step(action, None, True), child,
                                            self.board(child), path.debts))
        return kept


    def _revealed(self, before: Keys, board: Keys, states: dict[str, tuple[Action, GameState]]
                  ) -> list[tuple[Action, GameState]]:
        """The options of a step the board shows in part whose hidden value the reading
        already shows: where the step put a face-down cat, the reading has it face up with a
        number, and the option's value is that number."""
        out = []
        for i, (b, a) in enumerate(zip(before, board, strict=True)):
            seen = self.seen[i]
            if b == a or seen is None or seen == a or a is None:
                continue
            parts = seen.split(":")
            if parts[0] != "cat" or not a.startswith("cat-back:") or not parts[2].isdigit():
                continue
            out += [(action, child) for action, child in states.values()
                    if action.to_json().get("value") == int(parts[2])]
        return out

    def _guess(self, path: Path, step: Step, child: GameState, board: Keys,
               debts: dict[int, int], *, shown: bool = False, decision: bool = False) -> Path:
        """A probe path: ``step`` is one guessed option of several the board cannot tell."""
        first = path.guessed_at is None
        return Path([*path.steps, step], child, board, dict(debts),
                    guessed_at=len(path.steps) if first else path.guessed_at,
                    guess_shown=shown if first else path.guess_shown and shown,
                    guesses=path.guesses + 1,
                    guessed_decisions=path.guessed_decisions + decision)

    def _turns_away(self, before: Keys, after: Keys) -> bool:
        """The step changes a cell that the reading still shows as it was."""
        for i, (b, a) in enumerate(zip(before, after, strict=True)):
            if b != a and self.seen[i] is not None and self.seen[i] == b:
                return True
        return False

    def _debts(self, path: Path, board: Keys) -> dict[int, int] | None:
        """Cells the step turned into something the reading contradicts, with the step count
        when that happened; None if one has waited too long to be put right."""
        depth = len(path.steps) + 1
        debts = dict(path.debts)
        for i, (b, a) in enumerate(zip(path.board, board, strict=True)):
            if b == a:
                continue
            seen = self.seen[i]
            # put right later: not a debt while it is the same thing on its other face (the
            # corners flipped once the market is full; a used coin flipped after the move)
            if cell_fits(a, seen) or (seen is not None and same_item(a, seen)):
                debts.pop(i, None)
            else:
                debts.setdefault(i, depth)
        if any(depth - since > DEBT_STEPS for since in debts.values()):
            return None
        return debts

    def _blocked(self, path: Path, wrong: frozenset[int], question: Question) -> Path:
        return Path(path.steps, path.state, path.board, path.debts, question, wrong)


def _who(state: GameState) -> int | None:
    actor = state.current_player()
    return actor if actor >= 0 else None


def _entry_kind(state: GameState, action: Action) -> str:
    """Private when the rules keep the step to one player (a sealed choice, a draw behind a
    screen, a face-down cat's value), else a public entry."""
    if state.current_player() == SIMULTANEOUS:
        return "private"
    try:
        private = state._private_to(action)
    except (KeyError, IndexError, AttributeError):
        private = None
    return "private" if private is not None else "enter"


def _hidden_question(state: GameState, n: int) -> Question:
    """The question for a step the camera cannot see at all: a draw beside the board, or the
    sealed choices of a simultaneous step (one private question per player, see the session)."""
    if state.current_player() == SIMULTANEOUS:
        return Question("private", None, n)
    options = [a for a, _ in state.chance_outcomes()]
    return Question(_entry_kind(state, options[0]), None, n, options)


def explain(state: GameState, seen: Keys, lag: dict[int, str] | None = None) -> Inference:
    """Decide what a settled reading shows, from ``state``.

    One explanation, or several that lead to the same state: apply it. Several that lead to
    different states: ask which (``choose``). Explanations that stop at a step the camera cannot
    see: apply what they share, then ask. None: ``mismatch``.
    """
    finder = Explainer(state, seen, dict(lag or {}))
    if not finder.mismatch(finder.root_board):
        return Inference("same")
    fits, blocks = finder.search()
    blocks += finder._pending_blocks
    if finder.overflow and not fits:
        return Inference("unclear")
    probes = [f for f in fits if f.guessed_at is not None]
    fits = [f for f in fits if f.guessed_at is None]
    if fits:  # what the board shows outweighs explanations that add more than one hidden
        shortest = min(len(f.steps) for f in fits)  # step to it (a whole round of passes)
        probes = [p for p in probes if len(p.steps) <= shortest + 1]
    if fits:
        groups: dict[str, list[Path]] = {}
        for path in fits:
            groups.setdefault(state_key(path.state), []).append(path)
        best = [min(g, key=lambda p: len(p.steps)) for g in groups.values()]
        if len(best) == 1 and not probes:
            return Inference("apply", best[0].steps)
        if len(best) > 1:
            unseen = [i for i in range(25) if seen[i] is None
                      and len({p.board[i] for p in best}) > 1]
            if unseen:
                return Inference("unclear", cells=unseen)
            return _choose(state, best)
    if probes and not fits and all(p.guess_shown for p in probes) \
            and len({state_key(p.state) for p in probes}) == 1:
        # a step the board showed in part, told apart by what it shows later (a face-down
        # cat's value, once the column is revealed): the camera decided it
        return Inference("apply", min(probes, key=lambda p: len(p.steps)).steps)
    if probes:
        # the board is explained only through a step the camera cannot see (or could not tell
        # from one it sees): apply what every explanation shares, then ask that step
        every = [*fits, *probes]
        at = min(min(p.guessed_at for p in probes),  # type: ignore[type-var]
                 _common_prefix([p.steps for p in every]))
        base = _replay(state, every[0].steps[:at])
        here = state_key(base.state)
        asked = [b.question for b in blocks if len(b.steps) == at and b.question is not None
                 and state_key(b.state) == here]
        if not asked:
            return Inference("ask", base.steps, _question_at(base.state, len(state.log) + at))
        options: list[Action] = []
        for q in asked:
            options += [a for a in q.options if a not in options]
        # and what the explanations did there: the board could not tell them apart
        options += [a for a in dict.fromkeys(p.steps[at].action for p in every
                                             if len(p.steps) > at) if a not in options]
        first = asked[0]
        return Inference("ask", base.steps, Question(
            first.kind, first.player, first.n, options, shown=any(q.shown for q in asked),
            optional=all(q.optional for q in asked)))
    if not blocks:
        return Inference("mismatch", cells=sorted(finder.mismatch(finder.root_board)))
    # explanations that stop at a step the camera cannot see (an answer is needed to go on):
    # only those whose steps the board shows as they left it (a cell a step changed shows
    # what that step put there); of those, the ones that leave less of the board unexplained
    # win; apply what they share, then ask
    blocks = [b for b in blocks if all(_covers(seen[i]) for i in b.debts)]
    # a question the camera could also settle (cook or feed?) explains nothing by itself here:
    # had it been the answer, a probe through it would have fitted
    blocks = [b for b in blocks if b.steps or b.question is None or not b.question.optional]
    if not blocks:
        return Inference("mismatch", cells=sorted(finder.mismatch(finder.root_board)))
    blocks = [b for b in blocks if not any(o.mismatch < b.mismatch for o in blocks)]
    common = _common_prefix([b.steps for b in blocks])
    at_common = [b for b in blocks if len(b.steps) == common]
    if at_common and len({state_key(x.state) for x in at_common}) == 1:
        questions = [b.question for b in at_common if b.question is not None]
        if all(q.deferred for q in questions):  # the table turns it up later: wait for that
            steps = at_common[0].steps[:common]
            return Inference("apply", steps) if steps else Inference("unclear")
        options: list[Action] = []
        for q in questions:
            options += [a for a in q.options if a not in options]
        first = questions[0]
        return Inference("ask", at_common[0].steps[:common], Question(
            first.kind, first.player, first.n, options, shown=any(q.shown for q in questions),
            optional=all(q.optional for q in questions)))
    ahead: dict[str, Path] = {}
    for b in blocks:
        if len(b.steps) > common:
            prefix = _replay(state, b.steps[:common + 1])
            ahead.setdefault(state_key(prefix.state), prefix)
    if len(ahead) == 1:
        return Inference("apply", next(iter(ahead.values())).steps)
    return _choose(state, list(ahead.values()))


def _same_piece(a: str | None, b: str | None) -> bool:
    """The same pawn or the same player's cat, on either face."""
    if a is None or b is None:
        return False
    pa, pb = a.split(":"), b.split(":")
    cats = ("cat", "cat-back")
    if pa[0] in cats and pb[0] in cats:
        return pa[1] == pb[1]
    return a == b


def _covers(key: str | None) -> bool:
    """Whether a reading shows a piece that may lie on a token put there before it (a shopper
    on its coin, a cat on an ingredient)."""
    return key is not None and key.split(":")[0] in ("shopper", "cat", "cat-back")


def _question_at(state: GameState, n: int) -> Question:
    """The question for the pending step: its hidden options where it has only those, else
    every option (the board could not tell them apart)."""
    actor = state.current_player()
    if actor in (SIMULTANEOUS, CHANCE):
        return _hidden_question(state, n)
    options = _distinct_options(state)
    return Question(_entry_kind(state, options[0]), _who(state), n, options)


def _distinct_options(state: GameState) -> list[Action]:
    """The options of the pending step, one for each position it leads to."""
    seen: dict[str, Action] = {}
    legal = state.legal_actions()
    if len(legal) > LAZY_ABOVE:
        return legal
    for action in legal:
        child = state.clone()
        child.apply_action(action)
        seen.setdefault(state_key(child), action)
    return list(seen.values())


def _replay(state: GameState, steps: list[Step]) -> Path:
    s = state.clone()
    for step in steps:
        s.apply_action(step.action, player=step.player)
    board = s.camera_board()
    seated = [state.player_name(p) for p in range(state.players)]
    return Path(list(steps), s, board_keys(board, seated) if board else [None] * 25)


def _common_prefix(step_lists: list[list[Step]]) -> int:
    """How many first steps every path shares (the same actions)."""
    shortest = min(len(s) for s in step_lists)
    k = 0
    while k < shortest and len({json.dumps(s[k].action.to_json(), sort_keys=True)
                                for s in step_lists}) == 1:
        k += 1
    return k


def _choose(state: GameState, candidates: list[Path]) -> Inference:
    """Several explanations (each a path from ``state``) lead to different states: ask which.
    Where they part at one player's private step (a face-down cat's value), that player
    answers behind the screen."""
    k = _common_prefix([c.steps for c in candidates])
    at = _replay(state, candidates[0].steps[:k]).state if k else state
    parting = {json.dumps(c.steps[k].action.to_json()): c.steps[k].action
               for c in candidates if len(c.steps) > k}
    kind = "choose"
    if parting and len(parting) == len(candidates):
        first = next(iter(parting.values()))
        if _entry_kind(at, first) == "private":
            kind = "private"
    return Inference("choose", [], Question(
        kind, _who(at) if kind == "private" else None, len(state.log) + k,
        list(parting.values()), candidates))
