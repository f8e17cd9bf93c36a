"""CPU time of a process and everything it started: what a search, or a training step, costs.

A search's work happens in the worker process and in the processes it starts (coqtop, CoqHammer's
ATPs, coqc and coqchk for the final check), which outlive a single search (a worker keeps its
coqtop) and, on Ray, are not children of the process that reports the figures. ``getrusage``'s
``RUSAGE_CHILDREN`` counts only children that have ended and been waited for, so it misses a live
coqtop, and a Ray worker altogether. :func:`tree_cpu_seconds` adds up, with psutil, the CPU time of
a process, of its live descendants, and of the descendants each of them has waited for; the
difference of two readings around a search is that search's CPU time, whichever process runs it.
"""

from __future__ import annotations

import psutil


def tree_cpu_seconds(pid: int | None = None) -> float:
    """User and system seconds of process ``pid`` (default: this one), its live descendants and
    the ended descendants they waited for. A descendant that ends between two readings without
    being waited for by a process read here is not counted (CoqHammer's ATPs are waited for by
    coqtop, and coqtop by its worker)."""
    root = psutil.Process(pid)
    total = 0.0
    for process in [root, *root.children(recursive=True)]:
        try:
            times = process.cpu_times()
        except (psutil.NoSuchProcess, psutil.AccessDenied, psutil.ZombieProcess):
            continue  # ended between listing and reading: its parent's children_* has it once waited for
        total += times.user + times.system + times.children_user + times.children_system
    return total
