"""What a cluster node must have to run the Coq backend, asked of the backend (``Backend.node_needs``)
and checked against this machine, which has it all."""

from __future__ import annotations

import pytest

from prover.coq.sandbox import HAMMER_LIBEXEC
from prover.registry import ComponentSpec, ProverConfig
from prover.run.nodes import requirements, shortfalls, survey


@pytest.mark.coq
def test_a_coq_run_with_hammer_needs_coq_the_atps_and_hammers_library():
    """Fails if a node is not asked for Coq's programs, or, with ``hammer``, for CoqHammer's ATPs,
    helpers and library, or for the additions this Coq accepts; or if this machine, which runs Coq
    and CoqHammer, is found lacking."""
    config = ProverConfig(ComponentSpec("coq", {"additions": ["hammer", "lia"]}), ComponentSpec("best_first"),
                          ComponentSpec("fixed", {"tactics": ["auto."]}))
    req = requirements(config)
    assert [program for program, _ in req.tools] == [
        "coqtop", "coqc", "coqchk", "eprover", "cvc4", f"{HAMMER_LIBEXEC}/htimeout", f"{HAMMER_LIBEXEC}/predict"]
    assert all(version for program, version in req.tools if "/" not in program)
    assert req.additions == ("hammer", "lia") and [lib.rsplit("/", 1)[1] for lib, _ in req.libraries] == ["Hammer"]
    assert shortfalls(req, survey(req)) == []
    plain = requirements(ProverConfig(ComponentSpec("coq"), ComponentSpec("best_first"), ComponentSpec("fixed")))
    assert [program for program, _ in plain.tools] == ["coqtop", "coqc", "coqchk"] and not plain.libraries
    assert not requirements(ProverConfig(ComponentSpec("synthetic"), ComponentSpec("best_first"),
                                         ComponentSpec("synthetic"))).tools
