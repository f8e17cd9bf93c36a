"""A generator that proposes the same scored tactics for every state: a baseline and a test aid."""

from __future__ import annotations

import math

from generator.base import Suggestion, TacticGenerator
from search_tree.protocol import TacticState, Theorem


class FixedTacticGenerator(TacticGenerator):
    """Proposes a fixed list of ``(tactic, logprob)``; a plain list of tactics gets uniform scores."""

    def __init__(self, tactics: list[str] | list[Suggestion]) -> None:
        if not tactics:
            raise ValueError("FixedTacticGenerator needs at least one tactic")
        if all(isinstance(t, str) for t in tactics):
            uniform = -math.log(len(tactics))
            self.suggestions: list[Suggestion] = [(str(t), uniform) for t in tactics]
        else:
            self.suggestions = [(str(t[0]), float(t[1])) for t in tactics]

    def generate(self, state: TacticState, context: Theorem, num_samples: int) -> list[Suggestion]:
        return sorted(self.suggestions, key=lambda s: -s[1])[:num_samples]
