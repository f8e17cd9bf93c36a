"""Untrusted text in Markdown (:func:`prover.views.safe_text.md_text`, ``md_code_block``): what a
reader renders is the text as written, never markup, wherever in a line or table it stands."""

from __future__ import annotations

import html

import pytest
from markdown_it import MarkdownIt

from prover.commands.fill_admitted import _cell
from prover.views.safe_text import md_code_block, md_text, printable

HOSTILE = ["b`<img src=x onerror=alert(1)>`|x", "x](javascript:alert(3)) ", "<script>alert(4)</script>",
           "**bold** _em_ ~~del~~ &amp; &#60;img&#62; \\<b\\>", "[a][b] ![i](x) <http://evil>", "# h\n- item\n> quote",
           "a | b \\| c", "\x1b]52;c;ZXZpbA==\x07\u202e\r", "``` ```` `"]


#: a reader like GitHub's: raw HTML passes (so a tag that got through is live), tables on
READER = MarkdownIt("commonmark").enable(["table", "strikethrough"])


def _render(text: str) -> str:
    return READER.render(text)


def _shown(text: str) -> str:
    """What a reader should see of ``text`` in a rendered page: its one-line printable form."""
    return html.escape(printable(text, keep=""), quote=False).replace('"', "&quot;")


@pytest.mark.parametrize("text", HOSTILE + ["intros; auto.", "add_zero_right (n : nat)"])
def test_md_text_renders_as_written_in_a_line_and_in_a_table_cell(text):
    """Fails if any Markdown syntax in ``text`` (a code span, emphasis, link, HTML, entity, ``|``,
    a line break, a control character) is read as such instead of shown."""
    assert _render(f"see {md_text(text)} here") == f"<p>see {_shown(text)} here</p>\n"
    table = _render(f"| a | b |\n|---|---|\n| {md_text(text)} | end |\n")
    assert f"<td>{_shown(text).strip()}</td>\n<td>end</td>" in table


def test_a_code_block_is_not_closed_or_left_by_its_content():
    """Fails if a tactic holding a backtick fence, or a line that is not indented, ends the proof's
    code block (or the list item it is in), so that what follows is read as Markdown or HTML."""
    tactics = ["intros; auto.", "```\n<img src=x onerror=alert(2)>", "````` x", "exact H.\x1b[2J"]
    page = _render("\n".join(["- a search", "", *md_code_block(tactics, indent="  "), "- next"]))
    body = "intros; auto.\n```\n&lt;img src=x onerror=alert(2)&gt;\n````` x\nexact H.\\x1b[2J\n"
    assert f"<pre><code>{body}</code></pre>\n</li>\n<li>\n<p>next</p>" in page


def test_fill_admitted_cells_keep_the_table():
    """Fails if a lemma's proof or refusal reason (or its name or file: each comes from the project)
    adds a cell (``|``), starts a code span or live HTML, or breaks the row over lines."""
    cell = _cell("intros.\n  exact `a|b` <img src=x>.")
    page = _render(f"| lemma | proof |\n|---|---|\n| l | {cell} |\n")
    assert "<td>intros. exact `a|b` &lt;img src=x&gt;.</td>" in page and page.count("<td>") == 2
