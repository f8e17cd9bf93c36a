"""The learned policy's features and model (generator.learned_policy): shapes, determinism,
checkpoints and their errors, the held-out ranking metric on hand-made searches, and the cost
head trained on a small synthetic set. Training on larger data, and ``learn`` with Coq, are tested
in tests/integration/test_learn.py."""

from __future__ import annotations

import math
import subprocess
import sys
import warnings

import pytest
import torch

from generator.action_data import Attempt, Provenance, SearchData, StateRecord
from generator.learned_policy import (MAX_COST, REBUILD, CheckpointError, LearnedPolicy, ModelConfig, PolicyValueNet,
                                      TrainConfig, ranking_metrics, seconds_before_solving, state_features,
                                      tactic_features, tier_ranking, train)
from search_tree.protocol import Goal, Hypothesis, TacticState, Theorem

TEXT = "n : nat\nm : nat\n|- n + m = m + n"
STATE = TacticState("", 7, (Goal((Hypothesis("n", "nat"), Hypothesis("m", "nat")), "n + m = m + n"),))
CANDIDATES = [("induction n.", "automation", -0.4), ("lia.", "automation", -1.9), ("hammer.", "hammer", -3.0),
              ("rewrite Nat.add_comm.", "knn", -0.7)]


def policy(seed: int = 0) -> LearnedPolicy:
    torch.manual_seed(seed)
    return LearnedPolicy(PolicyValueNet(ModelConfig(buckets=2**12, dim=8, hidden=16)), Provenance("8.16.1", "coq-stdlib"))


def test_features_are_the_same_in_every_process():
    """Feature buckets must not depend on Python's per-process string hash salt, or a checkpoint
    would mean something else in the next process. Fails if ``hash()`` replaces the stable hash."""
    code = ("from generator.learned_policy import state_features, tactic_features;"
            f"print(state_features({TEXT!r}, 4096), tactic_features('induction n.', 'automation', '', frozenset({{'n'}}), 4096))")
    outputs = {subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                              env={"PYTHONHASHSEED": seed, "PATH": ""}).stdout for seed in ("1", "2")}
    features = f"{state_features(TEXT, 4096)} {tactic_features('induction n.', 'automation', '', frozenset({'n'}), 4096)}\n"
    assert outputs == {features}


def test_features_see_the_target_the_hypotheses_and_the_tactic_in_its_context():
    """Fails if a part of the state or of the candidate is left out of its features."""
    base = state_features(TEXT, 2**15)
    assert state_features(TEXT.replace("m + n", "n + m"), 2**15) != base  # the target
    assert state_features(TEXT.replace("m : nat", "m : Z"), 2**15) != base  # a hypothesis
    uses = tactic_features("induction n.", "automation", "eq", frozenset({"n"}), 2**15)
    assert uses != tactic_features("induction n.", "automation", "eq", frozenset(), 2**15)  # uses a hypothesis
    assert uses != tactic_features("induction n.", "knn", "eq", frozenset({"n"}), 2**15)  # the member
    assert uses != tactic_features("induction n.", "automation", "le", frozenset({"n"}), 2**15)  # the goal's head


def test_scores_are_log_probabilities_over_the_candidates_in_any_order():
    """One score per candidate, summing to probability 1, the same for a candidate wherever it is
    in the list; outcome rows are distributions; costs are non-negative and bounded. Fails if the
    scores are not renormalised or depend on the candidates' order."""
    p = policy()
    scores = p.score(STATE, CANDIDATES)
    assert len(scores) == 4 and math.isclose(sum(math.exp(s) for s in scores), 1.0, rel_tol=1e-5)
    reordered = p.score(STATE, CANDIDATES[::-1])
    assert reordered == pytest.approx(scores[::-1], abs=1e-6)
    assert p.score(STATE, []) == []
    probabilities = p.outcome_probabilities(TEXT, CANDIDATES)
    assert probabilities.shape == (4, 3) and torch.allclose(probabilities.sum(dim=1), torch.ones(4))
    assert p.score_text(TEXT, CANDIDATES) == scores  # the live state's text is the logged text
    seconds = p.seconds(TEXT, CANDIDATES)
    assert len(seconds) == 4 and all(s >= 0 for s in seconds)
    costs = p.value_function().value([STATE, STATE], Theorem("t"))
    assert len(costs) == 2 and costs[0] == costs[1] and 0 <= costs[0] <= MAX_COST


def test_a_checkpoint_round_trips_and_is_a_few_megabytes(tmp_path):
    """Saved and loaded, a policy scores as before (to float16 precision) and keeps its provenance
    and metrics; the default model is under 3 MB on disk. Fails if weights or fields are lost."""
    p = policy()
    p.metrics = {"training_examples": 12}
    p.save(tmp_path / "p.pt")
    q = LearnedPolicy.load(tmp_path / "p.pt")
    assert (q.provenance, q.metrics) == (p.provenance, p.metrics)
    assert q.score(STATE, CANDIDATES) == pytest.approx(p.score(STATE, CANDIDATES), abs=2e-2)
    assert q.score(STATE, CANDIDATES) == LearnedPolicy.load(tmp_path / "p.pt").score(STATE, CANDIDATES)
    LearnedPolicy(PolicyValueNet(ModelConfig())).save(tmp_path / "full.pt")
    assert (tmp_path / "full.pt").stat().st_size < 3 * 2**20


def _version_1(path) -> None:
    """A checkpoint as version 1 wrote it: an outcome head of three logits and no cost output."""
    net = PolicyValueNet(ModelConfig(buckets=2**12, dim=8, hidden=16))
    state = {k: v for k, v in net.state_dict().items() if not k.startswith(("outcome.", "cost."))}
    state |= {"pair.2.weight": net.outcome.weight, "pair.2.bias": net.outcome.bias}
    torch.save({"format": "dojo-prover-learned-policy", "version": 1, "config": {"buckets": 2**12, "dim": 8, "hidden": 16},
                "provenance": None, "metrics": {}, "state_dict": state}, path)


@pytest.mark.parametrize("damage, reason", [
    (lambda path: None, "does not exist"),
    (lambda path: path.write_bytes(b"not a checkpoint"), "is unreadable"),
    (lambda path: torch.save({"format": "something else"}, path), r"is unreadable \(not a learned-policy checkpoint\)"),
    (lambda path: torch.save({"format": "dojo-prover-learned-policy", "version": 99}, path), "format version 99"),
    (lambda path: _version_1(path), r"is unreadable \(format version 1, this code reads 2\)"),
])
def test_a_missing_or_damaged_checkpoint_is_one_line_naming_it_and_the_rebuild(tmp_path, damage, reason):
    """Fails if a bad checkpoint raises a bare torch/pickle error, spans lines, or does not say
    which file and how to rebuild it."""
    path = tmp_path / "policy.pt"
    damage(path)
    with pytest.raises(CheckpointError, match=reason) as info:
        LearnedPolicy.load(path)
    message = str(info.value)
    assert "\n" not in message and str(path) in message and message.endswith(f"rebuild it with {REBUILD}")


@pytest.mark.parametrize("damage", [lambda path: None, lambda path: path.write_bytes(b"\x00garbage")],
                         ids=["missing", "damaged"])
def test_the_default_runs_without_a_bad_shipped_checkpoint_and_warns_once(tmp_path, monkeypatch, damage):
    """The default Coq generator given the shipped ``policy`` missing or damaged: built on its tiers
    (no policy, no value), with exactly one warning (through :mod:`warnings`, which the command
    line prints with its prefix) that names the file and the rebuild command. Fails if it raises,
    stays silent, or warns twice."""
    from prover.coq import default_generator

    path = tmp_path / "policy.pt"
    damage(path)
    monkeypatch.setattr(default_generator, "SHIPPED_POLICY", path)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        generator = default_generator.coq_default(traces=str(tmp_path), hammer=False, policy=str(path))
    assert generator.policy is None and generator.value is None and generator.names == ["automation", "decision"]
    warned = [str(w.message) for w in caught if "learned policy" in str(w.message)]
    assert len(warned) == 1 and str(path) in warned[0] and f"rebuild it with {REBUILD}" in warned[0]


@pytest.mark.parametrize("damage", [lambda path: None, lambda path: path.write_bytes(b"\x00garbage")],
                         ids=["missing", "damaged"])
def test_a_bad_checkpoint_the_user_named_is_one_line_naming_it(tmp_path, damage):
    """``policy=PATH`` naming a missing or damaged checkpoint of the user's: a :class:`CheckpointError`
    (exit 2 on the command line) naming it and the rebuild command. Fails if the default goes on
    without it (a run would then record a policy it never loaded)."""
    from prover.coq.default_generator import coq_default

    path = tmp_path / "policy.pt"
    damage(path)
    with pytest.raises(CheckpointError) as caught:
        coq_default(learned=False, hammer=False, policy=str(path))
    message = str(caught.value)
    assert "\n" not in message and str(path) in message and message.endswith(f"rebuild it with {REBUILD}")


def _attempt(state: int, tactic: str, prior: float, seconds: float, solves: bool) -> Attempt:
    return Attempt(state, tactic, "automation", prior, "proved" if solves else "error", seconds, solves)


def test_seconds_before_solving_counts_every_tactic_run_before_the_first_solver():
    """Fails if the solver's own time (which holds the check of the proof when it finishes one) or
    a later tactic's is counted, or a state with no solver gets a number."""
    ordered = [_attempt(0, "a.", 0, 0.5, False), _attempt(0, "b.", 0, 2.0, False), _attempt(0, "c.", 0, 9.0, True),
               _attempt(0, "d.", 0, 0.1, True)]
    assert seconds_before_solving(ordered) == 2.5
    assert seconds_before_solving(ordered[::-1]) == 0.0
    assert seconds_before_solving(ordered[:2]) is None


def test_the_held_out_metric_replays_each_state_in_the_rankings_order():
    """Two states with a solver and one without (left out). In the tiers' order, state a spends
    2.0 s on a failing tactic before its solver and state b none; in the reverse order state a
    0.75 s and state b 1.5 s. Fails if a state without a solver is counted, the order is not replayed, or
    the median and mean are of anything else."""
    states = [StateRecord("|- a", True, 1), StateRecord("|- b", True, 1), StateRecord("|- c", False, None)]
    search = SearchData("t", True, states, [
        _attempt(0, "slow.", -0.1, 2.0, False), _attempt(0, "fast.", -0.5, 0.25, True),
        _attempt(0, "last.", -0.9, 0.75, False),
        _attempt(1, "one.", -0.2, 0.5, True), _attempt(1, "two.", -0.3, 1.5, False),
        _attempt(2, "none.", -0.1, 9.0, False)])
    tiers = ranking_metrics(tier_ranking, [search])
    assert tiers == {"states_with_a_solver": 2.0, "top1_solves": 0.5,
                     "seconds_before_solving_median": 1.0, "seconds_before_solving_mean": 1.0}
    reverse = ranking_metrics(lambda text, candidates: [-p for _, _, p in candidates], [search])
    assert reverse == {"states_with_a_solver": 2.0, "top1_solves": 0.0,
                       "seconds_before_solving_median": 1.125, "seconds_before_solving_mean": 1.125}


def _costly_search(i: int) -> SearchData:
    """``cheap.`` and ``dear.`` solve the same states (the ``easy`` ones, by a step to a proved
    state) and fail on the others, ``cheap.`` in 0.02 s, ``dear.`` in 2 s either way (it times out
    when it fails); ``slow.``, which the tiers rank first, always times out in 2 s."""
    easy = i % 2 == 0
    state = StateRecord(f"|- {'easy' if easy else 'hard'} {i}", easy, 2 if easy else None)
    return SearchData(f"thm{i}", easy, [state], [
        Attempt(0, "slow.", "hammer", -0.2, "timeout", 2.0, False),
        Attempt(0, "dear.", "hammer", -0.5, "state" if easy else "timeout", 2.0, easy),
        Attempt(0, "cheap.", "automation", -1.0, "state" if easy else "error", 0.02, easy)])


def test_the_cost_head_orders_a_cheap_solver_before_an_expensive_one_that_solves_as_often():
    """Trained on searches where two tactics solve exactly the same states but one takes 100 times
    as long, the policy predicts their seconds and scores the cheap one first on a new state; on the
    held-out states its order spends nothing before a solver where the tiers' spends the 2 s of
    ``slow.``. Fails if the cost head is not trained, or the score ignores it (P(solves) alone
    cannot tell the two apart)."""
    policy = train([_costly_search(i) for i in range(60)], Provenance("8.16.1", "test"),
                   TrainConfig(epochs=8, batch_size=16, seed=0), ModelConfig(buckets=2**12, dim=16, hidden=32), progress=False)
    candidates = [("dear.", "hammer", -0.5), ("cheap.", "automation", -1.0)]
    dear, cheap = policy.seconds("|- easy 1000", candidates)
    assert dear > 1.0 and cheap < 0.2
    scores = policy.score_text("|- easy 1000", candidates)
    assert scores[1] - scores[0] > math.log(5)
    held_out, tiers = policy.metrics["held_out_learned"], policy.metrics["held_out_tiers"]
    assert held_out["states_with_a_solver"] == tiers["states_with_a_solver"] > 0
    assert (held_out["top1_solves"], held_out["seconds_before_solving_mean"]) == (1.0, 0.0)
    assert (tiers["top1_solves"], tiers["seconds_before_solving_mean"]) == (0.0, 2.0)
