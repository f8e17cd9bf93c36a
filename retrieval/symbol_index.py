"""The premise-by-symbol incidence matrix that MePo and SInE run on.

Both algorithms repeatedly ask "which premises mention these symbols?"; a sparse matrix answers
that from its columns (an inverted index: symbol -> premises) and "which symbols does this premise
mention?" from its rows, without rescanning premise texts.
"""

from __future__ import annotations

from typing import Iterable

import numpy as np
import scipy.sparse as sp

from retrieval.corpus import Corpus


class SymbolIndex:
    """Symbols of a corpus numbered, with ``incidence[premise, symbol] = 1`` in CSR and CSC forms."""

    def __init__(self, corpus: Corpus) -> None:
        self.vocab: dict[str, int] = {}
        rows: list[int] = []
        cols: list[int] = []
        for i, syms in enumerate(corpus.symbols):
            for s in syms:
                rows.append(i)
                cols.append(self.vocab.setdefault(s, len(self.vocab)))
        data = np.ones(len(rows), dtype=np.float64)
        self.csr = sp.csr_matrix((data, (rows, cols)), shape=(len(corpus), len(self.vocab)))
        self.csc = self.csr.tocsc()
        self.freq = np.asarray(self.csr.sum(axis=0)).ravel()  # premises mentioning each symbol
        self.names = np.array(list(self.vocab), dtype=object)

    def ids(self, symbols: Iterable[str]) -> np.ndarray:
        """Ids of the known ``symbols`` (unknown ones cannot select anything and are dropped)."""
        return np.array(sorted({self.vocab[s] for s in symbols if s in self.vocab}), dtype=np.int64)

    def symbols_of(self, premises: np.ndarray) -> np.ndarray:
        """Ids of every symbol that occurs in any of ``premises`` (indices into the corpus)."""
        present = np.zeros(len(self.vocab), dtype=bool)
        present[self.csr[premises].indices] = True  # a flag array: cheaper than np.unique's hashing
        return np.flatnonzero(present)

    def weighted(self, weights: np.ndarray) -> tuple[sp.csr_matrix, sp.csc_matrix]:
        """The incidence matrix with column ``s`` scaled by ``weights[s]``, in CSR and CSC form."""
        w = self.csr @ sp.diags(weights)
        return w.tocsr(), w.tocsc()
