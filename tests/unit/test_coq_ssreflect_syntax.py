"""ssreflect's and Mathematical Components' notation as the Coq language reads it, and ad-hoc
statements whose prelude loads ssreflect marked like the index marks a file's theorems."""

from __future__ import annotations

import pytest

from generator.state_parsing import hypothesis_kind
from prover.coq.context import adhoc_theorem
from prover.coq.language import COQ
from retrieval.symbols import extract_symbols


@pytest.mark.parametrize("text, symbols", [
    ("m %| n.+1 = (m == 1)", {"dvdn", "S", "O", "eq", "eq_op"}),
    ("x \\in A :|: B -> (x \\in A) || (x \\in B)", {"in_mem", "setU", "orb"}),
    ("A \\subset B :&: C :\\: D", {"subset", "setI", "setD"}),
    ("\\sum_(i < n.+1) F i = F ord0 + \\sum_(i < n) F (lift ord0 i)",
     {"bigop", "addn", "S", "lt", "eq", "Nat.add", "ord0", "lift"}),
    ("t : n.-tuple T -> size t = n", {"tuple", "size", "eq"}),
    ("~~ (a && b) = ~~ a || ~~ b", {"negb", "andb", "orb", "eq"}),
])
def test_mathcomp_notation_is_read_as_the_constants_it_denotes(text, symbols):
    """Fails if a notation of ssrbool, eqtype, ssrnat, div, finset or bigop is dropped, or read as a
    stdlib one (``n.-tuple`` as ``Nat.sub``, ``==`` as ``eq`` alone, ``.+1`` as ``Nat.add``)."""
    assert extract_symbols(text, COQ, {"A", "B", "C", "D", "F", "T"}) == symbols


@pytest.mark.parametrize("typ, kind", [
    ("x \\in A", "prop"), ("a && b", "prop"), ("m %| n", "prop"), ("A \\subset B", "prop"), ("~~ b", "prop"),
    ("a == b", "prop"), ("n.-tuple T", "data"), ("{set T}", "data"), ("'I_n", "data"), ("bool", "data"),
])
def test_boolean_statements_are_propositions(typ, kind):
    """Fails if a boolean statement printed without its ``is_true`` coercion is taken as data (the
    baseline would then run ``case:``/``elim:`` on it and never ``rewrite`` with it), or a type as one."""
    assert hypothesis_kind(typ, COQ) == kind


@pytest.mark.parametrize("prelude, marked", [
    (["From Coq Require Import ssreflect ssrbool."], True),
    (["From mathcomp Require Import all_ssreflect."], True),
    (["Require Import Coq.ssr.ssrfun."], True),
    (["Require Import Arith.", "(* ssreflect *) Require Import List."], False),
    ([], False),
])
def test_an_adhoc_statement_whose_prelude_loads_ssreflect_is_marked(prelude, marked):
    """Fails if a prelude that requires ssreflect (the stdlib's, mathcomp's ``all_*``) leaves the
    statement unmarked (the baseline would not propose ssreflect's tactics for it), or if another
    prelude marks it (they would not parse)."""
    assert adhoc_theorem("Lemma t : True.", prelude).extra.get("ssreflect", False) is marked
