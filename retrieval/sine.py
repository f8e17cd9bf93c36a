"""SineQuoNon: the SInE selection of K. Hoder and A. Voronkov, "Sine Qua Non for Large Theory
Reasoning" (CADE 2011), as a ranking retriever.

A symbol ``s`` *triggers* a premise ``A`` that mentions it when ``s`` is among the rarest symbols
of ``A`` up to the tolerance ``t``: ``occ(s) <= t * min(occ(s') for s' in A)``, where ``occ``
counts the premises a symbol occurs in. Symbols that occur in at most ``g`` premises (the
generality threshold) trigger every premise they occur in. Selection is a breadth-first closure:
the goal's symbols trigger premises at depth 1, the symbols of those trigger premises at depth 2,
and so on up to the depth limit ``d``. A premise is thus selected because of what makes it
specific, not because it shares ``=`` or ``≤`` with the goal; symbols on the deny list (equality,
order, connectives) never trigger anything.

Ranking: by depth first (the defining property of SInE); within a depth by the weight of the
premise's symbols already triggered when it was reached (each symbol weighing
``1 + 2 / log(occ + 1)``, as in MePo), so that a premise sharing a rare symbol with the goal comes
before one sharing only common ones. The reported score is ``weight / (1 + weight) - depth``. SInE
selects a set: when the closure stops with fewer than ``k`` premises,
fewer are returned.
"""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp

from retrieval.base import Query, Retriever
from retrieval.corpus import Corpus
from retrieval.symbol_index import SymbolIndex

class SInERetriever(Retriever):
    """SInE with tolerance ``t`` (>= 1), generality threshold ``g`` and depth limit ``d`` (None: none);
    ``deny`` defaults to the corpus language's logical constants (equality, order, connectives,
    truth: symbols that would trigger half the library)."""

    name = "sine"

    def __init__(self, corpus: Corpus, t: float = 1.5, g: int = 0, d: int | None = None,
                 deny: frozenset[str] | None = None) -> None:
        super().__init__(corpus)
        if t < 1:
            raise ValueError(f"SInE tolerance must be >= 1, got {t}")
        self.t, self.g, self.d = t, g, d
        self.deny = corpus.language.logical_constants if deny is None else frozenset(deny)
        self.index = SymbolIndex(corpus)
        allowed = np.ones(len(self.index.vocab), dtype=bool)
        allowed[self.index.ids(self.deny)] = False
        self.allowed = allowed
        inc = self.index.csr
        occ = self.index.freq
        # rarest allowed symbol of each premise (inf for premises with none)
        rows = np.repeat(np.arange(inc.shape[0]), np.diff(inc.indptr))
        entry_occ = np.where(allowed[inc.indices], occ[inc.indices], np.inf)
        row_min = np.full(inc.shape[0], np.inf)
        np.minimum.at(row_min, rows, entry_occ)
        triggers = (entry_occ <= t * row_min[rows]) | (entry_occ <= g)
        self.trigger = sp.csc_matrix(
            (np.ones(int(triggers.sum())), (rows[triggers], inc.indices[triggers])), shape=inc.shape
        )
        weights = np.where(allowed, 1.0 + 2.0 / np.log(occ + 1.0), 0.0)
        self._w_csr, _ = self.index.weighted(weights)

    def _rank(self, query: Query, mask: np.ndarray | None, k: int) -> list[tuple[int, float]]:
        n = len(self.corpus)
        triggered = np.zeros(len(self.index.vocab), dtype=bool)
        available = np.ones(n, dtype=bool) if mask is None else mask.copy()
        frontier = self.index.ids(query.symbols(self.corpus.language))
        frontier = frontier[self.allowed[frontier]]
        ranked: list[tuple[int, float]] = []
        depth = 0
        while len(frontier) and len(ranked) < k and (self.d is None or depth < self.d):
            depth += 1
            triggered[frontier] = True
            hit = np.zeros(n, dtype=bool)
            hit[self.trigger[:, frontier].indices] = True
            reached = np.flatnonzero(hit)
            reached = reached[available[reached]]
            if len(reached) == 0:
                break
            available[reached] = False
            covered = self._w_csr[reached] @ triggered.astype(np.float64)
            order = np.lexsort((reached, -covered))
            ranked.extend((int(reached[j]), float(covered[j] / (1 + covered[j]) - depth)) for j in order)
            syms = self.index.symbols_of(reached)
            frontier = syms[~triggered[syms] & self.allowed[syms]]
        return ranked[:k]
