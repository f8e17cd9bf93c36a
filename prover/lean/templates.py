"""Lean 4 tactic templates: automation, and forms on a variable, a hypothesis or a premise.

Plain data in the slot syntax of the template generator (``{var}``, ``{hyp}``, ``{premise}``),
plus :func:`lean_template_suggestions`, which instantiates it for one state without any other
module. ``TEMPLATES`` is the ``TemplateSet`` that ``load_templates("lean")`` returns. Every
template is accepted by the Lean backend's untrusted-tactic policy (no ``?``-tactics, no
``sorry``, no ``native_decide``: a test checks this).

Log-priors (nats) are hand-set by the rule the Coq set uses: closing automation first (cheap when
it fails), then structural steps, then rewriting and application with retrieved premises (a
premise at retrieval rank r loses ``log(1 + r)`` more), then case analysis. They are a starting
point, to be re-fitted from traced Lean proofs.
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence

from generator.template import Template, TemplateSet
from prover.lean.language import LEAN

AUTOMATION: tuple[tuple[str, float], ...] = (
    ("simp", -1.0),
    ("omega", -1.2),
    ("norm_num", -1.3),
    ("linarith", -1.4),
    ("aesop", -1.5),
    ("ring", -1.6),
    ("decide", -1.8),
    ("positivity", -1.9),
    ("simp_all", -2.0),
    ("nlinarith", -2.2),
    ("field_simp", -2.3),
    ("tauto", -2.4),
    ("norm_cast", -2.6),
    ("push_cast", -2.7),
    ("gcongr", -2.8),
    ("rfl", -2.9),
    ("trivial", -3.0),
    ("assumption", -3.0),
    ("contradiction", -3.2),
)

STRUCTURAL: tuple[tuple[str, float], ...] = (
    ("intro", -2.0),
    ("intros", -2.1),
    ("constructor", -2.2),
    ("ext", -2.8),
    ("funext", -3.0),
    ("by_contra h", -3.1),
    ("push_neg", -3.2),
    ("left", -3.5),
    ("right", -3.5),
    ("exfalso", -3.8),
)

ON_VARIABLE: tuple[tuple[str, float], ...] = (
    ("induction {var}", -2.5),
    ("cases {var}", -2.8),
    ("induction {var} <;> simp_all", -2.9),
    ("interval_cases {var}", -3.2),
)

ON_HYPOTHESIS: tuple[tuple[str, float], ...] = (
    ("exact {hyp}", -2.0),
    ("simp [{hyp}]", -2.2),
    ("rw [{hyp}]", -2.4),
    ("linarith [{hyp}]", -2.6),
    ("simp at {hyp}", -2.8),
    ("cases {hyp}", -3.0),
    ("subst {hyp}", -3.2),
    ("rw [← {hyp}]", -3.3),
)

ON_PREMISE: tuple[tuple[str, float], ...] = (
    ("rw [{premise}]", -1.5),
    ("simp [{premise}]", -1.6),
    ("exact {premise}", -1.8),
    ("apply {premise}", -2.0),
    ("rw [← {premise}]", -2.4),
    ("simp only [{premise}]", -2.5),
    ("nlinarith [{premise}]", -3.0),
)

ALL_TEMPLATES = AUTOMATION + STRUCTURAL + ON_VARIABLE + ON_HYPOTHESIS + ON_PREMISE

# names that cannot be written in source: private, auxiliary or machine-generated declarations
_UNWRITABLE = re.compile(r"(?:^|\.)_|✝|\.proof_\d+$|\.match_\d+$|\.eq_\d+$")


def writable_name(name: str) -> bool:
    """Whether ``name`` can appear in a tactic (not private, auxiliary or inaccessible)."""
    return bool(name) and not _UNWRITABLE.search(name) and not any(c.isspace() for c in name)


def lean_template_suggestions(
    premises: Sequence[str] = (),
    hypotheses: Sequence[str] = (),
    variables: Sequence[str] = (),
    max_premises: int = 16,
) -> list[tuple[str, float]]:
    """Template tactics for one state, best first, with their log-priors.

    ``premises`` are retrieved full names, best first (the first ``max_premises`` writable ones
    are used, rank r costing ``log(1 + r)``); ``hypotheses`` and ``variables`` are names from the
    main goal (inaccessible ``x✝`` names are skipped).
    """
    out: dict[str, float] = {}

    def add(tactic: str, logprob: float) -> None:
        if logprob > out.get(tactic, -math.inf):
            out[tactic] = logprob

    for tactic, prior in AUTOMATION + STRUCTURAL:
        add(tactic, prior)
    for slot, names in (("{var}", variables), ("{hyp}", hypotheses)):
        templates = ON_VARIABLE if slot == "{var}" else ON_HYPOTHESIS
        for name in filter(writable_name, names):
            for template, prior in templates:
                add(template.replace(slot, name), prior)
    usable = [p for p in premises if writable_name(p)][:max_premises]
    for rank, premise in enumerate(usable):
        for template, prior in ON_PREMISE:
            add(template.replace("{premise}", premise), prior - math.log1p(rank))
    return sorted(out.items(), key=lambda kv: -kv[1])



#: the data above as the template generator's set (``load_templates("lean")``)
TEMPLATES = TemplateSet(language=LEAN, templates=tuple(Template(t, p) for t, p in ALL_TEMPLATES))
