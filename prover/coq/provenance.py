"""Where each Coq library comes from: the stdlib and installed libraries only from where Coq installed them.

The trusted axioms are named by kernel name (:mod:`prover.coq.trusted_axioms`), and a kernel name
says where a constant comes from only if no one else can give a library that name. A project
that binds ``-Q . Coq.Logic`` and holds a ``Classical_Prop.v`` with ``Axiom classic : False.``
makes ``Coq.Logic.Classical_Prop.classic`` a proof of ``False``. So:

* :func:`check_bindings` refuses, when a project is loaded, any ``-Q``/``-R`` (in a
  ``_CoqProject``, ``--flags`` or an ``-arg``) that binds a logical name under ``Coq`` or under
  an installed library's (``Hammer``, ``mathcomp``...), or that binds the empty name to a
  directory holding such a subdirectory; any coqc option (``-arg``, a dune theory's ``flags``) but
  the few that :data:`OPTIONS` allows; and any ``-I`` outside the installed OCaml libraries
  (an ML plugin is code that runs in coqc: one of the project's own could rewrite a ``.vo`` once
  its kernel has checked it);
* :func:`check_loaded` checks, after coqchk ran, what it says it loaded: every ``Coq.*`` library
  from ``$(coqc -where)/theories``, every installed library from its directory under
  ``user-contrib``, the checked library from the verification's own directory, every other one
  from a directory of the project's load path, and no library it did not account for.
"""

from __future__ import annotations

import functools
import os
import subprocess
from collections.abc import Iterable, Sequence
from pathlib import Path

from search_tree.errors import UserError

from .install import stdlib_root
from .vo import VoFormatError, vo_name

STDLIB_ROOT_NAME = "Coq"
#: the coqc options a project may give (``-arg``, a dune theory's ``flags``), each with how many
#: arguments it takes: warnings, and the settings of the logic, which the final check sees (coqchk's
#: summary reports ``-type-in-type`` and unset checks, and rejects what ``-impredicative-set`` let
#: through). Any other could make coqc load code or files the check never sees (``-I``, ``-l``,
#: ``-require``), write its ``.vo`` elsewhere than the build records (``-o``, ``-vos``), or move the
#: load path or the standard library (``-Q``, ``-coqlib``).
OPTIONS = {"-w": 1, "-q": 0, "-noinit": 0, "-indices-matter": 0, "-type-in-type": 0,
           "-impredicative-set": 0, "-allow-sprop": 0, "-disallow-sprop": 0, "-set": 1, "-unset": 1,
           "-native-compiler": 1, "-mangle-names": 1}


class ProvenanceError(UserError, ValueError):
    """A project or flag that would give a library the name of the stdlib's or an installed library's."""


class ForeignLibrary(Exception):
    """coqchk loaded a library from somewhere other than where its name says it must come from."""


@functools.lru_cache(maxsize=1)
def protected_roots() -> dict[str, Path]:
    """The logical root names Coq finds by itself, each with its directory: ``Coq`` (the stdlib's
    ``theories``) and every library under ``user-contrib`` or a ``$COQPATH`` directory (the first
    holding a name wins here; if Coq took it from another, :func:`check_loaded` refuses)."""
    theories = stdlib_root()
    found: dict[str, Path] = {}
    for place in [theories.parent / "user-contrib", *map(Path, filter(None, os.environ.get("COQPATH", "").split(os.pathsep)))]:
        for lib in sorted(place.iterdir()) if place.is_dir() else ():
            if lib.is_dir():
                found.setdefault(lib.name, lib.resolve())
    found[STDLIB_ROOT_NAME] = theories.resolve()
    return found


@functools.lru_cache(maxsize=1)
def ocaml_library_roots() -> tuple[Path, ...]:
    """Where installed OCaml libraries, Coq's plugins among them, live: findlib's search path
    (``ocamlfind printconf path``) and the directory above ``coqc -where``."""
    roots = [stdlib_root().parent.parent.resolve()]
    try:
        found = subprocess.run(["ocamlfind", "printconf", "path"], capture_output=True, text=True, timeout=60,
                               check=False)
    except (OSError, subprocess.TimeoutExpired):
        return tuple(roots)
    roots += [Path(line).resolve() for line in found.stdout.splitlines() if found.returncode == 0 and line.strip()]
    return tuple(dict.fromkeys(roots))


def bindings(args: Sequence[str]) -> list[tuple[str, Path, str]]:
    """The ``(flag, directory, logical name)`` of each ``-Q``/``-R``/``-I`` in coqc arguments."""
    out: list[tuple[str, Path, str]] = []
    i = 0
    while i < len(args):
        if args[i] in ("-Q", "-R") and i + 2 < len(args):
            out.append((args[i], Path(args[i + 1]), args[i + 2]))
            i += 3
        elif args[i] == "-I" and i + 1 < len(args):
            out.append(("-I", Path(args[i + 1]), ""))
            i += 2
        else:
            i += 1
    return out


def checker_load_path(args: Sequence[str]) -> list[str]:
    """The ``-Q``/``-R`` of coqc arguments ``args``, for coqchk: without the ``-I`` of ML plugin
    directories (a dune theory's ``(plugins ...)``), which coqchk loads none of and refuses."""
    return [arg for flag, directory, logical in bindings(args) if flag != "-I" for arg in (flag, str(directory), logical)]


def _owner(logical: str) -> str:
    return "the standard library" if logical == STDLIB_ROOT_NAME else f"the installed library {logical}"


def check_bindings(bindings: Iterable[tuple[str, Path, str]], options: Sequence[str], where: str) -> None:
    """Refuse (:class:`ProvenanceError`, naming ``where``) a binding ``(flag, directory, logical
    name)`` that would give a project's file a name of the stdlib or of an installed library, or
    two names; an ``-I`` outside the installed OCaml libraries; and a coqc option that
    :data:`OPTIONS` does not allow (module docstring)."""
    protected = protected_roots()
    seen: dict[Path, str] = {}
    for flag, directory, logical in bindings:
        resolved = directory.resolve()
        if flag == "-I":
            if not any(resolved.is_relative_to(root) for root in ocaml_library_roots()):
                raise ProvenanceError(f"{where}: -I {directory} is not a directory of an installed OCaml library; "
                                      "a project's own ML plugins are not loaded (they run as code in every Coq "
                                      "process, the final check's included)")
            continue
        if seen.setdefault(resolved, logical) != logical:
            raise ProvenanceError(f"{where}: {directory} is bound as {seen[resolved]} and as {logical}; "
                                  "Coq keeps only the last, so a file there would have two names")
        root, *parts = logical.split(".")
        if root in protected and resolved == protected[root].joinpath(*parts):
            continue  # an installed library bound to its own directory (a dune theory's dependency)
        if root in protected:
            raise ProvenanceError(f"{where}: {flag} {directory} {logical} binds the logical name {root!r} of "
                                  f"{_owner(root)}, whose files Coq takes only from {protected[root]}")
        if not logical and directory.is_dir():
            clash = sorted(p.name for p in directory.iterdir() if p.is_dir() and p.name in protected)
            if clash:
                raise ProvenanceError(f"{where}: {flag} {directory} \"\" names its subdirectory {clash[0]} "
                                      f"{clash[0]!r}, the logical name of {_owner(clash[0])}")
    i = 0
    while i < len(options):
        if options[i] not in OPTIONS:
            raise ProvenanceError(f"{where}: the option {options[i]} may not be passed to coqc (allowed: "
                                  f"{', '.join(OPTIONS)}; give -Q/-R/-I as load-path flags, not in -arg)")
        i += 1 + OPTIONS[options[i]]


def check_loaded(paths: Sequence[Path], libraries: Sequence[str], checked: tuple[Path, str],
                 bindings: Iterable[tuple[Path, str]]) -> dict[str, Path]:
    """Raise :class:`ForeignLibrary` unless each ``.vo`` coqchk interned (``paths``) is where its
    library's name says it must be, and these are exactly the ``libraries`` it listed; return the
    project's own libraries among them (name to ``.vo``: neither the checked file nor the stdlib's
    nor an installed library's), which coqchk took as they are (:mod:`prover.coq.checked_vo`).

    ``checked`` is the compiled file and its library's name; ``bindings`` the project's
    ``(directory, logical name)`` pairs (none for the stdlib or an installed library)."""
    protected = protected_roots()
    own = [(d.resolve(), logical) for d, logical in bindings]
    vo, module = checked[0].resolve(), checked[1]
    named: dict[str, Path] = {}
    for path in paths:
        where = path.resolve()
        name = module if where == vo else _library_name(where, protected, own)
        if name is None:
            raise ForeignLibrary(f"coqchk loaded {path}, which is in no directory of the standard library, "
                                 f"an installed library or the project")
        if name in named and named[name] != where:
            raise ForeignLibrary(f"coqchk loaded {name} twice, from {named[name]} and {where}")
        named[name] = where
        root = name.split(".", 1)[0]
        if root in protected and where != vo and not where.is_relative_to(protected[root]):
            raise ForeignLibrary(f"coqchk loaded {name} from {where}, not from {_owner(root)} in {protected[root]}")
    if set(named) != set(libraries):
        extra = sorted(set(libraries) - set(named)) or sorted(set(named) - set(libraries))
        raise ForeignLibrary(f"coqchk's list of libraries does not match the files it loaded ({', '.join(extra)})")
    if named.get(module) != vo:
        raise ForeignLibrary(f"coqchk did not check the compiled file {vo.name} (it resolved {module} elsewhere)")
    project = {name: where for name, where in named.items() if where != vo and name.split(".", 1)[0] not in protected}
    for name, where in project.items():
        try:
            compiled_as = vo_name(where)
        except (OSError, VoFormatError) as exc:
            raise ForeignLibrary(f"coqchk loaded {where}, which cannot be read as a compiled library ({exc})") from None
        if compiled_as != name:
            raise ForeignLibrary(f"coqchk loaded {where} as {name}, but it was compiled as {compiled_as} (the "
                                 "project binds its directory under two names)")
    return project


def _library_name(path: Path, protected: dict[str, Path], own: list[tuple[Path, str]]) -> str | None:
    """The library name a ``.vo`` at ``path`` has: from the stdlib's or an installed library's
    directory, else from the deepest project binding that holds it; None if none does."""
    for root, directory in protected.items():
        if path.is_relative_to(directory):
            parts = path.relative_to(directory).with_suffix("").parts
            return ".".join((root, *parts))
    best: tuple[int, str] | None = None
    for directory, logical in own:
        if path.is_relative_to(directory):
            parts = path.relative_to(directory).with_suffix("").parts
            depth = len(directory.parts)
            if best is None or depth > best[0]:
                best = (depth, ".".join(p for p in (logical, *parts) if p))
    return None if best is None else best[1]
