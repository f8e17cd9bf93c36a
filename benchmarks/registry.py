"""Benchmarks by name (``family:split``), with stable deterministic subsets.

``load_benchmark("minif2f:valid", limit=50)`` returns :class:`~search_tree.Theorem` objects. With a
limit, theorems are ordered by a hash of their name and the first ``limit`` taken: the sample is
the same on every machine, does not depend on the order of the source file, and a larger limit
is a superset of a smaller one (so a short run's results stay valid when it is extended).

Families are registered as ``"module:function"`` strings called with the split name, so a family
whose backend is not installed costs nothing until it is asked for. Plug in with
:func:`register_benchmark` (the Coq backend: ``coq-stdlib`` -> a loader of its splits).

Data files are read from ``$DOJO_PROVER_DATA`` (default: ``/work/shared/data``), laid out as
``lean-benchmarks/{minif2f,proofnet}.jsonl`` and ``leandojo-b4-sample/<split>.json``.
"""

from __future__ import annotations

import hashlib
import importlib
import json
import os
from pathlib import Path
from typing import Callable

from search_tree import Theorem

BENCHMARKS: dict[str, str] = {
    "minif2f": "benchmarks.registry:load_minif2f",
    "proofnet": "benchmarks.registry:load_proofnet",
    "leandojo": "benchmarks.registry:load_leandojo",
    "coq-stdlib": "prover.coq.benchmark:load_split",
    "synthetic": "benchmarks.registry:load_synthetic",
}


class UnknownBenchmark(LookupError):
    """The benchmark name, its split, or its data files cannot be found."""


def register_benchmark(family: str, target: str) -> None:
    """Register ``"module:function"``; the function takes the split name and returns theorems."""
    BENCHMARKS[family] = target


def data_root() -> Path:
    return Path(os.environ.get("DOJO_PROVER_DATA", "/work/shared/data"))


def _data_file(relative: str) -> Path:
    path = data_root() / relative
    if not path.exists():
        raise UnknownBenchmark(f"{path} does not exist; set DOJO_PROVER_DATA to the folder holding {relative}")
    return path


def stable_order(theorems: list[Theorem]) -> list[Theorem]:
    """Theorems sorted by a hash of file and name: a fixed pseudo-random order."""
    return sorted(theorems, key=lambda t: hashlib.sha256(f"{t.file_path}::{t.full_name}".encode()).hexdigest())


def load_benchmark(name: str, limit: int | None = None) -> list[Theorem]:
    """The theorems of ``family:split``; ``limit`` takes a stable sample (see the module docstring)."""
    family, _, split = name.partition(":")
    if family not in BENCHMARKS:
        raise UnknownBenchmark(f"unknown benchmark {name!r}; families: {', '.join(sorted(BENCHMARKS))}")
    module_name, _, attr = BENCHMARKS[family].partition(":")
    try:
        loader: Callable[[str], list[Theorem]] = getattr(importlib.import_module(module_name), attr)
    except ModuleNotFoundError as exc:
        raise UnknownBenchmark(f"benchmark family {family!r} needs {module_name}, which is not installed") from exc
    theorems = stable_order(loader(split))
    return theorems if limit is None else theorems[:limit]


def _lean_jsonl(file: str, split: str) -> list[Theorem]:
    rows = [json.loads(line) for line in _data_file(f"lean-benchmarks/{file}").read_text().splitlines() if line]
    splits = sorted({r["split"] for r in rows})
    if split not in splits:
        raise UnknownBenchmark(f"{file} has splits {', '.join(splits)}, not {split!r}")
    return [
        Theorem(r["name"], statement=r["formal_statement"],
                extra={"header": r["header"], "goal": r["goal"], "informal": r["informal_prefix"]})
        for r in rows if r["split"] == split
    ]


def load_minif2f(split: str) -> list[Theorem]:
    """miniF2F (Lean 4 statements, DeepSeek-Prover's edition): ``valid`` or ``test``."""
    return _lean_jsonl("minif2f.jsonl", split)


def load_proofnet(split: str) -> list[Theorem]:
    """ProofNet (Lean 4 statements): ``valid`` or ``test``."""
    return _lean_jsonl("proofnet.jsonl", split)


def load_leandojo(split: str) -> list[Theorem]:
    """A LeanDojo Benchmark split in traced JSON (``leandojo-b4-sample/<split>.json``)."""
    rows = json.loads(_data_file(f"leandojo-b4-sample/{split}.json").read_text())
    return [
        Theorem(r["full_name"], file_path=r["file_path"], position=tuple(r["start"]),
                extra={"url": r["url"], "commit": r["commit"], "num_traced_tactics": len(r["traced_tactics"])})
        for r in rows
    ]


def load_synthetic(split: str) -> list[Theorem]:
    """``synthetic:N``: N puzzles for :class:`prover.synthetic.SyntheticEnvironment` (no prover needed)."""
    try:
        count = int(split)
    except ValueError:
        raise UnknownBenchmark(f"synthetic benchmarks are named synthetic:N, not synthetic:{split}") from None
    return [Theorem(f"synthetic_{i:04d}") for i in range(count)]
