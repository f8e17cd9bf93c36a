"""Prove a theorem by hand, with the generator's suggestions already tried at every state.

At each state the session shows the goals and the generator's ranked suggestions, each already run
(so a person sees at once which fail, which finish, what goals the others leave), and reads one
command a line, from a terminal or a pipe alike:

    N            take suggestion N (one that did not fail)
    TACTIC       run a tactic of one's own (anything that is not a command below)
    back         undo the last step
    search SECS  best-first search from here with the same generator for SECS seconds
    help, quit

A tactic the backend refuses or that fails shows the backend's message and leaves the state as it
was. When no goal is left the proof (every step taken, in order) is re-checked like any found
proof (:meth:`search_tree.Environment.verify`) and printed in the backend's syntax.

Goals, tactics and the backend's messages are untrusted text (a statement or a project file can
hold terminal escapes): everything the session says goes through
:func:`prover.views.safe_text.printable` first.
"""

from __future__ import annotations

import textwrap
from collections.abc import Callable, Iterable
from dataclasses import dataclass

from search_tree import (
    BestFirstSearch,
    Budget,
    Environment,
    ProofFinished,
    Session,
    Status,
    TacticState,
    Theorem,
    linear_proof,
)
from search_tree.budget import outcome_name
from search_tree.protocol import TacticResult

from prover.views.safe_text import printable

HELP = ("commands: N (take suggestion N) · any tactic · back · search SECS (best-first from here) · help · quit")


@dataclass
class Tried:
    tactic: str
    score: float
    result: TacticResult


def describe_goals(state: TacticState) -> str:
    """The goals of ``state`` as a person reads them: hypotheses, a rule, the target."""
    if not state.goals:
        return state.pp
    parts = []
    for i, goal in enumerate(state.goals, 1):
        hyps = "".join(f"  {h.name} : {h.type}\n" for h in goal.hypotheses)
        parts.append(f"goal {i} of {len(state.goals)}\n{hyps}  {'─' * 30}\n  {goal.target}")
    return "\n".join(parts)


def _outcome(result: TacticResult, at: TacticState) -> str:
    if isinstance(result, TacticState):
        if result.key == at.key:
            return "no change"
        first = result.goals[0].target if result.goals else result.pp
        return f"{len(result.goals)} goal(s): {' '.join(first.split())[:70]}"
    if isinstance(result, ProofFinished):
        return "no goals left: proof finished"
    message = ' '.join(getattr(result, "message", "").split())
    return f"{outcome_name(result)}: {message[:70]}"


class Interaction:
    """One theorem being proved by hand in an open session; ``say`` prints (a line or a block);
    ``render_proof`` turns the environment's rendering of the finished proof into what is shown
    (the backend's :meth:`prover.backend.Backend.render_proof`: Coq's between ``Proof.`` and ``Qed.``)."""

    def __init__(self, env: Environment, session: Session, init_state: TacticState, theorem: Theorem,
                 propose: Callable[[TacticState], list[tuple[str, float]]], say: Callable[[str], None] = print,
                 render_proof: Callable[[str], str] = lambda script: script):
        self.env, self.session, self.theorem, self.propose, self._say = env, session, theorem, propose, say
        self.render_proof = render_proof
        self.path: list[tuple[str, TacticState]] = []  # (tactic, the state it was run at)
        self.state: TacticState | ProofFinished = init_state
        self._tried: dict[int, list[Tried]] = {}

    @property
    def open_state(self) -> TacticState:
        """The state commands act on (they are read only until the proof is finished)."""
        assert isinstance(self.state, TacticState), "the proof is finished"
        return self.state

    def say(self, text: str) -> None:
        """Show ``text``, its control characters as escapes (see the module doc)."""
        self._say(printable(text))

    def suggestions(self, state: TacticState) -> list[Tried]:
        """The generator's suggestions at ``state``, best first, each run once (then remembered)."""
        if state.id not in self._tried:
            self._tried[state.id] = [Tried(t, s, self.session.run_tac(state, t)) for t, s in self.propose(state)]
        return self._tried[state.id]

    def show(self) -> None:
        assert isinstance(self.state, TacticState)
        lines = [f"── {self.theorem.full_name}, step {len(self.path) + 1}", describe_goals(self.state),
                 "suggestions (already tried):"]
        for i, tried in enumerate(self.suggestions(self.state), 1):
            lines.append(f"  {i:>2}. {tried.tactic:<34} {_outcome(tried.result, self.state)}")
        lines.append(HELP)
        self.say("\n".join(lines))

    def command(self, line: str) -> bool:
        """Carry out one command; False once the session is over (proved, or quit)."""
        line = line.strip()
        word, _, rest = line.partition(" ")
        if not line:
            return True
        if line in ("quit", "exit", "q"):
            return False
        if line == "help":
            self.say(HELP)
        elif line in ("back", "b"):
            self._back()
        elif word == "search" and rest:
            self._search(rest)
        elif line.isdigit():
            self._pick(int(line))
        else:
            self._step(line, self.session.run_tac(self.open_state, line))
        return not isinstance(self.state, ProofFinished)

    def _back(self) -> None:
        if not self.path:
            self.say("already at the start")
            return
        _, self.state = self.path.pop()
        self.show()

    def _pick(self, number: int) -> None:
        tried = self.suggestions(self.open_state)
        if not 1 <= number <= len(tried):
            self.say(f"no suggestion {number}: there are {len(tried)}")
            return
        self._step(tried[number - 1].tactic, tried[number - 1].result)

    def _step(self, tactic: str, result: TacticResult) -> None:
        if not isinstance(result, (TacticState, ProofFinished)):
            self.say(f"{tactic} -> {outcome_name(result)}; the state is unchanged:\n"
                     f"{textwrap.indent(getattr(result, 'message', '').strip(), '  ')}")
            return
        self.path.append((tactic, self.open_state))
        self.state = result
        if isinstance(result, TacticState):
            self.show()

    def _search(self, seconds: str) -> None:
        try:
            budget = float(seconds)
        except ValueError:
            budget = 0.0
        if not budget > 0:
            self.say(f"search {seconds}: give a positive number of seconds")
            return
        self.say(f"searching {budget:g}s from here ...")
        found = BestFirstSearch(self.session, self.open_state, self.propose, Budget(timeout=budget)).run(self.theorem)
        if found.status != Status.PROVED or found.proof is None:
            self.say(f"no proof from here ({found.stop_reason}, {found.num_env_calls} tactics run); state unchanged")
            return
        for step in found.proof:
            result = self.session.run_tac(self.open_state, step.tactic)
            if not isinstance(result, (TacticState, ProofFinished)):  # the found proof failed when replayed
                self.say(f"found: {' '.join(s.tactic for s in found.proof)}; but replaying {step.tactic} gave "
                         f"{outcome_name(result)}: kept the steps before it")
                self.show()
                return
            self.path.append((step.tactic, self.open_state))
            self.state = result
        self.say(f"found: {' '.join(step.tactic for step in found.proof)}")

    def tactics(self) -> list[str]:
        return [tactic for tactic, _ in self.path]

    def finish(self) -> bool:
        """Re-check the proof taken and print it; whether the backend accepted it."""
        proof = linear_proof(self.tactics())
        verdict = self.env.verify(self.theorem, proof)
        if not verdict.ok:
            self.say(f"the backend's re-check rejected the proof: {verdict.message}")
            return False
        self.say(f"proof ({verdict.message}):\n{self.render_proof(self.env.render(self.theorem, proof))}")
        return True


def interact(interaction: Interaction, lines: Iterable[str]) -> int:
    """Run commands from ``lines`` until proved or they end; 0 if a re-checked proof was printed."""
    interaction.show()
    for line in lines:
        if not interaction.command(line):
            break
    if not isinstance(interaction.state, ProofFinished):
        interaction.say("stopped without a proof")
        return 1
    return 0 if interaction.finish() else 1
