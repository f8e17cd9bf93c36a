import numpy as np
import pytest
from rank_bm25 import BM25Okapi

from retrieval.base import RETRIEVERS, build_retriever, top_k
from retrieval.bm25 import BM25Index, tokenize
from retrieval.fusion import FusionRetriever, reciprocal_rank_fusion
from retrieval.mepo import MePoRetriever
from retrieval.sine import SInERetriever
from retrieval_fixtures import FROB_GOAL, padded_files, small_corpus
from search_tree.protocol import Theorem

FROB_FILE = Theorem("goal", "Lib/Frob.lean", (30, 1))


def names(ranking):
    return [p.full_name for p, _ in ranking]


@pytest.fixture
def corpus(tmp_path):
    return small_corpus(tmp_path)


def test_mepo_prefers_the_rare_symbol(corpus):
    ranked = names(MePoRetriever(corpus).retrieve(FROB_GOAL, None, 5))
    assert ranked[0] == "frob_add"  # shares Foo.frob and + with the goal, nothing else
    assert ranked.index("frob_add") < ranked.index("add_comm'")
    assert "mul_comm'" not in ranked[:3]


def test_mepo_rounds_and_pass_mark(corpus):
    # p=1 accepts only premises whose every symbol is relevant; the pass mark then stays at 1
    strict = MePoRetriever(corpus, p=1.0).retrieve("x : ℕ\n⊢ Foo.frob 0 = 0", None, 20)
    accepted = [p.full_name for p, s in strict if s >= 0]
    assert accepted == ["Foo.frob"]  # the definition's symbols {Nat, Foo.frob} are all relevant
    # the rest follow by relevance, after every accepted premise
    assert [s for _, s in strict] == sorted((s for _, s in strict), reverse=True)
    assert "frob_late" in names(strict[1:4])  # shares Foo.frob, 0 and =
    with pytest.raises(ValueError, match=r"MePo needs 0 < p <= 1 and c > 0, got p=0.0"):
        MePoRetriever(corpus, p=0.0)


def test_mepo_respects_accessibility(corpus):
    ranked = names(MePoRetriever(corpus).retrieve(FROB_GOAL, FROB_FILE, 20))
    assert "frob_late" not in ranked and "frob_other" not in ranked
    unrestricted = names(MePoRetriever(corpus).retrieve(FROB_GOAL, None, 20))
    assert "frob_late" in unrestricted and "frob_other" in unrestricted


def test_sine_triggers_by_rare_symbol(corpus):
    sine = SInERetriever(corpus)
    ranked = sine.retrieve(FROB_GOAL, FROB_FILE, 20)
    depth1 = {p.full_name for p, s in ranked if s > -1.0 - 1e-9}
    # Foo.frob is the rarest symbol of frob_add and of the definition: both triggered at depth 1
    assert {"frob_add", "Foo.frob"} <= depth1
    # the premise with the rare symbol comes first within its depth; `*` is not in the goal
    assert names(ranked)[0] == "frob_add"
    assert "mul_comm'" not in depth1 and "mul_one'" not in depth1
    assert "frob_late" not in names(ranked) and "frob_other" not in names(ranked)


def test_sine_deny_list_and_depth_limit(corpus):
    # `=` and `≤` are denied: a goal made of them and variables triggers nothing, unless allowed
    assert SInERetriever(corpus).retrieve("⊢ a ≤ b", None, 10) == []
    allowed = names(SInERetriever(corpus, deny=frozenset()).retrieve("⊢ a ≤ b", None, 10))
    assert set(allowed[:2]) == {"le_refl'", "le_trans'"}
    shallow = SInERetriever(corpus, d=1).retrieve(FROB_GOAL, None, 20)
    assert all(s > -1.0 - 1e-9 for _, s in shallow)
    deeper = SInERetriever(corpus, d=None, t=3.0).retrieve(FROB_GOAL, None, 20)
    assert len(deeper) >= len(shallow)


def test_bm25_matches_rank_bm25(corpus):
    docs = [tokenize(p.text) for p in corpus.premises]
    ours, ref = BM25Index(docs), BM25Okapi(docs)
    for q in [FROB_GOAL, "a * b = b * a", "le trans", "n + 0 = n + 0"]:
        qt = tokenize(q)
        np.testing.assert_allclose(ours.scores(qt), ref.get_scores(qt), rtol=1e-9, atol=1e-12)


def test_bm25_tokenizer_splits_identifiers():
    assert tokenize("Nat.succ_le_iff toDual HTTPServer") == ["nat", "succ", "le", "iff", "to", "dual", "http", "server"]


def test_bm25_retriever(corpus):
    ranked = names(build_retriever("bm25", corpus).retrieve("⊢ mul_comm' a b", FROB_FILE, 3))
    assert ranked[0] == "mul_comm'"


def test_top_k_masks_and_orders():
    scores = np.array([0.5, 2.0, 2.0, -1.0, 3.0])
    mask = np.array([True, True, True, True, False])
    assert top_k(scores, mask, 3) == [(1, 2.0), (2, 2.0), (0, 0.5)]
    assert top_k(scores, None, 10, floor=0.0) == [(4, 3.0), (1, 2.0), (2, 2.0), (0, 0.5)]


def test_rrf_by_hand():
    fused = dict(reciprocal_rank_fusion([[1, 2, 3], [3, 1]], rrf_k=60))
    assert fused[1] == pytest.approx(1 / 61 + 1 / 62)
    assert fused[3] == pytest.approx(1 / 63 + 1 / 61)
    assert fused[2] == pytest.approx(1 / 62)
    assert [i for i, _ in reciprocal_rank_fusion([[1, 2, 3], [3, 1]])] == [1, 3, 2]


def test_fusion_retriever_combines_member_ranks(corpus):
    bm25, mepo = build_retriever("bm25", corpus), build_retriever("mepo", corpus)
    fusion = FusionRetriever(corpus, [bm25, mepo], depth=20)
    got = fusion.retrieve(FROB_GOAL, FROB_FILE, 5)
    expected = {}
    for member in (bm25, mepo):
        for rank, (p, _) in enumerate(member.retrieve(FROB_GOAL, FROB_FILE, 20), 1):
            expected[p.full_name] = expected.get(p.full_name, 0.0) + 1 / (60 + rank)
    for p, score in got:
        assert score == pytest.approx(expected[p.full_name])
    assert [s for _, s in got] == sorted(expected.values(), reverse=True)[:5]


def test_registry(corpus):
    assert set(RETRIEVERS) == {"ps2", "mepo", "sine", "bm25", "knn", "fusion"}
    fusion = build_retriever("fusion", corpus, retrievers=["bm25", "sine"])
    assert [m.name for m in fusion.members] == ["bm25", "sine"]
    with pytest.raises(KeyError, match="unknown retriever"):
        build_retriever("nope", corpus)


def test_batch_retrieve_equals_single(corpus):
    r = build_retriever("mepo", corpus)
    states = [FROB_GOAL, "⊢ a * 1 = a"]
    assert r.batch_retrieve(states, [FROB_FILE, None], 4) == [r.retrieve(states[0], FROB_FILE, 4),
                                                               r.retrieve(states[1], None, 4)]


def test_theorem_is_not_its_own_premise(corpus):
    ranked = names(build_retriever("bm25", corpus).retrieve("⊢ mul_comm' a b", Theorem("mul_comm'"), 3))
    assert "mul_comm'" not in ranked


def test_evaluate_follows_reprover_definitions(tmp_path):
    """R@1, R@4, R@10 and MRR on hand-computed values, with one gold premise at rank 12 (an R@10
    miss) and one at rank 5 (an R@4 miss, an R@10 hit).

    Fails if R@4 or R@10 counts gold premises beyond its cut (e.g. ``names[:10]`` widened to the
    whole ranking), if R@k is not divided by the number of gold premises, or if MRR uses a later
    gold hit.
    """
    from retrieval.evaluation import PremiseExample, evaluate

    bm25 = build_retriever("bm25", small_corpus(tmp_path, padded_files(12)))
    state = "⊢ mul_comm' a b = mul_one' a"
    ranking = names(bm25.retrieve(state, FROB_FILE, 100))
    assert len(ranking) >= 12
    far = PremiseExample(state, FROB_FILE, (ranking[0], ranking[11]))  # ranks 1 and 12
    near = PremiseExample(state, FROB_FILE, (ranking[2],))  # rank 3
    alone = evaluate(bm25, [far])
    assert (alone.r1, alone.r4, alone.r10, alone.mrr) == (0.5, 0.5, 0.5, 1.0)
    fifth = PremiseExample(state, FROB_FILE, (ranking[4],))  # rank 5
    report = evaluate(bm25, [far, near, fifth])
    assert report.queries == 3
    assert report.r1 == pytest.approx((1 / 2 + 0 + 0) / 3)
    assert report.r4 == pytest.approx((1 / 2 + 1 + 0) / 3)
    assert report.r10 == pytest.approx((1 / 2 + 1 + 1) / 3)
    assert report.mrr == pytest.approx((1 + 1 / 3 + 1 / 5) / 3)


def test_example_sampling_is_reported(corpus):
    from retrieval.evaluation import premise_examples

    traced = [{"full_name": "t", "file_path": "Lib/Frob.lean", "start": [30, 1], "traced_tactics": [
        {"state_before": f"⊢ s{i}", "annotated_tactic": ["", [{"full_name": "frob_add"}]]} for i in range(5)]}]
    full = premise_examples(traced, corpus)
    sample = full.sample(2, seed=1)
    assert len(sample.examples) == 2 and sample.sampled_from == 5
    assert full.sample(10) is full
