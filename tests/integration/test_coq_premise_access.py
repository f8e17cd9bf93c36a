"""Premise accessibility on the REAL Coq stdlib corpus (``prover.coq.corpus`` from the installed
sources) with a real retriever (BM25): ``Init`` counts as imported, later declarations of the
theorem's own file are hidden, and a theorem is never its own premise (while a same-named lemma
of an imported file stays usable).
"""

from __future__ import annotations


import pytest

from prover.coq.corpus import default_corpus_path
from prover.coq.stdlib import load_index, stdlib_theorems
from retrieval.bm25 import BM25Retriever
from retrieval.corpus import Corpus

pytestmark = pytest.mark.coq


@pytest.fixture(scope="module")
def corpus() -> Corpus:
    return Corpus.from_jsonl(default_corpus_path())


@pytest.fixture(scope="module")
def retriever(corpus) -> BM25Retriever:
    return BM25Retriever(corpus)


@pytest.fixture(scope="module")
def index():
    return load_index(progress=False)


def theorem(index, path: str, name: str):
    return next(t for t in index.theorems([path]) if t.full_name == name)


def test_init_counts_as_imported_and_later_lemmas_of_the_file_are_hidden(corpus, index):
    """Fails if the position test in ``Corpus._mask`` admits the theorem itself (``<`` made ``<=``)
    or the rest of the file (the position ignored), or if ``imported_files`` does not follow the
    implicit Init/Prelude.v import (``plus_n_O`` of Init/Peano.v then hidden from Lists/List.v)."""
    thm = theorem(index, "Lists/List.v", "app_nil_r")
    init = next(p for p in corpus.premises if p.full_name == "plus_n_O" and p.path == "Init/Peano.v")
    assert {"Init/Prelude.v", "Init/Peano.v", "Init/Logic.v"} <= corpus.imported_files(thm.file_path)
    assert corpus.is_accessible(init, thm.file_path, thm.position)
    mask = corpus.accessible_mask(thm.file_path, thm.position)
    own = [i for i, p in enumerate(corpus.premises) if p.path == thm.file_path]
    before = [i for i in own if corpus.premises[i].start < tuple(thm.position)]
    assert 0 < len(before) < len(own)
    assert [i for i in own if mask[i]] == before
    assert mask[corpus.premises.index(init)]


def test_a_theorem_is_never_its_own_premise_but_same_named_imports_stay(retriever, corpus, index):
    """Its own statement as the query: unmasked, BM25 ranks the theorem itself first; in context it
    never comes back, and all it returns is accessible. Fails if the own-premise rule goes by name
    alone (``Corpus.index_of``, as before this test): Vectors/VectorEq.v's ``eqb_eq`` then hides
    Bool/Bool.v's ``eqb_eq``, a lemma of an imported file (35 test-split theorems lost a premise so)."""
    thm = theorem(index, "Vectors/VectorEq.v", "eqb_eq")
    own = next(p for p in corpus.premises if p.full_name == "eqb_eq" and p.path == thm.file_path)
    other = next(p for p in corpus.premises if p.full_name == "eqb_eq" and p.path == "Bool/Bool.v")
    assert other.path in corpus.imported_files(thm.file_path)
    assert retriever.retrieve(own.code, None, k=1)[0][0] == own
    mask = retriever.mask(thm)
    assert (mask[corpus.premises.index(own)], mask[corpus.premises.index(other)]) == (False, True)
    for t in stdlib_theorems("test", index)[:200]:
        ranked = [p for p, _ in retriever.retrieve(t.statement, t, k=20)]
        assert (t.file_path, t.full_name) not in [(p.path, p.full_name) for p in ranked], t.full_name
        assert all(corpus.is_accessible(p, t.file_path, t.position) for p in ranked), t.full_name


# (theorem's file, theorem, premise's file, premise): named as the corpus declares them, Coq finds none
UNREACHED_BY_THE_DECLARED_NAME = [
    ("Arith/Cantor.v", "to_nat_spec", "micromega/Refl.v", "make_conj_impl"),  # loaded, not imported
    ("FSets/FMapFullAVL.v", "AvlProofs.join_avl", "FSets/FMapFullAVL.v", "AvlProofs.bal_avl"),  # in a functor
]


@pytest.mark.parametrize("where", UNREACHED_BY_THE_DECLARED_NAME, ids=lambda w: w[3])
def test_the_name_a_tactic_writes_for_a_premise_resolves_in_the_theorems_context(corpus, index, where):
    """Fails if :meth:`Premise.name_from` gives a name Coq cannot resolve where the theorem is
    proved: a premise of a file loaded but not imported needs its full qualification, one declared
    in a functor (here the theorem's own) its short name; the corpus's declared names fail both."""
    from prover.coq.env import CoqEnvironment
    from search_tree import TacticState

    path, name, premise_path, premise_name = where
    premise = corpus.premises[corpus.declared_in(premise_name, premise_path)]
    with CoqEnvironment(index=index) as env, env.open(theorem(index, path, name)) as (session, state):
        declared = session.run_tac(state, f"pose proof @{premise.full_name} as dojo_premise.")
        written = session.run_tac(state, f"pose proof @{premise.name_from(path)} as dojo_premise.")
    assert not isinstance(declared, TacticState) and "was not found" in declared.message
    assert isinstance(written, TacticState), written
