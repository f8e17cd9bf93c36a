"""Write a :data:`~search_tree.protocol.Proof` as a Coq proof script.

Linear steps go one per line. A step with branches (one sub-proof per goal it produced, as AND-OR
search reconstructs them) is followed by one bullet per branch, nested bullets cycling through
``-``, ``+``, ``*`` and then doubling (``--``, ``++``, ``**``...), each branch indented under its
bullet. When a proof's own tactics already use bullets or braces (a search may run ``- auto.``),
generated bullets could clash with them, so branches are wrapped in braces ``{ ... }`` instead,
which nest with anything.

Each step is written as the sentences the policy accepted and coqtop ran
(:attr:`prover.coq.policy.CheckedTactic.text`: comments removed, a missing final dot added), never
as the generator's raw text, so a dot-less ``intros`` cannot swallow the ``Qed.`` that follows. The
script is split again before it is returned and must give exactly those sentences and the
generated bullets and braces, in order; anything else is a ValueError, not a script.
"""

from __future__ import annotations

from search_tree.protocol import Proof, ProofStep

from .policy import check_tactic
from .sentences import split_sentences

BULLET_CHARS = "-+*"
INDENT = "  "


def bullet(depth: int) -> str:
    """The bullet for branches nested ``depth`` levels deep (0: ``-``, 3: ``--``, ...)."""
    return BULLET_CHARS[depth % 3] * (depth // 3 + 1)


def render_proof(proof: Proof) -> str:
    """The script of ``proof``, without ``Proof.``/``Qed.``; ValueError for an empty branch."""
    braces = any(check_tactic(step.tactic).focusing for step in _all_steps(proof))
    lines: list[str] = []
    expected: list[str] = []
    _render(proof, 0, "", braces, lines, expected)
    script = "\n".join(lines)
    written = [s.text for s in split_sentences(script, "<rendered proof>")]
    if written != expected:
        raise ValueError(f"the rendered script reads as the sentences {written!r}, not {expected!r}")
    return script


def _render(steps: tuple[ProofStep, ...], depth: int, indent: str, braces: bool, lines: list[str],
            expected: list[str]) -> None:
    for step in steps:
        checked = check_tactic(step.tactic)
        lines.append(indent + checked.text)
        expected.extend(checked.sentences)
        for branch in step.branches:
            if not branch:
                raise ValueError(f"empty branch after {step.tactic!r}: every goal needs a sub-proof")
            if braces:
                lines.append(indent + "{")
                expected.append("{")
                _render(branch, depth + 1, indent + INDENT, braces, lines, expected)
                lines.append(indent + "}")
                expected.append("}")
            else:
                mark = bullet(depth)
                expected.append(mark)
                inner: list[str] = []
                _render(branch, depth + 1, " " * (len(mark) + 1), braces, inner, expected)
                lines.append(f"{indent}{mark} {inner[0].lstrip()}")
                lines.extend(indent + line for line in inner[1:])


def _all_steps(proof: Proof):
    for step in proof:
        yield step
        for branch in step.branches:
            yield from _all_steps(branch)
