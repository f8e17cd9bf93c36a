"""Proof retrieval: macros are sound in real Coq, only accessible proofs are retrieved, it fuses."""


import pytest

from prover.coq.language import COQ
from search_tree.protocol import ProofFinished, TacticError, TacticState, Theorem
from traced_fixtures import tactic, theorem, traced_stdlib

coq = pytest.mark.coq

ONE = "  n : nat\n  ============================\n  P n"
TWO = ONE + "\n\n  n : nat\n  ============================\n  Q n"
# Classical_Prop.v: imply_to_and branches with "split." and goes on without bullets
FILES = ["Sets/Relations_1_facts.v", "Sets/Relations_2_facts.v", "Sets/Constructive_sets.v", "Logic/Classical_Prop.v"]


def test_chain_joins_while_each_tactic_leaves_one_goal():
    """Fails if the one-goal rule is dropped (checked: ``one_goal`` always true): ``t1; t2`` runs
    ``t2`` on every goal ``t1`` leaves, so a chain must stop after the tactic that branches."""
    from generator.proof_retrieval import chain

    linear = [tactic("intros n.", ONE, ONE), tactic("simpl.", ONE, ONE), tactic("auto.", ONE, "no goals")]
    assert chain(linear) == "(intros n); simpl; auto."
    branching = [tactic("intros.", ONE, ONE), tactic("split.", ONE, TWO), tactic("auto.", ONE, ONE)]
    assert chain(branching) == "intros; split."
    bullets = [tactic("induction n.", ONE, TWO), tactic("-", ONE, ONE)]
    assert chain(bullets) == "induction n."
    selector = [tactic("intros.", ONE, ONE), tactic("all: auto.", ONE, "no goals")]
    assert chain(selector) == "intros."
    # a tactic with its own ";" or "now" is parenthesised so that it binds inside
    assert chain([tactic("destruct n; auto.", ONE, ONE), tactic("now apply H.", ONE, "no goals")]) \
        == "(destruct n; auto); (now apply H)."
    assert chain([tactic("-", ONE, ONE)]) is None


def test_macros_and_openings_adapt_hypothesis_names():
    """Fails if retrieved proofs are proposed with the lemma's own hypothesis names."""
    from generator.proof_retrieval import ProofRetrievalGenerator, traced_proofs

    src = "  R : nat -> Prop\n  HR : forall n, R n\n  ============================\n  R 0"
    proof = [tactic("apply HR.", src, "no goals")]
    lib = dict(theorem("lib", proof), file_path="Lib.v")
    gen = ProofRetrievalGenerator(traced_proofs([lib]), COQ)
    here = "  S : nat -> Prop\n  HS : forall n, S n\n  ============================\n  S 0"
    assert gen.generate(TacticState(here, 0), Theorem("t", file_path="Here.v"), 4) == [("apply HS.", 0.0)]
    assert gen.generate(TacticState(here, 0), Theorem("lib", file_path="Lib.v"), 4) == []  # its own proof


@pytest.fixture(scope="module")
def traced(tmp_path_factory):
    with traced_stdlib(tmp_path_factory, FILES) as (index, out, summary):
        assert summary.failed == []
        yield index, out


@coq
@pytest.mark.coq
def test_macros_of_real_proofs_run_in_coq(traced):
    """Fails if a macro is not a tactic Coq runs (checked: each tactic's final ``.`` kept inside
    the chain): every macro of a traced stdlib proof, run on its own theorem in coqtop, succeeds,
    and at least three chained macros close their theorem in one action. (The one-goal rule is
    protected by the unit test above: stdlib proofs that branch without bullets are rare, and
    ``imply_to_and`` happens to survive being chained whole.)"""
    from generator.proof_retrieval import traced_proofs
    from generator.traced import load_theorems
    from prover.coq.env import CoqEnvironment

    index, out = traced
    records = [r for r in load_theorems([out / "train.json", out / "val.json", out / "test.json"])]
    proofs = {(p.file_path, p.theorem): p for p in traced_proofs(records)}
    closed = chained = 0
    with CoqEnvironment(index=index) as env:
        for rec in records:
            macro = proofs[(rec["file_path"], rec["full_name"])].macro
            name = f"{index.file(rec['file_path']).module}.{rec['full_name']}"
            with env.open(index.theorem(name)) as (session, state):
                result = session.run_tac(state, macro)
            assert not isinstance(result, TacticError), (name, macro, result)
            closed += isinstance(result, ProofFinished)
            chained += ";" in macro
    assert closed >= 3 and chained >= 3


@coq
@pytest.mark.coq
def test_retrieves_only_accessible_proofs_and_fuses_with_knn(traced):
    """Fails if the accessibility mask is not applied (checked: ``search`` without masks): asked
    with its own statement, a theorem never gets its own or a later proof, only imported ones and
    earlier lemmas of its file; the ``proofs`` generator builds by name and fuses with ``knn``."""
    from generator.proof_retrieval import ProofRetrievalGenerator
    from generator.registry import build_generator

    index, out = traced
    paths = [out / "train.json", out / "val.json", out / "test.json"]
    gen = ProofRetrievalGenerator.from_traced(paths, COQ, k=50)
    theorems = index.theorems([FILES[1]])
    for k, thm in enumerate(theorems):
        first = next(p.first_state for p in gen.proofs if p.theorem == thm.full_name and p.file_path == FILES[1])
        found = gen.retrieve([TacticState(first, 0)], [thm])[0]
        later = {t.full_name for t in theorems[k:]}
        assert found, thm.full_name
        for proof, _ in found:
            assert proof.file_path in FILES[:2], (thm.full_name, proof.file_path)
            assert not (proof.file_path == FILES[1] and proof.theorem in later), (thm.full_name, proof.theorem)
    fused = build_generator("fused", language=COQ, members=[{"name": "knn", "paths": [str(p) for p in paths]},
                                              {"name": "proofs", "paths": [str(p) for p in paths]}])
    last = theorems[-1]
    first = next(p for p in gen.proofs if p.theorem == theorems[0].full_name and p.file_path == FILES[1])
    tactics = [t for t, _ in fused.generate(TacticState(first.first_state, 0), last, 32)]
    assert first.macro in tactics and first.opening in tactics
