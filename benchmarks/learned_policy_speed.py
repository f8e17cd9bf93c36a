"""Inference time of the learned policy and value (generator/learned_policy.py) on one CPU core.

    python -m benchmarks.learned_policy_speed --checkpoint RUN/round-1/policy.pt --data RUN/round-0/data.jsonl

Each state of the search data (``dojo-prover learn`` writes ``round-K/data.jsonl``) is scored as
the search scores it: the policy over all the candidates the search tried on it, and the value of
the state, in one thread (``torch.set_num_threads(1)``). Printed: milliseconds per state (median,
p95, max) with the candidates per state, and the checkpoint's size. The target: under 5 ms
per state on one core, and a checkpoint of a few MB. ``--write-results`` writes
``benchmarks/results/learned_policy_speed.md``.
"""

from __future__ import annotations

import argparse
import statistics
import time
from pathlib import Path

from prover.benchmarks.results import add_results_flag, write_results


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--checkpoint", type=Path, required=True)
    parser.add_argument("--data", type=Path, required=True, help="search data: a learn round's data.jsonl")
    parser.add_argument("--states", type=int, default=500, help="at most this many states, evenly spaced")
    add_results_flag(parser)
    args = parser.parse_args(argv)

    import torch

    from generator.action_data import read_data
    from generator.learned_policy import LearnedPolicy

    torch.set_num_threads(1)
    policy = LearnedPolicy.load(args.checkpoint)
    _, searches = read_data(args.data)
    states = []
    for search in searches:
        tried: dict[int, list] = {}
        for a in search.attempts:
            tried.setdefault(a.state, []).append((a.tactic, a.member, a.prior))
        states += [(search.states[i].text, candidates) for i, candidates in tried.items()]
    step = max(1, len(states) // args.states)
    states = states[::step][:args.states]
    if not states:
        parser.error(f"{args.data} holds no state with a tried tactic")
    for text, candidates in states[:20]:  # warm-up: the first calls allocate
        policy.score_text(text, candidates)
    ms = []
    for text, candidates in states:
        t0 = time.perf_counter()
        policy.score_text(text, candidates)
        policy.costs([text])
        ms.append(1000 * (time.perf_counter() - t0))
    ordered = sorted(ms)
    sizes = sorted(len(c) for _, c in states)
    print(f"checkpoint {args.checkpoint}: {args.checkpoint.stat().st_size / 2**20:.2f} MiB, "
          f"{sum(p.numel() for p in policy.net.parameters()):,} parameters")
    print(f"states: {len(states)} of {args.data}, candidates per state: median {statistics.median(sizes):.0f}, "
          f"max {sizes[-1]}")
    print(f"policy + value per state, 1 thread: median {statistics.median(ordered):.2f} ms, "
          f"p95 {ordered[min(len(ordered) - 1, int(0.95 * len(ordered)))]:.2f} ms, max {ordered[-1]:.2f} ms")
    return 0


if __name__ == "__main__":
    status = main()
    raise SystemExit(write_results(status))
