"""A search tree rebuilt from an action log alone: nodes with their goals, edges with what happened.

The log holds one ``state`` event per state the search met (its goals, or ``same_as`` an equal
state logged before: see :meth:`search_tree.Meter.describe`), one ``tactic`` or ``focus`` event per
call into the prover, and the searches' own events (``expand`` with best-first's ``priority`` or
MCTS's ``visits``/``value``; ``cycle`` and ``merge`` right after the tactic they judge). From these
every edge gets one :data:`KINDS` outcome. Ids alone cannot tell a merge from a new state (a
backend may number every result afresh), which is why the states are logged with their keys' first id.

A log is read from a run directory, which anyone may have edited: its lines are parsed with
:func:`search_tree.events.parse_event`, which leaves out an event whose fields are not of the types
the search writes (an id that is not an integer, an outcome no search logs, a goal that is not
text), so that what a view shows is never made of anything else.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from search_tree.events import Cycled, Expanded, Focused, LoggedGoal, Merged, SearchEvent, StateLogged, TacticRun

#: Edge outcomes: a new state, one met before (merged), one on the edge's own path (cycle), the
#: proof finished, and the backend's failures.
KINDS = ("new", "merged", "cycle", "proved", "given_up", "error", "timeout", "crash", "refused")


@dataclass
class Step:
    """One call at a state: a tactic (or focusing on a goal) and where it led."""

    tactic: str
    kind: str
    target: int | None = None  # the state reached (its first id), for new/merged/cycle
    message: str | None = None
    seconds: float = 0.0
    numbers: dict[str, float] = field(default_factory=dict)  # logprob (best-first), prior (MCTS)
    on_proof: bool = False


@dataclass
class StateNode:
    id: int
    goals: tuple[LoggedGoal, ...] | None = None  # None: the log does not say (an older log)
    steps: list[Step] = field(default_factory=list)
    numbers: dict[str, float] = field(default_factory=dict)  # from its last expansion
    depth: int = 0


@dataclass
class SearchTree:
    root: int
    nodes: dict[int, StateNode]
    problems: list[str] = field(default_factory=list)  # corrupt log lines, shown with the tree

    def proof_length(self) -> int:
        return sum(s.on_proof for n in self.nodes.values() for s in n.steps)

    def fewest_goals(self) -> int | None:
        """The fewest goals of any state reached: how close a failed search came to a proof."""
        counts = [len(n.goals) for n in self.nodes.values() if n.goals is not None and n.id != self.root]
        return min(counts, default=None)


def _numbers(**numbers: float | None) -> dict[str, float]:
    return {k: v for k, v in numbers.items() if v is not None}


def build_tree(events: list[SearchEvent], proof: list[str] | None = None,
               problems: list[str] | None = None) -> SearchTree:
    """The tree of one search; ``proof`` (its tactics, in order) marks the proof path. ``problems``
    (the log's lines left out as malformed) are shown with it."""
    same: dict[int, int] = {}
    nodes: dict[int, StateNode] = {}
    root: int | None = None
    reached: set[int] = set()
    for e in events:
        root = _apply(e, nodes, same, reached, root)
    tree = SearchTree(root if root is not None else next(iter(nodes), 0), nodes, list(problems or []))
    nodes.setdefault(tree.root, StateNode(tree.root))
    _mark_proof(tree, proof or [])
    return tree


def _apply(e: SearchEvent, nodes: dict[int, StateNode], same: dict[int, int], reached: set[int],
           root: int | None) -> int | None:
    """Add one event to the tree being built; returns the root (the first state a call was made at)."""

    def node(state_id: int) -> StateNode:
        state_id = same.get(state_id, state_id)
        return nodes.setdefault(state_id, StateNode(state_id))

    if isinstance(e, StateLogged):
        if e.same_as is not None:
            same[e.state] = same.get(e.same_as, e.same_as)
        else:
            node(e.state).goals = e.goals
    elif isinstance(e, Expanded):
        node(e.state).numbers.update(_numbers(priority=e.priority, visits=e.visits, value=e.value))
    elif isinstance(e, (TacticRun, Focused)):
        if isinstance(e, TacticRun):
            step = Step(e.tactic, e.outcome, message=e.message, seconds=e.seconds,
                        numbers=_numbers(logprob=e.logprob, prior=e.prior))
        else:
            step = Step(f"(focus on goal {e.goal + 1})", e.outcome, seconds=e.seconds)
        src = node(e.state)
        if root is None:
            root = src.id
            reached.add(root)
        if e.outcome == "state":
            assert e.next_state is not None, "parse_event refuses a new state without its id"
            target = node(e.next_state)
            step.target = target.id
            step.kind = "merged" if target.id in reached else "new"
            reached.add(target.id)
            if step.kind == "new":
                target.depth = src.depth + 1
        src.steps.append(step)
    elif isinstance(e, (Cycled, Merged)):
        last = _last_step(nodes, same, e)
        if last is not None:
            last.kind = "cycle" if isinstance(e, Cycled) else "merged"
    return root


def _last_step(nodes: dict[int, StateNode], same: dict[int, int], event: Cycled | Merged) -> Step | None:
    """The step a ``cycle``/``merge`` event judges: the last one at its state (emitted right after)."""
    n = nodes.get(same.get(event.state, event.state))
    if n is None or not n.steps:
        return None
    step = n.steps[-1]
    return step if event.tactic == step.tactic else None


def _mark_proof(tree: SearchTree, proof: list[str]) -> None:
    """Follow the proof's tactics from the root (the first step with that tactic that got somewhere)."""
    state: int | None = tree.root
    for tactic in proof:
        n = tree.nodes.get(state) if state is not None else None
        step = next((s for s in (n.steps if n else []) if s.tactic == tactic and s.kind in ("new", "merged", "proved")),
                    None)
        if step is None:
            return
        step.on_proof = True
        state = step.target


def instructive(records: list[dict[str, Any]], trees: dict[str, SearchTree], failed: int = 2) -> list[dict[str, Any]]:
    """The searches worth opening: the proved one with the longest proof, then up to ``failed``
    unproved ones closest to a proof (fewest goals left at a state they reached; ties: larger
    trees). ``trees`` maps a record's log to its tree."""
    proved = [r for r in records if r["status"] == "proved" and r.get("log") in trees]
    unproved = [r for r in records if r["status"] != "proved" and r.get("log") in trees]
    chosen = []
    if proved:
        chosen.append(max(proved, key=lambda r: (len(r["result"]["proof"] or []), r["result"]["num_nodes"])))

    def closeness(r: dict[str, Any]) -> tuple[float, int]:
        fewest = trees[r["log"]].fewest_goals()
        return (float("inf") if fewest is None else fewest, -len(trees[r["log"]].nodes))

    return chosen + sorted(unproved, key=closeness)[:failed]
