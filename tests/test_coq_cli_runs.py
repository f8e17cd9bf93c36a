"""The README's Coq jobs run end to end as a user starts them: ``dojo-prover demo``, and
``dojo-prover eval --env coq --workers 2`` killed with SIGKILL and resumed.

Real coqtop, coqc and Ray in subprocesses; small on purpose (a few easy stdlib lemmas, short
limits), so each test takes well under a minute on two cores.
"""

from __future__ import annotations

import os
import re
import shutil
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from prover.coq.env import CoqEnvironment
from prover.coq.stdlib import stdlib_theorems
from search_tree import ProofFinished, TacticState

ROOT = Path(__file__).resolve().parent.parent

pytestmark = [
    pytest.mark.coq,
    pytest.mark.slow,
    pytest.mark.skipif(shutil.which("coqtop") is None or shutil.which("coqc") is None,
                       reason="coqtop/coqc not on PATH (scripts/setup.sh installs Coq)"),
]

PROVED_BLOCK = re.compile(r"^proved (\S+) \((\S+):(\d+)\) in [\d.]+s:\n((?:    .*\n)+)", re.MULTILINE)


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


def test_demo_prints_its_count_and_proofs_that_coq_accepts():
    """Each printed proof is replayed in a fresh coqtop session and must close its lemma.

    Fails if the count line counts attempted lemmas instead of proved ones (seen: ``assert 2 == 4``),
    or if a printed script is not the proof found (seen with the demo printing the first line and
    then ``simpl.``: coqtop has no goal left for the second line).
    """
    limit = 4
    done = subprocess.run(
        [sys.executable, "-m", "prover.cli", "demo", "--limit", str(limit), "--timeout", "3",
         "--max-expansions", "20"],
        cwd=ROOT, env=subprocess_env(), capture_output=True, text=True, timeout=240)
    assert done.returncode == 0, done.stderr[-2000:]
    out = done.stdout
    assert re.search(rf"^Coq stdlib, test split: \d+ lemmas with library proofs of at most 3 sentences; "
                     rf"attempting {limit} of them \(3s and 20 expansions each\)$", out, re.MULTILINE), out
    count = re.search(rf"^proved (\d+) of {limit} lemmas in \d+s; every proof re-checked by coqc with no axioms "
                      r"beyond the stdlib's$", out, re.MULTILINE)
    assert count, out
    blocks = PROVED_BLOCK.findall(out)
    assert len(blocks) == int(count.group(1)) >= 1, out
    with CoqEnvironment(tactic_timeout=10) as env:
        by_name = {t.extra["qualified_name"]: t for t in stdlib_theorems("test", env.index)}
        for name, path, line, indented in blocks:
            theorem = by_name[name]
            assert (theorem.file_path.endswith(path), theorem.position[0]) == (True, int(line))
            script = "\n".join(text[4:] for text in indented.splitlines())
            assert isinstance(replay(env, theorem, script), ProofFinished), f"{name}:\n{script}"
