"""What the kernel re-check costs: verification time per proof, coqc alone vs coqc + coqchk.

    python -m benchmarks.verify_time [--repeat 3]

Runs the two steps of :func:`prover.coq.verify.verify_proof` separately on ten honest proofs
(stdlib theorems with short proofs and ad-hoc lemmas), best of ``--repeat`` runs each, and prints
one line per proof and the medians.
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time
from pathlib import Path

from prover.benchmarks.results import add_results_flag, write_results
from prover.coq import verify
from prover.coq.context import adhoc_theorem
from prover.coq.env import CoqEnvironment
from prover.coq.render import render_proof
from search_tree import linear_proof

STDLIB = [
    ("wf_inverse_image", ["intros; red; intros; apply Acc_inverse_image; auto."]),
    ("Nat.add_0_l", ["intros; reflexivity."]),
    ("Coq.Lists.List.app_nil_r", ["intros; induction l; simpl; congruence."]),
    ("OrderedTypeRev.le_lteq", ["intros; unfold le, lt, flip; rewrite O.le_lteq; intuition."]),
    ("negb_involutive", ["intros []; reflexivity."]),
]
ADHOC = [
    ("Lemma two : 1 + 1 = 2.", ["Require Import Arith."], ["reflexivity."]),
    ("Lemma comm : forall n m : nat, n + m = m + n.", ["Require Import Arith Lia."], ["intros.", "lia."]),
    ("Lemma em : forall P : Prop, P \\/ ~ P.", ["Require Import Classical."], ["exact classic."]),
    ("Goal forall A B : Prop, A /\\ B -> B /\\ A.", [], ["intros A B [a b].", "split; assumption."]),
    ("Example ex : 2 * 3 = 6.", [], ["reflexivity."]),
]


def timed(context, proof) -> tuple[float, float]:
    """(coqc seconds, coqchk seconds) of one check, each step as verify_proof runs it."""
    script = render_proof(proof)
    dirpath, _, base = context.module.rpartition(".")
    with tempfile.TemporaryDirectory(prefix="dojo-verify-bench-") as tmp:
        deadline = time.monotonic() + 600
        t0 = time.perf_counter()
        verify._compile(context, script, "bench", Path(tmp), base, dirpath, deadline)
        t1 = time.perf_counter()
        verify._coqchk(context, Path(tmp) / f"{base}.vo", dirpath, "dojo_bench", deadline)
        t2 = time.perf_counter()
    return t1 - t0, t2 - t1


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3, help="runs per proof; the best is kept (default: 3)")
    add_results_flag(parser)
    args = parser.parse_args()
    with CoqEnvironment() as env:
        cases = [(name, env.theorem(name), tactics) for name, tactics in STDLIB]
        cases += [(st.split(":")[0], adhoc_theorem(st, pre), tactics) for st, pre, tactics in ADHOC]
        coqc, both = [], []
        print(f"{'proof':40s} {'coqc s':>8s} {'coqchk s':>9s} {'total s':>8s}")
        for label, theorem, tactics in cases:
            proof = linear_proof(tactics)
            assert env.verify(theorem, proof).ok, label
            runs = [timed(env.context(theorem), proof) for _ in range(args.repeat)]
            c, k = min(r[0] for r in runs), min(r[1] for r in runs)
            coqc.append(c)
            both.append(c + k)
            print(f"{label:40s} {c:8.3f} {k:9.3f} {c + k:8.3f}")
    print(f"median per proof: coqc alone {statistics.median(coqc):.3f}s, coqc + coqchk "
          f"{statistics.median(both):.3f}s (+{statistics.median(b - c for b, c in zip(both, coqc)):.3f}s)")


if __name__ == "__main__":
    main()
    write_results()
