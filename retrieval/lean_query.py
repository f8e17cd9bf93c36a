"""The retrieval query for a Lean proof state.

ReProver retrieves with the pretty-printed state; tactics act on the main goal, so the query here
is the main goal in the same layout (hypotheses ``name : type``, then ``⊢ target``) with case tags
dropped and wrapped lines joined. When the text is longer than ``max_chars`` (encoders truncate at
a few hundred tokens) the oldest hypotheses go first: the target and the most recent hypotheses
are what the next step needs. States without parsed goals fall back to their printed text.
"""

from __future__ import annotations

from search_tree.protocol import Goal, TacticState


def goal_query(goal: Goal, max_chars: int = 2048) -> str:
    """One goal as query text, shortened from the oldest hypothesis when over ``max_chars``."""
    target = f"⊢ {goal.target}"
    lines: list[str] = []
    budget = max_chars - len(target)
    for hyp in reversed(goal.hypotheses):
        line = f"{hyp.name} : {hyp.type}" + (f" := {hyp.value}" if hyp.value is not None else "")
        if len(line) + 1 > budget:
            break
        lines.append(line)
        budget -= len(line) + 1
    return "\n".join([*reversed(lines), target])[: max(max_chars, 0)]


def lean_query(state: TacticState, max_chars: int = 2048, all_goals: bool = False) -> str:
    """Query text for ``state``: its main goal (or every goal, blank-line separated, if asked)."""
    if not state.goals:
        return state.pp[:max_chars]
    goals = state.goals if all_goals else state.goals[:1]
    return "\n\n".join(goal_query(g, max_chars) for g in goals)[:max_chars]
