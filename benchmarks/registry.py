"""Benchmarks by name (``family:split``), with stable deterministic subsets.

``load_benchmark("minif2f:valid", limit=50)`` returns :class:`~search_tree.Theorem` objects. With a
limit, theorems are ordered by a hash of their name and the first ``limit`` taken: the sample is
the same on every machine, does not depend on the order of the source file, and a larger limit
is a superset of a smaller one (so a short run's results stay valid when it is extended).

Families are registered as ``"module:function"`` strings called with the split name, so a family
whose backend is not installed costs nothing until it is asked for. Plug in with
:func:`register_benchmark` (the Coq backend: ``coq-stdlib`` -> a loader of its splits).

The Lean families are the loaders of :mod:`benchmarks.datasets` (data under
``$DOJO_PROVER_DATA``); ``coq-stdlib`` is :func:`prover.coq.stdlib.stdlib_theorems`.
"""

from __future__ import annotations

import hashlib
import importlib
from collections.abc import Callable

from search_tree import Theorem

BENCHMARKS: dict[str, str] = {
    "minif2f": "benchmarks.datasets:load_minif2f",  # minif2f:valid, minif2f:test
    "proofnet": "benchmarks.datasets:load_proofnet",  # proofnet:valid, proofnet:test
    "leandojo-sample": "benchmarks.datasets:load_leandojo_sample",  # leandojo-sample:val
    "leandojo": "benchmarks.datasets:load_leandojo_benchmark",  # leandojo:random/test, ...
    "coq-stdlib": "prover.coq.stdlib:stdlib_theorems",  # coq-stdlib:train|val|test
    "synthetic": "benchmarks.registry:load_synthetic",  # synthetic:N
}


class UnknownBenchmark(LookupError):
    """The benchmark name, its split, or its data files cannot be found."""


def register_benchmark(family: str, target: str) -> None:
    """Register ``"module:function"``; the function takes the split name and returns theorems."""
    BENCHMARKS[family] = target


def stable_order(theorems: list[Theorem]) -> list[Theorem]:
    """Theorems sorted by a hash of file and name: a fixed pseudo-random order."""
    return sorted(theorems, key=lambda t: hashlib.sha256(f"{t.file_path}::{t.full_name}".encode()).hexdigest())


def load_benchmark(name: str, limit: int | None = None) -> list[Theorem]:
    """The theorems of ``family:split``; ``limit`` takes a stable sample (see the module docstring)."""
    from benchmarks.datasets import DatasetError

    family, _, split = name.partition(":")
    if family not in BENCHMARKS:
        raise UnknownBenchmark(f"unknown benchmark {name!r}; families: {', '.join(sorted(BENCHMARKS))}")
    module_name, _, attr = BENCHMARKS[family].partition(":")
    try:
        loader: Callable[[str], list[Theorem]] = getattr(importlib.import_module(module_name), attr)
    except ModuleNotFoundError as exc:
        raise UnknownBenchmark(f"benchmark family {family!r} needs {module_name}, which is not installed") from exc
    try:
        theorems = stable_order(loader(split))
    except DatasetError as exc:
        raise UnknownBenchmark(str(exc)) from exc
    return theorems if limit is None else theorems[:limit]


def load_synthetic(split: str) -> list[Theorem]:
    """``synthetic:N``: N puzzles for :class:`prover.synthetic.SyntheticEnvironment` (no prover needed)."""
    try:
        count = int(split)
    except ValueError:
        raise UnknownBenchmark(f"synthetic benchmarks are named synthetic:N, not synthetic:{split}") from None
    return [Theorem(f"synthetic_{i:04d}") for i in range(count)]
