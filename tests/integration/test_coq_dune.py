"""dune-built Coq projects, read from their dune files without running dune: the fixture
``tests/fixtures/duneproj`` has two theories, ``Dn.Base`` (which uses the installed AAC_tactics)
and ``Dn.Top`` (which depends on both, requires a file of its own by its short name, and has one
provable and one unprovable admitted lemma), traced, evaluated, filled and proved with the real
coqc/coqtop/coqchk; plus a ``_CoqProject`` project whose files require installed libraries, put
through the same four commands."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from prover.cli import main
from prover.coq.dune import DuneError, read_sexps
from prover.coq.install import user_contrib
from prover.coq.project import load_project

FIXTURE = Path(__file__).parents[1] / "fixtures" / "duneproj"


@pytest.fixture
def proj(tmp_path, private_cache):
    """A fresh copy of the fixture (builds write .vo beside the sources) and a private cache."""
    root = tmp_path / "duneproj"
    shutil.copytree(FIXTURE, root)
    return root


def _cli(*argv: str) -> int:
    return main(list(argv))


def test_theories_are_bound_as_dune_binds_them(proj):
    """Fails if a theory's directory is not bound under its name, if an installed dependency is not
    bound with -Q (or the stdlib is), if (flags ...) loses its options or keeps :standard, or if
    the files and their logical names are not the theories'."""
    project = load_project(str(proj))
    assert project.load_args == ("-R", str(proj / "theories/Base"), "Dn.Base", "-R", str(proj / "theories/Top"),
                                 "Dn.Top", "-Q", str(user_contrib() / "AAC_tactics"), "AAC_tactics")
    assert project.options == ("-w", "-notation-overridden")
    assert {f: project.module(f) for f in project.source_files()} == {
        "theories/Base/Sums.v": "Dn.Base.Sums", "theories/Top/Facts.v": "Dn.Top.Facts",
        "theories/Top/Open.v": "Dn.Top.Open"}


def test_cli_traces_evaluates_fills_and_proves_the_dune_fixture(proj, tmp_path, capsys):
    """End to end through the CLI: fails if any of trace, eval, fill-admitted or prove cannot take
    a dune project, if a theory's files do not compile against the other theory and the installed
    library (every file traced, aac_reflexivity's proof among them), or if the provable admitted
    lemma is not filled while the unprovable one stays."""
    assert _cli("trace", "--project", str(proj), "--out", str(tmp_path / "traced")) == 0
    traced = [r for split in ("train", "val", "test")
              for r in json.loads((tmp_path / "traced" / f"{split}.json").read_text())]
    assert {r["full_name"] for r in traced} == {"triple_zero", "sum_swap", "triple_one", "triple_two"}
    assert _cli("eval", "--benchmark", f"coq-project:{proj}", "--generator", "automation", "--timeout", "20",
                "--out", str(tmp_path / "eval"), "--no-progress") == 0
    results = [json.loads(x) for x in (tmp_path / "eval" / "results.jsonl").open()]
    assert {r["key"]: r["status"] for r in results}["theories/Top/Open.v::triple_two"] == "proved"
    assert not [r for r in results if "environment_failure" in (r["result"]["stop_reason"] or "")]
    assert _cli("fill-admitted", str(proj), "--out", str(tmp_path / "fill"), "--timeout", "20", "--no-progress",
                "--write") == 0
    table = capsys.readouterr().out
    assert "| triple_succ_zero | theories/Top/Open.v | yes |" in table
    assert "| excluded_middle | theories/Top/Open.v | no |" in table
    assert (proj / "theories/Top/Open.v").read_text().count("Admitted.") == 1
    assert _kernel_axioms(load_project(str(proj)), "theories/Top/Open.v") >= {"Dn.Top.Open.excluded_middle"}
    assert "Dn.Top.Open.triple_succ_zero" not in _kernel_axioms(load_project(str(proj)), "theories/Top/Open.v")
    assert _cli("prove", "--project", str(proj), "--timeout", "20", "Dn.Base.Sums.sum_swap", "--tactics",
                "intros; aac_reflexivity.") == 0
    assert "intros; aac_reflexivity." in capsys.readouterr().out


def _kernel_axioms(project, path: str) -> set[str]:
    """The axioms coqchk finds in the compiled ``path`` (an admitted lemma is one), after coqc has
    compiled it again with the project's flags: fails unless the file compiles and the kernel
    accepts its ``.vo``."""
    root = project.root
    built = subprocess.run(["coqc", "-q", *project.coq_args, str(root / path)], capture_output=True, text=True,
                           cwd=root)
    assert built.returncode == 0, built.stderr
    checked = subprocess.run(["coqchk", "-o", "-silent", "-norec", project.module(path), *project.load_args],
                             capture_output=True, text=True, cwd=root)
    assert checked.returncode == 0, checked.stdout + checked.stderr
    summary = checked.stdout + checked.stderr
    axioms = summary.split("* Axioms:", 1)[1].split("* Constants", 1)[0]
    return set(axioms.split()) - {"<none>"}


@pytest.mark.parametrize("text, message", [
    ("(coq.theory\n (name Dn.Base)\n (theories AAC_tactics)", r"theories/Base/dune: cannot read the stanza starting at "
                                                                r"line 1: a '\(' is never closed$"),
    ("(coq.theory (theories AAC_tactics))", r"theories/Base/dune, \(coq.theory ...\) at line 1: needs \(name "
                                             r"Logical.Name\), got \(name\)$"),
    ("\n(coq.theory (name Dn.Base) (theories NoSuchLibrary))", r"theories/Base/dune, \(coq.theory ...\) at line 2: "
     r"theory Dn.Base depends on NoSuchLibrary, which is neither a theory of the project nor installed \(no Debian "
     r"package provides it; installed: .*AAC_tactics.*\)$"),
    ("(coq.theory (name Dn.Base) (flags (:standard)))", r"at line 1: \(flags ...\) must list names, got "
                                                         r"\(\(:standard\)\)$"),
    ("(rule (copy a b))\n(coq.theroy (name Dn.Base))", r"theories/Base/dune, \(coq.theroy ...\) at line 2: unknown "
                                                      r"stanza \(dune's Coq stanzas are coq.theory, coq.extraction"),
])
def test_a_bad_dune_file_is_one_line_naming_it_and_the_stanza(proj, tmp_path, capsys, text, message):
    """Fails if a dune file that cannot be read, a misspelt Coq stanza, a theory without a name, a
    dependency that is not installed or a malformed field is not a usage error (exit 2) of one line
    naming the file and the stanza, or if anything was built or written first."""
    (proj / "theories/Base/dune").write_text(text)
    assert _cli("trace", "--project", str(proj), "--out", str(tmp_path / "traced")) == 2
    err = capsys.readouterr().err.strip()
    assert "\n" not in err and str(proj) in err
    assert re.search(message, err), err
    assert not (tmp_path / "traced").exists() and not list(proj.rglob("*.vo"))


def test_the_s_expression_reader_takes_dune_syntax():
    """Comments (line, block, datum), quoted strings with escapes and nesting read as dune reads them."""
    text = '; comment\n(a "b c" #| block ( |# (d "e\\"f")) #;(skipped) g\n'
    assert read_sexps(text, "x") == [(2, ["a", "b c", ["d", 'e"f']]), (2, "g")]
    with pytest.raises(DuneError, match=r"x: cannot read line 1: '\)' closes no stanza"):
        read_sexps(")", "x")


def test_a_coq_project_requiring_installed_libraries_traces_evaluates_fills_and_proves(tmp_path, private_cache, capsys):
    """A _CoqProject project whose files require AAC_tactics and ExtLib, one file requiring the
    other, through the CLI: fails if any of trace, eval, fill-admitted or prove cannot open its
    files with the installed libraries found, or if a filled file does not compile or the kernel
    still takes its lemma for an axiom."""
    root = tmp_path / "uses_libs"
    (root / "src").mkdir(parents=True)
    (root / "_CoqProject").write_text("-Q src Uses\nsrc/M.v\nsrc/N.v\n")
    (root / "src" / "M.v").write_text("From AAC_tactics Require Import AAC Instances.\nImport Instances.Peano.\n"
                                      "Definition double (n : nat) : nat := n + n.\n"
                                      "Lemma swap3 : forall a b c : nat, a + (b + c) = c + (a + b).\n"
                                      "Proof. intros. aac_reflexivity. Qed.\n"
                                      "Lemma double_zero : double 0 = 0.\nAdmitted.\n")
    (root / "src" / "N.v").write_text("From ExtLib Require Import Data.Nat.\nFrom Uses Require Import M.\n"
                                      "Lemma wf_ok : well_founded R_nat_S.\nProof. exact wf_R_S. Qed.\n"
                                      "Lemma double_one : double 1 = 2.\nAdmitted.\n")
    assert _cli("trace", "--project", str(root), "--out", str(tmp_path / "traced")) == 0
    traced = [r for split in ("train", "val", "test")
              for r in json.loads((tmp_path / "traced" / f"{split}.json").read_text())]
    assert {r["full_name"] for r in traced} == {"swap3", "wf_ok"}
    fixed = ["--env-opt", "additions=", "--generator", "fixed", "--generator-opt",
             'tactics=[["intros; aac_reflexivity.", 0.0], ["exact wf_R_S.", -1.0], ["reflexivity.", -2.0]]',
             "--timeout", "20", "--no-progress"]
    assert _cli("eval", "--benchmark", f"coq-project:{root}", *fixed, "--out", str(tmp_path / "eval")) == 0
    statuses = {json.loads(x)["key"]: json.loads(x)["status"] for x in (tmp_path / "eval" / "results.jsonl").open()}
    assert statuses == {"src/M.v::swap3": "proved", "src/N.v::wf_ok": "proved"}
    assert _cli("fill-admitted", str(root), *fixed, "--out", str(tmp_path / "fill"), "--write") == 0
    table = capsys.readouterr().out
    assert "| double_zero | src/M.v | yes |" in table and "| double_one | src/N.v | yes |" in table
    project = load_project(str(root))
    axioms = _kernel_axioms(project, "src/M.v") | _kernel_axioms(project, "src/N.v")
    assert not {"Uses.M.double_zero", "Uses.N.double_one"} & axioms
    assert _cli("prove", "--project", str(root), "--timeout", "20", "Uses.N.wf_ok", "--tactics", "exact wf_R_S.") == 0
    assert "exact wf_R_S." in capsys.readouterr().out
