"""A generator defined outside the package, named by its import path, reaches Ray workers.

The workers are those of a private local Ray instance that :class:`DistributedProver` starts
itself; nothing is registered anywhere: the spec's name is the import path, and each worker
imports ``custom_components`` (in ``tests/``) when it builds its generator.
"""

from custom_components import MARK

from prover.proof_search import DistributedProver, Task
from prover.registry import ComponentSpec, ProverConfig
from search_tree import Status, Theorem
from search_tree.events import TacticRun

THEOREMS = [Theorem(f"synthetic_{i:04d}") for i in range(4)]


def test_a_generator_named_by_import_path_runs_on_ray_workers():
    config = ProverConfig(ComponentSpec("synthetic"), ComponentSpec("best_first", {"max_expansions": 20}),
                          ComponentSpec("custom_components:MarkedGenerator", {"hint_rate": 1.0}))
    tasks = [Task(t) for t in THEOREMS]
    with DistributedProver(config) as local:
        expected = {o.task.theorem.full_name: (o.result.status, o.result.tactics) for o in local.iter_results(tasks)}
    with DistributedProver(config, num_workers=2) as prover:
        outcomes = list(prover.iter_results(tasks))
        assert not prover.in_process and prover.config.prover.options["timeout"] == 60.0  # the run default
    assert {o.task.theorem.full_name: (o.result.status, o.result.tactics) for o in outcomes} == expected
    assert Status.PROVED in {status for status, _ in expected.values()}
    for outcome in outcomes:
        tried = [e.tactic for e in outcome.events if isinstance(e, TacticRun)]
        assert tried[0] == MARK, tried  # the custom generator's first proposal, tried first at the root
    assert {o.worker for o in outcomes} == {0, 1}
