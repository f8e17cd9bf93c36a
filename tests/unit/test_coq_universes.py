"""The universe check's reading, matching and consistency logic (prover.coq.universes), and its
refusal of what it cannot read (prover.coq.final_universes); no Coq needed."""

from __future__ import annotations

from pathlib import Path

import pytest

from prover.coq.context import CoqContext
from prover.coq.final_universes import UNIVERSES_REFUSED, declared_name, universe_refusal
from prover.coq.universes import (REPORTS, UniverseError, binders, constant, correspondence, explicit, graph,
                                  inconsistent, relations, resolve)

PRINTED = """Set < A.u
    < A.v
    < A.target.u0
A.u <= A.target.u1
A.v < A.u
    <= eq.u0
A.target.u0 = A.v
"""


def test_a_printed_graph_is_read_with_its_continued_lines():
    found = relations(PRINTED)
    assert ("Set", "A.v", True) in found and ("A.v", "A.u", True) in found and ("A.v", "eq.u0", False) in found
    assert ("A.target.u0", "A.v", False) in found and ("A.v", "A.target.u0", False) in found


@pytest.mark.parametrize("text", ["A.u <= <= A.v", "<= A.v", "A.u <"])
def test_an_unreadable_graph_is_an_error(text):
    with pytest.raises(UniverseError):
        relations(text)


def test_a_relation_against_a_strict_one_is_inconsistent():
    development = graph(relations(PRINTED))
    assert inconsistent(development, [("A.u", "A.v", False)]) == [("A.u", "A.v", False)]
    assert inconsistent(development, [("A.target.u1", "A.v", False)]) == [("A.target.u1", "A.v", False)]
    assert inconsistent(development, [("A.v", "A.u", False), ("A.v", "eq.u0", True)]) == []
    assert inconsistent(development, [("A.v", "Set", False)]) == [("A.v", "Set", False)]  # Set < A.v
    assert inconsistent(development, [("x", "x", True)]) == [("x", "x", True)]


def test_relations_that_only_together_close_a_strict_cycle_are_inconsistent():
    development = graph([("Set", "a", True), ("Set", "b", True), ("Set", "c", True)])
    assert inconsistent(development, [("a", "b", True), ("b", "c", False)]) == []
    assert len(inconsistent(development, [("a", "b", True), ("b", "c", False), ("c", "a", False)])) == 3
    assert inconsistent(development, [("a", "b", False), ("b", "a", False)]) == []  # a = b is fine


def test_a_name_resolves_only_to_one_universe_it_may_be():
    printed = ["Set", "Logic.eq.u0", "Coq.Init.Datatypes.1", "A.u", "B.u", "P.A.target.u0"]
    assert resolve("eq.u0", printed) == "Logic.eq.u0"
    assert resolve("Coq.Init.Logic.eq.u0", printed) == "Logic.eq.u0"
    assert resolve("u", printed) is None  # A.u or B.u
    assert resolve("A.u", printed) == "A.u"
    assert resolve("Coq.Init.Datatypes.1", printed) == "Coq.Init.Datatypes.1"
    assert resolve("Datatypes.1", printed) is None  # an anonymous universe is printed in full
    assert resolve("target.u0", printed) == "P.A.target.u0"
    assert resolve("Set", printed) == "Set"
    assert resolve("other.u0", printed) is None


def test_binders_are_read_grouped_or_not():
    assert binders("forall (A : Type@{u}) (l : list A), @eq (list A) l l") == (
        [("A", "Type@{u}"), ("l", "list A")], "@eq (list A) l l")
    assert binders("forall x y : nat, forall z : nat, @eq nat x z") == (
        [("x", "nat"), ("y", "nat"), ("z", "nat")], "@eq nat x z")
    assert binders("@eq nat O O") == ([], "@eq nat O O")
    with pytest.raises(UniverseError):
        binders("forall (A : Type@{u}) l, x")


def test_the_declared_lemma_s_universes_are_matched_through_its_section_variables():
    proved = "forall l : list A0, @eq (list A0) (@app A0 l (@nil A0)) l"
    original = "forall (A0 : Type@{P.U.7}) (l : list A0), @eq (list A0) (@List.app A0 l (@nil A0)) l"
    assert correspondence(proved, ["A0 : Type@{P.U.1}"], original) == {"P.U.1": "P.U.7"}
    own = correspondence("forall A : Type@{dojo.u0}, @ex Type@{dojo.u1} (fun B : Type@{A.v} => @eq Type@{dojo.u2} A B)",
                         [], "forall A : Type@{A.target.u0}, @ex Type@{A.target.u1} (fun B : Type@{v} => "
                             "@eq Type@{A.target.u2} A B)")
    assert own == {"dojo.u0": "A.target.u0", "dojo.u1": "A.target.u1", "A.v": "v", "dojo.u2": "A.target.u2"}


@pytest.mark.parametrize("proved, hypotheses, original", [
    ("forall l : list A0, @eq (list A0) l l", [], "forall (A0 : Type@{P.U.7}) (l : list A0), @eq (list A0) l l"),
    ("forall l : list A0, @eq (list A0) l l", ["A0 : Type@{a}"], "forall (A0 : Set) (l : list A0), @eq (list A0) l l"),
    ("forall A : Type@{a}, @eq Type@{b} A A", [], "forall A : Type@{x}, @eq Type@{x} A A"),
    ("forall A : Type@{a}, @eq Type@{a} A A", [], "forall A : Type@{x}, @eq Type@{y} A A"),
    ("forall A : Type@{a}, A", [], "forall B : Type@{x}, B"),
    ("forall A : Type@{a}, @eq nat O O", [], "forall A : Type@{a}, @eq nat O (S O)"),
])
def test_printings_that_do_not_line_up_are_not_matched(proved, hypotheses, original):
    """A section variable the goal does not have, Set for a universe, one universe for two (or
    the reverse, which would let the proof relate what the declared lemma keeps apart), renamed
    binders, a different term: each is an error, never a match."""
    if proved.endswith("@eq Type@{b} A A"):  # two of ours are one of theirs: matched, the cycle test sees it
        assert correspondence(proved, hypotheses, original) == {"a": "x", "b": "x"}
        return
    with pytest.raises(UniverseError):
        correspondence(proved, hypotheses, original)


def test_about_is_read_with_implicit_binders_and_a_short_name():
    text = "A.target : forall [A : Type@{A.u}] {n : nat}, @eq nat n n\n\nA.target is not universe polymorphic\n"
    assert constant(text, "P.A.target") == ("forall (A : Type@{A.u}) (n : nat), @eq nat n n", [], [])
    with pytest.raises(UniverseError):
        constant(text, "P.A.other")
    poly = "target@{i j} : forall A : Type@{i}, Type@{j}\n(* i j |= i < j *)\n"
    assert constant(poly, "target") == ("forall A : Type@{i}, Type@{j}", ["i", "j"], [("i", "j", True)])
    assert explicit("forall {A : Type@{u}}, A") == "forall (A : Type@{u}), A"


def _context(**fields) -> CoqContext:
    base = dict(key="k", name="target", statement="Lemma target : True.", prefix=(), source_prefix="", module="P.A")
    base.update(fields)
    return CoqContext(**base)


def test_a_report_that_cannot_be_read_refuses_the_proof(tmp_path: Path):
    """Fails if a check whose universe reports are missing or unreadable is accepted."""
    report = tmp_path / "dojo_assumptions_x"
    context = _context()
    assert universe_refusal(context, report, "dojo_x", deadline=1e18).startswith(UNIVERSES_REFUSED)
    for suffix in REPORTS:
        (tmp_path / f"dojo_assumptions_x_universes_{suffix}.out").write_text("garbage <= <=")
    verdict = universe_refusal(context, report, "dojo_x", deadline=1e18)
    assert verdict is not None and verdict.startswith(UNIVERSES_REFUSED) and "cannot be read" in verdict, verdict


def test_the_declared_name_holds_the_modules_open_at_it_not_the_sections():
    context = _context(prefix=("Module M.", "Section S.", "Variable n : nat.", "Module N.", "End N."),
                       module="DojoReopened.P.A")
    assert declared_name(context) == "P.A.M.target"
