"""The pure parts of the Coq re-check's trust decisions: reading coqchk's and ``Print Assumptions``'
reports, resolving printed names to kernel names, and the provenance rules (no Coq run here)."""

from __future__ import annotations

from pathlib import Path

import pytest

import prover.coq.provenance as provenance
from prover.coq.assumptions import parse_assumptions, parse_loaded, parse_summary, resolve
from prover.coq.provenance import (ForeignLibrary, ProvenanceError, bindings, check_bindings, check_loaded,
                                   ocaml_library_roots)
from prover.coq.trusted_axioms import TRUSTED_AXIOMS, is_trusted, label
from prover.coq.verify import uses

CLASSIC = "Coq.Logic.Classical_Prop.classic"
FUNEXT = "Coq.Logic.FunctionalExtensionality.functional_extensionality_dep"


def test_the_list_names_the_logical_axioms_and_primitives_and_not_the_admit_axiom():
    """Fails if the compatibility admit axiom or an extraction realizer is trusted, or a listed
    family (classical logic, primitives, their specifications, the reals) is missing."""
    assert not is_trusted("Coq.Compat.AdmitAxiom.proof_admitted")
    assert not is_trusted("Coq.extraction.ExtrOcamlIntConv.int_natlike_rec")
    assert not is_trusted("classic") and not is_trusted("DojoScratch.classic")
    for name in (CLASSIC, FUNEXT, "Coq.Numbers.Cyclic.Int63.PrimInt63.diveucl_21", "Coq.Floats.PrimFloat.float",
                 "Coq.Array.PArray.array", "Coq.Numbers.Cyclic.Int63.Uint63.lxor_spec",
                 "Coq.Reals.ClassicalDedekindReals.sig_forall_dec", "Coq.ssr.ssrunder.Under_rel.Under_rel"):
        assert is_trusted(name), name
    assert len(TRUSTED_AXIOMS) == 164 and all(reason and "\n" not in reason for reason in TRUSTED_AXIOMS.values())


@pytest.mark.parametrize("printed, summary, params, names, fields, unresolved", [
    (["classic"], [CLASSIC], (), (CLASSIC,), (), ()),
    (["Classical_Prop.classic"], [CLASSIC, FUNEXT], (), (CLASSIC,), (), ()),
    # two admitted lemmas print alike: refused, whichever it is
    (["helper"], ["P.A.helper", "P.B.helper"], (), (), (), ("helper (it may name any of P.A.helper, P.B.helper)",)),
    # a project lemma named like a stdlib axiom: its label is shared with an untrusted axiom
    (["classic"], [CLASSIC, "P.A.classic"], (), (), (), ("classic (it may name any of Coq.Logic.Classical_Prop."
                                                          "classic, P.A.classic)",)),
    (["Classical_Prop.classic"], [CLASSIC, "P.A.classic"], (), (), (),
     ("Classical_Prop.classic (it may name Coq.Logic.Classical_Prop.classic or P.A.classic)",)),
    # printed under an alias whose name no summary entry ends with: fail closed
    (["M.classic"], [CLASSIC], (), (), (), ("M.classic (it may name any of Coq.Logic.Classical_Prop.classic)",)),
    # an axiom coqchk does not list (inside a functor still open at the theorem)
    (["bad"], [CLASSIC], ("X",), (), (), ("bad (no axiom of coqchk's summary has that name)",)),
    # a functor parameter's field
    (["X.lt"], [], ("X",), (), ("X.lt",), ()),
    (["X.compare"], ["Coq.Numbers.Cyclic.Int63.PrimInt63.compare"], ("X",), (), ("X.compare",), ()),
    (["Y.lt"], [], ("X",), (), (), ("Y.lt (no axiom of coqchk's summary has that name)",)),
    # an untrusted match is resolved (and refused by the caller), not hidden
    (["helper"], ["P.A.helper"], (), ("P.A.helper",), (), ()),
    # trusted siblings with the same label do not make a name ambiguous
    (["Uint63.add_spec"], ["Coq.Numbers.Cyclic.Int63.Uint63.add_spec", "Coq.Floats.FloatAxioms.add_spec"], (),
     ("Coq.Numbers.Cyclic.Int63.Uint63.add_spec",), (), ()),
])
def test_resolve(printed, summary, params, names, fields, unresolved):
    """Fails if a printed name is resolved by a loose suffix, if an ambiguous or unknown one is
    not refused, or if a functor parameter is taken for an axiom."""
    got = resolve(printed, summary, params)
    assert (got.names, got.parameters, got.unresolved) == (names, fields, unresolved)


def test_a_name_under_a_loaded_library_is_never_a_parameters_field():
    """A functor's parameter named ``P`` after the project's root: ``P.Helper.Impl.h0`` (an admitted
    lemma a sealed module hides; coqchk lists only the sealing field) passed for a field of ``P``,
    and ``0 = 1`` was proved. Fails unless it is unresolved, while ``P.t`` stays a field."""
    got = resolve(["P.Helper.Impl.h0", "P.t"], ["P.Helper.Impl.helper"], ("P",), libraries=["Coq.Init.Logic", "P.Helper"])
    assert got.parameters == ("P.t",)
    assert got.unresolved == ("P.Helper.Impl.h0 (no axiom of coqchk's summary has that name)",)


def test_a_name_under_a_loaded_library_matches_only_itself():
    """A project bound as ``Logic`` hid an axiom printed ``Logic.Eqdep.Eq_rect_eq.eq_rect_eq``, a
    suffix of the stdlib's trusted one, which it resolved to. Fails unless it is unresolved,
    while a short name (``classic``) still resolves by suffix."""
    stdlib = "Coq.Logic.Eqdep.Eq_rect_eq.eq_rect_eq"
    got = resolve(["Logic.Eqdep.Eq_rect_eq.eq_rect_eq", "classic"], [stdlib, CLASSIC],
                  libraries=["Coq.Logic.Eqdep", "Coq.Logic.Classical_Prop", "Logic.Eqdep"])
    assert got.names == (CLASSIC,)
    assert got.unresolved == (f"Logic.Eqdep.Eq_rect_eq.eq_rect_eq (it may name any of {stdlib})",)


def test_inside_an_open_module_a_name_matches_only_itself_and_a_flag_never_resolves():
    """Fails if, with ``exact_only``, a short name resolves by suffix (a functor's own ``Axiom
    classic`` matched the stdlib's), or if a flag line (``X.loop is assumed to be guarded.``)
    passes for a parameter's field anywhere."""
    got = resolve(["classic", CLASSIC], [CLASSIC], exact_only=True)
    assert got.names == (CLASSIC,) and got.unresolved[0].startswith("classic (it may name any of")
    flag = "X.loop is assumed to be guarded."
    assert resolve([flag], [], ("X",)).unresolved == (f"{flag} (not an axiom the kernel checked: an unsafe feature)",)


def test_names_of_a_trusted_open_scope_are_its_parameters():
    """Fails if a stdlib functor's imported parameter fields (``Import M.`` prints ``M.t`` as
    ``t``) are refused, or if outside a trusted scope an unlisted name is accepted."""
    printed = ["E.t", "t", "In", "classic"]
    got = resolve(printed, [CLASSIC], ("M",), trusted_scope=True)
    assert (got.names, got.parameters, got.unresolved) == ((CLASSIC,), ("E.t", "t", "In"), ())
    assert resolve(printed, [CLASSIC], ("M",)).unresolved == tuple(
        f"{n} (no axiom of coqchk's summary has that name)" for n in ("E.t", "t", "In"))
    assert resolve(["helper"], ["P.A.helper", "P.B.helper"], trusted_scope=True).unresolved  # ambiguity still refused


def test_print_assumptions_report_is_read_by_section():
    report = ("Section Variables:\nn : nat\nAxioms:\nclassic : forall P : Prop, P \\/ ~ P\n"
              "X.lt : X.t -> X.t -> Prop\n  continued type\n")
    assert parse_assumptions(report) == ["classic", "X.lt"]
    assert parse_assumptions("Closed under the global context\n") == []
    # a type that ends in a colon is still an entry, not a heading
    assert parse_assumptions("Axioms:\nhelper : F:\nOpaque constants:\nl : T\n") == ["helper"]


def test_type_in_type_and_unknown_sections_are_unsafe():
    """Fails if a type-in-type finding (or an unknown summary section) is not an unsafe finding."""
    text = ("CONTEXT SUMMARY\n===============\n\n* Theory: Set is predicative\n  \n* Axioms: <none>\n  \n"
            "* Constants/Inductives relying on type-in-type:\n    Top.U\n  \n* Something new:\n    Top.x\n")
    assert parse_summary(text) == ([], ["Constants/Inductives relying on type-in-type: Top.U", "Something new: Top.x"])
    assert parse_summary("no summary") == ([], ["coqchk printed no context summary"])


CHK = """Welcome to Chicken 8.16.1
[intern /tmp/v/C.vo ...
 done]
[intern /no-such-coq/theories/Init/Prelude.vo ...
 done]
[intern /proj/A.vo ...
 done]
Ordered list:
  Coq.Init.Prelude
  P.A
  P.C
  
Admitting library: Coq.Init.Prelude
"""


@pytest.fixture
def installed(monkeypatch, tmp_path):
    """Where the stdlib and one installed library (``Hammer``) are, for the provenance rules, and
    the name the project's ``/proj/A.vo`` was compiled as (what its summary would say)."""
    libs = {"Coq": Path("/no-such-coq/theories"), "Hammer": Path("/no-such-coq/user-contrib/Hammer")}
    monkeypatch.setattr(provenance, "protected_roots", lambda: libs)
    monkeypatch.setattr(provenance, "vo_name", {Path("/proj/A.vo"): "P.A"}.__getitem__)
    return libs


def test_parse_loaded():
    assert parse_loaded(CHK) == ([Path("/tmp/v/C.vo"), Path("/no-such-coq/theories/Init/Prelude.vo"), Path("/proj/A.vo")],
                                 ["Coq.Init.Prelude", "P.A", "P.C"])


def test_loaded_libraries_from_their_places_pass_and_the_projects_own_are_named(installed):
    """Fails if the project's own libraries (which coqchk -norec takes as they are) are not
    returned for their re-check, or if the stdlib's or the checked file are among them."""
    project = check_loaded(*parse_loaded(CHK), (Path("/tmp/v/C.vo"), "P.C"), [(Path("/proj"), "P")])
    assert project == {"P.A": Path("/proj/A.vo")}


def test_a_project_file_loaded_under_another_name_than_it_was_compiled_as_is_refused(installed, monkeypatch):
    """A directory bound under two names: Coq keeps the last, the path rule here the first, so
    the re-check asked coqchk for a name that Coq resolved to another file, and the crafted one
    was recorded as checked. Fails unless the file's own recorded name must be the one given it."""
    monkeypatch.setattr(provenance, "vo_name", lambda path: "X.A")
    with pytest.raises(ForeignLibrary, match=r"coqchk loaded /proj/A.vo as P.A, but it was compiled as X.A"):
        check_loaded(*parse_loaded(CHK), (Path("/tmp/v/C.vo"), "P.C"), [(Path("/proj"), "P")])


def test_a_directory_bound_under_two_names_is_refused(installed, tmp_path):
    with pytest.raises(ProvenanceError, match=r"is bound as X and as Y; Coq keeps only the last"):
        check_bindings([("-Q", tmp_path, "X"), ("-Q", tmp_path / ".", "Y")], (), "_CoqProject")
    check_bindings([("-Q", tmp_path, "X"), ("-Q", tmp_path, "X")], (), "_CoqProject")  # the same binding twice


@pytest.mark.parametrize("text, project, message", [
    # a Coq.* library from the project's directory
    (CHK.replace("/proj/A.vo", "/proj/Logic/Classical_Prop.vo").replace("P.A", "Coq.Logic.Classical_Prop"),
     [(Path("/proj"), "Coq")], "coqchk loaded Coq.Logic.Classical_Prop from /proj/Logic/Classical_Prop.vo, not from "
                              "the standard library in /no-such-coq/theories"),
    # an installed library's name from the project
    (CHK.replace("/proj/A.vo", "/proj/Plugin/Hammer.vo").replace("P.A", "Hammer.Plugin.Hammer"),
     [(Path("/proj"), "Hammer")], "not from the installed library Hammer in /no-such-coq/user-contrib/Hammer"),
    # a file from nowhere known
    (CHK.replace("/proj/A.vo", "/elsewhere/A.vo"), [(Path("/proj"), "P")],
     "coqchk loaded /elsewhere/A.vo, which is in no directory"),
    # the list and the files disagree
    (CHK.replace("  P.A\n", "  P.A\n  P.Z\n"), [(Path("/proj"), "P")], "does not match the files it loaded (P.Z)"),
    # the checked library resolved to a stale .vo of the project
    (CHK.replace("/tmp/v/C.vo", "/proj/C.vo"), [(Path("/proj"), "P")], "did not check the compiled file C.vo"),
])
def test_foreign_libraries_are_refused(installed, text, project, message):
    """Fails if coqchk's loads are not checked against where each library's name says it must be."""
    with pytest.raises(ForeignLibrary) as info:
        check_loaded(*parse_loaded(text), (Path("/tmp/v/C.vo"), "P.C"), project)
    assert message in str(info.value)


@pytest.mark.parametrize("binding, options, message", [
    (("-Q", Path("/p"), "Coq.Logic"), (), "_CoqProject: -Q /p Coq.Logic binds the logical name 'Coq' of the "
                                          "standard library, whose files Coq takes only from /no-such-coq/theories"),
    (("-R", Path("/p"), "Coq"), (), "binds the logical name 'Coq' of the standard library"),
    (("-Q", Path("/p"), "Coq.ssr.ssrunder"), (), "binds the logical name 'Coq'"),
    (("-Q", Path("/p"), "Hammer.Plugin"), (), "binds the logical name 'Hammer' of the installed library Hammer"),
    (("-Q", Path("/p"), "P"), ("-coqlib", "/tmp/fake"), "the option -coqlib may not be passed to coqc"),
    (("-Q", Path("/p"), "P"), ("-Q", ".", "Coq.Logic"), "the option -Q may not be passed to coqc"),
    # options that load code or files the check never sees, or write the .vo elsewhere
    (("-Q", Path("/p"), "P"), ("-w", "-all", "-o", "A.vo"), "the option -o may not be passed to coqc"),
    (("-Q", Path("/p"), "P"), ("-I", "/p/plug"), "the option -I may not be passed to coqc"),
    (("-Q", Path("/p"), "P"), ("-l", "/p/x.v"), "the option -l may not be passed to coqc"),
    (("-Q", Path("/p"), "P"), ("-require", "Evil"), "the option -require may not be passed to coqc"),
    (("-Q", Path("/p"), "P"), ("-vos",), "the option -vos may not be passed to coqc"),
    (("-I", Path("/p/plug"), ""), (), "-I /p/plug is not a directory of an installed OCaml library"),
])
def test_bindings_of_protected_names_are_refused(installed, binding, options, message):
    """Fails if a project may give its files the stdlib's or an installed library's names, give
    coqc an option outside the allowed few, or load an ML plugin of its own."""
    with pytest.raises(ProvenanceError) as info:
        check_bindings([binding], options, "_CoqProject")
    assert message in str(info.value)


def test_empty_logical_name_over_a_coq_directory_is_refused(installed, tmp_path):
    """Fails if ``-R dir ""`` with a subdirectory ``Coq`` passes: its files would be ``Coq.*``."""
    (tmp_path / "Coq" / "Logic").mkdir(parents=True)
    with pytest.raises(ProvenanceError, match=r"names its subdirectory Coq 'Coq', the logical name of the standard"):
        check_bindings([("-R", tmp_path, "")], (), "--flags")
    check_bindings([("-R", tmp_path / "Coq" / "Logic", "")], (), "--flags")  # its own names: Classical_Prop...
    check_bindings([("-Q", tmp_path, "Coqs")], ("-w", "-notation", "-set", "Printing All"), "--flags")


def test_an_installed_plugin_directory_and_the_allowed_options_pass(installed):
    """Fails if ``-I`` to an installed OCaml library (a dune theory's ``(plugins ...)``) or an
    allowed option with its argument (``-w -all``: ``-all`` is the argument) is refused."""
    check_bindings([("-I", ocaml_library_roots()[0] / "coq-hammer", "")],
                   ("-w", "-all", "-type-in-type", "-unset", "Guard Checking", "-noinit"), "--flags")


def test_bindings_of_coqc_arguments():
    assert bindings(("-Q", "/a", "A", "-I", "/ml", "-R", "/b", "")) == [
        ("-Q", Path("/a"), "A"), ("-I", Path("/ml"), ""), ("-R", Path("/b"), "")]


def test_uses_names_the_axiom_and_its_module():
    assert label(CLASSIC) == "classic"
    assert uses([CLASSIC, "X.lt", "t"]) == "classic (Coq.Logic.Classical_Prop), 2 parameter(s) of the modules open " \
                                          "at the theorem"
    assert uses([]) == ""


def test_type_in_type_is_reported():
    """Fails if a type-in-type finding (or an unknown summary section) is not an unsafe finding."""
    text = ("CONTEXT SUMMARY\n===============\n\n* Theory: Set is predicative\n  \n* Axioms: <none>\n  \n"
            "* Constants/Inductives relying on type-in-type:\n    Top.U\n  \n* Something new:\n    Top.x\n")
    axioms, unsafe = parse_summary(text)
    assert axioms == [] and unsafe == ["Constants/Inductives relying on type-in-type: Top.U", "Something new: Top.x"]
    assert parse_summary("no summary") == ([], ["coqchk printed no context summary"])


# -- section variables: what a proof in a section uses, against the declared lemma -----------------

OURS = "Section Variables:\nb\n: bool\nH\n: False\n"  # as coqc 8.16 prints it, a type on a line of its own
DECLARED = "Section Variables:\nHb\n: @eq bool b true\nAxioms:\nhelper : False\n"
STATEMENT = "Section Variables:\nb\n: bool\n"


def test_section_variables_are_read_from_coqs_two_line_entries():
    """Fails if ``: type`` lines count as names, or if the Axioms block leaks into the variables."""
    from prover.coq.assumptions import section_variables
    assert section_variables(OURS) == {"b", "H"}
    assert section_variables(DECLARED) == {"Hb"}
    assert parse_assumptions(DECLARED) == ["helper"]


@pytest.mark.parametrize("ours, declared, keep, problem", [
    (OURS, DECLARED, "Keep Admitted Variables is on", "the proof uses the section variable(s) H, which"),
    ("Section Variables:\nHb\n: @eq bool b true\n", DECLARED, "Keep Admitted Variables is on", None),
    (STATEMENT, "Closed under the global context\n", "Keep Admitted Variables is on", None),  # fewer: stronger
    (OURS, None, "Keep Admitted Variables is on", None),  # admitted, keeping every variable
    (OURS, None, "Keep Admitted Variables is off", "the proof uses the section variable(s) H, which"),
    (OURS, None, "Redirected garbage", "cannot read whether Keep Admitted Variables is on"),
])
def test_a_proof_may_use_only_what_the_declared_lemma_abstracts_over(ours, declared, keep, problem):
    """Fails if a section variable the declared lemma does not use (nor its statement) passes, if
    one it does use is refused, or if an unreadable ``Test Keep Admitted Variables`` is not a refusal."""
    from prover.coq.verify import section_variables_problem
    found = section_variables_problem(ours, STATEMENT, keep, declared)
    assert (found is None) == (problem is None) and (problem is None or str(found).startswith(problem)), found
    assert found is None or found.variables == (("H",) if "section variable(s) H" in problem else ())
