"""AND-OR Monte Carlo tree search with PUCT (Reap; HTPS, Lample et al. 2022; AlphaZero).

One *simulation* walks down from the root and ends with one environment call (or with a node
found to have failed):

* at an OR node, it first asks the generator for tactics while the node's generator calls are at
  most ``C * N**alpha`` (progressive sampling, i.e. progressive widening over a sampled action set:
  Coulom 2007; Couëtoux et al. 2011), then picks the edge maximising PUCT (Silver et al. 2018)::

      score = Q + c(N) * p * sqrt(N) / (1 + n),   c(N) = c_init + ln((N + c_base + 1) / c_base)

  where ``N`` counts the node's visits, ``n`` the child's, ``p`` is the prior
  ``exp(logprob / tau)`` normalised over the node's live edges (mass of duplicates added: the same
  tactic text, or a tactic that reaches the same state as a sibling), and ``Q = gamma * V(child)``;
  an edge not yet run has ``Q = V(node)`` (first-play value: the parent's own estimate, as mctx's
  ``qtransform_by_parent_and_siblings`` does);
* at an AND node, it descends into the hardest open child (lowest value, i.e. highest estimated
  remaining cost): the goal most likely to make the whole step fail (Reap; HTPS);
* an edge not yet run is run; the resulting state becomes an OR node, or, if it has several goals,
  none with an evar, and the session can focus, an AND node with one focused OR node per goal. New
  states are valued by the value function, all at once.

Values are rewards ``gamma ** cost`` in ``[0, 1]`` for a remaining cost in tactic steps: comparable
to the priors in PUCT, 1 for a proved state, 0 for a failed one. Back-up multiplies by ``gamma``
across a tactic edge (cost 1, i.e. adds one step), by 1 across a focus edge (cost 0), and an AND
node passes up the minimum over its open children (its hardest goal).

Defaults: ``c_init = 1.25``, ``c_base = 19652`` (AlphaZero pseudocode, Silver et al. 2018; MuZero,
Schrittwieser et al. 2020); ``gamma = 0.99`` (Reap's ``visit_discount``, after AlphaProof);
``tau = 1`` (AlphaZero uses the policy's probabilities as they are; Reap flattens LLM samples with a
large tau); ``C = 1, alpha = 0.5`` (the square-root widening of Couëtoux et al. 2011; Reap uses
``C = 0.01, alpha = 0.6``). A generator whose call brings no new tactic is not asked again at that
node, so deterministic generators cost at most two calls per node.
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass

from search_tree.and_or import AndNode, Node, OrNode, ProvedLeaf, TacticEdge, reconstruct_proof
from search_tree.budget import Budget, EventSink, Meter, Propose
from search_tree.events import Cycled, Expanded, Merged, Split
from search_tree.nodes import Status
from search_tree.protocol import (
    EnvironmentFailure,
    FocusingSession,
    ProofFinished,
    Session,
    TacticState,
    Theorem,
    proof_tactics,
)
from search_tree.language import Language
from search_tree.result import SearchResult, StopKind, StopReason
from search_tree.value import ValueFunction, make_value

_MAX_EXPONENT = 50.0  # masses are exp((logprob - ref) / tau); clipped so that no sum overflows


@dataclass(frozen=True)
class MCTSConfig:
    """The constants of the search; see the module docstring for their sources."""

    c_init: float = 1.25
    c_base: float = 19652.0
    gamma: float = 0.99
    prior_temperature: float = 1.0
    sampling_c: float = 1.0
    sampling_alpha: float = 0.5
    split_goals: bool = True  # build AND nodes (False: plain OR-tree MCTS, for ablations)

    def __post_init__(self) -> None:
        if not 0.0 < self.gamma <= 1.0:
            raise ValueError("gamma must lie in (0, 1]")
        if self.prior_temperature <= 0 or self.c_base <= 0 or self.sampling_c < 0:
            raise ValueError("prior_temperature and c_base must be positive, sampling_c non-negative")


def exploration_coefficient(visits: int, c_init: float, c_base: float) -> float:
    """AlphaZero's c(N) = c_init + ln((N + c_base + 1) / c_base)."""
    return c_init + math.log((visits + c_base + 1) / c_base)


def puct_score(q: float, prior: float, parent_visits: int, child_visits: int, c: float) -> float:
    """Q + c * p * sqrt(N) / (1 + n)."""
    return q + c * prior * math.sqrt(parent_visits) / (1 + child_visits)


class MCTSSearch:
    """One AND-OR MCTS over an open session; build one per theorem.

    Sessions without ``focus`` (see :class:`~search_tree.protocol.FocusingSession`) are searched as
    a plain OR tree: multi-goal states stay whole, and proofs are linear.
    """

    def __init__(
        self,
        session: Session,
        init_state: TacticState,
        propose: Propose,
        budget: Budget,
        value: str | ValueFunction = "constant",
        config: MCTSConfig | None = None,
        on_event: EventSink | None = None,
        language: Language | None = None,
    ) -> None:
        self.session = session
        self.language = language  # its give-ups are dropped before they cost an environment call
        self.init_state = init_state
        self.propose = propose
        self.value_fn = make_value(value)
        self.config = config = config or MCTSConfig()
        self.meter = Meter(budget, on_event)
        self.can_focus = config.split_goals and isinstance(session, FocusingSession)
        self.theorem: Theorem | None = None
        self.root: OrNode | None = None
        self.stopped: StopReason | None = None  # a budget found short in mid-simulation (a split's focus calls)
        self.counts = {"or_nodes": 0, "and_nodes": 0, "max_depth": 0, "filtered_tactics": 0,
                       "merged_tactics": 0, "cycles": 0, "failed_tactics": 0}

    # -- the loop ---------------------------------------------------------------------------------

    def run(self, theorem: Theorem) -> SearchResult:
        self.theorem = theorem
        stop_reason = StopReason(StopKind.EXHAUSTED)
        try:
            self.root = self._new_or_nodes([self.init_state], parent=None, depth=0)[0]
            while self.root.status == Status.OPEN:
                reason = self.stopped or self.meter.exhausted()
                if reason:
                    stop_reason = reason
                    break
                self.simulate()
        except EnvironmentFailure as exc:
            stop_reason = StopReason(StopKind.ENVIRONMENT_FAILURE, str(exc))
        return self._result(theorem, stop_reason)

    def simulate(self) -> None:
        """One selection-expansion-evaluation-backup pass from the root."""
        assert self.root is not None and self.theorem is not None
        self.meter.simulations += 1
        node: Node = self.root
        while True:
            if isinstance(node, AndNode):
                node = node.hardest_child(self.config.gamma)
                continue
            if self._should_sample(node):
                self._sample(node)
            edge = self.select_edge(node)
            if edge is None and not node.exhausted:
                self._sample(node)  # nothing left to try: ask again whatever the widening rule says
                edge = self.select_edge(node)
            if edge is None:
                node.refresh()  # exhausted with every edge dead: the node fails
                return
            if edge.child is None:
                self._run_edge(node, edge)
                return
            node = edge.child  # type: ignore[assignment]  # live edges lead to open OR/AND nodes

    # -- selection --------------------------------------------------------------------------------

    def select_edge(self, node: OrNode) -> TacticEdge | None:
        """The live edge with the highest PUCT score; ties go to the larger prior, then the first."""
        live = [e for e in node.edges if e.live]
        if not live:
            return None
        cfg = self.config
        total = sum(e.mass for e in live)
        c = exploration_coefficient(node.visits, cfg.c_init, cfg.c_base)
        first_play = node.value(cfg.gamma)

        def key(e: TacticEdge) -> tuple[float, float]:
            prior = e.mass / total if total > 0 else 1.0 / len(live)
            if e.child is None:
                q, n = first_play, 0
            else:
                q, n = cfg.gamma * e.child.value(cfg.gamma), e.child.visits
            return puct_score(q, prior, node.visits, n, c), e.mass

        return max(live, key=key)

    def _should_sample(self, node: OrNode) -> bool:
        cfg = self.config
        return not node.exhausted and node.generator_calls <= cfg.sampling_c * node.visits**cfg.sampling_alpha

    def _sample(self, node: OrNode) -> None:
        """Ask the generator for tactics; merge them into the node's edges by text (adding mass).

        Masses are ``exp((logprob - ref) / tau)`` with ``ref`` the best log-probability of the
        node's first call: the common factor ``exp(-ref / tau)`` cancels in the normalisation and
        keeps long tactics' tiny probabilities from underflowing to zero.
        """
        suggestions = self.meter.generate(self.propose, node.state)
        self.meter.expansions += 1
        node.generator_calls += 1
        cfg = self.config
        scored = []
        for tactic, logprob in suggestions:
            tactic = tactic.strip()
            if not tactic:
                continue
            if self.language is not None and self.language.gives_up(tactic):
                self.counts["filtered_tactics"] += 1
                continue
            scored.append((tactic, logprob))
        if node.ref_logprob is None:
            node.ref_logprob = max((lp for _, lp in scored if math.isfinite(lp)), default=0.0)
        new = 0
        for tactic, logprob in scored:
            mass = math.exp(min((logprob - node.ref_logprob) / cfg.prior_temperature, _MAX_EXPONENT))
            edge = node.by_text.get(tactic)
            if edge is None:
                edge = TacticEdge(tactic, 0.0)
                node.edges.append(edge)
                node.by_text[tactic] = edge
                new += 1
            edge.mass += mass
        if new == 0:
            node.exhausted = True
        self.meter.emit(Expanded(state=node.state.id, depth=node.depth, visits=node.visits,
                                 value=round(node.value(cfg.gamma), 4), new_tactics=new, tactics=len(node.edges)))
        node.refresh()

    # -- expansion and evaluation -----------------------------------------------------------------

    def _run_edge(self, node: OrNode, edge: TacticEdge) -> None:
        live_mass = sum(e.mass for e in node.edges if e.live)
        prior = edge.mass / live_mass if live_mass > 0 else 1.0
        result, _ = self.meter.run_tac(self.session, node.state, edge.tactic, prior=round(prior, 4))
        if isinstance(result, ProofFinished):
            edge.child = leaf = ProvedLeaf(node)
            node.refresh()
            self._back_up(leaf, 1.0)
            return
        if not isinstance(result, TacticState):  # TacticError or ProofGivenUp
            self._kill(node, edge, "failed")
            return
        if result.key in _path_keys(node):
            self.meter.emit(Cycled(state=node.state.id, tactic=edge.tactic, to=result.id))
            self._kill(node, edge, "cycle")
            return
        sibling = node.by_key.get(result.key)
        if sibling is not None:
            sibling.mass += edge.mass
            node.by_text[edge.tactic] = sibling
            self.meter.emit(Merged(state=node.state.id, tactic=edge.tactic, into=sibling.tactic))
            self._kill(node, edge, "merged")
            return
        if self.can_focus and result.num_goals > 1 and not result.has_metavariables:
            if not self.meter.affords(result.num_goals):
                # a split is not started unless all its focus calls fit: the search stops OPEN here
                self.stopped = StopReason(StopKind.MAX_ENV_CALLS)
                return
            child: AndNode | OrNode | None = self._new_and_node(node, result)
            if child is None:
                self._kill(node, edge, "cycle")
                return
            sample = child.value(self.config.gamma)
        else:
            child = self._new_or_nodes([result], parent=node, depth=node.depth + 1)[0]
            sample = child.value_sum
        edge.child = child
        node.by_key[result.key] = edge
        node.refresh()
        self._back_up(child, sample)

    def _kill(self, node: OrNode, edge: TacticEdge, reason: str) -> None:
        edge.dead_reason = reason
        self.counts[{"failed": "failed_tactics", "cycle": "cycles", "merged": "merged_tactics"}[reason]] += 1
        node.refresh()

    def _new_or_nodes(
        self, states: list[TacticState], parent: OrNode | AndNode | None, depth: int
    ) -> list[OrNode]:
        """OR nodes for ``states``, valued in one call of the value function (one visit each)."""
        assert self.theorem is not None
        costs = self.meter.evaluate(self.value_fn, states, self.theorem)
        nodes = []
        for state, cost in zip(states, costs, strict=True):
            nodes.append(OrNode(state, parent, depth, visits=1, value_sum=self.config.gamma**cost))
        self.counts["or_nodes"] += len(nodes)
        self.counts["max_depth"] = max(self.counts["max_depth"], depth)
        self.meter.nodes += len(nodes)
        return nodes

    def _new_and_node(self, parent: OrNode, state: TacticState) -> AndNode | None:
        """An AND node with one focused OR node per goal, or None if a goal cannot be focused or
        repeats a state of its own path (proving it would need itself)."""
        assert isinstance(self.session, FocusingSession)
        path = _path_keys(parent) | {state.key}
        focused: list[TacticState] = []
        for i in range(state.num_goals):
            goal = self.meter.focus(self.session, state, i)
            if not isinstance(goal, TacticState) or goal.key in path:
                return None
            focused.append(goal)
        node = AndNode(state, parent, parent.depth + 1, visits=1)
        node.children = self._new_or_nodes(focused, parent=node, depth=node.depth)
        self.counts["and_nodes"] += 1
        self.meter.nodes += 1
        self.meter.emit(Split(state=state.id, goals=tuple(g.id for g in focused)))
        return node

    def _back_up(self, child: Node | ProvedLeaf, sample: float) -> None:
        """Add the new evaluation ``sample`` (a reward at ``child``) to every ancestor of ``child``."""
        gamma = self.config.gamma
        node = child.parent
        while node is not None:
            node.visits += 1
            if isinstance(node, OrNode):
                sample *= gamma  # a tactic edge: one more step
                node.value_sum += sample
            else:  # a focus edge costs nothing; the AND node is as good as its hardest open goal
                others = [c.value(gamma) for c in node.children if c is not child and c.status == Status.OPEN]
                if child.status == Status.OPEN or not others:
                    sample = min([sample, *others])
                else:  # the goal below was just proved: the hardest open goal is among the others
                    sample = min(others)
            child, node = node, node.parent

    # -- result -----------------------------------------------------------------------------------

    def _result(self, theorem: Theorem, stop_reason: StopReason) -> SearchResult:
        m = self.meter
        proof = None
        if self.root is not None and self.root.status == Status.PROVED:
            proof = reconstruct_proof(self.root)
            status, stop_reason = Status.PROVED, StopReason(StopKind.PROVED)
        elif stop_reason.kind in (StopKind.EXHAUSTED, StopKind.ENVIRONMENT_FAILURE):
            status = Status.FAILED
        else:
            status = Status.OPEN
        stats = {
            "algorithm": "mcts",
            "simulations": m.simulations,
            "nodes": m.nodes,
            **self.counts,
            "focus_calls": m.focus_calls,
            "value_time": m.value_time,
            "proof_length": None if proof is None else len(proof_tactics(proof)),
            "config": asdict(self.config),
        }
        return SearchResult(
            theorem=theorem,
            status=status,
            proof=proof,
            stop_reason=stop_reason,
            total_time=m.elapsed,
            env_time=m.env_time,
            gen_time=m.gen_time,
            num_nodes=m.nodes,
            num_expansions=m.expansions,
            num_env_calls=m.env_calls,
            stats=stats,
        )


def _path_keys(node: Node) -> set[str]:
    """The state keys of ``node`` and its ancestors."""
    keys = set()
    current: Node | None = node
    while current is not None:
        keys.add(current.state.key)
        current = current.parent
    return keys
