"""Coq tactic templates for :class:`generator.template.TemplateGenerator`: every Coq template set.

All sets share one list of automation tactics, :data:`AUTOMATION`, with one log-prior (nats) per
tactic, so a tactic is ranked the same way wherever it is proposed. The priors are hand-set
best-first scores (cheap closing tactics first, structural steps next,
expensive automation last), kept because a measurement on the training split does not favour
another order: ``python benchmarks/automation_closing.py`` counts how often each tactic closes a
short training-split goal alone, and at its sample size those counts are too small to rank the
closing tactics (``benchmarks/results/automation_closing.md``). The slot templates (on
quantified variables, hypotheses and retrieved premises) follow, the premise ones with a rank
discount on top. :meth:`TemplateSet.fit_priors` re-estimates priors from traced
Coq proofs: :data:`FITTED` (``templates="coq:FITTED"``) has them fitted on the traced stdlib's
training split (``prover/coq/data/coq_template_priors.json``, ``python -m
benchmarks.fit_template_priors``); they are not the default because they did not raise the pass
rate (2 vs 3 of 40 test theorems, ``benchmarks/generator_pass_rate.py``): frequency in human proofs puts
``apply H.`` and ``intros.`` first and cheap closing automation last.

The sets: :data:`TEMPLATES` (``templates="coq"``) is :data:`AUTOMATION` and the slot templates,
normalised per state; :data:`BASELINE` (``templates="coq:BASELINE"``) is the search baseline, the
default prover's first member and what ``dojo-prover prove --tactics`` and ``interact`` run
(:func:`prover.coq.presets.baseline_config`):
:data:`AUTOMATION` used unnormalised as best-first scores, plus case analysis and induction on
every hypothesis; :data:`HAMMER` and :data:`FITTED` are :data:`TEMPLATES` with more tactics or
other priors. :func:`automation_generator` is :data:`BASELINE` as a generator.

Every tactic is one sentence ending in ``.``, as the Coq backend requires. ``lia`` needs
``Require Import Lia`` in the theorem's context and fails harmlessly without it. CoqHammer's
reconstruction tactics (``sauto``, ``hauto``; Czajka and Kaliszyk 2018, Czajka 2020) are only in
:data:`HAMMER` (``templates="coq:HAMMER"``), for contexts where ``From Hammer Require Import
Tactics`` is loaded (Debian's ``libcoq-hammer``).
"""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

from generator.base import Suggestion, TacticGenerator
from generator.template import Template, TemplateGenerator, TemplateSet
from prover.coq.language import COQ
from prover.coq.records import CoqFields
from search_tree.protocol import TacticState, Theorem

#: log-priors fitted on the traced Coq stdlib training split (benchmarks/fit_template_priors.py)
PRIORS_PATH = Path(__file__).resolve().parent / "data" / "coq_template_priors.json"

#: The Coq automation tactics, one list for every Coq template set, with one log-prior each (nats),
#: in decreasing order: cheap closing tactics first, then structural steps, then the expensive
#: automation, so that best-first search tries a state's likely finishers before it branches;
#: ``intro x; ...`` acts on the first quantified variable or premise.
AUTOMATION: tuple[tuple[str, float], ...] = (
    ("intros.", -0.5),
    ("reflexivity.", -1.0),
    ("assumption.", -1.1),
    ("trivial.", -1.2),
    ("auto.", -1.3),
    ("easy.", -1.4),
    ("split.", -1.6),
    ("simpl.", -1.8),
    ("lia.", -1.9),
    ("congruence.", -2.0),
    ("discriminate.", -2.1),
    ("intuition.", -2.2),
    ("constructor.", -2.3),
    ("intro x; induction x; simpl; auto.", -2.4),
    ("intro x; destruct x; simpl; auto.", -2.5),
    ("subst.", -2.6),
    ("eauto.", -2.7),
    ("firstorder.", -2.8),
    ("left.", -3.0),
    ("right.", -3.0),
    ("tauto.", -3.1),
    ("intros; simpl; auto.", -3.1),
    ("auto with arith.", -3.2),
    ("symmetry.", -3.2),
    ("f_equal.", -3.2),
    ("simpl in *.", -3.3),
    ("exfalso.", -3.4),
    ("eexists.", -3.5),
)

_ON_VARIABLE = [
    ("induction {var}.", -2.0),
    ("destruct {var}.", -2.3),
    ("induction {var}; simpl; auto.", -2.6),
    ("destruct {var}; simpl; auto.", -2.9),
]

_ON_HYPOTHESIS = [
    ("apply {hyp}.", -2.5),
    ("rewrite {hyp}.", -2.5),
    ("destruct {hyp}.", -2.8),
    ("inversion {hyp}.", -3.0),
    ("rewrite <- {hyp}.", -3.2),
]

_ON_PREMISE = [
    ("apply {premise}.", -2.0),
    ("rewrite {premise}.", -2.3),
    ("eauto using {premise}.", -2.6),
    ("rewrite <- {premise}.", -3.0),
    ("simpl; auto using {premise}.", -3.0),
]

TEMPLATES = TemplateSet(
    language=COQ,
    templates=tuple(Template(t, p) for t, p in [*AUTOMATION, *_ON_VARIABLE, *_ON_HYPOTHESIS, *_ON_PREMISE]),
)

HAMMER = TEMPLATES.with_templates([Template("sauto.", -2.5), Template("hauto.", -2.8)])

#: Case analysis and induction on each of the first goal's hypotheses (most recent first).
_BASELINE_ON_LOCAL = (Template("destruct {local}; simpl; auto.", -2.45),
                      Template("induction {local}; simpl; auto.", -2.5))


def baseline_templates(tactics: list[str] | None = None) -> TemplateSet:
    """The Coq baseline as a template set: :data:`AUTOMATION` (or ``tactics``, scored
    ``-0.1, -0.2, ...`` in the order given) plus case analysis and induction on hypotheses. Its
    scores are used as written (``normalise=False``): they were set as best-first scores."""
    fixed = AUTOMATION if not tactics else tuple((t, -0.1 * (i + 1)) for i, t in enumerate(tactics))
    return TemplateSet(COQ, tuple(Template(t, p) for t, p in fixed) + _BASELINE_ON_LOCAL, normalise=False)


BASELINE = baseline_templates()

#: ssreflect's own closing and structural tactics (Gonthier, Mahboubi and Tassi's tactic language,
#: which Mathematical Components is written in), proposed by the baseline only where the theorem's
#: context loads ssreflect (:attr:`prover.coq.records.CoqFields.ssreflect`, set by the index): elsewhere ``move=>``,
#: ``case:`` or ``apply/`` do not parse. Scored among the baseline's: ``done`` (ssreflect's
#: closing tactic, what ``by []`` runs) with the cheapest finishers; ``case``/``elim`` on the first
#: quantified variable (the ssreflect way to destruct and induct on it), ``do 2!case`` and
#: ``do 3!case`` (case analysis on the first two or three booleans or pairs, the most frequent
#: closing step of the stdlib's ``ssrbool.v`` after ``by []``) and ``rewrite /=`` among the
#: structural steps; the reflection views (``apply/eqP``, ``apply/andP``, ``apply/orP``,
#: ``apply/negP``: from a boolean goal to its propositional form) and ``move=> /eqP ->`` (an
#: equality test assumed true, rewritten with) after them.
SSREFLECT: tuple[tuple[str, float], ...] = (
    ("done.", -0.95),
    ("move=> /=.", -1.7),
    ("rewrite /=.", -1.85),
    ("by case.", -2.05),
    ("by elim.", -2.15),
    ("by do 2!case.", -2.25),
    ("by do 3!case.", -2.32),
    ("case.", -2.35),
    ("elim.", -2.4),
    ("apply/eqP.", -2.6),
    ("by move=> /eqP ->.", -2.65),
    ("apply/andP; split.", -2.7),
    ("apply/orP.", -2.85),
    ("apply/negP.", -2.9),
)

#: ssreflect's case analysis and induction on each data variable (``case: n``: the quantified
#: variables of the target first, then the hypotheses that are data), and its rewriting with,
#: case analysis on and application of each propositional hypothesis (``H : a = b``,
#: ``H : x \in A``), most recent first; ``case:`` on a proposition splits a conjunction or an
#: existential, ``rewrite`` with a non-equation fails at once
_SSREFLECT_ON_LOCAL = (Template("by case: {var}.", -2.2), Template("by rewrite {hyp}.", -2.3),
                       Template("by apply: {hyp}.", -2.35), Template("by case: {hyp}.", -2.4),
                       Template("case: {var}.", -2.45), Template("elim: {var}.", -2.55),
                       Template("rewrite {hyp}.", -2.6), Template("by rewrite -{hyp}.", -2.7))

#: The baseline's scores fall by this much per hypothesis rank (most recent hypothesis first).
BASELINE_RANK_PENALTY = 0.1


class AutomationGenerator(TacticGenerator):
    """The baseline: its templates, joined by :data:`SSREFLECT`'s where the theorem's context loads
    ssreflect (:attr:`prover.coq.records.CoqFields.ssreflect`)."""

    def __init__(self, plain: TemplateGenerator, ssreflect: TemplateGenerator) -> None:
        self.plain, self.ssreflect = plain, ssreflect

    def generate(self, state: TacticState, context: Theorem, num_samples: int) -> list[Suggestion]:
        chosen = self.ssreflect if CoqFields.of(context).ssreflect else self.plain
        return chosen.generate(state, context, num_samples)

    @property
    def width(self) -> int:
        """The most suggestions it makes on one state (every template, each slot filled to the cap)."""
        chosen = self.ssreflect
        caps = {None: 1, "{var}": chosen.max_variables, "{hyp}": chosen.max_hypotheses, "{local}": chosen.max_hypotheses}
        return sum(caps[t.slot] for t in chosen.templates.templates)


def automation_generator(tactics: list[str] | None = None, per_hypothesis: int = 4) -> AutomationGenerator:
    """The baseline as a generator (``automation`` in ``generator.registry.GENERATORS``): the
    template generator on :func:`baseline_templates` (and :data:`SSREFLECT` and its steps on
    variables and hypotheses for ssreflect theorems) with no premises and :data:`BASELINE_RANK_PENALTY`, so that the generator
    benchmarks can put it beside the others under the same search and budget.

    ``tactics`` replaces the fixed list (ssreflect's tactics are then left out too);
    ``per_hypothesis`` caps how many hypotheses (and, for ssreflect, data variables) get their own
    case analysis and induction (the most recent ones, usually what the goal is about)."""
    plain = baseline_templates(tactics)
    ssreflect = plain if tactics else replace(plain, templates=plain.templates + tuple(
        Template(t, p) for t, p in SSREFLECT) + _SSREFLECT_ON_LOCAL)
    return AutomationGenerator(*(TemplateGenerator(t, num_premises=0, max_variables=per_hypothesis,
                                                   max_hypotheses=per_hypothesis, rank_penalty=BASELINE_RANK_PENALTY)
                                 for t in (plain, ssreflect)))


def with_fitted_priors(templates: TemplateSet, path: str | Path = PRIORS_PATH) -> TemplateSet:
    """``templates`` with the log-priors of ``path`` (written by ``benchmarks/fit_template_priors.py``);
    a template the file does not list keeps its hand-set prior."""
    fitted = json.loads(Path(path).read_text())["log_priors"]
    return replace(templates, templates=tuple(Template(t.text, fitted.get(t.text, t.log_prior))
                                              for t in templates.templates))


def __getattr__(name: str) -> TemplateSet:
    """``FITTED``: :data:`TEMPLATES` with the fitted priors (``templates="coq:FITTED"``), read on first use."""
    if name == "FITTED":
        return with_fitted_priors(TEMPLATES)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
