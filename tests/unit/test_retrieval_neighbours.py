"""The kNN premise retriever (retrieval/neighbours.py) on the small corpus: premises of the most
similar traced states, the online rule (only proofs accessible from the query vote), held-out
files, and bad trace files."""

from __future__ import annotations

import json

import pytest

from retrieval.base import build_retriever
from retrieval_fixtures import FILES, FROB_GOAL, premise, small_corpus
from search_tree.errors import UserError
from search_tree.protocol import Theorem

AT_LINE_30 = Theorem("goal", "Lib/Frob.lean", (30, 1))  # after frob_add and mul_self_eq, before frob_late


def traced(name, line, state, premises):
    return {"full_name": name, "file_path": "Lib/Frob.lean", "start": [line, 1], "traced_tactics": [
        {"state_before": state, "annotated_tactic": ["rw ...", [{"full_name": p} for p in premises]]}]}


TRACES = [
    traced("frob_add", 5, "a b : ℕ\n⊢ Foo.frob (a + b) = Foo.frob a + Foo.frob b", ["add_comm'", "Foo.frob"]),
    traced("mul_self_eq", 10, "a : ℕ\n⊢ a * a = a * a", ["mul_comm'"]),
    traced("frob_late", 50, "a : ℕ\n⊢ Foo.frob (a + 0) = Foo.frob a", ["add_zero'"]),
]


@pytest.fixture
def setup(tmp_path):
    corpus = small_corpus(tmp_path)
    path = tmp_path / "train.json"
    path.write_text(json.dumps(TRACES), encoding="utf-8")
    return corpus, path


def names(ranking):
    return [p.full_name for p, _ in ranking]


def test_premises_of_the_nearest_states_rank_first(setup):
    """Fails if votes are not weighted by similarity (mul_comm', used by a less similar state,
    would tie with add_comm') or if a premise no neighbour used is returned."""
    corpus, path = setup
    knn = build_retriever("knn", corpus, traces=str(path))
    ranked = names(knn.retrieve(FROB_GOAL, AT_LINE_30, 10))
    assert set(ranked[:2]) == {"add_comm'", "Foo.frob"}
    assert set(ranked) <= {"add_comm'", "Foo.frob", "mul_comm'"}
    assert knn.batch_retrieve([FROB_GOAL, FROB_GOAL], [AT_LINE_30, None], 10)[0] == knn.retrieve(FROB_GOAL, AT_LINE_30, 10)


def test_online_rule_a_later_proof_never_votes(setup):
    """frob_late (line 50) is the nearest state to the query, but it is proved after the query's
    position: online it must not vote; offline (held-out traces) or without a context it does.
    Fails if the rule is missing (a proof could retrieve from itself or from later proofs)."""
    corpus, path = setup
    query = "x : ℕ\n⊢ Foo.frob (x + 0) = Foo.frob x"
    online = build_retriever("knn", corpus, traces=[path])
    assert "add_zero'" not in names(online.retrieve(query, AT_LINE_30, 10))
    assert names(online.retrieve(query, None, 10))[0] == "add_zero'"
    offline = build_retriever("knn", corpus, traces=[path], online=False)
    assert names(offline.retrieve(query, AT_LINE_30, 10))[0] == "add_zero'"


def test_online_rule_a_proof_never_votes_for_itself_through_an_earlier_namesake(tmp_path):
    """Lib/Frob.lean declares its own mul_comm' at line 60, after Lib/Basic.lean's, which it imports.
    Proving Frob's mul_comm', its own traced proof must not vote, though Basic's namesake is
    accessible. Fails if a traced theorem is found by its short name alone (the first namesake in
    the corpus) instead of in its own file."""
    basic, frob, other = FILES
    later = premise("mul_comm'", "theorem mul_comm' (a : ℕ) : Foo.frob (a * 0) = Foo.frob 0", 60)
    corpus = small_corpus(tmp_path, [basic, {**frob, "premises": [*frob["premises"], later]}, other])
    path = tmp_path / "traces.json"
    own = traced("mul_comm'", 60, "a : ℕ\n⊢ Foo.frob (a * 0) = Foo.frob 0", ["mul_one'"])
    path.write_text(json.dumps([*TRACES, own]), encoding="utf-8")
    knn = build_retriever("knn", corpus, traces=[path])
    query = "x : ℕ\n⊢ Foo.frob (x * 0) = Foo.frob 0"
    assert "mul_one'" not in names(knn.retrieve(query, Theorem("mul_comm'", "Lib/Frob.lean", (60, 1)), 10))
    assert names(knn.retrieve(query, Theorem("after", "Lib/Frob.lean", (70, 1)), 10))[0] == "mul_one'"


def test_evaluation_theorems_are_never_indexed(setup, tmp_path):
    corpus, path = setup
    held_out = tmp_path / "val.json"
    held_out.write_text(json.dumps([TRACES[2]]), encoding="utf-8")
    knn = build_retriever("knn", corpus, traces=[path], exclude=[held_out], online=False)
    assert "add_zero'" not in names(knn.retrieve("x : ℕ\n⊢ Foo.frob (x + 0) = Foo.frob x", None, 10))


@pytest.mark.parametrize("content, why", [
    ("[]", "no records"),
    (json.dumps([traced("t", 1, "⊢ True", ["no_such_premise"])]), "resolves in the corpus"),
    ("{not json", "knn traces"),
])
def test_trace_files_without_usable_pairs_are_one_line_errors_naming_the_file(setup, tmp_path, content, why):
    corpus, _ = setup
    bad = tmp_path / "bad.json"
    bad.write_text(content, encoding="utf-8")
    with pytest.raises(UserError) as err:
        build_retriever("knn", corpus, traces=[bad])
    assert str(bad) in str(err.value) and why in str(err.value) and "\n" not in str(err.value)
