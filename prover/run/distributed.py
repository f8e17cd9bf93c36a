"""Proving many theorems at once on a pool of workers (Ray actors, or in-process for one worker).

Each worker builds its own environment, retriever, generator and prover from a picklable
:class:`~prover.registry.ProverConfig`, because live prover processes and models cannot travel
between processes. Results come back in completion order, so a caller can record each one the
moment it exists (see :mod:`prover.run.evaluation`).

Failure policy: a worker that dies (its actor killed, the process hosting the environment
crashing, its node leaving the cluster, a task that outlives ``task_timeout``) or an environment
that cannot recover (``environment_failure``) costs the theorem ``max_retries`` more tries on a
fresh worker or a restarted environment; after that the theorem gets a FAILED result whose
``stop_reason`` says why, and the run goes on. Each :class:`Outcome` lists why it was retried.

Where workers run: on a private local Ray instance, or on an existing cluster (``ray_address``,
else ``$RAY_ADDRESS``). On a cluster every alive node is checked first, once, by a probe task
pinned to it (:mod:`prover.run.nodes`); each worker is then pinned to the usable node with the
most room for workers (its CPUs and GPUs), so a node that lacks something never gets a task. A
worker whose node is lost is rebuilt on another node with room (nodes that joined since are
checked first); with no room left the run goes on with fewer workers. Workers get the driver's
code through Ray's runtime environment and only return results: the caller alone writes files.

``ray`` is imported only when workers run on Ray.
"""

from __future__ import annotations

import dataclasses
import logging
import os
import random
import re
import socket
import sys
import time
from collections import deque
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any

from generator.base import TacticGenerator
from prover.backend import Backend
from prover.backends import language_for, register, registered_outside
from prover.run.cpu import tree_cpu_seconds
from prover.run.nodes import NodeCheck, NodeRequirements
from prover.registry import (
    ProverConfig,
    build_env,
    build_generator,
    build_prover,
    build_retriever,
    outside_modules,
    require_specs,
    warn_missing_traces,
    with_defaults,
)
from search_tree import EnvironmentFailure, SearchResult, StopKind, StopReason, Theorem
from search_tree.events import SearchEvent
from search_tree.errors import UserError
from search_tree.registry import RegistryError


@dataclass(frozen=True)
class Task:
    """One proof attempt: pass@k runs ``k`` tasks per theorem with different seeds/temperatures."""

    theorem: Theorem
    attempt: int = 0
    seed: int = 0
    temperature: float | None = None


@dataclass
class Outcome:
    """A finished task: the search result, its action log and who produced it after how many retries."""

    task: Task
    result: SearchResult
    events: list[SearchEvent] = field(default_factory=list)
    worker: int = -1
    retry_reasons: list[StopReason] = field(default_factory=list)  # the failed attempts' (first lines)
    node: str = ""  # the Ray node id of the worker that produced ``result`` ("" in-process)

    @property
    def retries(self) -> int:
        return len(self.retry_reasons)


class WorkerStartError(RuntimeError):
    """A worker could not build its components (bad option, missing file or model); nothing ran."""


class ClusterUnreachable(UserError, ConnectionError):
    """The Ray cluster address (``--ray-address`` or ``$RAY_ADDRESS``) is malformed or nothing answers there."""


def check_reachable(address: str, timeout: float = 10.0) -> None:
    """Fail at once, in one line, when nothing listens at ``address`` (``HOST:PORT``; Ray itself would
    retry for minutes); Ray Client (``ray://``) and ``auto`` addresses are left to Ray."""
    if "://" in address or address == "auto":
        return
    host, sep, port = address.rpartition(":")
    if not sep or not host or not port.isdigit():
        raise ClusterUnreachable(f"Ray cluster address {address!r} (--ray-address or RAY_ADDRESS) is not HOST:PORT")
    try:
        socket.create_connection((host, int(port)), timeout=timeout).close()
    except OSError as exc:
        raise ClusterUnreachable(f"nothing answers at the Ray cluster address {address} (--ray-address or "
                                 f"RAY_ADDRESS): {exc.strerror or exc}; is `ray start --head` running there?") from None


class NoUsableNode(UserError, RuntimeError):
    """No node of the Ray cluster can run the configuration (each one's reason is in the message)."""


#: seconds a node whose worker died has to run a no-op, else it is taken for lost
NODE_ANSWER_TIMEOUT = 60.0

#: the stop reasons of a failed attempt that another try may fix
RETRIED = frozenset({StopKind.ENVIRONMENT_FAILURE, StopKind.WORKER_ERROR, StopKind.WORKER_DIED, StopKind.NODE_LOST})


def _needs_retry(result: SearchResult) -> bool:
    return result.stop_reason.kind in RETRIED


class RecordingRetriever:
    """Wraps a retriever and remembers the premises it returned, for "premises used" statistics."""

    def __init__(self, inner: Any) -> None:
        self.inner = inner
        self.returned: list[str] = []

    def _record(self, ranking: Any) -> None:
        for item in ranking:
            premise = item[0] if isinstance(item, tuple) else item
            self.returned.append(str(getattr(premise, "full_name", premise)))

    def retrieve(self, *args: Any, **kwargs: Any) -> Any:
        out = self.inner.retrieve(*args, **kwargs)
        self._record(out)
        return out

    def batch_retrieve(self, *args: Any, **kwargs: Any) -> Any:
        out = self.inner.batch_retrieve(*args, **kwargs)
        for ranking in out:
            self._record(ranking)
        return out

    def __getattr__(self, name: str) -> Any:
        return getattr(self.inner, name)

    def take_stats(self, script: str) -> dict[str, int]:
        """Counts since the last call; a premise is "used" when its full or last-component name occurs
        in the proof as a whole identifier."""
        distinct = set(self.returned)
        used = {p for p in distinct if script and any(
            re.search(rf"(?<![\w.']){re.escape(name)}(?![\w'])", script) for name in {p, p.rsplit(".", 1)[-1]})}
        stats = {"retrieved": len(self.returned), "distinct": len(distinct), "used": len(used)}
        self.returned = []
        return stats


def apply_sampling(generator: TacticGenerator, task: Task) -> None:
    """Make an attempt reproducible and distinct from the others: seed every RNG the generator may
    use, and set its temperature when the task asks for one."""
    random.seed(task.seed)
    if "numpy" in sys.modules:
        sys.modules["numpy"].random.seed(task.seed % 2**32)
    if "torch" in sys.modules:
        sys.modules["torch"].manual_seed(task.seed)
    generator.set_seed(task.seed)
    if task.temperature is not None:
        if generator.temperature is None:
            raise ValueError(f"{type(generator).__name__} has no temperature to set")
        generator.temperature = task.temperature


class ProverWorker:
    """Owns one environment, retriever, generator and prover; runs as a Ray actor or in-process."""

    def __init__(self, config: ProverConfig, worker_id: int = 0, record_events: bool = True,
                 backends: Sequence[Backend] = ()) -> None:
        for backend in backends:  # registered by the driver's program: known here before anything is built
            register(backend)
        self.config = config
        self.worker_id = worker_id
        self.record_events = record_events
        language = language_for(config.env.name)
        retriever = build_retriever(config.retriever, language)
        self.retriever = None if retriever is None else RecordingRetriever(retriever)
        self.generator = build_generator(config.generator, self.retriever, language)
        self.prover = build_prover(config.prover, self.generator)
        self.env = build_env(config.env)

    def ready(self) -> int:
        return self.worker_id

    def close(self) -> None:
        """Close the environment (which stops the prover processes it keeps)."""
        try:
            self.env.close()
        except Exception:  # noqa: BLE001 - closing is best effort; the worker is going away
            pass

    def restart_env(self) -> None:
        """Replace an environment that reported an unrecoverable failure."""
        self.close()
        self.env = build_env(self.config.env)

    def prove(self, task: Task) -> tuple[SearchResult, list[SearchEvent]]:
        """Search ``task``'s theorem; the result's ``stats["cpu_seconds"]`` is the CPU time the
        search took here and in the processes it ran (:func:`prover.run.cpu.tree_cpu_seconds`)."""
        events: list[SearchEvent] = []
        t0, cpu = time.monotonic(), tree_cpu_seconds()
        try:
            apply_sampling(self.generator, task)
            result = self.prover.search(self.env, task.theorem, on_event=events.append if self.record_events else None)
        except EnvironmentFailure as exc:
            result = SearchResult.failed(task.theorem, StopReason(StopKind.ENVIRONMENT_FAILURE, str(exc)),
                                         time.monotonic() - t0)
        except Exception as exc:  # noqa: BLE001 - one theorem's bug must not end the run
            result = SearchResult.failed(task.theorem, StopReason(StopKind.WORKER_ERROR, f"{type(exc).__name__}: {exc}"),
                                         time.monotonic() - t0)
        if result.stop_reason.kind is StopKind.ENVIRONMENT_FAILURE:
            self.restart_env()
        if self.retriever is not None:
            result.stats["premises"] = self.retriever.take_stats(result.script or "\n".join(result.tactics or []))
        result.stats["cpu_seconds"] = round(max(tree_cpu_seconds() - cpu, 0.0), 3)
        return result, events


class DistributedProver:
    """Proves theorems on ``num_workers`` workers built from ``config``.

    ``num_workers=1`` without a cluster address runs in this process without Ray (an injected
    ``exit`` fault would end it); otherwise workers are Ray actors, on the cluster at
    ``ray_address`` (default ``$RAY_ADDRESS``), on a Ray this process already joined, or on a
    private local instance that :meth:`close` shuts down again. ``task_timeout`` bounds one task's
    wall time; a worker past it is killed and the task retried. ``check_timeout`` bounds the
    check of each node (module docstring).

    ``config`` gets the same defaults as on the command line
    (:func:`prover.registry.with_defaults`, for the theorems of the first tasks or of
    :meth:`start`), so ``DistributedProver(default_config())`` is ready as it is. In process, its
    generator and retriever may be objects; workers on Ray need specs (:class:`~prover.registry.NotASpec`).
    """

    def __init__(
        self,
        config: ProverConfig,
        num_workers: int = 1,
        *,
        max_retries: int = 1,
        record_events: bool = True,
        task_timeout: float | None = None,
        cpus_per_worker: float = 1.0,
        gpus_per_worker: float = 0.0,
        ray_address: str | None = None,
        check_timeout: float | None = None,
        on_start: Callable[[Task, int], None] | None = None,
    ) -> None:
        if num_workers < 1:
            raise ValueError("num_workers must be at least 1")
        self.config = config
        self._completed = False  # with_defaults applied to config
        self._warned = False  # warn_missing_traces said what the run's searches go without
        self.num_workers = num_workers
        self.max_retries = max_retries
        self.record_events = record_events
        self.task_timeout = task_timeout
        self.cpus_per_worker = cpus_per_worker
        self.gpus_per_worker = gpus_per_worker
        self.ray_address = ray_address or os.environ.get("RAY_ADDRESS") or None
        self.check_timeout = check_timeout
        self.on_start = on_start  # told (task, worker slot) as each task is handed to a worker
        self._local: ProverWorker | None = None
        self._actors: list[Any] = []
        self._node_of: dict[int, str] = {}  # worker slot -> the node its actor is pinned to
        self._checks: dict[str, NodeCheck] = {}  # node id -> its check (every node seen so far)
        self._requirements: NodeRequirements | None = None
        self._owns_ray = False  # this prover called ray.init
        self._shipped = False  # ... and shipped the package to a cluster (nodes.job_runtime_env)
        self._private = False  # ... for a private local instance
        self._in_flight: dict[Any, tuple[int, int, Task, float]] = {}
        self._overdue: set[int] = set()  # slots killed by the task_timeout watchdog

    # -- public API -------------------------------------------------------------------------

    def search_unordered(self, repo: Any, theorems: list[Theorem],
                         positions: list[Any] | None = None) -> list[SearchResult]:
        """ReProver's call: one attempt per theorem, results in completion order.

        ``positions`` (one per theorem) replace the theorems' positions; ``repo`` (a LeanDojo
        ``LeanGitRepo``, or None for backends that do not need one) travels in the theorems'
        :class:`~prover.lean.env.LeanFields`, with its ``url`` and ``commit``.
        """
        from prover.lean.env import LeanFields

        if positions is not None and len(positions) != len(theorems):
            raise ValueError("positions must have one entry per theorem")
        tasks = []
        for i, thm in enumerate(theorems):
            if positions is not None:
                thm = dataclasses.replace(thm, position=tuple(positions[i]) if positions[i] is not None else None)
            if repo is not None:
                thm = LeanFields(url=repo.url, commit=repo.commit, repo=repo).on(thm)
            tasks.append(Task(thm))
        return [outcome.result for outcome in self.iter_results(tasks)]

    @property
    def in_process(self) -> bool:
        """Whether the one worker runs in this process (one worker, no cluster address)."""
        return self.num_workers == 1 and self.ray_address is None

    def iter_results(self, tasks: Iterable[Task]) -> Iterator[Outcome]:
        """Run ``tasks`` and yield each :class:`Outcome` as soon as it is finished."""
        tasks = list(tasks)
        self._complete([task.theorem for task in tasks])
        if tasks and not self._warned:  # searching starts here: say what it goes without, once
            self._warned = True
            warn_missing_traces(self.config, [task.theorem for task in tasks])
        if self.in_process:
            yield from self._iter_local(tasks)
        else:
            yield from self._iter_ray(tasks)

    def start(self, theorems: Sequence[Theorem] = ()) -> None:
        """Build the workers now instead of on first use (to time proving apart from start-up);
        ``theorems``: those to be proved, for defaults that depend on them (a project's corpus)."""
        self._complete(theorems)
        if self.in_process:
            if self._local is None:
                try:
                    self._local = ProverWorker(self.config, 0, self.record_events)
                except RegistryError:
                    raise
                except Exception as exc:
                    raise WorkerStartError(f"{type(exc).__name__}: {exc}") from exc
        else:
            self._start_ray()

    def in_flight(self) -> list[tuple[Task, int]]:
        """The tasks being proved right now and the worker slot of each."""
        return [(task, slot) for slot, _, task, _ in list(self._in_flight.values())]

    def actor(self, slot: int) -> Any:
        """The Ray actor in ``slot`` (for inspection, or ``ray.kill`` in fault drills)."""
        return self._actors[slot]

    def node_of(self, slot: int) -> str:
        """The id of the Ray node the worker in ``slot`` is pinned to ("" in-process)."""
        return self._node_of.get(slot, "")

    def node_checks(self) -> list[NodeCheck]:
        """The verdict on every node checked so far (empty on a private local instance)."""
        return list(self._checks.values())

    def close(self) -> None:
        """Close every worker's environment, kill the actors, and shut Ray down (a private instance)
        or disconnect from the cluster if this prover called ``ray.init``. Environments get a few
        seconds to stop their prover processes first."""
        actors = [a for a in self._actors if a is not None]
        if actors:
            import ray

            closing = [actor.close.remote() for actor in actors]
            ray.wait(closing, num_returns=len(closing), timeout=10.0)
            for actor in actors:
                ray.kill(actor)
        self._actors = []
        if self._local is not None:
            self._local.close()
        if self._owns_ray:
            import ray

            ray.shutdown()
            self._owns_ray = self._private = self._shipped = False
        self._local = None

    def __enter__(self) -> DistributedProver:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def _complete(self, theorems: Sequence[Theorem]) -> None:
        """Make every default of ``config`` explicit, once, before any worker is built from it."""
        if not self._completed:
            self.config = with_defaults(self.config, theorems)
            self._completed = True

    # -- in-process -------------------------------------------------------------------------

    def _iter_local(self, tasks: Iterable[Task]) -> Iterator[Outcome]:
        self.start()
        assert self._local is not None
        for task in tasks:
            reasons: list[StopReason] = []
            self._in_flight[0] = (0, 0, task, time.monotonic())
            if self.on_start is not None:
                self.on_start(task, 0)
            result, events = self._local.prove(task)
            while _needs_retry(result) and len(reasons) < self.max_retries:
                reasons.append(result.stop_reason.first_line())
                result, events = self._local.prove(task)
            self._in_flight.clear()
            yield Outcome(task, result, events, 0, reasons)

    # -- Ray --------------------------------------------------------------------------------

    def _start_ray(self) -> None:
        require_specs(self.config, "workers on Ray")
        joined = "ray" in sys.modules and sys.modules["ray"].is_initialized()
        if self.ray_address and not joined:
            check_reachable(self.ray_address)
        if not self.ray_address:
            _private_ray_settings()
        import ray

        from prover.run.nodes import job_runtime_env

        if not ray.is_initialized():
            # "local": never join a cluster that `ray start` left on this machine without being asked to
            # the code is shipped to a cluster's nodes; a private instance's workers share this
            # machine's files and import it from the driver's import root (no upload, no log lines)
            ray.init(address=self.ray_address or "local", include_dashboard=False, log_to_driver=True,
                     logging_level=logging.WARNING,  # not "Started a local Ray instance." on every run
                     runtime_env=job_runtime_env(outside_modules(self.config)) if self.ray_address else None,
                     num_cpus=None if self.ray_address else max(os.cpu_count() or 1,
                                                                 int(self.num_workers * self.cpus_per_worker)))
            self._owns_ray = True
            self._private = not self.ray_address
            self._shipped = bool(self.ray_address)
        if not self._actors:
            self._check_new_nodes()
            self._actors = [None] * self.num_workers
            for slot in range(self.num_workers):
                self._actors[slot] = self._new_actor(slot, overcommit=True)
            try:
                ray.get([a.ready.remote() for a in self._actors])  # surfaces construction errors now
            except ray.exceptions.RayError as exc:
                cause = getattr(exc, "cause", None)  # a RayTaskError's: what the actor's constructor raised
                raise WorkerStartError(_root_cause(cause if isinstance(cause, BaseException) else exc)) from exc

    def _check_new_nodes(self) -> None:
        """Check every alive node not checked yet (one probe task pinned to each; see
        :mod:`prover.run.nodes`) and print one line for each node that gets no tasks. On a
        private local instance the one node is this machine: it is usable by construction."""
        import ray

        from prover.run import nodes

        alive = [n for n in ray.nodes() if n["Alive"] and n["NodeID"] not in self._checks]
        if not alive:
            return
        if self._private:
            for n in alive:
                self._checks[n["NodeID"]] = nodes.NodeCheck(n["NodeID"], n["NodeManagerAddress"], dict(n["Resources"]))
            return
        if self._requirements is None:
            self._requirements = nodes.requirements(self.config)
        timeout = nodes.CHECK_TIMEOUT if self.check_timeout is None else self.check_timeout
        runtime_env = nodes.task_runtime_env(self._shipped, outside_modules(self.config))
        for check in nodes.check_nodes(alive, self._requirements, timeout, runtime_env):
            self._checks[check.node_id] = check
            if not check.usable:
                print(f"{check.line()}", file=sys.stderr, flush=True)

    def _capacities(self) -> dict[str, float]:
        """How many workers each usable, alive node holds, from its CPUs (and GPUs)."""
        import ray

        alive = {n["NodeID"] for n in ray.nodes() if n["Alive"]}
        out = {}
        for node, check in self._checks.items():
            if node in alive and check.usable:
                room = check.resources.get("CPU", 0.0) / self.cpus_per_worker if self.cpus_per_worker else float("inf")
                if self.gpus_per_worker:
                    room = min(room, check.resources.get("GPU", 0.0) / self.gpus_per_worker)
                if room >= 1:
                    out[node] = room
        return out

    def _new_actor(self, slot: int, overcommit: bool) -> Any | None:
        """A worker for ``slot`` pinned to the usable node with most room; None when no node has room
        for it and ``overcommit`` is off (the run then goes on with the other workers)."""
        import ray
        from ray.util.scheduling_strategies import NodeAffinitySchedulingStrategy

        from prover.run.nodes import plan_slots, task_runtime_env

        capacities = self._capacities()
        if not capacities:
            lines = [c.line() for c in self._checks.values() if not c.usable]
            raise NoUsableNode("no node of the Ray cluster can run this configuration: " + ("; ".join(lines) or (
                f"none that is alive has {self.cpus_per_worker:g} CPUs and {self.gpus_per_worker:g} GPUs for a worker")))
        others = [node for other, node in self._node_of.items() if other != slot]
        node = plan_slots(capacities, others)
        if not overcommit and capacities[node] - others.count(node) < 1:
            self._node_of.pop(slot, None)
            return None
        self._node_of[slot] = node
        actor_cls = ray.remote(ProverWorker).options(
            num_cpus=self.cpus_per_worker, num_gpus=self.gpus_per_worker, max_restarts=0,
            runtime_env=task_runtime_env(self._shipped, outside_modules(self.config)),
            scheduling_strategy=NodeAffinitySchedulingStrategy(node, soft=False),
        )
        return actor_cls.remote(self.config, slot, self.record_events, registered_outside())

    def _failure_reason(self, slot: int, exc: BaseException) -> StopReason:
        """Why the worker in ``slot`` died: the watchdog killed it, its node left the cluster (the
        node does not answer), or the actor died (Ray's first line)."""
        from prover.run.nodes import node_answers

        node = self._node_of.get(slot, "")
        if slot in self._overdue:
            self._overdue.discard(slot)
            return StopReason(StopKind.WORKER_DIED, f"killed after running past task_timeout={self.task_timeout}s")
        if node and not self._private and not node_answers(node, NODE_ANSWER_TIMEOUT):
            return StopReason(StopKind.NODE_LOST, f"{self._checks[node].name} left the cluster")
        return StopReason(StopKind.WORKER_DIED, _first_line(exc))

    def _iter_ray(self, tasks: Iterable[Task]) -> Iterator[Outcome]:
        pending: deque[tuple[int, Task]] = deque(enumerate(tasks))
        if not pending:
            return
        self._start_ray()  # first: it sets what Ray reads when first imported
        import ray
        from ray.exceptions import GetTimeoutError, RayActorError, RayTaskError

        reasons: dict[int, list[StopReason]] = {}
        idle = [slot for slot, actor in enumerate(self._actors) if actor is not None]
        inflight = self._in_flight
        try:
            while pending or inflight:
                while pending and idle:
                    slot = idle.pop(0)
                    idx, task = pending.popleft()
                    ref = self._actors[slot].prove.remote(task)
                    inflight[ref] = (slot, idx, task, time.monotonic())
                    if self.on_start is not None:
                        self.on_start(task, slot)
                if not inflight:
                    raise NoUsableNode(f"every worker was lost with {len(pending)} tasks left, and no node "
                                       "of the cluster has room for a new one")
                ready, _ = ray.wait(list(inflight), num_returns=1, timeout=1.0)
                if not ready:
                    self._kill_overdue()
                    continue
                ref = ready[0]
                slot, idx, task, started = inflight.pop(ref)
                node = self._node_of.get(slot, "")
                try:
                    result, events = ray.get(ref)
                except (RayActorError, GetTimeoutError) as exc:
                    reason = self._failure_reason(slot, exc)
                    self._check_new_nodes()
                    lost = reason.kind is StopKind.NODE_LOST
                    self._actors[slot] = self._new_actor(slot, overcommit=not lost)
                    for other in [s for s in idle if lost and self._node_of.get(s) == node]:  # its idle workers too
                        idle.remove(other)
                        self._actors[other] = self._new_actor(other, overcommit=False)
                        if self._actors[other] is not None:
                            idle.append(other)
                    result, events = SearchResult.failed(task.theorem, reason, time.monotonic() - started), []
                except RayTaskError as exc:
                    result, events = SearchResult.failed(task.theorem,
                                                         StopReason(StopKind.WORKER_ERROR, _first_line(exc))), []
                if self._actors[slot] is not None:
                    idle.append(slot)
                if _needs_retry(result) and len(reasons.get(idx, [])) < self.max_retries:
                    reasons.setdefault(idx, []).append(result.stop_reason.first_line())
                    pending.appendleft((idx, task))
                    continue
                yield Outcome(task, result, events, slot, reasons.get(idx, []), node)
        finally:
            inflight.clear()

    def _kill_overdue(self) -> None:
        if self.task_timeout is None:
            return
        import ray

        now = time.monotonic()
        for slot, _, _, started in list(self._in_flight.values()):
            if now - started > self.task_timeout and slot not in self._overdue:
                self._overdue.add(slot)
                ray.kill(self._actors[slot])


def _private_ray_settings() -> None:
    """Set, unless the user has, what a private local Ray reads from the environment when it is
    first imported: loopback only, and token authentication, which Ray 2.60 turns on by itself for
    a new local instance but then announces in a warning on every run (a line about nothing the
    user gave). The mode is left alone once Ray is imported: Ray has read it then, and the
    instance's processes would start with another mode than this one's."""
    os.environ.setdefault("RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER", "0")
    if "ray" not in sys.modules:
        os.environ.setdefault("RAY_AUTH_MODE", "token")


def _root_cause(exc: BaseException) -> str:
    """The last line of a remote traceback names the original error (``FileNotFoundError: ...``)."""
    lines = [line for line in str(exc).strip().splitlines() if line.strip()]
    return lines[-1].strip()[:500] if lines else type(exc).__name__


def _first_line(exc: BaseException) -> str:
    text = str(exc).strip()
    return text.splitlines()[0][:300] if text else type(exc).__name__
