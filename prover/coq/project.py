"""A Coq project: a root directory plus the load-path flags that give its files their logical names.

A project is the unit of the Coq backend: the index, the contexts, the verification, the tracer
and the benchmarks all take one. Three kinds, one model:

* ``project``: a directory with a ``_CoqProject`` (``-Q dir Name``, ``-R dir Name``, ``-I dir``,
  ``-arg opt``, and its ``.v`` files), or with a ``dune-project`` whose ``dune`` files declare its
  ``coq.theory`` stanzas (:mod:`prover.coq.dune`), or with flags given explicitly; its ``.vo``
  files are built here (:mod:`prover.coq.build`);
* ``library``: an installed library, ``coq-lib:NAME`` = ``$(coqc -where)/user-contrib/NAME``
  (Debian's ``libcoq-*`` packages install their sources and ``.vo`` there; a dotted name such as
  ``mathcomp.ssreflect`` is a part, ``user-contrib/mathcomp/ssreflect``); see :func:`library_load_paths`;
* ``stdlib``: the standard library, ``coq-stdlib`` = ``$(coqc -where)/theories`` as ``Coq``; its
  ``Init/`` files are compiled without the Prelude, which the others import implicitly.

A file is opened with the flags it was compiled with: :attr:`CoqProject.load_args` is the one rule
every Coq process of the backend (coqtop, coqc, coqchk, coqdep) takes its load path from.
Flags are passed when coqtop and coqc start (:attr:`CoqProject.load_args`, :attr:`CoqProject.coq_args`):
coqtop cannot take load paths later. Paths in flags are kept relative to the root, so a copy of
the project (:meth:`CoqProject.relocated`, what ``fill-admitted`` checks its edits in) is the same
project elsewhere.
"""

from __future__ import annotations

import functools
import hashlib
import os
import re
import shlex
import subprocess
import warnings
from collections.abc import Iterable
from dataclasses import dataclass, replace
from pathlib import Path

from search_tree.errors import UserError
from search_tree.safe_files import read_text

from .dune import DUNE_PROJECT, dune_load_paths, is_dune_project
from .install import not_installed, stdlib_root, user_contrib
from .provenance import check_bindings
from .sandbox import confined, sandbox_dir, sandbox_env
from .vo import compiled_noinit

PROJECT_FILE = "_CoqProject"
STDLIB = "coq-stdlib"
LIBRARY_PREFIX = "coq-lib:"
#: Where the stdlib's files appear among another project's files (premise corpus, imports):
#: ``coq-stdlib/Arith/PeanoNat.v``. The stdlib's spec as a directory, so a path says which project
#: it belongs to; a project's own file could only lie there if a -Q/-R bound a directory of that
#: name (``coq-stdlib`` is no Coq identifier, so no subdirectory of a binding is mapped there), and
#: :func:`prover.coq.corpus.premise_files` refuses such a project rather than mix the two.
STDLIB_PREFIX = STDLIB + "/"
_FLAG_HELP = "add a _CoqProject (e.g. the line `-Q theories Foo`) or give the flags explicitly (--flags '-Q theories Foo')"


class ProjectError(UserError, ValueError):
    """A project that cannot be loaded: no flags, an unknown library, a bad ``_CoqProject`` line."""


@dataclass(frozen=True)
class LoadPath:
    """One ``-Q``/``-R``/``-I`` binding; ``path`` relative to the root unless outside it."""

    flag: str
    path: str
    logical: str = ""

    def args(self, root: Path) -> tuple[str, ...]:
        where = str((root / self.path).resolve())
        return (self.flag, where) if self.flag == "-I" else (self.flag, where, self.logical)


@dataclass(frozen=True)
class CoqProject:
    """A root, its load paths (``-Q``/``-R``/``-I``), extra coqc arguments (``-arg``) and its files.

    ``spec`` and ``flags`` are what :func:`load_project` was called with, so that a theorem can
    name its project in JSON (:meth:`ref`) and a worker in another process load the same one.
    """

    root: Path
    kind: str
    load_paths: tuple[LoadPath, ...]
    options: tuple[str, ...] = ()
    listed: tuple[str, ...] = ()  # the _CoqProject's .v files, relative to the root (empty: all)
    spec: str = STDLIB
    flags: tuple[str, ...] | None = None
    noinit_files: frozenset[str] = frozenset()  # files compiled with -noinit beside the options' (a dune theory's)

    @property
    def name(self) -> str:
        """A short human name: ``coq-stdlib``, ``coq-lib:NAME`` or the root directory's name."""
        return self.spec if self.kind != "project" else self.root.name

    @property
    def is_stdlib(self) -> bool:
        return self.kind == "stdlib"

    @property
    def key(self) -> str:
        """Names this project's caches: its kind, resolved root and flags."""
        text = f"{self.kind}\0{self.root.resolve()}\0{self.load_paths}\0{self.options}"
        if self.noinit_files:
            text += f"\0{sorted(self.noinit_files)}"
        return f"{self.kind}-{self.root.name}-{hashlib.sha1(text.encode()).hexdigest()[:10]}"

    def ref(self) -> dict:
        """JSON that :func:`load_project_ref` turns back into this project (theorems carry it)."""
        return {"spec": self.spec, "flags": None if self.flags is None else list(self.flags)}

    @property
    def load_args(self) -> tuple[str, ...]:
        """The load-path flags the project's files were compiled with, for coqc, coqtop, coqchk and
        coqdep alike (none for the stdlib, which Coq binds by itself)."""
        if self.is_stdlib:
            return ()
        return tuple(a for lp in self.load_paths for a in lp.args(self.root))

    @property
    def coq_args(self) -> tuple[str, ...]:
        """Everything coqc and coqtop start with: the load paths and the ``-arg`` options."""
        return self.load_args + self.options

    def module(self, path: str) -> str:
        """The logical name of ``path`` (relative to the root): ``theories/B.v`` under ``-Q theories Foo``
        is ``Foo.B``. The innermost binding that contains the file decides, as in Coq. Read from the
        paths' text, so it does not depend on where the root is (a copy, a test's directory)."""
        if not path.endswith(".v"):
            raise ValueError(f"not a Coq source path: {path!r}")
        best: tuple[int, str] | None = None
        for lp in self.load_paths:
            if lp.flag == "-I":
                continue
            above = self._above_root(lp)
            if above is not None:  # a binding that contains the root (an installed library's part)
                rel, depth = f"{above}/{path[:-2]}".strip("/"), -1
            else:
                base = Path(lp.path).as_posix().strip("/")
                base = "" if base == "." else base
                if Path(lp.path).is_absolute() or not (base == "" or path.startswith(base + "/")):
                    continue
                rel, depth = path[len(base) + 1 if base else 0:-2], len(base.split("/")) if base else 0
            if best is None or depth > best[0]:
                best = (depth, ".".join(p for p in [lp.logical, *rel.split("/")] if p))
        if best is None:
            raise ProjectError(f"{path} is under no -Q/-R directory of project {self.name} ({self.describe_flags()})")
        return best[1]

    def _above_root(self, lp: LoadPath) -> str | None:
        """The root's path inside an absolute binding that contains it (``ssreflect`` for the root
        ``user-contrib/mathcomp/ssreflect`` under ``-R user-contrib/mathcomp mathcomp``), else None."""
        if not Path(lp.path).is_absolute():
            return None
        root, base = self.root.resolve(), Path(lp.path).resolve()
        return root.relative_to(base).as_posix().strip(".") if root.is_relative_to(base) else None

    def describe_flags(self) -> str:
        return " ".join(shlex.quote(a) for lp in self.load_paths for a in
                        ((lp.flag, lp.path) if lp.flag == "-I" else (lp.flag, lp.path, lp.logical))) or "no flags"

    def noinit(self, path: str) -> bool:
        """Whether ``path`` (relative to the root) was compiled without the Prelude, so that every
        Coq process opening it (the index's scan, the contexts, the tracer, the verification)
        passes ``-noinit``: the stdlib's ``Init/`` files (which define the Prelude); an installed
        library's file whose ``.vo`` says so (:func:`prover.coq.vo.compiled_noinit`: HoTT,
        UniMath, Equations' HoTT part, each file on its own); every file of a project whose
        options hold ``-noinit``, and each file of a dune theory compiled so (``(stdlib no)``,
        :mod:`prover.coq.dune`)."""
        if self.is_stdlib:
            return path.startswith("Init/")
        if self.kind == "library":
            vo = (self.root / path).with_suffix(".vo")
            return vo.is_file() and compiled_noinit(vo, user_contrib(), self.load_paths[0].logical)
        return "-noinit" in self.options or path in self.noinit_files

    def implicit_imports(self, path: str) -> list[str]:
        """Files ``path`` imports without a ``Require``: the stdlib's Prelude, which coqc loads for
        every file not compiled with ``-noinit`` (:meth:`noinit`); a project other than the stdlib
        sees it under :data:`STDLIB_PREFIX`."""
        if self.noinit(path):
            return []
        return ["Init/Prelude.v"] if self.is_stdlib else [STDLIB_PREFIX + "Init/Prelude.v"]

    def source_files(self) -> list[str]:
        """The project's ``.v`` files relative to the root: the ``_CoqProject``'s list when it has
        one, else every ``.v`` under its ``-Q``/``-R`` directories inside the root."""
        if self.listed:
            return sorted(self.listed)
        found: set[str] = set()
        root = self.root.resolve()
        for lp in self.load_paths:
            base = root if self._above_root(lp) is not None else (self.root / lp.path).resolve()
            if lp.flag != "-I" and base.is_relative_to(root):
                found.update(p.relative_to(root).as_posix() for p in base.rglob("*.v"))
        return sorted(found)

    def contains(self, path: Path) -> bool:
        """Whether ``path`` lies inside the root (``fill-admitted`` writes nowhere else)."""
        return path.resolve().is_relative_to(self.root.resolve())

    def relocated(self, root: Path) -> CoqProject:
        """The same project copied to ``root`` (load paths inside the old root follow it)."""
        old = self.root.resolve()

        def move(lp: LoadPath) -> LoadPath:
            where = (self.root / lp.path).resolve()
            return lp if where.is_relative_to(old) else replace(lp, path=str(where))

        return replace(self, root=root, load_paths=tuple(move(lp) for lp in self.load_paths))


def parse_flags(tokens: list[str], where: str) -> tuple[tuple[LoadPath, ...], tuple[str, ...], tuple[str, ...]]:
    """(load paths, ``-arg`` options, ``.v`` files) of ``_CoqProject`` tokens or explicit flags.

    Unknown options are left out with a warning (``_CoqProject`` files also hold coq_makefile
    settings); a flag without its arguments is an error naming ``where``.
    """
    load: list[LoadPath] = []
    options: list[str] = []
    files: list[str] = []
    i = 0
    while i < len(tokens):
        tok = tokens[i]
        need = {"-Q": 2, "-R": 2, "-I": 1, "-arg": 1}.get(tok)
        if need is not None:
            args = tokens[i + 1:i + 1 + need]
            if len(args) < need or any(a.startswith("-") and tok != "-arg" for a in args):
                raise ProjectError(f"{where}: {tok} needs {need} argument(s), got {args!r}")
            if tok == "-arg":
                options.extend(_tokens(args[0], f"{where}, -arg {args[0]!r}", comments=False))
            else:
                load.append(LoadPath(tok, *args))
            i += 1 + need
            continue
        if tok.endswith(".v"):
            files.append(Path(tok).as_posix())
        elif "=" not in tok:  # VAR = value lines of coq_makefile are not flags
            warnings.warn(f"{where}: ignoring {tok!r} (only -Q, -R, -I, -arg and .v files are read)", stacklevel=2)
        i += 1
    return tuple(load), tuple(options), tuple(files)


def inside_root(root: Path, files: Iterable[str], where: str, load_paths: Iterable[LoadPath] = ()) -> tuple[str, ...]:
    """``files`` (relative to ``root``, or absolute) as paths relative to ``root``; a
    :class:`ProjectError` naming ``where`` for a file that resolves outside ``root`` (``..``, an
    absolute path, a symlink to a file or through a directory elsewhere), or for a ``-Q``/``-R``
    directory that lies inside ``root`` by its text but resolves outside it (a symlink).

    A build writes ``.vo``/``.glob`` beside every file of a project and ``fill-admitted`` edits
    them, so a project's files must be its own. A directory named outside the root (``-Q
    ../other O``) is only read, and stays allowed.
    """
    base = root.resolve()

    def refuse(what: str, real: Path) -> ProjectError:
        return ProjectError(f"{where}: {what} resolves to {real}, outside the project root {root}; "
                            "a project builds and edits only its own files")

    out = []
    for f in files:
        lexical = Path(os.path.normpath(root / f))
        real = lexical.resolve()
        if not (lexical.is_relative_to(root) and real.is_relative_to(base)):
            raise refuse(f, real)
        out.append(lexical.relative_to(root).as_posix())
    for lp in load_paths:
        lexical = Path(os.path.normpath(root / lp.path))
        if lp.flag != "-I" and lexical.is_relative_to(root) and not lexical.resolve().is_relative_to(base):
            raise refuse(f"{lp.flag} {lp.path}: the directory", lexical.resolve())
    return tuple(out)


def read_source(root: Path, path: str) -> str:
    """The text of the ``.v`` file ``path`` of the project at ``root``, or a :class:`ProjectError`
    naming it: one that resolves outside the root (:func:`inside_root`), is not a regular file (a
    FIFO would hang the scan) or is not UTF-8 is the project's bad input, not a bug. A link that
    stays inside the root is read through (its target is the project's own file)."""
    inside_root(root, [path], f"Coq project {root}")
    return read_text((root / path).resolve(), ProjectError)


def _tokens(text: str, where: str, comments: bool = True) -> list[str]:
    """``text`` split as a shell splits it (the quoting ``coq_makefile`` reads), or a
    :class:`ProjectError` naming ``where`` (an unclosed quote)."""
    try:
        return shlex.split(text, comments=comments)
    except ValueError as exc:
        raise ProjectError(f"{where}: cannot split it into words: {exc}") from None


@functools.lru_cache(maxsize=32)
def load_project(spec: str, flags: tuple[str, ...] | None = None) -> CoqProject:
    """The project ``spec`` names: ``coq-stdlib``, ``coq-lib:NAME``, or a directory (with a
    ``_CoqProject``, or ``flags`` such as ``("-Q", "theories", "Foo")``, relative to it).

    Raises :class:`ProjectError` saying what is missing and how to give it.
    """
    if spec == STDLIB:
        return CoqProject(stdlib_root(), "stdlib", (LoadPath("-R", ".", "Coq"),), spec=STDLIB)
    if spec.startswith(LIBRARY_PREFIX):
        name = spec[len(LIBRARY_PREFIX):]
        root = library_root(name)
        return CoqProject(root, "library", library_load_paths(name), library_options(name), spec=spec)
    root = Path(spec).expanduser().resolve()
    if not root.is_dir():
        raise ProjectError(f"Coq project {spec!r}: no such directory (expected a directory, coq-lib:NAME or {STDLIB})")
    noinit_files: frozenset[str] = frozenset()
    if flags:
        where = "--flags"
        load, options, files = parse_flags(list(flags), where)
    elif os.path.lexists(root / PROJECT_FILE):  # a link or a FIFO there is refused by read_text, not followed
        where = str(root / PROJECT_FILE)
        load, options, files = parse_flags(_tokens(read_text(root / PROJECT_FILE, ProjectError), where), where)
    elif is_dune_project(root):
        where = str(root / DUNE_PROJECT)
        dune = dune_load_paths(root)
        load, options, files, noinit_files = tuple(LoadPath(*b) for b in dune.bindings), dune.options, dune.files, \
            dune.noinit_files
    else:
        raise ProjectError(f"Coq project {root}: no {PROJECT_FILE} and no load-path flags (nor a {DUNE_PROJECT} "
                           f"using coq); {_FLAG_HELP}")
    if not any(lp.flag in ("-Q", "-R") for lp in load):
        raise ProjectError(f"Coq project {root}: no -Q or -R flag, so its files have no logical names; {_FLAG_HELP}")
    for lp in load:
        if lp.flag != "-I" and not (root / lp.path).is_dir():
            raise ProjectError(f"{where}: {lp.flag} {lp.path} {lp.logical}: {_missing_directory(root / lp.path)}")
    check_bindings([(lp.flag, (root / lp.path).resolve(), lp.logical) for lp in load], options, where)
    files = inside_root(root, files, where, load)
    project = CoqProject(root, "project", load, options, files, spec=str(root), flags=tuple(flags) if flags else None,
                         noinit_files=noinit_files)
    for f in files:  # a listed file without a logical name would fail later, wherever it is first named
        try:
            project.module(f)
        except ProjectError as exc:
            raise ProjectError(f"{where}: {exc}") from None
    return project


def _missing_directory(path: Path) -> str:
    """Why a ``-Q``/``-R`` directory that does not exist is refused: coqc would only warn, and
    every ``Require`` of its name would then fail file by file. One under ``user-contrib`` is a
    library that is not installed, named with how to get it."""
    contrib = user_contrib()
    where = Path(os.path.normpath(path))
    if where.is_relative_to(contrib) and where != contrib:
        name = ".".join(where.relative_to(contrib).parts)
        return f"no such directory: the library {name} is not installed ({not_installed(name)})"
    return "no such directory"


def library_root(name: str) -> Path:
    """The directory of the installed library ``name`` (``AAC_tactics``, or a part such as
    ``mathcomp.ssreflect``); a name that is not installed is a :class:`ProjectError` naming the
    Debian package that provides it, if one does, and the installed libraries."""
    contrib = user_contrib()
    root = contrib.joinpath(*name.split("."))
    if not _IDENT_PATH.fullmatch(name) or not root.is_dir():
        raise ProjectError(f"no installed Coq library {name!r} under {contrib} ({not_installed(name, contrib)})")
    return root


def library_load_paths(name: str) -> tuple[LoadPath, ...]:
    """The load path an installed library was compiled with: ``-R`` its top directory under
    ``user-contrib`` as its name (``-R .../user-contrib/mathcomp mathcomp`` for ``mathcomp.ssreflect``
    too, since a package's parts are compiled together and require each other by short names).

    ``-R`` rather than Coq's own ``-Q``-like binding of ``user-contrib`` is what makes a short
    ``Require Import common.`` of the library find its own file. The libraries it depends on were
    installed when it was compiled, and found through that same ``user-contrib`` binding, so they
    are found as they were without a flag of their own.
    """
    top = name.split(".")[0]
    return (LoadPath("-R", str(user_contrib() / top), top),)


def library_options(name: str) -> tuple[str, ...]:
    """The options an installed library is opened with, beside its load path and its files'
    ``-noinit`` (:meth:`CoqProject.noinit`, read per file):

    * ``-w -all``: no warnings. The library's own warnings are not its user's business, and some
      are errors under the flags it was compiled with (a deprecation that its build allowed);
    * ``-type-in-type`` and ``-impredicative-set`` where it was compiled with them (UniMath's
      universes are unchecked): coqchk's summary names the constants that rely on the one and
      the theory the other makes, here for the file with the most ``Require``s, which loads most
      of the library.
    """
    root = user_contrib().joinpath(*name.split("."))
    sources = sorted((p.read_text(errors="replace").count("Require"), p.as_posix(), p) for p in root.rglob("*.v")
                     if p.with_suffix(".vo").is_file())
    if not sources:
        return LIBRARY_WARNINGS
    flags = [a for lp in library_load_paths(name) for a in lp.args(root)]
    module = ".".join([*name.split("."), *sources[-1][2].relative_to(root).with_suffix("").parts])
    with sandbox_dir("probe") as where:
        checked = subprocess.run(confined(["coqchk", "-o", "-norec", module, *flags], where), capture_output=True,
                                 text=True, cwd=where, env=sandbox_env(where), timeout=600)
    summary = checked.stdout + checked.stderr  # coqchk prints its summary on stderr
    unchecked = re.search(r"relying on type-in-type:\s*(\S+)", summary)
    return LIBRARY_WARNINGS + tuple(flag for flag, found in (
        ("-type-in-type", unchecked is not None and unchecked.group(1) != "<none>"),
        ("-impredicative-set", "Set is impredicative" in summary)) if found)


#: the warnings an installed library is opened with: none (see :func:`library_options`)
LIBRARY_WARNINGS = ("-w", "-all")
_IDENT_PATH = re.compile(r"[A-Za-z_][\w']*(\.[A-Za-z_][\w']*)*")


def load_project_ref(ref: dict | None) -> CoqProject:
    """The project of a theorem's :attr:`~prover.coq.records.CoqFields.project` (:meth:`CoqProject.ref`);
    the stdlib for None."""
    if ref is None:
        return load_project(STDLIB)
    flags = ref.get("flags")
    return load_project(ref["spec"], tuple(flags) if flags else None)


def stdlib_project() -> CoqProject:
    return load_project(STDLIB)
