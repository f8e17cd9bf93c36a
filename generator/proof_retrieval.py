"""Proof retrieval: propose the proofs of the most similar accessible lemmas (Rango-style).

Rango (Thompson, Saavedra, Chen, Lerner, First, "Rango: Adaptive Retrieval-Augmented Proving for
Automated Software Verification", ICSE 2025 / arXiv 2024) retrieves, besides premises, the *whole
proofs* of lemmas of the same project that resemble the theorem, and finds that this is where most
of its gain comes from, with BM25 retrieving better than dense embeddings. Lemmas of one file are
often proved alike: the same induction, the same ``unfold; intros; ...`` opening, the same
closing automation. We do the same over traced proofs, without a language model:

1. index each traced theorem by its first ``state_before`` (its statement as a goal, section
   variables as hypotheses), BM25 over state tokens (:class:`retrieval.state_index.BM25StateIndex`);
2. for a state (the theorem's first state, or any goal during search), take the ``k`` most
   similar theorems *accessible* from the theorem being proved (:mod:`generator.accessible`: its
   file's imports, earlier lemmas of its file, never itself);
3. adapt each proof to the current names with kNN's hypothesis renaming (the lemma's first-state
   hypotheses mapped to the current goal's, :func:`generator.knn.adapt_hypothesis_names`, in the
   traces' language);
4. propose, per retrieved proof, two actions: its **macro** (below) and its **opening tactic**,
   and, where the lemma's statement is a twin of the current goal (the same but for a few
   constants), both carried over to the goal's constants (:mod:`generator.analogy`: the proof of
   ``neg_cos`` made one of ``neg_sin``); a proof's weight is ``exp((score / top - 1) / τ)``; the
   opening tactic gets ``opening`` times its proof's weight; weights of equal actions add up, and
   are returned as log-probabilities.

Macros, and why they are sound. The Coq backend runs one tactic sentence per action, so a proof
script ``t1. t2. ... tn.`` cannot be sent as it is. ``t1; t2`` runs ``t2`` on *every* goal that
``t1`` leaves, which is the script ``t1. t2.`` exactly when ``t1`` leaves one goal. So the macro of
a proof is ``(t1); (t2); ...; (tj)`` for the longest prefix in which every tactic but the last
left exactly one goal in the trace (the last may close the proof or branch); each tactic is
parenthesised (unless it is one word) so that nothing in it binds across the ``;``: its own
``;``, ``||``, ``try``, ``now`` or a ``let``/``match`` body. A tactic with a goal
selector (``2:``, ``all:``) or a bullet or brace ends the prefix, since neither can be chained.
On the current goal the macro may of course fail (other hypotheses, other lemmas): that costs one
tactic call, and the search goes on from the opening tactic, where kNN and the templates take over.
A whole linear proof becomes one action that closes the goal, which best-first search reaches in
one expansion instead of ``n``.
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from generator.accessible import AccessibleProofs, ProofOwner
from generator.analogy import TwinIndex, analogy, carried_over
from generator.base import Suggestion, TacticGenerator
from generator.knn import adapt_hypothesis_names, traced_corpus
from generator.state_parsing import hypotheses_of
from generator.traced import load_theorems
from retrieval.corpus import Corpus
from retrieval.state_index import BM25StateIndex, StateIndex
from search_tree.language import Language
from search_tree.protocol import Hypothesis, TacticState, Theorem

_FOCUSING = re.compile(r"[-+*]+|[{}]|·|(?:\d+|all|\[\w+\])\s*:.*", re.S)
_ATOMIC = re.compile(r"[\w']+")  # one word (``intros``, ``trivial``): nothing in it can bind a ``;``
_RULE = re.compile(r"^\s*={4,}\s*$", re.M)
_UNFOCUSED = re.compile(r"\*\*\* (?:Unfocused|Remaining) goals|\(shelved:")


@dataclass(frozen=True)
class TracedProof:
    """A traced theorem as proof retrieval uses it."""

    theorem: str
    file_path: str
    start: tuple[int, int] | None
    first_state: str
    macro: str  # the chainable prefix as one sentence (see the module docstring)
    opening: str  # the first tactic

    @property
    def hypotheses(self) -> tuple[Hypothesis, ...]:
        return hypotheses_of(self.first_state)


def one_goal(state: str) -> bool:
    """Whether a traced state is exactly one goal, nothing unfocused or shelved."""
    return len(_RULE.findall(state)) == 1 and not _UNFOCUSED.search(state)


def chain(steps: Sequence[dict]) -> str | None:
    """The macro of a traced proof (its ``traced_tactics``), or None when it has no first tactic
    that can stand alone (see the module docstring for the rule)."""
    parts: list[str] = []
    for step in steps:
        tactic = " ".join(step["tactic"].split()).removesuffix(".").strip()
        if not tactic or _FOCUSING.fullmatch(tactic):
            break
        parts.append(tactic if _ATOMIC.fullmatch(tactic) else f"({tactic})")
        if not one_goal(step.get("state_after", "")):
            break
    if not parts:
        return None
    if len(parts) == 1:
        return " ".join(steps[0]["tactic"].split()).removesuffix(".").strip() + "."
    return "; ".join(parts) + "."


def traced_proofs(theorems: Sequence[dict]) -> list[TracedProof]:
    """One :class:`TracedProof` per traced theorem whose proof opens with a chainable tactic."""
    out = []
    for thm in theorems:
        steps = thm.get("traced_tactics") or []
        macro = chain(steps)
        if macro is None:
            continue
        opening = chain(steps[:1])
        out.append(TracedProof(thm.get("full_name", ""), thm.get("file_path", ""),
                               tuple(thm["start"]) if thm.get("start") else None,
                               steps[0]["state_before"], macro, opening or macro))
    return out


class ProofRetrievalGenerator(TacticGenerator):
    """Proposes the macros and opening tactics of the most similar accessible proofs (``twins=False``:
    of those alone, none carried over to a twin goal, :mod:`generator.analogy`; an ablation)."""

    def __init__(
        self,
        proofs: Sequence[TracedProof],
        language: Language,
        k: int = 8,
        temperature: float = 0.1,
        opening: float = 0.5,
        corpus: Corpus | None = None,
        index: StateIndex | None = None,
        twins: bool = True,
    ) -> None:
        if not proofs:
            raise ValueError("ProofRetrievalGenerator needs at least one traced proof")
        if opening < 0:
            raise ValueError(f"opening weight must be >= 0, got {opening}")
        self.proofs = list(proofs)
        self.language = language
        self.k = k
        self.temperature: float = temperature
        self.opening = opening
        self.index = index if index is not None else BM25StateIndex([p.first_state for p in self.proofs])
        self.twins = TwinIndex([p.first_state for p in self.proofs], language) if twins else None
        self.accessible = AccessibleProofs([ProofOwner(p.file_path, p.start, p.theorem) for p in self.proofs], corpus)

    @classmethod
    def from_traced(
        cls, paths: str | Path | Sequence[str | Path], language: Language,
        corpus: str | Path | Corpus | None = None, retriever: Any | None = None, **options: Any,
    ) -> ProofRetrievalGenerator:
        """Index the traced files named (``language`` and ``corpus``: as for
        :meth:`generator.knn.KNNGenerator.from_traced`; ``retriever`` is accepted for registries and
        unused: proofs, not premises, are retrieved)."""
        return cls(traced_proofs(load_theorems(paths)), language, corpus=traced_corpus(paths, corpus), **options)

    def retrieve(self, states: list[TacticState], contexts: list[Theorem]) -> list[list[tuple[TracedProof, float]]]:
        """The ``k`` most similar accessible proofs of each state, with their BM25 scores, then the
        accessible proofs of the state's twins (:class:`generator.analogy.TwinIndex`) not among
        them, each scored as the most similar."""
        masks = [self.accessible.mask(c) for c in contexts]
        found = self.index.search([s.pp for s in states], self.k, masks)
        out = []
        for state, mask, row in zip(states, masks, found, strict=True):
            top = max((score for _, score in row), default=1.0)
            seen = {i for i, _ in row}
            candidates = self.twins.candidates(state.pp)[::-1] if self.twins is not None else []
            names = {h.name for h in hypotheses_of(state)}
            twins = [i for i in candidates if mask[i] and i not in seen and analogy(
                self.proofs[i].first_state, state.pp, self.language,
                names | {h.name for h in self.proofs[i].hypotheses})][:self.k]
            out.append([(self.proofs[i], score) for i, score in row] + [(self.proofs[i], top) for i in twins])
        return out

    def generate(self, state: TacticState, context: Theorem, num_samples: int) -> list[Suggestion]:
        return self.batch_generate([state], [context], num_samples)[0]

    def batch_generate(
        self, states: list[TacticState], contexts: list[Theorem], num_samples: int
    ) -> list[list[Suggestion]]:
        out: list[list[Suggestion]] = []
        for state, found in zip(states, self.retrieve(states, contexts), strict=True):
            if not found:
                out.append([])
                continue
            top = max(score for _, score in found)
            current = hypotheses_of(state)
            names = {h.name for h in current}
            mass: dict[str, float] = {}
            for proof, score in found:
                weight = math.exp((score / top - 1.0) / self.temperature)
                twin = analogy(proof.first_state, state.pp, self.language, names | {h.name for h in proof.hypotheses}) \
                    if self.twins is not None else {}
                for action, share in ((proof.macro, 1.0), (proof.opening, self.opening)):
                    if share:
                        adapted = adapt_hypothesis_names(action, proof.hypotheses, current, self.language)
                        for proposed in (adapted, *carried_over(adapted, twin, self.language)):
                            mass[proposed] = mass.get(proposed, 0.0) + share * weight
            total = sum(mass.values())
            out.append(sorted(((t, math.log(m / total)) for t, m in mass.items()), key=lambda s: -s[1])[:num_samples])
        return out
