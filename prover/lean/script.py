"""Rendering protocol proofs as Lean 4 tactic scripts.

A :class:`~search_tree.protocol.ProofStep` with branches is followed by one focusing block per
goal it produced: ``·`` focuses the first remaining goal and fails unless the block closes it, so
an AND-OR proof reads as Lean users write it and a wrong branch order cannot pass unnoticed.
Multi-line tactics (``have h : p := by`` with an indented body, ``cases h with | ...``) keep their
own relative indentation, shifted to the block they sit in.

The same module writes the text the LeanDojo backend sends while MCTS proves one goal on its own
(:func:`focus_goal`, :func:`under_focus`), so that what the search ran and what ``verify`` checks
are the same Lean: a ``·`` block is core Lean's ``focus`` plus the demand that the goal be closed,
and a focused search runs each tactic of a branch under ``focus`` on the goal the bullet selects.
"""

from __future__ import annotations

import re
import textwrap

from prover.lean.policy import structure_problem
from search_tree.protocol import Proof, Theorem

INDENT = "  "
_PROOF_OPENER = re.compile(r"\s*(?::=\s*(?:by\s*)?)?\Z")


def _tactic_lines(tactic: str, indent: str, bullet: bool) -> list[str]:
    """``tactic``'s lines at ``indent``, the first after a ``· `` when ``bullet`` is set."""
    lines = textwrap.dedent(tactic.strip("\n")).rstrip().split("\n")
    head = indent + ("· " if bullet else "") + lines[0].strip()
    tail_indent = indent + (INDENT if bullet else "")
    return [head] + [tail_indent + line if line.strip() else "" for line in lines[1:]]


def focus_goal(goal_index: int) -> str:
    """The tactic that brings goal ``goal_index`` (0-based) to the front: core Lean 4's
    ``rotate_left`` (Batteries' ``pick_goal``/``on_goal`` are not in every traced repository).
    The goals before it move to the back, where a focused state keeps its hidden goals."""
    if goal_index < 0:
        raise ValueError(f"goal index must be non-negative, got {goal_index}")
    return f"rotate_left {goal_index}"


def under_focus(tactic: str) -> str:
    """``tactic`` as the block of core Lean 4's ``focus``: it sees the main goal alone, and the
    goals it leaves come first, the others after, untouched (what ``· tactic`` shows it, without
    ``·``'s demand that the goal be closed at once)."""
    return "focus\n" + "\n".join(_tactic_lines(tactic, INDENT, bullet=False))


def _render(proof: Proof, indent: str, out: list[str], bullet_first: bool) -> None:
    """Append ``proof`` at ``indent``; with ``bullet_first`` it is a focused ``·`` block."""
    body = indent + INDENT if bullet_first else indent  # where the block's tactics align
    for i, step in enumerate(proof):
        bullet = bullet_first and i == 0
        out.extend(_tactic_lines(step.tactic, indent if bullet else body, bullet))
        for branch in step.branches:
            if not branch:
                raise ValueError(f"empty branch after tactic {step.tactic!r}: every goal needs a sub-proof")
            _render(branch, body, out, bullet_first=True)


def render_tactics(proof: Proof, indent: str = INDENT) -> str:
    """The tactic block of ``proof`` (no ``by``), each line indented by at least ``indent``."""
    if not proof:
        raise ValueError("an empty proof has no Lean rendering")
    out: list[str] = []
    _render(proof, indent, out, bullet_first=False)
    return "\n".join(out)


def render_by_block(proof: Proof) -> str:
    """``by`` followed by the indented tactic block: the proof term LeanDojo's checker splices in."""
    return "by\n" + render_tactics(proof)


def confinement_problem(block: str) -> str | None:
    """Why the rendered ``block`` could reach outside its declaration, or None when it is confined:
    ``by`` on its own line, every other non-blank line indented into the tactic block (a line at
    column 0 would be a command of the file), and the whole text free of comments, dangling
    brackets or quotes (:func:`prover.lean.policy.structure_problem`): tactics that pass the policy
    one by one must not combine into something that escapes."""
    head, _, body = block.partition("\n")
    if head != "by" or not body.strip():
        return f"the block must be `by` followed by indented tactics, got {block[:60]!r}"
    outside = next((line for line in body.split("\n") if line.strip() and not line.startswith(INDENT)), None)
    if outside is not None:
        return f"line {outside!r} is not indented into the tactic block"
    return structure_problem(body)


def render_declaration(theorem: Theorem, proof: Proof) -> str:
    """The whole declaration when the statement is known (``statement := by ...``), else the block."""
    block = render_by_block(proof)
    # benchmark statements end in `:=`, `:= by` or nothing; the rendered proof supplies its own
    statement = _PROOF_OPENER.sub("", theorem.statement)
    if not statement:
        return block
    return f"{statement} := {block}"
