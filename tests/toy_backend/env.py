"""Step 2: the toy environment: theorems by name, sessions that run tactics, a from-scratch check.

The library (the lemmas ``apply`` may use) is ``corpus.jsonl`` beside this module, also the
default corpus of a retriever (:meth:`ToyEnvironment.default_corpus_path`).
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from search_tree import (
    Environment,
    ErrorKind,
    Goal,
    Proof,
    ProofFinished,
    ProofGivenUp,
    TacticError,
    TacticResult,
    TacticState,
    Theorem,
    TheoremNotFound,
    Verification,
)

from toy_backend.language import TOY

CORPUS = Path(__file__).with_name("corpus.jsonl")
THEOREMS = {"both": "wet & cold", "three": "cold & wet & wet", "lost": "dry"}


def _lemmas() -> dict[str, str]:
    """Lemma name -> the atom it states, read from the library."""
    out = {}
    for line in CORPUS.read_text().splitlines():
        for p in json.loads(line)["premises"]:
            out[p["full_name"]] = p["code"].rsplit(":", 1)[1].strip()
    return out


def step(goals: tuple[str, ...], tactic: str) -> tuple[str, ...] | str:
    """The goals after ``tactic`` acts on the first of ``goals``, or why it fails."""
    first, rest = goals[0], goals[1:]
    words = tactic.split()
    if words == ["split"] and " & " in first:
        left, right = first.split(" & ", 1)
        return (left, right, *rest)
    if len(words) == 2 and words[0] == "apply" and _lemmas().get(words[1]) == first:
        return rest
    return f"{tactic!r} does not apply to {first!r}"


class _Session:
    def __init__(self) -> None:
        self.goals: dict[int, tuple[str, ...]] = {}

    def state(self, goals: tuple[str, ...]) -> TacticState:
        state_id = len(self.goals)
        self.goals[state_id] = goals
        return TacticState("\n".join(f"⊢ {g}" for g in goals), state_id, tuple(Goal((), g) for g in goals))

    def run_tac(self, state: TacticState, tactic: str) -> TacticResult:
        if tactic.strip() == "cheat":
            return ProofGivenUp("cheat closes the goal without a proof")
        after = step(self.goals[state.id], tactic.strip())
        if isinstance(after, str):
            return TacticError(after, ErrorKind.ERROR)
        return self.state(after) if after else ProofFinished()


class ToyEnvironment(Environment):
    name = "toy"
    language = TOY

    def __enter__(self) -> ToyEnvironment:
        return self

    def __exit__(self, *exc: object) -> None:
        return None

    def theorem(self, name: str) -> Theorem:
        if name not in THEOREMS:
            raise TheoremNotFound(f"no toy theorem {name!r}; known: {', '.join(sorted(THEOREMS))}")
        return Theorem(name, file_path="Main.toy", statement=THEOREMS[name])

    @contextmanager
    def open(self, theorem: Theorem) -> Iterator[tuple[_Session, TacticState]]:
        session = _Session()
        yield session, session.state((self.theorem(theorem.full_name).statement,))

    def render(self, theorem: Theorem, proof: Proof) -> str:
        return "\n".join(s.tactic for s in proof)

    def verify(self, theorem: Theorem, proof: Proof) -> Verification:
        """Replays the proof's tactics on the statement, trusting no session."""
        goals: tuple[str, ...] = (self.theorem(theorem.full_name).statement,)
        for s in proof:
            if not goals or s.branches or s.tactic == "cheat":
                return Verification(False, f"{s.tactic!r} is not a step of a proof here")
            after = step(goals, s.tactic)
            if isinstance(after, str):
                return Verification(False, after)
            goals = after
        return Verification(not goals, f"{len(goals)} goals remain" if goals else "", self.render(theorem, proof))

    @staticmethod
    def default_corpus_path(options: dict[str, Any], theorems: Sequence[Theorem]) -> Path:
        return CORPUS


def benchmark(split: str) -> list[Theorem]:
    """The ``toy`` benchmark family: ``toy:all``, every theorem of the toy library."""
    if split != "all":
        raise ValueError(f"the toy benchmark has one split, toy:all, not toy:{split}")
    return [ToyEnvironment().theorem(name) for name in THEOREMS]


def preset(timeout: float, tactic_timeout: float, hammer_timeout: float | None, max_expansions: int | None,
           project: str | None) -> Any:
    """The toy backend's default prover: its templates with MePo's premises, best-first search."""
    from prover.registry import ComponentSpec, ProverConfig

    search = {"timeout": timeout} | ({} if max_expansions is None else {"max_expansions": max_expansions})
    return ProverConfig(env=ComponentSpec("toy"), prover=ComponentSpec("best_first", search),
                        generator=ComponentSpec("template", {"templates": "toy"}), retriever=ComponentSpec("mepo"))
