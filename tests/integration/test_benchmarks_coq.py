"""Each benchmark script's ``--env coq`` path (the one behind the published numbers), one tiny run:
it must exit 0 and print its table. Real coqtop/coqc (and Ray for the throughput script).

``benchmarks/resume_soak.py --env coq`` is run by ``tests/test_coq_cli_runs.py``, through the
script's own functions.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

pytestmark = [
    pytest.mark.coq,
    pytest.mark.slow,
]


def run_script(*argv: str) -> str:
    """Run ``python -m benchmarks.X ARGS`` as a user would; its stdout (exit 0 required)."""
    done = subprocess.run([sys.executable, "-m", *argv], cwd=ROOT, capture_output=True, text=True, timeout=400,
                          env={**os.environ, "PYTHONPATH": str(ROOT), "RAY_AUTH_MODE": "disabled"})
    assert done.returncode == 0, (done.stdout[-2000:], done.stderr[-3000:])
    return done.stdout


def test_mcts_vs_best_first_on_coq_prints_both_rows_within_the_call_budget():
    """Fails if a search spends more env calls than ``--max-env-calls`` (column "env calls"; seen:
    ``assert 7.0 <= 6`` with ``Meter.exhausted`` testing ``>`` for ``>=``) or the Coq path exits
    non-zero."""
    out = run_script("benchmarks.mcts_vs_best_first", "--env", "coq", "--theorems", "1", "--max-env-calls", "6",
                     "--timeout", "5", "--tactic-timeout", "2")
    assert "env=coq theorems=1 max_env_calls=6 sampled_tactics=16 value=constant" in out
    for algorithm in ("best_first", "mcts"):
        row = re.search(rf"^{algorithm} +(\d)/1 +[\d.]+% +([\d.]+) ", out, re.MULTILINE)
        assert row, out
        assert float(row.group(2)) <= 6, row.group(0)


def test_generator_pass_rate_on_coq_prints_its_markdown_table():
    """Fails if the ``--env coq`` environment cannot be built from its options (seen: a TypeError
    exit with ``parse_option`` keeping ``tactic_timeout=2`` a string) or the table loses its
    header or row."""
    out = run_script("benchmarks.generator_pass_rate", "--env", "coq", "--env-option", "tactic_timeout=2",
                     "--benchmark", "coq-stdlib:test", "--limit", "1", "--generators", "automation",
                     "--timeout", "5", "--max-expansions", "4")
    assert "1 theorems from coq-stdlib:test; best_first; budget 5 s, 4 expansions per theorem" in out
    assert "| generator | proved | pass rate | mean s/theorem |\n|---|---|---|---|" in out
    assert re.search(r"^\| automation \| [01]/1 \| [01]\.000 \| [\d.]+ \|$", out, re.MULTILINE), out


def test_distributed_throughput_on_coq_prints_both_worker_counts_and_agrees():
    """Fails if the script's Coq config does not run in Ray actors (non-zero exit), or if 1 and 2
    workers disagree on a status (the script then exits 1). Not seen failing against a breakage
    (each run starts Ray twice: two minutes here)."""
    out = run_script("benchmarks.distributed_throughput", "--env", "coq", "--limit", "1")
    assert out.startswith("environment: coq; benchmark coq-stdlib:test, 1 theorems;"), out
    for workers in (1, 2):
        assert re.search(rf"^workers={workers}: start-up +[\d.]+s, proving +[\d.]+s, +[\d.]+ theorems/s, "
                         r"proved [01]/1;", out, re.MULTILINE), out
    assert re.search(r"^speedup 2 vs 1 workers: [\d.]+x .*; same status for every theorem: True$", out,
                     re.MULTILINE), out
