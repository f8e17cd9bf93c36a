"""A synthetic backend and generator: deterministic proof puzzles with simulated prover latency.

It exists so that the distributed machinery (workers, retries, resume, reports) can be exercised
and measured where no real prover is installed, and it is labelled as such wherever it is used.
Each theorem hides a proof of a few tactics derived from a hash of its name; off-proof tactics
lead into dead-end subtrees or fail, so a search has real work to do. ``latency`` seconds are
slept per tactic, like a prover process would take.

It differs from ``benchmarks/synthetic.py`` (the search benchmarks' AND-OR world with focusing,
built from a config object): this one is built from plain keyword options (so a Ray worker can
build it from a spec), its generator's proposals depend on the attempt's seed (so pass@k means
something) and it injects faults.

Fault injection (for tests and the soak benchmark): ``faults`` maps theorem names to ``"exit"``
(the process hosting the environment dies, as a crashed Ray worker would) or ``"fatal"`` (the
backend raises :class:`EnvironmentFailure`, as when a prover cannot be restarted). With
``fault_once_dir`` set, each fault fires once: a marker file there records that it did.
"""

from __future__ import annotations

import hashlib
import os
import random
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from generator.base import Suggestion, TacticGenerator
from search_tree import (
    EnvironmentFailure,
    Goal,
    Proof,
    ProofFinished,
    TacticError,
    TacticResult,
    TacticState,
    Theorem,
    Verification,
    proof_tactics,
)

VOCABULARY: tuple[str, ...] = (
    "intros.", "simpl.", "auto.", "reflexivity.", "split.", "lia.", "induction n.", "destruct H.",
    "rewrite IHn.", "apply H; auto.", "constructor.", "unfold f in *.",
)


def _digest(*parts: object) -> int:
    return int.from_bytes(hashlib.sha256("\x1f".join(map(str, parts)).encode()).digest()[:8], "big")


class _Session:
    def __init__(self, env: SyntheticEnvironment, theorem: Theorem) -> None:
        self.env = env
        self.theorem = theorem
        self.proof = env.hidden_proof(theorem.full_name)
        self.paths: list[tuple[str, ...]] = []
        self.ids: dict[tuple[str, ...], int] = {}

    def state(self, path: tuple[str, ...]) -> TacticState:
        if path not in self.ids:
            self.ids[path] = len(self.paths)
            self.paths.append(path)
        on_proof = path == self.proof[: len(path)]
        target = f"{self.theorem.full_name} step {len(path)}" + ("" if on_proof else f" dead {_digest(*path) % 997}")
        return TacticState(pp=f"⊢ {target}", id=self.ids[path], goals=(Goal((), target),), key=target)

    def run_tac(self, state: TacticState, tactic: str) -> TacticResult:
        if self.env.latency:
            time.sleep(self.env.latency)
        path = self.paths[state.id]
        if path == self.proof[: len(path)] and tactic == self.proof[len(path)]:
            return ProofFinished() if len(path) + 1 == len(self.proof) else self.state(path + (tactic,))
        # Off the proof: a few tactics per state lead one level deeper into a dead end.
        if len(path) < self.env.dead_depth and _digest(self.theorem.full_name, *path, tactic) % 4 == 0:
            return self.state(path + (tactic,))
        return TacticError(f"synthetic: {tactic} does not apply")


class SyntheticEnvironment:
    """Deterministic proof puzzles; see the module docstring. Picklable and built from options."""

    name = "synthetic"

    def __init__(self, latency: float = 0.0, min_depth: int = 1, max_depth: int = 4, dead_depth: int = 3,
                 faults: dict[str, str] | None = None, fault_once_dir: str | None = None) -> None:
        self.latency = latency
        self.min_depth = min_depth
        self.max_depth = max_depth
        self.dead_depth = dead_depth
        self.faults = dict(faults or {})
        self.fault_once_dir = fault_once_dir

    def hidden_proof(self, name: str) -> tuple[str, ...]:
        depth = self.min_depth + _digest("depth", name) % (self.max_depth - self.min_depth + 1)
        return tuple(VOCABULARY[_digest("step", name, i) % len(VOCABULARY)] for i in range(depth))

    def _inject_fault(self, name: str) -> None:
        fault = self.faults.get(name)
        if fault is None:
            return
        if self.fault_once_dir is not None:
            marker = Path(self.fault_once_dir) / hashlib.sha256(name.encode()).hexdigest()
            try:
                marker.touch(exist_ok=False)
            except FileExistsError:
                return
        if fault == "exit":
            os._exit(17)
        if fault == "fatal":
            raise EnvironmentFailure(f"synthetic prover for {name} could not be restarted")
        raise ValueError(f"unknown synthetic fault {fault!r}")

    @contextmanager
    def open(self, theorem: Theorem) -> Iterator[tuple[_Session, TacticState]]:
        self._inject_fault(theorem.full_name)
        session = _Session(self, theorem)
        yield session, session.state(())

    def render(self, theorem: Theorem, proof: Proof) -> str:
        return "\n".join(proof_tactics(proof))

    def verify(self, theorem: Theorem, proof: Proof) -> Verification:
        ok = tuple(proof_tactics(proof)) == self.hidden_proof(theorem.full_name)
        return Verification(ok, "" if ok else "not the hidden proof", self.render(theorem, proof))


class SyntheticGenerator(TacticGenerator):
    """Proposes the synthetic vocabulary with pseudo-random scores that depend on the seed.

    Different seeds order the tactics differently, so repeated attempts explore differently and
    pass@k grows with k, as with a sampling language model; ``temperature`` flattens the scores.
    """

    def __init__(self, seed: int = 0, temperature: float = 1.0) -> None:
        self.seed = seed
        self.temperature = temperature

    def set_seed(self, seed: int) -> None:
        self.seed = seed

    def generate(self, state: TacticState, context: Theorem, num_samples: int) -> list[Suggestion]:
        rng = random.Random(_digest(self.seed, context.full_name, state.key))
        scored = [(t, -rng.expovariate(1.0) / self.temperature) for t in VOCABULARY]
        return sorted(scored, key=lambda s: -s[1])[:num_samples]
