"""The leak check's reading of coq-dpdgraph graphs and its refusal decision, on real dpdgraph output.

The fixtures in tests/fixtures/dpdgraph were written by Debian's libcoq-dpdgraph (Coq 8.16) in one
environment: the first 200 lines of ``Coq/Lists/List.v`` compiled as ``DojoReopened.Coq.Lists.List``
with CoqHammer's ``Tactics`` loaded (so the compiled ``Coq.Lists.List`` is loaded too), then

* ``leaking_proof.dpd``: ``Print DependGraph`` of ``my_app_nil (l : list A) : app l nil = l``
  proved by ``hauto use: Coq.Lists.List.app_nil_r`` (the compiled copy of a later lemma);
* ``honest_proof.dpd``: ``Print DependGraph`` of the reopened ``app_nil_l``;
* ``compiled_list_nodes.dpd``: the node lines of ``Print FileDependGraph Coq.Lists.List``.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from prover.coq.dependencies import DependencyError, Node, graph_sentences, leaked, leaks, parse_dpd
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


def test_a_proof_through_the_compiled_later_lemma_leaks_and_an_honest_one_does_not():
    module = graph("compiled_list_nodes.dpd")
    assert len(module) == 406  # one per node line
    assert leaked(graph("leaking_proof.dpd"), module) == ["Coq.Lists.List.app_nil_r"]
    assert leaked(graph("honest_proof.dpd"), module) == []
    # the reopened twin of an earlier lemma is printed apart from its compiled copy
    assert Node("List.app_nil_l", "cnst") in graph("honest_proof.dpd")
    assert Node("Coq.Lists.List.app_nil_l", "cnst") in module


def test_unreadable_or_missing_graphs_fail_the_check(tmp_path: Path):
    with pytest.raises(DependencyError, match="unreadable dpdgraph line 'Error: oops'"):
        parse_dpd("N: 1 \"a\" [kind=cnst, ];\nError: oops\n")
    with pytest.raises(DependencyError, match="libcoq-dpdgraph"):
        leaks(tmp_path, "dojo_x")
    for line in graph_sentences("dojo_x", "Coq.Lists.List", tmp_path, "dojo_x")[1::2]:
        if line.startswith("Set"):
            (tmp_path / line.split('"')[1]).write_text("")
    with pytest.raises(DependencyError, match="empty dependency graph"):
        leaks(tmp_path, "dojo_x")


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
