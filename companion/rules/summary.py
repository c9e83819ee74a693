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
