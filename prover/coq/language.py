"""The Coq language as the layers below the backends read it (:class:`search_tree.language.Language`).

The syntax itself (coqtop's goal blocks, notation in the default scopes, keywords, give-up words)
is :mod:`prover.coq.syntax`; this object gathers it with the facts retrieval needs.
"""

from __future__ import annotations

from search_tree.language import Language
from prover.coq import syntax as coq
from search_tree.syntax.common import let_value_then_type

COQ = Language(
    name="coq",
    file_suffix=".v",
    identifier=coq.IDENT,
    local_name=coq.NAME,
    keywords=coq.KEYWORDS,
    declarations=("Theorem", "Lemma", "Definition", "Fixpoint", "Inductive", "Record", "Instance", "Fact", "Remark",
                  "Corollary", "Proposition", "Example"),
    notation=coq.NOTATION,
    numeral=(),  # a numeral the table does not list is a nat literal, no constant of its own
    # (ssreflect's boolean equality and connectives are as common in its libraries)
    logical_constants=frozenset({"eq", "not", "and", "or", "iff", "le", "lt", "ge", "gt", "ex", "True", "False",
                                "eq_op", "negb", "andb", "orb"}),
    give_up_words=coq.GIVE_UP_WORDS,
    has_metavariable=coq.has_metavariable,
    split_let=let_value_then_type,
    quantifiers=("forall",),
    # ASCII notation, Coq.Unicode.Utf8's (→, ∀, ∧, ...) where a library loads it, and ssreflect's boolean
    # statements, which coqtop prints without their ``is_true`` coercion (``x \in A``, ``a && b``, ``m %| n``)
    proposition_markers=("->", "→", "=", "<", ">", "≤", "≥", "≠", "/\\", "\\/", "∧", "∨", "↔", "~", "¬", " forall ", "∀",
                         " exists ", "∃", " True ", " False ", " In ", "∈", "∣", "\\in ", "\\notin ", "&&", "||",
                         "%|", "\\subset ", "\\proper ", " is_true "),
)
