"""A baseline for the Coq backend: best-first search over the ``coq:BASELINE`` template set.

This is what ``dojo-prover prove --env coq`` and ``dojo-prover demo`` run when no model is given.
The tactics and their hand-set scores are :data:`generator.coq_templates.BASELINE`; this module
only wires that set to the template generator and to best-first search.
"""

from __future__ import annotations

from generator.coq_templates import baseline_templates
from generator.template import TemplateGenerator
from prover.proof_search import BestFirstSearchProver

#: Scores fall by this much per hypothesis rank (most recent hypothesis first).
_HYPOTHESIS_RANK_PENALTY = 0.1


def automation_generator(tactics: list[str] | None = None, per_hypothesis: int = 4) -> TemplateGenerator:
    """The baseline as a generator registered by name (``automation`` in :mod:`prover.registry`), so
    that the generator benchmarks can put it beside the others under the same search and budget.

    ``tactics`` replaces the fixed list; ``per_hypothesis`` caps how many hypotheses get their own
    case analysis and induction (the most recent ones, usually what the goal is about)."""
    return TemplateGenerator(baseline_templates(tactics), num_premises=0, max_hypotheses=per_hypothesis,
                             rank_penalty=_HYPOTHESIS_RANK_PENALTY)


def baseline_prover(tactics: list[str] | None = None, timeout: float = 30.0,
                    max_expansions: int | None = None) -> BestFirstSearchProver:
    """Best-first search with :func:`automation_generator`, asking for every suggestion it makes."""
    generator = automation_generator(tactics)
    fixed = sum(t.slot is None for t in generator.templates.templates)
    local = len(generator.templates.templates) - fixed
    return BestFirstSearchProver(generator, timeout=timeout, max_expansions=max_expansions,
                                 num_sampled_tactics=fixed + local * generator.max_hypotheses)
