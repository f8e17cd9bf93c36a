"""Installed Coq libraries (``coq-lib:NAME``) open with the flags they were compiled with: ``-R``
their directory under ``user-contrib`` as their name, so that their short ``Require`` names resolve
in coqtop, coqc and coqdep exactly as when Debian compiled them."""

from __future__ import annotations

import subprocess

import pytest

import prover.coq.project as project_module
from prover.coq.additions import offered
from prover.coq.context import file_context
from prover.coq.index import CoqIndex
from prover.coq.install import debian_package, installed_libraries, user_contrib
from prover.coq.project import ProjectError, load_project
from prover.coq.scanner import logical_modules, scan_file
from prover.coq.verify import verify_proof
from search_tree.protocol import Theorem, linear_proof


def test_an_installed_library_is_bound_with_minus_r_under_its_name():
    """Fails if an installed library gets no load-path flags (Coq's own binding of user-contrib
    resolves qualified names only) or another name than its directory's."""
    project = load_project("coq-lib:AAC_tactics")
    assert project.load_args == ("-R", str(user_contrib() / "AAC_tactics"), "AAC_tactics")
    assert project.coq_args == project.load_args
    assert project.module("Caveats.v") == "AAC_tactics.Caveats"


def test_a_short_require_of_the_library_resolves_only_with_its_flags():
    """The real check, with coqtop: ``Require Import Instances.`` (a short name of AAC_tactics)
    fails without the library's flags and loads AAC_tactics.Instances with them."""
    script = "Require Import Instances.\nLocate Library Instances.\n"
    bare = subprocess.run(["coqtop", "-q"], input=script, capture_output=True, text=True, timeout=120)
    assert "Cannot find a physical path bound to logical path" in bare.stdout + bare.stderr
    flags = load_project("coq-lib:AAC_tactics").coq_args
    done = subprocess.run(["coqtop", "-q", *flags], input=script, capture_output=True, text=True, timeout=120)
    assert "AAC_tactics.Instances has been loaded from file" in done.stdout, done.stdout + done.stderr


def test_a_part_of_a_library_is_named_inside_the_whole(tmp_path, monkeypatch):
    """A dotted name (``Top.part``) is a directory inside the top one: its files are named under the
    dotted name, and the flags bind the top directory (its parts require each other by short
    names). A fake user-contrib in tmp_path stands for the installed one."""
    (tmp_path / "Top" / "part").mkdir(parents=True)
    (tmp_path / "Top" / "part" / "A.v").write_text("Lemma a : True. Proof. exact I. Qed.\n")
    monkeypatch.setattr(project_module, "user_contrib", lambda: tmp_path)
    project = project_module.load_project.__wrapped__("coq-lib:Top.part")
    assert project.source_files() == ["A.v"]
    assert project.module("A.v") == "Top.part.A"
    assert project.load_args == ("-R", str(tmp_path / "Top"), "Top")


def test_a_library_that_is_not_installed_names_its_debian_package_and_the_installed_ones(tmp_path, monkeypatch):
    """Fails if the error does not say which package to install, or which libraries are there."""
    assert debian_package("AAC_tactics") == "libcoq-aac-tactics"
    assert debian_package("RelationAlgebra") == "libcoq-relation-algebra"
    assert debian_package("mathcomp.algebra") == "libcoq-mathcomp-algebra"
    assert debian_package("NoSuchLibrary") is None
    assert "AAC_tactics" in installed_libraries()
    with pytest.raises(ProjectError, match=r"no installed Coq library 'NoSuchLibrary' .*no Debian package provides "
                                           r"it; installed: .*AAC_tactics"):
        load_project("coq-lib:NoSuchLibrary")
    monkeypatch.setattr(project_module, "user_contrib", lambda: tmp_path)
    with pytest.raises(ProjectError, match=r"'AAC_tactics' .*`apt-get install libcoq-aac-tactics` provides it; "
                                           r"installed: none\)$"):
        project_module.load_project.__wrapped__("coq-lib:AAC_tactics")
    with pytest.raises(ProjectError, match=r"no installed Coq library '\.\./x'"):
        load_project("coq-lib:../x")


def test_a_library_compiled_without_the_prelude_is_opened_without_it_and_without_additions(tmp_path, monkeypatch):
    """HoTT and UniMath are compiled with -noinit, UniMath with -type-in-type too: fails if these
    are not read from the compiled files (the Prelude's notations then clash with the library's
    own; UniMath's statements fail universe checks), if a library compiled with neither is given
    one, or if context additions (which load the Prelude) are offered in one without it. Three
    libraries compiled here stand for installed ones."""
    for name, options in (("Bare", ["-noinit"]), ("Plain", []), ("Loose", ["-type-in-type"])):
        (tmp_path / name).mkdir()
        (tmp_path / name / "Base.v").write_text("Inductive unit' : Type := tt'.\n")
        (tmp_path / name / "Use.v").write_text(f"Require Import {name}.Base.\nDefinition x := tt'.\n" + (
            "Definition U := Type.\nDefinition in_itself : U := U.\n" if name == "Loose" else ""))
        for file in ("Base.v", "Use.v"):
            subprocess.run(["coqc", "-q", *options, "-R", str(tmp_path / name), name, str(tmp_path / name / file)],
                           check=True, capture_output=True)
    monkeypatch.setattr(project_module, "user_contrib", lambda: tmp_path)
    assert project_module.library_options("Bare") == ("-noinit",)
    assert project_module.library_options("Plain") == ()
    assert project_module.library_options("Loose") == ("-type-in-type",)
    bare = project_module.load_project.__wrapped__("coq-lib:Bare")
    assert bare.options == ("-noinit",) and bare.implicit_imports("Use.v") == []
    try:  # the context additions load the stdlib's Prelude: none is offered there
        assert offered(("lia", "ring"), Theorem("x", extra={"project": bare.ref(), "module": "Bare.Use"})) == ()
        assert offered(("lia",), Theorem("x", extra={"module": "Bare.Use"})) == ("lia",)
    finally:
        project_module.load_project.cache_clear()  # it holds coq-lib:Bare of this test's user-contrib


def test_a_module_sealed_before_the_theorem_stays_sealed_in_the_check():
    """mathcomp's finset.v seals ``Module SetDef : SetDefSig.`` and then declares ``Coercion
    pred_of_set: set_type >-> fin_pred_sort``, which only the sealed type allows. Fails if the
    check drops the signature of a module closed before the theorem (coqc then refuses the
    coercion: "Found target class fin_pred_sort instead of Funclass", so no theorem of finset.v
    after it can be proved), or if the honest proof of ``in_setT`` (mathcomp's own) is refused.
    Only finset.v is indexed, so the test does not need the traced library."""
    project = load_project("coq-lib:mathcomp.ssreflect")
    index = CoqIndex(project.root, [scan_file(project.root, "finset.v", logical_modules(project.root, project),
                                              project)], project)
    context = file_context(index.theorem("mathcomp.ssreflect.finset.in_setT"), index)
    assert "Module SetDef : SetDefSig." in context.source_prefix
    assert context.closing == ("End BasicSetTheory.",)
    verdict = verify_proof(context, linear_proof(["by rewrite in_set."]))
    assert verdict.ok, verdict.message
