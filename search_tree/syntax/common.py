"""What the backends' syntax modules and the printed-state reader share: the parse error,
bracket-aware splitting, and the two layouts of a let-bound hypothesis."""

from __future__ import annotations

#: what Lean prints before a goal's target
TURNSTILE = "⊢"
#: brackets of either language, Lean's Unicode ones included
OPENING = "([{⟨⦃⟦«"
CLOSING = ")]}⟩⦄⟧»"


class GoalParseError(ValueError):
    """A printed proof state that does not have the layout the backend prints (the message quotes it)."""


def top_level_index(text: str, token: str, opening: str = "([{", closing: str = ")]}", last: bool = False) -> int:
    """Index of the first (or ``last``) ``token`` in ``text`` outside brackets, or -1."""
    depth, found = 0, -1
    for i, ch in enumerate(text):
        if ch in opening:
            depth += 1
        elif ch in closing:
            depth = max(depth - 1, 0)
        elif depth == 0 and text.startswith(token, i):
            if not last:
                return i
            found = i
    return found


def normalise(text: str) -> str:
    """A wrapped hypothesis or target on one line (line breaks in printed goals are layout only)."""
    return " ".join(text.split())


def let_value_then_type(text: str) -> tuple[str, str | None]:
    """``value : type`` (Coq's layout after ``x :=``) -> ``(type, value)``, split at the last
    ``" : "`` outside brackets; ``(text, None)`` when there is none.

    Best effort: a type that itself has a top-level ``" : "`` (a ``forall x : T, ...`` without
    parentheses) is split too early; the rendered state is unaffected since it joins them again.
    """
    cut = top_level_index(text, " : ", last=True)
    if cut < 0:
        return text, None
    return text[cut + 3:], text[:cut]


def let_type_then_value(text: str) -> tuple[str, str | None]:
    """``type := value`` (Lean's layout after ``x :``) -> ``(type, value)``; ``(text, None)``
    without a value. Only a ``:=`` outside brackets separates them (``f { fst := x }`` is a type)."""
    assign = top_level_index(text, " :=", OPENING, CLOSING)
    if assign < 0:
        return text, None
    return text[:assign], normalise(text[assign + len(" :="):])
