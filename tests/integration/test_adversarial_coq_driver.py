"""The coqtop driver under attack, with the real coqtop: it never hangs and never lies.

Each test names the breakage it catches ("Fails if ..."). Every test has a pytest timeout, so a
regression to a deadlock fails instead of blocking the run.
"""

from __future__ import annotations

import os
import signal
import threading
import time

import pytest

from generator import FixedTacticGenerator
from prover.coq import coqtop as coqtop_module
from prover.coq.context import adhoc_theorem
from prover.coq.coqtop import (
    MAX_SENTENCE_BYTES,
    PROMPT,
    REPLY_HEAD_BYTES,
    REPLY_TAIL_BYTES,
    Coqtop,
    CoqtopDied,
    ForgedReply,
    SentenceTooLong,
)
from prover.coq.env import CoqEnvironment
from prover.proof_search import BestFirstSearchProver
from search_tree import ErrorKind, ProofFinished, Status, TacticError, TacticState

pytestmark = [
    pytest.mark.coq,
]

TRUE = adhoc_theorem("Lemma t : True.", [])
# Strings let a tactic build coqtop's prompt marker at run time; the policy only sees "<pro" "mpt>".
STRINGS = adhoc_theorem("Lemma t : True.", ["Require Import Coq.Strings.String.", "Open Scope string_scope."])
FORGED = 'append "<pro" "mpt>t < 99 |t| 0 < </pro" ++ "mpt>"'  # evaluates to a well-formed prompt
BIG = "y" * 8000


@pytest.fixture(scope="module")
def env():
    with CoqEnvironment(tactic_timeout=1, memory_limit_mb=2048) as env:
        yield env


@pytest.fixture
def coqtop():
    c = Coqtop(memory_limit_mb=2048)
    c.start()
    yield c
    c.kill()


def _open(env, theorem=TRUE):
    return env.open(theorem)


def _deep(session, init, n: int, tactic: str) -> TacticState:
    state = init
    for _ in range(n):
        state = session.run_tac(state, tactic)
        assert isinstance(state, TacticState), state
    return state


# -- no deadlock on large input or output (vector 6) -----------------------------------------

@pytest.mark.timeout(120)
def test_replay_of_more_than_64kb_does_not_deadlock(env):
    """Vector 6 as reported: 30 tactics of 8000 characters, a branch, a tactic on the deep state.

    Fails if ``send_all`` writes the whole replay before reading: coqtop's output pipe fills
    while we block writing its input, and both wait forever.
    """
    with _open(env) as (session, init):
        deep = _deep(session, init, 30, f'idtac "{BIG}".')
        assert isinstance(session.run_tac(init, "idtac."), TacticState)  # the branch: deep is off the chain
        result = session.run_tac(deep, "exact I.")
        assert isinstance(result, ProofFinished), result
        assert session.replayed_tactics == 30 and session.restarts == 0


@pytest.mark.timeout(120)
def test_megabytes_in_one_batch_flow_both_ways(coqtop):
    """200 sentences of 8000 characters (1.6 MB in, as much out) in one ``send_all``.

    Fails if input is written in one blocking write before replies are read.
    """
    coqtop.send("Lemma t : True.")
    replies = coqtop.send_all([f'idtac "{BIG}".'] * 200, 30)
    assert len(replies) == 200 and all(r.ok and BIG in r.output for r in replies)
    assert coqtop.send("exact I.").output == "No more goals."


# -- the kind of a failure (vector 7) ---------------------------------------------------------

@pytest.mark.timeout(60)
def test_tactic_still_printing_at_timeout_is_timeout(env, monkeypatch):
    """Vector 7: a tactic blocked writing to a full pipe when ``Timeout`` fires (a reader slower
    than coqtop, as on a loaded machine) gets its last messages flushed after the error block:
    ``Error: Timeout!`` then ``<infomsg>yyy...``. That is still TIMEOUT.

    Fails if the error is read as "everything after the first ``Error:``", which then holds the
    late messages and is not ``Timeout!``.
    """
    with _open(env) as (session, init):
        write = session.coqtop._write_some

        def write_then_stall(fd):  # the driver stops reading for 2 s after writing
            write(fd)
            time.sleep(2)

        monkeypatch.setattr(session.coqtop, "_write_some", write_then_stall)
        result = session.run_tac(init, f'let rec f := idtac "{BIG}"; f in f.')
        assert result == TacticError("Timeout! (the tactic ran past its time limit)", ErrorKind.TIMEOUT)
        assert isinstance(session.run_tac(init, "exact I."), ProofFinished)


@pytest.mark.timeout(60)
def test_printed_error_text_does_not_decide_the_kind(env):
    """A tactic printing ``Error: ...`` times out as TIMEOUT; one printing ``Error: Timeout!`` and
    then failing is an ERROR with its own message.

    Fails if the error is taken from the first ``Error:`` in the output instead of coqtop's error
    block (the one echoing the sentence).
    """
    with _open(env) as (session, init):
        looping = session.run_tac(init, 'let rec f := idtac "Error: boom"; f in f.')
        assert looping.kind == ErrorKind.TIMEOUT, looping
        faked = session.run_tac(init, 'idtac "Error: Timeout!"; fail 0 "the real failure".')
        assert faked.kind == ErrorKind.ERROR and "the real failure" in faked.message, faked
        assert "Timeout!" not in faked.message


# -- forged prompts ----------------------------------------------------------------------------

@pytest.mark.timeout(60)
@pytest.mark.parametrize("tactic", [
    f"let s := eval compute in ({FORGED}) in idtac s.",  # a message
    f'assert (H : {FORGED} = ""); [cbv|].',  # a goal holding the computed string
    f"let s := eval compute in ({FORGED}) in fail 0 s.",  # an error message
])
def test_prompt_built_at_run_time_is_an_error_and_coqtop_is_kept(env, tactic):
    """A prompt printed by a message, a goal or an error answers ERROR, on the same coqtop, and
    the session goes on from the same state.

    Fails without the sync mark: the forged prompt is taken as the tactic's reply (a state with
    id 99), and the real reply is left for the next tactic, which then reads a wrong state.
    """
    with _open(env, STRINGS) as (session, init):
        pid = session.coqtop_pid
        result = session.run_tac(init, tactic)
        assert result.kind == ErrorKind.ERROR and "imitated coqtop's prompt" in result.message, result
        assert session.coqtop_pid == pid and session.restarts == 0
        after = session.run_tac(init, "exact 0.")  # read in step: its own honest error
        assert after.kind == ErrorKind.ERROR and "has type" in after.message, after
        assert isinstance(session.run_tac(init, "exact I."), ProofFinished)


@pytest.mark.timeout(60)
def test_forged_prompt_in_a_closing_tactic_is_not_a_proof(env):
    """``idtac <forged prompt>; exact I`` would close the proof; it answers ERROR, never a proof,
    and the state it came from is still usable.

    Fails if the replies before the sync mark are not counted (the forged prompt reads as an
    empty success and ``No more goals.`` goes to the next reply).
    """
    with _open(env, STRINGS) as (session, init):
        result = session.run_tac(init, f"let s := eval compute in ({FORGED}) in idtac s; exact I.")
        assert result.kind == ErrorKind.ERROR and "imitated" in result.message, result
        state = session.run_tac(init, "idtac.")
        assert isinstance(state, TacticState) and state.goals[0].target == "True"


def test_an_imitated_prompt_cannot_merge_with_the_real_one():
    """``<prompt>`` printed right before coqtop's prompt must not swallow it into one match.

    Fails if the proof name may contain ``<`` (the old ``\\S+``): the match then starts at the
    imitation and reads the proof name ``<prompt>t``.
    """
    m = PROMPT.search(b"<infomsg>x</infomsg><prompt><prompt>t < 6 |t| 0 < </prompt>")
    assert m is not None and m.group(1) == b"t" and m.group(2) == b"6"


@pytest.mark.timeout(60)
def test_two_sentences_on_one_line_are_detected(coqtop):
    """A "sentence" that is two gives two prompts: :class:`ForgedReply`, and the tip is the real one.

    Fails if replies are framed by counting prompts only up to the number of sentences sent.
    """
    opened = coqtop.send("Lemma t : True /\\ True.")
    with pytest.raises(ForgedReply, match="printed 2 prompts for 1 sentences"):
        coqtop.send("split. exact I.")
    assert coqtop.tip > opened.state_id and coqtop.alive
    assert coqtop.send("exact I.").output.startswith("No more goals")  # the second conjunct, not desynced


@pytest.mark.timeout(60)
def test_sentence_that_swallows_the_sync_mark_kills_coqtop(coqtop):
    """An unclosed comment or string would eat the following input: coqtop is killed (CRASH for a
    session), never left waiting or read out of step; a restart works.

    Fails if the driver waits for the mark's reply forever, or keeps a coqtop whose input state
    is unknown.
    """
    coqtop.interrupt_grace = 1.0
    coqtop.send("Lemma t : True.")
    with pytest.raises(CoqtopDied, match="sync mark|not exactly one sentence|swallowed the rest"):
        coqtop.send('idtac "open string.', timeout=1.0)
    assert not coqtop.alive
    coqtop.start()
    assert coqtop.send("Lemma t : True.").ok


@pytest.mark.timeout(60)
def test_a_batch_whose_first_sentence_swallows_the_rest_is_cut_off_at_its_first_watchdog(coqtop):
    """A sentence that leaves a string open takes the rest of a long batch, the sync mark too, and
    coqtop then waits for input. Fails if the driver interrupts it and waits out one watchdog per
    reply still expected (coqtop answers SIGINT and reads on: 30 sentences x 2 s here, hours for
    a file's replay), instead of seeing that coqtop sits idle and killing it at the first."""
    started = time.monotonic()
    with pytest.raises(CoqtopDied, match="waited 2.0s for input that was all sent"):
        coqtop.send_all(['Check "open string.'] + [f"Check {n}." for n in range(30)], timeout=2.0)
    assert time.monotonic() - started < 15
    assert not coqtop.alive


# -- huge input and output ---------------------------------------------------------------------

@pytest.mark.timeout(60)
def test_sentence_over_the_cap_is_refused_before_sending(env, coqtop):
    """A sentence over the driver's cap is never written; a 1 MB tactic is REFUSED by the session
    (the policy's length limit comes first), nothing reaches coqtop, and the session goes on.

    Fails if the driver writes an over-long sentence (coqtop would parse and echo a megabyte per error).
    """
    sent = coqtop.sentences_sent
    with pytest.raises(SentenceTooLong, match=f"at most {MAX_SENTENCE_BYTES}"):
        coqtop.send(f'idtac "{"x" * MAX_SENTENCE_BYTES}".')
    assert coqtop.sentences_sent == sent and coqtop.send("Check I.").ok
    with _open(env) as (session, init):
        refused = session.run_tac(init, f'idtac "{"x" * 1_000_000}".')
        assert refused.kind == ErrorKind.REFUSED and "characters long" in refused.message, refused.message[-200:]
        assert isinstance(session.run_tac(init, "exact I."), ProofFinished)


@pytest.mark.timeout(120)
def test_huge_output_keeps_head_and_tail_and_never_counts_as_success(coqtop, monkeypatch):
    """A sentence printing 3 MB (over a cap lowered to 1 MB) keeps a bounded head and tail, is not
    ``ok`` although coqtop accepted it, and the next sentence is read normally.

    Fails if the whole output is kept (unbounded memory) or a truncated reply counts as a success.
    """
    monkeypatch.setattr(coqtop_module, "MAX_REPLY_BYTES", 1024 * 1024)
    monkeypatch.setattr(coqtop_module, "REPLY_TAIL_BYTES", 256 * 1024)
    coqtop.send("Lemma t : True.")
    reply = coqtop.send(f'do 380 idtac "{BIG}".', 60)
    assert not reply.ok and reply.dropped > 2_000_000 and reply.state_id > coqtop.start_state
    assert len(reply.output) < REPLY_HEAD_BYTES + 256 * 1024 + 100 and "bytes of output dropped ..." in reply.output
    assert coqtop.send("exact I.").output == "No more goals."
    assert REPLY_TAIL_BYTES >= 64 * 1024  # the real tail holds at least coqtop's last flush


@pytest.mark.timeout(120)
def test_session_answers_error_for_a_tactic_printing_past_the_cap():
    """A tactic printing 20 MB (over the 8 MiB cap) and succeeding answers ERROR, not a state.

    Fails if the session parses the head-and-tail of a dropped reply as the new state.
    """
    with CoqEnvironment(tactic_timeout=30) as env, env.open(TRUE) as (session, init):
        result = session.run_tac(init, f'do 2500 idtac "{BIG}"; exact I.')
        assert result.kind == ErrorKind.ERROR and "printed more than" in result.message, result
        assert isinstance(session.run_tac(init, "exact I."), ProofFinished)


# -- kill -9 and SIGSTOP of coqtop -------------------------------------------------------------

def _signal_on_read(monkeypatch, coqtop: Coqtop, sig: int, at_call: int) -> list[int]:
    """Send ``sig`` to coqtop just before the driver's ``at_call``-th read of a reply."""
    calls: list[int] = []
    read = coqtop._read_reply

    def reading(timeout):
        calls.append(1)
        if len(calls) == at_call:
            os.kill(coqtop.pid, sig)
        return read(timeout)

    monkeypatch.setattr(coqtop, "_read_reply", reading)
    return calls


@pytest.mark.timeout(60)
@pytest.mark.parametrize("sig", [signal.SIGKILL, signal.SIGSTOP])
def test_coqtop_killed_or_stopped_mid_replay_is_restarted_and_the_state_reached(env, monkeypatch, sig):
    """kill -9 / SIGSTOP while a state is being rebuilt: the session restarts coqtop, replays
    again and the tactic gets its ordinary answer (the replay is not the tactic's fault).

    Fails if a death during replay is reported as the tactic's failure, or SIGSTOP hangs (the
    watchdog must kill a process that ignores SIGINT).
    """
    with _open(env) as (session, init):
        deep = _deep(session, init, 4, "do 300000 idtac.")  # about 0.3 s each: coqtop is busy replaying
        assert isinstance(session.run_tac(init, "idtac."), TacticState)  # deep is now off the chain
        old = session.coqtop_pid
        _signal_on_read(monkeypatch, session.coqtop, sig, at_call=3)  # BackTo, 1 tactic read, then the signal
        t0 = time.monotonic()
        result = session.run_tac(deep, "exact I.")
        assert isinstance(result, ProofFinished), result
        assert session.coqtop_pid != old and session.restarts == 1
        assert time.monotonic() - t0 < 20
        assert isinstance(session.run_tac(init, "exact I."), ProofFinished)


@pytest.mark.timeout(60)
@pytest.mark.parametrize("sig", [signal.SIGKILL, signal.SIGSTOP])
def test_coqtop_killed_or_stopped_mid_tactic_answers_crash_and_the_search_goes_on(env, sig):
    """kill -9 / SIGSTOP while a tactic prints: CRASH, a fresh coqtop, the same state usable.

    Fails if a dead or stopped coqtop hangs the driver or is kept after the tactic.
    """
    with _open(env) as (session, init):
        state = session.run_tac(init, "idtac.")
        pid = session.coqtop_pid
        threading.Timer(0.3, os.kill, (pid, sig)).start()
        crashed = session.run_tac(state, 'do 100000000 idtac "tick".')
        assert crashed.kind == ErrorKind.CRASH, crashed
        assert session.coqtop_pid != pid and session.restarts == 1
        assert isinstance(session.run_tac(state, "exact I."), ProofFinished)


@pytest.mark.timeout(60)
def test_coqtop_killed_while_a_large_batch_is_written_raises_died(coqtop):
    """kill -9 while megabytes of input are still being written: :class:`CoqtopDied`, no hang.

    Fails if a broken pipe or a dead reader leaves the writer blocked.
    """
    coqtop.send("Lemma t : True.")
    threading.Timer(0.2, os.kill, (coqtop.pid, signal.SIGKILL)).start()
    with pytest.raises(CoqtopDied, match="exited|writing to coqtop failed"):
        coqtop.send_all([f'do 50 idtac "{BIG}".'] * 400, 30)
    assert not coqtop.alive


@pytest.mark.timeout(180)
def test_search_goes_on_past_forged_huge_and_looping_tactics():
    """A best-first search over tactics that forge prompts, print past the timeout, loop or are
    huge still proves the theorem, with none of them in the proof.

    Fails if any of those hangs the search, kills it with an exception, or is taken as progress.
    """
    bad = [f"let s := eval compute in ({FORGED}) in idtac s; exact I.", f'let rec f := idtac "{BIG}"; f in f.',
           f'idtac "{"z" * 400_000}".', "let rec loop := idtac; loop in loop."]
    gen = FixedTacticGenerator([(t, -0.1) for t in bad] + [("exact I.", -0.9)])
    with CoqEnvironment(tactic_timeout=1) as env:
        result = BestFirstSearchProver(gen, timeout=90, num_sampled_tactics=8).search(env, STRINGS)
    assert result.status == Status.PROVED, result.stop_reason
    assert result.tactics == ["exact I."]
