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
* ``native_decide``, ``decide +native``, ``(config := {native := true})`` and the names behind
  them (``Lean.ofReduceBool``, ``Lean.ofReduceNat``, ``Lean.reduceBool``, ``Lean.trustCompiler``):
  the proof would rest on the compiler through an extra axiom, and LeanDojo's check does not list
  axioms. ``decide``'s other options (``kernel := true``) and ``simp (config := {decide := true})``
  stay allowed: their proofs are still checked by the kernel.
* ``where`` and ``@[...]``: they attach definitions or attributes to the declaration itself.
* comments: ``/-``/``-/`` could swallow the rest of the source file at verification (an unterminated
  one everything after the proof), ``--`` the rest of the line: neither belongs in a tactic, and a
  comment would hide from this policy text that Lean never sees (or the reverse).
* text whose brackets (``() [] {} ⟨⟩ ⦃⦄ ⟦⟧``) or string quotes do not balance, and a tactic that
  ends in an opener (``by``, ``=>``, ``:=``, ``with``, ``fun``, ``·``, ``<;>``, ``|``, ``do``,
  ``then``, ``else``): in the rendered proof they would close an enclosing term or take the next
  tactics into their own body, so the file Lean checks would no longer be the tactics searched.
* empty input, control and invisible characters (Unicode formats such as bidi overrides, line and
  paragraph separators), and input longer than ``max_length``.

Lines of a multi-line tactic may start at column 0 (``cases h with`` then ``| inl h => ...``, as
LeanDojo traces them): the renderer (:mod:`prover.lean.script`) indents every line into the proof's
block, and :func:`structure_problem` is checked again on the whole rendered block before the final
check, so no line of a tactic can become a command of the file.

Words are matched as whole Lean tokens, so ``List.get?`` or ``sorry_lemma`` are not refused, but
a keyword inside a string literal is (a lost suggestion is cheaper than a hole in the check).
``?``-tactics are recognised in tactic position only; ``#`` commands by a lower-case name of at
least four letters, so that notations such as ``#α`` or ``#s`` (cardinality) pass.
"""

from __future__ import annotations

import re
import unicodedata

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


def _components(*names: str) -> str:
    """``names`` as any component of a dotted name, so ``_root_.Lean.ofReduceBool`` or ``Lean.sorryAx``
    is caught as surely as the bare name."""
    return r"(?<![\w'!?\u2080-\u209c])(?:" + "|".join(re.escape(n) for n in names) + ")" + _IDENT_AFTER


_RULES: list[tuple[re.Pattern[str], str]] = [
    (re.compile(_words("sorry", "admit", "stop") + "|" + _components("sorryAx")),
     "gives up the goal instead of proving it"),
    (re.compile(_TACTIC_HEAD + r"[A-Za-z_][\w']*\?(?![\w?'])"),
     "`?`-tactics search and print suggestions (and may close goals with `sorry`); use the suggestion"),
    (re.compile(_words("hint", "polyrith")), "suggestion tactic (polyrith calls a web service)"),
    (re.compile(_components("native_decide", "ofReduceBool", "ofReduceNat", "reduceBool", "reduceNat",
                            "trustCompiler") + r"|\+\s*native" + _IDENT_AFTER
                + r"|" + _words("native") + r"\s*:=\s*true"),
     "relies on the axiom Lean.ofReduceBool (trusts the compiler)"),
    (re.compile(r"#[a-z][a-z_]{3,}!?(?![\w'])"), "a `#` command is not a tactic"),
    (re.compile(_words("run_tac", "run_cmd", "run_elab", "run_meta", "unsafe", "implemented_by", "extern")
                + "|" + _components("IO", "EIO", "BaseIO", "System", "unsafeIO", "unsafeEIO", "unsafeBaseIO",
                                    "dbg_trace", "dbgTrace", "evalExpr", "evalConst", "unsafeCast")),
     "meta-programming or IO escape"),
    (re.compile(_words(
        "theorem", "lemma", "def", "abbrev", "example", "instance", "axiom", "opaque", "structure",
        "class", "inductive", "mutual", "namespace", "section", "end", "universe", "variable",
        "import", "attribute", "macro", "macro_rules", "syntax", "elab", "elab_rules",
        "declare_syntax_cat", "notation", "infix", "infixl", "infixr", "prefix", "postfix",
        "initialize", "builtin_initialize", "deriving", "partial", "private", "protected",
        "noncomputable", "set_option", "termination_by", "decreasing_by", "export", "where", "nonrec")),
     "a command (or declaration modifier) is not a tactic"),
    (re.compile(r"@\["), "an attribute belongs to a declaration, not a tactic"),
]

# Rules on the text's structure, checked on each tactic and again on the whole rendered block.
_STRUCTURE: list[tuple[re.Pattern[str], str]] = [
    (re.compile(r"/-|-/"), "block comments are not allowed in a tactic"),
    (re.compile(r"--"), "line comments are not allowed in a tactic"),
    (re.compile(r"[\x00-\x08\x0b-\x1f\x7f]"), "control characters"),
]
_CLOSERS = {")": "(", "]": "[", "}": "{", "⟩": "⟨", "⦄": "⦃", "⟧": "⟦"}
_OPENERS = {v: k for k, v in _CLOSERS.items()}
_INVISIBLE = {"Cf", "Zl", "Zp", "Co", "Cs", "Cn"}  # formats (bidi, zero-width), separators, unassigned
_DANGLING = re.compile(r"(?:" + _IDENT_BEFORE + r"(?:by|with|fun|do|then|else)|=>|:=|<;>|[·|λ])\s*\Z")


def _bracket_problem(text: str) -> str | None:
    """The first bracket that does not match, in Lean's pairs; string contents count too (a lost
    suggestion is cheaper than a parse the policy did not foresee)."""
    stack: list[str] = []
    for char in text:
        if char in _OPENERS:
            stack.append(char)
        elif char in _CLOSERS:
            if not stack or stack[-1] != _CLOSERS[char]:
                return f"unbalanced brackets ({char!r} closes {repr(stack[-1]) if stack else 'nothing'})"
            stack.pop()
    return f"unbalanced brackets ({stack[-1]!r} is never closed)" if stack else None


def structure_problem(text: str) -> str | None:
    """Why ``text`` (a tactic, or a whole rendered block) could end, comment out or extend what
    encloses it, or None: comments, control or invisible characters, unbalanced brackets or quotes."""
    for pattern, reason in _STRUCTURE:
        match = pattern.search(text)
        if match is not None:
            return f"{reason} (found {match.group(0)!r})"
    invisible = next((c for c in text if unicodedata.category(c) in _INVISIBLE), None)
    if invisible is not None:
        return f"invisible character U+{ord(invisible):04X} ({unicodedata.name(invisible, 'unnamed')})"
    if len(re.findall(r'(?<!\\)"', text)) % 2:
        return "unterminated string literal (an odd number of '\"')"
    return _bracket_problem(text)

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
    problem = structure_problem(tactic)
    if problem is not None:
        return problem
    for pattern, reason in _RULES:
        match = pattern.search(tactic)
        if match is not None:
            return f"{reason} (found {match.group(0)!r})"
    dangling = _DANGLING.search(tactic)
    if dangling is not None:
        return f"ends in {dangling.group(0).strip()!r}: its body would be taken from the tactics after it"
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
