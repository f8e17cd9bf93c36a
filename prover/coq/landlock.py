"""Confine a program's writes to given directories, and what it may run to given programs, with Landlock.

Compiling a Coq file runs code of the file's choosing: CoqHammer's ``Set Hammer PredictPath``
names a shell command that ``predict`` runs, an exported hint can call it from a proof, Coq-Elpi
has a ``system`` builtin. A project's ``.v`` files are untrusted input, and what such code writes
is what the verifier trusts next: the records of :mod:`prover.coq.checked_vo`, a project's
``.vo`` files, the installed libraries. So every Coq process of the package runs under this
script (:func:`prover.coq.sandbox.confined`): it asks the kernel's Landlock module (Linux 5.13 and
later, unprivileged) to refuse the process and everything it starts any write outside the
directories it names and ``/dev/null``, and the running of any program but those it names, then
replaces itself with the program. Without the second rule the first is not enough: a program
such as ``tmux`` or ``systemd-run`` passes a command to a server outside the confinement through
a UNIX socket that has a path, which Landlock does not guard, and ``ln -s /dev/null`` let a
file's code make the verifier's report vanish. Reading stays free. Landlock also keeps the
process from tracing anything outside its domain, so it cannot reach into the checker, and,
where the kernel knows how (ABI 4 and 6), from any TCP connection (a Ray cluster takes tasks
over TCP), from signalling outside its domain and from abstract UNIX sockets.

It is a script run by path (``python -I landlock.py --write DIR --run PROGRAM ... -- PROGRAM
ARGS``), importing only the standard library, so that it adds a few tens of milliseconds to a
start and not the package's imports; :func:`abi` is what the package asks to know whether
confinement works here.
The interface is the kernel's (``Documentation/userspace-api/landlock.rst``): three system calls,
numbered alike on every architecture, and a bit per access right, known by ABI version.
"""

from __future__ import annotations

import ctypes
import os
import sys

_CREATE_RULESET, _ADD_RULE, _RESTRICT_SELF = 444, 445, 446
_CREATE_RULESET_VERSION = 1
_RULE_PATH_BENEATH = 1
_PR_SET_NO_NEW_PRIVS = 38

# access rights (include/uapi/linux/landlock.h); reading and executing are left unhandled (free)
_EXECUTE, _WRITE_FILE = 1 << 0, 1 << 1
_FILE_WRITES = _WRITE_FILE
_TREE_WRITES = (_WRITE_FILE | 1 << 4 | 1 << 5 | 1 << 6 | 1 << 7 | 1 << 8 | 1 << 9 | 1 << 10 | 1 << 11
                | 1 << 12)  # remove dir/file, make char/dir/reg/sock/fifo/block/sym
_REFER, _TRUNCATE = 1 << 13, 1 << 14  # ABI 2, ABI 3
_NET_BIND_TCP, _NET_CONNECT_TCP = 1 << 0, 1 << 1  # ABI 4: handled, with no rule, no TCP at all
_SCOPE_ABSTRACT_UNIX_SOCKET, _SCOPE_SIGNAL = 1 << 0, 1 << 1  # ABI 6

#: files every program may write (shells redirect to it)
DEVICES = ("/dev/null",)


class _Ruleset(ctypes.Structure):
    _fields_ = [("handled_access_fs", ctypes.c_uint64), ("handled_access_net", ctypes.c_uint64),
                ("scoped", ctypes.c_uint64)]


class _PathBeneath(ctypes.Structure):
    _pack_ = 1
    _fields_ = [("allowed_access", ctypes.c_uint64), ("parent_fd", ctypes.c_int32)]


_libc = ctypes.CDLL(None, use_errno=True)
_libc.syscall.restype = ctypes.c_long


def _call(number: int, *args: object) -> int:
    result = _libc.syscall(number, *args)
    if result < 0:
        err = ctypes.get_errno()
        raise OSError(err, f"landlock system call {number}: {os.strerror(err)}")
    return result


def abi() -> int:
    """The Landlock ABI version this kernel offers, 0 when it offers none (too old, or disabled)."""
    try:
        return _call(_CREATE_RULESET, None, ctypes.c_size_t(0), ctypes.c_uint32(_CREATE_RULESET_VERSION))
    except OSError:
        return 0


def restrict(directories: list[str], programs: list[str]) -> None:
    """Refuse this process and its future children every write outside ``directories`` (and
    :data:`DEVICES`) and the running of any file but ``programs`` (files, or directories of
    them). Raises OSError when the kernel cannot: the caller must not run the program then."""
    version = abi()
    if version < 1:
        raise OSError("Landlock is not available in this kernel")
    tree = _TREE_WRITES | (_REFER if version >= 2 else 0) | (_TRUNCATE if version >= 3 else 0)
    files = _FILE_WRITES | (_TRUNCATE if version >= 3 else 0)
    net = _NET_BIND_TCP | _NET_CONNECT_TCP if version >= 4 else 0
    scoped = _SCOPE_ABSTRACT_UNIX_SOCKET | _SCOPE_SIGNAL if version >= 6 else 0
    attr = _Ruleset(tree | _EXECUTE, net, scoped)
    size = ctypes.sizeof(ctypes.c_uint64) * (3 if version >= 6 else 2 if version >= 4 else 1)
    ruleset = _call(_CREATE_RULESET, ctypes.byref(attr), ctypes.c_size_t(size), ctypes.c_uint32(0))
    try:
        rules = [*((d, tree) for d in directories), *((d, files) for d in DEVICES if os.path.exists(d)),
                 *((p, _EXECUTE) for p in programs)]
        for path, rights in rules:
            fd = os.open(path, os.O_PATH | os.O_CLOEXEC)
            try:
                rule = _PathBeneath(rights, fd)
                _call(_ADD_RULE, ruleset, ctypes.c_int(_RULE_PATH_BENEATH), ctypes.byref(rule), ctypes.c_uint32(0))
            finally:
                os.close(fd)
        if _libc.prctl(_PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0:
            raise OSError(ctypes.get_errno(), "prctl(PR_SET_NO_NEW_PRIVS) failed")
        _call(_RESTRICT_SELF, ruleset, ctypes.c_uint32(0))
    finally:
        os.close(ruleset)


def main(argv: list[str]) -> None:
    """``[--write DIR | --run PROGRAM]... -- PROGRAM ARGS``: confine, then become the program
    (exit 126 if it cannot confine, 127 if the program cannot run)."""
    if "--" not in argv or argv.index("--") == len(argv) - 1:
        sys.exit("usage: landlock.py [--write DIR | --run PROGRAM]... -- PROGRAM [ARGS...]")
    split = argv.index("--")
    options, command = argv[:split], argv[split + 1:]
    if len(options) % 2 or any(flag not in ("--write", "--run") for flag in options[::2]):
        sys.exit(f"landlock.py: options come in pairs, --write DIR or --run PROGRAM: {options}")
    pairs = list(zip(options[::2], options[1::2]))
    try:
        restrict([v for f, v in pairs if f == "--write"], [v for f, v in pairs if f == "--run"])
    except OSError as exc:
        print(f"landlock.py: cannot confine {command[0]}: {exc}", file=sys.stderr)
        sys.exit(126)
    try:
        os.execvp(command[0], command)
    except OSError as exc:
        print(f"landlock.py: cannot run {command[0]}: {exc}", file=sys.stderr)
        sys.exit(127)


if __name__ == "__main__":
    main(sys.argv[1:])
