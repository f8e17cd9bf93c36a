"""Prove one theorem by name with best-first search and re-check the proof.

    dojo-prover prove --env coq Zrem_0_r
    dojo-prover prove --env coq --tactics "intros." "auto." --timeout 30 Coq.Lists.List.app_nil_r
    dojo-prover prove --env coq --statement "Lemma two : 1 + 1 = 2." --prelude "Require Import Arith." two
    dojo-prover prove --env coq --project coq-lib:RelationAlgebra leq_xcap

Without ``--tactics`` the search is the default Coq prover (``prover.coq.default_generator``: cheap
automation and decision procedures, online kNN and proof retrieval over the traced library when it
is traced, CoqHammer's tactics with kNN premises (BM25 where untraced), ``hammer`` once); with
``--tactics``, best-first search over those tactics and the baseline's case analysis
(:func:`prover.coq.presets.baseline_config`).
A name that is not a theorem of the project (``--project``, default the Coq standard library) is
reported with close matches. Another backend (``--env``) proves with its own default prover, and a
found proof is printed as the backend writes it (Coq's between ``Proof.`` and ``Qed.``,
:meth:`prover.backend.Backend.render_proof`). Exit status: 0 when proved (and re-checked by the
backend's checker: coqc and coqchk), 1 when not, 2 for bad input.
"""

from __future__ import annotations

import argparse
import time

from prover.backend import Backend, Feature
from prover.backends import names, require
from prover.commands.eval import add_trace_flag, trace_first
from prover.defaults import RUN, add_limit_flags, is_positive
from search_tree.errors import UserError, about, one_line


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("theorem", help="theorem name: short (app_nil_r) or qualified (Coq.Lists.List.app_nil_r)")
    parser.add_argument("--env", choices=names(), default="coq",
                        help="the backend (default: coq; it needs a default prover, and --tactics a baseline)")
    parser.add_argument("--project", default="coq-stdlib",
                        help="where the theorem is: a Coq project directory (_CoqProject or dune-project), "
                             "coq-lib:NAME or coq-stdlib (default)")
    add_limit_flags(parser, RUN, "timeout", "tactic_timeout", "max_expansions")
    parser.add_argument("--tactics", nargs="+", metavar="TACTIC",
                        help="tactics to try at every state, most likely first (default: the default Coq prover)")
    add_limit_flags(parser, RUN, "hammer_timeout")
    parser.add_argument("--statement", help="prove this statement (one Lemma/Theorem sentence) instead of a stdlib theorem")
    parser.add_argument("--prelude", action="append", default=[], metavar="SENTENCE",
                        help="with --statement: a sentence to run first, e.g. 'Require Import Arith.' (repeatable)")
    add_trace_flag(parser, "coq: the proofs of the theorem's project that it may learn from, traced once into the "
                           "cache; the stdlib's trace is built by `demo` or `trace`")


def run(args: argparse.Namespace) -> int:
    from prover.registry import warn_missing_traces
    from prover.views.safe_text import printable
    from search_tree import Status

    for flag, value in (("--timeout", args.timeout), ("--tactic-timeout", args.tactic_timeout),
                        ("--hammer-timeout", args.hammer_timeout)):
        if value is not None and not is_positive(value):
            raise UserError(f"{flag} {value}: must be positive and finite")
    if args.max_expansions is not None and args.max_expansions < 1:
        raise UserError(f"--max-expansions {args.max_expansions}: must be at least 1")
    if args.prelude and not args.statement:
        raise UserError("--prelude needs --statement")
    backend = require(args.env, Feature.BASELINE if args.tactics else Feature.PRESET, "prove")
    if args.statement:
        require(args.env, Feature.STATEMENT, "prove --statement")
    config, env, prover = _prover(backend, args)
    if not (args.statement or args.tactics or args.no_trace):
        traced = trace_first(args.env, 1, [env.theorem(args.theorem)])
        if traced is None:
            return 130
        if traced:  # the default prover learns from them: built again, with them
            config, env, prover = _prover(backend, args)
    with env:
        theorem = statement_theorem(backend, env, args) if args.statement else env.theorem(args.theorem)
        warn_missing_traces(config, [theorem])
        where = f"{theorem.file_path}:{theorem.position[0]}" if theorem.position else "(statement given)"
        print(printable(f"proving {theorem.full_name} from {where} ..."), flush=True)
        started = time.monotonic()
        result = prover.search(env, theorem)
    print(f"status: {result.status.value} ({printable(str(result.stop_reason), keep='')})")
    print(f"time: {time.monotonic() - started:.1f}s in all (search {result.total_time:.1f}s of which {backend.name} "
          f"{result.env_time:.1f}s; re-check {result.stats.get('verify_time', 0.0):.1f}s), "
          f"{result.num_env_calls} tactics run, {result.num_expansions} states expanded")
    if result.status == Status.PROVED:
        print(f"proof (checked by {backend.checker}; {backend.assumes(result)}):")
        print(printable(backend.render_proof(result.script)))
        return 0
    return 1


def _prover(backend: Backend, args: argparse.Namespace):
    """``(config, env, prover)``: the backend's default prover, or its baseline over ``--tactics``,
    built from the configuration either gives through the registries (as an ``eval`` worker builds
    it); the configuration too, for what the run's start says about it."""
    from prover.registry import build_run

    if args.tactics:
        config = backend.load(Feature.BASELINE)(args.tactics, args.timeout, args.tactic_timeout, args.max_expansions,
                                                args.project)
    else:
        config = backend.load(Feature.PRESET)(args.timeout, args.tactic_timeout, args.hammer_timeout,
                                              args.max_expansions, args.project)
    return (config, *build_run(config))


def statement_theorem(backend: Backend, env, args: argparse.Namespace):
    """The theorem ``--statement`` states after ``--prelude``, opened once in the prover so that a
    statement or prelude it rejects is bad input named here, not a failure deep in the search."""
    from search_tree import EnvironmentFailure

    what = f"--statement {args.statement!r}" + (" with its --prelude" if args.prelude else "")
    with about(what):
        theorem = backend.load(Feature.STATEMENT)(args.statement, args.prelude, name=args.theorem)
        try:
            with env.open(theorem):
                pass
        except EnvironmentFailure as exc:  # a prelude sentence that the prover refused
            raise UserError(one_line(exc)) from exc
    return theorem
