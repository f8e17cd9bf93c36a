"""Rendering protocol proofs as Lean 4 tactic scripts.

A :class:`~search_tree.protocol.ProofStep` with branches is followed by one focusing block per
goal it produced: ``·`` focuses the first remaining goal and fails unless the block closes it, so
an AND-OR proof reads as Lean users write it and a wrong branch order cannot pass unnoticed.
Multi-line tactics (``have h : p := by`` with an indented body, ``cases h with | ...``) keep their
own relative indentation, shifted to the block they sit in.
"""

from __future__ import annotations

import re
import textwrap

from search_tree.protocol import Proof, Theorem

INDENT = "  "
_PROOF_OPENER = re.compile(r"\s*(?::=\s*(?:by\s*)?)?\Z")


def _tactic_lines(tactic: str, indent: str, bullet: bool) -> list[str]:
    """``tactic``'s lines at ``indent``, the first after a ``· `` when ``bullet`` is set."""
    lines = textwrap.dedent(tactic.strip("\n")).rstrip().split("\n")
    head = indent + ("· " if bullet else "") + lines[0].strip()
    tail_indent = indent + (INDENT if bullet else "")
    return [head] + [tail_indent + line if line.strip() else "" for line in lines[1:]]


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


def render_declaration(theorem: Theorem, proof: Proof) -> str:
    """The whole declaration when the statement is known (``statement := by ...``), else the block."""
    block = render_by_block(proof)
    # benchmark statements end in `:=`, `:= by` or nothing; the rendered proof supplies its own
    statement = _PROOF_OPENER.sub("", theorem.statement)
    if not statement:
        return block
    return f"{statement} := {block}"
