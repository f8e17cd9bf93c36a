"""Offline kNN vs online kNN vs online kNN + proof retrieval, same theorems, one run.

    python -m benchmarks.knn_online [--traces DIR] [--limit 20] [--timeout 10]

On a stable sample (:func:`prover.benchmarks.registry.stable_sample`) of the test-split theorems that the
Coq tracer traced in ``--traces`` (default :func:`prover.coq.tracer.traced_data_dir`), best-first
search in the real Coq backend with ``--timeout`` seconds per theorem, three generators:

* ``knn offline``: the tactics of the train split only (the split keeps test files out);
* ``knn online``: every traced split, masked per theorem to the proofs accessible from it
  (:mod:`generator.accessible`: its imports and the earlier lemmas of its own file);
* ``knn online + proofs``: that, fused (weights 1, 1) with proof retrieval
  (:mod:`generator.proof_retrieval`) over the same traces.

Prints one Markdown row per generator: proved, pass rate, mean seconds per theorem. Every proof is
verified by the backend as the search reports it.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from benchmarks.generator_pass_rate import pass_rates, print_pass_rates
from generator.registry import build_generator
from generator.traced import load_theorems


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--traces", type=Path, default=None)
    parser.add_argument("--limit", type=int, default=20)
    parser.add_argument("--timeout", type=float, default=10.0, help="seconds per theorem")
    parser.add_argument("--verbose", action="store_true", help="one line per theorem")
    args = parser.parse_args(argv)
    if args.traces is None:
        from prover.coq.tracer import traced_data_dir

        args.traces = traced_data_dir()
    splits = {s: args.traces / f"{s}.json" for s in ("train", "val", "test")}
    if not all(p.exists() for p in splits.values()):
        raise SystemExit(f"no traced splits in {args.traces}: run `dojo-prover trace --env coq --out {args.traces}`")

    from prover.benchmarks.registry import stable_sample
    from prover.coq.env import CoqEnvironment
    from prover.coq.language import COQ
    from prover.coq.stdlib import load_index
    from prover.proof_search import make_prover

    index = load_index(progress=False)
    traced_test = {(r["file_path"], r["full_name"]) for r in load_theorems(splits["test"])}
    traced_files = {f for f, _ in traced_test}
    candidates = [t for t in index.theorems([p for p in index.files if p in traced_files])
                  if (t.file_path, t.full_name) in traced_test]
    theorems = stable_sample(candidates, args.limit)
    everything = [str(p) for p in splits.values()]
    generators = {
        "knn offline (train split)": lambda: build_generator("knn", paths=str(splits["train"]), language=COQ),
        "knn online (all splits, masked)": lambda: build_generator("knn", paths=everything, language=COQ),
        "knn online + proofs": lambda: build_generator("fused", language=COQ, members=[
            {"name": "knn", "paths": everything}, {"name": "proofs", "paths": everything}]),
    }
    provers = {name: (lambda make=make: make_prover("best_first", make(), timeout=args.timeout))
               for name, make in generators.items()}
    with CoqEnvironment(index=index) as env:
        rows = pass_rates(env, provers, theorems, args.verbose)
    files = sorted({t.file_path for t in theorems})
    print(f"\n{len(theorems)} test-split theorems of {len(files)} traced files ({', '.join(files)}); "
          f"best-first, {args.timeout:g} s per theorem; traces: {args.traces}\n")
    print_pass_rates(rows, len(theorems))


if __name__ == "__main__":
    main()
