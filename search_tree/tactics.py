"""Screening of generated tactics before they reach an environment.

Backends refuse give-ups themselves (the design card), and a give-up that slips through is a
:class:`~search_tree.protocol.ProofGivenUp`, never a proof. Searches still drop such tactics before
running them, because each one costs an environment call (a scarce budget) and a child that can
only fail.
"""

from __future__ import annotations

import re

# Coq: admit, Admitted, give_up; Lean: sorry, admit. Whole words, case-sensitive as both languages.
_GIVE_UP_WORDS = re.compile(r"(?<![\w.'])(?:sorry|admit|Admitted|give_up)(?![\w'])")
# Lean's search tactics (exact?, apply?, rw?, simp?, aesop?, ...): an unqualified name directly
# followed by '?'. A '?' after a dot (``List.head?``) or before a name (Coq's ``?x``) is allowed.
_QUESTION_TACTIC = re.compile(r"(?<![\w.'?])[A-Za-z_][\w']*\?(?![\w'?])")


def gives_up(tactic: str) -> bool:
    """Whether ``tactic`` gives up (``sorry``, ``admit``, ``Admitted``, ``give_up``) or is a
    ``?``-search tactic that reports a suggestion instead of a proof step."""
    return bool(_GIVE_UP_WORDS.search(tactic) or _QUESTION_TACTIC.search(tactic))
