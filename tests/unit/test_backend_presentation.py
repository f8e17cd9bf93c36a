"""How each backend shows a found proof (``Backend.render_proof``, ``name_of``, ``assumes``): the
commands print through these and name no backend, so each backend's way is checked here."""

from __future__ import annotations

from prover.backends import backend
from prover.coq.records import CoqFields
from search_tree import SearchResult, StopKind, StopReason, Theorem


def _result(axioms: list[str] | None) -> SearchResult:
    """A result whose check reported ``axioms`` (None: reported nothing)."""
    result = SearchResult.failed(Theorem("t"), StopReason(StopKind.PROVED))
    if axioms is not None:
        result.stats["axioms"] = axioms
    return result


def test_each_backend_frames_a_script_its_own_way():
    """Fails if Coq's scripts lose ``Proof.``/``Qed.`` or another backend's gain them (Lean's
    rendering is the whole ``by`` block or declaration already)."""
    assert backend("coq").render_proof("intros.\nauto.") == "Proof.\n  intros.\n  auto.\nQed."
    by = "theorem t : True := by\n  trivial"
    assert backend("lean").render_proof(by) == by
    assert backend("synthetic").render_proof("a\n- b") == "a\n- b"


def test_names_and_axioms_read_as_the_backend_writes_them():
    """Fails if a Coq theorem is listed without its module or an ad-hoc one without a name, or if
    Coq's axioms lose their module words (``classic (Coq.Logic.Classical_Prop)``)."""
    coq = backend("coq")
    indexed = CoqFields(module="Coq.Lists.List", qualified_name="Coq.Lists.List.app_nil_r").on(Theorem("app_nil_r"))
    assert (coq.name_of(indexed), coq.name_of(Theorem("two"))) == ("Coq.Lists.List.app_nil_r", "two")
    assert backend("lean").name_of(Theorem("Nat.add_comm")) == "Nat.add_comm"
    assert coq.assumes(_result(["Coq.Logic.Classical_Prop.classic"])) == "uses classic (Coq.Logic.Classical_Prop)"
    assert coq.assumes(_result([])) == coq.assumes(_result(None)) == "no axioms"
    assert backend("synthetic").assumes(_result(["a", "b"])) == "uses a, b"
