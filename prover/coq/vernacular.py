"""What a Coq sentence is, read from its text: the vernacular keywords and sentence classifiers.

The stdlib index (:mod:`prover.coq.scanner`) and the proof context (:mod:`prover.coq.context`)
both classify sentences through this module, so that they agree on what declares a name, opens a
block or opens a proof. Sentences are comment-free ``Sentence.code`` texts
(:mod:`prover.coq.sentences`).
"""

from __future__ import annotations

import re
from collections.abc import Iterator

THEOREM_KEYWORDS = ("Theorem", "Lemma", "Corollary", "Proposition", "Fact", "Remark", "Example", "Property")
DEFINITION_KEYWORDS = (
    "Definition", "Fixpoint", "CoFixpoint", "Inductive", "CoInductive", "Variant", "Record", "Structure",
    "Class", "Instance", "Let", "Axiom", "Axioms", "Parameter", "Parameters", "Conjecture", "Function",
)
PROOF_ENDS = ("Qed", "Defined", "Admitted", "Abort")
# definitions that open a proof when stated without a body (``Definition d : nat. Proof. ...``)
_PROVABLE_DEFINITIONS = ("Definition", "Fixpoint", "CoFixpoint", "Instance", "Let")

_PREFIX = (r"(?:#\[[^\]]*\]\s*)*"
           r"(?:(?:Local|Global|Polymorphic|Monomorphic|Program|Private|Cumulative|NonCumulative|Canonical|Existing)\s+)*")
IDENT = r"[A-Za-z_][\w']*(?![\w'])"
DECLARATION = re.compile(
    rf"{_PREFIX}(?P<kw>{'|'.join(THEOREM_KEYWORDS + DEFINITION_KEYWORDS)})\s+"
    r"(?:Inline(?:\s*\(\s*\d+\s*\))?\s+)?"  # ``Parameter Inline(40) lt``: a flag, not the name
    rf"(?P<name>{IDENT})"
)
PROOF_END = re.compile(rf"(?:{'|'.join(PROOF_ENDS)})\s*\.$|Save\s+{IDENT}\s*\.$")
_SECTION = re.compile(rf"Section\s+(?P<name>{IDENT})\s*\.$")
_MODULE = re.compile(rf"{_PREFIX}(?:Declare\s+)?Module\s+(?:Type\s+)?(?:(?:Import|Export)\s+)?(?P<name>{IDENT})")
_END = re.compile(rf"End\s+(?P<name>{IDENT})\s*\.$")
REQUIRE = re.compile(
    r"(?:From\s+(?P<from>[\w.']+)\s+)?Require\s+(?:(?:Import|Export)\s+)?(?P<mods>[^.]+(?:\.[\w']+)*)\s*\.$"
)
# names a file gives to tactics (Ltac, Tactic Notation) and hint databases: words in tactics that
# are never premises
TACTIC_NAME = re.compile(
    rf"{_PREFIX}(?:Ltac2?\s+(?:mutable\s+|rec\s+)?(?P<ltac>{IDENT})|Tactic\s+Notation(?:\s*\([^)]*\))?\s*\"(?P<notation>{IDENT})\""
    rf"|Create\s+HintDb\s+(?P<db>{IDENT}))"
)
_WITH_CLAUSE = re.compile(r"with\s+(?:Definition|Module)\s+[\w.']+\s*:=\s*[\w.']+")

_OPEN, _CLOSE = re.compile(r"[(\[{]|\bmatch\b"), re.compile(r"[)\]}]|\bend\b")
# `let`, `let fix`, `let cofix`, `fix`, `cofix`: each binds with exactly one `:=` of its own
_LET = re.compile(r"let(?:\s+(?:co)?fix)?|(?:co)?fix")
_TOKEN = re.compile(
    r'"(?:[^"]|"")*"|\bmatch\b|\bend\b|\bwith\b|\bwhere\b|(?<![\w\'])(?:let(?:\s+(?:co)?fix)?|(?:co)?fix)(?![\w\'])'
    r"|:=|[(\[{)\]};|]"
)


def block_sentence(code: str) -> tuple[str, str, str] | None:
    """How a sentence acts on the stack of open sections and modules: ``(kind, name, header)``.

    ``kind`` is ``"section"`` (``Section X.``), ``"module"`` (an interactive ``Module X ...`` or
    ``Module Type X ...``, which opens a block; ``header`` is the text after the name, e.g. the
    functor binders), ``"declare"`` (``Declare Module X : T``: no block, a parameter of the
    enclosing module), ``"defined"`` (``Module X := ...`` in one sentence: no block) or ``"end"``
    (``End X.``); None for any other sentence. The index and :mod:`prover.coq.context` both read
    blocks through this, so they agree on what opens one.
    """
    if (m := _SECTION.match(code)) is not None:
        return "section", m.group("name"), ""
    if (m := _MODULE.match(code)) is not None:
        if code.startswith("Declare"):
            return "declare", m.group("name"), ""
        if ":=" in _WITH_CLAUSE.sub("", code):
            return "defined", m.group("name"), ""
        return "module", m.group("name"), code[m.end():]
    if (m := _END.match(code)) is not None:
        return "end", m.group("name"), ""
    return None


def top_level_tokens(text: str) -> Iterator[tuple[int, str, int]]:
    """``(offset, token, depth)`` of the tokens that matter for reading a declaration's structure.

    Depth counts brackets and ``match ... end``; strings are skipped (comments must be stripped or
    masked). Besides brackets, the tokens are ``match end with where := ; |`` and the binders that
    own a ``:=`` (``let``, ``let fix``, ``fix``, ``cofix``).
    """
    depth = 0
    for m in _TOKEN.finditer(text):
        tok = m.group()
        if tok.startswith('"'):
            continue
        if _OPEN.fullmatch(tok):
            depth += 1
            yield m.start(), tok, depth
        elif _CLOSE.fullmatch(tok):
            yield m.start(), tok, depth
            depth -= 1
        else:
            yield m.start(), tok, depth


def has_body(code: str) -> bool:
    """Whether a declaration sentence gives its body (``... := body.``), as Coq's parser reads it.

    Only a ``:=`` outside brackets that no ``let``/``fix`` of the statement owns is a body:
    ``(x := v)`` binders and ``(A:=bool)`` named arguments are inside brackets, and
    ``let (q, r) := e in ...`` in the type is the let's own.
    """
    unbound_lets = 0
    for _, tok, depth in top_level_tokens(code):
        if depth:
            continue
        if _LET.fullmatch(tok):
            unbound_lets += 1
        elif tok == ":=":
            if not unbound_lets:
                return True
            unbound_lets -= 1
    return False


def needs_proof(code: str, kw: str) -> bool:
    """Whether a declaration sentence opens a proof: a theorem or definition stated without a body."""
    return kw in THEOREM_KEYWORDS + _PROVABLE_DEFINITIONS and not has_body(code)


def opens_no_proof(code: str) -> bool:
    """Sentences that never occur inside a proof script: declarations and block structure."""
    return any(r.match(code) for r in (DECLARATION, _SECTION, _MODULE, _END, REQUIRE))
