"""Prove short lemmas of a backend's test split with its default prover, beside its comparison baseline.

The demo takes a fixed, machine-independent sample of the split's lemmas whose library proofs are
short (at most ``--max-proof-sentences`` sentences; the backend's ``Feature.DEMO_THEOREMS``),
searches each with the backend's default prover (``Feature.PRESET``) on ``--workers`` workers (the
engine of ``eval``, :class:`prover.run.distributed.DistributedProver`), prints each proof as it is
found, re-checked by the backend's checker, and then runs the backend's comparison baseline
(``Feature.COMPARISON``, if it has one) on the same lemmas with the same limit and workers, so
that its count is printed beside the default's (``--no-hammer`` leaves it out). First, what the
default prover learns from is built if it is missing (``Feature.DEFAULT_TRACE``; ``--no-trace``
skips it), so that a fresh machine runs the prover the README's figures describe. For Coq: the
stdlib, traced on first use (:mod:`prover.coq.first_trace`), the default Coq prover
(``prover.coq.default_generator``: cheap automation and decision procedures, online kNN and proof
retrieval over the traced library, CoqHammer's tactics, ``hammer`` once), proofs re-checked by
coqc and coqchk, and CoqHammer's ``hammer`` alone beside it: the comparison a Coq user makes.
"""

from __future__ import annotations

import argparse
import os
import textwrap
import time

from prover.benchmarks.results import add_results_flag, write_results
from prover.commands.eval import add_ray_address_argument, add_trace_flag, trace_first
from prover.backend import Backend, Feature
from prover.backends import names, require
from prover.defaults import DEMO, add_limit_flags, is_positive
from prover.views.safe_text import printable
from search_tree.errors import UserError


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--env", choices=names(), default="coq",
                        help="the backend (default: coq; it needs a default prover and a demo split)")
    parser.add_argument("--limit", type=int, default=16, help="how many lemmas to attempt (default: 16)")
    add_limit_flags(parser, DEMO, "timeout", "max_expansions", "tactic_timeout")
    parser.add_argument("--max-proof-sentences", type=int, default=3,
                        help="only lemmas whose library proof has at most this many sentences (default: 3)")
    add_limit_flags(parser, DEMO, "hammer_timeout")
    parser.add_argument("--workers", type=int, default=min(2, os.cpu_count() or 1),
                        help="search workers, each with its own environment (coq: coqtop) (default: 2, or 1 on one core)")
    parser.add_argument("--no-hammer", action="store_true",
                        help="leave out the run of the backend's comparison baseline (coq: hammer alone) on the same lemmas")
    parser.add_argument("--split", choices=["train", "val", "test"], default="test", help="the split (default: test)")
    add_trace_flag(parser, "coq: the stdlib's trace, about 10 minutes on two cores, once")
    add_ray_address_argument(parser)
    add_results_flag(parser)  # `--write-results demo` writes the README's figures, benchmarks/results/demo.md


def run(args: argparse.Namespace) -> int:
    from prover.benchmarks.registry import stable_sample

    backend = require(args.env, Feature.DEMO_THEOREMS, "demo")
    default_config = require(args.env, Feature.PRESET, "demo").load(Feature.PRESET)
    short_theorems = backend.load(Feature.DEMO_THEOREMS)

    if min(args.limit, args.workers) < 1 or not all(map(is_positive, (args.timeout, args.tactic_timeout,
                                                                       args.hammer_timeout))):
        raise UserError("--limit, --workers, --timeout, --tactic-timeout and --hammer-timeout must be positive and finite")
    if not args.no_trace and trace_first(args.env, args.workers) is None:
        return 130
    started = time.monotonic()
    short = short_theorems(args.split, args.max_proof_sentences)
    theorems = stable_sample(short, args.limit)
    print(f"{backend.library or backend.name}, {args.split} split: {len(short)} lemmas with library proofs of at most "
          f"{args.max_proof_sentences} sentences; attempting {len(theorems)} of them "
          f"({args.timeout:g}s and {args.max_expansions} expansions each, {args.workers} workers)", flush=True)
    config = default_config(args.timeout, args.tactic_timeout, args.hammer_timeout, args.max_expansions)
    proved = _prove(backend, config, theorems, args.workers, "default prover", show=True, ray_address=args.ray_address)
    print(f"proved {proved} of {len(theorems)} lemmas in {time.monotonic() - started:.0f}s; "
          f"every proof re-checked by {backend.checker}" + (f", assuming {backend.trusted}" if backend.trusted else ""),
          flush=True)
    if not args.no_hammer and backend.provides(Feature.COMPARISON):
        t0 = time.monotonic()
        baseline = backend.load(Feature.COMPARISON)(theorems, args.timeout)
        compared = _prove(backend, baseline.config, theorems, args.workers, baseline.name, ray_address=args.ray_address)
        print(f"{baseline.name}, {args.timeout:g}s per lemma, on the same lemmas: proved {compared} of {len(theorems)} "
              f"in {time.monotonic() - t0:.0f}s" + (f" ({baseline.note})" if baseline.note else ""))
    return write_results(0)


def _prove(backend: Backend, config, theorems: list, workers: int, what: str, show: bool = False,
           ray_address: str | None = None) -> int:
    """How many of ``theorems`` ``config`` proves on ``workers`` workers (on the Ray cluster at
    ``ray_address``, if any); with ``show``, each proof is printed as it is found."""
    from tqdm import tqdm

    from prover.run.distributed import DistributedProver, Task
    from search_tree import Status

    proved = 0
    with DistributedProver(config, workers, record_events=False,
                           ray_address=ray_address) as dp, \
            tqdm(total=len(theorems), unit="lemma", desc=what, dynamic_ncols=True) as bar:
        for outcome in dp.iter_results([Task(t) for t in theorems]):
            result, theorem = outcome.result, outcome.task.theorem
            bar.update(1)
            if result.status == Status.PROVED:
                proved += 1
                if show:
                    bar.write(printable(f"proved {backend.name_of(theorem)} ({theorem.file_path}:"
                                        f"{theorem.position[0] if theorem.position else '?'}) in {result.total_time:.1f}s, "
                                        f"{backend.assumes(result)}:\n"
                                        f"{textwrap.indent(result.script, '    ')}"))
            bar.set_postfix_str(f"proved {proved}")
    return proved
