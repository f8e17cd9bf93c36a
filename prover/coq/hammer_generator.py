"""CoqHammer actions for a Coq search: reconstruction tactics, with premises, and ``hammer`` itself.

For every state: ``sauto.``, ``hauto.``, ``qauto.`` and, when a retriever is given, ``sauto use:
P1, ..., Pk.`` / ``hauto use: P1, ..., Pk.`` with its top ``num_premises`` premises (a premise
the context does not know makes the tactic fail with a TacticError, like any bad tactic). On the
first ``hammer_states`` distinct states of a theorem it also proposes ``hammer.``, with the
lowest score: it costs its own time limit (:class:`prover.coq.hammer.HammerSession` runs it at
most once per state and turns it into its reconstruction tactic for the proof).

It proposes nothing for a theorem the addition is not offered to
(:func:`prover.coq.additions.offered`: CoqHammer missing, a ``-noinit`` project), where the
tactics do not exist. A theorem whose own module CoqHammer loads gets them too: it is reopened
(:mod:`prover.coq.reopened`) and a proof using the compiled copy of the theorem or of a later
lemma of its file is refused by the leak check. Combine it with other generators through :class:`generator.fused.FusedGenerator`;
the environment needs ``additions=("hammer",)``.
"""

from __future__ import annotations

from typing import Any

from generator.base import Suggestion, TacticGenerator
from search_tree.protocol import TacticState, Theorem

#: (tactic, score): the plain reconstruction tactics, cheapest first
PLAIN = (("sauto.", -1.0), ("hauto.", -1.2), ("qauto.", -1.4))
#: (tactic head, score) of the tactics given the retriever's premises
WITH_PREMISES = (("hauto use: {}.", -1.1), ("sauto use: {}.", -1.3))
HAMMER_SCORE = -3.0


class HammerGenerator(TacticGenerator):
    """The actions of the module docstring. ``retriever``: ``retrieve(state, context, k) ->
    [(premise, score)]`` as for :class:`generator.template.TemplateGenerator`."""

    def __init__(self, retriever: Any | None = None, num_premises: int = 4, hammer_states: int = 1) -> None:
        if num_premises < 0 or hammer_states < 0:
            raise ValueError(f"num_premises and hammer_states must be >= 0, got {num_premises}, {hammer_states}")
        self.retriever = retriever
        self.num_premises = num_premises
        self.hammer_states = hammer_states
        self._hammered: dict[str, set[str]] = {}  # theorem -> keys of the states offered hammer

    def generate(self, state: TacticState, context: Theorem, num_samples: int) -> list[Suggestion]:
        from prover.coq.additions import offered

        if not offered(("hammer",), context):
            return []
        out = list(PLAIN)
        premises = self._premises(state, context)
        if premises:
            out.extend((head.format(", ".join(premises)), score) for head, score in WITH_PREMISES)
        seen = self._hammered.setdefault(context.full_name, set())
        if state.key in seen or len(seen) < self.hammer_states:
            seen.add(state.key)
            out.append(("hammer.", HAMMER_SCORE))
        return out[:num_samples]

    def _premises(self, state: TacticState, context: Theorem) -> list[str]:
        """The retriever's top ``num_premises`` distinct names, as the theorem's file can write them
        (:meth:`retrieval.corpus.Premise.name_from`): premises of different files may share
        a short name, and naming one twice in ``use:`` would waste a slot (Coq resolves both to the
        same constant), so twice as many are asked for. ``_`` (a corpus's anonymous record field,
        and what traces of ssreflect's ``/(_ x)`` views record as a premise) names nothing: in
        ``use:`` it would make the whole tactic fail, so it is left out."""
        if self.retriever is None or self.num_premises == 0:
            return []
        found = self.retriever.retrieve(state, context, 2 * self.num_premises)
        names = (p.name_from(context.file_path) for p, _ in found if p.full_name != "_")
        return list(dict.fromkeys(names))[:self.num_premises]
