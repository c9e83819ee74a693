"""The end of a game in words and JSON: the final object and the score table."""

from __future__ import annotations

from typing import Any

from companion.rules.protocol import GameState


def smileys(state: GameState) -> dict[str, int]:
    """Smileys so far per player, for modes that count them during play (Shopper)."""
    count = getattr(state, "smileys", None)
    if count is None:
        return {}
    return {state.player_name(q): count(q) for q in range(state.players)}


def final_summary(state: GameState) -> dict[str, Any]:
    """The closing JSON object: scores with breakdown, ranking and where each token is."""
    scores = {state.player_name(s.player): s.to_json() for s in state.scores()}
    ranking = [[state.player_name(q) for q in group] for group in state.ranking()]
    summary: dict[str, Any] = {
        "final": True,
        "game": state.GAME_ID,
        "seed": state.seed,
        "scores": scores,
        "ranking": ranking,
        "winners": ranking[0] if ranking else [],
        "end": getattr(state, "end_reason", None),
        "end_rule": "referee" if ended_by_referee(state) else "rulebook",
        "tiebreak": tie_break(state),
        "tiebreak_detail": tie_break_detail(state),
    }
    places = getattr(state, "token_places", None)
    if places is not None:
        summary["tokens"] = dict(sorted(places().items()))
    return summary


def score_table(state: GameState) -> str:
    """A readable final score table with the breakdown, in ranking order."""
    scores = {s.player: s for s in state.scores()}
    categories = list(next(iter(scores.values())).breakdown)
    header = ["rank", "player", *categories, "total"]
    rows = []
    for place, group in enumerate(state.ranking(), start=1):
        for q in group:
            s = scores[q]
            rows.append([str(place), state.player_name(q),
                         *(f"{s.breakdown[c]:+d}" if c != categories[0] else str(s.breakdown[c])
                           for c in categories), str(s.total)])
    widths = [max(len(r[i]) for r in [header, *rows]) for i in range(len(header))]
    lines = ["  ".join(h.ljust(w) for h, w in zip(header, widths, strict=True))]
    lines.append("  ".join("-" * w for w in widths))
    lines += ["  ".join(c.rjust(w) if i != 1 else c.ljust(w)
                        for i, (c, w) in enumerate(zip(r, widths, strict=True))) for r in rows]
    winners = [state.player_name(q) for q in state.ranking()[0]]
    lines.append(("Winners (tied): " if len(winners) > 1 else "Winner: ") + ", ".join(winners))
    decided = tie_break(state)
    if decided:
        lines.append(f"Tie-breaker: {decided}")
    return "\n".join(lines)


def ended_by_referee(state: GameState) -> bool:
    """Whether the game ended (or its final round began) by one of the referee's rules."""
    return getattr(state, "end_reason", None) in type(state).REFEREE_ENDINGS


def end_line(state: GameState) -> str:
    """The end of the game in a sentence, saying when it was the referee's rule."""
    reason = getattr(state, "end_reason", None)
    if not reason:
        return "Game over."
    if ended_by_referee(state):
        return f"Game over, ended by the referee's rule: {reason}."
    return f"Game over: {reason}."


def tie_break_detail(state: GameState) -> dict[str, Any] | None:
    """Who tied on first place, on what total, and which tie-breaker (if any) decided it:
    {"tied": [players], "score": total, "winner": player or None, "on": tie-breaker or None};
    None when the scores alone decided."""
    scores = state.scores()
    top = max(s.total for s in scores)
    tied = [s for s in scores if s.total == top]
    if len(tied) < 2:
        return None
    detail: dict[str, Any] = {"tied": [state.player_name(s.player) for s in tied], "score": top,
                              "winner": None, "on": None}
    for i, label in enumerate(getattr(type(state), "TIEBREAKS", ())):
        best = max(s.tiebreak[i] for s in tied)
        ahead = [s for s in tied if s.tiebreak[i] == best]
        if len(ahead) == 1:
            detail.update(winner=state.player_name(ahead[0].player), on=label)
            return detail
        tied = ahead
    return detail


def tie_break_sentence(detail: dict[str, Any] | None,
                       names: dict[str, str] | None = None) -> str | None:
    """The tie-breaker in a sentence, each player called by ``names`` where given."""
    if detail is None:
        return None
    names = names or {}
    tied = " and ".join(names.get(p, p) for p in detail["tied"])
    if detail["winner"] is None:
        return f"{tied} tied on {detail['score']} and on every tie-breaker: they share the win"
    return (f"{tied} tied on {detail['score']}; {names.get(detail['winner'], detail['winner'])} "
            f"won on {detail['on']}")


def tie_break(state: GameState) -> str | None:
    """Which tie-breaker decided first place, in a sentence; None when the scores alone did."""
    return tie_break_sentence(tie_break_detail(state))
