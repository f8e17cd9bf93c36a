"""The untrusted-tactic policy of the LeanDojo backend.

Generated tactics are untrusted input: they reach Lean through LeanDojo's REPL during search, and
the rendered proof is spliced into the theorem's source file when it is verified. Anything that
could give up, escape the tactic block, run code, or weaken the check is refused before it reaches
Lean, with a :class:`TacticError` of kind ``REFUSED`` naming the input and the reason.

Decisions (each one is a rule below):

* ``sorry``, ``admit``, ``stop`` and ``sorryAx``: give-ups, never part of a proof.
* ``?``-tactics (``exact?``, ``apply?``, ``rw?``, ``simp?``, ``simp_all?``, ``aesop?``, ...) and
  ``hint``: they search a library and print a suggestion; ``apply?`` can leave the goal closed by
  ``sorry``, and a proof should contain the suggestion, not the search. ``polyrith`` too: it calls
  an external web service.
* commands (``theorem``, ``def``, ``#eval``, ``#print``, ``import``, ``set_option``, ``attribute``,
  ``macro``, ``syntax``, ``elab``, ``notation``, ``axiom``, ``termination_by``, ...): inside a
  spliced proof they would end the tactic block and run as commands of the file.
  ``set_option ... in`` is refused as well, since options such as ``debug.skipKernelTC`` weaken
  the kernel check. ``open Foo in tac`` is allowed: it only scopes names and notation.
* meta-programming and IO escapes (``run_tac``, ``run_cmd``, ``run_elab``, ``run_meta``,
  ``unsafe``, ``IO``, ``System``, ``dbg_trace``, ``implemented_by``, ``extern``): arbitrary code
  on the machine that runs the search.
* ``native_decide`` (and ``Lean.ofReduceBool``/``Lean.trustCompiler``): the proof would rest on the
  extra axiom ``Lean.ofReduceBool``, i.e. on the compiler, and LeanDojo's check does not list axioms.
* block comments (``/-``, ``-/``): they could swallow the rest of the source file at verification.
* empty input, control characters, and input longer than ``max_length``.

Words are matched as whole Lean tokens, so ``List.get?`` or ``sorry_lemma`` are not refused, but
a keyword inside a string literal is (a lost suggestion is cheaper than a hole in the check).
``?``-tactics are recognised in tactic position only; ``#`` commands by a lower-case name of at
least four letters, so that notations such as ``#α`` or ``#s`` (cardinality) pass.
"""

from __future__ import annotations

import re

from search_tree.protocol import ErrorKind, TacticError

DEFAULT_MAX_LENGTH = 4096

# (pattern, reason); patterns are searched anywhere in the tactic text.
_IDENT_BEFORE = r"(?<![\w.'!?\u2080-\u209c])"
_IDENT_AFTER = r"(?![\w'!?\u2080-\u209c])"


# Where a tactic (rather than a term) starts: the beginning, after `;`, `<;>`, `by`, `·`, a
# newline, `=>` or `|` (alternatives and match arms), or a combinator. A name ending in `?` in
# term position (`rw [mem_iff_get?]`) is a lemma, not a `?`-tactic.
_TACTIC_HEAD = (r"(?:\A|[;\n·|]|<;>|=>|" + _IDENT_BEFORE
                + r"(?:by|try|repeat|all_goals|any_goals|focus|first|iterate\s+\d+|on_goal\s+-?\d+\s*=>))\s*")


def _words(*words: str) -> str:
    return _IDENT_BEFORE + "(?:" + "|".join(re.escape(w) for w in words) + ")" + _IDENT_AFTER


_RULES: list[tuple[re.Pattern[str], str]] = [
    (re.compile(_words("sorry", "admit", "stop", "sorryAx")), "gives up the goal instead of proving it"),
    (re.compile(_TACTIC_HEAD + r"[A-Za-z_][\w']*\?(?![\w?'])"),
     "`?`-tactics search and print suggestions (and may close goals with `sorry`); use the suggestion"),
    (re.compile(_words("hint", "polyrith")), "suggestion tactic (polyrith calls a web service)"),
    (re.compile(_words("native_decide", "Lean.ofReduceBool", "Lean.trustCompiler", "ofReduceBool")),
     "relies on the axiom Lean.ofReduceBool (trusts the compiler)"),
    (re.compile(r"#[a-z][a-z_]{3,}!?(?![\w'])"), "a `#` command is not a tactic"),
    (re.compile(_words("run_tac", "run_cmd", "run_elab", "run_meta", "unsafe", "IO", "EIO", "BaseIO",
                       "System", "unsafeIO", "unsafeEIO", "unsafeBaseIO", "dbg_trace", "dbgTrace",
                       "implemented_by", "extern", "evalExpr", "evalConst")),
     "meta-programming or IO escape"),
    (re.compile(_words(
        "theorem", "lemma", "def", "abbrev", "example", "instance", "axiom", "opaque", "structure",
        "class", "inductive", "mutual", "namespace", "section", "end", "universe", "variable",
        "import", "attribute", "macro", "macro_rules", "syntax", "elab", "elab_rules",
        "declare_syntax_cat", "notation", "infix", "infixl", "infixr", "prefix", "postfix",
        "initialize", "builtin_initialize", "deriving", "partial", "private", "protected",
        "noncomputable", "set_option", "termination_by", "decreasing_by", "export")),
     "a command (or declaration modifier) is not a tactic"),
    (re.compile(r"/-|-/"), "block comments are not allowed in a tactic"),
    (re.compile(r"[\x00-\x08\x0b-\x1f\x7f]"), "control characters"),
]

# `open A B in <tactic>` is a tactic; `open` anywhere else is the command.
_OPEN_WORD = re.compile(_words("open"))
_OPEN_IN = re.compile(r"\Aopen\s+(?:scoped\s+)?[\w.'\s]+?\s+in(?=\s)")


def refusal_reason(tactic: str, max_length: int = DEFAULT_MAX_LENGTH) -> str | None:
    """Why ``tactic`` is refused, or None if it may be sent to Lean."""
    if not isinstance(tactic, str):
        return f"a tactic is a string, not {type(tactic).__name__}"
    if not tactic.strip():
        return "empty tactic"
    if len(tactic) > max_length:
        return f"longer than {max_length} characters ({len(tactic)})"
    for pattern, reason in _RULES:
        match = pattern.search(tactic)
        if match is not None:
            return f"{reason} (found {match.group(0)!r})"
    rest = tactic.strip()
    while True:
        opened = _OPEN_IN.match(rest)
        if opened is None:
            break
        rest = rest[opened.end():].lstrip()
    if _OPEN_WORD.search(rest):
        return "the `open` command is not a tactic (only `open Foo in <tactic>` is)"
    return None


def check_tactic(tactic: str, max_length: int = DEFAULT_MAX_LENGTH) -> TacticError | None:
    """A REFUSED :class:`TacticError` naming ``tactic`` and the reason, or None to let it run."""
    reason = refusal_reason(tactic, max_length)
    if reason is None:
        return None
    return TacticError(f"refused Lean tactic {tactic!r}: {reason}", ErrorKind.REFUSED)
