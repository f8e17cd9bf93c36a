"""The first-use trace of what the default prover learns from (``trace_first``), as the commands
run it: ``fill-admitted`` traces like ``eval`` and ``prove``, before its first search and after
its cheap checks, and Ctrl-C during it exits 130. The project, the trace and the run are faked
here (no Coq): what is tested is when the commands trace and what they do after."""

from __future__ import annotations

from types import SimpleNamespace

import pytest

import prover.commands.eval as eval_command
import prover.commands.fill_admitted as fill_command
import prover.run.evaluation as evaluation
from prover.cli import main
from search_tree import Theorem

ADMITTED = [Theorem("add_zero_right", "theories/B.v", (9, 0), "Lemma add_zero_right : forall n, n + 0 = n.")]


class _Ran(Exception):
    """Raised by the faked run_evaluation: the command got as far as its searches."""


@pytest.fixture
def fake_fill(monkeypatch) -> list[tuple]:
    """``fill-admitted`` over a faked project with one admitted lemma; returns the calls, in order,
    to the (faked) trace and run."""
    calls: list[tuple] = []
    project = SimpleNamespace(name="Foo", spec="/p", failed={}, admitted=lambda files, names: list(ADMITTED))
    filler = SimpleNamespace(open=lambda *args: project)
    monkeypatch.setattr(fill_command, "require", lambda *args: SimpleNamespace(load=lambda feature: filler))

    def run_evaluation(config, theorems, out, **kw):
        calls.append(("run", theorems))
        raise _Ran

    monkeypatch.setattr(evaluation, "run_evaluation", run_evaluation)
    return calls


def _trace(calls: list[tuple], answer: int | None):
    def trace_first(env, workers, theorems=None, progress=True):
        calls.append(("trace", env, theorems))
        return answer
    return trace_first


def test_fill_admitted_traces_the_project_before_its_first_search(fake_fill, monkeypatch, tmp_path):
    """Fails if ``fill-admitted`` runs the default prover on a project without first tracing, for
    the lemmas it fills, the project's proofs the prover learns from (as ``eval`` and ``prove`` do)."""
    monkeypatch.setattr(eval_command, "trace_first", _trace(fake_fill, 2))
    with pytest.raises(_Ran):
        main(["fill-admitted", "/p", "--out", str(tmp_path / "run"), "--no-progress"])
    assert fake_fill == [("trace", "coq", ADMITTED), ("run", ADMITTED)]


@pytest.mark.parametrize("flags, resumed", [(["--no-trace"], False), (["--generator", "automation"], False),
                                            ([], True)])
def test_fill_admitted_does_not_trace_when_told_not_to_or_resumed(fake_fill, monkeypatch, tmp_path, flags, resumed):
    """Fails if ``fill-admitted`` traces with ``--no-trace``, for a prover other than the default, or
    for a run directory it resumes (which keeps the traces its config.json records)."""
    monkeypatch.setattr(eval_command, "trace_first", _trace(fake_fill, 2))
    out = tmp_path / "run"
    if resumed:
        out.mkdir()
        (out / "config.json").write_text("{}")
    with pytest.raises(_Ran):
        main(["fill-admitted", "/p", "--out", str(out), "--no-progress", *flags])
    assert fake_fill == [("run", ADMITTED)]


def test_ctrl_c_during_fill_admitteds_trace_exits_130_without_searching(fake_fill, monkeypatch, tmp_path):
    """Fails if Ctrl-C during ``fill-admitted``'s first-use trace (``trace_first`` answers None)
    does not end the command with 130, as for ``eval`` and ``prove``, or the searches still run."""
    monkeypatch.setattr(eval_command, "trace_first", _trace(fake_fill, None))
    assert main(["fill-admitted", "/p", "--out", str(tmp_path / "run"), "--no-progress"]) == 130
    assert fake_fill == [("trace", "coq", ADMITTED)]


def test_fill_admitted_refuses_a_bad_out_before_building_the_project(monkeypatch, tmp_path, capsys):
    """Fails if ``fill-admitted`` builds (and would trace) the project before refusing an ``--out``
    that is a file: one line, exit 2, nothing opened."""
    opened: list[object] = []
    monkeypatch.setattr(fill_command, "require", lambda *args: opened.append(args))
    out = tmp_path / "run"
    out.write_text("a file")
    assert main(["fill-admitted", "/p", "--out", str(out), "--no-progress"]) == 2
    assert opened == [] and len(capsys.readouterr().err.strip().splitlines()) == 1


def test_trace_first_turns_ctrl_c_into_none(monkeypatch):
    """Fails if Ctrl-C in a backend's first-use trace escapes :func:`trace_first` (a traceback)
    instead of becoming None, which every command turns into exit 130."""
    def build(workers, announce, progress=True, **kw):
        raise KeyboardInterrupt

    backend = SimpleNamespace(provides=lambda feature: True, load=lambda feature: build)
    monkeypatch.setattr("prover.backends.backend", lambda name: backend)
    assert eval_command.trace_first("coq", 1, list(ADMITTED)) is None


def test_ctrl_c_during_coq_vs_hammers_trace_exits_130_with_its_one_line(monkeypatch, tmp_path, capsys):
    """Fails if Ctrl-C during ``benchmarks/coq_vs_hammer.py``'s first-use trace ends otherwise than
    the CLI's: exit 130 and only the trace's own line saying how far it got (it added a second,
    that the run directories hold the results so far, before any run had started)."""
    from benchmarks import coq_vs_hammer

    def trace_untraced(workers, announce, theorems=None, **kw):
        announce("interrupted: 0 of 2 files traced into CACHE; the next run traces the other 2")
        raise KeyboardInterrupt

    monkeypatch.setattr("prover.benchmarks.registry.load_benchmark", lambda name, limit=None: list(ADMITTED))
    monkeypatch.setattr("prover.coq.first_trace.trace_untraced", trace_untraced)
    with pytest.raises(SystemExit) as stopped:
        coq_vs_hammer.interruptible(["--benchmark", "coq-project:/p", "--limit", "1", "--only", "default",
                                     "--out", str(tmp_path)])
    assert stopped.value.code == 130
    assert capsys.readouterr().err.splitlines() == [
        "interrupted: 0 of 2 files traced into CACHE; the next run traces the other 2"]


def test_a_trace_stopped_before_its_split_files_does_not_count_as_traced(tmp_path, monkeypatch):
    """Fails if a project whose first trace was stopped (Ctrl-C) after its corpus and some files'
    traces, before the split files kNN reads, counts as traced: a later run (``--no-trace``) would
    then learn from none of its proofs and not say so. Once the tracer's split files are there
    (what a finished trace writes last, before its metadata), it counts."""
    from prover.coq.env import CoqEnvironment
    from prover.coq.project import load_project
    from prover.coq.split import SPLITS
    from prover.coq.tracer import is_traced, traced_data_dir

    monkeypatch.setenv("DOJO_PROVER_CACHE", str(tmp_path / "cache"))
    root = tmp_path / "proj"
    (root / "theories").mkdir(parents=True)
    (root / "_CoqProject").write_text("-Q theories Foo\n")
    (root / "theories" / "A.v").write_text("Lemma a : True.\nProof. exact I. Qed.\n")
    out = traced_data_dir(load_project(str(root)))
    (out / "files" / "theories").mkdir(parents=True)
    (out / "corpus.jsonl").write_text("")  # written first, as ensure_traced does
    (out / "files" / "theories" / "A.v.json").write_text("{}")

    def project_line() -> list[str]:
        return [line for line in CoqEnvironment.missing_traces({"project": str(root)}) if "Coq project" in line]

    assert not is_traced(out) and len(project_line()) == 1
    for split in SPLITS[:-1]:  # stopped between two split files
        (out / f"{split}.json").write_text("[]")
    assert not is_traced(out) and len(project_line()) == 1
    (out / f"{SPLITS[-1]}.json").write_text("[]")
    assert is_traced(out) and project_line() == []
