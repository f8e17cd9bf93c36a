"""Lean 4 tactic templates for the template generator: automation, premise and hypothesis forms.

Plain data plus :func:`lean_template_suggestions`, which instantiates it for one state. The
generator package consumes it without importing ``prover``; every template is accepted by the
Lean backend's untrusted-tactic policy (no ``?``-tactics, no ``sorry``, no ``native_decide``:
a test checks this).

Priors are log-probabilities that order the suggestions before any learned model is involved:
closing automation first (cheap when it fails), then rewriting and application with retrieved
premises, ranked by retrieval rank (``- log(1 + rank)``), then structural steps.
"""

from __future__ import annotations

import math
import re
from typing import Sequence

# (tactic, prior log-probability): decision procedures and general automation
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
    ("exact le_rfl", -3.4),
)

# structural steps that open up the goal
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

# `{p}` is a premise's full name
PREMISE_TEMPLATES: tuple[tuple[str, float], ...] = (
    ("rw [{p}]", -1.5),
    ("simp [{p}]", -1.6),
    ("exact {p}", -1.8),
    ("apply {p}", -2.0),
    ("rw [← {p}]", -2.4),
    ("simp only [{p}]", -2.5),
    ("nlinarith [{p}]", -3.0),
)

# `{h}` is a hypothesis of the main goal
HYPOTHESIS_TEMPLATES: tuple[tuple[str, float], ...] = (
    ("exact {h}", -2.0),
    ("simp [{h}]", -2.2),
    ("rw [{h}]", -2.4),
    ("linarith [{h}]", -2.6),
    ("simp at {h}", -2.8),
    ("cases {h}", -3.0),
    ("subst {h}", -3.2),
    ("induction {h}", -3.4),
)

# names that cannot be written in source: private, auxiliary or machine-generated declarations
_UNWRITABLE = re.compile(r"(?:^|\.)_|✝|\.proof_\d+$|\.match_\d+$|\.eq_\d+$")


def writable_name(name: str) -> bool:
    """Whether ``name`` can appear in a tactic (not private, auxiliary or inaccessible)."""
    return bool(name) and not _UNWRITABLE.search(name) and not any(c.isspace() for c in name)


def lean_template_suggestions(
    premises: Sequence[str] = (),
    hypotheses: Sequence[str] = (),
    max_premises: int = 16,
) -> list[tuple[str, float]]:
    """Template tactics for one state, best first: automation and structural steps, each premise
    template for the first ``max_premises`` retrieved ``premises`` (full names, best first), and
    each hypothesis template for the main goal's ``hypotheses`` (names; inaccessible ``x✝`` skipped).
    """
    out: dict[str, float] = {}

    def add(tactic: str, logprob: float) -> None:
        if logprob > out.get(tactic, -math.inf):
            out[tactic] = logprob

    for tactic, prior in AUTOMATION + STRUCTURAL:
        add(tactic, prior)
    usable = [p for p in premises if writable_name(p)][:max_premises]
    for rank, premise in enumerate(usable):
        for template, prior in PREMISE_TEMPLATES:
            add(template.format(p=premise), prior - math.log1p(rank))
    for name in hypotheses:
        if writable_name(name):
            for template, prior in HYPOTHESIS_TEMPLATES:
                add(template.format(h=name), prior)
    return sorted(out.items(), key=lambda kv: -kv[1])
