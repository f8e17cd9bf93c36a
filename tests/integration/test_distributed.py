"""DistributedProver on a real local Ray: results in completion order, dead workers, broken backends.

Ray starts once for the module (it takes seconds); every prover here joins it and kills only its
own actors. Faults are real: an actor killed with ``ray.kill``, a worker process that exits
(``os._exit``) while opening a theorem, and a backend raising ``EnvironmentFailure``.
"""


import pytest
from actor_kill import results_with_victim_killed
import ray  # required: a broken install must fail, not skip

from prover.run.distributed import WorkerStartError
from prover.proof_search import DistributedProver, Task
from prover.registry import ComponentSpec, ProverConfig, RegistryError
from search_tree import Status, StopKind, StopReason, Theorem



@pytest.fixture(scope="module", autouse=True)
def ray_cluster():
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False)
    yield
    ray.shutdown()


def config(latency=0.0, faults=None, fault_once_dir=None, max_expansions=20):
    env = {"latency": latency, "faults": faults or {}, "fault_once_dir": fault_once_dir}
    return ProverConfig(ComponentSpec("synthetic", env),
                        ComponentSpec("best_first", {"timeout": 60, "max_expansions": max_expansions}),
                        ComponentSpec("synthetic"))


THEOREMS = [Theorem(f"synthetic_{i:04d}") for i in range(6)]


def test_two_workers_agree_with_in_process_and_return_every_theorem_once():
    local = {r.theorem.full_name: (r.status, r.tactics) for r in DistributedProver(config(), 1).search_unordered(None, THEOREMS)}
    with DistributedProver(config(), 2) as prover:
        outcomes = list(prover.iter_results([Task(t) for t in THEOREMS]))
    assert sorted(o.task.theorem.full_name for o in outcomes) == sorted(local)
    assert {o.task.theorem.full_name: (o.result.status, o.result.tactics) for o in outcomes} == local
    assert {o.worker for o in outcomes} <= {0, 1} and all(o.retries == 0 for o in outcomes)
    assert any(status == Status.PROVED for status, _ in local.values())


def test_killed_actor_costs_its_theorem_one_retry_and_the_run_finishes():
    victim = THEOREMS[0]
    with DistributedProver(config(latency=0.05, max_expansions=8), 2) as prover:
        outcomes = results_with_victim_killed(prover, [Task(t) for t in THEOREMS], victim)
    by_name = {o.task.theorem.full_name: o for o in outcomes}
    assert len(outcomes) == len(THEOREMS) == len(by_name)
    assert by_name[victim.full_name].retries == 1
    assert by_name[victim.full_name].result.stop_reason.kind is not StopKind.WORKER_DIED  # the retry ran the search
    assert all(o.retries == 0 for name, o in by_name.items() if name != victim.full_name)


def test_worker_process_crash_is_retried_once_then_failed_with_reason(tmp_path):
    crash_once, crash_always = THEOREMS[1].full_name, THEOREMS[2].full_name
    (tmp_path / "once").mkdir()
    faults = {crash_once: "exit"}
    with DistributedProver(config(faults=faults, fault_once_dir=str(tmp_path / "once")), 2) as prover:
        once = {o.task.theorem.full_name: o for o in prover.iter_results([Task(t) for t in THEOREMS[:3]])}
    assert once[crash_once].retries == 1 and once[crash_once].result.num_env_calls > 0
    with DistributedProver(config(faults={crash_always: "exit"}), 2) as prover:
        always = {o.task.theorem.full_name: o for o in prover.iter_results([Task(t) for t in THEOREMS[:3]])}
    failed = always[crash_always]
    assert failed.result.status == Status.FAILED and failed.retries == 1
    assert failed.result.stop_reason.kind is StopKind.WORKER_DIED and failed.result.stop_reason.detail
    assert always[THEOREMS[0].full_name].result.stop_reason != failed.result.stop_reason


@pytest.mark.parametrize("workers", [1, 2])
def test_environment_failure_restarts_the_environment_and_retries_once(tmp_path, workers):
    flaky, broken = THEOREMS[3].full_name, THEOREMS[4].full_name
    cfg = config(faults={flaky: "fatal"}, fault_once_dir=str(tmp_path))
    with DistributedProver(cfg, workers) as prover:
        got = {o.task.theorem.full_name: o for o in prover.iter_results([Task(t) for t in THEOREMS])}
    assert got[flaky].retries == 1 and got[flaky].result.stop_reason.kind is not StopKind.ENVIRONMENT_FAILURE
    assert got[flaky].retry_reasons == [StopReason(StopKind.ENVIRONMENT_FAILURE,
                                                   f"synthetic prover for {flaky} could not be restarted")]
    with DistributedProver(config(faults={broken: "fatal"}), workers) as prover:
        got = {o.task.theorem.full_name: o for o in prover.iter_results([Task(t) for t in THEOREMS])}
    assert got[broken].result.status == Status.FAILED and got[broken].retries == 1
    assert got[broken].result.stop_reason == StopReason(StopKind.ENVIRONMENT_FAILURE,
                                                        f"synthetic prover for {broken} could not be restarted")
    assert len(got) == len(THEOREMS)


def test_hung_worker_is_killed_by_the_task_timeout_watchdog():
    slow = ProverConfig(ComponentSpec("synthetic", {"latency": 0.5}),
                        ComponentSpec("best_first", {"timeout": 600, "max_expansions": 100}),
                        ComponentSpec("synthetic"))
    with DistributedProver(slow, 2, task_timeout=1.0, max_retries=0) as prover:
        [outcome] = prover.iter_results([Task(THEOREMS[5])])
    assert outcome.result.status == Status.FAILED
    assert outcome.result.stop_reason == StopReason(StopKind.WORKER_DIED, "killed after running past task_timeout=1.0s")


def test_search_unordered_takes_positions_and_a_repo():
    class Repo:  # the two attributes of a LeanGitRepo that the LeanDojo backend reads
        url, commit = "https://github.com/example/repo", "0123abc"

    results = DistributedProver(config(), 1).search_unordered(Repo(), THEOREMS[:2], [(3, 1), None])
    assert {r.theorem.full_name: r.theorem.position for r in results} == {THEOREMS[0].full_name: (3, 1),
                                                                          THEOREMS[1].full_name: None}
    assert all((r.theorem.extra["url"], r.theorem.extra["commit"]) == (Repo.url, Repo.commit) for r in results)
    assert all(not t.extra for t in THEOREMS)  # the caller's theorems are not modified


def test_construction_errors_surface_before_any_work():
    bad = ProverConfig(ComponentSpec("synthetic", {"no_such_option": 1}), ComponentSpec("best_first"),
                       ComponentSpec("synthetic"))
    for workers in (1, 2):
        with pytest.raises(WorkerStartError, match="TypeError: .*no_such_option"):
            with DistributedProver(bad, workers) as prover:
                list(prover.iter_results([Task(THEOREMS[0])]))
    with pytest.raises(RegistryError, match="'nosuch'"):
        DistributedProver(ProverConfig(config().env, config().prover, config().generator,
                                       ComponentSpec("nosuch")), 1).search_unordered(None, THEOREMS[:1])
