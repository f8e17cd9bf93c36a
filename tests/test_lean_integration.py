"""A real LeanDojo search, where a Lean toolchain is installed (elan: `lean` on PATH).

It traces LeanDojo's own example repository (small, no Mathlib: minutes on first run, then cached),
proves ``hello_world`` with best-first search, and re-checks the proof with LeanDojo.
"""

from __future__ import annotations

import shutil

import pytest

from generator import FixedTacticGenerator
from prover.proof_search import BestFirstSearchProver
from search_tree import ErrorKind, Status, TacticError, Theorem

pytestmark = [
    pytest.mark.lean,
    pytest.mark.slow,
    pytest.mark.skipif(shutil.which("lean") is None or shutil.which("lake") is None,
                       reason="needs a Lean 4 toolchain (`lean` and `lake` on PATH; install elan) and network "
                              "access to GitHub to trace yangky11/lean4-example"),
]

URL = "https://github.com/yangky11/lean4-example"
COMMIT = "7b6ecb9ad4829e4e73600a3329baeb3b5df8d23f"
HELLO = Theorem("hello_world", "Lean4Example.lean", extra={"url": URL, "commit": COMMIT})


@pytest.mark.timeout(3600)
def test_best_first_search_proves_hello_world_and_verifies():
    from prover.lean.env import LeanDojoEnvironment

    env = LeanDojoEnvironment(tactic_timeout=60)
    with env.open(HELLO) as (session, init):
        assert init.num_goals == 1 and [h.name for h in init.goals[0].hypotheses] == ["a", "b", "c"]
        refused = session.run_tac(init, "sorry")
        assert isinstance(refused, TacticError) and refused.kind == ErrorKind.REFUSED
        assert session.run_tac(init, "exact foo_bar_baz").kind == ErrorKind.ERROR

    generator = FixedTacticGenerator([("rw [add_assoc]", -0.5), ("rw [add_comm b]", -0.7), ("simp", -3.0),
                                      ("rw [← add_assoc]", -1.0), ("rw [add_assoc, add_comm b, ←add_assoc]", -2.0)])
    result = BestFirstSearchProver(generator, timeout=600, max_expansions=20, num_sampled_tactics=5).search(env, HELLO)
    assert result.status == Status.PROVED, result.stop_reason
    assert result.script.startswith("by") or "hello_world" in result.script
    # a wrong proof is rejected by the independent check
    from search_tree import linear_proof
    assert not env.verify(HELLO, linear_proof(["rfl"])).ok
