"""The untrusted-tactic policy of the Lean backend: each refused form, and no false alarms on the
human-written tactics of LeanDojo's benchmark."""

from __future__ import annotations

import json

import pytest

from prover.benchmarks.datasets import default_data_dir
from prover.lean.lexer import tokenize
from prover.lean.policy import check_tactic, refusal_reason, tactic_positions
from search_tree import ErrorKind

VAL = default_data_dir() / "leandojo-b4-sample" / "val.json"

REFUSED = {
    "sorry": "gives up",
    "exact sorry": "gives up",
    "admit": "gives up",
    "stop": "gives up",
    "exact sorryAx _ false": "gives up",
    "exact?": "`?`-tactics",
    "apply?": "`?`-tactics",
    "rw?": "`?`-tactics",
    "simp?": "`?`-tactics",
    "simp_all?": "`?`-tactics",
    "constructor <;> aesop?": "`?`-tactics",
    "first | exact? | simp": "`?`-tactics",
    "hint": "suggestion",
    "polyrith": "suggestion",
    "native_decide": "ofReduceBool",
    "exact Lean.ofReduceBool _ _ rfl": "ofReduceBool",
    "run_tac do pure ()": "IO escape",
    "exact (unsafeBaseIO (IO.Process.run {cmd := \"sh\"}))": "IO escape",
    "#eval IO.println 1": "`#` command",
    "#print axioms foo": "`#` command",
    "#exit": "`#` command",
    "theorem bad : False := by simp": "command",
    "simp\ndef x := 1": "command",
    "import Mathlib": "command",
    "set_option debug.skipKernelTC true in simp": "command",
    "attribute [simp] foo in simp": "command",
    "macro \"t\" : tactic => `(tactic| simp)": "command",
    "elab \"t\" : tactic => pure ()": "command",
    "syntax \"t\" : tactic": "command",
    "open Real": "`open` command",
    "simp /- hide": "block comments",
    "simp\x00": "control characters",
    "": "empty",
    "   ": "empty",
    "simp " * 2000: "longer than",
}

ALLOWED = [
    "simp [List.get?]",
    "rw [mem_iff_get?]",
    "refine ⟨?_, ?_⟩",
    "open Real in norm_num",
    "open scoped BigOperators in simp",
    "nlinarith [sq_nonneg (a - b), sq_nonneg (a + b)]",
    "intro h; exact h.1",
    "constructor <;> simp",
    "calc #α = #β := rfl",
    "cases h with\n| inl h => exact h\n| inr h => exact h.elim",
]


@pytest.mark.parametrize("tactic,reason", sorted(REFUSED.items()))
def test_refused(tactic, reason):
    error = check_tactic(tactic)
    assert error is not None and error.kind == ErrorKind.REFUSED
    assert reason in error.message and repr(tactic) in error.message


@pytest.mark.parametrize("tactic", ALLOWED)
def test_allowed(tactic):
    assert check_tactic(tactic) is None


def test_not_a_string():
    assert "not int" in refusal_reason(3)  # type: ignore[arg-type]


@pytest.mark.shared_data(VAL)
def test_human_tactics_of_the_benchmark_pass():
    tactics = [t["tactic"] for thm in json.loads(VAL.read_text()) for t in thm["traced_tactics"]]
    refused = [t for t in tactics if refusal_reason(t)]
    assert len(tactics) == 2949
    assert refused and set(refused) == {"sorry"}  # the benchmark's own `sorry`s, nothing else


def test_tactic_positions_follow_lean_s_tactic_grammar():
    """Fails if the recognizer misses a place where Lean starts a tactic (then a command written
    there would pass), or takes a term for a tactic (then honest proofs are refused)."""
    text = ("constructor\n"
            "· intro h; exact foo (by simp; ring) h\n"
            "· cases h with\n"
            "  | inl h => exact h\n"
            "  | inr h =>\n"
            "    first | rfl | apply bar\n"
            "all_goals try norm_num [R[T;T⁻¹]]\n"
            "have : x := have y := z; y\n"
            "obtain ⟨a, b⟩ :=\n"
            "  foo")
    tokens = tokenize(text)
    heads = [tokens[i].text for i in sorted(tactic_positions(tokens))]
    assert heads == ["constructor", "·", "intro", "exact", "simp", "ring", "·", "cases", "exact", "first", "rfl",
                     "apply", "all_goals", "try", "norm_num", "have", "obtain"]
