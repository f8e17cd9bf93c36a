"""Adversarial tactics against the Coq policy through a real coqtop/coqc: no file written and no
proof reported. The lexer cases are checked against a real coqtop, so that
:mod:`prover.coq.sentences` agrees with Coq where a sentence ends. The policy's verdicts on the
vectors themselves, which need no Coq, are in ``tests/unit/test_coq_policy.py``.
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
from prover.coq.policy import RefusedTactic, check_tactic
from prover.coq.sentences import SentenceSplitError, split_sentences
from prover.proof_search import BestFirstSearchProver, MCTSProver
from search_tree import ErrorKind, ProofFinished, Status, TacticError, TacticState, linear_proof

needs_coq = pytest.mark.coq

# a false proof: the dot-less last tactic used to swallow the rendered Qed
FALSE_PROOF = ["assert (H : nat -> False).", "fix f 1.", "exact f.",
               "transparent_abstract (exact (False_ind _ (H 0))) using bad; intros"]
BAD = adhoc_theorem("Lemma bad : 0 = 1.", [])


@pytest.fixture(scope="module")
def env():
    with CoqEnvironment(tactic_timeout=2, memory_limit_mb=2048) as env:
        yield env


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
    only the 26 commands written inside proofs. Fails if the capitalised-command rule loses its
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
    # (a `Variable`, `Infix`, `Notation` or `Add` counted here was the index running a `Proof <term>.` lemma
    # such as setoid_ring's `Rth_ARth` on into the next sentences: the index now ends it there)
    assert refused == Counter({"Open": 12, "Close": 12, "Opaque": 2})
