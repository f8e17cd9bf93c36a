"""Lean benchmark loaders on the shared data (skipped where ../shared/data is absent, failed in CI)."""

from __future__ import annotations

import json

import pytest

from prover.benchmarks.datasets import (
    MINIF2F_LEAN4_COMMIT,
    StatementFields,
    DatasetError,
    default_data_dir,
    leandojo_benchmark_file,
    load_lean_benchmark,
    load_statement_benchmark,
    load_traced_theorems,
)
from prover.lean.env import LeanFields
from prover.lean.syntax import parse_goals

DATA = default_data_dir()
needs_data = pytest.mark.shared_data(DATA / "lean-benchmarks")


@needs_data
def test_leandojo_sample_counts():
    traced = load_traced_theorems(DATA / "leandojo-b4-sample" / "val.json")
    assert len(traced) == 2000
    assert sum(1 for t in traced if t.traced_tactics) == 950
    assert sum(len(t.traced_tactics) for t in traced) == 2949
    assert sum(1 for t in traced for tac in t.traced_tactics if tac.premises) == 1890
    theorems = load_lean_benchmark("leandojo-sample:val")
    assert len(theorems) == 2000 and theorems[0].file_path.endswith(".lean")
    assert all(t.position and t.extra["url"] and t.extra["commit"] for t in theorems)
    ioc = next(t for t in theorems if t.full_name == "Set.Ioc_disjoint_Ioc")
    assert ioc.position == (147, 1) and ioc.file_path == "Mathlib/Data/Set/Intervals/Disjoint.lean"


@needs_data
def test_minif2f_and_proofnet_counts():
    valid, test = load_lean_benchmark("minif2f:valid"), load_lean_benchmark("minif2f:test")
    assert (len(valid), len(test)) == (244, 244)
    assert {t.file_path for t in valid} == {"MiniF2F/Valid.lean"}
    assert all(t.extra["commit"] == MINIF2F_LEAN4_COMMIT for t in test)
    assert (len(load_lean_benchmark("proofnet:valid")), len(load_lean_benchmark("proofnet:test"))) == (185, 186)
    for t in valid + test:
        assert t.statement.startswith("theorem " + t.full_name) and StatementFields.of(t).header.startswith("import Mathlib")
        assert len(parse_goals(t.extra["goal"])) == 1  # the initial goal parses as one goal


def test_errors_name_the_input(tmp_path):
    with pytest.raises(DatasetError, match="unknown benchmark 'minif2f'"):
        load_lean_benchmark("minif2f")
    with pytest.raises(DatasetError, match="not found"):
        load_statement_benchmark(tmp_path / "minif2f.jsonl")
    with pytest.raises(DatasetError, match="unknown LeanDojo Benchmark split 'randm'"):
        leandojo_benchmark_file(tmp_path, "randm", "val")
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"name": "a", "split": "test", "formal_statement": "theorem a : True"}\n{"name": "b"}\n')
    with pytest.raises(DatasetError, match=r"bad.jsonl:2"):
        load_statement_benchmark(bad)
    traced = tmp_path / "t.json"
    traced.write_text(json.dumps([{"url": "u", "commit": "c", "file_path": "A.lean", "full_name": "x",
                                   "start": [1], "end": [2, 1], "traced_tactics": []}]))
    with pytest.raises(DatasetError, match=r"t.json\[0\] \(x\): start"):
        load_traced_theorems(traced)


def test_full_benchmark_layout(tmp_path, monkeypatch):
    root = tmp_path / "leandojo_benchmark_4" / "novel_premises"
    root.mkdir(parents=True)
    record = {"url": "https://github.com/leanprover-community/mathlib4", "commit": "abc", "file_path": "M.lean",
              "full_name": "foo", "start": [3, 1], "end": [4, 9],
              "traced_tactics": [{"tactic": "simp", "annotated_tactic": ["simp", []],
                                  "state_before": "⊢ True", "state_after": "no goals"}]}
    (root / "test.json").write_text(json.dumps([record]))
    monkeypatch.setenv("LEANDOJO_BENCHMARK_4", str(tmp_path / "leandojo_benchmark_4"))
    [thm] = load_lean_benchmark("leandojo:novel_premises/test")
    fields = LeanFields.of(thm)
    assert (thm.full_name, thm.position) == ("foo", (3, 1))
    assert (fields.num_traced_tactics, fields.end, fields.commit) == (1, (4, 9), "abc")
