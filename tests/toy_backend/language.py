"""Step 1: the toy language, as the search, retrieval and generator packages read it."""

from __future__ import annotations

from search_tree.language import Language

TOY = Language(
    name="toy",
    file_suffix=".toy",
    identifier=r"[a-z_][a-z_0-9]*",
    local_name=r"[a-z_][a-z_0-9]*",
    keywords=frozenset({"lemma"}),
    declarations=("lemma",),
    notation={"&": ("and",), ":": ()},
    numeral=(),
    logical_constants=frozenset({"and"}),
    give_up_words=("cheat",),
    has_metavariable=lambda text: "?" in text,
    split_let=lambda text: (text, None),
    proposition_markers=("&",),
)
