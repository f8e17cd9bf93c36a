"""Tracing throughput of the Coq tracer: tactic steps per second on one core.

    python benchmarks/coq_tracing.py [FILE ...]      # paths under theories/, default: a few files

Each file is traced from scratch (no cache) in one coqtop, one file after the other. Printed per
file and in total: tactic steps, wall-clock seconds, CPU seconds of the tracer and of coqtop, and
steps per CPU second, the measure that does not depend on how loaded the machine is (the issue's
target: at least 300 steps/s on one core). Wall-clock throughput is printed too; on an idle core
the two agree up to the time spent waiting on pipes.
"""

from __future__ import annotations

import argparse
import resource
import time

DEFAULT_FILES = ["Arith/PeanoNat.v", "Lists/List.v", "Bool/Bool.v", "Arith/Between.v", "Init/Logic.v"]


def _cpu() -> tuple[float, float]:
    own, kids = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime, kids.ru_utime + kids.ru_stime


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("files", nargs="*", default=DEFAULT_FILES)
    args = parser.parse_args()

    from prover.coq.corpus import PremiseResolver
    from prover.coq.stdlib import load_index
    from prover.coq.tracer import trace_file

    index = load_index()
    resolver = PremiseResolver(index)
    print(f"{'file':<28} {'theorems':>8} {'steps':>6} {'wall s':>7} {'py cpu':>7} {'coq cpu':>7} {'steps/cpu s':>11} {'steps/wall s':>12}")
    totals = [0, 0, 0.0, 0.0, 0.0]
    for path in args.files:
        (py0, coq0), t0 = _cpu(), time.perf_counter()
        trace = trace_file(index, resolver, path)
        (py1, coq1), wall = _cpu(), time.perf_counter() - t0
        if trace.error:
            raise SystemExit(f"tracing failed: {trace.error}")
        py, coq = py1 - py0, coq1 - coq0
        row = [len(trace.theorems), trace.steps, wall, py, coq]
        totals = [a + b for a, b in zip(totals, row)]
        print(f"{path:<28} {row[0]:>8} {row[1]:>6} {wall:>7.2f} {py:>7.2f} {coq:>7.2f} "
              f"{trace.steps / (py + coq):>11.0f} {trace.steps / wall:>12.0f}")
    n, steps, wall, py, coq = totals
    print(f"{'total':<28} {n:>8} {steps:>6} {wall:>7.2f} {py:>7.2f} {coq:>7.2f} {steps / (py + coq):>11.0f} {steps / wall:>12.0f}")


if __name__ == "__main__":
    main()
