"""Provers: a search algorithm wired to an environment, a generator and a final re-check.

The search loops live in :mod:`search_tree`; a prover opens the theorem, runs the search, and
reports PROVED only after the backend has re-checked the proof independently
(:meth:`search_tree.Environment.verify`).
"""

from __future__ import annotations

import time

from generator.base import TacticGenerator
from search_tree import (
    BestFirstSearch,
    Budget,
    Environment,
    EnvironmentFailure,
    EventSink,
    SearchResult,
    Status,
    Theorem,
)


def verified(env: Environment, result: SearchResult, on_event: EventSink | None = None) -> SearchResult:
    """Re-check a found proof; a proof the backend does not accept is reported as FAILED."""
    if result.status != Status.PROVED or result.proof is None:
        return result
    t0 = time.monotonic()
    verdict = env.verify(result.theorem, result.proof)
    result.stats["verify_time"] = time.monotonic() - t0
    result.script = verdict.script
    if on_event is not None:
        on_event({"event": "verify", "ok": verdict.ok, "message": verdict.message})
    if not verdict.ok:
        result.status = Status.FAILED
        result.stop_reason = f"verification_failed: {verdict.message}"
    return result


class BestFirstSearchProver:
    """Best-first search with a tactic generator, as in ReProver.

    ``timeout`` is the wall-clock budget in seconds, ``max_expansions`` and ``max_env_calls`` are
    optional further limits, ``num_sampled_tactics`` the suggestions asked for per expansion and
    ``length_alpha`` the length normalisation of priorities (0: plain cumulative log-probability).
    """

    def __init__(
        self,
        tac_gen: TacticGenerator,
        timeout: float = 600.0,
        max_expansions: int | None = None,
        num_sampled_tactics: int = 32,
        max_env_calls: int | None = None,
        length_alpha: float = 0.0,
    ) -> None:
        self.tac_gen = tac_gen
        self.budget = Budget(timeout=timeout, max_expansions=max_expansions, max_env_calls=max_env_calls)
        self.num_sampled_tactics = num_sampled_tactics
        self.length_alpha = length_alpha

    def search(self, env: Environment, theorem: Theorem, on_event: EventSink | None = None) -> SearchResult:
        t0 = time.monotonic()
        try:
            with env.open(theorem) as (session, init_state):
                search = BestFirstSearch(
                    session,
                    init_state,
                    lambda state: self.tac_gen.generate(state, theorem, self.num_sampled_tactics),
                    self.budget,
                    length_alpha=self.length_alpha,
                    on_event=on_event,
                )
                result = search.run(theorem)
        except EnvironmentFailure as exc:
            return SearchResult(theorem, Status.FAILED, None, f"environment_failure: {exc}",
                                time.monotonic() - t0, 0.0, 0.0, 0, 0, 0)
        return verified(env, result, on_event)


# The multi-worker prover lives in its own module (it imports ray lazily); exported here so that
# ReProver users find it where they expect it.
from prover.distributed import DistributedProver, Outcome, Task  # noqa: E402

__all__ = ["BestFirstSearchProver", "DistributedProver", "Outcome", "Task", "verified"]
