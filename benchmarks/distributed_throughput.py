"""Throughput of DistributedProver: 1 against 2 workers, or 1 against 2 Ray nodes with the same workers.

    python benchmarks/distributed_throughput.py [--env auto|coq|synthetic] [--limit N] [--ray-address ADDRESS]
    python benchmarks/distributed_throughput.py --nodes [--workers 2]

Without ``--nodes``: the speedup of 2 workers over 1 on a private local Ray (or the cluster at
``--ray-address``). With ``--nodes``: the
same workers on a Ray cluster of one node and of two nodes of this machine, each started with
``ray start`` (:class:`prover.run.local_cluster.LocalCluster`), half the CPUs each; theorems per
minute on both, and their ratio, which is what going through a cluster costs (node checks,
shipping the code, scheduling across raylets) when the machines themselves are no faster.

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
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from prover.benchmarks.results import add_results_flag, write_results  # noqa: E402
from prover.benchmarks.registry import load_benchmark  # noqa: E402
from prover.commands.eval import add_ray_address_argument  # noqa: E402
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


def measure(config: ProverConfig, tasks: list[Task], workers: int,
            ray_address: str | None = None) -> tuple[float, float, dict[str, str]]:
    """(start-up seconds, proving seconds, status per theorem) on a private Ray, or the cluster at
    ``ray_address``."""
    t0 = time.monotonic()
    with DistributedProver(config, workers, record_events=False, ray_address=ray_address) as prover:
        prover.start()
        t1 = time.monotonic()
        statuses = {o.task.theorem.full_name: o.result.status.value for o in prover.iter_results(tasks)}
        t2 = time.monotonic()
    return t1 - t0, t2 - t1, statuses


def compare_nodes(config: ProverConfig, tasks: list[Task], workers: int) -> int:
    """Theorems per minute with ``workers`` workers on a one-node and on a two-node cluster of this
    machine (half the CPUs each); 0 when both runs agree on every theorem's status."""
    from prover.run.local_cluster import LocalCluster

    os.environ.setdefault("RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER", "0")  # the driver reaches the nodes over loopback
    rows = {}
    for nodes in (1, 2):
        with tempfile.TemporaryDirectory(prefix="dojo-ray-") as tmp, LocalCluster(Path(tmp) / "ray") as cluster:
            shares = [workers // nodes + (i < workers % nodes) for i in range(nodes)]
            for i, cpus in enumerate(shares):
                cluster.add_node("head" if i == 0 else f"node{i}", cpus)
            startup, seconds, statuses = measure(config, tasks, workers, cluster.address)
        rows[nodes] = (60 * len(tasks) / seconds, statuses)
        proved = sum(s == "proved" for s in statuses.values())
        print(f"nodes={nodes} (CPUs {'+'.join(map(str, shares))}), workers={workers}: start-up {startup:5.1f}s "
              f"(node checks, code shipped, workers built), proving {seconds:6.1f}s, {rows[nodes][0]:7.1f} "
              f"theorems/min, proved {proved}/{len(tasks)}; load average {os.getloadavg()[0]:.1f} at the end")
    same = rows[1][1] == rows[2][1]
    print(f"2 nodes / 1 node, same {workers} workers: {rows[2][0] / rows[1][0]:.2f} of the throughput "
          f"(1.00: a cluster costs nothing); same status for every theorem: {same}")
    return 0 if same else 1


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--env", default="auto", choices=["auto", "coq", "synthetic"])
    parser.add_argument("--limit", type=int, default=40, help="theorems")
    parser.add_argument("--latency", type=float, default=0.01, help="synthetic: seconds per tactic")
    parser.add_argument("--nodes", action="store_true",
                        help="compare one and two Ray nodes of this machine with the same workers")
    parser.add_argument("--workers", type=int, default=2, help="with --nodes: workers in both runs (default: 2)")
    add_ray_address_argument(parser)
    add_results_flag(parser)
    args = parser.parse_args()
    if args.workers < 2:
        parser.error("--workers must be at least 2 (one per node)")
    if args.nodes and args.ray_address:
        parser.error("--nodes starts its own clusters on this machine; leave out --ray-address")
    os.environ.setdefault("RAY_AUTH_MODE", "disabled")
    env, benchmark, config = setup(args.env, args.limit, args.latency)
    tasks = [Task(t) for t in load_benchmark(benchmark, args.limit)]
    print(f"environment: {env}" + (f" (simulated prover latency {args.latency * 1000:.0f} ms per tactic)"
                                   if env == "synthetic" else "") + f"; benchmark {benchmark}, {len(tasks)} theorems;"
          f" {os.cpu_count()} CPUs; load average {os.getloadavg()[0]:.1f} at start")
    if args.nodes:
        return compare_nodes(config, tasks, args.workers)
    rows = {}
    for workers in (1, 2):
        startup, seconds, statuses = measure(config, tasks, workers, args.ray_address)
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
