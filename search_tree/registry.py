"""The one name-table mechanism: names mapped to lazily imported ``"module:attribute"`` targets.

Every table of the library (environments, searches, generators, retrievers, benchmarks, value
functions, template sets) is a :class:`Registry`, so a name is looked up, reported when unknown and
extended (:meth:`Registry.register`) the same way everywhere. Targets are strings and imported only
when :meth:`Registry.load` is called, so a table can name a component whose backend (torch, Ray,
LeanDojo, Coq) is not installed, and building a table imports nothing.

In a table made with ``import_paths=True`` (the component tables: environments, searches,
generators, retrievers), a name that is itself a ``"module:attribute"`` path loads that attribute:
a component defined outside the package is used by its import path, with no registration, and
since the path is the name it travels inside a spec to every process (a Ray worker imports the
module itself). Other tables have names with colons of their own (``coq:BASELINE``).

This module lives in :mod:`search_tree`, the bottom package, and imports nothing of dojo-prover but
:mod:`search_tree.errors`: every other package may use it without creating an import circle.
"""

from __future__ import annotations

import difflib
import importlib
import inspect
import re
from collections.abc import Callable, Iterator, Mapping
from typing import Any

from search_tree.errors import UserError


class RegistryError(UserError, LookupError):
    """A name that cannot be turned into a component: bad input, so a :class:`UserError`."""


class UnknownName(RegistryError, KeyError, ValueError):
    """A name that a table does not know; the message names the table, the name and close matches.

    It is a :class:`KeyError` and a :class:`ValueError` too because the tables it replaced raised
    those, and callers outside this package catch them.
    """

    def __init__(self, table: str, name: str, known: list[str]) -> None:
        self.table, self.name, self.known = table, name, sorted(known)
        close = difflib.get_close_matches(name, self.known, n=3)
        hint = f"; did you mean {' or '.join(map(repr, close))}?" if close else ""
        super().__init__(f"unknown {table} {name!r}; known: {', '.join(self.known) or '(none)'}{hint}")

    def __str__(self) -> str:  # KeyError would print the message in quotes
        return str(self.args[0])


class NotInstalled(RegistryError):
    """A known name whose module (or one it needs) is not installed here."""


#: ``module.sub:Attribute.attr``: a name that is an import path rather than a table entry
IMPORT_PATH = re.compile(r"[A-Za-z_][\w.]*:[A-Za-z_][\w.]*")


def accepts(factory: Callable[..., Any], parameter: str) -> bool:
    """Whether ``factory`` can be called with the keyword ``parameter`` (it names it, or takes
    ``**kwargs``): how a nested component (a generator's ``retriever``) is offered only to the
    factories whose signature asks for it."""
    params = _parameters(factory)
    return parameter in params or any(p.kind is inspect.Parameter.VAR_KEYWORD for p in params.values())


def parameter(factory: Callable[..., Any], name: str) -> inspect.Parameter | None:
    """``factory``'s parameter called ``name`` (None if it names none, ``**kwargs`` not counted): how
    a run's fact that only some factories use (the backend's language) is offered to those alone."""
    return _parameters(factory).get(name)


def _parameters(factory: Callable[..., Any]) -> Mapping[str, inspect.Parameter]:
    """``factory``'s parameters by name; none for a builtin without a signature (offered nothing)."""
    try:
        return inspect.signature(factory).parameters
    except (TypeError, ValueError):
        return {}


def load_target(target: str) -> Any:
    """The object that ``"module:attribute"`` names (the attribute may be dotted: ``Class.factory``).

    A missing module raises :class:`NotInstalled` naming it, so that "this backend is not
    installed" is told apart from a bug inside an installed module.
    """
    module_name, colon, attr = target.partition(":")
    if not colon or not module_name or not attr:
        raise ValueError(f"registry target {target!r} is not of the form 'module:attribute'")
    try:
        obj: Any = importlib.import_module(module_name)
    except ModuleNotFoundError as exc:
        if exc.name and (module_name == exc.name or module_name.startswith(exc.name + ".")):
            raise NotInstalled(f"{target} is not available: module {exc.name} is not installed") from exc
        raise
    for part in attr.split("."):
        obj = getattr(obj, part)
    return obj


class Registry(Mapping[str, str]):
    """A named table of ``"module:attribute"`` targets: ``table[name]`` is the target string,
    :meth:`load` the imported object. ``table`` is how errors name it ("unknown generator ...");
    ``import_paths``: whether a name of the form ``module:attribute`` not in the table is its own
    target (see the module docstring)."""

    def __init__(self, table: str, targets: Mapping[str, str] | None = None, *, import_paths: bool = False) -> None:
        self.table = table
        self.import_paths = import_paths
        self._targets: dict[str, str] = {}
        for name, target in (targets or {}).items():
            self.register(name, target)

    def register(self, name: str, target: str) -> None:
        """Make ``name`` load ``target``; a later registration of the same name replaces it."""
        if ":" not in target:
            raise ValueError(f"{self.table} {name!r}: target {target!r} is not of the form 'module:attribute'")
        self._targets[name] = target

    def __getitem__(self, name: str) -> str:
        """The target of ``name``: its table entry, or ``name`` itself when it is an import path."""
        if name in self._targets:
            return self._targets[name]
        if self.import_paths and IMPORT_PATH.fullmatch(name):
            return name
        raise UnknownName(self.table, name, list(self._targets))

    def __iter__(self) -> Iterator[str]:
        return iter(self._targets)

    def __len__(self) -> int:
        return len(self._targets)

    def load(self, name: str) -> Any:
        """The object registered as ``name``, or at import path ``name``, imported now
        (:class:`UnknownName`, :class:`NotInstalled`, :class:`RegistryError` for a path whose
        module lacks the attribute)."""
        target = self[name]
        try:
            return load_target(target)
        except AttributeError as exc:
            raise RegistryError(f"{self.table} {name!r}: {target} does not exist ({exc})") from None

    def __repr__(self) -> str:
        return f"Registry({self.table!r}, {self._targets!r}, import_paths={self.import_paths})"
