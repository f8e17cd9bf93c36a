"""The leak check's reading of coq-dpdgraph graphs and its refusal decision, on real dpdgraph output.

The fixtures in tests/fixtures/dpdgraph were written by Debian's libcoq-dpdgraph (Coq 8.16) in one
environment: the first 200 lines of ``Coq/Lists/List.v`` compiled as ``DojoReopened.Coq.Lists.List``
with CoqHammer's ``Tactics`` loaded (so the compiled ``Coq.Lists.List`` is loaded too), then

* ``leaking_proof.dpd``: ``Print DependGraph`` of ``my_app_nil (l : list A) : app l nil = l``
  proved by ``hauto use: Coq.Lists.List.app_nil_r`` (the compiled copy of a later lemma);
* ``honest_proof.dpd``: ``Print DependGraph`` of the reopened ``app_nil_l``;
* ``compiled_list_nodes.dpd``: the node lines of ``Print FileDependGraph Coq.Lists.List``.

The ``locate_*.out`` fixtures are what ``Locate`` wrote (Coq 8.16) in a file that loads the
checked library ``DojoReopened.Coq.Lists.List`` of the theorem ``app_nil_r`` (so ``app_nil_l``,
declared before it, has a reopened twin; ``app_nil_r`` itself and the later ``app_nil_end`` have
none).
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from prover.coq.dependencies import (DependencyError, Node, candidates, graph_sentences, locate_source, located,
                                     parse_dpd, shared, untwinned)
from prover.coq.context import CoqContext
from prover.coq.reopened import REOPENED, compiled_module, open_sections, reopen

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "dpdgraph"


def graph(name: str) -> frozenset[Node]:
    return parse_dpd((FIXTURES / name).read_text())


def test_nodes_are_read_with_the_path_dpdgraph_prints():
    """Fails if the path attribute is dropped (the reopened and the compiled lemma would be one)."""
    proof = graph("leaking_proof.dpd")
    assert Node("Coq.Lists.List.app_nil_r", "cnst") in proof
    assert Node("List.my_app_nil", "cnst") in proof
    assert Node("list", "inductive") in proof and Node("cons", "construct") in proof
    assert len(proof) == 11


def test_the_candidates_are_the_compiled_objects_the_proof_depends_on():
    module = graph("compiled_list_nodes.dpd")
    assert len(module) == 406  # one per node line
    assert shared(graph("leaking_proof.dpd"), module) == [Node("Coq.Lists.List.app_nil_r", "cnst")]
    assert shared(graph("honest_proof.dpd"), module) == []
    # the reopened twin of an earlier lemma is printed apart from its compiled copy
    assert Node("List.app_nil_l", "cnst") in graph("honest_proof.dpd")
    assert Node("Coq.Lists.List.app_nil_l", "cnst") in module


def test_unreadable_or_missing_graphs_fail_the_check(tmp_path: Path):
    with pytest.raises(DependencyError, match="unreadable dpdgraph line 'Error: oops'"):
        parse_dpd("N: 1 \"a\" [kind=cnst, ];\nError: oops\n")
    with pytest.raises(DependencyError, match="libcoq-dpdgraph"):
        candidates(tmp_path, "dojo_x")
    for line in graph_sentences("dojo_x", "Coq.Lists.List", tmp_path, "dojo_x")[1::2]:
        if line.startswith("Set"):
            (tmp_path / line.split('"')[1]).write_text("")
    with pytest.raises(DependencyError, match="empty dependency graph of the proof"):
        candidates(tmp_path, "dojo_x")


@pytest.mark.parametrize("make, problem", [
    (lambda p, elsewhere: p.symlink_to(elsewhere), "is a symlink; refusing to follow it"),
    (lambda p, elsewhere: os.mkfifo(p), "is not a regular file; refusing to read it"),
    (lambda p, elsewhere: p.mkdir(), "is not a regular file; refusing to read it"),
    (lambda p, elsewhere: p.write_bytes(b'N: 1 "a\xff" [kind=cnst, ];\n'), "not UTF-8 text (byte 7: b'\\xff')"),
], ids=["link", "fifo", "directory", "not-utf8"])
@pytest.mark.parametrize("which", [0, 1], ids=["proof", "module"])
def test_a_graph_that_is_no_regular_utf8_file_fails_the_check_in_one_line(tmp_path: Path, make, problem, which):
    """Fails if a graph is read through a link (the old plain read took the text of the file it
    points to), waits on a FIFO's writer, or ends in an IsADirectoryError or UnicodeDecodeError
    rather than a :class:`DependencyError` naming the graph, for the proof's graph or the module's."""
    elsewhere = tmp_path / "elsewhere.dpd"
    elsewhere.write_text((FIXTURES / "honest_proof.dpd").read_text())
    box = tmp_path / "box"
    box.mkdir()
    graphs = [box / line.split('"')[1] for line in graph_sentences("dojo_x", "Coq.Lists.List", box, "dojo_x")
              if line.startswith("Set")]
    for k, path in enumerate(graphs):
        if k == which:
            make(path, elsewhere)
        else:
            path.write_text((FIXTURES / "honest_proof.dpd").read_text())
    with pytest.raises(DependencyError) as caught:
        candidates(box, "dojo_x")
    assert str(graphs[which]) in str(caught.value) and problem in str(caught.value)
    assert "\n" not in str(caught.value)


def test_a_module_without_objects_offers_no_candidate_and_an_empty_proof_graph_fails(tmp_path: Path):
    """A library of functors and module types (NZOrder) prints an empty file graph: nothing of it
    can be in a term. Fails if that refuses every proof of its theorems, or if an empty graph of
    the proof (dpdgraph printed nothing of it) passes."""
    proof, module = (tmp_path / line.split('"')[1] for line in
                     graph_sentences("dojo_x", "Coq.Numbers.NatInt.NZOrder", tmp_path, "dojo_x") if line.startswith("Set"))
    proof.write_text((FIXTURES / "honest_proof.dpd").read_text())
    module.write_text("")
    assert candidates(tmp_path, "dojo_x") == []
    proof.write_text("")
    with pytest.raises(DependencyError, match="empty dependency graph of the proof"):
        candidates(tmp_path, "dojo_x")


def test_the_graph_sentences_print_the_proof_and_the_compiled_module(tmp_path: Path):
    assert graph_sentences("dojo_1", "Coq.Lists.List", tmp_path, "dojo_1") == (
        "Require dpdgraph.dpdgraph.",
        f'Set DependGraph File "{tmp_path}/dojo_proof_dojo_1.dpd".',
        "Print DependGraph dojo_1.",
        f'Set DependGraph File "{tmp_path}/dojo_module_dojo_1.dpd".',
        "Print FileDependGraph Coq.Lists.List.",
    )


def test_reopening_keeps_the_module_suffix_and_counts_the_sections_to_close():
    context = CoqContext(key="stdlib:Lists/List.v", name="x", statement="Lemma x : True.",
                         prefix=("Module M.", "Section S.", "Variable A : Type.", "Section T.", "End T.",
                                 "Section U.", "(* c *) Section V."),
                         source_prefix="", module="Coq.Lists.List",
                         closing=("End V.", "End U.", "End S.", "End M."))
    again = reopen(context)
    assert again.module == f"{REOPENED}.Coq.Lists.List" and again.key == "reopened:stdlib:Lists/List.v"
    assert compiled_module(again) == "Coq.Lists.List" and compiled_module(context) is None
    assert reopen(again) == again
    assert open_sections(context) == 3


def reports(*names: str) -> dict[str, str]:
    return {name: (FIXTURES / f"locate_{name}.out").read_text() for name in names}


COMPILED, REOPENED_LIST = "Coq.Lists.List", f"{REOPENED}.Coq.Lists.List"


def test_locate_reports_are_read_by_full_path_and_kind():
    assert located(reports("In")["In"]) == {
        ("DojoReopened.Coq.Lists.List.In", "cnst"), ("Coq.Lists.List.In", "cnst"),
        ("Coq.Vectors.Vector.In", "inductive"), ("Coq.Vectors.VectorDef.In", "inductive")}


def test_an_earlier_object_with_a_reopened_twin_is_available_whatever_name_printed_it():
    """Fails if a compiled copy of an earlier lemma counts as a leak (``auto`` through the compiled
    module's hints would be refused), whichever shortest name dpdgraph chose for it."""
    for printed in ("List.app_nil_l", "Coq.Lists.List.app_nil_l", "Lists.List.app_nil_l"):
        assert untwinned([Node(printed, "cnst")], reports("app_nil_l"), COMPILED, REOPENED_LIST) == []
    assert untwinned([Node("List.In", "cnst")], reports("In"), COMPILED, REOPENED_LIST) == []


def test_the_theorem_and_a_later_lemma_have_no_twin_and_leak():
    """Fails if the compiled theorem or a later lemma passes (the verification lemma is renamed, so
    the theorem has no twin; a later lemma was never replayed)."""
    found = [Node("List.app_nil_r", "cnst"), Node("List.app_nil_end", "cnst"), Node("List.app_nil_l", "cnst")]
    assert untwinned(found, reports("app_nil_r", "app_nil_end", "app_nil_l"), COMPILED, REOPENED_LIST) == [
        "List.app_nil_end", "List.app_nil_r"]


def test_a_twin_of_another_kind_or_path_does_not_count():
    """A twin is the same kind at the same inner path: an inductive ``In`` elsewhere, or the compiled
    object itself, never stands in for the reopened one."""
    report = {"In": "Inductive DojoReopened.Coq.Lists.List.In\nConstant Coq.Lists.List.In\n"
                    "Constant DojoReopened.Coq.Lists.List.Inner.In\n"}
    assert untwinned([Node("List.In", "cnst")], report, COMPILED, REOPENED_LIST) == ["List.In"]


def test_an_ambiguous_printed_name_needs_every_object_it_may_denote_twinned():
    """``M.x`` may be ``Coq.Lists.List.M.x`` or ``Coq.Lists.List.A.M.x``: both need a twin."""
    report = {"x": "Constant Coq.Lists.List.M.x\nConstant Coq.Lists.List.A.M.x\n"
                   "Constant DojoReopened.Coq.Lists.List.M.x\n"}
    assert untwinned([Node("M.x", "cnst")], report, COMPILED, REOPENED_LIST) == ["M.x"]
    report["x"] += "Constant DojoReopened.Coq.Lists.List.A.M.x\n"
    assert untwinned([Node("M.x", "cnst")], report, COMPILED, REOPENED_LIST) == []


def test_a_candidate_not_located_fails_the_check():
    with pytest.raises(DependencyError, match="List.app_nil_r was not located"):
        untwinned([Node("List.app_nil_r", "cnst")], {}, COMPILED, REOPENED_LIST)
    with pytest.raises(DependencyError, match="not located in the compiled Coq.Lists.List"):
        untwinned([Node("List.app_nil_r", "cnst")], {"app_nil_r": "Constant Other.app_nil_r\n"}, COMPILED,
                  REOPENED_LIST)


def test_the_locate_file_loads_the_checked_library_and_locates_each_base_name_once():
    source, files = locate_source("DojoReopened.Coq.Lists.List", ["app_nil_r", "In", "app_nil_r"], Path("/check"))
    assert source == ('Require DojoReopened.Coq.Lists.List.\nRedirect "/check/dojo_locate_0" Locate In.\n'
                      'Redirect "/check/dojo_locate_1" Locate app_nil_r.\n')
    assert files == {"In": Path("/check/dojo_locate_0.out"), "app_nil_r": Path("/check/dojo_locate_1.out")}
