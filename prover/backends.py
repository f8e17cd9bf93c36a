"""Every backend, one line each, and the lookups commands make on them.

Adding a backend is a folder with a ``backend.py`` defining a :class:`prover.backend.Backend` and
one line in :data:`BACKEND_MODULES` (or, from outside the package, one :func:`register` call). A
registered backend's environment joins :data:`ENVIRONMENTS` (under its name), its benchmark
families ``prover.benchmarks.registry.BENCHMARKS``, and its generators and template sets
``generator.registry.GENERATORS`` and ``generator.template.TEMPLATE_SETS``:
the lower packages name no backend, the backends add themselves here. ``import prover`` imports
this module, so every process that builds a run (the command line, a Ray worker unpickling a
prover) sees the same tables. A backend registered from outside the package
(:func:`registered_outside`) reaches Ray workers with the run: ``prover.run.distributed`` sends
the object to each worker, which registers it before building anything, and ships the code its
targets name (:func:`modules_of`) the way it ships a component named by import path.
"""

from __future__ import annotations

import importlib
from collections.abc import Iterable

from generator.registry import GENERATORS
from generator.template import TEMPLATE_SETS
from prover.backend import Backend, Feature
from prover.benchmarks.registry import BENCHMARKS, THEOREM_LISTS, is_theorem_list
from search_tree.errors import UserError
from search_tree.language import Language
from search_tree.registry import Registry, UnknownName

#: the module of each backend, whose ``BACKEND`` is its :class:`Backend`
BACKEND_MODULES = (
    "prover.coq.backend",
    "prover.lean.backend",
    "prover.synthetic.backend",
)

BACKENDS: dict[str, Backend] = {}
#: the backends of :data:`BACKEND_MODULES`, by name: any other in :data:`BACKENDS` was registered
#: by a program using the library
_PACKAGED: dict[str, Backend] = {}
#: each backend's environment class by the backend's name (``prover.registry`` builds from it)
ENVIRONMENTS = Registry("environment", import_paths=True)


def register(backend: Backend) -> None:
    """Add ``backend`` (a later one of the same name replaces it) and its names to the tables."""
    BACKENDS[backend.name] = backend
    ENVIRONMENTS.register(backend.name, backend.environment)
    for name, target in backend.generators.items():
        GENERATORS.register(name, target)
    for name, target in backend.template_sets.items():
        TEMPLATE_SETS.register(name, target)
    for family, target in backend.benchmark_families.items():
        BENCHMARKS.register(family, target)
    if backend.theorem_lists is not None:
        THEOREM_LISTS.register(backend.name, backend.theorem_lists)


def registered_outside() -> list[Backend]:
    """The backends registered by a program using the library (not of :data:`BACKEND_MODULES`, or
    replacing one of them): a worker in another process knows them only if it is sent them."""
    return [b for b in BACKENDS.values() if _PACKAGED.get(b.name) is not b]


def modules_of(backend: Backend) -> list[str]:
    """The top-level modules holding what ``backend`` names: its targets and its language's
    readers (a worker must be able to import them to use it)."""
    targets = [backend.environment, *backend.generators.values(), *backend.template_sets.values(),
               *backend.benchmark_families.values(), *backend.features.values(),
               *(t for t in (backend.theorem_lists, backend.qualified_name, backend.axioms, backend.prover_version,
                             backend.learned_preset, backend.node_needs) if t is not None)]
    modules = [t.partition(":")[0] for t in targets]
    if backend.language is not None:
        modules += [backend.language.has_metavariable.__module__, backend.language.split_let.__module__]
    return list(dict.fromkeys(m.split(".")[0] for m in modules))


def backend(name: str) -> Backend:
    """The backend called ``name`` (or one of its aliases); :class:`UnknownName` if none is."""
    for b in BACKENDS.values():
        if name == b.name or name in b.aliases:
            return b
    raise UnknownName("backend", name, list(BACKENDS))


def names() -> list[str]:
    """Every name ``--env`` accepts: each backend's name and aliases."""
    return [n for b in BACKENDS.values() for n in (b.name, *b.aliases)]


def language_of(paths: Iterable[str]) -> Language | None:
    """The language of the backend whose file suffix every path has (a corpus's files), or None
    when no one backend's does."""
    paths = list(paths)
    found = {b.language for b in BACKENDS.values()
             if b.language is not None and paths and all(b.language.owns(p) for p in paths)}
    return found.pop() if len(found) == 1 else None


def language_for(env_name: str) -> Language | None:
    """The language of the backend whose environment is ``env_name`` (None for one without)."""
    found = BACKENDS.get(env_name)
    return None if found is None else found.language


def owner(benchmark: str) -> Backend | None:
    """The backend whose benchmark families include the family of ``benchmark`` (``family:split``),
    or, for a file naming theorems, the one backend that reads such files; None when none claims it."""
    if is_theorem_list(benchmark):
        readers = [b for b in BACKENDS.values() if b.theorem_lists is not None]
        return readers[0] if len(readers) == 1 else None
    family = benchmark.partition(":")[0]
    return next((b for b in BACKENDS.values() if family in b.benchmark_families), None)


def check_benchmark(env_name: str, benchmark: str) -> None:
    """A :class:`UserError` when the family of ``benchmark`` (``family:split``) belongs to a backend
    other than ``env_name``'s: its theorems would not open there. An unknown ``env_name`` is left
    to the environment table to name."""
    found = owner(benchmark)
    if found is not None and env_name in names() and backend(env_name) is not found:
        raise UserError(f"--benchmark {benchmark}: a benchmark of the {found.name} backend, "
                        f"not of --env {env_name} (use --env {found.name})")


def providing(feature: Feature) -> list[str]:
    """The names of the backends that provide ``feature``."""
    return [b.name for b in BACKENDS.values() if b.provides(feature)]


def require(name: str, feature: Feature, command: str) -> Backend:
    """Backend ``name``, which ``command`` needs to provide ``feature``; else a one-line
    :class:`UserError` naming the backends that do."""
    found = backend(name)
    if not found.provides(feature):
        raise UserError(f"{command} --env {name}: the {found.name} backend has no {feature.value}; "
                        f"backends that have one: {', '.join(providing(feature)) or '(none)'}")
    return found


for _module in BACKEND_MODULES:
    _packaged: Backend = importlib.import_module(_module).BACKEND
    _PACKAGED[_packaged.name] = _packaged
    register(_packaged)
