"""LeanDojo backend: the MCTS focusing contract (``FocusingSession``) over a stand-in Dojo whose
states are goal lists changed as core Lean 4 changes them (``rotate_left``, ``focus``, ``·``,
``all_goals``), and an MCTS search whose rendered proof is checked with those same semantics.

Both the stand-in Dojo and the stand-in checker are the code author's model of Lean 4, not Lean:
these tests (marker ``lean_model``) show agreement with that model; ``test_lean_integration.py``
runs the same contract on real Lean where a toolchain exists."""

from __future__ import annotations

import re
import textwrap

import pytest

pytestmark = pytest.mark.lean_model

import lean_dojo as ld  # noqa: E402  (required: a broken install must fail, not skip)

from generator import FixedTacticGenerator  # noqa: E402
from prover.lean.check import LeanCheck  # noqa: E402
from prover.lean.env import LeanDojoEnvironment, goal_blocks  # noqa: E402
from prover.lean.script import under_focus  # noqa: E402
from prover.proof_search import MCTSProver  # noqa: E402
from search_tree import ErrorKind, ProofFinished, ProofStep, Status, TacticError, TacticState, Theorem  # noqa: E402
from test_lean_env import THM, repo_factory  # noqa: E402

HYPS = "p q r : Prop\nhp : p\nhq : q\nhr : r\n"
GOAL = HYPS + "⊢ p ∧ q ∧ r"
P = "case left\n" + HYPS + "⊢ p"
QR = "case right\n" + HYPS + "⊢ q ∧ r"
Q = "case right.left\n" + HYPS + "⊢ q"
R = "case right.right\n" + HYPS + "⊢ r"

# goal -> tactic -> the goals that replace it (a list), or the exception LeanDojo raises
RULES: dict[str, dict[str, object]] = {
    GOAL: {"constructor": [P, QR]},
    QR: {"constructor": [Q, R]},
    P: {"exact hp": [], "assumption": []},
    Q: {"exact hq": [], "assumption": []},
    R: {"exact hr": [], "assumption": [], "exact boom": ld.DojoCrashError("Unexpected EOF")},
}


class Rejected(Exception):
    """Lean rejects the tactic (LeanDojo answers ``LeanError``)."""


def run(goals: list[str], block: str) -> list[str]:
    """The goal list after the tactic block ``block`` (one tactic per line at the block's column,
    deeper lines continue it), with core Lean 4's meaning of the few tactics used here."""
    tactics: list[str] = []
    for line in textwrap.dedent(block).strip("\n").split("\n"):
        if tactics and (line[:1] == " " or not line.strip()):
            tactics[-1] += "\n" + line
        else:
            tactics.append(line)
    for tactic in tactics:
        goals = step(goals, tactic)
    return goals


def step(goals: list[str], tactic: str) -> list[str]:
    if not goals:
        raise Rejected("no goals to be proved")
    main, rest = goals[0], goals[1:]
    if tactic.startswith("· "):  # focus the main goal; the block must close it
        if run([main], "  " + tactic[2:]):
            raise Rejected("unsolved goals")
        return rest
    head, _, body = tactic.partition("\n")
    if head == "focus":  # the main goal alone; what it leaves goes in front of the others
        return run([main], body) + rest
    rotate = re.fullmatch(r"rotate_left (\d+)", tactic)
    if rotate:
        n = int(rotate.group(1)) % len(goals)
        return goals[n:] + goals[:n]
    if tactic.startswith("all_goals "):
        return [g for goal in goals for g in run([goal], tactic[len("all_goals "):])]
    outcome = RULES.get(main, {}).get(tactic)
    if outcome is None:
        raise Rejected(f"tactic {tactic!r} failed on {main!r}")
    if isinstance(outcome, Exception):
        raise outcome
    return list(outcome) + rest  # type: ignore[call-overload]


class StandInLean:
    """Plays ``lean_dojo.Dojo``: state ids from 0 in each process, goals printed as LeanDojo prints
    them (joined by blank lines), ``ProofFinished`` when none is left, errors as ``LeanError``."""

    def __init__(self) -> None:
        self.starts = 0
        self.alive = False
        self.sent: list[tuple[int, str]] = []  # (process number, text sent)
        self.states: list[list[str]] = []

    def factory(self, theorem, timeout):
        return self

    def __enter__(self):
        self.starts += 1
        self.alive = True
        self.states = [[GOAL]]
        return self, ld.TacticState(GOAL, 0)

    def __exit__(self, *exc) -> None:
        self.alive = False

    def run_tac(self, state, tactic: str):
        assert self.alive, "tactic sent to a Dojo that was exited"
        self.sent.append((self.starts, tactic))
        try:
            goals = run(self.states[state.id], tactic)
        except Rejected as exc:
            return ld.LeanError(str(exc))
        except ld.DojoCrashError:
            self.alive = False
            raise
        self.states.append(goals)
        if not goals:
            return ld.ProofFinished(len(self.states) - 1, "")
        return ld.TacticState("\n\n".join(goals), len(self.states) - 1)

    def last_sent(self, n: int = 1) -> list[str]:
        return [text for _, text in self.sent[-n:]]


HEADER = "theorem and3 (p q r : Prop) (hp : p) (hq : q) (hr : r) : p ∧ q ∧ r :="


def check_proof(lean_theorem, proof: str) -> LeanCheck:
    """``check_proof`` with the stand-in's semantics: the rendered ``by`` block must close the goal."""
    try:
        closed = run([GOAL], proof.removeprefix("by\n")) == []
    except Rejected:
        closed = False
    return LeanCheck(closed, "stand-in", HEADER)


def open_session(lean: StandInLean):
    env = LeanDojoEnvironment(dojo_factory=lean.factory, repo_factory=repo_factory, tactic_timeout=5)
    return env.open(THM)


def test_focus_shows_only_goal_i_and_leaves_the_state_usable():
    lean = StandInLean()
    with open_session(lean) as (session, init):
        two = session.run_tac(init, "constructor")
        assert [g.name for g in two.goals] == ["left", "right"]
        first = session.focus(two, 0)
        assert lean.last_sent() == ["constructor"]  # goal 0 is already in front: no Lean call
        second = session.focus(two, 1)
        assert lean.last_sent() == ["rotate_left 1"] and lean.states[-1] == [QR, P]
        assert first.goals == (two.goals[0],) and first.pp == first.key == P
        assert second.goals == (two.goals[1],) and second.pp == second.key == QR
        assert len({init.id, two.id, first.id, second.id}) == 4
        # the unfocused state is unchanged; the goal it leaves merges with the focused one
        rest = session.run_tac(two, "exact hp")
        assert isinstance(rest, TacticState) and rest.key == second.key
        bad = session.focus(two, 2)
        assert isinstance(bad, TacticError) and bad.kind == ErrorKind.REFUSED


def test_tactic_on_focused_state_changes_only_that_goal():
    lean = StandInLean()
    with open_session(lean) as (session, init):
        second = session.focus(session.run_tac(init, "constructor"), 1)
        split = session.run_tac(second, "constructor")
        assert lean.last_sent() == ["focus\n  constructor"]
        assert lean.states[-1] == [Q, R, P]  # Lean's list: the new goals, then the hidden one
        assert split.pp == f"{Q}\n\n{R}" and [g.name for g in split.goals] == ["right.left", "right.right"]
        # the hidden goal is out of reach: `exact hp` runs on the visible goal and fails there
        assert isinstance(session.run_tac(second, "exact hp"), TacticError)
        # the policy sees the tactic itself, before it is wrapped, and Lean never sees it
        sent = len(lean.sent)
        refused = session.run_tac(second, "sorry")
        assert refused.kind == ErrorKind.REFUSED and "'sorry'" in refused.message and len(lean.sent) == sent


def test_closing_the_focused_goal_is_proof_finished_with_goals_underneath():
    lean = StandInLean()
    with open_session(lean) as (session, init):
        first = session.focus(session.run_tac(init, "constructor"), 0)
        done = session.run_tac(first, "exact hp")
        assert isinstance(done, ProofFinished)
        assert lean.last_sent() == ["focus\n  exact hp"] and lean.states[-1] == [QR]
        # under `focus`, `all_goals` sees the focused goal alone, as inside the `·` block
        assert isinstance(session.run_tac(first, "all_goals assumption"), ProofFinished)
        assert lean.states[-1] == [QR]


def test_nested_focus():
    lean = StandInLean()
    with open_session(lean) as (session, init):
        split = session.run_tac(session.focus(session.run_tac(init, "constructor"), 1), "constructor")
        q, r = session.focus(split, 0), session.focus(split, 1)
        assert q.goals == (split.goals[0],) and r.goals == (split.goals[1],)
        assert lean.last_sent() == ["rotate_left 1"] and lean.states[-1] == [R, P, Q]
        assert isinstance(session.run_tac(r, "exact hr"), ProofFinished) and lean.states[-1] == [P, Q]
        assert isinstance(session.run_tac(q, "exact hq"), ProofFinished) and lean.states[-1] == [R, P]
        assert isinstance(session.run_tac(r, "exact hq"), TacticError)


def test_several_visible_goals_run_unwrapped_and_hidden_goals_are_guarded():
    """`focus` would hide the second visible goal too, so such states get the tactic as it is;
    any result that touches the hidden goals is an error, never a state."""
    lean = StandInLean()
    with open_session(lean) as (session, init):
        split = session.run_tac(session.focus(session.run_tac(init, "constructor"), 1), "constructor")
        rest = session.run_tac(split, "exact hq")
        assert lean.last_sent() == ["exact hq"] and rest.pp == R
        closed_all = session.run_tac(split, "all_goals assumption")  # would close the hidden goal as well
        assert isinstance(closed_all, TacticError) and "outside the focus" in closed_all.message
        moved = session.run_tac(split, "rotate_left 1")  # would bring the hidden goal into view
        assert isinstance(moved, TacticError) and "outside the focus" in moved.message


def test_replay_after_a_crash_on_a_focused_path_keeps_hidden_goals_hidden():
    lean = StandInLean()
    with open_session(lean) as (session, init):
        split = session.run_tac(session.focus(session.run_tac(init, "constructor"), 1), "constructor")
        r = session.focus(split, 1)
        crash = session.run_tac(r, "exact boom")
        assert crash.kind == ErrorKind.CRASH and "Unexpected EOF" in crash.message
        assert lean.starts == 2 and session.restarts == 1
        # r is rebuilt in the new process from the recorded Lean text, and still hides two goals
        assert isinstance(session.run_tac(r, "exact hr"), ProofFinished)
        assert [text for start, text in lean.sent if start == 2] == [
            "constructor", "rotate_left 1", "focus\n  constructor", "rotate_left 1", "focus\n  exact hr"]
        q = session.focus(split, 0)
        assert q.pp == Q and isinstance(session.run_tac(q, "exact hq"), ProofFinished)


def test_goal_lists_split_only_when_certain():
    assert goal_blocks(f"{P}\n\n{QR}") == [P, QR]
    assert goal_blocks("⊢ p\n⊢ q") is None  # focusing such a state is refused rather than guessed


def test_multi_line_tactics_keep_their_layout_under_focus():
    assert under_focus("have h : p := by\n  exact hp") == "focus\n  have h : p := by\n    exact hp"
    assert under_focus("  simp\n") == "focus\n  simp"


def test_mcts_proves_by_splitting_and_the_bullets_check():
    lean = StandInLean()
    env = LeanDojoEnvironment(dojo_factory=lean.factory, repo_factory=repo_factory, proof_checker=check_proof)
    theorem = Theorem(THM.full_name, THM.file_path,
                      statement=HEADER,
                      extra=THM.extra)
    prover = MCTSProver(FixedTacticGenerator(["constructor", "exact hp", "exact hq", "exact hr"]),
                        timeout=30, num_sampled_tactics=4)
    result = prover.search(env, theorem)
    assert result.status == Status.PROVED, result.stop_reason
    assert result.proof == (ProofStep("constructor", (
        (ProofStep("exact hp"),),
        (ProofStep("constructor", ((ProofStep("exact hq"),), (ProofStep("exact hr"),))),),
    )),)
    assert result.stats["and_nodes"] == 2 and result.stats["focus_calls"] == 4
    assert result.script.endswith(
        ":= by\n  constructor\n  · exact hp\n  · constructor\n    · exact hq\n    · exact hr")
    assert any(text.startswith("focus\n") for _, text in lean.sent)
    # the bullets are checked, not just printed: the same steps without them fail
    assert not check_proof(None, "by\n  constructor\n  exact hp\n  constructor\n  exact hr\n  exact hq").ok
