"""``dojo-prover trace --env coq``: the Coq tracer's options and run (the backend's ``Feature.TRACE``).

It traces the Coq standard library, or any Coq project with ``--project`` (a directory with a
``_CoqProject`` or ``--flags``, or ``coq-lib:NAME``), split by file into train/val/test (layout:
:mod:`prover.coq.tracer`, docs/coq.md). Importing this module loads nothing of the tracer: the
command line builds its parser from :meth:`CoqTracer.configure` on every start.
"""

from __future__ import annotations

import argparse
from collections.abc import Callable

from search_tree.errors import UserError


class CoqTracer:
    """The ``trace`` options of the Coq backend and the run with them (``prover.backend.Tracer``)."""

    def configure(self, parser: argparse.ArgumentParser) -> list[argparse.Action]:
        return [
            parser.add_argument("--files", nargs="+", metavar="GLOB",
                                help="coq: files to trace, as globs over paths in the project"
                                     " (stdlib: under theories/, e.g. 'Arith/*.v'); default: all"),
            parser.add_argument("--workers", type=int, help="coq: coqtop processes in parallel (default: 1)"),
            parser.add_argument("--rebuild-index", action="store_true",
                                help="coq: rescan the sources instead of using the cached index"),
            parser.add_argument("--project", help="coq: a Coq project directory, coq-lib:NAME or coq-stdlib (default)"),
            parser.add_argument("--flags",
                                help="coq: load-path flags for a project without a _CoqProject, e.g. '-Q theories Foo'"),
        ]

    def run(self, args: argparse.Namespace, say: Callable[[str], None]) -> int:
        """Trace the files ``--files`` selects (default all) of the project into ``args.out``
        (default :func:`prover.coq.tracer.traced_data_dir`); 1 when a file failed."""
        import shlex

        from prover.coq.build import project_index
        from prover.coq.project import load_project
        from prover.coq.tracer import ensure_traced

        workers = 1 if args.workers is None else args.workers
        if workers < 1:
            raise UserError(f"--workers must be at least 1, got {workers}")
        project = load_project(args.project or "coq-stdlib", tuple(shlex.split(args.flags)) if args.flags else None)
        index = project_index(project, rebuild=args.rebuild_index)
        files = index.matching(args.files)
        s = ensure_traced(files, out_dir=args.out, workers=workers, project=project)
        share = s.annotated_tactics / s.tactics if s.tactics else 0.0
        say(f"traced data in {s.out_dir}")
        say(f"files: {s.files} requested, {s.traced} traced now, {len(s.failed)} failed "
            "(all traced so far in the directory below)")
        say(f"theorems: {s.theorems}, tactics: {s.tactics}, with premises: {s.annotated_tactics} ({share:.0%}),"
            f" corpus premises: {s.premises}")
        if s.steps_now:
            say(f"throughput: {s.steps_per_cpu_second:.0f} tactic steps per CPU second ({s.steps_now} steps, "
                f"{s.cpu_seconds_now:.1f} CPU s, {s.seconds_now:.1f} s wall summed over workers)")
        for line in s.problems():
            say(line)
        return 1 if s.failed else 0


TRACER = CoqTracer()
