"""The leak check on real coqtop, coqc, coqchk, CoqHammer and coq-dpdgraph.

``Coq.Lists.List.app_nil_r`` is reopened under ``DojoReopened.Coq.Lists.List`` because CoqHammer's
``Tactics`` loads the compiled ``Coq.Lists.List``, which holds ``app_nil_r`` itself. The
adversarial proof ``hauto use: Coq.Lists.List.app_nil_r`` proves the theorem with its own compiled
copy: the search step is refused and so is the final check; an honest proof by induction is
accepted by both. The compiled copy of a later lemma (``app_nil_end``) is refused as well, and
that of an earlier one (``app_nil_r`` for the later ``app_nil_end``) is accepted: its reopened
twin is in the theorem's own context.
"""

from __future__ import annotations

import pytest

from generator.fixed import FixedTacticGenerator
from prover.coq.additions import hammer_filter
from prover.coq.env import CoqEnvironment
from prover.coq.verify import LEAK_REFUSED, LEAK_UNCHECKED
from prover.proof_search import BestFirstSearchProver
from search_tree import ErrorKind, ProofFinished, Status, StopKind, TacticError, TacticState, linear_proof

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


def test_the_compiled_copy_of_a_later_lemma_is_refused_and_of_an_earlier_one_accepted(env):
    """``app_nil_end`` comes right after ``app_nil_r`` in List.v. Fails if a proof of ``app_nil_r``
    through the compiled later lemma passes, or if a proof of ``app_nil_end`` through the compiled
    earlier one (whose reopened twin the theorem's context has) is refused."""
    later = env.verify(env.theorem("Coq.Lists.List.app_nil_r"),
                       linear_proof(["intros; symmetry; apply Coq.Lists.List.app_nil_end."]))
    assert not later.ok and later.message.startswith(LEAK_REFUSED), later.message
    assert "List.app_nil_end" in later.message, later.message
    earlier = env.verify(env.theorem("Coq.Lists.List.app_nil_end"),
                         linear_proof(["symmetry; apply Coq.Lists.List.app_nil_r."]))
    assert earlier.ok, earlier.message
    assert "From Hammer Require Import Tactics." in earlier.script


def test_another_modules_lemma_counts_by_the_compiled_objects_it_reaches(env):
    """Modules loaded only through CoqHammer: ``Coq.micromega.Refl.make_impl_map`` is stated with the
    compiled ``List.map``, declared after ``app_nil_r``, so a proof of ``app_nil_r`` that mentions
    it depends on a later object although the script names nothing of ``Coq.Lists``;
    ``Coq.setoid_ring.BinList.jump_tl`` reaches only the compiled ``List.tl``, declared before
    ``app_nil_r``, and is accepted. Fails if dependencies are read from the script's names or
    only one level deep, or if any use of a compiled object is refused."""
    theorem = env.theorem("Coq.Lists.List.app_nil_r")
    verdict = env.verify(theorem, linear_proof(["pose proof Coq.micromega.Refl.make_impl_map as H.", "intros.",
                                                HONEST]))
    assert not verdict.ok and verdict.message.startswith(LEAK_REFUSED), verdict.message
    assert "List.map" in verdict.message and "List.tl" not in verdict.message, verdict.message
    honest = env.verify(theorem, linear_proof(["pose proof Coq.setoid_ring.BinList.jump_tl as H.", "intros.",
                                               HONEST]))
    assert honest.ok, honest.message


def test_the_search_goes_on_past_a_refused_proof(env):
    """The leaking tactic is proposed first on every state; the search still finds the honest proof.
    Fails if a refused proof ends the search or is reported as the proof."""
    prover = BestFirstSearchProver(FixedTacticGenerator([(LEAKING, -0.1), ("intros.", -0.5), (HONEST, -1.0)]),
                                   timeout=120, num_sampled_tactics=3)
    result = prover.search(env, env.theorem("Coq.Lists.List.app_nil_r"))
    assert result.status == Status.PROVED, result.stop_reason
    assert "Coq.Lists.List.app_nil_r" not in result.script and "sauto" in result.script, result.script


def test_auto_through_the_compiled_hints_of_an_earlier_lemma_is_accepted_and_of_the_theorem_refused(env):
    """The compiled List puts ``app_assoc`` into the ``datatypes`` hints, a database that List.v's own
    text creates only after both lemmas below; ``auto with datatypes`` proves them only through those hints. For
    ``app_assoc_reverse`` it uses the compiled ``app_assoc``, declared before it (accepted); for
    ``app_assoc`` itself, the compiled ``app_assoc`` (refused). Fails if honest hint use is
    refused, or if the proof goes through without the compiled hints at all."""
    proof = linear_proof(["intros; auto with datatypes."])
    with CoqEnvironment(tactic_timeout=10) as bare:
        without = bare.verify(bare.theorem("Coq.Lists.List.app_assoc_reverse"), proof)
    assert not without.ok and "No such Hint database: datatypes" in without.message, without.message
    honest = env.verify(env.theorem("Coq.Lists.List.app_assoc_reverse"), proof)
    assert honest.ok, honest.message
    own = env.verify(env.theorem("Coq.Lists.List.app_assoc"), proof)
    assert not own.ok and own.message.startswith(LEAK_REFUSED) and "List.app_assoc," in own.message, own.message


def test_a_dependency_graph_not_written_fails_the_check(env, monkeypatch):
    """coqc accepts the file but no graph is printed (as when dpdgraph is missing its command): the
    check fails, it does not pass for want of evidence."""
    import prover.coq.verify as verify

    monkeypatch.setattr(verify, "graph_sentences", lambda *args: ("Require dpdgraph.dpdgraph.",))
    verdict = env.verify(env.theorem("Coq.Lists.List.app_nil_r"), linear_proof(["intros.", HONEST]))
    assert not verdict.ok, verdict.message
    assert verdict.message.startswith(f"{LEAK_UNCHECKED}: its dependencies could not be read"), verdict.message
    assert "wrote no dependency graph" in verdict.message, verdict.message


def test_plus_n_O_by_auto_through_the_compiled_f_equal_nat_is_accepted_and_by_itself_refused():
    """Init/Peano.v's ``plus_n_O`` by ``induction n; simpl; auto``: ``auto`` finds the compiled
    ``Coq.Init.Peano.f_equal_nat`` (declared before it, with a reopened twin) through the compiled
    module's hints. Init's files are compiled ``-noinit`` and are offered no addition today, so the
    reopened context is built here as the environment builds any other. Fails if the honest proof
    is refused, or if the compiled ``plus_n_O`` itself passes."""
    from prover.coq.additions import addition, with_additions
    from prover.coq.context import file_context
    from prover.coq.reopened import reopen
    from prover.coq.verify import verify_proof

    with CoqEnvironment(tactic_timeout=10) as bare:
        theorem = bare.theorem("Coq.Init.Peano.plus_n_O")
        context = reopen(with_additions(file_context(theorem, bare.index, False), addition("hammer-tactics").sentences))
    assert context.module == "DojoReopened.Coq.Init.Peano"
    honest = verify_proof(context, linear_proof(["induction n; simpl; auto."]))
    assert honest.ok, honest.message
    own = verify_proof(context, linear_proof(["intros; apply Coq.Init.Peano.plus_n_O."]))
    assert not own.ok and own.message.startswith(LEAK_REFUSED) and "Peano.plus_n_O" in own.message, own.message


def test_a_theorem_of_a_functor_is_checked_although_its_compiled_module_has_no_object(env):
    """``NZOrder.v`` holds only module types and functors: dpdgraph prints no object of the compiled
    module, so nothing of it can be in a term. Fails if every proof of its theorems in the reopened
    context is refused for want of a graph (as ``order`` was, costing the default such theorems)."""
    from prover.coq.reopened import compiled_module
    from prover.coq.verify import verify_proof

    context = env.context(env.theorem("Coq.Numbers.NatInt.NZOrder.NZOrderProp.lt_neq"))
    assert compiled_module(context) == "Coq.Numbers.NatInt.NZOrder"
    verdict = verify_proof(context, linear_proof(["intros n m H.", "order."]))
    assert verdict.ok, verdict.message


def test_the_search_refuses_a_proof_exactly_when_the_final_check_does(env, monkeypatch):
    """With no dependency graph written, a proof that needs no addition is still a proof: the final
    check takes it in the theorem's own context, where no compiled copy is loaded, and so must the
    search. One that needs CoqHammer's tactics goes through the reopened context, where the leak
    check cannot run: not a refused step (every later proof would be refused the same way until the
    search's time ran out) but the end of the search, whose final check says why. Fails if the
    search checks every proof in the reopened context (and stops on this one), or goes on refusing
    proofs for a fault of the checker's environment."""
    import prover.coq.verify as verify

    monkeypatch.setattr(verify, "graph_sentences", lambda *args: ("Require dpdgraph.dpdgraph.",))
    theorem = env.theorem("Coq.Lists.List.app_nil_r")
    plain = "induction l; simpl; congruence."
    assert env.verify(theorem, linear_proof(["intros.", plain])).ok
    with env.open(theorem) as (session, state):
        intro = session.run_tac(state, "intros.")
        assert isinstance(intro, TacticState), intro
        assert isinstance(session.run_tac(intro, plain), ProofFinished)
        assert isinstance(session.run_tac(intro, HONEST), ProofFinished)
    prover = BestFirstSearchProver(FixedTacticGenerator([("intros.", -0.5), (HONEST, -1.0)]), timeout=120,
                                   num_sampled_tactics=2)
    result = prover.search(env, theorem)
    assert result.status == Status.FAILED and result.stop_reason.kind == StopKind.VERIFICATION_FAILED, result.stop_reason
    assert result.stop_reason.detail.startswith(LEAK_UNCHECKED) and "wrote no dependency graph" in result.stop_reason.detail
    assert result.total_time < 60, result.total_time  # ended on the first proof, not at the timeout


def test_hammer_in_a_reopened_context_searches_only_what_the_theorems_file_could_load():
    """``hammer`` on ``Nat.leb_le`` used to find ``srun eauto use: PeanoNat.Nat.leb_le`` (the
    theorem's compiled copy) and, with that module alone withheld, ``Compare_dec.leb_correct``
    (a later library proved with it): both spent the call on a proof the leak check refuses.
    Fails if the filter misses the module or a library built on it, withholds an earlier one,
    reaches the checked file, or if ``hammer`` still comes back with a leaking proof; or if it
    keeps ``hammer`` from an honest proof (``tail_mul_spec``, through the reopened twins)."""
    withheld = hammer_filter(("hammer",), "Coq.Arith.PeanoNat")
    assert {"Add Hammer Filter Coq.Arith.PeanoNat.", "Add Hammer Filter Coq.Arith.Compare_dec."} <= set(withheld)
    assert "Add Hammer Filter Coq.Init.Peano." not in withheld and "Add Hammer Filter Coq.Bool.Bool." not in withheld
    with CoqEnvironment(tactic_timeout=10, additions=("hammer",), hammer_timeout=40) as env:
        theorem = env.theorem("Nat.leb_le")
        context = env.context(theorem)
        assert context.prefix[-len(withheld):] == withheld and not set(withheld) & set(context.additions)
        with env.open(theorem) as (session, state):
            found = session.run_tac(state, "hammer.")
            assert not (isinstance(found, TacticError) and found.message.startswith(LEAK_REFUSED)), found
        honest = env.theorem("Nat.tail_mul_spec")
        with env.open(honest) as (session, state):
            assert isinstance(session.run_tac(state, "hammer."), ProofFinished)
