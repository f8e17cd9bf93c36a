"""A project's own proofs traced where the default prover first proves its theorems (``eval``,
``prove``; :func:`prover.coq.first_trace.trace_untraced` given the theorems): only the files those
theorems may learn from, into the directory ``trace --project`` writes, once.

Real coqc/coqtop on the fixture project (``tests/fixtures/coqproj``: A <- B <- C) in a cache of the
test's own, where the stdlib is not traced.
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = [pytest.mark.coq, pytest.mark.slow]

ROOT = Path(__file__).resolve().parents[2]
FIXTURE = ROOT / "tests" / "fixtures" / "coqproj"
ANNOUNCED = re.compile(r"kNN and proof retrieval, part of the default prover, learn from the traced proofs of Coq "
                       r"project (\S+): tracing its (\d+) files? not traced yet into (\S+), once, on 1 worker "
                       r"\(Ctrl-C stops it; the next run goes on from there\)")


@pytest.fixture
def proj(tmp_path, private_cache) -> Path:
    """A fresh copy of the fixture (a build writes .vo beside the sources) and a private cache."""
    root = tmp_path / "coqproj"
    shutil.copytree(FIXTURE, root)
    return root


def cli(*argv: str) -> tuple[int, str, str]:
    """``dojo-prover ARGV`` as a user runs it (this test's cache, via the environment)."""
    import os

    env = {**os.environ, "PYTHONPATH": str(ROOT), "RAY_AUTH_MODE": "disabled"}
    done = subprocess.run([sys.executable, "-m", "prover.cli", *argv], cwd=ROOT, env=env, capture_output=True,
                          text=True, timeout=600)
    return done.returncode, done.stdout, done.stderr


def test_first_use_traces_the_files_a_projects_theorems_learn_from_once(proj):
    """Fails if tracing for a theorem of ``B.v`` traces anything but ``A.v`` and ``B.v`` (the file
    and what it imports; ``C.v`` imports ``B.v``, so no theorem of ``B.v`` may learn from it), says
    nothing (or more than one line) before it, traces anywhere but ``trace --project``'s directory,
    traces or says anything a second time, leaves the split files a stop removed unwritten (kNN reads
    them) or counts the project as traced without them, or does anything for stdlib theorems (their
    trace is the demo's); or if the default prover's traces do not include the project's own once it ran."""
    from prover.coq.build import project_index
    from prover.coq.env import CoqEnvironment
    from prover.coq.first_trace import trace_untraced
    from prover.coq.project import load_project
    from prover.coq.tracer import traced_data_dir, untraced_files

    project = load_project(str(proj))
    index = project_index(project, progress=False)
    double_plus = index.theorem("double_plus")
    assert CoqEnvironment.default_traces(theorems=[double_plus]) == []  # nothing traced: no learned member

    said: list[str] = []
    assert trace_untraced(1, said.append, theorems=[double_plus]) == 2
    assert len(said) == 1 and ANNOUNCED.fullmatch(said[0]), said
    assert ANNOUNCED.fullmatch(said[0]).groups()[1:] == ("2", str(traced_data_dir(project)))
    assert untraced_files(project=project) == ["theories/C.v"]
    assert CoqEnvironment.default_traces(theorems=[double_plus]) == [str(traced_data_dir(project))]
    traced = json.loads((traced_data_dir(project) / "train.json").read_text()) + json.loads(
        (traced_data_dir(project) / "val.json").read_text()) + json.loads(
        (traced_data_dir(project) / "test.json").read_text())
    assert {r["full_name"] for r in traced} == {"double_zero", "double_succ", "double_plus", "double_one"}

    said.clear()  # traced: nothing again, nothing said
    assert trace_untraced(1, said.append, theorems=[double_plus]) == 0 and said == []
    (traced_data_dir(project) / "train.json").unlink()  # stopped after the last file, before the splits
    assert CoqEnvironment.default_traces(theorems=[double_plus]) == []  # not counted as traced meanwhile
    assert trace_untraced(1, said.append, theorems=[double_plus]) == 0 and said == []
    assert (traced_data_dir(project) / "train.json").is_file()  # written again, or kNN would never see them
    stdlib = CoqEnvironment().theorem("Nat.add_0_l")
    assert trace_untraced(1, said.append, theorems=[stdlib]) == 0 and said == []


def test_eval_and_prove_trace_a_project_on_first_use_unless_told_not_to(proj, tmp_path):
    """Fails if ``prove --no-trace`` or ``eval --no-trace`` traces, or does not warn that the project is
    not traced; if ``prove`` does not trace the theorem's files first (one line on stdout) and then
    learn from them (no such warning); if an ``eval`` started before that cannot be resumed (seen: its
    default traces, worked out again, differed from those its config.json recorded, and the run was
    refused as another) or traces when resumed; or if a new ``eval`` of the whole project does not
    trace the rest."""
    from prover.coq.project import load_project
    from prover.coq.tracer import traced_data_dir, untraced_files

    project = load_project(str(proj))
    # proved or not (exit 0 or 1), each searches; only the traces are asked about here
    code, out, err = cli("prove", "--project", str(proj), "--timeout", "5", "--no-trace", "double_plus")
    assert code in (0, 1) and not ANNOUNCED.search(out), out + err
    assert "is not traced, so kNN and proof retrieval learn from" in err, err
    started = ["eval", "--benchmark", f"coq-project:{proj}", "--limit", "2", "--timeout", "5", "--no-progress",
               "--out", str(tmp_path / "started")]
    code, out, err = cli(*started, "--no-trace")
    assert code == 0 and not ANNOUNCED.search(out) and "is not traced, so" in err, out + err
    assert not traced_data_dir(project).exists()
    (tmp_path / "started" / "results.jsonl").write_text("")  # as if stopped before its first result

    code, out, err = cli("prove", "--project", str(proj), "--timeout", "5", "double_plus")
    assert code in (0, 1), out + err
    announced = [m.groups() for m in map(ANNOUNCED.fullmatch, out.splitlines()) if m]
    assert [groups[1] for groups in announced] == ["2"], out
    assert "is not traced, so" not in err and untraced_files(project=project) == ["theories/C.v"], err

    code, out, err = cli(*started)  # resumed as it started: without the project's traces, tracing nothing
    assert code == 0 and not ANNOUNCED.search(out), out + err
    assert untraced_files(project=project) == ["theories/C.v"]

    code, out, err = cli("eval", "--benchmark", f"coq-project:{proj}", "--timeout", "5", "--no-progress",
                         "--out", str(tmp_path / "all"))  # a new run of the whole project: the rest traced first
    assert code == 0 and [m.groups()[1] for m in map(ANNOUNCED.fullmatch, out.splitlines()) if m] == ["1"], out + err
    assert untraced_files(project=project) == [] and "file/s" not in err, err  # --no-progress: no bar while tracing


def test_fill_admitted_traces_the_files_its_lemmas_learn_from_on_first_use(proj, tmp_path):
    """Fails if ``fill-admitted`` searches a project's admitted lemmas with the default prover
    without first tracing, once, the files they may learn from (``add_zero_right`` of ``B.v``:
    ``A.v`` and ``B.v``), saying so in one line, as ``eval`` and ``prove`` do."""
    from prover.coq.project import load_project
    from prover.coq.tracer import untraced_files

    fill = ["fill-admitted", str(proj), "--theorems", "add_zero_right", "--timeout", "10", "--no-progress"]
    code, out, err = cli(*fill, "--out", str(tmp_path / "fill"))
    assert code == 0, out + err
    assert [m.groups()[1] for m in map(ANNOUNCED.fullmatch, out.splitlines()) if m] == ["2"], out
    assert untraced_files(project=load_project(str(proj))) == ["theories/C.v"]
    code, out, err = cli(*fill, "--out", str(tmp_path / "again"))  # traced: nothing again
    assert code == 0 and not ANNOUNCED.search(out), out + err
