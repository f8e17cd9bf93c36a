"""Lean 4's tokens, as far as the tactic policy needs them.

The policy (:mod:`prover.lean.policy`) decides on tokens, not on raw text, so that a word inside a
string literal, a bracket inside a character literal or a name written with guillemets (``«native»``)
is seen the way Lean's own tokenizer sees it. Where this model of Lean and Lean itself could
disagree about where a literal ends, the text is refused (a :class:`LexError`) rather than guessed:

* comments (``--``, ``/-``) and the end of one (``-/``): a tactic has no use for them, and they could
  hide text from the policy or swallow the source after the proof;
* unterminated string, character and ``«name»`` literals (they would swallow the rest of the file),
  and escapes Lean does not define;
* raw and interpolated strings (``r"..."``, ``r#"..."#``, ``s!"..."``, ``m!"{x}"``): their rules
  differ between Lean versions (before raw strings, ``r"\\"`` is ``r`` applied to an unterminated
  string) and no proof needs them;
* control and invisible characters (Unicode formats such as bidi overrides, line and paragraph
  separators): what a reviewer reads would not be what Lean reads.

``'`` starts a character literal wherever a token starts, as in Lean, except in ``''`` (Mathlib's
image, ``f '' s``) and right after ``¹``, ``×``, ``∑``, ``∏``, ``Σ`` or ``⟧`` (Mathlib's tokens
``⁻¹'``, ``×'``, ``∑'``, ``∏'``, ``Σ'``, ``⟧'``); a character literal that is not closed at once is
refused, so a quote misread here fails closed. Names follow Lean's ``isIdFirst`` and
``isIdRest``: ASCII letters and digits, ``_``, ``'``, ``!``, ``?``, Lean's letter-like blocks (Greek
but ``λ Π Σ``, Coptic, letter-like symbols, mathematical alphanumerics) and subscripts.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass

OPENERS = {"(": ")", "[": "]", "{": "}", "⟨": "⟩", "⦃": "⦄", "⟦": "⟧", "‹": "›"}
CLOSERS = {v: k for k, v in OPENERS.items()}
_INVISIBLE = {"Cf", "Zl", "Zp", "Co", "Cs", "Cn"}  # formats (bidi, zero-width), separators, unassigned
_LETTER_LIKE = [(0x3B1, 0x3C9), (0x391, 0x3A9), (0x3CA, 0x3FB), (0x1F00, 0x1FFE), (0x2100, 0x214F),
                (0x1D49C, 0x1D59F)]  # Lean's isLetterLike, less λ, Π and Σ (below)
_SUBSCRIPTS = [(0x2080, 0x2089), (0x2090, 0x209C), (0x1D62, 0x1D6A), (0x2C7C, 0x2C7C)]
_GLUED_QUOTE = {"¹", "×", "∑", "∏", "Σ", "⟧"}  # the tokens ⁻¹', ×', ∑', ∏', Σ', ⟧'
_SYMBOLS = re.compile(r"<;>|<\|>|:=|=>|\.\.|[^\w\s\"'`«()\[\]{}⟨⟩⦃⦄⟦⟧‹›,;·]+|.", re.S)
_STRING_ESCAPE = re.compile(r"\\(?:[\\\"'ntr]|x[0-9a-fA-F]{2}|u[0-9a-fA-F]{4}|\n\s*)")
_CHAR = re.compile(r"'(?:\\(?:[\\\"'ntr]|x[0-9a-fA-F]{2}|u[0-9a-fA-F]{4})|[^\\'\n])'")
_NUMBER = re.compile(r"0[xX][0-9a-fA-F_]+|0[bB][01_]+|0[oO][0-7_]+|\d[\d_]*(?:\.\d+)?(?:[eE][+-]?\d+)?")


class LexError(ValueError):
    """Text this model of Lean's tokenizer refuses to guess about (see the module doc)."""


@dataclass(frozen=True)
class Token:
    """One token: ``kind`` is ``name``, ``string``, ``char``, ``number``, ``open``, ``close`` or
    ``symbol``; for a name, ``parts`` are its dot-separated components without guillemets."""

    kind: str
    text: str
    start: int
    column: int
    first_on_line: bool
    parts: tuple[str, ...] = ()


def _within(char: str, ranges: list[tuple[int, int]]) -> bool:
    return any(low <= ord(char) <= high for low, high in ranges)


def _letter(char: str) -> bool:
    """Lean's ``isIdFirst``."""
    return (char.isascii() and (char.isalpha() or char == "_")) or (
        _within(char, _LETTER_LIKE) and char not in "λΠΣ")


def _name_rest(char: str) -> bool:
    """Lean's ``isIdRest``."""
    return _letter(char) or (char.isascii() and char.isdigit()) or char in "'!?" or _within(char, _SUBSCRIPTS)


def _invisible(char: str) -> bool:
    return (char not in "\n\t" and unicodedata.category(char) == "Cc") or unicodedata.category(char) in _INVISIBLE


def _describe(char: str) -> str:
    return f"U+{ord(char):04X} ({unicodedata.name(char, 'unnamed')})"


def _end(pattern: re.Pattern[str], text: str, start: int) -> int:
    """Where ``pattern`` ends matched at ``start``; called only where it matches (a digit, any symbol)."""
    m = pattern.match(text, start)
    assert m is not None
    return m.end()


class _Lexer:
    def __init__(self, text: str) -> None:
        self.text, self.i = text, 0
        self.out: list[Token] = []
        self.line_start, self.first = 0, True

    def fail(self, why: str) -> LexError:
        return LexError(f"{why} (at {self.text[self.i:self.i + 20]!r})")

    def emit(self, kind: str, end: int, parts: tuple[str, ...] = ()) -> None:
        self.out.append(Token(kind, self.text[self.i:end], self.i, self.i - self.line_start, self.first, parts))
        self.i, self.first = end, False

    def run(self) -> list[Token]:
        text = self.text
        while self.i < len(text):
            char = text[self.i]
            if char == "\n":
                self.i += 1
                self.line_start, self.first = self.i, True
            elif char in " \t":
                self.i += 1
            elif _invisible(char):
                if unicodedata.category(char) == "Cc":
                    raise self.fail(f"control characters are not allowed in a tactic: {_describe(char)}")
                raise self.fail(f"invisible character {_describe(char)} is not allowed in a tactic")
            elif text.startswith(("--", "/-"), self.i):
                raise self.fail(f"{'line' if char == '-' else 'block'} comments are not allowed in a tactic")
            elif text.startswith("-/", self.i):
                raise self.fail("block comments are not allowed in a tactic (found the end of one)")
            elif char == '"':
                self.emit("string", self._string_end(self.i + 1))
            elif char == "'":
                self._quote()
            elif char == "«" or _letter(char):
                self._name()
            elif char in "0123456789":
                self.emit("number", _end(_NUMBER, text, self.i))
            elif char in OPENERS:
                self.emit("open", self.i + 1)
            elif char in CLOSERS:
                self.emit("close", self.i + 1)
            else:
                self.emit("symbol", _end(_SYMBOLS, text, self.i))
        return self.out

    def _quote(self) -> None:
        """``'`` where a token starts: ``''``, the end of ``⁻¹'`` or ``×'``, or a character literal."""
        text, i = self.text, self.i
        if text.startswith("''", i):
            self.emit("symbol", i + 2)
        elif i and text[i - 1] in _GLUED_QUOTE:
            self.emit("symbol", i + 1)
        else:
            match = _CHAR.match(text, i)
            if match is None:
                raise self.fail("unterminated or malformed character literal")
            self.emit("char", match.end())

    def _string_end(self, i: int) -> int:
        """The end of the string literal whose contents start at ``i``."""
        text = self.text
        while i < len(text):
            if text[i] == '"':
                return i + 1
            if text[i] == "\\":
                match = _STRING_ESCAPE.match(text, i)
                if match is None:
                    raise self.fail(f"an escape Lean does not define ({text[i:i + 2]!r}) in a string literal")
                i = match.end()
            else:
                i += 1
        raise self.fail("unterminated string literal")

    def _name(self) -> None:
        text, i, parts = self.text, self.i, []
        while True:
            if text[i] == "«":
                end = text.find("»", i + 1)
                if end < 0:
                    raise self.fail("unterminated «name» (no closing »)")
                parts.append(text[i + 1:end])
                i = end + 1
            else:
                j = i + 1
                while j < len(text) and _name_rest(text[j]):
                    j += 1
                parts.append(text[i:j])
                i = j
            if i + 1 < len(text) and text[i] == "." and (text[i + 1] == "«" or _letter(text[i + 1])):
                i += 1
                continue
            break
        after = text[i:].lstrip(" \t\n")
        if (text[i:i + 1] == '"' or (parts == ["r"] and text[i:i + 1] == "#")
                or (parts[-1].endswith("!") and after.startswith('"'))):
            raise self.fail("raw and interpolated strings are not accepted in a tactic")
        self.emit("name", i, tuple(parts))


def tokenize(text: str) -> list[Token]:
    """The tokens of ``text``, or a :class:`LexError` saying what it refuses to guess about."""
    return _Lexer(text).run()


def bracket_problem(tokens: list[Token]) -> str | None:
    """The first bracket token that does not match, or None when they all pair up."""
    stack: list[Token] = []
    for token in tokens:
        if token.kind == "open":
            stack.append(token)
        elif token.kind == "close":
            if not stack or OPENERS[stack[-1].text] != token.text:
                return f"unbalanced brackets ({token.text!r} closes {repr(stack[-1].text) if stack else 'nothing'})"
            stack.pop()
    return f"unbalanced brackets ({stack[-1].text!r} is never closed)" if stack else None
