"""The Coq tactic policy on adversarial text, its one normalisation, and the rendered script (no
Coq run here; ``tests/integration/test_adversarial_coq_policy.py`` runs the vectors through coqtop).

Every vector is written out here (no loop over the code's own lists): a tactic text and the exact
outcome, either REFUSED with a fragment of the reason, or ACCEPTED as exactly these sentences.
"""

from __future__ import annotations

import pytest

from prover.coq.policy import CheckedTactic, RefusedTactic, check_tactic, head_word
from prover.coq.render import render_proof
from prover.coq.sentences import SentenceSplitError, normalise, split_sentences
from search_tree import ProofStep, linear_proof


# -- refused before coqtop: (tactic, reason fragment) -------------------------------------------

REFUSED = [
    # escapes through comments: one sentence with comments, two without them
    ('idtac.(**)Redirect "/tmp/x" Print nat.', "without its comments it is the 2 sentences"),
    ('idtac.(* *)Extraction "/tmp/x.ml" nat.', "without its comments it is the 2 sentences"),
    ('auto.(**)Load "/tmp/evil".', "without its comments it is the 2 sentences"),
    ('idtac.(**)Declare ML Module "evil".', "without its comments it is the 2 sentences"),
    ('idtac.(**)Cd "/tmp".', "without its comments it is the 2 sentences"),
    ("idtac.(**)Axiom cheat : False.", "without its comments it is the 2 sentences"),
    ("idtac.(**)Quit.", "without its comments it is the 2 sentences"),
    ("idtac.(*(*nested*)*)Drop.", "without its comments it is the 2 sentences"),
    ("auto.(**)", "sentence not terminated"),  # Coq reads ".(" as one token
    # four dots: Coq ends the sentence at the last one, after rejecting "..."
    ('idtac.... Redirect "/tmp/x" Print nat.', "a run of 4 dots"),
    # more than one sentence, dot-less or not
    ("intros. auto", "2 tactic sentences"),
    ("auto. Qed.", "2 tactic sentences"),
    ("- auto. Qed", "2 tactic sentences"),
    ("split.\nQed.", "2 tactic sentences"),
    # commands, by first word, after attributes, prefixes and selectors
    ("SubClass x := nat.", "'SubClass' starts a vernacular command"),
    ("Private Inductive t := c.", "'Private' starts a vernacular command"),
    ("Local Definition x := 0.", "'Local' starts a vernacular command"),
    ("Global Instance i : Inhabited nat := {}.", "'Global' starts a vernacular command"),
    ("Polymorphic Axiom p : False.", "'Polymorphic' starts a vernacular command"),
    ("Program Definition x := 0.", "'Program' starts a vernacular command"),
    ("Cumulative Inductive t := c.", "'Cumulative' starts a vernacular command"),
    ("#[local] Hint Resolve I : core.", "attributes belong to vernacular commands"),
    ("#[export] Instance x : True := I.", "attributes belong to vernacular commands"),
    ('Redirect "/tmp/x" Print nat.', "'Redirect' starts a vernacular command"),
    ('Extraction "/tmp/x.ml" nat.', "'Extraction' starts a vernacular command"),
    ("Recursive Extraction nat.", "'Recursive' starts a vernacular command"),
    ('Extract Constant nat => "int".', "'Extract' starts a vernacular command"),
    ('Load "/tmp/evil".', "'Load' starts a vernacular command"),
    ('Cd "/tmp".', "'Cd' starts a vernacular command"),
    ('Declare ML Module "evil".', "'Declare' starts a vernacular command"),
    ("Axiom cheat : False.", "'Axiom' starts a vernacular command"),
    ("Quit.", "'Quit' starts a vernacular command"),
    ("Drop.", "'Drop' starts a vernacular command"),
    ("Set Printing All.", "'Set' starts a vernacular command"),
    ("Unset Printing Notations.", "'Unset' starts a vernacular command"),
    ("Require Import Reals.", "'Require' starts a vernacular command"),
    ("Time auto.", "'Time' starts a vernacular command"),
    ("Timeout 100 auto.", "'Timeout' starts a vernacular command"),
    ("Fail auto.", "'Fail' starts a vernacular command"),
    ("Succeed auto.", "'Succeed' starts a vernacular command"),
    ("Function f (n : nat) := n.", "'Function' starts a vernacular command"),
    ("Functional Scheme s := Induction for f Sort Prop.", "'Functional' starts a vernacular command"),
    ("Ltac t := idtac.", "'Ltac' starts a vernacular command"),
    ('Tactic Notation "t" := idtac.', "'Tactic' starts a vernacular command"),
    ("Derive Inversion inv with (le 0 0).", "'Derive' starts a vernacular command"),
    ("Optimize Heap.", "'Optimize' starts a vernacular command"),
    ("Admitted.", "'Admitted' starts a vernacular command"),
    ("Qed.", "'Qed' starts a vernacular command"),
    ("2: Check nat.", "'Check' starts a vernacular command"),
    ("0x2: Check nat.", "'Check' starts a vernacular command"),  # coqtop reads 0x2 as goal 2
    ("1_0: Search nat.", "'Search' starts a vernacular command"),
    ("all:Compute 1.", "'Compute' starts a vernacular command"),
    ("2: Unshelve.", "'Unshelve' starts a vernacular command"),
    ("par: auto.", "the par: selector starts worker processes"),
    # the native compiler
    ("native_compute.", "'native_compute' starts the native compiler"),
    ("native_cast_no_check I.", "native_cast_no_check"),
    ("let x := eval native_compute in 1 in idtac.", "'native_compute' starts the native compiler"),
    ("exact (I <<: True).", "'<<:' starts the native compiler"),
    # a name chosen by the tactic for a global constant
    ("transparent_abstract (exact I) using bad.", "'transparent_abstract' ... using NAME"),
    ("abstract auto using t_subproof.", "'abstract' ... using NAME"),
    # giving up, unchecked terms
    ("admit.", "'admit' gives up a goal"),
    ("split; [admit | give_up].", "gives up a goal"),
    ("exact ltac:(admit).", "'admit' gives up a goal"),
    ("exact_no_check I.", "'exact_no_check' skips type checking"),
    # strings and framing
    ('idtac "a\nb".', "a line break or tab inside a string"),
    ('idtac "<prompt>Coq < 9 |x| 0 < </prompt>".', "prompt markers"),
    ("auto.\x0c", "control characters"),
    # Coq: no blank, so one failing sentence; Python's splitlines: two lines of the checked script
    ("exact I.\u2028Axiom x : False.", "control characters"),
    ("exact I.\x85idtac.", "control characters"),
    ('idtac "unterminated', "unterminated string"),
    ("auto (* open", "unterminated comment"),
    ("idtac..", "sentence not terminated"),
    ("", "it is empty"),
    ("(* only a comment *)", "it is empty"),
    ("x" * 20_001, "20001 characters long (at most 20000)"),
]


@pytest.mark.parametrize("tactic, why", REFUSED, ids=[t[:40] for t, _ in REFUSED])
def test_refused(tactic, why):
    """Fails if the vector gets through, e.g. with the old first-word list (no ``SubClass``,
    ``Private``, hex selectors) or with the check on the raw sentence and comments stripped later."""
    with pytest.raises(RefusedTactic, match="refused tactic ") as refused:
        check_tactic(tactic)
    assert why in str(refused.value)


# -- the one normalisation ---------------------------------------------------------------------

ACCEPTED = [
    ("auto", ("auto.",)),
    ("intros n m", ("intros n m.",)),
    ("  auto  (* then the dot *)  ", ("auto.",)),
    ("split. (* a comment *)", ("split.",)),
    ("intros\n  n\tm.", ("intros n m.",)),
    ('idtac "a  b. c"   ;  auto.', ('idtac "a  b. c" ; auto.',)),
    ('idtac "(* not a comment *)".', ('idtac "(* not a comment *)".',)),
    ('idtac (* "*)" *) "x".', ('idtac "x".',)),
    ("- auto", ("-", "auto.")),
    ("++ {", ("++", "{")),
    ("2 :  {", ("2 : {",)),
    ("rewrite Nat.add_comm.", ("rewrite Nat.add_comm.",)),
    ("Z.order.", ("Z.order.",)),  # a qualified Ltac name is no command
    ("Esimpl; auto.", ("Esimpl; auto.",)),
    ("Unshelve.", ("Unshelve.",)),
    ("abstract auto.", ("abstract auto.",)),
    ("induction n using nat_ind.", ("induction n using nat_ind.",)),
    ("split...", ("split...",)),
]


@pytest.mark.parametrize("tactic, sentences", ACCEPTED)
def test_accepted_as_exactly_these_sentences(tactic, sentences):
    """Fails if the sentences keep comments, raw blanks, or lack the added dot (what coqtop gets
    and what the script holds would then differ from what was checked)."""
    checked = check_tactic(tactic)
    assert checked.sentences == sentences
    assert [s.text for s in split_sentences(checked.text)] == list(sentences)


def test_normalise_is_idempotent_and_keeps_strings():
    """Fails if normalising twice changes the text, or if blanks inside strings are collapsed."""
    once = normalise('idtac  "a   b"(* c *)\n ;\tauto.')
    assert once == 'idtac "a   b" ; auto.' and normalise(once) == once
    with pytest.raises(SentenceSplitError, match="line break or tab inside a string"):
        normalise('idtac "a\tb".')


def test_rendered_script_is_the_checked_sentences():
    """Fails if render_proof writes the raw tactic text (the dot-less ``intros`` then reads as
    ``intros Qed.``), or keeps comments that coqtop never saw."""
    proof = linear_proof(["intros", "split (* two goals *)", "- auto", "- auto"])
    assert render_proof(proof) == "intros.\nsplit.\n- auto.\n- auto."
    branching = (ProofStep("split", ((ProofStep("exact I"),), (ProofStep("auto (* x *)"),))),)
    assert render_proof(branching) == "split.\n- exact I.\n- auto."


def test_render_refuses_what_the_policy_refuses():
    """Fails if render_proof writes a tactic the search could never have run."""
    with pytest.raises(RefusedTactic, match="2 sentences"):
        render_proof(linear_proof(["idtac.(**)Quit."]))


def test_checked_tactic_api_kept_for_callers():
    """Fails if ``focusing``/``tactic`` disappear (the session and verify.py use them)."""
    assert check_tactic("- 2: auto") == CheckedTactic(("-",), "2: auto.")


def test_long_tactics_up_to_the_limit_pass():
    """An 8,000-character ``idtac`` (long sentences once attacked the replay) is a tactic like any other.
    Fails if the length limit drops below the stdlib's longest proof sentence (8,497 characters)."""
    long = 'idtac "' + "x" * 8_490 + '".'
    assert check_tactic(long).sentences == (long,)


@pytest.mark.parametrize("tactic, head", [
    ("firstorder.", "firstorder"), ("2: sauto use: Nat.add_comm.", "sauto"), ("all: hauto.", "hauto"),
    ("[G]: qauto.", "qauto"), ("Z.order.", "Z"), ("(auto).", None),
])
def test_head_word_is_what_a_per_tactic_limit_is_keyed_by(tactic, head):
    """A per-tactic time limit (``CoqEnvironment(tactic_limits=...)``) finds its tactic behind a
    goal selector; a tactic that starts with no word has none."""
    assert head_word(tactic) == head
