"""A weighted mixture of tactic generators (e.g. templates fused with a trained model).

Each member's suggestions for a state are renormalised into a distribution over what it returned,
and the fused score of a tactic is the mixture ``log Σ_i w_i p_i(tactic) / Σ_i w_i``. A tactic
proposed by several members adds up their mass, so agreement raises it; a member that returns
nothing for a state contributes nothing. Mixing normalised distributions (rather than adding raw
scores) keeps members with differently scaled scores (a model's sequence log-probabilities, the
templates' prior) comparable.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

from generator.base import Suggestion, TacticGenerator
from search_tree.protocol import TacticState, Theorem


def _normalise(suggestions: list[Suggestion]) -> dict[str, float]:
    """Probabilities over the distinct tactics (whitespace-normalised) of one member's answer."""
    best: dict[str, float] = {}
    for tactic, logprob in suggestions:
        key = " ".join(tactic.split())
        best[key] = max(logprob, best.get(key, -math.inf))
    if not best:
        return {}
    top = max(best.values())
    z = sum(math.exp(v - top) for v in best.values())
    return {t: math.exp(v - top) / z for t, v in best.items()}


class FusedGenerator(TacticGenerator):
    """Mixture of ``members``: ``[(generator, weight)]`` with positive weights."""

    def __init__(self, members: Sequence[tuple[TacticGenerator, float]]) -> None:
        if not members or any(w <= 0 for _, w in members):
            raise ValueError("FusedGenerator needs members with positive weights")
        self.members = list(members)

    def generate(self, state: TacticState, context: Theorem, num_samples: int) -> list[Suggestion]:
        return self.batch_generate([state], [context], num_samples)[0]

    def batch_generate(
        self, states: list[TacticState], contexts: list[Theorem], num_samples: int
    ) -> list[list[Suggestion]]:
        total_weight = sum(w for _, w in self.members)
        mixed: list[dict[str, float]] = [{} for _ in states]
        for generator, weight in self.members:
            for mix, answer in zip(mixed, generator.batch_generate(states, contexts, num_samples), strict=True):
                for tactic, p in _normalise(answer).items():
                    mix[tactic] = mix.get(tactic, 0.0) + weight * p / total_weight
        return [
            sorted(((t, math.log(p)) for t, p in mix.items()), key=lambda s: -s[1])[:num_samples]
            for mix in mixed
        ]
