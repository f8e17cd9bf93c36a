"""A proof session over coqtop: untrusted tactics on any state, with crash and hang recovery.

Every state the session hands out is a node that remembers its parent and the sentences that led
to it, so any state can be reached again: by ``BackTo`` while the coqtop process that made it
lives, and by replaying the path from the theorem's statement after a restart. Each tactic runs
under Coq's ``Timeout`` and a wall-clock watchdog (see :class:`prover.coq.coqtop.Coqtop`):

* a tactic past its limit answers ``TacticError(kind=TIMEOUT)``;
* a coqtop that dies (killed, out of memory) or hangs past the watchdog is restarted, the context
  replayed, and the tactic that was running answers ``TacticError(kind=CRASH)``; states of the
  session stay valid and are replayed on demand the next time they are used;
* only when a restart itself keeps failing does the session raise :class:`EnvironmentFailure`.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from search_tree.protocol import (
    EnvironmentFailure,
    ErrorKind,
    Goal,
    ProofFinished,
    ProofGivenUp,
    TacticError,
    TacticResult,
    TacticState,
)

from .context import CoqContext
from .coqtop import Coqtop, CoqtopDied, Reply
from .goals import GoalParseError, Outcome, ProofView, parse_view
from .policy import CheckedTactic, RefusedTactic, check_tactic
from .worker import Worker


@dataclass
class _Node:
    """A state of the session: how it was reached and where it lives in the current coqtop."""

    parent: int | None
    sentences: tuple[str, ...]  # as sent to coqtop from the parent (tactics wrapped in Timeout)
    view: ProofView
    key: str  # the key of the TacticState handed out, to catch states of another session
    coq_id: int
    generation: int  # the coqtop generation ``coq_id`` belongs to; stale after a restart


class CoqSession:
    """One opened theorem. Create through :meth:`prover.coq.env.CoqEnvironment.open`."""

    def __init__(self, worker: Worker, context: CoqContext, tactic_timeout: float, max_restarts: int) -> None:
        self._worker = worker
        self._context = context
        self.tactic_timeout = tactic_timeout
        self.max_restarts = max_restarts
        self._nodes: list[_Node] = []
        self._generation = 0
        self.restarts = 0  # coqtop restarts so far, for statistics

    # -- public -------------------------------------------------------------------------------

    def start(self) -> TacticState:
        """Open the theorem (restarting coqtop if it dies while doing so); the initial state."""
        coq_id, view = self._open_context()
        state = self._tactic_state(0, view)
        self._nodes = [_Node(None, (), view, state.key, coq_id, self._generation)]
        return state

    def run_tac(self, state: TacticState, tactic: str) -> TacticResult:
        """Run one untrusted tactic on any state of this session (see the module docstring)."""
        if not 0 <= state.id < len(self._nodes) or self._nodes[state.id].key != state.key:
            raise ValueError(f"state id {state.id} does not belong to this session of {self._context.name!r}")
        try:
            checked = check_tactic(tactic)
        except RefusedTactic as exc:
            return TacticError(str(exc), ErrorKind.REFUSED)
        for _ in range(self.max_restarts + 1):
            try:
                backto = self._reach(state.id)
            except CoqtopDied as exc:
                self._recover(exc)
                continue
            except _Unrestorable as exc:
                return TacticError(str(exc), ErrorKind.CRASH)
            try:
                return self._apply(state.id, checked, backto)
            except CoqtopDied as exc:
                self._recover(exc)
                return TacticError(f"coqtop died running {tactic!r} ({exc}); restarted", ErrorKind.CRASH)
        raise EnvironmentFailure(f"coqtop kept dying while returning to state {state.id} of {self._context.name!r}")

    @property
    def coqtop(self) -> Coqtop | None:
        """The coqtop process now serving this session (it changes when coqtop is restarted)."""
        return self._worker.coqtop

    @property
    def coqtop_pid(self) -> int | None:
        """The pid of the coqtop process now serving this session (tests and benchmarks kill it)."""
        return None if self._worker.coqtop is None else self._worker.coqtop.pid

    # -- running tactics ----------------------------------------------------------------------

    def _timeout_sentence(self, tactic: str) -> str:
        return f"Timeout {max(1, math.ceil(self.tactic_timeout))} {tactic}"

    def _watchdog(self) -> float:
        """Wall-clock limit per reply: Coq's own Timeout plus slack for printing and scheduling."""
        return math.ceil(self.tactic_timeout) * 1.5 + 2.0

    def _apply(self, node_id: int, checked: CheckedTactic, backto: list[str]) -> TacticResult:
        node = self._nodes[node_id]
        sentences = list(checked.focusing)
        if checked.tactic is not None:
            sentences.append(self._timeout_sentence(checked.tactic))
        coqtop = self._worker.coqtop
        assert coqtop is not None
        replies = coqtop.send_all(backto + sentences, self._watchdog())
        if not all(r.ok for r in replies[:len(backto)]):
            raise CoqtopDied(f"BackTo {node.coq_id} failed: {replies[0].error}")
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
            if view is None:
                coq_id, view = self._worker.show()
            if view.outcome == Outcome.FINISHED:
                return ProofFinished(self._add(node_id, sentences, view, "", coq_id), "No more goals.")
            if view.outcome == Outcome.GAVE_UP:
                return ProofGivenUp("No more goals, but there are some goals you gave up")
            coq_id, view = self._worker.complete(coq_id, view, node.view)
        except GoalParseError as exc:
            return TacticError(f"unparseable proof state after {checked.sentences!r}: {exc}", ErrorKind.ERROR)
        state = self._tactic_state(len(self._nodes), view)
        self._add(node_id, sentences, view, state.key, coq_id)
        return state

    def _add(self, parent: int, sentences: list[str], view: ProofView, key: str, coq_id: int) -> int:
        self._nodes.append(_Node(parent, tuple(sentences), view, key, coq_id, self._generation))
        return len(self._nodes) - 1

    @staticmethod
    def _tactic_state(node_id: int, view: ProofView) -> TacticState:
        if view.outcome == Outcome.SHELVED:  # the shelved goals are the evars still to be found
            goals = tuple(Goal((), target, has_evar=True, name="shelved") for target in view.others)
        else:  # GOALS, or SUBPROOF_DONE with no focused goal until the next bullet
            goals = view.goals
        pp = view.render()
        return TacticState(pp=pp, id=node_id, goals=goals, key=pp)

    # -- reaching states and recovering ------------------------------------------------------

    def _reach(self, node_id: int) -> list[str]:
        """Make ``node_id`` reachable by ``BackTo``; returns the sentences to get there (to pipeline).

        A node made by an earlier coqtop generation is rebuilt by replaying its path from the
        nearest live ancestor.
        """
        coqtop = self._worker.coqtop
        if coqtop is None or not coqtop.alive:  # died between tactics: not this tactic's fault
            raise CoqtopDied("coqtop was found dead before the tactic")
        path = []
        i: int | None = node_id
        while i is not None and self._nodes[i].generation != self._generation:
            path.append(i)
            i = self._nodes[i].parent
        assert i is not None, "the root is always live after a restart"
        for j in reversed(path):
            node, parent = self._nodes[j], self._nodes[self._nodes[j].parent]  # type: ignore[index]
            replies = coqtop.send_all(coqtop.back_to_sentences(parent.coq_id) + list(node.sentences),
                                      self._watchdog())
            if not all(r.ok for r in replies):
                bad = next(r for r in replies if not r.ok)
                raise _Unrestorable(f"state {j} of {self._context.name!r} could not be restored after a "
                                    f"coqtop restart: {node.sentences!r} now fails: {bad.error}")
            try:
                node.coq_id, _ = self._worker.complete(replies[-1].state_id, node.view, parent.view)
            except GoalParseError as exc:
                raise _Unrestorable(f"state {j} could not be restored: {exc}") from None
            node.generation = self._generation
        return coqtop.back_to_sentences(self._nodes[node_id].coq_id)

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
        """Restart coqtop and reopen the theorem; every node becomes stale until replayed."""
        self.restarts += 1
        self._worker.close()
        self._generation += 1
        coq_id, _ = self._open_context()
        root = self._nodes[0]
        root.coq_id, root.generation = coq_id, self._generation


class _Unrestorable(RuntimeError):
    """A state's path no longer replays after a restart (e.g. a tactic near its time limit)."""


def _failure(reply: Reply) -> TacticError | None:
    """The error a reply stands for, or None when the sentence succeeded."""
    if reply.interrupted:
        return TacticError("the tactic ran past the wall-clock watchdog and was interrupted", ErrorKind.TIMEOUT)
    if reply.ok:
        return None
    if reply.error == "Timeout!":
        return TacticError("Timeout! (the tactic ran past its time limit)", ErrorKind.TIMEOUT)
    return TacticError(reply.error or reply.output)
