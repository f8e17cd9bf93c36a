"""A project learns from the traces of the installed libraries it requires: the scanner resolves a
``From deriving Require`` to the installed library's module, the default's traces then include
``coq-lib:deriving``'s traced directory (here one file of it, traced into a private cache), the
learned members share two directories' suggestions, and a part of the library never learns from
the whole, whose traces hold its own proofs."""

from __future__ import annotations


from coq_projects import make_project
from prover.coq.build import project_index
from prover.coq.default_generator import LEARNED_TOP, NAMESAKE_TOP, coq_default, default_width
from prover.coq.env import CoqEnvironment
from prover.coq.project import load_project
from prover.coq.tracer import ensure_traced, library_traces, traced_data_dir

USER = """From deriving Require Import infer.
From Coq Require Import Arith.

Lemma mine (n : nat) : n + 0 = n.
Proof. now rewrite Nat.add_0_r. Qed.
"""


def test_a_project_learns_from_the_traced_library_it_requires_and_a_part_never_from_its_whole(
        tmp_path, private_cache):
    """Fails if the scanner leaves ``From deriving Require Import infer`` unresolved or resolves it
    to another module, if a library is learned from before it is traced or while its traces hold
    no tactic (the default's kNN would refuse them), if the traced library is missing from the
    project's default traces or
    comes with the stdlib's (not traced in this cache), if three directories widen the default's
    search or give a member more than two directories' worth of suggestions, or if
    ``coq-lib:deriving.instances`` learns from ``coq-lib:deriving``, which holds its files."""
    library = load_project("coq-lib:deriving")
    root = make_project(tmp_path / "user", {"theories/User.v": USER})
    project = load_project(str(root))
    user = project_index(project, progress=False).file("theories/User.v")
    assert (user.library_requires, user.unresolved_requires) == (["deriving.infer"], [])
    assert library_traces(project) == []
    assert ensure_traced(["infer.v"], progress=False, project=library).failed == []
    assert library_traces(project) == []  # traced, but only a file that proves nothing: no tactic to learn
    assert ensure_traced(["instances/tree_of_ind.v"], progress=False, project=library).theorems == 2
    traced = traced_data_dir(library)
    assert library_traces(project) == [traced]
    assert CoqEnvironment.default_traces({"project": str(root)}) == [str(traced)]
    assert [line.split(",")[0] for line in CoqEnvironment.missing_traces({"project": str(root)})] == [
        "the Coq stdlib is not traced here", f"Coq project {root.name} is not traced"]

    generator = coq_default([str(traced)] * 3, hammer=False)
    learned = [(name, top) for (_, _, top), name in zip(generator.members, generator.names, strict=True)
               if name.startswith(("knn", "proofs"))]
    assert learned == [(name, 2 * LEARNED_TOP // 3) for name in ("knn", "proofs", "knn1", "proofs1", "knn2",
                                                                 "proofs2")]
    namesakes = [top for (_, _, top), name in zip(generator.members, generator.names, strict=True)
                 if name.startswith("namesake")]
    assert namesakes == [2 * NAMESAKE_TOP // 3] * 3
    assert default_width(3) == default_width(2)

    part = load_project("coq-lib:deriving.instances")
    assert "deriving.infer" in {m for f in project_index(part, progress=False).files.values()
                                for m in f.library_requires}
    assert library_traces(part) == []
