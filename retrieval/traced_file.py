"""Reading a traced file: theorems in LeanDojo's benchmark format, as Lean's tracing and
``dojo-prover trace`` write them (a JSON list, or JSON Lines).

Imports nothing heavy, so that kNN, proof retrieval and the benchmarks read traces without numpy or
torch loaded.
"""

from __future__ import annotations

import functools
import json
from pathlib import Path

from search_tree.errors import UserError


def load_traced(path: str | Path) -> list[dict]:
    """Traced theorems in LeanDojo benchmark format (a JSON list, or JSON lines).

    The one reader of a traced file. A worker of the default Coq prover reads the same traced
    splits three times as it is built (the kNN and proof-retrieval generators and the kNN premise
    retriever: about 1.5 s and 200 MB each for Coq's stdlib), so a file's parse is kept for the
    process while the file is unchanged (by size and modification time). The list is new at each
    call; its theorems are shared and must not be changed.
    """
    resolved = Path(path).resolve()
    stat = resolved.stat()
    return list(_parse_traced(resolved, stat.st_mtime_ns, stat.st_size))


@functools.lru_cache(maxsize=8)
def _parse_traced(path: Path, mtime_ns: int, size: int) -> tuple[dict, ...]:
    """The records of the traced file ``path`` as it is at ``mtime_ns`` and ``size`` (the cache key)."""
    try:
        text = path.read_text(encoding="utf-8")
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
