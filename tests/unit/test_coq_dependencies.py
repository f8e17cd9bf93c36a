"""Reading dpdgraph's graphs and Coq's ``Locate`` (:mod:`prover.coq.dependencies`)."""

from __future__ import annotations

import pytest

from prover.coq.dependencies import check_source, located, reaching, read_graph

# as the plugin writes them: the proof uses Arith_prebase's lemma, which uses the compiled
# PeanoNat's; ``list`` and ``cons`` use each other (an inductive and its constructor)
GRAPH = """N: 1 "dojo_ab12" [body=yes, kind=cnst, prop=yes, path="PeanoNat.Nat", ];
N: 2 "lt_n_Sm_le_stt" [body=yes, kind=cnst, prop=yes, path="Arith_prebase", ];
N: 3 "lt_succ_r" [body=yes, kind=cnst, prop=yes, path="Coq.Arith.PeanoNat.Nat", ];
N: 4 "le" [kind=inductive, prop=no, ];
N: 5 "list" [kind=inductive, prop=no, ];
N: 6 "cons" [kind=construct, prop=no, ];
E: 1 2 [weight=1, ];
E: 1 4 [weight=2, ];
E: 1 5 [weight=1, ];
E: 2 3 [weight=1, ];
E: 3 4 [weight=3, ];
E: 5 6 [weight=1, ];
E: 6 5 [weight=1, ];
"""


def test_graph_names_carry_their_path():
    """Fails if a node is named without its path, or an edge is lost."""
    graph = read_graph(GRAPH)
    assert graph.names == {1: "PeanoNat.Nat.dojo_ab12", 2: "Arith_prebase.lt_n_Sm_le_stt",
                           3: "Coq.Arith.PeanoNat.Nat.lt_succ_r", 4: "le", 5: "list", 6: "cons"}
    assert graph.uses == {1: {2, 4, 5}, 2: {3}, 3: {4}, 5: {6}, 6: {5}}
    assert graph.node("dojo_ab12") == 1


def test_a_dependency_through_another_module_is_found_and_named():
    """Fails if only direct dependencies are followed (the proof names Arith_prebase's lemma, not
    PeanoNat's), or if a cycle of the graph hangs the search."""
    graph = read_graph(GRAPH)
    assert reaching(graph, 1, {"Coq.Arith.PeanoNat.Nat.lt_succ_r", "Coq.Arith.PeanoNat.Nat.unused"}) == (
        ["Arith_prebase.lt_n_Sm_le_stt"], ["Coq.Arith.PeanoNat.Nat.lt_succ_r"])
    assert reaching(graph, 1, {"Coq.Arith.PeanoNat.Nat.unused"}) == ([], [])
    assert reaching(graph, 1, {"cons"}) == (["list"], ["cons"])


def test_unreadable_graphs_and_locations_are_errors():
    """Fails if a line of another format, a missing proof node or an ambiguous location is
    read as an empty answer (the check must fail closed)."""
    with pytest.raises(ValueError, match="not a line of a dpdgraph graph"):
        read_graph(GRAPH + "Error: something\n")
    with pytest.raises(ValueError, match="0 nodes named dojo_ff"):
        read_graph(GRAPH).node("dojo_ff")
    text = ("Constant DojoReopened.Coq.Lists.List.dojo_ab12\n"
            "  (shorter name to refer to it in current context is dojo_ab12)\n")
    assert located(text, "dojo_ab12") == "DojoReopened.Coq.Lists.List.dojo_ab12"
    with pytest.raises(ValueError, match="listed 0 constants"):
        located("No object of basename dojo_ab12\n", "dojo_ab12")
    with pytest.raises(ValueError, match="listed 2 constants"):
        located("Constant A.dojo_ab12\nConstant B.dojo_ab12\n", "dojo_ab12")


def test_check_source_imports_nothing():
    """Fails if the check imports a library (names would then print without the library's)."""
    text = check_source("DojoReopened.M.dojo_ab", "DojoReopened.M", "M", "p.dpd", "m.dpd")
    assert text.splitlines() == [
        "Require dpdgraph.dpdgraph.", "Require DojoReopened.M.", 'Set DependGraph File "p.dpd".',
        "Print DependGraph DojoReopened.M.dojo_ab.", 'Set DependGraph File "m.dpd".', "Print FileDependGraph M."]
