import subprocess
from pathlib import Path

import pytest

from prover.coq.sentences import LineIndex, SentenceSplitError, split_sentences, strip_comments


def texts(src: str) -> list[str]:
    return [s.text for s in split_sentences(src)]


def test_offsets_point_into_source():
    src = "(* head *)\nLemma a : True.\nProof. exact I. Qed.\n"
    sents = split_sentences(src)
    assert [s.text for s in sents] == ["Lemma a : True.", "Proof.", "exact I.", "Qed."]
    for s in sents:
        assert src[s.start : s.end] == s.text


def test_dots_that_do_not_end_a_sentence():
    src = "Check Nat.add.\nDefinition x := 1.5.\nNotation \"[ x ; .. ; y ]\" := (cons x .. (cons y nil) ..).\n"
    assert texts(src) == [
        "Check Nat.add.",
        "Definition x := 1.5.",
        'Notation "[ x ; .. ; y ]" := (cons x .. (cons y nil) ..).',
    ]
    # ".." followed by a blank is a notation token, not the end of a sentence
    assert texts("Notation f x .. y := (x .. y).") == ["Notation f x .. y := (x .. y)."]
    # "..." ends a sentence: the terminator of "Proof with tac" that runs tac after the tactic
    assert texts("Proof with auto.\n  split... transitivity x0... symmetry...\nQed.") == [
        "Proof with auto.", "split...", "transitivity x0...", "symmetry...", "Qed."]


def test_nested_comments_and_strings_in_comments():
    src = 'idtac. (* outer (* inner. *) still. "*) not closed." *) exact I.'
    assert texts(src) == ["idtac.", "exact I."]
    src = "apply (* a. b. *) foo."
    (s,) = split_sentences(src)
    assert s.text == src and s.code == "apply   foo."


def test_strings_with_doubled_quotes():
    src = 'idtac "a. ""b. "" c". auto.'
    assert texts(src) == ['idtac "a. ""b. "" c".', "auto."]


def test_bullets_braces_and_selectors():
    src = "split.\n- auto.\n- split.\n  + auto.\n  + { auto. }\n  ** idtac.\n2: auto.\nall: { auto. }\n-- now trivial.\n"
    assert texts(src) == [
        "split.", "-", "auto.", "-", "split.", "+", "auto.", "+", "{", "auto.", "}", "**", "idtac.",
        "2: auto.", "all: {", "auto.", "}", "--", "now trivial.",
    ]
    assert [s.is_bullet for s in split_sentences("- {\n[x]: {")] == [True, True, True]


def test_braces_inside_terms_are_not_sentences():
    src = "exists {| fst := 1; snd := 2 |}.\nDefinition t := {x : nat | x > 0}."
    assert texts(src) == ["exists {| fst := 1; snd := 2 |}.", "Definition t := {x : nat | x > 0}."]


def test_errors_name_source_and_position():
    with pytest.raises(SentenceSplitError, match=r"f\.v:2:3: unterminated comment"):
        split_sentences("auto.\n  (* open (* nested *)\n", "f.v")
    with pytest.raises(SentenceSplitError, match=r"<string>:1:7: unterminated string"):
        split_sentences('idtac "abc.')
    with pytest.raises(SentenceSplitError, match=r"g\.v:2:1: sentence not terminated"):
        split_sentences("auto.\nintros", "g.v")


def test_strip_comments_keeps_strings():
    assert strip_comments('a (* x "*)" *) "(* no *)" b') == 'a   "(* no *)" b'


def test_line_index_round_trip():
    src = "ab\ncd\n\nef"
    idx = LineIndex(src)
    assert idx.position(0) == (1, 1)
    assert idx.position(4) == (2, 2)
    assert idx.position(7) == (4, 1)
    for off in range(len(src)):
        assert idx.offset(*idx.position(off)) == off


@pytest.mark.coq
def test_every_stdlib_file_splits():
    root = Path(subprocess.check_output(["coqc", "-where"], text=True).strip()) / "theories"
    files = sorted(root.rglob("*.v"))
    assert len(files) > 400
    total = 0
    for f in files:
        src = f.read_text()
        sents = split_sentences(src, str(f))
        total += len(sents)
        for s in sents:
            assert s.is_bullet or s.code.endswith("."), (f, s)
        # nothing but blanks and comments between sentences
        gaps = [src[a.end : b.start] for a, b in zip([None] + sents, sents + [None]) if a and b]
        assert all(not strip_comments(g).strip() for g in gaps), f
    assert total > 100_000
