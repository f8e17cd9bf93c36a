"""LeanDojo backend: result mapping with LeanDojo's real data classes, and recovery after timeouts
and crashes with a stand-in for ``Dojo`` that raises LeanDojo's real exception types.

The stand-in ``Dojo`` is the code author's model of LeanDojo, not Lean: these tests (marker
``lean_model``) show the backend agrees with that model; ``test_lean_integration.py`` checks real Lean."""

from __future__ import annotations

import subprocess
from types import SimpleNamespace

import pytest

pytestmark = pytest.mark.lean_model

import lean_dojo as ld  # noqa: E402  (required: a broken install must fail, not skip)

from prover.lean.check import LeanCheck  # noqa: E402
from prover.lean.env import LeanDojoEnvironment, LeanNotInstalled  # noqa: E402
from search_tree import (  # noqa: E402
    EnvironmentFailure,
    ErrorKind,
    ProofFinished,
    ProofGivenUp,
    ProofStep,
    TacticError,
    TacticState,
    Theorem,
    TheoremNotFound,
)

INIT = "a b c : ℕ\n⊢ a + b + c = a + c + b"
MID = "a b c : ℕ\n⊢ a + (b + c) = a + (c + b)"
TWO = "case left\np q : Prop\nhp : p\nhq : q\n⊢ p\n\ncase right\np q : Prop\nhp : p\nhq : q\n⊢ q"
EVAR = "x : ℕ\n⊢ x = ?m.12\n\nx : ℕ\n⊢ ?m.12 = x"

# pp -> tactic -> outcome: a pp (next state), "finished", "sorry", an error text, or an exception
GRAPH = {
    INIT: {
        "rw [add_assoc]": MID,
        "constructor": TWO,
        "refine Eq.trans ?_ ?_": EVAR,
        "exact gives_up": "sorry",
        "exact bad": "unknown identifier 'bad'",
        "simp [slow]": ld.DojoTacticTimeoutError,
        "exact boom": ld.DojoCrashError("Unexpected EOF"),
        "exact oom": ld.DojoCrashError("OOM"),
        "omega": "finished",
        "exact odd": "some unusual line\n⊢ p ?m.1",
    },
    MID: {"rw [add_comm b]": "finished", "simp [slow]": ld.DojoTacticTimeoutError},
}


class StandInDojo:
    """Plays a scripted Lean REPL: sequential state ids from 0 per process, like LeanDojo's REPL."""

    def __init__(self, world: "World", theorem, timeout: int) -> None:
        self.world, self.theorem, self.timeout = world, theorem, timeout
        self.proc = SimpleNamespace(timeout=timeout)
        self.sids = 0
        self.alive = False

    def __enter__(self):
        self.world.starts += 1
        if self.world.init_error is not None:
            raise self.world.init_error
        self.alive = True
        return self, self._state(self.world.init_pp)

    def __exit__(self, *exc) -> None:
        self.alive = False
        self.world.exits += 1

    def _state(self, pp: str):
        state = ld.TacticState(pp, self.sids)
        self.sids += 1
        return state

    def run_tac(self, state, tactic: str):
        assert self.alive, "tactic sent to a Dojo that was exited"
        self.world.log.append((self.world.starts, state.pp, tactic))
        outcome = GRAPH.get(state.pp, {}).get(tactic, f"unknown tactic {tactic}")
        if isinstance(outcome, Exception) or (isinstance(outcome, type) and issubclass(outcome, Exception)):
            self.alive = False
            raise outcome
        if outcome == "finished":
            self.sids += 1
            return ld.ProofFinished(self.sids - 1, "")
        if outcome == "sorry":
            return ld.ProofGivenUp()
        if outcome in GRAPH or "⊢" in outcome:
            return self._state(outcome)
        return ld.LeanError(outcome)


class World:
    def __init__(self, init_pp: str = INIT, init_error: Exception | None = None) -> None:
        self.init_pp, self.init_error = init_pp, init_error
        self.starts = self.exits = 0
        self.log: list[tuple[int, str, str]] = []
        self.theorems: list = []
        self.timeouts: list[int] = []

    def factory(self, theorem, timeout):
        self.theorems.append(theorem)
        self.timeouts.append(timeout)
        return StandInDojo(self, theorem, timeout)


def repo_factory(url: str, commit: str):
    """LeanGitRepo contacts GitHub; the mapping under test only needs url and commit."""
    return SimpleNamespace(url=url, commit=commit)


THM = Theorem("hello_world", "Lean4Example.lean", (5, 1),
              extra={"url": "https://github.com/yangky11/lean4-example", "commit": "7b6ecb9"})


def make_env(world: World, **kw) -> LeanDojoEnvironment:
    return LeanDojoEnvironment(dojo_factory=world.factory, repo_factory=repo_factory, tactic_timeout=7, **kw)


def test_mapping_of_real_leandojo_results():
    world = World()
    env = make_env(world)
    with env.open(THM) as (session, init):
        assert isinstance(init, TacticState) and init.pp == INIT and init.id == 0
        assert [len(g.hypotheses) for g in init.goals] == [3]
        mid = session.run_tac(init, "rw [add_assoc]")
        assert isinstance(mid, TacticState) and mid.id == 1 and mid.goals[0].target == "a + (b + c) = a + (c + b)"
        assert isinstance(session.run_tac(mid, "rw [add_comm b]"), ProofFinished)
        err = session.run_tac(init, "exact bad")
        assert err == TacticError("unknown identifier 'bad'", ErrorKind.ERROR)
        assert isinstance(session.run_tac(init, "exact gives_up"), ProofGivenUp)
        two = session.run_tac(init, "constructor")
        assert [g.name for g in two.goals] == ["left", "right"] and not two.has_metavariables
        evar = session.run_tac(init, "refine Eq.trans ?_ ?_")
        assert evar.num_goals == 2 and evar.has_metavariables
        odd = session.run_tac(init, "exact odd")  # a layout the goal parser rejects: one opaque goal
        assert odd.num_goals == 1 and odd.goals[0].target == odd.pp and odd.has_metavariables
    lean_thm = world.theorems[0]
    assert isinstance(lean_thm, ld.Theorem)
    assert lean_thm.full_name == "hello_world" and str(lean_thm.file_path) == "Lean4Example.lean"
    assert lean_thm.repo.url == THM.extra["url"]
    assert world.exits == 1


def test_tactic_timeout_is_separate_from_init_timeout():
    world = World()
    env = make_env(world, init_timeout=300)
    with env.open(THM) as (session, _):
        assert world.timeouts == [300]
        assert session._dojo.proc.timeout == 7


def test_refused_tactics_never_reach_lean():
    world = World()
    with make_env(world).open(THM) as (session, init):
        for tactic in ["sorry", "exact?", "#eval IO.println 1", "native_decide", ""]:
            result = session.run_tac(init, tactic)
            assert isinstance(result, TacticError) and result.kind == ErrorKind.REFUSED
            assert repr(tactic) in result.message
    assert world.log == []


def test_timeout_restarts_and_replays_the_path():
    world = World()
    with make_env(world).open(THM) as (session, init):
        mid = session.run_tac(init, "rw [add_assoc]")
        result = session.run_tac(mid, "simp [slow]")
        assert result.kind == ErrorKind.TIMEOUT and "7s" in result.message
        assert world.starts == 2 and session.restarts == 1
        # the restarted REPL numbers states from 0 again: LeanDojo gives this state the id `mid` had,
        # so the session must issue a fresh one
        two = session.run_tac(init, "constructor")
        assert two.id not in (init.id, mid.id) and two.pp == TWO
        # the old state is still usable: its path is replayed in the new process first
        assert isinstance(session.run_tac(mid, "rw [add_comm b]"), ProofFinished)
        assert world.log[-2:] == [(2, INIT, "rw [add_assoc]"), (2, MID, "rw [add_comm b]")]
        assert session.run_tac(two, "omega").message.startswith("unknown tactic")  # `two` is still TWO


def test_crash_restarts_and_reports_crash():
    world = World()
    with make_env(world).open(THM) as (session, init):
        result = session.run_tac(init, "exact boom")
        assert result.kind == ErrorKind.CRASH and "Unexpected EOF" in result.message
        oom = session.run_tac(init, "exact oom")
        assert oom.kind == ErrorKind.CRASH and "out of memory" in oom.message
        assert isinstance(session.run_tac(init, "omega"), ProofFinished)
        assert world.starts == 3


def test_too_many_restarts_is_an_environment_failure():
    world = World()
    with make_env(world, max_restarts=2).open(THM) as (session, init):
        session.run_tac(init, "simp [slow]")
        session.run_tac(init, "exact boom")
        with pytest.raises(EnvironmentFailure, match="restarted 2 times"):
            session.run_tac(init, "simp [slow]")


def test_replay_that_diverges_is_an_environment_failure():
    world = World()
    with make_env(world).open(THM) as (session, init):
        mid = session.run_tac(init, "rw [add_assoc]")
        session.run_tac(mid, "simp [slow]")
        GRAPH[INIT]["rw [add_assoc]"] = TWO  # Lean now answers differently
        try:
            with pytest.raises(EnvironmentFailure, match="different result"):
                session.run_tac(mid, "rw [add_comm b]")
            with pytest.raises(EnvironmentFailure, match="closed"):
                session.run_tac(init, "omega")
        finally:
            GRAPH[INIT]["rw [add_assoc]"] = MID


def test_init_errors_are_reported_clearly():
    missing = World(init_error=ld.DojoInitError(
        "Failed to locate the theorem with `nope` as its fully qualified name."))
    with pytest.raises(TheoremNotFound, match="nope"):
        with make_env(missing).open(THM):
            pass
    no_lean = World(init_error=subprocess.CalledProcessError(127, "lean --version"))
    with pytest.raises(LeanNotInstalled, match="elan"):
        with make_env(no_lean).open(THM):
            pass
    broken = World(init_error=ld.DojoInitError(
        "Currently LeanDojo does not support interacting with proofs in prelude files."))
    with pytest.raises(EnvironmentFailure, match="prelude"):
        with make_env(broken).open(THM):
            pass


def test_bad_theorems_are_named():
    env = make_env(World())
    with pytest.raises(ValueError, match="'t'.*no Lean repository"):
        env.lean_theorem(Theorem("t", "A.lean"))
    with pytest.raises(ValueError, match="'t'.*\\.lean file"):
        env.lean_theorem(Theorem("t", "", extra={"url": "u", "commit": "c"}))
    # the environment's own repository is the default
    env = LeanDojoEnvironment("https://github.com/x/y", "abc", dojo_factory=World().factory, repo_factory=repo_factory)
    assert env.lean_theorem(Theorem("t", "A.lean")).repo.commit == "abc"


def test_state_from_elsewhere_is_rejected():
    with make_env(World()).open(THM) as (session, init):
        with pytest.raises(ValueError, match="does not belong"):
            session.run_tac(TacticState(pp="⊢ False", id=init.id), "omega")


def test_verify_uses_checker_and_refuses_give_ups():
    checked: list[str] = []
    statement = "theorem hello_world (a b c : Nat) :\n  a + b + c = a + c + b :="

    def checker(lean_thm, proof: str) -> LeanCheck:
        checked.append(proof)
        return LeanCheck("omega" in proof, "stand-in", statement)

    env = make_env(World(), proof_checker=checker)
    thm = Theorem("hello_world", "Lean4Example.lean", statement=statement, extra=THM.extra)
    good = env.verify(thm, (ProofStep("omega"),))
    assert good.ok and good.script.endswith(":= by\n  omega")
    assert checked == ["by\n  omega"]
    assert not env.verify(thm, (ProofStep("simp"),)).ok
    refused = env.verify(thm, (ProofStep("constructor", ((ProofStep("sorry"),), (ProofStep("simp"),))),))
    assert not refused.ok and "sorry" in refused.message and len(checked) == 2


def test_import_prover_does_not_import_lean_dojo():
    code = "import sys, prover, prover.cli, prover.lean; assert 'lean_dojo' not in sys.modules, 'lean_dojo imported'"
    subprocess.run([__import__("sys").executable, "-c", code], check=True)


def test_best_first_search_survives_timeouts_and_crashes():
    from generator import FixedTacticGenerator
    from prover.proof_search import BestFirstSearchProver
    from search_tree import Status

    world = World()
    header = "theorem hello_world (a b c : Nat) : a + b + c = a + c + b :="
    env = make_env(world, proof_checker=lambda thm, proof: LeanCheck(
        proof == "by\n  rw [add_assoc]\n  rw [add_comm b]", "stand-in", header))
    generator = FixedTacticGenerator(["simp [slow]", "exact boom", "rw [add_assoc]", "rw [add_comm b]"])
    result = BestFirstSearchProver(generator, timeout=30, num_sampled_tactics=4).search(env, THM)
    assert result.status == Status.PROVED, result.stop_reason
    assert result.tactics == ["rw [add_assoc]", "rw [add_comm b]"]
    assert world.starts == 4  # the first start and three restarts (timeout, crash, timeout)
