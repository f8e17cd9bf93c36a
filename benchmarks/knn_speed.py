"""Query time of the online kNN, with and without the accessibility mask, on real traced data.

    python -m benchmarks.knn_speed [--traces DIR_OR_FILE ...] [--corpus corpus.jsonl] [--queries 300] [--k 32]

``--traces``: the Coq tracer's output directory (default :func:`prover.coq.tracer.traced_data_dir`;
``dojo-prover trace --env coq`` fills it, the whole stdlib is ~78k tactics), whose split files are
all indexed, as the online kNN does, with the ``corpus.jsonl`` beside them; or traced files and
directories (e.g. the tracer's per-file cache ``DIR/files`` of a trace still under way) with
``--corpus``. Queries are the states of
an evenly spaced sample of the traced tactics, each asked from its own theorem. Printed, in
milliseconds per query (one state a call): the unmasked search, the mask built from scratch
(first state of a theorem), and the masked search as search sees it (mask cached per theorem),
beside the baseline measured in the same run: bm25s's own ``get_scores`` for the same states, which
the index replaced (it adds a token's postings once per occurrence). The target: masking
keeps a query under 20 ms. ``--write-results`` writes ``benchmarks/results/knn_speed.md``.
"""

from __future__ import annotations

import argparse
import statistics
import time
from collections.abc import Callable
from pathlib import Path

from prover.benchmarks.results import add_results_flag, write_results
from search_tree.protocol import TacticState, Theorem


def percentiles(ms: list[float]) -> str:
    ordered = sorted(ms)
    p95 = ordered[min(len(ordered) - 1, int(0.95 * len(ordered)))]
    return f"median {statistics.median(ordered):7.2f} ms   p95 {p95:7.2f} ms"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--traces", type=Path, nargs="+", default=None)
    parser.add_argument("--corpus", type=Path, default=None, help="default: corpus.jsonl beside the traces")
    parser.add_argument("--queries", type=int, default=300)
    parser.add_argument("--k", type=int, default=32)
    add_results_flag(parser)
    args = parser.parse_args(argv)
    if args.traces is None:
        from prover.coq.tracer import traced_data_dir

        args.traces = [traced_data_dir()]
    splits = [p / f"{s}.json" for p in args.traces if p.is_dir() for s in ("train", "val", "test") if (p / f"{s}.json").exists()]
    splits = splits or args.traces
    if not all(p.exists() for p in splits):
        raise SystemExit(f"no traces at {args.traces}: run `dojo-prover trace --env coq --out DIR`")

    from generator.knn import KNNGenerator
    from prover.coq.language import COQ
    from retrieval.state_index import BM25StateIndex, tokenize

    t0 = time.perf_counter()
    gen = KNNGenerator.from_traced(splits, COQ, k=args.k, corpus=args.corpus)
    bm25 = gen.index._bm25 if isinstance(gen.index, BM25StateIndex) else None
    assert bm25 is not None  # the kNN's default index, whose bm25s scoring is timed on its own below
    build = time.perf_counter() - t0
    n = len(gen.examples)
    step = max(1, n // args.queries)
    sample = [gen.examples[i] for i in range(0, n, step)][: args.queries]
    contexts = [Theorem(e.theorem, file_path=e.file_path, position=e.start) for e in sample]
    states = [TacticState(e.state, 0) for e in sample]

    # interleaved, so that the load of a shared machine weighs on both alike; CPU time of this
    # process beside wall-clock, since other processes' load inflates only the latter
    timings: dict[str, list[float]] = {"bm25s get_scores (baseline)": [], "search, no mask": [],
                                       "mask, built from scratch": [], "search with mask": []}
    cpu: dict[str, list[float]] = {name: [] for name in timings}
    runs: list[tuple[str, Callable[[TacticState, Theorem], object]]] = [
        ("bm25s get_scores (baseline)", lambda s, _: bm25.get_scores(tokenize(s.pp) or ["⊢"])),
        ("search, no mask", lambda s, _: gen.index.search([s.pp], gen.k)),
        ("mask, built from scratch", lambda _, c: gen.accessible.mask(c)),
        ("search with mask", lambda s, c: gen.neighbours([s], [c]))]  # mask cached, as in search
    for state, ctx in zip(states, contexts):
        gen.accessible._mask.cache_clear()
        for name, call in runs:
            t, c = time.perf_counter(), time.process_time()
            call(state, ctx)
            timings[name].append(1000 * (time.perf_counter() - t))
            cpu[name].append(1000 * (time.process_time() - c))
    files = len({e.file_path for e in gen.examples})
    print(f"{n} traced tactics of {files} files from {', '.join(map(str, args.traces))} (index built in {build:.1f} s); "
          f"{len(sample)} queries, k={args.k}")
    for name in timings:
        print(f"{name:<28} wall {percentiles(timings[name])}   cpu {percentiles(cpu[name])}")
    base, new = (statistics.median(cpu[name]) for name in ("bm25s get_scores (baseline)", "search, no mask"))
    print(f"median CPU time of a search against the baseline: {base / new:.1f}x faster")
    return 0

if __name__ == "__main__":
    raise SystemExit(write_results(main()))
