"""A union generator over the synthetic backend's policy, for tests of learning from action logs
without Coq: the same :class:`prover.coq.default_generator.CoqDefaultGenerator` the default Coq prover uses,
so the logs record each tactic's member and tier score, as the default's do."""

from __future__ import annotations

from prover.coq.default_generator import CoqDefaultGenerator
from generator.fixed import FixedTacticGenerator
from prover.synthetic import SyntheticGenerator

#: registered (in a test) as this generator name
NAME = "synthetic_union"
TARGET = "learn_fixtures:synthetic_union"


def synthetic_union(policy: str | None = None, **options) -> CoqDefaultGenerator:
    """The synthetic policy (greedy) as member ``synthetic`` and a tactic that never applies as
    member ``noise``, one tier lower; ``policy`` a learned checkpoint that rescores them."""
    from prover.coq.default_generator import _load_policy

    members = [(SyntheticGenerator(temperature=0.0, **options), 0.0, 6), (FixedTacticGenerator([("noise.", -0.1)]), -1.0, 1)]
    return CoqDefaultGenerator(members, ["synthetic", "noise"], _load_policy(policy))
