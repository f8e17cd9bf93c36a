"""What a proof's term depends on, read with coq-dpdgraph: the leak check of a reopened theorem.

A theorem reopened under ``DojoReopened.<module>`` (:mod:`prover.coq.reopened`) sits next to the
compiled copy of its own module, which holds the theorem itself and every later lemma of its
file. A proof found there is refused when its term depends on a constant of that compiled copy.

The dependencies are read from the kernel's term, not from names in the script: Debian's
``libcoq-dpdgraph`` (``Print DependGraph c``) writes every constant, inductive and constructor
``c`` depends on, transitively and through opaque proofs as well, so a lemma of another module
that CoqHammer loaded and that was itself proved with a later lemma of the theorem's module
brings that lemma into the graph: a module loaded only through an addition leaks only through
the compiled copy, and this one test covers both. ``Print FileDependGraph M`` writes every
object of the compiled module ``M`` in the same environment, so that its names are printed exactly
as the proof's are (dpdgraph prints an object by its shortest unambiguous name, which depends
on what is in scope, and a shortest name resolves to one object only): a proof leaks when the
two graphs share a node.

The check is stricter than "not available in the theorem's context": a compiled copy of an
*earlier* lemma is refused too, though its reopened twin would do. The goal's symbols are the
reopened ones, so a proof reaches compiled copies only by naming them or through another
module's lemmas about them.

The sentences (:func:`graph_sentences`) run inside the file that :mod:`prover.coq.verify`
compiles, right after the theorem's sections are closed (dpdgraph cannot print a constant that
still has section variables); :func:`leaks` reads what they wrote. No graph written is a failed
check, never a pass.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

#: the plugin's library, loaded where the graphs are printed
PLUGIN = "dpdgraph.dpdgraph"
PACKAGE = "libcoq-dpdgraph"
_NODE = re.compile(r'^N: (?P<id>\d+) "(?P<name>[^"]*)" \[(?P<attrs>[^\]]*)\];$')
_PATH = re.compile(r'path="(?P<path>[^"]*)"')
_KIND = re.compile(r"kind=(?P<kind>\w+)")


class DependencyError(Exception):
    """The dependency graphs could not be read: the leak check cannot pass."""


@dataclass(frozen=True, order=True)
class Node:
    """One object of a dpdgraph graph: its name as printed there (``path.name``) and its kind
    (``cnst``, ``inductive``, ``construct``)."""

    qualid: str
    kind: str


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


def leaked(proof_graph: frozenset[Node], module_graph: frozenset[Node]) -> list[str]:
    """The objects of the compiled module that the proof depends on, sorted (empty: no leak)."""
    return sorted(n.qualid for n in proof_graph & module_graph)


def graph_sentences(constant: str, compiled: str, directory: Path, tag: str) -> tuple[str, ...]:
    """The sentences that write the graph of ``constant`` and the objects of module ``compiled``
    to ``directory`` (files named after ``tag``), for :func:`leaks` to compare."""
    proof, module = _files(directory, tag)
    return (f"Require {PLUGIN}.", f'Set DependGraph File "{proof}".', f"Print DependGraph {constant}.",
            f'Set DependGraph File "{module}".', f"Print FileDependGraph {compiled}.")


def leaks(directory: Path, tag: str) -> list[str]:
    """The compiled module's objects the proof depends on, from the graphs :func:`graph_sentences`
    wrote; :class:`DependencyError` when either graph is missing or unreadable."""
    proof, module = _files(directory, tag)
    if not proof.exists() or not module.exists():
        raise DependencyError(f"coq-dpdgraph wrote no dependency graph (is the Debian package {PACKAGE} installed?)")
    proof_graph = parse_dpd(proof.read_text())
    module_graph = parse_dpd(module.read_text())
    if not proof_graph or not module_graph:
        raise DependencyError("coq-dpdgraph wrote an empty dependency graph")
    return leaked(proof_graph, module_graph)


def _files(directory: Path, tag: str) -> tuple[Path, Path]:
    return directory / f"dojo_proof_{tag}.dpd", directory / f"dojo_module_{tag}.dpd"
