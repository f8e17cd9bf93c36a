"""A synthetic theorem-proving environment with simulated latencies, for search benchmarks.

Each theorem is a hidden random proof tree. Every goal has one *solution* tactic, drawn from a
fixed vocabulary in proportion to the vocabulary's prior (so the prior is informative but not
exact), which closes the goal, turns it into one new goal, or splits it into two or three goals
(sometimes sharing an evar, which AND-OR search must not split). Any other tactic fails, changes
nothing, or leads into a *detour*: a goal that looks like progress but has no proof. A tactic acts
on the first goal of a state and its new goals replace that goal, as in Coq and Lean, so best-first
search and AND-OR search see the same theorems; sessions implement ``focus``
(:class:`search_tree.FocusingSession`).

:class:`SyntheticGenerator` plays a learned policy: it scores the vocabulary by its prior and, for a
fraction of goals (``hint_rate``), raises the solution's score by ``hint_bonus`` nats.

Everything is a deterministic function of ``seed`` and the goal's name, so every search sees the
same theorems. Latencies are ``time.sleep`` (no CPU), so that the benchmark measures the share of
wall time the search itself takes.
"""

from __future__ import annotations

import math
import random
import time
from contextlib import contextmanager
from dataclasses import dataclass

from generator.base import Suggestion, TacticGenerator
from search_tree import (
    ErrorKind,
    Goal,
    Proof,
    ProofFinished,
    ProofStep,
    TacticError,
    TacticResult,
    TacticState,
    Theorem,
    Verification,
)

# A Coq-flavoured vocabulary with a prior (it sums to 1).
VOCABULARY: tuple[tuple[str, float], ...] = (
    ("intros", 0.20), ("auto", 0.14), ("split", 0.12), ("simpl", 0.10), ("reflexivity", 0.08),
    ("apply H", 0.07), ("rewrite H", 0.06), ("induction n", 0.05), ("destruct H", 0.05),
    ("lia", 0.05), ("constructor", 0.04), ("exists 0", 0.04),
)


@dataclass(frozen=True)
class SyntheticConfig:
    seed: int = 0
    max_depth: int = 4  # solution-tree depth at which every goal closes
    p_close: float = 0.45  # (never at the theorem itself)
    p_split: float = 0.25  # else the solution leads to one new goal
    p_evar: float = 0.2  # a split's goals share an evar
    p_error: float = 0.5  # a wrong tactic fails ...
    p_noop: float = 0.1  # ... or changes nothing; otherwise it leads into a detour
    env_latency: float = 0.003  # seconds per tactic or focus call
    gen_latency: float = 0.010  # seconds per generator call


class SyntheticTheorems:
    """The hidden proof trees: which tactic does what to which goal."""

    def __init__(self, config: SyntheticConfig) -> None:
        self.config = config

    def theorems(self, n: int) -> list[Theorem]:
        return [Theorem(f"T{k}") for k in range(n)]

    def rng(self, *parts: object) -> random.Random:
        return random.Random("|".join(map(str, (self.config.seed, *parts))))

    def solution(self, goal: str) -> tuple[str, list[str]] | None:
        """The tactic that makes progress on ``goal`` and the goals it leaves, or None (a detour)."""
        if "~" in goal:
            return None
        cfg, rng = self.config, self.rng("solution", goal)
        tactic = rng.choices([t for t, _ in VOCABULARY], weights=[p for _, p in VOCABULARY])[0]
        depth = goal.count(".")
        r = rng.random()
        if depth >= cfg.max_depth or (depth > 0 and r < cfg.p_close):
            return tactic, []
        if r < cfg.p_close + cfg.p_split:
            marker = "?" if rng.random() < cfg.p_evar else ""
            return tactic, [f"{goal}.{i}{marker}" for i in range(rng.choice((2, 2, 3)))]
        return tactic, [f"{goal}.0"]

    def apply(self, goal: str, tactic: str) -> list[str] | None:
        """The goals replacing ``goal`` after ``tactic``, or None if the tactic fails."""
        solution = self.solution(goal)
        if solution is not None and tactic == solution[0]:
            return solution[1]
        cfg, r = self.config, self.rng("apply", goal, tactic).random()
        if r < cfg.p_error or goal.count("~") >= 2:
            return None
        if r < cfg.p_error + cfg.p_noop:
            return [goal]
        return [f"{goal}~{[t for t, _ in VOCABULARY].index(tactic) if tactic in dict(VOCABULARY) else 'x'}"]


def _wait(seconds: float) -> None:
    if seconds > 0:  # sleep(0) still yields the CPU, which would count as environment time
        time.sleep(seconds)


def _has_evar(goal: str) -> bool:
    return goal.rsplit(".", 1)[-1].endswith("?")


class SyntheticSession:
    def __init__(self, env: "SyntheticEnv") -> None:
        self.env = env
        self.goal_lists: dict[int, tuple[str, ...]] = {}
        self.ids: dict[tuple[str, ...], int] = {}

    def state(self, goals: tuple[str, ...]) -> TacticState:
        state_id = self.ids.setdefault(goals, len(self.ids))
        self.goal_lists[state_id] = goals
        pp = "\n\n".join(goals)
        return TacticState(pp, state_id, tuple(Goal((), g, has_evar=_has_evar(g)) for g in goals), key=pp)

    def run_tac(self, state: TacticState, tactic: str) -> TacticResult:
        _wait(self.env.config.env_latency)
        goals = self.goal_lists[state.id]
        new = self.env.world.apply(goals[0], tactic)
        if new is None:
            return TacticError(f"{tactic} failed on {goals[0]}", ErrorKind.ERROR)
        rest = tuple(new) + goals[1:]
        return self.state(rest) if rest else ProofFinished()

    def focus(self, state: TacticState, goal_index: int) -> TacticState | TacticError:
        _wait(self.env.config.env_latency)
        goals = self.goal_lists[state.id]
        if not 0 <= goal_index < len(goals):
            return TacticError(f"no goal {goal_index}", ErrorKind.REFUSED)
        return self.state((goals[goal_index],))


class SyntheticEnv:
    name = "synthetic"

    def __init__(self, config: SyntheticConfig | None = None) -> None:
        self.config = config = config or SyntheticConfig()
        self.world = SyntheticTheorems(config)

    @contextmanager
    def open(self, theorem: Theorem):
        session = SyntheticSession(self)
        yield session, session.state((theorem.full_name,))

    def render(self, theorem: Theorem, proof: Proof) -> str:
        def lines(steps: tuple[ProofStep, ...], depth: int) -> list[str]:
            out = []
            for step in steps:
                out.append("  " * depth + step.tactic + ".")
                for branch in step.branches:
                    sub = lines(branch, depth + 1)
                    sub[0] = "  " * depth + "- " + sub[0].lstrip()
                    out.extend(sub)
            return out

        return "\n".join(lines(proof, 0))

    def verify(self, theorem: Theorem, proof: Proof) -> Verification:
        error = self._replay((theorem.full_name,), proof)
        if error:
            return Verification(False, error)
        return Verification(True, script=self.render(theorem, proof))

    def _replay(self, goals: tuple[str, ...], steps: tuple[ProofStep, ...]) -> str | None:
        for k, step in enumerate(steps):
            if not goals:
                return f"{step.tactic!r} after the proof was complete"
            new = self.world.apply(goals[0], step.tactic)
            if new is None:
                return f"{step.tactic!r} fails on {goals[0]}"
            goals = tuple(new) + goals[1:]
            if step.branches:
                if k != len(steps) - 1 or len(step.branches) != len(goals):
                    return f"{len(step.branches)} branches for {len(goals)} goals after {step.tactic!r}"
                for goal, branch in zip(goals, step.branches, strict=True):
                    error = self._replay((goal,), branch)
                    if error:
                        return error
                return None
        return None if not goals else f"{len(goals)} goals remain"


class SyntheticGenerator(TacticGenerator):
    """The vocabulary scored by its prior, with the solution of some goals hinted."""

    def __init__(self, env: SyntheticEnv, hint_rate: float = 0.5, hint_bonus: float = 2.0) -> None:
        self.env = env
        self.hint_rate = hint_rate
        self.hint_bonus = hint_bonus

    def generate(self, state: TacticState, context: Theorem, num_samples: int) -> list[Suggestion]:
        _wait(self.env.config.gen_latency)
        goal = state.goals[0].target
        world = self.env.world
        solution = world.solution(goal)
        hinted = solution is not None and world.rng("hint", goal).random() < self.hint_rate
        scores = {t: math.log(p) for t, p in VOCABULARY}
        if hinted:
            scores[solution[0]] += self.hint_bonus
        norm = math.log(sum(math.exp(s) for s in scores.values()))
        ranked = sorted(((t, s - norm) for t, s in scores.items()), key=lambda ts: -ts[1])
        return ranked[:num_samples]
