"""A policy-value model: a small T5 that writes tactics, with a value head that counts steps left.

Policy. A seq2seq transformer reads ``format_input(state, premises)`` and writes the tactic, as in
ReProver (Yang et al. 2023), which fine-tunes ByT5 (Xue et al. 2022). Here the T5 is configured
small and trained from scratch by default, with ByT5's byte-level tokenizer so that no vocabulary
file is needed and Lean's and Coq's Unicode pass through unchanged; ``init_from`` starts from a
local pretrained checkpoint instead (e.g. a downloaded ``google/byt5-small``).

Value. A head on the encoder's mean-pooled output predicts the number of tactic steps left to
close the state, as a distribution over bins of step counts: a categorical value trained with
cross-entropy (the representation MuZero uses for values, Schrittwieser et al. 2020), over
remaining-step bins in the manner of Reap's step-count values (frenzymath/reap). MCTS reads the
expectation, a remaining-cost estimate, through :meth:`PolicyValueModel.value` (the AND-OR search's
value interface, ``value(states, context) -> [float]``). HTPS (Lample et al. 2022) trains a critic on
provability instead; a count of steps needs no search data, only traced proofs
(labels: :func:`generator.traced.remaining_steps`).

The value head reads the state alone (no premises), in training and in search alike: MCTS asks for
values without a theorem context to retrieve from.

Checkpoints: Lightning's (for resuming) and Hugging Face's (:meth:`save_hf`: ``save_pretrained``
of model and tokenizer, ``value_head.pt`` and ``policy_config.json``), which the ``hf`` generator
loads directly and :meth:`PolicyValueModel.from_hf` reloads with the value head.
"""

from __future__ import annotations

import bisect
import json
from collections.abc import Sequence
from dataclasses import dataclass
from itertools import pairwise
from pathlib import Path
from typing import TYPE_CHECKING, Any

import lightning as L
from lightning.fabric.utilities.data import AttributeDict
import torch
from torch import nn

from generator.formatting import encode_inputs, encode_targets, format_input
from generator.export_files import POLICY_CONFIG, VALUE_HEAD_FILE
from generator.traced import TacticExample
from search_tree.protocol import TacticState, Theorem

if TYPE_CHECKING:
    from transformers import PreTrainedTokenizerBase

DEFAULT_VALUE_BINS = (1, 2, 3, 4, 6, 9, 14, 22)


def bin_representatives(bins: Sequence[int]) -> list[float]:
    """The step count each bin stands for: the midpoint of ``[lo, next_lo - 1]``; the open last
    bin ``[lo, ∞)`` stands for ``1.5 * lo`` (a rough guess: its labels are rare and spread out)."""
    reps = [(lo + hi - 1) / 2 for lo, hi in pairwise(bins)]
    return reps + [1.5 * bins[-1]]


def bin_of(steps: int, bins: Sequence[int]) -> int:
    """Index of the bin holding ``steps`` (counts below the first edge fall in the first bin)."""
    return max(bisect.bisect_right(bins, steps) - 1, 0)


@dataclass
class PolicyCollator:
    """Turns :class:`TacticExample` lists into tensors, the model's way (a picklable callable,
    so that data-loader workers can run it)."""

    tokenizer: Any
    max_input_len: int
    max_target_len: int
    num_premises: int
    value_bins: tuple[int, ...]

    def __call__(self, batch: list[TacticExample]) -> dict[str, torch.Tensor]:
        texts = [format_input(ex.state, ex.premises[: self.num_premises], self.max_input_len) for ex in batch]
        enc = encode_inputs(self.tokenizer, texts, self.max_input_len)
        out = {
            "input_ids": enc.input_ids,
            "attention_mask": enc.attention_mask,
            "labels": encode_targets(self.tokenizer, [ex.tactic for ex in batch], self.max_target_len),
            "value_labels": torch.tensor([bin_of(ex.remaining_steps, self.value_bins) for ex in batch]),
            "remaining_steps": torch.tensor([float(ex.remaining_steps) for ex in batch]),
        }
        if self.num_premises > 0:
            state_only = encode_inputs(self.tokenizer, [ex.state for ex in batch], self.max_input_len)
            out["value_input_ids"], out["value_attention_mask"] = state_only.input_ids, state_only.attention_mask
        return out


class PolicyValueModel(L.LightningModule):
    """T5 policy + step-count value head, trained on traced proofs (see the module docstring).

    Args:
        d_model, d_ff, num_layers, num_heads, d_kv, dropout: the T5's size when trained from scratch.
        init_from: a local Hugging Face seq2seq checkpoint to start from instead (its tokenizer too).
        max_input_len, max_target_len: token (byte, for ByT5) limits of input and tactic.
        num_premises: premises prepended to the input (traced annotations in training, the
            retriever's top ones in search).
        value_bins: lower edges of the remaining-step bins, increasing from 1.
        value_weight: weight of the value loss against the policy loss.
        lr, weight_decay, warmup_steps: AdamW with linear warm-up.
    """

    hparams: AttributeDict  # the arguments, saved by save_hyperparameters() (Lightning's property says MutableMapping)
    bin_values: torch.Tensor  # a buffer, registered in __init__

    def __init__(
        self,
        d_model: int = 64,
        d_ff: int = 256,
        num_layers: int = 2,
        num_heads: int = 4,
        d_kv: int = 16,
        dropout: float = 0.1,
        init_from: str | None = None,
        max_input_len: int = 1024,
        max_target_len: int = 128,
        num_premises: int = 0,
        value_bins: Sequence[int] = DEFAULT_VALUE_BINS,
        value_weight: float = 0.5,
        lr: float = 1e-3,
        weight_decay: float = 0.01,
        warmup_steps: int = 100,
    ) -> None:
        super().__init__()
        from transformers import (
            AutoModelForSeq2SeqLM,
            AutoTokenizer,
            ByT5Tokenizer,
            T5Config,
            T5ForConditionalGeneration,
        )

        if list(value_bins) != sorted(set(value_bins)) or value_bins[0] < 1:
            raise ValueError("value_bins must be increasing lower edges starting at 1 or more")
        self.save_hyperparameters()
        if init_from:
            self.tokenizer: PreTrainedTokenizerBase = AutoTokenizer.from_pretrained(init_from)
            self.model = AutoModelForSeq2SeqLM.from_pretrained(init_from)
        else:
            self.tokenizer = ByT5Tokenizer()
            config = T5Config(  # type: ignore[call-arg]  # decoder_start_token_id: taken by PretrainedConfig's **kwargs
                vocab_size=len(self.tokenizer), d_model=d_model, d_ff=d_ff, d_kv=d_kv, num_layers=num_layers,
                num_decoder_layers=num_layers, num_heads=num_heads, dropout_rate=dropout,
                pad_token_id=self.tokenizer.pad_token_id, eos_token_id=self.tokenizer.eos_token_id,
                decoder_start_token_id=self.tokenizer.pad_token_id,
            )
            self.model = T5ForConditionalGeneration(config)
        hidden = self.model.config.d_model
        self.value_head = nn.Sequential(nn.Linear(hidden, hidden), nn.GELU(), nn.Linear(hidden, len(value_bins)))
        self.register_buffer("bin_values", torch.tensor(bin_representatives(value_bins)), persistent=False)

    # -- data ------------------------------------------------------------------------------------

    def collator(self) -> PolicyCollator:
        """The collate function of this model's inputs (used by :class:`generator.data.TracedDataModule`)."""
        h = self.hparams
        return PolicyCollator(self.tokenizer, h.max_input_len, h.max_target_len, h.num_premises, tuple(h.value_bins))

    # -- forward ---------------------------------------------------------------------------------

    def value_logits(self, input_ids: torch.Tensor, attention_mask: torch.Tensor,
                     encoder_states: torch.Tensor | None = None) -> torch.Tensor:
        """Bin logits from the mean of the encoder's states over the unpadded input."""
        if encoder_states is None:
            encoder_states = self.model.get_encoder()(input_ids=input_ids, attention_mask=attention_mask).last_hidden_state
        mask = attention_mask.unsqueeze(-1).to(encoder_states.dtype)
        pooled = (encoder_states * mask).sum(1) / mask.sum(1).clamp(min=1.0)
        return self.value_head(pooled)

    def expected_steps(self, logits: torch.Tensor) -> torch.Tensor:
        return logits.softmax(-1) @ self.bin_values

    def _losses(self, batch: dict[str, torch.Tensor]) -> dict[str, torch.Tensor]:
        out = self.model(input_ids=batch["input_ids"], attention_mask=batch["attention_mask"], labels=batch["labels"])
        if "value_input_ids" in batch:
            logits = self.value_logits(batch["value_input_ids"], batch["value_attention_mask"])
        else:
            logits = self.value_logits(batch["input_ids"], batch["attention_mask"], out.encoder_last_hidden_state)
        value_loss = nn.functional.cross_entropy(logits, batch["value_labels"])
        return {
            "loss": out.loss + self.hparams.value_weight * value_loss,
            "policy_loss": out.loss,
            "value_loss": value_loss,
            "value_mae": (self.expected_steps(logits.detach()) - batch["remaining_steps"]).abs().mean(),
        }

    def training_step(self, batch: dict[str, torch.Tensor], batch_idx: int) -> torch.Tensor:
        losses = self._losses(batch)
        n = batch["input_ids"].shape[0]
        self.log("train_loss", losses["loss"], prog_bar=True, batch_size=n)
        self.log_dict({f"train_{k}": v for k, v in losses.items() if k != "loss"}, batch_size=n)
        return losses["loss"]

    def validation_step(self, batch: dict[str, torch.Tensor], batch_idx: int) -> None:
        losses = self._losses(batch)
        n = batch["input_ids"].shape[0]
        self.log("val_loss", losses["loss"], prog_bar=True, batch_size=n)
        self.log_dict({f"val_{k}": v for k, v in losses.items() if k != "loss"}, batch_size=n)

    def configure_optimizers(self) -> Any:
        opt = torch.optim.AdamW(self.parameters(), lr=self.hparams.lr, weight_decay=self.hparams.weight_decay)
        warmup = max(1, self.hparams.warmup_steps)
        sched = torch.optim.lr_scheduler.LambdaLR(opt, lambda step: min(1.0, (step + 1) / warmup))
        return {"optimizer": opt, "lr_scheduler": {"scheduler": sched, "interval": "step"}}

    # -- inference -------------------------------------------------------------------------------

    @torch.inference_mode()
    def value_distribution(self, states: Sequence[TacticState | str]) -> torch.Tensor:
        """Probabilities over the value bins for each state (state text only, as in training)."""
        was_training = self.training
        self.eval()
        try:
            enc = encode_inputs(self.tokenizer, [format_input(s) for s in states], self.hparams.max_input_len)
            enc = enc.to(self.device)
            return self.value_logits(enc.input_ids, enc.attention_mask).softmax(-1)
        finally:
            self.train(was_training)

    def value(self, states: Sequence[TacticState], context: Theorem | None = None) -> list[float]:
        """Expected tactic steps left to close each state: MCTS's remaining-cost estimate.

        The signature of ``search_tree.value.ValueFunction``; ``context`` is accepted and not
        used, since the head reads the state alone, as in training.
        """
        if not states:
            return []
        return (self.value_distribution(states) @ self.bin_values).tolist()

    # -- Hugging Face export ---------------------------------------------------------------------

    def save_hf(self, path: str | Path) -> Path:
        """Write a Hugging Face checkpoint (model, tokenizer, value head, training-time settings)."""
        path = Path(path)
        path.mkdir(parents=True, exist_ok=True)
        self.model.save_pretrained(path)
        self.tokenizer.save_pretrained(path)
        torch.save(self.value_head.state_dict(), path / VALUE_HEAD_FILE)
        h = self.hparams
        (path / POLICY_CONFIG).write_text(json.dumps({
            "max_input_len": h.max_input_len, "max_target_len": h.max_target_len, "num_premises": h.num_premises,
            "value_bins": list(h.value_bins), "value_weight": h.value_weight,
        }, indent=2))
        return path

    @classmethod
    def from_hf(cls, path: str | Path, map_location: str = "cpu") -> PolicyValueModel:
        """Reload a checkpoint written by :meth:`save_hf` (policy and value head), in eval mode."""
        settings = json.loads((Path(path) / POLICY_CONFIG).read_text())
        model = cls(init_from=str(path), max_input_len=settings["max_input_len"],
                    max_target_len=settings["max_target_len"], num_premises=settings["num_premises"],
                    value_bins=settings["value_bins"], value_weight=settings.get("value_weight", 0.5))
        # tensors only: a checkpoint directory is input, and a pickle of any other object runs code as it loads
        model.value_head.load_state_dict(torch.load(Path(path) / VALUE_HEAD_FILE, map_location=map_location,
                                                    weights_only=True))
        return model.eval()


def load_value_function(path: str | Path) -> PolicyValueModel:
    """The value function of a saved policy: an object with ``value(states, context) -> [float]``."""
    return PolicyValueModel.from_hf(path)
