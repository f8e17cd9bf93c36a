"""What a proof's term depends on, read with coq-dpdgraph: the leak check of a reopened theorem.

A theorem reopened under ``DojoReopened.<module>`` (:mod:`prover.coq.reopened`) sits next to the
compiled copy ``<module>`` of its own file, loaded by a context addition. The compiled copy holds
two kinds of objects. Those declared before the theorem have a *reopened twin*: the replayed
context declared ``DojoReopened.<module>.<same path>`` from the same text, so the compiled copy
offers nothing the theorem's own context lacks. The theorem itself and every object declared
after it in its file have no twin. **A proof leaks when its term depends on a compiled object
without a reopened twin**, and only then.

Why this is the right line. The twin of an earlier object is the same definition or lemma,
checked from the same text before the additions were loaded, so a proof through its compiled
copy (``auto with datatypes`` reaching the compiled ``app_assoc`` through the compiled module's
hints, for the later ``app_assoc_reverse``) could have used the twin: nothing is gained that the
theorem's own context does not give. An object without a twin is the theorem itself (the checked
statement is renamed, so it is never a twin) or comes after it in its file, which the theorem's
own context never offers: exactly what a leak is. Where a printed name could denote several
compiled objects, all of them must have twins, so an ambiguity can cost an honest proof but
never lets a leak through. Objects of the other
modules the addition loads count through the compiled module only: the dependencies are read
from the kernel's term, transitively and through opaque proofs (Debian's ``libcoq-dpdgraph``,
``Print DependGraph c``), so a lemma of ``Coq.micromega.Refl`` that was stated with the compiled
``List.map``, declared after ``Coq.Lists.List.app_nil_r``, brings ``List.map`` into the graph of
a proof of ``app_nil_r`` that uses it; one whose whole graph stays among available objects is a
lemma the hammer brings, like any other library it loads.

The check runs in two steps, both in the checked file's own environment, because dpdgraph
names an object by its shortest unambiguous qualified name there (``List.app_nil_r`` may be the
compiled or the reopened lemma, depending on what was loaded last):

1. :func:`graph_sentences`, inside the file that :mod:`prover.coq.verify` compiles, right after
   the theorem's sections are closed (dpdgraph cannot print a constant that still has section
   variables): ``Print DependGraph`` of the proof and ``Print FileDependGraph`` of the compiled
   module, so that a name printed in both is one object (a shortest name resolves to exactly
   one); :func:`candidates` is the compiled objects of the proof's graph.
2. For the candidates only, :func:`locate_source` (a file that ``Require``\\ s the checked
   library and ``Locate``\\ s each candidate's base name) lists every object of that base name by
   its *full* path, which decides twins exactly (:func:`untwinned`): a candidate is available
   when every compiled object of its base name and kind that its printed name can denote has
   ``DojoReopened.<its full path>``. No candidate located, like no graph written or a graph
   unreadable, is a failed check, never a pass.

An empty graph of the proof is a failed check too (a term depends on at least one object). An
empty graph of the compiled module is not: ``Print FileDependGraph`` lists every object of a
library, those of its submodules and module aliases included (``Coq.Structures.OrdersEx``'s
``Nat_as_OT := PeanoNat.Nat`` lists each of ``Nat``'s lemmas), so a library it prints nothing of
declares no object outside functors and module types (``Coq.Numbers.NatInt.NZOrder``: the
lemmas of ``NZOrderProp`` exist only in the modules that apply it, such as ``PeanoNat.Nat``,
whose lemmas are about ``nat``, not about the functor's parameters). Nothing of it can be in a
proof's term, so there is no candidate; the proof's own graph, printed by the same plugin in
the same file, shows that dpdgraph ran.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path

from search_tree.safe_files import read_text

#: the plugin's library, loaded where the graphs are printed
PLUGIN = "dpdgraph.dpdgraph"
PACKAGE = "libcoq-dpdgraph"
_NODE = re.compile(r'^N: (?P<id>\d+) "(?P<name>[^"]*)" \[(?P<attrs>[^\]]*)\];$')
_PATH = re.compile(r'path="(?P<path>[^"]*)"')
_KIND = re.compile(r"kind=(?P<kind>\w+)")
# a located object: its kind as ``Locate`` prints it (dpdgraph's kind beside it) and its full path
_LOCATED = re.compile(r"^(?P<kind>Constant|Inductive|Constructor) (?P<path>\S+)", re.MULTILINE)
_LOCATE_KIND = {"Constant": "cnst", "Inductive": "inductive", "Constructor": "construct"}


class DependencyError(Exception):
    """The dependency graphs could not be read: the leak check cannot pass."""


@dataclass(frozen=True, order=True)
class Node:
    """One object of a dpdgraph graph: its name as printed there (``path.name``, the shortest
    that denotes it where it was printed) and its kind (``cnst``, ``inductive``, ``construct``)."""

    qualid: str
    kind: str

    @property
    def basename(self) -> str:
        return self.qualid.rpartition(".")[2]


def parse_dpd(text: str) -> frozenset[Node]:
    """The nodes of a ``.dpd`` file (its edges are not needed: ``Print DependGraph`` writes the
    transitive closure as nodes); :class:`DependencyError` on a line that is neither."""
    nodes: set[Node] = set()
    for line in text.splitlines():
        if not line.strip() or line.startswith("E: "):
            continue
        m = _NODE.match(line.strip())
        if m is None:
            raise DependencyError(f"unreadable dpdgraph line {line[:200]!r}")
        path = _PATH.search(m.group("attrs"))
        kind = _KIND.search(m.group("attrs"))
        qualid = f"{path.group('path')}.{m.group('name')}" if path else m.group("name")
        nodes.add(Node(qualid, kind.group("kind") if kind else "?"))
    return frozenset(nodes)


def shared(proof_graph: frozenset[Node], module_graph: frozenset[Node]) -> list[Node]:
    """The objects of the compiled module that the proof depends on, sorted: the candidates
    for a leak, printed in one environment so that a shared name is one object."""
    return sorted(proof_graph & module_graph)


def graph_sentences(constant: str, compiled: str, directory: Path, tag: str) -> tuple[str, ...]:
    """The sentences that write the graph of ``constant`` and the objects of module ``compiled``
    to ``directory`` (files named after ``tag``), for :func:`candidates` to compare."""
    proof, module = _files(directory, tag)
    return (f"Require {PLUGIN}.", f'Set DependGraph File "{proof}".', f"Print DependGraph {constant}.",
            f'Set DependGraph File "{module}".', f"Print FileDependGraph {compiled}.")


def candidates(directory: Path, tag: str) -> list[Node]:
    """The compiled module's objects the proof depends on, from the graphs :func:`graph_sentences`
    wrote; :class:`DependencyError` when either graph is missing or unreadable, or the proof's is
    empty. An empty graph of the module is a module without objects (module docstring): none.

    The graphs are read as every untrusted file is (:func:`search_tree.safe_files.read_text`): the
    proof being checked ran in the coqc that wrote them, so a graph that is a link, a FIFO (which
    would hang the check), a directory or not UTF-8 is one line naming it, and the check fails."""
    proof, module = _files(directory, tag)
    if not os.path.lexists(proof) or not os.path.lexists(module):
        raise DependencyError(f"coq-dpdgraph wrote no dependency graph (is the Debian package {PACKAGE} installed?)")
    proof_graph = parse_dpd(read_text(proof, DependencyError))
    module_graph = parse_dpd(read_text(module, DependencyError))
    if not proof_graph:
        raise DependencyError("coq-dpdgraph wrote an empty dependency graph of the proof")
    return shared(proof_graph, module_graph)


def locate_source(library: str, basenames: Iterable[str], directory: Path) -> tuple[str, dict[str, Path]]:
    """The text of a file that loads the checked ``library`` (with everything it loaded: the
    compiled module too) and ``Locate``\\ s each of ``basenames``, and ``{basename: report}``, the
    file in ``directory`` that each ``Locate`` writes (by its absolute path, which no ``Cd`` of
    a library's code moves)."""
    reports = {name: directory / f"dojo_locate_{i}" for i, name in enumerate(sorted(set(basenames)))}
    lines = [f"Require {library}."] + [f'Redirect "{report}" Locate {name}.' for name, report in reports.items()]
    return "".join(line + "\n" for line in lines), {name: report.with_name(f"{report.name}.out")
                                                    for name, report in reports.items()}


def located(text: str) -> set[tuple[str, str]]:
    """``(full path, dpdgraph kind)`` of each object a ``Locate`` report lists (notations and
    other non-terms are not objects of a term's graph and are left out)."""
    return {(m.group("path"), _LOCATE_KIND[m.group("kind")]) for m in _LOCATED.finditer(text)}


def untwinned(found: Iterable[Node], reports: Mapping[str, str], compiled: str, reopened: str) -> list[str]:
    """The candidates ``found`` (printed names) that have no reopened twin, sorted: the leak.

    ``reports`` maps each candidate's base name to its ``Locate`` report. A printed name
    denotes one compiled object whose full path ends with it; every compiled object of that
    base name and kind with such a path, ``<compiled>.<inner path>``, must have its twin
    ``<reopened>.<inner path>`` for the candidate to be available (ambiguity costs an honest proof, never lets a leak through). A
    candidate matching no compiled object is unexplained, hence a :class:`DependencyError`."""
    leaked: list[str] = []
    for node in found:
        if node.basename not in reports:
            raise DependencyError(f"{node.qualid} was not located")
        objects = located(reports[node.basename])
        denoted = [path for path, kind in objects if kind == node.kind and path.startswith(compiled + ".")
                   and (path == node.qualid or path.endswith("." + node.qualid))]
        if not denoted:
            raise DependencyError(f"{node.qualid} ({node.kind}) is not located in the compiled {compiled}")
        if any((reopened + path[len(compiled):], node.kind) not in objects for path in denoted):
            leaked.append(node.qualid)
    return sorted(leaked)


def _files(directory: Path, tag: str) -> tuple[Path, Path]:
    return directory / f"dojo_proof_{tag}.dpd", directory / f"dojo_module_{tag}.dpd"
