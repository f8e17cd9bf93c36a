"""How a Coq corpus says a tactic can name a premise: a functor's or module type's declarations
are parametric, and every premise carries its file's logical module (prover/coq/corpus.py)."""

import json

from prover.coq.stdlib import scan_file
from retrieval.corpus import Corpus

SOURCE = """
Module Type Sig.
  Parameter Inline(40) lt : nat -> nat -> Prop.
  Axiom lt_irrefl : forall x, ~ lt x x.
End Sig.
Module Facts (Import S : Sig).
  Lemma lt_not_eq : forall x y, lt x y -> x <> y.
  Proof. intros x y H E. subst. apply (lt_irrefl _ H). Qed.
  Module Inner.
    Definition twice (n : nat) := n + n.
  End Inner.
End Facts.
Module Plain.
  Definition d := 0.
  Section S.
    Lemma d_zero : d = 0.
    Proof. reflexivity. Qed.
  End S.
End Plain.
Module Sub <: Sig.
  Definition lt := Peano.lt.
  Lemma lt_irrefl : forall x, ~ lt x x.
  Proof. exact PeanoNat.Nat.lt_irrefl. Qed.
End Sub.
"""


def test_a_functors_or_module_types_declarations_are_parametric_and_no_other(tmp_path):
    """Fails if the scan marks a plain module's (or a module checked against a type, ``<:``)
    declarations, misses a functor's or module type's (nested modules included), or takes
    ``Inline`` for the name of ``Parameter Inline(40) lt``."""
    (tmp_path / "M.v").write_text(SOURCE)
    f = scan_file(tmp_path, "M.v", {"Coq.M": "M.v"})
    found = {d.full_name: d.parametric for d in f.declarations}
    assert found == {"Sig.lt": True, "Sig.lt_irrefl": True, "Facts.lt_not_eq": True, "Facts.Inner.twice": True,
                     "Plain.d": False, "Plain.d_zero": False, "Sub.lt": False, "Sub.lt_irrefl": False}


def test_the_corpus_gives_each_premise_its_module_and_the_name_other_files_write(tmp_path):
    """Fails if reading ``corpus.jsonl`` drops the module or the parametric mark, or if
    :meth:`Premise.name_from` does not qualify another file's premise fully, shorten a parametric
    one, and leave a premise of the theorem's own file, or of a corpus without modules, as declared."""
    lines = [{"path": "A.v", "module": "Coq.A", "imports": [], "premises": [
                 {"full_name": "M.x", "code": "Lemma x : True.", "start": [2, 3], "end": [2, 18], "kind": "lemma"},
                 {"full_name": "F.y", "code": "Lemma y : True.", "start": [5, 3], "end": [5, 18], "kind": "lemma",
                  "parametric": True}]},
             {"path": "B.v", "imports": ["A.v"], "premises": [
                 {"full_name": "z", "code": "Lemma z : True.", "start": [1, 1], "end": [1, 16], "kind": "lemma"}]}]
    path = tmp_path / "corpus.jsonl"
    path.write_text("".join(json.dumps(line) + "\n" for line in lines))
    corpus = Corpus.from_jsonl(path)
    x, y, z = corpus["M.x"], corpus["F.y"], corpus["z"]
    assert (x.module, x.parametric, y.parametric, z.module) == ("Coq.A", False, True, "")
    assert [p.name_from("B.v") for p in (x, y, z)] == ["Coq.A.M.x", "y", "z"]
    assert [p.name_from("A.v") for p in (x, y)] == ["M.x", "y"]
