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

import itertools
import re
from collections import deque
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

#: a relation ``(lower, upper, strict)``: ``lower < upper`` when strict, else ``lower <= upper``
Relation = tuple[str, str, bool]
Graph = dict[str, list[tuple[str, bool]]]

_RELATIONS = frozenset({"<", "<=", "="})
_ALWAYS = frozenset({"Set", "Prop", "SProp"})
_ANNOTATION = re.compile(r"@\{([^{}]*)\}")
_LEVEL = re.compile(r"[^\s,()+{}]+")
_IDENT = re.compile(r"[^\W\d][\w']*")
# a name as a variable may be written: not the last part of a qualified name (a variable is never one)
# (and a universe annotation, whose universes are not variables, whole)
_IDENT_USE = re.compile(r"@\{[^{}]*\}|(?<![\w'.])[^\W\d][\w']*(?![\w'])")
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
    return _path(edges, lower, upper, strict)


def _path(edges: Graph, start: str, goal: str, strict: bool) -> bool:
    """Whether ``edges`` lead from ``start`` to ``goal`` (through a strict edge when ``strict``)."""
    seen = {(start, False)}
    queue = deque(seen)
    while queue:
        node, was_strict = queue.popleft()
        for nxt, edge_strict in edges.get(node, ()):
            state = (nxt, was_strict or edge_strict)
            if nxt == goal and (state[1] or not strict):
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


def goal(text: str) -> tuple[tuple[str, ...], str]:
    """The one goal ``Show`` printed right after the statement: its hypotheses (the section's
    variables, then the statement's own binders), one entry each, and its conclusion, below the
    bar, each with its whitespace collapsed (:func:`flat`). Coq breaks a long ``match`` across
    lines even at Printing Width 1000000, indented by the column it starts at: a hypothesis's
    lines after its first are indented further than the hypotheses, and are joined to it."""
    lines = text.strip().splitlines()
    bars = [k for k, line in enumerate(lines) if re.fullmatch(r"\s*=+\s*", line)]
    if not lines or lines[0].strip() != "1 goal" or len(bars) != 1:
        raise UniverseError("the statement's goal (Show) cannot be read")
    above = [line for line in lines[1:bars[0]] if line.strip()]
    indent = min((len(line) - len(line.lstrip()) for line in above), default=0)
    entries: list[str] = []
    for line in above:
        if len(line) - len(line.lstrip()) > indent and entries:
            entries[-1] += " " + line
        else:
            entries.append(line)
    return tuple(flat(entry) for entry in entries), flat(" ".join(lines[bars[0] + 1:]))


def flat(text: str) -> str:
    """``text`` with each run of whitespace one space, and none at its ends: Coq lays a term out
    by the column it starts at, so two printings of one term differ in their whitespace only."""
    return " ".join(text.split())


def constant(text: str, name: str) -> tuple[str, list[str], list[Relation]]:
    """The type of the constant ``name`` (its full name, or the name the check gave it) from
    ``About``, its bound universes and their constraints (none for a monomorphic constant, whose
    universes are global and in ``Print Universes``)."""
    # the type is all the first paragraph up to the universe context, on several lines where it
    # holds a match (:func:`goal`)
    paragraph = re.split(r"\n\s*\n", text.strip())[0]
    first = flat(" ".join(itertools.takewhile(lambda line: not line.startswith("(*"), paragraph.splitlines())))
    m = re.fullmatch(r"(?P<name>[^\s@]+)(?:@\{(?P<bound>[^}]*)\})? : (?P<type>.*)", first)
    # Coq prints the shortest name that means the constant where it prints it
    if m is None or not (m.group("name") == name or name.endswith("." + m.group("name"))):
        raise UniverseError(f"the proved constant's type (About {name}) cannot be read")
    kind = explicit(m.group("type").strip())
    if m.group("bound") is None:
        return kind, [], []
    # a polymorphic constant keeps its constraints in its own context, those on global universes
    # too (they are not in Print Universes), also where it binds no universe (``name@{} : T`` then
    # ``(*  |= u <= v *)``): Coq prints the context only where it holds something
    bound = m.group("bound").split()
    context = re.search(r"^\(\*(?P<names>[^|]*)\|=(?P<constraints>.*?)\*\)", text, re.MULTILINE | re.DOTALL)
    if context is None and not bound and not re.search(r"^\(\*", text, re.MULTILINE):
        return kind, [], []
    if context is None or context.group("names").split() != bound:
        raise UniverseError(f"the proved constant's universe context (About {name}) cannot be read")
    return kind, bound, relations(context.group("constraints"))


def argument_names(text: str, name: str) -> tuple[str, ...]:
    """The names ``About name`` gives the constant's arguments on its ``Arguments`` line, in order
    (``[T]%type_scope [eqt r] rc x y _`` is ``T eqt r rc x y _``), or none where the line is missing
    or holds anything else. Its type prints a binder nothing depends on as ``_`` (``forall (_ :
    RelDec_Correct T eqt r)``); this line names it as the constant does (a closed section's
    variable ``rc``). None either where the development renamed them (``Arguments target A H2 H :
    rename``, which ``About`` notes): the names are then not the binders', and a universe would be
    paired with another binder's."""
    short = re.escape(name.rpartition(".")[2])
    m = re.search(rf"^Arguments (?:[^\s]+\.)?{short} (?P<args>.*)$", text, re.MULTILINE)
    if m is None or "original arguments have been renamed" in text:
        return ()
    found: list[str] = []
    for group in re.finditer(r"\[[^]]*\]\S*|\{[^}]*\}\S*|\([^)]*\)\S*|\S+", m.group("args")):
        token = re.sub(r"%\w+$", "", group.group(0))  # the scope
        bracketed = token[:1] + token[-1:] in ("[]", "{}", "()")  # ``(A B)%type_scope``: explicit, one scope
        for part in (token[1:-1].split() if bracketed else [token]):
            if not (_IDENT.fullmatch(part) or part == "_"):
                return ()
            found.append(part)
    return tuple(found)


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


def matching(hypotheses: Sequence[str], conclusion: str, proved: str, own: set[str],
             hidden: bool = False) -> dict[str, str]:
    """The constant's name for each of the statement's universes ``own``, matched binder by binder.

    ``About`` prints the constant's type ``proved`` as ``forall`` the statement's binders Coq
    introduced into the goal (its last ``hypotheses``), then the conclusion's leading products,
    then the conclusion's body; it folds those products into one binder list (``forall (n : nat)
    (_ : P n), B`` where ``Show`` prints ``forall _ : P n, B``) and may name a bound variable
    otherwise (``T`` where the goal, beside a section variable ``T``, has ``T0``). So both are
    split into ``(name, type)`` binders (:func:`binders`): the conclusion's must be the last of
    the constant's, the hypotheses as many as the rest the last ones of the goal, and each type
    and the body the same text but for their universes once each side's bound variables are
    renamed, in order, to the same fresh names (:func:`_renamed`; the names differ, the terms
    are one). The k-th universe of one text is then the k-th of the other; one that is not the
    statement's own must be the same universe, and an own one one universe of the constant.
    Anything else is an error: this never matches a universe with one at another place. A
    universe of ``own`` neither printing shows is an error too, unless ``hidden`` (the caller
    then makes sure it is gone: :func:`proof_universes`)."""
    theirs, their_body = binders(proved)
    ours_tail, our_body = binders(conclusion)
    leading = len(theirs) - len(ours_tail)
    ours: list[tuple[str, str]] = []
    for entry in reversed(hypotheses):  # the last ``leading`` hypotheses (``a, b : T`` is two)
        if len(ours) >= leading:
            break
        ours[:0] = _hypothesis(entry)
    if leading < 0 or len(ours) < leading:
        raise UniverseError("the proved constant's binders are not the statement's")
    ours = ours[len(ours) - leading:] + ours_tail
    names: dict[str, str] = {}
    ours_fresh: dict[str, str] = {}
    theirs_fresh: dict[str, str] = {}
    pairs = [(kind, their_kind) for (_, kind), (_, their_kind) in zip(ours, theirs, strict=True)]
    for k, ((our_kind, their_kind), (name, _), (their_name, _)) in enumerate(zip(pairs, ours, theirs, strict=True)):
        _matched(_renamed(our_kind, ours_fresh), _renamed(their_kind, theirs_fresh), own, names)
        # the binder's name is bound from the next binder's type on
        for side, bound in ((ours_fresh, name), (theirs_fresh, their_name)):
            if bound != "_":
                side[bound] = f"\x01{k}\x01"
    _matched(_renamed(our_body, ours_fresh), _renamed(their_body, theirs_fresh), own, names)
    missing = own - set(names)
    if missing and not hidden:
        raise UniverseError(f"universes of the statement do not appear in its type: {', '.join(sorted(missing))}")
    if len(set(names.values())) != len(names):
        raise UniverseError("the proof made two of the statement's universes one")
    return names


def _hypothesis(entry: str) -> list[tuple[str, str]]:
    """A goal's hypothesis ``a, b : T`` as ``[(a, T), (b, T)]``; an error for a local definition
    ``x := v : T``, which a constant's type does not bind."""
    colon = _top_level(entry, " : ")
    head = entry[:colon]
    names = [name.strip() for name in head.split(",")]
    if ":=" in head or not all(_IDENT.fullmatch(name) for name in names):
        raise UniverseError(f"the statement's binder is not a hypothesis 'x : T': {entry[:200]!r}")
    return [(name, entry[colon + 3:]) for name in names]


def _renamed(text: str, fresh: dict[str, str]) -> str:
    """``text`` with each variable of ``fresh`` written as its fresh name (a control character
    no printing holds, around the binder's position). Every occurrence of the name but as the
    last part of a qualified name (``M.x``) is renamed, so a renamed text holds the old name
    nowhere it could mean the variable (nor in a universe annotation): two texts that are equal once renamed differ by one
    renaming of their bound variables, i.e. are one term."""
    if not fresh:
        return text
    return _IDENT_USE.sub(lambda m: m.group(0) if m.group(0).startswith("@") else fresh.get(m.group(0), m.group(0)), text)


def _matched(ours: str, theirs: str, own: set[str], names: dict[str, str]) -> None:
    """Record in ``names`` the constant's universe for each of ``own`` in ``ours``, where
    ``theirs`` is the same text but for its universes (:func:`matching`)."""
    if _ANNOTATION.sub("@{}", ours) != _ANNOTATION.sub("@{}", theirs):
        raise UniverseError("the proved constant's type is not the statement's")
    for left, right in zip(_ANNOTATION.findall(ours), _ANNOTATION.findall(theirs), strict=True):
        a_levels, b_levels = _LEVEL.findall(left), _LEVEL.findall(right)
        if len(a_levels) != len(b_levels):
            raise UniverseError(f"the proved constant's universes do not match the statement's: {left!r}, {right!r}")
        for a, b in zip(a_levels, b_levels, strict=True):
            if a in own:
                if names.setdefault(a, b) != b:
                    raise UniverseError(f"the statement's universe {a} is two universes in the proof")
            elif a != b:
                raise UniverseError(f"the proved constant's universes do not match the statement's: {a} is {b}")


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
    #: the goal's hypotheses right after the statement (the section's variables), one per entry (:func:`goal`)
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
    # the match names the statement's own universes; without any, nothing it finds is used (and a
    # printing it cannot match need not refuse the proof)
    names = matching(hypotheses, conclusion, proved, set(own), hidden=True) if own else {}
    hidden = set(own) - set(names)
    if hidden:
        # an own universe no printing shows (the sort of a match's return predicate, which the
        # term does not hold) is accepted only where it is gone once the proof is done: no
        # universe exists after the Qed that did not before but the shown own ones' (not it, nor
        # one it could have become), so no relation can be on it
        after_qed = set(graph(now)) | set(bound) | {u for a, b, _ in context for u in (a, b)}
        new = after_qed - set(old) - _ALWAYS
        if hidden & after_qed or new - set(names.values()):
            raise UniverseError(f"universes of the statement do not appear in its type: {', '.join(sorted(hidden))}")
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
    return ProofUniverses(tuple(found), proved, frozenset(bound), hypotheses)


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


def same_term(ours: str, theirs: str, names: dict[str, str], closing: Closing | None = None) -> None:
    """Record in ``names`` which universe of ``theirs`` each universe of ``ours`` is, where the two
    printed terms are the same but for their universes and how their names are qualified
    (:class:`UniverseError` otherwise, or where one of ours would be two of theirs): the k-th
    annotation of one is then the k-th of the other. Both print the same statement, elaborated
    from the same text in the same context (the check's file up to it), so the names are the same
    constants; the comparison makes sure the annotations line up. With ``closing``, ``theirs`` may
    also apply a constant of the closed section to the section's variables it abstracts
    (:func:`_closed_alike`)."""
    if _bare(ours) != _bare(theirs) and (closing is None or not _closed_alike(ours, theirs, closing)):
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


@dataclass
class Closing:
    """What closing the statement's sections does to the names it uses, for :func:`_closed_alike`:
    ``variables`` are the section's variables the declared lemma keeps (in order), ``runs`` the
    variables each section-local constant was found applied to (one list per constant, filled as
    the printings are compared)."""

    variables: tuple[str, ...]
    runs: dict[str, tuple[str, ...]]


_TOKEN = re.compile(r"@\{[^{}]*\}|[()]|@(?=[^\s{])|[^\s()@]+")


def _closed_alike(ours: str, theirs: str, closing: Closing) -> bool:
    """Whether ``theirs`` (the declared lemma's printing, its section closed) is ``ours`` (the
    statement's, inside the section) but for section-local constants applied to the section's
    variables they abstract: ``@ForallV P n vs`` is ``@Vector.ForallV T P n vs``, an unapplied
    ``letter`` is ``(kat_completeness.letter pred)``. Such a constant is printed qualified in
    ``theirs`` (the declared run does not import its module) and unqualified in ``ours``; it is
    applied to the same variables, kept ones of the declared lemma in their order, at every
    occurrence (``closing.runs``). Everything else, token for token, must be the same but for
    qualification and universes. The inserted tokens are variables, which carry no universe, so
    the k-th universe annotation of one printing stays the k-th of the other."""
    mine = [_ANNOTATION.sub("@{}", t) if t.startswith("@{") else t for t in _TOKEN.findall(ours)]
    their = [_ANNOTATION.sub("@{}", t) if t.startswith("@{") else t for t in _TOKEN.findall(theirs)]
    try:  # each section-local constant's first occurrence tries a few runs: bounded, else not alike
        found = _align(mine, their, 0, 0, dict(closing.runs), closing.variables, [_ALIGN_STEPS])
    except (_TooLong, RecursionError):
        return False
    if found is None:
        return False
    closing.runs.update(found)
    return True


_ALIGN_STEPS = 10_000


class _TooLong(Exception):
    """The alignment of two printings took more than its steps."""


def _align(ours: list[str], theirs: list[str], i: int, j: int, runs: dict[str, tuple[str, ...]],
           variables: tuple[str, ...], steps: list[int]) -> dict[str, tuple[str, ...]] | None:
    """The runs under which ``theirs[j:]`` is ``ours[i:]`` with section-local constants applied
    to their variables (:func:`_closed_alike`), or None; ``steps`` counts the calls left down."""
    steps[0] -= 1
    if steps[0] < 0:
        raise _TooLong
    while i < len(ours) and j < len(theirs):
        mine, their = ours[i], theirs[j]
        if their == "(" and mine != "(":  # ``letter`` as ``(kat_completeness.letter pred)``
            head = j + 2 if j + 1 < len(theirs) and theirs[j + 1] == "@" else j + 1
            if head >= len(theirs) or not _local(mine, theirs[head]):
                return None
            for run in _runs(theirs, head + 1, runs.get(mine), variables, ")", nonempty=True):
                found = _align(ours, theirs, i + 1, head + 2 + len(run), {**runs, mine: run}, variables, steps)
                if found is not None:
                    return found
            return None
        # ``app_nil l`` as ``@A.app_nil A l``: the section's variable is an implicit argument
        at = their == "@" and mine != "@" and j + 1 < len(theirs) and _local(mine, theirs[j + 1])
        if not at and _QUALIFIED.sub(r"\1", mine) != _QUALIFIED.sub(r"\1", their):
            return None
        if at or _local(mine, their):
            head = j + 1 if at else j
            start = head + 2 if head + 1 < len(theirs) and theirs[head + 1] == "@{}" else head + 1
            if start == head + 2 and (i + 1 >= len(ours) or ours[i + 1] != "@{}"):
                return None
            for run in _runs(theirs, start, runs.get(mine), variables, None, nonempty=at):
                found = _align(ours, theirs, i + start - head, start + len(run), {**runs, mine: run}, variables, steps)
                if found is not None:
                    return found
            return None
        i += 1
        j += 1
    return runs if i == len(ours) and j == len(theirs) else None


def _local(mine: str, their: str) -> bool:
    """Whether ``their`` may be the closed section's name of the constant ``ours`` prints as
    ``mine``: qualified there, not here, the same name."""
    return "." not in mine and _IDENT.fullmatch(mine) is not None and their.endswith("." + mine) \
        and _QUALIFIED.fullmatch(their) is not None


def _runs(theirs: list[str], start: int, known: tuple[str, ...] | None, variables: tuple[str, ...],
          then: str | None, nonempty: bool) -> list[tuple[str, ...]]:
    """The runs of variables ``theirs`` may apply a section-local constant to from ``start``: the
    one ``known`` for it, else each run of the ``variables`` in their order (longest first),
    followed by ``then`` where given."""
    if known is not None:
        candidates = [known]
    else:
        candidates = []
        end, last = start, -1
        while end < len(theirs) and theirs[end] in variables and variables.index(theirs[end]) > last:
            last = variables.index(theirs[end])
            end += 1
            candidates.insert(0, tuple(theirs[start:end]))
        candidates.append(())
    return [run for run in candidates if (run or not nonempty) and tuple(theirs[start:start + len(run)]) == run
            and (then is None or theirs[start + len(run):start + len(run) + 1] == [then])]


def _bare(term: str) -> str:
    """A printed term without its universes and with each qualified name cut to its last part: two
    runs that load different libraries print one constant as ``map`` and ``List.map``."""
    return _QUALIFIED.sub(r"\1", _ANNOTATION.sub("@{}", term))


def shown_universes(texts: Iterable[str]) -> set[str]:
    """Every universe the printed ``texts`` show in their annotations (``Type@{u}``, ``@eq@{u}``)."""
    return {level for text in texts for annotation in _ANNOTATION.findall(text) for level in _LEVEL.findall(annotation)}


def correspondence(proved: str, hypotheses: Iterable[str], original: str,
                   arguments: Sequence[str] = ()) -> dict[str, str]:
    """Which universe of the declared lemma's type ``original`` (``About`` in the development) each
    universe of the proved constant's type ``proved`` is, and each universe of the types of the
    section's variables among the goal's ``hypotheses`` that the declared lemma keeps. Inside a
    section ``proved`` is the statement alone, ``original`` is ``forall`` the kept variables (named
    as in the section) then the statement; elsewhere they are the same but for their universes.
    ``arguments`` are the declared lemma's argument names (:func:`argument_names`): a kept
    variable nothing depends on, which its type prints as ``_``, is named by them. A constant
    of the section, which the closed section applies to the variables it abstracts, is compared
    as :func:`_closed_alike` says."""
    ours, our_body = binders(proved)
    theirs, their_body = binders(original)
    kept = len(theirs) - len(ours)
    if kept < 0:
        raise UniverseError("the declared lemma's type has fewer binders than the proved one")
    # the Arguments line names every binder, ``_`` ones included; used only where it agrees with the type
    if len(arguments) == len(theirs) and all(name in ("_", argument) for (name, _), argument in zip(theirs, arguments)):
        theirs[:kept] = [(argument, kind) for (_, kind), argument in zip(theirs[:kept], arguments)]
    closing = Closing(tuple(name for name, _ in theirs[:kept]), {})
    names: dict[str, str] = {}
    same_term(our_body, their_body, names, closing)
    for (name, kind), (their_name, their_kind) in zip(ours, theirs[kept:], strict=True):
        if name != their_name:
            raise UniverseError(f"the declared lemma binds {their_name} where the proof's constant binds {name}")
        same_term(kind, their_kind, names, closing)
    variables = _variables(hypotheses)
    for name, their_kind in theirs[:kept]:
        if name not in variables:
            raise UniverseError(f"the declared lemma binds {name}, which is not a variable of its section")
        same_term(variables[name], their_kind, names, closing)
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
    return _path(edges, upper, lower, not strict)
