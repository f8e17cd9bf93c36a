"""Installed Coq libraries (``coq-lib:NAME``) open with the flags they were compiled with: ``-R``
their directory under ``user-contrib`` as their name, so that their short ``Require`` names resolve
in coqtop, coqc and coqdep exactly as when Debian compiled them."""

from __future__ import annotations

import subprocess
import sys
import uuid
from pathlib import Path

import pytest

import prover.coq.project as project_module
from prover.coq.additions import offered
from prover.coq.context import file_context
from prover.coq.index import CoqIndex
from prover.coq.install import debian_package, installed_libraries, user_contrib
from prover.coq.project import ProjectError, load_project
from prover.coq.scanner import logical_modules, scan_file
from prover.coq.verify import verify_proof
from search_tree import TacticState
from search_tree.protocol import Theorem, TheoremNotFound, linear_proof


def test_an_installed_library_is_bound_with_minus_r_under_its_name():
    """Fails if an installed library gets no load-path flags (Coq's own binding of user-contrib
    resolves qualified names only) or another name than its directory's."""
    project = load_project("coq-lib:AAC_tactics")
    assert project.load_args == ("-R", str(user_contrib() / "AAC_tactics"), "AAC_tactics")
    assert project.coq_args == project.load_args + ("-w", "-all")  # its warnings are not its user's
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


def test_each_file_of_a_library_opens_with_or_without_the_prelude_as_it_was_compiled(tmp_path, monkeypatch):
    """HoTT and UniMath are compiled with -noinit, UniMath with -type-in-type too: fails if these
    are not read from the compiled files (the Prelude's notations then clash with the library's
    own; UniMath's statements fail universe checks), if a file compiled with neither is given
    one, if -noinit is decided for a whole library rather than per file (Equations compiles
    only its HoTT part so), or if context additions (which load the Prelude) are offered in a
    file without it. Libraries compiled here stand for installed ones."""
    compiled = {"Bare": {"Base.v": ["-noinit"], "Use.v": ["-noinit"]}, "Plain": {"Base.v": [], "Use.v": []},
                "Loose": {"Base.v": ["-type-in-type"], "Use.v": ["-type-in-type"]},
                "Mixed": {"Base.v": ["-noinit"], "Use.v": []}}
    for name, files in compiled.items():
        (tmp_path / name).mkdir()
        (tmp_path / name / "Base.v").write_text("Inductive unit' : Type := tt'.\n")
        (tmp_path / name / "Use.v").write_text(f"Require Import {name}.Base.\nDefinition x := tt'.\n" + (
            "Definition U := Type.\nDefinition in_itself : U := U.\n" if name == "Loose" else ""))
        for file, options in files.items():
            subprocess.run(["coqc", "-q", *options, "-R", str(tmp_path / name), name, str(tmp_path / name / file)],
                           check=True, capture_output=True)
    monkeypatch.setattr(project_module, "user_contrib", lambda: tmp_path)
    assert project_module.library_options("Bare") == ("-w", "-all")
    assert project_module.library_options("Plain") == ("-w", "-all")
    assert project_module.library_options("Loose") == ("-w", "-all", "-type-in-type")
    try:
        projects = {name: project_module.load_project.__wrapped__(f"coq-lib:{name}") for name in compiled}
        assert {name: (p.noinit("Base.v"), p.noinit("Use.v")) for name, p in projects.items()} == {
            "Bare": (True, True), "Plain": (False, False), "Loose": (False, False), "Mixed": (True, False)}
        assert projects["Mixed"].implicit_imports("Base.v") == []
        assert projects["Mixed"].implicit_imports("Use.v") == ["coq-stdlib/Init/Prelude.v"]
        mixed = projects["Mixed"].ref()
        # the context additions load the stdlib's Prelude: none is offered in a file without it
        assert offered(("lia",), Theorem("x", file_path="Base.v", extra={"project": mixed, "module": "Mixed.Base"})) == ()
        assert offered(("lia",), Theorem("x", file_path="Use.v", extra={"project": mixed, "module": "Mixed.Use"})) \
            == ("lia",)
    finally:
        project_module.load_project.cache_clear()  # it holds this test's libraries


def test_equations_hott_part_opens_without_the_prelude_and_the_rest_with_it():
    """The real case: Equations compiles its HoTT part with -noinit, loading the Prelude through
    Equations.Init without importing it, and the rest with the Prelude. Fails if a HoTT-part
    theorem is opened with the Prelude imported (its notation ``~`` then clashes with HoTT's:
    "context refused") or the Prop part without it."""
    from prover.coq.build import project_index
    from prover.coq.env import CoqEnvironment

    project = load_project("coq-lib:Equations")
    assert project.noinit("HoTT/EqDec.v") and not project.noinit("Prop/EqDec.v")
    index = project_index(project, progress=False)
    with CoqEnvironment(tactic_timeout=10.0, project="coq-lib:Equations", index=index) as env:
        for name in ("Equations.HoTT.EqDec.is_hset", "Equations.Prop.EqDec.eq_proofs_unicity"):
            with env.open(index.theorem(name)) as (session, state):
                assert isinstance(session.run_tac(state, "intros."), TacticState), name


def test_a_load_of_a_file_that_is_not_installed_makes_the_rest_of_its_file_unopenable(tmp_path, monkeypatch):
    """CoRN's files ``Load`` files Debian does not install, Hierarchy-Builder's accumulate elpi
    files it does not install. Fails if the theorems after such a sentence are offered (every
    one would end in an environment failure), if the reason is not given, if one before it is
    lost, or if the tracer does not trace the file up to that sentence."""
    from prover.coq.index import load_index
    from prover.coq.tracer import ensure_traced

    (tmp_path / "Loads").mkdir()
    (tmp_path / "Loads" / "A.v").write_text(
        "Lemma before : True.\nProof. exact I. Qed.\nLoad \"Missing\".\nLemma after : True.\nProof. exact I. Qed.\n")
    monkeypatch.setattr(project_module, "user_contrib", lambda: tmp_path)
    try:
        project = project_module.load_project.__wrapped__("coq-lib:Loads")
        index = load_index(project, progress=False)
        assert [t.full_name for t in index.theorems()] == ["before"]
        assert index.unopenable() == {"A.v": (1, "loads Missing.v (A.v:3), which is not installed")}
        with pytest.raises(TheoremNotFound, match="'after' of A.v cannot be opened: loads Missing.v"):
            index.theorem("after")
        summary = ensure_traced(out_dir=tmp_path / "traced", progress=False, project=project)
        assert summary.failed == [] and summary.theorems == 1
        assert summary.skipped == ["A.v:3:1: the rest of the file is not replayed: it loads Missing.v (A.v:3), which "
                                   "is not installed"]
    finally:
        project_module.load_project.cache_clear()


def test_elpi_loads_are_read_as_coq_elpi_resolves_them():
    """Fails if an elpi file that is installed (coq://elpi/...) is called missing, one that is
    not (Hierarchy-Builder's) is not, or coq-elpi's version attributes are ignored."""
    from prover.coq.scanner import missing_load

    elpi = load_project("coq-lib:elpi")
    assert missing_load('Elpi Accumulate File "coq://elpi/coq-lib.elpi".', elpi) is None
    assert missing_load('From elpi.apps.derive Extra Dependency "eqb.elpi" as eqb.', elpi) is None
    assert missing_load('Elpi Checker "coq://elpi/coq-elpi-checker.elpi".', elpi) == "elpi/coq-elpi-checker.elpi"
    assert missing_load('#[skip="8.15.*"] Elpi Accumulate File "HB/common/stdpp.elpi".', elpi) == "HB/common/stdpp.elpi"
    assert missing_load('#[only="8.15.*"] Elpi Accumulate File "HB/common/compat_815.elpi".', elpi) is None
    assert missing_load("Elpi Accumulate File eqb.", elpi) is None  # an Extra Dependency, checked where it is declared


def test_the_sweep_names_each_library_of_a_package_and_resumes_from_its_cache(tmp_path, monkeypatch):
    """Fails if a package sharing a top directory with others is measured as the whole of it
    (libcoq-mathcomp-analysis is mathcomp.analysis and mathcomp.classical, not all of mathcomp),
    if a package measured once is measured again by the same code, or if ``--cached-only``
    measures one (another sample size is another measurement)."""
    import benchmarks.coq_libraries as sweep
    from benchmarks.coq_libraries import cached_measure, package_libraries

    run = uuid.uuid4().hex
    monkeypatch.setattr(sweep, "code_version", lambda: run)  # this run's own cache entries

    assert package_libraries("libcoq-mathcomp-analysis") == ["mathcomp.analysis", "mathcomp.classical"]
    assert package_libraries("libcoq-gappa") == []  # .vo without sources
    first, cached = cached_measure("libcoq-mathcomp-bigenough", 1, 0, tmp_path)
    assert not cached and [(r.name, r.sampled, r.opened) for r in first] == [("mathcomp.bigenough", 1, 1)]
    again, cached = cached_measure("libcoq-mathcomp-bigenough", 1, 0, tmp_path)
    assert cached and again == first
    (unmeasured,), cached = cached_measure("libcoq-mathcomp-bigenough", 2, 0, tmp_path, cached_only=True)
    assert not cached and unmeasured.reason.startswith("not measured yet") and unmeasured.sampled == 0


def test_the_sweep_refuses_a_package_that_is_not_a_debian_coq_library_in_one_line():
    done = subprocess.run([sys.executable, "-m", "benchmarks.coq_libraries", "--libraries", "libcoq-no-such-thing"],
                          capture_output=True, text=True, timeout=120, cwd=Path(__file__).parents[2])
    assert done.returncode == 2 and done.stdout == ""
    assert done.stderr.count("\n") == 1
    assert "not Debian Coq library packages: libcoq-no-such-thing (known: libcoq-aac-tactics," in done.stderr


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
