"""Best-first search's reserved tactic (search_tree.budget.Reserve): CoqHammer's ``hammer`` gets
its turns by a deadline and with the time left, whatever cheaper suggestions wait before it; and
every tactic of a search with a timeout runs within the time the search has left, and counts only
when it answers in time (search_tree.budget.Meter.run_tac).

The session is scripted and the clock is the test's: every tactic costs the seconds the script
gives it (a timeout costs its limit), so the schedule is asserted to the second."""

from __future__ import annotations

import pytest

import search_tree.budget
from generator import FixedTacticGenerator
from prover.proof_search import BestFirstSearchProver
from scripted_env import ScriptedEnv, ScriptedSession
from search_tree import (ErrorKind, ProofFinished, Reserve, Status, StopKind, TacticError, TacticState, Theorem,
                         TimedSession)
from search_tree.budget import LATE_GRACE, Budget, Meter

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
    (default 0.1; a scripted ``timeout`` costs its whole limit, by default 5 s), with the limit
    each tactic ran under recorded in ``env.limits``: its own 5 s, the one the search chose, or
    the lesser of both when the search only caps it (``at_most``)."""

    own = 5.0
    keeps_limits = True  # False: a tactic costs what the script says, past its limit (Coq's Timeout ignored)

    def run_tac(self, state: TacticState, tactic: str, seconds: float | None = None, at_most: bool = False):
        outcome = self.env.graph.get(self.names[state.id], {}).get(tactic, "error")
        limit = self.own if seconds is None else min(self.own, seconds) if at_most else seconds
        cost = limit if outcome == "timeout" else self.env.costs.get(tactic, 0.1)
        self.env.clock.now += min(cost, limit) if self.keeps_limits else cost
        self.env.limits.append((self.names[state.id], tactic, limit))
        return super().run_tac(state, tactic)

    def run_tac_within(self, state: TacticState, tactic: str, seconds: float, at_most: bool = False):
        return self.run_tac(state, tactic, seconds, at_most)


class OverrunningSession(TimedScriptedSession):
    """Takes a limit but does not keep it: as CoqHammer past Coq's ``Timeout``, without a watchdog."""

    keeps_limits = False


class TimedEnv(ScriptedEnv):
    def __init__(self, graph, clock: Clock, costs: dict[str, float] | None = None,
                 session: type[TimedScriptedSession] = TimedScriptedSession) -> None:
        super().__init__(graph)
        self.clock, self.costs, self.limits, self.session = clock, costs or {}, [], session

    def open(self, theorem: Theorem):
        from contextlib import contextmanager

        @contextmanager
        def opened():
            session = self.session(self)
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


def test_the_final_call_skips_a_state_that_is_the_same_problem_for_hammer(clock):
    """Every path has failed once hammer timed out on the root: the state after ``intros.`` is,
    for hammer, the root again (it introduces premises itself), so the second call goes to the
    state after ``split.``, though ``intros.`` was the likelier step, and proves it. Without
    ``same_problem`` it goes to the ``intros.`` state. Fails if the second call is spent there,
    or is skipped altogether."""
    graph = {"s0": {"intros.": "s1", "split.": "s2", HAMMER: "timeout"}, "s1": {}, "s2": {HAMMER: "proved"}}
    generator = FixedTacticGenerator([("intros.", -1.0), ("split.", -2.0)])
    skipping = Reserve(HAMMER, first_limit=20.0, first_by=0.25, final=0.25, same_problem=(" intros. ",))
    env = TimedEnv(graph, clock)
    result = search(env, _RootOnly(generator, HAMMER), reserve=skipping)
    assert [s for s, _ in hammer_calls(env)] == ["s0", "s2"] and result.status == Status.PROVED
    assert result.tactics == ["split.", HAMMER]
    env = TimedEnv(graph, clock)
    search(env, _RootOnly(FixedTacticGenerator([("intros.", -1.0), ("split.", -2.0)]), HAMMER))
    assert [s for s, _ in hammer_calls(env)] == ["s0", "s1"]


def test_a_reserve_takes_its_same_problem_steps_as_a_list_of_tactics():
    """Fails if a lone string (a run's configuration mistyped) passes for a list of tactics."""
    with pytest.raises(ValueError, match="same_problem"):
        Reserve(HAMMER, first_limit=20.0, first_by=0.25, final=0.25, same_problem="intros.")  # type: ignore[arg-type]
    assert Reserve(HAMMER, 20.0, 0.25, 0.25, same_problem=["intros. "]).same_problem == ("intros.",)  # type: ignore[arg-type]


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


@pytest.mark.parametrize("strategies", [0, -2, 2.5, "4", True])
def test_a_bad_number_of_hammer_strategies_is_refused_naming_it(strategies):
    from prover.coq.env import CoqEnvironment

    with pytest.raises(ValueError, match="hammer_strategies"):
        CoqEnvironment(hammer_strategies=strategies)


def test_the_default_preset_gives_hammer_its_turns_and_the_expensive_tactics_their_limits():
    """The preset's reserve is hammer's, with the limit the environment gives hammer, and its
    expensive tactics' limits and hammer's number of ATP strategies reach the environment."""
    from prover.coq.presets import HAMMER_SAME_PROBLEM, HAMMER_STRATEGIES, TACTIC_LIMITS, default_config
    from prover.defaults import HAMMER_BY, HAMMER_FINAL

    config = default_config(timeout=30)
    assert config.prover.options["reserve"] == {"tactic": HAMMER, "first_limit": 10.0, "first_by": HAMMER_BY,
                                                "final": HAMMER_FINAL, "same_problem": list(HAMMER_SAME_PROBLEM)}
    assert config.env.options["hammer_timeout"] == 10.0
    assert config.env.options["tactic_limits"] == TACTIC_LIMITS
    assert config.env.options["hammer_strategies"] == HAMMER_STRATEGIES


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
    env = TimedEnv({"s0": {"split.": "s1", HAMMER: "error"}, "s1": {}}, clock, {HAMMER: 0.5})
    search(env, _RootOnly(FixedTacticGenerator([("split.", -1.0)]), HAMMER), reserve=reserve, timeout=DEMO.timeout)
    assert hammer_calls(env) == [("s0", 5.0), ("s1", 8.0)]


# -- every tactic within the time the search has left (Meter.run_tac) ---------------------------


def limits_at(clock: Clock, meter: Meter, session: TimedScriptedSession, runs) -> list[float]:
    """The limits ``session`` ran under, for ``runs`` of (seconds into the search, tactic, the
    limit the search chose)."""
    state = session.state("s0")
    for at, tactic, seconds in runs:
        clock.now = meter.start + at
        meter.run_tac(session, state, tactic, seconds=seconds)
    return [limit for _, _, limit in session.env.limits]


def test_every_tactic_gets_at_most_the_whole_seconds_the_search_has_left(clock):
    """Under a 60 s timeout a tactic keeps its own 5 s while 5 s are left; with 2.7 s left it gets
    2, with 0.4 s left 1 (the least a session takes). Fails if only the reserved tactic is capped
    (every limit 5) or the time left is rounded up (3 s at 57.3 s)."""
    env = TimedEnv({"s0": {"slow.": "timeout"}}, clock)
    meter = Meter(Budget(timeout=60.0))
    assert limits_at(clock, meter, TimedScriptedSession(env),
                     [(0.0, "slow.", None), (54.5, "slow.", None), (57.3, "slow.", None), (59.6, "slow.", None),
                      (61.0, "slow.", None)]) == [5.0, 5.0, 2.0, 1.0, 1.0]


def test_a_limit_the_search_chose_stands_but_within_the_time_left(clock):
    """The reserve's 20 s for hammer is more than hammer's own 5 s and is kept at the start; with
    9.5 s left the call gets 9. Without a timeout every tactic keeps its own limit (or the one
    chosen). Fails if the chosen limit only caps the own one, or the time left is not applied."""
    env = TimedEnv({"s0": {HAMMER: "timeout"}}, clock)
    meter = Meter(Budget(timeout=60.0))
    assert limits_at(clock, meter, TimedScriptedSession(env),
                     [(0.0, HAMMER, 20.0), (50.5, HAMMER, 20.0)]) == [20.0, 9.0]
    env = TimedEnv({"s0": {HAMMER: "timeout"}}, clock)
    assert limits_at(clock, Meter(Budget()), TimedScriptedSession(env),
                     [(0.0, "slow.", None), (500.0, HAMMER, 20.0)]) == [5.0, 20.0]


@pytest.mark.parametrize(("cost", "proved"), [(2.4, True), (2.6, False)])
def test_a_success_after_the_timeout_and_its_grace_does_not_count(clock, cost, proved):
    """A session that overruns its limit (as CoqHammer past Coq's Timeout): started at 58 s of 60,
    a proof answered at 60.4 s is within the grace (LATE_GRACE, 0.5 s) and counts; at 60.6 s it is
    a TIMEOUT error, and so is a new state. Fails if late results are handed to the search."""
    assert LATE_GRACE == 0.5
    env = TimedEnv({"s0": {"late.": "proved", "step.": "s1"}}, clock, {"late.": cost, "step.": cost},
                   session=OverrunningSession)
    session, meter = OverrunningSession(env), Meter(Budget(timeout=60.0))
    for tactic in ("late.", "step."):
        clock.now = meter.start + 58.0
        result, _ = meter.run_tac(session, session.state("s0"), tactic)
        if proved:
            assert isinstance(result, ProofFinished if tactic == "late." else TacticState), result
        else:
            assert isinstance(result, TacticError) and result.kind == ErrorKind.TIMEOUT, result
            assert result.message == ("the tactic answered 0.6s after the search's 60s timeout; "
                                      "its result does not count")


def test_best_first_does_not_report_a_proof_found_after_its_timeout(clock):
    """hammer alone at 60 s with a session that overruns its (own, 5 s) limit: the proof comes at
    70 s, and the search reports a timeout, not a proof."""
    env = TimedEnv({"s0": {HAMMER: "proved"}}, clock, {HAMMER: 70.0}, session=OverrunningSession)
    result = search(env, [(HAMMER, -0.1)], reserve=None, timeout=60.0)
    assert result.status == Status.OPEN and result.stop_reason.kind == StopKind.TIMEOUT and result.proof is None
    assert hammer_calls(env) == [("s0", 5.0)]


def test_mcts_runs_every_tactic_within_the_time_left(clock):
    """MCTS goes through the same meter: under 12 s, three tactics that run to their limit of 5 s
    each; the third, started at 10 s, gets the 2 s left. Fails if MCTS bypasses the meter's cap."""
    from prover.proof_search import MCTSProver

    env = TimedEnv({"s0": {"a.": "timeout", "b.": "timeout", "c.": "timeout"}}, clock)
    prover = MCTSProver(FixedTacticGenerator([("a.", -1.0), ("b.", -1.1), ("c.", -1.2)]), timeout=12.0,
                        num_sampled_tactics=4)
    result = prover.search(env, THM)
    assert [limit for _, _, limit in env.limits] == [5.0, 5.0, 2.0]
    assert result.total_time == pytest.approx(12.0)


class CheckingSession(TimedScriptedSession):
    """Checks a finished proof inside the step, as the Coq environment does a section lemma's: the
    check costs ``env.costs["check"]`` seconds of the test's clock, said in ``checked_seconds``."""

    def run_tac(self, state: TacticState, tactic: str, seconds: float | None = None, at_most: bool = False):
        result = super().run_tac(state, tactic, seconds, at_most)
        if isinstance(result, ProofFinished):
            check = self.env.costs["check"]
            self.env.clock.now += check
            return ProofFinished(result.id, result.message, checked_seconds=check)
        return result


@pytest.mark.parametrize(("check", "total"), [(5.0, 1.1), (12.8, 3.9), (200.0, None)])
def test_a_proof_checked_inside_its_step_is_not_late_for_the_check(clock, check, total):
    """A 10-s search finds a proof at 1.1 s whose check inside the step takes 12.8 s (the stdlib's
    PaddX_ok in the demo): the proof counts. Fails if the check's time makes the proof late (it
    was: status open, timeout). The clock gives back at most the timeout in all: 10 of the 12.8 s
    (the search took 3.9 s), 10 of 200 s (the proof late)."""
    env = TimedEnv({"s0": {"found.": "proved"}}, clock, {"found.": 1.1, "check": check}, session=CheckingSession)
    result = search(env, [("found.", -0.1)], reserve=None, timeout=10.0)
    if total is not None:
        assert result.status == Status.PROVED and result.total_time == pytest.approx(total), result
    else:
        assert result.status == Status.OPEN and result.stop_reason.kind == StopKind.TIMEOUT, result
