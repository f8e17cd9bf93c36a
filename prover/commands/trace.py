"""Trace a library into LeanDojo-format data: premises (corpus.jsonl) and per-split traced theorems.

Only ``--env coq`` is available here: the Coq standard library, or any Coq project with
``--project`` (a directory with a ``_CoqProject`` or ``--flags``, or ``coq-lib:NAME``); tracing a
Lean repository is LeanDojo's own job. The output layout is described in ``prover/coq/tracer.py`` and docs/coq.md.
"""

from __future__ import annotations

import argparse
import fnmatch
from pathlib import Path

from search_tree.errors import UserError


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--env", choices=["coq"], default="coq", help="the library to trace (default: coq)")
    parser.add_argument("--files", nargs="+", metavar="GLOB",
                        help="stdlib files to trace, as globs over paths under theories/ (e.g. 'Arith/*.v'); default: all")
    parser.add_argument("--out", type=Path, help="output directory (default: the cache directory, see `traced_data_dir()`)")
    parser.add_argument("--workers", type=int, default=1, help="coqtop processes in parallel (default: 1)")
    parser.add_argument("--rebuild-index", action="store_true", help="rescan the sources instead of using the cached index")
    parser.add_argument("--project", default="coq-stdlib",
                        help="a Coq project directory, coq-lib:NAME or coq-stdlib (default); --files are then paths in it")
    parser.add_argument("--flags", help="load-path flags for a project without a _CoqProject, e.g. '-Q theories Foo'")


def run(args: argparse.Namespace) -> int:
    import shlex

    from prover.coq.build import project_index
    from prover.coq.project import load_project
    from prover.coq.tracer import ensure_traced

    project = load_project(args.project, tuple(shlex.split(args.flags)) if args.flags else None)
    index = project_index(project, rebuild=args.rebuild_index)
    files = None
    if args.files:
        files = []
        for pattern in args.files:
            matched = [p for p in index.files if fnmatch.fnmatch(p, pattern)]
            if not matched:
                raise UserError(f"--files {pattern!r} matches no file under {index.root}")
            files.extend(p for p in matched if p not in files)
    if args.workers < 1:
        raise UserError(f"--workers must be at least 1, got {args.workers}")
    s = ensure_traced(files, out_dir=args.out, workers=args.workers, project=project)
    share = s.annotated_tactics / s.tactics if s.tactics else 0.0
    print(f"traced data in {s.out_dir}")
    print(f"files: {s.files} requested, {s.traced} traced now, {len(s.failed)} failed (all traced so far in the directory below)")
    print(f"theorems: {s.theorems}, tactics: {s.tactics}, with premises: {s.annotated_tactics} ({share:.0%}), corpus premises: {s.premises}")
    if s.steps_now:
        print(f"throughput: {s.steps_per_cpu_second:.0f} tactic steps per CPU second ({s.steps_now} steps, "
              f"{s.cpu_seconds_now:.1f} CPU s, {s.seconds_now:.1f} s wall summed over workers)")
    for error in s.failed:
        print(f"failed: {error}")
    for reason in s.skipped:
        print(f"theorem skipped: {reason}")
    return 1 if s.failed else 0
