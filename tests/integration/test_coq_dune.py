"""dune-built Coq projects, read from their dune files without running dune: the fixture
``tests/fixtures/duneproj`` has two theories, ``Dn.Base`` (which uses the installed AAC_tactics)
and ``Dn.Top`` (which depends on both, requires a file of its own by its short name, and has one
provable and one unprovable admitted lemma), traced, evaluated, filled and proved with the real
coqc/coqtop/coqchk; ``tests/fixtures/dunebare`` has a ``(stdlib no)`` theory (a file that only
compiles without the Prelude, and one that is no module of it) beside one with the Prelude; plus
a ``_CoqProject`` project whose files require installed libraries, put through the same four
commands."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from coq_projects import as_read
from prover.cli import main
from prover.coq.additions import offered
from prover.coq.build import compile_file
from prover.coq.dune import DuneError, read_sexps
from prover.coq.env import CoqEnvironment
from prover.coq.install import user_contrib
from prover.coq.project import load_project
from search_tree import linear_proof
from search_tree.protocol import Theorem

FIXTURE = Path(__file__).parents[1] / "fixtures" / "duneproj"
BARE = Path(__file__).parents[1] / "fixtures" / "dunebare"


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
    table = as_read(capsys.readouterr().out)  # the table is Markdown
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
    ("(coq.theory (name Dn.Base) (flags (:include extra.sexp)))", r"at line 1: \(flags ...\) uses :include, which "
                                                                  r"depends on what dune alone evaluates"),
    ("(coq.theory (name Dn.Base) (modules Sums Nope))", r"at line 1: \(modules ...\) names Nope, which has no file "
                                                        r"theories/Base/Nope.v$"),
    ("(coq.theory (name Dn.Base) (stdlib maybe))", r"at line 1: \(stdlib ...\) must be yes or no, got "
                                                   r"\(stdlib maybe\)$"),
    ("(coq.theory (name Dn.Base) (boot))", r"at line 1: field \(boot ...\) is not read here: the theory is Coq's own "
                                           r"standard library; open it as coq-stdlib$"),
    ("(coq.theory (name Dn.Base) (modules_flags (Sums (:standard -impredicative-set))))",
     r"at line 1: field \(modules_flags ...\) is not read here: its files are compiled with flags of their own"),
    ("(coq.theory (name Dn.Base) (enabled_if (>= %{coq:version} 8.16)))",
     r"at line 1: field \(enabled_if ...\) is not read here: whether the theory is built depends"),
    ("(coq.theory (name Dn.Base) (flgas -w -all))", r"at line 1: unknown field \(flgas ...\) \(dune's coq.theory "
                                                     r"fields are name, theories, flags"),
    ("(env (_ (coq (flags :standard -impredicative-set))))\n(coq.theory (name Dn.Base) (theories AAC_tactics))",
     r"theories/Base/dune, \(env ...\) at line 1: sets \(coq ...\) for a build profile, which changes the "
     r":standard flags"),
    ("(coq.theory (name Dn.Base) (theories AAC_tactics) (plugins no-such-plugin.plugin))",
     r"at line 1: plugin no-such-plugin.plugin is not an installed OCaml library \(ocamlfind query: .*\); a plugin "
     r"the project builds itself needs dune"),
    ("(rule (copy a b))\n(coq.theroy (name Dn.Base))", r"theories/Base/dune, \(coq.theroy ...\) at line 2: unknown "
                                                      r"stanza \(dune's Coq stanzas are coq.theory, coq.extraction"),
])
def test_a_bad_dune_file_is_one_line_naming_it_and_the_stanza(proj, tmp_path, capsys, text, message):
    """Fails if a dune file that cannot be read, a misspelt Coq stanza, a theory without a name, a
    dependency or plugin that is not installed, a malformed or unknown field, a field that changes
    how files are compiled and is not read, or a module with no file is not a usage error (exit 2)
    of one line naming the file, the stanza and the field, or if anything was built or written
    first."""
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
    table = as_read(capsys.readouterr().out)  # the table is Markdown
    assert "| double_zero | src/M.v | yes |" in table and "| double_one | src/N.v | yes |" in table
    project = load_project(str(root))
    axioms = _kernel_axioms(project, "src/M.v") | _kernel_axioms(project, "src/N.v")
    assert not {"Uses.M.double_zero", "Uses.N.double_one"} & axioms
    assert _cli("prove", "--project", str(root), "--timeout", "20", "Uses.N.wf_ok", "--tactics", "exact wf_R_S.") == 0
    assert "exact wf_R_S." in capsys.readouterr().out


def test_a_theory_without_the_stdlib_is_opened_without_the_prelude(tmp_path, private_cache, capsys):
    """``(stdlib no)`` through the CLI, beside a theory with the Prelude: fails if its file is not
    compiled, traced and proved with -noinit (it holds ``Fail Check nat.``, which fails with the
    Prelude, and defines its own ``eq``) while the other theory's file keeps the Prelude, if
    context additions (which load the Prelude) are offered in it, or if the file that
    ``(modules :standard \\ Scratch)`` leaves out (it does not compile) is indexed or built."""
    root = tmp_path / "dunebare"
    shutil.copytree(BARE, root)
    project = load_project(str(root))
    assert project.source_files() == ["bare/Bool.v", "full/Use.v"]
    assert (project.noinit("bare/Bool.v"), project.noinit("full/Use.v")) == (True, False)
    assert project.implicit_imports("bare/Bool.v") == [] and project.options == ()
    assert _cli("trace", "--project", str(root), "--out", str(tmp_path / "traced")) == 0
    traced = {r["full_name"]: [t["tactic"] for t in r["traced_tactics"]] for split in ("train", "val", "test")
              for r in json.loads((tmp_path / "traced" / f"{split}.json").read_text())}
    assert traced == {"negb_involutive": ["intros b.", "destruct b; exact (eq_refl _)."],
                      "negb_twice": ["exact Bool.negb_involutive."], "two": ["reflexivity."]}
    assert not (root / "bare/Scratch.vo").exists()
    ref = project.ref()
    assert offered(("lia",), Theorem("negb_false", file_path="bare/Bool.v",
                                     extra={"project": ref, "module": "Bare.Bool"})) == ()
    assert offered(("lia",), Theorem("two", file_path="full/Use.v", extra={"project": ref, "module": "Full.Use"})) \
        == ("lia",)
    assert _cli("prove", "--project", str(root), "--timeout", "20", "Bare.Bool.negb_false", "--tactics",
                "exact (eq_refl _).") == 0
    out = capsys.readouterr().out
    assert "status: proved" in out and "exact (eq_refl _)." in out
    # the witness that the flag matters: with the Prelude, the same file does not compile
    (root / "bare/dune").write_text("(coq.theory (name Bare) (modules :standard \\ Scratch))")
    load_project.cache_clear()
    assert "The command has not failed!" in (compile_file(load_project(str(root)), "bare/Bool.v") or "")


def test_a_plugin_is_bound_with_the_directories_ocamlfind_gives(proj):
    """Fails if ``(plugins ...)`` does not add ``-I`` for the plugin's directory (and those of the
    libraries it needs) as ocamlfind has them, or adds a binding twice; or if a proof in such a
    project cannot be checked (coqchk refuses ``-I``: it went to coqchk, and every check failed)."""
    (proj / "theories/Base/dune").write_text("(coq.theory (name Dn.Base) (theories AAC_tactics) "
                                             "(plugins coq-aac-tactics.plugin))")
    wanted = subprocess.run(["ocamlfind", "query", "-r", "coq-aac-tactics.plugin"], capture_output=True, text=True,
                            check=True).stdout.split()
    project = load_project(str(proj))
    includes = [lp.path for lp in project.load_paths if lp.flag == "-I"]
    assert includes == list(dict.fromkeys(wanted)) and subprocess.run(
        ["ocamlfind", "query", "coq-aac-tactics.plugin"], capture_output=True, text=True).stdout.strip() in includes
    with CoqEnvironment(tactic_timeout=10, project=str(proj)) as env:
        verdict = env.verify(env.theorem("sum_swap"), linear_proof(["intros.", "aac_reflexivity."]))
    assert verdict.ok, verdict
