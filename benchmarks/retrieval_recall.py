"""Recall table (R@1, R@10, MRR) of every retriever on LeanDojo-traced tactics, before and after a
short PS-2 training run.

Three tables:

1. the symbolic retrievers (BM25, MePo, SInE and their fusion) on the whole corpus;
2. every retriever, PS-2 with the untrained MiniLM included, on a sub-corpus: the gold premises of
   the evaluated tactics plus uniformly drawn distractors (``--subcorpus`` premises in all), because
   embedding a 131k-premise corpus on a shared 2-core CPU takes over an hour; the sub-corpus task is
   easier than the full one and the table says so;
3. PS-2 after training on ``proofs.jsonl`` (statement -> premises named in the proof; every theorem
   of the evaluation data and of miniF2F/ProofNet excluded), alone and fused, on the same sub-corpus.

Usage::

    python -m benchmarks.retrieval_recall --out runs/benchmarks/retrieval_recall
"""

from __future__ import annotations

import argparse
import json
import os
import random
import time
from pathlib import Path

from prover.benchmarks.results import add_results_flag, write_results
from prover.backends import language_of
from retrieval.corpus import Corpus
from retrieval.evaluation import evaluation_subcorpus, premise_examples, run_ablation
from retrieval.traced_file import load_traced

DATA = Path(__file__).resolve().parents[1].parent / "shared" / "data"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--corpus", default=str(DATA / "mathlib4-b2540cf9" / "corpus.jsonl"))
    parser.add_argument("--data", default=str(DATA / "leandojo-b4-sample" / "val.json"))
    parser.add_argument("--proofs", default=str(DATA / "mathlib4-b2540cf9" / "proofs.jsonl"))
    parser.add_argument("--exclude", nargs="*", default=[str(DATA / "lean-benchmarks" / "minif2f.jsonl"),
                                                          str(DATA / "lean-benchmarks" / "proofnet.jsonl")])
    parser.add_argument("--limit", type=int, default=400, help="tactics in the sub-corpus tables")
    parser.add_argument("--subcorpus", type=int, default=4000)
    parser.add_argument("--train-pairs", type=int, default=640)
    parser.add_argument("--max-steps", type=int, default=80)
    parser.add_argument("--batch-size", type=int, default=16)
    parser.add_argument("--mining-pool", type=int, default=3000)
    parser.add_argument("--skip-full", action="store_true", help="skip table 1")
    parser.add_argument("--skip-untrained", action="store_true", help="skip table 2")
    parser.add_argument("--torch-threads", type=int, default=None,
                        help="torch intra-op threads (1 helps on an oversubscribed CPU)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--out", default="runs/benchmarks/retrieval_recall")
    add_results_flag(parser, markdown=True)
    args = parser.parse_args(argv)
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    if args.torch_threads:
        import torch

        torch.set_num_threads(args.torch_threads)
    out = Path(args.out)
    corpus = Corpus.from_jsonl(args.corpus)
    corpus = corpus.in_language(language_of(corpus.files))
    traced = load_traced(args.data)
    examples = premise_examples(traced, corpus)
    fusion_sym = {"retrievers": ["bm25", "mepo", "sine"]}

    if not args.skip_full:
        print("## 1. Symbolic retrievers, whole corpus\n")
        print(run_ablation(corpus, examples, ["bm25", "mepo", "sine", "fusion"], {"fusion": fusion_sym},
                           out / "full", config={"data": args.data}), flush=True)

    sub_examples = examples.sample(args.limit, args.seed)
    sample = sub_examples.examples
    sub = evaluation_subcorpus(corpus, sample, args.subcorpus, args.seed)
    ps2_base = {"show_progress": False}
    if not args.skip_untrained:
        print(f"## 2. Every retriever, sub-corpus of {len(sub)} premises, {len(sample)} tactics, untrained PS-2\n")
        print(run_ablation(sub, sub_examples, ["bm25", "mepo", "sine", "ps2", "fusion"],
                           {"ps2": ps2_base, "fusion": {"retrievers": ["bm25", "mepo", "sine", "ps2"],
                                                       "options": {"ps2": ps2_base}}},
                           out / "subcorpus-untrained", config={"data": args.data, "subcorpus_seed": args.seed}),
              flush=True)

    from retrieval.training import train_dense
    from retrieval.training_data import evaluation_theorem_names, pairs_from_proofs

    exclude = evaluation_theorem_names([args.data, *[p for p in args.exclude if Path(p).exists()]])
    pairs = pairs_from_proofs(args.proofs, corpus, exclude)
    train = random.Random(args.seed).sample(pairs, min(args.train_pairs, len(pairs)))
    print(f"training PS-2 on {len(train)} of {len(pairs)} proofs.jsonl pairs "
          f"({len(exclude)} evaluation theorems excluded), {args.max_steps} steps", flush=True)
    t0 = time.perf_counter()
    final = train_dense(corpus, train, out / "ps2-train", max_steps=args.max_steps, batch_size=args.batch_size,
                        mining_pool=args.mining_pool, seed=args.seed, progress=False)
    train_s = time.perf_counter() - t0
    print(f"trained in {train_s:.0f} s -> {final}", flush=True)
    trained = {"model": str(final), "show_progress": False}
    print(f"\n## 3. After training, same sub-corpus ({len(sub)} premises, {len(sample)} tactics)\n")
    print(run_ablation(sub, sub_examples, ["ps2", "fusion"],
                       {"ps2": trained, "fusion": {"retrievers": ["bm25", "mepo", "sine", "ps2"],
                                                   "options": {"ps2": trained}}},
                       out / "subcorpus-trained",
                       config={"data": args.data, "model": str(final), "train_pairs": len(train),
                               "max_steps": args.max_steps, "train_seconds": train_s}), flush=True)
    (out / "benchmark.json").write_text(json.dumps(vars(args), indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(write_results(main()))
