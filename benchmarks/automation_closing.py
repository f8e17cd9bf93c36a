"""How often each Coq automation tactic closes a training-split goal alone: the evidence for its prior.

    python benchmarks/automation_closing.py [--theorems 40] [--max-proof-sentences 3] [--tactic-timeout 1] [--write-results]

For a stable sample (:func:`prover.benchmarks.registry.stable_sample`) of the Coq stdlib's *train*
split (never the test split: the priors must not be fitted to what the demo and the benchmarks
measure), restricted like the demo's to theorems whose library proof is short (on unrestricted
theorems one tactic alone closes too few to rank anything: 2 of 40), every tactic of
:data:`prover.coq.templates.AUTOMATION` runs alone on the initial
goal and on the goal after ``intros.``, with ``--tactic-timeout`` seconds each. A tactic
*closes* a theorem when one of the two answers is :class:`search_tree.ProofFinished`. The table
puts the counts beside the list's log-priors, and the last line is the rank correlation between
the priors and the closing counts over the tactics that close something: the priors order the
closing tactics as the measurement does when it is high. Tactics that never close alone
(``intros.``, ``split.``, ...) are structural steps: their priors order the search, not finishers.
"""

from __future__ import annotations

import argparse
import sys
import time
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from prover.benchmarks.registry import stable_sample  # noqa: E402
from prover.benchmarks.results import add_results_flag, write_results  # noqa: E402
from prover.coq.templates import AUTOMATION  # noqa: E402
from search_tree import ProofFinished, TacticState  # noqa: E402


def main(argv: list[str] | None = None) -> dict[str, int]:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--theorems", type=int, default=40, help="size of the stable train-split sample")
    parser.add_argument("--max-proof-sentences", type=int, default=3,
                        help="only theorems whose library proof has at most this many sentences")
    parser.add_argument("--tactic-timeout", type=float, default=1.0, help="seconds per tactic")
    add_results_flag(parser, markdown=True)
    args = parser.parse_args(argv)
    from scipy.stats import spearmanr

    from prover.coq.env import CoqEnvironment
    from prover.coq.split import short_theorems

    closes: Counter[str] = Counter()
    closed: set[str] = set()
    started = time.monotonic()
    with CoqEnvironment(tactic_timeout=args.tactic_timeout) as env:
        theorems = stable_sample(short_theorems("train", args.max_proof_sentences, env.index), args.theorems)
        for theorem in theorems:
            with env.open(theorem) as (session, init):
                after_intros = session.run_tac(init, "intros.")
                starts = [init] + ([after_intros] if isinstance(after_intros, TacticState) else [])
                for tactic, _ in AUTOMATION:
                    if any(isinstance(session.run_tac(s, tactic), ProofFinished) for s in starts):
                        closes[tactic] += 1
                        closed.add(theorem.full_name)
    print(f"Coq stdlib train split, stable sample of {len(theorems)} theorems with library proofs of at most "
          f"{args.max_proof_sentences} sentences, {args.tactic_timeout:g}s per tactic, "
          f"{time.monotonic() - started:.0f}s; {len(closed)} closed by some tactic alone")
    print("| tactic | closes alone | log-prior |\n|---|---|---|")
    for tactic, prior in sorted(AUTOMATION, key=lambda tp: (-closes[tp[0]], -tp[1])):
        print(f"| `{tactic}` | {closes[tactic]}/{len(theorems)} | {prior:.2f} |")
    closing = [(closes[t], p) for t, p in AUTOMATION if closes[t]]
    if len(closing) > 1:
        rho = spearmanr([c for c, _ in closing], [p for _, p in closing]).statistic
        print(f"rank correlation of prior and closing count over the {len(closing)} closing tactics: {rho:.2f}")
    return dict(closes)


if __name__ == "__main__":
    main()
    write_results()
