"""The benchmark split of a Coq project: by file, deterministic; the stdlib's is shipped in ``data/stdlib_split.json``.

Benchmark names (:mod:`prover.benchmarks.registry`): ``coq-stdlib[:split]``, ``coq-project:PATH[:split]``,
``coq-lib:NAME[:split]``, or a JSON/JSONL file listing theorems (:func:`listed_theorems`).
"""

from __future__ import annotations

import functools
import hashlib
import json
from pathlib import Path

from search_tree.errors import UserError
from search_tree.protocol import Theorem, TheoremNotFound
from search_tree.safe_files import read_text

from .index import CoqIndex, load_index
from .project import LIBRARY_PREFIX, CoqProject, load_project, stdlib_project
from .records import CoqFields

SPLITS = ("train", "val", "test")
SPLIT_FILE = Path(__file__).parent / "data" / "stdlib_split.json"


def split_of(path: str, project: CoqProject | None = None) -> str:
    """The split of a project's file (default: the stdlib's): by SHA-256 of its logical module name,
    80% train, 10% val, 10% test.

    Splitting by file (not by theorem) keeps a test theorem's neighbours, which often restate it,
    out of the training data; hashing the name makes the split independent of file order and of
    files added later.
    """
    bucket = int(hashlib.sha256((project or stdlib_project()).module(path).encode()).hexdigest(), 16) % 100
    return "train" if bucket < 80 else "val" if bucket < 90 else "test"


def compute_split(paths: list[str], project: CoqProject | None = None) -> dict[str, list[str]]:
    """The split of ``paths`` (as stored in :data:`SPLIT_FILE` for the stdlib)."""
    out: dict[str, list[str]] = {s: [] for s in SPLITS}
    for p in sorted(paths):
        out[split_of(p, project)].append(p)
    return out


def project_split(project: CoqProject, paths: list[str]) -> dict[str, list[str]]:
    """The split of a project's files: the shipped one for the stdlib (so that it stays fixed
    whatever the installed version adds), computed from the names for any other project."""
    return load_split() if project.is_stdlib else compute_split(paths, project)


@functools.lru_cache(maxsize=1)
def load_split() -> dict[str, list[str]]:
    """The shipped split: ``{"train": [file paths], "val": [...], "test": [...]}`` (paths under theories/)."""
    data = json.loads(SPLIT_FILE.read_text())
    return {s: data[s] for s in SPLITS}


def stdlib_theorems(split: str | None = None, index: CoqIndex | None = None) -> list[Theorem]:
    """The benchmark: theorems with a Qed/Defined proof in the files of ``split`` (all when ``None``)."""
    return project_theorems(index or load_index(), split)


def project_theorems(index: CoqIndex, split: str | None = None) -> list[Theorem]:
    """A project's theorems with a Qed/Defined proof in the files of ``split`` (all when ``None``)."""
    if split is None:
        return index.theorems()
    if split not in SPLITS:
        raise ValueError(f"unknown split {split!r}; expected one of {SPLITS}")
    wanted = set(project_split(index.project, list(index.files))[split])
    return index.theorems([p for p in index.files if p in wanted])


def short_theorems(split: str, max_sentences: int, index: CoqIndex | None = None) -> list[Theorem]:
    """The theorems of ``split`` whose library proof has at most ``max_sentences`` sentences
    (``Proof.`` included): the population that the demo and cheap measurements draw from."""
    index = index or load_index()
    return [t for t in stdlib_theorems(split, index) if _proof_length(index, t) <= max_sentences]


def _proof_length(index: CoqIndex, theorem: Theorem) -> int:
    """Sentences of the library's own proof of ``theorem`` (``Proof.`` included)."""
    entry = next(e for e in index.file(theorem.file_path).theorems if e.offset == CoqFields.of(theorem).offset)
    return len(entry.proof)


def _named(rest: str) -> tuple[str, str | None]:
    """``PATH[:split]`` -> (PATH, split)."""
    head, sep, tail = rest.rpartition(":")
    return (head, tail) if sep and tail in SPLITS else (rest, None)


def _project_index(project: CoqProject) -> CoqIndex:
    from .build import project_index

    return project_index(project, progress=False)


def coq_project_benchmark(rest: str) -> list[Theorem]:
    """``coq-project:PATH[:split]``: the project at PATH (built first where ``.vo`` are stale)."""
    path, split = _named(rest)
    return project_theorems(_project_index(load_project(path)), split)


def coq_lib_benchmark(rest: str) -> list[Theorem]:
    """``coq-lib:NAME[:split]``: an installed library under ``user-contrib/NAME``."""
    name, split = _named(rest)
    return project_theorems(_project_index(load_project(LIBRARY_PREFIX + name)), split)


def listed_theorems(path: str) -> list[Theorem]:
    """The theorems a JSON list or JSONL file names, one object each: ``{"project": spec, "file":
    path in the project, "name": theorem, "flags": [...] (optional)}``; ``project`` is a
    directory (relative to the listing's own directory), ``coq-lib:NAME`` or ``coq-stdlib``.
    A name not in its project raises with close matches, naming the entry; so does an entry of
    another shape (:func:`_listed_entry`)."""
    listing = Path(path)
    out: list[Theorem] = []
    indexes: dict[tuple, CoqIndex] = {}
    for n, entry in enumerate(_listing_entries(listing), 1):
        where = f"benchmark listing {path}, entry {n}"
        spec, file, name, flags = _listed_entry(entry, where)
        if not (spec == "coq-stdlib" or spec.startswith(LIBRARY_PREFIX) or Path(spec).is_absolute()):
            spec = str((listing.parent / spec).resolve())
        if (spec, flags) not in indexes:
            indexes[(spec, flags)] = _project_index(load_project(spec, flags))
        index = indexes[(spec, flags)]
        try:
            found = [t for t in index.theorems([index.file(file).path]) + index.admitted([file])
                     if name in (t.full_name, CoqFields.of(t).qualified_name)]
            if not found:
                index.theorem(name)  # raises with close matches when the name is unknown
                raise TheoremNotFound(f"{name!r} is not in {file}")
        except (TheoremNotFound, FileNotFoundError) as exc:
            raise UserError(f"{where}: {exc}") from None
        out.append(found[0])
    return out


def _listing_entries(listing: Path) -> list[object]:
    """The entries of a benchmark listing: a ``.json`` file's top-level list, or a JSONL file's
    lines. Read by :func:`read_text` (a FIFO or a link is refused, not waited on or followed); text
    that is not JSON, or a ``.json`` file that is not a list, is a :class:`UserError` naming it."""
    text = read_text(listing)
    where = f"benchmark listing {listing}"
    try:
        if listing.name.endswith(".json"):
            entries = json.loads(text)
            if not isinstance(entries, list):
                raise UserError(f"{where}: expected a JSON list of objects, got {json.dumps(entries)[:60]}")
            return entries
        return [_jsonl_line(x, n, where) for n, x in enumerate(text.splitlines(), 1) if x.strip()]
    except (json.JSONDecodeError, RecursionError) as exc:
        raise UserError(f"{where}: not valid JSON ({exc})") from None


def _jsonl_line(line: str, n: int, where: str) -> object:
    try:
        return json.loads(line)
    except json.JSONDecodeError as exc:
        raise UserError(f"{where}: line {n} is not valid JSON ({exc})") from None


def _listed_entry(entry: object, where: str) -> tuple[str, str, str, tuple[str, ...] | None]:
    """``(project, file, name, flags)`` of a listing's entry, or a :class:`UserError` naming
    ``where``: the fields are used as paths, names and coqc flags, so an entry of another shape
    (a number, a list for a name, flags that are no list of strings) is refused here rather than
    failing as a type error deep in the index."""
    if not isinstance(entry, dict) or not all(isinstance(entry.get(k), str) for k in ("project", "file", "name")):
        raise UserError(f"{where}: expected an object with the strings project, file and name, "
                        f"got {json.dumps(entry)[:100]}")
    flags = entry.get("flags")
    if flags is not None and not (isinstance(flags, list) and all(isinstance(f, str) for f in flags)):
        raise UserError(f"{where}: flags must be a list of strings, got {json.dumps(flags)[:60]}")
    return entry["project"], entry["file"], entry["name"], tuple(flags) if flags else None
