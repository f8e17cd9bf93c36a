"""Backend syntax in one place: the printed-state reader that generators and retrievers share."""

import subprocess
import sys

from prover.lean.language import LEAN
from retrieval.base import Query
from search_tree.protocol import TacticState
from prover.lean import syntax as lean
from search_tree.syntax import printed

WRAPPED = ("a b : ℕ\nh :\n  Disjoint (Ico a b)\n    (Ico b a)\np : ℕ × ℕ := Prod.swap { fst := a, snd := b }\n"
           "f : Foo { fst := a }\n⊢ a = b")


def test_printed_reader_agrees_with_the_strict_lean_parser():
    """Fails if the lenient reader splits a let at a `:=` inside braces (`{ fst := a }`) or loses a
    hypothesis whose type starts on the next line (`h :`), as generator/state_parsing.py did."""
    assert printed.parse_goals(WRAPPED) == lean.parse_goals(WRAPPED)
    (goal,) = printed.parse_goals(WRAPPED)
    assert [(h.name, h.type, h.value) for h in goal.hypotheses] == [
        ("a", "ℕ", None), ("b", "ℕ", None), ("h", "Disjoint (Ico a b) (Ico b a)", None),
        ("p", "ℕ × ℕ", "Prod.swap { fst := a, snd := b }"), ("f", "Foo { fst := a }", None)]


def test_a_query_is_the_same_from_goals_and_from_text():
    """Fails if Query groups hypotheses differently for parsed goals and printed text, or drops a
    let-bound value from the text it reads symbols off."""
    goals = lean.parse_goals(WRAPPED)
    assert Query.from_state(TacticState(WRAPPED, 0, goals)) == Query.from_state(WRAPPED)
    assert Query.from_state(WRAPPED).hypotheses[:2] == ((("a", "b"), "ℕ"), (("h",), "Disjoint (Ico a b) (Ico b a)"))
    assert "Prod.swap" in Query.from_state(WRAPPED).symbols(LEAN)  # from the let-bound value


def test_one_goal_parse_error_and_no_imports_outside_search_tree():
    """Fails if prover.coq.goals or the Lean syntax defines its own GoalParseError again, or the
    printed-state reader or the Language type imports a package above search_tree."""
    code = ("import sys; import search_tree.syntax.printed, search_tree.language; "
            "bad = sorted(m for m in sys.modules if m.split('.')[0] in ('prover', 'generator', 'retrieval')); "
            "assert not bad, bad; import prover.coq.goals as g, prover.lean.syntax as l, search_tree.syntax.common as c; "
            "assert g.GoalParseError is l.GoalParseError is c.GoalParseError")
    subprocess.run([sys.executable, "-c", code], check=True)
