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
"""

from __future__ import annotations

import re

#: The library that declares the plugin (Debian package :data:`PACKAGE`)
PLUGIN = "dpdgraph.dpdgraph"
PACKAGE = "libcoq-dpdgraph"
_NODE = re.compile(r'N: (\d+) "([^"]+)" \[(.*)\];')
_PATH = re.compile(r'path="([^"]*)"')
_LOCATED = re.compile(r"^Constant (\S+)", re.M)


def check_source(constant: str, library: str, module: str, proof_graph: str, module_graph: str) -> str:
    """The ``.v`` text that writes the dependencies of ``constant`` (a full name, in the compiled
    ``library``) to ``proof_graph`` and the objects of ``module`` to ``module_graph``.

    Nothing is imported, so each object prints under a name that includes its library's."""
    return (f"Require {PLUGIN}.\nRequire {library}.\n"
            f'Set DependGraph File "{proof_graph}".\nPrint DependGraph {constant}.\n'
            f'Set DependGraph File "{module_graph}".\nPrint FileDependGraph {module}.\n')


def graph_nodes(text: str) -> set[str]:
    """The names of the nodes of a ``.dpd`` graph (``path.name``, or ``name`` without a path);
    ValueError for a line that is neither a node nor an edge."""
    names = set()
    for line in text.splitlines():
        node = _NODE.fullmatch(line.strip())
        if node is not None:
            path = _PATH.search(node.group(3))
            names.add(f"{path.group(1)}.{node.group(2)}" if path else node.group(2))
        elif line.strip() and not line.startswith("E: "):
            raise ValueError(f"not a line of a dpdgraph graph: {line[:200]!r}")
    return names


def located(text: str, name: str) -> str:
    """The full name of constant ``name`` in the output of ``Locate name``; ValueError unless
    exactly one constant of that name is listed."""
    found = [full for full in _LOCATED.findall(text) if full.rpartition(".")[2] == name]
    if len(found) != 1:
        raise ValueError(f"Locate {name} listed {len(found)} constants of that name: {' '.join(text.split())[:300]!r}")
    return found[0]
