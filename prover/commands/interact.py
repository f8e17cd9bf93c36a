"""Prove one theorem by hand: the goals, the generator's suggestions already tried, and you steer.

    dojo-prover interact --env coq Coq.Lists.List.app_nil_r
    dojo-prover interact --env coq --statement "Lemma two : 1 + 1 = 2." two
    printf 'induction l.\\n1\\nsimpl; rewrite IHl; reflexivity.\\n' | dojo-prover interact Coq.Lists.List.app_nil_r

Commands (one a line, from the terminal or a pipe): a suggestion's number, any tactic, ``back``,
``search SECS`` (best-first search from the current state), ``help``, ``quit``. The suggestions are
the backend's (Coq: the baseline, ``prover.coq.templates.automation_generator``). Exit status: 0 when a proof was
found and re-checked (Coq: by coqc and coqchk), 1 when not, 2 for bad input.
"""

from __future__ import annotations

import argparse
from collections.abc import Iterator

from prover.backend import Feature
from prover.backends import names, require
from prover.defaults import RUN, add_limit_flags, is_positive
from search_tree.errors import UserError


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("theorem", help="theorem name: short (Nat.le_0_l) or qualified (Coq.Arith.PeanoNat.Nat.le_0_l)")
    parser.add_argument("--env", choices=names(), default="coq",
                        help="the backend (default: coq; it needs a generator of suggestions)")
    add_limit_flags(parser, RUN, "tactic_timeout")
    parser.add_argument("--suggestions", type=int, default=12, help="suggestions tried at each state (default: 12)")
    parser.add_argument("--statement", help="prove this statement (one Lemma/Theorem sentence) instead of a stdlib theorem")
    parser.add_argument("--prelude", action="append", default=[], metavar="SENTENCE",
                        help="with --statement: a sentence to run first, e.g. 'Require Import Arith.' (repeatable)")


def _lines() -> Iterator[str]:
    while True:
        try:
            yield input("> ")
        except EOFError:
            return


def run(args: argparse.Namespace) -> int:
    from prover.commands.prove import statement_theorem
    from prover.views.interact import Interaction, interact

    if not is_positive(args.tactic_timeout):
        raise UserError(f"--tactic-timeout {args.tactic_timeout}: must be positive and finite")
    if args.suggestions < 0:
        raise UserError(f"--suggestions {args.suggestions}: must be at least 0")
    if args.prelude and not args.statement:
        raise UserError("--prelude needs --statement")
    backend = require(args.env, Feature.SUGGEST, "interact")
    if args.statement:
        require(args.env, Feature.STATEMENT, "interact --statement")
    generator = backend.load(Feature.SUGGEST)()
    with backend.environment_class()(tactic_timeout=args.tactic_timeout) as env:
        theorem = statement_theorem(backend, env, args) if args.statement else env.theorem(args.theorem)
        with env.open(theorem) as (session, state):
            propose = lambda s: generator.generate(s, theorem, args.suggestions)  # noqa: E731
            return interact(Interaction(env, session, state, theorem, propose, lambda text: print(text, flush=True),
                                        backend.render_proof), _lines())
