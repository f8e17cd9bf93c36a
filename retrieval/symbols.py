"""Symbol extraction from Lean 4 and Coq text, for the symbol-based retrievers (MePo, SInE).

MePo and SInE reason about the *constants* a statement mentions. Without an elaborator we read
them off the surface text: identifiers as written, plus notation mapped to the constant it
denotes (``a + b`` is ``HAdd.hAdd a b`` in Lean 4, ``Nat.add a b`` in Coq's default
``nat_scope``). Names bound in the text (binder groups, ``∀``/``∃``/``fun``/big-operator binders,
hypothesis names of a goal) are local variables, not constants, and are dropped, as are keywords.

Because the text gives names as written inside their namespaces (``Ico`` for ``Set.Ico``), a
dotted identifier contributes both itself and its last component, so that ``Set.Ico`` in a goal
and ``Ico`` in a declaration header inside ``namespace Set`` share a symbol.

Tables ``LEAN_NOTATION`` and ``COQ_NOTATION`` document the notation mapping. Coq notations are
read in the scopes open by default in the standard library (``nat_scope`` for arithmetic and
order, ``type_scope`` for connectives, ``list_scope`` for ``++``/``::``), the choice most
statements of ``Arith`` and ``Lists`` need; ``Z``/``R`` statements then share the ``Nat``
constants, which costs precision but not recall.
"""

from __future__ import annotations

import re
from typing import Literal

Language = Literal["lean", "coq"]

# Lean 4 notation -> the constant it unfolds to (Mathlib / core, as of 2023-2024).
# `∀` and `→` are Pi types, not constants, and are not mapped. Numerals: `0` and `1` are the
# `Zero`/`One` classes that lemmas about them mention; other literals are `OfNat.ofNat`.
LEAN_NOTATION: dict[str, tuple[str, ...]] = {
    "+": ("HAdd.hAdd",),
    "-": ("HSub.hSub",),  # binary and unary minus are not told apart without parsing
    "*": ("HMul.hMul",),
    "/": ("HDiv.hDiv",),
    "%": ("HMod.hMod",),
    "^": ("HPow.hPow",),
    "•": ("HSMul.hSMul",),
    "∣": ("Dvd.dvd",),
    "≤": ("LE.le",),
    "≥": ("LE.le",),
    "<": ("LT.lt",),
    ">": ("LT.lt",),
    "=": ("Eq",),
    "≠": ("Ne",),
    "¬": ("Not",),
    "∧": ("And",),
    "∨": ("Or",),
    "↔": ("Iff",),
    "∃": ("Exists",),
    "∃!": ("ExistsUnique",),
    "⁻¹": ("Inv.inv",),
    "∑": ("Finset.sum",),
    "∏": ("Finset.prod",),
    "∈": ("Membership.mem",),
    "∉": ("Membership.mem", "Not"),
    "⊆": ("HasSubset.Subset",),
    "⊂": ("HasSSubset.SSubset",),
    "∩": ("Inter.inter",),
    "∪": ("Union.union",),
    "\\": ("SDiff.sdiff",),
    "ᶜ": ("HasCompl.compl",),
    "⊓": ("Inf.inf",),
    "⊔": ("Sup.sup",),
    "⊤": ("Top.top",),
    "⊥": ("Bot.bot",),
    "∅": ("EmptyCollection.emptyCollection",),
    "∘": ("Function.comp",),
    "⋃": ("Set.iUnion",),
    "⋂": ("Set.iInter",),
    "√": ("Real.sqrt",),
    "‖": ("Norm.norm",),
    "⌊": ("Int.floor",),
    "⌈": ("Int.ceil",),
    "∫": ("MeasureTheory.integral",),
    "×": ("Prod",),
    "≃": ("Equiv",),
    "→+*": ("RingHom",),
    "→*": ("MonoidHom",),
    "→+": ("AddMonoidHom",),
    "≃+*": ("RingEquiv",),
    "≡": ("Nat.ModEq",),  # `a ≡ b [MOD n]`; `[ZMOD n]` adds the identifier ZMOD
    "!": ("Nat.factorial",),
    "ℕ": ("Nat",),
    "ℤ": ("Int",),
    "ℚ": ("Rat",),
    "ℝ": ("Real",),
    "ℂ": ("Complex",),
    "0": ("Zero.zero",),
    "1": ("One.one",),
    # punctuation that contains an operator character but denotes no constant
    ":=": (),
    "=>": (),
    "->": (),
    "<-": (),
    "<;>": (),
}

# Coq notation in the default scopes -> the constant it denotes (Coq 8.16 standard library).
COQ_NOTATION: dict[str, tuple[str, ...]] = {
    "+": ("Nat.add",),
    "-": ("Nat.sub",),
    "*": ("Nat.mul",),
    "^": ("Nat.pow",),
    "/": ("Nat.div",),
    "<=": ("le",),
    ">=": ("ge",),
    "<": ("lt",),
    ">": ("gt",),
    "=": ("eq",),
    "<>": ("not", "eq"),
    "~": ("not",),
    "/\\": ("and",),
    "\\/": ("or",),
    "<->": ("iff",),
    "exists": ("ex",),
    "++": ("app",),
    "::": ("cons",),
    "0": ("O",),
    "1": ("S", "O"),
    ":=": (),
    "=>": (),
    "->": (),
    "<-": (),
}

LEAN_KEYWORDS = frozenset(
    """theorem lemma def abbrev instance class structure inductive where extends fun λ by have show
    from let in if then else match with at do return Type Sort Prop deriving private protected
    noncomputable irreducible_def opaque axiom example variable universe namespace section end open
    calc this using only simp rfl mk""".split()
)
COQ_KEYWORDS = frozenset(
    """Theorem Lemma Definition Fixpoint CoFixpoint Inductive CoInductive Record Structure Class
    Instance Fact Remark Corollary Proposition Example Let Axiom Parameter Hypothesis Variable
    forall exists fun match with end let in if then else return as struct Type Prop Set fix cofix
    is""".split()
)

# identifiers: a letter or underscore, then word characters, primes, `!`/`?` (Lean), with dots
_LEAN_IDENT = r"[^\W\d][\w'!?]*(?:\.[^\W\d][\w'!?]*)*"
_COQ_IDENT = r"[A-Za-z_][\w']*(?:\.[A-Za-z_][\w']*)*"


def _notation_pattern(table: dict[str, tuple[str, ...]]) -> str:
    # longest first, so that `→+*` wins over `*` and `<->` over `<`
    # numerals and word-like keys (`exists`, `ℕ`) are read by the number and identifier patterns
    keys = sorted((k for k in table if not (k.isdigit() or k.isalpha())), key=len, reverse=True)
    return "|".join(re.escape(k) for k in keys)


_LEAN_TOKEN = re.compile(rf"(?P<id>{_LEAN_IDENT})|(?P<num>\d+)|(?P<op>{_notation_pattern(LEAN_NOTATION)})")
_COQ_TOKEN = re.compile(rf"(?P<id>{_COQ_IDENT})|(?P<num>\d+)|(?P<op>{_notation_pattern(COQ_NOTATION)})")

# binder groups `(a b : T)`, `{a : T}`, `[inst : C a]`, `⦃a b : T⦄`
_BINDER_GROUP = re.compile(r"[(\[{⦃]\s*((?:[^\W\d][\w'!?]*\s+)*[^\W\d][\w'!?]*)\s*:(?!=)")
# `∀ x y,` / `∃ x : T,` / `fun x =>` / `∑ i in s,` / Coq `forall (x y : nat),`
_QUANT_BINDERS = re.compile(
    r"(?:∀|∃!?|∑|∏|⋃|⋂|λ|\bfun\b|\bforall\b|\bexists\b)\s*([^,=⇒]*?)\s*(?:,|=>|↦|\bin\b|∈)"
)
_NAME = re.compile(r"[^\W\d][\w'!?]*")
# the name a declaration introduces: it is what the premise *is*, not a symbol it uses
_DECLARED = re.compile(
    r"\b(?:theorem|lemma|def|abbrev|instance|class|structure|inductive|Theorem|Lemma|Definition|"
    r"Fixpoint|Inductive|Record|Instance|Fact|Remark|Corollary|Proposition|Example)\s+([^\s(\[{:]+)"
)
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


def extract_symbols(text: str, language: Language = "lean", exclude: set[str] | frozenset[str] = frozenset()) -> set[str]:
    """The constants mentioned in ``text``, bound names and ``exclude`` left out.

    >>> sorted(extract_symbols("theorem foo (n : ℕ) : n + 0 = n"))
    ['Eq', 'HAdd.hAdd', 'Nat', 'Zero.zero']
    """
    if language == "lean":
        token, table, keywords = _LEAN_TOKEN, LEAN_NOTATION, LEAN_KEYWORDS
    else:
        token, table, keywords = _COQ_TOKEN, COQ_NOTATION, COQ_KEYWORDS
    local = bound_names(text) | set(_DECLARED.findall(text)) | set(exclude)
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
            symbols.update(table.get(tok, ("OfNat.ofNat",) if language == "lean" else ()))
        else:
            symbols.update(table[tok])
    return symbols
