"""Namesakes: prove a theorem with the lemma of the same name that its library already has.

Libraries built from functors and parallel theories state one lemma many times: the stdlib's
``NZDivProp.div_same``, ``NDivProp.div_same`` and ``ZDivProp.div_same``; ``Nat.add_comm``,
``N.add_comm`` and ``Z.add_comm``; the weak and full FSet/MSet interfaces. Their proofs are often
one step from the earlier namesake (``apply div_same; auto'.``, ``exact M.empty_spec.``, ``wrap
pow_0_l.``): in the stdlib's traces, 2.8% of the train split's theorems and 5.5% of val's use a
premise with their own short name, most in a proof of one or two steps. Neither kNN nor proof
retrieval proposes such a step: kNN copies tactics of similar states, which name *their* lemma's
namesake, and a premise retriever ranks by the goal's symbols, not by the theorem's name.

This generator proposes, for a theorem ``s`` that has an accessible namesake in the corpus (a
premise of another module named ``s``, visible by the rule of :mod:`generator.accessible`):

* **templates learned from the traces**: every traced step that names its own theorem's namesake,
  with that name replaced by a hole (``apply {}; auto'.``), taken only from proofs accessible from
  the theorem, nearest in its own file first (a file's lemmas share their local tactics, such as
  ``auto'`` or ``wrap``), then by how often the template occurs;
* **fixed templates** of the backend's language (for Coq ``apply {}.``, ``now apply {}.``, ``now
  rewrite {}.``...), with the short name and with the namesakes' qualified names as the theorem's
  file can write them (``Coq.Init.Peano.s``, :meth:`retrieval.corpus.Premise.name_from`), since a
  short name may resolve to another declaration or to none in the theorem's scope.

Like kNN's renaming of hypotheses (:func:`generator.knn.adapt_hypothesis_names`), a template reuses
a traced step with one argument abstracted; here it is the theorem's own name, which the step's
sibling theorems fill exactly.

A namesake that is the theorem's own compiled copy cannot be named: the corpus rule hides the
theorem and everything after it in its file, and a reopened theorem's proof is leak-checked by the
environment like any other.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from generator.accessible import AccessibleProofs, ProofOwner
from generator.base import Suggestion, TacticGenerator
from generator.knn import traced_corpus
from generator.traced import load_theorems
from retrieval.corpus import Corpus, Premise
from search_tree.protocol import TacticState, Theorem

HOLE = "{}"
#: the score of a template learned from the lemma just before the theorem in its file; it falls by
#: 0.05 per lemma between them, and a template of another file scores 1 lower, among the fixed ones
LEARNED_SCORE = -0.2


def short_name(full_name: str) -> str:
    """The last component of a dotted name (``Nat.add_comm`` -> ``add_comm``)."""
    return full_name.rsplit(".", 1)[-1]


def fill(template: str, name: str) -> str:
    """``template`` with every :data:`HOLE` replaced by ``name`` (a step may name the namesake twice)."""
    return template.replace(HOLE, name)


def _name_pattern(name: str) -> re.Pattern[str]:
    """An occurrence of ``name``, possibly qualified (``M.name``), as a whole identifier."""
    return re.compile(r"(?<![\w'.])(?:[A-Za-z_][\w']*\.)*" + re.escape(name) + r"(?![\w'])")


@dataclass(frozen=True)
class Template:
    """A traced step of ``owner``'s proof with its theorem's namesake replaced by :data:`HOLE`."""

    owner: ProofOwner
    text: str


def learned_templates(theorems: Sequence[dict]) -> list[Template]:
    """The templates of traced ``theorems`` (LeanDojo's format): each step whose annotated premises
    include a premise named like its own theorem (but not the theorem itself) and whose text names
    it, once per theorem and text."""
    out: list[Template] = []
    for thm in theorems:
        full = thm.get("full_name", "")
        name = short_name(full)
        pattern = _name_pattern(name)
        seen: set[str] = set()
        for step in thm.get("traced_tactics") or []:
            annotated = step.get("annotated_tactic") or ["", []]
            premises = {p.get("full_name", "") for p in annotated[1] if isinstance(p, dict)}
            if not any(short_name(p) == name and p != full for p in premises):
                continue
            tactic = " ".join(step.get("tactic", "").split())
            if HOLE in tactic:  # a literal hole could not be told from the name's
                continue
            text = pattern.sub(HOLE, tactic)
            if HOLE in text and text not in seen:
                seen.add(text)
                start = (int(thm["start"][0]), int(thm["start"][1])) if thm.get("start") else None
                out.append(Template(ProofOwner(thm.get("file_path", ""), start, full), text))
    return out


class NamesakeGenerator(TacticGenerator):
    """The suggestions of the module docstring for the theorem of each state.

    ``corpus`` says which namesakes exist and are accessible; ``templates`` come from
    :func:`learned_templates`; ``fixed`` are ``(template, score)`` pairs of the backend's language;
    ``qualified`` caps the namesakes whose qualified names fill the fixed templates."""

    def __init__(self, corpus: Corpus, templates: Sequence[Template] = (),
                 fixed: Sequence[tuple[str, float]] = (), qualified: int = 2) -> None:
        self.corpus = corpus
        self.templates = list(templates)
        self.fixed = list(fixed)
        self.qualified = qualified
        self.accessible = AccessibleProofs([t.owner for t in self.templates], corpus)
        self._counts = Counter(t.text for t in self.templates)
        by_name: dict[str, list[int]] = {}
        for i, premise in enumerate(corpus.premises):
            by_name.setdefault(short_name(premise.full_name), []).append(i)
        self._by_name = {n: np.array(ix, dtype=np.int64) for n, ix in by_name.items()}

    @classmethod
    def from_traced(cls, paths: str | Path | Sequence[str | Path], corpus: str | Path | Corpus | None = None,
                    **options: Any) -> NamesakeGenerator | None:
        """Templates from the traced files named, namesakes from ``corpus`` (default: the
        ``corpus.jsonl`` beside them, as for :meth:`generator.knn.KNNGenerator.from_traced`); None
        where there is no corpus, since without one no namesake can be found or masked."""
        found = traced_corpus(paths, corpus)
        return None if found is None else cls(found, learned_templates(load_theorems(paths)), **options)

    def namesakes(self, context: Theorem) -> list[str]:
        """Full names of the premises named like the theorem and accessible from it, nearest first
        (its own file, latest first, then the files it imports)."""
        return list(dict.fromkeys(p.full_name for p in self._namesakes(context)))

    def _namesakes(self, context: Theorem) -> list[Premise]:
        found = self._by_name.get(short_name(context.full_name))
        if found is None or not context.file_path:
            return []
        mask = self.corpus.accessible_mask(context.file_path, context.position)
        own = self.corpus.declared_in(context.full_name, context.file_path)
        keep = [int(i) for i in found if (mask is None or mask[i]) and i != own]
        premises = [self.corpus.premises[i] for i in keep]
        premises.sort(key=lambda p: (p.path != context.file_path, tuple(-x for x in p.start)))
        return premises

    def generate(self, state: TacticState, context: Theorem, num_samples: int) -> list[Suggestion]:
        premises = self._namesakes(context)
        if not premises:
            return []
        # the qualified fillers as the theorem's file can write them (a functor's lemma only by its
        # short name, another file's fully qualified): :meth:`retrieval.corpus.Premise.name_from`
        names = list(dict.fromkeys(p.name_from(context.file_path) for p in premises))
        name = short_name(context.full_name)
        scored: dict[str, float] = {}
        for i in np.flatnonzero(self.accessible.mask(context)):
            template = self.templates[int(i)]
            distance = self.accessible.same_file_distance(int(i), context)
            score = (LEARNED_SCORE - (0.05 * distance if distance is not None else 1.0)
                     + 0.01 * min(self._counts[template.text], 10))
            tactic = fill(template.text, name)
            scored[tactic] = max(score, scored.get(tactic, -np.inf))
        qualified = [n for n in names if n != name][: self.qualified]
        for rank, filler in enumerate([name, *qualified]):
            for text, score in self.fixed:
                scored.setdefault(fill(text, filler), score - 0.3 * rank)
        return sorted(scored.items(), key=lambda s: -s[1])[:num_samples]
