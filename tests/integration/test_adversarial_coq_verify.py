"""Adversarial tests of the Coq final check (prover.coq.verify) and of ad-hoc preludes (context).

Every test runs the real coqc and coqchk. Each names, in its docstring, the breakage of the code
it protects that makes it fail. Contexts built directly with :class:`CoqContext` skip the prelude
allow-list on purpose: they show that the kernel re-check holds even for text the allow-list would
have refused.
"""

from __future__ import annotations


import pytest

import prover.coq.verify as verify
from prover.coq.context import ADHOC_MODULE, CoqContext, adhoc_context, adhoc_theorem, theorem_name
from prover.coq.env import CoqEnvironment
from search_tree import linear_proof

pytestmark = [
    pytest.mark.coq,
]

VECTOR_1 = ["assert (H : nat -> False).", "fix f 1.", "exact f.",
            "transparent_abstract (exact (False_ind _ (H 0))) using bad; intros"]


@pytest.fixture(scope="module")
def env():
    with CoqEnvironment(tactic_timeout=1, memory_limit_mb=2048) as env:
        yield env


def check(env, statement, prelude, tactics):
    return env.verify(adhoc_theorem(statement, prelude), linear_proof(tactics))


def raw(prelude: str, statement: str) -> CoqContext:
    """An ad-hoc context whose prelude skipped the allow-list (text a user could not pass)."""
    return CoqContext(key="raw", name=theorem_name(statement), statement=statement, prefix=(prelude,),
                      source_prefix=prelude, module=ADHOC_MODULE, trusted_prefix=False)


@pytest.fixture
def without_policy(monkeypatch):
    """Verification with the tactic policy switched off and the tactics written as given: what the
    kernel check alone must catch (defence in depth; the policy refuses these tactics up front)."""
    monkeypatch.setattr(verify, "check_tactic", lambda tactic: None)
    monkeypatch.setattr(verify, "render_proof", lambda proof: "\n".join(s.tactic for s in proof))


def assumes(verdict, *names):
    assert not verdict.ok, verdict
    assert verdict.message.startswith("not proved (assumes "), verdict.message
    for name in names:
        assert name in verdict.message, verdict.message


# -- vector 1: the script must be exactly what was checked, and coqc must exit 0 -------------------

def test_vector1_dotless_last_tactic_swallowing_qed_is_rejected_by_coqc_exit_status(env, without_policy):
    """Fails if coqc's exit status is ignored: the tactics are written as given, so the last one
    reads ``intros Qed.``, the proof stays open, so the theorem's constant never exists."""
    verdict = check(env, "Lemma bad : 0 = 1.", [], VECTOR_1)
    assert not verdict.ok and "coqc rejected the proof (exit 1)" in verdict.message, verdict
    assert "The reference dojo_" in verdict.message and "was not found" in verdict.message  # no Qed closed it


def test_vector1_through_the_real_renderer_is_not_proved(env):
    """Fails if any path lets the ill-guarded ``fix`` or the unclosed proof through verify_proof."""
    verdict = check(env, "Lemma bad : 0 = 1.", [], VECTOR_1)
    assert not verdict.ok and verdict.message.startswith(("coqc rejected the proof", "refused tactic")), verdict


def test_vector1_on_a_stdlib_theorem_is_not_proved(env):
    """Fails if coqc's exit status is ignored for stdlib contexts (Zrem_0_r was "proved")."""
    verdict = env.verify(env.theorem("Zrem_0_r"), linear_proof(VECTOR_1))
    assert not verdict.ok and verdict.message.startswith(("coqc rejected the proof", "refused tactic")), verdict


def test_script_that_aborts_and_proves_another_lemma_is_rejected(env, monkeypatch):
    """Fails if the assumptions are taken about a name the script can know (the user's ``bad``):
    the script aborts the statement and proves ``bad : True`` instead; our ``Qed`` closes that."""
    monkeypatch.setattr(verify, "render_proof", lambda proof: "Abort.\nLemma bad : True.\nProof.\nexact I.")
    verdict = check(env, "Lemma bad : False.", [], ["exact I."])
    assert not verdict.ok and "coqc rejected the proof" in verdict.message and "dojo_" in verdict.message, verdict


def test_transparent_abstract_using_the_theorem_name_cannot_stand_in(env, without_policy):
    """Fails if the check is about the user's name: the tactic makes a constant ``bad`` of its own."""
    verdict = check(env, "Lemma bad : nat -> True.", [], ["transparent_abstract (exact (fun _ => I)) using bad."])
    assert verdict.ok, verdict  # honest: the abstracted constant is kernel-checked, the theorem proved
    cheat = check(env, "Lemma bad : nat -> False.", [],
                  ["transparent_abstract (exact (fun _ => I)) using bad.", "exact (fun _ => bad 0)."])
    assert not cheat.ok and "coqc rejected the proof" in cheat.message, cheat


def test_every_check_uses_a_fresh_name_and_report_file(monkeypatch, env):
    """Fails if the theorem name or report file is predictable (the same in two checks)."""
    seen = []
    real = verify.verification_source
    monkeypatch.setattr(verify, "verification_source",
                        lambda ctx, script, name, report, *rest:
                        seen.append((name, report)) or real(ctx, script, name, report, *rest))
    for _ in range(2):
        assert check(env, "Lemma t : True.", [], ["exact I."]).ok
    (n1, r1), (n2, r2) = seen
    assert n1 != n2 and r1 != r2 and n1.startswith("dojo_") and n1[5:] in r1


# -- vectors 2-4: Goal, modules hiding behind stdlib names, pre-written reports -----------------------

def test_vector2_goal_statement_with_admitted_helper_names_the_helper(env):
    """Fails if a ``Goal`` takes the name ``False`` (the old name regex) or skips the axiom check."""
    verdict = check(env, "Goal False.", ["Lemma helper : False.", "Admitted."], ["exact helper."])
    assumes(verdict, "DojoScratch.helper")


def test_vector3_declared_module_behind_a_stdlib_name_is_an_assumption(env):
    """Fails if axioms are matched by suffix: ``DojoScratch.Int._0`` ends like a stdlib name."""
    verdict = check(env, "Lemma f : False.",
                    ["Require Import Coq.ZArith.Int.", "Declare Module Int : Int with Definition t := Empty_set."],
                    ["destruct Int._0."])
    assumes(verdict, "DojoScratch.Int._0")


def test_vector4_prewritten_assumptions_file_is_refused_and_useless(env):
    """Fails if a prelude may Redirect, or if a pre-written ``assumptions.out`` is read as the report."""
    with pytest.raises(ValueError, match=r"prelude sentence 'Redirect .*'Redirect' is not allowed"):
        adhoc_theorem("Lemma f : nat -> False.", ['Redirect "assumptions" Print Assumptions I.'])
    ctx = raw('Redirect "assumptions" Print Assumptions I.', "Lemma f : nat -> False.")
    verdict = verify.verify_proof(ctx, linear_proof(["fix f 1.", "exact f."]))
    assert not verdict.ok and "coqc rejected the proof" in verdict.message and "ill-formed" in verdict.message


# -- axioms in preludes: named exactly, never taken for the library's --------------------------------

def test_prelude_axiom_named_like_a_stdlib_axiom_is_not_the_stdlib_one(env):
    """Fails if a prelude ``classic`` is allowed because Coq.Logic.Classical_Prop.classic exists."""
    verdict = check(env, "Lemma em : forall P : Prop, P \\/ ~ P.", ["Axiom classic : forall P : Prop, P \\/ ~ P."],
                    ["exact classic."])
    assumes(verdict, "DojoScratch.classic")
    assert "Coq.Logic" not in verdict.message


def test_stdlib_axiom_is_allowed_by_qualified_name(env):
    """Fails if the library's own axioms are refused or reported unqualified."""
    verdict = check(env, "Lemma em : forall P : Prop, P \\/ ~ P.", ["Require Import Classical."], ["exact classic."])
    assert verdict.ok and verdict.axioms == ("Coq.Logic.Classical_Prop.classic",), verdict


@pytest.mark.parametrize("prelude, tactic, name", [
    (["Parameter p : False."], "destruct p.", "DojoScratch.p"),
    (["Conjecture c : False."], "destruct c.", "DojoScratch.c"),
    (["Module Type T.", "Parameter p : False.", "End T.", "Declare Module M : T."], "destruct M.p.", "DojoScratch.M.p"),
    (["Module Type T.", "Parameter p : False.", "End T.", "Module N : T.", "Lemma p : False.", "Admitted.", "End N."],
     "destruct N.p.", "DojoScratch.N.p"),
    (["Section S.", "Hypothesis H : False.", "Lemma h : False.", "Proof.", "exact H.", "Qed.", "End S.",
      "Lemma g : False.", "Admitted."], "destruct g.", "DojoScratch.g"),
])
def test_prelude_assumptions_make_the_proof_not_proved(env, prelude, tactic, name):
    """Fails if parameters, conjectures, declared or sealed module fields, or admitted lemmas of a
    prelude are accepted, or named other than by their qualified name."""
    assumes(check(env, "Lemma f : 1 = 2.", prelude, [tactic]), name)


def test_unused_prelude_axiom_still_counts(env):
    """Fails if the check trusts Print Assumptions alone: coqchk's summary covers the whole
    library, so an axiom in the context is named even when the proof does not use it (fail closed)."""
    assumes(check(env, "Lemma t : True.", ["Axiom unused : False."], ["exact I."]), "DojoScratch.unused")


# -- context additions: what they import must not change what the statement says ---------------------

@pytest.fixture(scope="module")
def env_with_ring():
    with CoqEnvironment(tactic_timeout=2, memory_limit_mb=2048, additions=["ring", "psatz"]) as env:
        yield env


SHADOWED = "Definition IDphi (x : nat) : nat := 0."  # Ring_theory, which ArithRing imports, has IDphi x := x


@pytest.mark.parametrize("statement", ["Lemma l : IDphi 5 = 5.", "Goal IDphi 5 = 5.", "Lemma l (n : nat) : IDphi n = n.",
                                       "Theorem l : forall n : nat, IDphi n = n."])
def test_an_addition_that_shadows_a_name_of_the_statement_cannot_prove_another_statement(env_with_ring, statement):
    """Fails if the final check lets the additions before the statement decide what it means (the
    pin of prover.coq.verify, 5.): with Ring_theory's IDphi, each of these false statements is
    proved by reflexivity."""
    verdict = check(env_with_ring, statement, [SHADOWED], ["intros; reflexivity."])
    assert not verdict.ok, verdict
    assert "expected to have type" in verdict.message, verdict.message


@pytest.mark.parametrize("statement, tactics", [
    ("Lemma l (n : nat) : n * 1 = n + 0.", ["ring."]),
    ("Goal forall n m : nat, n + m = m + n.", ["intros; ring."]),
    ("Lemma l {A : Type} (x : A) (n : nat) : x = x /\\ n <= n + 1.", ["split; [reflexivity | lia]."]),
])
def test_honest_proofs_with_additions_still_verify_under_the_pin(env_with_ring, statement, tactics):
    """Fails if the pin refuses a proof whose additions leave the statement's meaning alone (binders,
    implicit ones, Goal; the prelude's IDphi is there but unused), or if those proofs stop being
    checked with their additions."""
    verdict = check(env_with_ring, statement, [SHADOWED], tactics)
    assert verdict.ok, verdict.message
    assert "Require Import" in verdict.script, verdict.script


# -- kernel flags: the allow-list refuses them; coqchk catches them anyway --------------------------

@pytest.mark.parametrize("sentence, reason", [
    ("Unset Guard Checking.", "option 'Guard Checking' may not be changed"),
    ("Local Unset Guard Checking.", "'Local Unset' changes an option"),
    ("Unset Universe Checking.", "option 'Universe Checking' may not be changed"),
    ("Unset Positivity Checking.", "option 'Positivity Checking' may not be changed"),
    ("#[bypass_check(guard)] Fixpoint f (n : nat) : False := f n.", "attribute 'bypass_check(guard)' is not allowed"),
    ("#[local, bypass_check(universes)] Definition d := Type.", "attribute 'bypass_check(universes)' is not allowed"),
    ('Extraction "/tmp/dojo_x.ml" nat.', "'Extraction' is not allowed"),
    ("Recursive Extraction nat.", "'Recursive' is not allowed"),
    ('Load "/tmp/x".', "'Load' is not allowed"),
    ('Cd "/tmp".', "'Cd' is not allowed"),
    ('Declare ML Module "ltac_plugin".', "only Declare Module and Declare Scope"),
    ('Add LoadPath "/tmp" as X.', "'Add' is not allowed"),
    ("Drop.", "'Drop' is not allowed"),
    ("Quit.", "'Quit' is not allowed"),
    ("Definition d := Eval native_compute in 1 + 1.", "'native_compute' starts the native compiler"),
    ("Print Assumptions I.", "'Print' is not allowed"),
    ("Section S.", "leaves S open"),
    ("Module F (X : Set).", "leaves F open"),
    ("Lemma l : True.", "ends inside a proof"),
])
def test_prelude_refusals(sentence, reason):
    """Fails if the allow-list lets the sentence through or gives another reason."""
    with pytest.raises(ValueError, match=r"prelude|attribute") as info:
        adhoc_theorem("Lemma t : True.", [sentence])
    assert reason in str(info.value)


def test_prelude_proof_tactics_go_through_the_tactic_policy():
    """Fails if a prelude lemma's proof may hold a command (here a Redirect) as a "tactic"."""
    with pytest.raises(ValueError, match=r"prelude sentence 'Redirect.*vernacular command"):
        adhoc_theorem("Lemma t : True.", ["Lemma l : True.", "Proof.", 'Redirect "x" Print nat.', "Qed."])


def test_statement_attributes_are_checked():
    """Fails if a statement may carry ``#[bypass_check(guard)]``."""
    with pytest.raises(ValueError, match=r"theorem statement .*attribute 'bypass_check\(guard\)'"):
        adhoc_theorem("#[bypass_check(guard)] Lemma t : True.")


@pytest.mark.parametrize("flag, proof, finding", [
    ("Unset Guard Checking. Fixpoint f (n : nat) : False := f n. Set Guard Checking.", "exact (f 0).",
     "unsafe (co)fixpoints: DojoScratch.f"),
    ("Unset Positivity Checking. Inductive B := C : (B -> False) -> B. Set Positivity Checking.\n"
     "Definition g (b : B) : False := match b with C h => h b end.", "exact (g (C g)).",
     "positivity is assumed: DojoScratch.B"),
])
def test_coqchk_reports_unsafe_features_with_the_constant(env, flag, proof, finding):
    """Fails if coqchk's summary is not read: coqc accepts these proofs of False."""
    verdict = verify.verify_proof(raw(flag, "Lemma t : False."), linear_proof([proof]))
    assert not verdict.ok and verdict.message.startswith("the proof relies on unsafe features:"), verdict
    assert finding in verdict.message


# -- honest statements of every shape still verify -------------------------------------------------

@pytest.mark.parametrize("statement, tactics", [
    ("Goal True.", ["exact I."]),
    ("Example e : 2 + 2 = 4.", ["reflexivity."]),
    ("Definition d : nat.", ["exact 0."]),
    ("Lemma (* a comment *) c : True.", ["exact I."]),
    ("Theorem a : True.", ["auto"]),  # dot-less: the one normalisation adds the dot everywhere
])
def test_honest_statements_of_every_kind_verify(env, statement, tactics):
    """Fails if renaming a Goal/Example/Definition statement to the nonce name breaks it."""
    verdict = check(env, statement, [], tactics)
    assert verdict.ok and verdict.message.endswith("Closed under the global context"), verdict


def test_allowed_prelude_with_sections_modules_and_proofs_verifies(env):
    """Fails if the allow-list refuses an honest prelude (closed blocks, a lemma with a proof)."""
    prelude = ["Require Import Arith.", "Set Implicit Arguments.", "Section S.", "Variable n : nat.",
               "Lemma l : n + 0 = n.", "Proof.", "auto with arith.", "Qed.", "End S.",
               "Module M.", "Definition two := 2.", "End M.", "#[local] Hint Resolve l : core."]
    verdict = check(env, "Lemma t : M.two + 0 = 2.", prelude, ["apply l."])
    assert verdict.ok, verdict
    assert adhoc_context(adhoc_theorem("Lemma t : True.", prelude)).closing == ()


def test_stdlib_theorem_inside_a_functor_with_a_signature_compiles_to_the_end(env):
    """Fails if the functor keeps its ``<: OrderedTypeFull`` signature: closing it at the theorem
    misses the later field ``compare_spec`` and coqc (now required to exit 0) rejects the file."""
    theorem = next(t for t in env.index.theorems(["Structures/OrdersFacts.v"]) if t.full_name == "OrderedTypeRev.le_lteq")
    verdict = env.verify(theorem, linear_proof(["intros; unfold le, lt, flip; rewrite O.le_lteq; intuition."]))
    assert verdict.ok, verdict
    assert not env.verify(theorem, linear_proof(["intros; split."])).ok


def test_verify_timeout_bounds_the_check(env):
    """Fails if the verification timeout is not applied to coqc."""
    verdict = verify.verify_proof(adhoc_context(adhoc_theorem("Lemma t : True.")), linear_proof(["exact I."]),
                                  timeout=0.01)
    assert not verdict.ok and "timed out (verification timeout)" in verdict.message, verdict
