"""PS-2 with the real bundled MiniLM, FAISS and Lightning on a tiny corpus (no mocks)."""

import json
import re

import pytest

import faiss  # noqa: E402,F401  (required: a broken install must fail, not skip)
import sentence_transformers  # noqa: E402,F401

from retrieval.dense import DenseRetriever, load_encoder  # noqa: E402
from retrieval.evaluation import evaluate, premise_examples  # noqa: E402
from retrieval.training import train_dense  # noqa: E402
from retrieval.training_data import (  # noqa: E402
    TrainingPair, evaluation_theorem_names, load_pairs, pairs_from_proofs, pairs_from_traced, resolve_name,
)
from retrieval_fixtures import FROB_GOAL, small_corpus  # noqa: E402
from search_tree.protocol import Theorem  # noqa: E402

FROB_FILE = Theorem("goal", "Lib/Frob.lean", (30, 1))


@pytest.fixture(scope="module")
def encoder():
    return load_encoder(device="cpu")


@pytest.fixture
def corpus(tmp_path):
    return small_corpus(tmp_path)


def names(ranking):
    return [p.full_name for p, _ in ranking]


def test_ps2_retrieves_and_filters(corpus, tmp_path, encoder):
    ps2 = DenseRetriever(corpus, encoder=encoder, show_progress=False)
    exact = ps2.retrieve(corpus["mul_comm'"].text, None, 3)
    assert names(exact)[0] == "mul_comm'"
    scores = [s for _, s in exact]
    assert scores == sorted(scores, reverse=True) and scores[0] <= 1.0 + 1e-5
    ranked = names(ps2.retrieve(FROB_GOAL, FROB_FILE, len(corpus)))
    assert "frob_late" not in ranked and "frob_other" not in ranked
    assert len(ranked) == len(corpus) - 2
    batch = ps2.batch_retrieve([FROB_GOAL, "⊢ a * 1 = a"], [FROB_FILE, None], 4)
    assert names(batch[0]) == ranked[:4]


def test_ps2_hnsw_and_cache_reuse(corpus, tmp_path, encoder):
    from retrieval.dense import default_model_path

    first = DenseRetriever(corpus, index="hnsw", cache_dir=tmp_path / "cache", show_progress=False)
    index_file = first.cache_path / "index-hnsw32.faiss"
    assert index_file.exists() and first.cache_path.parent == tmp_path / "cache"
    mtime = index_file.stat().st_mtime_ns
    again = DenseRetriever(corpus, model=default_model_path(), index="hnsw", cache_dir=tmp_path / "cache",
                           show_progress=False)
    assert again.cache_path == first.cache_path
    assert index_file.stat().st_mtime_ns == mtime  # read, not rebuilt
    flat = DenseRetriever(corpus, index="flat", cache_dir=tmp_path / "cache", show_progress=False)
    assert flat.cache_path == first.cache_path  # one set of vectors, one index file per kind
    assert (flat.cache_path / "index-flat.faiss").exists() and index_file.stat().st_mtime_ns == mtime
    assert names(again.retrieve(FROB_GOAL, FROB_FILE, 5)) == names(first.retrieve(FROB_GOAL, FROB_FILE, 5))


def test_training_data_sources(corpus, tmp_path):
    traced = [{"full_name": "t1", "file_path": "Lib/Frob.lean", "start": [30, 1], "traced_tactics": [
        {"state_before": FROB_GOAL, "tactic": "rw [frob_add]",
         "annotated_tactic": ["rw [<a>frob_add</a>]", [{"full_name": "frob_add"}, {"full_name": "Std.missing"}]]},
        {"state_before": "⊢ True", "tactic": "trivial", "annotated_tactic": ["trivial", []]}]},
        {"full_name": "held_out", "traced_tactics": [
            {"state_before": "⊢ x", "annotated_tactic": ["", [{"full_name": "le_refl'"}]]}]}]
    pairs = pairs_from_traced(traced, corpus, exclude={"held_out"})
    assert pairs == [TrainingPair(FROB_GOAL, (corpus.index_of("frob_add"),), "t1", "Lib/Frob.lean")]
    proofs = tmp_path / "proofs.jsonl"
    proofs.write_text("\n".join(json.dumps(x) for x in [
        {"full_name": "Foo.frob_twice", "statement": "@[simp] theorem frob_twice (x : ℕ) : frob x = x",
         "proof": ":= by rw [frob, add_comm']"},
        {"full_name": "held_out", "statement": "s", "proof": "le_refl'"},
    ]))
    assert resolve_name("frob", "Foo", corpus) == corpus.index_of("Foo.frob")
    got = pairs_from_proofs(proofs, corpus, exclude={"held_out"})
    assert got == [TrainingPair("x : ℕ\n⊢ frob x = x", (corpus.index_of("Foo.frob"), corpus.index_of("add_comm'")),
                                "Foo.frob_twice")]
    val = tmp_path / "val.json"
    val.write_text(json.dumps(traced))
    bench = tmp_path / "minif2f.jsonl"
    bench.write_text(json.dumps({"name": "mathd_algebra_1", "split": "valid"}) + "\n")
    assert evaluation_theorem_names([val, bench]) == {"t1", "held_out", "mathd_algebra_1"}
    examples = premise_examples(traced, corpus)
    assert len(examples.examples) == 2 and examples.total_tactics == 3
    assert examples.dropped["no premises"] == 1 and examples.unresolved_premises == 1


@pytest.mark.parametrize("bad, why", [
    ('{"full_name": "a", "statement": "theorem a : True"', "line 2: not JSON"),
    ('["a", "theorem a : True"]', "line 2: a record must be a JSON object, not list"),
    ('{"statement": "theorem a : True", "proof": "rfl"}', "line 2: 'full_name' must be a string"),
    ('{"full_name": "a", "statement": 5, "proof": "rfl"}', "line 2: 'statement' must be a string"),
    ('{"full_name": "a", "statement": "theorem a : True", "proof": ["rfl"]}', "line 2: 'proof' must be a string"),
])
def test_malformed_proof_records_are_errors_naming_file_and_line(corpus, tmp_path, bad, why):
    proofs = tmp_path / "proofs.jsonl"
    good = {"full_name": "Foo.frob_twice", "statement": "theorem frob_twice : True", "proof": "frob"}
    proofs.write_text(json.dumps(good) + "\n" + bad + "\n")
    with pytest.raises(ValueError, match=f"^{re.escape(str(proofs))}: {re.escape(why)}"):
        pairs_from_proofs(proofs, corpus)


@pytest.mark.parametrize("record", [
    {"traced_tactics": []},  # no full_name
    {"full_name": "t", "traced_tactics": [{"annotated_tactic": ["", [{"full_name": "frob_add"}]]}]},  # no state
    {"full_name": "t", "traced_tactics": [{"state_before": "⊢ x", "annotated_tactic": ["", ["frob"]]}]},
    {"full_name": "t", "traced_tactics": 5},
])
def test_malformed_traced_records_are_errors_naming_the_file(corpus, tmp_path, record):
    traced = tmp_path / "train.json"
    traced.write_text(json.dumps([record]))
    with pytest.raises(ValueError, match=f"^{re.escape(str(traced))}: malformed traced record"):
        load_pairs(traced, corpus)


def test_trained_checkpoint_reloads_and_retrieves(corpus, tmp_path):
    pairs = [TrainingPair(f"⊢ Foo.frob (x{i} + y) = Foo.frob x{i} + Foo.frob y", (corpus.index_of("frob_add"),))
             for i in range(4)] + [TrainingPair("⊢ a * b = b * a", (corpus.index_of("mul_comm'"),)),
                                   TrainingPair("⊢ n * 1 = n", (corpus.index_of("mul_one'"),))]
    final = train_dense(corpus, pairs, tmp_path / "run", max_steps=4, batch_size=3, lr=5e-5,
                        mine_ranks=(1, 5), mining_pool=None, accelerator="cpu", progress=False)
    assert (final / "modules.json").exists() and (tmp_path / "run" / "epoch-0").exists()
    metrics = (tmp_path / "run" / "metrics.csv").read_text()
    assert "train_loss" in metrics and "mined_queries" in metrics
    ps2 = DenseRetriever(corpus, model=str(final), cache_dir=tmp_path / "idx", show_progress=False)
    ranked = names(ps2.retrieve("⊢ Foo.frob (u + v) = Foo.frob u + Foo.frob v", FROB_FILE, 3))
    assert len(ranked) == 3 and "frob_add" in ranked
    traced = [{"full_name": "t", "file_path": "Lib/Frob.lean", "start": [30, 1], "traced_tactics": [
        {"state_before": FROB_GOAL, "annotated_tactic": ["", [{"full_name": "frob_add"}]]}]}]
    report = evaluate(ps2, premise_examples(traced, corpus).examples)
    assert report.queries == 1 and 0 < report.mrr <= 1 and report.r10 == 1.0


def test_ps2_encodes_queries_with_its_own_thread_count_and_restores_torch_setting(corpus, encoder, monkeypatch):
    import torch

    ps2 = DenseRetriever(corpus, encoder=encoder, show_progress=False)
    assert ps2.query_threads == 1
    seen = []
    original = ps2.encode
    monkeypatch.setattr(ps2, "encode", lambda texts, prefix, progress=False: (seen.append(torch.get_num_threads()),
                                                                            original(texts, prefix))[1])
    before = torch.get_num_threads()
    torch.set_num_threads(2)
    try:
        unthreaded = ps2.retrieve(FROB_GOAL, FROB_FILE, 3)
        ps2.query_threads = None
        assert ps2.retrieve(FROB_GOAL, FROB_FILE, 3) == unthreaded  # same ranking either way
        assert seen == [1, 2] and torch.get_num_threads() == 2
    finally:
        torch.set_num_threads(before)


def test_a_long_state_is_encoded_as_its_main_goal_within_the_window(corpus, encoder):
    """The encoder truncates from the right; the query must keep the target of the main goal and
    the newest hypotheses that fit, whatever the layout. Fails if the state is passed whole (the
    target would be cut off), if the window is measured in characters rather than tokens, or if
    the training side and the search side shape queries differently."""
    from retrieval.dense import QUERY_PREFIX, fit_queries

    hyps = "\n".join(f"H{i} : forall n m : nat, n + m * {i} = m * {i} + n" for i in range(60))
    coq = f"{hyps}\n============================\nFoo.frob (x + y) = Foo.frob x + Foo.frob y\n\ngoal 2 is:\n True"
    lean = f"{hyps.replace('forall', '∀').replace(' : nat,', ' : ℕ,')}\n⊢ Foo.frob (x + y) = Foo.frob x + Foo.frob y"
    for state in (coq, lean):
        (query,) = fit_queries(encoder, QUERY_PREFIX, [state])
        tokens = len(encoder.tokenizer(QUERY_PREFIX + query)["input_ids"])
        assert query.endswith("⊢ Foo.frob (x + y) = Foo.frob x + Foo.frob y") and "True" not in query
        assert "H59 :" in query and "H0 :" not in query  # newest kept, oldest dropped
        assert encoder.max_seq_length - 40 < tokens <= encoder.max_seq_length  # the window, full to a line
    ps2 = DenseRetriever(corpus, encoder=encoder, show_progress=False)
    (fitted,) = fit_queries(encoder, QUERY_PREFIX, [coq])
    assert (ps2.encode_queries([coq]) == ps2.encode([fitted], QUERY_PREFIX)).all()
