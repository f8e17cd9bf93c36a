"""Lightning training of the PS-2 dense retriever.

Loss: InfoNCE (van den Oord et al., 2018) over the batch: each query's positive premise against
every other positive in the batch (in-batch negatives, as in DPR, Karpukhin et al. 2020) and every
hard negative of the batch, at temperature ``tau``. In-batch "negatives" that are in fact gold
premises of the query are masked out, since common premises recur across a batch.

Hard negatives follow the LeanSearch-PS recipe (Tao et al., 2025): every ``mine_every`` epochs,
the current model ranks a mining pool for each training query and premises at ranks
``mine_ranks`` (e.g. 30-100: similar but not the very top, which is rich in unannotated true
premises) become that query's negatives. On a CPU the pool is a sample of the corpus (always
including the positives), on a GPU it can be the whole corpus. Before the first mining round the
negatives are BM25's premises at the same ranks over the whole corpus (the DPR recipe, Karpukhin
et al. 2020): a CPU budget of an hour covers a fraction of an epoch on the Coq stdlib traces, so
without them a run would never see a hard negative. Queries are the main goal fitted to the
encoder's window (:func:`retrieval.dense.fit_queries`), as the retriever reads them at search.

Checkpoints are sentence-transformers directories (``<out>/epoch-N`` and ``<out>/final``) that
``DenseRetriever(corpus, model=path)`` loads as they are; metrics go to ``<out>/metrics.csv`` via
Lightning's CSV logger.

Runs are resumable: ``<out>/last.ckpt`` is written as training goes and picked up by the same
command, and ``--max-time`` is a wall-clock budget over all resumes. The same command runs on an
accelerator (``--accelerator auto`` picks it).

Command line (a 60-minute CPU budget on the whole Coq train split)::

    python -m retrieval.training --corpus corpus.jsonl --traced train.json \
        --exclude val.json test.json --out runs/ps2-coq --max-steps -1 --max-time 00:01:00:00
"""

from __future__ import annotations

import argparse
import dataclasses
import os
import random
from pathlib import Path
from typing import Iterable, Sequence

import lightning as L
from lightning.fabric.utilities.data import AttributeDict
from lightning.pytorch.callbacks import ModelCheckpoint
import numpy as np
import torch
import torch.nn.functional as F
from tqdm import tqdm

from retrieval.bm25 import BM25Retriever
from retrieval.corpus import Corpus
from retrieval.dense import PASSAGE_PREFIX, QUERY_PREFIX, default_model_path, fit_queries, load_encoder
from retrieval.training_data import TrainingPair, evaluation_theorem_names, load_pairs
from search_tree.errors import UserError, about, one_line
from search_tree.language import Language
from search_tree.registry import load_target


class PremiseDataset(torch.utils.data.Dataset):
    """Items ``(query, positive, negatives)`` as premise indices; one positive drawn per access.

    Negatives come from ``hard_negatives[i]`` (BM25's at the start, then the model's: see
    :class:`HardNegativeMiner`); a query without any gets uniformly random premises.
    """

    def __init__(self, pairs: Sequence[TrainingPair], num_premises: int, num_negatives: int = 1, seed: int = 0) -> None:
        self.pairs = list(pairs)
        self.num_premises = num_premises
        self.num_negatives = num_negatives
        self.hard_negatives: dict[int, list[int]] = {}
        self.rng = random.Random(seed)

    def __len__(self) -> int:
        return len(self.pairs)

    def __getitem__(self, i: int) -> tuple[int, int, list[int]]:
        pair = self.pairs[i]
        positive = self.rng.choice(pair.positives)
        pool = self.hard_negatives.get(i)
        negatives: list[int] = []
        while len(negatives) < self.num_negatives:
            j = self.rng.choice(pool) if pool else self.rng.randrange(self.num_premises)
            if j not in pair.positives:
                negatives.append(j)
        return i, positive, negatives


class PremiseDataModule(L.LightningDataModule):
    """Batches of (query texts, positive texts, negative texts) plus the ids needed to mask
    in-batch false negatives; texts carry the retriever's query and passage prefixes."""

    def __init__(self, corpus: Corpus, train: Sequence[TrainingPair], batch_size: int = 16, num_negatives: int = 1,
                 query_prefix: str = "", passage_prefix: str = "", seed: int = 0) -> None:
        super().__init__()
        self.corpus = corpus
        self.train_set = PremiseDataset(train, len(corpus), num_negatives, seed)
        self.batch_size = batch_size
        self.query_prefix, self.passage_prefix = query_prefix, passage_prefix

    def collate(self, items: list[tuple[int, int, list[int]]]) -> dict:
        premises = self.corpus.premises
        pairs = self.train_set.pairs
        return {
            "queries": [self.query_prefix + pairs[i].query for i, _, _ in items],
            "positives": [self.passage_prefix + premises[p].text for _, p, _ in items],
            "negatives": [self.passage_prefix + premises[n].text for _, _, ns in items for n in ns],
            "positive_ids": [p for _, p, _ in items],
            "negative_ids": [n for _, _, ns in items for n in ns],
            "gold": [set(pairs[i].positives) for i, _, _ in items],
        }

    def train_dataloader(self) -> torch.utils.data.DataLoader:
        return torch.utils.data.DataLoader(self.train_set, batch_size=self.batch_size, shuffle=True,
                                           collate_fn=self.collate, num_workers=0)


class DenseRetrieverModule(L.LightningModule):
    """A sentence-transformers encoder trained with InfoNCE over in-batch and hard negatives."""

    hparams: AttributeDict  # the arguments, saved by save_hyperparameters() (Lightning's property says MutableMapping)

    def __init__(self, model: str | None = None, lr: float = 2e-5, tau: float = 0.05, warmup_steps: int = 10) -> None:
        super().__init__()
        self.save_hyperparameters()
        self.encoder = load_encoder(model or default_model_path(), device="cpu")
        self.encoder.train()  # sentence-transformers loads in eval mode (dropout off)

    def embed(self, texts: list[str]) -> torch.Tensor:
        features = self.encoder.preprocess(texts)
        features = {k: v.to(self.device) if isinstance(v, torch.Tensor) else v for k, v in features.items()}
        return F.normalize(self.encoder(features)["sentence_embedding"], dim=-1)

    def loss(self, batch: dict) -> tuple[torch.Tensor, torch.Tensor]:
        """InfoNCE loss and in-batch top-1 accuracy."""
        q = self.embed(batch["queries"])
        p = self.embed(batch["positives"] + batch["negatives"])
        logits = q @ p.T / self.hparams.tau
        ids = batch["positive_ids"] + batch["negative_ids"]
        # a candidate that is a gold premise of query i (other than its own positive) is no negative
        false_neg = torch.tensor([[j != i and ids[j] in gold for j in range(len(ids))]
                                  for i, gold in enumerate(batch["gold"])], device=self.device)
        logits = logits.masked_fill(false_neg, float("-inf"))
        labels = torch.arange(len(q), device=self.device)
        return F.cross_entropy(logits, labels), (logits.argmax(-1) == labels).float().mean()

    def training_step(self, batch: dict, batch_idx: int) -> torch.Tensor:
        loss, acc = self.loss(batch)
        self.log("train_loss", loss, prog_bar=True, batch_size=len(batch["queries"]))
        self.log("train_acc", acc, prog_bar=True, batch_size=len(batch["queries"]))
        return loss

    def configure_optimizers(self):
        opt = torch.optim.AdamW(self.parameters(), lr=self.hparams.lr)
        warmup = max(1, self.hparams.warmup_steps)
        sched = torch.optim.lr_scheduler.LambdaLR(opt, lambda step: min(1.0, (step + 1) / warmup))
        return {"optimizer": opt, "lr_scheduler": {"scheduler": sched, "interval": "step"}}


class HardNegativeMiner(L.Callback):
    """Every ``mine_every`` epochs, replace each query's negatives by premises the current model
    ranks at ``ranks`` (0-based, half-open) in ``pool`` that are not among its positives."""

    def __init__(self, pool: Iterable[int], ranks: tuple[int, int] = (30, 100), mine_every: int = 1,
                 batch_size: int = 64) -> None:
        self.pool = np.asarray(sorted(set(pool)), dtype=np.int64)
        self.ranks, self.mine_every, self.batch_size = ranks, mine_every, batch_size

        self.mined: dict[int, list[int]] = {}

    def state_dict(self) -> dict:
        """The mined negatives go into ``last.ckpt``, so that a resumed run trains on them."""
        return {"mined": self.mined}

    def load_state_dict(self, state: dict) -> None:
        self.mined = dict(state["mined"])

    def on_train_start(self, trainer: L.Trainer, module: L.LightningModule) -> None:
        dm: PremiseDataModule = trainer.datamodule  # type: ignore[attr-defined]  # set by fit(), undeclared in Trainer
        if not self.mined:  # a fresh run (a resumed one has its negatives from the checkpoint)
            self.mined = bm25_negatives(dm.corpus, dm.train_set.pairs, self.ranks)
        dm.train_set.hard_negatives = self.mined

    def on_train_epoch_end(self, trainer: L.Trainer, module: L.LightningModule) -> None:
        assert isinstance(module, DenseRetrieverModule)  # the module this callback is made for
        ends = (trainer.should_stop or 0 < trainer.max_steps <= trainer.global_step  # the budget or a step limit
                or 0 < (trainer.max_epochs or -1) <= trainer.current_epoch + 1)
        if (trainer.current_epoch + 1) % self.mine_every or ends:
            return  # not a mining epoch, or training ends here and the negatives would go unused
        dm: PremiseDataModule = trainer.datamodule  # type: ignore[attr-defined]  # set by fit(), undeclared in Trainer
        self.mined = mine_hard_negatives(module, dm, self.pool, self.ranks, self.batch_size)
        dm.train_set.hard_negatives = self.mined
        module.log("mined_queries", float(len(self.mined)))


def bm25_negatives(corpus: Corpus, pairs: Sequence[TrainingPair], ranks: tuple[int, int]) -> dict[int, list[int]]:
    """Query index -> premises BM25 ranks at ``ranks`` over the whole corpus, positives removed."""
    bm25 = BM25Retriever(corpus)
    lo, hi = ranks
    mined: dict[int, list[int]] = {}
    for i, pair in enumerate(tqdm(pairs, desc="BM25 negatives", mininterval=10)):
        ranked = [corpus.index_of(p.full_name) for p, _ in bm25.retrieve(pair.query, None, hi)]
        negs = [j for j in ranked[lo:hi] if j is not None and j not in pair.positives]
        if negs:
            mined[i] = negs
    return mined


@torch.no_grad()
def mine_hard_negatives(module: DenseRetrieverModule, dm: PremiseDataModule, pool: np.ndarray,
                        ranks: tuple[int, int], batch_size: int = 64) -> dict[int, list[int]]:
    """Query index -> premises of ``pool`` at ``ranks`` under the current model, positives removed."""
    was_training = module.training
    module.eval()
    corpus, pairs = dm.corpus, dm.train_set.pairs

    def encode(texts: list[str]) -> torch.Tensor:
        return torch.cat([module.embed(texts[b:b + batch_size]) for b in range(0, len(texts), batch_size)])

    premise_emb = encode([dm.passage_prefix + corpus.premises[i].text for i in pool])
    query_emb = encode([dm.query_prefix + p.query for p in pairs])
    lo, hi = ranks
    top = torch.topk(query_emb @ premise_emb.T, min(hi, len(pool)), dim=-1).indices.cpu().numpy()
    mined: dict[int, list[int]] = {}
    for i, row in enumerate(top):
        negs = [int(pool[j]) for j in row[lo:hi] if int(pool[j]) not in pairs[i].positives]
        if negs:
            mined[i] = negs
    module.train(was_training)
    return mined


class SaveSentenceTransformer(L.Callback):
    """Write the encoder as a sentence-transformers directory after each whole epoch and at the
    end. An epoch cut short by the step or time budget is not saved as ``epoch-N``: that name
    would claim a pass over all the data (``final`` and ``last.ckpt`` hold the weights)."""

    def __init__(self, out_dir: str | Path) -> None:
        self.out_dir = Path(out_dir)

    def on_train_epoch_end(self, trainer: L.Trainer, module: L.LightningModule) -> None:
        assert isinstance(module, DenseRetrieverModule)  # the module this callback is made for
        if trainer.fit_loop.epoch_loop.batch_progress.is_last_batch:
            module.encoder.save(str(self.out_dir / f"epoch-{trainer.current_epoch}"))

    def on_train_end(self, trainer: L.Trainer, module: L.LightningModule) -> None:
        assert isinstance(module, DenseRetrieverModule)  # the module this callback is made for
        module.encoder.save(str(self.out_dir / "final"))


def train_dense(corpus: Corpus, pairs: Sequence[TrainingPair], out_dir: str | Path, model: str | None = None,
                max_steps: int = 200, max_epochs: int = 1000, batch_size: int = 16, num_negatives: int = 1,
                lr: float = 2e-5, tau: float = 0.05, mine_every: int = 1, mine_ranks: tuple[int, int] = (30, 100),
                mining_pool: int | None = 20000, seed: int = 0, accelerator: str = "auto",
                progress: bool = True, max_time: str | None = None, checkpoint_every: int = 50) -> Path:
    """Train PS-2 on ``pairs``; return the directory of the final sentence-transformers checkpoint.

    ``mining_pool``: how many premises (positives always included, the rest sampled) the miner
    ranks; None ranks the whole corpus. ``max_time`` (``"DD:HH:MM:SS"``): the wall-clock budget,
    counted across resumes (Lightning's timer state is in the checkpoint). ``<out>/last.ckpt`` is
    written every ``checkpoint_every`` steps and at each epoch's end (also when the budget stops a
    run mid-epoch); when it exists, training resumes from it: weights, optimiser, scheduler, step,
    elapsed time and mined negatives (the data order of the interrupted epoch is drawn afresh).
    """
    L.seed_everything(seed, workers=True)
    out = Path(out_dir)
    module = DenseRetrieverModule(model, lr=lr, tau=tau)
    queries = fit_queries(module.encoder, QUERY_PREFIX, [p.query for p in pairs])
    pairs = [dataclasses.replace(p, query=q) for p, q in zip(pairs, queries)]
    dm = PremiseDataModule(corpus, pairs, batch_size, num_negatives, QUERY_PREFIX, PASSAGE_PREFIX, seed)
    positives = {i for p in pairs for i in p.positives}
    pool: Iterable[int]
    if mining_pool is None or mining_pool >= len(corpus):
        pool = range(len(corpus))
    else:
        others = random.Random(seed).sample(range(len(corpus)), min(len(corpus), mining_pool))
        pool = positives | set(others)
    last = ModelCheckpoint(dirpath=str(out), save_last=True, save_top_k=0, every_n_train_steps=checkpoint_every,
                           save_on_train_epoch_end=True)
    trainer = L.Trainer(
        max_steps=max_steps, max_epochs=max_epochs, max_time=max_time, accelerator=accelerator, devices=1,
        logger=L.pytorch.loggers.CSVLogger(str(out), name="", version=""),
        callbacks=[HardNegativeMiner(pool, mine_ranks, mine_every), SaveSentenceTransformer(out), last],
        enable_progress_bar=progress, log_every_n_steps=1, enable_model_summary=False, default_root_dir=str(out),
    )
    resume = out / "last.ckpt"
    trainer.fit(module, datamodule=dm, ckpt_path=str(resume) if resume.exists() else None)
    return out / "final"


def _language(target: str) -> Language:
    """The :class:`Language` that ``--language`` names by import path; a one-line error when it
    names nothing or something else."""
    with about(f"--language {target}"):
        try:
            found = load_target(target)
        except (AttributeError, ImportError) as exc:
            raise UserError(str(exc)) from exc
        if not isinstance(found, Language):
            raise UserError(f"not a search_tree.language.Language but a {type(found).__name__}")
        return found


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Train the PS-2 dense retriever with Lightning.")
    parser.add_argument("--corpus", required=True)
    parser.add_argument("--traced", nargs="*", default=[], help="traced JSON files (LeanDojo format)")
    parser.add_argument("--proofs", nargs="*", default=[], help="proofs.jsonl files (need --language)")
    parser.add_argument("--language", metavar="MODULE:ATTRIBUTE",
                        help="the corpus's search_tree.language.Language, by import path (Lean's: LEAN of "
                             "prover.lean.language), which reads the names the --proofs mention")
    parser.add_argument("--exclude", nargs="*", default=[], help="evaluation files whose theorems are never trained on")
    parser.add_argument("--out", required=True)
    parser.add_argument("--model", default=None)
    parser.add_argument("--max-steps", type=int, default=200, help="-1: no step limit (then --max-time bounds it)")
    parser.add_argument("--max-epochs", type=int, default=1000)
    parser.add_argument("--max-time", default=None, help='wall-clock budget "DD:HH:MM:SS", across resumes')
    parser.add_argument("--checkpoint-every", type=int, default=50, help="steps between last.ckpt writes")
    parser.add_argument("--accelerator", default="auto", help="Lightning accelerator: auto, cpu, gpu")
    parser.add_argument("--batch-size", type=int, default=16)
    parser.add_argument("--num-negatives", type=int, default=1)
    parser.add_argument("--lr", type=float, default=2e-5)
    parser.add_argument("--limit", type=int, default=None, help="train on a random sample of this many pairs")
    parser.add_argument("--mining-pool", type=int, default=20000, help="0: the whole corpus")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    if not args.traced and not args.proofs:
        parser.error("no training data: give --traced and/or --proofs files")
    try:  # the files are untrusted input: a bad one is a usage error naming it (exit 2), not a traceback
        corpus = Corpus.from_jsonl(args.corpus, None if args.language is None else _language(args.language))
        exclude = evaluation_theorem_names(args.exclude)
        pairs = [pair for path in [*args.traced, *args.proofs] for pair in load_pairs(path, corpus, exclude)]
    except (UserError, ValueError, FileNotFoundError) as exc:
        parser.error(one_line(exc))
    if args.limit is not None and args.limit < len(pairs):
        pairs = random.Random(args.seed).sample(pairs, args.limit)
    print(f"{len(pairs)} training pairs ({len(exclude)} evaluation theorems excluded)")
    final = train_dense(corpus, pairs, args.out, args.model, args.max_steps, args.max_epochs,
                        batch_size=args.batch_size, num_negatives=args.num_negatives, lr=args.lr,
                        mining_pool=args.mining_pool or None, seed=args.seed, accelerator=args.accelerator,
                        max_time=args.max_time, checkpoint_every=args.checkpoint_every)
    print(f"checkpoint: {final}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
