"""Expert iteration for real: training the learned policy and value (Lightning) on search data,
``dojo-prover learn`` for one round on easy stdlib theorems with Coq (the default prover given a
missing or damaged checkpoint: tests/unit/test_learned_policy.py)."""

from __future__ import annotations

import json

import pytest

from generator.action_data import Attempt, Provenance, SearchData, StateRecord, read_data
from generator.learned_policy import LearnedPolicy, TrainConfig, train
from prover.cli import main
from search_tree.protocol import Goal, TacticState

EASY = ["plus_O_n", "plus_n_O", "mult_n_O"]  # Init/Peano.v: closed by the baseline in a second


def _search(i: int) -> SearchData:
    """A search where ``good.`` solves and ``bad.`` fails although the tiers rank ``bad.`` first,
    on an easy state (proved) and a hard one (not)."""
    easy, hard = StateRecord(f"x : nat\n|- easy_{i} x", True, 1), StateRecord(f"|- hard_{i}", False, None)
    attempts = [Attempt(0, "bad.", "hammer", -0.5, "timeout", 5.0, False),
                Attempt(0, "meh.", "knn", -1.0, "state", 0.1, False),
                Attempt(0, "good.", "automation", -2.0, "proved", 0.01, True),
                Attempt(1, "bad.", "hammer", -0.5, "error", 0.01, False)]
    return SearchData(f"thm{i}", True, [easy, hard], attempts)


def test_training_learns_what_the_tiers_get_wrong():
    """Trained on searches where the tier scores rank a failing tactic first, the policy ranks the
    solving one first on held-out theorems and on a new state, and the value tells the provable
    kind of state from the other. Fails if the outcome targets or the value targets are not
    learned (an untrained or inverted model ranks by the tiers or at random)."""
    policy = train([_search(i) for i in range(60)], Provenance("8.16.1", "test"), TrainConfig(epochs=30), progress=False)
    assert policy.metrics["held_out_theorems"] > 0 and policy.metrics["training_examples"] > 100
    assert policy.metrics["held_out_learned"]["top1_solves"] == 1.0
    assert policy.metrics["held_out_tiers"]["top1_solves"] == 0.0
    state = TacticState("", 1, (Goal((), "easy_999 y"),))
    scores = dict(zip(["bad.", "good."], policy.score(state, [("bad.", "hammer", -0.5), ("good.", "automation", -2.0)])))
    assert scores["good."] > scores["bad."]
    easy, hard = policy.proved_probabilities(["x : nat\n|- easy_999 x", "|- hard_999"])
    assert easy > 0.5 > hard


@pytest.mark.coq
def test_learn_runs_a_round_for_real_and_resumes(tmp_path, capsys):
    """One round on 3 easy stdlib theorems: the searches, their data (with this Coq's version),
    a checkpoint, the validation and test searches before and after, the table. Run again, nothing
    is redone; with another test sample, only that sample is searched, anew; with other settings,
    the directory is refused in one line. Fails if a step is skipped, its output is lost, a resumed
    run searches again, or another test sample is read from the first one's results."""
    from prover.coq.install import coq_version

    listing = tmp_path / "easy.jsonl"
    listing.write_text("".join(json.dumps({"project": "coq-stdlib", "file": "Init/Peano.v", "name": n}) + "\n"
                               for n in EASY))
    out = tmp_path / "run"
    args = ["learn", "--out", str(out), "--benchmark", str(listing), "--theorems", "3", "--val-benchmark",
            str(listing), "--val", "1", "--test-benchmark", str(listing), "--test", "1", "--timeout", "10",
            "--epochs", "1"]
    assert main(args) == 0
    table = capsys.readouterr().out
    assert table.startswith("Learn run ")  # progress (Lightning's bar too) goes to stderr, not into the table
    assert "| 0 | `none` | 3/3 (100%) | 1/1 (100%) | 1/1 (100%) | - | - |" in table
    assert f"| 1 | `{out}/round-1/policy.pt` | - | 1/1 (100%) | 1/1 (100%) |" in table
    cpu, wall = (float(cell) for cell in next(line for line in table.splitlines() if line.startswith("| 0 |")).split("|")[-3:-1])
    assert 0 < cpu and 0 < wall  # the searches' own CPU time, coqtop's included, and how long they ran
    assert all("cpu_seconds" in json.loads(line)["result"]["stats"]
               for p in out.rglob("results.jsonl") for line in p.read_text().splitlines())
    provenance, searches = read_data(out / "round-0" / "data.jsonl")
    assert provenance == Provenance(coq_version(), str(listing).rpartition(":")[0] or str(listing))
    assert sorted(s.theorem.rpartition("::")[2] for s in searches) == sorted(EASY)
    assert all(s.proved and s.states[0].proved for s in searches)
    assert {a.member for s in searches for a in s.attempts} <= {"automation", "decision", "knn", "proofs", "hammer"}
    policy = LearnedPolicy.load(out / "round-1" / "policy.pt")
    assert policy.provenance == provenance and policy.metrics["training_examples"] > 0
    lines = {p: p.read_text() for p in out.rglob("results.jsonl")}
    assert len(lines) == 5  # round-0/search, round-0/val, round-0/test-..., round-1/val, round-1/test-...

    assert main(args) == 0
    assert {p: p.read_text() for p in out.rglob("results.jsonl")} == lines
    assert main([*args, "--test", "2"]) == 0  # the last --test counts
    assert "| 0 | `none` | 3/3 (100%) | 1/1 (100%) | 2/2 (100%) | - | - |" in capsys.readouterr().out
    assert {p: p.read_text() for p in out.rglob("results.jsonl") if p in lines} == lines
    assert main([*args[:-2], "--epochs", "2"]) == 2
    assert "holds a learn run with other settings" in capsys.readouterr().err


@pytest.mark.coq
def test_added_runs_are_learned_from_unless_of_another_coq_library_or_environment(tmp_path):
    """``--add-run``: a Coq run of the user's project (or of the learn run's library) recorded on
    this Coq is read; a run of another environment, one that records no Coq version, one of another
    Coq or installed library, or one whose record names another library than its benchmark, is
    refused in one line naming it. Fails if foreign data is mixed in or a good run is refused."""
    from prover.benchmarks.registry import load_benchmark
    from prover.commands.learn import Learner, LearnSettings
    from prover.coq.install import coq_version
    from prover.registry import ComponentSpec, ProverConfig
    from prover.run.evaluation import EvalConfig, run_evaluation
    from search_tree.errors import UserError

    synthetic = tmp_path / "synthetic"
    config = EvalConfig(ProverConfig(ComponentSpec("synthetic"), ComponentSpec("best_first", {"max_expansions": 4}),
                                     ComponentSpec("synthetic")), "synthetic:30", limit=2)
    run_evaluation(config, load_benchmark("synthetic:30", 2), synthetic, progress=False)
    assert not (synthetic / "provenance.json").exists()  # the synthetic backend names no prover version
    settings = LearnSettings("coq-stdlib:train", 1, "coq-stdlib:val", 0, 1.0, 1, 0)
    with pytest.raises(UserError, match=r"synthetic: a run of the 'synthetic' environment, not coq"):
        Learner(tmp_path / "a", settings, 1, [synthetic])._data(0)

    config_json = json.loads((synthetic / "config.json").read_text())  # the same logs, as a Coq project's run
    config_json["run"]["components"]["env"]["name"] = "coq"
    config_json["run"]["benchmark"] = "coq-project:/p:train"
    (synthetic / "config.json").write_text(json.dumps(config_json))
    with pytest.raises(UserError, match=r"synthetic: the run records no prover version \(no provenance.json"):
        Learner(tmp_path / "b", settings, 1, [synthetic])
    (synthetic / "provenance.json").write_text(json.dumps({"coq_version": coq_version(), "library": "coq-project:/p"}))
    searches = Learner(tmp_path / "b", settings, 1, [synthetic])._data(0)
    assert len(searches) == 2 and all(s.attempts for s in searches)
    (synthetic / "provenance.json").write_text(json.dumps({"coq_version": "8.18.0", "library": "coq-project:/p"}))
    with pytest.raises(UserError, match=r"search data of Coq 8\.18\.0, library coq-project:/p, not Coq "
                                        + coq_version().replace(".", r"\.")):
        Learner(tmp_path / "c", settings, 1, [synthetic])._data(0)
    (synthetic / "provenance.json").write_text(json.dumps({"coq_version": coq_version(), "library": "coq-stdlib"}))
    with pytest.raises(UserError, match=r"provenance.json says library coq-stdlib, but the run's benchmark is "
                                        r"coq-project:/p:train"):
        Learner(tmp_path / "c", settings, 1, [synthetic])
    config_json["run"]["benchmark"] = "coq-lib:mathcomp:train"  # another installed library than the learn run's
    (synthetic / "config.json").write_text(json.dumps(config_json))
    (synthetic / "provenance.json").write_text(json.dumps({"coq_version": coq_version(), "library": "coq-lib:mathcomp"}))
    with pytest.raises(UserError, match=r"library coq-lib:mathcomp, not Coq .*, library coq-stdlib; refusing"):
        Learner(tmp_path / "c", settings, 1, [synthetic])
    (synthetic / "provenance.json").write_text("not json")  # refused when the learner is made, before any search
    with pytest.raises(UserError, match=r"provenance.json is not valid JSON"):
        Learner(tmp_path / "d", settings, 1, [synthetic])
    (tmp_path / "e").mkdir()
    (tmp_path / "e" / "learn.json").write_text("[]")
    with pytest.raises(UserError, match=r"learn.json is not a learn run's learn.json \(a JSON list\)"):
        Learner(tmp_path / "e", settings, 1, [])
