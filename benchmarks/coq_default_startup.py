"""Start-up of a worker of the default Coq prover: building its three readers of the traced stdlib.

    python -m benchmarks.coq_default_startup [--repeats 2] [--write-results]

A worker builds the kNN and proof-retrieval generators (:func:`prover.coq.default_generator.coq_default`)
and, where a run names it, the kNN premise retriever of ``sauto use:``
(:func:`prover.coq.default_generator.coq_premises`; the default's preset names none), all three over
the same traced splits (``dojo-prover trace --env coq`` fills them). Each build runs
in a fresh Python process, so that its peak resident memory is its own: once as the worker does it,
with one parse of each traced file shared by the three (:func:`retrieval.traced_file.load_traced`),
and once as the baseline, with that parse forgotten before each reader, so that every reader parses
the files itself, as each did before they shared one reader. Printed: seconds and peak RSS of each,
the median of ``--repeats`` runs, and their ratios.
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys

from prover.benchmarks.results import add_results_flag, write_results

# run in the child: build the three readers, clearing the shared parse before each when asked
_CHILD = """
import json, resource, sys, time
from generator.knn import KNNGenerator
from generator.proof_retrieval import ProofRetrievalGenerator
from prover.coq.corpus import default_corpus_path
from prover.coq.tracer import trace_files
from prover.coq.language import COQ
from retrieval.corpus import Corpus
from retrieval.neighbours import NeighbourRetriever
from retrieval.traced_file import _parse_traced

share = sys.argv[1] == "shared"
files = trace_files()
corpus = Corpus.from_jsonl(default_corpus_path(), language=COQ)
start = time.perf_counter()
for build in (lambda: KNNGenerator.from_traced(files, COQ), lambda: ProofRetrievalGenerator.from_traced(files, COQ),
              lambda: NeighbourRetriever(corpus, files, skip_unusable=True)):
    if not share:
        _parse_traced.cache_clear()
    build()
print(json.dumps({"seconds": time.perf_counter() - start,
                  "peak_mib": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024}))
"""


def measure(mode: str) -> dict[str, float]:
    """One fresh process's build in ``mode`` (``shared`` or ``separate``)."""
    out = subprocess.run([sys.executable, "-c", _CHILD, mode], capture_output=True, text=True, check=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=2)
    add_results_flag(parser)
    args = parser.parse_args(argv)
    from prover.coq.tracer import trace_files

    files = trace_files()
    if not files:
        raise SystemExit("no traced Coq stdlib here: run `dojo-prover trace --env coq` first")
    print(f"traced files: {', '.join(files)}; {args.repeats} fresh processes per mode, alternating")
    runs: dict[str, list[dict[str, float]]] = {"separate": [], "shared": []}
    for i in range(args.repeats):
        for mode in runs:
            runs[mode].append(measure(mode))
            print(f"  run {i + 1}, {mode}: {runs[mode][-1]['seconds']:.1f} s, {runs[mode][-1]['peak_mib']:.0f} MiB",
                  flush=True)
    med = {mode: {key: statistics.median(r[key] for r in rs) for key in ("seconds", "peak_mib")}
           for mode, rs in runs.items()}
    print("\n| readers of the traces | seconds to build (median) | peak RSS, MiB (median) |\n|---|---|---|")
    for mode, label in (("separate", "each parses the files (baseline)"), ("shared", "one shared parse")):
        print(f"| {label} | {med[mode]['seconds']:.1f} | {med[mode]['peak_mib']:.0f} |")
    print(f"\nshared / baseline: {med['shared']['seconds'] / med['separate']['seconds']:.2f}x the time, "
          f"{med['shared']['peak_mib'] / med['separate']['peak_mib']:.2f}x the peak memory")
    return 0


if __name__ == "__main__":
    raise SystemExit(write_results(main()))
