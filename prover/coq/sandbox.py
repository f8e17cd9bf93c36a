"""Where Coq's processes run: a fresh private directory as working directory, ``HOME`` and ``TMPDIR``.

coqtop, coqc and coqchk read and write relative to their working directory and home: ``lia``
writes ``.lia.cache`` there, CoqHammer reads ``coqhammer.opt`` (which sets the programs it runs)
and writes its problem files there, coqtop reads a ``coqrc`` from the user's configuration
directory, and a sentence that escaped the policy would find the user's files there. Every Coq
process of the package is started with :func:`sandbox_env` in a directory made for it
(:func:`sandbox_dir`), so that whatever such a process reads or writes by a relative path, in
``~``, in its configuration directory or in the temporary directory lies inside that directory
and is deleted with it. A project's own files are reached through absolute load-path flags, never
through the working directory; the user's installed Coq libraries (``XDG_DATA_HOME``) stay where
they are.

The directory also bounds what the process may write at all, by absolute path too: each Coq
command is started through :func:`confined` (:mod:`prover.coq.landlock`), so that code a project's
file runs while it compiles or loads (CoqHammer's ``Set Hammer PredictPath`` names a shell
command) writes nothing outside its sandbox: not the records of the libraries a kernel checked
(:mod:`prover.coq.checked_vo`), not the project's ``.vo`` files, not the installed libraries. A
kernel without Landlock confines nothing; building a project then is refused
(:func:`prover.coq.build.build_project`), since only a project's files can bring such code (tactics and
preludes pass :mod:`prover.coq.policy`, which refuses CoqHammer's program-running tactics).
"""

from __future__ import annotations

import functools
import os
import shutil
import struct
import sys
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

PREFIX = "dojo-coq-"

#: the confining script, run by path (it imports only the standard library)
LANDLOCK = Path(__file__).resolve().with_name("landlock.py")

#: Where Debian's libcoq-hammer puts ``htimeout`` and ``predict``: CoqHammer runs ``htimeout``
#: through the shell, so without this on PATH every ATP but E fails with "htimeout: not found".
HAMMER_LIBEXEC = "/usr/libexec/coq-hammer"
#: the ATPs the default's ``hammer`` calls (Z3 and Vampire are switched off: prover.coq.additions)
HAMMER_ATPS = ("eprover", "cvc4")
#: what every Coq process may run beside itself: micromega's certificate programs (``psatz``,
#: replayed by the final check too)
CERTIFIERS = ("csdpcert", "csdp")
#: and a process that runs tactics for a search or a project's build: CoqHammer's programs, with
#: the shell it runs them through and the tools its commands call (``grep`` reads the ATPs'
#: answers). The final check runs none of them (a proof's ``hammer`` steps are replaced by their
#: reconstruction), so code a project's file runs there has no shell at all
HAMMER_PROGRAMS = ("sh", "grep", "mkdir", "rm", *HAMMER_ATPS, f"{HAMMER_LIBEXEC}/htimeout", f"{HAMMER_LIBEXEC}/predict")


@functools.lru_cache(maxsize=1)
def can_confine() -> bool:
    """Whether this kernel offers Landlock, so that :func:`confined` confines."""
    from .landlock import abi

    return abi() >= 1


def sandbox_env(directory: str | os.PathLike[str], base: dict[str, str] | None = None) -> dict[str, str]:
    """The environment of a Coq process sandboxed in ``directory``: ``base`` (default: this
    process's) with ``HOME``, ``TMPDIR``/``TMP``/``TEMP``, ``XDG_CONFIG_HOME`` and ``XDG_CACHE_HOME``
    inside it (the ``tmp`` subdirectory is created here), ``XDG_DATA_HOME`` fixed to where it
    pointed before (Coq finds user-installed libraries there), and no relative entry on ``PATH``
    (which would name programs in the working directory)."""
    directory = Path(directory).resolve()
    tmp = directory / "tmp"
    tmp.mkdir(parents=True, exist_ok=True)
    env = dict(os.environ if base is None else base)
    data = env.get("XDG_DATA_HOME") or str(Path(env.get("HOME", "~")).expanduser() / ".local" / "share")
    path = [p for p in env.get("PATH", "").split(os.pathsep) if os.path.isabs(p)]
    env.update(HOME=str(directory), TMPDIR=str(tmp), TMP=str(tmp), TEMP=str(tmp), XDG_DATA_HOME=data,
               XDG_CONFIG_HOME=str(directory / ".config"), XDG_CACHE_HOME=str(directory / ".cache"),
               PATH=os.pathsep.join(path))
    return env


@contextmanager
def sandbox_dir(purpose: str) -> Iterator[Path]:
    """A fresh private directory (mode 0700) for one Coq process or one check, removed afterwards."""
    with tempfile.TemporaryDirectory(prefix=f"{PREFIX}{purpose}-") as tmp:
        yield Path(tmp)


def confined(cmd: list[str], directory: str | os.PathLike[str], hammer: bool = False) -> list[str]:
    """``cmd`` run so that it and every process it starts may write only inside ``directory`` (and
    ``/dev/null``), and run no program but ``cmd``'s own, :data:`CERTIFIERS` and, with
    ``hammer``, :data:`HAMMER_PROGRAMS`: :mod:`prover.coq.landlock` confines, then runs it.
    Unchanged where the kernel cannot confine (:func:`can_confine`)."""
    if not can_confine():
        return list(cmd)
    program = shutil.which(cmd[0])
    if program is None:  # left to the confining script to say that it cannot run it
        program = cmd[0]
    options = ["--write", str(Path(directory).resolve())]
    for runnable in _runnable((program, *CERTIFIERS, *(HAMMER_PROGRAMS if hammer else ()))):
        options += ["--run", runnable]
    return [sys.executable, "-I", "-S", str(LANDLOCK), *options, "--", program, *cmd[1:]]


def _runnable(names: tuple[str, ...]) -> tuple[str, ...]:
    """The files that running ``names`` (found on PATH, or paths) executes: each program found, its
    real file and its loader (an ELF's interpreter, a script's ``#!`` line, the same way)."""
    out: list[str] = []
    todo = [found for name in names if (found := shutil.which(name)) is not None]
    while todo:
        path = os.path.realpath(todo.pop())
        if path not in out:
            out.append(path)
            loader = _loader(path)
            if loader is not None and os.path.exists(loader):
                todo.append(loader)
    return tuple(out)


@functools.lru_cache(maxsize=64)
def _loader(path: str) -> str | None:
    """The interpreter the kernel runs a program at ``path`` with: an ELF's ``PT_INTERP``, or a
    script's ``#!`` program; None for neither (a static program)."""
    with open(path, "rb") as f:
        head = f.read(64)
        if head.startswith(b"#!"):
            words = (head[2:] + f.readline()).split(b"\n")[0].split()
            return words[0].decode() if words else None
        if not head.startswith(b"\x7fELF") or head[4] != 2:  # ELF64 only
            return None
        order = "<" if head[5] == 1 else ">"
        phoff, = struct.unpack_from(order + "Q", head, 0x20)
        phentsize, phnum = struct.unpack_from(order + "HH", head, 0x36)
        for k in range(phnum):
            f.seek(phoff + k * phentsize)
            entry = f.read(phentsize)
            kind, = struct.unpack_from(order + "I", entry, 0)
            if kind == 3:  # PT_INTERP
                offset, = struct.unpack_from(order + "Q", entry, 8)
                size, = struct.unpack_from(order + "Q", entry, 32)
                f.seek(offset)
                return f.read(size).rstrip(b"\0").decode()
    return None
