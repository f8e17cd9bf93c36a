"""The index of the installed stdlib: files in dependency order, theorems by name, cached as JSON.

The index is cached under :func:`prover.coq.install.cache_dir` (one directory per Coq version),
keyed by the scanning code itself, and a file is rescanned when its contents change.
"""

from __future__ import annotations

import difflib
import functools
import json
import sys
from dataclasses import asdict
from pathlib import Path

from search_tree.protocol import Theorem, TheoremNotFound

from .install import cache_dir, coq_version, stdlib_root
from .records import Declaration, SourceFile, StdlibScanError, TheoremEntry, to_theorem
from .scanner import logical_modules, scan_file, source_hash

# the modules whose code decides what the scan produces (see code_version)
_SCANNER_MODULES = ("sentences.py", "vernacular.py", "records.py", "scanner.py", "index.py")


class StdlibIndex:
    """The indexed standard library: files in dependency order, theorems by name."""

    def __init__(self, root: Path, files: list[SourceFile]) -> None:
        self.root = root
        self.files: dict[str, SourceFile] = {f.path: f for f in _dependency_order(files)}
        self._by_name: dict[str, list[tuple[SourceFile, TheoremEntry]]] = {}
        for f in self.files.values():
            for t in f.theorems:
                self._by_name.setdefault(t.full_name, []).append((f, t))
                self._by_name.setdefault(f"{f.module}.{t.full_name}", []).append((f, t))

    def theorems(self, files: list[str] | None = None) -> list[Theorem]:
        """Theorems with a Qed/Defined proof, in file order; optionally only those of ``files``."""
        chosen = self.files.values() if files is None else [self.file(p) for p in files]
        return [to_theorem(f, t) for f in chosen for t in f.theorems]

    def file(self, path: str) -> SourceFile:
        try:
            return self.files[path]
        except KeyError:
            close = difflib.get_close_matches(path, list(self.files), n=3)
            raise FileNotFoundError(f"no stdlib file {path!r} under {self.root}; close: {close}") from None

    def theorem(self, name: str) -> Theorem:
        """The theorem named ``name`` (``Nat.add_comm`` or ``Coq.Arith.PeanoNat.Nat.add_comm``).

        Raises :class:`TheoremNotFound` with close matches for an unknown name, and for a short
        name defined in several files, listing the qualified names to choose from.
        """
        found = self._by_name.get(name, [])
        if len(found) == 1:
            return to_theorem(*found[0])
        if found:
            options = sorted(f"{f.module}.{t.full_name}" for f, t in found)
            raise TheoremNotFound(f"theorem name {name!r} is ambiguous in the Coq stdlib; use one of {options}")
        close = difflib.get_close_matches(name, list(self._by_name), n=5)
        hint = f"; did you mean {', '.join(close)}?" if close else ""
        raise TheoremNotFound(f"no theorem {name!r} in the Coq stdlib at {self.root}{hint}")


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


def _index_from_json(data: dict) -> list[SourceFile]:
    files = []
    for d in data["files"]:
        decls = [Declaration(**{k: tuple(v) if isinstance(v, list) else v for k, v in x.items()}) for x in d.pop("declarations")]
        thms = [
            TheoremEntry(**{k: (tuple(map(tuple, v)) if k == "proof" else tuple(v) if isinstance(v, list) else v) for k, v in x.items()})
            for x in d.pop("theorems")
        ]
        d["sentences"] = [tuple(x) for x in d["sentences"]]
        files.append(SourceFile(**d, declarations=decls, theorems=thms))
    return files


def load_index(root: Path | None = None, rebuild: bool = False, progress: bool = True) -> StdlibIndex:
    """The index of ``root`` (default: the installed stdlib), from the cache when it is current.

    The cache is keyed by the Coq version, the sources root and :func:`code_version`; a file whose
    contents changed since (by SHA-1) is rescanned.
    """
    root = root or stdlib_root()
    cache = cache_dir() / f"stdlib-index-{code_version()}-{source_hash(str(root.resolve()))[:8]}.json"
    cached: dict[str, SourceFile] = {}
    if cache.exists() and not rebuild:
        cached = {f.path: f for f in _index_from_json(json.loads(cache.read_text()))}
    modules = logical_modules(root)
    paths = sorted(modules.values())
    files: list[SourceFile] = []
    changed = False
    bar = None
    if progress and len(cached) < len(paths) // 2:
        from tqdm import tqdm

        bar = tqdm(total=len(paths), desc="indexing Coq stdlib", unit="file", file=sys.stderr)
    for p in paths:
        f = cached.get(p)
        if f is None or f.sha1 != source_hash((root / p).read_text()):
            f = scan_file(root, p, modules)
            changed = True
        files.append(f)
        if bar:
            bar.update()
    if bar:
        bar.close()
    if changed or len(cached) != len(files):
        cache.parent.mkdir(parents=True, exist_ok=True)
        tmp = cache.with_suffix(".tmp")
        tmp.write_text(json.dumps({"coq": coq_version(), "files": [asdict(f) for f in files]}))
        tmp.replace(cache)
    return StdlibIndex(root, files)
