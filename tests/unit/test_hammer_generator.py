"""The premises CoqHammer's reconstruction tactics are given: distinct names, the retriever's best
first, each as the theorem's file can write it."""

from types import SimpleNamespace

from prover.coq.hammer_generator import HammerGenerator
from retrieval.corpus import Premise

HERE = SimpleNamespace(file_path="Here.v")


class _Ranked:
    """A retriever returning fixed premises, best first, and recording how many were asked for."""

    def __init__(self, names: list[str | Premise]) -> None:
        self.premises = [n if isinstance(n, Premise) else Premise(n, "", "Here.v", (1, 1), (1, 2)) for n in names]
        self.asked: list[int] = []

    def retrieve(self, state, context, k):
        self.asked.append(k)
        return [(p, -i) for i, p in enumerate(self.premises[:k])]


def test_a_name_shared_by_two_premises_takes_one_slot():
    retriever = _Ranked(["dual", "dual", "leq_xcup", "dual", "str_weq", "cupcap_", "laws"])
    generator = HammerGenerator(retriever, num_premises=4)
    assert generator._premises(None, HERE) == ["dual", "leq_xcup", "str_weq", "cupcap_"]
    assert retriever.asked == [8]


def test_fewer_distinct_premises_than_asked_gives_those_there_are():
    generator = HammerGenerator(_Ranked(["a", "a", "b"]), num_premises=4)
    assert generator._premises(None, HERE) == ["a", "b"]


def test_the_anonymous_name_never_takes_a_slot():
    """``_`` (an anonymous record field in a corpus, a view's hole in a trace) would make the whole
    ``use:`` tactic fail in Coq."""
    generator = HammerGenerator(_Ranked(["_", "isT", "_", "negbK", "negbTE", "contra", "andP"]), num_premises=4)
    assert generator._premises(None, HERE) == ["isT", "negbK", "negbTE", "contra"]


def test_no_retriever_or_no_premises_gives_none():
    assert HammerGenerator(None)._premises(None, HERE) == []
    assert HammerGenerator(_Ranked(["a"]), num_premises=0)._premises(None, HERE) == []


def test_each_premise_is_named_as_the_theorems_file_can_write_it():
    """Fails if ``use:`` gets the corpus's module-relative names: from another file a premise is
    qualified by its file's logical module, a functor's or module type's by its short name alone,
    one of the theorem's own file as declared."""
    other = Premise("Nat.add_comm", "", "Arith/PeanoNat.v", (1, 1), (1, 2), "lemma", "Coq.Arith.PeanoNat")
    functor = Premise("NZOrderProp.le_succ_l", "", "NZOrder.v", (1, 1), (1, 2), "lemma", "Coq.NZOrder", True)
    own = Premise("M.aux", "", "Here.v", (1, 1), (1, 2), "lemma", "Coq.Here")
    generator = HammerGenerator(_Ranked([other, functor, own]), num_premises=4)
    assert generator._premises(None, HERE) == ["Coq.Arith.PeanoNat.Nat.add_comm", "le_succ_l", "M.aux"]


def test_two_premises_written_alike_take_one_slot():
    """Two functors' lemmas of one short name are written alike, so they take one slot."""
    a = Premise("F.le_refl", "", "A.v", (1, 1), (1, 2), "lemma", "Coq.A", True)
    b = Premise("G.le_refl", "", "B.v", (1, 1), (1, 2), "lemma", "Coq.B", True)
    assert HammerGenerator(_Ranked([a, b, "x"]), num_premises=4)._premises(None, HERE) == ["le_refl", "x"]
