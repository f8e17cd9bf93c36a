"""The premises a run may give the default Coq prover's ``sauto use:`` / ``hauto use:`` by naming
:func:`prover.coq.default_generator.coq_premises` as its retriever (the preset names none): kNN
premise selection over the traced proofs the environment names (the stdlib's by default, a
project's beside them), BM25 where nothing is traced, built through the registry as a run builds it."""

from __future__ import annotations

import dataclasses
import json
import logging
import warnings

import pytest

from prover.coq.default_generator import coq_default, coq_premises
from prover.coq.language import COQ
from prover.coq.presets import default_config
from prover.coq.tracer import trace_files, traced_data_dir
from prover.registry import ComponentSpec, build_retriever, with_defaults
from retrieval.bm25 import BM25Retriever
from retrieval.corpus import Corpus
from retrieval.neighbours import NeighbourRetriever
from search_tree.errors import UserError
from search_tree.protocol import Theorem

FILES = [
    {"path": "Init/Peano.v", "imports": [], "premises": [
        {"full_name": "plus_n_O", "code": "Lemma plus_n_O : forall n:nat, n = n + 0.", "start": [10, 1],
         "end": [10, 40], "kind": "Lemma"},
        {"full_name": "mult_n_O", "code": "Lemma mult_n_O : forall n:nat, 0 = n * 0.", "start": [30, 1],
         "end": [30, 40], "kind": "Lemma"},
    ]},
    {"path": "Lists/List.v", "imports": ["Init/Peano.v"], "premises": [
        {"full_name": "rev_involutive", "code": "Lemma rev_involutive : forall l:list A, rev (rev l) = l.",
         "start": [9, 1], "end": [9, 50], "kind": "Lemma"},
        {"full_name": "rev_rev_nil", "code": "Lemma rev_rev_nil : forall l:list A, rev (rev l) ++ [] = l.",
         "start": [20, 1], "end": [20, 50], "kind": "Lemma"},
        {"full_name": "rev_late", "code": "Lemma rev_late : forall l:list A, rev (rev (rev l)) = rev l.",
         "start": [40, 1], "end": [40, 50], "kind": "Lemma"},
    ]},
]
STATE = "A : Type\nl : list A\n============================\n rev (rev l) ++ [] = l"


def traced(name: str, line: int, premise: str) -> dict:
    return {"full_name": name, "file_path": "Lists/List.v", "start": [line, 1], "end": [line + 2, 5],
            "traced_tactics": [{"tactic": f"rewrite {premise}.", "state_before": STATE, "state_after": "no goals",
                                "annotated_tactic": [f"rewrite {premise}.", [{"full_name": premise}]]}]}


@pytest.fixture
def corpus_file(tmp_path):
    path = tmp_path / "corpus.jsonl"
    path.write_text("".join(json.dumps(f) + "\n" for f in FILES), encoding="utf-8")
    return path


def write_traces(directory, theorems):
    """``theorems`` traced into ``directory``'s train split, as the tracer finishes a trace: every
    split file written (a directory without them all is a stopped trace: ``tracer.is_traced``)."""
    directory.mkdir(parents=True)
    (directory / "train.json").write_text(json.dumps(theorems), encoding="utf-8")
    for split in ("val", "test"):
        (directory / f"{split}.json").write_text("[]", encoding="utf-8")


#: the retriever a run names to give the default premises (``--retriever`` on the command line)
KNN_PREMISES = "prover.coq.default_generator:coq_premises"


def the_default(corpus_file):
    """The default preset with :data:`KNN_PREMISES` as a run builds it (its corpus named, so that no
    stdlib corpus is built)."""
    config = with_defaults(dataclasses.replace(default_config(), retriever=ComponentSpec(KNN_PREMISES,
                                                                                         {"corpus": str(corpus_file)})))
    return config.retriever, build_retriever(config.retriever, COQ)


def test_the_preset_names_no_premise_retriever():
    """Chosen on the stdlib's val split: without ``use:`` calls the default proved every theorem
    it proved with them, and more (docs/coq.md, "Premises for sauto and hauto")."""
    assert default_config().retriever == ComponentSpec("none")


def test_with_the_stdlib_traced_the_default_retrieves_what_similar_earlier_proofs_used(tmp_path, monkeypatch,
                                                                                       corpus_file):
    """rev_rev_nil's proof (line 20) used rev_involutive on this very state; rev_late's (line 40),
    plus_n_O. Proving a lemma at line 30, the first is accessible and votes, the second is later
    and must not. Fails if the default is not kNN over the tracer's directory (BM25 ranks by
    statement words and has no reason to put rev_involutive first), or if later proofs vote."""
    from prover.coq.tracer import traced_data_dir

    monkeypatch.setenv("DOJO_PROVER_CACHE", str(tmp_path / "cache"))
    write_traces(traced_data_dir(), [traced("rev_rev_nil", 20, "rev_involutive"), traced("rev_late", 40, "plus_n_O")])
    spec, retriever = the_default(corpus_file)
    assert spec.options["traces"] is None  # the stdlib's, found by the retriever as by the generator
    assert isinstance(retriever, NeighbourRetriever)
    ranked = [p.full_name for p, _ in retriever.retrieve(STATE, Theorem("goal", "Lists/List.v", (30, 1)), 4)]
    assert ranked == ["rev_involutive"]


def test_on_a_machine_where_nothing_is_traced_the_default_is_bm25_and_says_nothing(tmp_path, monkeypatch,
                                                                                    corpus_file, caplog):
    monkeypatch.setenv("DOJO_PROVER_CACHE", str(tmp_path / "fresh"))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with caplog.at_level(logging.WARNING):
            spec, retriever = the_default(corpus_file)
    assert spec.options["traces"] == [] and type(retriever) is BM25Retriever
    assert caplog.records == []


def test_a_traced_split_whose_proofs_name_no_premise_of_the_corpus_is_left_out(tmp_path, corpus_file):
    """A project's traced directories beside the stdlib's: one whose proofs name only premises the
    corpus lacks is skipped, not a failed run; with nothing else, the default is BM25."""
    corpus = Corpus.from_jsonl(corpus_file, COQ)
    write_traces(tmp_path / "other", [traced("elsewhere", 5, "Other.lemma")])
    write_traces(tmp_path / "own", [traced("rev_rev_nil", 20, "rev_involutive")])
    assert type(coq_premises(corpus, [str(tmp_path / "other")])) is BM25Retriever
    both = coq_premises(corpus, [str(tmp_path / "other"), str(tmp_path / "own")])
    assert isinstance(both, NeighbourRetriever)
    assert [p.full_name for p, _ in both.retrieve(STATE, Theorem("goal", "Lists/List.v", (30, 1)), 4)] == [
        "rev_involutive"]



@pytest.mark.parametrize("call", [
    lambda corpus: trace_files(""),
    lambda corpus: coq_premises(corpus, ""),
    lambda corpus: coq_premises(corpus, [""]),
    lambda corpus: coq_default(traces="", hammer=False),
], ids=["trace_files", "coq_premises", "coq_premises-list", "coq_default"])
def test_an_empty_traces_path_is_refused_not_the_default(tmp_path, monkeypatch, corpus_file, call):
    """Fails if an empty string for ``traces`` quietly stands for the tracer's cache directory (it
    did through a falsy check, so a blank option learned from the stdlib's traces), or if the
    refusal is not one line naming ``traces``; None still means that directory."""
    monkeypatch.setenv("DOJO_PROVER_CACHE", str(tmp_path / "cache"))
    write_traces(traced_data_dir(), [traced("rev_rev_nil", 20, "rev_involutive")])
    assert len(trace_files()) == len(trace_files(None)) == 3
    with pytest.raises(UserError) as refused:
        call(Corpus.from_jsonl(corpus_file, COQ))
    assert str(refused.value).startswith("traces: an empty path") and "\n" not in str(refused.value)
