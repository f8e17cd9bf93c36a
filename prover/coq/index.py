"""The index of a Coq project (the stdlib is one): files in dependency order, theorems by name, cached as JSON.

The index is cached under :func:`prover.coq.install.cache_dir` (one directory per Coq version),
keyed by the scanning code itself and the project, and a file is rescanned when its contents
change. A project's file that the text scan cannot read, or that does not compile
(:mod:`prover.coq.build`), is listed in :attr:`CoqIndex.failed` with the reason, and its theorems
are left out; the rest of the project is indexed.
"""

from __future__ import annotations

import difflib
import fnmatch
import functools
import json
import re
import sys
import warnings
from dataclasses import asdict
from pathlib import Path
from typing import Any

from search_tree.errors import UserError
from search_tree.protocol import Theorem, TheoremNotFound
from search_tree.safe_files import read_regular, replace_file

from .install import cache_dir, coq_version, installed_modules
from .project import STDLIB_PREFIX, CoqProject, read_source, stdlib_project
from .records import CoqFields, Declaration, SourceFile, StdlibScanError, TheoremEntry, to_theorem
from .sentences import SentenceSplitError
from .scanner import logical_modules, scan_file, source_hash, stdlib_modules

# the modules whose code decides what the scan produces (see code_version)
_SCANNER_MODULES = ("sentences.py", "vernacular.py", "records.py", "scanner.py", "index.py", "project.py")


class CoqIndex:
    """The indexed project: files in dependency order, theorems (and admitted lemmas) by name."""

    def __init__(self, root: Path, files: list[SourceFile], project: CoqProject | None = None,
                 failed: dict[str, str] | None = None) -> None:
        self.root = root
        self.project = project or stdlib_project()
        self.failed: dict[str, str] = dict(failed or {})  # path -> why its theorems are left out
        self.files: dict[str, SourceFile] = {f.path: f for f in _dependency_order(files)}
        self._ref = None if self.project.is_stdlib else self.project.ref()
        self.ssreflect = _loading_ssreflect(self.files)
        self._by_name: dict[str, list[tuple[SourceFile, TheoremEntry]]] = {}
        for f in self.files.values():
            if f.path in self.failed:
                continue
            for t in f.theorems + f.admitted:
                self._by_name.setdefault(t.full_name, []).append((f, t))
                self._by_name.setdefault(f"{f.module}.{t.full_name}", []).append((f, t))

    def _chosen(self, files: list[str] | None) -> list[SourceFile]:
        chosen = self.files.values() if files is None else [self.file(p) for p in files]
        return [f for f in chosen if f.path not in self.failed]

    def theorems(self, files: list[str] | None = None) -> list[Theorem]:
        """Theorems with a Qed/Defined proof, in file order; optionally only those of ``files``.
        Those that cannot be opened (:meth:`unopenable`) are left out."""
        return [self._theorem(f, t) for f in self._chosen(files) for t in f.theorems if _openable(f, t)]

    def admitted(self, files: list[str] | None = None) -> list[Theorem]:
        """Lemmas ended by ``Admitted`` (open targets, :attr:`CoqFields.admitted`), in file order."""
        return [self._theorem(f, t) for f in self._chosen(files) for t in f.admitted if _openable(f, t)]

    def unopenable(self) -> dict[str, tuple[int, str]]:
        """Files with theorems that cannot be opened, with how many and why: path -> (theorems,
        reason). A file that loads a file which is not installed (:attr:`SourceFile.stops_at`)
        cannot be replayed past that sentence, so its theorems after it are left out of
        :meth:`theorems` (and of every benchmark) and named here instead."""
        out: dict[str, tuple[int, str]] = {}
        for f in self._chosen(None):
            lost = sum(1 for t in f.theorems + f.admitted if not _openable(f, t))
            if lost:
                out[f.path] = (lost, f"loads {f.missing_loads[0]}, which is not installed")
        return out

    def missing_libraries(self) -> list[tuple[str, str]]:
        """``(file, name)`` for each ``Require`` of a project's file that names a qualified module
        (``From Foo Require Bar``, ``Require Foo.Bar``) whose first part is nowhere on this machine:
        no logical name bound by the project, no part of a module name of the project, the stdlib
        or an installed library. That file cannot compile here, for want of a library, not for a
        fault of its own. A short name found nowhere (``Require Bar``) may be a file the project
        lacks, and is left to coqc. Read against the libraries installed now, not when the index
        was scanned."""
        if self.project.kind != "project":
            return []
        names = [lp.logical for lp in self.project.load_paths] + [f.module for f in self.files.values()]
        known = {part for name in [*names, *stdlib_modules(), *installed_modules()] for part in name.split(".")}
        return [(f.path, name) for f in self.files.values() for name in f.unresolved_requires
                if "." in name and name.split(".")[0] not in known]

    def _theorem(self, f: SourceFile, t: TheoremEntry) -> Theorem:
        """The protocol's theorem; :attr:`CoqFields.ssreflect` says that its context loads ssreflect,
        so that a generator proposes ssreflect's tactics there (they do not parse elsewhere)."""
        theorem = to_theorem(f, t, self._ref)
        return CoqFields(ssreflect=True).on(theorem) if f.path in self.ssreflect else theorem

    def matching(self, patterns: list[str] | None) -> list[str] | None:
        """The files matching any of the globs ``patterns`` (``--files``), in the order asked, each
        once; None for no patterns (every file). A glob that matches nothing is a :class:`UserError`
        naming it, so a typo is not read as "trace nothing"."""
        if not patterns:
            return None
        chosen: list[str] = []
        for pattern in patterns:
            matched = [p for p in self.files if fnmatch.fnmatch(p, pattern)]
            if not matched:
                raise UserError(f"--files {pattern!r} matches no file of {self.project.name} ({self.root})")
            chosen.extend(p for p in matched if p not in chosen)
        return chosen

    def file(self, path: str) -> SourceFile:
        try:
            return self.files[path]
        except KeyError:
            close = difflib.get_close_matches(path, list(self.files), n=3)
            raise FileNotFoundError(f"no file {path!r} in {self.project.name} ({self.root}); close: {close}") from None

    def theorem(self, name: str) -> Theorem:
        """The theorem named ``name`` (``Nat.add_comm`` or ``Coq.Arith.PeanoNat.Nat.add_comm``).

        Raises :class:`TheoremNotFound` with close matches for an unknown name, and for a short
        name defined in several files, listing the qualified names to choose from.
        """
        found = self._by_name.get(name, [])
        if len(found) == 1 and not _openable(*found[0]):
            f = found[0][0]
            raise TheoremNotFound(f"theorem {name!r} of {f.path} cannot be opened: {self.unopenable()[f.path][1]}")
        if len(found) == 1:
            return self._theorem(*found[0])
        if found:
            options = sorted(f"{f.module}.{t.full_name}" for f, t in found)
            raise TheoremNotFound(f"theorem name {name!r} is ambiguous in {self._what}; use one of {options}")
        close = difflib.get_close_matches(name, list(self._by_name), n=5)
        hint = f"; did you mean {', '.join(close)}?" if close else ""
        raise TheoremNotFound(f"no theorem {name!r} in {self._what} at {self.root}{hint}")

    @property
    def _what(self) -> str:
        return "the Coq stdlib" if self.project.is_stdlib else f"Coq project {self.project.name}"


def _openable(f: SourceFile, t: TheoremEntry) -> bool:
    """Whether the theorem ``t`` of ``f`` comes before any sentence of ``f`` that cannot be replayed."""
    return f.stops_at is None or t.offset < f.stops_at


#: a required module that loads ssreflect's tactic language: ``ssreflect`` (the stdlib's, which
#: declares its plugin, or mathcomp's), the ``ssrbool``/``ssrfun``/``ssrnat`` that require it, and
#: mathcomp's ``all_*`` files, which export them (not the stdlib's ``ssrsetoid``/``ssrunder``,
#: which ``Setoid`` loads without the tactic language)
_SSREFLECT_MODULE = re.compile(r"(?:^|\.)(?:ssreflect|ssrbool|ssrfun|ssrnat|all_\w+)$")
_SSREFLECT_FILE = re.compile(r"^ssr/(?:ssreflect|ssrbool|ssrfun)\.v$")


def requires_ssreflect(code: str) -> bool:
    """Whether the sentence ``code`` (comments stripped) requires a module that loads ssreflect's
    tactic language: what marks an ad-hoc statement whose prelude loads it, as a file's requires
    mark its theorems."""
    from .vernacular import REQUIRE

    m = REQUIRE.match(code)
    return m is not None and any(_SSREFLECT_MODULE.search(name) for name in m.group("mods").split())


def _loading_ssreflect(files: dict[str, SourceFile]) -> set[str]:
    """The files (paths, ``files`` in dependency order) whose context loads ssreflect: they require
    it, or a file of the project (or the stdlib's ``ssr/``) that does; a ``Require`` is enough,
    since ssreflect's tactic notations are active once its module is loaded."""
    out: set[str] = set()
    for f in files.values():
        named = f.requires + f.library_requires + f.unresolved_requires
        if (any(_SSREFLECT_MODULE.search(m) for m in named) or any(i in out for i in f.imports)
                or any(_SSREFLECT_FILE.match(i.removeprefix(STDLIB_PREFIX)) for i in f.imports)):
            out.add(f.path)
    return out


def _dependency_order(files: list[SourceFile]) -> list[SourceFile]:
    """Files sorted so that every file comes after the files it imports (ties by path)."""
    by_path = {f.path: f for f in files}
    done: set[str] = set()
    out: list[SourceFile] = []

    def visit(path: str, trail: tuple[str, ...]) -> None:
        if path in done or path not in by_path:
            return
        if path in trail:
            raise StdlibScanError(f"import cycle: {' -> '.join(trail + (path,))}")
        for dep in by_path[path].imports:
            visit(dep, trail + (path,))
        done.add(path)
        out.append(by_path[path])

    for p in sorted(by_path):
        visit(p, ())
    return out


@functools.lru_cache(maxsize=1)
def code_version() -> str:
    """A hash of the scanning code, so that a changed scanner never serves a stale index or corpus."""
    here = Path(__file__).parent
    return source_hash("".join((here / name).read_text() for name in _SCANNER_MODULES))[:10]


def _entry(x: dict) -> TheoremEntry:
    fields: dict[str, Any] = {k: (tuple(map(tuple, v)) if k == "proof" else tuple(v) if isinstance(v, list) else v)
                              for k, v in x.items()}
    return TheoremEntry(**fields)


def _declaration(x: dict) -> Declaration:
    fields: dict[str, Any] = {k: tuple(v) if isinstance(v, list) else v for k, v in x.items()}
    return Declaration(**fields)


def _index_from_json(data: dict) -> list[SourceFile]:
    files = []
    for d in data["files"]:
        decls = [_declaration(x) for x in d.pop("declarations")]
        thms = [_entry(x) for x in d.pop("theorems")]
        adm = [_entry(x) for x in d.pop("admitted")]
        d["sentences"] = [tuple(x) for x in d["sentences"]]
        files.append(SourceFile(**d, declarations=decls, theorems=thms, admitted=adm))
    return files


def _cached_files(cache: Path) -> dict[str, SourceFile]:
    """The files of the cached index ``cache``, or none when there is none. A cache that cannot be
    read back (not JSON, not an index, a link, a FIFO) is only a cache: one warning naming it, and
    the index is rebuilt and written over it, rather than a crash of every command that loads it."""
    try:
        data = read_regular(cache)
        return {} if data is None else {f.path: f for f in _index_from_json(json.loads(data))}
    except (OSError, ValueError, TypeError, KeyError, AttributeError) as exc:
        warnings.warn(f"{cache}: corrupt index cache ({type(exc).__name__}: {str(exc)[:100]}); rebuilding it",
                      RuntimeWarning, stacklevel=3)
        return {}


def load_index(project: CoqProject | None = None, rebuild: bool = False, progress: bool = True,
               failed: dict[str, str] | None = None) -> CoqIndex:
    """The index of ``project`` (default: the installed stdlib), from the cache when it is current.

    The cache is keyed by the Coq version, the project (:attr:`CoqProject.key`) and
    :func:`code_version`; a file whose contents changed since (by SHA-1) is rescanned. ``failed``
    (path -> coqc's error, from :func:`prover.coq.build.build_project`) marks files whose theorems
    are left out. A project's file the scan cannot read is left out too, with the scan's error;
    in the stdlib that is a bug of the scanner and raises. A file that cannot be read as text at
    all (a FIFO, not UTF-8) is a :class:`~prover.coq.project.ProjectError` naming it.
    """
    project = project or stdlib_project()
    root = project.root
    cache = cache_dir() / f"index-{code_version()}-{project.key}-{source_hash(str(root.resolve()))[:8]}.json"
    cached = {} if rebuild else _cached_files(cache)
    modules = logical_modules(root, project)
    paths = sorted(modules.values())
    files: list[SourceFile] = []
    failed = dict(failed or {})
    changed = False
    bar = None
    if progress and len(cached) < len(paths) // 2:
        from tqdm import tqdm

        # cleared when done: what follows (a build's bar, or the one line of a project refused for
        # what its scan found) takes its place on the terminal
        bar = tqdm(total=len(paths), desc=f"indexing {project.name}", unit="file", file=sys.stderr, leave=False)
    for p in paths:
        if bar:
            bar.update()
        f = cached.get(p)
        if f is None or f.sha1 != source_hash(read_source(root, p)):
            try:
                f = scan_file(root, p, modules, project)
            except (StdlibScanError, SentenceSplitError) as exc:
                if project.is_stdlib:
                    raise
                failed.setdefault(p, f"cannot scan: {exc}")
                continue
            changed = True
        files.append(f)
    if bar:
        bar.close()
    if changed or len(cached) != len(files):
        cache.parent.mkdir(parents=True, exist_ok=True)
        # workers may index at once: each writes a fresh name and renames it over the cache
        replace_file(cache, json.dumps({"coq": coq_version(), "files": [asdict(f) for f in files]}).encode(), fsync=False)
    return CoqIndex(root, files, project, failed)
