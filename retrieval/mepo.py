"""MePo, the Meng–Paulson relevance filter (J. Meng and L. C. Paulson, "Lightweight relevance
filtering for machine-generated resolution problems", J. Applied Logic 7(1), 2009; Isabelle's
``sledgehammer_mepo.ML``).

Starting from the symbols of the goal (targets and hypotheses), each round accepts every premise
whose *relevance* reaches the pass mark ``p``, adds the accepted premises' symbols to the relevant
set, and raises the pass mark to ``p + (1 - p) / c``, so that each round is stricter than the last
and the selection drifts away from the goal only slowly. The relevance of a premise is
``R / (R + I)``, where ``R`` sums the weights of its symbols that are relevant and ``I`` those that
are not; a symbol's weight ``1 + 2 / log(freq + 1)`` makes rare symbols count more than common ones.

Premises are ranked by round of acceptance, then by relevance, then by the relevant weight they
carry (a premise that shares more rare symbols with the goal first). When the rounds stop before
``k`` premises are accepted, the best of the rest by their last relevance follow, as Isabelle does.

Each round touches only the premises that mention a newly relevant symbol: the relevant weight of
every premise is kept in an accumulator and updated from the inverted index (the columns of the
weighted incidence matrix).
"""

from __future__ import annotations

import numpy as np

from retrieval.base import Query, Retriever
from retrieval.corpus import Corpus
from retrieval.symbol_index import SymbolIndex


class MePoRetriever(Retriever):
    """Meng–Paulson relevance filter; ``p`` is the first pass mark, ``c`` the convergence factor."""

    name = "mepo"

    def __init__(self, corpus: Corpus, p: float = 0.6, c: float = 2.4, max_rounds: int = 100) -> None:
        super().__init__(corpus)
        if not 0 < p <= 1 or c <= 0:
            raise ValueError(f"MePo needs 0 < p <= 1 and c > 0, got p={p}, c={c}")
        self.p, self.c, self.max_rounds = p, c, max_rounds
        self.index = SymbolIndex(corpus)
        self.weights = 1.0 + 2.0 / np.log(self.index.freq + 1.0)
        self._w_csr, self._w_csc = self.index.weighted(self.weights)
        self.total_weight = np.asarray(self._w_csr.sum(axis=1)).ravel()

    def _rank(self, query: Query, mask: np.ndarray | None, k: int) -> list[tuple[int, float]]:
        n = len(self.corpus)
        relevant = np.zeros(len(self.index.vocab), dtype=bool)
        rel_weight = np.zeros(n)
        accepted_round = np.full(n, -1, dtype=np.int64)
        available = np.ones(n, dtype=bool) if mask is None else mask.copy()
        available &= self.total_weight > 0
        new = self.index.ids(query.symbols(self.corpus.language))
        p = self.p
        num_accepted = 0
        relevance = np.zeros(n)
        for round_ in range(self.max_rounds):
            if len(new) == 0 or num_accepted >= k:
                break
            relevant[new] = True
            postings = self._w_csc[:, new]  # the premises mentioning a new symbol, with weights
            gained = np.bincount(postings.indices, weights=postings.data, minlength=n)
            touched = np.flatnonzero(gained)  # weights are positive: exactly the premises reached
            rel_weight += gained
            relevance[touched] = rel_weight[touched] / self.total_weight[touched]
            passing = touched[available[touched] & (relevance[touched] >= p)]
            if len(passing) == 0:
                break
            accepted_round[passing] = round_
            available[passing] = False
            num_accepted += len(passing)
            syms = self.index.symbols_of(passing)
            new = syms[~relevant[syms]]
            p += (1 - p) / self.c
        # round first, then relevance, then relevant weight; the best of the rest after them
        accepted = np.flatnonzero(accepted_round >= 0)
        keys = (accepted, -rel_weight[accepted], -relevance[accepted], accepted_round[accepted])
        best = accepted[np.lexsort(keys)][:k]
        scores = relevance[best] - accepted_round[best]
        if len(best) < k:
            rest = np.flatnonzero(available & (rel_weight > 0))
            if len(rest) > k - len(best):
                rest = rest[np.argpartition(-relevance[rest], k - len(best) - 1)[:k - len(best)]]
            rest = rest[np.lexsort((rest, -rel_weight[rest], -relevance[rest]))]
            best = np.concatenate([best, rest])
            scores = np.concatenate([scores, relevance[rest] - self.max_rounds])
        return [(int(i), float(s)) for i, s in zip(best, scores)]
