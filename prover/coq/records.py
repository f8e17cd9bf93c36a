"""The records of the stdlib index: source files, their declarations and their theorems.

Positions are 1-based ``(line, column)`` pairs as in LeanDojo's data; ``path`` is relative to
``theories/`` (``Arith/PeanoNat.v``). Names: a declaration's ``full_name`` is its name qualified
by the enclosing modules, not by sections or the file, as Coq prints it and as tactics mostly
write it (``Nat.add_comm`` inside ``Module Nat`` of ``Coq/Arith/PeanoNat.v``); prefixing the
file's logical module (``Coq.Arith.PeanoNat.Nat.add_comm``) makes it unique across the library.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from search_tree.protocol import Theorem, TheoremFields


class StdlibScanError(RuntimeError):
    """The stdlib sources do not have the structure the scan expects (names the file and line)."""


@dataclass(frozen=True)
class Declaration:
    """A named declaration of a source file (a lemma, definition, inductive, axiom...).

    ``start``/``end`` span the declaring sentence (for a theorem, its statement), ``name_pos`` and
    ``name_end`` the name in it (LeanDojo's ``def_pos``/``def_end_pos``). ``code`` is the sentence
    without comments; for theorems it is the statement without the proof.

    ``parametric``: declared in the body of a functor or a module type, so not a constant of the
    global environment: outside that body no qualified name reaches it, only its short name where
    an instance or an ``Include`` of the body is in scope.
    """

    full_name: str
    kind: str
    code: str
    start: tuple[int, int]
    end: tuple[int, int]
    name_pos: tuple[int, int]
    name_end: tuple[int, int]
    parametric: bool = False


@dataclass(frozen=True)
class TheoremEntry:
    """A theorem with a proof script: its statement sentence and the sentences of its proof.

    ``proof`` holds ``(start, end)`` character offsets of the proof's sentences after the statement,
    ``Proof.`` included, the terminator (``Qed.``/``Defined.``, ``Time Qed.``...) excluded: it is the
    file's next sentence, whose keyword ``terminator`` holds (``Qed``, ``Defined`` or ``Admitted``).
    """

    full_name: str
    kind: str
    statement: str
    offset: int  # character offset of the statement sentence
    start: tuple[int, int]
    end: tuple[int, int]  # end of the terminator (Qed.)
    proof: tuple[tuple[int, int], ...]
    terminator: str
    in_section: bool


@dataclass
class SourceFile:
    """One ``.v`` file: its logical module, imports, sentences, declarations and theorems."""

    path: str
    module: str
    requires: list[str]
    imports: list[str]  # file paths of the required modules, Init/Prelude.v implied outside Init/
    sha1: str
    sentences: list[tuple[int, int]]
    declarations: list[Declaration] = field(default_factory=list)
    theorems: list[TheoremEntry] = field(default_factory=list)
    unresolved_requires: list[str] = field(default_factory=list)  # found nowhere (From prefix.name)
    # installed library modules required (``mathcomp.ssreflect.seq``), not of the project nor the stdlib
    library_requires: list[str] = field(default_factory=list)
    tactic_names: list[str] = field(default_factory=list)  # Ltac, Tactic Notation and hint database names
    admitted: list[TheoremEntry] = field(default_factory=list)  # lemmas ended by Admitted: open targets
    # the offset of the first sentence that loads a file which is not installed (Load, Elpi
    # Accumulate File, Extra Dependency): nothing from there on can be replayed; None when all can
    stops_at: int | None = None
    missing_loads: list[str] = field(default_factory=list)  # "file (path:line)" of each such load


@dataclass(frozen=True)
class CoqFields(TheoremFields):
    """What the Coq backend keeps with a theorem (in :attr:`Theorem.extra`, see :class:`TheoremFields`)."""

    module: str | None = None  # the file's logical module (``Coq.Arith.PeanoNat``)
    qualified_name: str | None = None  # ``module.full_name``: unique across the library
    offset: int | None = None  # of the statement in its file; None for a theorem not from an index
    end: tuple[int, int] | None = None  # of its terminator
    in_section: bool = False
    project: dict | None = None  # :meth:`prover.coq.project.CoqProject.ref`; None for the stdlib
    admitted: bool = False  # ended by ``Admitted``: an open target
    ssreflect: bool = False  # its context loads ssreflect (set by the index)
    prelude: tuple[str, ...] | None = None  # the sentences before an ad-hoc statement (adhoc_theorem)



def qualified_name(theorem: Theorem) -> str:
    """``theorem``'s name with its module (``Coq.Lists.List.app_nil_r``), unique across the library;
    its ``full_name`` when it has none (a theorem stated on the command line)."""
    return CoqFields.of(theorem).qualified_name or theorem.full_name

def to_theorem(f: SourceFile, t: TheoremEntry, project: dict | None = None) -> Theorem:
    """The protocol's :class:`Theorem` for an index entry, with its :class:`CoqFields`, among them
    the project's reference (:meth:`prover.coq.project.CoqProject.ref`) when not the stdlib."""
    fields = CoqFields(module=f.module, qualified_name=f"{f.module}.{t.full_name}", offset=t.offset, end=t.end,
                       in_section=t.in_section, project=project or None, admitted=t.terminator == "Admitted")
    return fields.on(Theorem(full_name=t.full_name, file_path=f.path, position=t.start, statement=t.statement))
