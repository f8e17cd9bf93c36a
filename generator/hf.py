"""Tactics from a local Hugging Face checkpoint: seq2seq (ByT5/T5, as ReProver) or causal.

The input is written by :func:`generator.formatting.format_input`, with the retriever's premises
prepended as at training time, and tokenized by :func:`generator.formatting.encode_inputs`. A
checkpoint saved by :mod:`generator.train` carries a ``policy_config.json`` with the input and
output lengths it was trained with; they become the defaults here, so training and inference read
the same text.

Scores are sequence log-probabilities under the model: beam search with ``length_penalty=0``
returns them directly (``sequences_scores``); sampling sums the per-token log-probabilities of the
raw (untempered) logits.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from generator.base import Suggestion, TacticGenerator
from generator.export_files import POLICY_CONFIG, VALUE_HEAD_FILE
from generator.formatting import encode_inputs, format_input
from search_tree.errors import UserError, one_line
from search_tree.safe_files import read_regular
from search_tree.protocol import TacticState, Theorem
from search_tree.value import ValueFunction

#: the command that writes a policy-value export, named in every error about a missing or damaged one
VALUE_REBUILD = ("dojo-prover train-policy fit --config generator/configs/small.yaml --run_dir RUN_DIR "
                 "(the export is RUN_DIR/hf)")


class ValueCheckpointError(UserError):
    """A :class:`ValueHead` checkpoint that is missing, incomplete or unreadable."""


@dataclass(frozen=True)
class ValueHead:
    """A search's value estimate taken from the value head of the policy-value export at
    ``checkpoint`` (the ``hf/`` directory that ``dojo-prover train-policy`` writes).

    A search's options carry this, not the model, because options are written to a run's
    ``config.json`` (as ``{"checkpoint": PATH}``) and shipped to Ray workers; each worker's prover
    loads the model itself (:meth:`load`), so the search loops only ever see a
    :class:`~search_tree.value.ValueFunction` and stay free of torch."""

    checkpoint: str

    def check(self) -> None:
        """Raise :class:`ValueCheckpointError` (one line naming the checkpoint and the command that
        writes one) unless the export's files are there. It reads no weights, so a run can call it
        before any work starts."""
        missing = [name for name in (POLICY_CONFIG, VALUE_HEAD_FILE) if not (Path(self.checkpoint) / name).is_file()]
        if missing:
            raise ValueCheckpointError(f"value checkpoint {self.checkpoint} is not a policy-value export (no "
                                       f"{' or '.join(missing)}); build one with {VALUE_REBUILD}")

    def load(self) -> ValueFunction:
        """The value head, loaded (torch is imported only here); a damaged export raises
        :class:`ValueCheckpointError` in one line, as a missing one does."""
        self.check()
        from generator.policy_value import load_value_function

        try:
            return load_value_function(self.checkpoint)
        except Exception as exc:  # a damaged export fails in torch, transformers or json: all mean the same here
            raise ValueCheckpointError(f"value checkpoint {self.checkpoint} is unreadable ({one_line(exc)[:160]}); "
                                       f"rebuild it with {VALUE_REBUILD}") from exc


def read_policy_config(path: str | Path) -> dict[str, Any]:
    """The training-time settings saved beside a checkpoint (``{}`` for a foreign checkpoint); a
    :class:`UserError` naming the file when it is not a JSON object (a checkpoint is input: damaged
    or edited, it is one line, not a JSONDecodeError about "line 1 column 2")."""
    file = Path(path) / POLICY_CONFIG
    data = read_regular(file)
    if data is None:
        return {}
    try:
        config = json.loads(data.decode("utf-8"))
    except (json.JSONDecodeError, UnicodeDecodeError) as exc:
        raise UserError(f"{file}: not valid JSON ({exc}); re-export the checkpoint or remove the file") from None
    if not isinstance(config, dict):
        raise UserError(f"{file}: a JSON {type(config).__name__}, not the object of settings a training run saves")
    return config


class HFGenerator(TacticGenerator):
    """Beam search or sampling from ``model`` (a local checkpoint directory).

    ``kind``: ``"seq2seq"``, ``"causal"`` or ``"auto"`` (from the config's ``is_encoder_decoder``).
    ``prompt_template`` wraps the formatted input (causal step provers usually want a prompt);
    ``stop`` cuts a causal model's continuation at the first occurrence. ``checkpoint`` is another
    name for ``model`` (``dojo-prover eval --generator hf --generator-opt checkpoint=PATH``).
    """

    def __init__(
        self,
        model: str | Path | None = None,
        kind: str = "auto",
        strategy: str = "beam",
        retriever: Any | None = None,
        num_premises: int | None = None,
        max_input_len: int | None = None,
        max_output_len: int | None = None,
        temperature: float = 1.0,
        prompt_template: str = "{input}",
        stop: str | None = None,
        device: str = "cpu",
        checkpoint: str | Path | None = None,
    ) -> None:
        import torch
        from transformers import AutoConfig, AutoModelForCausalLM, AutoModelForSeq2SeqLM, AutoTokenizer

        if strategy not in ("beam", "sample"):
            raise ValueError(f"strategy must be 'beam' or 'sample', not {strategy!r}")
        if (model is None) == (checkpoint is None):
            raise ValueError("give the checkpoint directory as model= or checkpoint= (one of them)")
        model = model if model is not None else checkpoint  # checkpoint=: the name `dojo-prover eval` users know
        assert model is not None  # one of the two, checked above
        saved = read_policy_config(model)
        config = AutoConfig.from_pretrained(model)
        self.seq2seq = config.is_encoder_decoder if kind == "auto" else kind == "seq2seq"
        auto = AutoModelForSeq2SeqLM if self.seq2seq else AutoModelForCausalLM
        # transformers' stub types .to through a decorator that expects the model as an argument
        self.model = auto.from_pretrained(model).to(device).eval()  # type: ignore[arg-type]
        self.tokenizer = AutoTokenizer.from_pretrained(model)
        if not self.seq2seq:
            self.tokenizer.padding_side = "left"
            if self.tokenizer.pad_token is None:
                self.tokenizer.pad_token = self.tokenizer.eos_token
        self.torch = torch
        self.device = device
        self.strategy = strategy
        self.retriever = retriever
        self.num_premises = saved.get("num_premises", 0) if num_premises is None else num_premises
        self.max_input_len = max_input_len or saved.get("max_input_len", 2048)
        self.max_output_len = max_output_len or saved.get("max_target_len", 128)
        self.temperature = temperature
        self.prompt_template = prompt_template
        self.stop = stop

    def inputs(self, states: list[TacticState], contexts: list[Theorem]) -> list[str]:
        """The model inputs: retrieved premises then the state, as at training time."""
        texts = []
        for state, context in zip(states, contexts, strict=True):
            premises = []
            if self.retriever is not None and self.num_premises > 0:
                premises = [p for p, _ in self.retriever.retrieve(state, context, self.num_premises)]
            texts.append(self.prompt_template.format(input=format_input(state, premises, self.max_input_len)))
        return texts

    def generate(self, state: TacticState, context: Theorem, num_samples: int) -> list[Suggestion]:
        return self.batch_generate([state], [context], num_samples)[0]

    def batch_generate(
        self, states: list[TacticState], contexts: list[Theorem], num_samples: int
    ) -> list[list[Suggestion]]:
        if not states:
            return []
        enc = encode_inputs(self.tokenizer, self.inputs(states, contexts), self.max_input_len).to(self.device)
        options: dict[str, Any] = {
            "max_new_tokens": self.max_output_len, "num_return_sequences": num_samples,
            "return_dict_in_generate": True, "pad_token_id": self.tokenizer.pad_token_id,
        }
        if self.strategy == "beam":
            options.update(do_sample=False, num_beams=num_samples, length_penalty=0.0, output_scores=True)
        else:
            options.update(do_sample=True, temperature=self.temperature, top_k=0, output_logits=True)
        with self.torch.inference_mode():
            out = self.model.generate(**enc, **options)
            if self.strategy == "beam":
                scores = out.sequences_scores
            else:
                steps = self.model.compute_transition_scores(out.sequences, out.logits, normalize_logits=True)
                # positions after a sequence's end-of-sequence token are padding, not choices
                generated = out.sequences[:, -steps.shape[1]:]
                is_eos = generated == self.tokenizer.eos_token_id
                after_eos = (is_eos.cumsum(-1) - is_eos.long()) > 0
                scores = steps.masked_fill(after_eos | ~self.torch.isfinite(steps), 0.0).sum(-1)
        sequences = out.sequences if self.seq2seq else out.sequences[:, enc.input_ids.shape[1]:]
        texts = self.tokenizer.batch_decode(sequences, skip_special_tokens=True)
        results: list[list[Suggestion]] = []
        for i in range(len(states)):
            best: dict[str, float] = {}
            for j in range(i * num_samples, (i + 1) * num_samples):
                tactic = texts[j].split(self.stop)[0] if self.stop else texts[j]
                tactic, score = tactic.strip(), float(scores[j])
                if tactic and math.isfinite(score):
                    best[tactic] = max(score, best.get(tactic, -math.inf))
            results.append(sorted(best.items(), key=lambda s: -s[1]))
        return results
