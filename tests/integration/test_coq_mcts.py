"""AND-OR MCTS on the Coq backend: focusing with ``n: {`` and proofs with bullets checked by coqc."""

from __future__ import annotations

import os
import signal

import pytest

from generator import FixedTacticGenerator
from prover.coq.context import adhoc_theorem
from prover.coq.env import CoqEnvironment
from prover.proof_search import MCTSProver
from search_tree import ErrorKind, FocusingSession, ProofFinished, ProofStep, Status, TacticError, TacticState

pytestmark = [
    pytest.mark.coq,
]

AND3 = adhoc_theorem("Lemma and3 : forall A B C : Prop, A -> B -> C -> (A /\\ B) /\\ C.", [])
PAIR = adhoc_theorem("Lemma pair : forall A B : Prop, A -> B -> A /\\ B.", [])


@pytest.fixture(scope="module")
def env():
    with CoqEnvironment(tactic_timeout=2, memory_limit_mb=2048) as env:
        yield env


def split_state(session, init):
    state = session.run_tac(session.run_tac(init, "intros."), "split.")
    assert isinstance(state, TacticState) and state.num_goals == 2
    return state


def test_focus_shows_one_goal_and_closing_it_finishes_the_focused_search(env):
    with env.open(AND3) as (session, init):
        assert isinstance(session, FocusingSession)
        state = split_state(session, init)
        second, first = session.focus(state, 1), session.focus(state, 0)
        assert second.goals == (state.goals[1],) and first.goals == (state.goals[0],)
        assert "Unfocused" not in first.pp and first.key == first.pp
        assert isinstance(session.run_tac(second, "exact H1."), ProofFinished)
        inner = session.run_tac(first, "split.")  # nested focusing
        a, b = session.focus(inner, 0), session.focus(inner, 1)
        assert isinstance(session.run_tac(b, "exact H0."), ProofFinished)
        assert isinstance(session.run_tac(a, "exact H."), ProofFinished)
        # the state focused on stays usable, and focusing it again gives the same key
        assert session.focus(state, 0).key == first.key
        assert isinstance(session.run_tac(state, "exact (conj H H0)."), TacticState)
        bad = session.focus(state, 2)
        assert isinstance(bad, TacticError) and bad.kind == ErrorKind.REFUSED


def test_focused_key_depends_on_the_goal_only(env):
    th = adhoc_theorem("Lemma twice : forall A B : Prop, A -> B -> (A /\\ B) /\\ ((A /\\ B) /\\ B).", [])
    with env.open(th) as (session, init):
        state = split_state(session, init)
        direct = session.focus(state, 0)  # A /\ B, with (A /\ B) /\ B waiting outside
        inner = session.run_tac(session.focus(state, 1), "split.")
        nested = session.focus(inner, 0)  # A /\ B again, with B and the first A /\ B waiting outside
        assert nested.goals == direct.goals and nested.key == direct.key and nested.id != direct.id
        assert session.focus(inner, 1).key != direct.key


def test_bullets_and_braces_are_refused_inside_a_focus(env):
    with env.open(PAIR) as (session, init):
        focused = session.focus(split_state(session, init), 0)
        for tactic in ("}", "- exact H.", "{ exact H.", "2: {", "+ auto."):
            result = session.run_tac(focused, tactic)
            assert isinstance(result, TacticError) and result.kind == ErrorKind.REFUSED, tactic
        assert isinstance(session.run_tac(focused, "exact H."), ProofFinished)


def test_shelving_the_focused_goal_does_not_prove_it(env):
    th = adhoc_theorem("Lemma sh : (exists n : nat, n = n) /\\ True.", [])
    with env.open(th) as (session, init):
        state = session.run_tac(init, "split.")
        focused = session.focus(state, 0)
        shelved = session.run_tac(focused, "shelve.")
        assert isinstance(shelved, TacticError) and "shelved" in shelved.message
        assert isinstance(session.run_tac(focused, "exists 0; reflexivity."), ProofFinished)


def test_focus_steps_are_replayed_after_a_crash(env):
    with env.open(AND3) as (session, init):
        state = split_state(session, init)
        inner = session.run_tac(session.focus(state, 0), "split.")
        b = session.focus(inner, 1)
        os.kill(session.coqtop_pid, signal.SIGKILL)
        session.coqtop.proc.wait()  # found dead before the tactic: restarted first, the tactic runs
        result = session.run_tac(b, "exact H0.")  # coqtop restarted; intros, split, 1: {, split, 2: { replayed
        assert isinstance(result, ProofFinished) and session.restarts == 1
        wrong = session.run_tac(b, "exact H.")
        assert isinstance(wrong, TacticError) and wrong.kind == ErrorKind.ERROR


def _prove(env, theorem, tactics, **kw):
    prover = MCTSProver(FixedTacticGenerator(tactics), timeout=120, max_env_calls=200, **kw)
    result = prover.search(env, theorem)
    assert result.status == Status.PROVED, (result.stop_reason, result.stats)
    assert result.stats["and_nodes"] >= 1 and result.stats["focus_calls"] >= 2
    return result


def test_coq_verify_checks_each_branch_of_a_structured_proof(env):
    """A structured proof is checked branch by branch by real coqc: swapped or missing branches fail.

    Replaces a test of the scripted double's own checker. Fails if the renderer reorders or drops
    branches (e.g. ``render_proof`` writing ``reversed(step.branches)``), or if ``verify_proof``
    accepts a proof coqc stops on.
    """
    intro = ProofStep("intros A B HA HB.")
    good = (intro, ProofStep("split.", ((ProofStep("exact HA."),), (ProofStep("exact HB."),))))
    swapped = (intro, ProofStep("split.", ((ProofStep("exact HB."),), (ProofStep("exact HA."),))))
    missing = (intro, ProofStep("split.", ((ProofStep("exact HA."),),)))
    ok = env.verify(PAIR, good)
    assert ok.ok and ok.script == "intros A B HA HB.\nsplit.\n- exact HA.\n- exact HB.", ok
    bad = env.verify(PAIR, swapped)
    assert not bad.ok and 'The term "HB" has type "B" while it is expected to have type "A"' in bad.message, bad
    short = env.verify(PAIR, missing)
    assert not short.ok and "Attempt to save an incomplete proof" in short.message, short


def test_mcts_proves_adhoc_lemmas_with_bullets(env):
    # no tactic of the list proves a conjunction whole: the goals must be split and proved apart
    result = _prove(env, PAIR, ["intros.", "split.", "assumption."])
    lines = result.script.splitlines()
    assert "split." in lines and lines.count("- assumption.") == 2, result.script
    nested = _prove(env, AND3, ["intros.", "split.", "assumption."])
    assert "- split." in nested.script and "+ assumption." in nested.script


def test_mcts_proves_a_stdlib_lemma_whose_proof_splits(env):
    theorem = env.theorem("and_comm")  # Init/Logic.v: A /\ B <-> B /\ A, four goals in all
    result = _prove(env, theorem, ["intros.", "split.", "intros [H1 H2].", "assumption."])
    assert result.stats["and_nodes"] >= 3
    lines = result.script.splitlines()
    assert "split." in lines and sum(line.lstrip().startswith(("- ", "+ ")) for line in lines) == 6, result.script


def test_a_generated_bullet_outside_any_focus_gives_braces_that_compile(env):
    # "- intros." opens a bullet of the search's own proof; the split under it is focused with
    # "1: {" / "2: {" all the same, and the script then writes branches as braces
    swap = adhoc_theorem("Lemma swap : forall A B : Prop, A /\\ B -> B /\\ A.", [])
    result = _prove(env, swap, ["- intros A B [H1 H2].", "split.", "assumption."])
    lines = [line.strip() for line in result.script.splitlines()]
    assert lines[0] == "- intros A B [H1 H2]." and lines.count("{") == 2 and lines.count("}") == 2, result.script
