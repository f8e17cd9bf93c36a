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


def test_a_backend_registered_by_the_program_runs_on_ray_workers():
    """Fails if a backend registered in the driver (``prover.backends.register``) is unknown to
    the Ray workers, or if its code does not reach them: the program finds the toy backend on a
    ``sys.path`` entry of its own, which no worker shares unless the run ships it."""
    import os
    import subprocess
    import sys
    from pathlib import Path

    tests = Path(__file__).resolve().parents[1]
    code = f"""
import sys
sys.path.insert(0, {str(tests)!r})
from prover.backends import register
from toy_backend.backend import BACKEND
from toy_backend.env import benchmark
register(BACKEND)
from prover.proof_search import DistributedProver, Task
from prover.registry import ComponentSpec, ProverConfig
config = ProverConfig(ComponentSpec("toy"), ComponentSpec("best_first", {{"timeout": 20}}),
                      ComponentSpec("template", {{"templates": "toy"}}), ComponentSpec("mepo"))
with DistributedProver(config, num_workers=2) as prover:
    outcomes = list(prover.iter_results([Task(t) for t in benchmark("all")]))
    assert not prover.in_process
print(sorted((o.task.theorem.full_name, o.result.status.name, o.worker) for o in outcomes))
"""
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=tests.parent, env=env,
                          timeout=300)
    assert done.returncode == 0, done.stderr[-3000:]
    found = eval(done.stdout.strip().splitlines()[-1])  # noqa: S307 - the list this test's own program printed
    assert [(name, status) for name, status, _ in found] == [("both", "PROVED"), ("lost", "FAILED"), ("three", "PROVED")]
    assert {worker for _, _, worker in found} <= {0, 1}
