"""CoqHammer inside the search, against real coqtop/coqc/coqchk and Debian's libcoq-hammer."""

from __future__ import annotations

import os
import re
import time

import pytest

from prover.coq.hammer_generator import HammerGenerator
from prover.coq import additions
from prover.coq.additions import Addition, offered, reopened
from prover.coq.context import adhoc_context, adhoc_theorem
from prover.coq.env import CoqEnvironment
from prover.coq.verify import verify_proof
from search_tree import ErrorKind, ProofFinished, TacticError, linear_proof

HAMMER_TACTICS = additions.probe(additions.ADDITIONS["hammer-tactics"].sentences)
pytestmark = [
    pytest.mark.coq,
]
REV = adhoc_theorem("Lemma rr : forall (A : Type) (l : list A), rev (rev l) = l.", ["Require Import List."])
ATPS = ("eprover", "cvc4", "z3", "vampire", "predict")


def atp_processes() -> list[int]:
    """Pids of live (not zombie) ATP processes of this machine started by our own processes."""
    mine = set()
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            with open(f"/proc/{pid}/stat") as f:
                stat = f.read()
        except OSError:
            continue
        name, state = stat[stat.index("(") + 1:stat.rindex(")")], stat[stat.rindex(")") + 2]
        if name in ATPS and state != "Z" and _descends_from(int(pid), os.getpid()):
            mine.add(int(pid))
    return sorted(mine)


def _descends_from(pid: int, ancestor: int) -> bool:
    while pid > 1:
        if pid == ancestor:
            return True
        try:
            with open(f"/proc/{pid}/stat") as f:
                stat = f.read()
        except OSError:
            return False
        pid = int(stat[stat.rindex(")") + 2:].split()[1])
    return False


def test_hauto_with_premises_is_proved_and_verified_with_its_context_addition():
    """``hauto use: rev_involutive`` proves an ad-hoc lemma; the verified text and the printed script
    carry the addition. Fails if the addition is not compiled with the proof (coqc: hauto unknown)
    or not printed with it."""
    with CoqEnvironment(tactic_timeout=10, additions=("hammer-tactics",)) as env:
        with env.open(REV) as (session, state):
            result = session.run_tac(state, "hauto use: rev_involutive.")
        assert isinstance(result, ProofFinished), result
        verdict = env.verify(REV, linear_proof(["hauto use: rev_involutive."]))
    assert verdict.ok, verdict.message
    assert verdict.script.splitlines() == [
        "(* context addition, before the statement: From Hammer Require Import Tactics. *)",
        "hauto use: rev_involutive."]


def test_nonexistent_premise_is_a_tactic_error():
    """Fails if a ``use:`` premise that does not exist crashes the session instead of erroring."""
    with CoqEnvironment(tactic_timeout=10, additions=("hammer-tactics",)) as env:
        with env.open(REV) as (session, state):
            result = session.run_tac(state, "sauto use: no_such_lemma_xyz.")
            assert isinstance(result, TacticError) and result.kind == ErrorKind.ERROR
            assert "no_such_lemma_xyz was not found" in result.message
            assert isinstance(session.run_tac(state, "sauto use: rev_involutive."), ProofFinished)


def test_verification_refuses_a_proof_that_still_calls_hammer():
    """Fails if verify_proof lets ``hammer`` (an ATP call) reach coqc."""
    context = additions.with_additions(adhoc_context(REV), additions.ADDITIONS["hammer"].sentences)
    verdict = verify_proof(context, linear_proof(["hammer."]))
    assert not verdict.ok and "calls an external prover" in verdict.message


def test_hammer_proof_is_rewritten_atp_free_and_no_atp_survives():
    """``hammer`` proves rev (rev l) = l; the proof checked by coqc/coqchk is its reconstruction
    tactic, hammer runs once per state, and no ATP process outlives the environment. Fails if the
    hammer step is verified as is (refused), if the printed reconstruction is not parsed from
    coqtop's tagged output, or if closing the environment leaves an ATP running."""
    with CoqEnvironment(tactic_timeout=5, additions=("hammer",), hammer_timeout=120) as env:
        with env.open(REV) as (session, state):
            assert isinstance(session.run_tac(state, "hammer."), ProofFinished)
            again = session.run_tac(state, "hammer.")
            assert isinstance(again, TacticError) and again.kind == ErrorKind.REFUSED
            assert "at most once per state" in again.message
        verdict = env.verify(REV, linear_proof(["hammer."]))
        assert verdict.ok, verdict.message
        body = verdict.script.splitlines()[-1]
        assert "hammer" not in body and "use: rev_involutive" in body, verdict.script
    assert atp_processes() == []


def test_hammer_run_within_a_longer_limit_proves_once_and_is_rewritten():
    """A search may give one ``hammer`` call more time than the environment's ``hammer_timeout``
    (``run_tac_within``, with the ATP limit set for it): under its own 2 s hammer cannot prove
    rev (rev l) = l, within 40 s it does (on a loaded machine it takes over 20), once per state
    still holds, and the proof verified is the reconstruction. Fails if the longer limit is
    ignored or the option sentence breaks the step."""
    with CoqEnvironment(tactic_timeout=5, additions=("hammer",), hammer_timeout=2) as env:
        with env.open(REV) as (session, state):
            short = session.run_tac(state, "hammer.")
            assert isinstance(short, TacticError) and short.kind == ErrorKind.TIMEOUT, short
            again = session.run_tac_within(state, "hammer.", 40)
            assert isinstance(again, TacticError) and "at most once per state" in again.message
            intros = session.run_tac(state, "intros A l.")
            t0 = time.monotonic()
            proved = session.run_tac_within(intros, "hammer.", 40)
            assert isinstance(proved, ProofFinished), (proved, time.monotonic() - t0)
        verdict = env.verify(REV, linear_proof(["intros A l.", "hammer."]))
        assert verdict.ok, verdict.message
        assert "use: rev_involutive" in verdict.script.splitlines()[-1], verdict.script
    assert atp_processes() == []


TRUES = adhoc_theorem("Lemma trues : True /\\ True /\\ True.", [])


def option_in_force(session, option: str) -> int:
    """CoqHammer's ``option`` in the proof state coqtop is at now (the last state a step reached)."""
    reply = session.coqtop.send(f"Test Hammer {option}.", 30)
    match = re.search(rf"Current value of Hammer {option} is (\d+)", reply.output)
    assert reply.ok and match, reply
    return int(match.group(1))


def test_every_hammer_call_runs_under_its_own_atp_limit():
    """A longer ``hammer`` call (``run_tac_within``, as the search's final reserved call) sets a
    higher ``ATPLimit``; Coq's ``Set`` holds for every state below, so a later call there must set
    its own again. Three goals ``True``, which hammer closes without an ATP (fast): 30 s on the
    first (limit 15), then the environment's 4 s on the state below it (limit 2), then 12 s. Fails
    if the second call runs under the 15 the first left (only a longer call set the option)."""
    with CoqEnvironment(tactic_timeout=5, additions=("hammer",), hammer_timeout=4) as env:
        with env.open(TRUES) as (session, state):
            split = session.run_tac(state, "split; [|split].")
            assert split.num_goals == 3, split
            longer = session.run_tac_within(split, "hammer.", 30)
            assert longer.num_goals == 2, longer
            assert option_in_force(session, "ATPLimit") == 15
            plain = session.run_tac(longer, "hammer.")
            assert plain.num_goals == 1, plain
            assert option_in_force(session, "ATPLimit") == 2
            last = session.run_tac_within(plain, "hammer.", 12)
            assert isinstance(last, ProofFinished), last
            assert option_in_force(session, "ATPLimit") == 6
    assert atp_processes() == []


@pytest.mark.parametrize("strategies", [None, 2])
def test_a_hammer_call_runs_as_many_atp_strategies_as_asked(strategies):
    """``hammer_strategies`` reaches CoqHammer as its ``GSMode`` on every call; without it,
    CoqHammer's own eight. Fails if the option is not set, or set where nobody asked."""
    with CoqEnvironment(tactic_timeout=5, additions=("hammer",), hammer_timeout=4,
                        hammer_strategies=strategies) as env:
        with env.open(TRUES) as (session, state):
            split = session.run_tac(state, "split; [|split].")
            assert session.run_tac(split, "hammer.").num_goals == 2
            assert option_in_force(session, "GSMode") == (8 if strategies is None else strategies)
    assert atp_processes() == []


def test_hammer_is_offered_reopened_where_its_imports_load_the_theorems_module():
    """Coq.Lists.List is loaded by CoqHammer's Tactics: a theorem of it is opened under
    DojoReopened.Coq.Lists.List with the addition and gets the hammer actions; a theorem of a module
    Hammer does not load is opened as it is. Fails if the addition is withheld again, or loaded
    into the theorem's own module (coqtop refuses the compiled copy there)."""
    assert "Coq.Lists.List" in HAMMER_TACTICS.loaded
    with CoqEnvironment(additions=("hammer",)) as env:
        inside = env.theorem("Coq.Lists.List.app_nil_r")
        outside = env.theorem("Coq.Sorting.Permutation.Permutation_app_comm")
        assert env.context(inside).module == "DojoReopened.Coq.Lists.List"
        assert "From Hammer Require Import Hammer." in env.context(inside).additions
        assert env.context(outside).module == "Coq.Sorting.Permutation"
        assert "From Hammer Require Import Hammer." in env.context(outside).additions
        assert offered(("hammer",), inside) == offered(("hammer",), outside) == ("hammer",)
        assert reopened(("hammer",), [inside, outside]) == [inside]
    generator = HammerGenerator()
    state = type("S", (), {"key": "k", "pp": "", "goals": ()})()
    for theorem in (inside, outside):
        assert [t for t, _ in generator.generate(state, theorem, 10)] == ["sauto.", "hauto.", "qauto.", "hammer."]


def test_missing_coqhammer_is_left_out_with_one_warning(monkeypatch):
    """Fails if a missing library crashes the environment, warns without naming the Debian package,
    or is not reported for the run's config, or if the hammer generator still proposes tactics
    that do not exist (seen: ``sauto.``, ``hauto.``... tried and failing on every state)."""
    monkeypatch.setitem(additions.ADDITIONS, "hammer",
                        Addition("hammer", ("From HammerMissingXyz Require Import Tactics.",), "libcoq-hammer"))
    with pytest.warns(RuntimeWarning, match=r"context addition 'hammer' left out: .*libcoq-hammer"):
        env = CoqEnvironment(additions=("hammer", "lia"))
    assert env.additions == ("lia",) and "libcoq-hammer" in env.missing_additions["hammer"]
    assert env.context(REV).additions == ("Require Import Lia.",)
    # what a run's config.json records under "execution" (--env-opt additions=hammer,lia)
    assert CoqEnvironment.run_notes({"additions": "hammer,lia"}) == {
        "missing_additions": {"hammer": env.missing_additions["hammer"]}}
    outside = env.theorem("Coq.Sorting.Permutation.Permutation_app_comm")
    state = type("S", (), {"key": "k", "pp": "", "goals": ()})()
    assert offered(("hammer", "lia"), outside) == ("lia",)
    assert HammerGenerator().generate(state, outside, 10) == []


def test_reconstruction_is_read_from_tagged_output_and_made_parseable():
    """Fails if the <infomsg> tag leaks into the tactic or ``srun T use:`` is kept unparenthesised
    (coqc: "Syntax error: [ltac_use_default] expected")."""
    from prover.coq.hammer import reconstruction

    printed = "Replace the hammer tactic with:\n\tsrun eauto use: rev_involutive.</infomsg> No more goals."
    assert reconstruction(printed) == "srun (eauto) use: rev_involutive."
    assert reconstruction("Replace the hammer tactic with:\n\thauto use: Nat.add_comm, f.\n") == "hauto use: Nat.add_comm, f."
    assert reconstruction("Eprover succeeded") is None


def test_reconstruction_without_a_period_is_read():
    """``hammer`` that closes a goal before calling the ATPs prints its tactic without a period
    (``Replace the hammer tactic with: sfirstorder``). Fails if such a proof is reported as "printed
    no reconstruction tactic" (the parser wanting a final period)."""
    from prover.coq.hammer import reconstruction

    assert reconstruction("Replace the hammer tactic with: sfirstorder</infomsg>") == "sfirstorder."
    assert reconstruction("Replace the hammer tactic with: sfirstorder\nNo more goals.") == "sfirstorder."


PAIR = adhoc_theorem("Lemma rr2 : forall (A : Type) (l : list A), rev (rev l) = l /\\ True.", ["Require Import List."])


def test_hammer_on_one_goal_by_selector_is_limited_once_and_rewritten_with_its_selector():
    """``1: hammer.`` on a state with two goals runs under ``hammer_timeout`` (not the 1 s tactic
    timeout it would not survive), once per state whatever the spelling, and is rewritten to
    ``1: <reconstruction>`` that coqc and coqchk accept; nested forms are refused before coqtop
    and start no ATP. Fails with the former first-word ``calls_atp``: ``1: hammer.`` then ran
    under the tactic timeout, escaped the once-per-state rule and was verified as is."""
    with CoqEnvironment(tactic_timeout=1, additions=("hammer",), hammer_timeout=120) as env:
        with env.open(PAIR) as (session, state):
            split = session.run_tac(state, "intros A l; split.")
            assert split.num_goals == 2
            sent = session.coqtop.sentences_sent
            for nested in ("idtac; hammer.", "try hammer.", "all: hammer.", "solve [hammer]."):
                refused = session.run_tac(split, nested)
                assert isinstance(refused, TacticError) and refused.kind == ErrorKind.REFUSED, refused
                assert "'hammer' calls external provers" in refused.message
            assert session.coqtop.sentences_sent == sent and atp_processes() == []
            first = session.run_tac(split, "1: hammer.")
            assert not isinstance(first, TacticError) and first.num_goals == 1, first
            for again in ("1: hammer.", "hammer."):
                refused = session.run_tac(split, again)
                assert isinstance(refused, TacticError) and "at most once per state" in refused.message
            done = session.run_tac(first, "exact I.")
            assert isinstance(done, ProofFinished), done
        proof = linear_proof(["intros A l; split.", "1: hammer.", "exact I."])
        verdict = env.verify(PAIR, proof)
        assert verdict.ok, verdict.message
        step = verdict.script.splitlines()[-2]
        assert step.startswith("1: ") and "hammer" not in step and "rev_involutive" in step, verdict.script
        nested = env.verify(PAIR, linear_proof(["intros A l; split.", "try hammer.", "exact I."]))
        assert not nested.ok and "'hammer' calls external provers" in nested.message, nested
    assert atp_processes() == []


def test_plain_session_refuses_hammer_loaded_by_a_prelude():
    """Without the hammer addition no session limits or rewrites ``hammer``: a prelude that loads
    CoqHammer itself must not make it runnable under the ordinary tactic timeout."""
    theorem = adhoc_theorem("Lemma t : forall n : nat, n + 0 = n.", ["From Hammer Require Import Hammer."])
    with CoqEnvironment(tactic_timeout=5) as env:
        with env.open(theorem) as (session, state):
            refused = session.run_tac(state, "hammer.")
            assert isinstance(refused, TacticError) and refused.kind == ErrorKind.REFUSED
            assert "external provers run only in an environment with the hammer addition" in refused.message
            assert isinstance(session.run_tac(state, "intros n; sauto."), ProofFinished)
    assert atp_processes() == []
