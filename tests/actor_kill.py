"""Killing a Ray actor while it proves a chosen theorem, for the retry tests of the distributed prover."""

from __future__ import annotations

import threading
import time


def results_with_victim_killed(prover, tasks, victim) -> list:
    """Every outcome of ``prover.iter_results(tasks)``, the actor proving ``victim`` killed as soon
    as it has that task (within 60 s), so that the run must retry it."""
    import ray

    def kill_when_victim_runs():
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            for task, slot in prover.in_flight():
                if task.theorem == victim:
                    ray.kill(prover.actor(slot))
                    return
            time.sleep(0.01)

    killer = threading.Thread(target=kill_when_victim_runs)
    killer.start()
    outcomes = list(prover.iter_results(tasks))
    killer.join()
    return outcomes
