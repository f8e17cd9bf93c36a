"""Untrusted text made safe to show: on a terminal, in a Rich renderable, in an HTML page, in Markdown.

Goals, hypotheses, tactics, theorem names, backend messages and everything read from a run
directory come from outside (a project's files, a generated tactic, an edited log). Printed as
they are, an escape sequence in them would drive the user's terminal (move the cursor, rewrite
what is on screen, set the window title, make a hyperlink, ring the bell), a bidi override or
zero-width character would make a reader see other text than the one checked, and Rich would
read ``[/x]`` or ``[x H]`` as markup (an error, or text silently dropped), and a Markdown reader
would read a backtick, ``|``, ``](`` or ``<img`` as code spans, table cells, links and live HTML.
Every view shows untrusted text through one of the functions here, which keep the text readable
and show each control character as its escape (``\\x1b``), never as its effect.
"""

from __future__ import annotations

import html
import re
import unicodedata

from rich.text import Text

# Categories shown as escapes: controls (C0, DEL, C1: ESC, CSI, OSC, BEL, backspace, carriage
# return), formats (bidi overrides and isolates, zero-width characters), the line and paragraph
# separators, and lone surrogates (which a terminal's encoder cannot even write).
_HIDDEN = {"Cc", "Cf", "Zl", "Zp", "Cs"}

# The characters that can start Markdown syntax in the middle of a line (code spans, emphasis,
# links and images, table cells, raw HTML and autolinks, entities, strikethrough) and the backslash
# itself; CommonMark lets a backslash make each literal. The rest of ASCII punctuation starts
# syntax only at the start of a line, where a value never is; ``_`` inside a word emphasizes
# nothing. So Coq names keep their ``_`` and ``.``.
_MD_PUNCTUATION = re.compile(r"([\\`*\[\]<>|!&~]|(?<![A-Za-z0-9])_|_(?![A-Za-z0-9]))")


def _escape(char: str) -> str:
    code = ord(char)
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}" if code < 0x10000 else f"\\U{code:08x}"


def printable(text: str, keep: str = "\n\t") -> str:
    """``text`` with every control, format and separator character not in ``keep`` written as its
    escape (``\\x1b``, ``\\u202e``); ``keep`` holds the layout characters the place allows (newline
    and tab by default, ``""`` for a one-line place)."""
    if text.isprintable():  # the common case: nothing to escape
        return text
    return "".join(_escape(char) if char not in keep and unicodedata.category(char) in _HIDDEN else char
                   for char in text)


def rich_text(text: object, style: str = "", keep: str = "\n\t") -> Text:
    """``text`` as a Rich :class:`~rich.text.Text`: printable, and never read as markup. ``keep`` as
    for :func:`printable`: ``""`` for a one-line field, where a newline could draw a fake line."""
    return Text(printable(str(text), keep), style=style)


def html_text(text: object) -> str:
    """``text`` for an HTML page: printable, and with ``<``, ``&`` and both quotes escaped."""
    return html.escape(printable(str(text)))


def md_text(text: object) -> str:
    """``text`` for a Markdown file, where it renders as written on one line: printable with no
    layout kept, and every character that starts Markdown syntax mid-line backslash-escaped. No code span, link, table
    cell, emphasis, HTML tag or entity can start in it, wherever in a line or table cell it is put
    (not inside a code span, where a backslash is literal)."""
    return _MD_PUNCTUATION.sub(lambda m: "\\" + m.group(), printable(str(text), keep=""))


def md_code_block(texts: list[str], indent: str = "") -> list[str]:
    """``texts`` (each one or more lines) as the lines of a fenced Markdown code block, each line
    prefixed with ``indent`` (that of the list item it belongs to). The fence is longer than any
    backtick run inside, so no line of the content closes it, and every line is indented, so none
    ends the list item; control characters are shown as their escapes."""
    body = [printable(line, keep="\t") for text in texts for line in str(text).split("\n")]
    fence = "`" * max([3] + [len(run) + 1 for line in body for run in re.findall("`+", line)])
    return [indent + fence, *(indent + line for line in body), indent + fence]
