"""Where a Coq lemma's proof ends: read once (:func:`prover.coq.vernacular.proof_end`), recorded by
the index's scan, and taken from there by the tracer, the elision of earlier proofs and the final
check's copy of the declared lemma (:attr:`prover.coq.context.CoqContext.declared_proof`).

No Coq is run: the project is built by hand (the stdlib's naming, over a test's directory)."""

from __future__ import annotations

from pathlib import Path

import pytest

from search_tree.protocol import Theorem
from prover.coq.context import file_context
from prover.coq.index import CoqIndex
from prover.coq.project import STDLIB, CoqProject, LoadPath
from prover.coq.records import CoqFields, SourceFile
from prover.coq.scanner import scan_file
from prover.coq.sentences import split_sentences
from prover.coq.vernacular import proof_end, proof_terminator


@pytest.mark.parametrize("code, keyword", [
    ("Qed.", "Qed"), ("Qed .", "Qed"), ("Time Qed.", "Qed"), ("Time  Time Qed.", "Qed"), ("Timeout 5 Qed.", "Qed"),
    ('Redirect "out" Qed.', "Qed"), ("Defined.", "Defined"), ("Defined x'.", "Defined"), ("Admitted.", "Admitted"),
    ("Time Admitted.", "Admitted"), ("Abort.", "Abort"), ("Abort All.", "Abort"), ("Save foo.", "Save"),
    ("Time Save foo.", "Save"), ("Proof I.", "Proof"), ("Proof(I).", "Proof"), ("Proof (fun H => H).", "Proof"),
    ("Proof Nat.add_comm.", "Proof"), ("Time Proof I.", "Proof"), ("Proof usingx.", "Proof"),
    # none of these ends a proof
    ("Proof.", None), ("Proof .", None), ("Proof using.", None), ("Proof using b H.", None), ("Proof with auto.", None),
    ("Proof with auto using b.", None), ('Proof Mode "Classic".', None), ("apply Qed_lemma.", None), ("Qed'.", None),
    ("Qedx.", None), ("exact Qed.", None), ("Fail Qed.", None), ("Succeed Qed.", None), ("Save.", None),
    ("Defined x y.", None), ("Proofs.", None), ('idtac "Qed.".', None), ("Timeout Qed.", None), ("Time.", None),
])
def test_a_terminator_is_read_from_the_whole_sentence(code, keyword):
    """Fails if ``Time Qed.`` (or ``Timeout``/``Redirect``) is not a terminator, if ``Proof <term>.``
    (with or without a space before the term) is not one while ``Proof.``/``Proof using``/``Proof
    with``/``Proof Mode`` are, or if a ``Qed`` inside an identifier, a string or behind ``Fail`` ends a proof."""
    assert proof_terminator(code) == keyword


def test_comments_strings_and_bullets_holding_dots_do_not_end_a_proof():
    """Fails if a dot or ``Qed.`` inside a comment, a string or after a bullet ends the proof early."""
    text = 'Proof. (* Qed. *) split. - idtac "Qed. Defined.". exact I.\n  - (* Time Qed. *) exact I.\nTime Qed. Lemma b : True.'
    codes = [s.code for s in split_sentences(text)]
    assert proof_end(codes) == (7, "Qed") and codes[7] == "Time Qed."
    assert proof_end(["exact I.", "Lemma b : True.", "Qed."]) is None  # a declaration comes first: no script
    assert proof_end(["exact I."]) is None


def _project(root: Path) -> CoqProject:
    return CoqProject(root, "stdlib", (LoadPath("-R", ".", "Coq"),), spec=STDLIB)


def _scan(root: Path, text: str) -> SourceFile:
    (root / "T.v").write_text(text)
    return scan_file(root, "T.v", {"Coq.T": "T.v"}, _project(root))


def test_the_index_ends_a_proof_at_proof_term_and_goes_on_after_it(tmp_path):
    """Fails if the scan runs past ``Proof I.`` (the old scan took ``Goal``'s proof, up to its
    ``Qed``, for ``a``'s, and indexed ``a`` as a theorem with a script it does not have)."""
    text = "Lemma a : True.\nProof I.\nGoal True.\nProof. exact I. Qed.\nLemma b : True.\nProof. exact I. Qed.\n"
    f = _scan(tmp_path, text)
    assert [t.full_name for t in f.theorems] == ["b"]
    assert [d.full_name for d in f.declarations] == ["a", "b"]


def test_the_index_ends_a_proof_at_time_qed(tmp_path):
    """Fails if ``Time Qed.`` does not end a proof (the old scan ran on past it to the next lemma's
    statement and dropped the lemma), or if the recorded terminator is not right after the proof."""
    text = "Lemma a : True.\nProof. exact I. Time Qed.\nLemma b : True.\nProof. exact I. Qed.\n"
    f = _scan(tmp_path, text)
    assert [(t.full_name, t.terminator, len(t.proof)) for t in f.theorems] == [("a", "Qed", 2), ("b", "Qed", 2)]
    a = f.theorems[0]
    terminator = f.sentences[f.sentences.index((a.offset, a.offset + len("Lemma a : True."))) + 1 + len(a.proof)]
    assert text[slice(*terminator)] == "Time Qed." and a.end == (2, 26)


@pytest.mark.parametrize("after, proof", [
    ("\nProof. exact I. Qed.\nLemma next : True.\nProof. exact I. Qed.\n", "\nProof. exact I. Qed."),
    ("\nProof using. (* x *) Time Qed.\nLemma next : True.\nAdmitted.\n", "\nProof using. (* x *) Time Qed."),
    ("\nAdmitted .\nLemma next : True.\nProof. exact I. Qed.\n", "\nAdmitted ."),
    ('\nProof. (* Qed. *) idtac "Qed. ".\n- exact I.\nDefined.\nLemma next : True.\nAdmitted.\n',
     '\nProof. (* Qed. *) idtac "Qed. ".\n- exact I.\nDefined.'),
])
def test_the_declared_proof_ends_at_its_own_terminator(tmp_path, after, proof):
    """Fails if the copy of a lemma's own proof that the final check compiles runs on past it (a
    copy that ran to the next ``Qed`` took the next lemma's text into the check), or if the index
    has no proof for it (the old scan dropped a lemma ended by ``Time Qed.``)."""
    f = _scan(tmp_path, "Lemma target : True." + after)
    index = CoqIndex(tmp_path, [f], _project(tmp_path))
    assert file_context(index.theorem("target"), index).declared_proof == proof


def test_a_lemma_proved_by_proof_term_is_kept_whole_in_the_next_lemmas_context(tmp_path):
    """Fails if the lemma after a ``Proof <term>.`` one gets a context that elides the ``Goal`` after
    it as if it were that lemma's proof (the old index gave ``a`` the ``Goal``'s script and ``Qed``),
    or a declared proof other than its own."""
    text = "Lemma a : True.\nProof I.\nGoal True.\nProof. exact I. Qed.\nLemma next : True.\nProof. exact I. Qed.\n"
    f = _scan(tmp_path, text)
    index = CoqIndex(tmp_path, [f], _project(tmp_path))
    context = file_context(index.theorem("next"), index)
    assert context.prefix == ("Lemma a : True.", "Proof I.", "Goal True.", "Proof.", "exact I.", "Qed.")
    assert context.declared_proof == "\nProof. exact I. Qed."


def test_a_statement_the_index_holds_no_proof_for_has_no_context(tmp_path):
    """Fails if a theorem the index has no proof for (here the ``Proof I.`` lemma, named by its
    offset) gets a context with no declared proof, or one that runs on: either would leave the final
    check's comparison of section variables out (``declared_proof`` None) or compare the wrong text."""
    f = _scan(tmp_path, "Lemma a : True.\nProof I.\nLemma b : True.\nProof. exact I. Qed.\n")
    index = CoqIndex(tmp_path, [f], _project(tmp_path))
    theorem = CoqFields(offset=0).on(Theorem(full_name="a", file_path="T.v", position=(1, 1), statement="Lemma a : True."))
    with pytest.raises(ValueError, match="T.v: the index holds no proof for the statement at offset 0"):
        file_context(theorem, index)
