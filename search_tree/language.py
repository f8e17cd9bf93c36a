"""A prover's language as the lower layers need it: one typed :class:`Language` object.

The search, retrieval and generator packages sit below the backends, so they cannot import a
backend's syntax; a backend hands them its :class:`Language` instead (``Backend.language``, the
Coq one in :mod:`prover.coq.language`, the Lean one in :mod:`prover.lean.language`), and they read
the facts from it rather than switching on a language's name. Every field has one shape for every
language: :attr:`Language.split_let` returns ``(type, value)`` and
:attr:`Language.has_metavariable` answers for Coq's ``?x`` existential variables and Lean's
``?m.12`` metavariables alike.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field


@dataclass(frozen=True, eq=False)
class Language:
    """The facts of one prover language that code below the backends uses (one object per
    language, compared and hashed by identity).

    * ``name``: how results and corpora name the language (``"coq"``, ``"lean"``);
    * ``file_suffix``: of its source files (``".v"``, ``".lean"``);
    * ``identifier``: a regex for a possibly qualified identifier as sources write it;
    * ``local_name``: a regex for one unqualified name as goals and tactics write it (a hypothesis,
      a bound variable): what :meth:`rename` replaces, whole, so that a name's characters are the
      language's (Coq's ``p`` in ``p?=q``, Lean's ``h?`` one name);
    * ``keywords``: words that are never constants (``forall``, ``theorem``);
    * ``declarations``: the keywords that introduce a named declaration (``Lemma``, ``theorem``):
      the name after one is what a premise is, not a symbol it uses;
    * ``notation``: notation -> the constants it denotes (symbol extraction, MePo, SInE);
    * ``numeral``: the constants a numeral denotes when ``notation`` does not list it;
    * ``logical_constants``: equality, order, connectives: constants so common that SInE lets
      none of them trigger a premise;
    * ``give_up_words``: tactics or commands that close a goal without proving it (whole words);
    * ``search_tactic``: a tactic that reports a suggestion instead of making a proof step
      (Lean's ``exact?``), or None;
    * ``quantifiers``: the binder keywords of its goals (template variables come from them);
    * ``proposition_markers``: text whose presence makes a hypothesis' type a proposition rather
      than data (arrows, equality, order, connectives), read with a space on either side;
    * ``has_metavariable(text)``: whether a goal text mentions a variable goals may share;
    * ``split_let(text)``: a let-bound hypothesis' text after its names -> ``(type, value)``
      (value None when there is none).
    """

    name: str
    file_suffix: str
    identifier: str
    local_name: str
    keywords: frozenset[str]
    declarations: tuple[str, ...]
    notation: Mapping[str, tuple[str, ...]]
    numeral: tuple[str, ...]
    logical_constants: frozenset[str]
    give_up_words: tuple[str, ...]
    has_metavariable: Callable[[str], bool]
    split_let: Callable[[str], tuple[str, str | None]]
    quantifiers: tuple[str, ...] = ()
    proposition_markers: tuple[str, ...] = ()
    search_tactic: re.Pattern[str] | None = None
    _give_up: re.Pattern[str] = field(init=False, repr=False, compare=False)
    _local_name: re.Pattern[str] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        words = "|".join(re.escape(w) for w in sorted(self.give_up_words))
        pattern = rf"(?<![\w.'])(?:{words})(?![\w'])" if words else r"(?!)"
        object.__setattr__(self, "_give_up", re.compile(pattern))
        # not after a word character, a prime or a dot: no part of a longer name, no field or
        # qualified name's tail (``h`` in ``h.1`` is a name, ``1`` and ``x`` in ``M.x`` are not)
        object.__setattr__(self, "_local_name", re.compile(rf"(?<![\w.'])(?:{self.local_name})"))

    def local_names(self, text: str) -> list[str]:
        """The unqualified names ``text`` mentions, in order (not a field or a qualified name's tail)."""
        return self._local_name.findall(text)

    def rename(self, text: str, mapping: Mapping[str, str]) -> str:
        """``text`` with each whole name of :meth:`local_names` that ``mapping`` has replaced."""
        if not mapping:
            return text
        return self._local_name.sub(lambda m: mapping.get(m.group(0), m.group(0)), text)

    def gives_up(self, tactic: str) -> bool:
        """Whether ``tactic`` uses a give-up word (case-sensitive, whole words) or is a search tactic."""
        return bool(self._give_up.search(tactic)
                    or (self.search_tactic is not None and self.search_tactic.search(tactic)))

    def owns(self, path: str) -> bool:
        """Whether ``path`` is a source file of this language (by its suffix)."""
        return path.endswith(self.file_suffix)
