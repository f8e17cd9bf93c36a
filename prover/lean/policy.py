"""The untrusted-tactic policy of the LeanDojo backend.

Generated tactics are untrusted input: they reach Lean through LeanDojo's REPL during search, and
the rendered proof is spliced into the theorem's source file when it is verified. Anything that
could give up, escape the tactic block, run code, or weaken the check is refused before it reaches
Lean, with a :class:`TacticError` of kind ``REFUSED`` naming the input and the reason.

The text is first split into Lean's tokens (:mod:`prover.lean.lexer`, which refuses comments,
unterminated or raw literals, control and invisible characters), so every rule below sees a
string literal, a ``«name»`` or a character literal as Lean does. Then, in order:

* ``sorry``, ``admit``, ``stop`` and ``sorryAx``: give-ups, never part of a proof.
* ``?``-tactics (``exact?``, ``apply?``, ``rw?``, ``simp?``, ``aesop?``: a listed tactic's name with
  ``?``), wherever they stand (``(apply?)``, ``{ apply? }``), and, where a tactic starts, ``hint``,
  ``polyrith``, ``rw_search``: they search and print a suggestion (``apply?`` can leave the goal
  closed by ``sorry``; ``polyrith`` calls a web service); a proof should contain the suggestion,
  not the search.
* compiler trust, in every spelling: any name with a component ``native`` (``decide +native``,
  ``(config := { «native» := Bool.true })``, ``(native := !false)``), ``native_decide``,
  ``bv_decide``, ``bv_check`` and the names behind them (``Lean.ofReduceBool``,
  ``Lean.ofReduceNat``, ``Lean.trustCompiler``...). Such a proof rests on the compiler through an
  extra axiom, and LeanDojo's check does not list axioms. A tactic's ``config :=`` must be a
  structure instance that names its fields (``{ kernel := true }``), since a positional one
  (``⟨false, true⟩``, ``DecideConfig.mk ..``) or another value (``{ cfg with .. }``, a constant) can
  turn ``native`` on without naming it. Kernel-checked options (``decide (config := { kernel :=
  true })``, ``simp (config := { decide := true })``) stay allowed.
* ``#`` commands (``#eval``, ``#exit``, ``#print``; a lower-case name of at least four letters,
  so that notations such as ``#α`` or ``#s`` pass).
* meta-programming and IO escapes (``run_tac``, ``run_cmd``, the term ``by_elab``, ``eval%``,
  ``unsafe``, ``IO``, ``System``, ``dbg_trace``, ``implemented_by``, ``extern``...): arbitrary code on
  the machine; name and syntax quotations (`` `foo``, `` `(tactic| ..)``) too, after the command rule.
* commands and declaration modifiers (:data:`prover.lean.vocabulary.COMMANDS`), anywhere: inside a
  spliced proof they end the tactic block and run as commands of the file (``set_option ... in`` as
  well: options such as ``debug.skipKernelTC`` weaken the kernel check), and ``@[...]`` attributes.
* a tactic that ends in an opener (``by``, ``=>``, ``:=``, ``with``, ``fun``, ``·``, ``<;>``, ``|``,
  ``do``, ``then``, ``else``): its body would be the next tactics of the rendered proof.
* ``open``, except as ``open Foo in <tactic>`` at the start (it only scopes names and notation).
* the allow-list: the word at every tactic position (:func:`tactic_positions`: the start, after
  ``;``, ``<;>``, ``by``, ``·``, a bracket or a combinator, a match arm's ``=>``, a line at the
  column of its block) must be a tactic of :data:`prover.lean.vocabulary.TACTICS`; anything else,
  a command nobody listed included, fails closed.

A tactic must not start with whitespace: the renderer puts its first line at the block's column
and shifts the other lines as they are, so the columns this policy reads are the rendered ones.

Lines of a multi-line tactic may start at column 0 (``cases h with`` then ``| inl h => ...``, as
LeanDojo traces them): the renderer (:mod:`prover.lean.script`) indents every line into the proof's
block, and :func:`structure_problem` is checked again on the whole rendered block before the final
check, so no line of a tactic can become a command of the file.

Words are matched as whole Lean names (``List.get?`` or ``sorry_lemma`` are not refused); the
names of a string literal's contents are not words, since the lexer knows where literals end.
"""

from __future__ import annotations

import re

from prover.lean.lexer import LexError, Token, bracket_problem, tokenize
from prover.lean.vocabulary import COMMANDS, TACTICS
from search_tree.protocol import ErrorKind, TacticError
from prover.lean.syntax import GIVE_UP_WORDS

DEFAULT_MAX_LENGTH = 4096

_GIVE_UPS = frozenset(GIVE_UP_WORDS)
_SUGGESTIONS = {"hint", "polyrith", "rw_search", "library_search"}  # refused where a tactic starts
# Words that continue the tactic of the line before when Lean's column rule lets them start a line
# (`simpa ...` then `using h` below it); they start no command.
_CONTINUATIONS = {"using", "at", "with", "generalizing", "from", "says"}
_COMPILER = {"native", "native_decide", "bv_decide", "bv_check", "ofReduceBool", "ofReduceNat", "reduceBool",
             "reduceNat", "trustCompiler"}
# `by_elab doSeq` is a term that runs its `do` block as `TermElabM Expr` code (Mathlib/Tactic/RunCmd.lean,
# beside `run_tac`/`run_cmd`; the syntax is core's `Lean.byElab` now): it can add a declaration or an axiom.
_ESCAPE_WORDS = {"run_tac", "run_cmd", "run_elab", "run_meta", "by_elab", "unsafe", "implemented_by", "extern"}
# Term elaborators written `name%` that evaluate their argument in the interpreter at elaboration:
# Mathlib's `eval% x` (namespace Mathlib.Meta, "evaluates the term in the interpreter").
_EVALUATING_PERCENT = {"eval"}
_ESCAPE_PARTS = {"IO", "EIO", "BaseIO", "System", "unsafeIO", "unsafeEIO", "unsafeBaseIO", "dbg_trace", "dbgTrace",
                 "evalExpr", "evalConst", "unsafeCast"}
_HASH_COMMAND = re.compile(r"[a-z][a-z_]{3,}!?\Z")
_DANGLING_WORDS = {"by", "with", "fun", "do", "then", "else"}
_DANGLING_SYMBOLS = {"=>", ":=", "<;>", "·", "|", "λ"}

# The tactic-position recognizer's vocabulary: combinators whose argument is a tactic, heads
# whose tactic follows `=>` (or `in`), and tactics whose `| pattern =>` arms hold tactics.
_COMBINATORS = {"try", "repeat", "repeat'", "all_goals", "any_goals", "focus", "classical", "with_reducible",
                "with_reducible_and_instances", "with_unfolding_all"}
_ARROW_HEADS = {"on_goal", "case", "case'", "next", "conv", "conv_lhs", "conv_rhs"}
_ARM_HEADS = {"cases", "induction", "match"}
_TERM_LETS = {"have", "let", "haveI", "letI", "show"}  # in a term, their `;` belongs to the term
_CONTINUING_WORDS = {"from", "fun", "then", "else", "do", "calc", "at", "using", "with", "in"}


def structure_problem(text: str) -> str | None:
    """Why ``text`` (a tactic, or a whole rendered block) could end, comment out or extend what
    encloses it, or None: what the lexer refuses (comments, unterminated or raw literals, control
    and invisible characters) and unbalanced brackets."""
    try:
        return bracket_problem(tokenize(text))
    except LexError as exc:
        return str(exc)


def _name(token: Token) -> str | None:
    """An undotted name's text (guillemets removed), else None."""
    return token.parts[0] if token.kind == "name" and len(token.parts) == 1 else None


def _adjacent(first: Token, second: Token) -> bool:
    return first.start + len(first.text) == second.start


def tactic_positions(tokens: list[Token]) -> set[int]:
    """The indices of the tokens where a tactic starts. The model of Lean's tactic grammar: a
    tactic starts the text, follows ``;`` or ``<;>`` where tactics are separated (not inside a term's
    brackets), ``by``, a focusing ``·`` or bracket at a tactic position, a combinator (``try``,
    ``all_goals``, ``iterate n``, ``first |``), the ``=>`` of ``case``/``next``/``conv`` or of a
    ``cases``/``induction``/``match`` arm, ``open ... in``; and it starts a line at the column of the
    block it belongs to (Lean's column rule), unless the line before ends in a symbol or word that
    a term continues (``:=``, ``,``, ``from``...)."""
    marked = {0} if tokens else set()
    blocks: list[tuple[int, int]] = []  # (column, bracket depth) of the open tactic blocks
    # per bracket depth: whether tactics are separated there; the tactic whose `|` alternatives or
    # arms are open (name, column); whether an arm's `=>` leads to a tactic; the head (`case`,
    # `conv`, `open`...) whose `=>` (or `in`) does; whether a term-mode `have`/`let` owns the next `;`
    tactic_frame, owner, arm, arrow, term_let = [True], [("", -1)], [False], [""], [False]
    for i, token in enumerate(tokens):
        depth = len(tactic_frame) - 1
        if token.first_on_line and i > 0:
            blocks = [(c, d) for c, d in blocks if d < depth or (d == depth and c <= token.column)]
            before = tokens[i - 1]
            continuing = ((before.kind == "symbol" and before.text != ";")
                          or (before.kind == "name" and before.text in _CONTINUING_WORDS))
            if (token.column, depth) in blocks and not continuing:
                marked.add(i)
        name = _name(token)
        if i in marked:
            tactic_frame[depth], term_let[depth] = True, False
            if token.first_on_line and (token.column, depth) not in blocks:
                blocks.append((token.column, depth))
            if name is not None and token.first_on_line and token.column <= owner[depth][1]:
                owner[depth] = ("", -1)  # a tactic of the same or an outer block: the arms are over
            if name is not None:
                arrow[depth] = name if name in _ARROW_HEADS or name == "open" else ""
                if name in _ARM_HEADS or name in ("first", "solve"):
                    owner[depth] = (name, token.column)
                if name in _COMBINATORS:
                    marked.add(i + 1)
                elif name in ("first", "solve") and i + 1 < len(tokens) and tokens[i + 1].text == "|":
                    marked.add(i + 2)
                elif name == "iterate":
                    marked.add(i + 2 if i + 1 < len(tokens) and tokens[i + 1].kind == "number" else i + 1)
            elif token.text == "·" or token.text in ("(", "{"):
                marked.add(i + 1)
        elif name in _TERM_LETS:
            term_let[depth] = True
        if token.kind == "open":
            tactic_frame.append(False)
            owner.append(("", -1))
            arm.append(False)
            arrow.append("")
            term_let.append(False)
        elif token.kind == "close":
            if len(tactic_frame) > 1:
                for stack in (tactic_frame, owner, arm, arrow, term_let):
                    stack.pop()
            blocks = [(c, d) for c, d in blocks if d < len(tactic_frame)]
        elif token.text in (";", "<;>") and tactic_frame[depth]:
            if token.text == ";" and term_let[depth]:
                term_let[depth] = False
            else:
                marked.add(i + 1)
        elif token.text == "," and depth > 0:
            tactic_frame[depth] = False
            blocks = [(c, d) for c, d in blocks if d < depth]
        elif name == "by":
            tactic_frame[depth] = True
            marked.add(i + 1)
        elif token.text == "|":
            if owner[depth][0] in ("first", "solve"):
                marked.add(i + 1)
            arm[depth] = owner[depth][0] in _ARM_HEADS
        elif (token.text == "=>" and arrow[depth] != "open") or (name == "in" and arrow[depth] == "open"):
            if arrow[depth] or arm[depth]:
                marked.add(i + 1)
            arrow[depth], arm[depth] = "", False
    return {i for i in marked if i < len(tokens)}


def _config_problem(tokens: list[Token], i: int) -> str | None:
    """Why the value of the ``config :=`` at ``tokens[i]`` does not name its fields, or None."""
    value = tokens[i + 2] if i + 2 < len(tokens) else None
    if value is None or value.text != "{":
        return f"found `config := {value.text if value else ''}`"
    first = tokens[i + 3] if i + 3 < len(tokens) else None
    if first is not None and first.text != "}" and not (
            first.kind == "name" and i + 4 < len(tokens) and tokens[i + 4].text == ":="):
        return f"found `config := {{ {first.text} {tokens[i + 4].text if i + 4 < len(tokens) else ''}`"
    return None


def _give_up(tokens: list[Token], i: int) -> str | None:
    token = tokens[i]
    if _name(token) in _GIVE_UPS or "sorryAx" in token.parts:
        return f"gives up the goal instead of proving it (found {token.text!r})"
    return None


def _search(tokens: list[Token], i: int) -> str | None:
    name = _name(tokens[i])
    if name is not None and name.endswith("?") and (name[:-1] in TACTICS or name[:-1] in _SUGGESTIONS):
        return f"`?`-tactics search and print suggestions (and may close goals with `sorry`); use the suggestion (found {name!r})"
    return None


def _compiler(tokens: list[Token], i: int) -> str | None:
    token = tokens[i]
    if _COMPILER & set(token.parts):
        return f"relies on the axiom Lean.ofReduceBool (trusts the compiler) (found {token.text!r})"
    if _name(token) == "config" and i + 1 < len(tokens) and tokens[i + 1].text == ":=":
        problem = _config_problem(tokens, i)
        if problem is not None:
            return f"a tactic's configuration must name its fields, as `{{ kernel := true }}` ({problem})"
    return None


def _hash_command(tokens: list[Token], i: int) -> str | None:
    token, after = tokens[i], tokens[i + 1] if i + 1 < len(tokens) else None
    if (token.kind == "symbol" and token.text.endswith("#") and after is not None and _adjacent(token, after)
            and _HASH_COMMAND.match(after.text)):
        return f"a `#` command is not a tactic (found '#{after.text}')"
    return None


def _escape(tokens: list[Token], i: int) -> str | None:
    token, after = tokens[i], tokens[i + 1] if i + 1 < len(tokens) else None
    if _name(token) in _ESCAPE_WORDS or _ESCAPE_PARTS & set(token.parts):
        return f"meta-programming or IO escape (found {token.text!r})"
    if _name(token) in _EVALUATING_PERCENT and after is not None and after.text == "%" and _adjacent(token, after):
        return f"meta-programming or IO escape (found '{token.text}%')"
    return None


def _command(tokens: list[Token], i: int) -> str | None:
    token, after = tokens[i], tokens[i + 1] if i + 1 < len(tokens) else None
    if _name(token) in COMMANDS:
        return f"a command (or declaration modifier) is not a tactic (found {token.text!r})"
    if token.text == "@" and after is not None and after.text == "[" and _adjacent(token, after):
        return "an attribute belongs to a declaration, not a tactic (found '@[')"
    return None


def _quotation(tokens: list[Token], i: int) -> str | None:
    if tokens[i].text.startswith("`"):
        return "name and syntax quotations (`foo, `(tactic| ..)) are meta-programming, not proof"
    return None


# The rules of the module doc that look at one token at a time, in the order they are reported.
_TOKEN_RULES = (_give_up, _search, _compiler, _hash_command, _escape, _command, _quotation)


def _token_problem(tokens: list[Token]) -> str | None:
    for rule in _TOKEN_RULES:
        for i in range(len(tokens)):
            problem = rule(tokens, i)
            if problem is not None:
                return problem
    return None


def _open_problem(tokens: list[Token]) -> str | None:
    """``open`` is the command unless it is a leading ``open A B in`` (which scopes the tactic after it)."""
    i = 0
    while i < len(tokens) and _name(tokens[i]) == "open":
        end = next((j for j in range(i + 1, len(tokens)) if _name(tokens[j]) == "in"), None)
        if end is None or any(t.kind != "name" for t in tokens[i + 1:end]):
            break
        i = end + 1
    if any(_name(token) == "open" for token in tokens[i:]):
        return "the `open` command is not a tactic (only `open Foo in <tactic>` is)"
    return None


def refusal_reason(tactic: str, max_length: int = DEFAULT_MAX_LENGTH) -> str | None:
    """Why ``tactic`` is refused, or None if it may be sent to Lean."""
    if not isinstance(tactic, str):
        return f"a tactic is a string, not {type(tactic).__name__}"
    if not tactic.strip():
        return "empty tactic"
    if len(tactic) > max_length:
        return f"longer than {max_length} characters ({len(tactic)})"
    if tactic[0].isspace():
        # the renderer aligns a tactic's first line with the block and shifts the others as they are,
        # so an indented first line would be read at other columns than the ones checked here
        return "starts with whitespace (strip it: the proof is rendered with its first line at the block's column)"
    try:
        tokens = tokenize(tactic)
    except LexError as exc:
        return str(exc)
    problem = bracket_problem(tokens) or _token_problem(tokens)
    if problem is not None:
        return problem
    last = tokens[-1]
    if _name(last) in _DANGLING_WORDS or (last.kind == "symbol" and last.text in _DANGLING_SYMBOLS):
        return f"ends in {last.text!r}: its body would be taken from the tactics after it"
    problem = _open_problem(tokens)
    if problem is not None:
        return problem
    for i in sorted(tactic_positions(tokens)):
        token, name = tokens[i], _name(tokens[i])
        if name in _SUGGESTIONS:
            return f"suggestion tactic (polyrith calls a web service) (found {name!r})"
        if token.kind == "name" and name != "open" and name not in TACTICS and name not in _CONTINUATIONS:
            return (f"{token.text!r} is not a tactic this policy knows (only the tactic syntax listed in "
                    f"prover/lean/vocabulary.py is accepted where a tactic starts)")
    return None


def check_tactic(tactic: str, max_length: int = DEFAULT_MAX_LENGTH) -> TacticError | None:
    """A REFUSED :class:`TacticError` naming ``tactic`` and the reason, or None to let it run."""
    reason = refusal_reason(tactic, max_length)
    if reason is None:
        return None
    return TacticError(f"refused Lean tactic {tactic!r}: {reason}", ErrorKind.REFUSED)
