"""Step 4: the toy backend as one object, for :func:`prover.backends.register`."""

from __future__ import annotations

from prover.backend import Backend, Feature
from toy_backend.language import TOY

BACKEND = Backend(
    name="toy",
    environment="toy_backend.env:ToyEnvironment",
    language=TOY,
    checker="a replay of the tactics",
    proof_frame=("proof", "end"),
    template_sets={"toy": "toy_backend.templates:TEMPLATES"},
    benchmark_families={"toy": "toy_backend.env:benchmark"},
    features={Feature.PRESET: "toy_backend.env:preset", Feature.TRACE: "toy_backend.tracer:TRACER"},
)
