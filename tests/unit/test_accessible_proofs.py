"""Which traced proofs kNN may propose for a theorem, and how locality weighs them, on hand-made
examples (no Coq; ``tests/integration/test_knn_online.py`` checks the same on really traced files)."""

import pytest

from prover.coq.language import COQ
from search_tree.protocol import TacticState, Theorem


def test_nearer_lemmas_of_the_file_weigh_more():
    """Fails if the locality bonus is dropped (checked: ``_bonus`` returning 0): two earlier lemmas
    with the same state propose different tactics, and the one just before the theorem wins."""
    from generator.knn import KNNGenerator
    from generator.traced import TacticExample

    state = "  n : nat\n  ============================\n  n + 0 = n"
    exs = [TacticExample(name, "F.v", 0, state, tac, "no goals", (), 1, start=(line, 1))
           for name, tac, line in [("far", "lia.", 10), ("near", "auto.", 20)]]
    gen = KNNGenerator(exs, COQ, k=4)
    here = Theorem("t", file_path="F.v", position=(30, 1))
    (best, p_best), (other, p_other) = gen.generate(TacticState(state, 0), here, 4)
    assert (best, other) == ("auto.", "lia.") and p_best > p_other
    flat = KNNGenerator(exs, COQ, k=4, locality=0.0)
    scores = dict(flat.generate(TacticState(state, 0), here, 4))
    assert scores["auto."] == pytest.approx(scores["lia."])
    with pytest.raises(ValueError, match="decay in"):
        KNNGenerator(exs, COQ, decay=0.0)


def test_own_proof_hidden_even_where_positions_disagree():
    """Fails if the own-name rule is dropped (checked: ``mask[same] = False`` removed): a context
    without a position, or placed after its traced copy (traces of another library version), must
    still not see the theorem's own proof; a namesake in another traced file stays visible."""
    from generator.accessible import AccessibleProofs, ProofOwner

    owners = [ProofOwner("F.v", (5, 1), "t"), ProofOwner("F.v", (9, 1), "u"), ProofOwner("G.v", (1, 1), "t")]
    acc = AccessibleProofs(owners)
    assert acc.mask(Theorem("t", file_path="F.v")).tolist() == [False, True, True]
    assert acc.mask(Theorem("t", file_path="F.v", position=(7, 1))).tolist() == [False, False, True]
    assert acc.mask(Theorem("t")).tolist() == [False, True, False]  # no file: every namesake is hidden
