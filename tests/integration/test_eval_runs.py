"""Evaluation runs: resume after SIGKILL or a torn line, config guard, pass@k, statistics, report, CLI."""

import json
import os
import shutil
import signal
import subprocess
import sys
import time
import warnings
from pathlib import Path

import pytest

from prover.benchmarks.datasets import default_data_dir
from prover.benchmarks.registry import UnknownBenchmark, load_benchmark
from search_tree.registry import UnknownName
from prover.run.analysis import (
    Run,
    benchmark_pass_at_k,
    is_compound,
    load_run,
    pass_at_k,
    search_statistics,
    tactic_identifiers,
)
from prover.cli import main
from prover.run.distributed import RecordingRetriever
from prover.run.evaluation import (
    ConfigMismatch,
    EvalConfig,
    ResultsFile,
    RunDirBusy,
    exclusive,
    run_evaluation,
)
from prover.registry import ComponentSpec, ProverConfig, RegistryError, check_names
from prover.views.report import write_report
from search_tree import StopKind, StopReason
from search_tree.events import Ended, Started, TacticRun

ROOT = Path(__file__).resolve().parents[2]


def components(latency=0.0, timeout=60):
    return ProverConfig(ComponentSpec("synthetic", {"latency": latency}),
                        ComponentSpec("best_first", {"timeout": timeout, "max_expansions": 12}),
                        ComponentSpec("synthetic"))


def evaluate(out, attempts=2, limit=8, **kw):
    config = EvalConfig(components(**kw), "synthetic:30", limit=limit, attempts=attempts)
    return run_evaluation(config, load_benchmark("synthetic:30", limit), out, progress=False)


def summary(out):
    """(key, attempt) -> (status, proof) for a run directory, failing on a duplicate line."""
    records = ResultsFile(Path(out) / "results.jsonl").load()
    idents = [(r["key"], r["attempt"]) for r in records]
    assert len(idents) == len(set(idents)), "duplicate result lines"
    return {(r["key"], r["attempt"]): (r["status"], r["result"]["proof"]) for r in records}


@pytest.fixture(scope="module")
def reference(tmp_path_factory):
    out = tmp_path_factory.mktemp("reference")
    evaluate(out)
    return out


# -- pass@k -------------------------------------------------------------------------------------

def test_pass_at_k_matches_hand_computed_values():
    assert pass_at_k(5, 2, 1) == pytest.approx(2 / 5)
    assert pass_at_k(5, 2, 2) == pytest.approx(1 - 3 / 10)  # 1 - C(3,2)/C(5,2)
    assert pass_at_k(10, 3, 5) == pytest.approx(1 - 21 / 252)  # 1 - C(7,5)/C(10,5)
    assert pass_at_k(4, 0, 4) == 0.0 and pass_at_k(4, 1, 4) == 1.0 and pass_at_k(3, 3, 1) == 1.0
    assert pass_at_k(200, 1, 100) == pytest.approx(0.5)
    with pytest.raises(ValueError, match="at least 3 attempts"):
        pass_at_k(2, 1, 3)


def test_benchmark_pass_at_k_averages_over_theorems_with_enough_attempts(tmp_path):
    def rec(key, attempt, status):
        return {"key": key, "attempt": attempt, "status": status}

    records = [rec("a", 0, "proved"), rec("a", 1, "open"), rec("a", 2, "failed"), rec("a", 3, "proved"),
               rec("b", 0, "open"), rec("b", 1, "open"), rec("b", 2, "open"), rec("b", 3, "proved"),
               rec("c", 0, "proved")]
    run = Run(tmp_path, {"run": {"attempts": 4}, "theorems": ["a", "b", "c"]}, records)
    assert benchmark_pass_at_k(run, 1) == (pytest.approx((2 / 4 + 1 / 4 + 1) / 3), 3)
    # pass@2: a = 1 - C(2,2)/C(4,2) = 5/6, b = 1 - C(3,2)/C(4,2) = 1/2; c has one attempt only
    assert benchmark_pass_at_k(run, 2) == (pytest.approx((5 / 6 + 1 / 2) / 2), 2)


# -- resume ---------------------------------------------------------------------------------------

def test_killed_run_resumes_without_loss_or_duplicate(tmp_path, reference):
    out = tmp_path / "run"
    cmd = [sys.executable, "-m", "prover.cli", "eval", "--env", "synthetic", "--env-opt", "latency=0.01",
           "--benchmark", "synthetic:30", "--limit", "8", "--generator", "synthetic", "--timeout", "60",
           "--max-expansions", "12", "--attempts", "2", "--workers", "1", "--no-progress", "--out", str(out)]
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    proc = subprocess.Popen(cmd, env=env, start_new_session=True, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    results = out / "results.jsonl"
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline and (not results.exists() or results.read_bytes().count(b"\n") < 4):
        time.sleep(0.02)
    os.killpg(proc.pid, signal.SIGKILL)
    proc.wait()
    assert proc.returncode == -signal.SIGKILL
    before = len(ResultsFile(results).load())
    assert 4 <= before < 16, "the kill should land mid-run"
    # the options differ from `reference` only in latency, which changes no outcome: compare outcomes
    progress = evaluate(out, latency=0.01)
    assert progress.done_before == before and progress.finished_now == 16 - before
    assert summary(out) == summary(reference)


def test_torn_last_line_is_dropped_with_a_warning_and_rerun(tmp_path, reference):
    out = tmp_path / "run"
    evaluate(out)
    results = out / "results.jsonl"
    data = results.read_bytes()
    results.write_bytes(data[: len(data) - 25])  # cut the last line mid-way, as a kill during write would
    with pytest.warns(UserWarning, match="truncated last line"):
        progress = evaluate(out)
    assert progress.finished_now == 1
    assert summary(out) == summary(reference)


def test_resume_refuses_a_different_config_but_accepts_more_workers(tmp_path):
    out = tmp_path / "run"
    evaluate(out, attempts=1, limit=2)
    with pytest.raises(ConfigMismatch, match=r"prover.options.timeout: saved 60, now 5"):
        evaluate(out, attempts=1, limit=2, timeout=5)
    config = EvalConfig(components(), "synthetic:30", limit=2, attempts=1, workers=2)
    assert run_evaluation(config, load_benchmark("synthetic:30", 2), out, progress=False).finished_now == 0


def test_a_second_live_writer_is_refused(tmp_path):
    with exclusive(tmp_path):
        with pytest.raises(RunDirBusy, match="another running evaluation"):
            evaluate(tmp_path, attempts=1, limit=1)
    assert evaluate(tmp_path, attempts=1, limit=1).finished_now == 1  # released with its holder


# -- statistics and report ------------------------------------------------------------------------

def test_action_statistics_heuristics():
    assert tactic_identifiers("constructor <;> simp") == ["constructor", "simp"]
    assert tactic_identifiers("try (apply H; auto).") == ["try", "apply", "auto"]
    assert tactic_identifiers("rw [Nat.add_comm a b]") == ["rw"]
    assert is_compound("intros; auto.") and is_compound("exact fun x => by simp")
    assert not is_compound("rewrite (Nat.add_comm a b).")


def test_premises_used_are_retrieved_names_that_occur_in_the_proof():
    class Toy:
        def retrieve(self, state, context, k):
            return [("Nat.add_comm", 1.0), ("mul_comm", 0.5), ("Nat.succ_le", 0.1)][:k]

    recorder = RecordingRetriever(Toy())
    recorder.retrieve("goal", None, 3)
    recorder.retrieve("goal", None, 1)
    assert recorder.take_stats("rw [Nat.add_comm]\nsimp [mul_comm, Nat.succ_le_of_lt]") == \
        {"retrieved": 4, "distinct": 3, "used": 2}
    assert recorder.take_stats("") == {"retrieved": 0, "distinct": 0, "used": 0}


def test_report_from_a_real_run(reference):
    path = write_report(reference)
    text = path.read_text()
    run = load_run(reference)
    stats = search_statistics(run)
    assert f"| 1 | {benchmark_pass_at_k(run, 1)[0]:.3f} | 8 |" in text
    assert "| 2 |" in text and "mean search-tree nodes" in text
    assert stats["searches"] == 16 and 0 < stats["proved"] <= 16
    assert stats["median_env_latency_ms"] is not None and stats["mean_proof_steps"] >= 1
    for name in ("pass_vs_time", "pass_vs_env_calls", "proof_length"):
        assert (reference / "plots" / f"{name}.png").read_bytes()[:4] == b"\x89PNG"
    longest = max((r for r in run.records if r["status"] == "proved"), key=lambda r: len(r["result"]["proof"]))
    page = (reference / "trees" / f"{Path(longest['log']).stem}.html").read_text()
    assert "<details" in page and page.count("class='step proof'") == len(longest["result"]["proof"])
    assert "## Searches to open" in text and len(list((reference / "trees").glob("*.html"))) == 3


def test_report_of_a_run_written_before_events_were_classes(tmp_path):
    """The run directories of ``tests/fixtures/legacy_runs`` (a synthetic evaluation by the code of
    that time, with one environment failure retried) still give a report with their trees, their
    retries and their failed searches. Fails if a stored event or stop reason no longer reads."""
    shutil.copytree(ROOT / "tests" / "fixtures" / "legacy_runs", tmp_path / "runs")
    for name in ("best_first", "mcts"):
        with warnings.catch_warnings():
            warnings.simplefilter("error")  # a log line left out would warn
            text = write_report(tmp_path / "runs" / name).read_text()
        assert "attempts retried 1 (environment_failure 1) after worker, node or environment failures" in text
        assert len(list((tmp_path / "runs" / name / "trees").glob("*.html"))) == 3
        failures = text.split("## Failures of workers or environments")[1:]
        assert [line.split(" | ")[0] for line in "".join(failures).splitlines() if line.startswith("| synthetic")] == (
            ["| synthetic_0004"] if name == "mcts" else [])


def test_action_logs_hold_every_tactic_of_the_search(reference):
    run = load_run(reference)
    for record in run.records:
        events = run.events(record)
        assert isinstance(events[0], Started) and isinstance(events[-1], Ended)
        assert events[-1].stop_reason == StopReason.parse(record["result"]["stop_reason"])
        tactics = [e for e in events if isinstance(e, TacticRun)]
        assert len(tactics) == record["result"]["num_env_calls"]


# -- benchmarks, registries, CLI --------------------------------------------------------------------

@pytest.mark.shared_data(default_data_dir() / "lean-benchmarks")
def test_benchmarks_by_name_with_stable_subsets():
    valid = load_benchmark("minif2f:valid")
    assert len(valid) == 244 and valid[0].statement.startswith("theorem")
    small, larger = load_benchmark("minif2f:valid", 10), load_benchmark("minif2f:valid", 20)
    assert len(small) == 10 and small == [t for t in larger if t in small] == load_benchmark("minif2f:valid", 10)
    assert len(load_benchmark("proofnet:test")) == 186
    leandojo = load_benchmark("leandojo-sample:val", 5)
    assert all(t.file_path.endswith(".lean") and t.position for t in leandojo)
    with pytest.raises(UnknownBenchmark, match="no theorem in split 'train'"):
        load_benchmark("minif2f:train")
    with pytest.raises(UnknownName, match="unknown benchmark family 'nope'; known: .*coq-stdlib"):
        load_benchmark("nope:x")


def test_unknown_components_are_named():
    bad = ProverConfig(ComponentSpec("synthetic"), ComponentSpec("best_first"), ComponentSpec("synthetic"),
                       ComponentSpec("nosuch"))
    with pytest.raises(RegistryError, match="unknown retriever 'nosuch'"):
        check_names(bad)
    with pytest.raises(RegistryError, match="unknown environment 'lean3'"):
        check_names(ProverConfig(ComponentSpec("lean3"), bad.prover, bad.generator))


def test_ablate_cli_runs_each_retriever_and_names_unknown_ones(tmp_path, capsys):
    common = ["--env", "synthetic", "--benchmark", "synthetic:30", "--limit", "3", "--generator", "synthetic",
              "--max-expansions", "5", "--no-progress", "--out", str(tmp_path / "abl")]
    assert main(["ablate", "--retrievers", "none,nosuch", *common]) == 2
    assert "unknown retriever 'nosuch'" in capsys.readouterr().err
    assert not (tmp_path / "abl" / "none").exists()  # nothing ran
    assert main(["ablate", "--retrievers", "none", *common]) == 0
    table = (tmp_path / "abl" / "ablation.md").read_text()
    assert table.splitlines()[0].startswith("| retriever | pass@1 |") and "| none |" in table
    assert main(["ablate", "--retrievers", "none,bm25", "--retriever-opt", "ps2.model=x", *common]) == 2
    assert "--retriever-opt ps2.*: no such retriever in --retrievers none,bm25" in capsys.readouterr().err


def test_ablate_retriever_options_are_shared_or_scoped_to_one_retriever():
    """``KEY=V`` goes to every retriever, ``NAME.KEY=V`` to NAME only (a trained model's path must
    not reach BM25), and never to ``none``."""
    from prover.commands.ablate import scoped_options

    options = {"corpus": "c.jsonl", "ps2.model": "run/final", "knn.traces": ["train.json"], "knn.online": False}
    assert scoped_options(options, ["none", "bm25", "ps2", "knn"]) == {
        "none": {}, "bm25": {"corpus": "c.jsonl"}, "ps2": {"corpus": "c.jsonl", "model": "run/final"},
        "knn": {"corpus": "c.jsonl", "traces": ["train.json"], "online": False}}


def test_eval_and_report_cli(tmp_path, capsys):
    out = tmp_path / "cli"
    args = ["eval", "--env", "synthetic", "--benchmark", "synthetic:30", "--limit", "3", "--generator",
            "synthetic", "--max-expansions", "5", "--no-progress", "--out", str(out)]
    assert main(args) == 0
    assert "pass@1 = " in capsys.readouterr().out
    config = json.loads((out / "config.json").read_text())
    assert config["run"]["components"]["env"]["name"] == "synthetic" and len(config["theorems"]) == 3
    assert main([*args[:-1], str(out), "--timeout", "1"]) == 2
    assert "different configuration" in capsys.readouterr().err
    assert main(["report", str(out)]) == 0 and (out / "report.md").exists()


def test_mcts_runs_through_the_same_runner_with_its_config_recorded(tmp_path):
    config = EvalConfig(ProverConfig(ComponentSpec("synthetic"),
                                     ComponentSpec("mcts", {"max_simulations": 30, "config": {"c_init": 2.0}}),
                                     ComponentSpec("synthetic")), "synthetic:30", limit=4)
    progress = run_evaluation(config, load_benchmark("synthetic:30", 4), tmp_path, progress=False)
    assert progress.finished_now == 4
    saved = json.loads((tmp_path / "config.json").read_text())["run"]["components"]["prover"]["options"]
    assert saved["config"]["c_init"] == 2.0 and saved["config"]["c_base"] == 19652.0
    assert saved["max_simulations"] == 30 and saved["value"] == "constant"


def test_attempts_differ_by_seed_and_a_temperature_the_generator_lacks_is_reported():
    from prover.proof_search import DistributedProver, Task
    from search_tree import Theorem

    prover = DistributedProver(components(), 1)
    tasks = [Task(Theorem("synthetic_0002"), a, a) for a in range(4)]
    calls = [o.result.num_env_calls for o in prover.iter_results(tasks)]
    assert len(set(calls)) > 1  # different seeds search differently
    assert calls == [o.result.num_env_calls for o in prover.iter_results(tasks)]  # and reproducibly
    fixed = ProverConfig(ComponentSpec("synthetic"), ComponentSpec("best_first"), ComponentSpec("fixed", {"tactics": ["auto."]}))
    [outcome] = DistributedProver(fixed, 1).iter_results([Task(Theorem("synthetic_0002"), temperature=0.5)])
    assert outcome.result.stop_reason == StopReason(StopKind.WORKER_ERROR,
                                                    "ValueError: FixedTacticGenerator has no temperature to set")
    assert outcome.retries == 1


def test_light_imports_stay_light():
    code = ("import sys, prover.proof_search, prover.registry, prover.run.evaluation, prover.run.analysis, "
            "prover.views.report, prover.cli, prover.benchmarks.registry; prover.cli.build_parser(); "
            "heavy = {'torch', 'ray', 'matplotlib'} & set(sys.modules); assert not heavy, heavy")
    subprocess.run([sys.executable, "-c", code], check=True, env={**os.environ, "PYTHONPATH": str(ROOT)})


@pytest.mark.coq
def test_coq_supplies_its_stdlib_corpus_to_a_retriever_given_none(tmp_path, monkeypatch):
    import prover.coq.corpus as corpus_module
    from prover.registry import build_retriever, default_corpus, with_defaults

    index = corpus_module.load_index(progress=False)  # the real index (cached), so the corpus is the real one
    monkeypatch.setattr(corpus_module, "cache_dir", lambda: tmp_path)
    monkeypatch.setattr(corpus_module, "load_index", lambda *a, **k: index)
    config = ProverConfig(ComponentSpec("coq"), ComponentSpec("best_first"), ComponentSpec("fixed"),
                          ComponentSpec("mepo"))
    corpus = with_defaults(config).retriever.options["corpus"]
    assert Path(corpus).parent == tmp_path / "corpus" and Path(corpus).exists()  # written once, no tracing
    assert sum(len(json.loads(line)["premises"]) for line in Path(corpus).open()) > 10_000
    mtime = Path(corpus).stat().st_mtime_ns
    assert default_corpus("coq") == corpus and Path(corpus).stat().st_mtime_ns == mtime  # reused
    retriever = build_retriever(with_defaults(config).retriever)
    assert len(retriever.corpus) > 10_000
    # an explicit corpus wins; no retriever, no corpus
    mine = ProverConfig(config.env, config.prover, config.generator, ComponentSpec("bm25", {"corpus": "x.jsonl"}))
    assert with_defaults(mine).retriever.options["corpus"] == "x.jsonl"
    assert "corpus" not in with_defaults(ProverConfig(config.env, config.prover, config.generator)).retriever.options


def test_lean_and_synthetic_environments_require_a_corpus_option():
    from prover.registry import build_retriever, default_corpus, with_defaults

    assert default_corpus("leandojo") is None and default_corpus("synthetic") is None
    config = ProverConfig(ComponentSpec("synthetic"), ComponentSpec("best_first"), ComponentSpec("synthetic"),
                          ComponentSpec("mepo"))
    spec = with_defaults(config).retriever
    assert "corpus" not in spec.options
    with pytest.raises(ValueError, match="needs a corpus option"):
        build_retriever(spec)
