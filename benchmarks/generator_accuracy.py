"""Tactic accuracy of the generators and value-head error, on the validation split of traced data.

    python -m benchmarks.generator_accuracy [--data TRACES] [--checkpoint HF_DIR | --train-minutes 10]
    python -m benchmarks.generator_accuracy --coq-splits --max-states 1000 --checkpoint runs/policy/coq-tiny/hf

``--coq-splits``: train on the Coq tracer's ``train.json`` and measure on its ``val.json``
(:func:`prover.coq.tracer.traced_data_dir`; by file, as the tracer split them) instead of a hash
split of ``--data``; ``--val-data`` names another validation file. ``--max-states N`` measures on
an evenly spaced sample of N validation states.

Top-1 / top-k: the fraction of validation states whose traced tactic (up to whitespace) is the
generator's first / among its first k suggestions. This is a strict measure (a different tactic
that also works counts as a miss); pass rates with search (benchmarks/generator_pass_rate.py) are
the measure that matters. Rows: ``template`` (Coq templates without a retriever; only meaningful
on Coq data), ``knn`` (BM25 over the training states), ``model`` (the policy-value model, from
``--checkpoint`` or trained here on the training split with generator/configs/tiny.yaml).

Value: mean absolute error, in tactic steps, against the traced labels
(:func:`generator.traced.remaining_steps`) of the value head's expected remaining steps (what MCTS
reads) and of the median of its predicted bins, next to constant predictors (the training labels'
median and mean).
"""

from __future__ import annotations

import argparse
import statistics
import time
from collections import Counter
from pathlib import Path

from prover.benchmarks.results import add_results_flag, write_results
from benchmarks.generator_data import REPO, default_traced_data, same_tactic, train_val_examples
from generator.base import TacticGenerator
from generator.traced import TacticExample, examples, load_theorems
from search_tree.protocol import TacticState, Theorem


def accuracy(generator: TacticGenerator, val: list[TacticExample], k: int,
             batch_size: int = 16) -> tuple[float, float, float, str]:
    """(top-1, top-k, seconds, most frequent first suggestions) of ``generator`` on ``val``."""
    top1 = topk = 0
    firsts: Counter[str] = Counter()
    start = time.perf_counter()
    for i in range(0, len(val), batch_size):
        chunk = val[i:i + batch_size]
        states = [TacticState(ex.state, j) for j, ex in enumerate(chunk)]
        contexts = [Theorem(ex.theorem, file_path=ex.file_path) for ex in chunk]
        for ex, suggestions in zip(chunk, generator.batch_generate(states, contexts, k)):
            tactics = [t for t, _ in suggestions]
            firsts.update(tactics[:1])
            top1 += bool(tactics) and same_tactic(tactics[0], ex.tactic)
            topk += any(same_tactic(t, ex.tactic) for t in tactics[:k])
    seconds = time.perf_counter() - start
    common = ", ".join(f"`{t}` {n / len(val):.0%}" for t, n in firsts.most_common(2))
    return top1 / len(val), topk / len(val), seconds, common


def _duration(minutes: float) -> str:
    """Lightning's ``DD:HH:MM:SS``."""
    seconds = int(minutes * 60)
    return f"{seconds // 86400:02d}:{seconds // 3600 % 24:02d}:{seconds // 60 % 60:02d}:{seconds % 60:02d}"


def train_tiny(data: Path, run_dir: Path, minutes: float, val_percent: float, seed: int) -> Path:
    """Train generator/configs/tiny.yaml on the training split; returns the HF export directory.

    The data module re-splits ``data`` with the same hash split, so the benchmark's validation
    theorems stay out of training.
    """
    from generator.train import main

    main(["fit", "--config", str(REPO / "generator" / "configs" / "tiny.yaml"), "--data.train_path", str(data),
          "--data.val_percent", str(val_percent), "--data.split_seed", str(seed), "--run_dir", str(run_dir),
          "--trainer.max_time", _duration(minutes), "--trainer.max_steps", "-1"])
    return run_dir / "hf"


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--data", type=Path, default=None, help="traced JSON file or directory")
    parser.add_argument("--val-percent", type=float, default=10.0)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("-k", type=int, default=8, help="top-k (beam width for the model)")
    parser.add_argument("--checkpoint", type=Path, default=None, help="an HF export of a trained policy")
    parser.add_argument("--train-minutes", type=float, default=0.0, help="train tiny.yaml for this long first")
    parser.add_argument("--run-dir", type=Path, default=REPO / "runs" / "bench-policy")
    parser.add_argument("--max-model-states", type=int, default=None, help="evaluate the model on the first N states")
    parser.add_argument("--threads", type=int, default=None, help="torch threads")
    parser.add_argument("--val-data", type=Path, default=None, help="validation traces (then --data is all training)")
    parser.add_argument("--coq-splits", action="store_true", help="the Coq tracer's train.json and val.json")
    parser.add_argument("--max-states", type=int, default=None, help="an evenly spaced sample of N val states")
    add_results_flag(parser, markdown=True)
    args = parser.parse_args(argv)

    if args.coq_splits:
        from prover.coq.tracer import traced_data_dir

        args.data, args.val_data = traced_data_dir() / "train.json", traced_data_dir() / "val.json"
    data = args.data or default_traced_data()
    if args.val_data:
        train_theorems = [t for t in load_theorems(data) if t.get("traced_tactics")]
        train, val = examples(train_theorems), examples(load_theorems(args.val_data))
    else:
        train_theorems, train, val = train_val_examples(data, args.val_percent, args.seed)
    val = [ex for ex in val if ex.tactic.strip()]
    if args.max_states and len(val) > args.max_states:
        val = [val[i * len(val) // args.max_states] for i in range(args.max_states)]
    print(f"data: {data}{f', val: {args.val_data}' if args.val_data else ''}\n"
          f"train: {len(train_theorems)} theorems, {len(train)} tactics; val: {len(val)} tactics")
    rows = []

    from generator.knn import KNNGenerator
    from generator.template import TEMPLATE_SETS, TemplateGenerator
    from prover.backends import language_of

    language = language_of({ex.file_path for ex in train})
    if language is None:
        raise SystemExit(f"{data}: the traced files are not all of one backend's language")
    if f"{language.name}:FITTED" in TEMPLATE_SETS:  # the backend's stock templates, and their fitted priors
        rows.append(("template (no retriever)", *accuracy(TemplateGenerator(language.name), val, args.k)))
        rows.append(("template, fitted priors (no retriever)",
                     *accuracy(TemplateGenerator(f"{language.name}:FITTED"), val, args.k)))
    rows.append(("knn (BM25, k=32)", *accuracy(KNNGenerator(train, language), val, args.k)))

    value_rows = []
    checkpoint = args.checkpoint
    if checkpoint is None and args.train_minutes > 0:
        if args.threads:
            import torch

            torch.set_num_threads(args.threads)
        checkpoint = train_tiny(data, args.run_dir, args.train_minutes, args.val_percent, args.seed)
    if checkpoint is not None:
        import torch

        from generator.hf import HFGenerator
        from generator.policy_value import PolicyValueModel

        if args.threads:
            torch.set_num_threads(args.threads)
        model_val = val[: args.max_model_states] if args.max_model_states else val
        rows.append((f"model ({checkpoint.parent.name}, beam {args.k})",
                     *accuracy(HFGenerator(checkpoint, strategy="beam"), model_val, args.k, batch_size=8)))
        value_fn = PolicyValueModel.from_hf(checkpoint)
        dists = torch.cat([value_fn.value_distribution([ex.state for ex in val[i:i + 32]]) for i in range(0, len(val), 32)])
        expected = (dists @ value_fn.bin_values).tolist()
        # the median of the predicted distribution: the estimate that minimises absolute error
        medians = value_fn.bin_values[(dists.cumsum(-1) < 0.5).sum(-1).clamp(max=dists.shape[1] - 1)].tolist()
        truth = [ex.remaining_steps for ex in val]
        train_labels = [ex.remaining_steps for ex in train]
        median, mean = statistics.median(train_labels), statistics.fmean(train_labels)
        value_rows = [
            ("value head: expectation (what MCTS reads)", statistics.fmean(abs(p - t) for p, t in zip(expected, truth))),
            ("value head: median of the predicted bins", statistics.fmean(abs(p - t) for p, t in zip(medians, truth))),
            (f"constant: training median ({median:g})", statistics.fmean(abs(median - t) for t in truth)),
            (f"constant: training mean ({mean:.2f})", statistics.fmean(abs(mean - t) for t in truth)),
        ]

    print(f"\n| generator | top-1 | top-{args.k} | seconds | most frequent first suggestions |\n|---|---|---|---|---|")
    for name, t1, tk, secs, common in rows:
        print(f"| {name} | {t1:.3f} | {tk:.3f} | {secs:.1f} | {common} |")
    if value_rows:
        print(f"\n| remaining-steps estimate | MAE (steps) on {len(val)} val states |\n|---|---|")
        for name, mae in value_rows:
            print(f"| {name} | {mae:.2f} |")


if __name__ == "__main__":
    main()
    write_results()
