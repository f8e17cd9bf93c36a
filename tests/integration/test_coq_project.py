"""Coq projects: the fixture project ``tests/fixtures/coqproj`` (``-Q theories Foo``,
A <- B <- C, Qed lemmas, ``add_zero_right`` admitted and provable, ``excluded_middle`` admitted and
not provable) indexed, built, verified, traced, evaluated and filled with real coqc/coqtop/coqchk."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest

from coq_projects import as_read
from prover.cli import main
from prover.coq.build import build_project, project_index
from prover.coq.project import ProjectError, load_project
from search_tree.errors import UserError

FIXTURE = Path(__file__).parents[1] / "fixtures" / "coqproj"


@pytest.fixture
def proj(tmp_path, private_cache):
    """A fresh copy of the fixture (builds write .vo beside the sources) and a private cache."""
    root = tmp_path / "coqproj"
    shutil.copytree(FIXTURE, root)
    return root


def test_index_covers_qed_and_admitted_with_logical_names(proj):
    """Fails if the _CoqProject's -Q is not read (module names), if the build does not pass the
    flags to coqc (B.v cannot Require Foo.A), if a current .vo is rebuilt, or if Admitted lemmas
    are dropped from the index or mixed with the proved theorems."""
    project = load_project(str(proj))
    assert project.module("theories/B.v") == "Foo.B"
    first = build_project(project, progress=False)
    assert sorted(first.compiled) == ["theories/A.v", "theories/B.v", "theories/C.v"] and not first.failed
    assert build_project(project, progress=False).compiled == []
    index = project_index(project, progress=False)
    assert [t.full_name for t in index.theorems()] == ["double_zero", "double_succ", "double_plus", "double_one",
                                                       "double_two"]
    assert [(t.extra["qualified_name"], t.extra["admitted"]) for t in index.admitted()] == [
        ("Foo.B.add_zero_right", True), ("Foo.C.excluded_middle", True)]


def test_no_coqproject_and_no_flags_says_how_to_give_them(tmp_path):
    """Fails if a directory without _CoqProject is accepted (its files would have no logical names),
    or flags that bind a directory that is not there (coqc would only warn)."""
    (tmp_path / "bare").mkdir()
    with pytest.raises(ProjectError, match=r"no _CoqProject and no load-path flags.*--flags '-Q theories Foo'"):
        load_project(str(tmp_path / "bare"))
    with pytest.raises(ProjectError, match=r"^--flags: -Q theories Bar: no such directory$"):
        load_project(str(tmp_path / "bare"), ("-Q", "theories", "Bar"))
    (tmp_path / "bare" / "theories").mkdir()
    explicit = load_project(str(tmp_path / "bare"), ("-Q", "theories", "Bar"))
    assert explicit.load_args[0] == "-Q" and explicit.load_args[2] == "Bar"


def test_a_file_that_does_not_compile_is_named_and_only_its_theorems_skipped(proj):
    """Fails if coqc's error is not reported for the broken file, or if one broken file drops the
    whole project (or keeps its own theorems)."""
    (proj / "theories" / "C.v").write_text("Require Import Foo.B.\nLemma broken : nosuch = 0.\nProof. Qed.\n")
    index = project_index(load_project(str(proj)), progress=False)
    assert list(index.failed) == ["theories/C.v"]
    assert "The reference nosuch was not found" in index.failed["theories/C.v"]
    assert {t.file_path for t in index.theorems()} == {"theories/A.v", "theories/B.v"}


def test_verify_names_a_used_project_axiom(proj):
    """Fails if coqc/coqchk do not get the project's flags (nothing would verify), or if a proof
    that uses an admitted lemma of another file is accepted instead of named."""
    from prover.coq.env import CoqEnvironment
    from search_tree.protocol import linear_proof

    with CoqEnvironment(project=str(proj)) as env:
        theorem = env.theorem("double_two")
        assert env.verify(theorem, linear_proof(["reflexivity."])).ok
        cheat = env.verify(theorem, linear_proof(["pose proof (add_zero_right 0) as H.", "reflexivity."]))
        assert not cheat.ok and "not proved (assumes Foo.B.add_zero_right)" in cheat.message


def test_a_theorem_after_an_unused_admitted_lemma_of_its_file_is_proved(proj):
    """``double_one`` follows the admitted ``add_zero_right`` in B.v. Fails if that lemma, unused,
    refuses ``reflexivity`` (coqchk lists it, used or not: every theorem after an ``Admitted`` of
    its file was unprovable), or if a proof through it is accepted."""
    from prover.coq.env import CoqEnvironment
    from search_tree.protocol import linear_proof

    with CoqEnvironment(project=str(proj)) as env:
        theorem = env.theorem("double_one")
        honest = env.verify(theorem, linear_proof(["reflexivity."]))
        assert honest.ok and honest.axioms == (), honest
        cheat = env.verify(theorem, linear_proof(["pose proof (add_zero_right 0) as H.", "reflexivity."]))
        assert not cheat.ok and cheat.message.startswith("not proved (assumes Foo.B.add_zero_right)"), cheat


def _cli(*argv: str) -> int:
    return main(list(argv))


def test_cli_traces_evaluates_and_fills_the_fixture(proj, tmp_path, capsys):
    """Fails if tracing, evaluation or fill-admitted cannot take a project; if the default patch
    mode writes the file; if the provable admitted lemma is not filled with --write (or the project
    no longer builds); or if the unprovable one's file changes."""
    assert _cli("trace", "--project", str(proj), "--out", str(tmp_path / "traced")) == 0
    traced = json.loads((tmp_path / "traced" / "train.json").read_text())
    assert {r["full_name"] for r in traced} >= {"double_plus", "double_two"}
    assert _cli("eval", "--benchmark", f"coq-project:{proj}", "--generator", "automation", "--timeout", "20",
                "--out", str(tmp_path / "eval"), "--no-progress") == 0
    statuses = {json.loads(x)["key"]: json.loads(x)["status"] for x in (tmp_path / "eval" / "results.jsonl").open()}
    assert statuses["theories/C.v::double_two"] == "proved"
    original_b, original_c = (proj / "theories/B.v").read_text(), (proj / "theories/C.v").read_text()
    run = tmp_path / "fill"
    assert _cli("fill-admitted", str(proj), "--out", str(run), "--timeout", "20", "--no-progress") == 0
    assert (proj / "theories/B.v").read_text() == original_b
    patch = (tmp_path / "fill.diff").read_text()
    assert "+++ b/theories/B.v" in patch and "+Qed." in patch and "theories/C.v" not in patch
    assert _cli("fill-admitted", str(proj), "--out", str(run), "--timeout", "20", "--no-progress", "--write") == 0
    table = as_read(capsys.readouterr().out)  # the table is Markdown
    assert "| add_zero_right | theories/B.v | yes |" in table
    assert "| excluded_middle | theories/C.v | no |" in table
    assert "Admitted." not in (proj / "theories/B.v").read_text()
    assert (run / "backup" / "theories" / "B.v").read_text() == original_b
    assert (proj / "theories/C.v").read_text() == original_c
    built = subprocess.run(["coqc", "-Q", str(proj / "theories"), "Foo", str(proj / "theories" / "C.v")],
                           capture_output=True, text=True)
    assert built.returncode == 0, built.stderr


def test_cli_unknown_admitted_lemma_lists_close_matches(proj, tmp_path, capsys):
    """Fails if a misspelt --theorems name is not answered with close matches (exit 2, one line)."""
    assert _cli("fill-admitted", str(proj), "--out", str(tmp_path / "r"), "--theorems", "add_zero_rigth",
                "--no-progress") == 2
    assert "did you mean add_zero_right" in capsys.readouterr().err


def test_benchmark_listing_file(proj, tmp_path):
    """Fails if a JSONL listing of (project, file, name) is not a benchmark, or an unknown name in
    it is not reported with its entry and close matches."""
    from prover.benchmarks.registry import load_benchmark

    listing = tmp_path / "mine.jsonl"
    listing.write_text(json.dumps({"project": str(proj), "file": "theories/C.v", "name": "double_two"}) + "\n")
    assert [t.extra["qualified_name"] for t in load_benchmark(str(listing))] == ["Foo.C.double_two"]
    listing.write_text(json.dumps({"project": str(proj), "file": "theories/C.v", "name": "double_tw"}) + "\n")
    with pytest.raises(UserError, match=r"entry 1: no theorem 'double_tw'.*did you mean double_two"):
        load_benchmark(str(listing))
