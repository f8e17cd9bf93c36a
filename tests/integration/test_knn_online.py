"""Online kNN over really traced stdlib files: only proofs accessible from the theorem are proposed.

Files traced (real coqtop, ``prover.coq.tracer``): ``Sets/Relations_2_facts.v`` imports
``Sets/Relations_1_facts.v``; ``Sets/Relations_3_facts.v`` imports ``Relations_2_facts.v`` (a later
file); ``Sets/Constructive_sets.v`` is not imported by either of the first two.
"""

import pytest
from traced_fixtures import traced_stdlib

from prover.coq.language import COQ
from search_tree.protocol import TacticState, Theorem

pytestmark = pytest.mark.coq

OWN = "Sets/Relations_2_facts.v"
IMPORTED = "Sets/Relations_1_facts.v"
LATER = "Sets/Relations_3_facts.v"
UNRELATED = "Sets/Constructive_sets.v"


@pytest.fixture(scope="module")
def traced(tmp_path_factory):
    with traced_stdlib(tmp_path_factory, [IMPORTED, OWN, LATER, UNRELATED]) as (index, out, summary):
        assert summary.failed == []
        yield index, out


@pytest.fixture(scope="module")
def knn(traced):
    from generator.knn import KNNGenerator

    _, out = traced
    # every split: the index holds the whole traced library, the test file's proofs included
    return KNNGenerator.from_traced([out / "train.json", out / "val.json", out / "test.json"], COQ, k=64)


def theorems_of(index, path):
    return [t for t in index.theorems([path])]


def test_mask_is_exactly_imports_and_earlier_lemmas(traced, knn):
    """Fails if the theorem's own proof, a later lemma of its file, a later file importing it or a
    file it does not import gets through (checked: the position ignored, ``cut = len(own)``; every
    corpus file taken for the import closure), or if an imported file or an earlier lemma is hidden."""
    index, _ = traced
    theorems = theorems_of(index, OWN)
    assert len(theorems) >= 5
    for k, thm in enumerate(theorems):
        mask = knn.accessible.mask(thm)
        seen = {(knn.examples[i].file_path, knn.examples[i].theorem) for i in range(len(knn.examples)) if mask[i]}
        earlier = {(OWN, t.full_name) for t in theorems[:k]}
        imported = {(e.file_path, e.theorem) for e in knn.examples if e.file_path == IMPORTED}
        assert seen == (earlier | imported) & {(e.file_path, e.theorem) for e in knn.examples}, thm.full_name


def test_own_and_later_proofs_are_never_proposed(traced, knn):
    """Fails if search ignores the mask (checked: ``index.search`` called without ``masks``); the
    last lines show that an unmasked search does find the theorem's own state first."""
    index, _ = traced
    theorems = theorems_of(index, OWN)
    hidden = {e.theorem for e in knn.examples if e.file_path == OWN}
    for k, thm in enumerate(theorems):
        own = [e for e in knn.examples if e.file_path == OWN and e.theorem == thm.full_name]
        later = {t.full_name for t in theorems[k:]}
        for ex in own:
            for i, _ in knn.neighbours([TacticState(ex.state, 0)], [thm])[0]:
                e = knn.examples[i]
                assert e.file_path in (OWN, IMPORTED), (thm.full_name, e.file_path)
                assert not (e.file_path == OWN and e.theorem in later), (thm.full_name, e.theorem)
    # the check above can fail: without a context the nearest state of a proof is its own
    ex = next(e for e in knn.examples if e.file_path == OWN and e.theorem in hidden)
    i, _ = knn.neighbours([TacticState(ex.state, 0)], [Theorem("elsewhere")])[0][0]
    assert knn.examples[i].state == ex.state


def test_earlier_lemmas_of_the_same_file_are_proposed(traced, knn):
    """Fails if the same-file rule hides everything of the file (checked: ``mask[own] = False``),
    which would lose the online gain: a later lemma given an earlier lemma's state gets its tactic."""
    index, _ = traced
    theorems = theorems_of(index, OWN)
    last = theorems[-1]
    earlier = next(e for e in knn.examples if e.file_path == OWN and e.theorem == theorems[0].full_name)
    proposed = [t for t, _ in knn.generate(TacticState(earlier.state, 0), last, 8)]
    assert proposed[0] == earlier.tactic
    nbrs = knn.neighbours([TacticState(earlier.state, 0)], [last])[0]
    assert (OWN, theorems[0].full_name) in {(knn.examples[i].file_path, knn.examples[i].theorem) for i, _ in nbrs}


def test_files_not_imported_are_never_proposed(traced, knn):
    """Fails if a file outside the import closure is searched: a state of ``Constructive_sets.v``
    asked from ``Relations_1_facts.v`` (which does not import it) finds nothing of it."""
    index, _ = traced
    thm = theorems_of(index, IMPORTED)[-1]
    foreign = next(e for e in knn.examples if e.file_path == UNRELATED)
    files = {knn.examples[i].file_path for i, _ in knn.neighbours([TacticState(foreign.state, 0)], [thm])[0]}
    assert files <= {IMPORTED}
    assert foreign.file_path in {knn.examples[i].file_path for i, _ in
                                 knn.neighbours([TacticState(foreign.state, 0)], [Theorem("elsewhere")])[0]}
