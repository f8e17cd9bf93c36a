"""Trace a library into LeanDojo-format data: premises (corpus.jsonl) and traced theorems.

    dojo-prover trace --env coq [--project DIR|coq-lib:NAME] [--files 'Arith/*.v' ...] [--workers N] [--out DIR]
    dojo-prover trace --env lean URL COMMIT --out DIR [--with-dependencies]

``--env coq`` (the default) traces the Coq standard library, or any Coq project with
``--project`` (a directory with a ``_CoqProject`` or ``--flags``, or ``coq-lib:NAME``), split by file into
train/val/test (layout: ``prover/coq/tracer.py``, docs/coq.md). ``--env lean`` has LeanDojo trace
a Lean 4 repository into theorems.json, corpus.jsonl and metadata.json; it needs a Lean toolchain
(elan) and git, and the first trace of a repository builds it (hours when it depends on Mathlib;
LeanDojo caches the build). An option of the other backend is refused, naming it.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from prover.backend import Feature
from prover.backends import backend, names, require
from search_tree.errors import UserError

#: the options that belong to one backend: as the user writes it -> (argparse dest, its --env)
_BACKEND_OPTIONS: dict[str, tuple[str, str]] = {
    "URL": ("url", "lean"),
    "COMMIT": ("commit", "lean"),
    "--with-dependencies": ("with_dependencies", "lean"),
    "--files": ("files", "coq"),
    "--workers": ("workers", "coq"),
    "--rebuild-index": ("rebuild_index", "coq"),
    "--project": ("project", "coq"),
    "--flags": ("flags", "coq"),
}


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--env", choices=names(), default="coq", help="the backend (default: coq; it needs a tracer)")
    parser.add_argument("url", nargs="?", metavar="URL", help="lean: the repository (GitHub URL, other git URL or local path)")
    parser.add_argument("commit", nargs="?", metavar="COMMIT", help="lean: a commit hash or tag")
    parser.add_argument("--out", type=Path, help="output directory (coq default: `traced_data_dir()`; lean: required)")
    parser.add_argument("--with-dependencies", action="store_true",
                        help="lean: also export the theorems of the dependencies (e.g. Mathlib)")
    parser.add_argument("--files", nargs="+", metavar="GLOB",
                        help="coq: files to trace, as globs over paths in the project"
                             " (stdlib: under theories/, e.g. 'Arith/*.v'); default: all")
    parser.add_argument("--workers", type=int, help="coq: coqtop processes in parallel (default: 1)")
    parser.add_argument("--rebuild-index", action="store_true", help="coq: rescan the sources instead of using the cached index")
    parser.add_argument("--project", help="coq: a Coq project directory, coq-lib:NAME or coq-stdlib (default)")
    parser.add_argument("--flags", help="coq: load-path flags for a project without a _CoqProject, e.g. '-Q theories Foo'")


def run(args: argparse.Namespace) -> int:
    chosen = require(args.env, Feature.TRACE, "trace")
    for flag, (dest, env) in _BACKEND_OPTIONS.items():
        if backend(env) is not chosen and getattr(args, dest) not in (None, False):
            raise UserError(f"{flag} is for --env {env}, not --env {args.env}")
    return _trace_lean(args) if chosen is backend("lean") else _trace_coq(args)


def _trace_coq(args: argparse.Namespace) -> int:
    import shlex

    from prover.coq.build import project_index
    from prover.coq.project import load_project
    from prover.coq.tracer import ensure_traced
    from prover.views.safe_text import printable

    workers = 1 if args.workers is None else args.workers
    if workers < 1:
        raise UserError(f"--workers must be at least 1, got {workers}")
    project = load_project(args.project or "coq-stdlib", tuple(shlex.split(args.flags)) if args.flags else None)
    index = project_index(project, rebuild=args.rebuild_index)
    files = index.matching(args.files)
    s = ensure_traced(files, out_dir=args.out, workers=workers, project=project)
    share = s.annotated_tactics / s.tactics if s.tactics else 0.0
    print(f"traced data in {s.out_dir}")
    print(f"files: {s.files} requested, {s.traced} traced now, {len(s.failed)} failed (all traced so far in the directory below)")
    print(f"theorems: {s.theorems}, tactics: {s.tactics}, with premises: {s.annotated_tactics} ({share:.0%}),"
          f" corpus premises: {s.premises}")
    if s.steps_now:
        print(f"throughput: {s.steps_per_cpu_second:.0f} tactic steps per CPU second ({s.steps_now} steps, "
              f"{s.cpu_seconds_now:.1f} CPU s, {s.seconds_now:.1f} s wall summed over workers)")
    for line in s.problems():
        print(printable(line))
    return 1 if s.failed else 0


def _trace_lean(args: argparse.Namespace) -> int:
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
    print(f"traced {args.url}@{args.commit}: {summary.num_theorems} theorems "
          f"({summary.num_theorems_with_tactics} with tactic proofs, {summary.num_tactics} tactics), "
          f"{summary.num_files} files, {summary.num_premises} premises -> {summary.out_dir}")
    return 0
