"""pass@k attempts: attempt ``a`` runs with seed ``SEED + a`` and temperature
``temperatures[a % len(temperatures)]``, and a run's default watchdog is ``2 * timeout + 600`` s.

The synthetic backend and generator (real product components, no Coq needed): the claim is about
the evaluation runner and the worker, not a prover.
"""

from __future__ import annotations

import pytest

from prover.benchmarks.registry import load_benchmark
from prover.run import evaluation
from prover.run.distributed import ProverWorker
from prover.run.evaluation import EvalConfig, ResultsFile, run_evaluation, theorem_key
from prover.registry import ComponentSpec, ProverConfig


def components(timeout: float | None = 60) -> ProverConfig:
    options = {"max_expansions": 4} if timeout is None else {"timeout": timeout, "max_expansions": 4}
    return ProverConfig(ComponentSpec("synthetic"), ComponentSpec("best_first", options), ComponentSpec("synthetic"))


def test_each_attempt_runs_with_seed_plus_attempt_and_the_temperatures_cycled(tmp_path):
    """Fails if attempts share the run's seed (``self.seed`` for ``self.seed + a``), if the
    temperatures are not cycled (``temps[0]`` for every attempt), or if the worker does not hand
    the task's seed and temperature to its generator (``apply_sampling`` skipped)."""
    theorems = load_benchmark("synthetic:30", 2)
    config = EvalConfig(components(), "synthetic:30", limit=2, attempts=3, seed=10, temperatures=(0.5, 2.0))
    run_evaluation(config, theorems, tmp_path, progress=False)
    records = ResultsFile(tmp_path / "results.jsonl").load()
    got = {(r["key"], r["attempt"]): (r["seed"], r["temperature"]) for r in records}
    assert got == {(theorem_key(t), a): (10 + a, [0.5, 2.0, 0.5][a]) for t in theorems for a in range(3)}
    worker = ProverWorker(components())
    for task in config.tasks(theorems):
        worker.prove(task)
        assert (worker.generator.seed, worker.generator.temperature) == (task.seed, task.temperature)


def test_the_default_watchdog_is_twice_the_search_timeout_plus_ten_minutes(tmp_path, monkeypatch):
    """Fails if ``task_timeout`` drops a term of ``2 * timeout + 600`` or ignores an explicit
    ``watchdog``, or if ``run_evaluation`` does not hand it to the ``DistributedProver``."""
    assert EvalConfig(components(timeout=30), "synthetic:30").task_timeout() == 660.0
    assert EvalConfig(components(timeout=30), "synthetic:30", watchdog=5.0).task_timeout() == 5.0
    assert EvalConfig(components(timeout=None), "synthetic:30").task_timeout() is None
    seen = []
    real = evaluation.DistributedProver

    def recording(*args, **kwargs):
        seen.append(kwargs.get("task_timeout"))
        return real(*args, **kwargs)

    monkeypatch.setattr(evaluation, "DistributedProver", recording)
    config = EvalConfig(components(timeout=30), "synthetic:30", limit=1)
    run_evaluation(config, load_benchmark("synthetic:30", 1), tmp_path, progress=False)
    assert seen == [660.0]


@pytest.mark.parametrize("temperatures, expected", [((), [None, None]), ((0.7,), [0.7, 0.7])])
def test_without_or_with_one_temperature_every_attempt_gets_the_same(temperatures, expected):
    """Fails if an empty ``temperatures`` sets a temperature (the generator's own must stay)."""
    config = EvalConfig(components(), "synthetic:30", attempts=2, seed=3, temperatures=temperatures)
    tasks = config.tasks(load_benchmark("synthetic:30", 1))
    assert [(t.attempt, t.seed, t.temperature) for t in tasks] == [(0, 3, expected[0]), (1, 4, expected[1])]
