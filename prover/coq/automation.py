"""A baseline for the Coq backend: best-first search over a fixed list of common tactics.

This is what ``dojo-prover prove --env coq`` and ``dojo-prover demo`` run when no model is given.
The scores are a hand-set prior (log-probabilities): cheap closing tactics first, then
structural steps, then the expensive automation, so that best-first search tries a state's
likely finishers before it branches. Induction and case analysis need a variable, so
:class:`BaselineGenerator` adds ``induction h; simpl; auto.`` and ``destruct h; simpl; auto.``
for the hypotheses of the state's first goal, and the fixed list has ``intro x; induction x;
...`` for the first universally quantified variable.
"""

from __future__ import annotations

from generator import Suggestion, TacticGenerator
from prover.proof_search import BestFirstSearchProver
from search_tree.protocol import TacticState, Theorem

# (tactic, log-probability) in decreasing order of prior
DEFAULT_TACTICS: tuple[tuple[str, float], ...] = (
    ("intros.", -0.5),
    ("reflexivity.", -1.0),
    ("assumption.", -1.1),
    ("trivial.", -1.2),
    ("auto.", -1.3),
    ("easy.", -1.4),
    ("split.", -1.6),
    ("simpl.", -1.8),
    ("lia.", -1.9),
    ("congruence.", -2.0),
    ("discriminate.", -2.1),
    ("intuition.", -2.2),
    ("constructor.", -2.3),
    ("intro x; induction x; simpl; auto.", -2.4),
    ("intro x; destruct x; simpl; auto.", -2.5),
    ("subst.", -2.6),
    ("eauto.", -2.7),
    ("firstorder.", -2.8),
    ("left.", -3.0),
    ("right.", -3.0),
)


def tactic_list(tactics: list[str] | None) -> list[tuple[str, float]]:
    """The scored tactics for a user's list (in the order given) or the default list."""
    if not tactics:
        return list(DEFAULT_TACTICS)
    return [(t, -0.1 * (i + 1)) for i, t in enumerate(tactics)]


class BaselineGenerator(TacticGenerator):
    """The scored fixed tactics, plus case analysis and induction on the first goal's hypotheses.

    ``per_hypothesis`` caps how many hypotheses get their own tactics (the last ones, which are
    usually the variables and premises the goal is about).
    """

    def __init__(self, tactics: list[tuple[str, float]], per_hypothesis: int = 4) -> None:
        self.tactics = list(tactics)
        self.per_hypothesis = per_hypothesis

    def generate(self, state: TacticState, context: Theorem, num_samples: int) -> list[Suggestion]:
        out = list(self.tactics)
        if state.goals:
            names = [h.name for h in state.goals[0].hypotheses][-self.per_hypothesis:]
            for rank, name in enumerate(reversed(names)):
                out.append((f"destruct {name}; simpl; auto.", -2.45 - 0.1 * rank))
                out.append((f"induction {name}; simpl; auto.", -2.5 - 0.1 * rank))
        return sorted(out, key=lambda s: -s[1])[:num_samples]


def automation_generator(tactics: list[str] | None = None, per_hypothesis: int = 4) -> BaselineGenerator:
    """The baseline as a generator registered by name (``automation`` in :mod:`prover.registry`), so
    that the generator benchmarks can put it beside the others under the same search and budget."""
    return BaselineGenerator(tactic_list(tactics), per_hypothesis)


def baseline_prover(tactics: list[str] | None = None, timeout: float = 30.0,
                    max_expansions: int | None = None) -> BestFirstSearchProver:
    """Best-first search with :class:`BaselineGenerator` over :func:`tactic_list`."""
    generator = BaselineGenerator(tactic_list(tactics))
    return BestFirstSearchProver(generator, timeout=timeout, max_expansions=max_expansions,
                                 num_sampled_tactics=len(generator.tactics) + 2 * generator.per_hypothesis)

