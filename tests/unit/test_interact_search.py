"""The interactive view's ``search`` command on a scripted environment: the found proof is replayed
step by step into the session, and a step that fails on replay leaves the steps before it."""

from __future__ import annotations

from prover.views.interact import Interaction
from scripted_env import ScriptedEnv, ScriptedSession
from search_tree import ErrorKind, ProofFinished, TacticError, TacticState, Theorem

GRAPH = {"s0": {"a.": "s1"}, "s1": {"b.": "proved"}}


class FailsOnSecondRun(ScriptedSession):
    """``b.`` proves ``s1`` the first time only, and times out when run again."""

    def __init__(self, env: ScriptedEnv) -> None:
        super().__init__(env)
        self.runs = 0

    def run_tac(self, state, tactic):
        if (self.names[state.id], tactic) == ("s1", "b."):
            self.runs += 1
            if self.runs > 1:
                return TacticError("timed out", ErrorKind.TIMEOUT)
        return super().run_tac(state, tactic)


def _interaction(session_class) -> tuple[Interaction, list[str]]:
    env = ScriptedEnv(GRAPH)
    session = session_class(env)
    said: list[str] = []
    propose = lambda state: [("a.", -0.1), ("b.", -0.2)]  # noqa: E731
    return Interaction(env, session, session.state("s0"), Theorem("t"), propose, said.append), said


def test_search_replays_the_found_proof():
    """Fails if ``search`` does not leave the session at the end of the proof it found, with the
    proof's steps as the steps taken."""
    interaction, said = _interaction(ScriptedSession)
    assert interaction.command("search 5") is False  # proved: the session is over
    assert isinstance(interaction.state, ProofFinished)
    assert interaction.tactics() == ["a.", "b."]
    assert said[-1] == "found: a. b."


def test_a_step_that_fails_on_replay_keeps_the_steps_before_it():
    """Fails if a found proof whose step fails when replayed puts the failure in place of the state
    (the session then breaks on the next command) or keeps the failed step."""
    interaction, said = _interaction(FailsOnSecondRun)
    assert interaction.command("search 5") is True  # still open
    assert isinstance(interaction.state, TacticState) and interaction.state.key == "s1"
    assert interaction.tactics() == ["a."]
    assert "found: a. b.; but replaying b. gave timeout: kept the steps before it" in said
    assert said[-1].startswith("── t, step 2")  # the state it stopped at is shown
