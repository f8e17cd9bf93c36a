"""The synthetic backend: seeded proof puzzles with simulated latency, focusing and injected faults.

It lets the search algorithms, the distributed runner and the benchmarks run, be tested and be
measured where no prover is installed, and it is labelled as such wherever it is used:

* **the environment** (:class:`SyntheticEnvironment`, :class:`search_tree.Environment`): ``open``
  yields a session and the initial state, ``render`` prints a proof, ``verify`` re-checks it from
  scratch. Its sessions answer ``run_tac`` and ``focus`` (:class:`search_tree.FocusingSession`),
  so that AND-OR search can prove goals apart. It builds its goals itself (:func:`_goal_text`), so
  it has no :class:`~search_tree.language.Language`;
* **its tactics** (:data:`VOCABULARY` with a prior, :class:`SyntheticGenerator`);
* **its names**, in :mod:`prover.synthetic.backend`: ``synthetic`` as an environment and a
  generator, the benchmark family ``synthetic:N`` (:func:`synthetic_theorems`). Environments and
  generators are built from plain keyword options, so a Ray worker can build them from a
  :class:`prover.registry.ComponentSpec`.

The world (:class:`SyntheticWorld`). Each theorem is a hidden random proof tree, a deterministic
function of the world's ``seed`` and the goal. Every goal has one *solution* tactic, drawn from
:data:`VOCABULARY` in proportion to its prior (so the prior is informative but not exact), which
closes the goal, turns it into one new goal, or splits it into two or three (sometimes sharing an
evar, which AND-OR search must not split); ``p_split=0`` makes every proof linear. Any other
tactic fails, changes nothing, or leads into a *detour*: a goal that looks like progress but has
no proof. A tactic acts on the first goal of a state and its new goals replace that goal, as in
Coq and Lean, so best-first and AND-OR search see the same theorems.

The generator plays a sampling policy: it scores the vocabulary by its prior, raises the
solution's score by ``hint_bonus`` nats for a fraction ``hint_rate`` of the goals, and, at a
``temperature`` above 0, orders the tactics as a sample without replacement that depends on the
attempt's seed (so pass@k grows with k); at 0 it is greedy.

Latencies are ``time.sleep`` (no CPU), so that a benchmark measures the share of wall time the
search itself takes. Fault injection (for tests and the soak benchmark): ``faults`` maps theorem
names to ``"exit"`` (the process hosting the environment dies, as a crashed Ray worker would) or
``"fatal"`` (``open`` raises :class:`EnvironmentFailure`, as when a prover cannot be restarted).
With ``fault_once_dir`` set, each fault fires once: a marker file there records that it did.
"""

from __future__ import annotations

import hashlib
import math
import os
import random
import time
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from generator.base import Suggestion, TacticGenerator
from search_tree import (
    Environment,
    EnvironmentFailure,
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

#: A Coq-flavoured vocabulary with a prior (it sums to 1).
VOCABULARY: tuple[tuple[str, float], ...] = (
    ("intros.", 0.20), ("auto.", 0.14), ("split.", 0.12), ("simpl.", 0.10), ("reflexivity.", 0.08),
    ("apply H.", 0.07), ("rewrite H.", 0.06), ("induction n.", 0.05), ("destruct H.", 0.05),
    ("lia.", 0.05), ("constructor.", 0.04), ("exists 0.", 0.04),
)
_TACTICS = tuple(t for t, _ in VOCABULARY)
_FAULTS = ("exit", "fatal")


def synthetic_theorems(count: int) -> list[Theorem]:
    """The theorems of the benchmark ``synthetic:N``: any name is a puzzle, these are the usual ones."""
    return [Theorem(f"synthetic_{k:04d}") for k in range(count)]


def _digest(*parts: object) -> int:
    return int.from_bytes(hashlib.sha256("\x1f".join(map(str, parts)).encode()).digest()[:8], "big")


@dataclass(frozen=True)
class SyntheticWorld:
    """The hidden proof trees: which tactic does what to which goal (see the module docstring).

    A goal is a theorem name and a *path*: ``.i`` per step down the solution tree (``?`` after it
    when its siblings share an evar), ``~k`` per step into a detour.
    """

    seed: int = 0
    max_depth: int = 4  # solution-tree depth at which every goal closes
    p_close: float = 0.45  # the solution closes the goal (the theorem's own: splits it) ...
    p_split: float = 0.25  # ... or splits it (0: every proof is linear); else it leads to one new goal
    p_evar: float = 0.2  # a split's goals share an evar
    p_error: float = 0.5  # a wrong tactic fails ...
    p_noop: float = 0.1  # ... or changes nothing; otherwise it leads into a detour
    detour_depth: int = 2  # every tactic fails this many steps into a detour

    def __post_init__(self) -> None:
        if self.max_depth < 1 or self.detour_depth < 0:
            raise ValueError(f"synthetic world: max_depth {self.max_depth} must be >= 1 and "
                             f"detour_depth {self.detour_depth} >= 0")
        for name, total in (("p_close + p_split", self.p_close + self.p_split),
                            ("p_error + p_noop", self.p_error + self.p_noop), ("p_evar", self.p_evar)):
            if not 0 <= total <= 1:
                raise ValueError(f"synthetic world: {name} = {total} is not a probability")

    def rng(self, *parts: object) -> random.Random:
        return random.Random("|".join(map(str, (self.seed, *parts))))

    def solution(self, theorem: str, path: str) -> tuple[str, list[str]] | None:
        """The tactic that makes progress on goal ``path`` of ``theorem`` and the paths it leaves,
        or None in a detour."""
        if "~" in path:
            return None
        rng = self.rng("solution", _goal_text(theorem, path))
        tactic = rng.choices(_TACTICS, weights=[p for _, p in VOCABULARY])[0]
        depth = path.count(".")
        r = rng.random()
        if depth >= self.max_depth or (depth > 0 and r < self.p_close):
            return tactic, []
        # The theorem itself never closes: its close share splits it, unless the world is linear.
        if r < self.p_close + self.p_split and self.p_split > 0:
            marker = "?" if rng.random() < self.p_evar else ""
            return tactic, [f"{path}.{i}{marker}" for i in range(rng.choice((2, 2, 3)))]
        return tactic, [f"{path}.0"]

    def apply(self, theorem: str, path: str, tactic: str) -> list[str] | None:
        """The paths replacing goal ``path`` after ``tactic``, or None if the tactic fails."""
        solution = self.solution(theorem, path)
        if solution is not None and tactic == solution[0]:
            return solution[1]
        r = self.rng("apply", _goal_text(theorem, path), tactic).random()
        if r < self.p_error or path.count("~") >= self.detour_depth:
            return None
        if r < self.p_error + self.p_noop:
            return [path]
        return [f"{path}~{_TACTICS.index(tactic) if tactic in _TACTICS else 'x'}"]


def _world(world: SyntheticWorld | Mapping[str, Any] | None) -> SyntheticWorld:
    """A world from its options (as a spec gives them), or the default one."""
    if isinstance(world, SyntheticWorld):
        return world
    return SyntheticWorld(**(world or {}))


def _wait(seconds: float) -> None:
    if seconds > 0:  # sleep(0) still yields the CPU, which would count as environment time
        time.sleep(seconds)


def _goal_text(theorem: str, path: str) -> str:
    """How a goal prints: the theorem's name followed by the goal's path."""
    return theorem + path


def render_bullets(proof: Proof) -> str:
    """One tactic a line, each branch of a split as a ``-`` bullet indented under its tactic: the
    rendering of a backend whose language has no syntax of its own (also the scripted test one's)."""
    def lines(steps: tuple[ProofStep, ...], depth: int) -> list[str]:
        out = []
        for step in steps:
            out.append("  " * depth + step.tactic)
            for branch in step.branches:
                sub = lines(branch, depth + 1)
                sub[0] = "  " * depth + "- " + sub[0].lstrip()
                out.extend(sub)
        return out

    return "\n".join(lines(proof, 0))


class _Session:
    """Goal lists of one theorem, by state id; every state of the session stays usable."""

    def __init__(self, env: SyntheticEnvironment, theorem: str) -> None:
        self.env = env
        self.theorem = theorem
        self.goal_lists: dict[int, tuple[str, ...]] = {}
        self.ids: dict[tuple[str, ...], int] = {}

    def state(self, paths: tuple[str, ...]) -> TacticState:
        state_id = self.ids.setdefault(paths, len(self.ids))
        self.goal_lists[state_id] = paths
        goals = tuple(Goal((), _goal_text(self.theorem, p), has_metavariable=p.rsplit(".", 1)[-1].endswith("?"))
                      for p in paths)
        pp = "\n\n".join(g.target for g in goals)
        return TacticState(pp, state_id, goals, key=pp)

    def run_tac(self, state: TacticState, tactic: str) -> TacticResult:
        _wait(self.env.latency)
        paths = self.goal_lists[state.id]
        new = self.env.world.apply(self.theorem, paths[0], tactic)
        if new is None:
            return TacticError(f"synthetic: {tactic} fails on {state.goals[0].target}", ErrorKind.ERROR)
        rest = tuple(new) + paths[1:]
        return self.state(rest) if rest else ProofFinished()

    def focus(self, state: TacticState, goal_index: int) -> TacticState | TacticError:
        _wait(self.env.latency)
        paths = self.goal_lists[state.id]
        if not 0 <= goal_index < len(paths):
            return TacticError(f"synthetic: no goal {goal_index}", ErrorKind.REFUSED)
        return self.state((paths[goal_index],))


class SyntheticEnvironment(Environment):
    """The synthetic backend's environment; see the module docstring. Picklable, built from options.

    ``world`` is a :class:`SyntheticWorld` or its options; ``latency`` is slept per tactic or focus call.
    """

    name = "synthetic"
    language = None  # its goals are built here, not parsed

    def __init__(self, world: SyntheticWorld | Mapping[str, Any] | None = None, latency: float = 0.0,
                 faults: Mapping[str, str] | None = None, fault_once_dir: str | None = None) -> None:
        self.world = _world(world)
        self.latency = latency
        self.faults = dict(faults or {})
        for theorem, fault in self.faults.items():
            if fault not in _FAULTS:
                raise ValueError(f"synthetic fault {fault!r} for {theorem!r} is not one of {', '.join(_FAULTS)}")
        self.fault_once_dir = fault_once_dir

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
        raise EnvironmentFailure(f"synthetic prover for {name} could not be restarted")

    @contextmanager
    def open(self, theorem: Theorem) -> Iterator[tuple[_Session, TacticState]]:
        self._inject_fault(theorem.full_name)
        session = _Session(self, theorem.full_name)
        yield session, session.state(("",))

    def render(self, theorem: Theorem, proof: Proof) -> str:
        return render_bullets(proof)

    def verify(self, theorem: Theorem, proof: Proof) -> Verification:
        """Replays ``proof`` against the world, branch by branch, as a fresh prover would."""
        error = self._replay(theorem.full_name, ("",), proof)
        if error:
            return Verification(False, error, self.render(theorem, proof))
        return Verification(True, script=self.render(theorem, proof))

    def _replay(self, theorem: str, paths: tuple[str, ...], steps: tuple[ProofStep, ...]) -> str | None:
        for k, step in enumerate(steps):
            if not paths:
                return f"{step.tactic!r} after the proof was complete"
            new = self.world.apply(theorem, paths[0], step.tactic)
            if new is None:
                return f"{step.tactic!r} fails on {_goal_text(theorem, paths[0])}"
            paths = tuple(new) + paths[1:]
            if step.branches:
                if k != len(steps) - 1 or len(step.branches) != len(paths):
                    return f"{len(step.branches)} branches for {len(paths)} goals after {step.tactic!r}"
                for path, branch in zip(paths, step.branches, strict=True):
                    error = self._replay(theorem, (path,), branch)
                    if error:
                        return error
                return None
        return None if not paths else f"{len(paths)} goals remain"


class SyntheticGenerator(TacticGenerator):
    """The vocabulary scored by its prior, with the solution of some goals hinted.

    ``world`` must be the environment's (its options, or the default for both): the hints come
    from its solutions. At ``temperature > 0`` a call draws ``num_samples`` tactics with
    replacement from the tempered distribution, with a random stream fixed by ``seed``, the theorem
    and the state, and returns the distinct ones, as sampling a language model does; at ``0`` it
    returns the ``num_samples`` likeliest. Scores are log-probabilities of that distribution (at
    temperature 0, of the prior and hint). ``latency`` is slept per call.
    """

    def __init__(self, world: SyntheticWorld | Mapping[str, Any] | None = None, hint_rate: float = 0.5,
                 hint_bonus: float = 2.0, seed: int = 0, temperature: float = 1.0, latency: float = 0.0) -> None:
        if temperature < 0 or not 0 <= hint_rate <= 1:
            raise ValueError(f"synthetic generator: temperature {temperature} must be >= 0 and "
                             f"hint_rate {hint_rate} in [0, 1]")
        self.world = _world(world)
        self.hint_rate = hint_rate
        self.hint_bonus = hint_bonus
        self.seed = seed
        self.temperature: float = temperature
        self.latency = latency

    def set_seed(self, seed: int) -> None:
        self.seed = seed

    def generate(self, state: TacticState, context: Theorem, num_samples: int) -> list[Suggestion]:
        _wait(self.latency)
        name = context.full_name
        path = state.goals[0].target.removeprefix(name) if state.goals else ""
        logits = {t: math.log(p) for t, p in VOCABULARY}
        solution = self.world.solution(name, path)
        if solution is not None and self.world.rng("hint", _goal_text(name, path)).random() < self.hint_rate:
            logits[solution[0]] += self.hint_bonus
        scale = 1.0 / self.temperature if self.temperature > 0 else 1.0
        norm = math.log(sum(math.exp(z * scale) for z in logits.values()))
        scores = {t: z * scale - norm for t, z in logits.items()}
        if self.temperature == 0:
            return sorted(scores.items(), key=lambda ts: -ts[1])[:num_samples]
        rng = random.Random(_digest(self.seed, name, state.key))
        drawn = rng.choices(_TACTICS, weights=[math.exp(scores[t]) for t in _TACTICS], k=num_samples)
        return [(t, scores[t]) for t in dict.fromkeys(drawn)]
