"""The PS-2 Lightning recipe end to end on tiny data: resume from last.ckpt, the time budget, and
training files that yield no usable pairs. Real MiniLM, real Lightning, CPU."""

import json

import pytest

import sentence_transformers  # noqa: E402,F401  required: a broken install fails, not skips

import torch  # noqa: E402

from retrieval.training import DenseRetrieverModule, HardNegativeMiner, main, train_dense  # noqa: E402
from retrieval.training_data import TrainingPair, load_pairs  # noqa: E402
from retrieval_fixtures import small_corpus, write_corpus  # noqa: E402

#: the corpus's language by import path, as ``--language`` takes it
LEAN_TARGET = "prover.lean.language:LEAN"


@pytest.fixture
def corpus(tmp_path):
    return small_corpus(tmp_path)


def tiny_pairs(corpus):
    frob = corpus.index_of("frob_add")
    return [TrainingPair(f"⊢ Foo.frob (x{i} + y) = Foo.frob x{i} + Foo.frob y", (frob,)) for i in range(4)] + [
        TrainingPair("⊢ a * b = b * a", (corpus.index_of("mul_comm'"),)),
        TrainingPair("⊢ n * 1 = n", (corpus.index_of("mul_one'"),))]


def train(corpus, out, **kw):
    return train_dense(corpus, tiny_pairs(corpus), out, batch_size=3, lr=5e-5, mine_ranks=(1, 5), mining_pool=None,
                       accelerator="cpu", progress=False, checkpoint_every=1, **kw)


def test_training_resumes_from_last_ckpt_with_its_mined_negatives(corpus, tmp_path, monkeypatch):
    """A run stopped at step 3 (after one mining epoch) and restarted with max_steps=5 trains steps
    4 and 5 only, on the negatives mined before the stop.

    Fails if last.ckpt is not written, if the second run starts from scratch (5 steps), or if
    the miner's negatives are not saved in and restored from the checkpoint."""
    out = tmp_path / "run"
    train(corpus, out, max_steps=3)
    ckpt = torch.load(out / "last.ckpt", weights_only=False)
    assert ckpt["global_step"] == 3
    (state,) = [v for k, v in ckpt["callbacks"].items() if k.startswith("HardNegativeMiner")]
    assert state["mined"]  # epoch 0 ended at step 2 and mined
    assert (out / "epoch-0").exists() and not (out / "epoch-1").exists()  # epoch 1 was cut short

    steps, seen = [], []
    original_step = DenseRetrieverModule.training_step
    monkeypatch.setattr(DenseRetrieverModule, "training_step",
                        lambda self, batch, i: (steps.append(self.global_step), original_step(self, batch, i))[1])
    original_start = HardNegativeMiner.on_train_start
    monkeypatch.setattr(HardNegativeMiner, "on_train_start",
                        lambda self, trainer, module: (original_start(self, trainer, module),
                                                       seen.append(dict(trainer.datamodule.train_set.hard_negatives))))
    final = train(corpus, out, max_steps=5)
    assert steps == [3, 4]
    assert seen == [state["mined"]]
    assert torch.load(out / "last.ckpt", weights_only=False)["global_step"] == 5
    assert (final / "modules.json").exists()


def test_time_budget_stops_training_and_leaves_a_resumable_checkpoint(corpus, tmp_path, monkeypatch):
    """With max_time one second and no step limit, training stops on time and writes last.ckpt
    and the final model, without mining negatives that nothing would train on. Fails if max_time
    is not passed to the Trainer (it would run 10,000 steps), or if the stop mines (on the Coq
    stdlib that is a quarter of an hour spent after the budget ran out)."""
    import retrieval.training as training

    mined_at = []
    original = training.mine_hard_negatives
    monkeypatch.setattr(training, "mine_hard_negatives",
                        lambda module, *a, **kw: (mined_at.append(module.global_step), original(module, *a, **kw))[1])
    out = tmp_path / "run"
    final = train(corpus, out, max_steps=10_000, max_time="00:00:00:01")
    ckpt = torch.load(out / "last.ckpt", weights_only=False)
    assert 0 < ckpt["global_step"] < 10_000
    assert all(step < ckpt["global_step"] for step in mined_at)
    assert (final / "modules.json").exists()
    mined_at.clear()  # the other ends of a run: its last epoch, its last step
    train(corpus, tmp_path / "epochs", max_steps=-1, max_epochs=1)
    train(corpus, tmp_path / "steps", max_steps=2)
    assert mined_at == []



def test_command_line_max_time_is_one_budget_across_resumes(tmp_path, monkeypatch):
    """``--max-time`` through the command line, with every training step made to take half a second:
    the first run stops on the budget, not on its 12 steps (6 s), and keeps the time spent in last.ckpt; the
    same command run again finds the budget spent and trains no further step. Fails if the command
    does not pass the budget on (12 steps), or if a resume starts the clock afresh (more steps)."""
    import time

    steps = []
    original_step = DenseRetrieverModule.training_step
    monkeypatch.setattr(DenseRetrieverModule, "training_step",
                        lambda self, batch, i: (steps.append(self.global_step), time.sleep(0.5),
                                                original_step(self, batch, i))[2])
    proofs = write_jsonl(tmp_path / "proofs.jsonl", [
        {"full_name": f"Foo.x{i}", "statement": f"⊢ Foo.frob (x{i} + y) = Foo.frob x{i} + Foo.frob y", "proof": "frob"}
        for i in range(6)])
    out = tmp_path / "run"
    argv = ["--corpus", str(write_corpus(tmp_path)), "--proofs", str(proofs), "--language", LEAN_TARGET,
            "--out", str(out), "--max-steps", "12",
            "--max-time", "00:00:00:02", "--checkpoint-every", "1", "--batch-size", "3", "--mining-pool", "0",
            "--accelerator", "cpu"]
    assert main(argv) == 0
    ckpt = torch.load(out / "last.ckpt", weights_only=False)
    assert 0 < ckpt["global_step"] == len(steps) < 12
    assert ckpt["callbacks"]["Timer"]["time_elapsed"]["train"] >= 2
    steps.clear()
    assert main(argv) == 0
    assert steps == [] and torch.load(out / "last.ckpt", weights_only=False)["global_step"] == ckpt["global_step"]

def write_jsonl(path, records):
    path.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    return path


def test_training_files_without_usable_pairs_are_errors_naming_file_and_reason(corpus, tmp_path):
    """Fails if a file that yields no pairs is accepted silently or the message omits the cause."""
    traced = tmp_path / "train.json"
    traced.write_text(json.dumps([{"full_name": "t1", "traced_tactics": [
        {"state_before": "⊢ x", "annotated_tactic": ["", [{"full_name": "Std.missing"}]]}]}]))
    with pytest.raises(ValueError, match=rf"{traced}: no training pairs: none of the 1 premise names used by its "
                                         r"1 non-excluded theorems resolves in the corpus"):
        load_pairs(traced, corpus)
    with pytest.raises(ValueError, match=rf"{traced}: no training pairs: all 1 theorems are excluded"):
        load_pairs(traced, corpus, exclude={"t1"})
    proofs = write_jsonl(tmp_path / "proofs.jsonl", [{"full_name": "a", "statement": "s", "proof": ":= 1 + 2"}])
    with pytest.raises(ValueError, match=rf"{proofs}: no training pairs: no tactic or proof of its 1 non-excluded "
                                         r"theorems names a premise"):
        load_pairs(proofs, corpus)
    empty = tmp_path / "empty.jsonl"
    empty.write_text("")
    with pytest.raises(ValueError, match=rf"{empty}: no training pairs: the file holds no records"):
        load_pairs(empty, corpus)
    good = write_jsonl(tmp_path / "good.jsonl", [{"full_name": "Foo.x", "statement": "s", "proof": "frob"}])
    assert load_pairs(good, corpus) == [TrainingPair("s", (corpus.index_of("Foo.frob"),), "Foo.x")]


def test_command_line_refuses_to_train_on_nothing(tmp_path, capsys):
    """Fails if the CLI starts a run with neither --traced nor --proofs."""
    with pytest.raises(SystemExit):
        main(["--corpus", str(write_corpus(tmp_path)), "--out", str(tmp_path / "run")])
    assert "no training data: give --traced and/or --proofs files" in capsys.readouterr().err


def test_command_line_names_a_bad_training_file_and_exits_2(tmp_path, capsys):
    """Fails if a malformed proofs.jsonl or a missing corpus ends in a traceback, not a usage error."""
    corpus = str(write_corpus(tmp_path))
    bad = write_jsonl(tmp_path / "bad.jsonl", [{"full_name": "Foo.x", "statement": 5, "proof": "frob"}])
    for argv in (["--corpus", corpus, "--proofs", str(bad), "--language", LEAN_TARGET],
                 ["--corpus", str(tmp_path / "nosuch.jsonl"), "--proofs", str(bad)],
                 ["--corpus", corpus, "--proofs", str(bad)],
                 ["--corpus", corpus, "--proofs", str(bad), "--language", "prover.lean.language:NOSUCH"],
                 ["--corpus", corpus, "--proofs", str(bad), "--language", "prover.lean.language:Language"]):
        with pytest.raises(SystemExit) as exit_:
            main([*argv, "--out", str(tmp_path / "run")])
        assert exit_.value.code == 2
    err = capsys.readouterr().err
    assert f"{bad}: line 1: 'statement' must be a string" in err and "nosuch.jsonl" in err
    assert f"corpus {corpus} was loaded without its language" in err  # the names in proofs are read with it
    assert "--language prover.lean.language:NOSUCH: " in err
    assert "--language prover.lean.language:Language: not a search_tree.language.Language but a type" in err
    assert not (tmp_path / "run").exists()


def test_a_fresh_run_trains_on_bm25_hard_negatives_over_the_whole_corpus(corpus, tmp_path, monkeypatch):
    """Before the first mining round each query's negatives are BM25's premises at the mining
    ranks, positives removed. Fails if a fresh run starts on random negatives (an hour of CPU
    covers a fraction of an epoch, so it would never see a hard one) or keeps a positive."""
    from retrieval.bm25 import BM25Retriever
    from retrieval.training import bm25_negatives

    pairs = tiny_pairs(corpus)
    mined = bm25_negatives(corpus, pairs, (0, 4))
    assert set(mined) == set(range(len(pairs)))
    for i, pair in enumerate(pairs):
        ranked = [corpus.index_of(p.full_name) for p, _ in BM25Retriever(corpus).retrieve(pair.query, None, 4)]
        assert mined[i] == [j for j in ranked if j not in pair.positives] and len(mined[i]) >= 2
    seen = []
    original_start = HardNegativeMiner.on_train_start
    monkeypatch.setattr(HardNegativeMiner, "on_train_start",
                        lambda self, trainer, module: (original_start(self, trainer, module),
                                                       seen.append(dict(trainer.datamodule.train_set.hard_negatives))))
    train_dense(corpus, pairs, tmp_path / "run", batch_size=3, mine_ranks=(0, 4), mining_pool=None,
                accelerator="cpu", progress=False, max_steps=1)
    assert seen == [mined]
