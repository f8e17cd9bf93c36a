"""Every untrusted input a command reads (a run or learn directory, a corpus, traced data, a
config, a cache, a checkpoint) is one line naming it when it is wrong, never a traceback nor a
hang: a FIFO is refused without waiting for a writer, a link in a run directory is not followed,
each field is of its type before it is used, and a damaged cache file is warned about and rebuilt.
Each test fails on the code before this check (a hang is cut by an alarm and fails)."""

from __future__ import annotations

import argparse
import dataclasses
import json
import logging
import math
import os
import platform
import shutil
import signal
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from types import SimpleNamespace

import numpy as np
import pytest

from prover.cli import main
from search_tree.errors import UserError

LEGACY = Path(__file__).parents[1] / "fixtures" / "legacy_runs" / "best_first"


@contextmanager
def no_hang(seconds: int = 5) -> Iterator[None]:
    """Fail, rather than wait forever, if the block blocks (the old code opened FIFOs and waited)."""
    def alarm(signum: int, frame: object) -> None:
        raise TimeoutError("blocked: a FIFO was opened and waited on")
    old = signal.signal(signal.SIGALRM, alarm)
    signal.alarm(seconds)
    try:
        yield
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, old)


def fifo(path: Path) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    os.mkfifo(path)
    return path


def one_line(capsys: pytest.CaptureFixture[str], argv: list[str], *words: str) -> str:
    with no_hang(60):
        assert main(argv) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "Traceback" not in err, err
    for word in words:
        assert word in err, err
    return err


def learner(out: Path, coq: str = "8.16.1", library: str = "coq-stdlib"):
    """A :class:`Learner` of ``out`` without building one (that asks coqc for its version)."""
    from generator.action_data import Provenance
    from prover.backends import BACKENDS
    from prover.commands.learn import Learner, LearnSettings

    learn = Learner.__new__(Learner)
    learn.out, learn.test, learn.backend = out, None, BACKENDS["coq"]
    learn.settings = LearnSettings("coq-stdlib:train", 1, "coq-stdlib:val", 0, 1.0, 1, 0)
    learn.provenance = Provenance(coq, library)
    return learn


# --- 1. a FIFO is refused at once, a link in a run directory is not followed ----------------------
def test_a_fifo_or_a_link_for_a_run_file_is_refused_without_waiting(tmp_path: Path) -> None:
    from prover.run.evaluation import ResultsFile, read_config
    from generator.action_data import read_provenance

    with no_hang(), pytest.raises(UserError, match="results.jsonl is not a regular file"):
        ResultsFile(fifo(tmp_path / "results.jsonl")).read()
    with no_hang(), pytest.raises(UserError, match="config.json is not a regular file"):
        read_config(fifo(tmp_path / "config.json"))
    with no_hang(), pytest.raises(UserError, match="provenance.json is not a regular file"):
        read_provenance(fifo(tmp_path / "r" / "provenance.json").parent)
    secret = tmp_path / "secret"
    secret.write_text("root:x:0:0:root:/root:/bin/bash\n")
    (tmp_path / "linked").mkdir()
    (tmp_path / "linked" / "results.jsonl").symlink_to(secret)
    with pytest.raises(UserError, match="is a symlink; refusing to follow it"):
        ResultsFile(tmp_path / "linked" / "results.jsonl").read()


def test_report_refuses_a_results_link_in_one_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    run = tmp_path / "run"
    shutil.copytree(LEGACY, run)
    (run / "results.jsonl").unlink()
    (run / "results.jsonl").symlink_to("/etc/passwd")
    one_line(capsys, ["report", str(run)], "results.jsonl is a symlink")


def test_learn_files_that_are_fifos_are_refused(tmp_path: Path) -> None:
    fifo(tmp_path / "out" / "learn.json")
    with no_hang(), pytest.raises(UserError, match="learn.json is not a regular file"):
        learner(tmp_path / "out")._check_identity()
    run = tmp_path / "run"
    shutil.copytree(LEGACY, run)
    fifo(run / "provenance.json")
    with no_hang(), pytest.raises(UserError, match="provenance.json is not a regular file"):
        learner(tmp_path / "out")._added_provenance(run)


def test_corpus_traces_and_train_config_fifos_are_refused(tmp_path: Path) -> None:
    from generator.train import check_config_files
    from retrieval.corpus import Corpus
    from retrieval.traced_file import load_traced

    with no_hang(), pytest.raises(UserError, match="corpus.jsonl is not a regular file"):
        Corpus.from_jsonl(fifo(tmp_path / "corpus.jsonl"))
    with no_hang(), pytest.raises(UserError, match="traces.json is not a regular file"):
        load_traced(fifo(tmp_path / "traces.json"))
    config = fifo(tmp_path / "config.yaml")
    for argv in (["fit", "--config", str(config)], ["fit", f"--config={config}"], ["fit", "-c", str(config)]):
        with no_hang(), pytest.raises(UserError, match="config.yaml is not a regular file"):
            check_config_files(argv)


# --- 2. shapes: each field of its type, else one line naming the input ---------------------------
def _round0(out: Path, stage: str, results: bytes) -> None:
    search = out / "round-0" / "search"
    search.mkdir(parents=True)
    (search / "stage.json").write_text(stage)
    (search / "results.jsonl").write_bytes(results)


@pytest.mark.parametrize("stage", ["garbage", "[1]", '{"seconds": "x"}', '{"seconds": true}'])
def test_a_damaged_stage_record_is_one_line(tmp_path: Path, stage: str) -> None:
    _round0(tmp_path, stage, b"")
    with pytest.raises(UserError, match=r"stage.json"):
        learner(tmp_path)._row(0)


def test_a_garbage_result_line_of_a_round_is_refused_by_the_one_reader(tmp_path: Path) -> None:
    from prover.run.evaluation import CorruptResults

    good = (LEGACY / "results.jsonl").read_bytes().splitlines(keepends=True)[0]
    _round0(tmp_path, '{"seconds": 1.0}', b"garbage\n" + good)
    with pytest.raises(CorruptResults, match=r"results.jsonl:1 is not valid JSON"):
        learner(tmp_path)._row(0)


def test_a_checkpoint_without_training_metrics_is_one_line(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from generator.learned_policy import LearnedPolicy

    monkeypatch.setattr(LearnedPolicy, "load", classmethod(lambda cls, path: SimpleNamespace(metrics={})))
    (tmp_path / "round-1").mkdir(parents=True)
    with pytest.raises(UserError, match=r"round-1/policy.pt holds no training metrics"):
        learner(tmp_path)._row(1)


THEOREM = {"url": "u", "commit": "c", "file_path": "A.v", "full_name": "t", "start": [1, 1], "end": [2, 1],
           "traced_tactics": [{"tactic": "auto.", "annotated_tactic": ["auto.", []], "state_before": "|- True",
                               "state_after": "no goals"}]}
TACTIC = THEOREM["traced_tactics"][0]  # type: ignore[index]


@pytest.mark.parametrize("theorem", [
    {"a": 1},
    {**THEOREM, "traced_tactics": "abc"},
    {**THEOREM, "traced_tactics": [{**TACTIC, "annotated_tactic": ["x", ["abc"]]}]},
    {**THEOREM, "traced_tactics": [{**TACTIC, "state_before": 5}]},
    {**THEOREM, "start": "x"},
])
def test_retrieval_eval_data_of_the_wrong_shape_is_one_line(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                            theorem: dict) -> None:
    from tests.retrieval_fixtures import write_corpus

    data = tmp_path / "data.json"
    data.write_text(json.dumps([theorem]))
    one_line(capsys, ["retrieval-eval", "--corpus", str(write_corpus(tmp_path)), "--data", str(data),
                      "--retrievers", "bm25", "--output-dir", str(tmp_path / "out")], "data.json[0]")


@pytest.mark.parametrize("lines, words", [
    ([], ("an empty corpus",)),
    ([{"path": "A.v", "imports": [], "premises": []}], ("an empty corpus",)),
    ([{"path": 5, "premises": []}], ("corpus.jsonl:1", "path is 5")),
    ([{"path": "A.v", "premises": [{"full_name": "a", "start": "x", "end": [1, 2]}]}], ("corpus.jsonl:1", "start")),
])
def test_a_corpus_of_the_wrong_shape_or_empty_is_one_line(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                          lines: list, words: tuple[str, ...]) -> None:
    corpus = tmp_path / "corpus.jsonl"
    corpus.write_text("".join(json.dumps(line) + "\n" for line in lines))
    data = tmp_path / "data.json"
    data.write_text(json.dumps([THEOREM]))
    one_line(capsys, ["retrieval-eval", "--corpus", str(corpus), "--data", str(data), "--retrievers", "bm25",
                      "--output-dir", str(tmp_path / "out")], *words)


@pytest.mark.parametrize("damage", [b"[1]", b"\xff\xfe", b"done: 5"])
def test_a_damaged_embedding_manifest_is_warned_about_once_and_rebuilt(tmp_path: Path, damage: bytes,
                                                                        caplog: pytest.LogCaptureFixture) -> None:
    from retrieval.embedding_cache import EmbeddingCache

    texts = ["a", "bb", "ccc"]

    def encode(batch: list[str]) -> np.ndarray:
        rows = np.array([[len(t), 1.0] for t in batch], dtype=np.float32)
        return rows / np.linalg.norm(rows, axis=1, keepdims=True)

    key = {"corpus_source": str(tmp_path / "corpus.jsonl"), "corpus_fingerprint": "f", "model": "m"}
    (tmp_path / "corpus.jsonl").write_text("")
    cache = EmbeddingCache(tmp_path / "cache", key)
    first = np.array(cache.vectors(texts, encode, 2, chunk_size=2))
    sibling = EmbeddingCache(tmp_path / "cache", {**key, "corpus_fingerprint": "g"})
    sibling.path.mkdir(parents=True)
    sibling.manifest_file.write_bytes(damage)  # a damaged sibling is skipped by the stale-entry sweep
    if damage == b"done: 5":  # the right key, shape and chunk size; a number for the list of done chunks
        damage = json.dumps({**json.loads(cache.manifest_file.read_text()), "done": 5}).encode()
    cache.manifest_file.write_bytes(damage)
    with caplog.at_level(logging.WARNING):
        again = np.array(EmbeddingCache(tmp_path / "cache", key).vectors(texts, encode, 2, chunk_size=2))
    assert np.allclose(first, again)
    assert sum("rebuilding the embeddings" in r.getMessage() for r in caplog.records) == 1


def test_traced_training_inputs_name_their_file(tmp_path: Path) -> None:
    from generator.data import TracedDataModule
    from generator.hf import read_policy_config
    from generator.traced import load_theorems

    with pytest.raises(UserError, match="nowhere.json: no such traced file"):
        load_theorems(tmp_path / "nowhere.json")
    empty = tmp_path / "empty.json"
    empty.write_text("[]")
    with pytest.raises(UserError, match="empty.json: no traced tactics"):
        TracedDataModule(train_path=str(empty)).setup()
    from generator.export_files import POLICY_CONFIG

    (tmp_path / POLICY_CONFIG).write_text("{not json")
    with pytest.raises(UserError, match=POLICY_CONFIG):
        read_policy_config(tmp_path)


@pytest.mark.parametrize("config, words", [
    ("a: [\n", ("Problems parsing config",)),
    ("data:\n  batch_size: x\n", ("data.batch_size",)),
    ("nosuch: 1\n", ("nosuch",)),
    (None, ("data.train_path",)),
])
def test_train_policy_errors_are_one_line(tmp_path: Path, capsys: pytest.CaptureFixture[str], config: str | None,
                                          words: tuple[str, ...]) -> None:
    argv = ["train-policy", "fit"]
    if config is not None:
        (tmp_path / "c.yaml").write_text(config)
        argv += ["--config", str(tmp_path / "c.yaml")]
    one_line(capsys, argv, *words)


# --- 3. a limit is finite ---------------------------------------------------------------------
def test_an_infinite_limit_is_refused(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from prover.commands.eval import check_budget

    for name in ("timeout", "task_timeout"):
        with pytest.raises(UserError, match="must be positive and finite"):
            check_budget(argparse.Namespace(**{name: math.inf}))
    one_line(capsys, ["learn", "--out", str(tmp_path / "l"), "--timeout", "inf"], "--timeout inf")
    assert not (tmp_path / "l").exists()


# --- 4. a run records its prover version; --add-run refuses another's -------------------------
def test_a_run_of_a_versioned_backend_records_its_provenance(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from generator.action_data import Provenance, read_provenance
    from prover.backends import BACKENDS
    from prover.benchmarks.registry import load_benchmark
    from prover.registry import ComponentSpec, ProverConfig
    from prover.run.evaluation import EvalConfig, run_evaluation

    monkeypatch.setitem(BACKENDS, "synthetic", dataclasses.replace(BACKENDS["synthetic"],
                                                                  prover_version="platform:python_version"))
    config = EvalConfig(ProverConfig(ComponentSpec("synthetic"), ComponentSpec("best_first", {"max_expansions": 4}),
                                     ComponentSpec("synthetic")), "synthetic:30", limit=1)
    run_evaluation(config, load_benchmark("synthetic:30", 1), tmp_path / "run", progress=False)
    assert read_provenance(tmp_path / "run") == Provenance(platform.python_version(), "synthetic")


def _coq_run(tmp_path: Path, benchmark: str, provenance: dict | None) -> Path:
    run = tmp_path / "run"
    shutil.copytree(LEGACY, run)
    config = json.loads((run / "config.json").read_text())
    config["run"]["components"]["env"]["name"] = "coq"
    config["run"]["benchmark"] = benchmark
    (run / "config.json").write_text(json.dumps(config))
    if provenance is not None:
        (run / "provenance.json").write_text(json.dumps(provenance))
    return run


@pytest.mark.parametrize("bench, provenance, refusal", [
    ("coq-project:/p:train", None, "records no prover version"),
    ("coq-project:/p:train", {"coq_version": "8.18.0", "library": "coq-project:/p"}, "search data of Coq 8.18.0"),
    ("coq-lib:mathcomp:train", {"coq_version": "8.16.1", "library": "coq-lib:mathcomp"}, "library coq-lib:mathcomp"),
    ("coq-project:/p:train", {"coq_version": "8.16.1", "library": "coq-stdlib"}, "says library coq-stdlib"),
    ("coq-project:/p:train", {"coq_version": "8.16.1", "library": 5}, "is not a provenance record"),
    ("coq-project:/p:train", {"coq_version": "8.16.1", "library": "coq-project:/p"}, None),
    ("coq-stdlib:val", {"coq_version": "8.16.1", "library": "coq-stdlib"}, None),
])
def test_add_run_takes_only_runs_of_this_coq_of_the_same_library_or_the_users_project(
        tmp_path: Path, bench: str, provenance: dict | None, refusal: str | None) -> None:
    run = _coq_run(tmp_path, bench, provenance)
    learn = learner(tmp_path / "out", "8.16.1", "coq-stdlib")
    if refusal is None:
        learn._added_provenance(run)
        return
    with pytest.raises(UserError, match=refusal) as caught:
        learn._added_provenance(run)
    assert str(run) in str(caught.value) and "\n" not in str(caught.value)
