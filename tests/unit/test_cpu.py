"""CPU time of a process tree (prover.run.cpu): what a search costs, in the processes it runs."""

from __future__ import annotations

import subprocess
import sys

from prover.run.cpu import tree_cpu_seconds

BURN = "import time\nt = time.process_time()\nwhile time.process_time() - t < 0.4: pass\nprint('done', flush=True)\n"


def test_a_live_child_and_a_waited_for_one_count():
    """A child that burned 0.4 s and still runs (as a worker's coqtop does) counts, and so does one
    that ended and was waited for. Fails if only this process's own time is read (getrusage's
    RUSAGE_SELF), or if live children are missed (RUSAGE_CHILDREN)."""
    before = tree_cpu_seconds()
    child = subprocess.Popen([sys.executable, "-c", BURN + "import sys; sys.stdin.read()"],
                             stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    try:
        assert child.stdout is not None and child.stdout.readline().strip() == "done"
        assert tree_cpu_seconds() - before >= 0.35
    finally:
        child.communicate("")
    assert tree_cpu_seconds() - before >= 0.35


def test_a_search_records_its_cpu_seconds():
    """Every result of a worker carries the CPU time of its search. Fails if the figure is missing
    or negative."""
    from prover.registry import ComponentSpec, ProverConfig
    from prover.run.distributed import ProverWorker, Task
    from prover.benchmarks.registry import load_benchmark

    worker = ProverWorker(ProverConfig(ComponentSpec("synthetic"), ComponentSpec("best_first", {"max_expansions": 5}),
                                       ComponentSpec("synthetic")))
    result, _ = worker.prove(Task(load_benchmark("synthetic:3", 1)[0]))
    assert result.stats["cpu_seconds"] >= 0.0
