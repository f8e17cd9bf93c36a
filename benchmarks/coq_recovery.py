"""Recovery: how long a search pauses when coqtop is killed (``kill -9``) in the middle of it.

A best-first search runs on a theorem; after its ``--kill-after``-th tactic the coqtop serving it
is killed with SIGKILL. The next tactic finds coqtop dead (answered ``TacticError(CRASH)`` when
the process dies under it), the session restarts coqtop and replays the theorem's context, and
the following tactics replay the path to the states they are asked for. Printed per theorem: the
time from the kill to the first tactic answered normally again
(the pause the search sees), a normal tactic's median latency for comparison, and whether the
search still found its proof.

    python benchmarks/coq_recovery.py [--kill-after 5]

Theorems: an ad-hoc lemma after ``Require Import Arith Lia`` and stdlib lemmas at increasing
depth in their files (the context to replay grows with the depth).
"""

from __future__ import annotations

import argparse
import os
import signal
import statistics

from prover.benchmarks.results import add_results_flag, write_results
from prover.coq.context import adhoc_theorem
from prover.coq.env import CoqEnvironment
from prover.coq.presets import baseline_config
from prover.registry import prover_from
from search_tree import Status
from search_tree.events import SearchEvent, TacticRun

STDLIB = ["Coq.Numbers.HexadecimalFacts.unorm_spec", "Coq.ZArith.Zquot.Zrem_0_r",
          "Coq.Relations.Operators_Properties.rt1n_ind_right"]


def measure(env: CoqEnvironment, theorem, kill_after: int) -> dict:
    events: list[TacticRun] = []
    killed_at: list[int] = []

    def on_event(event: SearchEvent) -> None:
        if not isinstance(event, TacticRun):
            return
        events.append(event)
        if len(events) == kill_after and not killed_at:
            pid = env.coqtop_pids[0]
            os.kill(pid, signal.SIGKILL)
            killed_at.append(len(events))

    result = prover_from(baseline_config(None, timeout=60, max_expansions=40)).search(env, theorem, on_event=on_event)
    if not killed_at:
        return {"killed": False}
    kill = events[killed_at[0] - 1]
    after = events[killed_at[0]:]
    first_ok = next((e for e in after if e.outcome != "crash"), None)
    normal = [e.seconds for e in events[: killed_at[0]]]
    return {
        "killed": True,
        "crashed": sum(e.outcome == "crash" for e in after),
        "resume": None if first_ok is None or first_ok.t is None or kill.t is None else first_ok.t - kill.t,
        "median": statistics.median(normal),
        "proved": result.status == Status.PROVED,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--kill-after", type=int, default=5, help="kill coqtop after this many tactics")
    add_results_flag(parser)
    args = parser.parse_args()
    with CoqEnvironment(tactic_timeout=2) as env:
        theorems = [adhoc_theorem("Lemma sum_comm : forall a b c : nat, a + (b + c) = c + (b + a).",
                                  ["Require Import Arith Lia."])]
        theorems += [env.theorem(name) for name in STDLIB]
        print(f"{'theorem':34s} {'context':>9s} {'resume':>8s} {'crash answers':>13s} {'median tactic':>14s} proved")
        for theorem in theorems:
            context = env.context(theorem)
            row = measure(env, theorem, args.kill_after)
            env.close()  # the next theorem starts from a fresh coqtop too
            if not row["killed"] or row["resume"] is None:
                print(f"{theorem.full_name:34s} search ended before the kill or never resumed")
                continue
            print(f"{theorem.full_name[:34]:34s} {len(context.prefix):6d} s. {row['resume'] * 1e3:6.0f}ms "
                  f"{row['crashed']:13d} {row['median'] * 1e3:12.2f}ms {row['proved']}")
    print("context: sentences replayed to reopen the theorem; resume: from the kill to the end of the first "
          "tactic answered normally after it (restart, context and path replay included); crash answers: "
          "tactics answered TacticError(CRASH) meanwhile (the one running when coqtop was found dead)")


if __name__ == "__main__":
    main()
    write_results()
