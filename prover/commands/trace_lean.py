"""Trace a Lean 4 repository with LeanDojo into LeanDojo-format theorems.json and corpus.jsonl.

Needs a Lean toolchain (elan) and git; the first trace of a repository builds it, which takes
minutes for a small project and hours for one that depends on Mathlib. LeanDojo caches the result.
"""

from __future__ import annotations

import argparse

from search_tree.errors import UserError


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("url", help="the repository (GitHub URL, other git URL or local path)")
    parser.add_argument("commit", help="a commit hash or tag")
    parser.add_argument("--out", required=True, help="directory to write theorems.json, corpus.jsonl, metadata.json")
    parser.add_argument("--with-dependencies", action="store_true",
                        help="also export the theorems of the dependencies (e.g. Mathlib)")


def run(args: argparse.Namespace) -> int:
    from prover.lean.tracing import trace_repo
    from search_tree.protocol import EnvironmentFailure

    try:
        summary = trace_repo(args.url, args.commit, args.out, include_dependencies=args.with_dependencies)
    except (EnvironmentFailure, FileExistsError) as exc:
        raise UserError(f"{args.url}@{args.commit}: {exc}") from exc
    print(f"traced {args.url}@{args.commit}: {summary.num_theorems} theorems "
          f"({summary.num_theorems_with_tactics} with tactic proofs, {summary.num_tactics} tactics), "
          f"{summary.num_files} files, {summary.num_premises} premises -> {summary.out_dir}")
    return 0
