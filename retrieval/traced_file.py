"""Reading a traced file: theorems in LeanDojo's benchmark format, as Lean's tracing and
``dojo-prover trace`` write them (a JSON list, or JSON Lines).

Imports nothing heavy, so that kNN, proof retrieval and the benchmarks read traces without numpy or
torch loaded.
"""

from __future__ import annotations

import functools
import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from search_tree.errors import UserError
from search_tree.safe_files import read_regular


def load_traced(path: str | Path) -> list[dict]:
    """Traced theorems in LeanDojo benchmark format (a JSON list, or JSON lines).

    The one reader of a traced file. A worker of the default Coq prover reads the same traced
    splits three times as it is built (the kNN and proof-retrieval generators and the kNN premise
    retriever: about 1.5 s and 200 MB each for Coq's stdlib), so a file's parse is kept for the
    process while the file is unchanged (by size and modification time). The list is new at each
    call; its theorems are shared and must not be changed.
    """
    resolved = Path(path).resolve()
    try:
        stat = resolved.stat()
    except FileNotFoundError:
        raise TracedFormatError(f"{path}: no such traced file") from None
    return list(_parse_traced(resolved, stat.st_mtime_ns, stat.st_size))


@functools.lru_cache(maxsize=8)
def _parse_traced(path: Path, mtime_ns: int, size: int) -> tuple[dict, ...]:
    """The records of the traced file ``path`` as it is at ``mtime_ns`` and ``size`` (the cache key)."""
    raw = read_regular(path)  # a FIFO is refused, never waited on
    if raw is None:
        raise TracedFormatError(f"{path}: no such traced file")
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise TracedFormatError(f"{path}: not UTF-8 text ({exc})") from None
    try:
        data = json.loads(text)
    except json.JSONDecodeError:
        data = []
        for number, line in enumerate(text.splitlines(), 1):
            if not line.strip():
                continue
            try:
                data.append(json.loads(line))
            except json.JSONDecodeError as exc:
                raise TracedFormatError(f"{path}:{number}: neither a JSON list nor JSON lines ({exc})") from None
    records = tuple(data) if isinstance(data, list) else (data,)
    odd = next((r for r in records if not isinstance(r, dict)), None)
    if odd is not None:
        raise TracedFormatError(f"{path}: a traced file holds theorem objects, not a JSON {type(odd).__name__}")
    return records


class TracedFormatError(UserError, ValueError):
    """A traced file that is not LeanDojo's format (the message names the file, and the line)."""


@dataclass(frozen=True)
class TracedTactic:
    """One tactic of a human proof with the states around it and the premises it names."""

    tactic: str
    annotated_tactic: str  # the tactic with premises marked `<a>name</a>`
    premises: tuple[dict[str, Any], ...]  # provenance: full_name, def_path, def_pos, def_end_pos
    state_before: str
    state_after: str


#: the fields every traced theorem has (LeanDojo's format, and what ``dojo-prover trace`` writes)
THEOREM_FIELDS = ("url", "commit", "file_path", "full_name", "start", "end")


def traced_pair(value: Any, what: str, where: str, error: type[UserError] = TracedFormatError) -> tuple[int, int]:
    """``value`` as a ``[line, column]`` position, or an ``error`` naming ``where``."""
    if not (isinstance(value, (list, tuple)) and len(value) == 2
            and all(isinstance(v, int) and not isinstance(v, bool) for v in value)):
        raise error(f"{where}: {what} must be [line, column], got {value!r}")
    return int(value[0]), int(value[1])


def traced_tactic(raw: Any, where: str, error: type[UserError] = TracedFormatError) -> TracedTactic:
    """One record of a theorem's ``traced_tactics``, each field of its type (the premises objects
    with a ``full_name``), or an ``error`` naming ``where``."""
    try:
        annotated = raw.get("annotated_tactic") or [raw["tactic"], []]
        text, premises = annotated
        tactic = TracedTactic(raw["tactic"], text, tuple(premises), raw["state_before"], raw["state_after"])
    except (KeyError, TypeError, ValueError, AttributeError) as exc:
        raise error(f"{where}: malformed traced tactic ({exc!r})") from exc
    odd = next((name for name in ("tactic", "annotated_tactic", "state_before", "state_after")
                if not isinstance(getattr(tactic, name), str)), None)
    if odd is not None:
        raise error(f"{where}: malformed traced tactic ({odd} is not text)")
    if not (isinstance(premises, list) and all(isinstance(p, dict) and isinstance(p.get("full_name"), str)
                                               for p in premises)):
        raise error(f"{where}: malformed traced tactic (its annotated premises are not objects with a full_name)")
    return tactic


def traced_tactics(raw: Any, where: str, error: type[UserError] = TracedFormatError) -> tuple[TracedTactic, ...]:
    """The traced tactics of the theorem record ``raw``, once it has :data:`THEOREM_FIELDS` (its
    positions ``[line, column]``, its names text): the one check of a traced theorem, which
    ``prover.benchmarks.datasets`` and the retrieval evaluation share; else an ``error`` naming ``where``."""
    if not isinstance(raw, dict):
        raise error(f"{where}: expected an object, got {type(raw).__name__}")
    missing = [k for k in THEOREM_FIELDS if k not in raw]
    if missing:
        raise error(f"{where}: missing {', '.join(missing)}")
    odd = next((k for k in ("file_path", "full_name") if not isinstance(raw[k], str)), None)
    if odd is not None:
        raise error(f"{where}: {odd} must be text, got {raw[odd]!r}"[:200])
    traced_pair(raw["start"], "start", where, error)
    traced_pair(raw["end"], "end", where, error)
    tactics = raw.get("traced_tactics") or []
    if not isinstance(tactics, list):
        raise error(f"{where}: traced_tactics must be a list, got {type(tactics).__name__}")
    return tuple(traced_tactic(t, f"{where}, tactic {i}", error) for i, t in enumerate(tactics))


def load_checked(path: str | Path) -> list[dict]:
    """The theorems of the traced file ``path`` (:func:`load_traced`), each checked by
    :func:`traced_tactics`: for a reader that indexes their fields (the retrieval evaluation)."""
    theorems = load_traced(path)
    for i, raw in enumerate(theorems):
        traced_tactics(raw, f"{path}[{i}]")
    return theorems
