"""What a Coq sentence is, read from its text: the vernacular keywords and sentence classifiers.

The stdlib index (:mod:`prover.coq.scanner`) and the proof context (:mod:`prover.coq.context`)
both classify sentences through this module, so that they agree on what declares a name, opens a
block or opens a proof. Sentences are comment-free ``Sentence.code`` texts
(:mod:`prover.coq.sentences`).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator

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
# control prefixes that leave a sentence what it is (``Time Qed.`` still ends the proof); ``Fail``
# and ``Succeed`` undo what the sentence did, so ``Fail Qed.`` ends nothing
_CONTROL = r'(?:(?:Time|Timeout\s+\d+|Redirect\s+"(?:[^"]|"")*")\s+)*'
_TERMINATOR = re.compile(rf"{_CONTROL}(?P<kw>{'|'.join(PROOF_ENDS)}|Save)(?![\w'])\s*(?P<arg>.*?)\s*\.\Z", re.S)
# what each terminator may name after its keyword, in Coq 8.16's grammar (``Defined name.``, ``Abort All.``)
_TERMINATOR_ARG = {"Qed": "", "Admitted": "", "Defined": f"(?:{IDENT})?", "Abort": "(?:All)?", "Save": IDENT}
# ``Proof <term>.`` (Coq's ``exact <term>. Qed.`` in one sentence), not ``Proof.``, ``Proof using ...``,
# ``Proof with ...`` nor ``Proof Mode "..."``, which only open or set up a proof
_EXACT_PROOF = re.compile(rf"{_CONTROL}Proof(?![\w'])(?!\s*\.\Z|\s*(?:using|with|Mode)(?![\w']))")
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


def proof_terminator(code: str) -> str | None:
    """The keyword of a sentence that ends the proof it is in: ``Qed``, ``Defined``, ``Admitted``,
    ``Abort`` or ``Save`` (also after ``Time``/``Timeout n``/``Redirect``: ``Time Qed.``), and
    ``Proof`` for ``Proof <term>.``, a whole proof in one sentence; None for any other sentence.

    ``code`` is a comment-free sentence (:attr:`prover.coq.sentences.Sentence.code`), so a dot or a
    ``Qed`` inside a comment, a string or an identifier (``apply Qed_lemma.``) is never read as one.
    """
    m = _TERMINATOR.match(code)
    if m is not None and re.fullmatch(_TERMINATOR_ARG[m.group("kw")], m.group("arg")):
        return m.group("kw")
    return "Proof" if _EXACT_PROOF.match(code) else None


def proof_end(codes: Iterable[str]) -> tuple[int, str] | None:
    """Where the proof that follows a statement ends: ``(k, keyword)`` for the ``k``-th of the
    comment-free sentences ``codes`` after the statement, the proof's terminator
    (:func:`proof_terminator`); None when a sentence that never occurs in a proof
    (:func:`opens_no_proof`) comes first, or none ends it.

    The one reading of a proof's extent: the index (:mod:`prover.coq.scanner`) records it, and
    the tracer, the elision of earlier proofs and the final check's copy of the declared lemma
    (:mod:`prover.coq.context`) all take it from there, so none of them runs on into the next
    sentences after a ``Proof <term>.`` or a ``Time Qed.``.
    """
    for k, code in enumerate(codes):
        keyword = proof_terminator(code)
        if keyword is not None:
            return k, keyword
        if opens_no_proof(code):
            return None
    return None
