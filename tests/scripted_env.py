"""A scripted in-memory environment: a graph of states and tactic outcomes, for search unit tests.

``graph[state][tactic]`` is one of: another state's name, ``"proved"``, ``"error"``,
``"timeout"``, ``"crash"`` (the backend recovered a crashed process), ``"fatal"`` (recovery
failed: :class:`EnvironmentFailure`), ``"sorry"`` (a give-up), or ``"slow:<outcome>"`` (sleeps
``slow_seconds`` first). Unknown tactics are errors. A state whose name contains ``?`` carries an
evar; ``goals`` gives the goal targets of a state (default: one goal named after the state).

Focusing (the :class:`~search_tree.protocol.FocusingSession` contract): each goal target is itself
the name of a state, and ``focus(state, i)`` returns the state named after goal ``i``; a tactic
that leads to ``"proved"`` there closes that goal. ``render`` writes branches as ``-`` bullets
indented by two spaces per level; ``verify`` replays such structured proofs goal by goal.
"""

from __future__ import annotations

import time
from contextlib import contextmanager

from prover.synthetic import render_bullets
from search_tree import (
    Environment,
    EnvironmentFailure,
    ErrorKind,
    Goal,
    Proof,
    ProofFinished,
    ProofStep,
    ProofGivenUp,
    TacticError,
    TacticState,
    Theorem,
    Verification,
)


class ScriptedSession:
    def __init__(self, env: "ScriptedEnv") -> None:
        self.env = env
        self.ids: dict[str, int] = {}
        self.names: dict[int, str] = {}

    def state(self, name: str) -> TacticState:
        targets = self.env.goals.get(name, [name])
        goals = tuple(Goal((), t, has_metavariable="?" in t) for t in targets)
        state_id = self.ids.setdefault(name, len(self.ids))
        self.names[state_id] = name
        return TacticState(pp="\n\n".join(targets), id=state_id, goals=goals, key=name)

    def run_tac(self, state: TacticState, tactic: str):
        self.env.calls.append((self.names[state.id], tactic))
        outcome = self.env.graph.get(self.names[state.id], {}).get(tactic, "error")
        if outcome.startswith("slow:"):
            time.sleep(self.env.slow_seconds)
            outcome = outcome[len("slow:"):]
        if outcome == "proved":
            return ProofFinished()
        if outcome == "sorry":
            return ProofGivenUp("sorry")
        if outcome == "fatal":
            raise EnvironmentFailure("scripted prover died for good")
        if outcome in ("error", "timeout", "crash"):
            kind = {"error": ErrorKind.ERROR, "timeout": ErrorKind.TIMEOUT, "crash": ErrorKind.CRASH}[outcome]
            return TacticError(f"scripted {outcome}", kind)
        return self.state(outcome)

    def focus(self, state: TacticState, goal_index: int) -> TacticState | TacticError:
        self.env.focus_calls.append((self.names[state.id], goal_index))
        if not 0 <= goal_index < state.num_goals:
            return TacticError(f"no goal {goal_index}", ErrorKind.REFUSED)
        return self.state(state.goals[goal_index].target)


class ScriptedEnv(Environment):
    name = "scripted"

    def __init__(self, graph: dict[str, dict[str, str]], init: str = "s0", goals=None,
                 accept_proofs: bool = True, slow_seconds: float = 0.05) -> None:
        self.graph = graph
        self.init = init
        self.goals = goals or {}
        self.accept_proofs = accept_proofs
        self.slow_seconds = slow_seconds
        self.calls: list[tuple[str, str]] = []
        self.focus_calls: list[tuple[str, int]] = []

    @contextmanager
    def open(self, theorem: Theorem):
        session = ScriptedSession(self)
        yield session, session.state(self.init)

    def render(self, theorem: Theorem, proof: Proof) -> str:
        return render_bullets(proof)

    def verify(self, theorem: Theorem, proof: Proof) -> Verification:
        """Replays a proof from the start; each branch must prove its goal by itself."""
        if not self.accept_proofs:
            return Verification(False, "rejected by the scripted checker")
        error = self._replay(self.init, proof)
        if error:
            return Verification(False, error)
        return Verification(True, script=self.render(theorem, proof))

    def _replay(self, name: str, steps: tuple[ProofStep, ...]) -> str | None:
        for k, step in enumerate(steps):
            outcome = self.graph.get(name, {}).get(step.tactic, "error").removeprefix("slow:")
            last = k == len(steps) - 1
            if outcome == "proved":
                return None if last and not step.branches else f"{step.tactic!r} closed {name} early"
            if outcome not in self.graph and outcome not in self.goals:
                return f"{step.tactic!r} does not progress from {name}"
            if step.branches:
                targets = self.goals.get(outcome, [outcome])
                if not last or len(step.branches) != len(targets):
                    return f"{len(step.branches)} branches after {step.tactic!r} for {len(targets)} goals"
                for target, branch in zip(targets, step.branches, strict=True):
                    error = self._replay(target, branch)
                    if error:
                        return error
                return None
            name = outcome
        return "goals remain"
