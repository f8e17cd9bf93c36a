"""The AND-OR search tree of MCTS (Reap; HTPS, Lample et al. 2022).

An :class:`OrNode` holds a proof state and is proved by *any* of its tactic edges; an
:class:`AndNode` holds a multi-goal state that a tactic produced and is proved when *all* of its
children are, one :class:`OrNode` per goal, each reached by a synthetic focus edge of cost 0. A
tactic edge costs one step. The tree is a tree (each node has one parent): equal states are merged
only among siblings, and a state equal to one on its own path is never added (no cycles), so
values can be backed up along a single path.

Status and proof cost are kept up to date incrementally (:meth:`refresh` walks up only while
something changes). Values are rewards in ``[0, 1]``: ``gamma ** cost`` for a remaining cost in
tactic steps (see :mod:`search_tree.mcts`).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Union

from search_tree.nodes import Status
from search_tree.protocol import Proof, ProofStep, TacticState


@dataclass(eq=False)
class ProvedLeaf:
    """What a tactic that finished the (focused) proof leads to."""

    parent: "OrNode"
    status: Status = Status.PROVED
    proof_cost: float = 0.0
    visits: int = 1

    def value(self, gamma: float) -> float:
        return 1.0


@dataclass(eq=False)
class TacticEdge:
    """A candidate tactic of an OR node: its prior mass and, once run, where it led.

    ``dead`` edges lead nowhere useful: the tactic failed, gave up, closed a cycle, or was merged
    into a sibling that reached the same state (``dead_reason`` says which).
    """

    tactic: str
    mass: float
    child: Union["OrNode", "AndNode", ProvedLeaf, None] = None
    dead_reason: str | None = None

    @property
    def dead(self) -> bool:
        return self.dead_reason is not None

    @property
    def live(self) -> bool:
        """Still worth selecting: not dead, and either unexplored or leading to an open node."""
        return self.dead_reason is None and (self.child is None or self.child.status == Status.OPEN)


@dataclass(eq=False)
class OrNode:
    """A state to prove by any one tactic. ``visits`` and ``value_sum`` are MCTS statistics."""

    state: TacticState
    parent: Union["OrNode", "AndNode", None]
    depth: int  # tactic steps from the root (focus edges cost nothing)
    visits: int = 0
    value_sum: float = 0.0
    edges: list[TacticEdge] = field(default_factory=list)
    by_text: dict[str, TacticEdge] = field(default_factory=dict)  # tactic text -> edge holding its mass
    by_key: dict[str, TacticEdge] = field(default_factory=dict)  # child state key -> edge leading there
    generator_calls: int = 0
    exhausted: bool = False  # the generator proposed nothing new: no more tactics will come
    ref_logprob: float | None = None  # log-probabilities are taken relative to this (see MCTS._sample)
    status: Status = Status.OPEN
    proof_cost: float = math.inf

    def value(self, gamma: float) -> float:
        if self.status == Status.PROVED:
            return gamma**self.proof_cost
        if self.status == Status.FAILED:
            return 0.0
        return self.value_sum / self.visits if self.visits else 0.0

    def proved_edges(self) -> list[TacticEdge]:
        return [e for e in self.edges if not e.dead and e.child is not None and e.child.status == Status.PROVED]

    def refresh(self) -> None:
        proved = [1 + e.child.proof_cost for e in self.proved_edges()]  # type: ignore[union-attr]
        if proved:
            status, cost = Status.PROVED, min(proved)
        elif self.exhausted and not any(e.live for e in self.edges):
            status, cost = Status.FAILED, math.inf
        else:
            status, cost = Status.OPEN, math.inf
        if (status, cost) != (self.status, self.proof_cost):
            self.status, self.proof_cost = status, cost
            if self.parent is not None:
                self.parent.refresh()

    def best_edge(self) -> TacticEdge:
        """The proved edge with the cheapest proof (requires a proved node)."""
        return min(self.proved_edges(), key=lambda e: e.child.proof_cost)  # type: ignore[union-attr]


@dataclass(eq=False)
class AndNode:
    """A multi-goal state without evars: proved when every goal's OR node is."""

    state: TacticState
    parent: OrNode
    depth: int
    children: list[OrNode] = field(default_factory=list)
    visits: int = 0
    status: Status = Status.OPEN
    proof_cost: float = math.inf

    def value(self, gamma: float) -> float:
        """The hardest unsolved child's value (HTPS multiplies the children's values instead;
        Reap and this library take the bottleneck goal, which is also the one selection visits)."""
        if self.status == Status.PROVED:
            return gamma**self.proof_cost
        if self.status == Status.FAILED:
            return 0.0
        return min(c.value(gamma) for c in self.children if c.status == Status.OPEN)

    def refresh(self) -> None:
        if any(c.status == Status.FAILED for c in self.children):
            status, cost = Status.FAILED, math.inf
        elif all(c.status == Status.PROVED for c in self.children):
            status, cost = Status.PROVED, sum(c.proof_cost for c in self.children)
        else:
            status, cost = Status.OPEN, math.inf
        if (status, cost) != (self.status, self.proof_cost):
            self.status, self.proof_cost = status, cost
            self.parent.refresh()

    def hardest_child(self, gamma: float) -> OrNode:
        """The open child with the lowest value (highest estimated remaining cost); first on ties."""
        return min((c for c in self.children if c.status == Status.OPEN), key=lambda c: c.value(gamma))


Node = Union[OrNode, AndNode]


def reconstruct_proof(node: OrNode) -> Proof:
    """The cheapest proof of a proved OR node; an AND child becomes a step with one branch per goal."""
    steps: list[ProofStep] = []
    while True:
        edge = node.best_edge()
        child = edge.child
        if isinstance(child, AndNode):
            steps.append(ProofStep(edge.tactic, tuple(reconstruct_proof(c) for c in child.children)))
            return tuple(steps)
        steps.append(ProofStep(edge.tactic))
        if isinstance(child, ProvedLeaf):
            return tuple(steps)
        assert isinstance(child, OrNode)
        node = child
