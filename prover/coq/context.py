"""Where a Coq theorem is opened: the sentences before it, its statement, and how to run Coq.

A stdlib theorem is opened in the context of its own file up to (not including) its statement, so
neither it nor anything after it is available, and its own module is never ``Require``d: coqtop
runs the file's earlier sentences itself, under the file's logical name (``-top``), with
``-noinit`` for the files of ``Init/`` (which the stdlib compiles without the Prelude).

An ad-hoc theorem (a user's lemma, a test) is a statement plus a prelude of sentences such as
``Require Import Arith.``; :func:`adhoc_theorem` builds the :class:`Theorem` for one.
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass

from search_tree.protocol import Theorem

from .sentences import SentenceSplitError, split_sentences, strip_comments
from .stdlib import block_sentence

ADHOC_MODULE = "DojoScratch"
_NAME = re.compile(r"(?:#\[[^\]]*\]\s*)*(?:(?:Local|Global|Polymorphic|Monomorphic|Program)\s+)*"
                   r"(?:Theorem|Lemma|Corollary|Proposition|Fact|Remark|Example|Property|Definition|Goal)"
                   r"\s+([A-Za-z_][\w']*)")


@dataclass(frozen=True)
class CoqContext:
    """Everything needed to open one theorem in coqtop and to re-check a proof with coqc.

    ``key`` identifies the file: two contexts with the same key have prefixes that are prefixes of
    one another, so a coqtop that replayed one can move to the other with ``BackTo`` and a little
    more replay. ``prefix`` is what coqtop runs before the statement (proofs of earlier lemmas may
    be elided, see :func:`stdlib_context`); ``source_prefix`` is the file's real text before the
    statement, which :mod:`prover.coq.verify` compiles. ``module`` is the logical module name
    (``Coq.Arith.PeanoNat``) under which both run; ``name`` the theorem's short name as its file
    refers to it right after its proof.
    """

    key: str
    name: str
    statement: str
    prefix: tuple[str, ...]
    source_prefix: str
    module: str
    noinit: bool = False
    trusted_prefix: bool = True  # the prefix is stdlib text, so the axioms it declares are the library's
    closing: tuple[str, ...] = ()  # ``End X.`` for the sections and modules open at the statement
    # functor arguments and declared modules of the open modules: Print Assumptions lists their
    # fields (``X.lt``) as axioms, though they are parameters of the library's own functors
    module_parameters: tuple[str, ...] = ()

    @property
    def coqtop_args(self) -> tuple[str, ...]:
        return ("-top", self.module) + (("-noinit",) if self.noinit else ())


def theorem_name(statement: str) -> str:
    """The name a ``Theorem``/``Lemma``/... sentence declares; ValueError naming the text if none."""
    m = _NAME.match(statement.strip())
    if m is None:
        raise ValueError(f"not a theorem statement (Theorem/Lemma/... name : type.): {statement[:200]!r}")
    return m.group(1)


def adhoc_theorem(statement: str, prelude: tuple[str, ...] | list[str] = (), name: str | None = None) -> Theorem:
    """A :class:`Theorem` for a user's statement, opened after the sentences of ``prelude``.

    ``statement`` is one sentence such as ``"Lemma two : 1 + 1 = 2."``; ``prelude`` holds whole
    sentences (``"Require Import Arith."``, definitions...). Both are checked to be complete
    sentences here, so that a typo is reported naming the text rather than as a coqtop hang.
    """
    try:
        parts = split_sentences(statement, "<statement>")
    except SentenceSplitError as exc:
        raise ValueError(f"theorem statement {statement[:200]!r}: {exc.what}") from None
    if len(parts) != 1:
        raise ValueError(f"a theorem statement must be exactly one sentence, got {len(parts)}: {statement[:200]!r}")
    sentences: list[str] = []
    for text in prelude:
        try:
            sentences.extend(s.text for s in split_sentences(text, "<prelude>"))
        except SentenceSplitError as exc:
            raise ValueError(f"prelude sentence {text[:200]!r}: {exc.what}") from None
    declared = theorem_name(statement)
    return Theorem(full_name=name or declared, statement=parts[0].text,
                   extra={"prelude": tuple(sentences)})


def adhoc_context(theorem: Theorem) -> CoqContext:
    """The context of a theorem made by :func:`adhoc_theorem` (or any with ``extra["prelude"]``)."""
    prelude = tuple(theorem.extra.get("prelude", ()))
    key = "adhoc:" + hashlib.sha1("\n".join(prelude).encode()).hexdigest()
    return CoqContext(key=key, name=theorem_name(theorem.statement), statement=theorem.statement,
                      prefix=prelude, source_prefix="\n".join(prelude), module=ADHOC_MODULE,
                      trusted_prefix=False)


def stdlib_context(theorem: Theorem, index, elide_proofs: bool = True) -> CoqContext:
    """The context of a stdlib theorem from the index (:mod:`prover.coq.stdlib`).

    With ``elide_proofs``, earlier lemmas of the file that end in ``Qed`` and are not inside a
    section are sent to coqtop as their statement plus ``Admitted.``: opaque proofs cannot change
    what later sentences see, and skipping them makes opening a theorem deep in a long file much
    faster. Lemmas in sections keep their proofs (the proof decides which section variables the
    lemma abstracts over), as do ``Defined`` ones (their bodies compute). The file's real text is
    what :mod:`prover.coq.verify` compiles, so elision never reaches the final check.
    """
    source = index.file(theorem.file_path)
    text = (index.root / source.path).read_text()
    offset = theorem.extra["offset"]
    skipped: set[int] = set()  # starts of sentences to leave out
    admitted_after: set[int] = set()  # starts of statements followed by Admitted.
    if elide_proofs:
        starts = [s for s, _ in source.sentences]
        position = {s: i for i, s in enumerate(starts)}
        for entry in source.theorems:
            if entry.offset >= offset or entry.in_section or entry.terminator != "Qed":
                continue
            i = position[entry.offset]
            last = position[entry.proof[-1][0]] if entry.proof else i
            skipped.update(starts[i + 1:last + 2])  # the proof sentences and the terminator
            admitted_after.add(entry.offset)
    prefix: list[str] = []
    blocks: list[tuple[str, tuple[str, ...]]] = []
    for start, end in source.sentences:
        if end > offset:
            break
        _track_block(strip_comments(text[start:end]).strip(), blocks)
        if start in skipped:
            continue
        prefix.append(text[start:end])
        if start in admitted_after:
            prefix.append("Admitted.")
    stop = next(e for s, e in source.sentences if s == offset)
    return CoqContext(
        key="stdlib:" + source.path,
        name=theorem_name(text[offset:stop]),
        statement=text[offset:stop],
        prefix=tuple(prefix),
        source_prefix=text[:offset],
        module=source.module,
        noinit=source.path.startswith("Init/"),
        closing=tuple(f"End {name}." for name, _ in reversed(blocks)),
        module_parameters=tuple(p for _, params in blocks for p in params),
    )


_BINDER = re.compile(r"\(\s*(?:(?:Import|Export)\s+)?([A-Za-z_][\w'\s]*?)\s*:")


def _track_block(code: str, blocks: list[tuple[str, tuple[str, ...]]]) -> None:
    """Maintain the stack of open sections and modules, with each module's parameters.

    Uses the index's own reading (:func:`prover.coq.stdlib.block_sentence`) so that both agree on what opens a
    block: ``Section X.``, an interactive ``Module X`` (not ``Declare Module`` nor ``Module X :=
    ...``), and ``End X.``. A module's parameters are its functor arguments (``Module Make (X :
    OrderedType)``) and the modules declared inside it (``Declare Module E : T``).
    """
    block = block_sentence(code)
    if block is None:
        return
    kind, name, header = block
    if kind == "section":
        blocks.append((name, ()))
    elif kind == "declare":
        if blocks:
            outer, params = blocks[-1]
            blocks[-1] = (outer, params + (name,))
    elif kind == "module":
        names = tuple(n for b in _BINDER.findall(header.split(":=")[0]) for n in b.split())
        blocks.append((name, names))
    elif kind == "end" and blocks and blocks[-1][0] == name:
        blocks.pop()
