"""A LightningDataModule over traced proofs in LeanDojo's format (Coq and Lean alike).

It loads theorems (:mod:`generator.traced`), splits them by theorem when no separate validation
data is given, and batches :class:`~generator.traced.TacticExample` with the model's own
collator (:meth:`generator.policy_value.PolicyValueModel.collator`), so the tokenizer, lengths and
premise count are the model's and are saved with its checkpoint: the data module holds only
where the data is and how it is batched.
"""

from __future__ import annotations

from collections.abc import Callable

import lightning as L
from lightning.fabric.utilities.data import AttributeDict
from torch.utils.data import DataLoader

from search_tree.errors import UserError
from generator.traced import TacticExample, examples, load_corpus_code, load_theorems, split_by_theorem


class TracedDataModule(L.LightningDataModule):
    """Traced tactics for policy-value training.

    Args:
        train_path: traced JSON/JSONL file(s) or directories (e.g. ``dojo-prover trace`` output).
        val_path: validation data; when absent, ``val_percent`` of the training theorems (chosen by
            a hash of the theorem name, :func:`generator.traced.in_val_split`) are held out.
        corpus_path: a LeanDojo ``corpus.jsonl``; when given, annotated premises carry their code,
            as retrieved premises do at inference.
        max_train_examples: keep only the first examples (quick runs and tests).
    """

    hparams: AttributeDict  # the arguments, saved by save_hyperparameters() (Lightning's property says MutableMapping)

    def __init__(
        self,
        train_path: str | list[str],
        val_path: str | list[str] | None = None,
        val_percent: float = 5.0,
        split_seed: int = 0,
        corpus_path: str | None = None,
        batch_size: int = 8,
        num_workers: int = 0,
        max_train_examples: int | None = None,
    ) -> None:
        super().__init__()
        self.save_hyperparameters()
        self.train_examples: list[TacticExample] = []
        self.val_examples: list[TacticExample] = []
        self.collate_fn: Callable | None = None

    def setup(self, stage: str | None = None) -> None:
        h = self.hparams
        code_of = load_corpus_code(h.corpus_path) if h.corpus_path else None
        theorems = load_theorems(h.train_path)
        if h.val_path:
            train, val = theorems, load_theorems(h.val_path)
        else:
            train, val = split_by_theorem(theorems, h.val_percent, h.split_seed)
        self.train_examples = [ex for ex in examples(train, code_of) if ex.tactic.strip()]
        if h.max_train_examples is not None:
            self.train_examples = self.train_examples[: h.max_train_examples]
        self.val_examples = [ex for ex in examples(val, code_of) if ex.tactic.strip()]
        if not self.train_examples:
            raise UserError(f"{h.train_path}: no traced tactics to train on")
        if self.collate_fn is None:
            if self.trainer is None or self.trainer.lightning_module is None:
                raise RuntimeError("TracedDataModule needs a model's collator: attach it to a Trainer, or set collate_fn")
            # Module.__getattr__ types any attribute as Tensor | Module; the model defines collator()
            self.collate_fn = self.trainer.lightning_module.collator()  # type: ignore[operator]

    def _loader(self, data: list[TacticExample], shuffle: bool) -> DataLoader:
        # a list is a map-style dataset; DataLoader's stub asks for a Dataset
        return DataLoader(data, batch_size=self.hparams.batch_size,  # type: ignore[arg-type]
                          shuffle=shuffle, collate_fn=self.collate_fn,
                          num_workers=self.hparams.num_workers, persistent_workers=self.hparams.num_workers > 0)

    def train_dataloader(self) -> DataLoader:
        return self._loader(self.train_examples, shuffle=True)

    def val_dataloader(self) -> DataLoader:
        return self._loader(self.val_examples, shuffle=False)

