"""Trace a library into LeanDojo-format data: premises (corpus.jsonl) and traced theorems.

    dojo-prover trace --env coq [--project DIR|coq-lib:NAME] [--files 'Arith/*.v' ...] [--workers N] [--out DIR]
    dojo-prover trace --env lean URL COMMIT --out DIR [--with-dependencies]

Each backend with a tracer (its ``Feature.TRACE``, a :class:`prover.backend.Tracer`) declares its
own options and runs the trace: Coq's (:mod:`prover.coq.trace_command`) traces the standard
library or a Coq project, split by file into train/val/test; LeanDojo's
(:mod:`prover.lean.trace_command`) has LeanDojo trace a Lean 4 repository. An option of another
backend than ``--env``'s is refused in one line naming the backend it is for.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from prover.backend import Backend, Feature
from prover.backends import BACKENDS, names, require
from search_tree.errors import UserError


def _tracing() -> list[Backend]:
    """The backends with a tracer, whose options the command's parser holds."""
    return [b for b in BACKENDS.values() if b.provides(Feature.TRACE)]


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--env", choices=names(), default="coq", help="the backend (default: coq; it needs a tracer)")
    parser.add_argument("--out", type=Path, help="output directory (default: the backend's own, where it has one)")
    for b in _tracing():
        b.load(Feature.TRACE).configure(parser)


def run(args: argparse.Namespace) -> int:
    from prover.views.safe_text import printable

    chosen = require(args.env, Feature.TRACE, "trace")
    for other in _tracing():
        if other is chosen:
            continue
        for action in other.load(Feature.TRACE).configure(argparse.ArgumentParser(add_help=False)):
            if getattr(args, action.dest) not in (None, False):
                flag = action.option_strings[0] if action.option_strings else action.metavar or action.dest
                raise UserError(f"{flag} is for --env {other.name}, not --env {args.env}")
    return chosen.load(Feature.TRACE).run(args, lambda line: print(printable(line), flush=True))
