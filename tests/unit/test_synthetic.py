"""The one synthetic backend: linear and AND-OR worlds, seeded sampling, greedy hints, named bad options.

Faults are tested through the runner (tests/test_distributed.py), split proofs and their replay
through MCTS (tests/test_mcts.py); these tests pin what neither of those would notice.
"""

import re

import pytest

from prover.proof_search import BestFirstSearchProver
from prover.synthetic import VOCABULARY, SyntheticEnvironment, SyntheticGenerator, SyntheticWorld, synthetic_theorems
from search_tree import ProofStep, Status, TacticState, Theorem


def test_linear_world_never_leaves_two_goals_and_its_proofs_replay():
    """Fails if ``p_split`` were ignored (a world that always splits would leave two goals)."""
    world = SyntheticWorld(p_split=0.0)
    env = SyntheticEnvironment(world)
    prover = BestFirstSearchProver(SyntheticGenerator(world, temperature=0.0), timeout=30, max_expansions=40)
    results = [prover.search(env, t) for t in synthetic_theorems(12)]
    proved = [r for r in results if r.status == Status.PROVED]
    assert proved and all(not step.branches for r in proved for step in r.proof)
    assert all(env.verify(r.theorem, r.proof).ok for r in proved)
    for name in (t.full_name for t in synthetic_theorems(40)):
        paths = [""]
        while paths:
            solution = world.solution(name, paths.pop())
            assert solution is not None and len(solution[1]) <= 1
            paths.extend(solution[1])


def test_a_proof_is_checked_against_its_own_theorem():
    """Fails if ``verify`` accepted any proof that closes some theorem (no replay per theorem)."""
    env = SyntheticEnvironment(SyntheticWorld(p_split=0.0))
    [first, second] = [t for t in synthetic_theorems(40)
                       if len(_linear_solution(env.world, t.full_name)) >= 2][:2]
    proof = tuple(ProofStep(t) for t in _linear_solution(env.world, first.full_name))
    assert env.verify(first, proof).ok and env.render(first, proof) == "\n".join(s.tactic for s in proof)
    verdict = env.verify(second, proof)
    assert not verdict.ok and re.fullmatch(rf"'.*' fails on {second.full_name}.*|\d+ goals remain", verdict.message)


def _linear_solution(world: SyntheticWorld, name: str) -> list[str]:
    tactics, path = [], ""
    while path is not None:
        tactic, rest = world.solution(name, path)
        tactics.append(tactic)
        path = rest[0] if rest else None
    return tactics


def test_sampling_depends_on_the_seed_and_temperature_zero_is_greedy_with_hints():
    """Fails if the seed were not part of the sampling stream (pass@k would not grow with k) or if
    a hinted goal's solution were not raised above the prior's favourite."""
    env = SyntheticEnvironment()
    theorem = Theorem("synthetic_0001")
    with env.open(theorem) as (_, state):
        samples = {tuple(t for t, _ in SyntheticGenerator(seed=s).generate(state, theorem, 6)) for s in range(6)}
        assert len(samples) > 1
        greedy = SyntheticGenerator(temperature=0.0, hint_rate=0.0).generate(state, theorem, 3)
        assert [t for t, _ in greedy] == [t for t, _ in sorted(VOCABULARY, key=lambda tp: -tp[1])[:3]]
        hinted = SyntheticGenerator(temperature=0.0, hint_rate=1.0, hint_bonus=10.0).generate(state, theorem, 1)
        assert hinted[0][0] == env.world.solution(theorem.full_name, "")[0]


def test_focus_shows_one_goal_keyed_by_that_goal_alone():
    """Fails if a focused state kept the other goals or its key depended on the state it came from."""
    world = SyntheticWorld(p_split=1.0, p_close=0.0, p_evar=0.0)
    env = SyntheticEnvironment(world)
    theorem = Theorem("synthetic_0003")
    tactic, paths = world.solution(theorem.full_name, "")
    with env.open(theorem) as (session, init):
        split = session.run_tac(init, tactic)
        assert isinstance(split, TacticState) and split.num_goals == len(paths) >= 2
        for i in (0, 1):
            focused = session.focus(split, i)
            assert focused.goals == (split.goals[i],) and focused.key == split.goals[i].target
        assert session.focus(split, len(paths)).kind.value == "refused"


def test_bad_options_are_named():
    """Fails if an unknown fault were accepted until the theorem is opened, or a world whose
    probabilities exceed 1 were built."""
    with pytest.raises(ValueError, match="synthetic fault 'boom' for 'synthetic_0000' is not one of exit, fatal"):
        SyntheticEnvironment(faults={"synthetic_0000": "boom"})
    with pytest.raises(ValueError, match=r"p_close \+ p_split = 1.2 is not a probability"):
        SyntheticWorld(p_close=0.9, p_split=0.3)
    with pytest.raises(ValueError, match="temperature -1 must be >= 0"):
        SyntheticGenerator(temperature=-1)
