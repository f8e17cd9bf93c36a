"""The leak check on the proof: CoqHammer loaded for a stdlib theorem whose own module it loads,
and verification refusing a proof whose term uses that module's compiled copy (real coqtop, coqc,
coqchk, CoqHammer and libcoq-dpdgraph)."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from prover.coq import dependencies
from prover.coq.env import CoqEnvironment
from prover.coq.sentences import split_sentences
from prover.coq.verify import COMPILED_COPY, verification_source, verify_proof
from search_tree import ProofFinished, linear_proof

pytestmark = [pytest.mark.coq]
REFUSED = "a theorem may not be proved from itself or from the lemmas after it"


@pytest.fixture(scope="module")
def env():
    with CoqEnvironment(tactic_timeout=10, additions=("hammer",)) as environment:
        yield environment


def refusal(copy: str, direct: str, count: int, leaked: str) -> str:
    return (f"not proved: the proof {COMPILED_COPY}, {copy}, which the context additions load: it uses {direct}, "
            f"which is or depends on {count} object(s) of that copy ({leaked}); {REFUSED}")


@pytest.mark.parametrize("tactic, direct, count, leaked", [
    # the compiled copy of the theorem itself
    ("exact (Coq.Lists.List.app_nil_r l).", "List.app_nil_r", 1, "List.app_nil_r"),
    # a later lemma of its file, itself proved from the theorem
    ("symmetry; apply Coq.Lists.List.app_nil_end.", "List.app_nil_end", 2, "List.app_nil_end, List.app_nil_r"),
])
def test_a_proof_from_the_compiled_copy_of_its_own_module_is_refused(env, tactic, direct, count, leaked):
    """``Coq.Lists.List.app_nil_r`` opened with CoqHammer (which loads the compiled List): the search
    can close it with the compiled copy of itself or of a later lemma, and verification refuses
    both, naming what they use. Fails if the file is still opened under its own name (coqtop
    refuses to load Hammer there), or if such a proof is reported."""
    theorem = env.theorem("Coq.Lists.List.app_nil_r")
    context = env.context(theorem)
    assert (context.module, context.compiled_copy) == ("DojoReopened.Coq.Lists.List", "Coq.Lists.List")
    assert "From Hammer Require Import Hammer." in context.additions
    with env.open(theorem) as (session, state):
        assert isinstance(session.run_tac(state, tactic), ProofFinished)
    verdict = verify_proof(context, linear_proof([tactic]))
    assert (verdict.ok, verdict.message) == (False, refusal("Coq.Lists.List", direct, count, leaked))


def test_hauto_given_the_compiled_copy_is_refused_and_a_real_proof_is_accepted(env):
    """Through the environment, as a search's proof is checked: ``hauto use:`` with the compiled
    copy is refused (with CoqHammer's ``Tactics`` alone and with all the additions), while
    ``induction l; sauto.`` checks, printed with the addition it needs. Fails if the check
    refuses every proof of a reopened file, or lets the copy through a reconstruction tactic."""
    theorem = env.theorem("Coq.Lists.List.app_nil_r")
    leaked = env.verify(theorem, linear_proof(["hauto use: Coq.Lists.List.app_nil_r."]))
    assert (leaked.ok, leaked.message) == (False, refusal("Coq.Lists.List", "List.app_nil_r", 1, "List.app_nil_r"))
    proved = env.verify(theorem, linear_proof(["induction l; sauto."]))
    assert (proved.ok, proved.message) == (True, "coqc and coqchk accepted the proof; Closed under the global context")
    assert proved.script.splitlines() == [
        "(* context addition, before the statement: From Hammer Require Import Tactics. *)", "induction l; sauto."]


def test_a_leak_through_another_module_loaded_by_the_addition_is_refused(env):
    """``Nat.lt_succ_r`` of ``Coq.Arith.PeanoNat``: CoqHammer loads ``Arith_prebase``, whose
    ``lt_n_Sm_le_stt``/``le_lt_n_Sm_stt`` are the compiled ``Nat.lt_succ_r``'s two halves (and
    ``arith`` hints). A proof naming them, and ``split; auto with arith.`` naming nothing, both
    reach the compiled copy through them. Fails if dependencies are read from the script or
    only one level deep."""
    theorem = env.theorem("Coq.Arith.PeanoNat.Nat.lt_succ_r")
    context = env.context(theorem)
    assert context.compiled_copy == "Coq.Arith.PeanoNat"
    named = verify_proof(context, linear_proof(["split; [apply Coq.Arith.Arith_prebase.lt_n_Sm_le_stt | "
                                                "apply Coq.Arith.Arith_prebase.le_lt_n_Sm_stt]."]))
    halves = "Arith_prebase.le_lt_n_Sm_stt, Arith_prebase.lt_n_Sm_le_stt"
    assert (named.ok, named.message) == (False, refusal("Coq.Arith.PeanoNat", halves, 1, "PeanoNat.Nat.lt_succ_r"))
    hinted = verify_proof(context, linear_proof(["split; auto with arith."]))
    assert not hinted.ok and hinted.message.startswith(
        f"not proved: the proof {COMPILED_COPY}, Coq.Arith.PeanoNat, which the context additions load: it uses "
        "Arith_prebase."), hinted.message


def test_the_check_not_running_refuses_the_proof(env, monkeypatch):
    """The plugin missing (its library name made unloadable): a proof that checks otherwise is
    not reported, and the message names the package. Fails if the check fails open."""
    monkeypatch.setattr(dependencies, "PLUGIN", "dpdgraph_not_installed_xyz.dpdgraph")
    context = env.context(env.theorem("Coq.Lists.List.app_nil_r"))
    verdict = verify_proof(context, linear_proof(["induction l; sauto."]))
    assert not verdict.ok
    assert verdict.message.startswith("not proved: the check that the proof does not use the compiled copy of "
                                      "Coq.Lists.List (which the context additions load) could not run (coqc exited 1: "
                                      "Error: Cannot find a physical path bound to logical path"), verdict.message
    assert verdict.message.endswith("it needs the Debian package libcoq-dpdgraph")


def test_a_theorem_whose_module_the_additions_do_not_load_pays_nothing(env):
    """``Permutation_app_comm``: CoqHammer does not load ``Coq.Sorting.Permutation``, so the file
    keeps its name and verification runs no dependency check. Fails if every theorem is reopened."""
    context = env.context(env.theorem("Coq.Sorting.Permutation.Permutation_app_comm"))
    assert (context.module, context.compiled_copy) == ("Coq.Sorting.Permutation", "")
    assert "Locate" not in verification_source(context, "auto.", "dojo_00", "report")


def test_an_axiom_of_the_replayed_file_is_the_librarys_own():
    """``lowerCutBelow`` of ``Coq.Reals.ClassicalDedekindReals``, whose own text declares the
    trusted axiom ``sig_forall_dec`` and which ``psatz`` loads compiled: the library's proof,
    checked in the reopened file, is accepted and said to use the library's axiom. Fails if the
    replayed declaration counts as an untrusted axiom, or the loaded copy's makes the name
    ambiguous (both seen before the summary was read as the replayed file's)."""
    source = (Path(subprocess.run(["coqc", "-where"], capture_output=True, text=True, check=True).stdout.strip())
              / "theories" / "Reals" / "ClassicalDedekindReals.v").read_text()
    body = source[source.index("Lemma lowerCutBelow"):]
    body = body[body.index("Proof.") + len("Proof."):body.index("Qed.")]
    with CoqEnvironment(tactic_timeout=10, additions=("psatz",)) as env:
        context = env.context(env.theorem("Coq.Reals.ClassicalDedekindReals.lowerCutBelow"))
        assert context.compiled_copy == "Coq.Reals.ClassicalDedekindReals"
        verdict = verify_proof(context, linear_proof([s.text.strip() for s in split_sentences(body, "proof")]))
    assert (verdict.ok, verdict.message, verdict.axioms) == (
        True, "coqc and coqchk accepted the proof; it uses sig_forall_dec (Coq.Reals.ClassicalDedekindReals)",
        ("Coq.Reals.ClassicalDedekindReals.sig_forall_dec",))
