"""What the language modules share: the parse error and bracket-aware splitting."""

from __future__ import annotations

from typing import Literal

Language = Literal["lean", "coq"]


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
