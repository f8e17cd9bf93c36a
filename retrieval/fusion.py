"""Reciprocal-rank fusion of several retrievers (G. V. Cormack, C. L. A. Clarke and S. Büttcher,
"Reciprocal Rank Fusion outperforms Condorcet and individual Rank Learning Methods", SIGIR 2009).

Each member ranks its own ``depth`` best premises; a premise scores ``sum(1 / (rrf_k + rank))``
over the members that ranked it (ranks from 1), with ``rrf_k = 60`` as in the paper. Only ranks
are combined, so members with incomparable scores (BM25 sums, cosine similarities, MePo rounds)
fuse without calibration.
"""

from __future__ import annotations

from typing import Any, Sequence

import numpy as np

from retrieval.base import Query, Retriever, build_retriever
from retrieval.corpus import Corpus


def reciprocal_rank_fusion(rankings: Sequence[Sequence[int]], rrf_k: float = 60.0) -> list[tuple[int, float]]:
    """Fuse rankings of item ids (best first) into one, best first; ties keep first appearance."""
    scores: dict[int, float] = {}
    for ranking in rankings:
        for rank, item in enumerate(ranking, 1):
            scores[item] = scores.get(item, 0.0) + 1.0 / (rrf_k + rank)
    return sorted(scores.items(), key=lambda kv: -kv[1])


class FusionRetriever(Retriever):
    """RRF of ``retrievers`` (names in the registry, or built retrievers).

    ``options`` maps a member's name to the keyword options it is built with, e.g.
    ``{"ps2": {"model": "/path/to/checkpoint"}}``.
    """

    name = "fusion"

    def __init__(self, corpus: Corpus, retrievers: Sequence[str | Retriever] = ("bm25", "mepo"),
                 options: dict[str, dict[str, Any]] | None = None, rrf_k: float = 60.0, depth: int = 100) -> None:
        super().__init__(corpus)
        options = options or {}
        self.members = [
            r if isinstance(r, Retriever) else build_retriever(r, corpus, **options.get(r, {})) for r in retrievers
        ]
        if not self.members:
            raise ValueError("fusion needs at least one retriever")
        self.rrf_k, self.depth = rrf_k, depth

    def _rank(self, query: Query, mask: np.ndarray | None, k: int) -> list[tuple[int, float]]:
        return self._rank_batch([query], [mask], k)[0]

    def _rank_batch(self, queries: list[Query], masks: list[np.ndarray | None], k: int) -> list[list[tuple[int, float]]]:
        per_member = [m._rank_batch(queries, masks, max(k, self.depth)) for m in self.members]
        return [
            reciprocal_rank_fusion([[i for i, _ in member[q]] for member in per_member], self.rrf_k)[:k]
            for q in range(len(queries))
        ]
