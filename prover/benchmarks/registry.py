"""Benchmarks by name (``family:split``), with stable deterministic subsets.

``load_benchmark("minif2f:valid", limit=50)`` returns :class:`~search_tree.Theorem` objects. With a
limit, it takes :func:`stable_sample`, the one sampler of the library (``eval --limit``, the demo
and every benchmark script use it): the sample is the same on every machine, does not depend on
the order of the source file, and a larger limit is a superset of a smaller one (so a short run's
results stay valid when it is extended).

Families are a :class:`~search_tree.registry.Registry` of ``"module:function"`` strings called with
the split name, so a family whose backend is not installed costs nothing until it is asked for.
Each backend names its own (``Backend.benchmark_families``) and :func:`prover.backends.register`
adds them here: ``coq-stdlib`` is :func:`prover.coq.stdlib.stdlib_theorems`, the Lean families
are the loaders of :mod:`prover.benchmarks.datasets` (data under ``$DOJO_PROVER_DATA``).
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Sequence

from search_tree import Theorem
from search_tree.registry import NotInstalled, Registry, RegistryError

#: every backend's families, added by :func:`prover.backends.register`
BENCHMARKS = Registry("benchmark family")
#: the reader of a benchmark given as a JSON or JSONL file naming theorems, by the name of the
#: backend that reads such files (``Backend.theorem_lists``), added by :func:`prover.backends.register`
THEOREM_LISTS = Registry("reader of theorem lists")


class UnknownBenchmark(RegistryError):
    """The benchmark's split or its data files cannot be found (an unknown family is
    :class:`~search_tree.registry.UnknownName`; both are a :class:`RegistryError`)."""


def _digest(theorem: Theorem) -> str:
    return hashlib.sha256(f"{theorem.file_path}::{theorem.full_name}".encode()).hexdigest()


def stable_sample(theorems: Sequence[Theorem], limit: int | None = None) -> list[Theorem]:
    """The ``limit`` theorems with the smallest hash of file and name (all when ``limit`` is None),
    in the order given, so that theorems of one file stay together (and reuse one prover process)."""
    if limit is None or limit >= len(theorems):
        return list(theorems)
    chosen = {id(t) for t in sorted(theorems, key=_digest)[:max(limit, 0)]}
    return [t for t in theorems if id(t) in chosen]


def is_theorem_list(name: str) -> bool:
    """Whether the benchmark ``name`` is a file naming theorems rather than ``family:split``."""
    return name.endswith((".json", ".jsonl"))


def load_benchmark(name: str, limit: int | None = None) -> list[Theorem]:
    """The theorems of ``family:split``, or of a JSON/JSONL file naming theorems, read by the one
    backend that reads such files (:data:`THEOREM_LISTS`; Coq's:
    :func:`prover.coq.split.listed_theorems`, objects of project, file and name); ``limit`` takes a
    stable sample (see the module docstring)."""
    from prover.benchmarks.datasets import DatasetError

    if is_theorem_list(name):
        if len(THEOREM_LISTS) != 1:
            raise UnknownBenchmark(f"benchmark file {name}: {len(THEOREM_LISTS)} backends read lists of theorems "
                                   f"({', '.join(THEOREM_LISTS) or 'none'}), so the file does not say whose it is")
        return stable_sample(THEOREM_LISTS.load(next(iter(THEOREM_LISTS)))(name), limit)
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
