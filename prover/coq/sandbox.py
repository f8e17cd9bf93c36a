"""Where Coq's processes run: a fresh private directory as working directory, ``HOME`` and ``TMPDIR``.

coqtop, coqc and coqchk read and write relative to their working directory and home: ``lia``
writes ``.lia.cache`` there, CoqHammer looks for ``coqhammer.opt`` and its prediction programs
there, and a sentence that escapes the policy would find the user's files there. Every Coq
process of the package is started through :func:`sandbox_env` with a directory made for it
(:func:`sandbox_dir`), so whatever such a process writes by a relative path, into ``~`` or into
the temporary directory lands inside that directory and is deleted with it. A project's own
files are reached through absolute load-path flags, never through the working directory.
"""

from __future__ import annotations

import os
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

PREFIX = "dojo-coq-"


def sandbox_env(directory: str | os.PathLike[str], base: dict[str, str] | None = None) -> dict[str, str]:
    """The environment of a Coq process sandboxed in ``directory``: ``base`` (default: this
    process's) with ``HOME``, ``TMPDIR``, ``TMP`` and ``TEMP`` pointing inside it; the
    ``tmp`` subdirectory is created here."""
    directory = Path(directory)
    tmp = directory / "tmp"
    tmp.mkdir(parents=True, exist_ok=True)
    env = dict(os.environ if base is None else base)
    env.update(HOME=str(directory), TMPDIR=str(tmp), TMP=str(tmp), TEMP=str(tmp))
    return env


@contextmanager
def sandbox_dir(purpose: str) -> Iterator[Path]:
    """A fresh private directory (mode 0700) for one Coq process or one check, removed afterwards."""
    with tempfile.TemporaryDirectory(prefix=f"{PREFIX}{purpose}-") as tmp:
        yield Path(tmp)
