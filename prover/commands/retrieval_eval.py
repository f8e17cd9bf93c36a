"""Retriever ablation: R@1, R@4, R@10 and MRR of each retriever on traced tactics, as a Markdown table.

Works on any corpus in LeanDojo's corpus.jsonl format (Mathlib, the Coq standard library) and any
traced JSON in LeanDojo benchmark format; writes table.md, results.json and config.json to the
output directory; with ``--write-results NAME`` also ``benchmarks/results/NAME.md`` (command, commit,
machine and load beside the table), which is where the docs' recall figures come from.
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

from prover.benchmarks.results import add_results_flag, write_results
from search_tree.errors import UserError


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--corpus", required=True, help="corpus.jsonl (LeanDojo format)")
    parser.add_argument("--data", required=True, help="traced theorems (LeanDojo benchmark JSON)")
    parser.add_argument("--retrievers", default="bm25,mepo,sine,ps2,fusion",
                        help="comma-separated registry names (default: %(default)s)")
    parser.add_argument("--fusion", default="bm25,mepo,sine,ps2", help="members of `fusion` (default: %(default)s)")
    parser.add_argument("--ps2-model", default=None, help="sentence-transformers path (default: bundled MiniLM)")
    parser.add_argument("--ps2-index", choices=["flat", "hnsw"], default="flat")
    parser.add_argument("--mepo-p", type=float, default=0.6)
    parser.add_argument("--mepo-c", type=float, default=2.4)
    parser.add_argument("--sine-t", type=float, default=1.5, help="SInE tolerance")
    parser.add_argument("--sine-g", type=int, default=0, help="SInE generality threshold")
    parser.add_argument("--sine-d", type=int, default=None, help="SInE depth limit (default: none)")
    parser.add_argument("--knn-traces", nargs="+", default=[],
                        help="traced JSON files `knn` learns from (the --data theorems left out, but see "
                             "--knn-with-data)")
    parser.add_argument("--knn-neighbours", type=int, default=64)
    parser.add_argument("--knn-with-data", action="store_true",
                        help="index the --data theorems' proofs too (online kNN only): the online rule alone then "
                             "hides each query's own proof and the later ones, as in a prover's run")
    parser.add_argument("--knn-offline", action="store_true",
                        help="every indexed state may vote (traces held out), not only accessible proofs")
    parser.add_argument("--limit", type=int, default=None, help="evaluate a random sample of this many tactics")
    parser.add_argument("--subcorpus", type=int, default=None,
                        help="evaluate on the gold premises plus random others, this many in all")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--output-dir", default=None, help="default: runs/retrieval-<time>")
    add_results_flag(parser, markdown=True)


def run(args: argparse.Namespace) -> int:
    from prover.backends import language_of
    from retrieval.corpus import Corpus
    from retrieval.evaluation import check_output_dir, evaluation_subcorpus, premise_examples, run_ablation
    from retrieval.traced_file import load_checked

    out_dir = Path(args.output_dir or f"runs/retrieval-{time.strftime('%Y%m%d-%H%M%S')}")
    check_output_dir(out_dir)  # before the corpus and the traces are read: a wrong directory costs nothing
    corpus = Corpus.from_jsonl(args.corpus)
    if not len(corpus):  # nothing to retrieve: every retriever's index would be empty
        raise UserError(f"--corpus {args.corpus}: an empty corpus (no premises); nothing to retrieve from")
    corpus = corpus.in_language(language_of(corpus.files))
    examples = premise_examples(load_checked(args.data), corpus)
    if args.limit is not None:
        examples = examples.sample(args.limit, args.seed)
    if args.subcorpus is not None:
        corpus = evaluation_subcorpus(corpus, examples.examples, args.subcorpus, args.seed)
    names = [n for n in args.retrievers.split(",") if n]
    members = [n for n in args.fusion.split(",") if n]
    if "knn" in [*names, *(members if "fusion" in names else [])] and not args.knn_traces:
        raise UserError("retrieval-eval: the knn retriever needs --knn-traces FILE... (traced JSON to learn from)")
    if args.knn_with_data and args.knn_offline:
        raise UserError("retrieval-eval: --knn-with-data needs online kNN (no --knn-offline): offline, "
                        "every indexed proof votes, a query's own included")
    built = {
        "ps2": {"model": args.ps2_model, "index": args.ps2_index},
        "mepo": {"p": args.mepo_p, "c": args.mepo_c},
        "sine": {"t": args.sine_t, "g": args.sine_g, "d": args.sine_d},
        "knn": {"traces": args.knn_traces, "exclude": [] if args.knn_with_data else [args.data],
                "neighbours": args.knn_neighbours, "online": not args.knn_offline},
    }
    options = {**built, "fusion": {"retrievers": members, "options": built}}
    table = run_ablation(corpus, examples, names, {n: options.get(n, {}) for n in names}, out_dir,
                         config={"data": args.data, "corpus_file": args.corpus, "limit": args.limit,
                                 "subcorpus": args.subcorpus, "seed": args.seed})
    print(table)
    print(f"written to {out_dir}")
    return write_results(0)
