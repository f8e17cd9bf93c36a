"""Screening of generated tactics before they reach an environment.

Backends refuse give-ups themselves, and a give-up that slips through is a
:class:`~search_tree.protocol.ProofGivenUp`, never a proof. Searches still drop such tactics before
running them, because each one costs an environment call (a scarce budget) and a child that can
only fail.
"""

from __future__ import annotations

import re

from search_tree.syntax import coq, lean

# give-up words of every language, whole words, case-sensitive as both languages are
_GIVE_UP_WORDS = re.compile(rf"(?<![\w.'])(?:{'|'.join(sorted(set(coq.GIVE_UP_WORDS + lean.GIVE_UP_WORDS)))})(?![\w'])")


def gives_up(tactic: str) -> bool:
    """Whether ``tactic`` gives up (``sorry``, ``admit``, ``Admitted``, ``give_up``) or is a Lean
    ``?``-search tactic that reports a suggestion instead of a proof step."""
    return bool(_GIVE_UP_WORDS.search(tactic) or lean.SEARCH_TACTIC.search(tactic))
