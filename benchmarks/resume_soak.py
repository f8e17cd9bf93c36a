"""Resume soak: SIGKILL a whole evaluation run (its process group) three times at random points,
resume it each time, and check that its final results equal an uninterrupted run's.

    python benchmarks/resume_soak.py [--workers 2] [--limit 12] [--seed 0] [--timeout 60]

The run is ``dojo-prover eval`` in a subprocess with its own process group (Ray's processes
included when ``--workers`` > 1). Checked: the same set of (theorem, attempt) as the reference
run, no duplicate line, and the same status and proof for each (the synthetic backend is
deterministic under an expansion budget; on Coq, ``--env coq``, wall-time limits make outcomes
timing-dependent, so there only the first two are required).
"""

from __future__ import annotations

import argparse
import json
import os
import random
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from prover.benchmarks.results import add_results_flag, write_results  # noqa: E402
from prover.run.evaluation import ResultsFile  # noqa: E402


def eval_command(out: Path, args: argparse.Namespace) -> list[str]:
    env_args = (["--env", "coq", "--benchmark", "coq-stdlib:test", "--generator", "fixed", "--generator-opt",
                 'tactics=["intros.", "auto.", "lia.", "reflexivity.", "simpl.", "split."]']
                if args.env == "coq" else
                ["--env", "synthetic", "--env-opt", f"latency={args.latency}", "--benchmark", "synthetic:1000",
                 "--generator", "synthetic"])
    return [sys.executable, "-m", "prover.cli", "eval", *env_args, "--limit", str(args.limit), "--timeout", str(args.timeout),
            "--max-expansions", "12", "--attempts", "2", "--workers", str(args.workers), "--no-progress",
            "--out", str(out)]


def start(out: Path, args: argparse.Namespace) -> subprocess.Popen:
    env = {**os.environ, "PYTHONPATH": str(ROOT), "RAY_AUTH_MODE": "disabled"}
    return subprocess.Popen(eval_command(out, args), cwd=ROOT, env=env, start_new_session=True,
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


def wait_for_lines(out: Path, count: int, proc: subprocess.Popen) -> None:
    """Until results.jsonl has ``count`` lines or the run has ended."""
    path = out / "results.jsonl"
    while proc.poll() is None and (not path.exists() or path.read_bytes().count(b"\n") < count):
        time.sleep(0.05)


def outcomes(out: Path) -> tuple[dict[tuple[str, int], tuple[str, list | None]], int]:
    records = ResultsFile(out / "results.jsonl").load()
    table = {(r["key"], r["attempt"]): (r["status"], r["result"]["proof"]) for r in records}
    return table, len(records) - len(table)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--env", default="synthetic", choices=["synthetic", "coq"])
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--limit", type=int, default=20)
    parser.add_argument("--latency", type=float, default=0.01)
    parser.add_argument("--timeout", type=float, default=60.0, help="search seconds per attempt")
    parser.add_argument("--kills", type=int, default=3)
    parser.add_argument("--seed", type=int, default=0, help="seed of the kill times")
    add_results_flag(parser)
    args = parser.parse_args()
    rng = random.Random(args.seed)
    with tempfile.TemporaryDirectory() as tmp:
        reference, soaked = Path(tmp) / "reference", Path(tmp) / "soaked"
        t0 = time.monotonic()
        proc = start(reference, args)
        wait_for_lines(reference, 1, proc)
        t1 = time.monotonic()
        proc.wait()
        proving_seconds = time.monotonic() - t1
        expected, _ = outcomes(reference)
        print(f"reference run: {len(expected)} (theorem, attempt) results; start-up {t1 - t0:.1f}s, "
              f"proving {proving_seconds:.1f}s")
        for kill in range(1, args.kills + 1):
            # a random point of the proving phase: after the first new result of this session
            before = len(outcomes(soaked)[0]) if (soaked / "results.jsonl").exists() else 0
            proc = start(soaked, args)
            wait_for_lines(soaked, before + 1, proc)
            remaining = (len(expected) - before) / len(expected)
            delay = rng.uniform(0.1, 0.6) * proving_seconds * remaining
            try:
                proc.wait(timeout=delay)
                print(f"kill {kill}: the run finished within {delay:.1f}s; nothing to kill")
            except subprocess.TimeoutExpired:
                os.killpg(proc.pid, signal.SIGKILL)
                proc.wait()
                done, _ = outcomes(soaked)
                print(f"kill {kill}: SIGKILL to process group {proc.pid} {delay:.1f}s after its first result; "
                      f"{len(done)} results on disk")
        final = start(soaked, args)
        final.wait()
        got, duplicates = outcomes(soaked)
        same_set = set(got) == set(expected)
        same_outcomes = got == expected
        print(f"final: {len(got)} results, {duplicates} duplicate lines, same (theorem, attempt) set as the "
              f"reference: {same_set}, same status and proof for each: {same_outcomes}")
        config = json.loads((soaked / "config.json").read_text())
        print(f"config: {json.dumps(config['run']['components']['env'])}, workers {args.workers}")
        # Coq searches are bounded by wall time too, so their outcomes may differ between runs
        # under load; the run's bookkeeping (same set, no duplicate) must hold regardless.
        ok = same_set and duplicates == 0 and final.returncode == 0 and (same_outcomes or args.env == "coq")
        print("CHECK PASSED" if ok else "CHECK FAILED")
        return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(write_results(main()))
