"""Benchmarks by name (``family:split``), with stable deterministic subsets.

``load_benchmark("minif2f:valid", limit=50)`` returns :class:`~search_tree.Theorem` objects. With a
limit, it takes :func:`stable_sample`, the one sampler of the library (``eval --limit``, the demo
and every benchmark script use it): the sample is the same on every machine, does not depend on
the order of the source file, and a larger limit is a superset of a smaller one (so a short run's
results stay valid when it is extended).

Families are a :class:`~search_tree.registry.Registry` of ``"module:function"`` strings called with
the split name, so a family whose backend is not installed costs nothing until it is asked for.
Plug in with :func:`register_benchmark` (the Coq backend: ``coq-stdlib`` -> a loader of its splits).

The Lean families are the loaders of :mod:`prover.benchmarks.datasets` (data under
``$DOJO_PROVER_DATA``); ``coq-stdlib`` is :func:`prover.coq.stdlib.stdlib_theorems`.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Sequence

from search_tree import Theorem
from search_tree.registry import NotInstalled, Registry, RegistryError, load_target

BENCHMARKS = Registry("benchmark family", {
    "minif2f": "prover.benchmarks.datasets:load_minif2f",  # minif2f:valid, minif2f:test
    "proofnet": "prover.benchmarks.datasets:load_proofnet",  # proofnet:valid, proofnet:test
    "leandojo-sample": "prover.benchmarks.datasets:load_leandojo_sample",  # leandojo-sample:val
    "leandojo": "prover.benchmarks.datasets:load_leandojo_benchmark",  # leandojo:random/test, ...
    "coq-stdlib": "prover.coq.stdlib:stdlib_theorems",  # coq-stdlib:train|val|test
    "coq-project": "prover.coq.split:coq_project_benchmark",  # coq-project:PATH[:train|val|test]
    "coq-lib": "prover.coq.split:coq_lib_benchmark",  # coq-lib:NAME[:train|val|test]
    "synthetic": "prover.benchmarks.registry:load_synthetic",  # synthetic:N
})


class UnknownBenchmark(RegistryError):
    """The benchmark's split or its data files cannot be found (an unknown family is
    :class:`~search_tree.registry.UnknownName`; both are a :class:`RegistryError`)."""


def register_benchmark(family: str, target: str) -> None:
    """Register ``"module:function"``; the function takes the split name and returns theorems."""
    BENCHMARKS.register(family, target)


def _digest(theorem: Theorem) -> str:
    return hashlib.sha256(f"{theorem.file_path}::{theorem.full_name}".encode()).hexdigest()


def stable_sample(theorems: Sequence[Theorem], limit: int | None = None) -> list[Theorem]:
    """The ``limit`` theorems with the smallest hash of file and name (all when ``limit`` is None),
    in the order given, so that theorems of one file stay together (and reuse one prover process)."""
    if limit is None or limit >= len(theorems):
        return list(theorems)
    chosen = {id(t) for t in sorted(theorems, key=_digest)[:max(limit, 0)]}
    return [t for t in theorems if id(t) in chosen]


def load_benchmark(name: str, limit: int | None = None) -> list[Theorem]:
    """The theorems of ``family:split``, or of a JSON/JSONL file listing Coq theorems (project,
    file, name: :func:`prover.coq.split.listed_theorems`); ``limit`` takes a stable sample (see
    the module docstring)."""
    from prover.benchmarks.datasets import DatasetError

    if name.endswith((".json", ".jsonl")):
        return stable_sample(load_target("prover.coq.split:listed_theorems")(name), limit)
    family, _, split = name.partition(":")
    try:
        loader: Callable[[str], list[Theorem]] = BENCHMARKS.load(family)
    except NotInstalled as exc:
        raise UnknownBenchmark(f"benchmark family {family!r}: {exc}") from exc
    try:
        return stable_sample(loader(split), limit)
    except DatasetError as exc:
        raise UnknownBenchmark(str(exc)) from exc


def load_synthetic(split: str) -> list[Theorem]:
    """``synthetic:N``: N puzzles for :class:`prover.synthetic.SyntheticEnvironment` (no prover needed)."""
    try:
        count = int(split)
    except ValueError:
        raise UnknownBenchmark(f"synthetic benchmarks are named synthetic:N, not synthetic:{split}") from None
    from prover.synthetic import synthetic_theorems

    return synthetic_theorems(count)
