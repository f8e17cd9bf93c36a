"""Generation throughput on CPU: states per second, in batches of 16.

    python -m benchmarks.generator_throughput [--data TRACES] [--checkpoint HF_DIR] [--threads 1]

States are the validation states of the traced data (see benchmarks/generator_data.py), each
generator asked for ``--samples`` tactics per state (beam width for the model). Without
``--checkpoint`` the model row uses an untrained model of generator/configs/tiny.yaml's size: the
speed of a model depends on its size and the length of what it writes, not on its training, but
an untrained model writes until ``max_target_len`` and so measures the slow end. One warm-up
batch is not timed.
"""

from __future__ import annotations

import argparse
import tempfile
import time
from pathlib import Path

from prover.benchmarks.results import add_results_flag, write_results
from benchmarks.generator_data import REPO, default_traced_data, train_val_examples
from generator.base import TacticGenerator
from generator.traced import TacticExample
from search_tree.protocol import TacticState, Theorem


def states_per_second(generator: TacticGenerator, val: list[TacticExample], batch: int, samples: int,
                      batches: int) -> float:
    chunks = [val[i:i + batch] for i in range(0, batch * (batches + 1), batch)]
    chunks = [c for c in chunks if len(c) == batch]
    if len(chunks) < 2:
        raise ValueError("not enough validation states for a warm-up batch and a timed one")

    def run(chunk: list[TacticExample]) -> None:
        generator.batch_generate([TacticState(ex.state, i) for i, ex in enumerate(chunk)],
                                 [Theorem(ex.theorem) for ex in chunk], samples)

    run(chunks[0])
    start = time.perf_counter()
    for chunk in chunks[1:]:
        run(chunk)
    return batch * (len(chunks) - 1) / (time.perf_counter() - start)


def untrained_tiny(directory: Path) -> Path:
    import yaml

    from generator.policy_value import PolicyValueModel

    config = yaml.safe_load((REPO / "generator" / "configs" / "tiny.yaml").read_text())
    return PolicyValueModel(**config["model"]).save_hf(directory)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--data", type=Path, default=None)
    parser.add_argument("--checkpoint", type=Path, default=None, help="HF export of a trained policy")
    parser.add_argument("--batch", type=int, default=16)
    parser.add_argument("--samples", type=int, default=8)
    parser.add_argument("--batches", type=int, default=4, help="timed batches per generator")
    parser.add_argument("--threads", type=int, default=None, help="torch threads")
    add_results_flag(parser, markdown=True)
    args = parser.parse_args(argv)

    data = args.data or default_traced_data()
    _, train, val = train_val_examples(data, 10.0)
    from generator.knn import KNNGenerator
    from generator.template import TemplateGenerator
    from prover.coq.language import COQ

    rows = [("template (coq, no retriever)", TemplateGenerator("coq")), ("knn (BM25, k=32)", KNNGenerator(train, COQ))]
    import torch

    from generator.hf import HFGenerator

    if args.threads:
        torch.set_num_threads(args.threads)
    with tempfile.TemporaryDirectory() as tmp:
        checkpoint = args.checkpoint or untrained_tiny(Path(tmp) / "tiny")
        label = "trained" if args.checkpoint else "untrained tiny"
        rows.append((f"hf ({label}, beam {args.samples})", HFGenerator(checkpoint, strategy="beam")))
        rows.append((f"hf ({label}, sampling {args.samples})", HFGenerator(checkpoint, strategy="sample")))
        print(f"data: {data}; batch {args.batch}, {args.samples} tactics per state, "
              f"torch threads {torch.get_num_threads()}\n")
        print("| generator | states/s |\n|---|---|")
        for name, generator in rows:
            print(f"| {name} | {states_per_second(generator, val, args.batch, args.samples, args.batches):.1f} |")


if __name__ == "__main__":
    main()
    write_results()
