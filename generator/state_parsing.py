"""Goals and hypotheses of a proof state, from the backend's parse or from printed text.

Backends fill :attr:`TacticState.goals`; traced data (LeanDojo-format JSON from Lean or from the Coq
tracer) only has the printed state. Generators that look at hypotheses (the templates' case
analysis, kNN's renaming) need the same view of both, so this module parses the two printed forms
the project meets:

* Lean (LeanDojo's ``pp``): ``h₁ h₂ : T`` lines, then ``⊢ target``; goals separated by a blank
  line, each optionally preceded by ``case tag``;
* Coq (``coqtop``): ``  H : T`` lines, a ``=====`` rule, then the target; further goals follow
  the same layout or a ``goal N is:`` header.

Lines indented deeper than the hypothesis lines continue the previous hypothesis or target.
"""

from __future__ import annotations

import re

from search_tree.protocol import Goal, Hypothesis, TacticState

_RULE = re.compile(r"^\s*={4,}\s*$")
_TURNSTILE = "⊢"
_GOAL_HEADER = re.compile(r"^\s*(?:goal \d+(?: \([^)]*\))? is:|case [^\n]*)\s*$")
# one or more binder names, then " : " and a type (or " := " for a let-bound body)
# (Coq separates names with commas: "n, m : nat"; a let-binding prints "x := v : T" in Coq and
# "x : T := v" in Lean)
_HYP_LINE = re.compile(r"^(?P<names>[^\s:=,()]+(?:,? [^\s:=,()]+)*) (?P<sep>:=?)\s(?P<rest>.*)$")
_CASE = re.compile(r"^\s*case (\S+)")
_IDENT = re.compile(r"(?<![\w.'])[^\W\d][\w'₀-₉⁰¹²³⁴⁵⁶⁷⁸⁹✝!?]*", re.UNICODE)


def goals_of(state: TacticState | str) -> tuple[Goal, ...]:
    """The goals of ``state``: the backend's parse when present, else parsed from the text."""
    if isinstance(state, TacticState):
        return state.goals if state.goals else parse_goals(state.pp)
    return parse_goals(state)


def hypotheses_of(state: TacticState | str) -> tuple[Hypothesis, ...]:
    """Hypotheses of the first goal (the one a tactic acts on); empty for a state without goals."""
    goals = goals_of(state)
    return goals[0].hypotheses if goals else ()


def parse_goals(text: str) -> tuple[Goal, ...]:
    """Parse a printed Lean or Coq proof state into goals (``no goals`` gives ``()``)."""
    if not text.strip() or text.strip() == "no goals":
        return ()
    return tuple(g for g in (_parse_goal(block) for block in _goal_blocks(text)) if g is not None)


def _goal_blocks(text: str) -> list[list[str]]:
    """Split the text into one list of lines per goal (a ``case`` header stays with its goal)."""
    blocks: list[list[str]] = [[]]
    lines = text.splitlines()
    coq_style = any(_RULE.match(line) for line in lines)
    seen_target = False
    for line in lines:
        header = bool(_GOAL_HEADER.match(line))
        blank = not line.strip()
        # Lean separates goals by a blank line; Coq by a "goal N is:" header or a new hypothesis
        # list after a target (several goals printed in full).
        starts_new = header or (blank and not coq_style and seen_target)
        if not starts_new and coq_style and seen_target and not line.startswith("   ") and _HYP_LINE.match(line.strip()):
            starts_new = True
        if starts_new and blocks[-1]:
            blocks.append([])
            seen_target = False
        if blank or (header and not _CASE.match(line)):
            continue
        blocks[-1].append(line)
        if line.lstrip().startswith(_TURNSTILE) or _RULE.match(line):
            seen_target = True
    return [b for b in blocks if b]


def _parse_goal(lines: list[str]) -> Goal | None:
    name = None
    if (m := _CASE.match(lines[0])) is not None:
        name, lines = m.group(1), lines[1:]
    if not lines:
        return None
    hyps: list[list] = []  # [names, type, value]
    target_lines: list[str] = []
    in_target = False
    hyp_indent = min(len(line) - len(line.lstrip()) for line in lines)
    for line in lines:
        stripped = line.strip()
        if _RULE.match(line):
            in_target = True
        elif stripped.startswith(_TURNSTILE):
            in_target = True
            target_lines.append(stripped[len(_TURNSTILE):].strip())
        elif in_target:
            target_lines.append(stripped)
        elif len(line) - len(line.lstrip()) == hyp_indent and (m := _HYP_LINE.match(stripped)):
            rest = m.group("rest").strip()
            if m.group("sep") == ":=":  # Coq: "x := v : T"
                value, _, typ = rest.rpartition(" : ")
                hyps.append([m.group("names"), typ or rest, value or None])
            else:  # Lean: "x : T := v"
                typ, _, value = rest.partition(" := ")
                hyps.append([m.group("names"), typ, value or None])
        elif hyps:
            hyps[-1][1 if hyps[-1][2] is None else 2] += " " + stripped
        else:  # Coq prints a goal without hypotheses as just the target
            target_lines.append(stripped)
    if not target_lines and not hyps:
        return None
    hypotheses = tuple(
        Hypothesis(n, typ.strip(), value.strip() if value else None)
        for names, typ, value in hyps
        for n in names.replace(",", " ").split()
    )
    return Goal(hypotheses=hypotheses, target=" ".join(target_lines).strip(), name=name)


def identifiers(text: str) -> list[str]:
    """Identifier tokens of ``text`` that are not a field or a qualified name's tail (``h`` in ``h.1``)."""
    return _IDENT.findall(text)


def rename_identifiers(text: str, mapping: dict[str, str]) -> str:
    """Replace whole identifiers (not parts of longer names, not after a dot) per ``mapping``."""
    if not mapping:
        return text
    return _IDENT.sub(lambda m: mapping.get(m.group(0), m.group(0)), text)


def hypothesis_kind(type_text: str) -> str:
    """Heuristic class of a hypothesis' type: ``"sort"``, ``"prop"`` or ``"data"``.

    Chooses case-analysis and induction candidates without asking the prover: a sort (``Prop``,
    ``Type u``, ``Set``) is a type variable, never analysed; arrows, equalities, orders and
    connectives mark propositions; anything else (``nat``, ``list A``, ``ℕ``) is taken as data.
    """
    t = type_text.strip()
    if re.fullmatch(r"(Prop|Set|Type|Sort)(\s.*|\*)?", t):
        return "sort"
    padded = f" {t} "
    markers = ("->", "→", "=", "<", ">", "≤", "≥", "≠", "/\\", "\\/", "∧", "∨", "↔", "~", "¬",
               " forall ", "∀", " exists ", "∃", " True ", " False ", " In ", "∈", "∣")
    return "prop" if any(m in padded for m in markers) else "data"
