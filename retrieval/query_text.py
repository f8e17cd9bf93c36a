"""The text a dense encoder reads for a proof state: the main goal, fitted to the encoder's window.

Encoders truncate from the right (MiniLM at 256 tokens) and printed states list hypotheses before
the target, so a plain truncation drops the target first: on the Coq stdlib traces the median
state is 277 tokens long. Tactics act on the main goal, so the query is that goal in one layout
for both languages (hypotheses ``name : type``, then ``⊢ target``) and, when over the budget, the
oldest hypotheses go first: the target and the most recent hypotheses are what the next step
needs (ReProver likewise retrieves with the goal; it leaves truncation to the encoder). The same
function shapes training queries (:mod:`retrieval.training`) and search-time queries
(:class:`retrieval.dense.DenseRetriever`), so a trained model sees at search what it was taught on.
"""

from __future__ import annotations

from typing import Callable, Sequence, Union

from search_tree.protocol import Goal, TacticState
from search_tree.syntax.printed import parse_goals

Lengths = Callable[[Sequence[str]], list[int]]


def char_lengths(lines: Sequence[str]) -> list[int]:
    """Length in characters, the default measure (a token measure comes from a tokenizer)."""
    return [len(line) for line in lines]


def goal_query(goal: Goal, budget: int = 2048, lengths: Lengths = char_lengths) -> str:
    """``goal`` as query text of at most ``budget`` (as ``lengths`` measures: a line break counts
    one), hypotheses dropped from the oldest; the target alone is kept whole even when over."""
    target = f"⊢ {goal.target}"
    hyps = [f"{h.name} : {h.type}" + (f" := {h.value}" if h.value is not None else "") for h in goal.hypotheses]
    sizes = lengths([target, *hyps])
    left = budget - sizes[0]
    kept: list[str] = []
    for line, size in zip(reversed(hyps), reversed(sizes[1:])):
        if size + 1 > left:
            break
        kept.append(line)
        left -= size + 1
    return "\n".join([*reversed(kept), target])


def state_query(state: Union[str, TacticState], budget: int = 2048, lengths: Lengths = char_lengths) -> str:
    """Query text for ``state`` (parsed goals, else its printed text read leniently): its main goal;
    a state with no goal to read is its printed text."""
    pp = state.pp if isinstance(state, TacticState) else state
    goals = (state.goals if isinstance(state, TacticState) else ()) or parse_goals(pp)
    return goal_query(goals[0], budget, lengths) if goals else pp
