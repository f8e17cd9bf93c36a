"""Provers: a search algorithm wired to an environment, a generator and a final re-check.

The search loops live in :mod:`search_tree`; a prover opens the theorem, runs the search, and
reports PROVED only after the backend has re-checked the proof independently
(:meth:`search_tree.Environment.verify`).
"""

from __future__ import annotations

import time
from abc import ABC, abstractmethod

from typing import Any

from generator.base import TacticGenerator
from generator.hf import ValueHead
from prover.defaults import RUN, SEARCH_WIDTH
from prover.registry import SEARCHES
from search_tree import (
    BestFirstSearch,
    Budget,
    Environment,
    EnvironmentFailure,
    EventSink,
    Language,
    MCTSConfig,
    MCTSSearch,
    Propose,
    Reserve,
    SearchResult,
    Session,
    Status,
    StopKind,
    StopReason,
    TacticState,
    Theorem,
    ValueFunction,
)
from search_tree.events import Proposal, Proposed, Verified
from search_tree.value import make_value

#: best-first's ``value`` option for the generator's own value estimate
GENERATOR_VALUE = "generator"


def _value(value: str | ValueHead | ValueFunction | None, tac_gen: TacticGenerator) -> str | ValueFunction | None:
    """A search's ``value`` option as :func:`search_tree.value.make_value` takes it: the generator's
    own estimate for :data:`GENERATOR_VALUE` (None when it has none), a :class:`ValueHead` loaded
    (here, in the process that searches, so a spec that names one travels as a path), anything else
    as given."""
    if value == GENERATOR_VALUE:
        return tac_gen.value
    if isinstance(value, ValueHead):
        return value.load()
    return value


def verified(env: Environment, result: SearchResult, on_event: EventSink | None = None) -> SearchResult:
    """Re-check a found proof; a proof the backend does not accept is reported as FAILED."""
    if result.status != Status.PROVED or result.proof is None:
        return result
    t0 = time.monotonic()
    verdict = env.verify(result.theorem, result.proof)
    result.stats["verify_time"] = time.monotonic() - t0
    result.script = verdict.script
    result.stats["axioms"] = list(verdict.axioms)  # what the proof assumes, printed with it
    if on_event is not None:
        on_event(Verified(ok=verdict.ok, message=verdict.message))
    if not verdict.ok:
        result.status = Status.FAILED
        result.stop_reason = StopReason(StopKind.VERIFICATION_FAILED, verdict.message)
    return result


class Prover(ABC):
    """Opens the theorem, runs one search in the session, and re-checks what it found."""

    tac_gen: TacticGenerator
    num_sampled_tactics: int

    @abstractmethod
    def _search(self, session: Session, init_state: TacticState, propose: Propose, theorem: Theorem,
                on_event: EventSink | None, language: Language | None) -> SearchResult:
        """Run the algorithm in an open session of an environment in ``language`` (None: one
        without a :class:`~search_tree.language.Language`)."""

    def search(self, env: Environment, theorem: Theorem, on_event: EventSink | None = None) -> SearchResult:
        t0 = time.monotonic()

        def propose(state: TacticState) -> list[tuple[str, float]]:
            suggestions = self.tac_gen.generate(state, theorem, self.num_sampled_tactics)
            proposers = None if on_event is None else self.tac_gen.proposers(state)
            if on_event is not None and proposers is not None:  # a union records who proposed what
                on_event(Proposed(state=state.id, candidates=tuple(
                    Proposal(t, member, round(score, 4)) for t, member, score in proposers)))
            return suggestions

        try:
            with env.open(theorem) as (session, init_state):
                result = self._search(session, init_state, propose, theorem, on_event, env.language)
        except EnvironmentFailure as exc:
            return SearchResult.failed(theorem, StopReason(StopKind.ENVIRONMENT_FAILURE, str(exc)), time.monotonic() - t0)
        refused = env.refused_proof(theorem)
        if result.status != Status.PROVED and refused is not None and not result.stop_reason.detail:
            result.stop_reason = StopReason(result.stop_reason.kind, f"a proof it found was refused: {refused}")
        return verified(env, result, on_event)


class BestFirstSearchProver(Prover):
    """Best-first search with a tactic generator, as in ReProver.

    ``timeout`` is the wall-clock budget in seconds (default :data:`prover.defaults.RUN`'s, the
    command line's), ``max_expansions`` and ``max_env_calls`` are optional further limits,
    ``num_sampled_tactics`` the suggestions asked for per expansion and
    ``length_alpha`` the length normalisation of priorities (0: plain cumulative log-probability).
    ``value`` adds a remaining-cost estimate to the priority (``value_weight`` per step, see
    :mod:`search_tree.best_first`): ``"generator"`` for the generator's own (a learned policy's value,
    none if it has none), or ``"heuristic"`` / ``"constant"`` / a :class:`ValueHead` / a model as for MCTS. ``reserve``
    (a :class:`search_tree.Reserve`; a run's configuration holds its fields) guarantees one
    expensive tactic its turns: the default Coq prover's ``hammer``.
    """

    def __init__(
        self,
        tac_gen: TacticGenerator,
        timeout: float = RUN.timeout,
        max_expansions: int | None = None,
        num_sampled_tactics: int = SEARCH_WIDTH,
        max_env_calls: int | None = None,
        length_alpha: float = 0.0,
        value: str | ValueHead | ValueFunction | None = None,
        value_weight: float = 1.0,
        reserve: Reserve | None = None,
    ) -> None:
        self.tac_gen = tac_gen
        self.budget = Budget(timeout=timeout, max_expansions=max_expansions, max_env_calls=max_env_calls)
        self.reserve = reserve
        self.num_sampled_tactics = num_sampled_tactics
        self.length_alpha = length_alpha
        resolved = _value(value, tac_gen)
        self.value = None if resolved is None else make_value(resolved)
        self.value_weight = value_weight

    def _search(self, session, init_state, propose, theorem, on_event, language):
        search = BestFirstSearch(session, init_state, propose, self.budget, length_alpha=self.length_alpha,
                                 on_event=on_event, value=self.value, value_weight=self.value_weight,
                                 reserve=self.reserve)
        return search.run(theorem)


class MCTSProver(Prover):
    """AND-OR PUCT MCTS with a tactic generator and a value function (Reap, HTPS).

    Budgets as for :class:`BestFirstSearchProver` (``max_expansions`` counts generator calls),
    plus ``max_simulations`` and ``max_nodes``. ``value`` is ``"constant"``, ``"heuristic"``, a
    :class:`ValueHead` (a policy-value checkpoint's value head), a learned model with
    ``value(states, context)``, or ``"generator"`` for the generator's own (``"constant"`` when it
    has none); ``config`` holds the search constants.
    """

    def __init__(
        self,
        tac_gen: TacticGenerator,
        timeout: float = RUN.timeout,
        max_expansions: int | None = None,
        num_sampled_tactics: int = SEARCH_WIDTH,
        max_env_calls: int | None = None,
        max_simulations: int | None = None,
        max_nodes: int | None = None,
        value: str | ValueHead | ValueFunction = "constant",
        config: MCTSConfig | None = None,
    ) -> None:
        self.tac_gen = tac_gen
        self.budget = Budget(timeout=timeout, max_expansions=max_expansions, max_env_calls=max_env_calls,
                             max_simulations=max_simulations, max_nodes=max_nodes)
        self.num_sampled_tactics = num_sampled_tactics
        resolved = _value(value, tac_gen)
        self.value = "constant" if resolved is None else resolved
        self.config = config or MCTSConfig()

    def _search(self, session, init_state, propose, theorem, on_event, language):
        search = MCTSSearch(session, init_state, propose, self.budget, value=self.value,
                            config=self.config, on_event=on_event, language=language)
        return search.run(theorem)


def make_prover(algorithm: str, tac_gen: TacticGenerator, **kwargs) -> Prover:
    """A prover by algorithm name (``best_first`` or ``mcts``); ``kwargs`` go to its constructor."""
    return SEARCHES.load(algorithm)(tac_gen, **kwargs)


# The multi-worker prover lives in prover.run.distributed (which builds provers through the registry,
# and so imports this module); ReProver users find it here too. Re-exported lazily (PEP 562), so
# that importing either module first works and neither needs the other while it initialises.
_DISTRIBUTED = ("DistributedProver", "Outcome", "Task")


def __getattr__(name: str) -> Any:
    if name in _DISTRIBUTED:
        import prover.run.distributed

        return getattr(prover.run.distributed, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
