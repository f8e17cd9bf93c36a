"""Which of a project's compiled libraries a kernel has checked, so that a proof's check may load them.

The final check runs ``coqchk -norec`` on the proof's own library: every library that one loads is
taken as it is. The stdlib's and the installed libraries' ``.vo`` files are the system's
(:mod:`prover.coq.provenance` makes sure they come from there). A project's other ``.vo`` files
come from the user's tree, where anything may have written them: a repository that ships ``.vo``
files newer than their sources (the build keeps those, :mod:`prover.coq.build`), or a crafted
file whose lemma no kernel ever checked, which coqc loads without a look at its proofs.

So a project ``.vo`` is trusted by its content. Its SHA-256 is recorded when
:func:`prover.coq.build.compile_file` made it with coqc (whose kernel checks every proof as it
compiles), or when coqchk re-checked it in an earlier final check. The build compiles again any
``.vo`` no record vouches for, however current it looks, and the final check re-checks with
coqchk any that changed since, before it accepts a proof, and records it (:mod:`prover.coq.verify`). A
record is an empty file named by the digest, under the user cache, one directory per Coq
version: concurrent workers share them, and a record is never half written.
"""

from __future__ import annotations

import functools
import hashlib
from collections.abc import Mapping
from pathlib import Path

from search_tree.cache import cache_root

from .install import coq_version


def ledger() -> Path:
    """The directory of the records: ``<cache>/checked-vo/<Coq version>``."""
    return cache_root() / "checked-vo" / coq_version()


def digest(path: Path) -> str:
    """The SHA-256 of the file at ``path``, in hex (memoised while its size and mtime stay)."""
    stat = path.stat()
    return _digest(str(path.resolve()), stat.st_size, stat.st_mtime_ns)


@functools.lru_cache(maxsize=4096)
def _digest(path: str, size: int, mtime_ns: int) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def record(path: Path) -> None:
    """Record the ``.vo`` at ``path``, as its content is now, as checked by a kernel."""
    directory = ledger()
    directory.mkdir(parents=True, exist_ok=True)
    (directory / digest(path)).touch()


def recorded(path: Path) -> bool:
    """Whether a record vouches for the ``.vo`` at ``path`` as its content is now."""
    return (ledger() / digest(path)).exists()


def unchecked(libraries: Mapping[str, Path]) -> dict[str, Path]:
    """The libraries among ``libraries`` (name to ``.vo``) whose content no record vouches for."""
    return {name: path for name, path in libraries.items() if not recorded(path)}
