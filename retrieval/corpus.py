"""Premise corpora in LeanDojo's ``corpus.jsonl`` format, with accessibility and cached symbols.

One JSON object per line and per source file, dependencies first::

    {"path": "Mathlib/Order/Basic.lean", "imports": ["Mathlib/Init/Order.lean", ...],
     "premises": [{"full_name": "le_rfl", "code": "theorem le_rfl : a ≤ a", "start": [10, 1],
                   "end": [10, 30], "kind": "theorem"}, ...]}

The Coq tracer writes the same format (``.v`` paths), so one loader serves both languages. A corpus
is built with its :class:`~search_tree.language.Language` (the backend's, or the one whose file
suffix its files have, :func:`prover.backends.language_of`), which the symbol retrievers need;
accessibility and the text retrievers need none.

A premise is *accessible* from a theorem when it is declared in a file the theorem's file imports
(transitively), or earlier in the theorem's own file (ReProver's definition): a prover may only
use what Lean or Coq would let it refer to.
"""

from __future__ import annotations

import copy
import hashlib
import json
from dataclasses import dataclass
from functools import cached_property, lru_cache
from pathlib import Path
from typing import Iterable

import numpy as np

from retrieval.symbols import extract_symbols
from search_tree.language import Language
from search_tree.errors import UserError
from search_tree.safe_files import read_regular

Position = tuple[int, int]

# kinds whose declared name is a constant other statements mention (a definition is "about"
# its own name); a theorem's name is not part of what it states
_DEFINING_KINDS = frozenset({"def", "abbrev", "structure", "class", "inductive", "instance", "opaque",
                             "Definition", "Fixpoint", "Inductive", "Record", "Class", "Instance"})


class CorpusFormatError(UserError, ValueError):
    """A line of a ``corpus.jsonl`` is not a file record (the message names file and line)."""


@dataclass(frozen=True)
class Premise:
    """One declaration of the corpus: its name, header text, file and span. ``module`` and
    ``parametric`` are what a Coq corpus adds to say how a tactic can name it (the logical module
    of its file, "" where the corpus does not say; declared in a functor's or module type's body:
    :mod:`prover.coq.corpus`)."""

    full_name: str
    code: str
    path: str
    start: Position
    end: Position
    kind: str = ""
    module: str = ""
    parametric: bool = False

    def name_from(self, path: str) -> str:
        """The name a tactic in file ``path`` writes for this premise so that Coq finds it.

        A parametric premise is no constant: only its short name can reach it, through an
        instance or an ``Include`` in scope. From another file the logical module qualifies the
        name fully: a transitively required file is loaded but not imported, so its short or
        module-relative name is not in scope (in a learn run's searches of the stdlib's training
        split, 75% of the ``sauto use:`` calls failed on a name "not found" before this rule; 78%
        of those names resolve under it: ``benchmarks/results/use_premise_names.md``). Lean's names and
        a corpus without modules keep ``full_name``."""
        if self.parametric:
            return self.full_name.rsplit(".", 1)[-1]
        if self.module and path != self.path:
            return f"{self.module}.{self.full_name}"
        return self.full_name

    @property
    def text(self) -> str:
        """The text retrievers read: the full name, then the header (whose name may be short)."""
        return f"{self.full_name} : {self.code}" if self.full_name not in self.code else self.code


@dataclass(frozen=True)
class _File:
    path: str
    imports: tuple[str, ...]
    first: int  # premises of a file are contiguous in the corpus: [first, stop)
    stop: int


def _position(value: object, what: str) -> Position:
    if not (isinstance(value, (list, tuple)) and len(value) == 2
            and all(isinstance(v, int) and not isinstance(v, bool) for v in value)):
        raise ValueError(f"{what} is {json.dumps(value)[:40]}, not [line, column]")
    return int(value[0]), int(value[1])


def _text(value: object, what: str) -> str:
    if not isinstance(value, str):
        raise ValueError(f"{what} is {json.dumps(value)[:40]}, not a string")
    return value


def _file_record(obj: object) -> tuple[str, list[str], list[Premise]]:
    """One line of a corpus: (path, imports, premises); a ``ValueError`` or ``KeyError`` saying
    which field is missing or of the wrong type."""
    if not isinstance(obj, dict):
        raise ValueError(f"a JSON {type(obj).__name__}, not a file record")
    file_path, module = _text(obj["path"], "path"), _text(obj.get("module", ""), "module")
    imports, raw = obj.get("imports", []), obj["premises"]
    if not (isinstance(imports, list) and all(isinstance(i, str) for i in imports)):
        raise ValueError("imports is not a list of paths")
    if not (isinstance(raw, list) and all(isinstance(p, dict) for p in raw)):
        raise ValueError("premises is not a list of objects")
    premises = [
        Premise(_text(p["full_name"], "full_name"), _text(p.get("code", ""), "code"), file_path,
                _position(p["start"], "start"), _position(p["end"], "end"), _text(p.get("kind", ""), "kind"),
                module, p.get("parametric", False) is True)
        for p in raw
    ]
    return file_path, list(imports), premises


class Corpus:
    """All premises of a corpus, in file order, with lookups by name and accessibility masks;
    ``language`` is needed only for :attr:`symbols` (MePo, SInE) and for reading the names a
    proof mentions (:func:`retrieval.training_data.pairs_from_proofs`)."""

    def __init__(self, files: Iterable[tuple[str, list[str], list[Premise]]], source: str = "<memory>",
                 language: Language | None = None) -> None:
        self.source = source
        self._language = language
        self.premises: list[Premise] = []
        self._files: dict[str, _File] = {}
        for path, imports, premises in files:
            first = len(self.premises)
            self.premises.extend(premises)
            self._files[path] = _File(path, tuple(imports), first, len(self.premises))
        self._index: dict[str, int] = {}
        for i, p in enumerate(self.premises):
            self._index.setdefault(p.full_name, i)
        self._starts = np.array([p.start for p in self.premises], dtype=np.int64).reshape(-1, 2)

    @classmethod
    def from_jsonl(cls, path: str | Path, language: Language | None = None) -> "Corpus":
        """Load ``corpus.jsonl``; a malformed line raises :class:`CorpusFormatError` naming file and line."""
        path = Path(path)
        try:
            files = cls._read_files(path)
        except UnicodeDecodeError as exc:
            raise CorpusFormatError(f"{path}: not UTF-8 text ({exc})") from None
        return cls(files, source=str(path), language=language)

    @staticmethod
    def _read_files(path: Path) -> list[tuple[str, list[str], list[Premise]]]:
        """The file records of ``corpus.jsonl`` at ``path`` (see :meth:`from_jsonl`), each field of
        the type the retrievers use: a corpus is input, and a wrong type would surface far away
        (a number for a path, text for a position) as a traceback. Read only as a regular file,
        so a FIFO cannot make the command hang."""
        data = read_regular(path)
        if data is None:
            raise CorpusFormatError(f"{path}: no such corpus file")
        files = []
        for lineno, line in enumerate(data.decode("utf-8").splitlines(), 1):
            if not line.strip():
                continue
            try:
                files.append(_file_record(json.loads(line)))
            except (json.JSONDecodeError, KeyError, TypeError, ValueError) as e:
                detail = f"missing field {e}" if isinstance(e, KeyError) else str(e)
                raise CorpusFormatError(f"{path}:{lineno}: malformed corpus line ({detail})") from e
        return files

    def __len__(self) -> int:
        return len(self.premises)

    def __contains__(self, full_name: str) -> bool:
        return full_name in self._index

    def __getitem__(self, full_name: str) -> Premise:
        return self.premises[self._index[full_name]]

    def index_of(self, full_name: str) -> int | None:
        """Position of the premise named ``full_name`` in :attr:`premises`, or None."""
        return self._index.get(full_name)

    def declared_in(self, full_name: str, path: str) -> int | None:
        """Position of the premise ``full_name`` declared in file ``path`` (by name alone when
        ``path`` is not a corpus file); names repeat across files, so the file decides which."""
        f = self._files.get(path)
        if f is None:
            return self.index_of(full_name)
        return next((i for i in range(f.first, f.stop) if self.premises[i].full_name == full_name), None)

    @property
    def files(self) -> list[str]:
        return list(self._files)

    def in_language(self, language: Language | None) -> "Corpus":
        """This corpus (premises shared, not copied) built with ``language``."""
        other = copy.copy(self)
        other._language = language
        other.__dict__.pop("symbols", None)
        return other

    @property
    def language(self) -> Language:
        """The language the corpus was built with (a :class:`UserError` if none was given)."""
        if self._language is None:
            raise UserError(f"corpus {self.source} was loaded without its language, which symbol-based "
                            "retrieval (mepo, sine) and the names read in proofs need: give the backend "
                            "(--env) or the language (--language) it belongs to")
        return self._language

    @cached_property
    def fingerprint(self) -> str:
        """A hash of every premise's name and text: the key of indexes built from this corpus."""
        h = hashlib.sha256()
        for p in self.premises:
            h.update(p.full_name.encode())
            h.update(b"\0")
            h.update(p.code.encode())
            h.update(b"\1")
        return h.hexdigest()[:16]

    @lru_cache(maxsize=512)  # noqa: B019 (bounded; a corpus lives as long as its run anyway)
    def imported_files(self, path: str) -> frozenset[str]:
        """Files that ``path`` imports, transitively (imports missing from the corpus are skipped)."""
        seen: set[str] = set()
        stack = list(self._files[path].imports) if path in self._files else []
        while stack:
            p = stack.pop()
            if p in seen or p not in self._files:
                continue
            seen.add(p)
            stack.extend(self._files[p].imports)
        return frozenset(seen)

    def accessible_mask(self, path: str, position: Position | None = None) -> np.ndarray | None:
        """Boolean mask over :attr:`premises` of those accessible from ``path`` at ``position``.

        None when ``path`` is not a file of the corpus (nothing is known, nothing is hidden).
        Without a position, every premise of the file itself counts as accessible.
        """
        if path not in self._files:
            return None
        return self._mask(path, tuple(position) if position is not None else None).copy()

    @lru_cache(maxsize=256)  # noqa: B019 (bounded; a corpus lives as long as its run anyway)
    def _mask(self, path: str, position: Position | None) -> np.ndarray:
        mask = np.zeros(len(self.premises), dtype=bool)
        for dep in self.imported_files(path):
            f = self._files[dep]
            mask[f.first:f.stop] = True
        own = self._files[path]
        if position is None:
            mask[own.first:own.stop] = True
        else:
            starts = self._starts[own.first:own.stop]
            before = (starts[:, 0] < position[0]) | ((starts[:, 0] == position[0]) & (starts[:, 1] < position[1]))
            mask[own.first:own.stop] = before
        return mask

    def restrict(self, keep: Iterable[int]) -> "Corpus":
        """A corpus of the premises at indices ``keep`` only, with every file and import kept.

        Used to evaluate on a documented sub-corpus when encoding the whole one is too slow.
        """
        keep_set = set(keep)
        return Corpus(
            ((f.path, list(f.imports), [self.premises[i] for i in range(f.first, f.stop) if i in keep_set])
             for f in self._files.values()),
            source=f"{self.source} (subset of {len(keep_set)})", language=self._language,
        )

    def is_accessible(self, premise: Premise, path: str, position: Position | None = None) -> bool:
        """Whether ``premise`` may be used by a theorem of ``path`` declared at ``position``."""
        if path not in self._files:
            return True
        if premise.path == path:
            return position is None or tuple(premise.start) < tuple(position)
        return premise.path in self.imported_files(path)

    @cached_property
    def symbols(self) -> list[frozenset[str]]:
        """Each premise's symbol set (see :mod:`retrieval.symbols`), computed once per corpus."""
        out = []
        for p in self.premises:
            syms = extract_symbols(p.code, self.language)
            if p.kind in _DEFINING_KINDS:
                syms.add(p.full_name)
            out.append(frozenset(syms))
        return out
