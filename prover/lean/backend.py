"""The LeanDojo (Lean 4) backend as one object: what ``prover/lean/`` gives the rest of the library."""

from __future__ import annotations

from prover.backend import Backend, Feature
from prover.lean.language import LEAN

BACKEND = Backend(
    name="leandojo",
    aliases=("lean",),
    environment="prover.lean.env:LeanDojoEnvironment",
    language=LEAN,
    checker="Lean (LeanDojo's re-run of the proof)",
    template_sets={"lean": "prover.lean.templates:TEMPLATES"},
    benchmark_families=("minif2f", "proofnet", "leandojo-sample", "leandojo"),
    features={Feature.TRACE: "prover.lean.trace_command:TRACER"},
)
