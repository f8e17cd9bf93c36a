"""Retrieval-augmented tactic templates: a policy without a neural model.

A backend's :class:`TemplateSet` lists automation tactics (``auto.``, ``lia.``), tactics on a
variable of the goal (``induction {var}.``), on a local hypothesis (``rewrite {hyp}.``) and on a
premise (``apply {premise}.``). :class:`TemplateGenerator` instantiates them on a state: variables
come from the goal's quantifiers and data hypotheses, hypotheses from the first goal, premises from
a retriever (optional). Because the premise slots are filled by the retriever, swapping retrievers
changes what the prover can do even without a trained model, which is what makes a retriever
ablation meaningful.

The score is a documented prior, normalised into log-probabilities over the candidates of one
state (so that cumulative scores in best-first search are comparable with a model's)::

    score(template)                   = log_prior(template)
    score(template, variable #i)      = log_prior(template) - rank_penalty * i
    score(template, hypothesis #i)    = log_prior(template) - rank_penalty * i   (most recent first)
    score(template, premise at rank r) = log_prior(template) - log(1 + r)       (Zipf-like decay)

Only the rank of a premise enters, not the retriever's raw score: BM25, dense and MePo scores
live on different scales, and a rank discount keeps the comparison between retrievers fair.
``log_prior`` is hand-set per backend (see ``prover/coq/templates.py``) or re-estimated from
traced proofs with :meth:`TemplateSet.fit_priors`.

Backends provide their sets in their own folder (``prover/coq/templates.py``,
``prover/lean/templates.py``) and name them in their :class:`prover.backend.Backend`, which adds
them to :data:`TEMPLATE_SETS`; :func:`load_templates` loads one by name (``"coq"``; a variant such
as ``"coq:HAMMER"`` names another set).
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace
from typing import Any

from generator.base import Suggestion, TacticGenerator
from generator.state_parsing import goals_of, hypothesis_kind
from search_tree.language import Language
from search_tree.protocol import Goal, TacticState, Theorem
from search_tree.registry import Registry

_SLOTS = ("{var}", "{hyp}", "{local}", "{premise}")


@dataclass(frozen=True)
class Template:
    """A tactic with at most one slot and its log-prior: ``{var}`` (a data variable), ``{hyp}`` (a
    propositional hypothesis), ``{local}`` (any hypothesis of the first goal) or ``{premise}``."""

    text: str
    log_prior: float

    @property
    def slot(self) -> str | None:
        return next((s for s in _SLOTS if s in self.text), None)

    def pattern(self) -> re.Pattern[str]:
        """A regex matching instances of the template (a slot matches one name)."""
        pieces = re.split(r"(\{(?:var|hyp|local|premise)\}|\s+)", self.text.strip())
        regex = "".join(
            r"[^\s,;()]+" if p in _SLOTS else r"\s+" if p.isspace() else re.escape(p) for p in pieces
        )
        return re.compile(r"\s*" + regex + r"\s*")


@dataclass(frozen=True)
class TemplateSet:
    """A backend's templates, over its :class:`~search_tree.language.Language` (whose
    ``quantifiers`` bind the goal variables that ``{var}`` is filled with).

    ``normalise=False`` makes the priors the suggestions' scores as written, not log-softmaxed over
    a state's candidates: for a set whose priors were tuned as best-first scores (the Coq
    ``BASELINE``, whose depth penalty the normalisation would change).
    """

    language: Language
    templates: tuple[Template, ...]
    normalise: bool = True

    def with_templates(self, extra: Iterable[Template]) -> TemplateSet:
        return replace(self, templates=self.templates + tuple(extra))

    def fit_priors(self, tactics: Iterable[str], smoothing: float = 1.0) -> TemplateSet:
        """Re-estimate each template's log-prior from how often it matches traced tactics.

        ``log_prior = log((count + smoothing) / (total + smoothing * n_templates))``, counting a
        traced tactic for every template whose :meth:`Template.pattern` matches it in full.
        """
        patterns = [t.pattern() for t in self.templates]
        counts: Counter[int] = Counter()
        for tactic in tactics:
            for i, pat in enumerate(patterns):
                if pat.fullmatch(tactic):
                    counts[i] += 1
        total = sum(counts.values()) + smoothing * len(self.templates)
        return replace(self, templates=tuple(
            replace(t, log_prior=math.log((counts[i] + smoothing) / total)) for i, t in enumerate(self.templates)
        ))


#: Template sets by name, each added by its backend (:mod:`prover.backends`); ``"coq:HAMMER"``
#: names a variant of the ``coq`` set. The set named like a language (``coq``, ``lean``) is that
#: language's default, the one a :class:`TemplateGenerator` given no ``templates`` uses.
TEMPLATE_SETS = Registry("template set")


def load_templates(spec: str) -> TemplateSet:
    """A template set by its name in :data:`TEMPLATE_SETS` (``"coq"``, ``"coq:HAMMER"``, ``"lean"``)."""
    return TEMPLATE_SETS.load(spec)


def quantified_variables(target: str, quantifiers: Sequence[str]) -> list[tuple[str, str]]:
    """``(name, type)`` of the leading universally quantified variables of a goal's target.

    Handles ``forall n m : nat, …``, ``forall (n : nat) (l : list A), …`` and Lean's
    ``∀ (n : ℕ), …`` / ``∀ n m, …``, through nested leading quantifiers. Types are ``""`` when not
    written.
    """
    out: list[tuple[str, str]] = []
    rest = target.strip()
    while True:
        q = next((q for q in quantifiers if rest.startswith(q) and rest[len(q):len(q) + 1] in (" ", "(", "{")), None)
        if q is None:
            return out
        binders, comma, rest = _split_at_top_comma(rest[len(q):])
        if not comma:
            return out
        groups = re.findall(r"[({\[]([^(){}\[\]]*)[)}\]]", binders) or [binders]
        for group in groups:
            names, colon, typ = group.partition(":")
            out.extend((n, typ.strip() if colon else "") for n in names.split())
        rest = rest.strip()


def _split_at_top_comma(text: str) -> tuple[str, str, str]:
    depth = 0
    for i, ch in enumerate(text):
        if ch in "([{":
            depth += 1
        elif ch in ")]}":
            depth -= 1
        elif ch == "," and depth == 0:
            return text[:i], ",", text[i + 1:]
    return text, "", ""


def _variables(goal: Goal, language: Language) -> list[str]:
    """Induction/case-analysis candidates: quantified data variables first, then data hypotheses
    from the most recent."""
    names = [n for n, typ in quantified_variables(goal.target, language.quantifiers)
             if hypothesis_kind(typ or "x", language) == "data"]
    names += [h.name for h in reversed(goal.hypotheses) if h.value is None and hypothesis_kind(h.type, language) == "data"]
    return list(dict.fromkeys(names))


def _hypotheses(goal: Goal, language: Language) -> list[str]:
    return [h.name for h in reversed(goal.hypotheses) if hypothesis_kind(h.type, language) == "prop"]


def _log_softmax(scores: list[float]) -> list[float]:
    if not scores:
        return []
    top = max(scores)
    norm = top + math.log(sum(math.exp(s - top) for s in scores))
    return [s - norm for s in scores]


class TemplateGenerator(TacticGenerator):
    """Instantiates a backend's templates on a state (see the module docstring for scores).

    ``retriever``: any object with ``retrieve(state, context, k) -> [(premise, score)]`` where a
    premise has ``full_name`` (``retrieval.base.Retriever``); ``None`` leaves premise slots empty.
    Hypothesis names with characters the backend cannot parse as an identifier (Lean's
    inaccessible ``h✝``) are skipped.

    ``templates`` names a set of :data:`TEMPLATE_SETS` (or is one); None: the default set of
    ``language``, the run's backend's, which the registry hands a generator built by name.
    """

    def __init__(
        self,
        templates: TemplateSet | str | None = None,
        retriever: Any | None = None,
        num_premises: int = 8,
        max_variables: int = 4,
        max_hypotheses: int = 4,
        rank_penalty: float = 0.5,
        language: Language | None = None,
    ) -> None:
        if templates is None:
            if language is None:
                raise ValueError("the template generator needs templates=NAME (one of "
                                 f"{', '.join(TEMPLATE_SETS)}) when the run's backend has no language")
            templates = language.name
        self.templates = load_templates(templates) if isinstance(templates, str) else templates
        self.retriever = retriever
        self.num_premises = num_premises
        self.max_variables = max_variables
        self.max_hypotheses = max_hypotheses
        self.rank_penalty = rank_penalty

    def premises(self, state: TacticState, context: Theorem) -> list[str]:
        """Names of the premises the retriever returns for ``state``, best first, as the theorem's
        file can write them (:meth:`retrieval.corpus.Premise.name_from`)."""
        if self.retriever is None or self.num_premises <= 0:
            return []
        return [p.name_from(context.file_path) for p, _ in self.retriever.retrieve(state, context, self.num_premises)]

    def candidates(self, state: TacticState, premises: Sequence[str]) -> list[Suggestion]:
        """Every instantiated template with its unnormalised prior score, in template order."""
        goals = goals_of(state)
        goal = goals[0] if goals else Goal((), state.pp)
        fillers = {
            "{var}": [v for v in _variables(goal, self.templates.language) if "✝" not in v][: self.max_variables],
            "{hyp}": [h for h in _hypotheses(goal, self.templates.language) if "✝" not in h][: self.max_hypotheses],
            "{local}": [h.name for h in reversed(goal.hypotheses) if "✝" not in h.name][: self.max_hypotheses],
        }
        out: list[Suggestion] = []
        for template in self.templates.templates:
            slot = template.slot
            if slot is None:
                out.append((template.text, template.log_prior))
            elif slot == "{premise}":
                out.extend((template.text.replace(slot, name), template.log_prior - math.log1p(rank))
                           for rank, name in enumerate(premises))
            else:
                out.extend((template.text.replace(slot, name), template.log_prior - self.rank_penalty * i)
                           for i, name in enumerate(fillers[slot]))
        return out

    def generate(self, state: TacticState, context: Theorem, num_samples: int) -> list[Suggestion]:
        best: dict[str, float] = {}
        for tactic, score in self.candidates(state, self.premises(state, context)):
            best[tactic] = max(score, best.get(tactic, -math.inf))
        tactics = list(best)
        scores = [best[t] for t in tactics]
        ranked = sorted(zip(tactics, _log_softmax(scores) if self.templates.normalise else scores),
                        key=lambda s: -s[1])
        return ranked[:num_samples]
