"""Lean 4 syntax: pretty-printed proof states, notation, keywords and give-up tactics.

A state printed by Lean (and recorded by LeanDojo) is a list of goals separated by blank lines;
each goal is an optional ``case <tag>`` line, hypotheses (``x y : T``, ``v : T := value`` for a
let-binding) and a target after ``⊢``. Long hypotheses and targets wrap onto indented
continuation lines. LeanDojo's own parser (``lean_dojo.interaction.parse_goals``) reads the same
layout but keeps let-values inside the type and ignores case tags and metavariables; this module
adds those because AND-OR search needs them: goals that mention a metavariable (``?m.12``,
``?a``, a universe ``?u.345``) may share it and must not be split into independent subgoals.
The tests check that hypothesis and goal counts agree with LeanDojo's parser on real states.

Pure Python: no Lean and no ``lean_dojo`` import. The layers below the backends read it through
:data:`prover.lean.language.LEAN`.
"""

from __future__ import annotations

import re

from search_tree.protocol import Goal, Hypothesis

from search_tree.syntax.common import TURNSTILE, GoalParseError, let_type_then_value, normalise


# A metavariable: `?` starting a name (`?m.12`, `?a`, `?u.21872`, `?_uniq.3`) that is not the
# tail of an identifier or of an index such as `x?` / `List.get?`.
_MVAR = re.compile(r"(?<![\w.?!'\u2080-\u209c])\?[A-Za-z_\u0370-\u03ff][\w.'\u2080-\u209c]*")
_GOAL_COUNT_HEADER = re.compile(r"\A\d+ goals?\n")
_CASE_LINE = re.compile(r"case\s+(\S+)\Z")


# Lean 4 notation -> the constant it unfolds to (Mathlib / core, as of 2023-2024).
# `∀` and `→` are Pi types, not constants, and are not mapped. Numerals: `0` and `1` are the
# `Zero`/`One` classes that lemmas about them mention; other literals are `OfNat.ofNat`.
NOTATION: dict[str, tuple[str, ...]] = {
    "+": ("HAdd.hAdd",),
    "-": ("HSub.hSub",),  # binary and unary minus are not told apart without parsing
    "*": ("HMul.hMul",),
    "/": ("HDiv.hDiv",),
    "%": ("HMod.hMod",),
    "^": ("HPow.hPow",),
    "•": ("HSMul.hSMul",),
    "∣": ("Dvd.dvd",),
    "≤": ("LE.le",),
    "≥": ("LE.le",),
    "<": ("LT.lt",),
    ">": ("LT.lt",),
    "=": ("Eq",),
    "≠": ("Ne",),
    "¬": ("Not",),
    "∧": ("And",),
    "∨": ("Or",),
    "↔": ("Iff",),
    "∃": ("Exists",),
    "∃!": ("ExistsUnique",),
    "⁻¹": ("Inv.inv",),
    "∑": ("Finset.sum",),
    "∏": ("Finset.prod",),
    "∈": ("Membership.mem",),
    "∉": ("Membership.mem", "Not"),
    "⊆": ("HasSubset.Subset",),
    "⊂": ("HasSSubset.SSubset",),
    "∩": ("Inter.inter",),
    "∪": ("Union.union",),
    "\\": ("SDiff.sdiff",),
    "ᶜ": ("HasCompl.compl",),
    "⊓": ("Inf.inf",),
    "⊔": ("Sup.sup",),
    "⊤": ("Top.top",),
    "⊥": ("Bot.bot",),
    "∅": ("EmptyCollection.emptyCollection",),
    "∘": ("Function.comp",),
    "⋃": ("Set.iUnion",),
    "⋂": ("Set.iInter",),
    "√": ("Real.sqrt",),
    "‖": ("Norm.norm",),
    "⌊": ("Int.floor",),
    "⌈": ("Int.ceil",),
    "∫": ("MeasureTheory.integral",),
    "×": ("Prod",),
    "≃": ("Equiv",),
    "→+*": ("RingHom",),
    "→*": ("MonoidHom",),
    "→+": ("AddMonoidHom",),
    "≃+*": ("RingEquiv",),
    "≡": ("Nat.ModEq",),  # `a ≡ b [MOD n]`; `[ZMOD n]` adds the identifier ZMOD
    "!": ("Nat.factorial",),
    "ℕ": ("Nat",),
    "ℤ": ("Int",),
    "ℚ": ("Rat",),
    "ℝ": ("Real",),
    "ℂ": ("Complex",),
    "0": ("Zero.zero",),
    "1": ("One.one",),
    # punctuation that contains an operator character but denotes no constant
    ":=": (),
    "=>": (),
    "->": (),
    "<-": (),
    "<;>": (),
}

KEYWORDS = frozenset(
    """theorem lemma def abbrev instance class structure inductive where extends fun λ by have show
    from let in if then else match with at do return Type Sort Prop deriving private protected
    noncomputable irreducible_def opaque axiom example variable universe namespace section end open
    calc this using only simp rfl mk""".split()
)
# identifiers: a letter or underscore, then word characters, primes, `!`/`?`, possibly qualified
IDENT = r"[^\W\d][\w'!?]*(?:\.[^\W\d][\w'!?]*)*"
# one unqualified name as goals print it: an identifier's characters, and the `✝` (with its
# superscript count, word characters) of an inaccessible hypothesis (``h✝``, ``a✝¹``)
NAME = r"[^\W\d][\w'!?✝]*"
# tactics that close a goal without proving it (``stop`` closes every goal left with ``sorry``)
GIVE_UP_WORDS = ("sorry", "admit", "stop")
# the search tactics (exact?, apply?, rw?, simp?, aesop?, ...): an unqualified name directly
# followed by '?', which report a suggestion instead of making a proof step. A '?' after a dot
# (``List.head?``) or before a name (a metavariable ``?x``) is no search tactic.
SEARCH_TACTIC = re.compile(r"(?<![\w.'?])[A-Za-z_][\w']*\?(?![\w'?])")


def has_metavariable(text: str) -> bool:
    """Whether ``text`` mentions an unresolved metavariable such as ``?m.12``, ``?a`` or ``?u.3``."""
    return _MVAR.search(text) is not None


def split_goals(pp: str) -> list[str]:
    """The printed goals of a state, one string each (LeanDojo's ``N goals`` header dropped)."""
    pp = _GOAL_COUNT_HEADER.sub("", pp.strip("\n"), count=1)
    goals: list[str] = []
    pending_case = ""
    for block in re.split(r"\n\s*\n", pp):
        if TURNSTILE in block:
            goals.append(pending_case + block)
            pending_case = ""
        elif _CASE_LINE.match(block.strip()):
            # a goal with an empty context prints as `case inl`, a blank line, then `⊢ ...`
            pending_case = block.strip() + "\n"
    return goals


def _entries(lines: list[str]) -> list[str]:
    """Join indented continuation lines onto the entry (hypothesis or target) they continue."""
    entries: list[str] = []
    for line in lines:
        if entries and (line[:1].isspace() or not line):
            entries[-1] += "\n" + line
        else:
            entries.append(line)
    return entries


def parse_hypotheses(entry: str) -> list[Hypothesis]:
    """``x y : T`` gives one :class:`Hypothesis` per name; ``v : T := e`` keeps ``e`` as the value."""
    colon = re.search(r"\s:(?=\s|$)", entry)
    if colon is None:
        raise GoalParseError(f"not a hypothesis (no ' : '): {entry!r}")
    names = entry[: colon.start()].split()
    if not names:
        raise GoalParseError(f"hypothesis without a name: {entry!r}")
    rest, value = let_type_then_value(entry[colon.end():])
    type_ = normalise(rest)
    if type_.endswith(","):  # Lean 3 style separators that LeanDojo also strips
        type_ = type_[:-1].rstrip()
    return [Hypothesis(name=name, type=type_, value=value) for name in names]


def parse_goal(block: str) -> Goal:
    """One printed goal: optional ``case`` tag, hypotheses, and the target after ``⊢``."""
    if block.count(TURNSTILE) != 1:
        raise GoalParseError(f"a goal has exactly one {TURNSTILE}: {block!r}")
    lines = block.strip("\n").split("\n")
    name = None
    first = _CASE_LINE.match(lines[0].strip()) if lines else None
    if first is not None:
        name, lines = first.group(1), lines[1:]
    entries = _entries(lines)
    target_entry = entries[-1]
    if not target_entry.startswith(TURNSTILE):
        raise GoalParseError(f"the target does not start with {TURNSTILE}: {block!r}")
    hypotheses: list[Hypothesis] = []
    for entry in entries[:-1]:
        hypotheses.extend(parse_hypotheses(entry))
    target = normalise(target_entry[len(TURNSTILE):])
    return Goal(tuple(hypotheses), target, has_metavariable=has_metavariable(block), name=name)


def parse_goals(pp: str) -> tuple[Goal, ...]:
    """All goals of a pretty-printed state (``no goals`` and empty text give none)."""
    return tuple(parse_goal(block) for block in split_goals(pp))
