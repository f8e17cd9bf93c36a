import subprocess
import sys

import pytest

from prover.backends import language_of
from prover.coq.language import COQ
from prover.lean.language import LEAN
from retrieval.base import Query, RetrievalContext
from retrieval.corpus import Corpus
from retrieval.symbols import extract_symbols
from retrieval_fixtures import FILES, small_corpus, write_corpus
from search_tree.errors import UserError
from search_tree.protocol import Goal, Hypothesis, TacticState, Theorem


def test_loads_premises_by_name(tmp_path):
    corpus = small_corpus(tmp_path)
    assert len(corpus) == sum(len(f["premises"]) for f in FILES)
    p = corpus["frob_add"]
    assert p.path == "Lib/Frob.lean" and p.start == (5, 1) and p.kind == "theorem"
    assert "frob_add" in corpus and "nope" not in corpus
    assert corpus.language is LEAN


def test_a_corpus_has_the_language_it_is_given_not_a_guess(tmp_path):
    """Fails if a corpus guesses its language again (the old rule took any corpus not mostly ``.v``
    for Lean), or if the backends' lookup by file suffix accepts a corpus of mixed languages."""
    bare = Corpus.from_jsonl(write_corpus(tmp_path))
    with pytest.raises(UserError, match="loaded without its language"):
        _ = bare.language
    assert bare.in_language(COQ).language is COQ and bare.in_language(COQ).symbols[0] != bare.in_language(LEAN).symbols[0]
    assert language_of(bare.files) is LEAN and language_of(["A.v", "B/C.v"]) is COQ
    assert language_of(["A.v", "B.lean"]) is None and language_of([]) is None


@pytest.mark.parametrize("bad, detail", [
    ('{"path": "X.lean", "imports": [], "premises": [', "Expecting"),
    ('{"imports": [], "premises": []}', "missing field 'path'"),
    ('{"path": "X.lean", "premises": [{"full_name": "x", "code": "", "start": 3, "end": [1, 2]}]}', ""),
])
def test_malformed_line_is_named(tmp_path, bad, detail):
    path = write_corpus(tmp_path)
    with path.open("a") as f:
        f.write(bad + "\n")
    with pytest.raises(ValueError, match=rf"corpus.jsonl:{len(FILES) + 1}: malformed corpus line.*{detail}"):
        Corpus.from_jsonl(path)


def test_accessibility_hides_later_and_unimported(tmp_path):
    corpus = small_corpus(tmp_path)
    mask = corpus.accessible_mask("Lib/Frob.lean", (30, 1))
    visible = {p.full_name for p, m in zip(corpus.premises, mask) if m}
    assert "frob_add" in visible and "add_zero'" in visible  # earlier in the file; imported file
    assert "frob_late" not in visible  # declared later in the same file
    assert "frob_other" not in visible  # in a file that is not imported
    assert corpus.is_accessible(corpus["frob_add"], "Lib/Frob.lean", (30, 1))
    assert not corpus.is_accessible(corpus["frob_late"], "Lib/Frob.lean", (30, 1))
    assert corpus.accessible_mask("Unknown.lean") is None


def test_transitive_imports():
    files = [("A.lean", [], []), ("B.lean", ["A.lean"], []), ("C.lean", ["B.lean", "Missing.lean"], [])]
    corpus = Corpus(files)
    assert corpus.imported_files("C.lean") == {"A.lean", "B.lean"}


def test_restrict_keeps_files_and_order(tmp_path):
    corpus = small_corpus(tmp_path)
    keep = [corpus.index_of("frob_late"), corpus.index_of("add_zero'")]
    sub = corpus.restrict(keep)
    assert [p.full_name for p in sub.premises] == ["add_zero'", "frob_late"]
    assert sub.imported_files("Lib/Frob.lean") == {"Lib/Basic.lean"}


def test_lean_symbols_map_notation_and_drop_binders():
    assert extract_symbols("theorem foo (n : ℕ) : n + 0 = n", LEAN) == {"Eq", "HAdd.hAdd", "Nat", "Zero.zero"}
    syms = extract_symbols("∀ x y : ℝ, ∑ i in Finset.range n, f i ≤ x⁻¹ * y ∧ ¬ (x ∣ y) ↔ ∃ z, z ∈ S", LEAN)
    assert {"Real", "Finset.sum", "Finset.range", "range", "LE.le", "Inv.inv", "HMul.hMul", "And", "Not",
            "Dvd.dvd", "Iff", "Exists", "Membership.mem", "S"} == syms
    assert "x" not in syms and "z" not in syms and "i" not in syms
    assert extract_symbols("fun x => g x", LEAN, exclude={"g"}) == set()  # `=>` is not `=`
    assert extract_symbols("theorem t : Set.Ioc a b ⊆ s", LEAN) == {"Set.Ioc", "Ioc", "HasSubset.Subset"}


def test_coq_symbols():
    assert extract_symbols("Lemma le_S : forall n m : nat, n <= m -> n <= S m.", COQ) == {"nat", "le", "S"}
    assert extract_symbols("Theorem t : forall l, l ++ nil = l /\\ ~ (0 <> 1).", COQ) == {
        "app", "nil", "eq", "and", "not", "O", "S"}
    assert extract_symbols("exists x, x + y = Nat.mul y x", COQ) == {"ex", "Nat.add", "eq", "Nat.mul", "mul"}


def test_query_from_printed_states():
    lean = Query.from_state("a b : ℕ\nh :\n  a ≤\n    b\n⊢ a + 0 ≤\n  b")
    assert lean.targets == ("a + 0 ≤ b",)
    assert lean.hypotheses == ((("a", "b"), "ℕ"), (("h",), "a ≤ b"))
    assert lean.symbols(LEAN) == {"Nat", "LE.le", "HAdd.hAdd", "Zero.zero"}
    coq = Query.from_state("n, m : nat\nH : n <= m\n============================\n n <= S m")
    assert coq.hypotheses == ((("n", "m"), "nat"), (("H",), "n <= m")) and coq.targets == ("n <= S m",)
    two = Query.from_state("case inl\nh : p\n⊢ p ∨ q\n\ncase inr\n⊢ q ∨ p")
    assert two.targets == ("p ∨ q", "q ∨ p")


def test_query_from_tactic_state():
    goal = Goal((Hypothesis("hx", "Foo.frob x = 0"),), "Foo.frob (x + 0) = 0")
    q = Query.from_state(TacticState("pp", 0, (goal,)))
    assert q.local_names == {"hx"} and "Foo.frob" in q.symbols(LEAN)


def test_context_from_theorem():
    ctx = RetrievalContext.of(Theorem("t", "Lib/Frob.lean", (30, 1)))
    assert ctx == RetrievalContext("Lib/Frob.lean", (30, 1), "t")


def test_import_retrieval_stays_light():
    code = ("import sys, retrieval, retrieval.base, retrieval.corpus, retrieval.mepo, retrieval.sine, "
            "retrieval.bm25, retrieval.fusion, retrieval.evaluation, retrieval.dense\n"
            "heavy = [m for m in ('torch', 'faiss', 'sentence_transformers', 'lightning') if m in sys.modules]\n"
            "assert not heavy, heavy")
    subprocess.run([sys.executable, "-c", code], check=True)
