"""kNN premise selection: the premises that the most similar traced states used.

The learned premise selector of the hammers (MaSh's k-NN for Isabelle, Kühlwein et al. 2013;
CoqHammer's, Czajka and Kaliszyk, "Hammer for Coq", JAR 2018): a new goal probably needs what the
goals most like it needed. Here a goal is a proof state, its neighbours are the ``neighbours``
traced states most similar to it by BM25 over state tokens (:class:`retrieval.state_index.BM25StateIndex`),
and a premise scores the sum of the BM25 similarities of the neighbours whose tactic used it. It
learns from the same (state, premises) pairs that PS-2 is trained on (:mod:`retrieval.training_data`),
needs no training step, and answers in milliseconds on a CPU.

Which neighbours may vote. With ``online=False`` (traces held out from what is evaluated, e.g. a
train split) every indexed state may. With ``online=True`` (the default, for traces that may hold
the very theorem being proved) a neighbour votes only if its theorem is itself a premise
accessible from the query's context: proved before it in its file or in a file it imports, the
rule Tactician and CoqHammer learn under, so a proof never retrieves from itself or from later
proofs. A query without a context has no such rule to apply and sees every neighbour.
"""

from __future__ import annotations

from pathlib import Path
from typing import Sequence

import numpy as np

from retrieval.base import Query, Retriever, top_k
from retrieval.corpus import Corpus
from retrieval.state_index import BM25StateIndex
from retrieval.training_data import NoTrainingPairs, TrainingPair, evaluation_theorem_names, load_pairs
from search_tree.errors import about


class NeighbourRetriever(Retriever):
    """Premises of the nearest traced states, weighted by similarity (see the module docstring).

    ``traces``: traced JSON files (LeanDojo format, as ``dojo-prover trace`` writes them);
    ``exclude``: evaluation files whose theorems are never indexed. A file without a usable pair
    is an error naming it, unless ``skip_unusable`` (for a caller that reads whatever is traced, such
    as a split of a project whose proofs name no premise of the corpus): then it is left out, and
    :class:`~retrieval.training_data.NoTrainingPairs` is raised only when every file is.
    """

    name = "knn"

    def __init__(self, corpus: Corpus, traces: str | Path | Sequence[str | Path], exclude: Sequence[str | Path] = (),
                 neighbours: int = 64, online: bool = True, skip_unusable: bool = False) -> None:
        super().__init__(corpus)
        paths = [traces] if isinstance(traces, (str, Path)) else list(traces)
        if not paths:
            raise ValueError("knn needs traced files to learn from (traces=...)")
        skip = evaluation_theorem_names(exclude)
        pairs: list[TrainingPair] = []
        for path in paths:
            with about(f"knn traces {path}"):  # a file without usable pairs, or not JSON
                try:
                    pairs += load_pairs(path, corpus, skip)
                except NoTrainingPairs:
                    if not skip_unusable:
                        raise
        if not pairs:
            raise NoTrainingPairs(f"knn: no traced file of {len(paths)} yields a training pair for {corpus.source}")
        self.index = BM25StateIndex([p.query for p in pairs])
        self.positives = [np.asarray(p.positives, dtype=np.int64) for p in pairs]
        # a theorem by its name in its own file: short names repeat across files (Coq's stdlib has
        # 1441 such), and by name alone a later lemma, or the query's own proof, would take an
        # earlier namesake's place and vote
        ids = [corpus.declared_in(p.theorem, p.file_path) for p in pairs]
        self.theorem_ids = np.asarray([-1 if i is None else i for i in ids], dtype=np.int64)
        self.neighbours, self.online = neighbours, online

    def _rank(self, query: Query, mask: np.ndarray | None, k: int) -> list[tuple[int, float]]:
        voters = None
        if self.online and mask is not None:  # neighbours from proofs accessible from the query only
            voters = (self.theorem_ids >= 0) & mask[np.maximum(self.theorem_ids, 0)]
        (near,) = self.index.search([query.text], self.neighbours, None if voters is None else [voters])
        scores = np.zeros(len(self.corpus))
        for j, similarity in near:
            scores[self.positives[j]] += similarity
        return top_k(scores, mask, k, floor=0.0)
