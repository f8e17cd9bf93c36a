"""Naming an ad-hoc statement for the final check (no Coq run here)."""

from prover.coq.context import rename_statement, theorem_name


def test_rename_statement():
    """Fails if Goal is not turned into a named Lemma, or a name inside the type is renamed."""
    assert rename_statement("Goal forall x : nat, x = x.", "n") == "Lemma n : forall x : nat, x = x."
    assert rename_statement("Lemma x (x : nat) : x = x.", "n") == "Lemma n (x : nat) : x = x."
    assert theorem_name("Goal False.") == "Unnamed_thm"


def test_statement_type_is_the_type_the_statement_declares():
    """Fails if the binders are not turned into a product, if a ':' inside brackets, a string or a
    comment ends them, or if a Goal's type is changed."""
    from prover.coq.context import statement_type

    assert statement_type("Lemma a (b1 b2:bool) :\n b1 = b2 -> b2 = b1.") == "forall (b1 b2:bool), b1 = b2 -> b2 = b1"
    assert statement_type("Lemma l : forall x : nat, x = x.") == "forall x : nat, x = x"
    assert statement_type("Goal 1 = 1.") == "1 = 1"
    assert statement_type('Theorem t {A} (s : {n : nat | n > 0}) (* c : *) : "a:b" = "a:b".') == \
        'forall {A} (s : {n : nat | n > 0}), "a:b" = "a:b"'
    assert statement_type("#[local] Polymorphic Lemma p x : x = x.") == "forall x, x = x"


def test_statement_type_leaves_the_universe_binder_to_the_pin():
    """Fails if ``Lemma l@{uT uU} : T.`` is read as the binders ``@{uT uU}`` (the pin was then
    ``forall @{uT uU}, T``, which does not parse: every check with context additions of such a
    statement failed, ExtLib's ``Forall_map``), or if the binder is lost (its universes are named
    in the type, so the pin must declare them)."""
    from prover.coq.context import statement_type, universe_binder

    statement = "Lemma Forall_map@{uT uU}\n: forall (T : Type@{uT}) (U : Type@{uU}), T -> U -> T."
    assert statement_type(statement) == "forall (T : Type@{uT}) (U : Type@{uU}), T -> U -> T"
    assert universe_binder(statement) == "@{uT uU}"
    assert statement_type("Lemma l@{u} (A : Type@{u}) : A -> A.") == "forall (A : Type@{u}), A -> A"
    assert universe_binder("Polymorphic Lemma l@{u|Set < u} (A : Type@{u}) : A -> A.") == "@{u|Set < u}"
    assert universe_binder("Lemma l (A : Type) : A -> A.") == universe_binder("Goal True.") == ""


def test_statement_type_refuses_what_it_cannot_read():
    """Fails if a statement without a type is read as one (the final check must then fail closed)."""
    import pytest

    from prover.coq.context import statement_type

    for bad in ("Lemma bad.", "Lemma bad x y", "Check 1."):
        with pytest.raises(ValueError):
            statement_type(bad)
