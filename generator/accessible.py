"""Which traced proofs a theorem may learn from: the premise rule, applied to proofs.

Online learning (Tactician: Blaauwbroek, Urban and Geuvers, "The Tactician", CICM 2020) uses
every proof that precedes the theorem being proved. We make "precedes" exact with the rule the
retrievers use for premises (:meth:`retrieval.corpus.Corpus.accessible_mask`): a traced proof is
*accessible* from a theorem of file ``F`` at position ``p`` when

* its theorem is declared in a file that ``F`` imports, transitively (the corpus's import
  closure, :meth:`~retrieval.corpus.Corpus.imported_files`), or
* it is declared in ``F`` itself, before ``p``;

and never when it is the theorem itself (same name and file, whatever the positions say). Because
the rule depends on the theorem only, a generator may index the whole traced library whatever the
split and still never see the proof it is asked for, nor a later lemma of its file, nor a file
that imports the theorem's file.

Where nothing is known the rule hides nothing, as for premises: a context without a file, or a
file the corpus does not list, sees every other file (only its own proof is hidden); without a
position, every other theorem of its own file counts. A library traced without its
``corpus.jsonl`` therefore gets the same-file rule only.

Masks are boolean arrays over the items (tactics, or theorems) in the order given, built from
per-file index arrays and cached per context, so a query costs a dictionary look-up once its
theorem has been seen (``benchmarks/knn_speed.py`` measures it).
"""

from __future__ import annotations

import bisect
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache

import numpy as np

from retrieval.corpus import Corpus, Position
from search_tree.protocol import Theorem


@dataclass(frozen=True)
class ProofOwner:
    """The theorem a traced item (a tactic, a whole proof) belongs to."""

    file_path: str
    start: Position | None
    theorem: str


class AccessibleProofs:
    """Accessibility masks over ``owners`` (one per item) for theorems; see the module docstring."""

    def __init__(self, owners: Sequence[ProofOwner], corpus: Corpus | None = None) -> None:
        self.owners = list(owners)
        self.corpus = corpus
        self._corpus_files = frozenset(corpus.files) if corpus is not None else frozenset()
        by_file: dict[str, list[tuple[Position, int]]] = {}
        by_name: dict[str, list[int]] = {}
        for i, o in enumerate(self.owners):
            by_file.setdefault(o.file_path, []).append((_start(o.start), i))
            by_name.setdefault(o.theorem, []).append(i)
        # per file: item indices sorted by their theorem's start, and those starts (for bisect)
        self._items: dict[str, np.ndarray] = {}
        self._starts: dict[str, list[Position]] = {}
        self._theorem_starts: dict[str, list[Position]] = {}  # distinct, sorted: one per theorem
        for path, pairs in by_file.items():
            pairs.sort()
            self._items[path] = np.array([i for _, i in pairs], dtype=np.int64)
            self._starts[path] = [s for s, _ in pairs]
            self._theorem_starts[path] = sorted({s for s, _ in pairs})
        self._by_name = {n: np.array(ix, dtype=np.int64) for n, ix in by_name.items()}

    def __len__(self) -> int:
        return len(self.owners)

    def mask(self, context: Theorem | None) -> np.ndarray:
        """Boolean mask of the items accessible from ``context``: a cached array, not to be modified."""
        if context is None:
            return self._mask("", None, "")
        position = tuple(context.position) if context.position is not None else None
        return self._mask(context.file_path, position, context.full_name)

    @lru_cache(maxsize=1024)  # noqa: B019 (bounded; an index lives as long as its run anyway)
    def _mask(self, path: str, position: Position | None, name: str) -> np.ndarray:
        if path in self._corpus_files:
            assert self.corpus is not None  # _corpus_files is empty without a corpus
            mask = np.zeros(len(self.owners), dtype=bool)
            for dep in self.corpus.imported_files(path):
                items = self._items.get(dep)
                if items is not None:
                    mask[items] = True
        else:
            mask = np.ones(len(self.owners), dtype=bool)
        own = self._items.get(path)
        if own is not None:
            cut = len(own) if position is None else bisect.bisect_left(self._starts[path], position)
            mask[own[:cut]] = True
            mask[own[cut:]] = False
        if name in self._by_name:
            same = self._by_name[name]
            if own is not None:  # the theorem's own file is traced: its namesakes elsewhere are other theorems
                same = same[[self.owners[i].file_path == path for i in same]]
            mask[same] = False
        mask.flags.writeable = False
        return mask

    def same_file_distance(self, item: int, context: Theorem) -> int | None:
        """How many traced theorems of the context's file lie between ``item``'s theorem and the
        context (0: the one just before); None when ``item`` is of another file or not before it."""
        owner = self.owners[item]
        if not context.file_path or owner.file_path != context.file_path or context.position is None:
            return None
        start, position = _start(owner.start), tuple(context.position)
        if start >= position:
            return None
        starts = self._theorem_starts[owner.file_path]
        return bisect.bisect_left(starts, position) - 1 - bisect.bisect_left(starts, start)


def _start(position: Sequence[int] | None) -> Position:
    return (int(position[0]), int(position[1])) if position is not None else (0, 0)
