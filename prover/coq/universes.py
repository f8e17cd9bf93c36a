"""The universe check of the final check: a proof may add universe relations only where the development stays consistent.

A theorem's universes live on after it. A monomorphic statement's universes, and the global ones
it mentions, are constrained again by the development's later text; a polymorphic statement is
used at every instance its own constraints allow. A proof that adds a relation the development
contradicts proves a weaker statement than the one declared: with ``Universes u v.`` and a lemma
``forall A : Type@{u}, exists B : Type@{v}, A = B``, ``exists A`` adds ``u <= v``, while a later
file has ``v < u`` (Hurkens' paradox then gives ``False``), and coqc and coqchk accept the check
file, which ends at the theorem.

So :mod:`prover.coq.verify` has the check file print (:func:`before_statement`,
:func:`at_statement`, :func:`after_qed`) the global universe graph before the statement, the
statement's own universes and constraints with its goal (``Show Universes``, ``Show``), and after
the ``Qed`` the global graph and the constant (``About``, with its universe context when it is
polymorphic). :func:`proof_universes` reads them into the relations the proof adds
(:attr:`ProofUniverses.added`): every relation (``<=``, ``<``) between universes that exist
before the statement or are the statement's own that follows neither from the graph before nor
from the statement's constraints. Relations through the proof's other universes count too:
``u <= dojo.u3 <= v`` links ``u`` and ``v``. Most proofs add none, and are accepted at once.

The rest is :mod:`prover.coq.final_universes`, which compares what a proof adds with the
development's final graph; this module holds what needs no Coq: reading the reports
(:func:`relations`, :func:`constant`...), matching two printings of one type universe by universe
(:func:`correspondence`), naming a universe of one Coq run in another's printing
(:func:`resolve`), and the consistency test (:func:`inconsistent`). Anything that cannot be read
or matched is a :class:`UniverseError`, which the check reports as "not proved".
"""

from __future__ import annotations

import re
from collections import deque
from collections.abc import Iterable
from dataclasses import dataclass

#: a relation ``(lower, upper, strict)``: ``lower < upper`` when strict, else ``lower <= upper``
Relation = tuple[str, str, bool]
Graph = dict[str, list[tuple[str, bool]]]

_RELATIONS = frozenset({"<", "<=", "="})
_ALWAYS = frozenset({"Set", "Prop", "SProp"})
_ANNOTATION = re.compile(r"@\{([^{}]*)\}")
_LEVEL = re.compile(r"[^\s,()+{}]+")
_QUALIFIED = re.compile(r"(?<![\w'.])(?:[A-Za-z_][\w']*\.)+([A-Za-z_][\w']*)")
_PRINTING_ON = "Set Printing Width 1000000.\nSet Printing All.\nSet Printing Universes.\n"
_PRINTING_OFF = "Unset Printing Universes.\nUnset Printing All.\n"


class UniverseError(Exception):
    """A universe report could not be read, or the statement's universes could not be matched."""


def before_statement(report: str) -> str:
    """The sentence, right before the statement, that prints the global universe graph then."""
    return f'Redirect "{report}_before" Print Universes.\n'


def at_statement(report: str) -> str:
    """The sentences, right after the proof's opening, that print the statement's universes and goal."""
    return (f'{_PRINTING_ON}Redirect "{report}_statement" Show Universes.\n'
            f'Redirect "{report}_goal" Show.\n{_PRINTING_OFF}')


def after_qed(report: str, name: str) -> str:
    """The sentences, right after the ``Qed``, that print the global graph and the constant ``name``."""
    return (f'{_PRINTING_ON}Redirect "{report}_after" Print Universes.\n'
            f'Redirect "{report}_constant" About {name}.\n{_PRINTING_OFF}')


REPORTS = ("before", "statement", "goal", "after", "constant")  # the suffixes of the reports, in order


def relations(text: str) -> list[Relation]:
    """The constraints of a printed universe graph or constraint list: ``a < b``, ``a <= b``, ``a =
    b``, where a line may go on with ``<= c`` for the same ``a`` (``Print Universes``)."""
    tokens = text.split()
    found: list[Relation] = []
    source: str | None = None
    i = 0
    while i < len(tokens):
        token = tokens[i]
        if token not in _RELATIONS:
            source = token
            i += 1
            continue
        if source is None or i + 1 >= len(tokens) or tokens[i + 1] in _RELATIONS:
            raise UniverseError(f"a universe constraint is not 'u REL v': {' '.join(tokens[max(0, i - 2):i + 3])!r}")
        target = tokens[i + 1]
        found.append((source, target, token == "<"))
        if token == "=":
            found.append((target, source, False))
        i += 2
    return found


def graph(found: Iterable[Relation]) -> Graph:
    """The relations as edges from each lower universe."""
    edges: Graph = {}
    for lower, upper, strict in found:
        edges.setdefault(lower, []).append((upper, strict))
        edges.setdefault(upper, [])
    return edges


def implied(edges: Graph, lower: str, upper: str, strict: bool) -> bool:
    """Whether ``lower <= upper`` (``<`` when ``strict``) follows from ``edges``."""
    if lower == upper and not strict or lower == "Set" and not strict:
        return True  # every universe is at least Set; the statement's own constraints leave that unsaid
    if lower == "Prop" and upper not in ("Prop", "SProp"):
        return True
    seen = {(lower, False)}
    queue = deque(seen)
    while queue:
        node, was_strict = queue.popleft()
        for nxt, edge_strict in edges.get(node, ()):
            state = (nxt, was_strict or edge_strict)
            if nxt == upper and (state[1] or not strict):
                return True
            if state not in seen and (nxt, True) not in seen:
                seen.add(state)
                queue.append(state)
    return False


def statement_context(text: str) -> tuple[list[str], list[Relation]]:
    """The statement's own universes and constraints, from ``Show Universes`` right after it (a
    statement without universes prints only an empty ``Normalized constraints:``)."""
    if re.fullmatch(r"\s*Normalized constraints:\s*", text):
        return [], []
    section = re.search(r"^UNIVERSES:(?P<body>.*?)^ALGEBRAIC UNIVERSES:", text, re.MULTILINE | re.DOTALL)
    if section is not None and not section.group("body").strip():
        return [], []  # every universe of the statement was defined as another one
    m = section and re.fullmatch(r"\s*\{(?P<names>[^}]*)\}\s*\|=(?P<constraints>.*)", section.group("body"), re.DOTALL)
    if not m:
        raise UniverseError("the statement's universes (Show Universes) cannot be read")
    return m.group("names").split(), relations(m.group("constraints"))


def goal(text: str) -> tuple[str, str]:
    """The one goal ``Show`` printed right after the statement: its hypotheses (the section's
    variables, then the statement's own binders) and its conclusion, below the bar."""
    lines = text.strip().splitlines()
    bars = [k for k, line in enumerate(lines) if re.fullmatch(r"\s*=+\s*", line)]
    if not lines or lines[0].strip() != "1 goal" or len(bars) != 1:
        raise UniverseError("the statement's goal (Show) cannot be read")
    return (" ".join(line.strip() for line in lines[1:bars[0]]),
            " ".join(line.strip() for line in lines[bars[0] + 1:]))


def constant(text: str, name: str) -> tuple[str, list[str], list[Relation]]:
    """The type of the constant ``name`` (its full name, or the name the check gave it) from
    ``About``, its bound universes and their constraints (none for a monomorphic constant, whose
    universes are global and in ``Print Universes``)."""
    first = text.strip().splitlines()[0] if text.strip() else ""
    m = re.fullmatch(r"(?P<name>[^\s@]+)(?:@\{(?P<bound>[^}]*)\})? : (?P<type>.*)", first)
    # Coq prints the shortest name that means the constant where it prints it
    if m is None or not (m.group("name") == name or name.endswith("." + m.group("name"))):
        raise UniverseError(f"the proved constant's type (About {name}) cannot be read")
    kind = explicit(m.group("type").strip())
    if m.group("bound") is None:
        return kind, [], []
    bound = m.group("bound").split()
    if not bound:
        return kind, [], []
    context = re.search(r"^\(\*(?P<names>[^|]*)\|=(?P<constraints>.*?)\*\)", text, re.MULTILINE | re.DOTALL)
    if context is None or context.group("names").split() != bound:
        raise UniverseError(f"the proved constant's universe context (About {name}) cannot be read")
    return kind, bound, relations(context.group("constraints"))


def explicit(text: str) -> str:
    """``text`` with its implicit binders (``forall [A : Type] {B : Type}``, as ``About`` prints a
    constant's type) written as explicit ones (``(A : Type)``), as ``Show`` prints the statement:
    with ``Printing All`` no other bracket is printed but a universe annotation's ``@{...}``."""
    out: list[str] = []
    closing: list[str] = []
    for k, char in enumerate(text):
        if char == "[" or char == "{" and not text.startswith("@", k - 1):
            closing.append(")")
            out.append("(")
        elif char == "{":
            closing.append("}")
            out.append(char)
        elif char in "]}":
            if not closing:
                raise UniverseError(f"unbalanced brackets in a printed type: {text[:200]!r}")
            out.append(closing.pop())
        else:
            out.append(char)
    if closing:
        raise UniverseError(f"unbalanced brackets in a printed type: {text[:200]!r}")
    return "".join(out)


def matching(hypotheses: str, conclusion: str, proved: str, own: set[str]) -> dict[str, str]:
    """The constant's name for each of the statement's universes ``own``, matched by position: the
    constant's type is ``forall BINDERS, CONCLUSION``, whose binders are the goal's last
    hypotheses, so its universes are the last ones of the goal's; the rest must be equal."""
    if not _ANNOTATION.sub("@{}", proved).endswith(_ANNOTATION.sub("@{}", conclusion)):
        raise UniverseError("the proved constant's type is not the statement's")
    theirs_all = _ANNOTATION.findall(proved)
    ours_all = _ANNOTATION.findall(hypotheses) + _ANNOTATION.findall(conclusion)
    if len(theirs_all) > len(ours_all):
        raise UniverseError("the proved constant's type has universes the statement's goal has not")
    names: dict[str, str] = {}
    for ours, theirs in zip(ours_all[len(ours_all) - len(theirs_all):], theirs_all, strict=True):
        left, right = _LEVEL.findall(ours), _LEVEL.findall(theirs)
        if len(left) != len(right):
            raise UniverseError(f"the proved constant's universes do not match the statement's: {ours!r}, {theirs!r}")
        for a, b in zip(left, right, strict=True):
            if a in own:
                if names.setdefault(a, b) != b:
                    raise UniverseError(f"the statement's universe {a} is two universes in the proof")
            elif a != b:
                raise UniverseError(f"the proved constant's universes do not match the statement's: {a} is {b}")
    missing = own - set(names)
    if missing:
        raise UniverseError(f"universes of the statement do not appear in its type: {', '.join(sorted(missing))}")
    if len(set(names.values())) != len(names):
        raise UniverseError("the proof made two of the statement's universes one")
    return names


@dataclass(frozen=True)
class ProofUniverses:
    """What the check file's universe reports say about one proof."""

    #: the relations the proof adds among the universes before its statement and its own, in the
    #: proved constant's names (module docstring); empty for most proofs
    added: tuple[Relation, ...]
    #: the proved constant's type as ``About`` printed it (every universe shown)
    proved: str
    #: the bound universes of a polymorphic constant (empty for a monomorphic one)
    bound: frozenset[str]
    #: the goal's hypotheses right after the statement (the section's variables), one per line
    hypotheses: tuple[str, ...]


def proof_universes(before: str, statement: str, shown: str, after: str, about: str, name: str) -> ProofUniverses:
    """The relations the proof adds (module docstring) and what matching them needs, from the
    check file's reports: the graph ``before`` the statement, the statement's universes
    (``Show Universes``), its goal (``Show``), the graph ``after`` the ``Qed`` and ``About name``."""
    old = graph(relations(before))
    own, imposed = statement_context(statement)
    proved, bound, context = constant(about, name)
    now = relations(after)
    clash = set(bound) & ({a for a, _, _ in now} | {b for _, b, _ in now} | set(old))
    if clash:
        raise UniverseError(f"a universe of the polymorphic proof is named like a global one: {', '.join(sorted(clash))}")
    hypotheses, conclusion = goal(shown)
    names = matching(hypotheses, conclusion, proved, set(own))
    # a monomorphic constant's universes are declared above Set, as any global one (Set < u)
    declared = [("Set", universe, True) for universe in names.values() if universe not in bound]
    expected = graph(relations(before) + declared + [(names.get(a, a), names.get(b, b), s) for a, b, s in imposed])
    result = graph(now + context)
    kept = set(old) | _ALWAYS | set(names.values())
    unknown = {a for a, _, _ in context} | {b for _, b, _ in context}
    unknown -= set(bound) | set(graph(now)) | _ALWAYS
    if unknown:
        raise UniverseError(f"the polymorphic proof's constraints name unknown universes: {', '.join(sorted(unknown))}")
    direct = {(a, b, s) for a, targets in old.items() for b, s in targets}
    found: list[Relation] = []
    for lower in sorted(kept & set(result)):
        for upper, strict in sorted(_reached(result, lower, kept)):
            if (lower, upper, strict) in direct or implied(expected, lower, upper, strict):
                continue
            found.append((lower, upper, strict))
    lines = _hypothesis_lines(shown)
    return ProofUniverses(tuple(found), proved, frozenset(bound), lines)


def written(relation: Relation) -> str:
    """``a <= b`` or ``a < b``."""
    lower, upper, strict = relation
    return f"{lower} {'<' if strict else '<='} {upper}"


def _reached(edges: Graph, lower: str, kept: set[str]) -> set[tuple[str, bool]]:
    """The universes of ``kept`` that ``lower`` is below in ``edges``, directly or through universes
    outside ``kept`` only (a path through kept ones is the composition of such steps), each with
    whether it is strictly below on one such path."""
    reached: set[tuple[str, bool]] = set()
    seen = {(lower, False)}
    queue = deque(seen)
    while queue:
        node, was_strict = queue.popleft()
        for nxt, edge_strict in edges.get(node, ()):
            state = (nxt, was_strict or edge_strict)
            if nxt in kept:
                if nxt != lower or state[1]:
                    reached.add(state)
                continue
            if state not in seen:
                seen.add(state)
                queue.append(state)
    return reached


def _hypothesis_lines(shown: str) -> tuple[str, ...]:
    """The hypothesis lines of the one goal ``Show`` printed (:func:`goal` has checked its shape)."""
    lines = shown.strip().splitlines()
    bar = next(k for k, line in enumerate(lines) if re.fullmatch(r"\s*=+\s*", line))
    return tuple(line.strip() for line in lines[1:bar] if line.strip())


# -- matching two printings of one type ------------------------------------------------------------

def binders(text: str) -> tuple[list[tuple[str, str]], str]:
    """The leading ``forall`` binders of a type printed with ``Printing All`` as ``(name, type)``
    pairs, one per name (``forall (A : Type) (l : list A), B`` and ``forall x y : nat, B`` alike,
    nested ``forall``\\ s flattened), and the body after them. A closed lemma's type, once its
    section closes, is ``forall`` the section's variables it keeps, then its statement's binders:
    this splits the two (:func:`correspondence`). Both printings are split the same way and then
    compared piece by piece, so a text split at the wrong place fails the comparison, never
    matches the wrong universes."""
    found: list[tuple[str, str]] = []
    while text.startswith("forall "):
        rest = text[len("forall "):]
        groups: list[str] = []
        if rest.startswith("("):
            pos = 0
            while True:
                end = _closing(rest, pos)
                groups.append(rest[pos + 1:end])
                pos = end + 1
                if rest.startswith(", ", pos):
                    break
                if not rest.startswith(" (", pos):
                    raise UniverseError(f"a printed type's binders cannot be read: {text[:200]!r}")
                pos += 1
            text = rest[pos + 2:]
        else:
            comma = _top_level(rest, ", ")
            groups.append(rest[:comma])
            text = rest[comma + 2:]
        for group in groups:
            colon = _top_level(group, " : ")
            names, kind = group[:colon].split(), group[colon + 3:]
            if not names:
                raise UniverseError(f"a printed type's binders cannot be read: {group[:200]!r}")
            found.extend((name, kind) for name in names)
    return found, text


def _closing(text: str, start: int) -> int:
    """The index of the parenthesis that closes the one at ``start``."""
    depth = 0
    for k in range(start, len(text)):
        if text[k] == "(":
            depth += 1
        elif text[k] == ")":
            depth -= 1
            if depth == 0:
                return k
    raise UniverseError(f"unbalanced parentheses in a printed type: {text[:200]!r}")


def _top_level(text: str, token: str) -> int:
    """The index of the first ``token`` in ``text`` outside parentheses and universe annotations."""
    depth = 0
    for k, char in enumerate(text):
        if char in "({":
            depth += 1
        elif char in ")}":
            depth -= 1
        elif depth == 0 and text.startswith(token, k):
            return k
    raise UniverseError(f"a printed type's binders cannot be read: {text[:200]!r}")


def same_term(ours: str, theirs: str, names: dict[str, str]) -> None:
    """Record in ``names`` which universe of ``theirs`` each universe of ``ours`` is, where the two
    printed terms are the same but for their universes and how their names are qualified
    (:class:`UniverseError` otherwise, or where one of ours would be two of theirs): the k-th
    annotation of one is then the k-th of the other. Both print the same statement, elaborated
    from the same text in the same context (the check's file up to it), so the names are the same
    constants; the comparison makes sure the annotations line up."""
    if _bare(ours) != _bare(theirs):
        raise UniverseError(f"two printings of the statement differ: {ours[:200]!r}, {theirs[:200]!r}")
    for left, right in zip(_ANNOTATION.findall(ours), _ANNOTATION.findall(theirs), strict=True):
        a_levels, b_levels = _LEVEL.findall(left), _LEVEL.findall(right)
        if len(a_levels) != len(b_levels):
            raise UniverseError(f"two printings of the statement's universes differ: {left!r}, {right!r}")
        for a, b in zip(a_levels, b_levels, strict=True):
            if a in _ALWAYS or b in _ALWAYS or a == "max" or b == "max" or a.isdigit() or b.isdigit():
                if a != b:
                    raise UniverseError(f"two printings of the statement's universes differ: {left!r}, {right!r}")
                continue
            if names.setdefault(a, b) != b:
                raise UniverseError(f"the universe {a} of the statement is two universes of the declared lemma")


def _bare(term: str) -> str:
    """A printed term without its universes and with each qualified name cut to its last part: two
    runs that load different libraries print one constant as ``map`` and ``List.map``."""
    return _QUALIFIED.sub(r"\1", _ANNOTATION.sub("@{}", term))


def correspondence(proved: str, hypotheses: Iterable[str], original: str) -> dict[str, str]:
    """Which universe of the declared lemma's type ``original`` (``About`` in the development) each
    universe of the proved constant's type ``proved`` is, and each universe of the types of the
    section's variables among the goal's ``hypotheses`` that the declared lemma keeps. Inside a
    section ``proved`` is the statement alone, ``original`` is ``forall`` the kept variables (named
    as in the section) then the statement; elsewhere they are the same but for their universes."""
    ours, our_body = binders(proved)
    theirs, their_body = binders(original)
    kept = len(theirs) - len(ours)
    if kept < 0:
        raise UniverseError("the declared lemma's type has fewer binders than the proved one")
    names: dict[str, str] = {}
    same_term(our_body, their_body, names)
    for (name, kind), (their_name, their_kind) in zip(ours, theirs[kept:], strict=True):
        if name != their_name:
            raise UniverseError(f"the declared lemma binds {their_name} where the proof's constant binds {name}")
        same_term(kind, their_kind, names)
    variables = _variables(hypotheses)
    for name, their_kind in theirs[:kept]:
        if name not in variables:
            raise UniverseError(f"the declared lemma binds {name}, which is not a variable of its section")
        same_term(variables[name], their_kind, names)
    return names


def _variables(hypotheses: Iterable[str]) -> dict[str, str]:
    """The goal's hypotheses ``a, b : T`` as name to type (a local definition ``x := v : T`` is left
    out: a closed section substitutes it, it binds nothing)."""
    found: dict[str, str] = {}
    for line in hypotheses:
        try:
            colon = _top_level(line, " : ")
        except UniverseError:
            continue
        head = line[:colon]
        if ":=" in head:
            continue
        for name in head.split(","):
            found[name.strip()] = line[colon + 3:]
    return found


# -- naming a universe of one Coq run in another's printing ----------------------------------------

def resolve(name: str, printed: Iterable[str]) -> str | None:
    """The one universe among ``printed`` (names a Coq run printed) that may be ``name`` (as
    another run printed it), or None if none or several may be.

    Coq prints a named universe by the shortest suffix of its full path that names it in the
    printing run (``eq.u0``, ``Logic.eq.u0``, ``Coq.Init.Logic.eq.u0`` by what is loaded and
    imported), an anonymous one in full (``Coq.Init.Datatypes.1``). So a name ending in a number
    must be printed alike, and a named one may be the other's suffix or the other its. When the
    other run loaded every library the first did (the development run does), the universe itself
    is among ``printed``, so one candidate is that universe."""
    if name in _ALWAYS:
        return name
    anonymous = name.rpartition(".")[2].isdigit()
    found = [p for p in printed if p == name or not anonymous and not p.rpartition(".")[2].isdigit()
             and (p.endswith("." + name) or name.endswith("." + p))]
    return found[0] if len(found) == 1 else None


# -- consistency -----------------------------------------------------------------------------------

def inconsistent(development: Graph, added: Iterable[Relation]) -> list[Relation]:
    """The relations of ``added`` that lie on a cycle through a strict relation of ``development``
    plus ``added`` (the development itself is consistent, so any such cycle goes through one of
    them): a cycle ``a <= ... < ... <= a`` says ``a < a``, which no assignment of levels meets."""
    edges: Graph = {node: list(targets) for node, targets in development.items()}
    extra = list(added)
    for lower, upper, strict in extra:
        edges.setdefault(lower, []).append((upper, strict))
        edges.setdefault(upper, [])
    return [(lower, upper, strict) for lower, upper, strict in extra
            if _cycle(edges, lower, upper, strict)]


def _cycle(edges: Graph, lower: str, upper: str, strict: bool) -> bool:
    """Whether the edge ``lower -> upper`` closes a cycle with a strict edge: a path back from
    ``upper`` to ``lower``, strict unless the edge is. ``Set`` is below every other universe (its
    strict edges are printed: ``Set < u``)."""
    if lower == upper:
        return strict
    if upper == "Set" and strict:
        return True  # u < Set: Set is the least universe
    seen = {(upper, False)}
    queue = deque(seen)
    while queue:
        node, was_strict = queue.popleft()
        for nxt, edge_strict in edges.get(node, ()):
            state = (nxt, was_strict or edge_strict)
            if nxt == lower and (strict or state[1]):
                return True
            if state not in seen and (nxt, True) not in seen:
                seen.add(state)
                queue.append(state)
    return False
