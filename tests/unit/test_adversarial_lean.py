"""Adversarial tactics against the LeanDojo backend: none may close, comment out or extend the
declaration its proof is spliced into, and the final check fails closed.

There is no Lean toolchain on this machine: what Lean would do with each text is the code
author's model of Lean 4 (its lexer's comments and strings, bracket matching, the column rule of
tactic blocks, which commands and options weaken the kernel check), not an observation. So every
vector is checked where the model is not needed: the policy refuses it before Lean sees it (during
search, through a stand-in Dojo that would accept ANY text and built from LeanDojo's real result
classes, so only the policy stands in the way), and at the final check, whose checker here would
accept anything, so only the policy and the confinement check of the rendered text stand in the way.
"""

from __future__ import annotations

from types import SimpleNamespace

import pytest

import lean_dojo as ld  # noqa: E402  required: a broken install fails, not skips

from prover.lean import env as lean_env  # noqa: E402
from prover.lean.check import LeanCheck  # noqa: E402
from prover.lean.env import LeanDojoEnvironment  # noqa: E402
from prover.lean.policy import check_tactic  # noqa: E402
from prover.lean.script import confinement_problem, render_by_block, render_declaration  # noqa: E402
from search_tree import ErrorKind, ProofStep, Theorem  # noqa: E402

STATEMENT = "theorem hello_world (a b c : Nat) :\n  a + b + c = a + c + b :="
THM = Theorem("hello_world", "Lean4Example.lean", (5, 1), statement=STATEMENT,
              extra={"url": "https://github.com/yangky11/lean4-example", "commit": "7b6ecb9"})

# tactic -> a fragment of the reason it is refused
VECTORS = {
    # comments: the rest of the line, or of the file
    "simp -- )": "line comments",
    "exact h --": "line comments",
    "simp /- the rest of the file": "block comments",
    "exact h\n-/ theorem t : False := by simp": "block comments",
    "exact h /-- doc -/": "block comments",
    # brackets and strings that would close or extend an enclosing term
    "exact (h": "'(' is never closed",
    "exact h)": "')' closes nothing",
    "exact ⟨h, h]": "']' closes '⟨'",
    "exact h }": "'}' closes nothing",
    "exact h⟩": "'⟩' closes nothing",
    "simp [foo": "'[' is never closed",
    'exact "': "unterminated string literal",
    # openers whose body would be the next tactics of the rendered proof
    "have h : a = a := by": "ends in 'by'",
    "cases h with": "ends in 'with'",
    "exact fun x =>": "ends in '=>'",
    "refine ?_ <;>": "ends in '<;>'",
    "exact h ·": "ends in '·'",
    "show a = a from fun x ↦ x |": "ends in '|'",
    # extending the declaration
    "exact h\ntermination_by x => x": "command",
    "exact h\ndecreasing_by simp_wf": "command",
    "exact aux\nwhere aux : a = a := rfl": "command",
    "exact @[simp] h": "attribute",
    "exact h\nend": "command",
    # new commands after a newline (column 0 or not)
    "exact h\n\ntheorem bad : False := by simp": "command",
    "omega\nlemma bad : False := by simp": "command",
    "omega\nexample : False := by simp": "command",
    "omega\ndef x := 1": "command",
    "omega\naxiom ax : False": "command",
    "omega\ninstance : Inhabited False := ⟨ax⟩": "command",
    "open Lean in\nexample : True := trivial": "command",
    "exact h\n#exit": "`#` command",
    "#eval (IO.Process.exit 0 : IO Unit)": "`#` command",
    "set_option debug.skipKernelTC true in exact h": "command",
    "omega\nmacro_rules | `(tactic| trivial) => `(tactic| omega)": "command",
    # give-ups and kernel bypasses, also behind dotted names and options
    "exact Lean.sorryAx _ false": "gives up",
    "exact _root_.sorryAx _ false": "gives up",
    "native_decide": "ofReduceBool",
    "decide +native": "ofReduceBool",
    "decide (config := { native := true })": "ofReduceBool",
    "exact _root_.Lean.ofReduceBool _ _ rfl": "ofReduceBool",
    "exact Lean.ofReduceNat _ _ rfl": "ofReduceBool",
    # code on the machine
    "run_tac Lean.Elab.Tactic.closeMainGoal": "IO escape",
    "exact (unsafeCast () : False)": "IO escape",
    "exact _root_.IO.Process.exit 0": "IO escape",
    "unsafe exact h": "IO escape",
    "exact h\nattribute [implemented_by foo] h": "IO escape",
    "exact (by_elab Lean.addDecl default)": "IO escape",
    "exact eval% 2 ^ 10": "IO escape",
    # invisible text: what a reviewer reads would not be what Lean reads
    "exact h\u202e": "invisible character U+202E",
    "exact h\u2028theorem": "invisible character U+2028",
    "exact h\u200b": "invisible character U+200B",
    "exact h\r#exit": "control characters",
    # compiler trust in every spelling: field values, guillemets, flags, positional configurations
    "decide (config := { native := Bool.true })": "ofReduceBool",
    "decide (config := {native := true})": "ofReduceBool",
    "decide (config := { native := (true) })": "ofReduceBool",
    "decide (config := { native := !false })": "ofReduceBool",
    "decide (config := { native := .true })": "ofReduceBool",
    "decide (config := { «native» := true })": "ofReduceBool",
    "decide +«native»": "ofReduceBool",
    "decide (native := true)": "ofReduceBool",
    "decide (config := ⟨false, true⟩)": "must name its fields, as `{ kernel := true }` (found `config := ⟨`)",
    "decide (config := Lean.Meta.DecideConfig.mk false true false false)": "must name its fields",
    "decide (config := { cfg with kernel := true })": "(found `config := { cfg with`)",
    "bv_decide": "ofReduceBool",
    "bv_check \"proof.lrat\"": "ofReduceBool",
    "exact ofReduceBool _ _ rfl": "ofReduceBool",
    "exact «Lean».«ofReduceBool» _ _ rfl": "ofReduceBool",
    "simp only [Lean.trustCompiler]": "ofReduceBool",
    "exact h\nattribute [extern \"c_fn\"] h": "IO escape",
    # searches that print a suggestion, wherever they stand
    "(apply?)": "`?`-tactics",
    "{ apply? }": "`?`-tactics",
    "first | rfl | (exact?)": "`?`-tactics",
    "constructor <;> (rw?)": "`?`-tactics",
    "· simp?": "`?`-tactics",
    "(hint)": "suggestion",
    "try polyrith": "suggestion",
    # commands the old deny-list lacked, and commands no list has: not tactic syntax
    "omega\nomit h": "command",
    "omega\ninclude h": "command",
    "seal foo": "command",
    "unseal foo": "command",
    "omega\nsimproc reduceFoo (foo _) := fun _ => return .continue": "command",
    "omega\ndsimproc reduceFoo (foo _) := fun _ => return .continue": "command",
    "omega\nadd_decl_doc foo": "command",
    "omega\nregister_simp_attr my_simp": "command",
    "omega\nbinder_predicate x \" > \" y:term => 0": "command",
    "omega\ninit_quot": "command",
    "omega\ngrind_pattern foo => x": "command",
    "omega\nregister_option foo : Bool := {}": "command",
    "omega\nalias bar := foo": "command",
    "omega\nirreducible_def foo : Nat := 1": "command",
    "omega\nnotation3 \"X\" => 1": "command",
    "omega\nfrobnicate_decls Foo": "'frobnicate_decls' is not a tactic this policy knows",
    "simp; frobnicate Foo": "'frobnicate' is not a tactic this policy knows",
    "all_goals frobnicate": "'frobnicate' is not a tactic this policy knows",
    "have h : a = a := by\n  frobnicate": "'frobnicate' is not a tactic this policy knows",
    "cases h with\n| inl h => exact h\n| inr h => frobnicate": "'frobnicate' is not a tactic this policy knows",
    "first\n  | rfl\n  | frobnicate": "'frobnicate' is not a tactic this policy knows",
    "open Nat in frobnicate": "'frobnicate' is not a tactic this policy knows",
    # literals that end elsewhere than the old quote count thought: they must not pass
    'exact "\\\\" ++ "': "unterminated string literal",
    'exact r"\\" ++ "x"': "raw and interpolated strings",
    'exact r#"a"b"#': "raw and interpolated strings",
    'exact s!"{h}"': "raw and interpolated strings",
    "exact «foo": "unterminated «name»",
    "exact '\"' ++ \"": "unterminated string literal",
    "exact 'a": "character literal",
    'exact "\\q"': "an escape Lean does not define",
    "exact `(tactic| omega)": "quotations",
}

# Tactics a prover legitimately sends: multi-line with lines at column 0 (as LeanDojo traces them),
# nested `by`, and kernel-checked decision options.
ALLOWED = [
    "cases h with\n| inl h => exact h\n| inr h => exact h.elim",
    "classical\nintro h\nhave : a = a := by\n  rfl\nexact this",
    "have h : a = a := by simp",
    "decide (config := { kernel := true })",
    "simp (config := { decide := true })",
    "open Nat in simp [succ_le]",
    "exact ⟨fun ⟨x, hx⟩ => hx, fun h => ⟨_, h⟩⟩",
]

# Ordinary Mathlib proof lines: what the allow-list, the lexer and the compiler-trust rules must
# let through (literals, guillemets, primes, images and sums, arms, calc, conv, combinators, and
# hypotheses whose names are those of refused tactics).
MATHLIB_LINES = [
    "nlinarith [sq_nonneg (a - b), sq_nonneg (a + b), mul_pos ha hb]",
    "rw [Finset.sum_range_succ, ih]; ring",
    "obtain ⟨x, hx, rfl⟩ := h",
    "rcases h with ⟨x, rfl⟩ | h",
    "field_simp [hx.ne']",
    "norm_num [Nat.factorial]",
    "induction n with\n| zero => simp\n| succ n ih =>\n  rw [Finset.sum_range_succ, ih]\n  ring",
    "calc a = b := by rw [h]\n  _ = c := by simp",
    "refine ⟨fun h => ?_, fun h => ?_⟩ <;> simp_all",
    "exact_mod_cast h",
    "have key : (0 : ℝ) < 2 := by norm_num",
    "conv_lhs => rw [← mul_one a]",
    "filter_upwards [h] with x hx using hx.le",
    "simpa using h 0",
    "interval_cases n <;> simp_all",
    "have : ∑' n : ℕ, f n = 0 := by simp [hf]",
    "show f '' s ⊆ t",
    "exact Set.preimage_mono (f := f) (h : f ⁻¹' s ⊆ f ⁻¹' t)",
    "simp [show \"ab\".length = 2 from rfl, 'a'.isAlpha]",
    "cases h <;> omega",
    "linarith [h₁, h₂]",
    "by_contra! h",
    "push_neg at h ⊢",
    "use 2; norm_num",
    "constructor\n· intro h; exact h.1\n· intro h; exact ⟨h, trivial⟩",
    "all_goals positivity",
    "first | rfl | simp",
    "open Real in exact pi_pos",
    "simp [hint]",
    "exact hint.le",
    "exact «my lemma» h",
    "simpa only [mul_comm]\n  using h",
    "decide",
    "decide (config := {})",
    "omega",
]


class AcceptAll:
    """A Dojo that accepts any text (the adversary's best case): every tactic finishes the proof."""

    def __init__(self) -> None:
        self.sent: list[str] = []
        self.proc = SimpleNamespace(timeout=None)

    def __enter__(self):
        return self, ld.TacticState("a b c : ℕ\n⊢ a + b + c = a + c + b", 0)

    def __exit__(self, *exc) -> None:
        pass

    def run_tac(self, state, tactic: str):
        self.sent.append(tactic)
        return ld.ProofFinished(1, "")


def accept_all(thm, proof: str) -> LeanCheck:
    """A checker that accepts anything, as the repository's header states it."""
    return LeanCheck(True, "accepted", STATEMENT)


def make_env(checker=accept_all) -> tuple[LeanDojoEnvironment, AcceptAll]:
    dojo = AcceptAll()
    env = LeanDojoEnvironment(dojo_factory=lambda thm, timeout: dojo, proof_checker=checker,
                              repo_factory=lambda url, commit: SimpleNamespace(url=url, commit=commit))
    return env, dojo


@pytest.mark.parametrize("tactic,reason", list(VECTORS.items()), ids=[repr(t)[:40] for t in VECTORS])
def test_vector_never_reaches_lean_nor_the_final_check(tactic, reason):
    """Fails if the policy lets the vector through to the REPL, or if the final check would hand it
    to a checker that accepts anything (i.e. if a rule of prover.lean.policy is dropped)."""
    env, dojo = make_env(checker=lambda thm, proof: pytest.fail(f"the checker saw {proof!r}"))
    with env.open(THM) as (session, init):
        result = session.run_tac(init, tactic)
    assert result.kind == ErrorKind.REFUSED and reason in result.message and repr(tactic) in result.message
    assert dojo.sent == []
    verdict = env.verify(THM, (ProofStep("intro h"), ProofStep(tactic)))
    assert not verdict.ok and reason in verdict.message


def test_at_least_forty_vectors():
    """Fails if the vector table shrinks below forty: each row is an attack the policy must keep refusing."""
    assert len(VECTORS) >= 40


@pytest.mark.parametrize("tactic", ALLOWED + MATHLIB_LINES)
def test_honest_tactics_pass_and_render_confined(tactic):
    """Fails if a rule refuses idiomatic Lean (column-0 match arms, nested `by`, kernel-checked
    `decide` options) or if the renderer lets any of its lines out of the tactic block."""
    assert check_tactic(tactic) is None
    proof = (ProofStep("constructor", ((ProofStep(tactic),), (ProofStep("omega"),))),)
    assert confinement_problem(render_by_block(proof)) is None


def test_rendered_declaration_is_one_declaration_with_its_body_confined():
    """Fails if the renderer stops indenting continuation lines: a column-0 line of a multi-line
    tactic would then start a new command of the file."""
    tactic = "cases h with\n| inl h => exact h\n| inr h =>\n  exact h.elim"
    text = render_declaration(THM, (ProofStep("intro h"), ProofStep(tactic)))
    statement, sep, body = text.partition(" := by\n")
    assert sep and statement == STATEMENT.removesuffix(" :=")
    assert body.split("\n") == ["  intro h", "  cases h with", "  | inl h => exact h", "  | inr h =>",
                                "    exact h.elim"]
    assert [line for line in text.split("\n") if line and not line[0].isspace()] == [STATEMENT.split("\n")[0]]


@pytest.mark.parametrize("block,reason", [
    ("by\nexact h", "is not indented"),
    ("by\n  exact h\n#exit", "is not indented"),
    ("by\n exact h", "is not indented"),
    ("exact h", "must be `by`"),
    ("by\n", "must be `by`"),
    ("by\n  exact (h\n  simp", "never closed"),
    ("by\n  simp -- hidden", "line comments"),
])
def test_confinement_check_on_rendered_text(block, reason):
    """Fails if confinement_problem accepts a block with a line outside the tactic block, an
    unclosed bracket across lines, or a comment."""
    problem = confinement_problem(block)
    assert problem is not None and reason in problem


def test_final_check_does_not_trust_the_renderer(monkeypatch):
    """Fails if verify hands the checker a rendered block it did not check for confinement (here a
    renderer bug puts a command at column 0)."""
    monkeypatch.setattr(lean_env, "render_by_block", lambda proof: "by\n  omega\ntheorem bad : False := by simp")
    env, _ = make_env(checker=lambda thm, proof: pytest.fail("the checker was called"))
    verdict = env.verify(THM, (ProofStep("omega"),))
    assert not verdict.ok and "not confined" in verdict.message and "'theorem bad" in verdict.message


@pytest.mark.parametrize("answer,fragment", [
    (RuntimeError("lake died"), "RuntimeError: lake died"),
    (KeyError("file"), "KeyError"),
    (ld.DojoInitError("Cannot find the *.ast.json"), "DojoInitError"),
])
def test_final_check_fails_closed_on_any_exception(answer, fragment):
    """Fails if an exception of the checker escapes verify (ending the search) or counts as proved."""
    def checker(thm, proof):
        raise answer

    env, _ = make_env(checker=checker)
    verdict = env.verify(THM, (ProofStep("omega"),))
    assert not verdict.ok and fragment in verdict.message


@pytest.mark.parametrize("answer", ["yes", 1, None, [True], True, LeanCheck("yes", "stub", STATEMENT)])  # type: ignore[arg-type]
def test_final_check_accepts_only_an_accepting_verdict(answer):
    """Fails if anything but a LeanCheck whose ok is True (a bare True, a stub, a message) counts as a proof."""
    env, _ = make_env(checker=lambda thm, proof: answer)
    verdict = env.verify(THM, (ProofStep("omega"),))
    assert not verdict.ok
    assert isinstance(answer, LeanCheck) or f"it said {answer!r}" in verdict.message
    assert make_env()[0].verify(THM, (ProofStep("omega"),)).ok  # the same proof, a checker accepting it


def test_final_check_refuses_a_proof_it_cannot_render():
    """Fails if an empty branch (a goal left without a sub-proof) raises out of verify."""
    env, _ = make_env()
    verdict = env.verify(THM, (ProofStep("constructor", ((ProofStep("omega"),), ())),))
    assert not verdict.ok and "cannot render the proof" in verdict.message and "empty branch" in verdict.message
