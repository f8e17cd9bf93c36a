"""Indexes of traced proof states: the nearest states of a query, by BM25 or by embeddings.

The kNN tactic generator (:mod:`generator.knn`), proof retrieval (:mod:`generator.proof_retrieval`)
and the kNN premise retriever (:mod:`retrieval.neighbours`) all start from the traced states most
similar to the current one; this is that shared step. Tokens are identifiers, numbers and single
symbols, since ``⊢``, ``+`` and ``∀`` carry meaning in a state.
"""

from __future__ import annotations

import hashlib
import logging
import os
import re
import shutil
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, Protocol

_log = logging.getLogger(__name__)

_TOKEN = re.compile(r"[^\W\d]\w*|\d+|[^\w\s]", re.UNICODE)


def tokenize(text: str) -> list[str]:
    """Identifiers, numbers and single symbols (``⊢``, ``+``, ``∀`` carry meaning in states)."""
    return _TOKEN.findall(text)


class StateIndex(Protocol):
    """Nearest indexed states of each query, as ``[(example_index, score)]``, best first; with
    ``masks`` (one boolean array or None per query) only examples inside the query's mask."""

    def search(self, queries: list[str], k: int, masks: Sequence[Any] | None = None) -> list[list[tuple[int, float]]]: ...


#: indexes of at least this many states are kept in the cache directory: tokenising and indexing the
#: ~80,000 traced stdlib states takes ~10 s, which every search worker would pay at start-up
CACHED_FROM = 10_000


class BM25StateIndex:
    """BM25 (Robertson and Zaragoza 2009) over state tokens, with ``bm25s``.

    A large index is saved under ``cache_root()/knn-bm25/<key>`` and loaded from there next time.
    The key is a digest of the texts themselves and of the tokeniser, so changed traces or a
    changed tokeniser never serve a stale index; an unreadable cached index is rebuilt."""

    def __init__(self, texts: Sequence[str]) -> None:
        import bm25s

        where = _cache_path(texts) if len(texts) >= CACHED_FROM else None
        self._bm25 = _load_bm25(where) if where is not None else None
        if self._bm25 is None:
            self._bm25 = bm25s.BM25()
            self._bm25.index([tokenize(t) for t in texts], show_progress=False)
            if where is not None:
                _save_bm25(self._bm25, where)
        # bm25s's term weights as a document-by-term matrix, scored by one sparse product over the
        # query's distinct tokens (retrieval.bm25.column_scores): bm25s itself adds a token's postings
        # once per occurrence with np.add.at, ~90 ms at p95 for a long state, against ~3 ms
        import scipy.sparse as sp

        weights = self._bm25.scores
        self._matrix = sp.csc_matrix((weights["data"], weights["indices"], weights["indptr"]),
                                     shape=(weights["num_docs"], len(weights["indptr"]) - 1))
        self._vocab: dict[str, int] = self._bm25.vocab_dict  # (BM25, bm25s's default, scores no absent token)

    def search(self, queries: list[str], k: int, masks: Sequence[Any] | None = None) -> list[list[tuple[int, float]]]:
        masks = masks if masks is not None else [None] * len(queries)
        return [self._top(tokenize(q), k, m) for q, m in zip(queries, masks, strict=True)]

    def _top(self, tokens: list[str], k: int, mask: Any) -> list[tuple[int, float]]:
        """Top ``k`` positive scores inside ``mask``, ties by index. Selecting among the positive
        scores only (not with bm25s's ``weight_mask``, whose top-k partitions every zeroed score)
        keeps a masked query as fast as an unmasked one."""
        import numpy as np

        from retrieval.bm25 import column_scores

        if not tokens:
            return []
        scores = column_scores(self._matrix, self._vocab, tokens)
        if mask is not None:
            scores = scores * mask
        cand = np.flatnonzero(scores > 0)
        if len(cand) > k:
            cand = cand[np.argpartition(-scores[cand], k - 1)[:k]]
        order = cand[np.lexsort((cand, -scores[cand]))]
        return [(int(i), float(scores[i])) for i in order]


def _cache_path(texts: Sequence[str]) -> Path:
    import bm25s

    from search_tree.cache import cache_root

    digest = hashlib.sha1(f"{_TOKEN.pattern}\0{bm25s.__version__}\0{len(texts)}".encode())
    for text in texts:
        digest.update(text.encode())
        digest.update(b"\0")
    return cache_root() / "knn-bm25" / digest.hexdigest()[:20]


def _load_bm25(where: Path) -> Any | None:
    """The index saved at ``where``, or None when there is none or it cannot be read."""
    import bm25s

    if not (where / "complete").exists():
        return None
    try:
        return bm25s.BM25.load(str(where))
    except Exception as exc:  # noqa: BLE001 - any damage means: rebuild it
        _log.warning("rebuilding the kNN index: the cached one at %s is unreadable (%s)", where, exc)
        shutil.rmtree(where, ignore_errors=True)
        return None


def _save_bm25(bm25: Any, where: Path) -> None:
    """Save into a fresh directory renamed into place, marked ``complete`` last, so a killed save
    leaves nothing that looks finished."""
    tmp = where.with_name(f"{where.name}.{os.getpid()}.tmp")
    shutil.rmtree(tmp, ignore_errors=True)
    try:
        bm25.save(str(tmp))
        (tmp / "complete").touch()
        shutil.rmtree(where, ignore_errors=True)
        tmp.rename(where)
    except OSError as exc:  # a full or read-only cache costs start-up time, nothing else
        _log.warning("could not cache the kNN index at %s: %s", where, exc)
        shutil.rmtree(tmp, ignore_errors=True)


class DenseStateIndex:
    """Cosine similarity of embeddings from ``encode(texts) -> array [n, dim]`` (e.g. a
    sentence-transformers model's ``encode``)."""

    def __init__(self, texts: Sequence[str], encode: Callable[[list[str]], Any]) -> None:
        import numpy as np

        self._np = np
        self._encode = encode
        self._matrix = self._normalise(np.asarray(encode(list(texts)), dtype=np.float32))

    def _normalise(self, m: Any) -> Any:
        return m / self._np.maximum(self._np.linalg.norm(m, axis=1, keepdims=True), 1e-12)

    def search(self, queries: list[str], k: int, masks: Sequence[Any] | None = None) -> list[list[tuple[int, float]]]:
        np = self._np
        q = self._normalise(np.asarray(self._encode(queries), dtype=np.float32))
        sims = q @ self._matrix.T
        k = min(k, sims.shape[1])
        out = []
        for row, mask in zip(sims, masks if masks is not None else [None] * len(queries)):
            if mask is not None:
                row = np.where(mask, row, 0.0)
            top = np.argpartition(-row, k - 1)[:k]
            top = top[np.argsort(-row[top])]
            out.append([(int(i), float(row[i])) for i in top if row[i] > 0])
        return out
