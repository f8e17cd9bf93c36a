"""Components defined outside the package, which tests name by import path
(``ComponentSpec("custom_components:MarkedGenerator")``): ``tests/`` is on the path of the test
process, and of the Ray workers it starts."""

from __future__ import annotations

from typing import Any

from generator.base import Suggestion, TacticGenerator
from generator.registry import GENERATORS
from search_tree import TacticState, Theorem

#: the tactic :class:`MarkedGenerator` puts first: a synthetic goal has no such step, so it fails,
#: and an action log that holds it shows which generator ran
MARK = "marked_by_custom_generator"


class MarkedGenerator(TacticGenerator):
    """The synthetic backend's own policy (built through the registry, with ``options``), with
    :data:`MARK` proposed first at every state."""

    def __init__(self, **options: Any) -> None:
        self.inner = GENERATORS.load("synthetic")(**options)

    def set_seed(self, seed: int) -> None:
        self.inner.set_seed(seed)

    def generate(self, state: TacticState, context: Theorem, num_samples: int) -> list[Suggestion]:
        return [(MARK, 0.0), *self.inner.generate(state, context, num_samples - 1)]


class PremiseGenerator(TacticGenerator):
    """Proposes its ``tactics`` and keeps the ``retriever`` it was given: a generator whose
    signature asks for a retriever."""

    def __init__(self, tactics: list[str], retriever: Any | None = None) -> None:
        self.tactics = list(tactics)
        self.retriever = retriever

    def generate(self, state: TacticState, context: Theorem, num_samples: int) -> list[Suggestion]:
        return [(t, -float(i)) for i, t in enumerate(self.tactics[:num_samples])]
