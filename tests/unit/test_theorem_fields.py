"""A backend's typed theorem fields: stored in ``Theorem.extra`` under their own names (the form
theorems travel and are written in), read back typed, and refused in one line when of the wrong type."""

from __future__ import annotations

import pickle

import pytest

from prover.coq.records import CoqFields
from prover.lean.env import LeanFields
from search_tree import Theorem
from search_tree.errors import UserError


def test_fields_are_stored_under_their_names_and_read_back():
    """Fails if the keys change (theorems of older runs and benchmark files hold them) or a value
    does not come back as its type."""
    fields = CoqFields(module="Coq.Init.Nat", qualified_name="Coq.Init.Nat.add_0_l", offset=120, end=(4, 5),
                       project={"spec": "coq-lib:Foo"}, admitted=True, prelude=("Require Import Lia.",))
    theorem = fields.on(Theorem("add_0_l", extra={"benchmark": "mine"}))
    assert theorem.extra == {"benchmark": "mine", "module": "Coq.Init.Nat", "qualified_name": "Coq.Init.Nat.add_0_l",
                             "offset": 120, "end": (4, 5), "project": {"spec": "coq-lib:Foo"}, "admitted": True,
                             "prelude": ("Require Import Lia.",)}
    assert CoqFields.of(theorem) == fields
    assert CoqFields.of(pickle.loads(pickle.dumps(theorem))) == fields  # what Ray workers get
    assert CoqFields.of(Theorem("t")) == CoqFields()  # a theorem of no index: every field at its default


def test_json_lists_read_as_tuples():
    theorem = Theorem("t", extra={"end": [4, 5], "prelude": ["Require Import Lia."]})
    assert CoqFields.of(theorem) == CoqFields(end=(4, 5), prelude=("Require Import Lia.",))


@pytest.mark.parametrize("extra, message", [
    ({"offset": "12"}, "theorem 't': its 'offset' is str '12', not int | None"),
    ({"offset": True}, "its 'offset' is bool"),
    ({"end": [4]}, "its 'end' is list"),
    ({"prelude": ["ok", 3]}, "its 'prelude' is list"),
    ({"ssreflect": "yes"}, "its 'ssreflect' is str 'yes', not bool"),
])
def test_a_field_of_the_wrong_type_is_one_line_naming_it(extra, message):
    with pytest.raises(UserError, match=message) as info:
        CoqFields.of(Theorem("t", extra=extra))
    assert "\n" not in str(info.value)


def test_lean_fields_take_a_repository_object_along():
    class Repo:
        url, commit = "https://example.org/r", "abc123"

    repo = Repo()
    theorem = LeanFields(url=repo.url, commit=repo.commit, repo=repo).on(Theorem("t"))
    assert theorem.extra == {"url": "https://example.org/r", "commit": "abc123", "repo": repo}
    assert LeanFields.of(theorem).repo is repo
    with pytest.raises(UserError, match="its 'url' is int 3"):
        LeanFields.of(Theorem("t", extra={"url": 3}))
