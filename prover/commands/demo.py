"""Prove Coq standard library lemmas of the test split with best-first search, and show the proofs.

The demo takes a fixed, machine-independent sample of the test split's lemmas whose library
proofs are short (at most ``--max-proof-sentences`` sentences), searches each with the default Coq
prover (``generator.coq_default``: cheap automation and decision procedures, online kNN and proof
retrieval when the library is traced, CoqHammer's tactics, ``hammer`` once), re-checks every
proof found with coqc (``Print Assumptions``: no axioms beyond the stdlib's), and prints what it
proved. With ``--compare-hammer`` it then runs CoqHammer's ``hammer`` alone on the same lemmas
with the same time limit and prints what that proved beside its own count (an option because it
adds up to ``--timeout`` seconds per lemma). Defaults finish in a few minutes on two cores.
"""

from __future__ import annotations

import argparse
import textwrap
import time

from benchmarks.results import add_results_flag, write_results
from search_tree.errors import UserError


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--limit", type=int, default=32, help="how many lemmas to attempt (default: 32)")
    parser.add_argument("--timeout", type=float, default=10.0, help="search seconds per lemma (default: 10)")
    parser.add_argument("--max-expansions", type=int, default=40, help="expansions per lemma (default: 40)")
    parser.add_argument("--tactic-timeout", type=float, default=2.0, help="seconds per tactic (default: 2)")
    parser.add_argument("--max-proof-sentences", type=int, default=3,
                        help="only lemmas whose library proof has at most this many sentences (default: 3)")
    parser.add_argument("--hammer-timeout", type=float, default=5.0,
                        help="seconds for the default prover's one hammer call per lemma (default: 5)")
    parser.add_argument("--compare-hammer", action="store_true",
                        help="also run hammer alone on the same lemmas, --timeout seconds each, and print its count")
    parser.add_argument("--split", choices=["train", "val", "test"], default="test", help="stdlib split (default: test)")
    add_results_flag(parser)  # `--write-results demo` writes the README's figures, benchmarks/results/demo.md


def run(args: argparse.Namespace) -> int:
    from tqdm import tqdm

    from benchmarks.registry import stable_sample
    from generator.coq_default import build_default, default_config
    from prover.coq.split import short_theorems
    from search_tree import Status

    if args.limit < 1 or args.timeout <= 0 or args.tactic_timeout <= 0 or args.hammer_timeout <= 0:
        raise UserError("--limit, --timeout, --tactic-timeout and --hammer-timeout must be positive")
    started = time.monotonic()
    env, prover = build_default(default_config(args.timeout, args.tactic_timeout, args.hammer_timeout,
                                               args.max_expansions))
    with env:
        short = short_theorems(args.split, args.max_proof_sentences, env.index)
        theorems = stable_sample(short, args.limit)
        print(f"Coq stdlib, {args.split} split: {len(short)} lemmas with library proofs of at most "
              f"{args.max_proof_sentences} sentences; attempting {len(theorems)} of them "
              f"({args.timeout:g}s and {args.max_expansions} expansions each)")
        proved = []
        bar = tqdm(theorems, unit="lemma", dynamic_ncols=True)
        for theorem in bar:
            bar.set_postfix_str(f"proved {len(proved)}, now {theorem.full_name}"[:60])
            result = prover.search(env, theorem)
            if result.status == Status.PROVED:
                proved.append(result)
                bar.write(f"proved {theorem.extra['qualified_name']} ({theorem.file_path}:{theorem.position[0]}) "
                          f"in {result.total_time:.1f}s:\n{textwrap.indent(result.script, '    ')}")
        bar.close()
    print(f"proved {len(proved)} of {len(theorems)} lemmas in {time.monotonic() - started:.0f}s; "
          f"every proof re-checked by coqc and coqchk with no axioms beyond the stdlib's")
    if args.compare_hammer:
        print(f"hammer alone, {args.timeout:g}s per lemma, on the same lemmas: proved {_hammer_alone(theorems, args.timeout)} "
              f"of {len(theorems)}")
    return write_results(0)


def _hammer_alone(theorems: list, timeout: float) -> int:
    """How many of ``theorems`` one ``hammer`` call proves (``timeout`` seconds, leak guard applied)."""
    from generator.coq_default import alone_config, build_default

    env, prover = build_default(alone_config(["hammer."], timeout, ["hammer"]))
    with env:
        return sum(prover.search(env, t).status.value == "proved" for t in theorems)
