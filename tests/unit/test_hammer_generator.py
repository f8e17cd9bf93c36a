"""The premises CoqHammer's reconstruction tactics are given: distinct names, the retriever's best first."""

from types import SimpleNamespace

from prover.coq.hammer_generator import HammerGenerator


class _Ranked:
    """A retriever returning fixed premises, best first, and recording how many were asked for."""

    def __init__(self, names: list[str]) -> None:
        self.names = names
        self.asked: list[int] = []

    def retrieve(self, state, context, k):
        self.asked.append(k)
        return [(SimpleNamespace(full_name=n), -i) for i, n in enumerate(self.names[:k])]


def test_a_name_shared_by_two_premises_takes_one_slot():
    retriever = _Ranked(["dual", "dual", "leq_xcup", "dual", "str_weq", "cupcap_", "laws"])
    generator = HammerGenerator(retriever, num_premises=4)
    assert generator._premises(None, None) == ["dual", "leq_xcup", "str_weq", "cupcap_"]
    assert retriever.asked == [8]


def test_fewer_distinct_premises_than_asked_gives_those_there_are():
    generator = HammerGenerator(_Ranked(["a", "a", "b"]), num_premises=4)
    assert generator._premises(None, None) == ["a", "b"]


def test_the_anonymous_name_never_takes_a_slot():
    """``_`` (an anonymous record field in a corpus, a view's hole in a trace) would make the whole
    ``use:`` tactic fail in Coq."""
    generator = HammerGenerator(_Ranked(["_", "isT", "_", "negbK", "negbTE", "contra", "andP"]), num_premises=4)
    assert generator._premises(None, None) == ["isT", "negbK", "negbTE", "contra"]


def test_no_retriever_or_no_premises_gives_none():
    assert HammerGenerator(None)._premises(None, None) == []
    assert HammerGenerator(_Ranked(["a"]), num_premises=0)._premises(None, None) == []
