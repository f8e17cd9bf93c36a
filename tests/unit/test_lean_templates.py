"""Lean templates and the retrieval query."""

from __future__ import annotations

from prover.lean.policy import refusal_reason
from prover.lean.templates import (
    ALL_TEMPLATES,
    AUTOMATION,
    ON_HYPOTHESIS,
    ON_PREMISE,
    ON_VARIABLE,
    STRUCTURAL,
    lean_template_suggestions,
    writable_name,
)
from retrieval.query_text import state_query
from search_tree import TacticState
from prover.lean.syntax import parse_goals

PP = ("case h\nx y : ℕ\ninst✝ : Fact (1 < 2)\nh₀ : x + y = 10\nn : ℕ := 3\n⊢ x ≤\n    10\n\n"
      "case h'\nx : ℕ\n⊢ x = x")


def test_every_template_passes_the_lean_policy():
    suggestions = lean_template_suggestions(["Nat.le_of_lt_succ", "add_comm"], ["h₀", "x"], ["n"])
    assert len(suggestions) == (len(AUTOMATION) + len(STRUCTURAL) + 2 * len(ON_PREMISE)
                                + 2 * len(ON_HYPOTHESIS) + len(ON_VARIABLE))
    for tactic, _ in suggestions:
        assert refusal_reason(tactic) is None, tactic


def test_ranking_and_filtering():
    suggestions = dict(lean_template_suggestions(["good_first", "_private.Foo.bar", "good_second", "Foo.match_1"],
                                                 ["h✝", "h"]))
    assert suggestions["rw [good_first]"] > suggestions["rw [good_second]"]
    assert not any("_private" in t or "match_1" in t or "h✝" in t for t in suggestions)
    assert "exact h" in suggestions
    assert writable_name("Nat.add_comm") and not writable_name("x✝") and not writable_name("a b")
    top = lean_template_suggestions()
    assert top[0] == ("simp", -1.0) and [lp for _, lp in top] == sorted((lp for _, lp in top), reverse=True)


def test_templates_load_as_a_template_set():
    from generator.template import load_templates

    templates = load_templates("lean")
    assert templates.language.name == "lean" and len(templates.templates) == len(ALL_TEMPLATES)
    assert {t.slot for t in templates.templates} == {None, "{var}", "{hyp}", "{premise}"}


def test_query_is_the_main_goal():
    state = TacticState(PP, 0, parse_goals(PP))
    query = state_query(state)
    assert query == "x : ℕ\ny : ℕ\ninst✝ : Fact (1 < 2)\nh₀ : x + y = 10\nn : ℕ := 3\n⊢ x ≤ 10"
    assert "x = x" not in query and state_query(PP) == query  # printed text reads the same
    short = state_query(state, budget=30)
    assert short.endswith("⊢ x ≤ 10") and "h₀" not in short and len(short) <= 30
    assert state_query(state, budget=3) == "⊢ x ≤ 10"  # the target is never cut
    assert state_query(TacticState("raw text", 1)) == "⊢ raw text"
