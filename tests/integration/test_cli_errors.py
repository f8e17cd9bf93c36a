"""Bad input on the command line: exit status 2, exactly one line on stderr naming the input, no
traceback; and a rejected run leaves its ``--out`` free for the corrected command.

Coq cases use the real coqtop; run directories use the synthetic backend unless the option under
test belongs to Coq.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from prover.benchmarks.datasets import DatasetError
from prover.benchmarks.registry import UnknownBenchmark
from prover.cli import is_bad_input, main
from prover.lean.env import LeanNotInstalled
from prover.run.evaluation import InvalidRun
from retrieval.corpus import CorpusFormatError
from search_tree.errors import UserError
from search_tree.protocol import TheoremNotFound
from search_tree.registry import NotInstalled, UnknownName

ROOT = Path(__file__).resolve().parents[2]
SYNTHETIC = ["--env", "synthetic", "--benchmark", "synthetic:30", "--limit", "2", "--generator", "synthetic",
             "--max-expansions", "4", "--no-progress"]
COQ_TACTICS = ["--generator", "fixed", "--generator-opt", 'tactics=["auto"]']


def one_line_error(capsys, argv: list[str], *fragments: str) -> str:
    """Run the CLI on ``argv``; assert exit 2 and one stderr line holding every fragment (as a
    terminal shows it: a progress bar cleared by carriage returns takes no line)."""
    code = main(argv)
    err = capsys.readouterr().err
    assert code == 2, err
    assert "Traceback" not in err
    lines = [shown for line in err.split("\n") if (shown := line.rsplit("\r", 1)[-1]).strip()]
    assert len(lines) == 1, err
    for fragment in fragments:
        assert fragment in lines[0], lines[0]
    return lines[0]


def test_statement_coqtop_rejects_is_named(capsys):
    """Fails if a statement coqtop rejects reaches the search (it ended in a ValueError traceback)."""
    one_line_error(capsys, ["prove", "--statement", "Lemma x : nosuchthing.", "x"],
                   "dojo-prover prove: error: --statement 'Lemma x : nosuchthing.'",
                   "nosuchthing was not found")


def test_prelude_coqtop_rejects_is_named(capsys):
    """Fails if a prelude sentence Coq refuses surfaces as an EnvironmentFailure traceback."""
    one_line_error(capsys, ["prove", "--statement", "Lemma x : True.", "--prelude", "Require Import Nosuch.", "x"],
                   "with its --prelude", "'Require Import Nosuch.'")


@pytest.mark.parametrize("argv,fragments", [
    (["prove", "--statement", "Lemma x : True.", "--tactics", "auto", "x"], ["required: theorem", "--help"]),
    (["prove", "--timeout", "0", "Nat.le_0_l"], ["--timeout 0.0: must be positive"]),
    (["prove", "--timeout", "inf", "Nat.le_0_l"], ["--timeout inf: must be positive and finite"]),
    (["prove", "--hammer-timeout", "inf", "Nat.le_0_l"], ["--hammer-timeout inf: must be positive and finite"]),
    (["interact", "--tactic-timeout", "inf", "Nat.le_0_l"], ["--tactic-timeout inf: must be positive and finite"]),
    (["demo", "--timeout", "inf"], ["must be positive and finite"]),
    (["prove", "--prelude", "Require Import Arith.", "Nat.le_0_l"], ["--prelude needs --statement"]),
    (["prove", "Nat.no_such_lemma_xyz"], ["Nat.no_such_lemma_xyz"]),
])
def test_prove_usage_errors_are_one_line(capsys, argv, fragments):
    """Fails if argparse prints its usage block, or a check exits via SystemExit (status 1)."""
    one_line_error(capsys, argv, *fragments)


@pytest.mark.parametrize("bad,fixed,fragments", [
    (["--generator", "fixed"], ["--generator", "fixed", "--generator-opt", 'tactics=["step"]'],
     ["FixedTacticGenerator", "'tactics'", "nothing was recorded"]),
    (["--search-opt", "nosuch=1"], [], ["unexpected keyword argument 'nosuch'"]),
    (["--env-opt", "nosuch=1"], [], ["unexpected keyword argument 'nosuch'"]),
])
def test_bad_component_options_leave_out_free(tmp_path, capsys, bad, fixed, fragments):
    """Fails if config.json is written before the components are built from the options (the
    corrected rerun into the same --out was then refused as a different configuration)."""
    out = tmp_path / "run"
    one_line_error(capsys, ["eval", *SYNTHETIC, *bad, "--out", str(out)], *fragments)
    assert not (out / "config.json").exists()
    assert main(["eval", *SYNTHETIC, *fixed, "--out", str(out)]) == 0, capsys.readouterr().err
    assert json.loads((out / "config.json").read_text())["run"]["benchmark"] == "synthetic:30"


def test_bad_coq_option_value_leaves_out_free(tmp_path, capsys):
    """Fails if ``--env-opt tactic_timeout=-1`` is only found after config.json is written."""
    out = tmp_path / "coq"
    coq = ["--benchmark", "coq-stdlib:test", "--limit", "1", "--timeout", "5", "--no-progress", *COQ_TACTICS]
    one_line_error(capsys, ["eval", *coq, "--env-opt", "tactic_timeout=-1", "--out", str(out)],
                   "tactic_timeout must be positive, got -1")
    assert not (out / "config.json").exists()
    assert main(["eval", *coq, "--out", str(out)]) == 0, capsys.readouterr().err
    assert (out / "config.json").exists()


def test_a_run_searched_with_another_coq_is_not_resumed(tmp_path, capsys):
    """Fails if resuming a run whose ``provenance.json`` names another Coq goes on: its action logs
    would mix two provers, which ``learn --add-run`` then reads as one."""
    out = tmp_path / "coq"
    coq = ["--benchmark", "coq-stdlib:test", "--limit", "1", "--timeout", "5", "--no-progress", *COQ_TACTICS]
    assert main(["eval", *coq, "--out", str(out)]) == 0, capsys.readouterr().err
    recorded = json.loads((out / "provenance.json").read_text())
    (out / "provenance.json").write_text(json.dumps({**recorded, "coq_version": "8.18.0"}))
    one_line_error(capsys, ["eval", *coq, "--out", str(out)], "was searched with Coq 8.18.0", "would mix two provers")


@pytest.mark.parametrize("argv,fragments", [
    (["--benchmark", "coq-stdlib:nosuch"], ["--benchmark coq-stdlib:nosuch: unknown split 'nosuch'"]),
    (["--benchmark", "nosuch:test"], ["nosuch"]),
    (["--generator", "nosuch"], ["unknown generator 'nosuch'"]),
    (["--retriever", "nosuch"], ["unknown retriever 'nosuch'"]),
    (["--env", "nosuch"], ["unknown environment 'nosuch'"]),
    (["--search", "nosuch"], ["unknown search 'nosuch'"]),
    (["--env-opt", "latency"], ["--env-opt 'latency' is not KEY=VALUE"]),
    (["--temperatures", "hot"], ["--temperatures hot:"]),
    (["--timeout", "-1"], ["--timeout -1.0: must be positive"]),
    (["--max-expansions", "0"], ["--max-expansions 0: must be positive"]),
    (["--workers", "0"], ["workers must be at least 1, got 0"]),
    (["--attempts", "0"], ["attempts must be at least 1, got 0"]),
    (["--task-timeout", "0"], ["--task-timeout 0.0: must be positive"]),
])
def test_bad_names_and_syntax(tmp_path, capsys, argv, fragments):
    """Fails if a registry's or a benchmark's error reaches the user as a traceback or SystemExit, or
    if an out-of-range setting starts a run (``--workers 0`` ended in a ValueError traceback, and
    ``--timeout -1`` "ran" every search with no budget)."""
    base = ["--benchmark", "synthetic:30", "--limit", "1", "--no-progress", "--out", str(tmp_path / "r")]
    one_line_error(capsys, ["eval", *base, *argv], *fragments)
    assert not (tmp_path / "r" / "config.json").exists()


@pytest.fixture
def bad_corpus(tmp_path) -> Path:
    path = tmp_path / "corpus.jsonl"
    path.write_text(json.dumps({"path": "A.v", "imports": [], "premises": []}) + "\n{broken\n")
    return path


def test_malformed_corpus_line_is_named(tmp_path, capsys, bad_corpus):
    """Fails if the corpus's ValueError (its message names file and line) is not caught by the CLI."""
    one_line_error(capsys, ["retrieval-eval", "--corpus", str(bad_corpus), "--data", str(tmp_path / "x.json")],
                   f"{bad_corpus}:2: malformed corpus line")
    one_line_error(capsys, ["eval", *SYNTHETIC, "--retriever", "bm25", "--retriever-opt", f"corpus={bad_corpus}",
                            "--out", str(tmp_path / "r")], f"{bad_corpus}:2: malformed corpus line")


def test_missing_paths_are_named(tmp_path, capsys):
    """Fails if a missing file or run directory ends in a FileNotFoundError traceback."""
    missing = tmp_path / "nowhere"
    one_line_error(capsys, ["report", str(missing)], f"{missing} is not a run directory")
    one_line_error(capsys, ["retrieval-eval", "--corpus", str(missing), "--data", str(missing)], str(missing))


def _finished_run(tmp_path, capsys) -> tuple[Path, list[str]]:
    out = tmp_path / "run"
    assert main(["eval", *SYNTHETIC, "--out", str(out)]) == 0
    capsys.readouterr()
    return out, (out / "results.jsonl").read_text().splitlines()


def test_corrupt_middle_line_stops_resume_with_the_fix(tmp_path, capsys):
    """Fails if resume accepts (or tracebacks on) a corrupt line before the last, or does not say
    which line to delete; and if the deletion it advises does not let the attempt run again."""
    out, lines = _finished_run(tmp_path, capsys)
    results = out / "results.jsonl"
    results.write_text("\n".join([lines[0][:-5], *lines[1:]]) + "\n")
    one_line_error(capsys, ["eval", *SYNTHETIC, "--out", str(out)],
                   f"{results}:1 is not valid JSON", "delete line 1", f"sed -i '1d' {results}")
    results.write_text("\n".join([json.dumps({"key": "x"}), *lines[1:]]) + "\n")  # JSON, but not a record
    one_line_error(capsys, ["eval", *SYNTHETIC, "--out", str(out)], f"{results}:1 is a record without attempt")
    results.write_text("\n".join(lines[1:]) + "\n")
    assert main(["eval", *SYNTHETIC, "--out", str(out)]) == 0
    assert "1 now" in capsys.readouterr().out and len(results.read_text().splitlines()) == len(lines)


def test_report_skips_a_corrupt_line_with_a_warning_and_counts_it(tmp_path, capsys):
    """Fails if ``report`` stops at a corrupt middle line, or skips it silently (no warning, no count)."""
    out, lines = _finished_run(tmp_path, capsys)
    results = out / "results.jsonl"
    results.write_text("\n".join([lines[0], "[1, 2]", *lines[1:]]) + "\n")
    assert main(["report", str(out)]) == 0
    err = capsys.readouterr().err.splitlines()
    assert len(err) == 1 and err[0].startswith("dojo-prover report: warning: skipped ")
    assert f"{results}:2 is a JSON list, not a record" in err[0]
    report = (out / "report.md").read_text()
    assert "| corrupt result lines skipped | 1 |" in report and f"| finished | {len(lines)} / " in report


def test_config_mismatch_is_one_line(tmp_path, capsys):
    """Fails if the configuration guard's message spans lines again."""
    out, _ = _finished_run(tmp_path, capsys)
    one_line_error(capsys, ["eval", *SYNTHETIC, "--timeout", "7", "--out", str(out)],
                   "different configuration", "prover.options.timeout: saved 60.0, now 7.0", "another --out")


def test_console_script_prints_no_traceback(tmp_path):
    """Fails if the error handling lives only in a test path and not in ``python -m prover.cli``."""
    proc = subprocess.run([sys.executable, "-m", "prover.cli", "eval", "--benchmark", "coq-stdlib:nosuch",
                           "--out", str(tmp_path / "r")], capture_output=True, text=True, cwd=ROOT, timeout=300)
    assert proc.returncode == 2 and "Traceback" not in proc.stderr
    assert proc.stderr.splitlines() == [
        "dojo-prover eval: error: --benchmark coq-stdlib:nosuch: unknown split 'nosuch'; "
        "expected one of ('train', 'val', 'test')"]


def test_bugs_are_not_bad_input():
    """Fails if the CLI would hide a bug's KeyError or TypeError behind a one-line message, or if
    it still needed a generic ``LookupError`` catch (a bare LookupError is a bug, not bad input)."""
    assert is_bad_input(UserError("x"))
    assert not any(is_bad_input(e) for e in (KeyError("k"), IndexError("i"), TypeError("t"), ValueError("v"),
                                            LookupError("l")))


@pytest.mark.parametrize("exc", [
    UnknownName("generator", "nosuch", ["template"]),
    NotInstalled("x:y is not available: module x is not installed"),
    UnknownBenchmark("unknown split 'nosuch'"),
    TheoremNotFound("no theorem 'nosuch'"),
    DatasetError("data file not found: x.json"),
    CorpusFormatError("corpus.jsonl:2: malformed corpus line"),
    InvalidRun("attempts must be at least 1, got 0"),
    LeanNotInstalled("cannot import lean_dojo"),
], ids=lambda exc: type(exc).__name__)
def test_every_bad_input_error_is_a_user_error(exc):
    """Fails if an error that reports bad input or an unknown name does not derive from
    :class:`UserError` (e.g. ``RegistryError`` back on ``LookupError`` alone): the CLI, which
    catches only ``UserError``, would print its traceback."""
    assert isinstance(exc, UserError) and is_bad_input(exc)


def _every_coq_command(project: str, out: Path) -> list[list[str]]:
    """trace, eval, fill-admitted and prove on ``project`` (a directory or ``coq-lib:NAME``)."""
    benchmark = project if project.startswith("coq-lib:") else f"coq-project:{project}"
    return [["trace", "--project", project, "--out", str(out)],
            ["eval", "--benchmark", benchmark, *COQ_TACTICS, "--no-progress", "--out", str(out)],
            ["fill-admitted", project, "--no-progress", "--out", str(out)],
            ["prove", "--project", project, "--timeout", "5", "b"]]


def test_a_library_that_is_not_installed_is_one_line_for_every_command(tmp_path, private_cache, capsys):
    """Fails if ``coq-lib:NAME`` of a library that is not installed is not one line naming it, how
    to get it (its Debian package; the installed spelling of a misspelt one) and the installed
    libraries, for each command, or if a command wrote anything first."""
    out = tmp_path / "out"
    for argv in _every_coq_command("coq-lib:NoSuchLibrary", out):
        one_line_error(capsys, argv, "no installed Coq library 'NoSuchLibrary'", "no Debian package provides it",
                       "installed: AAC_tactics, ")
    one_line_error(capsys, ["prove", "--project", "coq-lib:aac_tactics", "b"],
                   "'aac_tactics'", "it is installed as AAC_tactics; installed: ")
    assert not out.exists() and not (tmp_path / "out.diff").exists()


def test_a_project_requiring_a_library_that_is_not_installed_is_one_line_for_every_command(
        tmp_path, private_cache, capsys):
    """A _CoqProject project one of whose files requires a library that is not installed: fails
    unless every command stops with one line naming the file and the library before anything is
    compiled or written (its other file was once built and its theorems run, the missing library
    reported only as that file's coqc error). A -Q of a library directory that is not there is one
    line naming it too."""
    root = tmp_path / "proj"
    (root / "src").mkdir(parents=True)
    (root / "_CoqProject").write_text("-Q src Bad\n")
    (root / "src" / "A.v").write_text("From NoSuchLibrary Require Import Foo.\nLemma a : True.\nProof. exact I. Qed.\n")
    (root / "src" / "B.v").write_text("Lemma b : True.\nProof. exact I. Qed.\n")
    out = tmp_path / "out"
    for argv in _every_coq_command(str(root), out):
        one_line_error(capsys, argv, f"Coq project {root}: src/A.v requires NoSuchLibrary.Foo, but no library "
                                     "NoSuchLibrary is installed nor bound by the project (no Debian package provides it")
    assert not out.exists() and not (tmp_path / "out.diff").exists() and not list(root.rglob("*.vo"))
    from prover.coq.install import user_contrib

    bound = tmp_path / "bound"  # another root: a project is loaded once per process
    shutil.copytree(root / "src", bound / "src")
    (bound / "_CoqProject").write_text(f"-Q src Bad\n-Q {user_contrib() / 'NoSuchLibrary'} NoSuchLibrary\n")
    one_line_error(capsys, _every_coq_command(str(bound), out)[0],
                   f"{bound / '_CoqProject'}: -Q {user_contrib() / 'NoSuchLibrary'} NoSuchLibrary: no such directory: "
                   "the library NoSuchLibrary is not installed (no Debian package provides it")
