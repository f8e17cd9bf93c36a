"""Goals and hypotheses of a proof state as generators need them.

Backends fill :attr:`TacticState.goals`; traced data (LeanDojo-format JSON from Lean or from the Coq
tracer) only has the printed state, read by :func:`search_tree.syntax.printed.parse_goals`.
Generators that look at hypotheses (the templates' case analysis, kNN's renaming) get the same view
of both through :func:`goals_of`; the names in a tactic are the language's
(:meth:`search_tree.language.Language.rename`).
"""

from __future__ import annotations

import re

from search_tree.language import Language
from search_tree.protocol import Goal, Hypothesis, TacticState
from search_tree.syntax.printed import parse_goals

def goals_of(state: TacticState | str) -> tuple[Goal, ...]:
    """The goals of ``state``: the backend's parse when present, else parsed from the text."""
    if isinstance(state, TacticState):
        return state.goals if state.goals else parse_goals(state.pp)
    return parse_goals(state)


def hypotheses_of(state: TacticState | str) -> tuple[Hypothesis, ...]:
    """Hypotheses of the first goal (the one a tactic acts on); empty for a state without goals."""
    goals = goals_of(state)
    return goals[0].hypotheses if goals else ()


def hypothesis_kind(type_text: str, language: Language) -> str:
    """Heuristic class of a hypothesis' type: ``"sort"``, ``"prop"`` or ``"data"``.

    Chooses case-analysis and induction candidates without asking the prover: a sort (``Prop``,
    ``Type u``, ``Set``, ``Sort u``) is a type variable, never analysed; the language's
    proposition markers (arrows, equalities, orders, connectives) mark propositions; anything else
    (``nat``, ``list A``, ``ℕ``) is taken as data.
    """
    t = type_text.strip()
    if re.fullmatch(r"(Prop|Set|Type|Sort)(\s.*|\*)?", t):
        return "sort"
    padded = f" {t} "
    return "prop" if any(m in padded for m in language.proposition_markers) else "data"
