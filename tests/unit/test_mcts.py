import math

import pytest

from generator import FixedTacticGenerator
from prover.coq.language import COQ
from prover.lean.language import LEAN
from prover.proof_search import BestFirstSearchProver, MCTSProver, make_prover
from scripted_env import ScriptedEnv
from search_tree import (
    StopKind,
    StopReason,
    AndNode, Budget, ConstantValue, GoalHeuristicValue, LearnedValue, MCTSConfig, MCTSSearch, OrNode,
    ProofStep, ProvedLeaf, Status, TacticEdge, TacticState, Theorem, exploration_coefficient,
    make_value, puct_score, reconstruct_proof,
)

THM = Theorem("t")

# s0 --intro--> s1 --split--> s2 = [gA, gB]; gA needs two steps, gB one.
SPLIT_GRAPH = {"s0": {"intro": "s1"}, "s1": {"split": "s2"}, "gA": {"a": "gA1"}, "gA1": {"b": "proved"},
               "gB": {"c": "proved"}}
SPLIT_GOALS = {"s2": ["gA", "gB"]}


def mcts(tactics, **kw):
    kw.setdefault("timeout", 10)
    return MCTSProver(FixedTacticGenerator(tactics), num_sampled_tactics=16, **kw)


def search(env, tactics, budget=None, **kw):
    session, init = env.open(THM).__enter__()
    gen = FixedTacticGenerator(tactics)
    return MCTSSearch(session, init, lambda s: gen.generate(s, THM, 16), budget or Budget(timeout=10), **kw)


class NoFocusSession:
    """A session of a backend that cannot focus: only run_tac."""

    def __init__(self, inner):
        self.inner = inner

    def run_tac(self, state, tactic):
        return self.inner.run_tac(state, tactic)


# -- AND splitting ---------------------------------------------------------------------------------

def test_multi_goal_state_splits_into_and_node_and_proof_has_branches():
    env = ScriptedEnv(SPLIT_GRAPH, goals=SPLIT_GOALS)
    result = mcts(["intro", "split", "a", "b", "c"]).search(env, THM)
    assert result.status == Status.PROVED
    assert result.proof == (
        ProofStep("intro"),
        ProofStep("split", ((ProofStep("a"), ProofStep("b")), (ProofStep("c"),))),
    )
    assert result.script == "intro\nsplit\n- a\n  b\n- c"
    assert result.stats["and_nodes"] == 1 and result.stats["focus_calls"] == 2
    assert sorted(env.focus_calls) == [("s2", 0), ("s2", 1)]
    # no tactic is ever run on the whole two-goal state
    assert all(state != "s2" for state, _ in env.calls)
    assert result.stats["proof_length"] == 5 and result.stats["max_depth"] == 3


def test_nested_branches_render_with_deeper_bullets():
    graph = {"s0": {"split": "s1"}, "g1": {"split": "s2"}, "h1": {"x": "proved"}, "h2": {"y": "proved"},
             "g2": {"z": "proved"}}
    env = ScriptedEnv(graph, goals={"s1": ["g1", "g2"], "s2": ["h1", "h2"]})
    result = mcts(["split", "x", "y", "z"]).search(env, THM)
    assert result.status == Status.PROVED
    assert result.script == "split\n- split\n  - x\n  - y\n- z"


def test_no_split_when_a_goal_holds_an_evar():
    # s2's goals share an evar: the state stays whole and tactics run on it, as best-first does
    graph = {"s0": {"eapply": "s2"}, "s2": {"inst": "s3"}, "s3": {"done": "proved"}}
    env = ScriptedEnv(graph, goals={"s2": ["P ?x", "Q ?x"]})
    result = mcts(["eapply", "inst", "done"]).search(env, THM)
    assert result.status == Status.PROVED
    assert result.stats["and_nodes"] == 0 and env.focus_calls == []
    assert result.tactics == ["eapply", "inst", "done"] and all(not s.branches for s in result.proof)


def test_no_split_when_the_session_cannot_focus():
    graph = {"s0": {"split": "s2"}, "s2": {"c": "s3"}, "s3": {"c": "proved"}}
    env = ScriptedEnv(graph, goals={"s2": ["gA", "gB"]})
    session, init = env.open(THM).__enter__()
    gen = FixedTacticGenerator(["split", "c"])
    s = MCTSSearch(NoFocusSession(session), init, lambda st: gen.generate(st, THM, 8), Budget(timeout=10))
    result = s.run(THM)
    assert result.status == Status.PROVED and result.tactics == ["split", "c", "c"]
    assert result.stats["and_nodes"] == 0


def test_split_can_be_switched_off_for_ablations():
    graph = {"s0": {"split": "s2"}, "s2": {"c": "s3"}, "s3": {"c": "proved"}}
    env = ScriptedEnv(graph, goals={"s2": ["gA", "gB"]})
    result = mcts(["split", "c"], config=MCTSConfig(split_goals=False)).search(env, THM)
    assert result.status == Status.PROVED and result.stats["and_nodes"] == 0


# -- solved status ---------------------------------------------------------------------------------

def _state(name, i=0):
    return TacticState(name, i, key=name)


def test_solved_and_failed_status_propagate_through_and_nodes():
    root = OrNode(_state("r"), None, 0, visits=1, value_sum=0.5)
    edge = TacticEdge("split", 1.0)
    root.edges.append(edge)
    and_node = AndNode(_state("r2"), root, 1, visits=1)
    g1, g2 = (OrNode(_state(n), and_node, 1, visits=1, value_sum=0.9) for n in ("g1", "g2"))
    and_node.children = [g1, g2]
    edge.child = and_node
    e1 = TacticEdge("t1", 1.0)
    g1.edges.append(e1)
    e1.child = ProvedLeaf(g1)
    g1.refresh()
    assert g1.status == Status.PROVED and g1.proof_cost == 1
    assert and_node.status == Status.OPEN and root.status == Status.OPEN  # AND needs every goal
    e2 = TacticEdge("t2", 1.0)
    g2.edges.append(e2)
    mid = OrNode(_state("g2'"), g2, 2, visits=1, value_sum=0.9)
    e2.child = mid
    e3 = TacticEdge("t3", 1.0)
    mid.edges.append(e3)
    e3.child = ProvedLeaf(mid)
    mid.refresh()
    assert g2.status == Status.PROVED and g2.proof_cost == 2
    assert and_node.status == Status.PROVED and and_node.proof_cost == 3
    assert root.status == Status.PROVED and root.proof_cost == 4
    assert reconstruct_proof(root) == (ProofStep("split", ((ProofStep("t1"),), (ProofStep("t2"), ProofStep("t3")))),)


def test_one_failed_goal_fails_the_and_node_and_an_exhausted_or_node_fails():
    root = OrNode(_state("r"), None, 0, visits=1)
    edge = TacticEdge("split", 1.0)
    root.edges.append(edge)
    root.exhausted = True
    and_node = AndNode(_state("r2"), root, 1, visits=1)
    g1, g2 = OrNode(_state("g1"), and_node, 1, visits=1), OrNode(_state("g2"), and_node, 1, visits=1)
    and_node.children = [g1, g2]
    edge.child = and_node
    bad = TacticEdge("bad", 1.0, dead_reason="failed")
    g2.edges.append(bad)
    g2.refresh()
    assert g2.status == Status.OPEN  # the generator may still propose something
    g2.exhausted = True
    g2.refresh()
    assert g2.status == Status.FAILED and and_node.status == Status.FAILED
    assert root.status == Status.FAILED  # its only tactic led to an AND node that failed


def test_search_fails_when_one_goal_of_the_only_split_is_unprovable():
    graph = {"s0": {"split": "s2"}, "gA": {"a": "proved"}, "gB": {"b": "error"}}
    env = ScriptedEnv(graph, goals={"s2": ["gA", "gB"]})
    result = mcts(["split", "a", "b"]).search(env, THM)
    assert result.status == Status.FAILED and result.stop_reason == StopReason(StopKind.EXHAUSTED)


# -- PUCT ------------------------------------------------------------------------------------------

def test_exploration_coefficient_follows_alphazero():
    assert exploration_coefficient(0, 1.25, 19652) == pytest.approx(1.25 + math.log(19653 / 19652))
    assert exploration_coefficient(19652, 1.25, 19652) == pytest.approx(1.25 + math.log(39305 / 19652))
    assert puct_score(0.5, 0.25, 9, 2, 2.0) == pytest.approx(0.5 + 2.0 * 0.25 * 3 / 3)


@pytest.mark.parametrize("parent_value_sum, expected", [(0.0, "a"), (0.9, "b")])
def test_puct_choice_on_a_hand_computed_example(parent_value_sum, expected):
    # N = 9, c(9) = 1.25 + ln(19662/19652) = 1.2505088; priors a: 3/4, b: 1/4 (mass 3 : 1).
    # a: visited 5 times, child value 0.5 -> Q = 0.99 * 0.5 = 0.495; U = 1.2505088 * 0.75 * 3 / 6 = 0.4689
    #    score(a) = 0.9639
    # b: not run yet -> Q = V(parent) = value_sum / 9; U = 1.2505088 * 0.25 * 3 / 1 = 0.9379
    #    value_sum 0.0 -> 0.9379 < 0.9639: a;   value_sum 0.9 -> 0.1 + 0.9379 = 1.0379 > 0.9639: b
    env = ScriptedEnv({"s0": {}})
    s = search(env, ["x"])
    node = OrNode(_state("p"), None, 0, visits=9, value_sum=parent_value_sum)
    a, b = TacticEdge("a", 3.0), TacticEdge("b", 1.0)
    a.child = OrNode(_state("pa"), node, 1, visits=5, value_sum=2.5)
    node.edges += [a, b]
    assert s.select_edge(node).tactic == expected


def test_first_simulation_runs_the_most_likely_tactic():
    env = ScriptedEnv({"s0": {"lo": "s1", "hi": "s2"}})
    s = search(env, [("lo", math.log(0.1)), ("hi", math.log(0.9))], budget=Budget(max_simulations=1))
    s.run(THM)
    assert env.calls == [("s0", "hi")]


def test_priors_use_temperature_and_merge_duplicate_texts():
    env = ScriptedEnv({"s0": {}})
    tactics = [("a", math.log(0.5)), (" a ", math.log(0.25)), ("b", math.log(0.25))]
    s = search(env, tactics, budget=Budget(max_simulations=1), config=MCTSConfig(prior_temperature=2.0))
    s.run(THM)
    masses = {e.tactic: e.mass for e in s.root.edges}
    # relative to the best log-probability (0.5): exp(ln(x / 0.5) / 2), summed over duplicates
    assert masses["a"] == pytest.approx(1.0 + math.sqrt(0.5))
    assert masses["b"] == pytest.approx(math.sqrt(0.5))


def test_tactics_reaching_the_same_state_are_merged_with_their_mass():
    env = ScriptedEnv({"s0": {"a": "s1", "b": "s1", "c": "s2"}, "s1": {}, "s2": {}})
    session, init = env.open(THM).__enter__()
    root_tactics = [("a", math.log(0.5)), ("b", math.log(0.3)), ("c", math.log(0.2))]
    s = MCTSSearch(session, init, lambda st: root_tactics if st.key == "s0" else [], Budget(max_env_calls=3))
    s.run(THM)
    edges = {e.tactic: e for e in s.root.edges}
    assert edges["b"].dead_reason == "merged" and edges["b"].child is None
    assert edges["a"].mass / edges["c"].mass == pytest.approx((0.5 + 0.3) / 0.2)
    assert s.root.by_text["b"] is edges["a"]
    assert s.counts["merged_tactics"] == 1 and s.counts["or_nodes"] == 3  # s0, s1, s2


def test_and_node_descends_into_its_hardest_goal_and_backs_up_its_minimum():
    # heuristic value: one step per goal plus one per 200 characters, so the long goal is harder
    long_goal = "g" * 400
    graph = {"s0": {"split": "s2"}, long_goal: {"t": "proved"}, "gB": {"t": "proved"}}
    env = ScriptedEnv(graph, goals={"s2": ["gB", long_goal]})
    session, init = env.open(THM).__enter__()
    s = MCTSSearch(session, init, lambda st: [("split", 0.0)] if st.key == "s0" else [("t", 0.0)],
                   Budget(max_simulations=1), value="heuristic")
    s.run(THM)
    and_node = s.root.edges[0].child
    assert isinstance(and_node, AndNode)
    easy, hard = and_node.children
    g = s.config.gamma
    assert hard.value(g) == pytest.approx(g**3) and easy.value(g) == pytest.approx(g**1.01)
    assert and_node.value(g) == pytest.approx(g**3)
    # the new AND node backed up its hardest goal across the split edge: root = (V(s0) + g * g**3) / 2
    assert s.root.visits == 2 and s.root.value_sum == pytest.approx(g**1.01 + g * g**3)
    before = s.root.value_sum
    s.simulate()
    assert env.calls == [("s0", "split"), (long_goal, "t")]
    assert hard.status == Status.PROVED and and_node.status == Status.OPEN
    # with the hard goal proved, the AND node passes up its remaining open goal
    assert s.root.value_sum - before == pytest.approx(g * g**1.01)
    assert and_node.value(g) == pytest.approx(g**1.01)  # now only the easy goal is open
    s.simulate()
    assert and_node.status == Status.PROVED and s.root.status == Status.PROVED



def test_a_new_state_below_an_and_node_backs_up_the_minimum_over_its_open_goals():
    """A simulation that expands the hardest goal backs up, through the AND node, the smaller of
    the goal's new estimate and its open sibling's value. Fails if the AND node passed up the
    larger one (its easiest goal), or the new sample alone."""
    long_goal = "g" * 400  # heuristic cost 3: the hardest goal; "gB" costs 1.01
    graph = {"s0": {"split": "s2"}, long_goal: {"t": "mid"}, "gB": {"t": "proved"}, "mid": {}}
    env = ScriptedEnv(graph, goals={"s2": ["gB", long_goal]})
    session, init = env.open(THM).__enter__()
    s = MCTSSearch(session, init, lambda st: [("split", 0.0)] if st.key == "s0" else [("t", 0.0)],
                   Budget(max_simulations=1), value="heuristic")
    s.run(THM)
    easy, hard = s.root.edges[0].child.children
    g = s.config.gamma
    before = s.root.value_sum
    s.simulate()
    assert env.calls[-1] == (long_goal, "t")
    mid = hard.edges[0].child
    assert mid.value(g) == pytest.approx(g**1.015)  # "mid": 3 characters
    assert hard.value_sum == pytest.approx(g**3 + g * g**1.015)
    # AND node: min(g * V(mid), V(gB)) = g**2.015, not max(...) = g**1.01
    assert s.root.value_sum - before == pytest.approx(g * g**2.015)
    assert easy.value(g) == pytest.approx(g**1.01)


def test_a_proved_goal_below_an_and_node_backs_up_the_minimum_over_the_remaining_open_goals():
    """With three goals, proving the hardest backs up the hardest of the two still open. Fails if
    the AND node passed up the easiest remaining goal (``max``) or the proved goal's reward."""
    long_goal, medium_goal = "g" * 400, "h" * 200  # heuristic costs 3 and 2; "gB" costs 1.01
    graph = {"s0": {"split": "s2"}, long_goal: {"t": "proved"}, medium_goal: {}, "gB": {}}
    env = ScriptedEnv(graph, goals={"s2": ["gB", medium_goal, long_goal]})
    session, init = env.open(THM).__enter__()
    s = MCTSSearch(session, init, lambda st: [("split", 0.0)] if st.key == "s0" else [("t", 0.0)],
                   Budget(max_simulations=1), value="heuristic")
    s.run(THM)
    and_node = s.root.edges[0].child
    g = s.config.gamma
    assert s.root.value_sum == pytest.approx(g**1.01 + g * g**3)  # the split backed up its hardest goal
    before = s.root.value_sum
    s.simulate()
    assert env.calls[-1] == (long_goal, "t") and and_node.children[2].status == Status.PROVED
    assert s.root.value_sum - before == pytest.approx(g * g**2)


# -- progressive sampling --------------------------------------------------------------------------

class CountingGenerator:
    """Proposes two new tactics (that fail) on every call: a sampler that never runs dry."""

    def __init__(self):
        self.calls = 0

    def __call__(self, state):
        self.calls += 1
        return [(f"t{self.calls}a", -1.0), (f"t{self.calls}b", -2.0)]


def test_a_node_out_of_tactics_asks_again_whatever_the_widening_rule():
    env = ScriptedEnv({"s0": {}})
    for c, alpha in [(1.0, 0.5), (0.5, 1.0)]:
        gen = CountingGenerator()
        session, init = env.open(THM).__enter__()
        s = MCTSSearch(session, init, gen, Budget(max_simulations=40), config=MCTSConfig(sampling_c=c, sampling_alpha=alpha))
        s.run(THM)
        # every tactic fails, so N (root visits) stays 1; the root is asked again only when it runs
        # out of tactics: 40 simulations run 40 tactics from 20 calls of two tactics each
        assert gen.calls == 20 and s.root.visits == 1


@pytest.mark.parametrize("c, alpha, visits", [(1.0, 0.5, [1, 2, 4, 9, 16, 25]), (0.5, 1.0, [1, 2, 4, 6, 8, 10])])
def test_progressive_sampling_asks_while_calls_at_most_c_times_n_to_the_alpha(c, alpha, visits):
    # every tactic at the root succeeds, so its visits grow by one per simulation that stays alive
    graph = {"s0": {f"t{j}": f"s0_{j}" for j in range(1000)}}
    env = ScriptedEnv(graph)
    calls_at_visits = []

    class Gen:
        n = 0

        def __call__(self, state):
            if state.key == "s0":
                calls_at_visits.append(search_obj.root.visits)
                self.n += 1
                return [(f"t{50 * self.n + k}", -1.0) for k in range(50)]
            return []

    session, init = env.open(THM).__enter__()
    search_obj = MCTSSearch(session, init, Gen(), Budget(max_simulations=30),
                            config=MCTSConfig(sampling_c=c, sampling_alpha=alpha))
    search_obj.run(THM)
    # asked at the first visit count N at which calls_so_far <= C * N**alpha
    assert calls_at_visits[:6] == visits


def test_deterministic_generator_is_asked_at_most_twice_per_node():
    env = ScriptedEnv({"s0": {"a": "s1"}, "s1": {"a": "s2"}, "s2": {"a": "s3"}, "s3": {}})
    s = search(env, ["a", "b"])
    result = s.run(THM)
    assert result.status == Status.FAILED and result.stop_reason == StopReason(StopKind.EXHAUSTED)
    assert result.num_expansions <= 2 * 4


# -- deduplication and filtering -------------------------------------------------------------------

def test_a_tactic_leading_back_to_its_path_is_dropped():
    env = ScriptedEnv({"s0": {"a": "s1"}, "s1": {"b": "s0", "c": "s1"}})
    result = mcts(["a", "b", "c"]).search(env, THM)
    assert result.status == Status.FAILED and result.stop_reason == StopReason(StopKind.EXHAUSTED)
    assert result.stats["cycles"] == 2  # b returns to s0, c stays in s1


def test_a_split_whose_goal_repeats_a_state_on_its_path_is_dropped():
    # proving s1 by splitting into [s1, gB] would need s1 itself
    graph = {"s0": {"a": "s1"}, "s1": {"split": "s2", "c": "proved"}, "gB": {"c": "proved"}}
    env = ScriptedEnv(graph, goals={"s2": ["s1", "gB"]})
    result = mcts([("split", -0.1), ("a", -0.2), ("c", -3.0)]).search(env, THM)
    assert result.status == Status.PROVED and result.tactics == ["a", "c"]
    assert result.stats["cycles"] == 1 and result.stats["and_nodes"] == 0


def test_give_up_tactics_never_reach_the_environment():
    """Fails if MCTS runs a give-up of the environment's language (or a Lean search tactic) instead
    of dropping it, or drops a tactic when the environment has no language."""
    env = ScriptedEnv({"s0": {"sorry": "sorry", "admit": "sorry", "exact?": "proved", "auto": "proved"}})
    env.language = LEAN
    result = mcts([("sorry", -0.1), ("admit", -0.1), ("exact?", -0.1), ("stop", -0.1), ("auto", -5.0)]).search(env, THM)
    assert result.status == Status.PROVED and result.tactics == ["auto"]
    assert env.calls == [("s0", "auto")]
    assert result.stats["filtered_tactics"] == 4
    bare = ScriptedEnv({"s0": {"exact?": "proved"}})
    assert mcts([("exact?", -0.1)]).search(bare, THM).stats["filtered_tactics"] == 0 and bare.calls == [("s0", "exact?")]


@pytest.mark.parametrize("language, tactic, expected", [
    ("lean", "sorry", True), ("lean", "exact?", True), ("lean", "apply? using h", True),
    ("lean", "constructor <;> simp?", True), ("lean", "stop", True), ("lean", "exact List.head? l", False),
    ("lean", "intros ?", False), ("lean", "exact hsorry", False), ("lean", "Admitted.", False),
    ("coq", "admit.", True), ("coq", "Admitted.", True), ("coq", "give_up.", True), ("coq", "intros. admit.", True),
    ("coq", "Admit.", True), ("coq", "destruct x as [? ?]", False), ("coq", "rewrite ?H", False),
    ("coq", "apply admit_lemma", False), ("coq", "auto", False), ("coq", "sorry", False), ("coq", "exact?", False),
])
def test_gives_up(language, tactic, expected):
    """Fails if a language's give-up words (whole words, case-sensitive) or Lean's search tactics are
    not recognised, or a word of the other language or an identifier containing one is taken."""
    assert {"coq": COQ, "lean": LEAN}[language].gives_up(tactic) is expected


# -- budgets, failures, verification ---------------------------------------------------------------

CHAIN = {"s0": {"a": "s1"}, "s1": {"a": "s2"}, "s2": {"a": "s3"}, "s3": {"a": "proved"}}


def test_budgets_stop_the_search_with_their_name():
    for kw, reason in [({"max_simulations": 2}, "max_simulations"), ({"max_nodes": 2}, "max_nodes"),
                       ({"max_env_calls": 3}, "max_env_calls"), ({"max_expansions": 1}, "max_expansions")]:
        result = mcts(["a", "b"], **kw).search(ScriptedEnv(CHAIN), THM)
        assert result.status == Status.OPEN and result.stop_reason == StopReason(StopKind(reason)), kw
    assert mcts(["a"], max_env_calls=4).search(ScriptedEnv(CHAIN), THM).status == Status.PROVED


def test_focus_calls_count_towards_max_env_calls():
    """Focusing is a call into the prover and is paid from ``max_env_calls`` like a tactic (the basis
    of the MCTS vs best-first comparison at equal calls).

    Fails if ``Meter.focus`` stops incrementing ``env_calls``: the totals below then equal the
    tactic calls alone, and a budget of 10 buys 10 tactics instead of 8.
    """
    tactics = ["intro", "split", "a", "b", "c"]
    env = ScriptedEnv(SPLIT_GRAPH, goals=SPLIT_GOALS)
    full = mcts(tactics).search(env, THM)
    assert full.status == Status.PROVED and len(env.focus_calls) == full.stats["focus_calls"] == 2
    assert full.num_env_calls == len(env.calls) + len(env.focus_calls) == 26
    env = ScriptedEnv(SPLIT_GRAPH, goals=SPLIT_GOALS)
    capped = mcts(tactics, max_env_calls=10).search(env, THM)
    assert capped.status == Status.OPEN and capped.stop_reason == StopReason(StopKind.MAX_ENV_CALLS)
    assert (capped.num_env_calls, len(env.calls), len(env.focus_calls)) == (10, 8, 2)


@pytest.mark.parametrize("budget", range(1, 31))
def test_max_env_calls_is_never_overrun_by_a_split(budget):
    """The 7th tactic call opens the two-goal state; its two focus calls are made only if both fit.

    Fails if ``_run_edge`` splits without asking ``Meter.affords`` first (budgets 7 and 8 then
    make 9 calls), or if a split short of budget is skipped without stopping the search (the same
    tactic is then re-run until the budget runs out: 8 tactic calls at budget 8).
    """
    env = ScriptedEnv(SPLIT_GRAPH, goals=SPLIT_GOALS)
    result = mcts(["intro", "split", "a", "b", "c"], max_env_calls=budget).search(env, THM)
    assert result.num_env_calls == len(env.calls) + len(env.focus_calls) <= budget
    if budget >= 26:
        assert result.status == Status.PROVED and result.num_env_calls == 26
        return
    assert result.status == Status.OPEN and result.stop_reason == StopReason(StopKind.MAX_ENV_CALLS)
    if budget in (7, 8):  # the split does not fit: stopped right after the tactic that opened it
        assert (len(env.calls), env.focus_calls) == (7, [])
    else:
        assert result.num_env_calls == budget


def test_wall_time_budget():
    slow = ScriptedEnv({k: {t: "slow:" + v for t, v in d.items()} for k, d in CHAIN.items()}, slow_seconds=0.15)
    result = mcts(["a"], timeout=0.2).search(slow, THM)
    assert result.status == Status.OPEN and result.stop_reason == StopReason(StopKind.TIMEOUT) and result.num_env_calls == 2


def test_environment_failure_and_verification_failure():
    result = mcts(["a"]).search(ScriptedEnv({"s0": {"a": "s1"}, "s1": {"a": "fatal"}}), THM)
    assert result.status == Status.FAILED and result.stop_reason.kind is StopKind.ENVIRONMENT_FAILURE
    result = mcts(["a"]).search(ScriptedEnv({"s0": {"a": "proved"}}, accept_proofs=False), THM)
    assert result.status == Status.FAILED and result.stop_reason.kind is StopKind.VERIFICATION_FAILED


def test_result_statistics_and_events():
    env = ScriptedEnv(SPLIT_GRAPH, goals=SPLIT_GOALS)
    events = []
    result = mcts(["intro", "split", "a", "b", "c"]).search(env, THM, on_event=events.append)
    stats = result.stats
    assert stats["simulations"] >= 5 and stats["nodes"] == result.num_nodes == 6  # s0 s1 AND gA gA1 gB
    assert stats["or_nodes"] == 5 and stats["and_nodes"] == 1
    kinds = {e.kind for e in events}
    assert {"generate", "expand", "tactic", "focus", "split", "verify"} <= kinds


# -- value functions and selection by name ---------------------------------------------------------

def test_value_functions():
    small = TacticState("x", 0, goals=(), key="x")
    from search_tree import Goal
    one = TacticState("g", 1, goals=(Goal((), "a = a"),))
    two = TacticState("g\n\ng", 2, goals=(Goal((), "a = a"), Goal((), "b = b")))
    assert ConstantValue(2.0).value([one, two], THM) == [2.0, 2.0]
    h = GoalHeuristicValue(chars_per_step=100)
    assert h.value([one, two, small], THM) == pytest.approx([1.05, 2.10, 1.01])

    class Model:
        def value(self, states, context):
            return [float("nan"), -3.0, 4.0][: len(states)]

    assert LearnedValue(Model()).value([one, two, small], THM) == [1.0, 0.0, 4.0]
    with pytest.raises(ValueError, match="value model returned 3 estimates for 4 states"):
        LearnedValue(Model()).value([one] * 4, THM)
    assert isinstance(make_value(Model()), LearnedValue)
    with pytest.raises(ValueError, match="unknown value function 'oracle'"):
        make_value("oracle")


def test_learned_value_is_called_with_all_goals_of_a_split_at_once():
    batches = []

    class Model:
        def value(self, states, context):
            batches.append([s.key for s in states])
            return [1.0] * len(states)

    env = ScriptedEnv(SPLIT_GRAPH, goals=SPLIT_GOALS)
    result = mcts(["intro", "split", "a", "b", "c"], value=Model()).search(env, THM)
    assert result.status == Status.PROVED
    assert ["gA", "gB"] in batches and result.stats["value_time"] >= 0


def _decoy_graph():
    """s0 -b-> g -b-> gg -b-> ggg -b-> proved; every ``a`` (the likelier tactic) leaves the proof
    line for a binary tree of decoy states ``d...`` eight levels deep."""
    graph = {"s0": {"a": "d", "b": "g"}, "g": {"a": "dg", "b": "gg"}, "gg": {"a": "dgg", "b": "ggg"},
             "ggg": {"a": "dggg", "b": "proved"}}

    def decoy(name, depth):
        if depth:
            graph[name] = {"a": name + "a", "b": name + "b"}
            decoy(name + "a", depth - 1)
            decoy(name + "b", depth - 1)

    for root in ("d", "dg", "dgg", "dggg"):
        decoy(root, 8)
    return graph


def test_learned_value_finds_the_proof_the_priors_alone_miss_in_budget():
    """On a branching graph where the priors favour decoys, only a value that tells decoys apart
    from the proof line finds the proof within 40 tactic calls; a constant value runs out.

    Fails if MCTS ignores the value function (e.g. ``_new_or_nodes`` seeding every node with the
    same reward, or ``select_edge`` using priors only): the learned run then stays OPEN too.
    """
    graph = _decoy_graph()

    def propose(state):
        return [("a", math.log(0.7)), ("b", math.log(0.3))]

    class Model:  # a learned model's answers: decoys look hopeless, the proof line one step away
        def value(self, states, context):
            return [200.0 if s.key.startswith("d") else 1.0 for s in states]

    results = {}
    for name, value in (("constant", "constant"), ("learned", LearnedValue(Model()))):
        session, init = ScriptedEnv(graph).open(THM).__enter__()
        results[name] = MCTSSearch(session, init, propose, Budget(timeout=10, max_env_calls=40), value=value).run(THM)
    assert results["constant"].status == Status.OPEN and results["constant"].stop_reason == StopReason(StopKind.MAX_ENV_CALLS)
    assert results["learned"].status == Status.PROVED and results["learned"].tactics == ["b", "b", "b", "b"]
    assert results["learned"].num_env_calls <= 25


def test_make_prover_selects_by_name():
    gen = FixedTacticGenerator(["a"])
    assert isinstance(make_prover("mcts", gen, timeout=5), MCTSProver)
    assert isinstance(make_prover("best_first", gen, timeout=5), BestFirstSearchProver)
    with pytest.raises(ValueError, match="unknown search 'dfs'; known: best_first, mcts"):
        make_prover("dfs", gen)
    env = ScriptedEnv(CHAIN)
    assert make_prover("best_first", gen, max_env_calls=4).search(env, THM).status == Status.PROVED


# -- the benchmark ---------------------------------------------------------------------------------

def test_benchmark_runs_both_provers_on_the_synthetic_environment(capsys):
    from benchmarks.mcts_vs_best_first import main

    figures = main(["--env", "scripted", "--theorems", "8", "--max-env-calls", "60",
                    "--env-latency", "0", "--gen-latency", "0"])
    out = capsys.readouterr().out
    assert "best_first" in out and "mcts" in out and "overhead" in out
    for algorithm in ("best_first", "mcts"):
        f = figures[algorithm]
        assert f["theorems"] == 8 and 0 < f["proved"] <= 8 and 0 <= f["overhead"] < 1
        assert f["mean_env_calls"] <= 60


def test_synthetic_environment_checks_structured_proofs():
    from prover.synthetic import SyntheticEnvironment, SyntheticGenerator, synthetic_theorems

    env = SyntheticEnvironment()
    prover = MCTSProver(SyntheticGenerator(temperature=0.0), max_env_calls=300, num_sampled_tactics=16)
    results = [prover.search(env, t) for t in synthetic_theorems(20)]  # the first split proof is synthetic_0015
    split = [r for r in results if r.status == Status.PROVED and r.proof[-1].branches
             and len(set(r.proof[-1].branches)) > 1]
    assert split  # some proofs split goals, and were re-checked branch by branch
    r = split[0]
    assert env.verify(r.theorem, r.proof).ok
    last = r.proof[-1]
    swapped = r.proof[:-1] + (ProofStep(last.tactic, last.branches[::-1]),)
    assert not env.verify(r.theorem, swapped).ok
