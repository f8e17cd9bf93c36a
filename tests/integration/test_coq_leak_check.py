"""The leak check on real coqtop, coqc, coqchk, CoqHammer and coq-dpdgraph.

``Coq.Lists.List.app_nil_r`` is reopened under ``DojoReopened.Coq.Lists.List`` because CoqHammer's
``Tactics`` loads the compiled ``Coq.Lists.List``, which holds ``app_nil_r`` itself. The
adversarial proof ``hauto use: Coq.Lists.List.app_nil_r`` proves the theorem with its own compiled
copy: the search step is refused and so is the final check; an honest proof by induction is
accepted by both.
"""

from __future__ import annotations

import pytest

from generator.fixed import FixedTacticGenerator
from prover.coq.env import CoqEnvironment
from prover.coq.verify import LEAK_REFUSED
from prover.proof_search import BestFirstSearchProver
from search_tree import ErrorKind, ProofFinished, Status, TacticError, TacticState, linear_proof

pytestmark = [pytest.mark.coq]
LEAKING = "hauto use: Coq.Lists.List.app_nil_r."
HONEST = "induction l; sauto."


@pytest.fixture(scope="module")
def env():
    with CoqEnvironment(tactic_timeout=10, additions=("hammer-tactics",)) as env:
        yield env


def test_a_step_proving_the_theorem_with_its_compiled_copy_is_refused_and_an_honest_one_finishes(env):
    """Fails if the leaking step finishes the proof (the search would report a leak), if the refusal
    is a hard error rather than a refused step, or if an honest step is refused."""
    theorem = env.theorem("Coq.Lists.List.app_nil_r")
    with env.open(theorem) as (session, state):
        refused = session.run_tac(state, LEAKING)
        assert isinstance(refused, TacticError) and refused.kind == ErrorKind.REFUSED, refused
        assert refused.message.startswith(LEAK_REFUSED) and "List.app_nil_r" in refused.message, refused.message
        assert "of the compiled Coq.Lists.List" in refused.message, refused.message
        intro = session.run_tac(state, "intros.")
        assert isinstance(intro, TacticState), intro
        assert isinstance(session.run_tac(intro, HONEST), ProofFinished)


def test_the_final_check_refuses_the_leaking_proof_and_accepts_the_honest_one(env):
    """The verification reads the dependencies by itself, whatever the search said. Fails if the
    leaking proof passes coqc and coqchk unrefused, or if the honest one is not checked by both."""
    theorem = env.theorem("Coq.Lists.List.app_nil_r")
    leaking = env.verify(theorem, linear_proof([LEAKING]))
    assert not leaking.ok and leaking.message.startswith(LEAK_REFUSED), leaking.message
    honest = env.verify(theorem, linear_proof(["intros.", HONEST]))
    assert honest.ok, honest.message
    assert honest.message.startswith("coqc and coqchk accepted the proof")
    assert "From Hammer Require Import Tactics." in honest.script


def test_a_proof_reaching_the_compiled_module_through_another_module_is_refused(env):
    """``Coq.setoid_ring.BinList`` is loaded only through CoqHammer and is stated with the compiled
    ``List.tl``: a proof that mentions one of its lemmas depends on the compiled module through it,
    although the script names nothing of ``Coq.Lists``. Fails if dependencies are read from the
    script's names or only one level deep."""
    theorem = env.theorem("Coq.Lists.List.app_nil_r")
    verdict = env.verify(theorem, linear_proof(["pose proof Coq.setoid_ring.BinList.jump_tl as H.", "intros.",
                                                HONEST]))
    assert not verdict.ok and verdict.message.startswith(LEAK_REFUSED), verdict.message
    assert "tl" in verdict.message, verdict.message


def test_the_search_goes_on_past_a_refused_proof(env):
    """The leaking tactic is proposed first on every state; the search still finds the honest proof.
    Fails if a refused proof ends the search or is reported as the proof."""
    prover = BestFirstSearchProver(FixedTacticGenerator([(LEAKING, -0.1), ("intros.", -0.5), (HONEST, -1.0)]),
                                   timeout=120, num_sampled_tactics=3)
    result = prover.search(env, env.theorem("Coq.Lists.List.app_nil_r"))
    assert result.status == Status.PROVED, result.stop_reason
    assert "Coq.Lists.List.app_nil_r" not in result.script and "sauto" in result.script, result.script
