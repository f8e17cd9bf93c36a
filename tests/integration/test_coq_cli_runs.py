"""The README's Coq jobs run end to end as a user starts them: ``dojo-prover demo``, and
``dojo-prover eval --env coq --workers 2`` killed with SIGKILL and resumed.

Real coqtop, coqc and Ray in subprocesses; small on purpose (a few easy stdlib lemmas, short
limits), so each test takes well under a minute on two cores.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from benchmarks import resume_soak
from prover.benchmarks.registry import load_benchmark
from prover.coq.additions import ADDITIONS, ANNOTATION
from prover.coq.env import CoqEnvironment
from prover.run.evaluation import theorem_key
from prover.coq.stdlib import stdlib_theorems
from search_tree import ProofFinished, TacticState

ROOT = Path(__file__).resolve().parents[2]

pytestmark = [
    pytest.mark.coq,
    pytest.mark.slow,
]

PROVED_BLOCK = re.compile(r"^proved (\S+) \((\S+):(\d+)\) in [\d.]+s, (?:no axioms|uses .+):\n((?:    .*\n)+)", re.MULTILINE)


def subprocess_env() -> dict[str, str]:
    return {**os.environ, "PYTHONPATH": str(ROOT), "RAY_AUTH_MODE": "disabled"}


def replay(env: CoqEnvironment, theorem, script: str) -> object:
    """Run the printed script line by line in a fresh coqtop session; the last result."""
    with env.open(theorem) as (session, state):
        result: object = state
        for line in script.splitlines():
            assert isinstance(result, TacticState), f"{theorem.full_name}: {line!r} after {result!r}"
            result = session.run_tac(result, line.strip())
        return result


def test_demo_prints_its_count_and_proofs_that_coq_accepts_and_no_warning(private_cache):
    """Each printed proof is replayed in a fresh coqtop session and must close its lemma.

    The demo then prints what ``hammer`` alone proved of the same lemmas.

    Fails if the count line counts attempted lemmas instead of proved ones (seen: ``assert 2 == 4``),
    or if a printed script is not the proof found (seen with the demo printing the first line and
    then ``simpl.``: coqtop has no goal left for the second line). Fails too if stderr holds
    anything but progress bars, with nothing in the input to warn about: seen were Ray's notice on
    token authentication, Ray's "Started a local Ray instance.", each worker's warning that the
    stdlib is not traced and a ``RuntimeWarning`` with its source line for a stdlib statement that
    no longer parses after the context additions. (A few files are traced first, and
    ``--no-trace`` keeps the demo from tracing the rest; Ray's authentication mode is left to the
    demo, as for a user who never set it.)
    """
    from prover.coq.first_trace import trace_untraced

    assert trace_untraced(1, lambda line: None, files=["Bool/DecBool.v", "Bool/IfProp.v"]) == 2
    # 8 s, not 3: no tactic runs past a search's clock, and a proof found in 1-2 s on an idle
    # machine (two of these four) may take several under the suite's load
    limit, seconds = 4, 8
    env = {name: value for name, value in subprocess_env().items() if name != "RAY_AUTH_MODE"}
    done = subprocess.run(
        [sys.executable, "-m", "prover.cli", "demo", "--limit", str(limit), "--timeout", str(seconds),
         "--max-expansions", "20", "--workers", "2", "--no-trace"],
        cwd=ROOT, env=env, capture_output=True, text=True, timeout=400)
    assert done.returncode == 0, done.stderr[-2000:]
    noise = [line for line in re.split(r"[\r\n]", done.stderr)
             if line.strip() and not re.match(r"(default prover|hammer alone): +\d+%\|", line)]
    assert noise == [], done.stderr[-3000:]
    out = done.stdout
    assert re.search(rf"^Coq stdlib, test split: \d+ lemmas with library proofs of at most 3 sentences; "
                     rf"attempting {limit} of them \({seconds}s and 20 expansions each, 2 workers\)$", out, re.MULTILINE), out
    count = re.search(rf"^proved (\d+) of {limit} lemmas in \d+s; every proof re-checked by coqc and coqchk, assuming only "
                      r"the axioms of prover/coq/trusted_axioms\.py$", out, re.MULTILINE)
    assert count, out
    blocks = PROVED_BLOCK.findall(out)
    assert len(blocks) == int(count.group(1)) >= 1, out
    hammer = re.search(rf"^hammer alone, {seconds}s per lemma, on the same lemmas: proved (\d+) of {limit} in \d+s \((\d+) of "
                       r"them reopened for CoqHammer, whose imports load their own module; a proof using the "
                       r"compiled theorem or a later object of its file is refused\)", out, re.MULTILINE)
    assert hammer and int(hammer.group(1)) <= limit and int(hammer.group(2)) <= limit, out
    with CoqEnvironment(tactic_timeout=10) as env:
        by_name = {t.extra["qualified_name"]: t for t in stdlib_theorems("test", env.index)}
    for name, path, line, indented in blocks:
        theorem = by_name[name]
        assert (theorem.file_path.endswith(path), theorem.position[0]) == (True, int(line))
        lines = [text[4:] for text in indented.splitlines()]
        # a proof printed with context additions (``sauto`` needs CoqHammer's Tactics) names them first
        printed = {text[len(ANNOTATION):-len(" *)")] for text in lines if text.startswith(ANNOTATION)}
        chosen = tuple(n for n, a in ADDITIONS.items() if a.sentences[0] in printed)
        script = "\n".join(text for text in lines if not text.startswith(ANNOTATION))
        with CoqEnvironment(tactic_timeout=10, additions=chosen) as env:
            assert isinstance(replay(env, theorem, script), ProofFinished), f"{name}:\n{indented}"


UNTRACED = ("warning: the Coq stdlib is not traced here, so kNN and proof retrieval are left out of the default "
            "prover; run `dojo-prover trace --env coq` once to enable them")


def test_an_untraced_stdlib_is_said_once_where_searching_starts_and_never_for_bad_input(private_cache, tmp_path):
    """With the stdlib not traced (a cache of the test's own), ``prove`` of a name that is no
    theorem exits 2 with its one-line error and nothing else, ``prove`` and ``eval`` of a theorem
    say once, before searching, that the stdlib is not traced, and ``eval`` resumed on a finished
    run, which searches nothing, says nothing. Fails if the warning is given where the run is
    configured (seen: a resumed ``eval`` warned with nothing to search, and ``prove`` had to hold
    the warning back until the name was resolved) or by every worker."""
    def cli(*argv: str) -> tuple[int, list[str]]:
        done = subprocess.run([sys.executable, "-m", "prover.cli", *argv], cwd=ROOT, env=subprocess_env(),
                              capture_output=True, text=True, timeout=600)
        return done.returncode, done.stderr.splitlines()

    code, err = cli("prove", "Nat.no_such_lemma_xyz")
    assert code == 2 and len(err) == 1 and err[0].startswith(
        "dojo-prover prove: error: no theorem 'Nat.no_such_lemma_xyz' in the Coq stdlib"), err
    assert cli("prove", "--timeout", "5", "Nat.add_0_l") == (0, [f"dojo-prover prove: {UNTRACED}"])
    listing = tmp_path / "one.json"
    listing.write_text(json.dumps([{"project": "coq-stdlib", "file": "Arith/PeanoNat.v", "name": "Nat.add_0_l"}]))
    run = ["eval", "--benchmark", str(listing), "--timeout", "5", "--out", str(tmp_path / "run"), "--no-progress"]
    assert cli(*run) == (0, [f"dojo-prover eval: {UNTRACED}"])
    assert cli(*run) == (0, [])


def test_eval_coq_with_two_workers_killed_by_sigkill_resumes_without_loss_or_duplicate(tmp_path):
    """``benchmarks/resume_soak.py``'s run (``eval --env coq --workers 2``, 2 attempts) on 4 lemmas:
    SIGKILL to its whole process group after its first result, then a resumed run to the end.

    Fails if resuming re-runs attempts already on disk (a duplicate line, or a recorded outcome
    replaced: seen with ``_run_locked`` ignoring ``done``) or skips attempts not yet done (a lost
    (theorem, attempt)).
    """
    args = argparse.Namespace(env="coq", workers=2, limit=4, timeout=5.0, latency=0.0)
    out = tmp_path / "run"
    expected = {(theorem_key(t), a) for t in load_benchmark("coq-stdlib:test", args.limit) for a in range(2)}
    assert len(expected) == 8
    proc = resume_soak.start(out, args)
    resume_soak.wait_for_lines(out, 1, proc)
    assert proc.poll() is None, "the run ended before it could be killed"
    os.killpg(proc.pid, signal.SIGKILL)
    proc.wait()
    before, duplicates = resume_soak.outcomes(out)
    assert 1 <= len(before) < len(expected) and duplicates == 0, before
    final = resume_soak.start(out, args)
    assert final.wait(timeout=300) == 0
    after, duplicates = resume_soak.outcomes(out)
    assert (set(after), duplicates) == (expected, 0)
    assert {k: after[k] for k in before} == before  # what the killed run recorded stands
