"""A proof session over coqtop: untrusted tactics on any state, with crash and hang recovery.

Every state the session hands out is a node that remembers its parent and the sentences that led
to it, so any state can be reached again. coqtop's document is linear: ``BackTo`` reaches only
states on the current branch (going back to a state and adding sentences discards the states
after it, which then answer ``Stm.Vcs_aux.Expired``). The session therefore keeps the chain of
nodes whose coqtop states are live, from the statement to the tip; a node on it is reached with
``BackTo``, any other by ``BackTo`` its deepest ancestor on the chain and replaying the tactics
from there (pipelined in one write). After a restart the chain is just the statement. Each
tactic runs under Coq's ``Timeout`` and a wall-clock watchdog (see
:class:`prover.coq.coqtop.Coqtop`):

* a tactic past its limit answers ``TacticError(kind=TIMEOUT)``;
* a coqtop that dies (killed, out of memory) or hangs past the watchdog is restarted, the context
  replayed, and the tactic that was running answers ``TacticError(kind=CRASH)``; states of the
  session stay valid and are replayed on demand the next time they are used (a coqtop found
  dead before a tactic is restarted first, and the tactic then runs normally);
* a tactic whose output imitates coqtop's prompt answers ``TacticError(kind=ERROR)`` (coqtop is
  kept: the driver re-synchronises on its sync mark); one that prints more than the driver's
  reply cap answers ``ERROR`` (or ``TIMEOUT`` when Coq's ``Timeout`` stopped it); a tactic over
  the driver's sentence cap is ``REFUSED`` (see :mod:`prover.coq.coqtop`);
* only when a restart itself keeps failing does the session raise :class:`EnvironmentFailure`.
"""

from __future__ import annotations

import dataclasses
import math
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass

from search_tree.protocol import (
    EnvironmentFailure,
    ErrorKind,
    Goal,
    Proof,
    ProofFinished,
    ProofGivenUp,
    TacticError,
    TacticResult,
    TacticState,
    linear_proof,
)

from .context import CoqContext
from .coqtop import MAX_ERROR_CHARS, MAX_REPLY_BYTES, Coqtop, CoqtopDied, ForgedReply, Reply, SentenceTooLong
from .goals import MSG_SUBPROOF_DONE, GoalParseError, Outcome, ProofView, parse_view
from .policy import CheckedTactic, RefusedTactic, check_tactic, head_word
from .reach import calls_atp
from .worker import Worker


@dataclass
class _Node:
    """A state of the session: how it was reached and, while it is on the chain, its coqtop id."""

    parent: int | None
    step: CheckedTactic | None  # what led here from the parent (None for the root)
    view: ProofView
    key: str  # the key of the TacticState handed out, to catch states of another session
    coq_id: int  # meaningful only while the node is on the session's chain
    focus_depth: int = 0  # how many blocks opened by focus() enclose this state


REPLAY_SLACK = 3.0  # replays get this many times a tactic's own limit
#: Seconds the wall-clock watchdog waits past a tactic's limit before it interrupts coqtop. Coq's own
#: ``Timeout`` normally stops a tactic first; the watchdog stops those it does not (CoqHammer's
#: ``hammer`` can run on past it), soon enough that a search's time limit holds within seconds.
WATCHDOG_GRACE = 1.5


class CoqSession:
    """One opened theorem. Create through :meth:`prover.coq.env.CoqEnvironment.open`."""

    runs_atp = False  # whether ``hammer`` may run (:class:`prover.coq.hammer.HammerSession`)
    #: called with the proof when a step finishes it outside any focus (set by the environment:
    #: :meth:`prover.coq.env.CoqEnvironment._finish_refusal` says which proofs it checks at once); a
    #: message refuses the step (``REFUSED``, the search goes on), None accepts it. Proofs finished
    #: inside a focus are left to the final verification.
    finish_check: Callable[[Proof], str | None] | None = None

    def __init__(self, worker: Worker, context: CoqContext, tactic_timeout: float, max_restarts: int,
                 tactic_limits: Mapping[str, float] | None = None) -> None:
        self._within: tuple[float, bool] | None = None  # (seconds, at_most) of the run_tac_within call running
        self._worker = worker
        self._context = context
        self.tactic_timeout = tactic_timeout
        self.tactic_limits = dict(tactic_limits or {})
        self.max_restarts = max_restarts
        self._nodes: list[_Node] = []
        self._chain: list[int] = []  # nodes whose coqtop states are live, root first
        self._on_chain: dict[int, int] = {}  # node -> its index in the chain
        self.restarts = 0  # coqtop restarts so far, for statistics
        self.replayed_tactics = 0  # tactics re-run to reach states off the chain, for statistics

    # -- public -------------------------------------------------------------------------------

    def start(self) -> TacticState:
        """Open the theorem (restarting coqtop if it dies while doing so); the initial state."""
        coq_id, view = self._open_context()
        state = self._tactic_state(0, view)
        self._nodes = [_Node(None, None, view, state.key, coq_id)]
        self._set_chain([0])
        return state

    def run_tac(self, state: TacticState, tactic: str) -> TacticResult:
        """Run one untrusted tactic on any state of this session (see the module docstring)."""
        self._check_state(state)
        try:
            checked = check_tactic(tactic)
        except RefusedTactic as exc:
            return TacticError(str(exc), ErrorKind.REFUSED)
        if checked.tactic is not None and calls_atp(checked.tactic) and not self.runs_atp:
            return TacticError(f"refused tactic {tactic!r}: external provers run only in an environment with the "
                               f"hammer addition, which limits and rewrites them (prover.coq.hammer)",
                               ErrorKind.REFUSED)
        if checked.focusing and self._nodes[state.id].focus_depth:
            return TacticError(f"refused tactic {tactic!r}: bullets and braces are refused inside a goal the search "
                               f"focused (the search does the focusing; a `}}` would close its block)",
                               ErrorKind.REFUSED)
        return self._run_checked(state, checked, repr(tactic))

    def run_tac_within(self, state: TacticState, tactic: str, seconds: float,
                       at_most: bool = False) -> TacticResult:
        """:meth:`run_tac` under at most ``seconds`` (:class:`search_tree.protocol.TimedSession`):
        the search's clock bounds every tactic, so that none runs past the time a search has left.
        Here ``seconds`` only lowers a tactic's own limit (whatever ``at_most`` says);
        :class:`prover.coq.hammer.HammerSession` lets a ``hammer`` step have more."""
        if seconds <= 0:
            raise ValueError(f"a tactic's time limit must be positive, got {seconds!r}")
        self._within = (seconds, at_most)
        try:
            return self.run_tac(state, tactic)
        finally:
            self._within = None

    def focus(self, state: TacticState, goal_index: int) -> TacticState | TacticError:
        """Only goal ``goal_index`` of ``state``, focused with ``n: {`` (n = goal_index + 1).

        The block stays open in every state reached from the focused one; when its goal is
        solved coqtop answers "This subproof is complete, but there are some unfocused goals",
        which :meth:`run_tac` turns into :class:`ProofFinished` (see
        :class:`search_tree.protocol.FocusingSession`).
        """
        self._check_state(state)
        if state.num_goals < 2 or not 0 <= goal_index < state.num_goals:
            return TacticError(f"cannot focus goal {goal_index} of state {state.id}: it has {state.num_goals} "
                               f"goals (focus needs at least two)", ErrorKind.REFUSED)
        result = self._run_checked(state, CheckedTactic((f"{goal_index + 1}: {{",), None), f"focus {goal_index}",
                                   opens_focus=True)
        if isinstance(result, TacticState) and result.num_goals != 1:
            return TacticError(f"focusing goal {goal_index} of state {state.id} showed {result.num_goals} goals",
                               ErrorKind.ERROR)
        if not isinstance(result, (TacticState, TacticError)):
            return TacticError(f"focusing goal {goal_index} of state {state.id} answered {result!r}", ErrorKind.ERROR)
        return result

    def _check_state(self, state: TacticState) -> None:
        if not 0 <= state.id < len(self._nodes) or self._nodes[state.id].key != state.key:
            raise ValueError(f"state id {state.id} does not belong to this session of {self._context.name!r}")

    def _run_checked(self, state: TacticState, checked: CheckedTactic, what: str,
                     opens_focus: bool = False) -> TacticResult:
        for _ in range(self.max_restarts + 1):
            try:
                backto = self._reach(state.id)
            except CoqtopDied as exc:
                self._recover(exc)
                continue
            except _Unrestorable as exc:
                return TacticError(str(exc), ErrorKind.CRASH)
            try:
                return self._apply(state.id, checked, backto, opens_focus)
            except SentenceTooLong as exc:
                return TacticError(f"refused tactic {what}: {exc}", ErrorKind.REFUSED)
            except ForgedReply as exc:  # coqtop is fine and its tip known; the tactic's output is not
                self._set_chain(self._chain[: self._on_chain[state.id] + 1])
                return TacticError(str(exc), ErrorKind.ERROR)
            except CoqtopDied as exc:
                self._recover(exc)
                return TacticError(f"coqtop died running {what} ({exc}); restarted", ErrorKind.CRASH)
        # coqtop restarts fine but dies replaying the way to this state: lose the state, not the search
        return TacticError(f"coqtop died {self.max_restarts + 1} times replaying the path to state {state.id} "
                           f"of {self._context.name!r}; that state is lost", ErrorKind.CRASH)

    @property
    def coqtop(self) -> Coqtop | None:
        """The coqtop process now serving this session (it changes when coqtop is restarted)."""
        return self._worker.coqtop

    @property
    def coqtop_pid(self) -> int | None:
        """The pid of the coqtop process now serving this session (tests and benchmarks kill it)."""
        return None if self._worker.coqtop is None else self._worker.coqtop.pid

    # -- running tactics ----------------------------------------------------------------------

    def _sentences(self, step: CheckedTactic, limit: float) -> list[str]:
        """The sentences sent for a step: focusing ones as they are, the tactic under ``Timeout``
        of ``limit`` seconds (rounded up: Coq takes whole seconds).

        They are the policy's normalised sentences (:attr:`CheckedTactic.sentences`), the same text
        :func:`prover.coq.render.render_proof` writes, never the generator's raw string.
        """
        out = list(step.focusing)
        if step.tactic is not None:
            out.append(f"Timeout {max(1, math.ceil(limit))} {step.tactic}")
        return out

    @staticmethod
    def _watchdog(limit: float) -> float:
        """Wall-clock limit per reply for a sentence under Coq's ``Timeout`` of ``limit`` seconds:
        that ``Timeout`` plus :data:`WATCHDOG_GRACE` for printing and scheduling. Past it coqtop is
        interrupted (SIGINT keeps its state; :class:`prover.coq.coqtop.Coqtop`) and the tactic
        answers ``TIMEOUT``."""
        return max(1, math.ceil(limit)) + WATCHDOG_GRACE

    def _own_limit(self, step: CheckedTactic) -> float:
        """The time limit of one step of its own: ``tactic_timeout``, or less for a tactic whose
        first word has its own limit in ``tactic_limits``; a hook
        (:class:`prover.coq.hammer.HammerSession` gives ``hammer`` its own)."""
        head = None if step.tactic is None else head_word(step.tactic)
        return min(self.tactic_timeout, self.tactic_limits.get(head, self.tactic_timeout) if head else self.tactic_timeout)

    def _time_limit(self, step: CheckedTactic) -> float:
        """The time limit of one step run now: its own, lowered to the seconds
        :meth:`run_tac_within` was given."""
        own = self._own_limit(step)
        return own if self._within is None else min(own, self._within[0])

    def _recorded(self, step: CheckedTactic, replies: list[Reply]) -> CheckedTactic | TacticError:
        """The step to remember for a new state (it is what replays re-run), given the replies to
        the step's sentences; a hook: :class:`prover.coq.hammer.HammerSession` replaces ``hammer``
        by the reconstruction tactic it printed, so that no replay calls an ATP again."""
        return step

    def _apply(self, node_id: int, checked: CheckedTactic, backto: list[str], opens_focus: bool) -> TacticResult:
        node = self._nodes[node_id]
        limit = self._time_limit(checked)
        sentences = self._sentences(checked, limit)
        coqtop = self._worker.coqtop
        assert coqtop is not None
        replies = coqtop.send_all(backto + sentences, self._watchdog(limit))
        if not all(r.ok for r in replies[:len(backto)]):
            raise CoqtopDied(f"BackTo {node.coq_id} failed: {replies[0].error}")
        self._set_chain(self._chain[: self._on_chain[node_id] + 1])  # later states are discarded
        view: ProofView | None = node.view
        coq_id = replies[-1].state_id
        try:
            for reply in replies[len(backto):]:
                failure = _failure(reply)
                if failure is not None:
                    return failure
                printed = parse_view(reply.output)
                # printed nothing: unchanged, unless coqtop compared with an abandoned branch
                view = printed if printed is not None else None if reply.stale_printer else view
            recorded = self._recorded(checked, replies[len(backto):])
            if isinstance(recorded, TacticError):
                return recorded
            checked = recorded
            if view is None:
                coq_id, view = self._worker.show()
            depth = node.focus_depth + opens_focus
            if view.outcome == Outcome.FINISHED:
                started = time.monotonic()
                refused = self._refused(node_id, checked) if depth == 0 else None
                spent = time.monotonic() - started  # the final check's, done early: not the search's
                if refused is not None:
                    return TacticError(refused, ErrorKind.REFUSED, spent)
                return ProofFinished(self._add(node_id, checked, view, "", coq_id, depth), "No more goals.", spent)
            if view.outcome == Outcome.SUBPROOF_DONE and depth:  # no user block inside a focus: it is ours
                if view.shelved:  # e.g. `shelve.`: the focused goal was put aside, not proved
                    return TacticError(f"{checked.sentences!r} left the focused goal with {view.shelved} shelved "
                                       f"goal(s) and no focused one; a focused goal must be proved", ErrorKind.ERROR)
                return ProofFinished(self._add(node_id, checked, view, "", coq_id, depth), MSG_SUBPROOF_DONE)
            if view.outcome == Outcome.GAVE_UP:
                return ProofGivenUp("No more goals, but there are some goals you gave up")
            coq_id, view = self._worker.complete(coq_id, view, node.view)
        except GoalParseError as exc:
            return TacticError(f"unparseable proof state after {checked.sentences!r}: {exc}", ErrorKind.ERROR)
        state = self._tactic_state(len(self._nodes), view, focused=depth > 0)
        self._add(node_id, checked, view, state.key, coq_id, depth)
        return state

    def _refused(self, node_id: int, step: CheckedTactic) -> str | None:
        """What :attr:`finish_check` says of the proof that ``step`` from node ``node_id`` finishes
        (the steps of the path from the statement, as recorded): None when there is no check."""
        if self.finish_check is None:
            return None
        steps = [step.text]
        node = self._nodes[node_id]
        while node.parent is not None:
            assert node.step is not None
            steps.append(node.step.text)
            node = self._nodes[node.parent]
        return self.finish_check(linear_proof(steps[::-1]))

    def _add(self, parent: int, step: CheckedTactic, view: ProofView, key: str, coq_id: int, depth: int) -> int:
        """A new node made from ``parent`` (the tip of the chain), which becomes the new tip."""
        self._nodes.append(_Node(parent, step, view, key, coq_id, depth))
        new = len(self._nodes) - 1
        self._set_chain(self._chain + [new])
        return new

    @staticmethod
    def _tactic_state(node_id: int, view: ProofView, focused: bool = False) -> TacticState:
        if view.outcome == Outcome.SHELVED:  # the shelved goals are the evars still to be found
            goals = tuple(Goal((), target, has_metavariable=True, name="shelved") for target in view.others)
        else:  # GOALS, or SUBPROOF_DONE with no focused goal until the next bullet
            goals = view.goals
        if focused and view.outcome == Outcome.GOALS:
            # inside a focus the unfocused goals all lie outside it (no user block is opened there):
            # the state is its own goals, whatever the rest of the proof looks like
            view = dataclasses.replace(view, others=())
        pp = view.render()
        return TacticState(pp=pp, id=node_id, goals=goals, key=pp)

    # -- reaching states and recovering ------------------------------------------------------

    def _set_chain(self, chain: list[int]) -> None:
        self._chain = chain
        self._on_chain = {n: i for i, n in enumerate(chain)}

    def _reach(self, node_id: int) -> list[str]:
        """Make ``node_id`` the tip or reachable by ``BackTo``; returns the sentences to get there.

        A node off the chain is rebuilt by replaying its path from its deepest ancestor on the
        chain; the sentences returned are then empty (coqtop is at the node).
        """
        coqtop = self._worker.coqtop
        if coqtop is None or not coqtop.alive:  # died between tactics: not this tactic's fault
            raise CoqtopDied("coqtop was found dead before the tactic")
        path: list[int] = []
        i = node_id
        while i not in self._on_chain:
            path.append(i)
            parent = self._nodes[i].parent
            assert parent is not None  # the root is always on the chain
            i = parent
        if not path:
            return coqtop.back_to_sentences(self._nodes[node_id].coq_id)
        path.reverse()
        # a replayed tactic gets REPLAY_SLACK times its own limit (not the search's time left): one that
        # succeeded once near its limit must not fail when it is replayed to rebuild a state
        steps: list[CheckedTactic] = [self._nodes[j].step for j in path]  # type: ignore[misc]
        per_node = [self._sentences(step, self._own_limit(step) * REPLAY_SLACK) for step in steps]
        sentences = [s for group in per_node for s in group]
        replies = coqtop.send_all(coqtop.back_to_sentences(self._nodes[i].coq_id) + sentences,
                                  self._watchdog(max(map(self._own_limit, steps)) * REPLAY_SLACK))
        bad = next((r for r in replies if not r.ok), None)
        if bad is not None:
            self._set_chain(self._chain[: self._on_chain[i] + 1])  # the old branch is gone either way
            raise _Unrestorable(f"state {node_id} of {self._context.name!r} could not be restored: replaying "
                                f"{per_node!r} failed: {bad.error}")
        self.replayed_tactics += len(path)
        self._set_chain(self._chain[: self._on_chain[i] + 1] + path)
        end = len(replies)
        for j, group in zip(reversed(path), reversed(per_node)):  # a node's id: the reply to its last sentence
            self._nodes[j].coq_id = replies[end - 1].state_id
            end -= len(group)
        return []

    def _open_context(self) -> tuple[int, ProofView]:
        last: Exception | None = None
        for _ in range(self.max_restarts + 1):
            try:
                return self._worker.open(self._context)
            except CoqtopDied as exc:
                last = exc
                self.restarts += 1
                self._worker.close()
        raise EnvironmentFailure(f"coqtop died {self.max_restarts + 1} times opening {self._context.name!r}: {last}")

    def _recover(self, why: CoqtopDied) -> None:
        """Restart coqtop and reopen the theorem; other nodes are replayed when next used."""
        self.restarts += 1
        self._worker.close()
        self._nodes[0].coq_id, _ = self._open_context()
        self._set_chain([0])


class _Unrestorable(RuntimeError):
    """A state's path no longer replays (e.g. a tactic that succeeded near its time limit)."""


def _failure(reply: Reply) -> TacticError | None:
    """The error a reply stands for, or None when the sentence succeeded."""
    if reply.interrupted:
        return TacticError("the tactic ran past the wall-clock watchdog and was interrupted", ErrorKind.TIMEOUT)
    if reply.ok:
        return None
    if reply.timed_out:
        return TacticError("Timeout! (the tactic ran past its time limit)", ErrorKind.TIMEOUT)
    if reply.dropped:
        return TacticError(f"the tactic printed more than {MAX_REPLY_BYTES} bytes; its reply is not read",
                           ErrorKind.ERROR)
    return TacticError(reply.error or reply.output[:MAX_ERROR_CHARS])
