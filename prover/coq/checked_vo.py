"""Which of a project's compiled libraries a kernel has checked, so that a proof's check may load them.

The final check runs ``coqchk -norec`` on the proof's own library: every library that one loads is
taken as it is. The stdlib's and the installed libraries' ``.vo`` files are the system's
(:mod:`prover.coq.provenance` makes sure they come from there). A project's other ``.vo`` files
come from the user's tree, where anything may have written them: a repository that ships ``.vo``
files newer than their sources (the build keeps those, :mod:`prover.coq.build`), or a crafted
file whose lemma no kernel ever checked, which coqc loads without a look at its proofs.

So a project ``.vo`` is trusted by its content, and only coqchk vouches for it: :func:`check`
runs ``coqchk -norec`` on it and records its SHA-256 when coqchk accepts it. The build checks
each file it compiles so (:func:`prover.coq.build.compile_file`), and compiles again any ``.vo``
no record vouches for, however current it looks; the final check re-checks any that changed
since, before it accepts a proof (:mod:`prover.coq.verify`). coqc's own word is not enough:
compiling a project's file runs code of the file's choosing, which could swap the ``.vo`` between
coqc's exit and its record. No Coq process can write a record or a project's ``.vo``
(:func:`prover.coq.sandbox.confined`); coqchk runs no code of the files it reads. A record is an
empty file named by the digest, under the user cache, one directory per Coq version: concurrent
workers share them, and a record is never half written.
"""

from __future__ import annotations

import functools
import hashlib
import subprocess
from collections.abc import Mapping, Sequence
from pathlib import Path

from search_tree.cache import cache_root

from .assumptions import CHECKED, last_error, parse_loaded
from .install import coq_version
from .sandbox import confined, sandbox_dir, sandbox_env


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


def recorded(path: Path) -> bool:
    """Whether a record vouches for the ``.vo`` at ``path`` as its content is now."""
    return (ledger() / digest(path)).exists()


def unchecked(libraries: Mapping[str, Path]) -> dict[str, Path]:
    """The libraries among ``libraries`` (name to ``.vo``) whose content no record vouches for."""
    return {name: path for name, path in libraries.items() if not recorded(path)}


def check(libraries: Mapping[str, Path], load_path: Sequence[str], timeout: float) -> str | None:
    """Check ``libraries`` (logical name to ``.vo``) with ``coqchk -norec``, confined in a fresh
    sandbox, under ``load_path`` (``-Q``/``-R`` arguments), within ``timeout`` seconds; record each
    when coqchk accepted them all. None then, else why not (one line). coqchk must say it checked
    each name, from the very file given: another binding of the name would check another file."""
    if not libraries:
        return None
    names = sorted(libraries)
    digests = {name: digest(path) for name, path in libraries.items()}  # before coqchk reads them
    cmd = ["coqchk", *(arg for name in names for arg in ("-norec", name)), *load_path]
    with sandbox_dir("coqchk") as box:
        try:
            done = subprocess.run(confined(cmd, box), cwd=box, env=sandbox_env(box), capture_output=True, text=True,
                                  timeout=max(timeout, 0.001), check=False)
        except subprocess.TimeoutExpired:
            return f"coqchk of the project's compiled {', '.join(names)} timed out"
    text = done.stdout + done.stderr
    if done.returncode != 0 or CHECKED not in text:
        return f"coqchk rejected the project's compiled {', '.join(names)} (exit {done.returncode}): {last_error(text)}"
    interned = {path.resolve() for path in parse_loaded(text)[0]}
    if not {path.resolve() for path in libraries.values()} <= interned or \
            any(f"Checking library: {name}\n" not in text for name in names):
        return f"coqchk did not check the project's compiled {', '.join(names)} from the files given"
    directory = ledger()
    directory.mkdir(parents=True, exist_ok=True)
    for name in names:
        (directory / digests[name]).touch()
    return None
