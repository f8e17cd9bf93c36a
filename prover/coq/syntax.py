"""Coq syntax (8.16): printed goals, notation in the default scopes and ssreflect's, keywords and give-up tactics.

A goal as coqtop prints it (``-emacs``) is its hypotheses, one a line with a two-space indent,
the separator and the target; a long hypothesis continues on further lines. ``n, m : nat``
declares several names, ``x := v : T`` a let-bound one. :mod:`prover.coq.goals` reads the rest
of coqtop's reply (headers, messages, goal lists) around these blocks.
"""

from __future__ import annotations

import re

from search_tree.protocol import Goal, Hypothesis

from search_tree.syntax.common import GoalParseError, let_value_then_type

SEPARATOR = "============================"
# one unqualified name (a hypothesis, a bound variable): a letter or underscore (Unicode ones too), then
# letters, digits and primes; no `?` or `!` (``p?=q`` is ``p ?= q``)
NAME = r"[^\W\d][\w']*"
_HYP = re.compile(rf"({NAME}(?:, {NAME})*) (:=|:) (.*)$", re.DOTALL)
_EVAR = re.compile(r"(?<![\w'?])\?[^\W\d][\w']*")

# Coq notation in the default scopes -> the constant it denotes (Coq 8.16 standard library).
# Read in the scopes open by default in the standard library (``nat_scope`` for arithmetic and
# order, ``type_scope`` for connectives, ``list_scope`` for ``++``/``::``), the choice most
# statements of ``Arith`` and ``Lists`` need; ``Z``/``R`` statements then share the ``Nat``
# constants, which costs precision but not recall. Then ssreflect's and Mathematical Components'
# notation (:data:`SSREFLECT_NOTATION`), whose symbols the stdlib's scopes do not use.
NOTATION: dict[str, tuple[str, ...]] = {
    "+": ("Nat.add",),
    "-": ("Nat.sub",),
    "*": ("Nat.mul",),
    "^": ("Nat.pow",),
    "/": ("Nat.div",),
    "<=": ("le",),
    ">=": ("ge",),
    "<": ("lt",),
    ">": ("gt",),
    "=": ("eq",),
    "<>": ("not", "eq"),
    "~": ("not",),
    "/\\": ("and",),
    "\\/": ("or",),
    "<->": ("iff",),
    "exists": ("ex",),
    "++": ("app",),
    "::": ("cons",),
    "0": ("O",),
    "1": ("S", "O"),
    ":=": (),
    "=>": (),
    "->": (),
    "<-": (),
}
# ssreflect's boolean notation (``ssrbool``, also the stdlib's ``bool_scope`` for ``&&``/``||``)
# and Mathematical Components' (``eqtype``, ``ssrnat``, ``div``, ``finset``, ``bigop``), as coqtop
# prints their goals: ``x == y`` is ``eq_op``, ``n.+1`` is ``S n``, ``x \in A`` is ``in_mem``,
# ``m %| n`` is ``dvdn``. ``==`` is also the stdlib's setoid equivalence and ``Qeq``; read as
# ``eq_op``, which costs those statements precision, as ``+`` does for ``Z``.
SSREFLECT_NOTATION: dict[str, tuple[str, ...]] = {
    "==": ("eq_op",),
    "!=": ("negb", "eq_op"),
    "~~": ("negb",),
    "&&": ("andb",),
    "||": ("orb",),
    "==>": ("implb",),
    "(+)": ("addb",),
    "\\in": ("in_mem",),
    "\\notin": ("negb", "in_mem"),
    "\\subset": ("subset",),
    "\\proper": ("proper",),
    "=1": ("eqfun",),
    ".+1": ("S",),
    ".+2": ("S",),
    ".-1": ("predn",),
    ".-": (),  # ``n.-tuple T``: the type constant follows
    ".*2": ("double",),
    "./2": ("half",),
    "%|": ("dvdn",),
    "%/": ("divn",),
    "%%": ("modn",),
    "`!": ("factorial",),
    ":|:": ("setU",),
    ":&:": ("setI",),
    ":\\:": ("setD",),
    "\\sum": ("bigop", "addn"),
    "\\prod": ("bigop", "muln"),
    "\\max": ("bigop", "maxn"),
    "\\big": ("bigop",),
}
NOTATION.update(SSREFLECT_NOTATION)
KEYWORDS = frozenset(
    """Theorem Lemma Definition Fixpoint CoFixpoint Inductive CoInductive Record Structure Class
    Instance Fact Remark Corollary Proposition Example Let Axiom Parameter Hypothesis Variable
    forall exists fun match with end let in if then else return as struct Type Prop Set fix cofix
    is""".split()
)
# an identifier, possibly qualified (ASCII, as the stdlib writes them): symbols, premise names,
# logical paths of a _CoqProject or a dune stanza
IDENT = r"[A-Za-z_][\w']*(?:\.[A-Za-z_][\w']*)*"
# tactics and commands that close a goal without proving it (the policy refuses them too)
GIVE_UP_WORDS = ("admit", "Admit", "Admitted", "give_up")


def has_metavariable(text: str) -> bool:
    """Whether ``text`` mentions an existential variable (``?x``), which goals may share."""
    return _EVAR.search(text) is not None


def render_goal(goal: Goal) -> str:
    """A goal as Coq prints it: one hypothesis a line, the separator, the target."""
    lines = []
    for h in goal.hypotheses:
        lines.append(f"{h.name} := {h.value} : {h.type}" if h.value is not None else f"{h.name} : {h.type}")
    lines.append(SEPARATOR)
    lines.append(goal.target)
    return "\n".join(lines)


def parse_goal_block(lines: list[str]) -> Goal:
    """Hypotheses and target of one goal as coqtop prints it (two-space indent, blank first line)."""
    try:
        sep = lines.index("  " + SEPARATOR)
    except ValueError:
        raise GoalParseError("goal without a separator line: " + repr("\n".join(lines)[:300])) from None
    hyps: list[Hypothesis] = []
    pending: list[str] = []  # the lines of the hypothesis being read (a long one may continue)
    for line in lines[:sep]:
        if not line.strip():
            continue
        if pending and _HYP.match(line, 2):
            hyps.extend(parse_hypothesis("\n".join(pending)))
            pending = []
        pending.append(line[2:])
    if pending:
        hyps.extend(parse_hypothesis("\n".join(pending)))
    target = "\n".join(line[2:] for line in lines[sep + 1:]).strip("\n")
    evar = has_metavariable(target) or any(has_metavariable(h.type + (h.value or "")) for h in hyps)
    return Goal(tuple(hyps), target, has_metavariable=evar)


def parse_hypothesis(text: str) -> list[Hypothesis]:
    """``n, m : nat`` gives one :class:`Hypothesis` per name; ``x := v : T`` keeps ``v`` as the value."""
    m = _HYP.match(text)
    if m is None:
        raise GoalParseError(f"unexpected hypothesis line: {text[:300]!r}")
    names, kind, rest = m.group(1).split(", "), m.group(2), m.group(3)
    value = None
    if kind == ":=":
        rest, value = let_value_then_type(rest)
    return [Hypothesis(name, rest, value) for name in names]

