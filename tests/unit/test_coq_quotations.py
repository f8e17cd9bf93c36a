"""coq-elpi's quotations (``lp:{{ ... }}``) in the sentence splitter, the comment stripper and the
one line a sentence is sent to coqtop as: nothing inside a quotation means anything to Coq's lexer."""

from __future__ import annotations

import pytest

from prover.coq.sentences import SentenceSplitError, one_line, split_sentences, strip_comments

ELPI = '''Elpi Db hb.db lp:{{
  % a comment. with a dot, a "quote and (* an opener
  pred foo i:term.
  foo X :- X = {{ nat }}, coq.say "done".
}}.
Lemma x : True. Proof. exact I. Qed.
Definition y := fun x:((nat)) => x.
'''


def test_a_quotation_is_one_token_and_nested_ones_count():
    """Fails if a dot, a quote or ``(*`` inside ``lp:{{ }}`` ends or opens anything, if the
    nested ``{{ nat }}`` closes it, or if ``x:((`` (no quotation for Coq) is read as one."""
    texts = [s.text for s in split_sentences(ELPI)]
    assert texts[0] == ELPI[:ELPI.index("}}.\n") + 3] and texts[0].count("\n") == 4
    assert texts[1:] == ["Lemma x : True.", "Proof.", "exact I.", "Qed.", "Definition y := fun x:((nat)) => x."]
    assert "(* an opener" in strip_comments(texts[0])
    assert [s.text for s in split_sentences("Check x:{{{ a }} b }}}.")] == ["Check x:{{{ a }} b }}}."]


def test_an_unterminated_quotation_is_an_error_naming_where_it_starts():
    with pytest.raises(SentenceSplitError, match=r"<string>:2:17: unterminated quotation"):
        split_sentences("Check 1.\nElpi Accumulate lp:{{ foo. }.\n")


def test_one_line_keeps_line_breaks_inside_quotations_only():
    """elpi's ``%`` comments run to the end of their line: fails if the quotation's line breaks
    become spaces (the comment would swallow the code after it) or others stay."""
    sentence = split_sentences(ELPI)[0].text
    sent = one_line("Elpi Accumulate\n" + sentence[len("Elpi Db hb.db "):])
    assert sent.startswith("Elpi Accumulate lp:{{\n  % a comment.") and sent.endswith("\n}}.")
    assert one_line("Lemma x :\n  True.") == "Lemma x :   True."
