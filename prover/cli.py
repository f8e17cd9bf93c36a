"""The ``dojo-prover`` command line: one subcommand per module in :mod:`prover.commands`.

Each command module defines ``configure(parser)`` and ``run(args) -> int`` and keeps heavy imports
(torch, ray, faiss) inside ``run``, so building the parser stays fast.

Bad input is caught here, once: a :class:`search_tree.errors.UserError` (every error of the library
that reports bad input or an unknown name derives from it) or an error of the file system about a
named path (missing, a directory where a file is expected, not writable: an ``OSError`` that carries
the path) is printed as one line ``dojo-prover CMD: error: ...`` and the exit status is 2
(argparse's own status for bad arguments).
Anything else is a bug and keeps its traceback. Warnings (a torn last line of a run's results, a
corrupt line ``report`` skips) are shown one line each, likewise, above any progress bar. Both quote
untrusted input, so their control characters are shown as escapes (:func:`prover.views.safe_text.printable`).
"""

from __future__ import annotations

import argparse
import importlib
import sys
import warnings
from typing import NoReturn

from prover.views.safe_text import printable
from search_tree.errors import UserError, one_line

# subcommand name -> module defining it
COMMANDS: dict[str, str] = {
    "demo": "prover.commands.demo",
    "eval": "prover.commands.eval",
    "report": "prover.commands.report",
    "ablate": "prover.commands.ablate",
    "train-policy": "prover.commands.train_policy",
    "learn": "prover.commands.learn",
    "trace": "prover.commands.trace",
    "prove": "prover.commands.prove",
    "fill-admitted": "prover.commands.fill_admitted",
    "retrieval-eval": "prover.commands.retrieval_eval",
    "watch": "prover.commands.watch",
    "interact": "prover.commands.interact",
}


class OneLineParser(argparse.ArgumentParser):
    """argparse, but a usage error is one line (no usage dump), like every other CLI error."""

    def error(self, message: str) -> NoReturn:
        self.exit(2, f"{self.prog}: error: {printable(message, keep='')} (see {self.prog} --help)\n")


def build_parser() -> argparse.ArgumentParser:
    parser = OneLineParser(prog="dojo-prover", description="Neural theorem proving at the tactic level.")
    sub = parser.add_subparsers(dest="command", required=True)
    for name, module_name in COMMANDS.items():
        module = importlib.import_module(module_name)
        doc = (module.__doc__ or "").strip()
        sp = sub.add_parser(name, help=doc.splitlines()[0] if doc else None, description=doc)
        module.configure(sp)
        sp.set_defaults(_run=module.run)
    return parser


def is_bad_input(exc: BaseException) -> bool:
    """Whether ``exc`` reports bad input rather than a bug (see the module doc)."""
    return isinstance(exc, UserError) or (isinstance(exc, OSError) and exc.filename is not None)


def main(argv: list[str] | None = None) -> int:
    try:
        args = build_parser().parse_args(argv)
    except SystemExit as exc:  # a usage error (2) or --help (0): a status, like every other outcome
        return int(exc.code or 0)
    prefix = f"dojo-prover {args.command}"
    with warnings.catch_warnings():  # restores the default display when the command returns
        warnings.showwarning = lambda message, *_, **__: _show(
            f"{prefix}: warning: {printable(one_line(message), keep='')}")
        try:
            return int(args._run(args) or 0)
        except Exception as exc:
            if not is_bad_input(exc):
                raise
            print(f"{prefix}: error: {printable(one_line(exc), keep='')}", file=sys.stderr)
            return 2


def _show(line: str) -> None:
    """Print ``line`` on stderr above any progress bar on the screen, which stays whole below it."""
    from tqdm import tqdm

    tqdm.write(line, file=sys.stderr)


if __name__ == "__main__":
    sys.exit(main())
