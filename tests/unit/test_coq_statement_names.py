"""Naming an ad-hoc statement for the final check (no Coq run here)."""

from prover.coq.context import rename_statement, theorem_name


def test_rename_statement():
    """Fails if Goal is not turned into a named Lemma, or a name inside the type is renamed."""
    assert rename_statement("Goal forall x : nat, x = x.", "n") == "Lemma n : forall x : nat, x = x."
    assert rename_statement("Lemma x (x : nat) : x = x.", "n") == "Lemma n (x : nat) : x = x."
    assert theorem_name("Goal False.") == "Unnamed_thm"
