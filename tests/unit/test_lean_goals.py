"""Lean goal parsing and proof rendering, checked on real states traced by LeanDojo."""

from __future__ import annotations

import json

import pytest

from prover.benchmarks.datasets import default_data_dir
from prover.lean.syntax import GoalParseError, has_metavariable, parse_goal, parse_goals
from prover.lean.script import render_declaration, render_tactics
from search_tree import Hypothesis, ProofStep, Theorem

VAL = default_data_dir() / "leandojo-b4-sample" / "val.json"


@pytest.fixture(scope="module")
def real_states() -> list[str]:
    states: set[str] = set()
    for thm in json.loads(VAL.read_text()):
        for tac in thm["traced_tactics"]:
            states.update((tac["state_before"], tac["state_after"]))
    return sorted(states)


@pytest.mark.shared_data(VAL)
def test_counts_agree_with_leandojo_parser_on_real_states(real_states):
    import lean_dojo.interaction.parse_goals as ld_goals

    assert len(real_states) > 3000
    multi = with_let = 0
    for pp in real_states:
        ours, theirs = parse_goals(pp), ld_goals.parse_goals(pp)
        assert [len(g.hypotheses) for g in ours] == [len(g.assumptions) for g in theirs], pp
        assert [h.name for g in ours for h in g.hypotheses] == [d.ident for g in theirs for d in g.assumptions]
        assert [g.target for g in ours] == [" ".join(g.conclusion.split()) for g in theirs]
        for g, ref in zip(ours, theirs, strict=True):
            for h, d in zip(g.hypotheses, ref.assumptions, strict=True):
                # LeanDojo keeps a let-binding's value inside the type; we split it off
                joined = h.type if h.value is None else f"{h.type} := {h.value}"
                assert joined == " ".join(d.lean_type.split())
                with_let += h.value is not None
        multi += len(ours) > 1
    assert multi > 100 and with_let > 50  # the sample exercises several goals and let-bindings


@pytest.mark.shared_data(VAL)
def test_case_tags_and_metavariables_on_real_states(real_states):
    tagged = [pp for pp in real_states if pp.startswith("case ")]
    assert tagged and all(parse_goals(pp)[0].name for pp in tagged)
    evars = [pp for pp in real_states if any(g.has_metavariable for g in parse_goals(pp))]
    assert evars and all("?" in pp for pp in evars)
    assert not any(g.has_metavariable for pp in real_states if "?" not in pp for g in parse_goals(pp))


def test_hand_written_layouts():
    pp = ("3 goals\ncase h.e\nx y : ℕ\nh :\n  x + y =\n    y + x\nn : ℕ := 3\n⊢ x ≤\n    y\n\n"
          "case mpr\nα : Type ?u.21872\n⊢ ?a = 2\n\n⊢ True")
    goals = parse_goals(pp)
    assert len(goals) == 3
    first = goals[0]
    assert first.name == "h.e" and first.target == "x ≤ y" and not first.has_metavariable
    assert first.hypotheses == (
        Hypothesis("x", "ℕ"), Hypothesis("y", "ℕ"), Hypothesis("h", "x + y = y + x"), Hypothesis("n", "ℕ", "3"))
    assert goals[1].name == "mpr" and goals[1].has_metavariable and goals[1].hypotheses[0].type == "Type ?u.21872"
    assert goals[2] == parse_goal("⊢ True")
    assert parse_goals("no goals") == ()
    # an empty context prints the case tag, a blank line, then the target
    empty_ctx = parse_goals("case inl\n\n⊢ 0 = 0\n\ncase inr\np : ℝ\n⊢ p = p")
    assert [(g.name, len(g.hypotheses)) for g in empty_ctx] == [("inl", 0), ("inr", 1)]


def test_metavariable_detection():
    assert has_metavariable("x = ?m.12") and has_metavariable("?a ≤ b") and has_metavariable("Type ?u.3")
    assert not has_metavariable("List.get? l 0 = some x") and not has_metavariable("x? = y")


def test_malformed_goal_is_an_error_naming_it():
    with pytest.raises(GoalParseError, match="no ' : '"):
        parse_goal("garbage line\n⊢ True")
    with pytest.raises(GoalParseError, match="exactly one"):
        parse_goal("⊢ True ⊢ False")


def test_render_focusing_and_indentation():
    proof = (
        ProofStep("intro h"),
        ProofStep("constructor", (
            (ProofStep("exact h.1"),),
            (ProofStep("have k : q := by\n  exact h.2"), ProofStep("cases k with\n| intro => rfl")),
        )),
    )
    assert render_tactics(proof) == (
        "  intro h\n  constructor\n  · exact h.1\n  · have k : q := by\n      exact h.2\n"
        "    cases k with\n    | intro => rfl")
    thm = Theorem("t", statement="theorem t (p q : Prop) : p ∧ q → p ∧ q")
    assert render_declaration(thm, (ProofStep("omega"),)) == "theorem t (p q : Prop) : p ∧ q → p ∧ q := by\n  omega"
    with pytest.raises(ValueError, match="empty branch"):
        render_tactics((ProofStep("constructor", ((),)),))
