"""The LeanDojo (Lean 4) backend as one object: what ``prover/lean/`` gives the rest of the library."""

from __future__ import annotations

from prover.backend import Backend, Feature
from prover.lean.language import LEAN

BACKEND = Backend(
    name="leandojo",
    aliases=("lean",),
    environment="prover.lean.env:LeanDojoEnvironment",
    language=LEAN,
    checker="Lean (the theorem's file compiled up to the proof, its type compared with its header's, then `#print axioms`)",
    template_sets={"lean": "prover.lean.templates:TEMPLATES"},
    benchmark_families={
        "minif2f": "prover.benchmarks.datasets:load_minif2f",  # minif2f:valid, minif2f:test
        "proofnet": "prover.benchmarks.datasets:load_proofnet",  # proofnet:valid, proofnet:test
        "leandojo-sample": "prover.benchmarks.datasets:load_leandojo_sample",  # leandojo-sample:val
        "leandojo": "prover.benchmarks.datasets:load_leandojo_benchmark",  # leandojo:random/test, ...
    },
    features={Feature.TRACE: "prover.lean.trace_command:TRACER"},
)
