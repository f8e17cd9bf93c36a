"""MCTS versus best-first search: pass rates under the same generator and environment-call budget.

    python benchmarks/mcts_vs_best_first.py --env scripted --theorems 60
    python benchmarks/mcts_vs_best_first.py --env coq --split test --theorems 50

Both provers get the same generator, the same number of sampled tactics per call and the same
budget of environment calls (``--max-env-calls``; MCTS's focus calls count towards it, as
:class:`search_tree.budget.Meter` does, and are also reported apart). For each algorithm the script
prints the pass rate and the *search overhead*: the share of
search wall time spent outside the environment, the generator and the value function (target:
under 10%).

``--env scripted`` runs the synthetic backend of :mod:`prover.synthetic` (random proof
trees with splits, evars, detours and simulated latencies; its generator greedy): it measures the search, not a prover.
``--env coq`` runs a stable sample (:func:`prover.benchmarks.registry.stable_sample`) of a Coq standard
library split through ``prover.coq.env.CoqEnvironment`` (which focuses goals for MCTS with ``n: {``)
with the scored baseline generator (:func:`prover.coq.templates.automation_generator`) (``--generator fixed``: the
unscored ``COQ_TACTICS``).
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from typing import Any
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from prover.benchmarks.results import add_results_flag, write_results  # noqa: E402
from generator import FixedTacticGenerator  # noqa: E402
from generator.base import TacticGenerator  # noqa: E402
from prover.proof_search import make_prover  # noqa: E402
from search_tree import Environment, MCTSConfig, SearchResult, Status, Theorem  # noqa: E402

ALGORITHMS = ("best_first", "mcts")
OR_MCTS = "mcts_no_split"  # the ablation without AND nodes (--ablate-split)

COQ_TACTICS = [
    "intros.", "auto.", "split.", "reflexivity.", "simpl.", "trivial.", "assumption.", "constructor.",
    "easy.", "lia.", "intuition.", "firstorder.", "congruence.", "left.", "right.", "discriminate.",
    "eauto.", "subst.", "symmetry.", "exfalso.",
]


def scripted_setup(args: argparse.Namespace) -> tuple[Environment, list[Theorem], TacticGenerator]:
    from prover.synthetic import SyntheticEnvironment, SyntheticGenerator, SyntheticWorld, synthetic_theorems

    world = SyntheticWorld(seed=args.seed)
    env = SyntheticEnvironment(world, latency=args.env_latency)
    generator = SyntheticGenerator(world, temperature=0.0, latency=args.gen_latency)
    return env, synthetic_theorems(args.theorems), generator


def coq_setup(args: argparse.Namespace) -> tuple[Environment, list[Theorem], TacticGenerator]:
    try:
        from prover.coq.env import CoqEnvironment
        from prover.coq.stdlib import stdlib_theorems
    except ImportError as exc:
        raise SystemExit(f"--env coq needs the Coq backend (prover.coq.env): {exc}") from None
    from prover.benchmarks.registry import stable_sample
    from prover.coq.templates import automation_generator

    theorems = stable_sample(stdlib_theorems(args.split), args.theorems)
    env = CoqEnvironment(tactic_timeout=args.tactic_timeout)
    if args.generator == "fixed":
        return env, theorems, FixedTacticGenerator(COQ_TACTICS)
    return env, theorems, automation_generator()


def run(algorithm: str, env: Environment, theorems: list[Theorem], tac_gen: TacticGenerator,
        args: argparse.Namespace) -> list[SearchResult]:
    kwargs = {"timeout": args.timeout, "max_env_calls": args.max_env_calls,
              "num_sampled_tactics": args.num_sampled_tactics}
    if algorithm != "best_first":
        kwargs["value"] = args.value
    if algorithm == OR_MCTS:
        kwargs["config"] = MCTSConfig(split_goals=False)
    prover = make_prover("mcts" if algorithm == OR_MCTS else algorithm, tac_gen, **kwargs)
    return [prover.search(env, theorem) for theorem in theorems]


def summary(results: list[SearchResult]) -> dict:
    total = sum(r.total_time for r in results)
    inside = sum(r.env_time + r.gen_time + r.stats.get("value_time", 0.0) for r in results)
    proved = sum(r.status == Status.PROVED for r in results)
    return {
        "proved": proved,
        "theorems": len(results),
        "pass_rate": proved / max(len(results), 1),
        "mean_env_calls": sum(r.num_env_calls for r in results) / max(len(results), 1),
        "search_seconds": total,
        "overhead": (total - inside) / total if total > 0 else 0.0,
        "overhead_us_per_env_call": 1e6 * (total - inside) / max(sum(r.num_env_calls for r in results), 1),
    }


def main(argv: list[str] | None = None) -> dict:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--env", choices=("scripted", "coq"), default="scripted")
    parser.add_argument("--split", default="test", help="Coq stdlib split (--env coq)")
    parser.add_argument("--theorems", type=int, default=60, help="number of theorems")
    parser.add_argument("--max-env-calls", type=int, default=100, help="tactic calls per theorem")
    parser.add_argument("--timeout", type=float, default=120.0, help="seconds per theorem")
    parser.add_argument("--num-sampled-tactics", type=int, default=16)
    parser.add_argument("--value", default="constant", choices=("constant", "heuristic"),
                        help="MCTS value function")
    parser.add_argument("--generator", choices=("baseline", "fixed"), default="baseline",
                        help="--env coq: the scored baseline (coq:BASELINE), or COQ_TACTICS unscored")
    parser.add_argument("--tactic-timeout", type=float, default=5.0, help="seconds per Coq tactic (--env coq)")
    parser.add_argument("--seed", type=int, default=0, help="synthetic theorems (--env scripted)")
    parser.add_argument("--env-latency", type=float, default=0.003,
                        help="simulated seconds per tactic or focus call (--env scripted)")
    parser.add_argument("--gen-latency", type=float, default=0.010,
                        help="simulated seconds per generator call (--env scripted)")
    parser.add_argument("--ablate-split", action="store_true", help=f"also run MCTS without AND nodes ({OR_MCTS})")
    parser.add_argument("--json", type=Path, help="also write the figures here")
    add_results_flag(parser)
    args = parser.parse_args(argv)

    env, theorems, tac_gen = (scripted_setup if args.env == "scripted" else coq_setup)(args)
    algorithms = ALGORITHMS + ((OR_MCTS,) if args.ablate_split else ())
    results = {}
    for algorithm in algorithms:
        t0 = time.monotonic()
        results[algorithm] = run(algorithm, env, theorems, tac_gen, args)
        print(f"{algorithm}: {len(theorems)} theorems in {time.monotonic() - t0:.1f}s", file=sys.stderr)
    figures: dict[str, Any] = {a: summary(rs) for a, rs in results.items()}
    proved = {a: {r.theorem.full_name for r in rs if r.status == Status.PROVED} for a, rs in results.items()}
    mcts_stats = [r.stats for r in results["mcts"]]
    figures["mcts"]["and_nodes"] = sum(s.get("and_nodes", 0) for s in mcts_stats)
    figures["mcts"]["focus_calls"] = sum(s.get("focus_calls", 0) for s in mcts_stats)
    figures["mcts"]["proofs_with_branches"] = sum(
        r.status == Status.PROVED and r.proof is not None and any(step.branches for step in r.proof)
        for r in results["mcts"])
    figures["proved"] = {a: sorted(names) for a, names in proved.items()}
    figures["only_best_first"] = sorted(proved["best_first"] - proved["mcts"])
    figures["only_mcts"] = sorted(proved["mcts"] - proved["best_first"])

    print(f"env={args.env} theorems={len(theorems)} max_env_calls={args.max_env_calls} "
          f"sampled_tactics={args.num_sampled_tactics} value={args.value}")
    header = ("algorithm", "proved", "pass rate", "env calls", "search s", "overhead", "us/call")
    print("{:<14} {:>8} {:>10} {:>10} {:>9} {:>9} {:>8}".format(*header))
    for a in algorithms:
        f = figures[a]
        print(f"{a:<14} {f['proved']:>4}/{f['theorems']:<3} {f['pass_rate']:>10.1%} {f['mean_env_calls']:>10.1f} "
              f"{f['search_seconds']:>9.2f} {f['overhead']:>9.2%} {f['overhead_us_per_env_call']:>8.0f}")
    print(f"proved only by best_first: {len(figures['only_best_first'])}, only by mcts: {len(figures['only_mcts'])}; "
          f"MCTS AND nodes: {figures['mcts']['and_nodes']}, focus calls: {figures['mcts']['focus_calls']}, "
          f"proofs with branches: {figures['mcts']['proofs_with_branches']}")
    if args.json:
        args.json.write_text(json.dumps(figures, indent=2))
    return figures


if __name__ == "__main__":
    main()
    write_results()
