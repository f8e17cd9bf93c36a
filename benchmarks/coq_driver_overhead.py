"""Driver overhead: latency of simple tactics through the Coq backend versus a bare coqtop pipe.

Both sides run the same proof, round after round, from the same initial state, in one process,
interleaved so that machine load affects them alike:

* backend: ``CoqSession.run_tac`` (policy check, ``Timeout`` wrapping, ``BackTo`` to the round's
  start, reply framing, goal parsing with ``Show i`` for goals 2..n, state bookkeeping);
* bare pipe: the same tactic sentences written to another ``coqtop -emacs`` and read up to the
  next prompt (``BackTo`` to the round's start is sent there too, outside the timing).

Prints the median latency of each side and their ratio (target: under 1.5x) for two proofs: one
whose states have one goal each, and one with several goals, where the backend also asks
``Show i.`` for the hypotheses of each goal a tactic creates beyond the first (information the
bare pipe never gets).

    python benchmarks/coq_driver_overhead.py [--rounds 200]
"""

from __future__ import annotations

import argparse
import os
import re
import statistics
import subprocess
import time

from prover.coq.context import adhoc_theorem
from prover.coq.env import CoqEnvironment
from search_tree import ProofFinished, TacticState

# (statement, simple tactics on one linear path, the last one finishing the proof)
SCENARIOS = {
    "one goal at a time": (
        "Lemma bench1 : forall a b c : nat, a = b -> b = c -> 0 + a = c + 0.",
        ["intros a b c Hab Hbc.", "simpl.", "rewrite Hab.", "rewrite Hbc.", "rewrite <- plus_n_O.", "reflexivity."],
    ),
    "several goals": (
        "Lemma bench2 : forall a b c : nat, a = b -> b = c -> (a = c /\\ S a = S b) /\\ True.",
        ["intros a b c Hab Hbc.", "split.", "split.", "rewrite Hab.", "exact Hbc.",
         "simpl.", "rewrite Hab.", "reflexivity.", "exact I."],
    ),
}
PROMPT = re.compile(rb"<prompt>\S+ < (\d+) \|[^|]*\| \d+ < </prompt>")


class BarePipe:
    """coqtop -emacs with nothing on top: write a sentence, read until the prompt."""

    def __init__(self) -> None:
        self.proc = subprocess.Popen(["coqtop", "-emacs"], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     stderr=subprocess.STDOUT, bufsize=0)
        self.fd = self.proc.stdout.fileno()
        self.buf = b""
        self.read()  # the banner's prompt
        self.send("Set Printing Width 1000000.")

    def send(self, sentence: str) -> int:
        self.proc.stdin.write(sentence.encode() + b"\n")
        return self.read()

    def read(self) -> int:
        while (m := PROMPT.search(self.buf)) is None:
            chunk = os.read(self.fd, 1 << 16)
            if not chunk:
                raise RuntimeError("coqtop exited")
            self.buf += chunk
        self.buf = self.buf[m.end():]
        return int(m.group(1))

    def close(self) -> None:
        self.proc.kill()
        self.proc.wait()


def measure(env: CoqEnvironment, statement: str, tactics: list[str], rounds: int) -> tuple[list[float], list[float]]:
    """Per-tactic latencies (backend, bare pipe) over ``rounds`` interleaved rounds of ``tactics``."""
    bare = BarePipe()
    bare.send("Require Import Arith.")
    start = bare.send(statement)
    backend_times: list[float] = []
    bare_times: list[float] = []
    with env.open(adhoc_theorem(statement, ["Require Import Arith."])) as (session, init):
        for _ in range(rounds):
            state = init
            for tactic in tactics:
                t0 = time.perf_counter()
                state = session.run_tac(state, tactic)
                backend_times.append(time.perf_counter() - t0)
                assert isinstance(state, (TacticState, ProofFinished)), (tactic, state)
            assert isinstance(state, ProofFinished)
            bare.send(f"BackTo {start}.")
            for tactic in tactics:
                t0 = time.perf_counter()
                bare.send(tactic)
                bare_times.append(time.perf_counter() - t0)
    bare.close()
    return backend_times, bare_times


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=200)
    args = parser.parse_args()
    with CoqEnvironment(tactic_timeout=10) as env:
        for name, (statement, tactics) in SCENARIOS.items():
            backend, bare = measure(env, statement, tactics, args.rounds)
            b, r = statistics.median(backend), statistics.median(bare)
            print(f"{name}: {len(backend)} tactics per side ({args.rounds} rounds of {len(tactics)}), interleaved")
            print(f"  median latency, bare coqtop pipe : {r * 1e6:8.0f} us   (p90 {_p90(bare) * 1e6:.0f} us)")
            print(f"  median latency, Coq backend      : {b * 1e6:8.0f} us   (p90 {_p90(backend) * 1e6:.0f} us)")
            print(f"  ratio backend / bare pipe        : {b / r:8.2f}x (target < 1.5x)")


def _p90(xs: list[float]) -> float:
    return sorted(xs)[int(0.9 * (len(xs) - 1))]


if __name__ == "__main__":
    main()
