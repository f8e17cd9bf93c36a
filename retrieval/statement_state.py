"""A Lean declaration header rewritten as the proof state it opens.

PS-2 is evaluated on tactic states (``x : ℕ\\nh : 0 < x\\n⊢ goal``) but the weak supervision of
``proofs.jsonl`` gives declaration headers (``theorem foo (x : ℕ) (h : 0 < x) : goal``). Training
on headers teaches the encoder two things evaluation never shows it: the theorem keyword and
attributes, and the theorem's own name, which is the strongest lexical cue of all (``add_comm``'s
proof mentions ``add_comm``-like names) and is absent from every state. Rewriting the header as
the state that introducing all its binders would show closes both gaps: one hypothesis line per
binder group, anonymous instances as ``inst✝``, then ``⊢`` and the type.

The rewrite is textual and conservative: a header it cannot split (unbalanced brackets, no
top-level colon) keeps its text without the name, never an invented state.
"""

from __future__ import annotations

import re

_MODIFIERS = frozenset({"protected", "private", "nonrec", "noncomputable", "unsafe", "partial"})
_KEYWORDS = frozenset({"theorem", "lemma"})
_OPEN = {"(": ")", "{": "}", "[": "]", "⦃": "⦄", "⟨": "⟩"}
_CLOSE = frozenset(_OPEN.values())
_SPACES = re.compile(r"\s+")


def _group_end(text: str, start: int) -> int | None:
    """Index just past the bracket group opening at ``start``, or None if it never closes."""
    depth = 0
    for i in range(start, len(text)):
        c = text[i]
        if c in _OPEN:
            depth += 1
        elif c in _CLOSE:
            depth -= 1
            if depth == 0:
                return i + 1
    return None


def _top_level_colon(text: str) -> int | None:
    """Index of the first ``:`` outside brackets that is not part of ``:=``, or None."""
    depth = 0
    for i, c in enumerate(text):
        if c in _OPEN:
            depth += 1
        elif c in _CLOSE:
            depth -= 1
        elif c == ":" and depth == 0 and not text.startswith(":=", i):
            return i
    return None


def _hypothesis(binder: str) -> str | None:
    """The hypothesis line of one binder group (brackets included), None for a binder without a
    type (``{x}``), whose type only Lean's elaborator knows."""
    inner = binder[1:-1].strip()
    colon = _top_level_colon(inner)
    if colon is None:  # an instance binder without a name is printed as Lean names it
        return f"inst✝ : {inner}" if binder[0] == "[" else None
    return f"{inner[:colon].strip()} : {inner[colon + 1:].strip()}"


def _strip_head(statement: str) -> str:
    """The header after its attributes, modifiers, keyword and name (``(x : ℕ) : x = x``)."""
    text = statement.strip()
    while text.startswith("@["):
        end = _group_end(text, 1)
        if end is None:
            return text
        text = text[end:].lstrip()
    words = text.split(maxsplit=1)
    while words and words[0] in _MODIFIERS:
        text = words[1] if len(words) > 1 else ""
        words = text.split(maxsplit=1)
    if words and words[0] in _KEYWORDS:
        parts = text.split(maxsplit=2)
        text = parts[2] if len(parts) > 2 else ""
    return text


def statement_as_state(statement: str) -> str:
    """The proof state a Lean ``theorem``/``lemma`` header opens, as LeanDojo prints states."""
    head = rest = _strip_head(statement)
    lines: list[str] = []
    while rest[:1] in _OPEN:
        end = _group_end(rest, 0)
        if end is None:
            return head
        hypothesis = _hypothesis(rest[:end])
        if hypothesis is not None:
            lines.append(_SPACES.sub(" ", hypothesis))
        rest = rest[end:].lstrip()
    if not rest.startswith(":"):
        return head
    lines.append("⊢ " + _SPACES.sub(" ", rest[1:].strip()))
    return "\n".join(lines)
