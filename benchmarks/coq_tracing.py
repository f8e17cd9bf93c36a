"""Tracing throughput of the Coq tracer: tactic steps per second on one core.

    python benchmarks/coq_tracing.py [FILE ...]      # paths under theories/, default: a few files

Each file is traced from scratch (no cache) in one coqtop, one file after the other. Printed per
file and in total: tactic steps, wall-clock seconds, CPU seconds of the tracer and of coqtop, and
steps per CPU second, the measure that does not depend on how loaded the machine is (the
target: at least 300 steps/s on one core). Wall-clock throughput is printed too; on an idle core
the two agree up to the time spent waiting on pipes.

For scale, each file is also compiled by ``coqc`` (a copy, under its logical name): Coq's own
CPU time bounds what any tracer can reach, and ``trace/coqc`` is the tracer's overhead over it.
"""

from __future__ import annotations

import argparse
import resource
import shutil
import subprocess
import tempfile
import time
from pathlib import Path
from typing import TYPE_CHECKING

from prover.benchmarks.results import add_results_flag, write_results

if TYPE_CHECKING:
    from prover.coq.project import CoqProject

DEFAULT_FILES = ["Arith/PeanoNat.v", "Lists/List.v", "Bool/Bool.v", "Arith/Between.v", "Init/Logic.v"]


def cpu_times() -> tuple[float, float]:
    """CPU seconds (user + system) so far of this process and of its reaped children (coqtop, coqc)."""
    own, kids = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime, kids.ru_utime + kids.ru_stime


def coqc_cpu(project: CoqProject, path: str) -> float:
    """CPU seconds ``coqc`` takes to compile a copy of ``path`` (relative to the project's root) under
    its logical name, with the project's flags (and ``-noinit`` where the project says so): the
    baseline of any tracer of that file. A copy, so that the project's own ``.vo`` stay as they are."""
    with tempfile.TemporaryDirectory() as tmp:
        copy = Path(tmp) / Path(path).name
        shutil.copy(project.root / path, copy)
        args = (["coqc", "-q", *project.coq_args, "-top", project.module(path)]
                + (["-noinit"] if project.noinit(path) else []) + [copy.name])
        _, before = cpu_times()
        subprocess.run(args, cwd=tmp, check=True, capture_output=True)
        _, after = cpu_times()
    return after - before


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("files", nargs="*", default=DEFAULT_FILES)
    add_results_flag(parser)
    args = parser.parse_args()

    from prover.coq.corpus import PremiseResolver
    from prover.coq.stdlib import load_index
    from prover.coq.tracer import trace_file

    index = load_index()
    resolver = PremiseResolver(index)
    header = ["theorems", "steps", "wall s", "py cpu", "coq cpu", "steps/cpu s", "steps/wall s", "coqc cpu", "trace/coqc"]
    print(f"{'file':<28} " + " ".join(f"{h:>12}" for h in header))
    totals: list = [0, 0, 0.0, 0.0, 0.0, 0.0]  # two counts, then seconds
    for path in args.files:
        (py0, coq0), t0 = cpu_times(), time.perf_counter()
        trace = trace_file(index, resolver, path)
        (py1, coq1), wall = cpu_times(), time.perf_counter() - t0
        if trace.error:
            raise SystemExit(f"tracing failed: {trace.error}")
        py, coq = py1 - py0, coq1 - coq0
        compiled = coqc_cpu(index.project, path)
        row: list = [len(trace.theorems), trace.steps, wall, py, coq, compiled]
        totals = [a + b for a, b in zip(totals, row)]
        _print_row(path, *row)
    _print_row("total", *totals)


def _print_row(name: str, theorems: int, steps: int, wall: float, py: float, coq: float, compiled: float) -> None:
    cells = [f"{theorems}", f"{steps}", f"{wall:.2f}", f"{py:.2f}", f"{coq:.2f}", f"{steps / (py + coq):.0f}",
             f"{steps / wall:.0f}", f"{compiled:.2f}", f"{(py + coq) / compiled:.2f}"]
    print(f"{name:<28} " + " ".join(f"{c:>12}" for c in cells))


if __name__ == "__main__":
    main()
    write_results()
