"""Carrying a twin lemma's tactic over to the current goal (:mod:`generator.analogy`), and kNN and
proof retrieval proposing the carried-over tactic, on hand-made states (the stdlib's real twins are
counted by ``benchmarks/twin_proofs.py``)."""

from __future__ import annotations

from generator.analogy import MAX_RENAMED, analogy, carried_over
from prover.coq.language import COQ
from search_tree.protocol import TacticState, Theorem

NEG_COS = "  ============================\n  forall x : R, cos (x + PI) = - cos x"
NEG_SIN = "  ============================\n  forall x : R, sin (x + PI) = - sin x"
NEG_COS_PROOF = "intro x; rewrite cos_plus; rewrite sin_PI; rewrite cos_PI; ring."


def test_twins_differ_by_a_renaming_of_constants():
    """Fails if the renaming is not read token for token: ``cos`` -> ``sin`` here, and nothing where
    the states differ in anything but names, where a name would be renamed two ways, or where they
    differ in more names than :data:`MAX_RENAMED` (then they are different goals)."""
    assert analogy(NEG_COS, NEG_SIN, COQ) == {"cos": "sin"}
    assert analogy(NEG_COS, NEG_COS, COQ) == {}
    assert analogy(NEG_COS, NEG_SIN.replace("x + PI", "x - PI"), COQ) == {}  # a symbol differs
    assert analogy(NEG_COS, NEG_SIN.replace("- sin x", "- tan x"), COQ) == {}  # cos -> sin and cos -> tan
    assert analogy(NEG_COS, NEG_SIN.replace("PI", "PI / 2"), COQ) == {}  # not the same length
    many = " /\\ ".join(f"f{i} = g{i}" for i in range(MAX_RENAMED + 1))
    assert analogy(many, many.replace("g", "h"), COQ) == {}
    assert analogy(many.replace(f"f{MAX_RENAMED} = g{MAX_RENAMED}", "True"), many.replace("g", "h").replace(
        f"f{MAX_RENAMED} = h{MAX_RENAMED}", "True"), COQ) == {f"g{i}": f"h{i}" for i in range(MAX_RENAMED)}


def test_hypothesis_names_alone_make_no_twin():
    """Fails if states that differ only in hypothesis names (kNN's own renaming maps those by type)
    count as twins, or if a hypothesis renaming is carried along with a constant's."""
    a = "  n, m : nat\n  ============================\n  Nat.max n m = n"
    b = "  p, q : nat\n  ============================\n  Nat.max p q = p"
    assert analogy(a, b, COQ, {"n", "m", "p", "q"}) == {}
    c = "  p, q : nat\n  ============================\n  Nat.min p q = p"
    assert analogy(a, c, COQ, {"n", "m", "p", "q"}) == {"Nat.max": "Nat.min"}


def test_a_twins_proof_is_carried_over_as_is_and_as_an_exchange():
    """Fails if names are renamed only whole (``cos_plus`` must become ``sin_plus``), if the
    exchange is missing (the proof of ``neg_sin`` swaps ``sin_PI`` and ``cos_PI``), if a qualified
    name's last component is not renamed, or if a tactic that the renaming leaves as it is is
    proposed again."""
    variants = carried_over(NEG_COS_PROOF, {"cos": "sin"}, COQ)
    assert variants == ["intro x; rewrite sin_plus; rewrite sin_PI; rewrite sin_PI; ring.",
                        "intro x; rewrite sin_plus; rewrite cos_PI; rewrite sin_PI; ring."]
    assert carried_over("apply Nat.max_l; rewrite Nat.max_comm.", {"Nat.max": "Nat.min"}, COQ) == [
        "apply Nat.min_l; rewrite Nat.min_comm."]  # the exchange gives the same: proposed once
    assert carried_over("ring.", {"cos": "sin"}, COQ) == []
    assert carried_over(NEG_COS_PROOF, {}, COQ) == []


def test_knn_and_proof_retrieval_propose_the_twins_tactic_carried_over():
    """Fails if kNN or proof retrieval propose only the twin's tactic as it was written (checked:
    without the ``carried_over`` loop), or give the carried-over one less than its neighbour's weight."""
    from generator.knn import KNNGenerator
    from generator.proof_retrieval import ProofRetrievalGenerator, TracedProof
    from generator.traced import TacticExample

    here = Theorem("neg_sin", file_path="Rtrigo1.v", position=(515, 1))
    state = TacticState(NEG_SIN, 0)
    exchanged = "intro x; rewrite sin_plus; rewrite cos_PI; rewrite sin_PI; ring."
    knn = KNNGenerator([TacticExample("neg_cos", "Rtrigo1.v", 0, NEG_COS, NEG_COS_PROOF, "no goals", (), 1,
                                      start=(346, 1))], COQ, k=4)
    proposed = dict(knn.generate(state, here, 8))
    assert exchanged in proposed and proposed[exchanged] == proposed[NEG_COS_PROOF]
    proofs = ProofRetrievalGenerator([TracedProof("neg_cos", "Rtrigo1.v", (346, 1), NEG_COS, NEG_COS_PROOF,
                                                  "intro x.")], COQ, opening=0.0)
    proposed = dict(proofs.generate(state, here, 8))
    assert exchanged in proposed and proposed[exchanged] == proposed[NEG_COS_PROOF]


def test_proof_retrieval_finds_a_twin_that_similarity_ranks_low():
    """Fails if the twin of the goal is looked for only among the ``k`` most similar proofs
    (checked: ``retrieve`` without the :class:`~generator.analogy.TwinIndex`): to BM25, other
    ``sin`` lemmas are nearer to ``neg_sin`` than its twin ``neg_cos``; an inaccessible twin (later
    in the file) stays hidden."""
    from generator.proof_retrieval import ProofRetrievalGenerator, TracedProof

    decoys = [TracedProof(f"sin_{i}", "Rtrigo1.v", (100 + i, 1),
                          f"  ============================\n  forall x : R, sin (x + PI) = - sin x * {i}", "ring.", "ring.")
              for i in range(6)]
    twin = TracedProof("neg_cos", "Rtrigo1.v", (346, 1), NEG_COS, NEG_COS_PROOF, "intro x.")
    gen = ProofRetrievalGenerator([*decoys, twin], COQ, k=1, opening=0.0)
    exchanged = "intro x; rewrite sin_plus; rewrite cos_PI; rewrite sin_PI; ring."
    state = TacticState(NEG_SIN, 0)
    assert exchanged in dict(gen.generate(state, Theorem("neg_sin", file_path="Rtrigo1.v", position=(515, 1)), 8))
    assert exchanged not in dict(gen.generate(state, Theorem("neg_sin", file_path="Rtrigo1.v", position=(300, 1)), 8))


def test_the_ablation_carries_nothing_over():
    """Fails if ``twins=False`` (``default-no-twins`` in ``benchmarks/coq_vs_hammer.py``) still
    proposes a carried-over tactic, from kNN or from proof retrieval."""
    from generator.knn import KNNGenerator
    from generator.proof_retrieval import ProofRetrievalGenerator, TracedProof
    from generator.traced import TacticExample

    here = Theorem("neg_sin", file_path="Rtrigo1.v", position=(515, 1))
    state = TacticState(NEG_SIN, 0)
    knn = KNNGenerator([TacticExample("neg_cos", "Rtrigo1.v", 0, NEG_COS, NEG_COS_PROOF, "no goals", (), 1,
                                      start=(346, 1))], COQ, k=4, twins=False)
    proofs = ProofRetrievalGenerator([TracedProof("neg_cos", "Rtrigo1.v", (346, 1), NEG_COS, NEG_COS_PROOF,
                                                  "intro x.")], COQ, opening=0.0, twins=False)
    assert [t for t, _ in knn.generate(state, here, 8)] == [NEG_COS_PROOF]
    assert [t for t, _ in proofs.generate(state, here, 8)] == [NEG_COS_PROOF]


def test_bound_variables_and_keywords_are_no_constants_to_rename():
    """Fails if bound variables count as constants (``forall n`` against ``forall m`` would rename
    ``plus_n_O`` to ``plus_m_O``) or if a keyword may be renamed (``forall`` to ``exists``, ``Type``
    to ``Prop``: another goal, not a twin); a constant beside bound variables still is one."""
    assert analogy("forall n : nat, n + 0 = n", "forall m : nat, m + 0 = m", COQ) == {}
    assert analogy("forall (n : nat) (h : P n), cos n = 0", "forall (m : nat) (h : P m), sin m = 0", COQ) == {"cos": "sin"}
    assert analogy("forall n : nat, n + 0 = n", "exists n : nat, n + 0 = n", COQ) == {}
    assert analogy("Type = T", "Prop = T", COQ) == {}
