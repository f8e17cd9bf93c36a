"""``dojo-prover trace --env lean URL COMMIT --out DIR``: the LeanDojo tracer's options and run (the
backend's ``Feature.TRACE``).

LeanDojo traces a Lean 4 repository into theorems.json, corpus.jsonl and metadata.json
(:func:`prover.lean.tracing.trace_repo`); it needs a Lean toolchain (elan) and git, and the first
trace of a repository builds it (hours when it depends on Mathlib; LeanDojo caches the build).
Importing this module loads neither LeanDojo nor the tracer.
"""

from __future__ import annotations

import argparse
from collections.abc import Callable

from search_tree.errors import UserError


class LeanTracer:
    """The ``trace`` options of the LeanDojo backend and the run with them (``prover.backend.Tracer``)."""

    def configure(self, parser: argparse.ArgumentParser) -> list[argparse.Action]:
        return [
            parser.add_argument("url", nargs="?", metavar="URL",
                                help="lean: the repository (GitHub URL, other git URL or local path)"),
            parser.add_argument("commit", nargs="?", metavar="COMMIT", help="lean: a commit hash or tag"),
            parser.add_argument("--with-dependencies", action="store_true",
                                help="lean: also export the theorems of the dependencies (e.g. Mathlib)"),
        ]

    def run(self, args: argparse.Namespace, say: Callable[[str], None]) -> int:
        """Trace repository ``URL`` at ``COMMIT`` into ``args.out`` (required here)."""
        from prover.lean.tracing import trace_repo
        from search_tree.protocol import EnvironmentFailure

        if args.url is None or args.commit is None:
            raise UserError("--env lean needs URL and COMMIT: the repository and a commit hash or tag")
        if args.out is None:
            raise UserError("--env lean needs --out DIR (where theorems.json, corpus.jsonl, metadata.json go)")
        try:
            summary = trace_repo(args.url, args.commit, args.out, include_dependencies=args.with_dependencies)
        except (EnvironmentFailure, FileExistsError) as exc:
            raise UserError(f"{args.url}@{args.commit}: {exc}") from exc
        say(f"traced {args.url}@{args.commit}: {summary.num_theorems} theorems "
            f"({summary.num_theorems_with_tactics} with tactic proofs, {summary.num_tactics} tactics), "
            f"{summary.num_files} files, {summary.num_premises} premises -> {summary.out_dir}")
        return 0


TRACER = LeanTracer()
