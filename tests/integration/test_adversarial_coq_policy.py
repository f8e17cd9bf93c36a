"""Adversarial tactics against the Coq policy, its one normalisation, and the rendered script.

Every vector is written out here (no loop over the code's own lists): a tactic text and the exact
outcome, either REFUSED with a fragment of the reason, or, end to end through a real coqtop/coqc,
no file written and no proof reported. The lexer cases are checked against a real coqtop, so that
:mod:`prover.coq.sentences` agrees with Coq where a sentence ends.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from collections import Counter
from pathlib import Path

import pytest

from generator import FixedTacticGenerator
from prover.coq.context import adhoc_theorem
from prover.coq.env import CoqEnvironment
from prover.coq.policy import CheckedTactic, RefusedTactic, check_tactic
from prover.coq.render import render_proof
from prover.coq.sentences import SentenceSplitError, normalise, split_sentences
from prover.proof_search import BestFirstSearchProver, MCTSProver
from search_tree import ErrorKind, ProofFinished, ProofStep, Status, TacticError, TacticState, linear_proof

needs_coq = pytest.mark.coq

# a false proof: the dot-less last tactic used to swallow the rendered Qed
FALSE_PROOF = ["assert (H : nat -> False).", "fix f 1.", "exact f.",
               "transparent_abstract (exact (False_ind _ (H 0))) using bad; intros"]
BAD = adhoc_theorem("Lemma bad : 0 = 1.", [])


@pytest.fixture(scope="module")
def env():
    with CoqEnvironment(tactic_timeout=2, memory_limit_mb=2048) as env:
        yield env


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


# -- the lexer against a real coqtop -------------------------------------------------------------

# (text after "Goal True.", whether coqtop runs the second idtac as a sentence of its own). Our
# splitter must say two sentences exactly then. After an error coqtop skips to the next sentence
# end, so a sentence that fails (the form feed cases) still ends where the splitter says.
LEXER = [
    ('idtac "FIRST".(**)idtac "SECOND".', False),
    ('idtac "FIRST"."SECOND".', False),
    ('idtac "FIRST".idtac "SECOND".', False),
    ('idtac "FIRST".\tidtac "SECOND".', True),
    ('idtac "FIRST".\nidtac "SECOND".', True),
    ('idtac "FIRST".\ridtac "SECOND".', True),
    ('idtac "FIRST"... idtac "SECOND".', True),
    ('idtac "FIRST".. idtac "SECOND".', False),
    ('idtac "FIRST" (* . *) . idtac "SECOND".', True),
    ('idtac "FIRST" (* "*)." *). idtac "SECOND".', True),
    ('idtac "FIRST"\x0c. idtac "SECOND".', True),
    ('idtac "FIRST".\x0cidtac "SECOND".', False),
    ('idtac "FIRST".\u00a0idtac "SECOND".', False),
    ('idtac "FIRST".\u2028idtac "SECOND".', False),
]


def _coqtop_runs(text: str) -> set[str]:
    """The markers that coqtop's idtacs printed (a message alone at the end of a line, after the
    prompt; an error message quotes the input with the quotes around the marker)."""
    done = subprocess.run(["coqtop", "-q"], input=f"Goal True.\n{text}\n", capture_output=True, text=True,
                          timeout=60, check=False)
    return {w for w in ("FIRST", "SECOND") if re.search(rf"(?m)(?:^|< ){w}\s*$", done.stdout)}


@needs_coq
@pytest.mark.parametrize("text, both", LEXER, ids=[repr(t)[:40] for t, _ in LEXER])
def test_sentence_ends_agree_with_coqtop(text, both):
    """Fails if sentences.py ends a sentence where Coq does not or the other way round, e.g. with
    ``.`` + form feed counted as an end, or ``.(`` and ``."`` as ends."""
    ours = len(split_sentences(text))
    assert ours == (2 if both else 1)
    ran = _coqtop_runs(text)
    assert ("SECOND" in ran) == both, ran


@needs_coq
def test_four_dots_let_coqtop_run_the_rest():
    """Why a run of four dots is refused: coqtop rejects ``...`` and runs what follows as a new
    sentence. Fails if Coq stops doing so (then the refusal could be relaxed)."""
    assert "SECOND" in _coqtop_runs('idtac "FIRST".... idtac "SECOND".')
    with pytest.raises(SentenceSplitError, match="a run of 4 dots"):
        split_sentences('idtac "FIRST".... idtac "SECOND".')


# -- end to end through a real coqtop and coqc ---------------------------------------------------

@needs_coq
@pytest.mark.parametrize("command", [
    'Redirect "{path}" Print nat.',
    'Extraction "{path}" nat.',
    '(*(* nested *)*)Redirect "{path}" Print nat.',
])
def test_comment_escape_writes_no_file(env, tmp_path, command):
    """Fails if the policy checks one sentence but coqtop is sent the comment-stripped text, which
    it runs as two (the file then exists)."""
    path = tmp_path / "written"
    tactic = "idtac.(**)" + command.format(path=path)
    with env.open(adhoc_theorem("Lemma t : True.", [])) as (session, init):
        sent = session.coqtop.sentences_sent
        result = session.run_tac(init, tactic)
        assert isinstance(result, TacticError) and result.kind == ErrorKind.REFUSED, result
        assert session.coqtop.sentences_sent == sent
        assert isinstance(session.run_tac(init, "exact I."), ProofFinished)  # the session goes on
    assert not any(tmp_path.iterdir()) and not (tmp_path / "written.out").exists()


@needs_coq
def test_dotless_tactic_runs_as_its_checked_sentence(env):
    """Fails if the session sends the raw text instead of the normalised sentence (coqtop would
    then wait for the dot of ``exact I`` and read the next command into it)."""
    with env.open(adhoc_theorem("Lemma t : True /\\ True.", [])) as (session, init):
        split = session.run_tac(init, "split (* two *)")
        assert isinstance(split, TacticState) and split.num_goals == 2
        first = session.run_tac(split, "exact I")
        assert isinstance(first, TacticState) and first.num_goals == 1


@needs_coq
def test_honest_dotless_proof_is_verified(env):
    """Fails if a dot-less ``auto`` is rejected anywhere: in the search, in the script or by coqc."""
    th = adhoc_theorem("Lemma two_ands : forall A B : Prop, A -> B -> A /\\ B.", [])
    result = BestFirstSearchProver(FixedTacticGenerator(["intros", "split", "auto"]), timeout=60).search(env, th)
    assert result.status == Status.PROVED, result.stop_reason
    assert all(not t.endswith(".") for t in result.tactics)
    verdict = env.verify(th, linear_proof(["intros", "split", "auto", "auto"]))
    assert verdict.ok, verdict
    assert env.render(th, linear_proof(["intros", "split", "auto", "auto"])) == "intros.\nsplit.\nauto.\nauto."


@needs_coq
def test_false_proof_vector_is_not_verified(env):
    """The false proof above on the ad-hoc ``bad`` and on the stdlib's ``Zrem_0_r``. Fails if the
    dot-less last tactic is written raw (coqc then reads ``intros Qed.``) or ``using bad`` passes."""
    for theorem in (BAD, env.theorem("Zrem_0_r")):
        verdict = env.verify(theorem, linear_proof(FALSE_PROOF))
        assert not verdict.ok and "'transparent_abstract' ... using NAME" in verdict.message, verdict
    # without `using`, the proof is now closed by Qed and the ill-guarded fix reaches the kernel
    no_name = FALSE_PROOF[:3] + ["transparent_abstract (exact (False_ind _ (H 0))); intros"]
    verdict = env.verify(BAD, linear_proof(no_name))
    assert not verdict.ok and "Recursive definition of f is ill-formed" in verdict.message, verdict
    assert verdict.script.endswith("; intros."), verdict.script


@needs_coq
def test_false_proof_vector_through_mcts(env):
    """Fails if AND-OR MCTS reports vector 1 proved (the search may find it; the check must not):
    it does with the former render_proof (raw text) and ``using`` accepted."""
    tactics = FALSE_PROOF[:3] + ["transparent_abstract (exact (False_ind _ (H 0))); intros", FALSE_PROOF[3]]
    result = MCTSProver(FixedTacticGenerator(tactics), timeout=60, max_env_calls=150).search(env, BAD)
    assert result.status != Status.PROVED, result


@needs_coq
def test_false_proof_vector_through_the_cli(tmp_path):
    """The false proof above verbatim through ``dojo-prover prove``. Fails if a proof is printed, as it
    is with the former render_proof (raw text) and ``using`` accepted."""
    cmd = [sys.executable, "-m", "prover.cli", "prove", "--env", "coq", "--timeout", "10",
           "--statement", "Lemma bad : 0 = 1.", "--tactics", *FALSE_PROOF, "--", "bad"]
    done = subprocess.run(cmd, capture_output=True, text=True, timeout=300, check=False,
                          env={**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[2])})
    assert done.returncode == 1, done.stdout + done.stderr
    assert "status: proved" not in done.stdout and "Qed" not in done.stdout, done.stdout


@needs_coq
def test_stdlib_proofs_pass_the_policy_except_commands_written_in_them():
    """No false alarms: of the stdlib's proof sentences (``Proof`` lines aside) the policy refuses
    only the 40 commands written inside proofs. Fails if the capitalised-command rule loses its
    exemptions: qualified Ltac names such as ``Z.swap_greater`` (112 more) or the stdlib's own
    capitalised Ltac names such as ``Esimpl`` (44 more)."""
    from prover.coq.stdlib import load_index

    index = load_index(progress=False)
    total, refused = 0, Counter()
    for f in index.files.values():
        text = (index.root / f.path).read_text()
        for theorem in f.theorems:
            for start, end in theorem.proof:
                sentence = text[start:end]
                if sentence.startswith("Proof"):
                    continue
                total += 1
                try:
                    check_tactic(sentence)
                except RefusedTactic:
                    refused[sentence.split()[0]] += 1
    assert total > 75_000
    assert refused == Counter({"Open": 12, "Close": 12, "Variable": 6, "Infix": 3, "Notation": 3, "Add": 2, "Opaque": 2})


def test_long_tactics_up_to_the_limit_pass():
    """An 8,000-character ``idtac`` (long sentences once attacked the replay) is a tactic like any other.
    Fails if the length limit drops below the stdlib's longest proof sentence (8,497 characters)."""
    long = 'idtac "' + "x" * 8_490 + '".'
    assert check_tactic(long).sentences == (long,)
