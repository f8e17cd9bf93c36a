"""Best-first proof search (ReProver, Yang et al. 2023; LeanAgent, Kumarappan et al. 2024), lazy:
one tactic at a time.

Priority is the cumulative log-probability of the best path to a node, optionally
length-normalised as ``score / depth**alpha`` so that long but likely paths are not starved.
Equal states (by :attr:`TacticState.key`) are merged; a state reached again by a more likely path
takes the better priority while it still has tactics to try, and so do those tactics (the states
they already reached keep theirs: the better path is not propagated down).

The queue holds two kinds of entries. An open node not yet expanded stands at its priority; when
it comes first the generator is asked once for its suggestions (one expansion), which enter the
queue as *candidates*. A candidate (node, tactic, log-probability) stands where the state its
tactic leads to would stand: the priority of a path one step longer, with the tactic's
log-probability added to the node's and the depth one more; when it comes first that one tactic
is run. So the queue orders single tactics, not whole states: a state's unlikely tactics wait
behind the likely tactics of its children. Running all of a state's suggestions before any child
is tried (the eager expansion of ReProver's search) spends the whole budget of a short search on
the root whenever its low-ranked suggestions are slow ones (CoqHammer's ``sauto`` and ``hammer``
under a time limit of seconds each), while a two-step proof, a likely first step and then a likely
second one, waits behind them. Without a value, a candidate's priority is exactly that of the new
state it may reach; without a length normalisation too, it is never above its node's
(log-probabilities are never above 0), and the queue is a uniform-cost search over tactic steps
costing ``-logprob``: every state is first reached by a most likely path. Entries of equal
priority come out in the order they went in.

With a value function (:mod:`search_tree.value`: a remaining cost in tactic steps), a node's
priority also pays ``value_weight`` per estimated step: the path's log-probability times the
chance of finishing from the node, read as ``gamma**cost`` with ``log(1/gamma) = value_weight``.
This is GPT-f's use of a learned value in best-first search (Polu & Sutskever 2020), where the
outcome estimate of a state orders the queue beside the policy's path score. The value of every new
state is asked once, when the state is first reached. A candidate, whose state is not known before
its tactic runs, pays its node's estimate: so at ``length_alpha = 0`` it stands at its node's
priority plus the tactic's log-probability, and its child moves up or down from there once valued.

A node counts as expanded (:meth:`InternalNode.mark_expanded`, after which failing children fail
it) only once every candidate it got has been tried, so a node is never failed while some of its
tactics wait. ``max_expansions`` counts generator calls: once it is spent, no further state is
expanded, but the candidates of the states already expanded are still tried (a search of one
expansion tries all the root's suggestions).

A :class:`search_tree.budget.Reserve` names one expensive tactic (CoqHammer's ``hammer``) that the
search runs on the root by a deadline even while cheaper candidates are still waiting, and a second
time with the time left at the end (see its docstring): best first alone would run it only in its
turn, after the cheaper candidates before it, which on a hard theorem is never. The reserved tactic
is a candidate of the root like any other, run in its turn unless its deadline came first (never
twice on one state).
"""

from __future__ import annotations

import heapq
import itertools
import math

from search_tree.budget import Budget, EventSink, Meter, Propose, Reserve
from search_tree.events import Cycled, Expanded
from search_tree.nodes import Edge, ErrorNode, InternalNode, Node, ProofFinishedNode, Status, extract_proof
from search_tree.protocol import (
    EnvironmentFailure,
    ProofFinished,
    Session,
    TacticError,
    TacticResult,
    TacticState,
    Theorem,
    linear_proof,
)
from search_tree.result import SearchResult, StopKind, StopReason
from search_tree.value import ValueFunction


def merge_suggestions(suggestions: list[tuple[str, float]]) -> list[tuple[str, float]]:
    """Drop duplicate tactics (keeping the best score) and sort the rest best first."""
    best: dict[str, float] = {}
    for tactic, logprob in suggestions:
        tactic = tactic.strip()
        if tactic and logprob > best.get(tactic, float("-inf")):
            best[tactic] = logprob
    return sorted(best.items(), key=lambda kv: -kv[1])


class BestFirstSearch:
    """One best-first search over an open session; build one per theorem."""

    def __init__(
        self,
        session: Session,
        init_state: TacticState,
        propose: Propose,
        budget: Budget,
        length_alpha: float = 0.0,
        on_event: EventSink | None = None,
        value: ValueFunction | None = None,
        value_weight: float = 1.0,
        reserve: Reserve | None = None,
    ) -> None:
        self.session = session
        self.reserve = reserve
        self._reserved = None if reserve is None else " ".join(reserve.tactic.split())
        self._offered = False  # the generator proposed the reserved tactic on the root
        self._reserved_on: set[str] = set()  # keys of the states it ran on
        self._final_done = False
        self.propose = propose
        self.length_alpha = length_alpha
        self.value = value
        self.value_weight = value_weight
        self._cost: dict[str, float] = {}  # state key -> the value function's remaining cost
        self.theorem: Theorem | None = None
        self.meter = Meter(budget, on_event)
        self.root = InternalNode(state=init_state)
        self.nodes: dict[str, InternalNode] = {init_state.key: self.root}
        self.num_leaves = 0
        # expanded state key -> its candidates not yet tried (tactic -> log-probability)
        self._waiting: dict[str, dict[str, float]] = {}
        self._unexpanded_left = False  # an open node was passed over once max_expansions was spent
        # (-priority, tie-break, node, tactic, logprob): a node to expand where tactic is None, else
        # a candidate of the node; equal priorities go first in, first out
        self._heap: list[tuple[float, int, InternalNode, str | None, float]] = []
        self._tiebreak = itertools.count()
        self._push(self.root)

    def _score(self, cumulative_logprob: float, depth: int, key: str) -> float:
        score = cumulative_logprob
        if self.length_alpha != 0.0:
            score = score / max(depth, 1) ** self.length_alpha
        return score - self.value_weight * self._cost.get(key, 0.0)

    def priority(self, node: InternalNode) -> float:
        return self._score(node.cumulative_logprob, node.depth, node.state.key)

    def candidate_priority(self, node: InternalNode, logprob: float) -> float:
        """Where the child of ``node`` by a tactic of ``logprob`` would stand, valued as ``node``
        (its own state is not known before the tactic runs)."""
        return self._score(node.cumulative_logprob + logprob, node.depth + 1, node.state.key)

    def _push(self, node: InternalNode) -> None:
        """Queue ``node`` at its priority or, once expanded, its waiting candidates at theirs."""
        waiting = self._waiting.get(node.state.key)
        if waiting is None:
            heapq.heappush(self._heap, (-self.priority(node), next(self._tiebreak), node, None, 0.0))
            return
        for tactic, logprob in waiting.items():
            heapq.heappush(self._heap, (-self.candidate_priority(node, logprob), next(self._tiebreak), node, tactic,
                                        logprob))

    def _pop(self) -> tuple[InternalNode, str | None, float] | None:
        """The best entry: an open node to expand (tactic None) or a candidate to try. Stale
        entries are skipped: a node already expanded, a candidate already tried, one of a node no
        longer open (proved meanwhile), and any left at an old priority by a better path to its
        node (which queued it again at the new one)."""
        while self._heap:
            neg_priority, _, node, tactic, logprob = heapq.heappop(self._heap)
            if node.status != Status.OPEN:
                continue
            waiting = self._waiting.get(node.state.key)
            if tactic is None:
                if waiting is not None or -neg_priority != self.priority(node):
                    continue
            elif waiting is None or tactic not in waiting or -neg_priority != self.candidate_priority(node, logprob):
                continue
            return node, tactic, logprob
        return None

    def run(self, theorem: Theorem) -> SearchResult:
        self.theorem = theorem
        stop_reason = StopReason(StopKind.EXHAUSTED)
        try:
            while True:
                if self.root.status != Status.OPEN:
                    # every path failed: what time is left goes to the reserve, whose tactic may do
                    # with it what the tactics tried could not
                    if self.root.status == Status.FAILED and self._final_call():
                        continue
                    # a last tactic cut short by the search's clock failed it: the time ran out,
                    # the search did not exhaust its candidates
                    if self.root.status == Status.FAILED:
                        stop_reason = self.meter.exhausted(expanding=True) or stop_reason
                    break
                # max_expansions is left to _may_expand: once spent, the candidates waiting still run
                reason = self.meter.exhausted(expanding=True) or self._reserved_turn()
                if reason:
                    stop_reason = reason
                    break
                if self.root.status != Status.OPEN:  # the reserve's turn proved the theorem
                    continue
                entry = self._pop()
                if entry is None:
                    if self._unexpanded_left:
                        stop_reason = StopReason(StopKind.MAX_EXPANSIONS)
                        break
                    if self._final_call():  # out of candidates: the rest of the time goes to the reserve
                        continue
                    break
                node, tactic, logprob = entry
                if tactic is not None:
                    self._try(node, tactic, logprob)
                elif self._may_expand():
                    self._expand(node)
                else:
                    self._unexpanded_left = True
        except EnvironmentFailure as exc:
            stop_reason = StopReason(StopKind.ENVIRONMENT_FAILURE, str(exc))
        proof = extract_proof(self.root)
        if proof is not None:
            status, stop_reason = Status.PROVED, StopReason(StopKind.PROVED)
        elif stop_reason.kind in (StopKind.EXHAUSTED, StopKind.ENVIRONMENT_FAILURE):
            status = Status.FAILED
        else:
            status = Status.OPEN  # a budget ran out with nodes still open
        m = self.meter
        return SearchResult(
            theorem=theorem,
            status=status,
            proof=None if proof is None else linear_proof(proof),
            stop_reason=stop_reason,
            total_time=m.elapsed,
            env_time=m.env_time,
            gen_time=m.gen_time,
            num_nodes=len(self.nodes) + self.num_leaves,
            num_expansions=m.expansions,
            num_env_calls=m.env_calls,
        )

    def _may_expand(self) -> bool:
        limit = self.meter.budget.max_expansions
        return limit is None or self.meter.expansions < limit

    def _expand(self, node: InternalNode) -> None:
        """Ask the generator for the tactics of ``node`` and queue them as its candidates."""
        suggestions = merge_suggestions(self.meter.generate(self.propose, node.state))
        self.meter.expansions += 1
        self.meter.emit(Expanded(state=node.state.id, depth=node.depth, priority=self.priority(node)))
        if node is self.root and any(self._is_reserved(tactic) for tactic, _ in suggestions):
            self._offered = True
        self._waiting[node.state.key] = dict(suggestions)
        self._push(node)
        if not suggestions:
            node.mark_expanded()

    def _try(self, node: InternalNode, tactic: str, logprob: float) -> None:
        """Run one candidate of ``node``; the node counts as expanded once none waits."""
        waiting = self._waiting[node.state.key]
        del waiting[tactic]
        if not self._is_reserved(tactic):
            result, seconds = self.meter.run_tac(self.session, node.state, tactic, logprob=round(logprob, 4))
            child = self._child(node, tactic, result, node.cumulative_logprob + logprob)
            if child is not None:
                node.add_edge(Edge(tactic, node, child, logprob, seconds))
        elif node.state.key not in self._reserved_on:  # else already given its turn (the deadline came first)
            assert self.reserve is not None
            self._run_reserved(node, self.reserve.first_limit if node is self.root else None, logprob)
        if not waiting:
            node.mark_expanded()

    # -- the reserved tactic (search_tree.budget.Reserve) -------------------------------------------

    def _is_reserved(self, tactic: str) -> bool:
        return self._reserved is not None and " ".join(tactic.split()) == self._reserved

    def _remaining(self) -> float | None:
        timeout = self.meter.budget.timeout
        return None if timeout is None else timeout - self.meter.elapsed

    def _reserved_turn(self) -> StopReason | None:
        """Give the reserved tactic its turn if it is due: on the root once ``first_by`` of the
        timeout is spent, on the best other open state once only ``final`` of it is left. Returns
        the exhausted budget, if any, afterwards."""
        reserve, timeout = self.reserve, self.meter.budget.timeout
        if reserve is None or not self._offered or timeout is None:
            return None
        spent = self.meter.elapsed
        if self.root.state.key not in self._reserved_on and spent >= reserve.first_by * timeout:
            self._run_reserved(self.root, reserve.first_limit)
        elif spent >= (1.0 - reserve.final) * timeout:
            self._final_call()
        else:
            return None
        return self.meter.exhausted(expanding=True)

    def _final_call(self) -> bool:
        """The reserved tactic's second call, once per search, with every second left: on the
        best state it has not run on, failed ones included (failed only means that the tactics
        tried there failed), that is not one of its ``same_problem`` steps away from where it
        ran; whether it ran."""
        reserve, remaining = self.reserve, self._remaining()
        if reserve is None or not self._offered or self._final_done or remaining is None:
            return False
        self._final_done = True
        seconds = math.floor(remaining - 1.0)  # the search reads its clock after the call, not during it
        targets = [n for n in self.nodes.values()
                   if n.status != Status.PROVED and n.state.key not in self._reserved_on and not self._restates(n)]
        if seconds < reserve.min_final or not targets:
            return False
        self._run_reserved(max(targets, key=self.priority), float(seconds))
        return True

    def _restates(self, node: InternalNode) -> bool:
        """Whether ``node`` is the problem the reserved tactic already had: a tactic of
        :attr:`Reserve.same_problem` made it of a state that tactic ran on."""
        assert self.reserve is not None
        same = self.reserve.same_problem
        return any(" ".join(e.tactic.split()) in same and e.src.state.key in self._reserved_on for e in node.in_edges)

    def _run_reserved(self, node: InternalNode, limit: float | None, logprob: float = 0.0) -> TacticResult:
        """Run the reserved tactic on ``node`` under ``limit`` seconds, capped by the time left
        (None: the session's own limit for it)."""
        assert self.reserve is not None
        remaining = self._remaining()
        if limit is not None and remaining is not None:
            limit = max(1.0, min(limit, math.floor(remaining - 1.0)))
        self._reserved_on.add(node.state.key)
        tactic = self.reserve.tactic
        result, seconds = self.meter.run_tac(self.session, node.state, tactic, logprob=round(logprob, 4),
                                             seconds=limit)
        child = self._child(node, tactic, result, node.cumulative_logprob + logprob)
        if child is not None:
            node.add_edge(Edge(tactic, node, child, logprob, seconds))
        return result

    def _child(self, parent: InternalNode, tactic: str, result, cumulative_logprob: float) -> Node | None:
        """The node a tactic result leads to (merged with an equal state), or None for a cycle."""
        if isinstance(result, ProofFinished):
            self.num_leaves += 1
            return ProofFinishedNode()
        if not isinstance(result, TacticState):
            self.num_leaves += 1
            return ErrorNode(error=result if isinstance(result, TacticError) else TacticError(result.message))
        existing = self.nodes.get(result.key)
        if existing is None:
            node = InternalNode(state=result, cumulative_logprob=cumulative_logprob, depth=parent.depth + 1)
            self.nodes[result.key] = node
            if self.value is not None and self.theorem is not None:
                cost = self.meter.evaluate(self.value, [result], self.theorem)[0]
                self._cost[result.key] = min(cost, 1e6)  # a hopeless state sinks, and stays comparable
            self._push(node)
            return node
        if existing.is_ancestor_or_self(parent):
            self.meter.emit(Cycled(state=parent.state.id, tactic=tactic, to=existing.state.id))
            return None
        if cumulative_logprob > existing.cumulative_logprob and not existing.is_expanded:
            # its node entry, or its waiting candidates, move with it; its children keep theirs
            existing.cumulative_logprob, existing.depth = cumulative_logprob, parent.depth + 1
            self._push(existing)
        return existing
