"""Which searches a run's report offers to open (:func:`prover.views.tree.instructive`): the proved
one with the longest proof, and the unproved ones that came closest to a proof."""

from __future__ import annotations

from prover.views.tree import build_tree, instructive
from search_tree.events import parse_event


def _goals(n: int) -> list[dict]:
    return [{"target": f"P{i}", "hypotheses": []} for i in range(n)]


def _tree(root_goals: int, reached: list[int]):
    """A search whose root has ``root_goals`` goals and whose tactics at the root reached one state
    per item of ``reached``, with that many goals."""
    events = [{"event": "state", "state": 0, "goals": _goals(root_goals)}]
    for i, goals in enumerate(reached, 1):
        events += [{"event": "tactic", "state": 0, "tactic": f"t{i}.", "outcome": "state", "next_state": i},
                   {"event": "state", "state": i, "goals": _goals(goals)}]
    return build_tree([parse_event(e) for e in events])


def _record(name: str, status: str, proof: list[str] | None = None, nodes: int = 1) -> dict:
    return {"key": name, "attempt": 0, "status": status, "log": f"logs/{name}.jsonl",
            "result": {"proof": proof, "num_nodes": nodes}}


def test_the_longest_proof_is_chosen_and_ties_go_to_the_larger_search():
    """Fails if the shortest proof is chosen, or a tie in length is not broken by the node count."""
    records = [_record("short", "proved", ["a."], nodes=50), _record("long_small", "proved", ["a.", "b.", "c."], nodes=3),
               _record("long_large", "proved", ["a.", "b.", "c."], nodes=9)]
    trees = {r["log"]: _tree(1, []) for r in records}
    assert [r["key"] for r in instructive(records, trees)] == ["long_large"]


def test_failures_closest_to_a_proof_come_first_ties_to_the_larger_tree():
    """Fewest goals left at a state reached (the root does not count), ties to the larger tree;
    a search that logged no goals comes last. Fails on the reverse order, a root counted as
    reached, or ties broken the other way."""
    shapes = {"three_left": (1, [3, 4]),  # its root has 1 goal, but no state it reached has fewer than 3
              "one_left_small": (2, [1]), "one_left_large": (2, [1, 5, 6]), "two_left": (2, [2]),
              "no_goals_logged": (None, [])}
    records = [_record(name, "open") for name in shapes]
    trees = {}
    for r in records:
        root_goals, reached = shapes[r["key"]]
        trees[r["log"]] = _tree(root_goals, reached) if root_goals else build_tree([])
    assert trees["logs/three_left.jsonl"].fewest_goals() == 3
    assert trees["logs/no_goals_logged.jsonl"].fewest_goals() is None
    chosen = [r["key"] for r in instructive(records, trees, failed=4)]
    assert chosen == ["one_left_large", "one_left_small", "two_left", "three_left"]
    assert [r["key"] for r in instructive(records, trees)] == ["one_left_large", "one_left_small"]


def test_the_proved_search_comes_first_and_searches_without_a_log_are_left_out():
    records = [_record("failed", "failed"), _record("proved", "proved", ["a."]),
               {**_record("unlogged", "proved", ["a.", "b."]), "log": None}]
    trees = {"logs/failed.jsonl": _tree(1, [1]), "logs/proved.jsonl": _tree(1, [])}
    assert [r["key"] for r in instructive(records, trees)] == ["proved", "failed"]
