"""The ablation command end to end on a Coq corpus and traces in LeanDojo format (what the Coq
tracer writes), with the symbolic retrievers; and on the shared Lean data when it is present."""

import json

import pytest

from prover.benchmarks.datasets import default_data_dir
from prover.cli import main

COQ_FILES = [
    {"path": "theories/Init/Peano.v", "imports": [], "premises": [
        {"full_name": "Coq.Init.Peano.plus_n_O", "code": "Lemma plus_n_O : forall n:nat, n = n + 0.",
         "start": [10, 1], "end": [10, 40], "kind": "Lemma"},
        {"full_name": "Coq.Init.Peano.le_n_S", "code": "Theorem le_n_S : forall n m, n <= m -> S n <= S m.",
         "start": [20, 1], "end": [20, 50], "kind": "Theorem"},
        {"full_name": "Coq.Init.Peano.mult_n_O", "code": "Lemma mult_n_O : forall n:nat, 0 = n * 0.",
         "start": [30, 1], "end": [30, 40], "kind": "Lemma"},
    ]},
    {"path": "theories/Lists/List.v", "imports": ["theories/Init/Peano.v"], "premises": [
        {"full_name": "Coq.Lists.List.app_nil_r", "code": "Theorem app_nil_r : forall l:list A, l ++ [] = l.",
         "start": [5, 1], "end": [5, 50], "kind": "Theorem"},
        {"full_name": "Coq.Lists.List.rev_involutive", "code": "Lemma rev_involutive : forall l:list A, rev (rev l) = l.",
         "start": [9, 1], "end": [9, 50], "kind": "Lemma"},
        {"full_name": "Coq.Lists.List.rev_app_distr",
         "code": "Lemma rev_app_distr : forall x y:list A, rev (x ++ y) = rev y ++ rev x.",
         "start": [40, 1], "end": [40, 70], "kind": "Lemma"},
    ]},
]

COQ_TRACED = [{
    "url": "coq-stdlib", "commit": "8.16", "file_path": "theories/Lists/List.v", "full_name": "rev_length_demo",
    "start": [30, 1], "end": [35, 5],
    "traced_tactics": [
        {"tactic": "rewrite rev_involutive.",
         "state_before": "A : Type\nl : list A\n============================\n rev (rev l) = l",
         "state_after": "no goals",
         "annotated_tactic": ["rewrite <a>rev_involutive</a>.", [
             {"full_name": "Coq.Lists.List.rev_involutive", "def_path": "theories/Lists/List.v",
              "def_pos": [9, 7], "def_end_pos": [9, 21]}]]},
        {"tactic": "auto.", "state_before": "============================\n True", "state_after": "no goals",
         "annotated_tactic": ["auto.", []]},
    ],
}]


def test_ablation_on_coq_data(tmp_path, capsys):
    corpus = tmp_path / "corpus.jsonl"
    corpus.write_text("".join(json.dumps(f) + "\n" for f in COQ_FILES))
    traced = tmp_path / "traced.json"
    traced.write_text(json.dumps(COQ_TRACED))
    out = tmp_path / "out"
    assert main(["retrieval-eval", "--corpus", str(corpus), "--data", str(traced), "--retrievers",
                 "bm25,mepo,sine,fusion", "--fusion", "bm25,mepo,sine", "--output-dir", str(out)]) == 0
    printed = capsys.readouterr().out
    assert "| retriever | R@1 (%) | R@4 (%) | R@10 (%) | MRR |" in printed
    assert "1 of 2 traced tactics used (dropped: 1 no premises)" in printed
    results = {r["retriever"]: r for r in json.loads((out / "results.json").read_text())}
    assert set(results) == {"bm25", "mepo", "sine", "fusion"}
    # rev is the rare symbol: every retriever finds rev_involutive (rev_app_distr is later in the file)
    for name in ("mepo", "bm25", "fusion"):
        assert results[name]["r1"] == 1.0, name
    assert results["sine"]["r10"] == 1.0
    config = json.loads((out / "config.json").read_text())
    assert config["num_premises"] == 6 and config["tactics_used"] == 1 and config["options"]["mepo"]["p"] == 0.6
    assert (out / "table.md").read_text().startswith("| retriever |")


def test_knn_in_the_ablation_learns_from_held_out_traces_and_needs_them(tmp_path, capsys):
    """knn learns from --knn-traces with the --data theorems left out, even when the traces hold
    them: the only other traced proof used app_nil_r, so the gold rev_involutive is never found.
    Fails if the evaluated theorem itself is indexed (knn would find rev_involutive from its own
    proof), or if knn without traces is anything but a one-line error."""
    corpus = tmp_path / "corpus.jsonl"
    corpus.write_text("".join(json.dumps(f) + "\n" for f in COQ_FILES))
    traced = tmp_path / "val.json"
    traced.write_text(json.dumps(COQ_TRACED))
    train = tmp_path / "train.json"
    other = {**COQ_TRACED[0], "full_name": "rev_nil_demo", "start": [20, 1], "traced_tactics": [
        {**COQ_TRACED[0]["traced_tactics"][0],
         "state_before": "A : Type\nl : list A\n============================\n rev (rev l ++ []) = l",
         "annotated_tactic": ["rewrite app_nil_r.", [{"full_name": "Coq.Lists.List.app_nil_r"}]]}]}
    train.write_text(json.dumps([other, *COQ_TRACED]))  # the evaluated theorem too: it must be left out
    out = tmp_path / "out"
    assert main(["retrieval-eval", "--corpus", str(corpus), "--data", str(traced), "--retrievers", "knn",
                 "--knn-traces", str(train), "--knn-offline", "--output-dir", str(out)]) == 0
    (result,) = json.loads((out / "results.json").read_text())
    assert result["retriever"] == "knn" and result["r10"] == 0.0  # only app_nil_r is voted for
    assert main(["retrieval-eval", "--corpus", str(corpus), "--data", str(traced), "--retrievers", "bm25,fusion",
                 "--fusion", "bm25,knn", "--output-dir", str(out)]) == 2
    assert "the knn retriever needs --knn-traces" in capsys.readouterr().err


def test_knn_with_data_learns_from_earlier_evaluated_proofs_never_from_its_own(tmp_path, capsys):
    """--knn-with-data indexes the evaluated theorems' proofs, as a prover's run indexes the whole
    traced library: rev_length_demo (line 30) finds plus_n_O, which the proof of rev_involutive
    (line 9, an earlier lemma of its file) used on the same state, while rev_involutive's own
    query must not find it through its own proof. R@10 is then 1 for one example and 0 for the
    other. Fails if a theorem's own proof votes (1.0), or if earlier evaluated proofs stay left
    out (0.0); offline, where nothing hides a theorem's own proof, it is refused in one line."""
    corpus = tmp_path / "corpus.jsonl"
    corpus.write_text("".join(json.dumps(f) + "\n" for f in COQ_FILES))
    state = "A : Type\nl : list A\n============================\n rev (rev l) = l + 0"
    uses = {"tactic": "rewrite <- plus_n_O.", "state_before": state, "state_after": "no goals",
            "annotated_tactic": ["rewrite <- plus_n_O.", [{"full_name": "Coq.Init.Peano.plus_n_O"}]]}
    earlier = {**COQ_TRACED[0], "full_name": "Coq.Lists.List.rev_involutive", "start": [9, 1], "traced_tactics": [uses]}
    data = tmp_path / "val.json"
    data.write_text(json.dumps([earlier, {**COQ_TRACED[0], "traced_tactics": [uses]}]))
    train = tmp_path / "train.json"
    train.write_text(json.dumps([{**COQ_TRACED[0], "full_name": "elsewhere", "traced_tactics": [
        {**uses, "state_before": "n : nat\n============================\n n * 0 = 0",
         "annotated_tactic": ["", [{"full_name": "Coq.Init.Peano.mult_n_O"}]]}]}]))
    out = tmp_path / "out"
    args = ["retrieval-eval", "--corpus", str(corpus), "--data", str(data), "--retrievers", "knn",
            "--output-dir", str(out), "--knn-traces", str(train)]
    assert main([*args, str(data), "--knn-with-data"]) == 0
    (result,) = json.loads((out / "results.json").read_text())
    assert result["queries"] == 2 and result["r10"] == 0.5
    assert main(args) == 0  # the evaluated proofs left out: neither finds plus_n_O
    assert json.loads((out / "results.json").read_text())[0]["r10"] == 0.0
    capsys.readouterr()
    assert main([*args, "--knn-with-data", "--knn-offline"]) == 2
    assert "--knn-with-data needs online kNN" in capsys.readouterr().err


DATA = default_data_dir()


@pytest.mark.shared_data(DATA / "leandojo-b4-sample" / "val.json")
def test_ablation_on_shared_lean_data(tmp_path, capsys):
    assert main(["retrieval-eval", "--corpus", str(DATA / "mathlib4-b2540cf9" / "corpus.jsonl"),
                 "--data", str(DATA / "leandojo-b4-sample" / "val.json"), "--retrievers", "bm25",
                 "--limit", "40", "--output-dir", str(tmp_path)]) == 0
    assert "| bm25 |" in capsys.readouterr().out
    results = json.loads((tmp_path / "results.json").read_text())
    assert all(r["queries"] == 40 for r in results)
    assert results[0]["r10"] > 0.0  # BM25 finds some annotated Mathlib premises
