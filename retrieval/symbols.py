"""Symbol extraction from Lean 4 and Coq text, for the symbol-based retrievers (MePo, SInE).

MePo and SInE reason about the *constants* a statement mentions. Without an elaborator we read
them off the surface text: identifiers as written, plus notation mapped to the constant it
denotes (``a + b`` is ``HAdd.hAdd a b`` in Lean 4, ``Nat.add a b`` in Coq's default
``nat_scope``). Names bound in the text (binder groups, ``∀``/``∃``/``fun``/big-operator binders,
hypothesis names of a goal) are local variables, not constants, and are dropped, as are keywords.

Because the text gives names as written inside their namespaces (``Ico`` for ``Set.Ico``), a
dotted identifier contributes both itself and its last component, so that ``Set.Ico`` in a goal
and ``Ico`` in a declaration header inside ``namespace Set`` share a symbol.

The language (:class:`search_tree.language.Language`, given by the backend or the corpus) brings
the identifier pattern, keywords and notation table; the tables (``NOTATION`` of
:mod:`prover.lean.syntax` and :mod:`prover.coq.syntax`) document the mapping and its
choices of scope.
"""

from __future__ import annotations

import re
from functools import lru_cache

from search_tree.language import Language


@lru_cache(maxsize=None)
def _token(language: Language) -> re.Pattern[str]:
    """Identifiers, numerals and notation of ``language``; notation longest first, so that `→+*`
    wins over `*` and `<->` over `<` (numerals and word-like keys such as `exists` and `ℕ` are read
    by the number and identifier patterns)."""
    keys = sorted((k for k in language.notation if not (k.isdigit() or k.isalpha())), key=len, reverse=True)
    notation = "|".join(re.escape(k) for k in keys)
    return re.compile(rf"(?P<id>{language.identifier})|(?P<num>\d+)|(?P<op>{notation})")


@lru_cache(maxsize=None)
def _declared(language: Language) -> re.Pattern[str]:
    """The name a declaration introduces: it is what the premise *is*, not a symbol it uses."""
    return re.compile(rf"\b(?:{'|'.join(map(re.escape, language.declarations))})\s+([^\s(\[{{:]+)")

# binder groups `(a b : T)`, `{a : T}`, `[inst : C a]`, `⦃a b : T⦄`
_BINDER_GROUP = re.compile(r"[(\[{⦃]\s*((?:[^\W\d][\w'!?]*\s+)*[^\W\d][\w'!?]*)\s*:(?!=)")
# `∀ x y,` / `∃ x : T,` / `fun x =>` / `∑ i in s,` / Coq `forall (x y : nat),`
_QUANT_BINDERS = re.compile(
    r"(?:∀|∃!?|∑|∏|⋃|⋂|λ|\bfun\b|\bforall\b|\bexists\b)\s*([^,=⇒]*?)\s*(?:,|=>|↦|\bin\b|∈)"
)
_NAME = re.compile(r"[^\W\d][\w'!?]*")
# a lowercase or Greek letter with subscripts/digits/primes (`n`, `a₁`, `x'`, `α`): a variable
# (auto-bound implicit or section `variable`) in practice, never a library constant
_VARIABLE_LIKE = re.compile(r"[a-zα-ω][\d₀-₉']*|_+")


def bound_names(text: str) -> set[str]:
    """Names that ``text`` binds: binder groups and the variables of quantifiers and lambdas."""
    names: set[str] = set()
    for m in _BINDER_GROUP.finditer(text):
        names.update(m.group(1).split())
    for m in _QUANT_BINDERS.finditer(text):
        binders = m.group(1)
        # `x y : T` binds x and y; `(x : T) (y : U)` is handled by the binder-group pattern
        head = binders.split(":", 1)[0]
        names.update(n for n in _NAME.findall(head) if "." not in n)
    return names


def extract_symbols(text: str, language: Language, exclude: set[str] | frozenset[str] = frozenset()) -> set[str]:
    """The constants of ``language`` mentioned in ``text``, bound names and ``exclude`` left out
    (Lean's ``theorem foo (n : ℕ) : n + 0 = n`` gives ``Eq``, ``HAdd.hAdd``, ``Nat``, ``Zero.zero``)."""
    token, table, keywords = _token(language), language.notation, language.keywords
    local = bound_names(text) | set(_declared(language).findall(text)) | set(exclude)
    symbols: set[str] = set()
    for m in token.finditer(text):
        kind = m.lastgroup
        tok = m.group()
        if kind == "id":
            if tok in table:  # Coq's `exists`, Lean's `ℕ`
                symbols.update(table[tok])
                continue
            if tok in keywords or tok in local or tok.split(".", 1)[0] in local or _VARIABLE_LIKE.fullmatch(tok):
                continue
            symbols.add(tok)
            if "." in tok:
                symbols.add(tok.rsplit(".", 1)[1])
        elif kind == "num":
            symbols.update(table.get(tok, language.numeral))
        else:
            symbols.update(table[tok])
    return symbols
