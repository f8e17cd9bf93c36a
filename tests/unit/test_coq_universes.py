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


def test_a_polymorphic_constant_without_bound_universes_keeps_its_global_constraints():
    """A polymorphic constant that binds no universe keeps the relations its proof adds between
    global universes in its own context, not in ``Print Universes`` (Coq 8.16's printing below).
    Fails if they are dropped because the bound list ``@{}`` is empty: a proof adding ``u <= v``
    that the development contradicts was then "proved" (audit, stop 34)."""
    printed = "t2@{} : True\n(*  |= u <= v *)\n\nt2 is universe polymorphic\nt2 is opaque\n"
    assert constant(printed, "t2") == ("True", [], [("u", "v", False)])
    assert constant("t1@{} : True\n\nt1 is universe polymorphic\n", "t1") == ("True", [], [])
    with pytest.raises(UniverseError):  # a context there that cannot be read refuses, it is not taken for none
        constant("t3@{} : True\n(* u <= v *)\n", "t3")


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


# -- the statement's universes matched with the proved constant's (real printings of Coq 8.16) -----

_DECIDE_GOAL = """1 goal
\x20\x20
  P : Prop
  H : Decidable P
  R : Type@{ExtLib.Core.Decision.3}
  a, b : R
  ============================
  @eq R match @decide P H return R with
        | true => a
        | false => b
        end match @decideP P H return R with
            | left _ => a
            | right _ => b
            end
"""
_PAD = " " * 115
_DECIDE_ABOUT = (f"dojo_x : forall {{P : Prop}} {{H : Decidable P}} {{R : Type@{{dojo_x.u0}}}} (a b : R), @eq R match "
                 f"@decide P H return R with\n{_PAD}| true => a\n{_PAD}| false => b\n{_PAD}end match @decideP P H return R"
                 f" with\n{_PAD}    | left _ => a\n{_PAD}    | right _ => b\n{_PAD}    end\n\n"
                 "dojo_x is not universe polymorphic\nArguments dojo_x {P}%type_scope {H} {R}%type_scope a b\n")
_DECIDE_STATEMENT = """UNIVERSES:
 {ExtLib.Core.Decision.3} |= ExtLib.Core.Decision.3 <= eq.u0
ALGEBRAIC UNIVERSES:
 {}
UNDEFINED UNIVERSES:
\x20
WEAK CONSTRAINTS:
\x20

Normalized constraints: {ExtLib.Core.Decision.3} |= ExtLib.Core.Decision.3 <= eq.u0
"""


def test_a_statement_with_a_match_is_matched_across_its_printings():
    """Fails if About's type is read from its first line only, or if the whitespace of Coq's
    layout (a match broken across lines, indented by its column) tells the printings apart
    (ExtLib's decide_decideP, match_eq_sym_eq', refused): its own universe is the constant's, and
    a relation the proof adds on it is found."""
    from prover.coq.universes import proof_universes

    assert constant(_DECIDE_ABOUT, "dojo_x")[0].endswith("| left _ => a | right _ => b end")
    before = "Set < eq.u0\n"
    after = "Set < eq.u0\n    < dojo_x.u0\ndojo_x.u0 <= eq.u0\n"
    found = proof_universes(before, _DECIDE_STATEMENT, _DECIDE_GOAL, after, _DECIDE_ABOUT, "dojo_x")
    assert found.added == ()
    found = proof_universes(before, _DECIDE_STATEMENT, _DECIDE_GOAL, after + "eq.u0 <= dojo_x.u0\n", _DECIDE_ABOUT, "dojo_x")
    assert found.added == (("eq.u0", "dojo_x.u0", False),)
    assert found.hypotheses == ("P : Prop", "H : Decidable P", "R : Type@{ExtLib.Core.Decision.3}", "a, b : R")


def test_a_statement_without_universes_is_not_matched():
    """Fails if a statement with no universes of its own is refused for a printing the match
    cannot read (its result would be unused): Coq's reflect_false_inv, About folding the goal's
    ``forall _ : reflect P Q false, Q`` into ``forall (P Q : Prop) (_ : reflect P Q false), Q``."""
    from prover.coq.universes import proof_universes

    statement = ("UNIVERSES:\n \nALGEBRAIC UNIVERSES:\n {A.27}\nUNDEFINED UNIVERSES:\n A.27 := Set+1\n"
                 "WEAK CONSTRAINTS:\n \n\nNormalized constraints: \n")
    shown = "1 goal\n  \n  P, Q : Prop\n  ============================\n  forall _ : reflect P Q false, Q\n"
    about = "dojo_x : forall (P Q : Prop) (_ : reflect P Q false), Q\n\ndojo_x is not universe polymorphic\n"
    assert proof_universes("Set < eq.u0\n", statement, shown, "Set < eq.u0\n", about, "dojo_x").added == ()


@pytest.mark.parametrize("hypotheses, conclusion, proved, expected", [
    # ExtLib's nth_error_length_lt: the goal renames the binder T0 beside the section's T
    (["T : Type@{L.1}"],
     "forall (T0 : Type@{L.26}) (ls : list T0) (n : nat) (val : T0) (_ : @eq (option T0) (@nth_error T0 ls n) "
     "(@Some T0 val)), lt n (@length T0 ls)",
     "forall {T : Type@{d.u0}} (ls : list T) (n : nat) [val : T] (_ : @eq (option T) (@nth_error T ls n) "
     "(@Some T val)), lt n (@length T ls)", {"L.26": "d.u0"}),
    # Coq's KeyDecidableType.eqk_1: the statement's binders are hypotheses, two on a line, and
    # About folds the conclusion's product into its binders
    (["elt : Type@{E.50}", "k, k' : D.t", "e, e' : elt"],
     "forall _ : @eqk elt (@pair D.t elt k e) (@pair D.t elt k' e'), D.eq k k'",
     "forall {elt : Type@{d.u0}} [k k' : D.t] [e e' : elt] (_ : @eqk elt (@pair D.t elt k e) (@pair D.t elt k' e')), "
     "D.eq k k'", {"E.50": "d.u0"}),
    # one binder: Show's ``forall x : T, B`` is About's ``(x : T), B``
    (["X : Type@{E.1}"], "forall x : X, @eq X x x", "forall (X : Type@{d.u0}) (x : X), @eq X x x", {"E.1": "d.u0"}),
])
def test_the_statement_s_universes_are_matched_binder_by_binder(hypotheses, conclusion, proved, expected):
    """Fails if a renamed bound variable, a folded product or binders grouped otherwise refuse the
    proof (ExtLib's nth_error_length_lt, Coq's KeyDecidableType.eqk_1, refused), or if the own
    universe is matched with another."""
    from prover.coq.universes import matching

    assert matching(hypotheses, conclusion, explicit(proved), set(expected)) == expected


@pytest.mark.parametrize("hypotheses, conclusion, proved", [
    # the binders swapped: alpha-renaming matches by position, so A -> B is not B -> A
    ([], "forall (A : Type@{a}) (B : Type@{b}), forall _ : A, B", "forall (A : Type@{x}) (B : Type@{y}) (_ : B), A"),
    # the goal's T is the section's variable, the constant's its own binder
    (["T : Type@{s}"], "forall T0 : Type@{a}, list T", "forall T : Type@{x}, list T"),
    # a hypothesis that is not the constant's leading binder
    (["n : nat", "X : Type@{a}"], "forall x : X, @eq X x x", "forall (X : Type@{x}) (n : nat) (x : X), @eq X x x"),
    (["X : Type@{a}"], "forall x : X, @eq X x x", "forall (Y : Type@{x}) (X : Type@{y}) (x : X), @eq X x x"),
    # a local definition is no binder
    (["X := nat : Type@{a}"], "forall x : X, @eq X x x", "forall (X : Type@{x}) (x : X), @eq X x x"),
    # one of the statement's universes is two of the constant's, or a global one another
    ([], "forall (A : Type@{a}) (B : Type@{a}), A", "forall (A : Type@{x}) (B : Type@{y}), A"),
    ([], "forall (A : Type@{a}) (B : Type@{g}), A", "forall (A : Type@{x}) (B : Type@{h}), A"),
    # an own universe the printing does not show (the sort of a match's return predicate)
    ([], "forall A : Type@{g}, A", "forall A : Type@{g}, A"),
])
def test_printings_of_the_statement_that_do_not_line_up_are_refused(hypotheses, conclusion, proved):
    """Fails if the match pairs universes of binders that differ (swapped, free against bound,
    another hypothesis), reads a local definition as a binder, or lets a universe of the statement
    go unmatched: each would name the proof's relations wrongly, so each is an error."""
    from prover.coq.universes import matching

    with pytest.raises(UniverseError):
        matching(hypotheses, conclusion, proved, {"a", "b"} - ({"b"} if "@{b}" not in conclusion else set()))


def test_a_compiled_module_that_cannot_be_read_refuses_the_proof_in_one_line(tmp_path: Path):
    """Fails if a dangling ``.vo`` link in the development (or one a concurrent build removed) makes
    the graph's key raise ``OSError`` out of the check instead of a :class:`UniverseError`."""
    from prover.coq.final_universes import development_graph

    (tmp_path / "A.vo").write_bytes(b"")
    (tmp_path / "Bad.vo").symlink_to(tmp_path / "gone.vo")
    context = _context(load_path=("-Q", str(tmp_path), "P"))
    with pytest.raises(UniverseError, match="cannot be read"):
        development_graph(context, deadline=1e18)


# -- printings the check could not match (real printings of Coq 8.16: ExtLib, RelationAlgebra) ------

_REL_DEC_DECLARED = ('RelDec.rel_dec_neq_false : forall [T : Type@{ExtLib.Core.RelDec.12}] [eqt : forall (_ : T) (_ : T), '
    'Prop] [r : @RelDec.RelDec T eqt] (_ : @RelDec.RelDec_Correct T eqt r) (x y : T) (_ : not (eqt x y)),'
    ' @eq bool (@RelDec.rel_dec T eqt r x y) false\n'
    '\n'
    'RelDec.rel_dec_neq_false is not universe polymorphic\n'
    'Arguments RelDec.rel_dec_neq_false [T]%type_scope [eqt]%function_scope [r] rc x y _\n'
    'RelDec.rel_dec_neq_false is opaque\n')
_REL_DEC_PROVED = "forall (x y : T) (_ : not (eqt x y)), @eq bool (@rel_dec T eqt r x y) false"
_REL_DEC_HYPOTHESES = ["T : Type@{ExtLib.Core.RelDec.12}", "eqt : forall (_ : T) (_ : T), Prop", "r : @RelDec T eqt",
                       "rc : @RelDec_Correct T eqt r"]


def test_a_kept_variable_printed_underscore_is_named_by_the_arguments_line():
    """Fails if the declared lemma's kept section variable ``rc``, which its type prints ``(_ :
    RelDec_Correct T eqt r)`` since nothing depends on it, refuses the proof (ExtLib's
    rel_dec_neq_false, refused: "the declared lemma binds _"); or if a name the Arguments line
    gives that is no variable of the section, or a line that disagrees with the type, is used."""
    from prover.coq.universes import argument_names

    qualified = "ExtLib.Core.RelDec.rel_dec_neq_false"
    original = constant(_REL_DEC_DECLARED, qualified)[0]
    arguments = argument_names(_REL_DEC_DECLARED, qualified)
    assert arguments == ("T", "eqt", "r", "rc", "x", "y", "_")
    assert correspondence(_REL_DEC_PROVED, _REL_DEC_HYPOTHESES, original, arguments) == {
        "ExtLib.Core.RelDec.12": "ExtLib.Core.RelDec.12"}
    with pytest.raises(UniverseError, match="binds _"):
        correspondence(_REL_DEC_PROVED, _REL_DEC_HYPOTHESES, original)
    with pytest.raises(UniverseError, match="binds rd"):
        correspondence(_REL_DEC_PROVED, _REL_DEC_HYPOTHESES, original, ("T", "eqt", "r", "rd", "x", "y", "_"))
    with pytest.raises(UniverseError, match="binds _"):  # T named otherwise: the line is not used
        correspondence(_REL_DEC_PROVED, _REL_DEC_HYPOTHESES, original, ("U", "eqt", "r", "rc", "x", "y", "_"))
    assert argument_names("Arguments f {A}%type_scope / x\n", "f") == ()  # anything but names: none


#: ``About`` in Coq 8.16 of a section lemma whose arguments the development renamed (``Arguments
#: target2 A H2 H : rename``, which swapped two hypotheses' names)
_RENAMED = """target2 :
forall (A : Type@{t5.1}) (_ : forall (T : Type@{t5.2}) (_ : T), A)
  (_ : forall (T : Type@{t5.3}) (_ : T), A), A

target2 is not universe polymorphic
Arguments target2 A%type_scope (H2 H)%function_scope
  (where some original arguments have been renamed)
Expands to: Constant t5.target2
"""


def test_arguments_a_development_renamed_name_no_binder():
    """Fails if the names of an ``Arguments`` line the development renamed are read as the binders'
    (review, stop 34): the universe of ``H2``'s type would be paired with ``H``'s and the other way
    round, and a relation the development contradicts on one compared with the other. A scoped
    group of explicit arguments ``(H2 H)%function_scope`` is read as its names."""
    from prover.coq.universes import argument_names

    assert argument_names(_RENAMED, "t5.target2") == ()
    bare = _RENAMED.replace("A%type_scope (H2 H)%function_scope", "A H2 H")  # arguments with no scope print bare
    assert argument_names(bare, "t5.target2") == ()
    unrenamed = _RENAMED.replace("  (where some original arguments have been renamed)\n", "")
    assert argument_names(unrenamed, "t5.target2") == ("A", "H2", "H")


_FORALLV_PROVED = ("forall (n : nat) (t : T) (vs : vector T n) (P : forall _ : T, Prop) (_ : @ForallV P n vs) "
                   "(_ : @vector_In t n vs), P t")
_FORALLV_DECLARED = ("forall (T : Type@{ExtLib.Data.Vector.6}) (n : nat) (t : T) (vs : Vector.vector T n) "
                     "(P : forall _ : T, Prop) (_ : @Vector.ForallV T P n vs) (_ : @Vector.vector_In T t n vs), P t")
_O_SUP_PROVED = ("forall (n m : ob (@kar (gregex_kat_ops pred s t))) (I : Type@{dojo_x.u0}) (J : list I) (f : forall _ "
                 ": I, car (@mor (@kar (gregex_kat_ops pred s t)) n m)), @eq (car (@mor (@expr_ops letter src' tgt' BKA) "
                 "n m)) (@o n m (@sup (@mor (@kar (gregex_kat_ops pred s t)) n m) I f J)) (@sup (@mor (@expr_ops letter "
                 "src' tgt' BKA) n m) I (fun i : I => @o n m (f i)) J)")
_O_SUP_DECLARED = (
    "forall (pred : nat) (s t : forall _ : BinNums.positive, BinNums.positive) (n m : monoid.ob (@kat.kar "
    "(gregex.gregex_kat_ops pred s t))) (I : Type@{kat_completeness.o_sup.u0}) (J : list I) (f : forall _ : I, "
    "lattice.car (@monoid.mor (@kat.kar (gregex.gregex_kat_ops pred s t)) n m)), @eq (lattice.car (@monoid.mor "
    "(@syntax.expr_ops (kat_completeness.letter pred) (@kat_completeness.src' pred s) (@kat_completeness.tgt' pred t) "
    "level.BKA) n m)) (@kat_completeness.o pred s t n m (@sups.sup (@monoid.mor (@kat.kar (gregex.gregex_kat_ops pred "
    "s t)) n m) I f J)) (@sups.sup (@monoid.mor (@syntax.expr_ops (kat_completeness.letter pred) "
    "(@kat_completeness.src' pred s) (@kat_completeness.tgt' pred t) level.BKA) n m) I (fun i : I => "
    "@kat_completeness.o pred s t n m (f i)) J)")
_O_SUP_HYPOTHESES = ["pred : nat", "s, t : forall _ : positive, positive", "n, m : ob (@kar (gregex_kat_ops pred s t))",
                     "I : Type@{RelationAlgebra.kat_completeness.372}", "J : list I",
                     "f : forall _ : I, car (@mor (@kar (gregex_kat_ops pred s t)) n m)"]


def test_a_section_local_constant_is_compared_with_the_closed_section_s_application():
    """Fails if a constant of the statement's section, which the closed section applies to the
    variables it abstracts (``@ForallV P n vs`` is ``@Vector.ForallV T P n vs``; an unapplied
    ``letter`` is ``(kat_completeness.letter pred)``, ``src'`` is ``(@kat_completeness.src' pred
    s)``), refuses the proof: ExtLib's ForallV_vector_In and RelationAlgebra's o_sup, refused
    ("two printings of the statement differ")."""
    assert correspondence(_FORALLV_PROVED, ["T : Type@{ExtLib.Data.Vector.6}"], _FORALLV_DECLARED) == {
        "ExtLib.Data.Vector.6": "ExtLib.Data.Vector.6"}
    assert correspondence(_O_SUP_PROVED, _O_SUP_HYPOTHESES, _O_SUP_DECLARED) == {
        "dojo_x.u0": "kat_completeness.o_sup.u0"}


@pytest.mark.parametrize("proved, original", [
    # one constant applied to different variables at two places
    ("forall (x : A) (y : B), @eq nat (@c x) (@c y)", "forall (A : Type@{a}) (B : Type@{b}) (x : A) (y : B), "
     "@eq nat (@M.c A x) (@M.c B y)"),
    # a term that is no variable of the section inserted
    ("forall x : A, @eq nat (@c x) O", "forall (A : Type@{a}) (x : A), @eq nat (@M.c O x) O"),
    # the section's variables out of their order
    ("forall x : A, @eq nat (@c x) O", "forall (A : Type@{a}) (B : Type@{b}) (x : A), @eq nat (@M.c B A x) O"),
    # a constant this side qualifies alike (not the section's): no argument inserted
    ("forall x : A, @eq nat (@M.c x) O", "forall (A : Type@{a}) (x : A), @eq nat (@M.c A x) O"),
    # an argument of ours dropped, not one of theirs inserted
    ("forall x : A, @eq nat (@c A x) O", "forall (A : Type@{a}) (x : A), @eq nat (@M.c x) O"),
])
def test_a_section_local_constant_that_is_not_applied_alike_is_refused(proved, original):
    """Fails if the closed section's application is read loosely: the same constant applied to
    different variables, to a term that is no kept variable, to variables out of order, a
    constant qualified on both sides, or an argument missing on the declared side."""
    with pytest.raises(UniverseError):
        correspondence(proved, ["A : Type@{a}", "B : Type@{b}"], original)


_HLIST_STATEMENT = """UNIVERSES:
 {ExtLib.Data.HList.27} |= Set <= ExtLib.Data.HList.27
                           Ui <= hlist_large
                           Ui <= eq.u0
                           Ui <= ExtLib.Data.HList.27
                           Ui <= list.u0
                           Uv <= hlist_large
                           Uv <= eq.u0
                           Uv <= ExtLib.Data.HList.27
ALGEBRAIC UNIVERSES:
 {ExtLib.Data.HList.26}
UNDEFINED UNIVERSES:
 ExtLib.Data.HList.27
 ExtLib.Data.HList.26 := max(Set, ExtLib.Data.HList.5)
WEAK CONSTRAINTS:
\x20

Normalized constraints: {ExtLib.Data.HList.27} |= Set <= ExtLib.Data.HList.27
                                                  Ui <= hlist_large
                                                  Ui <= eq.u0
                                                  Ui <= ExtLib.Data.HList.27
                                                  Ui <= list.u0
                                                  Uv <= hlist_large
                                                  Uv <= eq.u0
                                                  Uv <= ExtLib.Data.HList.27
"""
_HLIST_GOAL = ('1 goal\n'
    '  \n'
    '  iT : Type@{Ui}\n'
    '  F : forall _ : iT, Type@{Uv}\n'
    '  ============================\n'
    '  forall (ls : list iT) (h : hlist ls), @eq (hlist ls) h (match ls as ls0 return (forall _ : hlist l'
    's0, hlist ls0) with\n'
    '                                                          | nil => fun _ : hlist (@nil iT) => Hnil\n'
    '                                                          | cons a b => fun h0 : hlist (@cons iT a b'
    ') => @Hcons a b (@hlist_hd a b h0) (@hlist_tl a b h0)\n'
    '                                                          end h)\n')
_HLIST_ABOUT = ('dojo_x@{} : forall [ls : list iT] (h : hlist ls), @eq (hlist ls) h (match ls as ls0 return (forall _'
    ' : hlist ls0, hlist ls0) with\n'
    '                                                                                   | nil => fun _ : '
    'hlist (@nil iT) => Hnil\n'
    '                                                                                   | cons a b => fun'
    ' h0 : hlist (@cons iT a b) => @Hcons a b (@hlist_hd a b h0) (@hlist_tl a b h0)\n'
    '                                                                                   end h)\n'
    '(*  |= Ui <= hlist_large\n'
    '       Ui <= eq.u0\n'
    '       Ui <= list.u0\n'
    '       Uv <= hlist_large\n'
    '       Uv <= eq.u0 *)\n'
    '\n'
    'dojo_x is universe polymorphic\n'
    'Arguments dojo_x [ls]%list_scope h\n'
    'dojo_x is opaque\n')
_HLIST_GRAPH = "Set < Ui\n    < Uv\n    < hlist_large\n    < eq.u0\n    < list.u0\nUi <= hlist_large\n    <= eq.u0\n" \
               "    <= list.u0\nUv <= hlist_large\n    <= eq.u0\n"


def test_an_own_universe_no_printing_shows_is_accepted_where_it_is_gone():
    """ExtLib's hlist_eta: the sort of the match's return predicate is a universe of the statement
    (HList.27) that no printing shows, and the proved constant has none left. Fails if it refuses
    the proof (refused: "universes of the statement do not appear in its type"), or if it is
    accepted where a universe exists after the Qed that the printings do not name (it, or one it
    may have become)."""
    from prover.coq.universes import proof_universes

    found = proof_universes(_HLIST_GRAPH, _HLIST_STATEMENT, _HLIST_GOAL, _HLIST_GRAPH, _HLIST_ABOUT, "dojo_x")
    assert found.added == ()
    for after, about in [
        (_HLIST_GRAPH + "ExtLib.Data.HList.27 <= eq.u0\n", _HLIST_ABOUT),  # still there
        (_HLIST_GRAPH + "dojo_x.u0 <= eq.u0\n", _HLIST_ABOUT),  # a new global universe
        (_HLIST_GRAPH, _HLIST_ABOUT.replace("dojo_x@{}", "dojo_x@{dojo_x.u0}").replace("(*  |=", "(* dojo_x.u0 |=")),
    ]:
        with pytest.raises(UniverseError, match="do not appear in its type"):
            proof_universes(_HLIST_GRAPH, _HLIST_STATEMENT, _HLIST_GOAL, after, about, "dojo_x")


def test_a_long_section_local_comparison_is_bounded():
    """Fails if comparing a printing with very many occurrences of section-local constants
    raises out of the check (a RecursionError) instead of refusing it, or if a few dozen are not
    compared."""
    proved = "forall x : A, " + " ".join(["@c x"] * 40)
    original = "forall (A : Type@{a}) (x : A), " + " ".join(["@M.c A x"] * 40)
    assert correspondence(proved, ["A : Type@{a}"], original) == {"a": "a"}
    proved = "forall x : A, " + " ".join(["@c x"] * 5000)
    original = "forall (A : Type@{a}) (x : A), " + " ".join(["@M.c A x"] * 5000)
    with pytest.raises(UniverseError):
        correspondence(proved, ["A : Type@{a}"], original)
