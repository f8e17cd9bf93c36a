"""The grammar that keeps untrusted Coq text away from programs, files and external provers.

Pure text checks, no Coq: :func:`prover.coq.policy.check_tactic` (tactics) and
:func:`prover.coq.context.check_prelude` (preludes) share :mod:`prover.coq.reach`. Every case is
written out with its exact outcome; the same texts run against a real coqtop in
tests/integration/test_adversarial_coq_sandbox.py.
"""

from __future__ import annotations

import pytest

from prover.coq.context import adhoc_theorem, check_prelude
from prover.coq.hammer import calls_atp
from prover.coq.policy import CheckedTactic, RefusedTactic, check_tactic
from prover.coq.reach import atp_step

# -- tactics: (tactic, the reason's fragment) ------------------------------------------------------

TACTIC_REFUSED = [
    # CoqHammer's tactics that run a program or write files (its hook runs the shell)
    ('hammer_hook "p" "x$(touch PWNED)".', "'hammer_hook' runs a program"),
    ('try hammer_hook "p" "x".', "'hammer_hook' runs a program"),
    ("predict 4.", "'predict' runs a program"),
    ('predict 4 "knn".', "'predict' runs a program"),
    ("idtac; predict 4.", "'predict' runs a program"),
    ("hammer_features.", "'hammer_features' runs a program"),
    ("hammer_transl.", "'hammer_transl' runs a program"),
    ('hammer_dump "/tmp/x".', "'hammer_dump' runs a program"),
    ("ptimeout 5 auto.", "'ptimeout' runs a program"),
    ("exact ltac:(predict 2).", "'predict' runs a program"),
    # hammer anywhere but as a step of its own
    ("idtac; hammer.", "'hammer' calls external provers"),
    ("try hammer.", "'hammer' calls external provers"),
    ("(hammer).", "'hammer' calls external provers"),
    ("solve [hammer].", "'hammer' calls external provers"),
    ("first [hammer | auto].", "'hammer' calls external provers"),
    ("auto || hammer.", "'hammer' calls external provers"),
    ("repeat hammer.", "'hammer' calls external provers"),
    ("do 2 hammer.", "'hammer' calls external provers"),
    ("split; [hammer | auto].", "'hammer' calls external provers"),
    ("exact ltac:(hammer).", "'hammer' calls external provers"),
    ("hammer; auto.", "'hammer' calls external provers"),
    ("all: hammer.", "'hammer' calls external provers"),
    ("1-2: hammer.", "'hammer' calls external provers"),
    ("1,2: hammer.", "'hammer' calls external provers"),
    ("hammer [Nat.add_comm].", "'hammer' calls external provers"),
    # debugging traces
    ("debug firstorder.", "'debug firstorder' prints debugging traces"),
    ("debug auto.", "'debug auto' prints debugging traces"),
    ("infoH auto.", "'infoH' prints debugging traces"),
    ("try info_trivial.", "'info_trivial' prints debugging traces"),
    # option commands in every form stay commands
    ('Export Set Hammer PredictPath "touch PWNED".', "'Export' starts a vernacular command"),
    ('#[export] Set Hammer PredictPath "x".', "attributes belong to vernacular commands"),
]


@pytest.mark.parametrize("tactic, why", TACTIC_REFUSED, ids=[t[:40] for t, _ in TACTIC_REFUSED])
def test_tactic_refused(tactic, why):
    """Fails if a tactic that reaches a program, or hammer where it can be neither limited nor
    rewritten, gets through (all of these passed the first-word test of ``calls_atp``)."""
    with pytest.raises(RefusedTactic, match="refused tactic ") as refused:
        check_tactic(tactic)
    assert why in str(refused.value), str(refused.value)
    assert "\n" not in str(refused.value)


HAMMER_STEPS = [
    ("hammer", CheckedTactic((), "hammer.")),
    ("hammer.", CheckedTactic((), "hammer.")),
    ("1: hammer.", CheckedTactic((), "1: hammer.")),
    ("[x]: hammer.", CheckedTactic((), "[x]: hammer.")),
    ("!: hammer.", CheckedTactic((), "!: hammer.")),
    ("- hammer", CheckedTactic(("-",), "hammer.")),
    ("hammer (* a comment *).", CheckedTactic((), "hammer .")),
]


@pytest.mark.parametrize("tactic, checked", HAMMER_STEPS, ids=[t for t, _ in HAMMER_STEPS])
def test_hammer_steps_of_their_own_are_accepted(tactic, checked):
    """Fails if the forms that ``HammerSession`` can limit and rewrite are refused."""
    assert check_tactic(tactic) == checked
    assert calls_atp(checked.tactic) and atp_step(checked.tactic)


@pytest.mark.parametrize("tactic", ["idtac; hammer.", "try hammer.", "(hammer).", "exact ltac:(hammer).",
                                    "all: hammer.", "solve [ hammer ]."])
def test_calls_atp_finds_hammer_in_every_position(tactic):
    """Fails if ``calls_atp`` goes back to the first word: verification would then run the ATPs."""
    assert calls_atp(tactic) and not atp_step(tactic)


@pytest.mark.parametrize("tactic", ['idtac "hammer".', "apply hammer_lemma.", "exact Hammer.x.", "sauto.",
                                    "apply Foo.hammer."])
def test_calls_atp_ignores_strings_and_other_names(tactic):
    """Fails if a string or another identifier is mistaken for the hammer tactic."""
    assert not calls_atp(tactic)
    check_tactic(tactic)


# -- preludes: (sentences, the reason's fragment) --------------------------------------------------

PRELUDE_REFUSED = [
    # item 4: the Export form of Set and Unset, any option
    (['From Hammer Require Import Hammer.', 'Export Set Hammer PredictPath "touch PWNED; predict".'],
     "'Export Set' changes an option"),
    (["Export Unset Guard Checking."], "'Export Unset' changes an option"),
    (["Local Set Implicit Arguments."], "'Local Set' changes an option"),
    (["Global Unset Printing Notations."], "'Global Unset' changes an option"),
    (["#[export] Set Implicit Arguments."], "'#[export] Set' changes an option"),
    (["#[local] Unset Strict Implicit."], "'#[local] Unset' changes an option"),
    # options that name programs or files, and values outside the list
    (['Set Hammer PredictPath "/bin/sh".'], "option 'Hammer PredictPath' may not be changed"),
    (["Unset Hammer Eprover."], "option 'Hammer Eprover' may not be changed"),
    (["Set Hammer ATPLimit 100."], "option 'Hammer ATPLimit' may not be changed"),
    (['Set Default Goal Selector "all".'], "value '\"all\"' of option 'Default Goal Selector' is not allowed"),
    (['Set Default Goal Selector "par".'], "value '\"par\"' of option 'Default Goal Selector' is not allowed"),
    (['Set Implicit Arguments "x".'], "value '\"x\"' of option 'Implicit Arguments' is not allowed"),
    (["Set Default Goal Selector."], "option 'Default Goal Selector' needs one of"),
    # item 13: a file of the file system bound as a dependency, and other loading forms
    (['From Coq Extra Dependency "../../etc/passwd" as pw.'], "'From Coq Extra' is not part of a library load"),
    (['Require Import "Arith".'], "'\"Arith\"' is not part of a library load"),
    (["#[local] From Coq Extra Dependency \"/etc/passwd\" as pw."], "'From Coq Extra' is not part of a library load"),
    (["From Coq Require Export Set."], "'Set' is not part of a library load"),
    # CoqHammer's commands and tactics anywhere in a prelude
    (['Hammer_print "x".'], "'Hammer_print' is not allowed in a prelude"),
    (["Hammer_objects."], "'Hammer_objects' is not allowed in a prelude"),
    (['Ltac pwn := hammer_hook "p" "x$(touch PWNED)".'], "'hammer_hook' runs a program"),
    (['Tactic Notation "pwn" := predict 4.'], "'predict' runs a program"),
    (["Hint Extern 1 => hammer_features : core."], "'hammer_features' runs a program"),
    (['Definition d : nat := ltac:(hammer_hook "a" "b"; exact 0).'], "'hammer_hook' runs a program"),
    (["Ltac h := hammer."], "'hammer' calls external provers"),
    (["Lemma l : True.", "Proof.", "hammer.", "Qed."], "a prelude may not call external provers"),
    (["Hint Extern 1 => hammer : core."], "'hammer' calls external provers"),
    (["Definition n := ltac:(native_compute; exact 0)."], "'native_compute' starts the native compiler"),
    # debugging tactics in a prelude's proof
    (["Lemma l : True.", "Proof.", "infoH auto.", "Qed."], "'infoH' prints debugging traces"),
]


@pytest.mark.parametrize("sentences, why", PRELUDE_REFUSED, ids=[s[-1][:40] for s, _ in PRELUDE_REFUSED])
def test_prelude_refused(sentences, why):
    """Fails if a prelude sentence that reaches a program, a file or an external prover passes
    (``Export Set``/``Export Unset`` and ``Extra Dependency`` did)."""
    with pytest.raises(ValueError, match="prelude sentence ") as refused:
        check_prelude(sentences)
    assert why in str(refused.value), str(refused.value)
    assert "\n" not in str(refused.value)


PRELUDE_ACCEPTED = [
    ['Set Default Goal Selector "!".'],  # item 13: listed as safe, was refused for its value
    ['Set Default Goal Selector "1".'],
    ['Set Bullet Behavior "Strict Subproofs".'],
    ["Set Implicit Arguments.", "Unset Strict Implicit."],
    ["Set   Printing\n  All."],
    ["Unset Default Goal Selector."],
    ["From Coq Require Import Arith.", "Require Export Coq.Lists.List.", "Import ListNotations."],
    ["From Hammer Require Import Tactics."],
    ["From Coq Require Import ssreflect.", "Import Nat(add_comm)."],
    ["#[local] Hint Resolve I : core.", "Global Instance i : Inhabited nat := {| inhabitant := 0 |}."],
    ['Notation "x <+> y" := (x + y) (at level 50).'],
    ["Ltac hh := sauto.", 'Tactic Notation "my_predict" := idtac "predict".'],
    ["Definition hammer_count := 3."],  # a name that only contains a tactic's name
]


@pytest.mark.parametrize("sentences", PRELUDE_ACCEPTED, ids=[s[0][:40] for s in PRELUDE_ACCEPTED])
def test_prelude_accepted(sentences):
    """Fails if the grammar refuses honest preludes (the plain forms of the listed options, library
    loads with import filters, strings in notations)."""
    check_prelude(sentences)


@pytest.mark.parametrize("statement, why", [
    ('Lemma s : ltac:(hammer_hook "p" "x"; exact True).', "'hammer_hook' runs a program"),
    ("Lemma s : ltac:(hammer; exact True).", "'hammer' calls external provers"),
])
def test_statement_refused(statement, why):
    """A statement is run by coqtop too: fails if an ``ltac:(...)`` inside it escapes the grammar."""
    with pytest.raises(ValueError, match="theorem statement ") as refused:
        adhoc_theorem(statement)
    assert why in str(refused.value)


def test_tokens_find_words_where_coq_reads_them():
    """Fails if a word inside a string or a comment counts, or a qualified name is split (the
    grammar would then refuse ``Hammer.x`` or miss ``hammer`` after ``;``)."""
    from prover.coq.sentences import Token, tokens

    assert tokens('idtac "hammer" (* hammer *); hammer.') == [
        Token("ident", "idtac"), Token("string", '"hammer"'), Token("symbol", ";"), Token("ident", "hammer"),
        Token("symbol", ".")]
    assert [t.text for t in tokens("exact Nat.add_comm.")] == ["exact", "Nat.add_comm", "."]
    assert [t.kind for t in tokens('predict 4 "a""b".')] == ["ident", "number", "string", "symbol"]
