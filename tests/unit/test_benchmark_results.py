"""``--write-results``: a benchmark script writes its own results file (prover/benchmarks/results.py).

Pure Python (the scripted MCTS benchmark, no Coq): the claim is about the file the flag writes.
"""

from __future__ import annotations

import argparse
import os
import sys
import types

import pytest

from prover.benchmarks import results


@pytest.fixture
def results_dir(tmp_path, monkeypatch):
    monkeypatch.setattr(results, "RESULTS_DIR", tmp_path)
    yield tmp_path
    results.write_results()  # never leave stdout captured for the next test


def test_a_benchmark_run_writes_its_output_with_command_commit_machine_and_load(results_dir, capsys,
                                                                                 monkeypatch):
    """Fails if the flag captures nothing, drops the script's table, or leaves out a provenance row."""
    from benchmarks.mcts_vs_best_first import main

    argv = ["--theorems", "2", "--max-env-calls", "6", "--env-latency", "0", "--gen-latency", "0",
            "--write-results", "mcts_tiny"]
    # as `python benchmarks/mcts_vs_best_first.py ARGS` would start it: the command is the process's
    monkeypatch.setattr(sys, "argv", [str(results.REPO / "benchmarks" / "mcts_vs_best_first.py"), *argv])
    monkeypatch.setitem(sys.modules, "__main__", types.ModuleType("__main__"))
    main(argv)
    assert results.write_results(0) == 0
    text = (results_dir / "mcts_tiny.md").read_text()
    printed = capsys.readouterr().out
    table_line = next(line for line in printed.splitlines() if line.startswith("best_first "))
    assert "```text\nenv=scripted theorems=2 max_env_calls=6" in text
    assert table_line in text
    assert ("| command | `python benchmarks/mcts_vs_best_first.py --theorems 2 --max-env-calls 6 "
            "--env-latency 0 --gen-latency 0 --write-results mcts_tiny` |") in text
    assert f"| machine | {os.cpu_count()} CPUs" in text
    assert "| load average (1 min) | " in text and " at the start, " in text and " at the end |" in text
    assert "| commit | `" in text and "| exit status | 0 |" in text
    assert "wrote " in printed  # the script still prints to the terminal, and says where the file went


def test_markdown_output_is_copied_as_is_and_the_exit_status_recorded(results_dir):
    """Fails if Markdown output is fenced (its tables would not render) or the status is lost."""
    parser = argparse.ArgumentParser()
    results.add_results_flag(parser, markdown=True)
    parser.parse_args(["--write-results", "md_tiny"])
    print("| a | b |\n|---|---|\n| 1 | 2 |")
    assert results.write_results(3) == 3
    text = (results_dir / "md_tiny.md").read_text()
    assert "## Output\n\n| a | b |\n|---|---|\n| 1 | 2 |\n" in text
    assert "```text" not in text and "| exit status | 3 |" in text


def test_without_the_flag_nothing_is_written(results_dir):
    """Fails if a run without ``--write-results`` writes (or overwrites) a results file."""
    parser = argparse.ArgumentParser()
    results.add_results_flag(parser)
    parser.parse_args([])
    print("not recorded")
    assert results.write_results(1) == 1
    assert list(results_dir.iterdir()) == []


def test_a_name_that_is_not_a_file_stem_is_refused(results_dir, capsys):
    """Fails if ``--write-results`` accepts a path (a positional file swallowed as NAME, or ``../x``)."""
    parser = argparse.ArgumentParser(prog="coq_tracing.py")
    parser.add_argument("files", nargs="*")
    results.add_results_flag(parser)
    with pytest.raises(SystemExit, match="2"):
        parser.parse_args(["--write-results", "Arith/Between.v"])
    err = capsys.readouterr().err
    assert "--write-results NAME must be a file stem" in err and "got 'Arith/Between.v'" in err
