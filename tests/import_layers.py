"""The layers of the code, lowest first, and the check that no module reaches a layer above its own.

A module may import modules of its own layer and of the layers below it. "Import" means every
``import`` and ``from ... import`` statement wherever it stands (at module level, inside a
function, under ``if TYPE_CHECKING``, relative or absolute), and every registry target string
``"package.module:attribute"`` (a :class:`search_tree.registry.Registry` entry or a
:func:`search_tree.registry.load_target` argument): a lower module that names a higher one by
string cannot run without it either, so the string is held to the same rule.

:data:`LAYERS` is the one place that says where a module sits: a row names a module or package
and so everything below it, and the most specific row wins (``prover.coq.presets`` is in the
runner although ``prover.coq`` is a backend). ``docs/architecture.md`` explains the order.
``tests/unit/test_layers.py`` runs :func:`check` over the repository in CI; run this file to list
the violations (``python3 tests/import_layers.py``).

The check parses the source and imports nothing, so it needs no backend and runs in a second.
"""

from __future__ import annotations

import ast
import re
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True)
class Layer:
    name: str
    modules: tuple[str, ...]


#: Lowest first. A new module of ``prover`` that no row names sits in the runner until placed.
LAYERS: tuple[Layer, ...] = (
    # the protocol, the searches and every language's syntax: imports nothing of ours
    Layer("search", ("search_tree",)),
    Layer("retrieval", ("retrieval",)),
    # generators take retrievers as objects, and build the kNN ones from retrieval
    Layer("generator", ("generator",)),
    # environments and everything a backend knows about its prover; the run defaults they read
    Layer("backends", ("prover.coq", "prover.lean", "prover.synthetic", "prover.defaults")),
    # what composes components into provers and runs them. The registry names every backend, so it
    # sits above them; the provers and the registry import each other (``make_prover`` loads from
    # ``SEARCHES``), and ``prover.proof_search`` re-exports the distributed prover, so the three
    # are one layer. Presets are configured provers (``ProverConfig``s, the baseline's too), and
    # the benchmark registry names every backend's loaders: both sit here, whichever folder holds them.
    # A backend's ``Backend`` object names its presets, and the backends' registry every backend.
    # ``prover`` itself (its ``__init__`` registers every backend's names in the lower layers' tables)
    # and any module of it that no other row names sit here too.
    Layer("runner", ("prover", "prover.registry", "prover.proof_search", "prover.run", "prover.benchmarks",
                     "prover.coq.presets", "prover.coq.backend", "prover.lean.backend",
                     "prover.synthetic.backend", "prover.backends")),
    # reports, tree pages, the live and interactive views: they read runs, runs never import them
    Layer("views", ("prover.views",)),
    Layer("command line", ("prover.cli", "prover.commands")),
    # measurement scripts: nothing imports them
    Layer("scripts", ("benchmarks",)),
)

_TARGET = re.compile(r"([A-Za-z_]\w*(?:\.[A-Za-z_]\w*)*):[A-Za-z_][\w.]*")


@dataclass(frozen=True)
class Violation:
    """One reference from ``importer`` (in ``path`` at ``line``) up to ``imported``."""

    path: str
    line: int
    importer: str
    imported: str
    importer_layer: str
    imported_layer: str
    how: str  # "import" or "registry string"

    def __str__(self) -> str:
        return (f"{self.path}:{self.line}: {self.importer} ({self.importer_layer}) -> {self.imported} "
                f"({self.imported_layer}), by {self.how}")


def modules_of(root: Path) -> dict[str, Path]:
    """Every module of the top-level packages (folders with an ``__init__.py``) under ``root``."""
    found: dict[str, Path] = {}
    for init in sorted(root.glob("*/__init__.py")):
        for path in sorted(init.parent.rglob("*.py")):
            parts = path.relative_to(root).with_suffix("").parts
            found[".".join(parts[:-1] if parts[-1] == "__init__" else parts)] = path
    return found


def layer_of(module: str, layers: tuple[Layer, ...] = LAYERS) -> int | None:
    """The index in ``layers`` of the most specific row naming ``module`` or a package above it."""
    best: tuple[int, int] | None = None  # (length of the row's name, layer index)
    for index, layer in enumerate(layers):
        for row in layer.modules:
            if (module == row or module.startswith(row + ".")) and (best is None or len(row) > best[0]):
                best = (len(row), index)
    return None if best is None else best[1]


def _resolve(name: str, modules: dict[str, Path]) -> str:
    """The longest prefix of dotted ``name`` that is a module (``pkg.mod:attr`` or ``pkg.mod.func``)."""
    parts = name.split(".")
    for end in range(len(parts), 0, -1):
        if ".".join(parts[:end]) in modules:
            return ".".join(parts[:end])
    return name


def references(module: str, path: Path, modules: dict[str, Path]) -> Iterator[tuple[int, str, str]]:
    """``(line, module referenced, how)`` for every import and registry string of ``path``."""
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), str(path))):
        if isinstance(node, ast.Import):
            for alias in node.names:
                yield node.lineno, _resolve(alias.name, modules), "import"
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:  # relative: from the module's package, one package up per extra dot
                anchor = package.rsplit(".", node.level - 1)[0] if node.level > 1 else package
                base = f"{anchor}.{node.module}" if node.module else anchor
            for alias in node.names:  # ``from pkg import mod`` names the module ``pkg.mod``
                yield node.lineno, _resolve(f"{base}.{alias.name}", modules), "import"
        elif isinstance(node, ast.Constant) and isinstance(node.value, str):
            match = _TARGET.fullmatch(node.value)
            if match:
                yield node.lineno, _resolve(match.group(1), modules), "registry string"


def check(root: Path, layers: tuple[Layer, ...] = LAYERS) -> list[str]:
    """Everything that breaks the layering under ``root``, one line each, with file and line:
    references to a higher layer, modules that no row places, and rows that name no module."""
    modules = modules_of(root)
    problems = [f"{path.relative_to(root)}: {module} is in no layer (add it to LAYERS)"
                for module, path in modules.items() if layer_of(module, layers) is None]
    problems += [f"LAYERS: {row} ({layer.name}) names no module under {root}" for layer in layers
                 for row in layer.modules if row not in modules]
    problems += [str(v) for v in upward_imports(root, layers)]
    return problems


def upward_imports(root: Path, layers: tuple[Layer, ...] = LAYERS) -> list[Violation]:
    """Every reference from a module of ``root`` to a module of ``root`` in a higher layer."""
    modules = modules_of(root)
    ours = {name.split(".")[0] for name in modules}
    found = []
    for module, path in modules.items():
        own = layer_of(module, layers)
        for line, target, how in references(module, path, modules):
            if target.split(".")[0] not in ours:
                continue  # not ours: the standard library, third-party packages
            theirs = layer_of(target, layers)
            if own is not None and theirs is not None and theirs > own:
                found.append(Violation(str(path.relative_to(root)), line, module, target,
                                       layers[own].name, layers[theirs].name, how))
    return sorted(found, key=lambda v: (v.path, v.line, v.imported))


if __name__ == "__main__":
    problems = check(Path(__file__).resolve().parents[1])
    print("\n".join(problems) or "no module reaches a layer above its own")
    print(" < ".join(layer.name for layer in LAYERS))
    sys.exit(1 if problems else 0)
