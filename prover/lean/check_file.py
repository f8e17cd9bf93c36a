"""The Lean file the final check compiles (:mod:`prover.lean.check`), and the names it invents.

The file is the theorem's file up to the theorem, then four commands::

    set_option maxHeartbeats 0 in
    theorem <prefix>dojo_statement_<nonce> <the header's binders and type> := sorry   -- the statement

    set_option maxHeartbeats 0 in
    <the header> <the proof>                                                      -- the theorem

    theorem _root_.dojo_proved_<nonce'> : type_of% @<prefix>dojo_statement_<nonce> := @_root_.<full name>

    #print axioms dojo_proved_<nonce'>                                            -- read by the check

**The statement** is the header elaborated again, under a fresh name and with a ``sorry`` body,
*before* the proof: its type is what the header says, whatever the proof does. Before Lean v4.10 a
section ``variable (h : P)`` that a tactic proof uses is added to the theorem's type, so a proof
through ``h`` proves ``P → statement``; ``#print axioms`` cannot see that (``h`` is a hypothesis, not
an axiom). Only the name is changed: the keyword is ``theorem`` (Mathlib's ``lemma`` is a macro for
it), the modifiers and attributes are dropped (a ``@[simp]`` or ``@[instance]`` statement proved by
``sorry`` would be offered to the proof's tactics; ``private``/``protected`` would change how it is
named), and the declared name keeps its namespace prefix, since Lean elaborates ``theorem Nat.foo``
inside ``namespace Nat`` and the statement must be read in the same scope as the theorem.

**The alias** both compares the types and names what is printed. It is a ``theorem`` whose type is
the statement's and whose proof is the theorem itself, so it compiles only if the theorem's type is
definitionally equal to the header's: an extra hypothesis is an extra ``∀`` that no unfolding
removes, and a proof of a definitionally equal type is a proof of the header's statement. One
declaration does both, so the axioms printed are those of the very term whose type was compared
(an ``example`` cannot be printed); and Lean turns the universe metavariables of a *theorem's*
header into universe parameters, so a universe-polymorphic statement is compared at generic
universes. Its name is fresh and unpredictable (:func:`fresh_names`, from :mod:`secrets`), declared
at the root, and never private: Lean prints exactly ``'dojo_proved_<nonce'>'``, whatever the
theorem's own name prints as (a ``private`` theorem prints as ``_private.<module>.0.<name>``, and
the check's module is a temporary file), and a proof, written before the nonce was drawn, cannot
print a line naming it. The two nonces are independent, so a proof that could read the statement's
name from the environment still could not guess the alias's. The theorem is named
``@_root_.<full name>``, which Lean resolves exactly (private declarations of the module included),
where a bare name inside a ``namespace`` could resolve to another constant first.

The statement's ``sorry`` is harmless: it is declared on lines of its own, before the theorem's,
and the check counts ``sorry`` warnings only on the theorem's lines and reads axioms only from the
alias's line; the alias depends on the statement's *type* (``type_of%`` is elaborated away), not
on its ``sorryAx`` proof, so a ``sorryAx`` in that line is the theorem's own.
"""

from __future__ import annotations

import re
import secrets
from dataclasses import dataclass

from prover.lean.lexer import LexError, Token, tokenize

_KEYWORDS = ("theorem", "lemma")
_DOC_COMMENT = re.compile(r"/-[-!]")


class CheckFileError(ValueError):
    """The check cannot write a file that says what it must (a header or a name it cannot read)."""


@dataclass(frozen=True)
class CheckNames:
    """The fresh names of one check: the header's statement (last component) and the alias."""

    statement: str
    alias: str


def fresh_names() -> CheckNames:
    """Two independent unpredictable names (128 bits each), drawn per check."""
    return CheckNames(f"dojo_statement_{secrets.token_hex(16)}", f"dojo_proved_{secrets.token_hex(16)}")


@dataclass(frozen=True)
class CheckedFile:
    """The file Lean compiles and where its parts are (1-based line ranges)."""

    text: str
    statement_lines: range
    theorem_lines: range
    alias_lines: range
    alias: str


def _after_doc_comment(header: str) -> int:
    """Where the header's code starts after a leading doc comment (``/-- ... -/``, nested ``/- -/``
    counted), which LeanDojo leaves in the declaration's modifiers; 0 without one."""
    stripped = header.lstrip()
    if not _DOC_COMMENT.match(stripped):
        return 0
    i, depth = len(header) - len(stripped) + 2, 1
    while depth:
        opening, closing = header.find("/-", i), header.find("-/", i)
        if closing < 0:
            raise CheckFileError("the header's doc comment is not closed")
        if 0 <= opening < closing:
            depth, i = depth + 1, opening + 2
        else:
            depth, i = depth - 1, closing + 2
    return i


def _declared_name(header: str) -> tuple[int, Token]:
    """The offset the tokens were read from and the declared name's token: the first name after
    ``theorem``/``lemma`` outside brackets (attributes can hold any word)."""
    start = _after_doc_comment(header)
    try:
        tokens = tokenize(header[start:])
    except LexError as exc:
        raise CheckFileError(f"cannot read the theorem's header: {exc}") from exc
    depth = 0
    for token, following in zip(tokens, tokens[1:]):
        depth += (token.kind == "open") - (token.kind == "close")
        if depth == 0 and token.kind == "name" and token.text in _KEYWORDS:
            if following.kind != "name":
                break
            return start, following
    raise CheckFileError("the header does not declare a theorem (`theorem NAME` or `lemma NAME`)")


def _last_part_offset(token: Token) -> int:
    """Where the last component of a dotted name starts in its text (components may be «quoted»)."""
    offset = last = 0
    for part in token.parts:
        last = offset
        offset += len(part) + 2 if token.text[offset] == "«" else len(part)
        offset += 1  # the dot
    return last


def statement_header(header: str, name: str) -> tuple[str, str]:
    """``header`` (``... :=``) declared as a bare ``theorem`` whose last name component is ``name``,
    and the name by which the same scope refers to it (module doc)."""
    start, token = _declared_name(header)
    renamed = token.text[:_last_part_offset(token)] + name
    return f"theorem {renamed}{header[start + token.start + len(token.text):]}", renamed


def theorem_reference(full_name: str) -> str:
    """``@_root_.<full_name>``, the exact reference to the theorem; ``full_name`` must be one Lean
    name, since it is pasted into the file."""
    try:
        tokens = tokenize(full_name)
    except LexError as exc:
        raise CheckFileError(f"{full_name!r} is not a Lean name: {exc}") from exc
    if len(tokens) != 1 or tokens[0].kind != "name" or tokens[0].text != full_name:
        raise CheckFileError(f"{full_name!r} is not a Lean name")
    return f"@_root_.{full_name}"


def _lines(text: str, added: str) -> range:
    """The lines ``added`` takes once appended to ``text`` (which ends with a newline)."""
    first = text.count("\n") + 1
    return range(first, first + added.count("\n"))


def checked_file(before: str, header: str, proof: str, full_name: str, names: CheckNames) -> CheckedFile:
    """The file of the module doc: ``before`` (the theorem's file up to its declaration), the
    statement, the theorem (``header`` then ``proof``), the alias and ``#print axioms`` of the alias."""
    statement, statement_name = statement_header(header, names.statement)
    reference = theorem_reference(full_name)
    text = before + "\n\nset_option maxHeartbeats 0 in\n"
    part = f"{statement} sorry\n"
    statement_lines, text = _lines(text, part), text + part
    text += "\nset_option maxHeartbeats 0 in\n"
    part = f"{header} {proof}\n"
    theorem_lines, text = _lines(text, part), text + part
    text += "\n"
    part = f"theorem _root_.{names.alias} : type_of% @{statement_name} := {reference}\n"
    alias_lines, text = _lines(text, part), text + part
    return CheckedFile(text + f"\n#print axioms {names.alias}\n", statement_lines, theorem_lines, alias_lines,
                       names.alias)
