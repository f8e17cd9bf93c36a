"""Search budgets and the meter that enforces them and times every environment and model call."""

from __future__ import annotations

import math
import time
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Callable, Sequence

from search_tree.events import Focused, Generated, LoggedGoal, SearchEvent, StateLogged, TacticRun
from search_tree.protocol import (
    ErrorKind,
    FocusingSession,
    ProofFinished,
    ProofGivenUp,
    Session,
    TacticError,
    TacticResult,
    TacticState,
    Theorem,
    TimedSession,
)
from search_tree.result import StopKind, StopReason

if TYPE_CHECKING:
    from search_tree.value import ValueFunction

# A tactic proposer: state -> [(tactic, log-probability)]. Provers build it from a generator.
Propose = Callable[[TacticState], list[tuple[str, float]]]
# Receives every search event (expansion, tactic, outcome, timings); see search_tree.events.
EventSink = Callable[[SearchEvent], None]
#: Seconds past a search's timeout within which a tactic's success still counts (see Meter.run_tac):
#: the search reads its clock only between tactics, and a tactic that its session stopped on time
#: still spends a moment printing and parsing its answer.
LATE_GRACE = 0.5


@dataclass(frozen=True)
class Budget:
    """Limits of one search; ``None`` means unlimited. Checked after every tactic.

    A search built directly gets only the limits given here; the provers and the command line fill
    them in from the run's defaults (:mod:`prover.defaults`), which live above this package.

    ``max_expansions`` counts generator calls; ``max_env_calls`` counts calls into the prover
    (tactics and focusing) and is never overrun: MCTS checks a split's focus calls against it
    before making them (:meth:`Meter.affords`); ``max_simulations`` and ``max_nodes`` (proof-state nodes, AND nodes
    included) apply to MCTS, which counts them; best-first search ignores both.
    """

    timeout: float | None = None
    max_expansions: int | None = None
    max_env_calls: int | None = None
    max_simulations: int | None = None
    max_nodes: int | None = None


@dataclass(frozen=True)
class Reserve:
    """An expensive tactic that a best-first search guarantees a turn (CoqHammer's ``hammer``).

    Scored last among a state's suggestions, such a tactic waits behind every cheaper one, and
    when those time out one after another it never runs: the search is starved of its strongest
    single step. With a reserve, :class:`search_tree.best_first.BestFirstSearch` runs ``tactic``
    on the root (where the generator proposed it there) in its turn or, at the latest, once
    ``first_by`` of the timeout is spent, under ``first_limit`` seconds; and a second time, with
    every second the theorem has left, on the best open state it has not run on, as soon as the
    search runs out of candidates or only ``final`` of the timeout is left. The second call is
    made only with at least ``min_final`` seconds, and on a state other than the root: the
    session may refuse a tactic a second time on one state (CoqHammer's runs once per state).
    Without a timeout only the root call is scheduled (in its turn, under ``first_limit``).

    The second call gets the time left less a second, in whole seconds (the search reads its
    clock only between tactics). At the ``final`` deadline that is under ``final * timeout - 1``,
    so that call is made only where ``final * timeout`` exceeds ``min_final + 1`` (with a quarter
    and 4 s: searches longer than 20 s). In a shorter search (``demo``'s 10 s: 1 s at most would be
    left) the deadline passes without a call, rather than a call too short for the ATPs to find
    anything; the second call is then made only where the search runs out of candidates with
    ``min_final + 1`` seconds still left.

    ``same_problem``: tactics after which the reserved tactic faces the problem it faced before
    (CoqHammer introduces a goal's premises itself, so ``intros.`` changes nothing for it). The
    second call skips a state such a tactic made of one the tactic already ran on: on 60 stdlib
    val theorems, 19 of the default's 25 second calls went to the root after ``intros.``, and
    none of those proved anything (docs/coq.md, "Time limits").
    """

    tactic: str
    first_limit: float
    first_by: float
    final: float
    min_final: float = 4.0
    same_problem: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        if not self.tactic.strip() or self.first_limit <= 0 or self.min_final <= 0:
            raise ValueError(f"a reserve needs a tactic and positive limits, got {self!r}")
        if not (0.0 <= self.first_by <= 1.0 and 0.0 <= self.final < 1.0):
            raise ValueError(f"a reserve's first_by must lie in [0, 1] and final in [0, 1), got {self!r}")
        if isinstance(self.same_problem, str) or not all(isinstance(t, str) for t in self.same_problem):
            raise ValueError(f"a reserve's same_problem is a list of tactics, got {self.same_problem!r}")
        object.__setattr__(self, "same_problem", tuple(" ".join(t.split()) for t in self.same_problem))


def outcome_name(result: TacticResult) -> str:
    if isinstance(result, TacticState):
        return "state"
    if isinstance(result, ProofFinished):
        return "proved"
    if isinstance(result, ProofGivenUp):
        return "given_up"
    assert isinstance(result, TacticError)
    return result.kind.value


class Meter:
    """Counts and times what a search spends, and says when a budget is exhausted."""

    def __init__(self, budget: Budget, on_event: EventSink | None = None) -> None:
        self.budget = budget
        self.on_event = on_event
        self.start = time.monotonic()
        #: how much more time checking finished proofs inside steps may be taken off the clock (run_tac)
        self.checks_left = math.inf if budget.timeout is None else budget.timeout
        self.env_time = 0.0  # tactic and focus calls
        self.gen_time = 0.0
        self.value_time = 0.0  # value-function calls (a learned value is a model call)
        self.env_calls = 0  # every call into the prover (tactics and focusing): the shared budget
        self.focus_calls = 0  # of which focusing calls (MCTS only)
        self.expansions = 0
        self.simulations = 0
        self.nodes = 0
        self._described: set[int] = set()  # state ids the log already holds
        self._first_of_key: dict[str, int] = {}  # state key -> the first id logged with it

    @property
    def elapsed(self) -> float:
        return time.monotonic() - self.start

    def emit(self, event: SearchEvent) -> None:
        """Hand ``event`` to the sink, stamped with the time since the search began."""
        if self.on_event is not None:
            self.on_event(replace(event, t=round(self.elapsed, 4)))

    def describe(self, state: TacticState) -> None:
        """Log ``state`` once (a ``state`` event): its goals, or ``same_as`` the first state logged
        with its key (the search merges them). A tree view rebuilt from the log alone can then show
        what every node was about and tell a merge from a new state, which ids alone cannot (a
        backend may give every tactic result a fresh id)."""
        if self.on_event is None or state.id in self._described:
            return
        self._described.add(state.id)
        first = self._first_of_key.setdefault(state.key, state.id)
        if first != state.id:
            self.emit(StateLogged(state=state.id, same_as=first))
            return
        self.emit(StateLogged(state=state.id, goals=tuple(
            LoggedGoal(g.target, tuple((h.name, h.type) for h in g.hypotheses), g.name) for g in state.goals)))

    def run_tac(self, session: Session, state: TacticState, tactic: str, logprob: float | None = None,
                prior: float | None = None, seconds: float | None = None) -> tuple[TacticResult, float]:
        """Run ``tactic``; the search's own numbers (a log-probability, a prior) go into its event.

        ``seconds``: the limit the search chose for this tactic instead of the session's own (the
        reserved tactic's). Under a timeout no tactic gets more than the search has left
        (:meth:`tactic_limit`), where the session takes a limit (a :class:`TimedSession`); and a
        success that answers more than :data:`LATE_GRACE` seconds after the timeout (a session that
        cannot be limited, or one that overran its limit) is a ``TIMEOUT`` error: a proof is found
        within the limit or not at all, whatever the backend. The time the environment spent
        checking a finished proof inside the step (``checked_seconds`` of the result) is taken off
        the search's clock: it is the final check's, which the search does not count either (a
        12.8-s check of a section lemma's 1.1-s proof made its 10-s search time out).
        """
        self.describe(state)
        limit = self.tactic_limit(seconds)
        t0 = time.monotonic()
        if limit is not None and isinstance(session, TimedSession):
            result = session.run_tac_within(state, tactic, limit, at_most=seconds is None)
        else:
            result = session.run_tac(state, tactic)
        # the early final check is not the search's time (docstring), up to the timeout in all: a
        # search whose every proof is refused stops within twice its timeout of wall clock
        checked = min(getattr(result, "checked_seconds", 0.0), self.checks_left)
        self.checks_left -= checked
        self.start += checked
        dt = time.monotonic() - t0 - checked
        self.env_time += dt
        self.env_calls += 1
        timeout = self.budget.timeout
        late = None if timeout is None else self.elapsed - timeout
        if late is not None and late > LATE_GRACE and isinstance(result, (TacticState, ProofFinished)):
            result = TacticError(f"the tactic answered {late:.1f}s after the search's {timeout:g}s timeout; "
                                 f"its result does not count", ErrorKind.TIMEOUT)
        if isinstance(result, TacticState):
            self.describe(result)
        self.emit(TacticRun(
            state=state.id,
            tactic=tactic,
            outcome=outcome_name(result),
            next_state=result.id if isinstance(result, TacticState) else None,
            message=result.message if isinstance(result, (TacticError, ProofGivenUp)) else None,
            seconds=round(dt, 5),
            logprob=logprob,
            prior=prior,
        ))
        return result, dt

    def tactic_limit(self, seconds: float | None = None) -> float | None:
        """The limit of a tactic run now: ``seconds`` (None: the session's own), and under a
        timeout at most the whole seconds the search has left, at least one (coqtop's ``Timeout``
        takes whole seconds; rounding down keeps the tactic within the search's time, and a
        tactic started in the last second gets one, which :data:`LATE_GRACE` may not cover)."""
        timeout = self.budget.timeout
        if timeout is None:
            return seconds
        left = max(1.0, float(math.floor(timeout - self.elapsed)))
        return left if seconds is None else min(seconds, left)

    def generate(self, propose: Propose, state: TacticState) -> list[tuple[str, float]]:
        t0 = time.monotonic()
        suggestions = propose(state)
        dt = time.monotonic() - t0
        self.gen_time += dt
        self.emit(Generated(state=state.id, num=len(suggestions), seconds=round(dt, 5)))
        return suggestions

    def focus(
        self, session: FocusingSession, state: TacticState, goal_index: int
    ) -> TacticState | TacticError:
        t0 = time.monotonic()
        result = session.focus(state, goal_index)
        dt = time.monotonic() - t0
        self.env_time += dt
        self.env_calls += 1
        self.focus_calls += 1
        if isinstance(result, TacticState):
            self.describe(result)
        self.emit(Focused(state=state.id, goal=goal_index, outcome=outcome_name(result),
                          next_state=result.id if isinstance(result, TacticState) else None, seconds=round(dt, 5)))
        return result

    def evaluate(
        self, value: "ValueFunction", states: Sequence[TacticState], theorem: Theorem
    ) -> list[float]:
        t0 = time.monotonic()
        costs = list(value.value(states, theorem))
        self.value_time += time.monotonic() - t0
        return costs

    def affords(self, env_calls: int) -> bool:
        """Whether ``env_calls`` more calls into the prover stay within ``max_env_calls``.

        A split focuses every goal in a row, without a budget check in between; asking first keeps
        the published equal-calls comparison honest (no search spends more than its budget).
        """
        limit = self.budget.max_env_calls
        return limit is None or self.env_calls + env_calls <= limit

    def exhausted(self, expanding: bool = False) -> StopReason | None:
        """The first exhausted limit, or None while budget remains.

        ``expanding``: ``max_expansions`` is not checked, because the caller checks it before
        each generator call itself: a search that has spent its expansions still tries the
        tactics those expansions proposed (a one-expansion search of seven tactics tries all
        seven, not the first one).
        """
        b = self.budget
        if b.timeout is not None and self.elapsed >= b.timeout:
            return StopReason(StopKind.TIMEOUT)
        if not expanding and b.max_expansions is not None and self.expansions >= b.max_expansions:
            return StopReason(StopKind.MAX_EXPANSIONS)
        if b.max_env_calls is not None and self.env_calls >= b.max_env_calls:
            return StopReason(StopKind.MAX_ENV_CALLS)
        if b.max_simulations is not None and self.simulations >= b.max_simulations:
            return StopReason(StopKind.MAX_SIMULATIONS)
        if b.max_nodes is not None and self.nodes >= b.max_nodes:
            return StopReason(StopKind.MAX_NODES)
        return None
