"""A baseline for the Coq backend: best-first search over the ``coq:BASELINE`` template set.

``dojo-prover prove --env coq --tactics ...`` runs it; the default prover has it as its first member.
The tactics and their hand-set scores are :data:`generator.coq_templates.BASELINE` (and
:data:`generator.coq_templates.SSREFLECT` where a theorem's context loads ssreflect), and the
generator over them is :func:`generator.coq_templates.automation_generator`; this module only
puts that generator under best-first search with a width that takes every suggestion.
"""

from __future__ import annotations

from generator.coq_templates import automation_generator
from prover.defaults import RUN
from prover.proof_search import BestFirstSearchProver


def baseline_prover(tactics: list[str] | None = None, timeout: float = RUN.timeout,
                    max_expansions: int | None = None) -> BestFirstSearchProver:
    """Best-first search with :func:`automation_generator`, asking for every suggestion it makes."""
    generator = automation_generator(tactics)
    return BestFirstSearchProver(generator, timeout=timeout, max_expansions=max_expansions,
                                 num_sampled_tactics=generator.width)
