"""Prove one theorem by name with best-first search and re-check the proof.

    dojo-prover prove --env coq Nat.le_0_l
    dojo-prover prove --env coq --tactics "intros." "auto." --timeout 30 Coq.Lists.List.app_nil_r
    dojo-prover prove --env coq --statement "Lemma two : 1 + 1 = 2." --prelude "Require Import Arith." two
    dojo-prover prove --env coq --project coq-lib:RelationAlgebra leq_xcap

Without ``--tactics`` the search is the default Coq prover (``prover.coq.default_generator``: cheap
automation and decision procedures, online kNN and proof retrieval over the traced library when it
is traced, CoqHammer's tactics with BM25 premises, ``hammer`` once); with ``--tactics``, best-first
search over those tactics and the baseline's case analysis (``prover.coq.automation``). A name that is
not a theorem of the project (``--project``, default the Coq standard library) is reported with
close matches. Exit status: 0 when
proved (and re-checked by coqc and coqchk), 1 when not, 2 for bad input.
"""

from __future__ import annotations

import argparse
import textwrap
import time

from search_tree.errors import UserError, about, one_line


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("theorem", help="theorem name: short (Nat.le_0_l) or qualified (Coq.Arith.PeanoNat.Nat.le_0_l)")
    parser.add_argument("--env", choices=["coq"], default="coq", help="the backend (default: coq)")
    parser.add_argument("--project", default="coq-stdlib",
                        help="where the theorem is: a Coq project directory (_CoqProject or dune-project), "
                             "coq-lib:NAME or coq-stdlib (default)")
    parser.add_argument("--timeout", type=float, default=60.0, help="search wall-clock budget in seconds (default: 60)")
    parser.add_argument("--tactic-timeout", type=float, default=5.0, help="seconds per tactic (default: 5)")
    parser.add_argument("--max-expansions", type=int, default=None, help="stop after this many expansions")
    parser.add_argument("--tactics", nargs="+", metavar="TACTIC",
                        help="tactics to try at every state, most likely first (default: the default Coq prover)")
    parser.add_argument("--hammer-timeout", type=float, default=None,
                        help="seconds for the default prover's hammer call (default: a third of --timeout, at most 20)")
    parser.add_argument("--statement", help="prove this statement (one Lemma/Theorem sentence) instead of a stdlib theorem")
    parser.add_argument("--prelude", action="append", default=[], metavar="SENTENCE",
                        help="with --statement: a sentence to run first, e.g. 'Require Import Arith.' (repeatable)")


def run(args: argparse.Namespace) -> int:
    from prover.views.safe_text import printable
    from search_tree import Status

    for flag, value in (("--timeout", args.timeout), ("--tactic-timeout", args.tactic_timeout),
                        ("--hammer-timeout", args.hammer_timeout)):
        if value is not None and not value > 0:
            raise UserError(f"{flag} {value}: must be positive")
    if args.max_expansions is not None and args.max_expansions < 1:
        raise UserError(f"--max-expansions {args.max_expansions}: must be at least 1")
    if args.prelude and not args.statement:
        raise UserError("--prelude needs --statement")
    env, prover = _prover(args)
    with env:
        theorem = statement_theorem(env, args) if args.statement else env.theorem(args.theorem)
        where = f"{theorem.file_path}:{theorem.position[0]}" if theorem.position else "(statement given)"
        print(printable(f"proving {theorem.full_name} from {where} ..."), flush=True)
        started = time.monotonic()
        result = prover.search(env, theorem)
    print(f"status: {result.status.value} ({result.stop_reason})")
    print(f"time: {time.monotonic() - started:.1f}s in all (search {result.total_time:.1f}s of which coq "
          f"{result.env_time:.1f}s; re-check {result.stats.get('verify_time', 0.0):.1f}s), "
          f"{result.num_env_calls} tactics run, {result.num_expansions} states expanded")
    if result.status == Status.PROVED:
        print(f"proof (checked by coqc and coqchk; {assumes(result)}):")
        print(printable(f"Proof.\n{textwrap.indent(result.script, '  ')}\nQed."))
        return 0
    return 1


def assumes(result) -> str:
    """What a checked proof assumes, for its reader: ``uses classic (Coq.Logic.Classical_Prop)``."""
    from prover.coq.verify import uses

    axioms = result.stats.get("axioms")
    return f"uses {uses(axioms)}" if axioms else "no axioms"


def _prover(args: argparse.Namespace):
    """``(env, prover)``: the default Coq prover's preset, or the baseline over ``--tactics``."""
    if args.tactics:
        from prover.coq.automation import baseline_prover
        from prover.coq.env import CoqEnvironment
        from prover.coq.presets import VERIFY_FLOOR

        return (CoqEnvironment(tactic_timeout=args.tactic_timeout, verify_timeout=max(VERIFY_FLOOR, args.timeout),
                               project=args.project),
                baseline_prover(args.tactics, args.timeout, args.max_expansions))
    from prover.coq.presets import build_default, default_config

    return build_default(default_config(args.timeout, args.tactic_timeout, args.hammer_timeout, args.max_expansions,
                                        args.project))


def statement_theorem(env, args: argparse.Namespace):
    """The theorem ``--statement`` states after ``--prelude``, opened once in coqtop so that a
    statement or prelude Coq rejects is bad input named here, not a failure deep in the search."""
    from prover.coq.context import adhoc_theorem
    from search_tree import EnvironmentFailure

    what = f"--statement {args.statement!r}" + (" with its --prelude" if args.prelude else "")
    with about(what):
        theorem = adhoc_theorem(args.statement, args.prelude, name=args.theorem)
        try:
            with env.open(theorem):
                pass
        except EnvironmentFailure as exc:  # a prelude sentence that coqtop refused
            raise UserError(one_line(exc)) from exc
    return theorem
