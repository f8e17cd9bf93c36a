import math
import subprocess
import sys

import pytest

from generator import FixedTacticGenerator
from prover.proof_search import BestFirstSearchProver
from scripted_env import ScriptedEnv
from search_tree.events import Cycled, Expanded, TacticRun
from search_tree import (
    StopKind,
    StopReason,
    BestFirstSearch, Budget, Edge, ErrorNode, InternalNode, ProofFinishedNode, Status, TacticState,
    Theorem, extract_proof,
)

THM = Theorem("t")


def prover(tactics, **kw):
    kw.setdefault("timeout", 10)
    return BestFirstSearchProver(FixedTacticGenerator(tactics), num_sampled_tactics=16, **kw)


def test_finds_proof_and_verifies():
    env = ScriptedEnv({"s0": {"intro": "s1"}, "s1": {"auto": "proved"}})
    result = prover(["intro", "auto"]).search(env, THM)
    assert result.status == Status.PROVED
    assert result.tactics == ["intro", "auto"]
    assert result.stop_reason == StopReason(StopKind.PROVED)
    assert result.num_expansions == 2
    assert result.num_env_calls == 4  # both tactics at s0, then intro fails and auto proves at s1
    assert result.script == "intro\nauto"


def test_tactics_tried_best_first_and_search_stops_at_first_proof():
    """The candidates of the root and of its child ``s1`` are tried in one order, by the path's
    log-probability: ``c`` at s0 (-0.1), ``c`` at s1 (-0.2), ``a`` at s0 (-1.0), which proves;
    ``b`` is never run. Fails if a state's tactics are all run before its child's (then ``c``
    at s1 comes after ``a``) or the search goes on after the proof."""
    env = ScriptedEnv({"s0": {"a": "proved", "b": "proved", "c": "s1"}})
    result = prover([("c", -0.1), ("a", -1.0), ("b", -2.0)]).search(env, THM)
    assert env.calls == [("s0", "c"), ("s1", "c"), ("s0", "a")]
    assert result.tactics == ["a"]


def test_last_allowed_expansion_tries_every_tactic():
    """With ``max_expansions=1`` the root's expansion still tries all its tactics: the comparison
    systems (``stock``: seven tactics on the first state) are one-expansion searches.

    Fails if the in-expansion budget check counts the expansion under way against
    ``max_expansions`` (seen: the expansion stopped after its first tactic, ``auto``)."""
    env = ScriptedEnv({"s0": {"auto": "s0", "eauto": "s1", "lia": "proved"}})
    result = prover([("auto", -0.1), ("eauto", -0.2), ("lia", -0.3)], max_expansions=1).search(env, THM)
    assert [t for _, t in env.calls] == ["auto", "eauto", "lia"]
    assert (result.status, result.tactics, result.num_expansions) == (Status.PROVED, ["lia"], 1)


def test_merged_states_propagate_status_to_every_parent():
    graph = {"s0": {"a": "s1", "b": "s2"}, "s1": {"c": "s3"}, "s2": {"d": "s3"}, "s3": {"e": "proved"}}
    env = ScriptedEnv(graph)
    tac = FixedTacticGenerator([("a", -1.0), ("b", -1.1), ("c", -1.2), ("d", -1.3), ("e", -5.0)])
    search = BestFirstSearch(*_open(env), lambda s: tac.generate(s, THM, 8), Budget(timeout=10))
    result = search.run(THM)
    assert result.status == Status.PROVED
    assert len(search.nodes) == 4  # s3 reached twice, one node
    s3 = search.nodes["s3"]
    assert len(s3.in_edges) == 2
    assert all(search.nodes[n].status == Status.PROVED for n in ("s0", "s1", "s2", "s3"))
    assert search.nodes["s2"].distance_to_proof == 2


def test_better_path_raises_priority_of_a_state_and_of_its_waiting_candidates():
    """A state first reached by an unlikely path takes the better priority of a likely one found
    later, and so do its candidates still waiting. Without a value every state is first reached by
    its most likely path; with one, ``s1``'s estimate (3 steps) keeps its tactic ``c`` behind the
    unlikely ``b``, which reaches ``s2`` first (at -2.0). ``s2`` is expanded; then ``c`` reaches it
    at -0.2, which moves its candidates ``d`` and ``p`` from -3.5 and -4.0 (-2.0 plus their
    log-probabilities, less the estimate of 1 step) to -1.7 and -2.2, before ``e`` at ``s1``
    (-3.3): ``p`` proves with ``e`` never run. Fails if a better path leaves a state's priority,
    depth or waiting candidates where they were (``e`` then runs before ``d``)."""
    graph = {"s0": {"a": "s1", "b": "s2"}, "s1": {"c": "s2", "e": "s5"}, "s2": {"d": "s3", "p": "proved"},
             "s3": {}, "s5": {}}
    scores = {"s0": [("a", -0.1), ("b", -2.0)], "s1": [("c", -0.1), ("e", -0.2)], "s2": [("d", -0.5), ("p", -1.0)]}
    costs = _CostByName({"s1": 3.0, "s2": 1.0, "s3": 5.0, "s5": 0.0})
    env = ScriptedEnv(graph)
    events = []
    search = BestFirstSearch(*_open(env), lambda s: scores.get(s.key, []), Budget(timeout=10), on_event=events.append,
                             value=costs)
    result = search.run(THM)
    assert result.status == Status.PROVED and result.tactics == ["b", "p"]  # the shortest proof
    assert env.calls == [("s0", "a"), ("s0", "b"), ("s1", "c"), ("s2", "d"), ("s2", "p")]
    s2 = search.nodes["s2"]
    assert s2.cumulative_logprob == pytest.approx(-0.2) and s2.depth == 2
    key = {n.state.id: k for k, n in search.nodes.items()}
    assert [(key[e.state], e.priority) for e in events if isinstance(e, Expanded)] == [
        ("s0", 0.0), ("s2", -3.0), ("s1", -3.1)]


def test_length_normalisation_prefers_deep_likely_paths():
    node = InternalNode(state=TacticState("g", 0), cumulative_logprob=-4.0, depth=4)
    env = ScriptedEnv({"s0": {}})
    plain = BestFirstSearch(*_open(env), lambda s: [], Budget())
    normed = BestFirstSearch(*_open(env), lambda s: [], Budget(), length_alpha=1.0)
    assert plain.priority(node) == -4.0 and normed.priority(node) == -1.0


def test_distance_and_status_updated_incrementally():
    root = InternalNode(state=TacticState("r", 0))
    a = InternalNode(state=TacticState("a", 1), depth=1)
    b = InternalNode(state=TacticState("b", 2), depth=1)
    root.add_edge(Edge("ta", root, a, -1))
    root.add_edge(Edge("tb", root, b, -1))
    root.mark_expanded()
    c = InternalNode(state=TacticState("c", 3), depth=2)
    a.add_edge(Edge("tc", a, c, -1))
    c.add_edge(Edge("done", c, ProofFinishedNode(), -1))
    assert root.status == Status.PROVED and root.distance_to_proof == 3
    assert extract_proof(root) == ["ta", "tc", "done"]
    b.add_edge(Edge("short", b, ProofFinishedNode(), -1))
    assert root.distance_to_proof == 2
    assert extract_proof(root) == ["tb", "short"]


def test_failed_status_needs_full_expansion():
    root = InternalNode(state=TacticState("r", 0))
    root.add_edge(Edge("x", root, ErrorNode(), -1))
    assert root.status == Status.OPEN  # more suggestions may still come
    root.mark_expanded()
    assert root.status == Status.FAILED and math.isinf(root.distance_to_proof)


def test_all_tactics_fail_gives_failed_exhausted():
    env = ScriptedEnv({"s0": {"a": "error", "b": "timeout", "c": "sorry"}})
    result = prover(["a", "b", "c"]).search(env, THM)
    assert result.status == Status.FAILED and result.stop_reason == StopReason(StopKind.EXHAUSTED)
    assert result.proof is None


def test_given_up_is_never_a_proof():
    env = ScriptedEnv({"s0": {"sorry": "sorry"}})
    assert prover(["sorry"]).search(env, THM).status == Status.FAILED


def test_timeout_and_recovered_crash_do_not_stop_the_search():
    env = ScriptedEnv({"s0": {"slow": "timeout", "boom": "crash", "a": "s1"}, "s1": {"b": "proved"}})
    result = prover([("slow", -0.1), ("boom", -0.2), ("a", -0.3), ("b", -0.4)]).search(env, THM)
    assert result.status == Status.PROVED and result.tactics == ["a", "b"]


def test_unrecoverable_environment_failure_ends_search_with_reason():
    env = ScriptedEnv({"s0": {"a": "s1"}, "s1": {"b": "fatal"}})
    result = prover([("a", -0.1), ("b", -0.2)]).search(env, THM)
    assert result.status == Status.FAILED
    assert result.stop_reason.kind is StopKind.ENVIRONMENT_FAILURE


def test_proof_found_on_last_allowed_env_call_is_kept():
    env = ScriptedEnv({"s0": {"a": "s1"}, "s1": {"b": "proved"}})
    # calls: b@s0 (error), a@s0, b@s1 (proof) -- exactly 3 allowed
    result = prover([("b", -0.1), ("a", -0.2)], max_env_calls=3).search(env, THM)
    assert result.status == Status.PROVED and result.num_env_calls == 3
    short = prover([("b", -0.1), ("a", -0.2)], max_env_calls=2).search(env, THM)
    assert short.status == Status.OPEN and short.stop_reason == StopReason(StopKind.MAX_ENV_CALLS)


def test_expansion_budget_and_wall_time_budget():
    env = ScriptedEnv({"s0": {"a": "s1"}, "s1": {"a": "s2"}, "s2": {"a": "s3"}, "s3": {"a": "proved"}})
    result = prover(["a"], max_expansions=2).search(env, THM)
    assert result.status == Status.OPEN and result.stop_reason == StopReason(StopKind.MAX_EXPANSIONS)
    slow = ScriptedEnv({"s0": {"a": "slow:s1"}, "s1": {"a": "slow:s2"}, "s2": {"a": "slow:proved"}},
                       slow_seconds=0.2)
    result = prover(["a"], timeout=0.3).search(slow, THM)
    assert result.status == Status.OPEN and result.stop_reason == StopReason(StopKind.TIMEOUT)
    assert result.num_env_calls == 2


def test_cycles_are_not_added():
    """A tactic leading back to an ancestor (or to its own state) adds no edge but a ``cycle`` event.

    Fails if cycle detection is off (``InternalNode.is_ancestor_or_self`` returning False): the
    edges ``s1 -b-> s0`` and ``s1 -c-> s1`` then appear and ``s1`` stays OPEN.
    """
    env = ScriptedEnv({"s0": {"a": "s1"}, "s1": {"b": "s0", "c": "s1"}})
    events = []
    search = BestFirstSearch(*_open(env), lambda s: [("a", -0.1), ("b", -0.2), ("c", -0.3)],
                             Budget(timeout=10), on_event=events.append)
    result = search.run(THM)
    assert result.status == Status.FAILED and result.stop_reason == StopReason(StopKind.EXHAUSTED)
    s0, s1 = search.nodes["s0"], search.nodes["s1"]
    assert [(e.tactic, e.dst) for e in s0.out_edges if isinstance(e.dst, InternalNode)] == [("a", s1)]
    assert [e.tactic for e in s1.out_edges if isinstance(e.dst, InternalNode)] == []
    assert [e.src for e in s0.in_edges] == [] and [e.src for e in s1.in_edges] == [s0]
    assert s0.status == Status.FAILED and s1.status == Status.FAILED
    cycles = [(e.state, e.to) for e in events if isinstance(e, Cycled)]
    assert cycles == [(s1.state.id, s0.state.id), (s1.state.id, s1.state.id)]


def test_expansion_follows_cumulative_logprob_order():
    """Nodes are expanded in decreasing cumulative log-probability, across depths.

    Fails if the frontier is popped in insertion (FIFO) order or by the last tactic's logprob alone
    (e.g. ``priority`` returning ``node.depth`` or a constant).
    """
    graph = {"s0": {"a": "s1", "b": "s2", "c": "s3"}, "s1": {"e": "s5"}, "s2": {"d": "s4"},
             "s3": {}, "s4": {}, "s5": {}}
    scores = {"s0": [("a", -1.0), ("b", -0.5), ("c", -2.0)], "s1": [("e", -3.0)], "s2": [("d", -1.0)]}
    env = ScriptedEnv(graph)
    events = []
    search = BestFirstSearch(*_open(env), lambda s: scores.get(s.key, []), Budget(timeout=10),
                             on_event=events.append)
    assert search.run(THM).stop_reason == StopReason(StopKind.EXHAUSTED)
    key = {n.state.id: k for k, n in search.nodes.items()}
    expanded = [(key[e.state], e.priority) for e in events if isinstance(e, Expanded)]
    # s2 (-0.5) before s1 (-1.0); s2's child s4 (-1.5) before s0's third child s3 (-2.0); s5 (-4.0) last
    assert expanded == [("s0", 0.0), ("s2", -0.5), ("s1", -1.0), ("s4", -1.5), ("s3", -2.0), ("s5", -4.0)]


def test_verification_failure_is_not_reported_as_proved():
    env = ScriptedEnv({"s0": {"a": "proved"}}, accept_proofs=False)
    result = prover(["a"]).search(env, THM)
    assert result.status == Status.FAILED
    assert result.stop_reason.kind is StopKind.VERIFICATION_FAILED


def test_events_are_reported():
    env = ScriptedEnv({"s0": {"a": "proved"}})
    events = []
    prover(["a"]).search(env, THM, on_event=events.append)
    kinds = [e.kind for e in events]
    assert kinds == ["generate", "expand", "state", "tactic", "verify"]  # the state's goals come first
    assert events[3] == TacticRun(t=events[3].t, state=events[3].state, tactic="a", outcome="proved",
                                  seconds=events[3].seconds, logprob=0.0)


def test_core_packages_do_not_import_heavy_libraries():
    code = ("import sys, search_tree, prover, prover.proof_search, generator; "
            "heavy = {'torch', 'ray', 'lean_dojo', 'faiss', 'sentence_transformers'} & set(sys.modules); "
            "assert not heavy, heavy")
    subprocess.run([sys.executable, "-c", code], check=True)


def _open(env):
    ctx = env.open(THM)
    return ctx.__enter__()


class _CostByName:
    """A value function reading each state's remaining cost from a table, counting its calls."""

    def __init__(self, costs):
        self.costs, self.asked = costs, []

    def value(self, states, context):
        self.asked += [s.key for s in states]
        return [self.costs[s.key] for s in states]


def test_a_value_adds_the_estimated_remaining_cost_to_the_priority():
    """With a value, priority is the path's log-probability minus ``value_weight`` per estimated
    step, and each new state is valued once; a candidate is valued as its node. The graph and
    scores of the test above, but s2 is estimated 1.5 steps from a proof: s1 and s3 now come
    before it. Fails if the value is ignored,
    added with the wrong sign or weight, or asked again for a state already valued."""
    graph = {"s0": {"a": "s1", "b": "s2", "c": "s3"}, "s1": {"e": "s5"}, "s2": {"d": "s4"},
             "s3": {"f": "s1"}, "s4": {}, "s5": {}}
    scores = {"s0": [("a", -1.0), ("b", -0.5), ("c", -2.0)], "s1": [("e", -3.0)], "s2": [("d", -1.0)],
              "s3": [("f", -0.1)]}
    costs = _CostByName({"s1": 0.0, "s2": 1.5, "s3": 0.25, "s4": 0.0, "s5": 0.0})
    events = []
    search = BestFirstSearch(*_open(ScriptedEnv(graph)), lambda s: scores.get(s.key, []), Budget(timeout=10),
                             on_event=events.append, value=costs, value_weight=2.0)
    assert search.run(THM).stop_reason == StopReason(StopKind.EXHAUSTED)
    key = {n.state.id: k for k, n in search.nodes.items()}
    expanded = [(key[e.state], e.priority) for e in events if isinstance(e, Expanded)]
    # s2's candidate d stands at s2's estimate (-0.5 - 1.0 - 3.0 = -4.5), behind s1's e (-4.0): s5
    # is reached and expanded first, though s4 turns out to be valued above it
    assert expanded == [("s0", 0.0), ("s1", -1.0), ("s3", -2.5), ("s2", -3.5), ("s5", -4.0), ("s4", -1.5)]
    assert sorted(costs.asked) == ["s1", "s2", "s3", "s4", "s5"]


def test_the_prover_takes_the_generators_own_value_when_asked():
    """``value="generator"`` uses the generator's ``value`` (a learned policy's); a generator without
    one leaves the priority unchanged. Fails if the option is ignored or misread as a name."""
    class Valued(FixedTacticGenerator):
        value = _CostByName({"s1": 0.0})

    valued = BestFirstSearchProver(Valued(["intro", "auto"]), value="generator")
    assert valued.value.model is Valued.value  # wrapped in LearnedValue, which checks its answers
    assert BestFirstSearchProver(FixedTacticGenerator(["auto"]), value="generator").value is None
    env = ScriptedEnv({"s0": {"intro": "s1"}, "s1": {"auto": "proved"}})
    assert valued.search(env, THM).status == Status.PROVED and Valued.value.asked == ["s1"]


def _tactic_runs(events):
    return [(e.state, e.tactic) for e in events if isinstance(e, TacticRun)]


def test_a_likely_second_step_runs_before_the_roots_unlikely_tactics():
    """Lazy expansion: ``intros`` leads to a state whose likeliest tactic ``ring`` proves it, and
    that runs before the root's less likely ``auto`` and its slow ``sauto`` (the path through
    ``intros`` and ``ring`` scores -0.3, ``auto`` -0.5, ``sauto`` -3.0). Fails if a state's
    suggestions are all run before any of its children's (then ``auto`` and ``sauto`` come first)."""
    env = ScriptedEnv({"s0": {"intros.": "s1", "auto.": "error", "sauto.": "timeout"}, "s1": {"ring.": "proved"}})
    scores = {"s0": [("intros.", -0.1), ("auto.", -0.5), ("sauto.", -3.0)], "s1": [("ring.", -0.2), ("sauto.", -3.0)]}
    events = []
    search = BestFirstSearch(*_open(env), lambda s: scores[s.key], Budget(timeout=10), on_event=events.append)
    result = search.run(THM)
    assert result.status == Status.PROVED and result.tactics == ["intros.", "ring."]
    s0, s1 = search.root.state.id, search.nodes["s1"].state.id
    assert _tactic_runs(events) == [(s0, "intros."), (s1, "ring.")]
    assert [e.kind for e in events if e.kind in ("expand", "tactic")] == ["expand", "tactic", "expand", "tactic"]
    assert not search.root.is_expanded  # auto. and sauto. still wait


def test_a_state_is_not_failed_while_candidates_of_it_wait():
    """The root's child ``s1`` fails (its only tactic errs) while the root's unlikely ``c`` still
    waits: the root stays open and ``c`` is run; once it too has failed, the root fails. Fails if
    a state counts as expanded when its suggestions are queued (the root would fail with ``s1``
    and the search end without ``c``)."""
    env = ScriptedEnv({"s0": {"a": "error", "b": "s1", "c": "error"}, "s1": {"x": "error"}})
    scores = {"s0": [("a", -0.1), ("b", -0.2), ("c", -5.0)], "s1": [("x", -0.3)]}
    seen = []

    def on_event(event):
        if isinstance(event, TacticRun) and event.tactic == "c":  # c has run; its edge is not added yet
            seen.append((search.root.status, search.root.is_expanded, search.nodes["s1"].status))

    search = BestFirstSearch(*_open(env), lambda s: scores[s.key], Budget(timeout=10), on_event=on_event)
    result = search.run(THM)
    assert env.calls == [("s0", "a"), ("s0", "b"), ("s1", "x"), ("s0", "c")]
    assert seen == [(Status.OPEN, False, Status.FAILED)]
    assert result.status == Status.FAILED and result.stop_reason == StopReason(StopKind.EXHAUSTED)
    assert search.root.is_expanded and search.root.status == Status.FAILED


def test_max_expansions_counts_generator_calls_and_their_candidates_still_run():
    """Two expansions (s0, then s1): every candidate they gave is tried, also after the second
    expansion spent the budget, but s2 and s3 are never expanded (s3's ``a`` would prove). Fails
    if the budget counts tactics, if the search stops as soon as it is spent (only ``a`` at s0
    would run), or if it lets a third state be expanded (the proof would be found)."""
    env = ScriptedEnv({"s0": {"a": "s1", "b": "s2"}, "s1": {"a": "s3"}, "s2": {"a": "proved"}, "s3": {"a": "proved"}})
    events = []
    search = BestFirstSearch(*_open(env), lambda s: [("a", -0.25), ("b", -0.5)], Budget(timeout=10, max_expansions=2),
                             on_event=events.append)
    result = search.run(THM)
    assert env.calls == [("s0", "a"), ("s0", "b"), ("s1", "a"), ("s1", "b")]
    assert [e.kind for e in events].count("generate") == result.num_expansions == 2
    assert result.status == Status.OPEN and result.stop_reason == StopReason(StopKind.MAX_EXPANSIONS)
    assert not search.nodes["s2"].is_expanded and not search.nodes["s3"].is_expanded


class RefusingEnv(ScriptedEnv):
    """A scripted environment whose final check, run at once on a finishing step, refused one."""

    def refused_proof(self, theorem):
        return "not proved (assumes P.A.helper)"


def test_a_search_that_ends_unproved_says_why_a_proof_it_found_was_refused():
    """Fails if a search that runs out after its environment refused a finished proof (and went on)
    ends with a bare "exhausted": the user would not learn that a proof was found and why it was not
    taken (fill-admitted's table showed "failed (exhausted)" for a lemma proved only through another
    admitted lemma). A proved search, and one whose stop reason already says something, keep theirs."""
    graph = {"s0": {"intro": "s1"}, "s1": {}}
    result = prover(["intro", "auto"]).search(RefusingEnv(graph), THM)
    assert result.status == Status.FAILED
    assert str(result.stop_reason) == "exhausted: a proof it found was refused: not proved (assumes P.A.helper)"
    proved = prover(["auto"]).search(RefusingEnv({"s0": {"auto": "proved"}}), THM)
    assert proved.status == Status.PROVED and str(proved.stop_reason) == "proved"
    assert str(prover(["intro"]).search(ScriptedEnv(graph), THM).stop_reason) == "exhausted"
