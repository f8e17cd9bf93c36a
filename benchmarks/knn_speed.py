"""Query time of the online kNN, with and without the accessibility mask, on real traced data.

    python -m benchmarks.knn_speed [--traces DIR] [--queries 300] [--k 32]

``--traces``: the Coq tracer's output directory (default :func:`prover.coq.tracer.traced_data_dir`;
``dojo-prover trace --env coq`` fills it, the whole stdlib is ~78k tactics). Every split is
indexed, as the online kNN does, with the ``corpus.jsonl`` beside them. Queries are the states of
an evenly spaced sample of the traced tactics, each asked from its own theorem. Printed, in
milliseconds per query (one state a call): the unmasked search, the mask built from scratch
(first state of a theorem), and the masked search as search sees it (mask cached per theorem).
The issue's bound: masking keeps a query under 20 ms.
"""

from __future__ import annotations

import argparse
import statistics
import time
from pathlib import Path

from search_tree.protocol import TacticState, Theorem


def percentiles(ms: list[float]) -> str:
    ordered = sorted(ms)
    p95 = ordered[min(len(ordered) - 1, int(0.95 * len(ordered)))]
    return f"median {statistics.median(ordered):7.2f} ms   p95 {p95:7.2f} ms"


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--traces", type=Path, default=None)
    parser.add_argument("--queries", type=int, default=300)
    parser.add_argument("--k", type=int, default=32)
    args = parser.parse_args(argv)
    if args.traces is None:
        from prover.coq.tracer import traced_data_dir

        args.traces = traced_data_dir()
    splits = [args.traces / f"{s}.json" for s in ("train", "val", "test") if (args.traces / f"{s}.json").exists()]
    if not splits:
        raise SystemExit(f"no traced splits in {args.traces}: run `dojo-prover trace --env coq --out {args.traces}`")

    from generator.knn import KNNGenerator

    t0 = time.perf_counter()
    gen = KNNGenerator.from_traced(splits, k=args.k)
    build = time.perf_counter() - t0
    n = len(gen.examples)
    step = max(1, n // args.queries)
    sample = [gen.examples[i] for i in range(0, n, step)][: args.queries]
    contexts = [Theorem(e.theorem, file_path=e.file_path, position=e.start) for e in sample]
    states = [TacticState(e.state, 0) for e in sample]

    unmasked, cold, masked = [], [], []
    for state, ctx in zip(states, contexts):
        t = time.perf_counter()
        gen.index.search([state.pp], gen.k)
        unmasked.append(1000 * (time.perf_counter() - t))
    gen.accessible._mask.cache_clear()
    for ctx in contexts:
        t = time.perf_counter()
        gen.accessible.mask(ctx)
        cold.append(1000 * (time.perf_counter() - t))
        gen.accessible._mask.cache_clear()
    for state, ctx in zip(states, contexts):
        gen.accessible.mask(ctx)  # search asks for the same theorem's mask at every expansion
        t = time.perf_counter()
        gen.neighbours([state], [ctx])
        masked.append(1000 * (time.perf_counter() - t))
    files = len({e.file_path for e in gen.examples})
    print(f"{n} traced tactics of {files} files from {args.traces} (index built in {build:.1f} s); "
          f"{len(sample)} queries, k={args.k}")
    print(f"search, no mask          {percentiles(unmasked)}")
    print(f"mask, built from scratch {percentiles(cold)}")
    print(f"search with mask         {percentiles(masked)}")
    print(f"search with a mask built from scratch (upper bound): median "
          f"{statistics.median(masked) + statistics.median(cold):.2f} ms")


if __name__ == "__main__":
    main()
