"""The retriever interface, the query built from a proof state, and the registry of retrievers.

Every retriever answers ``retrieve(state, context, k) -> [(premise, score)]`` (best first) over a
:class:`~retrieval.corpus.Corpus`, restricted to the premises accessible from ``context`` when its
file is part of the corpus, so that a prover or an ablation swaps retrievers by name only.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from dataclasses import dataclass
from functools import cached_property
from typing import Any, Sequence, Union

import numpy as np

from retrieval.corpus import Corpus, Position, Premise
from retrieval.symbols import extract_symbols
from search_tree.language import Language
from search_tree.protocol import TacticState, Theorem
from search_tree.registry import Registry
from search_tree.syntax.printed import parse_goals


@dataclass(frozen=True)
class RetrievalContext:
    """Where the query comes from: the file and position that decide which premises are accessible."""

    file_path: str = ""
    position: Position | None = None
    theorem_name: str = ""

    @classmethod
    def of(cls, context: "ContextLike") -> "RetrievalContext":
        if context is None:
            return cls()
        if isinstance(context, RetrievalContext):
            return context
        return cls(context.file_path, context.position, context.full_name)


ContextLike = Union[RetrievalContext, Theorem, None]


@dataclass(frozen=True)
class Query:
    """A proof state as retrievers read it: goal targets and hypotheses ``(names, type)``."""

    text: str
    targets: tuple[str, ...]
    hypotheses: tuple[tuple[tuple[str, ...], str], ...]

    @classmethod
    def from_state(cls, state: "StateLike") -> "Query":
        """Build a query from a :class:`TacticState` (its parsed goals) or a printed state.

        Printed states are read by :func:`search_tree.syntax.printed.parse_goals` (Lean or Coq
        layout; a bare statement is one target). Hypotheses that share a type and follow each
        other form one entry (``a b : ℕ``), whichever way the state came; a let-bound one reads
        ``T := value``, so that the value's constants count too.
        """
        pp = state.pp if isinstance(state, TacticState) else state
        goals = (state.goals if isinstance(state, TacticState) else ()) or parse_goals(pp)
        hyps: list[tuple[tuple[str, ...], str]] = []
        for h in (h for g in goals for h in g.hypotheses):
            text = h.type if h.value is None else f"{h.type} := {h.value}"
            if hyps and hyps[-1][1] == text:
                hyps[-1] = (hyps[-1][0] + (h.name,), text)
            else:
                hyps.append(((h.name,), text))
        return cls(pp, tuple(g.target for g in goals), tuple(hyps))

    @cached_property
    def local_names(self) -> frozenset[str]:
        return frozenset(n for names, _ in self.hypotheses for n in names)

    def symbols(self, language: Language) -> frozenset[str]:
        """Constants of the targets and hypothesis types, local names excluded."""
        out: set[str] = set()
        for text in (*self.targets, *(t for _, t in self.hypotheses)):
            out |= extract_symbols(text, language, self.local_names)
        return frozenset(out)


StateLike = Union[str, TacticState]
Ranking = list[tuple[Premise, float]]


class Retriever(ABC):
    """Ranks the premises of a corpus for a proof state.

    Subclasses implement :meth:`_rank` on corpus indices; this class turns states into
    :class:`Query` objects and contexts into accessibility masks.
    """

    name: str = ""

    def __init__(self, corpus: Corpus) -> None:
        self.corpus = corpus

    def retrieve(self, state: StateLike, context: ContextLike = None, k: int = 10) -> Ranking:
        """The ``k`` best accessible premises for ``state``, best first, with their scores."""
        return self.batch_retrieve([state], [context], k)[0]

    def batch_retrieve(self, states: Sequence[StateLike], contexts: Sequence[ContextLike], k: int = 10) -> list[Ranking]:
        """:meth:`retrieve` for several states; dense retrievers encode them in one batch."""
        queries = [Query.from_state(s) for s in states]
        masks = [self.mask(c) for c in contexts]
        ranked = self._rank_batch(queries, masks, k)
        return [[(self.corpus.premises[i], float(s)) for i, s in r] for r in ranked]

    def mask(self, context: ContextLike) -> np.ndarray | None:
        """Accessibility mask for ``context`` (None: every premise is accessible).

        The theorem being proved is never its own premise, even when the corpus (taken from
        another version of the library) places it earlier than the context says; a premise of
        another file with the same name stays accessible.
        """
        ctx = RetrievalContext.of(context)
        mask = self.corpus.accessible_mask(ctx.file_path, ctx.position) if ctx.file_path else None
        own = self.corpus.declared_in(ctx.theorem_name, ctx.file_path) if ctx.theorem_name else None
        if own is not None:
            mask = np.ones(len(self.corpus), dtype=bool) if mask is None else mask
            mask[own] = False
        return mask

    @abstractmethod
    def _rank(self, query: Query, mask: np.ndarray | None, k: int) -> list[tuple[int, float]]:
        """Indices into ``corpus.premises`` with scores, best first, at most ``k``, all in ``mask``."""

    def _rank_batch(self, queries: list[Query], masks: list[np.ndarray | None], k: int) -> list[list[tuple[int, float]]]:
        return [self._rank(q, m, k) for q, m in zip(queries, masks, strict=True)]


def top_k(scores: np.ndarray, mask: np.ndarray | None, k: int, floor: float = -np.inf) -> list[tuple[int, float]]:
    """Indices of the ``k`` highest ``scores`` inside ``mask`` and above ``floor``, best first.

    Ties are broken by corpus order (stable), so results are deterministic.
    """
    if mask is not None:
        scores = np.where(mask, scores, -np.inf)
    k = min(k, len(scores))
    if k <= 0:
        return []
    part = np.argpartition(-scores, k - 1)[:k]
    order = part[np.lexsort((part, -scores[part]))]
    return [(int(i), float(scores[i])) for i in order if scores[i] > floor]


# name -> "module:Class"; modules are imported on first use so that heavy ones stay unloaded
RETRIEVERS = Registry("retriever", import_paths=True, targets={
    "ps2": "retrieval.dense:DenseRetriever",
    "mepo": "retrieval.mepo:MePoRetriever",
    "sine": "retrieval.sine:SInERetriever",
    "bm25": "retrieval.bm25:BM25Retriever",
    "knn": "retrieval.neighbours:NeighbourRetriever",
    "fusion": "retrieval.fusion:FusionRetriever",
})


def retriever_class(name: str) -> type[Retriever]:
    """The retriever class registered as ``name`` (:class:`~search_tree.registry.UnknownName` if none)."""
    return RETRIEVERS.load(name)


def build_retriever(name: str, corpus: Corpus, **options: Any) -> Retriever:
    """Build the retriever registered as ``name`` over ``corpus`` with its keyword ``options``."""
    return retriever_class(name)(corpus, **options)
