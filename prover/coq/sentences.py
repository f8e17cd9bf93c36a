"""Split Coq source text into sentences, the unit coqtop executes.

Both the backend (one untrusted tactic = exactly one sentence) and the tracer (replay a stdlib file
sentence by sentence) need the same notion of a sentence, with offsets back into the source so that
positions in traced data point at the real text.

The rules follow Coq's lexer as far as sentence boundaries go:

* comments ``(* ... *)`` nest, and a string inside a comment is lexed as a string (so ``"*)"``
  inside a comment does not close it); comments between sentences belong to no sentence, comments
  inside a sentence stay in its ``text`` (see :attr:`Sentence.code` for the text without them);
* strings ``"..."`` escape a quote by doubling it (``""``);
* a sentence ends at a ``.`` followed by a blank (space, tab, newline, carriage return: exactly
  the characters of Coq's ``blank_or_eof``, not form feed) or the end of the text, and at ``...``
  (the ``Proof with`` terminator: ``split...``), but not at ``..`` (recursive notations);
  ``Nat.add`` and ``1.5`` do not end a sentence. A ``.`` followed by anything else (``.(``,
  ``."``, ``.idtac``) is not an end either: Coq lexes it as part of a larger token or rejects
  it, and after such an error coqtop skips to the next sentence end, so the whole span up to the
  next end is one unit for coqtop too (checked with coqtop 8.16: ``idtac.(**)idtac.`` runs
  nothing). A run of four or more dots before a blank is an error here: Coq lexes it as ``...``
  (rejected: not followed by a blank) and then ends a sentence at the last dot, so the rest would
  run as a sentence of its own;
* at the start of a sentence, a bullet (a run of one of ``-``, ``+``, ``*``) and a brace ``{`` or
  ``}`` are sentences of their own; a goal selector followed by a brace (``2: {``, ``all: {``) is one
  sentence; a selector followed by a tactic (``2: auto.``) is one sentence like any other.
  Selectors follow Coq 8.16's ``toplevel_selector`` (:data:`SELECTOR`): numbers in decimal or
  hexadecimal with ``_`` separators (``0x2:`` selects goal 2), ranges and lists, ``[name]``,
  ``!``, ``all`` and ``par``.

:func:`normalise` gives the one spelling of a sentence that the backend sends to coqtop and writes
into proof scripts (see :mod:`prover.coq.policy`).
"""

from __future__ import annotations

import bisect
import re
from dataclasses import dataclass


class SentenceSplitError(ValueError):
    """The text cannot be split: an unterminated comment, string or sentence.

    ``source`` names the input (a file path or ``<string>``), ``line``/``column`` (1-based) where
    the offending construct starts.
    """

    def __init__(self, source: str, line: int, column: int, what: str) -> None:
        super().__init__(f"{source}:{line}:{column}: {what}")
        self.source = source
        self.line = line
        self.column = column
        self.what = what


@dataclass(frozen=True)
class Sentence:
    """One sentence: ``text == source[start:end]``, ending with its ``.`` (bullets and braces have none)."""

    text: str
    start: int
    end: int

    @property
    def code(self) -> str:
        """The sentence without comments, each comment replaced by one space, stripped."""
        return strip_comments(self.text).strip()

    @property
    def is_bullet(self) -> bool:
        """A focusing bullet (``-``, ``++``, ``*``...) or a brace, possibly after a goal selector."""
        return self.text[-1] in "-+*{}"


class LineIndex:
    """Converts character offsets of one text to 1-based (line, column) pairs, as LeanDojo's data uses."""

    def __init__(self, text: str) -> None:
        self._starts = [0] + [m.end() for m in re.finditer("\n", text)]

    def position(self, offset: int) -> tuple[int, int]:
        line = bisect.bisect_right(self._starts, offset)
        return line, offset - self._starts[line - 1] + 1

    def offset(self, line: int, column: int) -> int:
        """The inverse of :meth:`position`."""
        return self._starts[line - 1] + column - 1


_WS = " \t\r\n\f"  # skipped between sentences
_END_BLANK = " \t\r\n"  # what may follow a terminating dot (Coq's lexer: blank_or_eof)
#: the start of a quotation (``lp:{{``, coq-elpi's): an identifier, a colon and two or more
#: braces; it runs to the matching run of as many closing braces (runs of as many opening ones
#: nest), and nothing inside it (a dot, a quote, ``(*``) means anything to Coq's lexer (checked
#: with coqtop 8.16: ``x:{{{ a }} b }}}`` and ``x:{{ a {{ b }} c }}`` are one token each;
#: ``x:((`` and ``x:[[`` start no quotation)
_QUOTATION = r"(?<![\w'])[^\W\d][\w']*:\{\{+"
_BODY_TOKEN = re.compile(r'\(\*|"|\.|' + _QUOTATION)
_COMMENT_TOKEN = re.compile(r'\(\*|\*\)|"')
_OUTER_TOKEN = re.compile(r'\(\*|\*\)|"|' + _QUOTATION)
_NATURAL = r"(?:0[xX][0-9a-fA-F][0-9a-fA-F_]*|[0-9][0-9_]*)"
_RANGE = rf"{_NATURAL}(?:\s*-\s*{_NATURAL})?"
# Coq 8.16's toplevel_selector (plugins/ltac/g_ltac.mlg), without its ":" (":=" is not a selector)
SELECTOR = rf"(?:{_RANGE}(?:\s*,\s*{_RANGE})*|all|par|!|\[\s*[A-Za-z_][\w']*\s*\])\s*:(?!=)"
_SELECTOR_BRACE = re.compile(SELECTOR + r"\s*\{")
_BLANK_RUN = re.compile(r"[ \t\r\n]+")


def _skip_string(text: str, pos: int, source: str) -> int:
    """``pos`` is just after an opening quote; returns the offset just after the closing one."""
    n = len(text)
    while True:
        q = text.find('"', pos)
        if q < 0:
            raise SentenceSplitError(source, *LineIndex(text).position(pos - 1), "unterminated string")
        if q + 1 < n and text[q + 1] == '"':
            pos = q + 2
            continue
        return q + 1


def _skip_comment(text: str, pos: int, source: str) -> int:
    """``pos`` is just after an opening ``(*``; returns the offset just after the matching ``*)``."""
    opened = pos - 2
    depth = 1
    while depth:
        m = _COMMENT_TOKEN.search(text, pos)
        if m is None:
            raise SentenceSplitError(source, *LineIndex(text).position(opened), "unterminated comment")
        tok = m.group()
        if tok == "(*":
            depth += 1
            pos = m.end()
        elif tok == "*)":
            depth -= 1
            pos = m.end()
        else:
            pos = _skip_string(text, m.end(), source)
    return pos


def _skip_quotation(text: str, m: re.Match, source: str) -> int:
    """``m`` matched the start of a quotation (:data:`_QUOTATION`); returns the offset just after
    its closing braces."""
    braces = len(m.group()) - len(m.group().rstrip("{"))
    depth = 1
    for d in re.finditer("{" * braces + "|" + "}" * braces, text[m.end():]):  # nested ones count
        depth += 1 if d.group()[0] == "{" else -1
        if depth == 0:
            return m.end() + d.end()
    raise SentenceSplitError(source, *LineIndex(text).position(m.start()), "unterminated quotation")


def _skip_blanks(text: str, pos: int, source: str) -> int:
    """Skips whitespace and comments; returns the offset of the next code character (or the end)."""
    n = len(text)
    while pos < n:
        c = text[pos]
        if c in _WS:
            pos += 1
        elif text.startswith("(*", pos):
            pos = _skip_comment(text, pos + 2, source)
        else:
            break
    return pos


def _comment_spans(text: str) -> list[tuple[int, int]]:
    """``(start, end)`` of every outermost comment of ``text`` (strings outside comments skipped)."""
    spans: list[tuple[int, int]] = []
    pos = 0
    while True:
        m = _OUTER_TOKEN.search(text, pos)
        if m is None:
            return spans
        if m.group() == '"':
            pos = _skip_string(text, m.end(), "<string>")
        elif m.group().endswith("{"):
            pos = _skip_quotation(text, m, "<string>")
        elif m.group() == "(*":
            pos = _skip_comment(text, m.end(), "<string>")
            spans.append((m.start(), pos))
        else:  # a stray "*)" outside any comment is left for Coq to reject
            pos = m.end()


def strip_comments(text: str) -> str:
    """``text`` with every comment replaced by one space (strings intact)."""
    out, pos = [], 0
    for start, end in _comment_spans(text):
        out.append(text[pos:start] + " ")
        pos = end
    out.append(text[pos:])
    return "".join(out)


def mask_comments(text: str) -> str:
    """``text`` with the characters of comments blanked (newlines kept), so offsets stay valid."""
    out, pos = [], 0
    for start, end in _comment_spans(text):
        out.append(text[pos:start] + re.sub(r"[^\n]", " ", text[start:end]))
        pos = end
    out.append(text[pos:])
    return "".join(out)


def split_sentences(text: str, source: str = "<string>") -> list[Sentence]:
    """All sentences of ``text`` in order; raises :class:`SentenceSplitError` naming ``source``.

    Text after the last sentence must be blank or comments: an unterminated sentence is an error,
    because silently dropping it would lose a tactic or a declaration.
    """
    sentences: list[Sentence] = []
    n = len(text)
    pos = _skip_blanks(text, 0, source)
    while pos < n:
        start = pos
        c = text[pos]
        if c in "{}":
            end = pos + 1
        elif c in "-+*":
            end = pos
            while end < n and text[end] == c:
                end += 1
        else:
            m = _SELECTOR_BRACE.match(text, pos)
            end = m.end() if m else _sentence_end(text, pos, source)
        sentences.append(Sentence(text[start:end], start, end))
        pos = _skip_blanks(text, end, source)
    return sentences


def _sentence_end(text: str, pos: int, source: str) -> int:
    """The offset just after the terminating dot of the sentence starting at ``pos``."""
    n = len(text)
    start = pos
    while True:
        m = _BODY_TOKEN.search(text, pos)
        if m is None:
            raise SentenceSplitError(source, *LineIndex(text).position(start), "sentence not terminated by '.'")
        tok = m.group()
        if tok == "(*":
            pos = _skip_comment(text, m.end(), source)
        elif tok == '"':
            pos = _skip_string(text, m.end(), source)
        elif tok.endswith("{"):
            pos = _skip_quotation(text, m, source)
        else:
            dot = m.start()
            run_end = dot
            while run_end < n and text[run_end] == ".":
                run_end += 1
            if run_end == n or text[run_end] in _END_BLANK:
                if run_end - dot in (1, 3):
                    return run_end
                if run_end - dot > 3:
                    raise SentenceSplitError(source, *LineIndex(text).position(dot),
                                             f"a run of {run_end - dot} dots (Coq ends a sentence inside it)")
            pos = run_end


def one_line(sentence: str) -> str:
    """``sentence`` with its line breaks turned into spaces, as the coqtop driver sends it,
    except inside quotations: elpi's comments run to the end of their line (``% ...``), so
    there a line break is part of the code."""
    out, pos = [], 0
    for m in _OUTER_TOKEN.finditer(sentence):
        if m.start() < pos or not m.group().endswith("{"):
            continue
        try:
            end = _skip_quotation(sentence, m, "<sentence>")
        except SentenceSplitError:
            break  # an unterminated quotation is coqtop's to refuse
        out.append(sentence[pos:m.start()].replace("\n", " ") + sentence[m.start():end])
        pos = end
    out.append(sentence[pos:].replace("\n", " "))
    return "".join(out)


def normalise(text: str, source: str = "<string>") -> str:
    """The one spelling of a sentence (or of any span of code) that coqtop receives and scripts hold.

    Comments are removed (each becomes one space, as Coq's lexer treats it as a separator), every
    run of blanks outside strings becomes one space, and the ends are stripped. Line breaks and
    tabs inside a string are refused (:class:`SentenceSplitError`) rather than rewritten: changing
    a literal would change the term, and keeping it would let one sentence span lines of a script.
    """
    code = strip_comments(text)
    out, pos = [], 0
    while True:
        q = code.find('"', pos)
        if q < 0:
            out.append(_BLANK_RUN.sub(" ", code[pos:]))
            return "".join(out).strip()
        end = _skip_string(code, q + 1, source)
        literal = code[q:end]
        if any(c in literal for c in "\t\r\n"):
            raise SentenceSplitError(source, *LineIndex(code).position(q), "a line break or tab inside a string")
        out.append(_BLANK_RUN.sub(" ", code[pos:q]) + literal)
        pos = end


@dataclass(frozen=True)
class Token:
    """A lexeme of comment-free Coq code: an identifier (qualified names are one token,
    ``Nat.add``), a string literal (quotes included), a number, or a run of other symbols."""

    kind: str  # "ident", "string", "number" or "symbol"
    text: str


_TOKEN = re.compile(r"(?P<ident>[^\W\d][\w']*(?:\.[^\W\d][\w']*)*)|(?P<number>\d[\w]*)|(?P<blank>\s+)"
                    r"|(?P<symbol>[^\w\s\"]+)")


def tokens(code: str) -> list[Token]:
    """The tokens of ``code`` (comments are removed first); :class:`SentenceSplitError` for an
    unterminated string. Coarser than Coq's lexer where it does not matter to the checks that use
    it: symbols are maximal runs (``;(`` is one token), but identifiers, strings and numbers are
    exactly Coq's, so a word found here is a word Coq reads and a word inside a string is none."""
    code = strip_comments(code)
    out: list[Token] = []
    pos = 0
    while pos < len(code):
        if code[pos] == '"':
            end = _skip_string(code, pos + 1, "<code>")
            out.append(Token("string", code[pos:end]))
            pos = end
            continue
        m = _TOKEN.match(code, pos)
        assert m is not None and m.lastgroup is not None  # named alternatives cover every character but '"'
        if m.lastgroup != "blank":
            out.append(Token(m.lastgroup, m.group()))
        pos = m.end()
    return out
