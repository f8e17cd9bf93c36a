"""Nodes and edges of a best-first search graph, with incremental status and distance.

Follows the structure of ReProver's ``prover/search_tree.py`` (Yang et al., 2023): internal nodes
hold proof states, leaves are proof-finished or error nodes, and each node keeps its status and
``distance_to_proof`` up to date as edges are added, so the shortest proof is known at any time.
Equal states are merged into one node, which turns the tree into a DAG; edges that would close a
cycle are never added (see :meth:`InternalNode.is_ancestor_or_self`).
"""

from __future__ import annotations

import enum
import math
from dataclasses import dataclass, field

from search_tree.protocol import TacticError, TacticState


class Status(str, enum.Enum):
    OPEN = "open"
    PROVED = "proved"
    FAILED = "failed"


@dataclass(eq=False)
class Edge:
    tactic: str
    src: "InternalNode"
    dst: "Node"
    logprob: float
    time: float = 0.0


@dataclass(eq=False)
class Node:
    in_edges: list[Edge] = field(default_factory=list, init=False, repr=False)

    @property
    def status(self) -> Status:
        raise NotImplementedError

    @property
    def distance_to_proof(self) -> float:
        raise NotImplementedError


@dataclass(eq=False)
class ProofFinishedNode(Node):
    @property
    def status(self) -> Status:
        return Status.PROVED

    @property
    def distance_to_proof(self) -> float:
        return 0.0


@dataclass(eq=False)
class ErrorNode(Node):
    error: TacticError | None = None

    @property
    def status(self) -> Status:
        return Status.FAILED

    @property
    def distance_to_proof(self) -> float:
        return math.inf


@dataclass(eq=False)
class InternalNode(Node):
    """A proof state. ``cumulative_logprob`` and ``depth`` are those of the best path found to it."""

    state: TacticState = None  # type: ignore[assignment]
    cumulative_logprob: float = 0.0
    depth: int = 0
    out_edges: list[Edge] = field(default_factory=list, repr=False)
    is_expanded: bool = False  # every suggested tactic has been tried
    _status: Status = Status.OPEN
    _distance: float = math.inf

    @property
    def status(self) -> Status:
        return self._status

    @property
    def distance_to_proof(self) -> float:
        return self._distance

    def mark_expanded(self) -> None:
        """Record that all suggestions were tried, so that failing children now fail the node."""
        self.is_expanded = True
        self._update()

    def add_edge(self, edge: Edge) -> None:
        assert edge.src is self
        self.out_edges.append(edge)
        edge.dst.in_edges.append(edge)
        self._update()

    def is_ancestor_or_self(self, other: "InternalNode") -> bool:
        """Whether ``self`` lies on some path from the root to ``other`` (upward walk)."""
        seen: set[int] = set()
        stack: list[InternalNode] = [other]
        while stack:
            node = stack.pop()
            if node is self:
                return True
            if id(node) in seen:
                continue
            seen.add(id(node))
            stack.extend(e.src for e in node.in_edges)
        return False

    def _update(self) -> None:
        """Recompute status and distance from the children; propagate any change to the parents."""
        edges = self.out_edges
        distance = min((1 + e.dst.distance_to_proof for e in edges), default=math.inf)
        if any(e.dst.status == Status.PROVED for e in edges):
            status = Status.PROVED
        elif self.is_expanded and all(e.dst.status == Status.FAILED for e in edges):
            status = Status.FAILED
        else:
            status = Status.OPEN
        if status != self._status or distance != self._distance:
            self._status, self._distance = status, distance
            for edge in self.in_edges:
                edge.src._update()

    def best_edge(self) -> Edge:
        """The edge on a shortest proof (requires a proved node)."""
        assert self.out_edges and self._status == Status.PROVED
        return min(self.out_edges, key=lambda e: e.dst.distance_to_proof)


def extract_proof(root: InternalNode) -> list[str] | None:
    """The shortest proof found from ``root``, as a list of tactics, or None if not proved."""
    if root.status != Status.PROVED:
        return None
    tactics: list[str] = []
    node: Node = root
    while isinstance(node, InternalNode):
        edge = node.best_edge()
        tactics.append(edge.tactic)
        node = edge.dst
    return tactics
