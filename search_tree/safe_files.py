"""Writing into a place the user named (a run directory, a project, ``--out``) without ever writing
outside it, and reading a file a record names without leaving the directory it belongs to.

What such a place holds is untrusted input: a run directory can be copied from elsewhere, a
project comes from anyone. A name in it may be a symlink to a file of the user's (``results.jsonl``
to ``~/.bashrc``), a directory link (``logs`` to ``/etc``), a leftover temporary name, or a FIFO.
Following any of them writes, truncates or reads what the user never named. So every command that
writes into such a place goes through this module, and it never follows a link there:

* :func:`replace_file` puts a whole file in place as a new file: written under a fresh name
  (``mkstemp``: ``O_EXCL``, never an existing name) beside it and renamed over it, so a link at the
  path is replaced, not written through, and neither is an inode a hard link shares.
* :func:`open_file` opens with ``O_NOFOLLOW`` (appends, in-place repair, locks): a link is refused.
* :func:`make_dir` creates a directory, or accepts one, but refuses a link or a file there.
* :func:`refuse_links` refuses a place whose named entries are links, before anything is written.
* :func:`record_log` is where a run's record says its action log is, checked: ``logs/<name>``
  directly in the run's own ``logs`` directory, which is not a link.
* :func:`read_regular` reads a file only if it is a regular file, not a link (``O_NOFOLLOW``) and
  not a FIFO or device (``O_NONBLOCK`` at open, then ``fstat``), so a record cannot make a reader
  hang or copy out a file it names; :func:`read_text` reads one as UTF-8 text, every failure one
  line naming it.

Each refusal is a :class:`UnsafePath`, a :class:`~search_tree.errors.UserError`: one line naming the
path and what is wrong, exit 2 on the command line.
"""

from __future__ import annotations

import errno
import json
import os
import re
import stat
import tempfile
from collections.abc import Iterable
from pathlib import Path

from search_tree.errors import UserError


class UnsafePath(UserError, OSError):
    """A path in a place the user named is a symlink, or not the kind of file it must be: following
    it would write or read outside that place."""


def _link_refused(path: Path, why: str = "") -> UnsafePath:
    return UnsafePath(f"{path} is a symlink; refusing to follow it (it could lead outside the directory you named"
                      f"{why}): remove it or choose another directory")


def refuse_links(directory: Path, names: Iterable[str]) -> None:
    """Refuse ``directory`` if any of ``names`` in it is a symlink (``lstat``: the link itself, not
    what it points to), before a command writes anything there."""
    for name in names:
        path = directory / name
        if path.is_symlink():
            raise _link_refused(path)


def make_dir(path: Path, under: Path | None = None) -> Path:
    """Create the directory ``path`` (or accept it as it is) and return it; refuse it if it, or any
    directory between ``under`` and it, is a symlink or not a directory. ``under`` (default: the
    parent of ``path``) is where the user's place begins: it must exist, and is taken as given."""
    base = path.parent if under is None else under
    try:
        parts = path.relative_to(base).parts
    except ValueError:
        raise ValueError(f"{path} is not under {base}") from None
    current = base
    for part in parts:
        current = current / part
        try:
            os.mkdir(current, 0o755)
        except FileExistsError:
            pass
        mode = os.lstat(current).st_mode
        if stat.S_ISLNK(mode):
            raise _link_refused(current)
        if not stat.S_ISDIR(mode):
            raise UnsafePath(f"{current} is not a directory; remove it or choose another directory")
    return path


def open_file(path: Path, flags: int, mode: int = 0o644) -> int:
    """``os.open(path, flags | O_NOFOLLOW | O_CLOEXEC, mode)``: a descriptor of ``path`` itself,
    never of a file a symlink there points to (one is refused). The caller closes it."""
    try:
        return os.open(path, flags | os.O_NOFOLLOW | os.O_CLOEXEC, mode)
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            raise _link_refused(path) from None
        raise


def replace_file(path: Path, data: bytes, mode: int = 0o644, fsync: bool = True) -> None:
    """Make ``path`` a new file holding ``data`` with permissions ``mode``, all at once (a reader or
    a crash sees the old file or the new one, never half of it). Written under a fresh name in the
    same directory and renamed over ``path``: a symlink at ``path`` is replaced, never written
    through, and so is a hard link's shared inode; a leftover temporary name is never reused.
    ``fsync`` makes the content durable before the rename (a run's config and logs rely on it)."""
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as f:
            os.fchmod(f.fileno(), mode)
            f.write(data)
            f.flush()
            if fsync:
                os.fsync(f.fileno())
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def read_regular(path: Path) -> bytes | None:
    """The bytes of ``path`` if it is a regular file, None if there is nothing there; an
    :class:`UnsafePath` if it is a symlink, a FIFO, a device or a directory. The open neither
    follows a link nor waits for a FIFO's writer, so the check and the read are of one file."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC)
    except FileNotFoundError:
        return None
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            raise _link_refused(path) from None
        raise
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise UnsafePath(f"{path} is not a regular file; refusing to read it")
        chunks = []
        while chunk := os.read(fd, 1 << 20):
            chunks.append(chunk)
        return b"".join(chunks)
    finally:
        os.close(fd)


def read_text(path: Path, error: type[Exception] = UserError) -> str:
    """The UTF-8 text of an input file the user gave (a ``_CoqProject``, a dune file, a benchmark
    listing) or a tool wrote (coq-dpdgraph's graphs), read by :func:`read_regular`, or an ``error``
    naming ``path`` and what is wrong: a link, a FIFO (which would hang the reader), a directory, no
    file, undecodable bytes or an unreadable file are bad input, not a bug, so they end in one line
    rather than a traceback or a wait. ``error`` is the caller's own exception (a
    :class:`~search_tree.errors.UserError` on the command line, the leak check's ``DependencyError``,
    which fails the check), built from that one line."""
    try:
        data = read_regular(path)
    except UnsafePath as exc:
        raise error(str(exc)) from None
    except OSError as exc:
        raise error(f"{path}: cannot read it: {exc.strerror or exc}") from None
    if data is None:
        raise error(f"{path}: no such file")
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise error(f"{path}: not UTF-8 text (byte {exc.start}: {exc.object[exc.start:exc.start + 1]!r})") from None


def read_json(path: Path) -> object | None:
    """The JSON value in the regular file ``path`` (:func:`read_regular`), None if nothing is
    there; a ``ValueError`` saying "is not valid JSON (...)" if its bytes are not UTF-8 JSON, so
    that each reader names the file and what it expected in its own terms."""
    data = read_regular(path)
    if data is None:
        return None
    try:
        return json.loads(data.decode("utf-8"))
    except (json.JSONDecodeError, UnicodeDecodeError) as exc:
        raise ValueError(f"is not valid JSON ({exc})") from None


#: a run record's ``log``: a file directly in the run's ``logs`` directory, as the run writes it
_LOG = re.compile(r"logs/(?!\.+\Z)[A-Za-z0-9_.-]+\Z")


def log_problem(log: object) -> str | None:
    """Why ``log``, a run record's ``log`` field, is not null nor ``logs/<name>`` (a name without a
    slash), or None: a reader opens what it names, so an absolute path or ``..`` would have it
    read, and copy into a report or a training set, a file outside the run."""
    if log is None or (isinstance(log, str) and _LOG.match(log)):
        return None
    return f"a record whose log is {json.dumps(log)[:60]}, not null nor a file logs/<name>"


def record_log(run_dir: Path, log: str) -> Path:
    """The action log a record of the run in ``run_dir`` names, once :func:`log_problem` and the
    ``logs`` directory (not a link) allow it; an :class:`UnsafePath` otherwise. Read it with
    :func:`read_regular`."""
    problem = log_problem(log)
    if problem is not None:
        raise UnsafePath(f"{run_dir}: {problem}")
    if (run_dir / "logs").is_symlink():
        raise UnsafePath(f"{run_dir / 'logs'} is a symlink; refusing to read logs outside the run directory")
    return run_dir / log
