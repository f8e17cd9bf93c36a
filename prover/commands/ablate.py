"""Retriever ablation: the same prover and budget with each retriever; one table of pass@k,
premises used and time. Each retriever gets its own resumable run directory under --out."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from prover.benchmarks.results import add_results_flag, write_results
from search_tree.errors import UserError
from search_tree.safe_files import replace_file


def configure(parser: argparse.ArgumentParser) -> None:
    from prover.commands.eval import add_run_arguments

    add_run_arguments(parser)
    parser.add_argument("--retrievers", required=True, help="comma-separated retriever names (none, bm25, mepo, ...)")
    parser.add_argument("--retriever-opt", action="append", metavar="KEY=VALUE",
                        help="option given to every retriever (e.g. corpus=PATH), or NAME.KEY=VALUE to the "
                             "retriever NAME only (e.g. ps2.model=DIR, knn.traces=train.json)")
    parser.add_argument("--out", required=True, help="directory holding one run per retriever and ablation.md")
    add_results_flag(parser, markdown=True)


def scoped_options(options: dict[str, Any], names: list[str]) -> dict[str, dict[str, Any]]:
    """Each retriever's options: the unscoped ``KEY`` ones and its own ``NAME.KEY`` ones; a scope
    that names no retriever of the ablation is an error (a typo would silently do nothing)."""
    scopes = {key.split(".", 1)[0] for key in options if "." in key}
    if scopes - set(names):
        raise UserError(f"--retriever-opt {', '.join(sorted(scopes - set(names)))}.*: no such retriever "
                        f"in --retrievers {','.join(names)}")
    shared = {k: v for k, v in options.items() if "." not in k}
    return {name: {} if name == "none" else
            shared | {k.split(".", 1)[1]: v for k, v in options.items() if k.startswith(f"{name}.")}
            for name in names}


def run(args: argparse.Namespace) -> int:
    from prover.run.analysis import benchmark_pass_at_k, load_run, search_statistics
    from prover.commands.eval import build_config, load_theorems, parse_options
    from prover.run.evaluation import run_evaluation
    from prover.registry import check_names

    names = [n.strip() for n in args.retrievers.split(",") if n.strip()]
    options = scoped_options(parse_options(args.retriever_opt, "--retriever-opt"), names)
    configs = {name: build_config(args, name, options[name]) for name in names}
    for config in configs.values():  # every name checked before any work starts
        check_names(config.prover)
    theorems = load_theorems(args)
    for name, config in configs.items():
        print(f"== retriever {name}", file=sys.stderr)
        run_evaluation(config, theorems, Path(args.out) / name, progress=not args.no_progress)
    ks = sorted({1, args.attempts})
    lines = ["| retriever | " + " | ".join(f"pass@{k}" for k in ks)
             + " | premises retrieved | premises used | mean time (s) |", "|---" * (len(ks) + 4) + "|"]
    for name in names:
        loaded = load_run(Path(args.out) / name)
        stats = search_statistics(loaded)

        def fmt(v: float | None) -> str:
            return "–" if v is None else f"{v:.2f}"

        passes = " | ".join(f"{benchmark_pass_at_k(loaded, k)[0]:.3f}" for k in ks)
        lines.append(f"| {name} | {passes} | {fmt(stats['mean_premises_retrieved'])} | "
                     f"{fmt(stats['mean_premises_used'])} | {fmt(stats['mean_time_s'])} |")
    table = "\n".join(lines) + "\n"
    replace_file(Path(args.out) / "ablation.md", table.encode())
    print(table)
    return write_results(0)
