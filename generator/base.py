"""The tactic generator interface that every policy (templates, kNN, neural models) implements."""

from __future__ import annotations

from abc import ABC, abstractmethod
from typing import Any

from search_tree.protocol import TacticState, Theorem

Suggestion = tuple[str, float]  # (tactic, log-probability)
#: a candidate of a union generator as the action logs record it: (tactic, member name, tier score)
Candidate = tuple[str, str, float]


class TacticGenerator(ABC):
    """Proposes tactics for a proof state.

    ``context`` is the theorem being proved: its name, file and position let a generator retrieve
    premises that are accessible from it. Log-probabilities need not be normalised, but they must
    be comparable across the suggestions of one call (search sorts and sums them).

    Besides :meth:`generate`, a generator answers the hooks below; their defaults suit a generator
    that has no such ability. ``temperature`` is None for a generator that does not sample (a run
    that asks for a temperature then fails); one that samples sets it in its constructor.
    """

    temperature: float | None = None

    @abstractmethod
    def generate(self, state: TacticState, context: Theorem, num_samples: int) -> list[Suggestion]:
        """At most ``num_samples`` suggestions for ``state``, any order, no duplicates required."""

    def batch_generate(
        self, states: list[TacticState], contexts: list[Theorem], num_samples: int
    ) -> list[list[Suggestion]]:
        """Suggestions for several states at once; models override this to batch their forward pass."""
        return [self.generate(s, c, num_samples) for s, c in zip(states, contexts, strict=True)]

    def set_seed(self, seed: int) -> None:
        """Reseed the generator's own random source, so that an attempt is reproducible (the global
        ``random``, NumPy and torch generators are seeded by the caller); nothing by default."""
        return None

    @property
    def value(self) -> Any | None:
        """The generator's own estimate of a state's distance to a proof (a model with
        ``value(states, context)``, see :mod:`search_tree.value`), for a search asked for the
        generator's value; None by default."""
        return None

    def proposers(self, state: TacticState) -> list[Candidate] | None:
        """Which member proposed each candidate of the last call for ``state``, for a generator that
        is a union of others (it is logged with the search); None for one that is not."""
        return None
