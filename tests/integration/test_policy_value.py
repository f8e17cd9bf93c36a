"""The policy-value model: a short real training run, HF export, reload as generator and value."""

import json
import math
from pathlib import Path

import pytest
from traced_fixtures import commutation_theorems, tactic, theorem, write

from generator.formatting import encode_inputs, encode_targets, format_input
from generator.traced import examples, load_theorems
from search_tree.protocol import TacticState, Theorem

import torch  # noqa: E402  (required: a broken install must fail, not skip)

INTRO_STATE = "  ============================\n  forall n : nat, n + 3 = 3 + n"
LIA_STATE = "  n : nat\n  ============================\n  n + 3 = 3 + n"


def test_value_bins():
    from generator.policy_value import bin_of, bin_representatives

    bins = [1, 2, 3, 4, 6, 9]
    assert [bin_of(s, bins) for s in (0, 1, 2, 4, 5, 6, 8, 9, 40)] == [0, 0, 1, 3, 3, 4, 4, 5, 5]
    assert bin_representatives(bins) == [1.0, 2.0, 3.0, 4.5, 7.0, 13.5]


def test_collator_adds_premises_to_policy_input_only(tmp_path):
    from generator.policy_value import PolicyValueModel

    path = write(tmp_path / "p.json", [theorem("t", [
        tactic("rewrite Nat.add_comm.", LIA_STATE, "no goals", ["Nat.add_comm"])])])
    model = PolicyValueModel(d_model=32, d_ff=64, num_layers=1, num_heads=2, d_kv=8, num_premises=4)
    batch = model.collator()(examples(load_theorems(path)))
    text = format_input(LIA_STATE, [examples(load_theorems(path))[0].premises[0]], 1024)
    assert text.startswith("<a>Nat.add_comm</a>")
    assert torch.equal(batch["input_ids"], encode_inputs(model.tokenizer, [text], 1024).input_ids)
    assert torch.equal(batch["value_input_ids"], encode_inputs(model.tokenizer, [LIA_STATE], 1024).input_ids)
    assert batch["value_labels"].tolist() == [0] and batch["remaining_steps"].tolist() == [1.0]


CONFIG = Path(__file__).resolve().parents[2] / "generator" / "configs" / "tiny.yaml"


@pytest.fixture(scope="module")
def trained(tmp_path_factory):
    """A tiny model trained for 60 steps through the Lightning CLI with the shipped tiny config."""
    import lightning as L
    import yaml

    from generator.policy_value import PolicyValueModel
    from generator.train import main

    torch.set_num_threads(1)
    root = tmp_path_factory.mktemp("policy")
    data = write(root / "traced.json", commutation_theorems(30))
    args = ["fit", "--config", str(CONFIG), "--data.train_path", str(data), "--run_dir", str(root / "run"),
            "--data.val_percent", "10", "--data.batch_size", "16", "--model.lr", "0.01", "--model.warmup_steps", "10",
            "--trainer.enable_progress_bar", "false", "--trainer.enable_model_summary", "false"]
    # the untrained model, as the CLI builds it (same seed, same configuration)
    config = yaml.safe_load(CONFIG.read_text())
    L.seed_everything(config["seed_everything"])
    untrained = PolicyValueModel(**config["model"]).eval()
    batch = untrained.collator()(examples(load_theorems(data)))
    with torch.no_grad():
        before = untrained._losses(batch)
    cli = main(args + ["--trainer.max_steps", "60"])
    cli.model.eval()
    with torch.no_grad():
        after = cli.model._losses(batch)
    return {"root": root, "cli": cli, "before": before, "after": after, "args": args}


def test_training_lowers_policy_and_value_loss(trained):
    assert trained["cli"].trainer.global_step == 60
    assert trained["after"]["policy_loss"] < 0.5 * trained["before"]["policy_loss"]
    assert trained["after"]["value_loss"] < trained["before"]["value_loss"]
    metrics = (trained["root"] / "run" / "csv" / "version_0" / "metrics.csv").read_text()
    assert "train_loss" in metrics and "val_value_mae" in metrics


def test_checkpoint_reloads_as_hf_generator(trained):
    from generator.registry import build_generator

    hf_dir = trained["root"] / "run" / "hf"
    gen = build_generator("hf", model=str(hf_dir))
    assert gen.max_input_len == 512 and gen.max_output_len == 96  # training-time settings
    states = [TacticState(INTRO_STATE, 0), TacticState(LIA_STATE, 1)]
    out = gen.batch_generate(states, [Theorem("t")] * 2, 4)
    assert out[0][0][0] == "intros." and out[1][0][0] == "lia."
    for suggestions in out:
        for tac, lp in suggestions:
            assert tac.isprintable() and "<pad>" not in tac and "</s>" not in tac
            assert math.isfinite(lp) and lp < 0
    # the beam score is the model's sequence log-probability of the tactic (teacher forcing)
    model, tok = gen.model, gen.tokenizer
    enc = encode_inputs(tok, [format_input(states[1])], gen.max_input_len)
    labels = encode_targets(tok, ["lia."], gen.max_output_len)
    with torch.no_grad():
        logits = model(**enc, labels=labels).logits
    logprob = logits.log_softmax(-1).gather(-1, labels.unsqueeze(-1)).sum().item()
    assert out[1][0][1] == pytest.approx(logprob, abs=1e-3)


def test_checkpoint_reloads_as_value_function(trained):
    from generator.policy_value import load_value_function

    value_fn = load_value_function(trained["root"] / "run" / "hf")
    states = [TacticState(INTRO_STATE, 0), TacticState(LIA_STATE, 1)]
    values = value_fn.value(states, Theorem("t"))  # search_tree.value.ValueFunction's signature
    assert values == pytest.approx(trained["cli"].model.value(states), abs=1e-5)
    assert all(math.isfinite(v) and v >= 1.0 for v in values)
    assert values[0] > values[1]  # two steps left before intros, one before lia
    assert value_fn.value([]) == []


def test_training_resumes_from_last_checkpoint(trained):
    from generator.train import main

    cli = main(trained["args"] + ["--trainer.max_steps", "64"])
    assert cli.trainer.global_step == 64
    assert cli.trainer.ckpt_path.endswith("last.ckpt")


def test_pass_rate_script_runs_mcts_with_the_trained_value(trained, tmp_path, capsys):
    """Plumbing: ``--value learned --checkpoint`` loads the trained value head into MCTS and the run
    proves the theorem. That a learned value *guides* the search (finds what priors alone miss) is
    ``test_mcts.py::test_learned_value_finds_the_proof_the_priors_alone_miss_in_budget``.

    Fails if the script drops the checkpoint (``--value learned`` then errors) or the run breaks.
    """
    from benchmarks.generator_pass_rate import main

    proof = [tactic("intros.", "s0", "s1"), tactic("lia.", "s1", "no goals")]
    traces = write(tmp_path / "test.json", [theorem("t0", proof)])
    train = write(tmp_path / "train.json", [dict(theorem("t_lib", proof), file_path="Lib.v")])  # not t0's own proof
    graph = {"s0": {"intros.": "s1"}, "s1": {"lia.": "proved"}}
    main(["--env", "scripted_env:ScriptedEnv", "--env-option", f"graph={json.dumps(graph)}", "--theorems", str(traces),
          "--generators", "knn", "--train-traces", str(train), "--search", "mcts", "--value", "learned",
          "--checkpoint", str(trained["root"] / "run" / "hf"), "--timeout", "20"])
    assert "| knn | 1/1 | 1.000 |" in capsys.readouterr().out


def test_eval_cli_takes_the_trained_policy_and_its_learned_value(trained, tmp_path, capsys):
    """``dojo-prover eval --search mcts`` with ``value=learned:PATH`` and ``--generator hf`` with
    ``checkpoint=PATH``: both resolved by name, recorded in config.json, the run completes."""
    from generator.hf import ValueCheckpointError, ValueHead
    from generator.policy_value import PolicyValueModel
    from prover.cli import main
    from prover.registry import ComponentSpec, ProverConfig, build_prover, check_names
    from search_tree.value import LearnedValue, make_value

    hf = trained["root"] / "run" / "hf"
    for value in (ValueHead(str(hf)), {"checkpoint": str(hf)}):  # as a producer gives it, as config.json holds it
        prover = build_prover(ComponentSpec("mcts", {"value": value}), tac_gen=None)
        assert isinstance(prover.value, PolicyValueModel)
    costs = make_value(prover.value).value([TacticState(LIA_STATE, 0)], Theorem("t"))
    assert isinstance(make_value(prover.value), LearnedValue) and math.isfinite(costs[0]) and costs[0] >= 0
    with pytest.raises(ValueCheckpointError, match="not a policy-value export"):
        check_names(ProverConfig(ComponentSpec("synthetic"), ComponentSpec("mcts", {"value": ValueHead(str(tmp_path))}),
                                 ComponentSpec("synthetic")))

    out = tmp_path / "run"
    args = ["eval", "--env", "synthetic", "--benchmark", "synthetic:30", "--limit", "2", "--search", "mcts",
            "--search-opt", f"value=learned:{hf}", "--generator", "hf", "--generator-opt", f"checkpoint={hf}",
            "--max-expansions", "2", "--num-sampled-tactics", "2", "--no-progress", "--no-logs", "--out", str(out)]
    assert main(args) == 0
    assert "pass@1 = " in capsys.readouterr().out
    components = json.loads((out / "config.json").read_text())["run"]["components"]
    assert components["prover"]["options"]["value"] == {"checkpoint": str(hf)}
    assert components["generator"]["options"]["checkpoint"] == str(hf)
    assert len((out / "results.jsonl").read_text().splitlines()) == 2
    assert main(args) == 0  # resumed: the recorded value reads back as the one given, nothing reruns
    assert len((out / "results.jsonl").read_text().splitlines()) == 2
