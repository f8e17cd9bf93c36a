"""Goals of a printed proof state of either language, read leniently (traced data, queries).

Backends parse what their prover prints strictly (:func:`prover.coq.syntax.parse_goal_block`,
:func:`prover.lean.syntax.parse_goals`) and fill ``TacticState.goals``; traced data and
retrieval queries only have the text, in one of the two layouts, and must never fail on it:

* Lean (LeanDojo's ``pp``): ``h₁ h₂ : T`` lines, then ``⊢ target``; goals separated by a blank
  line, each optionally preceded by ``case tag``;
* Coq (``coqtop``, or :meth:`prover.coq.goals.ProofView.render`): ``H : T`` lines, a ``=====``
  rule, then the target; further goals follow the same layout or a ``goal N is:`` header.

Lines indented deeper than the hypothesis lines continue the previous hypothesis or target; a
text with neither layout (a bare statement) is read as one target.
"""

from __future__ import annotations

import re

from search_tree.protocol import Goal, Hypothesis

from .common import TURNSTILE, let_type_then_value, let_value_then_type

_RULE = re.compile(r"^\s*={4,}\s*$")
_GOAL_HEADER = re.compile(r"^\s*(?:goal \d+(?: \([^)]*\))? is:|case [^\n]*|\d+ goals?)\s*$")
# one or more binder names, then " : " and a type (or " := " for a let-bound body); names never
# hold brackets, commas or colons (Coq separates names with commas: "n, m : nat"; a let-binding
# prints "x := v : T" in Coq and "x : T := v" in Lean; a long type may start on the next line)
_HYP_LINE = re.compile(r"^(?P<names>[^\s:=,()\[\]{}]+(?:,? [^\s:=,()\[\]{}]+)*) (?P<sep>:=?)(?:\s(?P<rest>.*))?$")
_CASE = re.compile(r"^\s*case (\S+)")


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
        if line.lstrip().startswith(TURNSTILE) or _RULE.match(line):
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
        elif stripped.startswith(TURNSTILE):
            in_target = True
            target_lines.append(stripped[len(TURNSTILE):].strip())
        elif in_target:
            target_lines.append(stripped)
        elif len(line) - len(line.lstrip()) == hyp_indent and (m := _HYP_LINE.match(stripped)):
            rest = (m.group("rest") or "").strip()
            split = let_value_then_type if m.group("sep") == ":=" else let_type_then_value  # "x := v : T" / "x : T := v"
            typ, value = split(rest)
            hyps.append([m.group("names"), typ, value])
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
