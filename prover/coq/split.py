"""The benchmark split of the stdlib: by file, deterministic, shipped in ``data/stdlib_split.json``."""

from __future__ import annotations

import functools
import hashlib
import json
from pathlib import Path

from search_tree.protocol import Theorem

from .index import StdlibIndex, load_index
from .install import module_name

SPLITS = ("train", "val", "test")
SPLIT_FILE = Path(__file__).parent / "data" / "stdlib_split.json"


def split_of(path: str) -> str:
    """The split of a stdlib file: by SHA-256 of its logical module name, 80% train, 10% val, 10% test.

    Splitting by file (not by theorem) keeps a test theorem's neighbours, which often restate it,
    out of the training data; hashing the name makes the split independent of file order and of
    files added later.
    """
    bucket = int(hashlib.sha256(module_name(path).encode()).hexdigest(), 16) % 100
    return "train" if bucket < 80 else "val" if bucket < 90 else "test"


def compute_split(paths: list[str]) -> dict[str, list[str]]:
    """The split of ``paths`` as stored in :data:`SPLIT_FILE`."""
    out: dict[str, list[str]] = {s: [] for s in SPLITS}
    for p in sorted(paths):
        out[split_of(p)].append(p)
    return out


@functools.lru_cache(maxsize=1)
def load_split() -> dict[str, list[str]]:
    """The shipped split: ``{"train": [file paths], "val": [...], "test": [...]}`` (paths under theories/)."""
    data = json.loads(SPLIT_FILE.read_text())
    return {s: data[s] for s in SPLITS}


def stdlib_theorems(split: str | None = None, index: StdlibIndex | None = None) -> list[Theorem]:
    """The benchmark: theorems with a Qed/Defined proof in the files of ``split`` (all when ``None``)."""
    index = index or load_index()
    if split is None:
        return index.theorems()
    if split not in SPLITS:
        raise ValueError(f"unknown split {split!r}; expected one of {SPLITS}")
    wanted = set(load_split()[split])
    return index.theorems([p for p in index.files if p in wanted])


def short_theorems(split: str, max_sentences: int, index: StdlibIndex | None = None) -> list[Theorem]:
    """The theorems of ``split`` whose library proof has at most ``max_sentences`` sentences
    (``Proof.`` included): the population that the demo and cheap measurements draw from."""
    index = index or load_index()
    return [t for t in stdlib_theorems(split, index) if _proof_length(index, t) <= max_sentences]


def _proof_length(index: StdlibIndex, theorem: Theorem) -> int:
    """Sentences of the library's own proof of ``theorem`` (``Proof.`` included)."""
    entry = next(e for e in index.file(theorem.file_path).theorems if e.offset == theorem.extra["offset"])
    return len(entry.proof)
