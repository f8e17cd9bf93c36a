"""The Lean 4 language as the layers below the backends read it (:class:`search_tree.language.Language`).

The syntax itself (LeanDojo's printed goals, Mathlib notation, keywords, give-up words, the
``?``-search tactics) is :mod:`prover.lean.syntax`; this object gathers it with the facts
retrieval needs.
"""

from __future__ import annotations

from search_tree.language import Language
from prover.lean import syntax as lean
from search_tree.syntax.common import let_type_then_value

LEAN = Language(
    name="lean",
    file_suffix=".lean",
    identifier=lean.IDENT,
    local_name=lean.NAME,
    keywords=lean.KEYWORDS,
    declarations=("theorem", "lemma", "def", "abbrev", "instance", "class", "structure", "inductive"),
    notation=lean.NOTATION,
    numeral=("OfNat.ofNat",),
    logical_constants=frozenset({"Eq", "Ne", "HEq", "LE.le", "LT.lt", "GE.ge", "GT.gt", "And", "Or", "Not", "Iff",
                                 "Exists", "True", "False"}),
    give_up_words=lean.GIVE_UP_WORDS,
    has_metavariable=lean.has_metavariable,
    split_let=let_type_then_value,
    quantifiers=("∀",),
    proposition_markers=("->", "→", "=", "<", ">", "≤", "≥", "≠", "∧", "∨", "↔", "¬", "∀", "∃", " True ", " False ",
                         "∈", "∣"),
    search_tactic=lean.SEARCH_TACTIC,
)
