"""What a compiled proof depends on, read from its term by Debian's ``libcoq-dpdgraph`` plugin.

:mod:`prover.coq.verify` uses it to refuse a proof that depends on the compiled copy of its own
module (rule 4 of its docstring). One ``coqc`` run on :func:`check_source` loads the checked
library and the plugin and writes two graphs in dpdgraph's ``.dpd`` format: ``Print DependGraph``
of the proof, which follows every constant, inductive type and constructor its type and body name,
transitively (through opaque proofs too), and ``Print FileDependGraph`` of the module, which lists
every object of that module and of the modules inside it.

dpdgraph names a node by the shortest name that refers to it in the process that printed it
(``List.app_nil_r``, or ``app_nil_r`` with an empty path), not by its kernel name: the replayed
file's ``app_nil_r`` and the compiled copy's can both print with the path ``List``, so neither the
name nor the path says where a node lives. Within one process, though, a name refers to exactly
one object, so the two graphs of the same run are compared name for name: a name in both is an
object of the module the proof depends on.

One limit: an object that a later module re-exposes with ``Include`` (``BinPos`` includes
``BinPosDef.Pos``) may print under the later module's name in the proof's graph while the
module's graph lists it under its own, so a proof using it would not be seen to use the module.
In the stdlib the modules so included (``BinPosDef``, ``BinNatDef``, ``BinIntDef``,
``Init.Nat``) hold no theorem, so no theorem is opened with its module's copy of that kind.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

#: The library that declares the plugin (Debian package :data:`PACKAGE`)
PLUGIN = "dpdgraph.dpdgraph"
PACKAGE = "libcoq-dpdgraph"
_NODE = re.compile(r'N: (\d+) "([^"]+)" \[(.*)\];')
_EDGE = re.compile(r"E: (\d+) (\d+) \[.*\];")
_PATH = re.compile(r'path="([^"]*)"')
_LOCATED = re.compile(r"^Constant (\S+)", re.MULTILINE)


def check_source(constant: str, library: str, module: str, proof_graph: str, module_graph: str) -> str:
    """The ``.v`` text that writes the dependencies of ``constant`` (a full name, in the compiled
    ``library``) to ``proof_graph`` and the objects of ``module`` to ``module_graph``.

    Nothing is imported, so each object prints under a name that includes its library's."""
    return (f"Require {PLUGIN}.\nRequire {library}.\n"
            f'Set DependGraph File "{proof_graph}".\nPrint DependGraph {constant}.\n'
            f'Set DependGraph File "{module_graph}".\nPrint FileDependGraph {module}.\n')


@dataclass(frozen=True)
class Graph:
    """A ``.dpd`` graph: each node's name (``path.name``, or ``name`` without a path) and the
    nodes each one uses."""

    names: dict[int, str]
    uses: dict[int, frozenset[int]]

    def node(self, name: str) -> int:
        """The node of the constant ``name`` (a short name, unique in the graph); ValueError if absent."""
        found = [n for n, full in self.names.items() if full == name or full.endswith("." + name)]
        if len(found) != 1:
            raise ValueError(f"the graph has {len(found)} nodes named {name}")
        return found[0]


def read_graph(text: str) -> Graph:
    """The graph of a ``.dpd`` text; ValueError for a line that is neither a node nor an edge."""
    names: dict[int, str] = {}
    uses: dict[int, set[int]] = {}
    for line in map(str.strip, text.splitlines()):
        node, edge = _NODE.fullmatch(line), _EDGE.fullmatch(line)
        if node is not None:
            path = _PATH.search(node.group(3))
            names[int(node.group(1))] = f"{path.group(1)}.{node.group(2)}" if path else node.group(2)
        elif edge is not None:
            uses.setdefault(int(edge.group(1)), set()).add(int(edge.group(2)))
        elif line:
            raise ValueError(f"not a line of a dpdgraph graph: {line[:200]!r}")
    return Graph(names, {n: frozenset(used) for n, used in uses.items()})


def reaching(graph: Graph, start: int, targets: set[str]) -> tuple[list[str], list[str]]:
    """What node ``start`` uses of the objects named ``targets``: the objects it uses directly
    that are among them or use one (through any chain), and all of them it reaches; sorted."""
    users: dict[int, set[int]] = {}
    for node, used in graph.uses.items():
        for dependency in used:
            users.setdefault(dependency, set()).add(node)
    found = [node for node, name in graph.names.items() if name in targets]
    reach, todo = set(found), list(found)
    while todo:  # backwards from the targets: every node that uses one, transitively
        for user in users.get(todo.pop(), ()):
            if user not in reach:
                reach.add(user)
                todo.append(user)
    direct = sorted(graph.names[d] for d in graph.uses.get(start, ()) if d in reach and d != start)
    return direct, sorted(graph.names[node] for node in found)


def located(text: str, name: str) -> str:
    """The full name of constant ``name`` in the output of ``Locate name``; ValueError unless
    exactly one constant of that name is listed."""
    found = [full for full in _LOCATED.findall(text) if full.rpartition(".")[2] == name]
    if len(found) != 1:
        raise ValueError(f"Locate {name} listed {len(found)} constants of that name: {' '.join(text.split())[:300]!r}")
    return found[0]
