"""Adversarial tests of the axioms a project file declares before the theorem being proved.

coqchk's summary lists every axiom of the checked library, the theorem's own file text before it
included, used or not. A project file with one ``Admitted`` lemma made every later theorem of the
file unprovable ("not proved (assumes Foo.B.add_zero_right)" for ``reflexivity``), so
fill-admitted could fill at most the first admitted lemma of a file. Such an axiom is now refused
only when the proof may use it: where any entry ``Print Assumptions`` prints ends in its label
(prover.coq.verify.refused_axioms). Every refusal test below passes before and after that change
(a proof that *does* use the file's own axiom, however it reaches it); every honest test fails
before it. Each names, in its docstring, the breakage it catches.
"""

from __future__ import annotations

import pytest

from coq_projects import make_project
from generator import FixedTacticGenerator
from prover.coq.context import adhoc_theorem
from prover.coq.env import CoqEnvironment
from prover.coq.verify import ASSUMES_REFUSED, STATEMENT_NEEDS, WHATEVER_THE_PROOF
from prover.proof_search import BestFirstSearchProver
from search_tree import Status, linear_proof
from search_tree.events import TacticRun

pytestmark = [pytest.mark.coq]

SIGNATURE = "Module Type T.\nParameter f : 0 = 1.\nEnd T.\n"


@pytest.fixture
def own_file(tmp_path, private_cache):
    """An environment on a fresh project whose ``C.v`` holds ``text`` (``A.v``: ``other``), and
    the theorem of ``C.v`` whose name is ``target`` or ends in ``.target``."""
    opened = []

    def open_project(text: str, other: str = "Lemma unrelated : True.\nProof. exact I. Qed.\n"):
        root = make_project(tmp_path / f"proj{len(opened)}", {"A.v": other, "C.v": text}, flags="-Q . P")
        env = CoqEnvironment(tactic_timeout=5, memory_limit_mb=2048, project=str(root))
        opened.append(env)
        found = [t for t in (*env.index.admitted(), *env.index.theorems())
                 if t.file_path == "C.v" and (t.full_name == "target" or t.full_name.endswith(".target"))]
        assert len(found) == 1, [t.full_name for t in (*env.index.admitted(), *env.index.theorems())]
        return env, found[0]

    yield open_project
    for env in opened:
        env.close()


def refused_naming(verdict, *names: str) -> None:
    assert not verdict.ok, verdict
    assert verdict.message.startswith(ASSUMES_REFUSED), verdict.message
    for name in names:
        assert name in verdict.message, verdict.message


TARGET = "Lemma target : 0 = 1.\nAdmitted.\n"

# (the file's text before the target, the proof, a name the refusal must give)
USES = {
    "exact": ("Lemma helper : 0 = 1.\nAdmitted.\n", ["exact helper."], "P.C.helper"),
    "apply": ("Lemma helper : forall n : nat, n = S n.\nAdmitted.\n", ["apply helper."], "P.C.helper"),
    "rewrite": ("Lemma helper : 1 = 0.\nAdmitted.\n", ["rewrite helper.", "reflexivity."], "P.C.helper"),
    "transitive through a Qed lemma": (
        "Lemma helper : 0 = 1.\nAdmitted.\nLemma via : 0 = 1.\nProof. exact helper. Qed.\n"
        "Definition again : 0 = 1 := via.\n", ["exact again."], "P.C.helper"),
    "Hint Resolve and auto": ("Lemma helper : 0 = 1.\nAdmitted.\n#[export] Hint Resolve helper : core.\n",
                              ["auto."], "P.C.helper"),
    "admitted Instance found by typeclass resolution": (
        "Class Bad := bad : 0 = 1.\n#[export] Instance i : Bad.\nAdmitted.\n", ["exact bad."], "P.C.i"),
    "notation": ("Lemma helper : 0 = 1.\nAdmitted.\nNotation cheat := helper.\n", ["exact cheat."], "P.C.helper"),
    "module": ("Module M.\nLemma x : 0 = 1.\nAdmitted.\nEnd M.\n", ["exact M.x."], "P.C.M.x"),
    "module alias": ("Module M.\nLemma x : 0 = 1.\nAdmitted.\nEnd M.\nModule N := M.\n", ["exact N.x."], "P.C.M.x"),
    "Axiom": ("Axiom bad : 0 = 1.\n", ["exact bad."], "P.C.bad"),
    "Parameter": ("Parameter bad : 0 = 1.\n", ["exact bad."], "P.C.bad"),
    "Conjecture": ("Conjecture bad : 0 = 1.\n", ["exact bad."], "P.C.bad"),
    "Declare Module field": (SIGNATURE + "Declare Module D : T.\n", ["exact D.f."], "P.C.D.f"),
    "Declare Module field through a functor application": (
        SIGNATURE + "Module F (X : T).\nDefinition g : 0 = 1 := X.f.\nEnd F.\nDeclare Module D : T.\nModule N := F D.\n",
        ["exact N.g."], "P.C.D.f"),
    "Include of a module type": (SIGNATURE + "Module M.\nInclude T.\nEnd M.\n", ["exact M.f."], "P.C.M.f"),
    "Admit Obligations of Program": (
        "Require Import Program.\nProgram Definition pd : { n : nat | 0 = 1 } := 0.\nAdmit Obligations.\n",
        ["exact (proj2_sig pd)."], "pd_obligation_1"),
    "same short name as a proved lemma of another module": (
        "Module M.\nAxiom helper : 0 = 1.\nEnd M.\nModule N.\nLemma helper : True.\nProof. exact I. Qed.\nEnd N.\n",
        ["exact M.helper."], "P.C.M.helper"),
    "admitted lemma hidden by a sealed module": (
        "Module Type S.\nParameter g : 0 = 1.\nEnd S.\nModule M : S.\nLemma h0 : 0 = 1.\nAdmitted.\n"
        "Definition g := h0.\nEnd M.\n", ["exact M.g."], "h0"),
}


@pytest.mark.parametrize("case", sorted(USES))
def test_a_proof_through_an_own_axiom_is_refused(own_file, case):
    """Each proof reaches an axiom the theorem's own file declares before it (directly, through a
    later lemma, a hint, an instance, a notation, a module, a declared module or a functor
    application, Program's obligations, a sealed module). Fails if any is reported proved: each
    printed ``status: proved`` for ``0 = 1``."""
    before, proof, name = USES[case]
    env, target = own_file(before + TARGET)
    refused_naming(env.verify(target, linear_proof(proof)), name)


def test_an_own_admitted_lemma_inside_a_section_is_refused_where_used(own_file):
    """The admitted lemma, an axiom and the theorem share a section still open in the check.
    Fails if a proof through either passes."""
    env, target = own_file("Section S.\nVariable n : nat.\nLemma helper : n = S n.\nAdmitted.\n"
                           "Axiom also : 0 = 1.\nLemma target : n = S n.\nAdmitted.\nEnd S.\n")
    refused_naming(env.verify(target, linear_proof(["exact helper."])), "P.C.helper")
    refused_naming(env.verify(target, linear_proof(["discriminate also."])), "P.C.also")


def test_an_own_axiom_named_classic_is_never_the_trusted_one(own_file):
    """The file declares its own ``classic`` (the stdlib's trusted name), with and without the
    stdlib's loaded beside it. Fails if a proof through it passes, or if the stdlib's ``classic``
    is accepted while the file's own carries the same label (either could be the one printed)."""
    statement = "Lemma target : forall P : Prop, ~ ~ P -> P.\nAdmitted.\n"
    classical = ["intros P H.", "destruct (classic P) as [p|n].", "exact p.", "contradiction."]
    own = "Axiom classic : forall P : Prop, P \\/ ~ P.\n"
    env, target = own_file(own + statement)
    refused_naming(env.verify(target, linear_proof(classical)), "P.C.classic")
    env, target = own_file("Require Import Coq.Logic.Classical.\n" + own + statement)
    refused_naming(env.verify(target, linear_proof(classical)), "P.C.classic")
    env, target = own_file(own + "Require Import Coq.Logic.Classical.\n" + statement)
    verdict = env.verify(target, linear_proof(["intros P H.", "destruct (Coq.Logic.Classical_Prop.classic P) as [p|n].",
                                               "exact p.", "contradiction."]))
    refused_naming(verdict, "P.C.classic")


def test_a_declared_module_of_an_open_module_is_refused_where_used(own_file):
    """``Declare Module E`` inside the module still open at the theorem: there ``E`` is one of the
    open module's parameters (``CoqContext.module_parameters``), yet once the module closes
    ``E.f`` is an axiom of the summary. Fails if ``exact E.f.`` proves ``0 = 1``: should ``E.f``
    ever pass for a parameter's field (today ``Locate Module E`` and exact matching inside a
    module keep it unresolved), its label still refuses it."""
    env, target = own_file(SIGNATURE + "Module Outer.\nDeclare Module E : T.\n" + TARGET + "End Outer.\n")
    refused_naming(env.verify(target, linear_proof(["exact E.f."])), "P.C.Outer.E.f")


def test_an_axiom_of_the_same_label_in_another_file_is_still_told_apart(own_file):
    """The file's own admitted ``helper`` and another file's: Fails if the proof through either passes."""
    env, target = own_file("Require Import P.A.\nModule M.\nLemma helper : 0 = 1.\nAdmitted.\nEnd M.\n" + TARGET,
                           other="Lemma helper : 0 = 1.\nAdmitted.\n")
    refused_naming(env.verify(target, linear_proof(["exact M.helper."])), "P.C.M.helper")
    refused_naming(env.verify(target, linear_proof(["exact helper."])), "P.A.helper")


# -- honest proofs after an unused axiom of the file: each failed before ----------------------------

HONEST = {
    "after an admitted lemma": "Lemma helper : 0 = 1.\nAdmitted.\n",
    "after an Axiom and a Parameter": "Axiom bad : False.\nParameter n : nat.\n",
    "after a Declare Module": SIGNATURE + "Declare Module D : T.\n",
    "after Admit Obligations": "Require Import Program.\nProgram Definition pd : { n : nat | 0 = 1 } := 0.\n"
                               "Admit Obligations.\n",
    "inside a module after its admitted lemma": "Module M.\nLemma x : 0 = 1.\nAdmitted.\n",
    "through a Qed lemma beside the admitted one": "Lemma helper : 0 = 1.\nAdmitted.\nLemma good : 2 = 2.\n"
                                                   "Proof. reflexivity. Qed.\n",
}


@pytest.mark.parametrize("case", sorted(HONEST))
def test_an_honest_proof_after_an_unused_own_axiom_is_proved(own_file, case):
    """Fails if an axiom of the theorem's own file that the proof does not use refuses it (every
    theorem after the first ``Admitted`` of a file was unprovable, and fill-admitted could fill only
    the first admitted lemma of each file)."""
    closing = "End M.\n" if case.startswith("inside a module") else ""
    env, target = own_file(HONEST[case] + "Lemma target : 2 = 2.\nAdmitted.\n" + closing)
    proof = ["exact good."] if "Qed lemma" in case else ["reflexivity."]
    verdict = env.verify(target, linear_proof(proof))
    assert verdict.ok and verdict.axioms == (), verdict


def test_an_honest_proof_inside_a_section_after_its_admitted_lemma_is_proved(own_file):
    """Fails if the section's admitted lemma, unused, refuses the proof of a later lemma of the section."""
    env, target = own_file("Section S.\nVariable n : nat.\nLemma helper : n = S n.\nAdmitted.\n"
                           "Lemma target : n = n.\nAdmitted.\nEnd S.\n")
    verdict = env.verify(target, linear_proof(["reflexivity."]))
    assert verdict.ok and verdict.axioms == (), verdict


HINTED = ("Require Import Lia.\nLemma helper : forall n : nat, n + 0 = n.\nAdmitted.\n"
          "#[export] Hint Resolve helper : core.\n")


@pytest.mark.parametrize("where", ["own file", "another file"])
def test_the_search_goes_on_past_a_proof_through_an_admitted_hint(own_file, where):
    """``auto`` closes the goal through a ``Hint Resolve`` to an admitted lemma (of the theorem's
    own file, or of another file it imports) before ``lia`` is tried. Fails if the search ends
    there (failed: verification_failed, with most of its time left) instead of refusing that step
    and going on to the honest proof."""
    statement = "Lemma target : forall n : nat, n + 0 = n.\nAdmitted.\n"
    if where == "own file":
        env, target = own_file(HINTED + statement)
    else:
        env, target = own_file("Require Import Lia P.A.\n" + statement, other=HINTED)
    outcomes: list[str | None] = []
    gen = FixedTacticGenerator([("auto.", -0.1), ("lia.", -2.0)])
    result = BestFirstSearchProver(gen, timeout=60, num_sampled_tactics=2).search(
        env, target, on_event=lambda e: outcomes.append(e.outcome if isinstance(e, TacticRun) else None))
    assert result.status == Status.PROVED, (outcomes, result.stop_reason)
    assert "refused" in outcomes and "lia." in result.script and "auto" not in result.script, (outcomes, result.script)


def test_the_search_still_ends_where_no_proof_can_pass(private_cache):
    """An ad-hoc statement's prelude axiom is refused whether used or not, so every proof of it is.
    Fails if the search goes on re-checking proof after proof instead of ending on the first,
    failed, with the refusal that says so."""
    outcomes: list[str | None] = []
    gen = FixedTacticGenerator([("exact I.", -0.1), ("constructor.", -2.0)])
    with CoqEnvironment(tactic_timeout=5, memory_limit_mb=2048) as env:
        result = BestFirstSearchProver(gen, timeout=60, num_sampled_tactics=2).search(
            env, adhoc_theorem("Lemma t : True.", ["Axiom cheat : False."]),
            on_event=lambda e: outcomes.append(e.outcome if isinstance(e, TacticRun) else None))
    assert result.status == Status.FAILED and result.stop_reason.detail is not None, result
    assert result.stop_reason.detail.startswith("not proved (assumes DojoScratch.cheat)"), result.stop_reason
    assert WHATEVER_THE_PROOF in result.stop_reason.detail and "refused" not in outcomes, (outcomes, result.stop_reason)


# -- a statement that itself needs the file's own axiom: no proof can pass ----------------------------

STATED = {
    # (the file's text up to the target's statement, a proof, the axiom the statement needs)
    "a Parameter in the statement": ("Parameter a : nat.\nLemma target : a = a.\n", ["reflexivity."], "P.C.a"),
    "through a definition's body": ("Parameter P : Prop.\nAxiom bad : P.\nDefinition Q := True -> P.\n"
                                    "Lemma target : Q.\n", ["intros _.", "exact bad."], "P.C.P"),
    "through an admitted lemma in the statement": ("Lemma helper : 0 = 1.\nAdmitted.\n"
                                                   "Lemma target : helper = helper.\n", ["reflexivity."], "P.C.helper"),
}


@pytest.mark.parametrize("case", sorted(STATED))
def test_a_refusal_the_statement_itself_needs_says_no_proof_can_avoid_it(own_file, case):
    """The statement's own meaning needs an axiom of its file (``Print Assumptions`` of the
    check's ``dojo_<nonce>_meaning``), so every proof is refused for it. Fails if such a refusal is
    not marked as one no proof can avoid (the search then refused proof after proof until its
    timeout), names another axiom, or if the proof passes."""
    before, proof, name = STATED[case]
    env, target = own_file(before + "Admitted.\n")
    verdict = env.verify(target, linear_proof(proof))
    refused_naming(verdict, name)
    assert f"{STATEMENT_NEEDS} {name}" in verdict.message, verdict.message


def test_only_a_statement_that_itself_needs_an_own_axiom_marks_the_refusal(own_file):
    """``exact helper.`` for ``helper : a = a`` prints ``helper``, not ``a`` (``Print Assumptions``
    does not read an axiom's type), yet the statement needs ``a``: no proof can pass, and the
    refusal says so, naming ``a``. Where the statement needs nothing of the file's (``0 = 1``),
    the same proof is refused without the mark: another proof may avoid ``helper``, and the search
    goes on (``test_the_search_goes_on_past_a_proof_through_an_admitted_hint``)."""
    env, target = own_file("Parameter a : nat.\nLemma helper : a = a.\nAdmitted.\nLemma target : a = a.\nAdmitted.\n")
    verdict = env.verify(target, linear_proof(["exact helper."]))
    refused_naming(verdict, "P.C.helper")
    assert verdict.message.endswith(f"{STATEMENT_NEEDS} P.C.a"), verdict.message
    env, target = own_file("Lemma helper : 0 = 1.\nAdmitted.\nLemma target : 0 = 1.\nAdmitted.\n")
    verdict = env.verify(target, linear_proof(["exact helper."]))
    refused_naming(verdict, "P.C.helper")
    assert STATEMENT_NEEDS not in verdict.message, verdict.message


def test_the_search_ends_at_once_where_the_statement_itself_needs_an_own_axiom(own_file):
    """``Parameter a : nat.`` then ``Lemma target : a = a.``: every proof is refused for ``a``.
    Fails if the search refuses proof after proof until its timeout (a review: 38 tactics in 30 s,
    ``open``) instead of ending on the first, failed, with the refusal that says why."""
    env, target = own_file("Parameter a : nat.\nLemma target : a = a.\nAdmitted.\n")
    outcomes: list[str | None] = []
    gen = FixedTacticGenerator([("reflexivity.", -0.1), ("auto.", -1.0), ("easy.", -2.0)])
    result = BestFirstSearchProver(gen, timeout=60, num_sampled_tactics=3).search(
        env, target, on_event=lambda e: outcomes.append(e.outcome if isinstance(e, TacticRun) else None))
    assert result.status == Status.FAILED and result.stop_reason.detail.startswith("not proved (assumes P.C.a)"), result
    assert STATEMENT_NEEDS in result.stop_reason.detail and "refused" not in outcomes, (outcomes, result.stop_reason)
    assert result.total_time < 30, result.total_time


def test_a_statement_whose_meaning_cannot_be_elaborated_still_proves(own_file):
    """``Lemma target@{u} : ...``: the meaning's ``Definition`` misreads the universe binder, and
    coqc rejects the file with it. Fails if the probe of what the statement needs (in a project's
    file, where nothing else pins the meaning) costs the honest proof instead of being dropped."""
    env, target = own_file("Lemma target@{u} : Type@{u} -> True.\nAdmitted.\n")
    verdict = env.verify(target, linear_proof(["intros _.", "exact I."]))
    assert verdict.ok, verdict
