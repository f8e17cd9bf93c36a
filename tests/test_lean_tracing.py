"""Writing LeanDojo-format traces: the files round-trip through the loaders; CLI registration."""

from __future__ import annotations

import json

import pytest

from benchmarks.datasets import default_data_dir, load_traced_theorems
from prover.cli import build_parser
from prover.lean.tracing import keep_tactic, theorem_record, write_trace

VAL = default_data_dir() / "leandojo-b4-sample" / "val.json"


@pytest.mark.skipif(not VAL.exists(), reason=f"shared data not found at {VAL}")
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
    argv = ["trace-lean", "https://github.com/yangky11/lean4-example", "7b6ecb9", "--out", "x"]
    args = build_parser().parse_args(argv)
    assert args.command == "trace-lean" and args.commit == "7b6ecb9" and not args.with_dependencies


def test_trace_lean_reports_a_bad_repository_clearly(tmp_path, capsys):
    from prover.cli import main

    missing = tmp_path / "no-such-repo"
    assert main(["trace-lean", str(missing), "abc123", "--out", str(tmp_path / "out")]) == 2
    error = capsys.readouterr().err.splitlines()[-1]  # LeanDojo logs a warning of its own before it
    assert error.startswith("dojo-prover trace-lean: error: ") and "could not trace" in error and str(missing) in error
