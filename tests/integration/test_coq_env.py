"""The Coq backend against a real coqtop/coqc: sessions, goals, policy, recovery, verification."""

from __future__ import annotations

import os
import re
import signal
import threading
import time

import pytest

from generator import FixedTacticGenerator
from prover.coq.context import adhoc_theorem
from prover.coq.coqtop import Coqtop
from prover.coq.env import CoqEnvironment
from prover.coq.goals import Outcome, parse_view
from prover.proof_search import BestFirstSearchProver
from search_tree import (
    EnvironmentFailure,
    ErrorKind,
    ProofFinished,
    ProofStep,
    Status,
    TacticError,
    TacticState,
    TheoremNotFound,
    linear_proof,
)
from search_tree.events import TacticRun

pytestmark = [
    pytest.mark.coq,
]

ARITH = ["Require Import Arith Lia."]
COMM = adhoc_theorem("Lemma comm_and : forall n m : nat, n + m = m + n /\\ True.", ARITH)
# loops forever; only Coq's Timeout (or the watchdog) stops it
LOOP = "let rec loop := idtac; loop in loop."


@pytest.fixture(scope="module")
def env():
    with CoqEnvironment(tactic_timeout=1, memory_limit_mb=2048) as env:
        yield env


def run(session, state, *tactics):
    """Run tactics one after the other, asserting each leaves a state; returns the last result."""
    result = state
    for tactic in tactics:
        assert isinstance(result, TacticState), (tactic, result)
        result = session.run_tac(result, tactic)
    return result


# -- the driver -------------------------------------------------------------------------------

def test_coqtop_reply_framing_state_ids_and_memory_cap():
    coqtop = Coqtop(memory_limit_mb=1024)
    coqtop.start()
    try:
        start = coqtop.start_state
        opened = coqtop.send("Lemma t : True.")
        assert opened.ok and opened.state_id > start and opened.proof_name == "t"
        bad = coqtop.send("exact 0.")
        assert not bad.ok and bad.state_id == opened.state_id and "has type" in bad.error
        faked = coqtop.send('idtac "Error: not really".')  # a success that prints "Error:"
        assert faked.ok
        coqtop.back_to(start)
        assert coqtop.tip == start and coqtop.proof_name == "Coq"
        reopened = coqtop.send("Lemma t : True.")  # same evar numbers as the abandoned proof:
        assert reopened.ok and reopened.output == "" and reopened.stale_printer  # coqtop printed nothing
        with open(f"/proc/{coqtop.pid}/limits") as f:
            limits = f.read()
        line = next(row for row in limits.splitlines() if row.startswith("Max address space"))
        assert str(1024 * 1024 * 1024) in line
    finally:
        coqtop.kill()


# -- goals ------------------------------------------------------------------------------------

def test_every_goal_has_its_own_hypotheses(env):
    th = adhoc_theorem("Lemma cases : forall n : nat, n = 0 \\/ n <> 0.", ARITH)
    with env.open(th) as (session, init):
        assert init.num_goals == 1 and init.goals[0].hypotheses == ()
        state = run(session, init, "intros n.", "destruct n eqn:E.")
        assert isinstance(state, TacticState) and state.num_goals == 2
        first, second = state.goals
        assert [(h.name, h.type) for h in first.hypotheses] == [("n", "nat"), ("E", "n = 0")]
        assert [(h.name, h.type) for h in second.hypotheses] == [("n", "nat"), ("n0", "nat"), ("E", "n = S n0")]
        assert first.target == "0 = 0 \\/ 0 <> 0" and second.target == "S n0 = 0 \\/ S n0 <> 0"
        assert "E : n = S n0" in state.pp and state.pp.count("============================") == 2
        induction = session.run_tac(run(session, init, "intros n."), "induction n.")
        assert induction.goals[0].hypotheses == () and induction.goals[1].hypotheses[1].name == "IHn"
        assert "(ID" not in state.pp  # evar numbers are not part of the state identity


def test_sibling_states_are_told_apart_after_backto(env):
    # after BackTo, coqtop prints nothing for a state whose goals reuse the evar numbers of the
    # abandoned branch; the session must still tell each sibling's goals
    with env.open(COMM) as (session, init):
        for name in ("n", "m", "k"):
            state = session.run_tac(init, f"intros {name}.")
            assert state.goals[0].hypotheses[0].name == name, state.pp
        assert session.restarts == 0


def test_states_of_abandoned_branches_are_replayed_not_lost(env):
    # coqtop's document is linear: after going back to init and taking another branch, the
    # states of the first branch are gone from coqtop and must be rebuilt by replay
    with env.open(COMM) as (session, init):
        first = run(session, init, "intros n m.", "split.")
        other = run(session, init, "intros x y.", "split.", "exact (Nat.add_comm x y).")
        assert other.goals[0].target == "True"
        assert isinstance(session.run_tac(first, "- lia."), TacticState)  # off the chain: replayed
        assert session.replayed_tactics >= 2 and session.restarts == 0
        assert isinstance(session.run_tac(other, "exact I."), ProofFinished)
        assert session.restarts == 0


def test_unicode_hypothesis_names(env):
    th = adhoc_theorem("Lemma u : forall (α β : nat), α = β -> exists k, k = α.", ARITH)
    with env.open(th) as (session, init):
        state = run(session, init, "intros.", "eexists.")
        assert [h.name for h in state.goals[0].hypotheses] == ["α", "β", "H"]
        assert state.goals[0].has_metavariable and state.goals[0].target == "?k = α"


def test_let_hypothesis_and_unchanged_state(env):
    th = adhoc_theorem("Lemma lets : let x := 3 in x = 3.", ARITH)
    with env.open(th) as (session, init):
        state = run(session, init, "intros x.")
        assert state.goals[0].hypotheses[0].name == "x"
        assert state.goals[0].hypotheses[0].value == "3" and state.goals[0].hypotheses[0].type == "nat"
        same = session.run_tac(state, "idtac.")  # coqtop prints nothing when the proof is unchanged
        assert isinstance(same, TacticState) and same.key == state.key and same.id != state.id


def test_warnings_do_not_hide_the_state(env):
    th = adhoc_theorem("Lemma warn : forall n, n + 0 = n /\\ True.", ARITH)
    with env.open(th) as (session, init):
        state = run(session, init, "intros.", "split.", "rewrite plus_0_r.")  # deprecated since 8.16
        assert isinstance(state, TacticState) and state.goals[0].target == "n = n", state
        assert "Warning" not in state.pp and "Toplevel" not in state.pp



def test_untagged_traces_before_a_state_are_skipped():
    # the policy refuses debug/info tactics, but the parser (also the tracer's) tolerates them
    coqtop = Coqtop()
    coqtop.start()
    try:
        coqtop.send("Lemma t : forall n : nat, n = n /\\ True.")
        traced = coqtop.send("intros; split; info_auto.")
        assert traced.ok and traced.output.startswith("(* info auto")
        assert parse_view(traced.output).outcome == Outcome.FINISHED
        coqtop.back_to(coqtop.start_state)
        coqtop.send("Lemma u : forall n : nat, n = n /\\ n = S n.")
        partial = coqtop.send("intros; split; [debug auto|].")
        view = parse_view(partial.output)
        assert view.outcome == Outcome.GOALS and view.goals[0].target == "n = S n"
    finally:
        coqtop.kill()


def test_evars_and_shelved_goals_are_detected(env):
    th = adhoc_theorem("Lemma ex : exists n : nat, n = n /\\ True.", ARITH)
    with env.open(th) as (session, init):
        assert not init.has_metavariables
        state = session.run_tac(init, "eexists.")
        assert isinstance(state, TacticState) and state.has_metavariables
        assert "?n" in state.goals[0].target and "(shelved: 1)" in state.pp
        split = session.run_tac(state, "split.")
        assert split.num_goals == 2 and split.goals[0].has_metavariable and not split.goals[1].has_metavariable
        # solving the goals but leaving the witness shelved is not a finished proof
        shelved = run(session, state, "split.", "reflexivity.", "exact I.")
        assert isinstance(shelved, TacticState) and "All the remaining goals are on the shelf." in shelved.pp
        assert shelved.goals[0].target == "nat" and shelved.goals[0].has_metavariable
        done = run(session, shelved, "Unshelve.", "exact 0.")
        assert isinstance(done, ProofFinished)


def test_bullets_and_braces(env):
    th = adhoc_theorem("Lemma both : (True /\\ True) /\\ 1 = 1.", ARITH)
    with env.open(th) as (session, init):
        split = session.run_tac(init, "split.")
        inner = session.run_tac(split, "- split.")
        assert inner.num_goals == 2 and "*** Unfocused goals:" in inner.pp and "1 = 1" in inner.pp
        deeper = run(session, inner, "+ exact I.")
        assert deeper.num_goals == 0 and "Focus next goal with bullet +." in deeper.pp
        after = run(session, deeper, "+ exact I.")
        assert after.num_goals == 0 and "bullet -" in after.pp
        assert isinstance(session.run_tac(after, "- reflexivity."), ProofFinished)
        # a tactic on a finished bullet fails; the right bullet works
        assert isinstance(session.run_tac(deeper, "exact I."), TacticError)
        braced = session.run_tac(split, "2: {")
        assert braced.num_goals == 1 and braced.goals[0].target == "1 = 1"
        closed = run(session, braced, "reflexivity.", "}")
        assert closed.num_goals == 1 and closed.goals[0].target == "True /\\ True"
        # the same goals inside and outside a bullet are different states
        assert session.run_tac(split, "-").key != run(session, split, "2: {", "reflexivity.", "}").key
        assert session.restarts == 0


# -- the untrusted-tactic policy --------------------------------------------------------------

REFUSED = [
    "Drop.", "Load \"evil.v\".", "Declare ML Module \"evil\".", "Quit.", "Admitted.", "Abort.",
    "Axiom cheat : False.", "Parameter p : nat.", "Set Printing All.", "Unset Printing Notations.",
    "Back.", "BackTo 1.", "Undo.", "Redirect \"out\" Print nat.", "Require Import Reals.",
    "Import Nat.", "Time auto.", "Timeout 100 auto.", "Fail auto.", "Qed.", "Defined.",
    "Add LoadPath \"/tmp\".", "Extraction nat.", "Cd \"/tmp\".", "Print nat.", "Check nat.",
    "Lemma other : True.", "Ltac t := idtac.", "#[local] Hint Resolve I : core.", "Show Proof.",
    "Local Set Printing All.", "Goal True.", "Restart.", "Succeed auto.", "Search nat.",
    "admit.", "give_up.", "split; admit.", "try (solve [admit]).", "2: admit.",
    "exact_no_check I.", "all: change_no_check False.", "debug auto.", "intros; info_eauto.",
    "auto. auto.", "intros. split.", "- auto. auto.", "par: auto.", "", "   ", "auto (* open",
    'idtac "<prompt>x < 9 |x| 0 < </prompt>".', "auto.\x00",
]


@pytest.mark.parametrize("tactic", REFUSED)
def test_refused_input_never_reaches_coq(env, tactic):
    with env.open(COMM) as (session, init):
        sent = session.coqtop.sentences_sent
        result = session.run_tac(init, tactic)
        assert isinstance(result, TacticError) and result.kind == ErrorKind.REFUSED, result
        assert result.message.startswith("refused tactic ")
        assert session.coqtop.sentences_sent == sent  # nothing reached coqtop


# First words of the Coq 8.16 vernacular commands (reference manual, command index), written out
# here independently of prover.coq.policy, so that a command the policy lets through is caught.
COQ_816_COMMANDS = """
Abort About Add Admit Admitted Arguments Axiom Axioms Back BackTo Bind Canonical Cd Chapter Check
Class Close CoFixpoint CoInductive Coercion Collection Combined Compute Conjecture Conjectures
Constraint Context Corollary Create Cumulative Declare Defined Definition Delimit Derive Drop End
Eval Example Existential Existing Export Extract Extraction Fact Fail Fixpoint Focus From Function
Functional Generalizable Global Goal Guarded Hint Hypotheses Hypothesis Identity Implicit Import
Include Inductive Infix Info Inline Inspect Instance Let Load Local Locate Ltac Ltac2 Module
Monomorphic Next NonCumulative Notation Number Obligation Obligations Opaque Open Optimize
Parameter Parameters Polymorphic Prenex Primitive Print Private Program Proof Property
Proposition Pwd Qed Quit Record Recursive Redirect Register Remark Remove Require Reserved Reset
Restart Save Scheme Scope Search SearchPattern SearchRewrite Section Separate Set Show Solve
Strategy String Structure SubClass Succeed Tactic Test Theorem Time Timeout Transparent
Typeclasses Undelimit Undo Unfocus Unfocused Universe Universes Unset Variable Variables Variant
""".split()


@pytest.mark.parametrize("word", COQ_816_COMMANDS)
def test_every_coq_command_is_refused(word):
    """Each Coq 8.16 command's first word is refused as a tactic, bare and behind a goal selector.

    Fails if the policy lets a command through (a deny-list once missed ``SubClass``,
    ``Cumulative``, ``NonCumulative`` and ``Private``, which all run inside a proof).
    """
    from prover.coq.policy import RefusedTactic, check_tactic

    with pytest.raises(RefusedTactic, match=f"'{word}' starts a vernacular command, not a tactic"):
        check_tactic(f"{word} x.")
    with pytest.raises(RefusedTactic, match=f"'{word}' starts a vernacular command, not a tactic"):
        check_tactic(f"2: {word} x.")


def test_accepted_forms(env):
    with env.open(COMM) as (session, init):
        intros = session.run_tac(init, "intros n m")  # a missing final dot is added
        assert isinstance(intros, TacticState)
        split = session.run_tac(intros, "split. (* a comment *)")
        assert split.num_goals == 2
        assert isinstance(session.run_tac(split, "all: try lia; exact I."), ProofFinished)
        error = session.run_tac(split, "exact I.")
        assert error.kind == ErrorKind.ERROR and "True" in error.message


# -- timeouts, hangs and crashes -------------------------------------------------------------

def test_timeout_is_absorbed_and_state_kept(env):
    with env.open(COMM) as (session, init):
        state = session.run_tac(init, "intros n m.")
        t0 = time.monotonic()
        result = session.run_tac(state, LOOP)
        assert result == TacticError(result.message, ErrorKind.TIMEOUT) and time.monotonic() - t0 < 5
        assert isinstance(run(session, state, "split.", "lia.", "exact I."), ProofFinished)


def test_search_goes_on_past_timeouts():
    gen = FixedTacticGenerator([(LOOP, -0.1), ("intros.", -0.5), ("split.", -0.6), ("lia.", -0.7), ("exact I.", -0.8)])
    with CoqEnvironment(tactic_timeout=1) as env:
        result = BestFirstSearchProver(gen, timeout=60, num_sampled_tactics=8).search(env, COMM)
    assert result.status == Status.PROVED, result.stop_reason
    assert LOOP not in result.tactics


def test_killed_coqtop_mid_tactic_answers_crash_and_session_recovers(env):
    with env.open(COMM) as (session, init):
        state = run(session, init, "intros n m.", "split.")
        pid = session.coqtop_pid
        threading.Timer(0.3, os.kill, (pid, signal.SIGKILL)).start()
        crashed = session.run_tac(state, "do 100000000 idtac.")
        assert crashed.kind == ErrorKind.CRASH, crashed
        assert session.coqtop_pid != pid
        # every earlier state of the session still works (replayed from the statement)
        assert isinstance(run(session, state, "lia.", "exact I."), ProofFinished)
        assert run(session, init, "intros a b.").goals[0].hypotheses[0].name == "a"


def test_hung_coqtop_is_killed_by_the_watchdog(env):
    with env.open(COMM) as (session, init):
        state = session.run_tac(init, "intros n m.")
        os.kill(session.coqtop_pid, signal.SIGSTOP)  # a hang that not even SIGINT ends
        result = session.run_tac(state, "split.")
        assert result.kind == ErrorKind.CRASH and "hung" in result.message
        assert session.run_tac(state, "split.").num_goals == 2


def test_memory_cap_stops_a_runaway_tactic_and_the_session_goes_on():
    """A tactic that allocates past ``memory_limit_mb`` kills coqtop (a CRASH), and a new one goes on.

    Fails if the cap is not applied (``Coqtop.start`` ignoring ``memory_limit_mb``): the tactic then
    ends in Coq's own ``Stack overflow.`` ERROR (or a state, or the 20 s timeout), never a quick crash.
    """
    th = adhoc_theorem("Lemma m : True.", ["Require Import List."])
    with CoqEnvironment(tactic_timeout=20, memory_limit_mb=700) as env:
        with env.open(th) as (session, init):
            t0 = time.monotonic()
            pid = session.coqtop_pid
            blowup = session.run_tac(init, "let x := eval vm_compute in (List.repeat true 30000000) in idtac.")
            # the OCaml runtime aborts when the capped address space runs out: a crash, then a restart
            assert blowup.kind == ErrorKind.CRASH, blowup
            assert re.fullmatch(r"coqtop died running 'let x := .*' \(coqtop exited(?: \(exit status -\d+\))?\); "
                                r"restarted", blowup.message), blowup
            assert time.monotonic() - t0 < 15 and session.coqtop_pid != pid
            assert isinstance(session.run_tac(init, "exact I."), ProofFinished)


def test_killed_coqtop_mid_search_is_absorbed_and_proof_found():
    with CoqEnvironment(tactic_timeout=2) as env:
        killed = []

        def kill_once(event):
            if isinstance(event, TacticRun) and not killed:
                killed.append(env.coqtop_pids[0])
                os.kill(killed[0], signal.SIGKILL)

        gen = FixedTacticGenerator(["intros.", "split.", "lia.", "exact I."])
        result = BestFirstSearchProver(gen, timeout=60, num_sampled_tactics=8).search(env, COMM, on_event=kill_once)
    assert killed and result.status == Status.PROVED, result.stop_reason


# -- stdlib theorems and verification ------------------------------------------------------

def test_stdlib_theorem_opens_in_its_file_without_itself(env):
    theorem = env.theorem("wf_inverse_image")
    assert theorem.file_path == "Wellfounded/Inverse_Image.v"
    with env.open(theorem) as (session, init):
        assert "well_founded" in init.pp and "R : B -> B -> Prop" in init.pp
        itself = session.run_tac(init, "exact wf_inverse_image.")
        assert itself.kind == ErrorKind.ERROR and "not found" in itself.message
        later = session.run_tac(init, "exact wf_inverse_rel.")  # defined after it in the file
        assert later.kind == ErrorKind.ERROR
        earlier = session.run_tac(init, "intros. red. intros. apply Acc_inverse_image.")
        assert earlier.kind == ErrorKind.REFUSED  # four sentences
        assert isinstance(session.run_tac(init, "intros; red; intros; apply Acc_inverse_image; auto."), ProofFinished)


def test_theorems_of_one_file_share_a_coqtop_in_any_order(env):
    theorems = env.index.theorems(["Wellfounded/Inverse_Image.v"])
    order = [theorems[-1], theorems[0], theorems[2]]  # forward and backward in the file
    with CoqEnvironment(max_idle=0) as fresh_env:  # a new coqtop for each theorem
        fresh = []
        for theorem in order:
            with fresh_env.open(theorem) as (_, init):
                fresh.append(init.pp)
    pids = set()
    for theorem, expected in zip(order, fresh):
        with env.open(theorem) as (session, init):
            assert init.pp == expected
            pids.add(session.coqtop_pid)
            assert isinstance(session.run_tac(init, "intros."), TacticState)
    assert len(pids) == 1


def test_unknown_theorem_names_close_matches(env):
    with pytest.raises(TheoremNotFound, match="wf_inverse_image"):
        env.theorem("wf_inverse_imag")


def test_stdlib_proof_checked_by_coqc(env):
    theorem = env.theorem("wf_inverse_image")
    verdict = env.verify(theorem, linear_proof(["intros; red; intros; apply Acc_inverse_image; auto."]))
    assert verdict.ok, verdict.message
    wrong = env.verify(theorem, linear_proof(["intros; red; intros; constructor."]))
    assert not wrong.ok and "coqc rejected" in wrong.message


def test_found_proof_is_rechecked_by_coqc(env):
    gen = FixedTacticGenerator(["split.", "exact I.", "intros.", "lia."])  # jumps between branches
    outcomes = []
    result = BestFirstSearchProver(gen, timeout=60, num_sampled_tactics=8).search(
        env, COMM, on_event=lambda e: outcomes.append(e.outcome if isinstance(e, TacticRun) else None))
    assert result.status == Status.PROVED and result.stats["verify_time"] > 0
    assert "crash" not in outcomes and "timeout" not in outcomes
    assert "Qed" not in result.script and "lia." in result.script


def test_a_fixpoint_the_kernel_rejects_is_refused_and_the_search_goes_on(env):
    """``fix f 1. assumption.`` "finishes" any goal ``forall n : nat, P n`` (``f`` is the goal
    itself), and Coq rejects the fixpoint only when the proof is closed. Fails if the session
    takes that as a proof, or if a search ends on it (failed, its time left unused) instead of
    going on to the proof by induction."""
    theorem = adhoc_theorem("Lemma add_0 : forall n : nat, n + 0 = n.", ARITH)
    with env.open(theorem) as (session, init):
        refused = run(session, init, "fix f 1.", "assumption.")
        assert isinstance(refused, TacticError) and refused.kind == ErrorKind.REFUSED, refused
        assert "ill-formed" in refused.message
        guarded = run(session, init, "fix f 1.", "intro n; destruct n as [|n].", "reflexivity.")
        assert isinstance(guarded, TacticState)  # a guarded fixpoint is not refused
        assert isinstance(session.run_tac(guarded, "simpl; f_equal; apply f."), ProofFinished)
    outcomes = []
    gen = FixedTacticGenerator([("fix f 1.", -0.1), ("assumption.", -0.1), ("induction n; simpl; auto.", -3.0)])
    result = BestFirstSearchProver(gen, timeout=60, num_sampled_tactics=3).search(
        env, theorem, on_event=lambda e: outcomes.append(e.outcome if isinstance(e, TacticRun) else None))
    assert "refused" in outcomes and result.status == Status.PROVED, (outcomes, result.stop_reason)
    assert "fix" not in result.script


def test_a_proof_checked_inside_the_search_is_not_checked_again(env, monkeypatch):
    """The fixpoint proof is checked when the search finishes it; the final check takes that verdict
    instead of running coqc and coqchk again, once: a later check of the same proof runs them anew.
    Fails if the proof is checked twice, or if a kept verdict is reused for a later call."""
    import prover.coq.env as coq_env

    checks = []
    real = coq_env.verify_proof

    def counted(context, proof, *args):
        checks.append(context.name)
        return real(context, proof, *args)

    monkeypatch.setattr(coq_env, "verify_proof", counted)
    theorem = adhoc_theorem("Lemma add_0_fix : forall n : nat, n + 0 = n.", ARITH)
    steps = [("fix f 1.", -0.1), ("intro n; destruct n as [|n]; [reflexivity | simpl; f_equal; apply f].", -0.2)]
    result = BestFirstSearchProver(FixedTacticGenerator(steps), timeout=60, num_sampled_tactics=2).search(env, theorem)
    assert result.status == Status.PROVED and "fix f 1" in result.script, result.stop_reason
    assert checks == ["add_0_fix"], checks
    assert env.verify(theorem, result.proof).ok and checks == ["add_0_fix"] * 2, checks


def test_axioms_and_admitted_lemmas_are_refused(env):
    cheat = adhoc_theorem("Lemma false_thing : 1 = 2.", ["Axiom cheat : False."])
    verdict = env.verify(cheat, linear_proof(["destruct cheat."]))
    assert not verdict.ok and "cheat" in verdict.message and verdict.axioms == ("DojoScratch.cheat",)
    admitted = adhoc_theorem("Lemma false_thing : 1 = 2.", ["Lemma helper : False.", "Proof.", "Admitted."])
    verdict = env.verify(admitted, linear_proof(["destruct helper."]))
    assert not verdict.ok and "helper" in verdict.message
    given_up = env.verify(COMM, linear_proof(["intros.", "split; admit."]))
    assert not given_up.ok and "admit" in given_up.message


def test_stdlib_axioms_are_allowed(env):
    em = adhoc_theorem("Lemma em : forall P : Prop, P \\/ ~ P.", ["Require Import Classical."])
    verdict = env.verify(em, linear_proof(["exact classic."]))
    assert verdict.ok and verdict.axioms == ("Coq.Logic.Classical_Prop.classic",), verdict


def test_functor_parameters_are_not_foreign_axioms(env):
    # inside `Module Type Props (X : OrderedType) ...`, Print Assumptions lists X's fields as axioms
    theorem = next(t for t in env.index.theorems(["MSets/MSetGenTree.v"]) if t.full_name == "Props.lt_tree_trans")
    verdict = env.verify(theorem, linear_proof(["eauto."]))
    assert verdict.ok and "X.lt" in verdict.axioms, verdict
    assert not env.verify(theorem, linear_proof(["constructor."])).ok


def test_branching_proof_renders_with_nested_bullets_and_compiles(env):
    th = adhoc_theorem("Lemma nest : (True /\\ True) /\\ (1 = 1 /\\ (2 = 2 /\\ True)).", ARITH)
    leaf = (ProofStep("reflexivity."),)
    proof = (ProofStep("split.", (
        (ProofStep("split.", ((ProofStep("exact I."),), (ProofStep("exact I."),))),),
        (ProofStep("split.", (leaf, (ProofStep("split.", (leaf, (ProofStep("exact I."),))),))),),
    )),)
    script = env.render(th, proof)
    assert "\n- split.\n  + exact I." in script and "\n    * reflexivity." in script
    assert env.verify(th, proof).ok
    # a proof whose tactics carry bullets themselves gets braces, which nest with anything
    mixed = (ProofStep("split.", ((ProofStep("split."), ProofStep("- exact I."), ProofStep("- exact I.")),
                                  (ProofStep("split; [reflexivity|split; [reflexivity|exact I]]."),))),)
    assert "{" in env.render(th, mixed) and env.verify(th, mixed).ok


# -- commands ----------------------------------------------------------------------------------

def test_prove_command(capsys):
    from prover.cli import main

    assert main(["prove", "--env", "coq", "--timeout", "30", "Zrem_0_r"]) == 0
    out = capsys.readouterr().out
    assert "status: proved" in out and "Proof.\n  destruct a; simpl; auto.\nQed." in out
    assert main(["prove", "--env", "coq", "Zrem_0"]) == 2
    assert "did you mean Zrem_0_r" in capsys.readouterr().err
    assert main(["prove", "--env", "coq", "--statement", "Lemma two : 1 + 1 = 2.", "--tactics", "reflexivity.",
                 "--", "two"]) == 0
    assert main(["prove", "--env", "coq", "--statement", "Lemma bad : 1 + 1 = 3", "bad"]) == 2
    assert "not terminated" in capsys.readouterr().err


def test_session_gives_up_after_max_restarts_failed_restarts(tmp_path, monkeypatch):
    """Real coqtop is killed mid-session; every restart then finds a coqtop that dies at once, and
    after ``max_restarts + 1`` attempts the session raises :class:`EnvironmentFailure`.

    Fails if the session retries more or fewer times than ``max_restarts + 1`` (e.g. the restart
    loop in ``CoqSession._open_context`` running ``max_restarts + 2`` times), or answers a crash
    result instead of giving up.
    """
    from prover.coq.coqtop import Coqtop

    th = adhoc_theorem("Lemma m : True.", [])
    dying = tmp_path / "bin" / "coqtop"  # found first on PATH, as Coqtop runs plain "coqtop"
    dying.parent.mkdir()
    dying.write_text("#!/bin/sh\nkill -9 $$\n")
    dying.chmod(0o755)
    started: list[int] = []  # the dying coqtop can leave no trace: it may write only its sandbox
    real_start = Coqtop.start

    def start(self, *args, **kwargs):
        started.append(1)
        return real_start(self, *args, **kwargs)

    with CoqEnvironment(tactic_timeout=2, max_restarts=2) as env:
        with env.open(th) as (session, init):
            monkeypatch.setenv("PATH", f"{dying.parent}{os.pathsep}{os.environ['PATH']}")
            monkeypatch.setattr(Coqtop, "start", start)
            os.kill(session.coqtop_pid, signal.SIGKILL)
            with pytest.raises(EnvironmentFailure, match=r"coqtop died 3 times opening 'm': coqtop exited"):
                session.run_tac(init, "exact I.")
    assert len(started) == 3, started
