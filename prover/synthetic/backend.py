"""The synthetic backend as one object: what ``prover/synthetic/`` gives the rest of the library.

It builds its goals itself, so it has no :class:`~search_tree.language.Language`, and it offers
no command feature beyond its environment: its puzzles are run by ``eval`` and the benchmarks.
"""

from __future__ import annotations

from prover.backend import Backend

BACKEND = Backend(
    name="synthetic",
    environment="prover.synthetic.env:SyntheticEnvironment",
    language=None,
    checker="a replay against the puzzle's hidden proof tree",
    generators={"synthetic": "prover.synthetic.env:SyntheticGenerator"},
    benchmark_families={"synthetic": "prover.benchmarks.registry:load_synthetic"},  # synthetic:N
)
