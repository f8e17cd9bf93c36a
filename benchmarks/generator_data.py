"""Traced data for the generator benchmarks: which data set, and its train/val split.

Default data set: Coq traces when they exist (``dojo-prover trace --env coq`` writes them under
``traces/coq``; or set ``DOJO_PROVER_COQ_TRACES``), else the shared LeanDojo sample
(``shared/data/leandojo-b4-sample/val.json`` beside the repository: 950 theorems with tactic
proofs, 2,949 traced tactics). The split is by theorem, by a hash of its name
(:func:`generator.traced.in_val_split`, 10 % to validation by default), so it is the same on
every machine and no state of a validation proof is seen in training.
"""

from __future__ import annotations

import os
from pathlib import Path

from generator.traced import TacticExample, examples, load_theorems, split_by_theorem

REPO = Path(__file__).resolve().parents[1]


def default_traced_data() -> Path:
    """Coq traces when present, else the shared LeanDojo sample."""
    candidates = [os.environ.get("DOJO_PROVER_COQ_TRACES"), REPO / "traces" / "coq",
                  REPO.parent / "shared" / "data" / "leandojo-b4-sample" / "val.json"]
    for candidate in candidates:
        if candidate and Path(candidate).exists():
            return Path(candidate)
    raise FileNotFoundError("no traced data: pass --data (a traced JSON file or directory)")


def train_val_examples(data: Path, val_percent: float,
                       seed: int = 0) -> tuple[list[dict], list[TacticExample], list[TacticExample]]:
    """(training theorems, training examples, validation examples) of ``data``."""
    theorems = [t for t in load_theorems(data) if t.get("traced_tactics")]
    train, val = split_by_theorem(theorems, val_percent, seed)
    return train, examples(train), examples(val)


def same_tactic(a: str, b: str) -> bool:
    """Exact match up to whitespace (the usual tactic-accuracy criterion)."""
    return " ".join(a.split()) == " ".join(b.split())
