"""The one exception base for bad input, shared by every package of the library.

A :class:`UserError` means the caller gave something wrong (an argument, an option, a file): its
message is one line that names the input and says what is wrong, so the ``dojo-prover`` command
line catches this one type, prints the message and exits 2, while any other exception is a bug and
keeps its traceback. It lives here, in the package that imports nothing of ours, so that
``retrieval``, ``generator``, ``benchmarks`` and ``prover`` can all derive their errors from it.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager


class UserError(Exception):
    """Bad input; ``str(exc)`` is one line naming the input and what is wrong with it."""


def one_line(exc: BaseException) -> str:
    """``exc``'s message folded onto one line (a multi-line message would break the CLI's contract)."""
    text = " ".join(part.strip() for part in str(exc).splitlines() if part.strip())
    return text or type(exc).__name__


@contextmanager
def about(what: str) -> Iterator[None]:
    """Blame ``what`` (e.g. ``--benchmark coq-stdlib:nosuch``) for the bad input found inside: a
    :class:`UserError`, ``ValueError`` or lookup failure becomes a :class:`UserError` whose message
    starts with ``what`` (the inner message says what is wrong, often not which option held it).
    A plain ``KeyError`` or ``IndexError`` is left alone: in our code they are bugs, not bad input."""
    try:
        yield
    except Exception as exc:
        if isinstance(exc, UserError) or (isinstance(exc, (ValueError, LookupError))
                                          and not isinstance(exc, (KeyError, IndexError))):
            raise UserError(f"{what}: {one_line(exc)}") from exc
        raise
