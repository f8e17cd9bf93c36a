"""The BM25 index of traced states (retrieval/state_index.py, behind the kNN generator, proof
retrieval and the kNN premise retriever) is cached on disk."""

from __future__ import annotations

import bm25s
import pytest

from retrieval import state_index as knn

TEXTS = ["x : nat ⊢ x + 0 = x", "l : list nat ⊢ rev (rev l) = l", "⊢ True", "n m : nat ⊢ n + m = m + n"]


@pytest.fixture
def cache(tmp_path, monkeypatch):
    monkeypatch.setenv("DOJO_PROVER_CACHE", str(tmp_path))
    monkeypatch.setattr(knn, "CACHED_FROM", 2)
    return tmp_path / "knn-bm25"


def _no_indexing(monkeypatch):
    def refuse(*args, **kwargs):
        raise AssertionError("the index was built again instead of loaded")

    monkeypatch.setattr(bm25s.BM25, "index", refuse)


def test_second_index_of_the_same_states_is_loaded_and_answers_the_same(cache, monkeypatch):
    """Fails if the index is rebuilt on every start (the ~10 s each search worker paid), or if the
    loaded index ranks differently from the one built."""
    built = knn.BM25StateIndex(TEXTS).search(["nat ⊢ x + 0"], 3)
    assert [p.name for p in cache.iterdir()] and all((p / "complete").exists() for p in cache.iterdir())
    _no_indexing(monkeypatch)
    assert knn.BM25StateIndex(TEXTS).search(["nat ⊢ x + 0"], 3) == built


def test_changed_states_get_their_own_index(cache):
    """Fails if the key ignores the texts (changed traces would be served a stale index)."""
    knn.BM25StateIndex(TEXTS)
    other = knn.BM25StateIndex(TEXTS[:-1] + ["⊢ False -> True"])
    assert len(list(cache.iterdir())) == 2
    assert [i for i, _ in other.search(["False"], 1)[0]] == [3]


def test_damaged_or_unfinished_cache_is_rebuilt(cache, caplog):
    """A cached index whose files are damaged is rebuilt with a warning, and one without its
    ``complete`` mark (a killed save) is ignored. Fails if either is loaded as it is."""
    expected = knn.BM25StateIndex(TEXTS).search(["rev l"], 2)
    (where,) = cache.iterdir()
    for f in where.iterdir():
        if f.name != "complete":
            f.write_bytes(b"\x00garbage")
    assert knn.BM25StateIndex(TEXTS).search(["rev l"], 2) == expected
    assert "rebuilding the kNN index" in caplog.text
    (where / "complete").unlink()
    assert knn.BM25StateIndex(TEXTS).search(["rev l"], 2) == expected
    assert (where / "complete").exists()


def test_small_indexes_are_not_cached(tmp_path, monkeypatch):
    """Fails if every small index (tests, tiny projects) writes into the cache directory."""
    monkeypatch.setenv("DOJO_PROVER_CACHE", str(tmp_path))
    knn.BM25StateIndex(TEXTS)
    assert not (tmp_path / "knn-bm25").exists()


def test_scores_are_bm25s_own_with_repeated_query_tokens():
    """The index scores by one sparse product over a query's distinct tokens instead of bm25s's
    per-occurrence ``get_scores`` (~90 ms at p95 on long stdlib states): fails if a repeated token
    is counted once (``x`` thrice below outranks ``rev``), or if any score leaves bm25s's."""
    import numpy as np

    texts = TEXTS + ["x y : nat ⊢ x * y = y * x", "l : list nat ⊢ length (rev l) = length l"]
    index = knn.BM25StateIndex(texts)
    query = "x x x rev ⊢ = unknown_token"
    expected = index._bm25.get_scores(knn.tokenize(query))
    found = index.search([query], len(texts))[0]
    assert [i for i, _ in found] == sorted(np.flatnonzero(expected > 0), key=lambda i: (-expected[i], i))
    assert np.allclose([s for _, s in found], [expected[i] for i, _ in found], rtol=1e-5)
    assert found[0][0] in (0, 4)  # a state with x, not the one with rev
