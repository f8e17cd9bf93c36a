"""The one place where model inputs are written, for training and for inference alike.

A retrieval-augmented tactic model is only as good as the agreement between the text it was
trained on and the text it sees in search. ReProver (Yang et al. 2023, "LeanDojo: Theorem Proving
with Retrieval-Augmented Language Models") prepends the retrieved premises to the state, each as
``<a>full_name</a> code``, filling a byte budget before the state; we do the same, and the training
data module, the ``hf`` and ``openai`` generators and the value function all call
:func:`format_input` and :func:`encode_inputs` below, so the two can never drift apart.

No heavy imports here: tokenizers are passed in.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, Protocol

from search_tree.protocol import TacticState

if TYPE_CHECKING:
    from transformers import BatchEncoding

PREMISE_SEPARATOR = "\n\n"
_MARK = re.compile(r"</?a>")


class PremiseLike(Protocol):
    """Anything with a ``full_name`` (retrieval's ``Premise``); ``code`` is used when present."""

    @property
    def full_name(self) -> str: ...


def state_text(state: TacticState | str) -> str:
    """The printed state a model reads: the backend's ``pp`` (what traced data stores too)."""
    return state.pp if isinstance(state, TacticState) else state


def format_premise(premise: PremiseLike | str) -> str:
    """``<a>full_name</a> code`` as in ReProver's retrieval-augmented inputs."""
    if isinstance(premise, str):
        return f"<a>{premise}</a>"
    code = (getattr(premise, "code", "") or "").strip()
    return f"<a>{premise.full_name}</a> {code}".rstrip()


def format_input(
    state: TacticState | str, premises: Sequence[PremiseLike | str] = (), max_bytes: int | None = None
) -> str:
    """The model input: premises (best first) while they fit in ``max_bytes``, then the state.

    The state is never cut here; if it alone exceeds the budget, :func:`encode_inputs` truncates
    from the left so that the goal's target (printed last) survives.
    """
    text = state_text(state)
    budget = None if max_bytes is None else max_bytes - len(text.encode())
    parts: list[str] = []
    for premise in premises:
        chunk = format_premise(premise) + PREMISE_SEPARATOR
        size = len(chunk.encode())
        if budget is not None:
            if size > budget:
                break
            budget -= size
        parts.append(chunk)
    return "".join(parts) + text


def format_target(tactic: str) -> str:
    """The training target: the tactic as written, without LeanDojo's ``<a>`` premise marks."""
    return _MARK.sub("", tactic).strip()


def encode_inputs(tokenizer: Any, texts: list[str], max_length: int) -> BatchEncoding:
    """Tokenize model inputs as torch tensors, truncating from the left (keeps the target).

    Used by the data module's collate function and by every inference path.
    """
    side = tokenizer.truncation_side
    tokenizer.truncation_side = "left"
    try:
        return tokenizer(texts, padding="longest", truncation=True, max_length=max_length, return_tensors="pt")
    finally:
        tokenizer.truncation_side = side


def encode_targets(tokenizer: Any, tactics: list[str], max_length: int) -> Any:
    """Label ids for training (padding set to -100, ignored by the loss)."""
    enc = tokenizer([format_target(t) for t in tactics], padding="longest", truncation=True,
                    max_length=max_length, return_tensors="pt")
    labels = enc.input_ids
    labels[enc.attention_mask == 0] = -100
    return labels
