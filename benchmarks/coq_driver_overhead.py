"""Driver overhead: latency of simple tactics through the Coq backend versus a bare coqtop pipe.

Both sides run the same proof, round after round, from the same initial state, in one process,
interleaved so that machine load affects them alike, and taking turns to go first in a round
(whichever process ran last runs faster on warm caches):

* backend: ``CoqSession.run_tac`` (policy check, ``Timeout`` wrapping, ``BackTo`` to the round's
  start, reply framing, goal parsing with ``Show i`` for goals 2..n, state bookkeeping);
* bare pipe: the same tactic sentences written to another ``coqtop -emacs`` and read up to the
  next prompt (``BackTo`` to the round's start is sent there too, outside the timing); a third
  coqtop gets them wrapped in ``Timeout`` as the backend sends them.

Prints the median latency of each side and their ratio (target: under 1.5x) for two proofs: one
whose states have one goal each, and one with several goals, where the backend also asks
``Show i.`` for the hypotheses of each goal a tactic creates beyond the first (information the
bare pipe never gets).

    python benchmarks/coq_driver_overhead.py [--rounds 201] [--cold]

The backend memoises goal parsing and the policy check (states and tactics recur in a search);
rounds repeat the same proof, so they hit those caches; ``--cold`` clears them before every
tactic to measure the work for states the backend has never seen.
"""

from __future__ import annotations

import argparse
import os
import re
import statistics
import subprocess
import time

from prover.benchmarks.results import add_results_flag, write_results
from prover.coq.context import adhoc_theorem
from prover.coq.env import CoqEnvironment
from prover.coq.goals import parse_view
from prover.coq.policy import check_tactic
from search_tree import ProofFinished, TacticResult, TacticState

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
        self.fd = self.proc.stdout.fileno()  # type: ignore[union-attr]  # a pipe: typeshed's Popen says Optional
        self.buf = b""
        self.read()  # the banner's prompt
        self.send("Set Printing Width 1000000.")

    def send(self, sentence: str) -> int:
        self.proc.stdin.write(sentence.encode() + b"\n")  # type: ignore[union-attr]  # a pipe, as above
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


def measure(env: CoqEnvironment, statement: str, tactics: list[str], rounds: int, cold: bool) -> dict[str, list[float]]:
    """Per-tactic latencies over ``rounds`` interleaved rounds of ``tactics``, for each side."""
    pipes = {"bare": BarePipe(), "bare+Timeout": BarePipe()}  # one process per side, like the backend's
    starts = {}
    for side, pipe in pipes.items():
        pipe.send("Require Import Arith.")
        starts[side] = pipe.send(statement)
    times: dict[str, list[float]] = {"backend": [], "bare": [], "bare+Timeout": []}
    with env.open(adhoc_theorem(statement, ["Require Import Arith."])) as (session, init):
        limit = f"Timeout {session.tactic_timeout:g} "

        def backend_round() -> None:
            state: TacticResult = init
            for tactic in tactics:
                assert isinstance(state, TacticState), (tactic, state)
                if cold:  # measure the backend's work without its memo caches (outside the timing)
                    parse_view.cache_clear()
                    check_tactic.cache_clear()
                t0 = time.perf_counter()
                state = session.run_tac(state, tactic)
                times["backend"].append(time.perf_counter() - t0)
            assert isinstance(state, ProofFinished)

        def bare_round(side: str, prefix: str) -> None:
            pipes[side].send(f"BackTo {starts[side]}.")
            for tactic in tactics:
                t0 = time.perf_counter()
                pipes[side].send(prefix + tactic)
                times[side].append(time.perf_counter() - t0)

        sides = [backend_round, lambda: bare_round("bare", ""), lambda: bare_round("bare+Timeout", limit)]
        for r in range(rounds):  # rotate who goes first: the process that ran last has warm caches
            for run_side in sides[r % 3:] + sides[: r % 3]:
                run_side()
    for pipe in pipes.values():
        pipe.close()
    return times


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=201)
    parser.add_argument("--cold", action="store_true",
                        help="clear the parse and policy caches before each tactic: every state is new to the backend")
    add_results_flag(parser)
    args = parser.parse_args()
    with CoqEnvironment(tactic_timeout=10) as env:
        for name, (statement, tactics) in SCENARIOS.items():
            times = measure(env, statement, tactics, args.rounds, args.cold)
            median = {side: statistics.median(xs) for side, xs in times.items()}
            print(f"{name}: {len(times['backend'])} tactics per side ({args.rounds} rounds of {len(tactics)}), interleaved")
            print(f"  median latency, bare coqtop pipe, plain tactics     : {median['bare'] * 1e6:6.0f} us"
                  f"   (p90 {_p90(times['bare']) * 1e6:.0f} us)")
            print(f"  median latency, bare coqtop pipe, Timeout-wrapped   : {median['bare+Timeout'] * 1e6:6.0f} us"
                  f"   (p90 {_p90(times['bare+Timeout']) * 1e6:.0f} us)")
            print(f"  median latency, Coq backend (run_tac)               : {median['backend'] * 1e6:6.0f} us"
                  f"   (p90 {_p90(times['backend']) * 1e6:.0f} us)")
            print(f"  ratio backend / bare, plain tactics                 : {median['backend'] / median['bare']:6.2f}x"
                  " (target < 1.5x)")
            print(f"  ratio backend / bare, the sentences the backend sends: {median['backend'] / median['bare+Timeout']:5.2f}x")


def _p90(xs: list[float]) -> float:
    return sorted(xs)[int(0.9 * (len(xs) - 1))]


if __name__ == "__main__":
    main()
    write_results()
