"""A baseline for the Coq backend: best-first search over the ``coq:BASELINE`` template set.

The Coq backend's search over given tactics (``dojo-prover prove --tactics``, through
:func:`prover.coq.presets.baseline_config`) and the suggestions of ``dojo-prover interact``; the
default prover has it as its first member. The tactics and their hand-set scores are
:data:`prover.coq.templates.BASELINE` (and
:data:`prover.coq.templates.SSREFLECT` where a theorem's context loads ssreflect), and the
generator over them is :func:`prover.coq.templates.automation_generator`; this module only
puts that generator under best-first search with a width that takes every suggestion.
"""

from __future__ import annotations

from prover.coq.templates import automation_generator
from prover.defaults import RUN
from prover.proof_search import BestFirstSearchProver


def baseline_prover(tactics: list[str] | None = None, timeout: float = RUN.timeout,
                    max_expansions: int | None = None) -> BestFirstSearchProver:
    """Best-first search with :func:`automation_generator`, asking for every suggestion it makes."""
    generator = automation_generator(tactics)
    return BestFirstSearchProver(generator, timeout=timeout, max_expansions=max_expansions,
                                 num_sampled_tactics=generator.width)
