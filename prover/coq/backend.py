"""The Coq backend as one object: what ``prover/coq/`` gives the rest of the library."""

from __future__ import annotations

from prover.backend import Backend, Feature
from prover.coq.language import COQ

BACKEND = Backend(
    name="coq",
    environment="prover.coq.env:CoqEnvironment",
    language=COQ,
    checker="coqc and coqchk",
    trusted="only the axioms of prover/coq/trusted_axioms.py",
    library="Coq stdlib",
    proof_frame=("Proof.", "Qed."),
    qualified_name="prover.coq.records:qualified_name",
    axioms="prover.coq.verify:uses",
    generators={
        "automation": "prover.coq.templates:automation_generator",
        "coq_hammer": "prover.coq.hammer_generator:HammerGenerator",
        "coq_default": "prover.coq.default_generator:coq_default",
    },
    template_sets={
        "coq": "prover.coq.templates:TEMPLATES",
        "coq:BASELINE": "prover.coq.templates:BASELINE",
        "coq:HAMMER": "prover.coq.templates:HAMMER",
        "coq:FITTED": "prover.coq.templates:FITTED",
    },
    benchmark_families={
        "coq-stdlib": "prover.coq.stdlib:stdlib_theorems",  # coq-stdlib:train|val|test
        "coq-project": "prover.coq.split:coq_project_benchmark",  # coq-project:PATH[:train|val|test]
        "coq-lib": "prover.coq.split:coq_lib_benchmark",  # coq-lib:NAME[:train|val|test]
    },
    theorem_lists="prover.coq.split:listed_theorems",
    prover_version="prover.coq.install:coq_version",
    learned_preset="prover.coq.presets:default_config",
    node_needs="prover.coq.nodes:NODE_NEEDS",
    features={
        Feature.PRESET: "prover.coq.presets:default_config",
        Feature.BASELINE: "prover.coq.presets:baseline_config",
        Feature.STATEMENT: "prover.coq.context:adhoc_theorem",
        Feature.SUGGEST: "prover.coq.templates:automation_generator",
        Feature.FILL: "prover.coq.fill_command:FILLER",
        Feature.TRACE: "prover.coq.trace_command:TRACER",
        Feature.DEMO_THEOREMS: "prover.coq.split:short_theorems",
        Feature.COMPARISON: "prover.coq.presets:hammer_alone",
        Feature.DEFAULT_TRACE: "prover.coq.first_trace:trace_untraced",
    },
)
