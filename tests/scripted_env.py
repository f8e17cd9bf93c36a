"""A scripted in-memory environment: a graph of states and tactic outcomes, for search unit tests.

``graph[state][tactic]`` is one of: another state's name, ``"proved"``, ``"error"``,
``"timeout"``, ``"crash"`` (the backend recovered a crashed process), ``"fatal"`` (recovery
failed: :class:`EnvironmentFailure`), ``"sorry"`` (a give-up), or ``"slow:<outcome>"`` (sleeps
``slow_seconds`` first). Unknown tactics are errors. A state whose name contains ``?`` carries an
evar; ``goals`` gives the goal targets of a state (default: one goal named after the state).
"""

from __future__ import annotations

import time
from contextlib import contextmanager

from search_tree import (
    EnvironmentFailure,
    ErrorKind,
    Goal,
    Proof,
    ProofFinished,
    ProofGivenUp,
    TacticError,
    TacticState,
    Theorem,
    Verification,
    proof_tactics,
)


class ScriptedSession:
    def __init__(self, env: "ScriptedEnv") -> None:
        self.env = env
        self.ids: dict[str, int] = {}
        self.names: dict[int, str] = {}

    def state(self, name: str) -> TacticState:
        targets = self.env.goals.get(name, [name])
        goals = tuple(Goal((), t, has_evar="?" in t) for t in targets)
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


class ScriptedEnv:
    name = "scripted"

    def __init__(self, graph: dict[str, dict[str, str]], init: str = "s0", goals=None,
                 accept_proofs: bool = True, slow_seconds: float = 0.05) -> None:
        self.graph = graph
        self.init = init
        self.goals = goals or {}
        self.accept_proofs = accept_proofs
        self.slow_seconds = slow_seconds
        self.calls: list[tuple[str, str]] = []

    @contextmanager
    def open(self, theorem: Theorem):
        session = ScriptedSession(self)
        yield session, session.state(self.init)

    def render(self, theorem: Theorem, proof: Proof) -> str:
        return "\n".join(proof_tactics(proof))

    def verify(self, theorem: Theorem, proof: Proof) -> Verification:
        """Replays a linear proof from the start."""
        if not self.accept_proofs:
            return Verification(False, "rejected by the scripted checker")
        name = self.init
        for tactic in proof_tactics(proof):
            outcome = self.graph.get(name, {}).get(tactic, "error").removeprefix("slow:")
            if outcome == "proved":
                return Verification(True, script=self.render(theorem, proof))
            if outcome not in self.graph:
                return Verification(False, f"{tactic!r} does not progress from {name}")
            name = outcome
        return Verification(False, "goals remain")
