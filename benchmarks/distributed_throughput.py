"""Throughput of DistributedProver with 1 and 2 workers on the same theorems; prints the speedup.

    python benchmarks/distributed_throughput.py [--env auto|coq|synthetic] [--limit N]

``auto`` uses the Coq backend on ``coq-stdlib:test`` when ``prover.coq`` is installed (with the
template generator when it is registered, else a fixed list of Coq tactics), otherwise
the synthetic backend (:mod:`prover.synthetic`) with a simulated prover latency per tactic; the
output says which. Proving time is measured after the workers are up, so Ray's start-up (seconds,
paid once per run) is reported separately. Both runs must agree on every theorem's status.
"""

from __future__ import annotations

import argparse
import importlib.util
import os
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchmarks.results import add_results_flag, write_results  # noqa: E402
from benchmarks.registry import load_benchmark  # noqa: E402
from prover.run.distributed import DistributedProver, Task  # noqa: E402
from prover.registry import ComponentSpec, ProverConfig, generators  # noqa: E402

COQ_TACTICS = ["intros.", "auto.", "lia.", "reflexivity.", "simpl.", "split.", "trivial.", "easy.",
               "congruence.", "firstorder."]


def setup(env: str, limit: int, latency: float) -> tuple[str, str, ProverConfig]:
    if env == "auto":
        env = "coq" if importlib.util.find_spec("prover.coq") else "synthetic"
    if env == "coq":
        generator = ComponentSpec("template") if "template" in generators() else ComponentSpec("fixed", {"tactics": COQ_TACTICS})
        config = ProverConfig(ComponentSpec("coq"), ComponentSpec("best_first", {"timeout": 20, "max_expansions": 8}),
                              generator)
        return "coq", "coq-stdlib:test", config
    config = ProverConfig(ComponentSpec("synthetic", {"latency": latency}),
                          ComponentSpec("best_first", {"timeout": 60, "max_expansions": 12}),
                          ComponentSpec("synthetic"))
    return "synthetic", f"synthetic:{limit}", config


def measure(config: ProverConfig, tasks: list[Task], workers: int) -> tuple[float, float, dict[str, str]]:
    """(start-up seconds, proving seconds, status per theorem)."""
    t0 = time.monotonic()
    with DistributedProver(config, workers, record_events=False) as prover:
        prover.start()
        t1 = time.monotonic()
        statuses = {o.task.theorem.full_name: o.result.status.value for o in prover.iter_results(tasks)}
        t2 = time.monotonic()
    return t1 - t0, t2 - t1, statuses


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--env", default="auto", choices=["auto", "coq", "synthetic"])
    parser.add_argument("--limit", type=int, default=40, help="theorems")
    parser.add_argument("--latency", type=float, default=0.01, help="synthetic: seconds per tactic")
    add_results_flag(parser)
    args = parser.parse_args()
    os.environ.setdefault("RAY_AUTH_MODE", "disabled")
    env, benchmark, config = setup(args.env, args.limit, args.latency)
    tasks = [Task(t) for t in load_benchmark(benchmark, args.limit)]
    print(f"environment: {env}" + (f" (simulated prover latency {args.latency * 1000:.0f} ms per tactic)"
                                   if env == "synthetic" else "") + f"; benchmark {benchmark}, {len(tasks)} theorems;"
          f" {os.cpu_count()} CPUs; load average {os.getloadavg()[0]:.1f} at start")
    rows = {}
    for workers in (1, 2):
        startup, seconds, statuses = measure(config, tasks, workers)
        rows[workers] = (seconds, statuses)
        proved = sum(s == "proved" for s in statuses.values())
        print(f"workers={workers}: start-up {startup:5.1f}s, proving {seconds:6.1f}s, "
              f"{len(tasks) / seconds:6.2f} theorems/s, proved {proved}/{len(tasks)}; "
              f"load average {os.getloadavg()[0]:.1f} at the end")
    same = rows[1][1] == rows[2][1]
    speedup = rows[1][0] / rows[2][0]
    print(f"speedup 2 vs 1 workers: {speedup:.2f}x (target >= 1.7x: {'met' if speedup >= 1.7 else 'NOT met'}); "
          f"same status for every theorem: {same}")
    return 0 if same else 1


if __name__ == "__main__":
    sys.exit(write_results(main()))
