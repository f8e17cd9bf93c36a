"""Which finished proofs the Coq environment refuses as a step (the search goes on) and which end
the search, left to the final check (:meth:`prover.coq.env.CoqEnvironment._finish_refusal`): the
check's verdict is faked here, its routing is what is tested (no Coq)."""

from __future__ import annotations

import pytest

from prover.coq.env import CoqEnvironment
from prover.coq.verify import ASSUMES_REFUSED, LEAK_REFUSED, LEAK_UNCHECKED, STATEMENT_NEEDS, WHATEVER_THE_PROOF
from search_tree import Theorem, Verification, linear_proof

THEOREM = Theorem("app_nil_r", "Lists/List.v", (10, 0))
PLAIN, FIXPOINT = linear_proof(["intros.", "sauto."]), linear_proof(["fix f 1.", "auto."])


def _routed(monkeypatch, message: str, proof, reopened: bool = True, user: bool = False) -> str | None:
    env = CoqEnvironment()
    monkeypatch.setattr(env, "_verify", lambda theorem, proof, check: Verification(False, message))
    monkeypatch.setattr(env, "_installed", lambda theorem: not user)
    return env._finish_refusal(THEOREM, reopened, proof)


@pytest.mark.parametrize("proof", [PLAIN, FIXPOINT])
def test_a_leak_check_that_cannot_run_ends_the_search_instead_of_refusing_every_proof(monkeypatch, proof):
    """Fails if a proof whose dependency graphs could not be read (coq-dpdgraph missing or broken:
    the checker's environment, not the proof) is a refused step: every later proof of the theorem
    meets the same, and the search refused them all until its timeout. It ends the search, whose
    final check says why; a fixpoint's too (its guard passed coqc and coqchk before the leak check)."""
    unchecked = f"{LEAK_UNCHECKED}: its dependencies could not be read (coq-dpdgraph wrote no dependency graph)"
    assert _routed(monkeypatch, unchecked, proof) is None


def test_a_leak_is_still_a_refused_step(monkeypatch):
    """Fails if a proof the leak check refuses (a property of that proof: another can avoid the
    compiled object) stops being a refused step after which the search goes on."""
    leak = f"{LEAK_REFUSED}: its term depends on List.app_nil_r of the compiled Coq.Lists.List"
    assert _routed(monkeypatch, leak, PLAIN) == leak


@pytest.mark.parametrize("mark", [WHATEVER_THE_PROOF, f"{STATEMENT_NEEDS} P.C.a"])
def test_an_assumption_refusal_no_proof_escapes_ends_the_search(monkeypatch, mark):
    """A refusal of what a proof assumes is a refused step on a user's theorem, except where no
    proof can escape it: a prelude's axiom (``WHATEVER_THE_PROOF``), or an axiom the statement
    itself needs (``STATEMENT_NEEDS``). Fails if either is a refused step (the search then refused
    every proof until its timeout) or if a plain one ends the search."""
    assumes = f"{ASSUMES_REFUSED} P.A.helper): only the axioms listed in prover/coq/trusted_axioms.py may be assumed"
    assert _routed(monkeypatch, assumes, PLAIN, reopened=False, user=True) == assumes
    assert _routed(monkeypatch, f"{assumes}; {mark}", PLAIN, reopened=False, user=True) is None
