"""Write a :data:`~search_tree.protocol.Proof` as a Coq proof script.

Linear steps go one per line. A step with branches (one sub-proof per goal it produced, as AND-OR
search reconstructs them) is followed by one bullet per branch, nested bullets cycling through
``-``, ``+``, ``*`` and then doubling (``--``, ``++``, ``**``...), each branch indented under its
bullet. When a proof's own tactics already use bullets or braces (a search may run ``- auto.``),
generated bullets could clash with them, so branches are wrapped in braces ``{ ... }`` instead,
which nest with anything.
"""

from __future__ import annotations

from search_tree.protocol import Proof, ProofStep

from .policy import check_tactic

BULLET_CHARS = "-+*"
INDENT = "  "


def bullet(depth: int) -> str:
    """The bullet for branches nested ``depth`` levels deep (0: ``-``, 3: ``--``, ...)."""
    return BULLET_CHARS[depth % 3] * (depth // 3 + 1)


def render_proof(proof: Proof) -> str:
    """The script of ``proof``, without ``Proof.``/``Qed.``; ValueError for an empty branch."""
    braces = any(check_tactic(step.tactic).focusing for step in _all_steps(proof))
    lines: list[str] = []
    _render(proof, 0, "", braces, lines)
    return "\n".join(lines)


def _render(steps: tuple[ProofStep, ...], depth: int, indent: str, braces: bool, lines: list[str]) -> None:
    for step in steps:
        lines.append(indent + step.tactic.strip())
        for branch in step.branches:
            if not branch:
                raise ValueError(f"empty branch after {step.tactic!r}: every goal needs a sub-proof")
            if braces:
                lines.append(indent + "{")
                _render(branch, depth + 1, indent + INDENT, braces, lines)
                lines.append(indent + "}")
            else:
                mark = bullet(depth)
                inner: list[str] = []
                _render(branch, depth + 1, " " * (len(mark) + 1), braces, inner)
                lines.append(f"{indent}{mark} {inner[0].lstrip()}")
                lines.extend(indent + line for line in inner[1:])


def _all_steps(proof: Proof):
    for step in proof:
        yield step
        for branch in step.branches:
            yield from _all_steps(branch)
