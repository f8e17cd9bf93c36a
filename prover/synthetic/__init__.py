"""The synthetic backend (seeded AND-OR puzzles, :mod:`prover.synthetic.env`): its public names."""

from prover.synthetic.env import (
    VOCABULARY,
    SyntheticEnvironment,
    SyntheticGenerator,
    SyntheticWorld,
    render_bullets,
    synthetic_theorems,
)

__all__ = ["VOCABULARY", "SyntheticEnvironment", "SyntheticGenerator", "SyntheticWorld", "render_bullets",
           "synthetic_theorems"]
