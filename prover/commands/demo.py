"""Prove Coq standard library lemmas of the test split with the default prover, beside ``hammer``.

The demo takes a fixed, machine-independent sample of the test split's lemmas whose library
proofs are short (at most ``--max-proof-sentences`` sentences), searches each with the default Coq
prover (``prover.coq.default_generator``: cheap automation and decision procedures, online kNN and proof
retrieval when the library is traced, CoqHammer's tactics, ``hammer`` once) on ``--workers``
workers (the engine of ``eval``, :class:`prover.run.distributed.DistributedProver`), prints each
proof as it is found, re-checked by coqc and coqchk, and then runs CoqHammer's ``hammer`` alone on
the same lemmas with the same limit and workers, so that its count is printed beside the
default's: the comparison a Coq user makes (``--no-hammer`` leaves it out).
"""

from __future__ import annotations

import argparse
import os
import textwrap
import time

from prover.benchmarks.results import add_results_flag, write_results
from prover.commands.eval import add_ray_address_argument
from prover.backend import Feature
from prover.backends import names, require
from prover.defaults import DEMO, add_limit_flags
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
                        help="search workers, each with its own coqtop (default: 2, or 1 on one core)")
    parser.add_argument("--no-hammer", action="store_true",
                        help="leave out the run of hammer alone on the same lemmas")
    parser.add_argument("--split", choices=["train", "val", "test"], default="test", help="stdlib split (default: test)")
    add_ray_address_argument(parser)
    add_results_flag(parser)  # `--write-results demo` writes the README's figures, benchmarks/results/demo.md


def run(args: argparse.Namespace) -> int:
    from prover.benchmarks.registry import stable_sample
    from prover.coq.presets import alone_config

    backend = require(args.env, Feature.DEMO_THEOREMS, "demo")
    default_config = require(args.env, Feature.PRESET, "demo").load(Feature.PRESET)
    short_theorems = backend.load(Feature.DEMO_THEOREMS)

    if min(args.limit, args.workers) < 1 or min(args.timeout, args.tactic_timeout, args.hammer_timeout) <= 0:
        raise UserError("--limit, --workers, --timeout, --tactic-timeout and --hammer-timeout must be positive")
    started = time.monotonic()
    short = short_theorems(args.split, args.max_proof_sentences)
    theorems = stable_sample(short, args.limit)
    print(f"Coq stdlib, {args.split} split: {len(short)} lemmas with library proofs of at most "
          f"{args.max_proof_sentences} sentences; attempting {len(theorems)} of them "
          f"({args.timeout:g}s and {args.max_expansions} expansions each, {args.workers} workers)", flush=True)
    config = default_config(args.timeout, args.tactic_timeout, args.hammer_timeout, args.max_expansions)
    proved = _prove(config, theorems, args.workers, "default prover", show=True, ray_address=args.ray_address)
    print(f"proved {proved} of {len(theorems)} lemmas in {time.monotonic() - started:.0f}s; "
          f"every proof re-checked by coqc and coqchk, assuming only the axioms of prover/coq/trusted_axioms.py", flush=True)
    if not args.no_hammer:
        from prover.coq.additions import guarded

        t0 = time.monotonic()
        hammer = _prove(alone_config(["hammer."], args.timeout, ["hammer"]), theorems, args.workers, "hammer alone",
                        ray_address=args.ray_address)
        withheld = len(guarded(("hammer",), theorems))
        print(f"hammer alone, {args.timeout:g}s per lemma, on the same lemmas: proved {hammer} of {len(theorems)} "
              f"in {time.monotonic() - t0:.0f}s ({withheld} of them are withheld from CoqHammer by the leak guard: "
              f"its imports load their own module)")
    return write_results(0)


def _prove(config, theorems: list, workers: int, what: str, show: bool = False, ray_address: str | None = None) -> int:
    """How many of ``theorems`` ``config`` proves on ``workers`` workers (on the Ray cluster at
    ``ray_address``, if any); with ``show``, each proof is printed as it is found."""
    from tqdm import tqdm

    from prover.commands.prove import assumes
    from prover.coq.records import CoqFields
    from prover.views.safe_text import printable
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
                    bar.write(printable(f"proved {CoqFields.of(theorem).qualified_name} ({theorem.file_path}:"
                                        f"{theorem.position[0] if theorem.position else '?'}) in {result.total_time:.1f}s, "
                                        f"{assumes(result)}:\n"
                                        f"{textwrap.indent(result.script, '    ')}"))
            bar.set_postfix_str(f"proved {proved}")
    return proved
