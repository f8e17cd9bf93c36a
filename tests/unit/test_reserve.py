"""Best-first search's reserved tactic (search_tree.budget.Reserve): CoqHammer's ``hammer`` gets
its turns by a deadline and with the time left, whatever cheaper suggestions wait before it.

The session is scripted and the clock is the test's: every tactic costs the seconds the script
gives it (a timeout costs its limit), so the schedule is asserted to the second."""

from __future__ import annotations

import pytest

import search_tree.budget
from generator import FixedTacticGenerator
from prover.proof_search import BestFirstSearchProver
from scripted_env import ScriptedEnv, ScriptedSession
from search_tree import Reserve, Status, StopKind, TacticState, Theorem, TimedSession

THM = Theorem("t")
HAMMER = "hammer."
#: 60 s per theorem; hammer by 15 s with 20 s, and again once 15 s are left
RESERVE = Reserve(HAMMER, first_limit=20.0, first_by=0.25, final=0.25)


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


class TimedScriptedSession(ScriptedSession):
    """A scripted session whose tactics cost ``env.costs[tactic]`` seconds of the test's clock
    (default 0.1; a scripted ``timeout`` costs its whole limit, 5 s), with the limit the search
    chose recorded in ``env.limits``."""

    def run_tac(self, state: TacticState, tactic: str, seconds: float | None = None):
        outcome = self.env.graph.get(self.names[state.id], {}).get(tactic, "error")
        limit = seconds if seconds is not None else 5.0
        cost = limit if outcome == "timeout" else self.env.costs.get(tactic, 0.1)
        self.env.clock.now += min(cost, limit)
        self.env.limits.append((self.names[state.id], tactic, seconds))
        return super().run_tac(state, tactic)

    def run_tac_within(self, state: TacticState, tactic: str, seconds: float):
        return self.run_tac(state, tactic, seconds)


class TimedEnv(ScriptedEnv):
    def __init__(self, graph, clock: Clock, costs: dict[str, float] | None = None) -> None:
        super().__init__(graph)
        self.clock, self.costs, self.limits = clock, costs or {}, []

    def open(self, theorem: Theorem):
        from contextlib import contextmanager

        @contextmanager
        def opened():
            session = TimedScriptedSession(self)
            yield session, session.state(self.init)
        return opened()


@pytest.fixture
def clock(monkeypatch) -> Clock:
    clock = Clock()
    monkeypatch.setattr(search_tree.budget.time, "monotonic", clock)
    return clock


def search(env: TimedEnv, tactics, reserve: Reserve | None = RESERVE, timeout: float = 60.0):
    """``tactics``: a generator, or the suggestions of a fixed one for every state."""
    gen = tactics if isinstance(tactics, FixedTacticGenerator) else FixedTacticGenerator(tactics)
    prover = BestFirstSearchProver(gen, timeout=timeout, num_sampled_tactics=64, reserve=reserve)
    return prover.search(env, THM)


def hammer_calls(env: TimedEnv) -> list[tuple[str, float | None]]:
    return [(state, seconds) for state, tactic, seconds in env.limits if tactic == HAMMER]


def test_the_session_takes_a_time_limit():
    assert isinstance(TimedScriptedSession(ScriptedEnv({})), TimedSession)
    assert not isinstance(ScriptedSession(ScriptedEnv({})), TimedSession)


def test_hammer_scored_last_runs_on_the_root_by_its_deadline(clock):
    """Ten expensive tactics time out (5 s each) before hammer's turn; hammer runs on the root once
    15 s are spent, with its 20 s, and proves the theorem. Fails if the deadline is not kept (hammer
    would wait 50 s) or the call does not get the reserve's limit."""
    slow = [(f"slow{i}.", -1.0 - i / 100) for i in range(10)]
    env = TimedEnv({"s0": {**{t: "timeout" for t, _ in slow}, HAMMER: "proved"}}, clock, {HAMMER: 12.0})
    result = search(env, slow + [(HAMMER, -3.0)])
    assert result.status == Status.PROVED and result.tactics == [HAMMER]
    assert [t for _, t, _ in env.limits] == ["slow0.", "slow1.", "slow2.", HAMMER]
    assert hammer_calls(env) == [("s0", 20.0)]
    assert result.total_time == pytest.approx(27.0)


def test_hammer_in_its_turn_before_the_deadline_is_not_run_again(clock):
    """Cheap tactics fail fast: hammer runs in its turn (before 15 s) under the reserve's limit,
    fails, and the deadline does not run it a second time on the root."""
    env = TimedEnv({"s0": {"a.": "error", "intros.": "s1", HAMMER: "error"}, "s1": {"b.": "error"}}, clock,
                   {HAMMER: 3.0})
    result = search(env, [("a.", -1.0), ("intros.", -1.1), ("b.", -1.2), (HAMMER, -3.0)], timeout=60.0)
    assert result.status == Status.FAILED
    assert hammer_calls(env)[0] == ("s0", 20.0)
    assert [s for s, _ in hammer_calls(env)].count("s0") == 1


def test_the_deadline_gives_hammer_its_turn_on_the_root_while_the_search_is_deep_in_its_children(clock):
    """Lazy expansion tries the likely tactics of the root's children before the root's hammer
    (scored -3.0): ``intros.`` reaches a new state at every step, and ``slow.`` times out (5 s) on
    the first three states. At 15.3 s, after the third timeout, the deadline runs hammer on the
    root (with its 20 s) while its candidate still waits; when that candidate's turn comes (past
    the tenth state), hammer is not run on the root again, and the root fails once every path has
    failed. Fails if the deadline is not kept under lazy expansion (hammer would run in its turn
    at about 17 s, or never in a search whose later states are slow too), or if the waiting candidate runs it a second time
    on the root or is left waiting (the root would not fail)."""
    chain = {f"s{i}": {"intros.": f"s{i + 1}", "slow.": "timeout" if i < 3 else "error"} for i in range(40)}
    chain["s0"][HAMMER] = "error"
    generator = FixedTacticGenerator([("intros.", -0.25), ("slow.", -0.5)])
    env = TimedEnv(chain, clock, {HAMMER: 1.0})
    result = search(env, _RootOnly(generator, HAMMER))
    assert [(s, t) for s, t, _ in env.limits[:7]] == [
        ("s0", "intros."), ("s0", "slow."), ("s1", "intros."), ("s1", "slow."), ("s2", "intros."), ("s2", "slow."),
        ("s0", HAMMER)]
    assert result.status == Status.FAILED and result.stop_reason.kind == StopKind.EXHAUSTED
    # the second call is the final one (every path has failed at 23.9 s), on the best other state
    assert hammer_calls(env) == [("s0", 20.0), ("s1", 35.0)]
    chain["s0"][HAMMER] = "proved"
    env = TimedEnv(chain, clock, {HAMMER: 1.0})
    result = search(env, _RootOnly(generator, HAMMER))
    assert result.status == Status.PROVED and result.tactics == [HAMMER] and hammer_calls(env) == [("s0", 20.0)]
    assert result.total_time == pytest.approx(16.3)


def test_when_every_path_fails_the_time_left_goes_to_hammer_on_the_best_other_state(clock):
    """Every path has failed by 20.2 s (hammer timed out on the root): the second call runs on the
    state after ``intros.`` (not the root again: once per state) with the 39.8 s left but a second,
    rounded down, and proves it."""
    env = TimedEnv({"s0": {"intros.": "s1", HAMMER: "timeout"}, "s1": {"intros.": "error"}}, clock)
    result = search(env, _RootOnly(FixedTacticGenerator([("intros.", -1.0)]), HAMMER))
    assert hammer_calls(env) == [("s0", 20.0), ("s1", 38.0)] and result.status == Status.FAILED
    env = TimedEnv({"s0": {"intros.": "s1", HAMMER: "timeout"}, "s1": {"intros.": "error", HAMMER: "proved"}}, clock)
    result = search(env, _RootOnly(FixedTacticGenerator([("intros.", -1.0)]), HAMMER))
    assert result.status == Status.PROVED and result.tactics == ["intros.", HAMMER]


def test_final_call_takes_the_time_left_once_only_a_quarter_remains(clock):
    """A search that keeps finding new states: once 45 s are spent hammer runs on the best state
    other than the root (by the search's priority: the one a single likely step away), with the
    time left but a second, rounded down; and only once."""
    chain = {f"s{i}": {"step.": f"s{i + 1}", "slow.": "timeout"} for i in range(40)}
    chain["s0"][HAMMER] = "timeout"
    env = TimedEnv(chain, clock)
    result = search(env, _RootOnly(FixedTacticGenerator([("step.", -1.0), ("slow.", -1.5)]), HAMMER))
    assert result.stop_reason.kind == StopKind.TIMEOUT
    # s0: step (0.1 s), slow (5 s), hammer (20 s) by 25.1 s; then 0.1 + 5 s per state: s4's slow
    # ends at 45.5 s, when 14.5 s are left
    assert hammer_calls(env) == [("s0", 20.0), ("s1", 13.0)]


def test_no_reserved_call_where_the_generator_does_not_offer_it(clock):
    """The reserve runs only what the generator proposed on the root (the leak guard withholds
    hammer from some theorems: there it must never run)."""
    env = TimedEnv({"s0": {"intros.": "s1"}, "s1": {}}, clock)
    result = search(env, [("intros.", -1.0)])
    assert result.status == Status.FAILED and hammer_calls(env) == []


def test_no_final_call_with_too_little_time_left(clock):
    """At 8 s per theorem every path has failed by 3.2 s, and the final call would get 3 s, under
    ``min_final``: it is not made."""
    env = TimedEnv({"s0": {"intros.": "s1", HAMMER: "timeout"}, "s1": {}}, clock)
    reserve = Reserve(HAMMER, first_limit=3.0, first_by=0.25, final=0.25)
    search(env, _RootOnly(FixedTacticGenerator([("intros.", -1.0)]), HAMMER), reserve=reserve, timeout=8.0)
    assert hammer_calls(env) == [("s0", 3.0)]


def test_without_a_reserve_hammer_waits_its_turn(clock):
    slow = [(f"slow{i}.", -1.0 - i / 100) for i in range(10)]
    env = TimedEnv({"s0": {**{t: "timeout" for t, _ in slow}, HAMMER: "proved"}}, clock)
    result = search(env, slow + [(HAMMER, -3.0)], reserve=None, timeout=30.0)
    assert result.stop_reason.kind == StopKind.TIMEOUT and hammer_calls(env) == []


@pytest.mark.parametrize("fields", [
    dict(tactic=" ", first_limit=1.0, first_by=0.25, final=0.25),
    dict(tactic=HAMMER, first_limit=0.0, first_by=0.25, final=0.25),
    dict(tactic=HAMMER, first_limit=1.0, first_by=1.5, final=0.25),
    dict(tactic=HAMMER, first_limit=1.0, first_by=0.25, final=1.0),
])
def test_a_bad_reserve_is_refused(fields):
    with pytest.raises(ValueError, match="reserve"):
        Reserve(**fields)


class _RootOnly(FixedTacticGenerator):
    """``base``'s suggestions, and ``extra`` on the first state only (as CoqHammer's member does)."""

    def __init__(self, base: FixedTacticGenerator, extra: str) -> None:
        self.base, self.extra, self.first = base, extra, None

    def generate(self, state, context, num_samples):
        if self.first is None:
            self.first = state.key
        out = self.base.generate(state, context, num_samples)
        return out + [(self.extra, -3.0)] if state.key == self.first else out


@pytest.mark.parametrize("limits", [{"firstorder": 0}, {"sauto": "2"}])
def test_a_bad_per_tactic_limit_is_refused_naming_it(limits):
    from prover.coq.env import CoqEnvironment

    with pytest.raises(ValueError, match="tactic_limits"):
        CoqEnvironment(tactic_limits=limits)


def test_the_default_preset_gives_hammer_its_turns_and_the_expensive_tactics_their_limits():
    """The preset's reserve is hammer's, with the limit the environment gives hammer, and its
    expensive tactics' limits reach the environment."""
    from prover.coq.presets import TACTIC_LIMITS, default_config
    from prover.defaults import HAMMER_BY, HAMMER_FINAL

    config = default_config(timeout=30)
    assert config.prover.options["reserve"] == {"tactic": HAMMER, "first_limit": 10.0, "first_by": HAMMER_BY,
                                                "final": HAMMER_FINAL}
    assert config.env.options["hammer_timeout"] == 10.0
    assert config.env.options["tactic_limits"] == TACTIC_LIMITS


def test_the_default_preset_runs_under_mcts_without_the_reserve():
    """``eval --search mcts`` and ``coq_vs_hammer.py``'s ``default-mcts`` run the default preset
    under MCTS, which has no reserve: the preset's options MCTS takes are kept, the reserve left."""
    from prover.coq.presets import default_config
    from prover.proof_search import MCTSProver
    from prover.registry import ComponentSpec, build_prover, options_for_search

    options = options_for_search("mcts", default_config(timeout=30).prover.options)
    assert "reserve" not in options and options["timeout"] == 30 and options["value"] == "generator"
    prover = build_prover(ComponentSpec("mcts", options), FixedTacticGenerator([("auto.", 0.0)]))
    assert isinstance(prover, MCTSProver) and prover.budget.timeout == 30


def test_at_the_demos_ten_seconds_the_deadline_passes_without_a_second_call(clock):
    """The demo's limits (10 s, hammer 5 s): hammer runs on the root with its 5 s, and at the
    final deadline (7.5 s) at most a second would be left, so no second call is made (a search
    that keeps going); one whose paths have all failed early still gets one, with the time left
    but a second. Fails if the deadline's call is made with the scrap of time left (the demo's
    logs: the root call ends at 6.5 to 7.5 s) or the early one is lost with it."""
    from prover.coq.presets import default_config
    from prover.defaults import DEMO

    options = default_config(DEMO.timeout, DEMO.tactic_timeout, DEMO.hammer_timeout).prover.options["reserve"]
    reserve = Reserve(**options)
    chain = {f"s{i}": {"step.": f"s{i + 1}", "slow.": "error"} for i in range(40)}
    chain["s0"][HAMMER] = "timeout"
    env = TimedEnv(chain, clock, {"slow.": 1.0})
    result = search(env, _RootOnly(FixedTacticGenerator([("step.", -1.0), ("slow.", -1.5)]), HAMMER), reserve=reserve,
                    timeout=DEMO.timeout)
    # s0: step, slow, hammer in its turn by 6.1 s; s1 by 7.2 s; s2's slow ends at 8.3 s, 1.7 s left
    assert result.stop_reason.kind == StopKind.TIMEOUT and hammer_calls(env) == [("s0", 5.0)]
    env = TimedEnv({"s0": {"intros.": "s1", HAMMER: "error"}, "s1": {}}, clock, {HAMMER: 0.5})
    search(env, _RootOnly(FixedTacticGenerator([("intros.", -1.0)]), HAMMER), reserve=reserve, timeout=DEMO.timeout)
    assert hammer_calls(env) == [("s0", 5.0), ("s1", 8.0)]
