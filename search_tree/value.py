"""Value functions for MCTS: estimates of the remaining cost of proving a state, in tactic steps.

One interface, :class:`ValueFunction`, serves three kinds of estimate, selected by name with
:func:`make_value` or passed as an object:

* ``constant``: every state costs the same; search is then guided by the priors alone (the "no
  critic" setting of HTPS, Lample et al. 2022, Sec. 6).
* ``heuristic``: more and bigger goals cost more (one step per goal plus one per
  ``chars_per_step`` characters of hypotheses and target) -- a hand-made prior, not a learned one.
* a learned model: any object with the same ``value(states, context)`` method, such as the value
  head of the generator's policy-value model, which predicts the remaining number of tactic steps
  (binned, as in Reap). :class:`LearnedValue` wraps one and checks what it returns.

Estimates are costs, not rewards: ``0`` means proved, ``math.inf`` means hopeless. MCTS turns a
cost ``c`` into the reward ``gamma**c`` (see :mod:`search_tree.mcts`).
"""

from __future__ import annotations

import math
from typing import Protocol, Sequence, runtime_checkable

from search_tree.protocol import TacticState, Theorem
from search_tree.registry import Registry


@runtime_checkable
class ValueFunction(Protocol):
    def value(self, states: Sequence[TacticState], context: Theorem) -> list[float]:
        """The estimated remaining cost (tactic steps, ``>= 0``, ``inf`` if hopeless) of each state.

        ``context`` is the theorem being proved, for models that condition on it (retrieved
        premises). Called with every new node of one expansion at once, so a model can batch.
        """
        ...


class ConstantValue:
    """Every state costs ``cost`` steps."""

    def __init__(self, cost: float = 1.0) -> None:
        if cost < 0:
            raise ValueError("a remaining cost cannot be negative")
        self.cost = cost

    def value(self, states: Sequence[TacticState], context: Theorem) -> list[float]:
        return [self.cost] * len(states)


class GoalHeuristicValue:
    """One step per goal plus one per ``chars_per_step`` printed characters of each goal."""

    def __init__(self, chars_per_step: float = 200.0) -> None:
        if chars_per_step <= 0:
            raise ValueError("chars_per_step must be positive")
        self.chars_per_step = chars_per_step

    def value(self, states: Sequence[TacticState], context: Theorem) -> list[float]:
        return [self._cost(s) for s in states]

    def _cost(self, state: TacticState) -> float:
        if not state.goals:  # a backend that does not parse goals: fall back to the printed state
            return 1.0 + len(state.pp) / self.chars_per_step
        size = 0
        for goal in state.goals:
            size += len(goal.target) + sum(len(h.name) + len(h.type) for h in goal.hypotheses)
        return len(state.goals) + size / self.chars_per_step


class LearnedValue:
    """A learned value model behind the interface, with its answers checked.

    A model that answers the wrong number of estimates is a bug and raises; NaN (an untrained or
    diverged head) is read as "unknown" and replaced by ``fallback``; negative costs are clipped.
    """

    def __init__(self, model: ValueFunction, fallback: float = 1.0) -> None:
        self.model = model
        self.fallback = fallback

    def value(self, states: Sequence[TacticState], context: Theorem) -> list[float]:
        if not states:
            return []
        costs = list(self.model.value(states, context))
        if len(costs) != len(states):
            raise ValueError(f"value model returned {len(costs)} estimates for {len(states)} states")
        return [self.fallback if math.isnan(c) else max(0.0, float(c)) for c in costs]


VALUE_FUNCTIONS = Registry("value function", {
    "constant": "search_tree.value:ConstantValue",
    "heuristic": "search_tree.value:GoalHeuristicValue",
})


def make_value(spec: str | ValueFunction) -> ValueFunction:
    """A value function by name (``constant``, ``heuristic``), or a model wrapped in LearnedValue."""
    if isinstance(spec, str):
        return VALUE_FUNCTIONS.load(spec)()
    if isinstance(spec, (ConstantValue, GoalHeuristicValue, LearnedValue)):
        return spec
    return LearnedValue(spec)
