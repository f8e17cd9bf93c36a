"""kNN's and proof retrieval's renaming of hypotheses reads names as the traces' language writes
them: the language comes from the backend (through the registry, as a retriever's corpus gets
its), never from one rule for every language."""

from __future__ import annotations

import pytest
from traced_fixtures import tactic, theorem, write

from generator.knn import adapt_hypothesis_names
from prover.coq.language import COQ
from prover.lean.language import LEAN
from prover.registry import ComponentSpec, build_generator
from search_tree import Hypothesis
from search_tree.registry import RegistryError


def test_a_name_ends_where_the_language_says():
    """Fails if renaming takes ``?`` into every language's names (the stdlib's ``destruct (p?=q)``,
    Coq's ``p ?= q``, would keep the neighbour's ``p``) or ends Lean's names before ``?`` (Lean's
    lemma ``head?_eq_head`` would become ``a?_eq_head`` when hypothesis ``head`` is renamed)."""
    coq_src, coq_dst = [Hypothesis("p", "positive"), Hypothesis("q", "positive")], [Hypothesis("a", "positive"),
                                                                                    Hypothesis("b", "positive")]
    assert adapt_hypothesis_names("destruct (p?=q).", coq_src, coq_dst, COQ) == "destruct (a?=b)."
    assert adapt_hypothesis_names("destruct (p?=q).", coq_src, coq_dst, LEAN) == "destruct (p?=b)."
    lean_src, lean_dst = [Hypothesis("head", "α")], [Hypothesis("a", "α")]
    assert adapt_hypothesis_names("simp [head?_eq_head, head]", lean_src, lean_dst, LEAN) == "simp [head?_eq_head, a]"
    assert adapt_hypothesis_names("simp [head?_eq_head, head]", lean_src, lean_dst, COQ) == "simp [a?_eq_head, a]"


def test_lean_inaccessible_names_are_names_of_their_own():
    """Fails if Lean's ``n✝`` is read as ``n``: renaming ``n`` would then rewrite the inaccessible
    hypothesis in a type, and types would no longer match."""
    assert LEAN.local_names("n✝ < n + a✝¹") == ["n✝", "n", "a✝¹"]
    assert LEAN.rename("n✝ < n", {"n": "m"}) == "n✝ < m"
    assert COQ.local_names("H.1 M.x x' _y") == ["H", "M", "x'", "_y"]  # a field, a qualified tail: no names


def test_the_registry_gives_knn_the_runs_language(tmp_path):
    """Fails if a ``knn`` or ``proofs`` generator built by name (directly or as a ``fused`` member) is
    not given the run's language, or if one built for an environment without a language starts
    anyway instead of saying so in one line."""
    traces = str(write(tmp_path / "t.json", [theorem("t", [tactic("intro h.", "⊢ True → True", "no goals")])]))
    assert build_generator(ComponentSpec("knn", {"paths": traces}), None, LEAN).language is LEAN
    fused = build_generator(ComponentSpec("fused", {"members": [{"name": "proofs", "paths": traces}]}), None, COQ)
    assert [m.language for m, _ in fused.members] == [COQ]
    with pytest.raises(RegistryError, match=r"^generator 'knn' reads tactics in its backend's language, and the "
                                            r"run's environment has none$"):
        build_generator(ComponentSpec("knn", {"paths": traces}), None, None)
