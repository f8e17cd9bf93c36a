"""A stdlib theorem reopened under another module path, so that a context addition may load its module.

A stdlib theorem is opened inside its own file, under the file's logical name (``-top
Coq.Lists.List``). CoqHammer's ``Tactics`` ``Require``\\ s ~200 compiled stdlib modules; loading it
there would load the compiled copy of the very module being replayed, which Coq refuses (and
which would hold the theorem itself and every later lemma of its file). So when an addition
loads the theorem's module (:func:`prover.coq.additions.leaks`), the theorem's context is replayed
under a distinct module path, :data:`REOPENED` followed by the module's own name
(``DojoReopened.Coq.Lists.List``): the file's earlier sentences become that module's, the
compiled module may be loaded next to it, and the statement mentions the reopened definitions
(``DojoReopened.Coq.Lists.List.In``), not the compiled ones. The suffix is kept so that the
file's references to itself by a qualified name (``List.map``) still read the same.

What the compiled copy offers beyond the reopened twins of the file's earlier objects is what a
leak is made of: a proof found in a reopened context is accepted only when its term depends on
no compiled object without a twin, i.e. neither on the theorem nor on a later object of its file
(:mod:`prover.coq.dependencies`, read from the final term, checked in :mod:`prover.coq.verify`).
coqc and coqchk check the proof in the reopened module, which is where it was found.
"""

from __future__ import annotations

from dataclasses import replace

from .context import CoqContext
from .sentences import strip_comments
from .vernacular import block_sentence

REOPENED = "DojoReopened"


def reopen(context: CoqContext) -> CoqContext:
    """``context`` replayed under ``DojoReopened.<module>`` (its own key, so that no coqtop that
    replayed the file under its own name is reused for it); unchanged when already reopened."""
    if compiled_module(context) is not None:
        return context
    return replace(context, module=f"{REOPENED}.{context.module}", key=f"reopened:{context.key}")


def compiled_module(context: CoqContext) -> str | None:
    """The compiled module a reopened context stands in for (``Coq.Lists.List``); None for any
    other context."""
    head, _, rest = context.module.partition(".")
    return rest if head == REOPENED and rest else None


def open_blocks(context: CoqContext) -> list[tuple[str, str]]:
    """The sections and modules open at the statement, outermost first: ``[(kind, name)]``."""
    blocks: list[tuple[str, str]] = []
    for sentence in context.prefix:
        found = block_sentence(strip_comments(sentence).strip())
        if found is None:
            continue
        kind, name, _ = found
        if kind in ("section", "module"):
            blocks.append((kind, name))
        elif kind == "end" and blocks and blocks[-1][1] == name:
            blocks.pop()
    return blocks


def open_sections(context: CoqContext) -> int:
    """How many of the blocks open at the statement are sections (they are the innermost:
    a section holds no module), i.e. how many of ``context.closing`` close a section.

    The statement's constant is a constant of the global environment only once they are
    closed; the modules around it may stay open (a functor's lemma is no constant outside it)."""
    count = 0
    for kind, _ in reversed(open_blocks(context)):
        if kind != "section":
            break
        count += 1
    return count
