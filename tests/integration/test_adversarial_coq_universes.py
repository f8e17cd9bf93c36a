"""Adversarial tests of the universe check of the final check (prover.coq.final_universes).

The check compiles the theorem's file up to its statement, so it cannot see what the rest of the
development imposes on universes. A proof may add universe relations (``exists A`` adds ``u <=
v``) that a later file contradicts (``v < u``, then Hurkens' paradox proves ``False`` from the
lemma): such a proof was reported "proved, no axioms". Now the relations a proof adds must be
consistent with the development's final universe graph. The attack test fails before; the honest
ones fail under the WIP rule that refused every new relation (branch ``univ``).
"""

from __future__ import annotations

import pytest

from coq_projects import make_project
from generator import FixedTacticGenerator
from prover.coq.env import CoqEnvironment
from prover.coq.final_universes import UNIVERSES_REFUSED
from prover.proof_search import BestFirstSearchProver
from search_tree import Status, linear_proof
from search_tree.events import TacticRun

pytestmark = [pytest.mark.coq]

# a later file: Hurkens' paradox at Type@{v}, an element of Type@{u}, so v < u, and target is
# refutable (`boom` proves False from target); the check file ends at target, without this file
HURKENS_LATER = """Require Import Coq.Logic.Hurkens P.A.
Module Later.
Section Paradox.
Let U := Type@{v}.
Variable A : U.
Hypothesis h : U = A.
Let down (X : U) : A := @eq_rect _ _ (fun X => X) X _ h.
Let up (X : A) : U := @eq_rect_r _ _ (fun X => X) X _ h.
Lemma up_down : forall (X : U), up (down X) = X.
Proof. unfold up, down. rewrite <- h. reflexivity. Qed.
Theorem paradox : False.
Proof.
  Generic.paradox p.
  + exact U.
  + exact (fun X => X).
  + cbn. exact (fun X F => forall x : X, F x).
  + cbn. exact (fun _ _ x => x).
  + cbn. exact (fun _ _ x => x).
  + exact (fun F => forall x : A, F (up x)).
  + cbn. exact (fun _ f => fun x : A => f (up x)).
  + cbn. intros * f X. specialize (f (down X)). rewrite up_down in f. exact f.
  + exact A.
  + cbn. exact up.
  + cbn. exact (fun _ F => down (forall x, up (F x))).
  + cbn. exact (fun _ F => down (forall x, up (F x))).
  + cbn. exact (down False).
  + rewrite up_down in p. exact p.
  + cbn. easy.
  + cbn. intros ? f X. destruct (up_down X). cbn. reflexivity.
  + cbn. intros ? ? f. rewrite up_down. exact f.
  + cbn. intros ? ? f. rewrite up_down in f. exact f.
  + cbn. intros ? ? f. rewrite up_down. exact f.
  + cbn. intros ? ? f. rewrite up_down in f. exact f.
Qed.
End Paradox.
End Later.
Lemma boom : False.
Proof. destruct (target Type@{v}) as [B e]. exact (Later.paradox B e). Qed.
"""
TARGET = "Universes u v.\nLemma target : forall A : Type@{u}, exists B : Type@{v}, A = B.\nAdmitted.\n"
REFUTED = ["intros A.", "exists A.", "reflexivity."]


@pytest.fixture
def project_env(tmp_path, private_cache):
    """An environment on a fresh project written from ``files``, and its ``target``."""
    opened = []

    def open_project(files: dict[str, str]):
        root = make_project(tmp_path / f"proj{len(opened)}", files, flags="-Q . P")
        env = CoqEnvironment(tactic_timeout=5, memory_limit_mb=2048, project=str(root))
        opened.append(env)
        return env, next(t for t in (*env.index.admitted(), *env.index.theorems()) if t.full_name == "target")

    yield open_project
    for env in opened:
        env.close()


@pytest.mark.parametrize("later", [HURKENS_LATER, "Require Import P.A.\nDefinition lift : Type@{u} := Type@{v}.\n",
                                   "Require Import P.A.\nConstraint v < u.\n"], ids=["hurkens", "definition", "constraint"])
def test_a_proof_the_development_refutes_is_not_proved(project_env, later):
    """Fails if ``exists A`` (which adds ``u <= v``) proves ``target`` while a later file imposes
    ``v < u`` (and, with Hurkens' paradox, proves ``False`` from ``target``): it was "proved, no
    axioms"."""
    env, target = project_env({"A.v": TARGET, "B.v": later})
    verdict = env.verify(target, linear_proof(REFUTED))
    assert not verdict.ok, verdict
    assert verdict.message.startswith(UNIVERSES_REFUSED), verdict.message
    assert "contradicts" in verdict.message and "u <= " in verdict.message, verdict.message


@pytest.mark.parametrize("files", [
    {"A.v": TARGET + "Constraint v < u.\n"},
    {"A.v": "Lemma target : forall A : Type, exists B : Type, A = B.\nAdmitted.\n",
     "B.v": "Require Import P.A.\nConstraint target.u1 < target.u0.\n"},
], ids=["later in its own file", "on the statement's own universes"])
def test_a_proof_the_development_refutes_elsewhere_is_not_proved(project_env, files):
    """The contradiction in the theorem's own file after it; or on the statement's own (anonymous,
    named after the lemma) universes, which the check matches through the declared lemma's type.
    Fails if ``exists A`` proves ``target``."""
    env, target = project_env(files)
    verdict = env.verify(target, linear_proof(REFUTED))
    assert not verdict.ok, verdict
    assert verdict.message.startswith(UNIVERSES_REFUSED) and "contradicts" in verdict.message, verdict.message


def test_the_same_proof_is_proved_where_nothing_contradicts_it(project_env):
    """Fails if the check refuses ``u <= v`` where the development imposes nothing against it
    (the WIP rule refused every relation the statement does not impose)."""
    env, target = project_env({"A.v": TARGET, "B.v": "Require Import P.A.\nDefinition lift : Type@{v} := Type@{u}.\n"})
    verdict = env.verify(target, linear_proof(REFUTED))
    assert verdict.ok, verdict.message


@pytest.mark.parametrize("declared, tactics", [
    ("Lemma target : forall (A : Type) (l : list A), app l nil = l.\nAdmitted.\n",
     ["intros A l.", "induction l as [|a l IH].", "reflexivity.", "simpl.", "f_equal.", "exact IH."]),
    ("Lemma target : forall (A : Type) (l : list A), app l nil = l.\nAdmitted.\n",
     ["intros A l.", "induction l as [|a l IH].", "reflexivity.", "simpl.", "rewrite IH.", "reflexivity."]),
    ("Section S.\nVariable A : Type.\nLemma target : forall (l : list A), app l nil = l.\nAdmitted.\nEnd S.\n",
     ["intros l.", "induction l as [|a l IH].", "reflexivity.", "simpl.", "rewrite IH.", "reflexivity."]),
    ("Universes u v.\nConstraint u < v.\nLemma target : forall A : Type@{u}, exists B : Type@{v}, A = B.\nAdmitted.\n",
     REFUTED),
    ("Polymorphic Lemma target : forall (A : Type) (x : A), exists B : Type, x = x.\nAdmitted.\n",
     ["intros A x.", "exists nat.", "reflexivity."]),
])
def test_honest_proofs_with_universes_are_proved(project_env, declared, tactics):
    """Fails if the universe check refuses an honest proof: ``f_equal`` and ``rewrite`` relate the
    statement's ``Type`` to the monomorphic universes of ``f_equal``/``eq_ind_r`` (the WIP refused
    both), in a section too (the variable's universe is an earlier one of the file, matched
    through the declared lemma's type); a relation declared before the statement; a polymorphic
    statement's fresh universes."""
    env, target = project_env({"A.v": declared, "B.v": "Require Import P.A.\nLemma other : True.\nProof. exact I. Qed.\n"})
    verdict = env.verify(target, linear_proof(tactics))
    assert verdict.ok, verdict.message


CAST = ["pose (fun X : Type@{u} => (X : Type@{v})).", "exact I."]


@pytest.mark.parametrize("declared, tactics", [
    ("Universes u v.\nPolymorphic Lemma target : True.\nAdmitted.\n", CAST),
    ("Universes u v.\n#[universes(polymorphic)] Lemma target : True.\nAdmitted.\n", CAST),
    ("Universes u v.\nSet Universe Polymorphism.\nLemma target : True.\nAdmitted.\n", CAST),
], ids=["Polymorphic", "attribute", "Set Universe Polymorphism"])
def test_a_polymorphic_lemma_s_relations_on_global_universes_are_checked(project_env, declared, tactics):
    """A universe-polymorphic lemma that binds no universe of its own keeps the relations its proof
    adds between global universes in its own context (``target@{} : True`` then ``(* |= u <= v
    *)``), not in the global graph. Fails if the proof adding ``u <= v`` is proved while a later file
    imposes ``v < u``: the check read no context where the bound list is empty (audit, stop 34)."""
    env, target = project_env({"A.v": declared, "B.v": "Require Import P.A.\nConstraint v < u.\n"})
    verdict = env.verify(target, linear_proof(tactics))
    assert not verdict.ok, verdict
    assert verdict.message.startswith(UNIVERSES_REFUSED) and "contradicts" in verdict.message, verdict.message


def test_a_polymorphic_statement_s_universes_are_not_made_equal(project_env):
    """Fails if ``exists A`` proves the polymorphic ``forall A : Type@{i}, exists B : Type@{j}, A =
    B``: it makes ``i <= j``, which the declared lemma does not impose, and an instance ``j < i``
    is then refutable."""
    env, target = project_env({"A.v": "Polymorphic Lemma target@{i j} : forall A : Type@{i}, exists B : Type@{j}, A = B."
                                      "\nAdmitted.\n"})
    verdict = env.verify(target, linear_proof(REFUTED))
    assert not verdict.ok, verdict
    assert verdict.message.startswith(UNIVERSES_REFUSED) and "polymorphic" in verdict.message, verdict.message


def test_the_search_goes_on_past_a_proof_the_development_refutes(project_env):
    """``exists A`` adds ``u <= v``, which the later file contradicts; ``exists unit`` adds nothing.
    Fails if the search ends on the first (failed, with most of its time left) instead of
    refusing that step and going on to the second."""
    env, target = project_env({"A.v": "Universes u v.\nLemma target : forall A : Type@{u}, exists B : Type@{v}, B = B.\n"
                                      "Admitted.\n", "B.v": "Require Import P.A.\nConstraint v < u.\n"})
    outcomes: list[str | None] = []
    gen = FixedTacticGenerator([("intros A.", -0.1), ("exists A.", -0.2), ("reflexivity.", -0.3), ("exists unit.", -3.0)])
    result = BestFirstSearchProver(gen, timeout=60, num_sampled_tactics=4).search(
        env, target, on_event=lambda e: outcomes.append(e.outcome if isinstance(e, TacticRun) else None))
    assert result.status == Status.PROVED, (outcomes, result.stop_reason)
    assert "refused" in outcomes and "exists unit." in result.script, (outcomes, result.script)


def test_a_stdlib_proof_that_adds_a_relation_is_checked_against_the_stdlib(private_cache):
    """``map_id`` (``forall (A : Type) (l : list A), map (fun x => x) l = l``) proved with a detour
    through ``existT`` at ``Type``, which adds ``A``'s universe ``< sigT.u0``: the stdlib's final
    graph is built once (every compiled stdlib module loaded), cached, and the relation found
    consistent. Fails if the honest proof is refused, or the graph is not cached."""
    from prover.coq.final_universes import cache_path

    tactics = ["intros A l.", "pose proof (existT (fun T : Type => T) (list A) l) as _.",
               "induction l as [|a l IH].", "reflexivity.", "simpl.", "rewrite IH.", "reflexivity."]
    with CoqEnvironment(tactic_timeout=5, memory_limit_mb=2048) as env:
        theorem = env.theorem("Coq.Lists.List.map_id")
        verdict = env.verify(theorem, linear_proof(tactics))
        assert verdict.ok, verdict.message
        assert list(cache_path("x").parent.glob("*.json")), "the stdlib's universe graph was not cached"
        verdict = env.verify(theorem, linear_proof(tactics))
        assert verdict.ok, verdict.message


# -- printings the check could not match (ExtLib, RelationAlgebra), now read ------------------------

_REWRITE = ["intros l.", "induction l as [|a l IH].", "reflexivity.", "simpl.", "rewrite IH.", "reflexivity."]


@pytest.mark.parametrize("declared, tactics", [
    # a constant of the section, which gains the section's variable once it closes (ExtLib's ForallV_vector_In)
    ("Section S.\nVariable A : Type.\nDefinition app_nil (l : list A) := app l nil.\n"
     "Lemma target : forall l : list A, app_nil l = l.\nAdmitted.\nEnd S.\n", ["unfold app_nil.", *_REWRITE]),
    # ... unapplied, and with implicit arguments (RelationAlgebra's o_sup)
    ("Section S.\nContext {A : Type}.\nDefinition nils : list A := nil.\nDefinition app_nil (l : list A) := app l nils.\n"
     "Lemma target : forall l : list A, app_nil l = app l nils.\nAdmitted.\nEnd S.\n",
     ["intros l.", "unfold app_nil.", "rewrite (eq_refl : nils = nil).", "reflexivity."]),
    # an own universe no printing shows, the sort of a match's return predicate (ExtLib's hlist_eta, vector_eta)
    ("Lemma target : forall (A : Type) (n : nat) (l : list A), l = match n as n0 return (forall _ : list A, list A) "
     "with O => fun l => l | S _ => fun l => l end l.\nAdmitted.\n",
     ["intros A n l.", "destruct n.", "reflexivity.", "reflexivity."]),
])
def test_honest_proofs_the_printings_hid_are_proved(project_env, declared, tactics):
    """Fails if the universe check refuses these honest proofs for how Coq prints their statements:
    each was refused ("the declared lemma binds _", "two printings of the statement differ",
    "universes of the statement do not appear in its type") before."""
    env, target = project_env({"A.v": declared, "B.v": "Require Import P.A.\nLemma other : True.\nProof. exact I. Qed.\n"})
    verdict = env.verify(target, linear_proof(tactics))
    assert verdict.ok, verdict.message


_ATTACKED = "Require Import P.A.\nConstraint v < u.\n"
_UNDERSCORE = ("Universes u v.\nSection S.\nVariable A : Type@{u}.\nHypothesis H : inhabited A.\n"
               "Lemma target : exists B : Type@{v}, A = B.\nProof. destruct H as [_]. Admitted.\nEnd S.\n")


def test_a_proof_on_a_kept_variable_printed_underscore_is_compared(project_env):
    """The declared lemma keeps ``H``, which nothing in its type depends on: ``About`` prints it
    ``(_ : inhabited A)``. ``exists A`` adds ``u <= v``, which the later file allows. Fails if the
    proof is refused ("the declared lemma binds _, which is not a variable of its section")."""
    env, target = project_env({"A.v": _UNDERSCORE,
                               "B.v": "Require Import P.A.\nDefinition lift : Type@{v} := Type@{u}.\n"})
    verdict = env.verify(target, linear_proof(["exists A.", "reflexivity."]))
    assert verdict.ok, verdict.message


@pytest.mark.parametrize("declared, tactics", [
    (_UNDERSCORE, ["exists A.", "reflexivity."]),
    ("Universes u v.\nSection S.\nVariable A : Type@{u}.\nDefinition same (B : Type@{v}) := A = B.\n"
     "Lemma target : exists B : Type@{v}, same B.\nAdmitted.\nEnd S.\n", ["exists A.", "reflexivity."]),
    ("Universes u v.\nLemma target : forall A : Type@{u}, exists B : Type@{v}, A = B /\\ nil = match 0 as n0 return "
     "(forall _ : list A, list A) with O => fun l => l | S _ => fun l => l end nil.\nAdmitted.\n",
     ["intros A.", "exists A.", "split; reflexivity."]),
    ("Polymorphic Lemma target@{u v +} : forall A : Type@{u}, exists B : Type@{v}, A = B /\\ nil = match 0 as n0 "
     "return (forall _ : list A, list A) with O => fun l => l | S _ => fun l => l end nil.\nAdmitted.\n",
     ["intros A.", "exists A.", "split; reflexivity."]),
], ids=["underscore binder", "section constant", "hidden universe", "hidden universe, polymorphic"])
def test_a_refuted_proof_is_refused_in_the_printings_now_read(project_env, declared, tactics):
    """``exists A`` adds ``u <= v``, which the later file contradicts, in each shape the check now
    reads (a kept section variable printed ``_``, a section-local constant, an own universe no
    printing shows); on a polymorphic statement's universes it is refused whatever the development
    says. Fails if it is proved, or refused for not being read."""
    env, target = project_env({"A.v": declared, "B.v": _ATTACKED if "Universes" in declared else "Require Import P.A.\n"})
    verdict = env.verify(target, linear_proof(tactics))
    assert not verdict.ok, verdict
    assert verdict.message.startswith(UNIVERSES_REFUSED), verdict.message
    assert ("polymorphic" if "Polymorphic" in declared else "contradicts") in verdict.message, verdict.message
