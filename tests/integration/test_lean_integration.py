"""A real LeanDojo search, where a Lean toolchain is installed (elan: `lean` on PATH).

It traces LeanDojo's own example repository (small, no Mathlib: minutes on first run, then cached),
proves ``hello_world`` with best-first search and, split into two goals, with MCTS and ``·``
bullets, and re-checks both with the default checker (:func:`prover.lean.check.check_proof`: the file
up to the theorem, the proof and ``#print axioms``). Skipped where Lean is absent
(as on the development machine): these tests have not been run there.
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


# hello_world's goal, split in two by an explicit middle term (no metavariable): two goals to focus
SPLIT = "apply Eq.trans (b := a + (b + c))"
FIRST, SECOND = "rw [add_assoc]", "rw [add_comm b, ← add_assoc]"


@pytest.mark.timeout(3600)
def test_two_goal_proof_with_bullets_passes_the_final_check():
    """A two-goal proof, found by MCTS with goal focusing and written with ``·`` bullets, is accepted
    by the default checker (:func:`prover.lean.check.check_proof`, no ``proof_checker`` given), which
    reads its axioms from Lean's ``#print axioms`` and reports the repository's header; the same proof
    with its branches swapped is rejected.

    Fails if the bullets are rendered wrongly for Lean (indentation, order of branches), if ``verify``
    stops calling the project's checker by default, or if that checker cannot read real Lean's
    ``#print axioms`` line (it would then refuse every proof).
    """
    from prover.lean.check import TRUSTED_AXIOMS, check_proof
    from prover.lean.env import LeanDojoEnvironment
    from prover.proof_search import MCTSProver
    from search_tree import ProofStep

    env = LeanDojoEnvironment(tactic_timeout=60)
    assert env.proof_checker is check_proof  # the project's checker, not a stand-in
    with env.open(HELLO) as (session, init):
        split = session.run_tac(init, SPLIT)
        assert split.num_goals == 2, split.pp
    generator = FixedTacticGenerator([(SPLIT, -0.5), (FIRST, -1.0), (SECOND, -1.5)])
    result = MCTSProver(generator, timeout=600, max_env_calls=60, num_sampled_tactics=3).search(env, HELLO)
    assert result.status == Status.PROVED, result.stop_reason
    assert result.stats["and_nodes"] >= 1 and "·" in result.script, result.script
    good = (ProofStep(SPLIT, ((ProofStep(FIRST),), (ProofStep(SECOND),))),)
    swapped = (ProofStep(SPLIT, ((ProofStep(SECOND),), (ProofStep(FIRST),))),)
    accepted = env.verify(HELLO, good)
    assert accepted.ok, accepted.message
    assert set(accepted.axioms) <= TRUSTED_AXIOMS and "axioms:" in accepted.message
    assert "theorem hello_world" in accepted.script and accepted.script.endswith(f"· {SECOND}")
    rejected = env.verify(HELLO, swapped)
    assert not rejected.ok and "Lean rejected the proof" in rejected.message
