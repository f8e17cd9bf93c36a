"""Carry a twin lemma's tactic over to the current goal, renamed by the constants in which the two goals differ.

Libraries state their lemmas in twins and prove the twins alike: ``Nat.min_l`` and ``Nat.max_l``,
``neg_sin`` and ``neg_cos``, ``Props.max_elt_spec1`` and ``Props.min_elt_spec1``. kNN and proof
retrieval find the twin (its state is the nearest) but propose its tactics verbatim, and these name
the twin's own lemmas: ``neg_cos`` is proved by ``intro x; rewrite cos_plus; rewrite sin_PI;
rewrite cos_PI; ring``, which fails on ``sin (x + PI) = - sin x``. When two states are the same
token for token except for names, the differences are a renaming (:func:`analogy`: ``cos`` ->
``sin``), and :func:`carried_over` applies it to the twin's tactic: to whole names, and to the
underscore-separated parts of longer names (``cos_plus`` -> ``sin_plus``), once as it is and once
as an exchange (``cos`` <-> ``sin``), since the proofs of dual lemmas use both duals, in swapped
places (``sin_PI`` and ``cos_PI`` above). A carried-over tactic that names no lemma of the library
fails in a millisecond, like any other wrong suggestion.

On the stdlib's training split, 98 of 9,275 traced proofs are, token for token, an earlier
lemma's proof of its own file carried over this way (and differ from every earlier proof of the
file as written); in the validation split, 8 of 998 (``benchmarks/twin_proofs.py``). Proof
transfer by analogy is an old idea of theorem proving (Melis and Whittle, "Analogy in inductive
theorem proving", Journal of Automated Reasoning 22, 1999); this is its simplest, syntactic form.
kNN as Tactician describes it proposes a neighbour's tactic with the neighbour's own arguments.
"""

from __future__ import annotations

import functools
import re
from collections import defaultdict
from collections.abc import Iterable, Sequence

from search_tree.language import Language

#: the most names two states may differ in and still be twins: beyond that they are different goals
MAX_RENAMED = 4
#: the words after which Coq's and Lean's goals bind names (``forall x y : T,``, ``fun x =>``)
_BINDERS = re.compile(r"(?<![\w.'])(?:forall|exists|fun|∀|∃|λ)(?![\w'])(?P<binders>[^,]*?)(?:,|=>)")


@functools.lru_cache(maxsize=4096)
def _tokens(text: str, identifier: re.Pattern[str]) -> tuple[tuple[str, bool], ...]:
    """The tokens of a state: its identifiers (``True``) and every other non-space character
    (cached: kNN compares each state with its neighbours', and the same states come back)."""
    out: list[tuple[str, bool]] = []
    pos = 0
    for m in identifier.finditer(text):
        out += [(c, False) for c in text[pos:m.start()] if not c.isspace()]
        out.append((m.group(0), True))
        pos = m.end()
    out += [(c, False) for c in text[pos:] if not c.isspace()]
    return tuple(out)


@functools.lru_cache(maxsize=8)
def _identifier(language: Language) -> re.Pattern[str]:
    # not after a word character, a prime or a dot, so that a name's tail is never a name of its own
    return re.compile(rf"(?<![\w.'])(?:{language.identifier})")


def _bound(state: str, language: Language) -> set[str]:
    """The names ``state`` binds: in each binder list (:data:`_BINDERS`), those before a ``:``."""
    names: set[str] = set()
    for m in _BINDERS.finditer(state):
        binders = m.group("binders")
        for group in re.findall(r"\(([^()]*)\)", binders) or [binders]:
            names.update(language.local_names(group.split(":", 1)[0]))
    return names


def analogy(source: str, target: str, language: Language, locals_: Iterable[str] = ()) -> dict[str, str]:
    """The renaming of names that makes state ``source`` read as state ``target``, or ``{}`` when
    they are not twins: the same tokens in the same places except for at most :data:`MAX_RENAMED`
    names, each always renamed the same way, none of them a keyword (``forall`` against ``exists``
    is another goal), and at least one of them a constant: not in ``locals_`` (the states'
    hypothesis names, which :func:`generator.knn.adapt_hypothesis_names` maps by type) nor bound
    in either state (``forall n`` against ``forall m``: renaming ``n`` would make ``plus_n_O``
    ``plus_m_O``), which are left out of the renaming."""
    if skeleton(source, language) != skeleton(target, language):  # cheap, and most neighbours differ here
        return {}
    identifier = _identifier(language)
    a, b = _tokens(source, identifier), _tokens(target, identifier)
    if len(a) != len(b):
        return {}
    mapping: dict[str, str] = {}
    for (x, x_name), (y, y_name) in zip(a, b, strict=True):
        if x == y:
            continue
        if not (x_name and y_name) or mapping.setdefault(x, y) != y:
            return {}
    if any(x in language.keywords or y in language.keywords for x, y in mapping.items()):
        return {}
    skipped = set(locals_) | _bound(source, language) | _bound(target, language)
    renamed = {x: y for x, y in mapping.items() if x not in skipped and y not in skipped}
    return renamed if 0 < len(renamed) <= MAX_RENAMED else {}


def _parts(mapping: dict[str, str]) -> dict[str, str]:
    """The renaming of name parts that ``mapping``'s names imply: ``max_l`` -> ``min_l`` renames
    ``max`` to ``min``, and so does ``Nat.max`` -> ``Nat.min`` (the last components are compared)."""
    parts: dict[str, str] = {}
    for x, y in mapping.items():
        xs, ys = x.rsplit(".", 1)[-1].split("_"), y.rsplit(".", 1)[-1].split("_")
        if len(xs) == len(ys):
            for u, v in zip(xs, ys, strict=True):
                if u != v and u and v:
                    parts.setdefault(u, v)
    return parts


def _rename(tactic: str, names: dict[str, str], parts: dict[str, str], identifier: re.Pattern[str]) -> str:
    def one(m: re.Match[str]) -> str:
        name = m.group(0)
        if name in names:
            return names[name]
        qualifier, _, last = name.rpartition(".")
        pieces = last.split("_")
        if not any(p in parts for p in pieces):
            return name
        return (qualifier + "." if qualifier else "") + "_".join(parts.get(p, p) for p in pieces)
    return identifier.sub(one, tactic)


def carried_over(tactic: str, mapping: dict[str, str], language: Language) -> list[str]:
    """``tactic`` renamed by ``mapping`` (:func:`analogy`), as it is and as an exchange (each name
    renamed both ways): the distinct results that differ from ``tactic``, in that order."""
    if not mapping:
        return []
    identifier = _identifier(language)
    exchange = dict(mapping)
    for x, y in mapping.items():
        exchange.setdefault(y, x)
    parts = _parts(mapping)
    swapped = dict(parts)
    for x, y in parts.items():
        swapped.setdefault(y, x)
    out: list[str] = []
    for names, pieces in ((mapping, parts), (exchange, swapped)):
        renamed = _rename(tactic, names, pieces, identifier)
        if renamed != tactic and renamed not in out:
            out.append(renamed)
    return out


@functools.lru_cache(maxsize=4096)
def skeleton(state: str, language: Language) -> str:
    """``state`` with every name blanked and no spaces: two states can be twins (:func:`analogy`)
    only where their skeletons are equal."""
    return "".join(_identifier(language).sub("\0", state).split())


class TwinIndex:
    """The states among ``states`` (indexed once) that may be twins of a given one: those of the
    same :func:`skeleton`. Similarity search need not rank a twin first: to BM25, ``sin (x + PI)
    = - sin x`` is nearer to other ``sin`` lemmas than to ``cos (x + PI) = - cos x``; a dictionary
    of skeletons finds it in one lookup."""

    def __init__(self, states: Sequence[str], language: Language) -> None:
        self.language = language
        self._by_skeleton: dict[str, list[int]] = defaultdict(list)
        for i, state in enumerate(states):
            self._by_skeleton[skeleton(state, language)].append(i)

    def candidates(self, state: str) -> list[int]:
        """The indices of the states with ``state``'s skeleton (:func:`analogy` tells which are twins)."""
        return self._by_skeleton.get(skeleton(state, self.language), [])
