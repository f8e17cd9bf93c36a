"""The tactic generator interface that every policy (templates, kNN, neural models) implements."""

from __future__ import annotations

from abc import ABC, abstractmethod

from search_tree.protocol import TacticState, Theorem

Suggestion = tuple[str, float]  # (tactic, log-probability)


class TacticGenerator(ABC):
    """Proposes tactics for a proof state.

    ``context`` is the theorem being proved: its name, file and position let a generator retrieve
    premises that are accessible from it. Log-probabilities need not be normalised, but they must
    be comparable across the suggestions of one call (search sorts and sums them).
    """

    @abstractmethod
    def generate(self, state: TacticState, context: Theorem, num_samples: int) -> list[Suggestion]:
        """At most ``num_samples`` suggestions for ``state``, any order, no duplicates required."""

    def batch_generate(
        self, states: list[TacticState], contexts: list[Theorem], num_samples: int
    ) -> list[list[Suggestion]]:
        """Suggestions for several states at once; models override this to batch their forward pass."""
        return [self.generate(s, c, num_samples) for s, c in zip(states, contexts, strict=True)]
