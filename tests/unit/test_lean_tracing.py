"""Writing LeanDojo-format traces: the files round-trip through the loaders; the ``trace --env lean`` command."""

from __future__ import annotations

import json

import pytest

from prover.benchmarks.datasets import default_data_dir, load_traced_theorems
from prover.cli import build_parser
from prover.lean.tracing import keep_tactic, theorem_record, write_trace

VAL = default_data_dir() / "leandojo-b4-sample" / "val.json"


@pytest.mark.shared_data(VAL)
def test_trace_files_round_trip_real_records(tmp_path):
    raw = json.loads(VAL.read_text())[:300]
    records = [theorem_record(r["url"], r["commit"], r["file_path"], r["full_name"], r["start"], r["end"],
                              r["traced_tactics"]) for r in raw]
    assert records == raw  # same keys and layout as LeanDojo Benchmark
    corpus = [{"path": "A.lean", "imports": [], "premises": [{"full_name": "a", "code": "theorem a : True",
                                                             "start": [1, 1], "end": [1, 20], "kind": "theorem"}]},
              {"path": "B.lean", "imports": ["A.lean"], "premises": []}]
    summary = write_trace(tmp_path / "out", records, corpus, {"url": "u", "commit": "c"})
    assert (summary.num_theorems, summary.num_files, summary.num_premises) == (300, 2, 1)
    assert summary.num_tactics == sum(len(r["traced_tactics"]) for r in raw)
    loaded = load_traced_theorems(tmp_path / "out" / "theorems.json")
    assert [t.full_name for t in loaded] == [r["full_name"] for r in raw]
    meta = json.loads((tmp_path / "out" / "metadata.json").read_text())
    assert meta["num_theorems"] == 300 and meta["commit"] == "c"
    with pytest.raises(FileExistsError, match="already holds a trace"):
        write_trace(tmp_path / "out", records, corpus, {})


def test_benchmark_tactic_filter():
    assert keep_tactic("simp", "⊢ True")
    assert not keep_tactic("simp", "no goals")
    assert not keep_tactic("· simp", "⊢ True")


def test_trace_lean_command_is_registered():
    """Fails if ``trace --env lean URL COMMIT`` does not parse into the Lean trace's arguments, or if
    the separate ``trace-lean`` command came back (one ``trace`` command, ``--env`` picks the backend)."""
    argv = ["trace", "--env", "lean", "https://github.com/yangky11/lean4-example", "7b6ecb9", "--out", "x"]
    args = build_parser().parse_args(argv)
    assert (args.command, args.env, args.commit, args.with_dependencies) == ("trace", "lean", "7b6ecb9", False)
    with pytest.raises(SystemExit):
        build_parser().parse_args(["trace-lean", "u", "c", "--out", "x"])


def test_trace_lean_reports_a_bad_repository_clearly(tmp_path, capsys):
    from prover.cli import main

    missing = tmp_path / "no-such-repo"
    assert main(["trace", "--env", "lean", str(missing), "abc123", "--out", str(tmp_path / "out")]) == 2
    error = capsys.readouterr().err.splitlines()[-1]  # LeanDojo logs a warning of its own before it
    assert error.startswith("dojo-prover trace: error: ") and "could not trace" in error and str(missing) in error


@pytest.mark.parametrize("argv,message", [
    (["--env", "lean", "--out", "x"], "--env lean needs URL and COMMIT"),
    (["--env", "lean", "u", "c"], "--env lean needs --out DIR"),
    (["--env", "lean", "u", "c", "--out", "x", "--files", "A/*.v"], "--files is for --env coq, not --env lean"),
    (["--env", "lean", "u", "c", "--out", "x", "--workers", "2"], "--workers is for --env coq, not --env lean"),
    (["--env", "coq", "u", "c"], "URL is for --env leandojo, not --env coq"),
    (["--with-dependencies"], "--with-dependencies is for --env leandojo, not --env coq"),
])
def test_trace_refuses_the_other_backends_options(capsys, argv, message):
    """Fails if ``trace`` silently ignores an option of the other backend (a Lean URL given to the Coq
    trace would trace the whole stdlib) or starts a Lean trace without its repository or --out."""
    from prover.cli import main

    assert main(["trace", *argv]) == 2
    [line] = capsys.readouterr().err.splitlines()
    assert line.startswith(f"dojo-prover trace: error: {message}"), line
