"""Lean declaration headers rewritten as the proof states they open (PS-2 training queries)."""

import pytest

from retrieval.statement_state import statement_as_state


@pytest.mark.parametrize("statement, state", [
    ("theorem sub_eq_add (x y : R) : x - y = x + y", "x y : R\n⊢ x - y = x + y"),
    ("lemma foo : True", "⊢ True"),
    # attributes (nested brackets too) and modifiers go with the keyword and the name
    ("@[simp, to_additive (attr := simp)] protected theorem Nat.bar {n : ℕ} (h : 0 < n) : n ≠ 0",
     "n : ℕ\nh : 0 < n\n⊢ n ≠ 0"),
    ("private nonrec lemma baz ⦃a b : α⦄ (h : a ≤ b) : b ≥ a", "a b : α\nh : a ≤ b\n⊢ b ≥ a"),
    # anonymous instances print as inst✝, named ones keep their name; untyped binders are dropped
    ("theorem q [Mul R] [inst : Fintype ι] {x} (c : R) : c * c = c",
     "inst✝ : Mul R\ninst : Fintype ι\nc : R\n⊢ c * c = c"),
    # colons inside brackets are not the header's colon; whitespace is folded
    ("theorem r {s : ∀ x : β, b = x → Set α} :\n    ⋃ (x) (h : b = x), s x h = s b rfl",
     "s : ∀ x : β, b = x → Set α\n⊢ ⋃ (x) (h : b = x), s x h = s b rfl"),
])
def test_header_becomes_state(statement, state):
    assert statement_as_state(statement) == state


@pytest.mark.parametrize("statement, kept", [
    ("theorem cut (X : Ω → E) (μ : Measure E", "(X : Ω → E) (μ : Measure E"),  # truncated header
    ("theorem odd x : y", "x : y"),  # not a binder group before the colon
    ("@[simp theorem broken (x : ℕ) : x = x", "@[simp theorem broken (x : ℕ) : x = x"),
])
def test_unsplittable_header_keeps_its_text_without_the_name(statement, kept):
    assert statement_as_state(statement) == kept
    assert "⊢" not in statement_as_state(statement)
